#!/usr/bin/env bash
# session 24, call 5: global stores in batches too (.gpu/build, "st") against the one-to-one K2 quarter batch
# (.gpu/s24/o1, the library to commit without stores); the fused tests of st; then for both: what a user gets against
# the cuFFT pipeline (shipped H200 profile) and the held-out xcorr check on s16.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
B=.gpu/build/bin
R=/tmp/res5; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
libdir() { case $1 in o1*) echo $PWD/.gpu/s24/o1;; *) echo $PWD/.gpu/build;; esac; }
stamp start
$B/clpk-info > $R/info.txt 2>&1
export CLPK_CACHE_DIR=/tmp/cache-st
timeout $(left 30) .gpu/s24/test_xcorr_fused > $R/test_xcorr_fused.log 2>&1; stamp "test_xcorr_fused rc $?"
timeout $(left 60) .gpu/s24/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
for lib in o1 st; do
    export CLPK_CACHE_DIR=/tmp/cache-$lib LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD
    PLOTS=0 PEER_REPEATS=20 timeout $(left 200) bench/xcorr.sh $R/$lib-f32 --variants auto --repeats 20 --max-ms 70 \
        --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/$lib-f32.log 2>&1
    stamp "$lib f32 + cuFFT rc $?"
    PLOTS=0 PEER_REPEATS=20 timeout $(left 220) bench/xcorr.sh $R/$lib-f32-nm --variants auto --repeats 20 \
        --max-ms 70 --sizes 64,128 --patterns n-to-m > $R/$lib-f32-nm.log 2>&1; stamp "$lib n-to-m + cuFFT rc $?"
    PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 260) bench/xcorr.sh $R/$lib-f64 --variants auto \
        --repeats 20 --sizes 64,128,256 --patterns one-to-many,one-to-one > $R/$lib-f64.log 2>&1
    stamp "$lib f64 + cuFFT rc $?"
done
for lib in o12 st2; do
    export CLPK_CACHE_DIR=/tmp/cache-${lib%2} LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD
    timeout $(left 300) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,one-to-one --sizes 64,128,256 \
        --variants auto --repeats 20 --json $R/ab-$lib.jsonl > $R/ab-$lib.log 2>&1; stamp "ab $lib rc $?"
done
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
for lib in st o1; do
    export CLPK_CACHE_DIR=/tmp/cache-$lib LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD
    timeout $(left 480) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
        --out $R/heldout-s16-$lib > $R/heldout-s16-$lib.log 2>&1; stamp "held-out s16 $lib rc $?"
    tar czf $OUT/results.tgz -C $R .
done
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused.log $R/test_xcorr_fused_many.log
for lib in o1 st; do for f in $R/$lib-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done; done
python3 - <<'PY'
import json, glob, collections
res = collections.defaultdict(dict)
for f in glob.glob('/tmp/res5/*/clpk.jsonl') + glob.glob('/tmp/res5/ab-*.jsonl'):
    lib = f.split('/')[3].split('-')[0] if '/ab-' not in f else f.split('ab-')[1].split('.')[0]
    for l in open(f):
        d = json.loads(l)
        if d.get('n_out', 0) >= 1000 and 'median_ms' in d and d.get('impl', '').startswith('clpk'):
            res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
for c, v in sorted(res.items()):
    h = v.get('o1', 0)
    print('%-28s' % c, ' '.join('%s=%.3f(%.3f)' % (k, x, h / x if x else 0) for k, x in sorted(v.items())))
PY
grep "auto >=" $R/heldout-s16-*.log
