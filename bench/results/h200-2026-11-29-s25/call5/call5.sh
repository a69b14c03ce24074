#!/usr/bin/env bash
# session 25, call 5: the wider fused-fft defaults in f64 too (one-to-many / n-to-mn / n-to-m count their own local
# memory, up to 1024 values a work-group; .gpu/build) against 3b0d02c (f32 only, .gpu/s25/f32wide) at 32^2-256^2 in
# alternating runs; tests on the GPU; what a user gets in f64 against the cuFFT pipeline; the held-out s16.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export CLPK_PROFILE_DIR=$PWD/profiles
B=.gpu/build/bin
R=/tmp/res5; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
libdir() { case $1 in new*) echo $PWD/.gpu/build;; *) echo $PWD/.gpu/s25/f32wide;; esac; }
stamp start
export CLPK_CACHE_DIR=/tmp/cache-new LD_LIBRARY_PATH=$(libdir new):$BASE_LD
for t in test_xcorr_fused_many test_xcorr_params; do
    timeout $(left 60) .gpu/s25/main/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
for lib in new old new2 old2; do
    export CLPK_CACHE_DIR=/tmp/cache-${lib%2} LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD
    timeout $(left 250) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn --sizes 32,48,64,96,128,192,256 \
        --precision f64 --variants auto --repeats 10 --max-ms 70 --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    timeout $(left 270) $B/clpk-bench-xcorr --patterns n-to-m --sizes 32,48,64,96,128 --precision f64 \
        --variants auto --repeats 10 --max-ms 70 --json $R/$lib-ntom.jsonl > $R/$lib-ntom.log 2>&1
    stamp "$lib n-to-m rc $?"
done
python3 bench/results/h200-2026-11-29-s25/call3/summary.py $R > $R/summary.txt 2>&1
tar czf $OUT/results.tgz -C $R .
export CLPK_CACHE_DIR=/tmp/cache-new LD_LIBRARY_PATH=$(libdir new):$BASE_LD
unset CLPK_PROFILE_DIR
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 360) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
timeout $(left 450) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
    --out $R/heldout-s16 > $R/heldout-s16.log 2>&1; stamp "held-out s16 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/test_*.log; do echo "$f: $(tail -n 1 $f)"; done
cat $R/summary.txt
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-s16.log
