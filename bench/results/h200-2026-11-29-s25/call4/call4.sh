#!/usr/bin/env bash
# session 25, call 4 (HEAD 3b0d02c, .gpu/build): f64 fused-fft lines per work-group, one-to-many and n-to-mn 1 x 4000 /
# 100 x 4000 at 32^2-256^2: the auto plan against 2, 4, 8 and 16 lines (tiles, wg 128, radix 8, smooth), twice.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache CLPK_PROFILE_DIR=$PWD/profiles
B=.gpu/build/bin
R=/tmp/res4; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
v=auto; for l in 1 2 4 8 16; do v="$v,fused-fft:fft_pad=smooth/fft_radix=8/fused_gaps=1/fused_tiles=1/wg=128/rows=$l"; done
for run in 1 2; do
    timeout $(left $((100 + 100 * run))) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn --scale 1 \
        --sizes 32,48,64,96,128,192,256 --precision f64 --variants $v --repeats 10 --max-ms 70 \
        --json $R/f64-$run.jsonl > $R/f64-$run.log 2>&1
    stamp "f64 run $run rc $?"
done
tar czf $OUT/results.tgz -C $R .
python3 - <<'PY'
import json, collections
res = collections.defaultdict(dict)
for run in (1, 2):
    for l in open('/tmp/res4/f64-%d.jsonl' % run):
        d = json.loads(l)
        if d.get('n_out', 0) < 1000: continue
        v = 'auto ' + d.get('chosen', '')[:60] if d['variant'] == 'auto' else d['variant'].split('rows=')[-1]
        key = d['case']
        t = d.get('median_ms') or 0
        res[key].setdefault(v, []).append(t)
for c, vs in res.items():
    print(c, ' | '.join('%s: %s' % (k, '/'.join('%.3f' % x for x in t)) for k, t in vs.items()))
PY
