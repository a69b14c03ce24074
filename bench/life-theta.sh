#!/bin/bash
# theta-split measurement (issue #9, docs/perf-life.md section 3), one command on the H100 machine:
#     . .gpu/enter && bench/life-theta.sh "$OUT"
# One synthetic DS1 dataset (clpk-life synth, written to a temporary directory that is removed at the end, never to
# OUTDIR: it is ~1.4 GB), then per-call DSC (w = 0.5 dense, as `clpk-life dsc --bench`) and WC medians for
# dsc=voxel,wc=fiber with theta_parts 1 2 3 4 in f64 and 1 2 in f32, and SBB-NNLS fits of ITERS iterations (--tol 0)
# in f64 with theta_parts 1, with the best measured parts (least 2 DSC + 1.5 WC) and with the plan's own default
# (the L2 rule), and in f32 with the default; the fit ratio f64(best) / f32 scaled to 500 iterations is the issue's
# number (target <= 2). Writes OUTDIR/life-theta.json, life-theta.md, life-theta.log.
# Environment: BIN (default .gpu/build/bin, else build/bin), LIFE_SIZE (ds1), LIFE_SEED (3), RUNS (20), ITERS (100),
# DEVICE (a clpk device selector, default the first GPU). Expected wall time on the H100 ~3-4 min (synth ~15 s plus
# writing the dataset; each call loads it and builds a plan, ~6-10 s; the fits add a host RMSE of a few seconds each).
set -euo pipefail
OUT_DIR=${1:-${OUT:-bench-out}}
BIN=${BIN:-}
if [ -z "$BIN" ]; then
    if [ -x .gpu/build/bin/clpk-life ]; then BIN=.gpu/build/bin; else BIN=build/bin; fi
fi
SIZE=${LIFE_SIZE:-ds1}
SEED=${LIFE_SEED:-3}
RUNS=${RUNS:-20}
ITERS=${ITERS:-100}
DEV=()
if [ -n "${DEVICE:-}" ]; then DEV=(--device "$DEVICE"); fi
mkdir -p "$OUT_DIR"
LOG="$OUT_DIR/life-theta.log"
: >"$LOG"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/life-theta.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
DATA="$TMP/data"
START=$(date +%s)
"$BIN/clpk-life" synth --out "$DATA" --size "$SIZE" --seed "$SEED" 2>&1 | tee -a "$LOG"
echo "synth + write: $(($(date +%s) - START)) s" | tee -a "$LOG"

RESULTS="$TMP/results.txt" # lines: kind precision parts value (ms for products, s for fits) plan
: >"$RESULTS"
product() { # precision parts dsc|wc
    local p=$1 parts=$2 what=$3 in
    if [ "$what" = dsc ]; then in=(--w "$DATA/w_true.npy"); else in=(--y "$DATA/signal.npy"); fi
    local out
    out=$("$BIN/clpk-life" "$what" --data "$DATA" "${in[@]}" --out "$TMP/out.npy" "${DEV[@]}" --precision "$p" \
        --params "dsc=voxel,wc=fiber,theta_parts=$parts" --bench "$RUNS" 2>&1) || { echo "$out" | tee -a "$LOG"; return 1; }
    echo "$out" >>"$LOG"
    local ms
    ms=$(echo "$out" | sed -n "s/^bench $what: median \([0-9.]*\) ms.*/\1/p")
    echo "$what $p $parts $ms" >>"$RESULTS"
    echo "$what $p theta_parts=$parts: $ms ms" | tee -a "$LOG"
}
fit() { # precision label params
    local p=$1 label=$2 params=$3 out
    local args=()
    if [ -n "$params" ]; then args=(--params "$params"); fi
    out=$("$BIN/clpk-life" fit --data "$DATA" --out "$TMP/w.npy" "${DEV[@]}" --precision "$p" --iters "$ITERS" \
        --tol 0 "${args[@]}" 2>&1) || { echo "$out" | tee -a "$LOG"; return 1; }
    echo "$out" >>"$LOG"
    local s plan
    s=$(echo "$out" | sed -n 's/^fit: .*, \([0-9.]*\) s, .*/\1/p')
    plan=$(echo "$out" | grep -o 'theta_parts=[0-9]*' | tail -1)
    echo "fit $p $label $s $plan" >>"$RESULTS"
    echo "fit $p $label ($plan): $s s for $ITERS iterations" | tee -a "$LOG"
}

for parts in 1 2 3 4; do
    product f64 "$parts" dsc
    product f64 "$parts" wc
done
for parts in 1 2; do
    product f32 "$parts" dsc
    product f32 "$parts" wc
done
# best f64 parts: least 2 DSC + 1.5 WC (an SBB-NNLS iteration's product mix)
BEST=$(awk '$2 == "f64" && ($1 == "dsc" || $1 == "wc") { t[$3] += ($1 == "dsc" ? 2 : 1.5) * $4 }
            END { b = ""; for (k in t) if (b == "" || t[k] < t[b]) b = k; print b }' "$RESULTS")
echo "best f64 theta_parts by 2 DSC + 1.5 WC: $BEST" | tee -a "$LOG"
fit f32 default ""
fit f64 parts1 "dsc=voxel,wc=fiber,theta_parts=1"
fit f64 best "dsc=voxel,wc=fiber,theta_parts=$BEST"
fit f64 default ""
echo "total: $(($(date +%s) - START)) s" | tee -a "$LOG"

python3 - "$RESULTS" "$OUT_DIR" "$ITERS" "$SIZE" "$SEED" <<'PY'
import json, sys
res, out, iters, size, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
recs = []
for line in open(res):
    f = line.split()
    if f[0] in ("dsc", "wc"):
        recs.append({"family": "life", "kind": "product", "case": f[0], "precision": f[1], "theta_parts": int(f[2]),
                     "median_ms": float(f[3]), "size": size, "seed": int(seed)})
    else:
        sec = float(f[3])
        recs.append({"family": "life", "kind": "fit", "case": f[2], "precision": f[1],
                     "theta_parts": int(f[4].split("=")[1]) if len(f) > 4 else None, "iterations": iters,
                     "seconds": sec, "per_iter_ms": 1e3 * sec / iters, "total_500_s": 500 * sec / iters,
                     "size": size, "seed": int(seed)})
json.dump(recs, open(f"{out}/life-theta.json", "w"), indent=1)
md = [f"# LiFE theta-split ({size}, seed {seed})", "",
      "| precision | theta_parts | DSC ms | WC ms | 2 DSC + 1.5 WC ms |", "|---|---|---|---|---|"]
prod = {(r["precision"], r["theta_parts"], r["case"]): r["median_ms"] for r in recs if r["kind"] == "product"}
for p, parts in sorted({(k[0], k[1]) for k in prod}):
    d, w = prod.get((p, parts, "dsc")), prod.get((p, parts, "wc"))
    mix = 2 * d + 1.5 * w if d is not None and w is not None else float("nan")
    md.append(f"| {p} | {parts} | {d:.4f} | {w:.4f} | {mix:.3f} |")
md += ["", f"| fit | precision | theta_parts | {iters} iterations (s) | ms / iteration | 500 iterations (s) |",
       "|---|---|---|---|---|---|"]
fits = {}
for r in recs:
    if r["kind"] == "fit":
        fits[(r["precision"], r["case"])] = r
        md.append(f"| {r['case']} | {r['precision']} | {r['theta_parts']} | {r['seconds']:.3f} | "
                  f"{r['per_iter_ms']:.2f} | {r['total_500_s']:.2f} |")
f32 = fits.get(("f32", "default"))
if f32:
    md.append("")
    for case in ("parts1", "best", "default"):
        r = fits.get(("f64", case))
        if r:
            md.append(f"f64 ({case}, theta_parts {r['theta_parts']}) / f32 fit ratio: "
                      f"**{r['seconds'] / f32['seconds']:.2f}** (target <= 2)")
open(f"{out}/life-theta.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
