#!/usr/bin/env bash
# SS-HOPM demo (run by scripts/demo.sh with $BIN set): the diffusion-MRI example on a small field. Voxels hold
# order-4 tensors A = sum_f w_f u_f^(x)4 + noise of 1-3 fibres crossing at >= 45 degrees (SNR 50); SS-HOPM finds
# each voxel's local maxima on the device; the fibres are read off as the peaks themselves and as a low-rank fit
# started from them; the angular errors against the true fibres and the fraction found are printed. Then random
# tensors' maxima and minima, and fibre peaks of a real diffusion scan when ../shared/data is there.
set -euo pipefail
: "${BIN:?set BIN to the bin directory of a build}"
echo "-- 1000 voxels, order 4, 1..3 fibres crossing at >= 45 degrees, SNR 50"
"$BIN/clpk-sshopm" dmri-synth --voxels 1000 --order 4 --max-fibres 3 --min-angle 45 --snr 50 --seed 1
echo "-- the same with order-6 tensors (sharper lobes: the peaks alone are closer to the fibres)"
"$BIN/clpk-sshopm" dmri-synth --voxels 500 --order 6 --max-fibres 2 --min-angle 45 --snr 50 --seed 2
echo "-- two random order-4 tensors of dimension 3: every local max and min (the default adaptive shift)"
"$BIN/clpk-sshopm" --random 2 --order 4 --dim 3 --find both --starts 128
scan=$(dirname "$0")/../../../shared/data/dmri
out=${CLPK_DEMO_OUT:-${TMPDIR:-/tmp}/clpk-demo}
mkdir -p "$out"
if [ -f "$scan/small_64D.nii" ]; then
    echo "-- a real scan (dipy's small_64D: 10x10x10 voxels, 64 directions): fibre peaks in dipy's layout + a PNG"
    "$BIN/clpk-sshopm" dmri --dwi "$scan/small_64D.nii" --bval "$scan/small_64D.bval" --bvec "$scan/small_64D.bvec" \
        --order 4 --out "$out/small_64D"
else
    echo "-- (no ../shared/data/dmri beside the checkout: the real-scan example is skipped)"
fi
