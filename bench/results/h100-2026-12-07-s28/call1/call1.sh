#!/usr/bin/env bash
# session 28, call 1 (H100): SpMV's evaluation corpus (real matrices from .gpu/mtx/matrices.tgz) against the fair
# cuSPARSE peer, automatic plans with verify=auto (now: the short list, the defaults and CSR's best timed) and
# verify=close (the previous auto), with the shipped profile (session 13's model) and session 27's re-trained model;
# test_spmv_model on the GPU; the SS-HOPM (4,3) f32 plan grid (entries x wg x check_every, fixed 200 iterations and
# to convergence; issue #23's 410 G line).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
mkdir -p .gpu/data && tar xzf .gpu/mtx/matrices.tgz -C .gpu/data
R=/tmp/res1; rm -rf $R; mkdir -p $R /tmp/prof27
cp .gpu/s28/tuned.json /tmp/prof27/nvidia-h100.json
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-580}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
CLPK_DEVICE=gpu timeout 60 .gpu/s28/main/test_spmv_model > $R/test_spmv_model.log 2>&1; stamp "test_spmv_model rc $?"
for model in s13 s27; do
    if [ $model = s27 ]; then export CLPK_PROFILE_DIR=/tmp/prof27; else unset CLPK_PROFILE_DIR; fi
    timeout $(left 520) bench/spmv.sh --out $R/spmv-$model --bin $B --cases none --corpus bench/spmv_corpus.txt \
        --impls clpk-auto --variant close=verify=close > $R/spmv-$model.log 2>&1; stamp "spmv $model rc $?"
    find $R -name "*.npy" -delete
    tar czf $OUT/results.tgz -C $R .
done
unset CLPK_PROFILE_DIR
for mode in fixed converge; do
    flag=""; [ $mode = converge ] && flag=--converge
    for e in private global; do for wg in 64 128 256; do for ce in 4 8 16; do
        [ $(left) -lt 15 ] && break 4
        p=kernel=generated,entries=$e,wg=$wg,check_every=$ce
        timeout $(left) $B/clpk-bench-sshopm --out $R/s-$mode-$e-$wg-$ce --shapes 4x3 --precision f32 \
            --tensors 65536 --starts 128 --iters 200 --repeats 20 --voxels 0 --no-peak --no-npy $flag --params $p \
            > $R/s-$mode-$e-$wg-$ce.log 2>&1
        echo "$mode $p $(grep -oE '[0-9.]+ ms, [0-9.]+ G start-iterations/s|[0-9.]+ ms[^|]*converged[^|]*' \
            $R/s-$mode-$e-$wg-$ce.log | head -1) $(grep -oE "[0-9.]+ iterations a start" $R/s-$mode-$e-$wg-$ce.log)" >> $R/sshopm-grid.txt
    done; done; done
done
stamp "sshopm grid"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log; tail -3 $R/test_spmv_model.log; cat $R/sshopm-grid.txt
for model in s13 s27; do echo "== $model"; grep -E "^\| |Geometric" $R/spmv-$model/spmv.md | cut -d'|' -f1-9; done
