#!/usr/bin/env bash
# session 20, call 4: life_wc_pair_dot with the y row in registers (a team takes UNROLL consecutive pairs), shapes, against
# wc_block 32 (f32) and 16 (f64), dot launch alone and whole WC, DS1 seed 3.
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
    --orders "wc_block=0;unroll=16;wc_team=4,wc_runs=32;wc_team=16,wc_runs=8;wc_block=32,voxel_order=morton" \
    --json $R/ds1-f32.json --md $R/ds1-f32.md > $R/ds1-f32.log 2>&1
stamp "ds1 f32 rc $?"
timeout $(left 400) $B/clpk-bench-life --data /tmp/ds1 --precision f64 --runs 10 --iters 0 --first-launch --check \
    --orders "wc_block=0;unroll=16;wc_team=4,wc_runs=32;wc_block=16,voxel_order=morton" \
    --json $R/ds1-f64.json --md $R/ds1-f64.md > $R/ds1-f64.log 2>&1
stamp "ds1 f64 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "first launch\|^plan\|^check" $R/ds1-f32.log $R/ds1-f64.log | cut -c1-200
grep -h "FAIL\|WRONG\|plan with" $R/*.log | head
