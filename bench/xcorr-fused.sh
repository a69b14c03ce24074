#!/usr/bin/env bash
# One-command H100 measurement of the fused FFT path (docs/perf-xcorr.md, "fused-fft"): one-to-one x 4000 square f32
# pairs at 16..256, clpk's automatic choice, the VkFFT path, fused-fft with its defaults and each value of its main
# parameters (rows = FFT lines per work-group, wg, fft_pad, fused_gaps), and CuPy's cuFFT pipeline on the same data (skipped with a
# message without CuPy). Writes OUTDIR/xcorr.json and OUTDIR/xcorr.md (bench/xcorr.sh's merge; the "best fused-fft
# ms" column and the auto ratio are what to read). About 2-4 minutes on the H100.
# Usage: bench/xcorr-fused.sh OUTDIR [more clpk-bench-xcorr options, e.g. --sizes 64 --scale 0.01 for a smoke test]
#   (BIN or CLPK_BIN: folder of clpk-bench-xcorr; default .gpu/build/bin, else build/bin)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-bench-out/xcorr-fused}}
[ $# -gt 0 ] && shift
if [ -n "${BIN:-}" ]; then export CLPK_BIN=$BIN; fi
variants=auto,fft,fused-fft
for v in rows=1 rows=2 rows=4 rows=8 wg=64 wg=256 fft_pad=pow2 fused_gaps=0; do variants=$variants,fused-fft:$v; done
exec env PLOTS="${PLOTS:-0}" "$root/bench/xcorr.sh" "$out" --patterns one-to-one \
    --sizes 16,24,32,48,64,96,128,192,256 --variants "$variants" --repeats "${REPEATS:-20}" "$@"
