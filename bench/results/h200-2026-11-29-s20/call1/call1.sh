#!/usr/bin/env bash
# session 20, call 1: wc=pairs with wc_block (a voxel block's y rows in local memory, its pairs by atom) against the
# shipped default (wc_block 0) on DS1 seed 3, f32 and f64, each list with a 500-step fit; synth medium seed 5 held out;
# test_life_fit and test_life_params on the GPU.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-580}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/info.txt 2>&1
timeout $(left 90) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1
stamp "synth rc $?"
timeout $(left 250) $B/clpk-bench-life --data /tmp/ds1 --precision f32 --runs 10 --iters 500 --check \
    --orders "wc_block=0;wc_block=64,voxel_order=morton;wc_block=32,voxel_order=morton;wc_block=64,voxel_order=index;wc_block=64,voxel_order=morton,wc_team=4,wc_runs=32" \
    --json $R/ds1-f32.json --md $R/ds1-f32.md > $R/ds1-f32.log 2>&1
stamp "ds1 f32 rc $?"
timeout $(left 420) $B/clpk-bench-life --data /tmp/ds1 --precision f64 --runs 10 --iters 500 \
    --orders "wc_block=0;wc_block=32,voxel_order=morton;wc_block=16,voxel_order=morton;wc_block=32,voxel_order=index" \
    --json $R/ds1-f64.json --md $R/ds1-f64.md > $R/ds1-f64.log 2>&1
stamp "ds1 f64 rc $?"
timeout $(left 500) $B/clpk-bench-life --size medium --seed 5 --precision both --runs 20 --iters 500 --check \
    --orders "wc_block=0;wc_block=64,voxel_order=morton;wc_block=32,voxel_order=morton" \
    --json $R/medium.json --md $R/medium.md > $R/medium.log 2>&1
stamp "medium rc $?"
for t in test_life_params test_life_fit; do
    timeout $(left) .gpu/build/tests/$t > $R/$t.log 2>&1
    stamp "$t rc $?"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "^| wc \|^| dsc-wtrue\|^| clpk-order" $R/ds1-f32.md $R/ds1-f64.md $R/medium.md
grep -h "FAIL\|rror" $R/*.log | head
