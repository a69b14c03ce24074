#!/usr/bin/env bash
# session 25, call 3: the wider fused-fft defaults (f32 one-to-many / n-to-mn / n-to-m: up to 16 lines and 2048
# complex values a work-group, tiles at 2048; .gpu/build) against the same kernels with the old defaults
# (.gpu/s25/both) on sizes 32-256 in alternating runs; fused tests on the GPU; what a user gets against the cuFFT
# pipeline (f32); the held-out s16.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export CLPK_PROFILE_DIR=$PWD/profiles
B=.gpu/build/bin
R=/tmp/res3; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
libdir() { case $1 in new*) echo $PWD/.gpu/build;; *) echo $PWD/.gpu/s25/both;; esac; }
stamp start
export CLPK_CACHE_DIR=/tmp/cache-new LD_LIBRARY_PATH=$(libdir new):$BASE_LD
for t in test_xcorr_fused test_xcorr_fused_many test_xcorr_params; do
    timeout $(left 100) .gpu/s25/main/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
for lib in new old new2 old2; do
    export CLPK_CACHE_DIR=/tmp/cache-${lib%2} LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD
    timeout $(left 300) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn --sizes 32,48,64,96,128,192,256 \
        --variants auto --repeats 10 --max-ms 70 --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    timeout $(left 320) $B/clpk-bench-xcorr --patterns n-to-m --sizes 32,48,64,96,128 --variants auto --repeats 10 \
        --max-ms 70 --json $R/$lib-ntom.jsonl > $R/$lib-ntom.log 2>&1
    stamp "$lib n-to-m rc $?"
done
cat > $R/summary.py <<'PY'
import json, collections, sys
R = sys.argv[1]
res = collections.defaultdict(dict); plan = {}
for lib in ['new', 'old', 'new2', 'old2']:
    for suf in ['', '-ntom']:
        try:
            for l in open('%s/%s%s.jsonl' % (R, lib, suf)):
                d = json.loads(l)
                if 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
                    if lib == 'new': plan[d['case'] + ' ' + d['precision']] = d.get('chosen', '')
        except OSError:
            pass
for c, v in res.items():
    o = min(v.get('old', 1e9), v.get('old2', 1e9)); n = min(v.get('new', 1e9), v.get('new2', 1e9))
    print('%-28s old %.4f new %.4f old/new %.3f  %s' % (c, o, n, o / n, plan.get(c, '')[:90]))
PY
python3 $R/summary.py $R > $R/summary.txt
tar czf $OUT/results.tgz -C $R .
export CLPK_CACHE_DIR=/tmp/cache-new LD_LIBRARY_PATH=$(libdir new):$BASE_LD
unset CLPK_PROFILE_DIR
$B/clpk-info > $R/info.txt 2>&1
PLOTS=0 PEER_REPEATS=20 timeout $(left 420) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 440) bench/xcorr.sh $R/xcorr-f32-nm --variants auto --repeats 20 \
    --max-ms 70 --sizes 64,128 --patterns n-to-m > $R/xcorr-f32-nm.log 2>&1; stamp "xcorr f32 n-to-m + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
timeout $(left 540) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
    --out $R/heldout-s16 > $R/heldout-s16.log 2>&1; stamp "held-out s16 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/test_*.log; do echo "$f: $(tail -n 1 $f)"; done
cat $R/summary.txt
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-s16.log
