#!/usr/bin/env bash
# session 24, call 6 (the committed library, .gpu/build): what a user gets against the cuFFT pipeline (shipped H200
# profile and defaults; f32 one-to-many / one-to-one / n-to-mn 64^2-256^2, n-to-m 64^2-128^2, f64 one-to-many and
# one-to-one), the held-out xcorr check on s16, the fused tests on the GPU.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res6; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
$B/clpk-info > $R/info.txt 2>&1
timeout $(left 30) .gpu/s24/test_xcorr_fused > $R/test_xcorr_fused.log 2>&1; stamp "test_xcorr_fused rc $?"
timeout $(left 60) .gpu/s24/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 120) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 140) bench/xcorr.sh $R/xcorr-f32-nm --variants auto --repeats 20 \
    --max-ms 70 --sizes 64,128 --patterns n-to-m > $R/xcorr-f32-nm.log 2>&1; stamp "xcorr f32 n-to-m + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 190) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
timeout $(left 280) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
    --out $R/heldout-s16 > $R/heldout-s16.log 2>&1; stamp "held-out s16 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused.log $R/test_xcorr_fused_many.log
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-s16.log
