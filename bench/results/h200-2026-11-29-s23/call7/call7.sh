#!/usr/bin/env bash
# session 23, call 7: the row kernels' tile loops with a row-major fast path and shifts for power-of-two tiles,
# against the previous library (.gpu/s23/prev, 5f1655a: row-major only) on the grid; fused_tiles=0 and =1 explicit.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res7; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 40) .gpu/s23/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
V="auto,fused-fft:fused_tiles=0,fused-fft:fused_tiles=1"
for lib in head prev head2; do
    d=$PWD/.gpu/build; v=$V; [ $lib = prev ] && d=$PWD/.gpu/s23/prev && v=auto
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 200) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,n-to-m \
        --sizes 64,128,256 --scale 1 --variants $v --repeats 20 --max-ms 70 --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 260) $B/clpk-bench-xcorr --patterns one-to-many --sizes 64,128,256 \
        --variants $v --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused_many.log
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for lib in ['head', 'prev', 'head2']:
    for suf in ['', '-f64']:
        for l in open('/tmp/res7/%s%s.jsonl' % (lib, suf)):
            d = json.loads(l)
            if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                res[d['case'] + ' ' + d['precision']][lib + ':' + d['variant'].replace('fused-fft:fused_', '')] = d['median_ms']
for c, v in res.items():
    h = v.get('head:auto', 0)
    print('%-28s' % c, ' '.join('%s=%.4f(%.3f)' % (k, x, x / h if h else 0) for k, x in v.items()))
PY
