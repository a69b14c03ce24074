#!/usr/bin/env bash
# session 21, call 2: the pair weights' loads together (life) and the first FFT stage without twiddles (xcorr),
# each against the previous library (.gpu/s21/old, HEAD 3a of call 1) in the same run; what a user gets for LiFE
# (DS1 seed 3, defaults = shipped profile, fits, checks) with the cuSPARSE peer; xcorr against the cuFFT pipeline.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s21/old
export LD_LIBRARY_PATH=$NEW:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-570}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 25) .gpu/s21/test_life_fit > $R/test_life_fit.log 2>&1; stamp "test_life_fit rc $?"
timeout $(left 60) .gpu/s21/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1; stamp "test_xcorr_fused_many rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 110) bench/xcorr.sh $R/xcorr-new --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one > $R/xcorr-new.log 2>&1; stamp "xcorr new rc $?"
LD_LIBRARY_PATH=$OLD:$BASE_LD PLOTS=0 PEER_REPEATS=20 timeout $(left 160) bench/xcorr.sh $R/xcorr-old --variants auto \
    --repeats 20 --sizes 64,128,256 --patterns one-to-many,one-to-one > $R/xcorr-old.log 2>&1; stamp "xcorr old rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 200) bench/xcorr.sh $R/xcorr-new-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many > $R/xcorr-new-f64.log 2>&1; stamp "xcorr new f64 rc $?"
find $R -name "*.npy" -delete
timeout $(left 230) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1
stamp "synth rc $?"
LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left 280) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 \
    --iters 0 --first-launch --json $R/life-old.json --md $R/life-old.md > $R/life-old.log 2>&1
stamp "life old rc $?"
timeout $(left 420) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 --iters 500 --check --first-launch \
    --atomics-iters 1 --json $R/life.json --md $R/life.md > $R/life.log 2>&1
stamp "life rc $?"
LIFE_DATA=/tmp/ds1 CALLS=20 BATCHES=5 timeout $(left) bash bench/life_peer.sh $R/peer > $R/peer.log 2>&1
stamp "peer rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_life_fit.log $R/test_xcorr_fused_many.log
grep -h "first launch\|^fit" $R/life-old.log $R/life.log | grep -v atomics | cut -c1-150
cat $R/peer/life-peer.md 2>/dev/null | head -12
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | cut -d'|' -f2-10; done
