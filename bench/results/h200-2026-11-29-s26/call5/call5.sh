#!/usr/bin/env bash
# session 26, call 5 (.gpu/build: defaults revision 4 with calls 3-4's work-group rules; .gpu/s26/old: the library
# of calls 2-4): the fused tests on the H200; new against old defaults (no profile) at 64^2-256^2, 1 x 4000 /
# 100 x 4000 / 128 x 128, f32 and f64; then the xcorr family re-tuned (cold caches) and merged into the shipped
# profile, and with it held-out s16 and s26 and what a user gets against the cuFFT pipeline.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
mkdir -p /tmp/empty-profiles
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res5; mkdir -p $R $R/profile
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for t in test_xcorr_params test_xcorr_fused test_xcorr_fused_many; do
    CLPK_PROFILE_DIR=$PWD/profiles timeout $(left 60) .gpu/s26/main/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
for p in f32 f64; do
    for lib in new old; do
        ld=$PWD/.gpu/build; [ $lib = old ] && ld=$PWD/.gpu/s26/old
        LD_LIBRARY_PATH=$ld:$BASE_LD CLPK_PROFILE_DIR=/tmp/empty-profiles timeout $(left 220) $B/clpk-bench-xcorr \
            --patterns one-to-many,n-to-mn,n-to-m --sizes 64,128,256 --precision $p --variants auto --repeats 15 \
            --max-ms 150 --json $R/ab-$p-$lib.jsonl > $R/ab-$p-$lib.log 2>&1
        stamp "A/B $p $lib rc $?"
    done
done
timeout $(left 400) $B/clpk-tune --device nvidia --families xcorr --budget 240 --out $R/xcorr-tuned.json \
    > $R/tune.log 2>&1; stamp "tune rc $?"
$B/clpk-tune --merge profiles/nvidia-h200.json $R/xcorr-tuned.json --out $R/profile/nvidia-h200.json \
    > $R/merge.log 2>&1; stamp "merge rc $?"
cp $R/profile/nvidia-h200.json $OUT/nvidia-h200.json
tar czf $OUT/results.tgz -C $R .
export CLPK_PROFILE_DIR=$R/profile
$B/clpk-info > $R/info.txt 2>&1
for set in s16 s26; do
    timeout $(left 500) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set $set \
        --profile $R/profile/nvidia-h200.json --out $R/heldout-$set > $R/heldout-$set.log 2>&1
    stamp "held-out $set rc $?"
done
tar czf $OUT/results.tgz -C $R .
PLOTS=0 PEER_REPEATS=20 timeout $(left 548) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 592) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for t in test_xcorr_params test_xcorr_fused test_xcorr_fused_many; do tail -n 1 $R/$t.log; done
python3 - <<'PY'
import json
def load(f):
    r = {}
    for l in open(f):
        d = json.loads(l)
        if d.get('variant') == 'auto' and d.get('n_out', 0) >= 1000: r[d['case']] = d
    return r
for p in ('f32', 'f64'):
    n, o = load('/tmp/res5/ab-%s-new.jsonl' % p), load('/tmp/res5/ab-%s-old.jsonl' % p)
    for c in n:
        if c in o and n[c].get('median_ms') and o[c].get('median_ms'):
            print('%-26s %s old %.4f new %.4f  %.3fx  %s' % (c, p, o[c]['median_ms'], n[c]['median_ms'],
                  o[c]['median_ms'] / n[c]['median_ms'], n[c].get('chosen', '')[:64]))
PY
tail -n 3 $R/tune.log; cat $R/merge.log; grep profile $R/info.txt
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-*.log
