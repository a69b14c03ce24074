#!/usr/bin/env bash
# session 26, call 2 (.gpu/build: xcorr defaults revision 4: f64 pads to 64 instead of 54; 16 lines in the tuner's
# fused-fft space): the fused tests on the H200, the f64 rule's untested branch (27 * 2^i at 432 against 512:
# 200^2-216^2), then a re-tune of the xcorr family (330 s budget, cold caches), merged into the shipped profile, and
# with it: held-out s16 and what a user gets against the cuFFT pipeline (f32, f64).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res2; mkdir -p $R $R/profile
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for t in test_xcorr_params test_xcorr_fused test_xcorr_fused_many; do
    CLPK_PROFILE_DIR=$PWD/profiles timeout $(left 60) .gpu/s26/main/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
CLPK_PROFILE_DIR=$PWD/profiles timeout $(left 90) $B/clpk-bench-xcorr --patterns one-to-many,one-to-one \
    --sizes 200,216 --scale 0.1 --precision f64 --variants auto,fused-fft:fft_pad=smooth,fused-fft:fft_pad=pow2 \
    --repeats 15 --max-ms 200 --json $R/f64-432.jsonl > $R/f64-432.log 2>&1; stamp "f64 432 rc $?"
timeout $(left 440) $B/clpk-tune --device nvidia --families xcorr --budget 330 --out $R/xcorr-tuned.json \
    > $R/tune.log 2>&1; stamp "tune rc $?"
$B/clpk-tune --merge profiles/nvidia-h200.json $R/xcorr-tuned.json --out $R/profile/nvidia-h200.json \
    > $R/merge.log 2>&1; stamp "merge rc $?"
cp $R/profile/nvidia-h200.json $OUT/nvidia-h200.json
tar czf $OUT/results.tgz -C $R .
export CLPK_PROFILE_DIR=$R/profile
$B/clpk-info > $R/info.txt 2>&1
timeout $(left 500) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
    --profile $R/profile/nvidia-h200.json --out $R/heldout-s16 > $R/heldout-s16.log 2>&1; stamp "held-out s16 rc $?"
tar czf $OUT/results.tgz -C $R .
PLOTS=0 PEER_REPEATS=20 timeout $(left 545) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 585) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for t in test_xcorr_params test_xcorr_fused test_xcorr_fused_many; do tail -n 1 $R/$t.log; done
python3 - <<'PY'
import json
for l in open('/tmp/res2/f64-432.jsonl'):
    d = json.loads(l)
    if d.get('n_out', 0) >= 2: print('%-28s %-26s %.4f %s' % (d['case'], d['variant'], d.get('median_ms') or 0, d.get('chosen', '')[:60]))
PY
tail -n 3 $R/tune.log; cat $R/merge.log; grep profile $R/info.txt
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-s16.log
