#!/usr/bin/env bash
# BCCOO value vectors (vload=1) against the old per-row loads (vload=0) in one run (docs/perf-spmv.md, row 4):
# dense 4K and 8K, fem3d at benchmark size and webgraph (irregular, Zipf columns), f32 and f64, old and new path
# at the tuned points of the earlier H100 runs plus a few tile/shape neighbours. Every plan is checked against the
# double CPU reference (WRONG in the table otherwise); times are medians of 100 profiling events after 10 warm-up;
# GB/s counts BCCOO's own bytes + x + y; %copy is against the float4 copy probe of the same call. A fresh program
# cache lets the script count the load instructions in the compiled programs (PTX on NVIDIA).
#
#   BIN=.gpu/build/bin bench/spmv-vload.sh OUT_DIR      (. .gpu/enter first on the H100; ~2-3 minutes there)
# Writes OUT_DIR/spmv-vload.md (tables, old/new pairs, load counts), spmv-vload.json (records + pairs),
# spmv-vload.txt (raw log). SCALE=0.01 makes a quick local smoke run.
set -u
[ $# -eq 1 ] || { echo "usage: BIN=bin_dir bench/spmv-vload.sh OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1 bin=${BIN:-$(dirname "$here")/build/bin} scale=${SCALE:-1}
[ -x "$bin/clpk-bench-spmv" ] || { echo "spmv-vload.sh: $bin/clpk-bench-spmv not found (set BIN)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clpk-vload.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CLPK_CACHE_DIR=$tmp/cache # fresh: every program is compiled here, so its binary can be inspected
mkdir -p "$CLPK_CACHE_DIR"
log=$out/spmv-vload.txt
: >"$log"
status=0
c="format=bccoo,sync=adjacent,skip_scan=1,transpose=offline"
s2="wg=256,strategy=2,cache=2" s1="wg=256,strategy=1,cache=1"

# run NAME CASE SCALE VARIANT... : one clpk-bench-spmv call (one copy probe), old/new variants interleaved
run() {
    local name=$1 case=$2 sc=$3
    shift 3
    local args=()
    for v in "$@"; do args+=(--variant "$v"); done
    echo "== $name" | tee -a "$log"
    "$bin/clpk-bench-spmv" --cases "$case" --scale "$sc" --impls none --precision f32,f64 --repeats 100 \
        --json "$tmp/$name.json" "${args[@]}" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
}
sq=$(python3 -c "print($scale)") sq4=$(python3 -c "print(4*$scale)")

# dense 4K (16 M nnz): tuned f32 4x2 t16 s2 (session 2) and 4x4 t16 s1 (session 3); f64 4x4 t16 s2, 3x4 t8 s2
run dense4k dense "$sq" \
    "f32:old-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f32:new-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f32:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=0" \
    "f32:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=1" \
    "f32:old-2x2=$c,block=2x2,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f32:new-2x2=$c,block=2x2,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f32:new-4x2-t8=$c,block=4x2,flag_bits=8,col=short,tile=8,$s1,vload=1" \
    "f32:new-4x2-t32=$c,block=4x2,flag_bits=32,col=short,tile=32,$s2,vload=1" \
    "f64:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f64:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f64:old-3x4-t8=$c,block=3x4,flag_bits=32,col=short,tile=8,$s2,vload=0" \
    "f64:new-3x4-t8=$c,block=3x4,flag_bits=32,col=short,tile=8,$s2,vload=1" \
    "f64:old-4x1=$c,block=4x1,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f64:new-4x1=$c,block=4x1,flag_bits=32,col=short,tile=16,$s2,vload=1"
# dense 8K (64 M nnz)
run dense8k dense "$sq4" \
    "f32:old-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f32:new-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f32:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=0" \
    "f32:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=1" \
    "f64:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f64:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=1"
# fem3d (39 M nnz): tuned 3x2 t16 s1 col=int (f32 and f64), the profile's 3x4 t8 s2 flag16 (f32), 3x2 delta (f64)
run fem3d fem3d "$sq" \
    "f32:old-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=0" \
    "f32:new-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=1" \
    "f32:old-3x4-t8=$c,block=3x4,flag_bits=16,col=int,tile=8,wg=256,strategy=2,cache=4,vload=0" \
    "f32:new-3x4-t8=$c,block=3x4,flag_bits=16,col=int,tile=8,wg=256,strategy=2,cache=4,vload=1" \
    "f32:new-3x2-t8=$c,block=3x2,flag_bits=16,col=int,tile=8,$s1,vload=1" \
    "f64:old-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=0" \
    "f64:new-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=1" \
    "f64:old-3x2-delta=$c,block=3x2,flag_bits=16,col=delta,tile=8,$s1,vload=0" \
    "f64:new-3x2-delta=$c,block=3x2,flag_bits=16,col=delta,tile=8,$s1,vload=1"
# webgraph (13.9 M nnz, irregular): tuned f32 2x1 t16 s2 (vload=1 makes it one float2 per block); 1x1 unchanged
run webgraph webgraph "$sq" \
    "f32:old-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=0" \
    "f32:new-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=1" \
    "f32:old-1x1=$c,block=1x1,flag_bits=32,col=int,tile=16,$s2,vload=0" \
    "f64:old-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=0" \
    "f64:new-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=1" \
    "f64:old-1x1-t8=$c,block=1x1,flag_bits=32,col=int,tile=8,$s2,vload=0"

python3 - "$tmp" "$out" "$CLPK_CACHE_DIR" <<'EOF' || status=1
import glob, json, os, re, sys
tmp, out, cache = sys.argv[1:4]
recs = []
for name in ("dense4k", "dense8k", "fem3d", "webgraph"):
    path = os.path.join(tmp, name + ".json")
    if not os.path.exists(path):
        continue
    try:
        for r in json.load(open(path)):
            r["run"] = name
            recs.append(r)
    except ValueError as e:
        print("spmv-vload: %s unreadable: %s" % (path, e))
# old/new pairs: same run, precision and label after the old-/new- prefix
pairs = []
by = {(r["run"], r["precision"], r["impl"]): r for r in recs}
for (run, prec, impl), r in sorted(by.items()):
    if impl.startswith("new-") and (run, prec, "old-" + impl[4:]) in by:
        o = by[(run, prec, "old-" + impl[4:])]
        pairs.append({"run": run, "precision": prec, "point": impl[4:], "old_us": 1e3 * o["median_ms"],
                      "new_us": 1e3 * r["median_ms"], "speedup": o["median_ms"] / r["median_ms"],
                      "old_pct_copy": o["pct_copy_bw"], "new_pct_copy": r["pct_copy_bw"],
                      "correct": bool(o["correct"] and r["correct"])})
# load instructions per compiled spmv_bccoo program (PTX text on NVIDIA; PoCL's binaries are not text)
loads = []
pat = re.compile(rb"\bld\.global(?:\.nc)?(?:\.v[248])?\.[a-z]+[0-9]+")
for f in sorted(glob.glob(os.path.join(cache, "*.clbin"))):
    data = open(f, "rb").read()
    m = re.search(rb"options=([^\n]*)", data)
    if not m or b"-DBH=" not in m.group(1):
        continue
    opts = m.group(1).decode(errors="replace")
    counts = {}
    for k in pat.findall(data):
        k = k.decode()
        counts[k] = counts.get(k, 0) + 1
    short = " ".join(o for o in opts.split() if o.split("=")[0] in
                     ("-DIS_DOUBLE", "-DBH", "-DBW", "-DTILE", "-DSTRATEGY", "-DCOL_BITS", "-DVLOAD", "-DVW",
                                            "-DX_ALIGNED"))
    loads.append({"options": short, "ld_global": counts})
loads.sort(key=lambda l: l["options"])
json.dump({"records": recs, "pairs": pairs, "loads": loads}, open(os.path.join(out, "spmv-vload.json"), "w"),
          indent=1)
md = ["# BCCOO vload=1 (value vectors, aligned loads) vs vload=0 on %s" % (recs[0]["device"] if recs else "?"), ""]
md.append("Copy bandwidth (float4 copy probe, per call): " + ", ".join(
    "%s %.0f GB/s" % (run, next(r["copy_gbps"] for r in recs if r["run"] == run))
    for run in dict.fromkeys(r["run"] for r in recs)))
md += ["", "## old -> new at the same point (speed-up = old time / new time; > 1.0 = vload=1 faster)", "",
       "| run | prec | point | old us | new us | speed-up | old %copy | new %copy | correct |",
       "|---|---|---|---:|---:|---:|---:|---:|---|"]
for p in pairs:
    md.append("| %s | %s | %s | %.1f | %.1f | **%.3f** | %.1f | %.1f | %s |" % (
        p["run"], p["precision"], p["point"], p["old_us"], p["new_us"], p["speedup"], p["old_pct_copy"],
        p["new_pct_copy"], "yes" if p["correct"] else "**NO**"))
md += ["", "## best per run and precision (old path vs new path)", "",
       "| run | prec | best old | us | %copy | best new | us | %copy | best new / best old time |",
       "|---|---|---|---:|---:|---|---:|---:|---:|"]
for run in dict.fromkeys(r["run"] for r in recs):
    for prec in ("f32", "f64"):
        sel = [r for r in recs if r["run"] == run and r["precision"] == prec and r["correct"]]
        old = [r for r in sel if r["impl"].startswith("old-")]
        new = [r for r in sel if r["impl"].startswith("new-")]
        if not old or not new:
            continue
        bo = min(old, key=lambda r: r["median_ms"])
        bn = min(new, key=lambda r: r["median_ms"])
        md.append("| %s | %s | %s | %.1f | %.1f | %s | %.1f | %.1f | %.3f |" % (
            run, prec, bo["impl"], 1e3 * bo["median_ms"], bo["pct_copy_bw"], bn["impl"], 1e3 * bn["median_ms"],
            bn["pct_copy_bw"], bn["median_ms"] / bo["median_ms"]))
md += ["", "## every record", "", "| run | prec | impl | us | GFLOP/s | GB/s | %copy | B/nnz | rel. error | params |",
       "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
for r in recs:
    md.append("| %s | %s | %s | %.1f | %.1f | %.0f | %.1f | %.2f | %.2g%s | %s |" % (
        r["run"], r["precision"], r["impl"], 1e3 * r["median_ms"], r["gflops"], r["gbps"], r["pct_copy_bw"],
        r["bytes_per_nnz"], r["rel_error"], "" if r["correct"] else " **WRONG**", r["params"]))
if loads:
    md += ["", "## global loads in the compiled spmv_bccoo programs (static PTX count; all kernels of the program)",
           "", "| options | loads |", "|---|---|"]
    for l in loads:
        md.append("| %s | %s |" % (l["options"], ", ".join("%s x%d" % kv for kv in sorted(l["ld_global"].items()))
                                   or "(binary not PTX text)"))
bad = [r for r in recs if not r["correct"]]
md += ["", "Records: %d, wrong: %d." % (len(recs), len(bad))]
open(os.path.join(out, "spmv-vload.md"), "w").write("\n".join(md) + "\n")
print("\n".join(md))
sys.exit(1 if bad or not recs else 0)
EOF
echo "== outputs in $out: $(cd "$out" && ls | tr '\n' ' ')"
exit "$status"
