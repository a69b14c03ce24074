#!/usr/bin/env bash
# session 13, call 2: the tune's profile (.gpu/s13/tuned.json) on held-out xcorr (s12) and sshopm, the documented
# SS-HOPM (4,3) and LiFE DS1 numbers with it, LiFE staged orders, the xcorr radix command (auto = the tuned profile)
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache-cold
export CLPK_PROFILE=$PWD/.gpu/s13/tuned.json
B=.gpu/build/bin
R=/tmp/res2; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${LIMIT:-548} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
H="python3 bench/heldout.py --device nvidia --bin $B --profile $CLPK_PROFILE"
stamp start
timeout $(left) $B/clpk-bench-sshopm --out $R/sshopm43 --shapes 4x3 --precision f32,f64 --tensors 65536 --starts 128 --iters 200 --repeats 50 --voxels 0 > $R/sshopm43.log 2>&1; stamp "sshopm 4x3 rc $?"
timeout $(left) $H --families xcorr --out $R/heldout-xcorr-s12 > $R/heldout-xcorr-s12.log 2>&1; stamp "heldout xcorr s12 rc $?"
timeout $(left) $H --families sshopm --out $R/heldout-sshopm > $R/heldout-sshopm.log 2>&1; stamp "heldout sshopm rc $?"
timeout $(left) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 30 --iters 500 --check --orders "dsc=voxel,wc=fiber;dsc=staged,wc=staged;dsc=staged,wc=staged,unroll=4" --json $R/life-orders.json --md $R/life-orders.md > $R/life-orders.log 2>&1; stamp "life orders rc $?"
PLOTS=0 timeout $(left) bench/xcorr.sh $R/xcorr-radix --patterns one-to-one,one-to-many --sizes 64,128,256 --repeats 20 --variants auto,fused-fft,fused-fft:fft_radix=8,fused-fft:fft_radix=16,fused-fft:wg=64,fused-fft:fft_radix=8/wg=64,fused-fft:fft_radix=16/wg=64,fused-fft:fft_radix=16/rows=8 > $R/xcorr-radix.log 2>&1; stamp "xcorr radix rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/*/heldout.md; do echo "== $f"; sed -n '/^| family/,/^$/p' $f; done
