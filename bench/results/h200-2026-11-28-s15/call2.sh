#!/usr/bin/env bash
# session 15, call 2 (on the H200; prepared in session 14): the weighted all-family tune with session 14's xcorr defaults, cold
# caches, <= 10 minutes; its entries carry defaults_revision. Then ship it as profiles/nvidia-h100.json and run call2.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH
R=/tmp/res; mkdir -p $R
export CLPK_CACHE_DIR=/tmp/clpk-cache-cold
rm -rf $CLPK_CACHE_DIR
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/info.txt
.gpu/build/bin/clpk-info >> $R/info.txt 2>&1
date >> $R/info.txt
t0=$(date +%s)
timeout 570 .gpu/build/bin/clpk-tune --device nvidia --budget 540 --out $R/tuned.json > $R/tune.log 2>&1
echo "tune rc $? in $(( $(date +%s) - t0 )) s" | tee -a $R/info.txt
date >> $R/info.txt
tar czf $OUT/results.tgz -C $R .
tail -25 $R/tune.log
