#!/usr/bin/env bash
# session 26, call 7 (.gpu/build at the final defaults, shipped profile): measurements for the next session's plan.
# (1) one-to-one's kernels at 64 against 128 items (per-kernel GPU times, CLPK_LOG=trace): K2 holds two column sets,
# K1 and K3 one, so at the defaults' 128 items the row kernels leave half the items idle in each radix-16 stage;
# (2) f64 with radix-16 stages (one-to-many 24^2, 64^2, 128^2, 192^2: lines of 48, 128, 256, 384); (3) one-to-one
# above 1024 values (68^2: lines of 144, 130^2: 288).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache CLPK_PROFILE_DIR=$PWD/profiles
B=.gpu/build/bin
R=/tmp/res7; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for sv in 64:8 128:4 256:2; do
    n=${sv%:*}; r=${sv#*:}
    for w in 128 64; do
        CLPK_LOG=trace timeout $(left 60) $B/clpk-bench-xcorr --patterns one-to-one --sizes $n \
            --variants fused-fft:rows=$r/wg=$w --repeats 5 --warmup 2 --stream-ms 0 --json $R/trace-$n-$w.jsonl \
            > $R/trace-$n-$w.log 2>&1
        stamp "trace $n wg $w rc $?"
    done
done
V=auto; for r in 2 4 8; do for w in 64 128; do V="$V,fused-fft:fft_radix=16/rows=$r/wg=$w"; done; done
timeout $(left 100) $B/clpk-bench-xcorr --patterns one-to-many --sizes 24,64,128,192 --scale 0.3 --precision f64 \
    --variants $V --repeats 10 --max-ms 60 --json $R/f64-radix16.jsonl > $R/f64-radix16.log 2>&1
stamp "f64 radix 16 rc $?"
V=auto; for r in 2 4 8; do for w in 64 128; do V="$V,fused-fft:rows=$r/wg=$w"; done; done
timeout $(left 130) $B/clpk-bench-xcorr --patterns one-to-one --sizes 68,130 --scale 0.3 \
    --variants $V --repeats 10 --max-ms 60 --json $R/one-to-one-lines.jsonl > $R/one-to-one-lines.log 2>&1
stamp "one-to-one lines rc $?"
for f in $R/trace-*.log; do gzip -9 $f; done
tar czf $OUT/results.tgz -C $R .
python3 - <<'PY'
import json, glob, gzip, re, statistics, collections
for f in sorted(glob.glob('/tmp/res7/trace-*.log.gz')):
    k = collections.defaultdict(list)
    for l in gzip.open(f, 'rt'):
        m = re.search(r'kernel enqueue (\S+): (\d+) groups of (\d+): ([0-9.]+) us', l)
        if m: k[m.group(1)].append(float(m.group(4)))
    print(f.split('/')[-1], ' '.join('%s %.1f' % (n.replace('clpk_xcorr_', ''), statistics.median(v)) for n, v in k.items()))
for f in ('f64-radix16', 'one-to-one-lines'):
    res = collections.OrderedDict()
    for l in open('/tmp/res7/%s.jsonl' % f):
        d = json.loads(l)
        if d.get('n_out', 0) < 300 or not d.get('median_ms') or d['impl'] == 'copy-bandwidth': continue
        ch = d.get('chosen', '')
        v = 'auto[%s]' % ','.join(x.strip('{') for x in ch.split(',') if x.startswith(('wg=', '{wg=', 'rows=', 'fft_radix'))) \
            if d['variant'] == 'auto' else d['variant'].replace('fused-fft:', '').replace('fft_radix=16/', 'r16 ')
        res.setdefault(d['case'] + ' ' + d['precision'], []).append((v, d['median_ms']))
    for c, v in res.items():
        best = min(x[1] for x in v)
        print('%-26s %s' % (c, ' | '.join('%s %.3f%s' % (a, b, '*' if b == best else '') for a, b in v)))
PY
