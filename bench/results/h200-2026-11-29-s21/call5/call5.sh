#!/usr/bin/env bash
# session 21, call 5: what a user gets for SpMV after the CSR row-sum change: the whole held-out corpus with the
# automatic plan (shipped H200 profile) and the fair cuSPARSE peer (bench/spmv.sh); LiFE DS1's plan phases
# (CLPK_LOG=debug) on this 16-core host.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-400}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 200) bench/spmv.sh --out $R/spmv-eval --bin $B --cases none --corpus bench/spmv_corpus.txt \
    --impls clpk-auto > $R/spmv-eval.log 2>&1; stamp "spmv eval rc $?"
timeout $(left 240) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1; stamp "synth rc $?"
for i in 1 2; do
    CLPK_LOG=debug timeout $(left) $B/clpk-bench-life --data /tmp/ds1 --precision f32 --runs 3 --iters 0 \
        --orders "unroll=8" --json $R/life-plan$i.json --md $R/life-plan$i.md > $R/life-plan$i.log 2>&1
    stamp "life plan $i rc $?"
done
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "plan set up\|pair copy\|^plan (" $R/life-plan*.log | cut -c1-200
grep "^| " $R/spmv-eval/spmv.md | cut -d'|' -f2-8 | head -40
