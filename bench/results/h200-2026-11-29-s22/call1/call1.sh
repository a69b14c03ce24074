#!/usr/bin/env bash
# session 22, call 1: dsc=pairs's loop against voxels per work-group (runs) and team width, DS1 seed 3, the GPU
# defaults otherwise; then the defaults on the same DS1 with its fibre indices shuffled (the pair sum's gathers
# against the fibres' order).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-280}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 40) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1; stamp "synth rc $?"
timeout $(left 170) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 --iters 0 --first-launch \
    --orders "unroll=8;runs=8,unroll=8;runs=16,unroll=8;runs=32,unroll=8;team=16,runs=8,unroll=8" \
    --json $R/runs.json --md $R/runs.md > $R/runs.log 2>&1
stamp "runs rc $?"
mkdir -p /tmp/ds1s && cp /tmp/ds1/* /tmp/ds1s/ && python3 - <<'PY' > $R/shuffle.log 2>&1
import numpy as np
d = '/tmp/ds1s/'
f = np.load(d + 'phi_fibers.npy'); w = np.load(d + 'w_true.npy')
perm = np.random.default_rng(22).permutation(w.shape[0])   # fibre i becomes perm[i]
np.save(d + 'phi_fibers.npy', perm[f].astype(f.dtype))
w2 = np.empty_like(w); w2[perm] = w; np.save(d + 'w_true.npy', w2)
print('shuffled', w.shape[0], 'fibres', f.dtype, w.dtype)
PY
stamp "shuffle rc $?"
timeout $(left 250) $B/clpk-bench-life --data /tmp/ds1s --precision both --runs 20 --iters 0 --first-launch \
    --orders "unroll=8" --json $R/shuffled.json --md $R/shuffled.md > $R/shuffled.log 2>&1
stamp "shuffled rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "first launch\|plan (" $R/runs.log $R/shuffled.log | cut -c1-150 | head -40
cat $R/runs.md | head -60
