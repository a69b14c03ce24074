#!/usr/bin/env bash
# session 23, call 9: is K2 latency-bound? The one-left spectrum values loaded into registers before the forward
# FFT (.gpu/s23/prefetch) against HEAD (b253ba4), one-to-many / n-to-mn f32 and f64, per-kernel times of both.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res9; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-240}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
LD_LIBRARY_PATH=$PWD/.gpu/s23/prefetch:$BASE_LD timeout $(left 40) .gpu/s23/prefetch/test_xcorr_fused_many \
    > $R/test_prefetch.log 2>&1; stamp "test prefetch rc $?"
for lib in head prefetch head2 prefetch2; do
    d=$PWD/.gpu/build; case $lib in prefetch*) d=$PWD/.gpu/s23/prefetch;; esac
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 180) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn \
        --sizes 64,128,256 --variants auto --repeats 20 --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 200) $B/clpk-bench-xcorr --patterns one-to-many --sizes 64,128,256 \
        --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
for lib in head prefetch; do
    d=$PWD/.gpu/build; [ $lib = prefetch ] && d=$PWD/.gpu/s23/prefetch
    LD_LIBRARY_PATH=$d:$BASE_LD CLPK_LOG=trace timeout $(left 230) $B/clpk-bench-xcorr --patterns one-to-many \
        --sizes 64,128,256 --variants auto --repeats 5 --warmup 2 --stream-ms 0 > $R/$lib-trace.log 2>&1
    stamp "$lib trace rc $?"; gzip -9 $R/$lib-trace.log
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_prefetch.log
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for lib in ['head', 'prefetch', 'head2', 'prefetch2']:
    for suf in ['', '-f64']:
        for l in open('/tmp/res9/%s%s.jsonl' % (lib, suf)):
            d = json.loads(l)
            if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
for c, v in res.items():
    h = v.get('head', 0)
    print('%-28s' % c, ' '.join('%s=%.4f(%.3f)' % (k, x, h / x if x else 0) for k, x in v.items()))
PY
