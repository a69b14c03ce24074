#!/usr/bin/env python3
"""Old/new pair report of an spmv A/B benchmark (bench/spmv-vload.sh, bench/spmv-interleave.sh).

Reads one clpk-bench-spmv JSON per run (TMP/RUN.json), pairs the records "old-P" and "new-P" of the same run and
precision, and writes OUT/NAME.json (records, pairs, load counts) and OUT/NAME.md (pairs, best old vs best new per
run and precision, every record). With --cache, also counts the global loads in the compiled spmv_bccoo programs
(PTX text on NVIDIA). Exits 1 when a record is wrong or there is none.

  spmv_pairs.py --tmp DIR --out DIR --name NAME --title TEXT --runs a,b,c [--cache DIR]
"""
import argparse, glob, json, os, re, sys

ap = argparse.ArgumentParser()
ap.add_argument("--tmp", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--name", required=True)
ap.add_argument("--title", required=True, help="what new is against old, e.g. 'vload=1 vs vload=0'")
ap.add_argument("--runs", required=True)
ap.add_argument("--cache", default="")
a = ap.parse_args()

recs = []
for name in a.runs.split(","):
    path = os.path.join(a.tmp, name + ".json")
    if not os.path.exists(path):
        continue
    try:
        for r in json.load(open(path)):
            r["run"] = name
            recs.append(r)
    except ValueError as e:
        print("%s: %s unreadable: %s" % (a.name, path, e))
pairs = []
by = {(r["run"], r["precision"], r["impl"]): r for r in recs}
for (run, prec, impl), r in sorted(by.items()):
    if impl.startswith("new-") and (run, prec, "old-" + impl[4:]) in by:
        o = by[(run, prec, "old-" + impl[4:])]
        pairs.append({"run": run, "precision": prec, "point": impl[4:], "old_us": 1e3 * o["median_ms"],
                      "new_us": 1e3 * r["median_ms"], "speedup": o["median_ms"] / r["median_ms"],
                      "old_pct_copy": o["pct_copy_bw"], "new_pct_copy": r["pct_copy_bw"],
                      "correct": bool(o["correct"] and r["correct"])})
loads = []
if a.cache:
    pat = re.compile(rb"\bld\.global(?:\.nc)?(?:\.v[248])?\.[a-z]+[0-9]+")
    for f in sorted(glob.glob(os.path.join(a.cache, "*.clbin"))):
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
json.dump({"records": recs, "pairs": pairs, "loads": loads}, open(os.path.join(a.out, a.name + ".json"), "w"),
          indent=1)
md = ["# spmv %s on %s" % (a.title, recs[0]["device"] if recs else "?"), ""]
md.append("Copy bandwidth (float4 copy probe, per call): " + ", ".join(
    "%s %.0f GB/s" % (run, next(r["copy_gbps"] for r in recs if r["run"] == run))
    for run in dict.fromkeys(r["run"] for r in recs)))
md += ["", "## old -> new at the same point (speed-up = old time / new time; > 1.0 = new faster)", "",
       "| run | prec | point | old us | new us | speed-up | old %copy | new %copy | correct |",
       "|---|---|---|---:|---:|---:|---:|---:|---|"]
for p in pairs:
    md.append("| %s | %s | %s | %.1f | %.1f | **%.3f** | %.1f | %.1f | %s |" % (
        p["run"], p["precision"], p["point"], p["old_us"], p["new_us"], p["speedup"], p["old_pct_copy"],
        p["new_pct_copy"], "yes" if p["correct"] else "**NO**"))
md += ["", "## best per run and precision (old vs new)", "",
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
open(os.path.join(a.out, a.name + ".md"), "w").write("\n".join(md) + "\n")
print("\n".join(md))
sys.exit(1 if bad or not recs else 0)
