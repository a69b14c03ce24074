#!/usr/bin/env bash
# session 27, call 1: the weighted all-family tune on the H100 (issue #23 item 4), cold caches, <= 10 minutes.
# Leaves the profile in /tmp/res1/tuned.json for the next call on the same (warm) machine.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH
R=/tmp/res1; rm -rf $R; mkdir -p $R
export CLPK_CACHE_DIR=/tmp/clpk-cache-cold
rm -rf $CLPK_CACHE_DIR
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader > $R/info.txt
.gpu/build/bin/clpk-info >> $R/info.txt 2>&1
git log -1 --format=%h >> $R/info.txt 2>/dev/null
date >> $R/info.txt
t0=$(date +%s)
timeout 575 .gpu/build/bin/clpk-tune --device nvidia --budget 530 --out $R/tuned.json > $R/tune.log 2>&1
echo "tune rc $? in $(( $(date +%s) - t0 )) s" | tee -a $R/info.txt
date >> $R/info.txt
cp $R/tuned.json $OUT/tuned.json 2>/dev/null
gzip -c $R/tuned.json.cache.jsonl > $R/tuned.json.cache.jsonl.gz 2>/dev/null
tar czf $OUT/results.tgz -C $R --exclude tuned.json.cache.jsonl .
cat $R/info.txt
tail -30 $R/tune.log
