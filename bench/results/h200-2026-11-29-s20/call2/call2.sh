#!/usr/bin/env bash
# session 20, call 2: life_wc_block_dot rebuilt (chunks of 8 rounds a group, the round's pair metadata loaded first,
# y rows staged by teams with vector loads); DS1 seed 3 products only (no fits), f32 and f64, and synth medium.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 90) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1
stamp "synth rc $?"
timeout $(left 250) $B/clpk-bench-life --data /tmp/ds1 --precision f32 --runs 10 --iters 0 --check \
    --orders "wc_block=0;wc_block=64,voxel_order=morton;wc_block=32,voxel_order=morton;wc_block=64,voxel_order=index;wc_block=64,voxel_order=morton,unroll=4;wc_block=64,voxel_order=morton,wc_team=4,wc_runs=32" \
    --json $R/ds1-f32.json --md $R/ds1-f32.md > $R/ds1-f32.log 2>&1
stamp "ds1 f32 rc $?"
timeout $(left 400) $B/clpk-bench-life --data /tmp/ds1 --precision f64 --runs 10 --iters 0 \
    --orders "wc_block=0;wc_block=32,voxel_order=morton;wc_block=16,voxel_order=morton;wc_block=32,voxel_order=index;wc_block=32,voxel_order=morton,unroll=4,wc_runs=32" \
    --json $R/ds1-f64.json --md $R/ds1-f64.md > $R/ds1-f64.log 2>&1
stamp "ds1 f64 rc $?"
timeout $(left) $B/clpk-bench-life --size medium --seed 5 --precision f32 --runs 20 --iters 0 --check \
    --orders "wc_block=0;wc_block=64,voxel_order=morton;wc_block=32,voxel_order=morton" \
    --json $R/medium.json --md $R/medium.md > $R/medium.log 2>&1
stamp "medium rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "^| wc \|^| dsc-wtrue" $R/ds1-f32.md $R/ds1-f64.md $R/medium.md
grep -h "FAIL\|WRONG\|plan with" $R/*.log | head
