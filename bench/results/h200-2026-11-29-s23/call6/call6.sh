#!/usr/bin/env bash
# session 23, call 6 (HEAD: fused_tiles with its default rule): (a) the rule judged on sizes it was not chosen on
# (40^2, 72^2, 80^2, 112^2, 144^2, 160^2; every pattern but one-to-one; f32 and f64): auto, row-major and tiles
# side by side; (b) the previous library (.gpu/s23/prev, 5f1655a) and call 1's (.gpu/s23/old) on the documented grid;
# (c) what a user gets against the cuFFT pipeline (f32 one-to-many / one-to-one / n-to-mn / n-to-m, f64 one-to-many);
# the fused tests on the GPU.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res6; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 40) .gpu/s23/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
V="auto,fused-fft:fused_tiles=0,fused-fft:fused_tiles=1"
for p in f32 f64; do
    timeout $(left 200) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,n-to-m --sizes 40,72,112,160 --scale 0.5 \
        --variants $V --repeats 20 --max-ms 60 --precision $p --json $R/unseen-$p.jsonl > $R/unseen-$p.log 2>&1
    stamp "unseen $p rc $?"
done
timeout $(left 240) $B/clpk-bench-xcorr --patterns n-to-m --sizes 80,144 --variants $V --repeats 20 --max-ms 60 \
    --json $R/unseen-nm.jsonl > $R/unseen-nm.log 2>&1; stamp "unseen n-to-m rc $?"
for lib in prev old; do
    LD_LIBRARY_PATH=$PWD/.gpu/s23/$lib:$BASE_LD timeout $(left 300) $B/clpk-bench-xcorr \
        --patterns one-to-many,one-to-one,n-to-mn,n-to-m --sizes 64,128,256 --variants auto --repeats 20 --max-ms 70 \
        --json $R/$lib.jsonl > $R/$lib.log 2>&1; stamp "$lib rc $?"
    LD_LIBRARY_PATH=$PWD/.gpu/s23/$lib:$BASE_LD timeout $(left 320) $B/clpk-bench-xcorr --patterns one-to-many \
        --sizes 64,128,256 --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
PLOTS=0 PEER_REPEATS=20 timeout $(left 400) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 440) bench/xcorr.sh $R/xcorr-f32-nm --variants auto --repeats 20 \
    --max-ms 70 --sizes 64,128 --patterns n-to-m > $R/xcorr-f32-nm.log 2>&1; stamp "xcorr f32 n-to-m + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 470) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused_many.log
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
