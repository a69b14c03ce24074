#!/usr/bin/env bash
# session 14, call 3: held-out xcorr s13 (unseen) with the shipped profile, the new built-in fused-fft defaults
# (12f63f9) and the previous library (2859a3b, the same bench binary: --warmup-ms for both); then the new defaults
# against the cuFFT pipeline at the large counts (64^2-256^2), a pattern per bench/xcorr.sh run.
set -u
. .gpu/enter
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s14/oldlib BASE_LD=$LD_LIBRARY_PATH
export CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
LD_LIBRARY_PATH=$NEW:$BASE_LD timeout $(left 150) python3 bench/heldout.py --device nvidia --bin $B --families xcorr \
    --xcorr-set s13 --rounds 2 --out $R/heldout-s13-new > $R/heldout-s13-new.log 2>&1; stamp "s13 new rc $?"
LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left 290) python3 bench/heldout.py --device nvidia --bin $B --families xcorr \
    --xcorr-set s13 --rounds 2 --out $R/heldout-s13-old > $R/heldout-s13-old.log 2>&1; stamp "s13 old rc $?"
export LD_LIBRARY_PATH=$NEW:$BASE_LD
for p in one-to-many one-to-one n-to-mn; do
    PLOTS=0 PEER_REPEATS=20 timeout $(left $((290 + 80 * ${#p} / 10))) bench/xcorr.sh $R/xcorr-$p --variants auto --repeats 20 \
        --sizes 64,128,256 --patterns $p > $R/xcorr-$p.log 2>&1; stamp "xcorr $p rc $?"
done
PLOTS=0 PEER_REPEATS=20 timeout $(left 500) bench/xcorr.sh $R/xcorr-n-to-m --variants auto --repeats 20 --sizes 64,128 \
    --patterns n-to-m > $R/xcorr-n-to-m.log 2>&1; stamp "xcorr n-to-m rc $?"
timeout $(left) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s12 --rounds 1 \
    --out $R/heldout-s12-new > $R/heldout-s12-new.log 2>&1; stamp "s12 new rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/heldout-*/heldout.md; do echo "== $f"; grep "^| xcorr |" $f; done
for f in $R/xcorr-*/xcorr.md; do grep "^| " $f | cut -d'|' -f2,4,8,9; done
