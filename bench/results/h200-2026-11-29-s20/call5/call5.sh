#!/usr/bin/env bash
# session 20, call 5: life_wc_block_dot with the D row in registers (a team takes UNROLL consecutive pairs of its
# block, which mostly share the atom; y rows from local memory) against call 4's y-register life_wc_pair_dot, DS1 seed 3.
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
timeout $(left 250) $B/clpk-bench-life --data /tmp/ds1 --precision f32 --runs 10 --iters 0 --first-launch --check \
    --orders "wc_block=0;wc_block=64,voxel_order=morton;wc_block=32,voxel_order=morton;wc_block=64,voxel_order=index;wc_block=64,voxel_order=morton,unroll=4" \
    --json $R/ds1-f32.json --md $R/ds1-f32.md > $R/ds1-f32.log 2>&1
stamp "ds1 f32 rc $?"
timeout $(left 400) $B/clpk-bench-life --data /tmp/ds1 --precision f64 --runs 10 --iters 0 --first-launch --check \
    --orders "wc_block=0;wc_block=32,voxel_order=morton;wc_block=16,voxel_order=morton;wc_block=32,voxel_order=morton,unroll=4,wc_runs=8" \
    --json $R/ds1-f64.json --md $R/ds1-f64.md > $R/ds1-f64.log 2>&1
stamp "ds1 f64 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "first launch\|WRONG" $R/ds1-f32.log $R/ds1-f64.log | cut -c1-200
grep -h "FAIL\|WRONG\|plan with" $R/*.log | head
