#!/usr/bin/env bash
# session 22, call 5: the f32 products' ratio to the cuSPARSE peer once more, interleaved (clpk, peer, clpk, peer),
# DS1 seed 3, the defaults; no fits.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-200}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
timeout $(left 30) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1; stamp "synth rc $?"
for i in 1 2; do
    timeout $(left) $B/clpk-bench-life --data /tmp/ds1 --precision f32 --runs 50 --iters 0 --first-launch \
        --orders "unroll=8" --json $R/clpk$i.json --md $R/clpk$i.md > $R/clpk$i.log 2>&1; stamp "clpk $i rc $?"
    PRECISION=f32 LIFE_DATA=/tmp/ds1 CALLS=20 BATCHES=5 timeout $(left) bash bench/life_peer.sh $R/peer$i \
        > $R/peer$i.log 2>&1; stamp "peer $i rc $?"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for i in 1 2; do grep "^| " $R/clpk$i.md | grep -v "case\|--" | cut -d'|' -f2-6; grep "^| [DW]" $R/peer$i/life-peer.md | cut -d'|' -f2-6; done
