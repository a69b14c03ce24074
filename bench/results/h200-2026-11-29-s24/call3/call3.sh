#!/usr/bin/env bash
# session 24, call 3: conditional loads in batches (.gpu/build, "b8c") against unconditional (.gpu/s24/b8) and HEAD (base)
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
B=.gpu/build/bin
R=/tmp/res3; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-240}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
libdir() { case $1 in base*) echo $PWD/.gpu/s24/base;; b8c*) echo $PWD/.gpu/build;; b8*) echo $PWD/.gpu/s24/b8;; *) echo $PWD/.gpu/build;; esac; }
stamp start
export CLPK_CACHE_DIR=/tmp/cache-b8c
for t in test_xcorr_fused test_xcorr_fused_many; do
    LD_LIBRARY_PATH=$(libdir b8c):$BASE_LD timeout $(left 90) .gpu/s24/$t > $R/$t.log 2>&1
    stamp "$t rc $?"
done
for lib in base b8 b8c base2 b82 b8c2; do
    export CLPK_CACHE_DIR=/tmp/cache-${lib%2}
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 330) $B/clpk-bench-xcorr \
        --patterns one-to-many,n-to-mn,one-to-one --sizes 64,128,256 --variants auto --repeats 20 \
        --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 360) $B/clpk-bench-xcorr --patterns one-to-many,one-to-one \
        --sizes 64,128,256 --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 390) $B/clpk-bench-xcorr --patterns n-to-m \
        --sizes 64,128 --variants auto --repeats 10 --json $R/$lib-ntom.jsonl > $R/$lib-ntom.log 2>&1
    stamp "$lib n-to-m rc $?"
done
for lib in base b8c; do
    export CLPK_CACHE_DIR=/tmp/cache-${lib%2}
    for p in f32 f64; do
        LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD CLPK_LOG=trace timeout $(left 450) $B/clpk-bench-xcorr \
            --patterns one-to-many,one-to-one --sizes 64,128,256 --variants auto --repeats 5 --warmup 2 --stream-ms 0 \
            --precision $p > $R/$lib-trace-$p.log 2>&1
        stamp "$lib trace $p rc $?"; gzip -9 $R/$lib-trace-$p.log
    done
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for t in test_xcorr_fused test_xcorr_fused_many; do tail -n 1 $R/$t.log; done
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for lib in ['base', 'b8', 'b8c', 'base2', 'b82', 'b8c2']:
    for suf in ['', '-f64', '-ntom']:
        try:
            for l in open('/tmp/res3/%s%s.jsonl' % (lib, suf)):
                d = json.loads(l)
                if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
        except OSError:
            pass
for c, v in res.items():
    h = v.get('base', 0)
    print('%-28s' % c, ' '.join('%s=%.3f(%.3f)' % (k, x, h / x if x else 0) for k, x in v.items()))
PY
export PATH=$PATH:/usr/local/cuda/bin
for lib in base b8 b8c; do
    rm -rf /tmp/clpk-cache /tmp/ptx; mkdir -p /tmp/ptx; cp -r /tmp/cache-$lib /tmp/clpk-cache
    timeout $(left 560) python3 .gpu/s24/ptxas.py > $R/$lib-ptxas.txt 2>&1
    stamp "$lib ptxas"
done
tar czf $OUT/results.tgz -C $R .
