#!/usr/bin/env bash
# session 27, call 2 (H100): the new profile (call 1's tune, /tmp/res1/tuned.json when the machine is still warm,
# else the tree's profiles/nvidia-h100.json) as the device's profile; tests on the GPU; what a user gets with it:
# SS-HOPM (4,3), LiFE DS1 500 iterations + the cuSPARSE SpMM/SDDMM peer, xcorr against the cuFFT pipeline;
# held-out xcorr s26 and sshopm.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res2; rm -rf $R; mkdir -p $R /tmp/prof
if [ -f /tmp/res1/tuned.json ]; then cp /tmp/res1/tuned.json /tmp/prof/nvidia-h100.json; echo "profile: call 1 (warm)" > $R/profile.txt
else cp profiles/nvidia-h100.json /tmp/prof/; echo "profile: tree" > $R/profile.txt; fi
export CLPK_PROFILE_DIR=/tmp/prof
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $R/profile.txt
$B/clpk-info >> $R/profile.txt 2>&1
for t in test_xcorr_fused test_xcorr_params; do
    timeout $(left 40) .gpu/s27/main/$t > $R/$t.log 2>&1; stamp "$t rc $?"
done
timeout $(left 70) $B/clpk-bench-sshopm --out $R/sshopm43 --shapes 4x3 --precision f32,f64 --tensors 65536 \
    --starts 128 --iters 200 --repeats 50 --voxels 0 > $R/sshopm43.log 2>&1; stamp "sshopm 4x3 rc $?"
timeout $(left 90) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1; stamp "synth rc $?"
timeout $(left 210) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 20 --iters 500 --check --first-launch \
    --json $R/life.json --md $R/life.md > $R/life.log 2>&1; stamp "life rc $?"
tar czf $OUT/results.tgz -C $R .
LIFE_DATA=/tmp/ds1 CALLS=20 BATCHES=5 timeout $(left 280) bash bench/life_peer.sh $R/peer > $R/peer.log 2>&1
stamp "life peer rc $?"
rm -rf /tmp/ds1
PLOTS=0 PEER_REPEATS=20 timeout $(left 330) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1; stamp "xcorr f32 rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 360) bench/xcorr.sh $R/xcorr-ntom --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128 --patterns n-to-m > $R/xcorr-ntom.log 2>&1; stamp "xcorr n-to-m f32 rc $?"
tar czf $OUT/results.tgz -C $R .
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 410) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --max-ms 70 --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f64.log 2>&1
stamp "xcorr f64 rc $?"
timeout $(left 500) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s26 \
    --profile /tmp/prof/nvidia-h100.json --out $R/heldout-xcorr-s26 > $R/heldout-xcorr-s26.log 2>&1
stamp "held-out xcorr s26 rc $?"
timeout $(left 540) python3 bench/heldout.py --device nvidia --bin $B --families sshopm \
    --profile /tmp/prof/nvidia-h100.json --out $R/heldout-sshopm > $R/heldout-sshopm.log 2>&1
stamp "held-out sshopm rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log $R/profile.txt | grep -v "^ "
for t in test_xcorr_fused test_xcorr_params; do tail -n 1 $R/$t.log; done
grep -iE "G start|start-it" $R/sshopm43.log | head -4
grep "^| " $R/life.md | head -12; grep "^| [DW]" $R/peer/life-peer.md | cut -d'|' -f2-7
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128|100x" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-*.log
