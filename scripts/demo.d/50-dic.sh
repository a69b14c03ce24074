#!/usr/bin/env bash
# Demo fragment: digital image correlation of the shared speckle images with clpk-dic (run by scripts/demo.sh with
# $BIN = the build's bin dir, $DATA = the shared data dir). Prints the displacement summary and where the files went.
set -euo pipefail
data=${DATA:-${CLPK_SHARED_DATA_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/data}}
ref=$data/dic/refSpeckled.npy
def=$data/dic/defSpeckled.npy
if [ ! -r "$ref" ] || [ ! -r "$def" ]; then
    echo "skipped: $ref / $def not found"
    exit 0
fi
out=${CLPK_DEMO_OUT:-${TMPDIR:-/tmp}/clpk-demo}
mkdir -p "$out"
echo "clpk-dic: 64-px subsets every 32 px, each reference subset against its 3x3 neighbourhood of deformed windows"
echo "(n-to-mn), ZNCC peak + Gauss-Newton sub-pixel refinement"
"$BIN/clpk-dic" --ref "$ref" --def "$def" --subset 64 --step 32 --method n-to-mn --search 8 \
    --out "$out/dic_disp.npy" --png "$out/dic_disp.png"
echo "one-to-one on the same images, FFT path:"
if "$BIN/clpk-dic" --ref "$ref" --def "$def" --subset 64 --step 32 --method one-to-one --algorithm fft \
    --out "$out/dic_disp_fft.npy" >"$out/dic_fft.log" 2>&1; then
    sed -n '2,3p' "$out/dic_fft.log"
else
    echo "  (FFT path unavailable: $(tail -1 "$out/dic_fft.log"))"
fi
echo "displacement field: $out/dic_disp.npy (float64 rows x cols x 2: u, v); picture: $out/dic_disp.png"
