#!/usr/bin/env bash
# Cross-correlation benchmark against cuFFT (docs/perf-xcorr.md): runs clpk-bench-xcorr and the CuPy cuFFT peer
# (bench/peers/cufft_xcorr.py) on the same cases and the same data (the splitmix64 recipe from one seed), merges the
# JSON, adds ratio_to_peer (clpk time / cuFFT time: below 1 means clpk is faster) to every clpk record, and writes a
# markdown table and one PNG per pattern and count configuration (time against size, one line per variant and cuFFT).
#
# Usage: bench/xcorr.sh [OUTDIR] [clpk-bench-xcorr options...]   (grid options: --patterns, --sizes, --variants,
#   --scale, --repeats, --max-ms; seed, precision and the output files are set here: use SEED / PRECISION)
#   OUTDIR defaults to $OUT (the device machine's result folder), else bench-out/xcorr.
#   Environment: CLPK_BIN (folder of clpk-bench-xcorr; default .gpu/build/bin, else build/bin), SEED (1),
#   PRECISION (f32), PEER_REPEATS (30), MERGE_ONLY=1 (run nothing: merge, tabulate and plot every clpk*.jsonl and
#   peer*.json already in OUTDIR, e.g. the renamed outputs of several partial runs), PLOTS=0 (no charts). The peer
#   is skipped with a message when CuPy cannot be imported.
# On the H100 (see ../shared/gpu/README.md and docs/perf-xcorr.md), in three calls of under 10 minutes each:
#   . .gpu/enter && bench/xcorr.sh "$OUT" --patterns one-to-one,one-to-many,dic
#   . .gpu/enter && bench/xcorr.sh "$OUT" --patterns n-to-m
#   . .gpu/enter && bench/xcorr.sh "$OUT" --patterns n-to-mn
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-bench-out/xcorr}
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    out=$1
    shift
fi
mkdir -p "$out"
bin=${CLPK_BIN:-}
if [ -z "$bin" ]; then
    if [ -x "$root/.gpu/build/bin/clpk-bench-xcorr" ]; then bin=$root/.gpu/build/bin; else bin=$root/build/bin; fi
fi
seed=${SEED:-1}
precision=${PRECISION:-f32}

rc=0
peer=none
if [ "${MERGE_ONLY:-0}" = 1 ]; then
    ls "$out"/peer*.json >/dev/null 2>&1 && peer=cufft
else
    echo "== clpk-bench-xcorr ($bin), seed $seed, $precision -> $out"
    "$bin/clpk-bench-xcorr" --seed "$seed" --precision "$precision" --json "$out/clpk.jsonl" \
        --cases-out "$out/cases.txt" "$@" | tee "$out/clpk.log" || rc=$?

    if python3 -c "import cupy" 2>/dev/null; then
        echo "== cuFFT peer (CuPy) on the same cases"
        python3 "$root/bench/peers/cufft_xcorr.py" --recipe splitmix --seed "$seed" --precision "$precision" \
            --repeats "${PEER_REPEATS:-30}" --check-sample --cases-file "$out/cases.txt" --json "$out/peer.json" \
            | tee "$out/peer.log" || rc=$?
        peer=cufft
    else
        echo "== cuFFT peer skipped: python3 cannot import cupy"
    fi
fi

python3 - "$out" "$peer" <<'EOF'
import glob, json, math, os, sys
out, peer = sys.argv[1], sys.argv[2]


def load(path):
    if not os.path.exists(path):
        return []
    text = open(path).read().strip()
    if not text:
        return []
    if text[0] == "[":
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


clpk = [r for p in sorted(glob.glob(os.path.join(out, "clpk*.jsonl"))) for r in load(p)]
peers = [r for p in sorted(glob.glob(os.path.join(out, "peer*.json"))) for r in load(p)]
key = lambda r: (r.get("pattern"), r.get("rows"), r.get("n_left"), r.get("n_right"))
peer_ms = {key(r): r["median_ms"] for r in peers if r.get("status", "ok") == "ok" and r.get("median_ms")}
cases = {}
for r in clpk:
    if r.get("case") and r.get("pattern"):
        cases.setdefault(r["case"], r)
for r in peers:  # the group (pattern or "dic") comes from the clpk record of the same case
    c = cases.get(r.get("case"))
    if c:
        r["group"] = c["group"]
for r in clpk:
    p = peer_ms.get(key(r))
    if p and r.get("status") == "ok":
        r["peer_ms"] = p
        r["ratio_to_peer"] = r["median_ms"] / p


def crossover(r):
    """The seed's crossover side (direct beats FFT up to it) for this many pairs: the issue's points (1 x 2: 256,
    1 x 32: 128, 32 x 32: 64; one-to-one: at least 256) and a log-log interpolation in between."""
    if r["pattern"] == "one-to-one":
        return 256
    pairs = r["n_out"]
    return 2 ** max(5.0, min(8.0, 8 - math.log2(max(pairs, 2) / 2) / 4.5))


def target(r):
    explicit = (r["pattern"] == "one-to-one" or (r["pattern"] == "one-to-many" and r["n_right"] in (2, 32))
                or (r["pattern"] == "n-to-m" and r["n_left"] == 32 and r["n_right"] == 32))
    beat = r["rows"] <= crossover(r) + 1e-9
    return ("beat" if beat else "<=1.2x") + ("" if explicit else " (interp.)"), 1.0 if beat else 1.2


records = clpk + [dict(r, group=r.get("group", r.get("pattern"))) for r in peers]
with open(os.path.join(out, "xcorr.json"), "w") as f:
    json.dump(records, f, indent=1)

rows = []
for case, c in cases.items():
    recs = [r for r in clpk if r.get("case") == case]
    ok = {r["variant"]: r for r in recs if r.get("status") == "ok"}
    direct = {v: r for v, r in ok.items() if v.split(":")[0] not in ("auto", "fft", "fused-fft")}
    fused = [r for v, r in ok.items() if v.split(":")[0] == "fused-fft"]
    best_fused = min(fused, key=lambda r: r["median_ms"]) if fused else None
    best = min(direct.values(), key=lambda r: r["median_ms"]) if direct else None
    auto = ok.get("auto")
    p = peer_ms.get(key(c))
    tname, tlim = target(c)
    met = ""
    if auto and p:
        met = "yes" if auto["median_ms"] / p < tlim else "NO"
    fmt = lambda x: f"{x:.4g}" if isinstance(x, (int, float)) else "-"
    bad = [r["variant"] for r in recs if r.get("status") in ("wrong", "error")]
    skipped = [r["variant"] for r in recs if r.get("status") == "skipped"]
    rows.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
        case, auto["chosen"] if auto else "-", fmt(auto["median_ms"] if auto else None),
        f"{best['variant']} {best['median_ms']:.4g}" if best else "-",
        fmt(ok["fft"]["median_ms"] if "fft" in ok else None),
        f"{best_fused['variant']} {best_fused['median_ms']:.4g}" if best_fused else "-",
        fmt(p), fmt(auto["median_ms"] / p if auto and p else None), f"{tname}: {met}" if met else tname,
        fmt(auto["outputs_per_s"] if auto else None),
        ("WRONG/ERROR: " + ",".join(bad) + " " if bad else "") + ("skipped: " + ",".join(skipped) if skipped else "")))
copy = [r for r in clpk if r.get("impl") == "copy-bandwidth"]
with open(os.path.join(out, "xcorr.md"), "w") as f:
    dev = clpk[0].get("device", "?") if clpk else "?"
    f.write(f"# xcorr benchmark on {dev}\n\n")
    if copy:
        f.write(f"Copy bandwidth measured in the same run: {copy[0]['gbps']:.0f} GB/s. ")
    f.write(f"Peer: {peer}. ratio = clpk-auto time / cuFFT time (< 1: clpk faster). Times in ms (median).\n\n")
    f.write("| case | auto choice | auto ms | best direct ms | clpk fft ms | best fused-fft ms | cuFFT ms | ratio | "
            "target: met | auto outputs/s | notes |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
    f.write("\n".join(rows) + "\n")
print(open(os.path.join(out, "xcorr.md")).read())
bad = [r for r in clpk if r.get("status") == "wrong"]
if bad:
    print(f"{len(bad)} clpk variants gave wrong results (see xcorr.json)", file=sys.stderr)
EOF

# One chart per pattern and count configuration (and one bar chart for DIC); PLOTS=0 skips them.
if [ "${PLOTS:-1}" = 0 ]; then
    echo "== results in $out (xcorr.json, xcorr.md; charts skipped); exit $rc"
    exit $rc
fi
python3 - "$out" <<'EOF' >"$out/plots.txt"
import json, sys
recs = json.load(open(sys.argv[1] + "/xcorr.json"))
seen = []
for r in recs:
    g, c = r.get("group"), r.get("counts")
    if g and c and r.get("median_ms") and (g, c) not in seen:
        seen.append((g, c))
for g, c in seen:
    print(g, c)
EOF
while read -r group counts; do
    python3 "$root/bench/plot.py" "$out/xcorr.json" --kind line --x rows --series impl --y median_ms --logx --logy \
        --where "group=$group" --where "counts=$counts" \
        --title "xcorr $group $counts ($precision, full output)" --out "$out/xcorr-$group-$counts.png" || rc=$?
done <"$out/plots.txt"
if grep -q "^dic " "$out/plots.txt"; then
    python3 "$root/bench/plot.py" "$out/xcorr.json" --kind bar --x case --series impl --y median_ms --logy \
        --where group=dic --title "xcorr DIC case ($precision)" --out "$out/xcorr-dic.png" || rc=$?
fi
echo "== results in $out (xcorr.json, xcorr.md, PNGs); exit $rc"
exit $rc
