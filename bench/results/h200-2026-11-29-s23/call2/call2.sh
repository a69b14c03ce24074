#!/usr/bin/env bash
# session 23, call 2: the local layout (gaps per 16 values and a per-line skew) against call 1's library (.gpu/s23/old)
# and the gaps-only build (.gpu/s23/sh4) in the same call, f32 one-to-many / one-to-one 64^2-256^2, plus n-to-mn and
# n-to-m and f64 one-to-many; per-kernel times of the new layout; the cuFFT pipeline next to this library; the fused
# tests on the GPU; ptxas -v over the cached programs (registers, occupancy).
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-400}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 60) .gpu/s23/test_xcorr_fused > $R/test_xcorr_fused.log 2>&1; stamp "test_xcorr_fused rc $?"
timeout $(left 100) .gpu/s23/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
X="--patterns one-to-many,one-to-one --sizes 64,128,256 --variants auto --repeats 20"
for lib in new old sh4 new2; do
    d=$PWD/.gpu/build; [ $lib = old ] && d=$PWD/.gpu/s23/old; [ $lib = sh4 ] && d=$PWD/.gpu/s23/sh4
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 160) $B/clpk-bench-xcorr $X --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
done
Y="--patterns n-to-mn,n-to-m --sizes 64,128 --variants auto --repeats 20"
for lib in new old; do
    d=$PWD/.gpu/build; [ $lib = old ] && d=$PWD/.gpu/s23/old
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 220) $B/clpk-bench-xcorr $Y --json $R/$lib-nm.jsonl > $R/$lib-nm.log 2>&1
    stamp "$lib nm rc $?"
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 250) $B/clpk-bench-xcorr --patterns one-to-many --sizes 64,128,256 \
        --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
CLPK_LOG=trace timeout $(left 270) $B/clpk-bench-xcorr $X --repeats 5 --warmup 2 --stream-ms 0 \
    --json $R/new-trace.jsonl > $R/new-trace.log 2>&1; stamp "new trace rc $?"
gzip -9 $R/new-trace.log
PLOTS=0 PEER_REPEATS=20 timeout $(left 340) bench/xcorr.sh $R/xcorr-new --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one > $R/xcorr-new.log 2>&1; stamp "xcorr new + cuFFT rc $?"
find $R -name "*.npy" -delete
mkdir -p /tmp/ptx; export PATH=$PATH:/usr/local/cuda/bin; ls -d /usr/local/cuda*/bin/ptxas > $R/ptxas-where.txt 2>&1
timeout $(left 390) python3 - <<'PY' > $R/ptxas.txt 2>&1
import glob, os, re, struct, subprocess
for f in sorted(glob.glob('/tmp/clpk-cache/*.clbin')):
    b = open(f, 'rb').read()
    i = b.find(b'.version')
    if not b.startswith(b'CLPKBIN1') or i < 0:
        continue
    klen = struct.unpack('<I', b[8:12])[0]
    key = b[12:12 + klen].decode('latin1')
    ptx = b[i:].rstrip(b'\0')
    out = '/tmp/ptx/' + os.path.basename(f) + '.ptx'
    open(out, 'wb').write(ptx)
    entries = re.findall(rb'\.entry\s+(\w+)', ptx)
    opts = ' '.join(t for t in key.split() if t.startswith('-D'))[:400]
    print('==', os.path.basename(f), opts)
    try:
        r = subprocess.run(['ptxas', '-arch=sm_90', '-v', out, '-o', '/dev/null'], capture_output=True, text=True,
                           timeout=20)
        for line in r.stderr.splitlines():
            if 'Compiling' in line or 'registers' in line or 'spill' in line:
                print('  ', line.strip())
stamp "ptxas done"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused.log $R/test_xcorr_fused_many.log
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/res/*.jsonl')):
    for l in open(f):
        d = json.loads(l)
        if d.get('n_out', 0) >= 1000 and 'median_ms' in d:
            print(f.split('/')[-1][:-6], d['case'], d['precision'], round(d['median_ms'], 4), d.get('chosen', '')[:60])
PY
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | cut -d'|' -f2-10; done
