#!/usr/bin/env bash
# session 14, call 5: held-out xcorr s14 (unseen by every rule) with the final library of the session and the shipped
# profile; s13 and s12 again (spent: to show the changes on the problems behind them).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin PROF=$PWD/profiles/nvidia-h100.json
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-380}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for set in s14 s13 s12; do
    r=2; [ $set = s12 ] && r=1
    timeout $(left) python3 bench/heldout.py --device nvidia --bin $B --profile $PROF --families xcorr \
        --xcorr-set $set --rounds $r --out $R/heldout-$set > $R/heldout-$set.log 2>&1; stamp "$set rc $?"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/heldout-*/heldout.md; do echo "== $f"; grep "^| xcorr |\|MISS" $f; done
