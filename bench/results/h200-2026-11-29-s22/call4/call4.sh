#!/usr/bin/env bash
# session 22, call 4: what a user gets with dsc_unroll 4 (f32) and wc_runs 32 on large problems (defaults revision 4):
# DS1 seed 3 with every kernel case, checks, fits and the cuSPARSE peer in the same call; held out: DS1 seed 11
# against the previous library (HEAD 851d756) and synth medium seed 5; the DSC loop's unroll in f32.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s22/old
export LD_LIBRARY_PATH=$NEW:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-575}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for t in test_life_sort test_life_fit test_life_kernels; do
    timeout $(left 90) .gpu/s22/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
timeout $(left 110) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1; stamp "synth rc $?"
timeout $(left 260) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 --iters 500 --check --first-launch \
    --atomics-iters 1 --json $R/life.json --md $R/life.md > $R/life.log 2>&1
stamp "life rc $?"
LIFE_DATA=/tmp/ds1 CALLS=20 BATCHES=5 timeout $(left 330) bash bench/life_peer.sh $R/peer > $R/peer.log 2>&1
stamp "peer rc $?"
timeout $(left 400) $B/clpk-bench-life --data /tmp/ds1 --precision f32 --runs 20 --iters 0 --first-launch \
    --orders "unroll=8;dsc_unroll=2;dsc_unroll=1;dsc_unroll=8;runs=8" --json $R/shapes.json --md $R/shapes.md \
    > $R/shapes.log 2>&1
stamp "shapes rc $?"
bench() { # NAME DATA ITERS
    local name=$1 data=$2 iters=$3; shift 3
    timeout $(left $LIM) $B/clpk-bench-life --data $data --precision both --runs 20 --iters $iters --first-launch \
        --orders "unroll=8" --json $R/$name.json --md $R/$name.md > $R/$name.log 2>&1
    stamp "$name rc $?"
    LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left $LIM) $B/clpk-bench-life --data $data --precision both --runs 20 \
        --iters $iters --first-launch --orders "unroll=8" --json $R/$name-old.json --md $R/$name-old.md \
        > $R/$name-old.log 2>&1
    stamp "$name old rc $?"
}
timeout $(left 430) $B/clpk-life synth --out /tmp/med --size medium --seed 5 > $R/synthm.log 2>&1; stamp "synth m rc $?"
LIM=460 bench medium5 /tmp/med 500
rm -rf /tmp/ds1
timeout $(left 480) $B/clpk-life synth --out /tmp/ds11 --size ds1 --seed 11 > $R/synth11.log 2>&1; stamp "synth 11 rc $?"
LIM=575 bench seed11 /tmp/ds11 500
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_life_*.log
grep -h "first launch\|^fit\|plan (" $R/life.log | grep -v atomics | cut -c1-120
grep "^| " $R/life.md | grep "auto" | cut -d'|' -f2-6
grep -h "first launch" $R/shapes.log | cut -c1-100
grep "^| " $R/shapes.md | grep -v "^| case\|^|--" | cut -d'|' -f2-6
for n in medium5 seed11; do for v in "" -old; do
  echo "== $n$v"; grep -h "first launch\|^fit" $R/$n$v.log | cut -c1-110
done; done
cat $R/peer/life-peer.md 2>/dev/null | sed -n 5,12p
