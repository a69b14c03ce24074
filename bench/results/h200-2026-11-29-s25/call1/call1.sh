#!/usr/bin/env bash
# session 25, call 1: the two experiments of session 24 (exp/prune-first-stage "prune", exp/k2-walk "walk", both on
# one branch "both") against main (.gpu/build) in alternating runs, their fused tests on the GPU, per-kernel traces,
# ptxas registers; then L2-resident chunks on main (the auto plan with fused_batch swept).
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export CLPK_PROFILE_DIR=$PWD/profiles PATH=$PATH:/usr/local/cuda/bin
B=.gpu/build/bin
R=/tmp/res1; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
libdir() { case $1 in main*) echo $PWD/.gpu/build;; *) echo $PWD/.gpu/s25/${1%2};; esac; }
stamp start
$B/clpk-info > $R/info.txt 2>&1
for lib in prune walk both; do
    export CLPK_CACHE_DIR=/tmp/cache-$lib
    for t in test_xcorr_fused test_xcorr_fused_many; do
        LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 100) .gpu/s25/$lib/$t > $R/$lib-$t.log 2>&1
        stamp "$lib $t rc $?"
    done
done
for lib in main prune walk both both2 walk2 prune2 main2; do
    export CLPK_CACHE_DIR=/tmp/cache-${lib%2}
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 330) $B/clpk-bench-xcorr \
        --patterns one-to-many,n-to-mn,one-to-one --sizes 64,128,256 --variants auto --repeats 20 \
        --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 360) $B/clpk-bench-xcorr --patterns one-to-many,one-to-one \
        --sizes 64,128,256 --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD timeout $(left 370) $B/clpk-bench-xcorr --patterns n-to-m \
        --sizes 64,128 --variants auto --repeats 10 --json $R/$lib-ntom.jsonl > $R/$lib-ntom.log 2>&1
    stamp "$lib n-to-m rc $?"
done
for lib in main both; do
    export CLPK_CACHE_DIR=/tmp/cache-$lib
    LD_LIBRARY_PATH=$(libdir $lib):$BASE_LD CLPK_LOG=trace timeout $(left 400) $B/clpk-bench-xcorr \
        --patterns one-to-many,one-to-one --sizes 64,128,256 --variants auto --repeats 5 --warmup 2 --stream-ms 0 \
        > $R/$lib-trace-f32.log 2>&1
    stamp "$lib trace rc $?"; gzip -9 $R/$lib-trace-f32.log
done
cat > $R/summary.py <<'PY'
import json, collections, sys
R = sys.argv[1]
res = collections.defaultdict(dict)
for lib in ['main', 'prune', 'walk', 'both', 'both2', 'walk2', 'prune2', 'main2']:
    for suf in ['', '-f64', '-ntom']:
        try:
            for l in open('%s/%s%s.jsonl' % (R, lib, suf)):
                d = json.loads(l)
                if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
                    res[d['case'] + ' ' + d['precision']][lib] = d['median_ms']
        except OSError:
            pass
for c, v in res.items():
    h = min(v.get('main', 1e9), v.get('main2', 1e9))
    print('%-28s' % c, ' '.join('%s=%.3f(%.3f)' % (k, x, h / x if x else 0) for k, x in sorted(v.items())))
PY
python3 $R/summary.py $R | tee $R/summary.txt
tar czf $OUT/results.tgz -C $R .
# L2-resident chunks: the auto plans with fused_batch (output matrices per chunk) swept, main library
export CLPK_CACHE_DIR=/tmp/cache-main
v64=""; for fb in 0 100 200 400 800 1600; do
    v64="$v64,fused-fft:wg=128/rows=8/fft_pad=smooth/fft_radix=16/fused_gaps=1/fused_tiles=0/fused_batch=$fb"; done
v128=""; for fb in 0 50 100 200 400 800; do
    v128="$v128,fused-fft:wg=128/rows=4/fft_pad=smooth/fft_radix=16/fused_gaps=1/fused_tiles=0/fused_batch=$fb"; done
LD_LIBRARY_PATH=$(libdir main):$BASE_LD timeout $(left 480) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,one-to-one \
    --sizes 64 --variants ${v64#,} --repeats 20 --json $R/chunks-64.jsonl > $R/chunks-64.log 2>&1
stamp "chunks 64 rc $?"
LD_LIBRARY_PATH=$(libdir main):$BASE_LD timeout $(left 530) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,one-to-one \
    --sizes 128 --variants ${v128#,} --repeats 20 --json $R/chunks-128.jsonl > $R/chunks-128.log 2>&1
stamp "chunks 128 rc $?"
tar czf $OUT/results.tgz -C $R .
for lib in main both; do
    rm -rf /tmp/clpk-cache /tmp/ptx; mkdir -p /tmp/ptx; cp -r /tmp/cache-$lib /tmp/clpk-cache
    timeout $(left 570) python3 .gpu/s25/ptxas.py > $R/$lib-ptxas.txt 2>&1
    stamp "$lib ptxas"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/*test_xcorr*.log; do echo "$f: $(tail -n 1 $f)"; done
cat $R/summary.txt
python3 - <<'PY'
import json
for s in ['64', '128']:
    try:
        for l in open('/tmp/res1/chunks-%s.jsonl' % s):
            d = json.loads(l)
            if d.get('n_out', 0) >= 1000:
                print(d['case'], d['variant'][-16:], d.get('median_ms'), d.get('status'))
    except OSError:
        pass
PY
