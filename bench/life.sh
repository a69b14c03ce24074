#!/bin/bash
# LiFE benchmark, one command (on the H100 machine: `. .gpu/enter && bench/life.sh "$OUT"`):
# synthesises the seed's DS1 scale (Ntheta 96, ~187 k voxels, 500 k fibres, ~57 M coefficients), then for f32 and f64
# times DSC and WC of every kernel (the atomics baseline included) with the bytes each must move, the device copy
# bandwidth, a 500-iteration SBB-NNLS fit (and a few atomics-baseline iterations); writes life.json, life.md,
# life.log and PNG charts into the output directory.
# Environment: CLPK_BIN (default .gpu/build/bin, else build/bin), LIFE_SIZE (ds1), LIFE_SEED (3), LIFE_DATA (a
# dataset directory instead of synth), RUNS (50), ITERS (500), ATOMICS_ITERS (10), COPY_MB (512), FIT_PARAMS (extra
# fits of the default plan, ';'-separated parameter lists; default the unroll sweep 1;2;4;8). Extra arguments go
# to clpk-bench-life (e.g. --device, --precision f32, --check).
# There is no CuPy/PyTorch peer for LiFE: the comparison points are the atomics baseline of the same run and the seed
# authors' CUDA GPU-opt measured on this H100 (../shared/gpu/README.md: 38-59 ms per iteration at DS1 scale).
set -euo pipefail
OUT_DIR=${1:-${OUT:-bench-out}}
shift || true
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${CLPK_BIN:-}
if [ -z "$BIN" ]; then
    if [ -x .gpu/build/bin/clpk-bench-life ]; then BIN=.gpu/build/bin; else BIN=build/bin; fi
fi
mkdir -p "$OUT_DIR"
if [ -n "${LIFE_DATA:-}" ]; then
    DATA=(--data "$LIFE_DATA")
else
    DATA=(--size "${LIFE_SIZE:-ds1}" --seed "${LIFE_SEED:-3}")
fi
"$BIN/clpk-bench-life" "${DATA[@]}" --runs "${RUNS:-50}" --iters "${ITERS:-500}" \
    --atomics-iters "${ATOMICS_ITERS:-10}" --copy-mb "${COPY_MB:-512}" \
    --fit-params "${FIT_PARAMS-unroll=1;unroll=2;unroll=4;unroll=8}" \
    --json "$OUT_DIR/life.json" --md "$OUT_DIR/life.md" "$@" | tee "$OUT_DIR/life.log"
cat "$OUT_DIR/life.md"
if python3 -c "import matplotlib" 2>/dev/null; then
    # all charts from one python process (matplotlib imports once), through bench/plot.py's main()
    python3 - "$HERE" "$OUT_DIR" <<'PY'
import sys
here, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, here)
import plot
js = f"{out}/life.json"
import json
# charts only for the precisions that have products (the copy-bandwidth record is tagged f32 in every run)
have = {r.get("precision") for r in json.load(open(js)) if r.get("kind") == "product"}
charts = []
for p in ("f32", "f64"):
    if p not in have:
        continue
    charts += [
        ["--y", "median_ms", "--logy", "--where", f"precision={p}", "--where", "kind=product",
         "--out", f"{out}/life_{p}_ms.png", "--title", f"LiFE {p}: DSC / WC per call (ms)"],
        ["--y", "gbps", "--where", f"precision={p}", "--out", f"{out}/life_{p}_gbps.png",
         "--title", f"LiFE {p}: GB/s of the compulsory bytes (copy = device copy bandwidth)"],
        ["--y", "speedup_vs_atomics", "--where", f"precision={p}", "--out", f"{out}/life_{p}_speedup.png",
         "--title", f"LiFE {p}: speed-up over the atomics baseline"],
    ]
charts = [["--x", "case", "--series", "impl"] + c for c in charts]
charts.append(["--x", "precision", "--series", "impl", "--y", "per_iter_ms", "--logy", "--where", "case=fit",
               "--out", f"{out}/life_fit.png", "--title", "LiFE SBB-NNLS: ms per iteration"])
failed = 0
for c in charts:
    sys.argv = ["plot.py", js, "--kind", "bar"] + c
    failed |= plot.main() != 0
sys.exit(failed)
PY
else
    echo "life.sh: no matplotlib, charts skipped" >&2
fi
