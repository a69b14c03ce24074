#!/usr/bin/env bash
# session 26, call 4 (.gpu/build as calls 2-3): fused-fft lines x work-group at the large sizes, every pattern, f32
# and f64, built-in defaults otherwise (no profile): 64^2, 128^2, 192^2, 256^2 (lines of 128, 256, 384, 512 points) at
# --scale 0.3 (1 x 1200, 1200, 30 x 1200, 38 x 38); rows {1,2,4,8,16} x wg {64,128,256} where the lines hold at
# most 2048 (f32) / 1024 (f64) values and a work-item has at least 2 of them.
set -u
. .gpu/enter
mkdir -p /tmp/empty-profiles
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache CLPK_PROFILE_DIR=/tmp/empty-profiles
B=.gpu/build/bin
R=/tmp/res4; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for p in f32 f64; do
    for sp in 64:128 128:256 192:384 256:512; do
        n=${sp%:*}; P=${sp#*:}; cap=$([ $p = f32 ] && echo 2048 || echo 1024)
        V=auto
        for r in 1 2 4 8 16; do for w in 64 128 256; do
            [ $((r * P)) -le $cap ] && [ $((r * P)) -ge $((2 * w)) ] && V="$V,fused-fft:rows=$r/wg=$w"
        done; done
        lim=$([ $p = f32 ] && echo 250 || echo 480)
        timeout $(left $lim) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,one-to-one,n-to-m --sizes $n \
            --scale 0.3 --precision $p --variants $V --repeats 10 --warmup 2 --max-ms 60 \
            --json $R/$p-$n.jsonl > $R/$p-$n.log 2>&1
        stamp "$p $n rc $?"
    done
done
tar czf $OUT/results.tgz -C $R .
python3 - <<'PY'
import json, glob, collections
for f in sorted(glob.glob('/tmp/res4/*.jsonl')):
    res = collections.OrderedDict()
    for l in open(f):
        d = json.loads(l)
        if d.get('n_out', 0) < 300 or d['impl'] == 'copy-bandwidth' or not d.get('median_ms'): continue
        ch = d.get('chosen', '')
        v = 'auto[%s]' % ','.join(x.strip('{') for x in ch.split(',') if x.startswith(('wg=', '{wg=', 'rows='))) \
            if d['variant'] == 'auto' else d['variant'].replace('fused-fft:', '').replace('rows=', 'r').replace('/wg=', '/')
        res.setdefault(d['case'] + ' ' + d['precision'], []).append((v, d['median_ms']))
    for c, v in res.items():
        best = min(x[1] for x in v)
        print('%-28s %s' % (c, ' | '.join('%s %.3f%s' % (a, b, '*' if b == best else '') for a, b in v)))
PY
