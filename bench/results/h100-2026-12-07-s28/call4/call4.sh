#!/usr/bin/env bash
# session 28, call 4 (H100): as call 3, after the CSR plans of one verify share one upload and a candidate over 1.5x
# the best after one multiply is not timed further: the evaluation corpus with verify=auto (plan times, program cache
# warm) against the fair cuSPARSE peer, shipped profile; one plan with its debug lines (fem2d f64).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
mkdir -p .gpu/data && tar xzf .gpu/mtx/matrices.tgz -C .gpu/data
R=/tmp/res4; rm -rf $R; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-580}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
PROFILE=profiles/nvidia-h100.json
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && PROFILE=profiles/nvidia-h200.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt; stamp "$(cat $R/gpu.txt), $PROFILE"
timeout 150 $B/clpk-tune --prebuild > $R/prebuild.log 2>&1; stamp "prebuild rc $? (the program cache warm: plan times)"
CLPK_DEVICE=gpu timeout 60 .gpu/s28/main/test_spmv_model > $R/test_spmv_model.log 2>&1; stamp "test_spmv_model rc $?"
timeout $(left 300) bench/spmv.sh --out $R/spmv-s13 --bin $B --cases none --corpus bench/spmv_corpus.txt \
    --impls clpk-auto > $R/spmv-s13.log 2>&1; stamp "spmv rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
CLPK_LOG=debug timeout 60 $B/clpk-spmv --generate fem:900 --precision f64 --bench 10 > $R/fem900-f64-debug.log 2>&1; stamp "debug plan rc $?"
cat $R/steps.log; grep -E "upload|conversion|verify|plan created" $R/fem900-f64-debug.log | cut -c1-160; tail -3 $R/test_spmv_model.log; grep -E "^\| |Geometric" $R/spmv-s13/spmv.md | cut -d"|" -f1-9
