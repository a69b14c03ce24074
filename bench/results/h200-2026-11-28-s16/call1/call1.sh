#!/usr/bin/env bash
# session 16, call 1 (prepared in session 15; rebuild .gpu/build at HEAD first): judge session 15's changes on the
# H200 with the shipped profiles/nvidia-h200.json:
#  1. xcorr held-out s15 (unseen) with the new library and with 499b891's (.gpu/s16/old: the padding rule before);
#  2. SS-HOPM held-out to convergence (the default now) and convergent runs (production options) with check_every 4, 8, 16: does the tuned 16 pay?
#  3. SS-HOPM (4,3) and LiFE DS1 with the new library (the block-test fix must not move them).
# carry: .gpu/enter .gpu/debs .gpu/build/bin .gpu/build/libclpk.so .gpu/build/libclpk.so.0 .gpu/build/libclpk.so.0.1.0
#        .gpu/data .gpu/s16
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
timeout $(left 150) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s15 \
    --out $R/heldout-s15-new > $R/heldout-s15-new.log 2>&1; stamp "s15 new rc $?"
LD_LIBRARY_PATH=$PWD/.gpu/s16/old:$LD_LIBRARY_PATH timeout $(left 300) python3 bench/heldout.py --device nvidia \
    --bin .gpu/s16/old --families xcorr --xcorr-set s15 --confirm 0 --out $R/heldout-s15-old > $R/heldout-s15-old.log 2>&1
stamp "s15 old rc $?"
timeout $(left 250) python3 bench/heldout.py --device nvidia --bin $B --families sshopm --out $R/heldout-sshopm-conv \
    > $R/heldout-sshopm-conv.log 2>&1; stamp "sshopm held-out (converged) rc $?"
for shape in "4 3" "4 4" "6 3"; do
  set -- $shape
  for p in f32 f64; do
    for k in 4 8 16; do
      timeout $(left 420) $B/clpk-bench-sshopm --out $R/conv-$1$2-$p-k$k --shapes $1x$2 --precision $p --converge --voxels 0 --no-npy --no-peak --repeats 20 --params check_every=$k \
          > $R/conv-$1$2-$p-k$k.log 2>&1
      stamp "sshopm conv ($1,$2) $p k=$k rc $?"
    done
  done
done
timeout $(left 430) $B/clpk-bench-sshopm --out $R/sshopm43 --shapes 4x3 --precision f32,f64 --tensors 65536 \
    --starts 128 --iters 200 --repeats 50 --voxels 0 > $R/sshopm43.log 2>&1; stamp "sshopm 4x3 rc $?"
timeout $(left) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 20 --iters 500 \
    --json $R/life.json --md $R/life.md > $R/life.log 2>&1; stamp "life rc $?"
find $R -name "*.npy" -size +4M -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/*/heldout.md; do echo "== $f"; sed -n '/^| family/,/^$/p' $f; done
grep -h "ms,\|iterations a start" $R/conv-*.log; grep -h "G start" $R/sshopm43.log; grep -A5 "^| fit" $R/life.md
