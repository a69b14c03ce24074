#!/usr/bin/env bash
# session 28, call 2 (H100): SpMV's held-out check of the shipped profile (issue #23 item 3) with verify=auto's guard:
# auto against the defaults and the model's variants (at most 4 a precision), the evaluation corpus.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
R=/tmp/res2; rm -rf $R; mkdir -p $R
mkdir -p .gpu/data && tar xzf .gpu/mtx/matrices.tgz -C .gpu/data
t0=$(date +%s)
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
CLPK_SHARED_DATA_DIR=$PWD/.gpu/data timeout 570 python3 bench/heldout.py --bin .gpu/build/bin --families spmv \
    --max-sets 4 --profile profiles/nvidia-h100.json --out $R/heldout-spmv > $R/heldout-spmv.log 2>&1; stamp "heldout spmv rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log; tail -45 $R/heldout-spmv.log
