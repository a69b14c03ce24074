#!/usr/bin/env bash
# session 19, call 2: why the 500-step objective moved in call 1: the f64 objective every 10 iterations and the
# weights clipped per step (CLPK_LOG=debug) for the fit with the updated residual, the textbook fit (r = M w - y every
# step) with the same kernels, and the textbook fit with dsc=voxel/wc=fiber (another summation order only); DS1 seed 3.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-540}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
CLPK_LOG=debug timeout $(left 280) $B/clpk-bench-life --size ds1 --seed 3 --precision f64 --runs 2 --iters 500 \
    --atomics-iters 0 --json $R/traj-a.json --md $R/traj-a.md > $R/traj-a.log 2>&1
stamp "a rc $?"
CLPK_LOG=debug timeout $(left) $B/clpk-bench-life --size ds1 --seed 3 --precision f64 --runs 2 --iters 500 \
    --atomics-iters 0 --residual-every 1 --fit-params "dsc=voxel,wc=fiber" --json $R/traj-b.json --md $R/traj-b.md \
    > $R/traj-b.log 2>&1
stamp "b rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "^fit" $R/traj-*.log
for f in $R/traj-a.log $R/traj-b.log; do grep -h "life fit: iteration [0-9]*, objective" $f | awk '{print $5, $7}' | \
    awk 'NR%10==1' | head -40; echo; done
grep -h "clipped" $R/traj-a.log | awk '{print $5, $7}' | awk 'NR<=20 || NR%25==0' | head -60
