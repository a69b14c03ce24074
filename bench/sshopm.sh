#!/usr/bin/env bash
# SS-HOPM benchmark, one command: clpk (fixed-iteration throughput per (m, n) and precision, FMA peak, dMRI
# time-to-solution) and the peers (CUDA port of the seed's design through CuPy, batched PyTorch einsum) on the very
# same tensors and starts (clpk-bench-sshopm writes them as .npy, the peers read them), then one merged JSON with
# ratios, a markdown table and PNG charts. docs/perf-sshopm.md has the model, predictions and targets.
#
# Usage: bench/sshopm.sh [OUT_DIR]     (default $OUT, else ./bench-out/sshopm)
# Environment: BIN (folder of clpk-bench-sshopm; default .gpu/build/bin, else build/bin), TENSORS (65536),
#   STARTS (128), ITERS (200), SHAPES (3x3,4x3,6x3,8x3,4x4,4x6), PRECISION (f32,f64), REPEATS (50), VOXELS (1000000),
#   CLPK_ARGS (extra clpk-bench-sshopm options, e.g. "--params check_every=8"), PEER_ARGS (extra peer options).
# On the H100 machine:  . .gpu/enter && bench/sshopm.sh "$OUT"
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-${OUT:-bench-out/sshopm}}
if [ -z "${BIN:-}" ]; then
    if [ -x "$ROOT/.gpu/build/bin/clpk-bench-sshopm" ]; then BIN=$ROOT/.gpu/build/bin; else BIN=$ROOT/build/bin; fi
fi
TENSORS=${TENSORS:-65536}
STARTS=${STARTS:-128}
ITERS=${ITERS:-200}
SHAPES=${SHAPES:-3x3,4x3,6x3,8x3,4x4,4x6}
PRECISION=${PRECISION:-f32,f64}
REPEATS=${REPEATS:-50}
VOXELS=${VOXELS:-1000000}
mkdir -p "$OUT"

# shellcheck disable=SC2086 # CLPK_ARGS / PEER_ARGS are word lists on purpose
"$BIN/clpk-bench-sshopm" --out "$OUT" --shapes "$SHAPES" --precision "$PRECISION" --tensors "$TENSORS" \
    --starts "$STARTS" --iters "$ITERS" --repeats "$REPEATS" --voxels "$VOXELS" ${CLPK_ARGS:-} | tee "$OUT/clpk.log"

if python3 -c "import cupy" 2>/dev/null; then
    # shellcheck disable=SC2086
    python3 "$ROOT/bench/peers/sshopm_peers.py" --data-dir "$OUT" --shapes "$SHAPES" --precision "$PRECISION" \
        --iters "$ITERS" --repeats "$REPEATS" --json "$OUT/peers.json" ${PEER_ARGS:-} | tee "$OUT/peers.log"
else
    echo "sshopm.sh: cupy not importable here: peers skipped"
    echo "[]" >"$OUT/peers.json"
fi

python3 - "$OUT" <<'PY'
import json
import sys

out = sys.argv[1]
clpk = json.load(open(f"{out}/clpk.json"))
peers = json.load(open(f"{out}/peers.json"))
def find(impl, case, prec):
    for r in peers:
        if r["impl"] == impl and r["case"] == case and r["precision"] == prec:
            return r
    return None
for r in clpk:
    if r.get("mode") != "fixed":
        continue
    seed, torch = find("seed-cuda", r["case"], r["precision"]), find("torch-einsum", r["case"], r["precision"])
    if seed:
        r["ratio_to_seed_cuda"] = r["start_iters_per_s"] / seed["start_iters_per_s"]
        r["ratio_to_peer"] = r["ratio_to_seed_cuda"]
    if torch:
        r["ratio_to_torch"] = r["start_iters_per_s"] / torch["start_iters_per_s"]
records = clpk + peers
json.dump(records, open(f"{out}/sshopm.json", "w"), indent=1)

def g(v):
    return f"{v * 1e-9:.2f}" if v is not None else "-"
def ratio(v, target):
    return f"{v:.2f}x {'(met)' if v >= target else '(MISSED)'}" if v is not None else "-"
md = open(f"{out}/clpk.md").read()
device = md.split("Device: ")[1].split(". ")[0] if "Device: " in md else "?"
lines = ["# SS-HOPM on " + device, "",
         "Fixed iterations, same tensors and starts for every implementation; G start-iterations/s.", "",
         "| case | precision | clpk | seed-cuda | torch | clpk / seed-cuda (target 1.5x for 4x3 f32, else 1x) "
         "| clpk / torch (target 100x) | clpk GFLOP/s | % FMA peak | flops/iteration |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for r in clpk:
    if r.get("mode") != "fixed":
        continue
    seed, torch = find("seed-cuda", r["case"], r["precision"]), find("torch-einsum", r["case"], r["precision"])
    target = 1.5 if (r["case"] == "4x3" and r["precision"] == "f32") else 1.0
    pct = f"{r['pct_peak']:.1f}%" if "pct_peak" in r else "-"
    lines.append(f"| {r['case']} | {r['precision']} | {g(r['start_iters_per_s'])} | "
                 f"{g(seed['start_iters_per_s'] if seed else None)} | {g(torch['start_iters_per_s'] if torch else None)} | "
                 f"{ratio(r.get('ratio_to_seed_cuda'), target)} | {ratio(r.get('ratio_to_torch'), 100)} | "
                 f"{r['gflops']:.0f} | {pct} | {r['flops_per_iter']:.0f} |")
for r in clpk:
    if r.get("case") == "fma-peak":
        lines.append(f"\nFMA peak {r['precision']} (measured in the same run): {r['gflops']:.0f} GFLOP/s.")
for r in clpk:
    if r.get("mode") == "time-to-solution":
        ok = "met" if r["median_ms"] <= r["target_ms"] else "MISSED"
        lines += ["", "dMRI time-to-solution (data on the device; solve to tolerance + de-duplicate + classify on the "
                  "device):", "",
                  "| voxels | starts | shift | median ms (events) | wall ms | target 500 ms | mean iterations | "
                  "converged | capped | maxima/voxel |", "|---|---|---|---|---|---|---|---|---|---|",
                  f"| {r['voxels']:.0f} | {r['starts']:.0f} | {r['shift']} | {r['median_ms']:.1f} | "
                  f"{r['wall_ms']:.1f} | {ok} | {r['mean_iters']:.1f} | {100 * r['converged_fraction']:.2f}% | "
                  f"{100 * r['capped_fraction']:.2f}% | {r['maxima_per_voxel']:.2f} |"]
open(f"{out}/sshopm.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

if python3 -c "import matplotlib" 2>/dev/null; then
    for p in ${PRECISION//,/ }; do
        python3 "$ROOT/bench/plot.py" "$OUT/sshopm.json" --kind bar --x case --series impl --y start_iters_per_s \
            --where mode=fixed --where precision="$p" --logy --title "SS-HOPM $p, start-iterations/s" \
            --out "$OUT/sshopm_$p.png" || true
    done
else
    echo "sshopm.sh: matplotlib not importable: no charts"
fi
echo "sshopm.sh: results in $OUT (sshopm.json, sshopm.md, *.png, clpk.log, peers.log)"
