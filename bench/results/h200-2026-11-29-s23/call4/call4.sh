#!/usr/bin/env bash
# session 23, call 4: register caps on the fused-fft programs (NVIDIA's -cl-nv-maxrregcount=64 / 48: 8 / 10 groups of
# 128 items a compute unit where 76-80 registers allowed 6) against this library (gaps per 16, K2 in place for one
# left) and call 1's (.gpu/s23/old), f32 and f64; the fused tests on the GPU.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res4; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-400}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 40) .gpu/s23/test_xcorr_fused > $R/test_xcorr_fused.log 2>&1; stamp "test_xcorr_fused rc $?"
timeout $(left 80) .gpu/s23/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
for lib in head rr64 rr48 old head2; do
    d=$PWD/.gpu/build; [ $lib != head ] && [ $lib != head2 ] && d=$PWD/.gpu/s23/$lib
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 300) $B/clpk-bench-xcorr --patterns one-to-many,one-to-one,n-to-mn \
        --sizes 64,128,256 --variants auto --repeats 20 --max-ms 60 --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 330) $B/clpk-bench-xcorr --patterns one-to-many,one-to-one \
        --sizes 64,128 --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
tar czf $OUT/results.tgz -C $R .
mkdir -p /tmp/ptx; export PATH=$PATH:/usr/local/cuda/bin
timeout $(left 390) python3 .gpu/s23/ptxas.py > $R/ptxas.txt 2>&1; stamp "ptxas rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused.log $R/test_xcorr_fused_many.log
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for lib in ['head', 'rr64', 'rr48', 'old', 'head2']:
    for suf in ['', '-f64']:
        try:
            for l in open('/tmp/res4/%s%s.jsonl' % (lib, suf)):
                d = json.loads(l)
                if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
        except OSError:
            pass
for c, v in res.items():
    h = v.get('head', 0)
    print('%-30s' % c, ' '.join('%s=%.4f(%.3f)' % (k, x, x / h if h else 0) for k, x in v.items()))
PY
