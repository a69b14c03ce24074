#!/usr/bin/env bash
# session 18, call 5: what a user gets on the H200 with the final GPU defaults (dsc=pairs and wc=pairs with teams of 8,
# 16 a group, unroll 8, where the pair rule pays) and the shipped profile: DS1 seed 3, both precisions (README row).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
CLPK_LOG=debug timeout 300 $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 20 --iters 500 --check \
    --atomics-iters 2 --json $R/life.json --md $R/life.md > $R/life.log 2>&1; stamp "life ds1 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
sed -n '/^| case/,$p' $R/life.md | head -40
grep -h "pair (sampled\|^plan (" $R/life.log | cut -c1-300 | head -4
grep -h "FAIL" $R/life.log | head
