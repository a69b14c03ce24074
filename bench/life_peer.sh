#!/bin/bash
# LiFE's DSC and WC through cuSPARSE (bench/peers/cusparse_life.py) on the dataset clpk-bench-life uses: synthesises
# DS1 (seed 3) with clpk-life into a scratch folder outside OUT_DIR (1.4 GB), runs the peer in f32 and f64 and writes
# life-peer.jsonl, life-peer.md and life-peer.log into OUT_DIR (docs/perf-life.md, "cuSPARSE peer").
# On the H100 machine: `. .gpu/enter && bench/life_peer.sh "$OUT"` (~1.5-3 min: synth ~20-60 s, the peer ~1-2 min).
# Environment: CLPK_BIN (default .gpu/build/bin, else build/bin), LIFE_SIZE (ds1), LIFE_SEED (3), LIFE_DATA (an
# existing dataset directory: no synth), SCRATCH (where the synthesised dataset goes; default a mktemp folder under
# ${TMPDIR:-/tmp}, removed at exit), PRECISION (f32,f64), CALLS (20), BATCHES (7). Extra arguments go to the peer
# (e.g. --dry-run with LIFE_SIZE=tiny on a machine without a GPU).
set -euo pipefail
OUT_DIR=${1:-${OUT:-bench-out}}
shift || true
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${CLPK_BIN:-}
if [ -z "$BIN" ]; then
    if [ -x .gpu/build/bin/clpk-life ]; then BIN=.gpu/build/bin; else BIN=build/bin; fi
fi
mkdir -p "$OUT_DIR"
: >"$OUT_DIR/life-peer.log"
if [ -n "${LIFE_DATA:-}" ]; then
    DATA=$LIFE_DATA
else
    SCRATCH_DIR=${SCRATCH:-$(mktemp -d "${TMPDIR:-/tmp}/clpk-life-peer.XXXXXX")}
    if [ -z "${SCRATCH:-}" ]; then trap 'rm -rf "$SCRATCH_DIR"' EXIT; fi
    DATA=$SCRATCH_DIR/${LIFE_SIZE:-ds1}-seed${LIFE_SEED:-3}
    start=$(date +%s)
    "$BIN/clpk-life" synth --out "$DATA" --size "${LIFE_SIZE:-ds1}" --seed "${LIFE_SEED:-3}" 2>&1 |
        tee -a "$OUT_DIR/life-peer.log"
    echo "life_peer.sh: synth took $(($(date +%s) - start)) s" | tee -a "$OUT_DIR/life-peer.log"
fi
python3 "$HERE/peers/cusparse_life.py" "$DATA" --precision "${PRECISION:-f32,f64}" --calls "${CALLS:-20}" \
    --batches "${BATCHES:-7}" --json "$OUT_DIR/life-peer.jsonl" --md "$OUT_DIR/life-peer.md" "$@" 2>&1 |
    tee -a "$OUT_DIR/life-peer.log" # pipefail: the peer's exit status (1 on a wrong result) is the script's
