#!/usr/bin/env bash
# session 27, call 4 (H100): SS-HOPM (4,3) plan grid, fixed 200 iterations (the README row) and to convergence
# (what the tuner measures); SpMV's evaluation corpus with the real matrices (.gpu/data/matrices) against the fair
# cuSPARSE peer, the call-1 profile (issue #22).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
mkdir -p .gpu/data && tar xzf .gpu/mtx/matrices.tgz -C .gpu/data
R=/tmp/res4; rm -rf $R; mkdir -p $R /tmp/prof
cp .gpu/s27/tuned.json /tmp/prof/nvidia-h100.json
export CLPK_PROFILE_DIR=/tmp/prof
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-330}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for mode in fixed converge; do
    flag=""; [ $mode = converge ] && flag=--converge
    for e in private global; do for wg in 64 128 256; do for ce in 4 8 16; do
        p=kernel=generated,entries=$e,wg=$wg,check_every=$ce
        timeout $(left 110) $B/clpk-bench-sshopm --out $R/s-$mode-$e-$wg-$ce --shapes 4x3 --precision f32 \
            --tensors 65536 --starts 128 --iters 200 --repeats 20 --voxels 0 --no-peak --no-npy $flag --params $p \
            > $R/s-$mode-$e-$wg-$ce.log 2>&1
        echo "$mode $p $(grep -oE '[0-9.]+ ms, [0-9.]+ G start-iterations/s' $R/s-$mode-$e-$wg-$ce.log | head -1)" \
            >> $R/sshopm-grid.txt
    done; done; done
done
stamp "sshopm grid"
tar czf $OUT/results.tgz -C $R .
timeout $(left 320) bench/spmv.sh --out $R/spmv-eval --bin $B --cases none --corpus bench/spmv_corpus.txt \
    --impls clpk-auto > $R/spmv-eval.log 2>&1; stamp "spmv eval rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log; cat $R/sshopm-grid.txt
grep -E "^\| |Geometric" $R/spmv-eval/spmv.md | cut -d'|' -f1-8
