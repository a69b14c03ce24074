#!/usr/bin/env bash
# session 16, call 2: the cheaper block test (smallest lambda step of the block; x step only with xtol) against the
# kernel before f1e1630 (.gpu/s16/prefix) at fixed iterations; convergent runs at check_every 4/8/16; then the
# H200's sshopm re-tune (revision 2: runs to convergence), merged into profiles/nvidia-h200.json (sshopm stripped),
# the sshopm held-out check with it, and the README's SS-HOPM (4,3) numbers with it.
# carry: .gpu/enter .gpu/debs .gpu/build/bin .gpu/build/libclpk.so .gpu/build/libclpk.so.0 .gpu/build/libclpk.so.0.1.0
#        .gpu/data .gpu/s16
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-565}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
EMPTY=$(mktemp -d)
$B/clpk-info > $R/info.txt 2>&1
stamp start
S15=kernel=generated,entries=private,wg=64,check_every=16
FIX="--shapes 4x3 --precision f32,f64 --tensors 65536 --starts 128 --iters 200 --repeats 50 --voxels 0 --no-npy"
for round in 1 2; do
  LD_LIBRARY_PATH=$PWD/.gpu/s16/prefix:$LD_LIBRARY_PATH timeout $(left 60) .gpu/s16/prefix/clpk-bench-sshopm --out $R/fixed-prefix-$round $FIX --params $S15 > $R/fixed-prefix-$round.log 2>&1
  stamp "fixed prefix rc $?"
  timeout $(left 60) $B/clpk-bench-sshopm --out $R/fixed-new-$round $FIX --params $S15 > $R/fixed-new-$round.log 2>&1
  stamp "fixed new rc $?"
done
CLPK_PROFILE_DIR=$EMPTY timeout $(left 70) $B/clpk-bench-sshopm --out $R/fixed-defaults $FIX --no-peak > $R/fixed-defaults.log 2>&1
stamp "fixed defaults rc $?"
for shape in 4x3 4x4 6x3; do
  for k in 4 8 16; do
    timeout $(left 100) $B/clpk-bench-sshopm --out $R/conv-$shape-k$k --shapes $shape --precision f32,f64 --converge --voxels 0 --no-npy --no-peak --repeats 20 --params check_every=$k \
        > $R/conv-$shape-k$k.log 2>&1
    stamp "conv $shape k=$k rc $?"
  done
done
export CLPK_CACHE_DIR=/tmp/clpk-cache-cold; rm -rf $CLPK_CACHE_DIR
timeout $(left 370) $B/clpk-tune --device nvidia --families sshopm --budget $(( $(left 370) - 25 )) --out $R/sshopm-tuned.json > $R/tune.log 2>&1
stamp "tune rc $?"
$B/clpk-tune --merge profiles/nvidia-h200.json $R/sshopm-tuned.json --out $R/merged.json > $R/merge.log 2>&1
stamp "merge rc $?"
timeout $(left 530) python3 bench/heldout.py --device nvidia --bin $B --families sshopm --profile $R/merged.json --out $R/heldout-sshopm \
    > $R/heldout-sshopm.log 2>&1; stamp "held-out rc $?"
CLPK_PROFILE=$R/merged.json timeout $(left 550) $B/clpk-bench-sshopm --out $R/readme43 --shapes 4x3 --precision f32,f64 --tensors 65536 \
    --starts 128 --iters 200 --repeats 50 --voxels 0 --no-npy > $R/readme43.log 2>&1; stamp "readme 4x3 rc $?"
CLPK_PROFILE=$R/merged.json timeout $(left) $B/clpk-bench-sshopm --out $R/readme43-conv --shapes 4x3 --precision f32,f64 --converge --voxels 0 --no-npy --no-peak --repeats 20 \
    > $R/readme43-conv.log 2>&1; stamp "readme 4x3 converged rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -h "G start" $R/fixed-*.log
grep -h "ms,\|iterations a start" $R/conv-*.log | paste - - | awk '{print $1,$2,$4,$5,$NF, $(NF-13)}' 
grep "sshopm" $R/tune.log | tail -20
sed -n '/^| family/,/^$/p' $R/heldout-sshopm/heldout.md
grep -h "G start\|iterations a start" $R/readme43*.log
