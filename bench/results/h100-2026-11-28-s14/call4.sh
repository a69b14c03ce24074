#!/usr/bin/env bash
# session 14, call 4: with clpk-bench-xcorr's stream timing (--stream-ms 0.5, as the peer is timed): n-to-mn and
# one-to-one 256^2 against cuFFT (cut in call 3), held-out xcorr s13 with the new and the previous library, both
# with the shipped profile named explicitly.
set -u
. .gpu/enter
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s14/oldlib BASE_LD=$LD_LIBRARY_PATH
export CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin PROF=$PWD/profiles/nvidia-h100.json
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
export LD_LIBRARY_PATH=$NEW:$BASE_LD
PLOTS=0 PEER_REPEATS=20 timeout $(left 230) bench/xcorr.sh $R/xcorr-n-to-mn --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns n-to-mn > $R/xcorr-n-to-mn.log 2>&1; stamp "xcorr n-to-mn rc $?"
timeout $(left 330) python3 bench/heldout.py --device nvidia --bin $B --profile $PROF --families xcorr \
    --xcorr-set s13 --rounds 2 --out $R/heldout-s13-new > $R/heldout-s13-new.log 2>&1; stamp "s13 new rc $?"
LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left 430) python3 bench/heldout.py --device nvidia --bin $B --profile $PROF \
    --families xcorr --xcorr-set s13 --rounds 2 --out $R/heldout-s13-old > $R/heldout-s13-old.log 2>&1
stamp "s13 old rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left) bench/xcorr.sh $R/xcorr-one-to-one --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-one > $R/xcorr-one-to-one.log 2>&1; stamp "xcorr one-to-one rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/heldout-*/heldout.md; do echo "== $f"; grep "^| xcorr |" $f; done
for f in $R/xcorr-*/xcorr.md; do grep "^| " $f | cut -d'|' -f2,4,8,9; done
