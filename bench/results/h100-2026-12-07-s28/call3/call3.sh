#!/usr/bin/env bash
# session 28, call 3 (H100, or the H200 with its own profile): the verify guard with every CSR variant (library at the commit of this folder): the
# evaluation corpus with verify=auto and verify=close against the fair cuSPARSE peer, shipped profile; the held-out
# check of the shipped profile (both precisions now kept apart; auto against the defaults and the four CSR sets).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
mkdir -p .gpu/data && tar xzf .gpu/mtx/matrices.tgz -C .gpu/data
R=/tmp/res3; rm -rf $R; mkdir -p $R
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
    --impls clpk-auto --variant close=verify=close > $R/spmv-s13.log 2>&1; stamp "spmv rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
CLPK_SHARED_DATA_DIR=$PWD/.gpu/data timeout $(left) python3 bench/heldout.py --bin $B --families spmv \
    --max-sets 4 --profile $PROFILE --out $R/heldout-spmv > $R/heldout-spmv.log 2>&1
stamp "heldout spmv rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log; tail -3 $R/test_spmv_model.log; tail -4 $R/heldout-spmv.log
