#!/usr/bin/env bash
# session 20, call 6: what a user gets after the change (built-in defaults, the shipped profile: wc_block 32 f32 /
# 16 f64 with Morton blocks on GPUs where the pair rule holds), DS1 seed 3 with fits and checks; held out: DS1 seed 11,
# synth medium seed 5 and small seed 7, auto ("unroll=8" = the defaults) against wc_block=0 with fits; the cuSPARSE
# peer on the same DS1 in the same command; test_life_fit and test_life_kernels on the GPU.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-520}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 30) .gpu/build/tests/test_life_fit > $R/test_life_fit.log 2>&1; stamp "test_life_fit rc $?"
timeout $(left 60) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1
stamp "synth rc $?"
timeout $(left 200) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 --iters 500 --check --first-launch \
    --atomics-iters 1 --json $R/life.json --md $R/life.md > $R/life.log 2>&1
stamp "ds1 rc $?"
timeout $(left 225) $B/clpk-bench-life --size medium --seed 5 --precision both --runs 10 --iters 500 --check \
    --first-launch --orders "unroll=8;wc_block=0" --json $R/medium.json --md $R/medium.md > $R/medium.log 2>&1
stamp "medium rc $?"
timeout $(left 240) $B/clpk-bench-life --size small --seed 7 --precision both --runs 10 --iters 500 --check \
    --json $R/small.json --md $R/small.md > $R/small.log 2>&1
stamp "small rc $?"
timeout $(left 340) $B/clpk-bench-life --size ds1 --seed 11 --precision both --runs 10 --iters 500 --first-launch \
    --orders "unroll=8;wc_block=0" --json $R/seed11.json --md $R/seed11.md > $R/seed11.log 2>&1
stamp "seed 11 rc $?"
LIFE_DATA=/tmp/ds1 CALLS=20 BATCHES=5 timeout $(left 480) bash bench/life_peer.sh $R/peer > $R/peer.log 2>&1
stamp "peer rc $?"
timeout $(left) .gpu/build/tests/test_life_kernels > $R/test_life_kernels.log 2>&1; stamp "test_life_kernels rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -1 $R/test_life_fit.log $R/test_life_kernels.log
grep -h "^fit\|first launch" $R/life.log $R/medium.log $R/seed11.log $R/small.log | grep -v atomics | cut -c1-150
grep -h "f64 / f32" $R/life.md
cat $R/peer/life-peer.md 2>/dev/null | head -20
grep -h "FAIL\|WRONG\|plan with" $R/*.log | head
