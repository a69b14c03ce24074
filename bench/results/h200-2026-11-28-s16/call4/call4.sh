#!/usr/bin/env bash
# session 16, call 4: judge the precision split of fused-fft's padding rule (f32 20 %, f64 10 %) on the unseen set s16,
# this library against the previous one (.gpu/s16/prev20: 20 % in both precisions); then one-to-many against the
# cuFFT pipeline on the H200 (issue #26; the H100's table is session 14's).
set -u
. .gpu/enter
NEW=$PWD/.gpu/build PREV=$PWD/.gpu/s16/prev20 BASE_LD=$LD_LIBRARY_PATH
export CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-555}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
LD_LIBRARY_PATH=$NEW:$BASE_LD timeout $(left 140) python3 bench/heldout.py --device nvidia --bin $B --families xcorr \
    --xcorr-set s16 --out $R/heldout-s16-new > $R/heldout-s16-new.log 2>&1; stamp "s16 new rc $?"
LD_LIBRARY_PATH=$PREV:$BASE_LD timeout $(left 260) python3 bench/heldout.py --device nvidia --bin $PREV --families xcorr \
    --xcorr-set s16 --out $R/heldout-s16-prev > $R/heldout-s16-prev.log 2>&1; stamp "s16 prev rc $?"
export LD_LIBRARY_PATH=$NEW:$BASE_LD
# the few-outputs regime (perf-xcorr "Session 14", Next 2): fatter fused-fft groups where the output pass has few groups
timeout $(left 400) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn --sizes 64,96,128 --scale 0.25 --repeats 30 \
    --variants "auto,fused-fft:wg=256/rows=4,fused-fft:wg=256/rows=2,fused-fft:wg=128/rows=4,fused-fft:wg=128/rows=2,fused-fft:wg=64/rows=2" \
    --json $R/few-outputs.jsonl > $R/few-outputs.log 2>&1; stamp "few outputs rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left) bench/xcorr.sh $R/xcorr-one-to-many --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many > $R/xcorr-one-to-many.log 2>&1; stamp "xcorr one-to-many rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/heldout-*/heldout.md; do echo "== $f"; grep "^| xcorr |" $f; grep "^| .* f64 \|^| .* f32 " $f | cut -d'|' -f2-7; done
for f in $R/xcorr-*/xcorr.md; do grep "^| " $f | cut -d'|' -f2-10; done
