#!/usr/bin/env bash
# Held-out check of the tuned profile, one command (issue #23 item 3; docs/tuning.md, "Held-out check"): for problems
# that are not among the tuner's training problems, the automatic choice against the built-in defaults and against
# the best of the profile's parameter sets, per family, with a markdown report and JSON lines.
#
# Usage: bench/heldout.sh [OUT_DIR] [heldout.py options]   (default $OUT, else ./bench-out/heldout)
#   bench/heldout.sh bench-out/heldout-h100                       # H100 scale, the device's profile (~8 minutes)
#   bench/heldout.sh /tmp/h --device pocl --quick                 # CI size on a CPU (< 1 minute)
#   bench/heldout.sh /tmp/h --profile profiles/nvidia-h100.json --families spmv,xcorr
# Environment: CLPK_BIN (folder of the CLIs; default .gpu/build/bin, else build/bin), CLPK_DEVICE.
# Exit status: 0 report written and every result correct (the speed targets are reported, not asserted), 1 a run
# failed or a result was wrong, 2 usage.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-bench-out/heldout}
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    OUT=$1
    shift
fi
exec python3 "$ROOT/bench/heldout.py" --out "$OUT" "$@"
