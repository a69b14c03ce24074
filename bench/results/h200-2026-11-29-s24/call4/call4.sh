#!/usr/bin/env bash
# session 24, call 4 (HEAD 537be18): one-to-one K2 with batches of 2 f32 / 1 f64 (.gpu/s24/o1) against HEAD and
# 3c457d9 (base) on one-to-one f32 / f64; then what a user gets against the cuFFT pipeline (shipped H200 profile and
# defaults; as session 23 call 8) and the held-out xcorr check on s16; the fused tests on the GPU.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD
B=.gpu/build/bin
R=/tmp/res4; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-540}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
libdir() { case $1 in base*) echo $PWD/.gpu/s24/base;; o1*) echo $PWD/.gpu/s24/o1;; *) echo $PWD/.gpu/build;; esac; }
stamp start
export CLPK_CACHE_DIR=/tmp/clpk-cache
$B/clpk-info > $R/info.txt 2>&1
timeout $(left 30) .gpu/s24/test_xcorr_fused > $R/test_xcorr_fused.log 2>&1; stamp "test_xcorr_fused rc $?"
timeout $(left 60) .gpu/s24/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
for lib in base head o1 base2 head2 o12; do
    for p in f32 f64; do
        CLPK_CACHE_DIR=/tmp/cache-${lib%2} LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 160) \
            $B/clpk-bench-xcorr --patterns one-to-one --sizes 64,128,256 --variants auto --repeats 20 --precision $p \
            --json $R/ab-$lib-$p.jsonl > $R/ab-$lib-$p.log 2>&1
        stamp "ab $lib $p rc $?"
    done
done
PLOTS=0 PEER_REPEATS=20 timeout $(left 240) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 260) bench/xcorr.sh $R/xcorr-f32-nm --variants auto --repeats 20 \
    --max-ms 70 --sizes 64,128 --patterns n-to-m > $R/xcorr-f32-nm.log 2>&1; stamp "xcorr f32 n-to-m + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 300) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
timeout $(left 440) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
    --out $R/heldout-s16 > $R/heldout-s16.log 2>&1; stamp "held-out s16 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused.log $R/test_xcorr_fused_many.log
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for lib in ['base', 'head', 'o1', 'base2', 'head2', 'o12']:
    for p in ['f32', 'f64']:
        for l in open('/tmp/res4/ab-%s-%s.jsonl' % (lib, p)):
            d = json.loads(l)
            if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
for c, v in res.items():
    h = v.get('base', 0)
    print('%-28s' % c, ' '.join('%s=%.3f(%.3f)' % (k, x, h / x if x else 0) for k, x in v.items()))
PY
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
tail -n 15 $R/heldout-s16.log
