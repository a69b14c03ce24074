#!/usr/bin/env bash
# session 21, call 6: the pair sum four coefficients at a time. DS1 seed 3, the defaults ("unroll=8"), this library
# (products with the first launches split, 500-step fits) against the previous one (.gpu/s21/old: products only).
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s21/old
export LD_LIBRARY_PATH=$NEW:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-170}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 40) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1; stamp "synth rc $?"
timeout $(left 110) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 --iters 500 --first-launch \
    --orders "unroll=8" --json $R/life.json --md $R/life.md > $R/life.log 2>&1
stamp "life rc $?"
LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 \
    --iters 0 --first-launch --orders "unroll=8" --json $R/life-old.json --md $R/life-old.md > $R/life-old.log 2>&1
stamp "life old rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "first launch\|^fit" $R/life.log $R/life-old.log | cut -c1-140
