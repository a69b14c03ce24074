#!/usr/bin/env bash
# session 27, call 3 (H100): the new profile once more; SpMV's evaluation corpus against the fair cuSPARSE peer
# (issue #22); held-out xcorr s16 and LiFE; one-to-one's row kernels on their own work-group size (fused_row_wg).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res3; rm -rf $R; mkdir -p $R /tmp/prof
if [ -f /tmp/res1/tuned.json ]; then cp /tmp/res1/tuned.json /tmp/prof/nvidia-h100.json; echo "profile: call 1 (warm)" > $R/profile.txt
else cp profiles/nvidia-h100.json /tmp/prof/; echo "profile: tree" > $R/profile.txt; fi
export CLPK_PROFILE_DIR=/tmp/prof
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
mkdir -p /tmp/empty-profiles
for pd in /tmp/empty-profiles $PWD/profiles /tmp/prof; do
    n=$(echo $pd | tr / _)
    CLPK_PROFILE_DIR=$pd timeout 40 $B/clpk-bench-sshopm --out $R/sshopm43$n --shapes 4x3 --precision f32,f64 \
        --tensors 65536 --starts 128 --iters 200 --repeats 50 --voxels 0 > $R/sshopm43$n.log 2>&1; stamp "sshopm $pd rc $?"
    grep -iE "start-it" $R/sshopm43$n.log | head -2
done
timeout $(left 200) bench/spmv.sh --out $R/spmv-eval --bin $B --cases none --corpus bench/spmv_corpus.txt \
    --impls clpk-auto > $R/spmv-eval.log 2>&1; stamp "spmv eval rc $?"
tar czf $OUT/results.tgz -C $R .
V="fused-fft,fused-fft:fused_row_wg=64,fused-fft:fused_row_wg=32"
for p in f32 f64; do
    timeout $(left 250) $B/clpk-bench-xcorr --patterns one-to-one --sizes 64,128,256 --precision $p --repeats 15 \
        --max-ms 100 --variants $V --json $R/rowwg-$p.jsonl > $R/rowwg-$p.log 2>&1; stamp "row wg $p rc $?"
done
timeout $(left 290) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
    --profile /tmp/prof/nvidia-h100.json --out $R/heldout-xcorr-s16 > $R/heldout-xcorr-s16.log 2>&1
stamp "held-out xcorr s16 rc $?"
tar czf $OUT/results.tgz -C $R .
timeout $(left 550) python3 bench/heldout.py --device nvidia --bin $B --families life \
    --profile /tmp/prof/nvidia-h100.json --out $R/heldout-life > $R/heldout-life.log 2>&1
stamp "held-out life rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -6 $R/spmv-eval.log
python3 - <<'PY'
import json
for p in ('f32', 'f64'):
    rows = {}
    for l in open('/tmp/res3/rowwg-%s.jsonl' % p):
        d = json.loads(l)
        if d.get('median_ms') and d.get('variant'): rows.setdefault(d['case'], {})[d['variant']] = d['median_ms']
    for c, v in rows.items():
        base = v.get('fused-fft')
        print(p, c, ' '.join('%s %.4f (%.3fx)' % (k.split(':')[-1], t, base / t if base else 0) for k, t in v.items()))
PY
grep "auto >=" $R/heldout-*.log
