#!/usr/bin/env bash
# session 25, call 6 (HEAD 24631e1 + docs, .gpu/build): small sizes at mid counts, where the held-out 27^2 f64 1 x 1200
# lost 7 % with 16 lines: one-to-many 27^2-53^2 at 1 x 4000 / 1200 / 600 (--scale 1 / 0.3 / 0.15), f32 and f64, the
# auto plan against 16 / 8 / 4 lines (wg 128 and 64).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache CLPK_PROFILE_DIR=$PWD/profiles
B=.gpu/build/bin
R=/tmp/res6; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for p in f64 f32; do
    t=$([ $p = f64 ] && echo 1 || echo 0)
    v=auto; for lw in 16/128 8/128 8/64 4/64; do
        v="$v,fused-fft:fft_pad=smooth/fft_radix=8/fused_gaps=1/fused_tiles=$t/rows=${lw%/*}/wg=${lw#*/}"; done
    for sc in 1 0.3 0.15; do
        timeout $(left 280) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn --sizes 27,32,40,53 --scale $sc \
            --precision $p --variants $v --repeats 15 --json $R/$p-$sc.jsonl > $R/$p-$sc.log 2>&1
        stamp "$p scale $sc rc $?"
    done
done
tar czf $OUT/results.tgz -C $R .
python3 - <<'PY'
import json, glob, collections
for f in sorted(glob.glob('/tmp/res6/*.jsonl')):
    res = collections.OrderedDict()
    for l in open(f):
        d = json.loads(l)
        if d.get('n_out', 0) < 300: continue
        v = 'auto(' + d.get('chosen', '').split('rows=')[-1].split(',')[0] + ')' if d['variant'] == 'auto' else \
            d['variant'].split('rows=')[-1]
        res.setdefault(d['case'] + ' ' + d['precision'], []).append('%s %.4f' % (v, d.get('median_ms') or 0))
    for c, v in res.items():
        print('%-30s %s' % (c, ' | '.join(v)))
PY
