set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res1; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-580}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
for model in s13 s27; do
    if [ $model = s27 ]; then export CLPK_PROFILE_DIR=/tmp/prof27; else unset CLPK_PROFILE_DIR; fi
    timeout $(left 560) bench/spmv.sh --out $R/spmv-$model --bin $B --cases none --corpus bench/spmv_corpus.txt \
        --impls clpk-auto --variant close=verify=close > $R/spmv-$model.log 2>&1; stamp "spmv $model rc $?"
    find $R -name "*.npy" -delete
    tar czf $OUT/results.tgz -C $R .
done
cat $R/steps.log
for model in s13 s27; do echo "== $model"; grep -E "^\| |Geometric" $R/spmv-$model/spmv.md | cut -d'|' -f1-9; done
