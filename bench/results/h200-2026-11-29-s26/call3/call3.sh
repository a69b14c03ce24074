#!/usr/bin/env bash
# session 26, call 3 (.gpu/build as call 2): the fused-fft defaults' work-group shape where the held-out s16 missed,
# measured at other sizes (s16 has 27, 53, 100, 102): (A) few work-groups (1-10 outputs, 38 x 38 n-to-m) at 40^2,
# 60^2, 90^2, 110^2, f32 and f64: rows {1,2,4} x wg {64,128,256}; (B) 256-point lines in f32 (96^2 pads to 192,
# 110^2-128^2 to 256) at 1 x 1200 / 4000: rows {4,8} x wg {64,128}. Built-in defaults (no profile).
set -u
. .gpu/enter
mkdir -p /tmp/empty-profiles
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache CLPK_PROFILE_DIR=/tmp/empty-profiles
B=.gpu/build/bin
R=/tmp/res3; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
VA=auto; for r in 1 2 4; do for w in 64 128 256; do VA="$VA,fused-fft:rows=$r/wg=$w"; done; done
for p in f64 f32; do
    timeout $(left 200) $B/clpk-bench-xcorr --patterns one-to-many,n-to-m --sizes 40,60,90,110 --scale 0.3 \
        --precision $p --variants $VA --repeats 25 --max-ms 20 --json $R/A-$p.jsonl > $R/A-$p.log 2>&1
    stamp "A $p rc $?"
done
VB=auto; for r in 4 8; do for w in 64 128; do VB="$VB,fused-fft:rows=$r/wg=$w"; done; done
for sc in 0.3 1; do
    timeout $(left 330) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn --sizes 96,110,120,128 --scale $sc \
        --precision f32 --variants $VB --repeats 15 --max-ms 70 --json $R/B-$sc.jsonl > $R/B-$sc.log 2>&1
    stamp "B $sc rc $?"
done
tar czf $OUT/results.tgz -C $R .
python3 - <<'PY'
import json, glob, collections
for f in sorted(glob.glob('/tmp/res3/*.jsonl')):
    res = collections.OrderedDict()
    for l in open(f):
        d = json.loads(l)
        if d.get('n_out', 0) < 1 or d['impl'] == 'copy-bandwidth': continue
        if f.split('/')[-1].startswith('B') and d['n_out'] < 300: continue
        ch = d.get('chosen', '')
        v = 'auto[%s %s]' % (ch.split(' ')[0][:5], ','.join(x for x in ch.split(',') if x.startswith(('wg=', '{wg=', 'rows=')))) \
            if d['variant'] == 'auto' else d['variant'].replace('fused-fft:', '').replace('rows=', 'r').replace('/wg=', '/')
        res.setdefault(d['case'] + ' ' + d['precision'], []).append('%s %.4f' % (v, d.get('median_ms') or 0))
    for c, v in res.items():
        print('%-26s %s' % (c, ' | '.join(v)))
PY
