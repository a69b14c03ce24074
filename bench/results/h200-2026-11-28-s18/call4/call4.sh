#!/usr/bin/env bash
# session 18, call 4: wc=pairs's dot launch as teams with vector loads and a transposed local reduction, against
# wc=fiber (dsc=pairs in every list, the new GPU default for DS1), DS1 seed 3 and synth medium seed 5, both precisions.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-420}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
L="dsc=pairs,wc=fiber;dsc=pairs,wc=pairs,wc_team=8,wc_runs=32,unroll=4;dsc=pairs,wc=pairs,wc_team=8,wc_runs=16,unroll=8;dsc=pairs,wc=pairs,wc_team=4,wc_runs=32,unroll=8"
timeout $(left 330) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 30 --iters 500 --check --orders "$L" \
    --json $R/life-wcpairs.json --md $R/life-wcpairs.md > $R/life-wcpairs.log 2>&1; stamp "ds1 rc $?"
timeout $(left) $B/clpk-bench-life --size medium --seed 5 --precision both --runs 30 --iters 200 --check --orders "$L" \
    --json $R/life-wcpairs-medium.json --md $R/life-wcpairs-medium.md > $R/life-wcpairs-medium.log 2>&1; stamp "medium rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "^| wc\|^| clpk-order" $R/life-wcpairs.md $R/life-wcpairs-medium.md
grep -h "FAIL\|error" $R/*.log | head
