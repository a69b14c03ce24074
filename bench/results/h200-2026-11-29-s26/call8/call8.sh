#!/usr/bin/env bash
# session 26, call 8 (.gpu/build: xcorr defaults revision 5, f64 one-to-many / n-to-mn on radix-16 stages;
# .gpu/s26/old: revision 4, e446cdd): tests on the H200; new against old, no profile, f64 one-to-many and n-to-mn at
# 64^2-256^2; the xcorr family re-tuned against revision 5 and merged into the shipped profile; with it held-out s16
# and s26 and what a user gets against the cuFFT pipeline (f64, then f32).
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
mkdir -p /tmp/empty-profiles
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res8; mkdir -p $R $R/profile
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for t in test_xcorr_params test_xcorr_fused_many; do
    CLPK_PROFILE_DIR=$PWD/profiles timeout $(left 30) .gpu/s26/main/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
for lib in new old; do
    ld=$PWD/.gpu/build; [ $lib = old ] && ld=$PWD/.gpu/s26/old
    LD_LIBRARY_PATH=$ld:$BASE_LD CLPK_PROFILE_DIR=/tmp/empty-profiles timeout $(left 80) $B/clpk-bench-xcorr \
        --patterns one-to-many,n-to-mn --sizes 64,128,192,256 --precision f64 --variants auto --repeats 15 \
        --max-ms 150 --json $R/ab-f64-$lib.jsonl > $R/ab-f64-$lib.log 2>&1
    stamp "A/B f64 $lib rc $?"
done
timeout $(left 215) $B/clpk-tune --device nvidia --families xcorr --budget 130 --out $R/xcorr-tuned.json \
    > $R/tune.log 2>&1; stamp "tune rc $?"
$B/clpk-tune --merge profiles/nvidia-h200.json $R/xcorr-tuned.json --out $R/profile/nvidia-h200.json \
    > $R/merge.log 2>&1; stamp "merge rc $?"
cp $R/profile/nvidia-h200.json $OUT/nvidia-h200.json
tar czf $OUT/results.tgz -C $R .
export CLPK_PROFILE_DIR=$R/profile
$B/clpk-info > $R/info.txt 2>&1
for set in s26 s16; do
    timeout $(left 305) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set $set \
        --profile $R/profile/nvidia-h200.json --out $R/heldout-$set > $R/heldout-$set.log 2>&1
    stamp "held-out $set rc $?"
done
tar czf $OUT/results.tgz -C $R .
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 345) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 375) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for t in test_xcorr_params test_xcorr_fused_many; do tail -n 1 $R/$t.log; done
python3 - <<'PY'
import json
def load(f):
    r = {}
    for l in open(f):
        d = json.loads(l)
        if d.get('variant') == 'auto' and d.get('n_out', 0) >= 1000: r[d['case']] = d
    return r
n, o = load('/tmp/res8/ab-f64-new.jsonl'), load('/tmp/res8/ab-f64-old.jsonl')
for c in n:
    if c in o and n[c].get('median_ms') and o[c].get('median_ms'):
        print('%-26s f64 old %.4f new %.4f  %.3fx  %s' % (c, o[c]['median_ms'], n[c]['median_ms'],
              o[c]['median_ms'] / n[c]['median_ms'], n[c].get('chosen', '')[:70]))
PY
tail -n 3 $R/tune.log; cat $R/merge.log; grep profile $R/info.txt
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-*.log
