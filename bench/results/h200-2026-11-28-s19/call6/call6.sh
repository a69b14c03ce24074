#!/usr/bin/env bash
# session 19, call 6: held out: DS1 seed 11 (another synthesised DS1, not the seed the residual and gradient updates
# were measured on), both precisions, auto against the textbook fit; then DS1 seed 3 f32 with CLPK_LOG=debug for 60
# steps: weights clipped and voxels stamped per step.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-500}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 330) $B/clpk-bench-life --size ds1 --seed 11 --precision both --runs 10 --iters 500 --check \
    --atomics-iters 0 --json $R/life-seed11.json --md $R/life-seed11.md > $R/life-seed11.log 2>&1
stamp "ds1 seed 11 rc $?"
CLPK_LOG=debug timeout $(left) $B/clpk-bench-life --size ds1 --seed 3 --precision f32 --runs 1 --iters 60 \
    --atomics-iters 0 --residual-every 50 --json $R/stamps.json --md $R/stamps.md > $R/stamps.log 2>&1
stamp "stamps rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "^fit\|^dsc\|^wc" $R/life-seed11.log | grep -v atomics
grep -h "f64 / f32" $R/life-seed11.md
grep -h "voxels stamped" $R/stamps.log | awk '{print $5, $7, $12}' | head -60 | tr '\n' ';'
grep -h "FAIL" $R/*.log | head
