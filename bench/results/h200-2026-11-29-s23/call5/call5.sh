#!/usr/bin/env bash
# session 23, call 5: T1, T2 and the spectra in tiles of `lines` columns (the shared-matrix patterns' fused-fft)
# against the previous library (.gpu/s23/prev, 5f1655a) and call 1's (.gpu/s23/old); per-kernel times of both;
# the fused tests on the GPU.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res5; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-400}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 80) .gpu/s23/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
for lib in tiles prev old tiles2; do
    d=$PWD/.gpu/build; [ $lib = prev ] || [ $lib = old ] && d=$PWD/.gpu/s23/$lib
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 300) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,n-to-m \
        --sizes 64,128,256 --variants auto --repeats 20 --max-ms 60 --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 330) $B/clpk-bench-xcorr --patterns one-to-many \
        --sizes 64,128,256 --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
for lib in tiles prev; do
    d=$PWD/.gpu/build; [ $lib = prev ] && d=$PWD/.gpu/s23/prev
    LD_LIBRARY_PATH=$d:$BASE_LD CLPK_LOG=trace timeout $(left 370) $B/clpk-bench-xcorr --patterns one-to-many \
        --sizes 64,128,256 --variants auto --repeats 5 --warmup 2 --stream-ms 0 > $R/$lib-trace.log 2>&1
    stamp "$lib trace rc $?"; gzip -9 $R/$lib-trace.log
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused_many.log
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for lib in ['tiles', 'prev', 'old', 'tiles2']:
    for suf in ['', '-f64']:
        try:
            for l in open('/tmp/res5/%s%s.jsonl' % (lib, suf)):
                d = json.loads(l)
                if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
        except OSError:
            pass
for c, v in res.items():
    h = v.get('tiles', 0)
    print('%-30s' % c, ' '.join('%s=%.4f(%.3f)' % (k, x, x / h if h else 0) for k, x in v.items()))
PY
