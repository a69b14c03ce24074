#!/usr/bin/env bash
# session 19, call 5: the odd iterations' gradient from the step's products (g - alpha atag + M^T M clip, a stamped
# wc=pairs pass) on top of call 4: DS1 seed 3 and synth medium seed 5, both precisions, as a user gets it;
# the fit test on the H200.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-540}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
.gpu/build/tests/test_life_fit > $R/test_life_fit.log 2>&1; stamp "test_life_fit rc $?"
timeout $(left 330) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 20 --iters 500 --check \
    --atomics-iters 1 --json $R/life.json --md $R/life.md > $R/life.log 2>&1
stamp "ds1 rc $?"
timeout $(left) $B/clpk-bench-life --size medium --seed 5 --precision both --runs 10 --iters 500 --check \
    --atomics-iters 0 --json $R/life-medium.json --md $R/life-medium.md > $R/life-medium.log 2>&1
stamp "medium rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -1 $R/test_life_fit.log
grep -h "^fit" $R/life.log $R/life-medium.log
grep -h "f64 / f32" $R/life.md
grep -h "FAIL" $R/*.log | head
