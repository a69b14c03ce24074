#!/usr/bin/env bash
# session 26, call 6 (.gpu/build: defaults revision 4 final: f64 n-to-m takes 128 items only on one 512-point line):
# the xcorr family re-tuned against these defaults (cold caches), merged into the shipped profile; with it held-out
# s16 and s26 and what a user gets against the cuFFT pipeline (f32, f64; n-to-m 128 x 128 at 64^2 and 128^2).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res6; mkdir -p $R $R/profile
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
CLPK_PROFILE_DIR=$PWD/profiles timeout $(left 20) .gpu/s26/main/test_xcorr_params > $R/test_xcorr_params.log 2>&1
stamp "test_xcorr_params rc $?"
timeout $(left 250) $B/clpk-tune --device nvidia --families xcorr --budget 220 --out $R/xcorr-tuned.json \
    > $R/tune.log 2>&1; stamp "tune rc $?"
$B/clpk-tune --merge profiles/nvidia-h200.json $R/xcorr-tuned.json --out $R/profile/nvidia-h200.json \
    > $R/merge.log 2>&1; stamp "merge rc $?"
cp $R/profile/nvidia-h200.json $OUT/nvidia-h200.json
tar czf $OUT/results.tgz -C $R .
export CLPK_PROFILE_DIR=$R/profile
$B/clpk-info > $R/info.txt 2>&1
for set in s16 s26; do
    timeout $(left 380) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set $set \
        --profile $R/profile/nvidia-h200.json --out $R/heldout-$set > $R/heldout-$set.log 2>&1
    stamp "held-out $set rc $?"
done
tar czf $OUT/results.tgz -C $R .
PLOTS=0 PEER_REPEATS=20 timeout $(left 440) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 490) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
for p in f32 f64; do
    PRECISION=$p PLOTS=0 PEER_REPEATS=10 timeout $(left 585) bench/xcorr.sh $R/xcorr-nm-$p --variants auto --repeats 10 \
        --sizes 64,128 --patterns n-to-m > $R/xcorr-nm-$p.log 2>&1; stamp "xcorr n-to-m $p + cuFFT rc $?"
done
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_params.log; tail -n 3 $R/tune.log; cat $R/merge.log; grep profile $R/info.txt
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-*.log
