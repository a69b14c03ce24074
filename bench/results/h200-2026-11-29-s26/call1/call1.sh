#!/usr/bin/env bash
# session 26, call 1 (HEAD 7193175, .gpu/build): fused-fft padding, smooth 2^i 3^j against the power of two, with
# revision 3's lines rule, at sizes outside the held-out set s16 (27, 53, 100, 102): f64 at 25, 26, 49, 52, 54,
# 97, 104, 108 (27 * 2^i against 2^k: 0.84) and 24, 48, 96 (3 * 2^i: 0.75); then f32 at the same 0.75 / 0.84 sizes.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache CLPK_PROFILE_DIR=$PWD/profiles
B=.gpu/build/bin
R=/tmp/res1; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
V=auto,fused-fft:fft_pad=smooth,fused-fft:fft_pad=pow2
for pat in one-to-many one-to-one n-to-m n-to-mn; do
    timeout $(left 330) $B/clpk-bench-xcorr --patterns $pat --sizes 24,25,26,48,49,52,54,96,97,104,108 --scale 0.3 \
        --precision f64 --variants $V --repeats 15 --max-ms 70 --json $R/f64-$pat.jsonl > $R/f64-$pat.log 2>&1
    stamp "f64 $pat rc $?"
done
for pat in one-to-many one-to-one n-to-mn; do
    timeout $(left 440) $B/clpk-bench-xcorr --patterns $pat --sizes 24,25,48,49,96,97 --scale 0.3 \
        --precision f32 --variants $V --repeats 15 --max-ms 70 --json $R/f32-$pat.jsonl > $R/f32-$pat.log 2>&1
    stamp "f32 $pat rc $?"
done
tar czf $OUT/results.tgz -C $R .
python3 - <<'PY'
import json, glob, collections
for f in sorted(glob.glob('/tmp/res1/*.jsonl')):
    res = collections.OrderedDict()
    for l in open(f):
        d = json.loads(l)
        if d.get('n_out', 0) < 10: continue
        v = 'auto' if d['variant'] == 'auto' else d['variant'].split('=')[-1]
        res.setdefault(d['case'] + ' ' + d['precision'], []).append('%s %.4f' % (v, d.get('median_ms') or 0))
    for c, v in res.items():
        print('%-34s %s' % (c, ' | '.join(v)))
PY
