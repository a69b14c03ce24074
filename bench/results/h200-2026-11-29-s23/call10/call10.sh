#!/usr/bin/env bash
# session 23, call 10 (HEAD fd23f0f: div_small shared by fft_lines and the tile loop, a refactor): the fused tests on
# the GPU and the grid's auto timings, to compare with call 8 / call 9's HEAD runs.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res10; mkdir -p $R
timeout 40 .gpu/s23/test_xcorr_fused > $R/test_xcorr_fused.log 2>&1; echo "test_xcorr_fused rc $?"
timeout 60 .gpu/s23/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1; echo "test_xcorr_fused_many rc $?"
timeout 120 $B/clpk-bench-xcorr --patterns one-to-many,one-to-one,n-to-mn --sizes 64,128,256 --variants auto \
    --repeats 20 --json $R/head.jsonl > $R/head.log 2>&1; echo "bench rc $?"
tar czf $OUT/results.tgz -C $R .
tail -n 1 $R/test_xcorr_fused.log $R/test_xcorr_fused_many.log
python3 - <<'PY'
import json
for l in open('/tmp/res10/head.jsonl'):
    d = json.loads(l)
    if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
        print('%-28s %.4f' % (d['case'], d['median_ms']))
PY
