#!/usr/bin/env bash
# session 21, call 4: LiFE plan creation on every core. test_life_sort on this host's cores; DS1 seed 3 with the
# defaults (what a user gets: plan time, products, 500-step fits, checks) with this library and the plan's previous
# one-thread code (.gpu/s21/old: plan time and products only); the pair plan with CLPK_THREADS=1 on this library
# (the same code on one thread); test_life_kernels and test_life_fit on the GPU.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s21/old
export LD_LIBRARY_PATH=$NEW:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
nproc > $R/nproc.txt; lscpu > $R/lscpu.txt 2>&1
timeout $(left 20) .gpu/s21/test_life_sort > $R/test_life_sort.log 2>&1; stamp "test_life_sort rc $?"
timeout $(left 40) .gpu/s21/test_life_fit > $R/test_life_fit.log 2>&1; stamp "test_life_fit rc $?"
timeout $(left 60) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1
stamp "synth rc $?"
timeout $(left 200) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 --iters 500 --check --first-launch \
    --json $R/life.json --md $R/life.md > $R/life.log 2>&1
stamp "life rc $?"
LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left 260) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 5 \
    --iters 0 --orders "unroll=8" --json $R/life-old.json --md $R/life-old.md > $R/life-old.log 2>&1
stamp "life old rc $?"
CLPK_THREADS=1 timeout $(left 320) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 5 \
    --iters 0 --orders "unroll=8" --json $R/life-1thread.json --md $R/life-1thread.md > $R/life-1thread.log 2>&1
stamp "life 1 thread rc $?"
timeout $(left) .gpu/s21/test_life_kernels > $R/test_life_kernels.log 2>&1; stamp "test_life_kernels rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log $R/nproc.txt
tail -n 1 $R/test_life_sort.log $R/test_life_fit.log $R/test_life_kernels.log
grep -h "^plan (" $R/life.log $R/life-old.log $R/life-1thread.log | cut -c1-40
grep -h "first launch\|^fit" $R/life.log | grep -v atomics | cut -c1-150
grep -h "FAIL\|WRONG" $R/*.log | head
