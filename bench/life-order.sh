#!/bin/bash
# Processing-order measurement (issue #9, docs/perf-life.md section 4), one command on the H100 machine:
#     . .gpu/enter && bench/life-order.sh "$OUT"
# One process (clpk-bench-life --orders): synthesises DS1 in memory (no 1.4 GB dataset on disk), computes the
# double host references once (--check), then per precision (f32, f64) and per order list (dsc=voxel,wc=fiber
# with voxel_order index|morton x fiber_order index|voxel): plan creation time and the host cost of the order,
# DSC (w_true and dense w = 0.5) and WC medians, each checked against the double reference, the DSC and WC
# outputs compared bit for bit with index order, and an ITERS-iteration fit (--tol 0). Writes OUT_DIR/life-order.md
# (summary + tables), life-order.json (flat records) and life-order.log.
# Environment: BIN (default .gpu/build/bin, else build/bin), LIFE_SIZE (ds1), LIFE_SEED (3), RUNS (30), ITERS (100),
# ORDERS (the ';'-separated parameter lists), DEVICE (a clpk device selector, default the first GPU).
# Expected wall time on the H100 ~2-3 min: synth ~15 s, references ~15 s, 8 plans of ~5-8 s (sorts, upload, one JIT
# compile per new program), products ~1 s per plan, fits ~1-2 s each plus the bitwise comparison's transfers.
set -euo pipefail
OUT_DIR=${1:-${OUT:-bench-out}}
BIN=${BIN:-${CLPK_BIN:-}}
if [ -z "$BIN" ]; then
    if [ -x .gpu/build/bin/clpk-bench-life ]; then BIN=.gpu/build/bin; else BIN=build/bin; fi
fi
P=dsc=voxel,wc=fiber
DEFAULT_ORDERS="$P,voxel_order=index,fiber_order=index;$P,voxel_order=morton,fiber_order=index"
DEFAULT_ORDERS+=";$P,voxel_order=index,fiber_order=voxel;$P,voxel_order=morton,fiber_order=voxel"
ORDERS=${ORDERS:-$DEFAULT_ORDERS}
DEV=()
if [ -n "${DEVICE:-}" ]; then DEV=(--device "$DEVICE"); fi
mkdir -p "$OUT_DIR"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/life-order.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
START=$(date +%s)
RC=0
"$BIN/clpk-bench-life" --size "${LIFE_SIZE:-ds1}" --seed "${LIFE_SEED:-3}" --runs "${RUNS:-30}" \
    --iters "${ITERS:-100}" --copy-mb 512 --check --orders "$ORDERS" "${DEV[@]}" \
    --json "$OUT_DIR/life-order.json" --md "$TMP/tables.md" 2>&1 | tee "$OUT_DIR/life-order.log" || RC=$?
echo "total: $(($(date +%s) - START)) s (exit $RC)" | tee -a "$OUT_DIR/life-order.log"
[ -s "$OUT_DIR/life-order.json" ] || { echo "life-order.sh: no JSON written" >&2; exit 1; }

python3 - "$OUT_DIR" "$TMP/tables.md" "$RC" <<'PY'
import json, re, sys
out, tables, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
recs = json.load(open(f"{out}/life-order.json"))
log = open(f"{out}/life-order.log").read()
ok, wrong = len(re.findall(r"^check .*: OK$", log, re.M)), len(re.findall(r"^check .*WRONG$", log, re.M))
rows = {}  # (precision, order) -> dict
for r in recs:
    if "order" not in r:
        continue
    row = rows.setdefault((r["precision"], r["order"]), {})
    if r["kind"] == "plan":
        row.update(plan_s=r["median_ms"] / 1e3, rank_ms=r["host_rank_ms"], sort_ms=r["host_voxel_sort_ms"],
                   bitwise=r["bitwise_equal_to_first"])
    elif r["kind"] == "fit":
        row["fit"] = r["per_iter_ms"]
    else:
        row[r["case"]] = r["median_ms"]
        row[r["case"] + "_rate"] = r["gbps_d_per_coeff"]
copy = next((r["gbps"] for r in recs if r["kind"] == "copy"), 0)
md = [f"# LiFE processing orders on {recs[0]['device']} (Nv {recs[0]['n_voxels']}, Nf {recs[0]['n_fibers']}, "
      f"Na {recs[0]['n_atoms']}, Ntheta {recs[0]['n_theta']}, Nc {recs[0]['n_coeffs']})", "",
      f"copy bandwidth {copy:.0f} GB/s; checks against the double reference: {ok} OK, {wrong} WRONG; "
      f"clpk-bench-life exit {rc}", "",
      "order = voxel_order/fiber_order (dsc=voxel, wc=fiber). mix = 2 DSC(w_true) + 1.5 WC (an SBB-NNLS iteration's "
      "products). rate = D (and y) rows per coefficient in GB/s (docs/perf-life.md roofline). bitwise = DSC and WC "
      "outputs identical to index/index.", "",
      "| prec | order | plan s | ranks ms / voxel sort ms | DSC w_true ms | DSC dense ms (rate) | WC ms (rate) "
      "| mix ms | mix vs index | fit ms/iter | fit vs index | bitwise |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|"]
def g(row, k):
    return row.get(k, float("nan"))
for prec in ("f32", "f64"):
    base = rows.get((prec, "index/index"))
    for order in ("index/index", "morton/index", "index/voxel", "morton/voxel"):
        row = rows.get((prec, order))
        if not row:
            continue
        row["mix"] = 2 * g(row, "dsc-wtrue") + 1.5 * g(row, "wc")
        rel = lambda k: f"{100 * (row[k] / base[k] - 1):+.1f} %" if base and k in base and k in row else "-"
        bw = row.get("bitwise")
        md.append(f"| {prec} | {order} | {g(row, 'plan_s'):.2f} | {g(row, 'rank_ms'):.0f} / {g(row, 'sort_ms'):.0f} "
                  f"| {g(row, 'dsc-wtrue'):.3f} | {g(row, 'dsc-dense'):.3f} ({g(row, 'dsc-dense_rate'):.0f}) "
                  f"| {g(row, 'wc'):.3f} ({g(row, 'wc_rate'):.0f}) | {row['mix']:.3f} | {rel('mix')} "
                  f"| {g(row, 'fit'):.2f} | {rel('fit')} | {'ref' if bw is None else 'yes' if bw else 'NO'} |")
md.append("")
f32, f64 = {o: r for (p, o), r in rows.items() if p == "f32"}, {o: r for (p, o), r in rows.items() if p == "f64"}
for o in ("index/index", "morton/index", "index/voxel", "morton/voxel"):
    if o in f32 and o in f64 and "fit" in f32[o] and "fit" in f64[o]:
        md.append(f"f64 / f32 fit ratio, both {o}: **{f64[o]['fit'] / f32[o]['fit']:.3f}** (target <= 2)")
if any("fit" in r for r in f32.values()) and any("fit" in r for r in f64.values()):
    b32 = min(f32.items(), key=lambda kv: kv[1].get("fit", 1e30))
    b64 = min(f64.items(), key=lambda kv: kv[1].get("fit", 1e30))
    md.append(f"best f64 ({b64[0]}) / best f32 ({b32[0]}) fit ratio: **{b64[1]['fit'] / b32[1]['fit']:.3f}**")
if f64:
    bm = min(f64.items(), key=lambda kv: kv[1].get("mix", 1e30))
    base_mix = f64.get("index/index", {}).get("mix", float("nan"))
    md.append(f"least f64 mix: {bm[0]} {bm[1]['mix']:.3f} ms (index/index {base_mix:.3f} ms)")
md += ["", "## clpk-bench-life tables", "", open(tables).read()]
open(f"{out}/life-order.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
exit $RC
