#!/usr/bin/env bash
# session 18, call 1 (H200, HEAD 57c646f): the vector LiFE kernels of session 17 (dsc=voxel4, wc=fiber4) against
# dsc=voxel/wc=fiber in one run, f32 and f64, and f32 with dict=half (docs/perf-life.md "Vector loads"); then the
# cuSPARSE SpMM/SDDMM peer on the same DS1 data (bench/life_peer.sh).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-565}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
timeout $(left 300) $B/clpk-bench-life --size ds1 --seed 3 --runs 30 --iters 500 --check --precision both \
    --orders "dsc=voxel,wc=fiber;dsc=voxel4,wc=fiber4,team=8,wc_team=8;dsc=voxel4,wc=fiber4,team=16,wc_team=16" \
    --json $R/life-voxel4.json --md $R/life-voxel4.md > $R/life-voxel4.log 2>&1; stamp "voxel4 rc $?"
timeout $(left 400) $B/clpk-bench-life --size ds1 --seed 3 --runs 30 --iters 500 --check --precision f32 \
    --orders "dsc=voxel,wc=fiber,dict=half;dsc=voxel4,wc=fiber4,team=8,wc_team=8,dict=half" \
    --json $R/life-voxel4-half.json --md $R/life-voxel4-half.md > $R/life-voxel4-half.log 2>&1; stamp "half rc $?"
CALLS=20 BATCHES=5 timeout $(left) bench/life_peer.sh $R/peer > $R/peer.log 2>&1; stamp "peer rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
cat $R/life-voxel4.md | head -60
grep -i "bitwise\|check\|fit" $R/life-voxel4.log | head -30
cat $R/life-voxel4-half.md | head -30
cat $R/peer/life-peer.md
