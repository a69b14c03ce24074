#!/usr/bin/env bash
# session 22, call 2: wc=pairs's fibre sums in fibre order (fiber_order=voxel) and 16 voxel runs a DSC group, as GPU
# pair defaults, against the previous library (.gpu/s22/old, HEAD 851d756) in the same run: DS1 seed 3, the same with
# its fibres shuffled, DS1 seed 11 and synth medium seed 5 (held out); the cuSPARSE peer on DS1 seed 3; LiFE tests.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
NEW=$PWD/.gpu/build OLD=$PWD/.gpu/s22/old
export LD_LIBRARY_PATH=$NEW:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-575}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
for t in test_life_sort test_life_fit test_life_kernels; do
    timeout $(left 90) .gpu/s22/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
# a sabotaged weight pass (products past the staged ones dropped): the tests must fail
LD_LIBRARY_PATH=$PWD/.gpu/s22/sab:$BASE_LD timeout $(left 120) .gpu/s22/test_life_kernels > $R/sabotage.log 2>&1
stamp "sabotaged test_life_kernels rc $? ($(grep -c FAIL $R/sabotage.log) FAIL lines)"
timeout $(left 120) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1; stamp "synth rc $?"
# both libraries, one dataset: the defaults' plan (a no-op list), products with first launches, and a fit
bench() { # NAME DATA ITERS [extra]
    local name=$1 data=$2 iters=$3; shift 3
    timeout $(left $LIM) $B/clpk-bench-life --data $data --precision both --runs 20 --iters $iters --first-launch \
        --orders "unroll=8" "$@" --json $R/$name.json --md $R/$name.md > $R/$name.log 2>&1
    stamp "$name rc $?"
    LD_LIBRARY_PATH=$OLD:$BASE_LD timeout $(left $LIM) $B/clpk-bench-life --data $data --precision both --runs 20 \
        --iters $iters --first-launch --orders "unroll=8" --json $R/$name-old.json --md $R/$name-old.md \
        > $R/$name-old.log 2>&1
    stamp "$name old rc $?"
}
LIM=250 bench ds1 /tmp/ds1 500 --check
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
LIM=320 bench shuffled /tmp/ds1s 0
LIFE_DATA=/tmp/ds1 CALLS=20 BATCHES=5 timeout $(left 400) bash bench/life_peer.sh $R/peer > $R/peer.log 2>&1
stamp "peer rc $?"
rm -rf /tmp/ds1s
timeout $(left 420) $B/clpk-life synth --out /tmp/ds11 --size ds1 --seed 11 > $R/synth11.log 2>&1; stamp "synth 11 rc $?"
LIM=520 bench seed11 /tmp/ds11 500
timeout $(left 530) $B/clpk-life synth --out /tmp/med --size medium --seed 5 > $R/synthm.log 2>&1; stamp "synth m rc $?"
LIM=570 bench medium5 /tmp/med 500
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_life_*.log
for n in ds1 shuffled seed11 medium5; do for v in "" -old; do
  echo "== $n$v"; grep -h "first launch\|^fit\|plan (" $R/$n$v.log | cut -c1-110
  grep "^| " $R/$n$v.md | grep -v "^| case\|^|--\|^| fit |" | cut -d'|' -f2-6
done; done
cat $R/peer/life-peer.md 2>/dev/null | head -12
