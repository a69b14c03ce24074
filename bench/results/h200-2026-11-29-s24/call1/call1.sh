#!/usr/bin/env bash
# session 24, call 1: fused-fft loads in batches of 8 (.gpu/build, working tree) against HEAD 3c457d9 (.gpu/s24/base);
# tests of the batch build; per-kernel traces; PTX / SASS of both libraries' fused programs.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
B=.gpu/build/bin
R=/tmp/res1; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-240}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
libdir() { case $1 in base*) echo $PWD/.gpu/s24/base;; *) echo $PWD/.gpu/build;; esac; }
stamp start
export CLPK_CACHE_DIR=/tmp/cache-batch
for t in test_xcorr_fused test_xcorr_fused_many; do
    LD_LIBRARY_PATH=$(libdir batch):$BASE_LD timeout $(left 90) .gpu/s24/$t > $R/$t.log 2>&1
    stamp "$t rc $?"
done
for lib in base batch base2 batch2; do
    export CLPK_CACHE_DIR=/tmp/cache-${lib%2}
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 300) $B/clpk-bench-xcorr \
        --patterns one-to-many,n-to-mn,one-to-one --sizes 64,128,256 --variants auto --repeats 20 \
        --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 330) $B/clpk-bench-xcorr --patterns one-to-many,one-to-one \
        --sizes 64,128,256 --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
for lib in base batch; do
    export CLPK_CACHE_DIR=/tmp/cache-$lib
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD CLPK_LOG=trace timeout $(left 380) $B/clpk-bench-xcorr \
        --patterns one-to-many,one-to-one --sizes 64,128,256 --variants auto --repeats 5 --warmup 2 --stream-ms 0 \
        > $R/$lib-trace.log 2>&1
    stamp "$lib trace rc $?"; gzip -9 $R/$lib-trace.log
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for t in test_xcorr_fused test_xcorr_fused_many; do tail -n 1 $R/$t.log; done
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for lib in ['base', 'batch', 'base2', 'batch2']:
    for suf in ['', '-f64']:
        try:
            for l in open('/tmp/res1/%s%s.jsonl' % (lib, suf)):
                d = json.loads(l)
                if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
        except OSError:
            pass
for c, v in res.items():
    h = v.get('base', 0)
    print('%-28s' % c, ' '.join('%s=%.4f(%.3f)' % (k, x, h / x if x else 0) for k, x in v.items()))
PY
# PTX and SASS of the fused programs (optional: after the tarball)
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p $R/sass
for lib in base batch; do
    rm -rf /tmp/clpk-cache /tmp/ptx; mkdir -p /tmp/ptx; cp -r /tmp/cache-$lib /tmp/clpk-cache
    timeout $(left 500) python3 .gpu/s24/ptxas.py > $R/sass/$lib-ptxas.txt 2>&1
    for f in /tmp/ptx/*.ptx; do
        grep -q "clpk_xcorr_many_columns\|clpk_xcorr_fused_columns" $f || continue
        grep -q "\.f64\b" $f && continue
        b=$(basename $f .ptx)
        timeout 30 ptxas -arch=sm_90 $f -o /tmp/ptx/$b.cubin 2>/dev/null &&
            timeout 30 cuobjdump -sass /tmp/ptx/$b.cubin > $R/sass/$lib-$b.sass 2>&1
        cp $f $R/sass/$lib-$b.ptx
    done
    stamp "$lib sass"
done
ls -la $R/sass | head -30
tar czf $OUT/sass.tgz -C $R sass
