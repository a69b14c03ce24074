#!/usr/bin/env bash
# session 16, call 5: the README's dMRI scan row after the SS-HOPM convergence-test changes (sessions 15-16): dipy's
# small_64D tiled to 100^3 voxels (bench/dmri_tile.py), clpk-sshopm dmri on the device path, orders 4 and 6, three
# runs each (the first compiles), as bench/results/h100-2026-11-25-s8/dmri-device.log.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-500}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
D=.gpu/s16/dmri
python3 bench/dmri_tile.py $D/small_64D.nii /tmp/big.nii 100 100 100 > $R/tile.log 2>&1; stamp "tile rc $?"
for order in 4 6; do
  for run in 1 2 3; do
    echo "order $order run $run" >> $R/dmri-device.log
    timeout $(left) $B/clpk-sshopm dmri --dwi /tmp/big.nii --bval $D/small_64D.bval --bvec $D/small_64D.bvec \
        --order $order --out /tmp/big_o$order >> $R/dmri-device.log 2>&1
    stamp "order $order run $run rc $?"
  done
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep -E "^order|compute|stages|SS-HOPM starts|peaks per voxel" $R/dmri-device.log
