#!/usr/bin/env python3
"""Roofline bounds of the xcorr benchmark's cases, and how far each measured time is from them (issue #26 item 1).

Per case (pattern, R x C matrices, n_left, n_right, n_out output matrices of (2R-1) x (2C-1), full output):
  bytes   = inputs once + outputs once = vb * (R*C*(n_left + n_right) + n_out*(2R-1)*(2C-1))   (vb = 4 f32, 8 f64)
  memory bound  = bytes / copy bandwidth (read + write; default 2980 GB/s, the H100's measured float4 copy)
  direct flops  = 2 * R^2 * C^2 * n_out   (the useful multiply-adds: the overlap areas summed over all shifts)
  FFT flops     = 2.5 * P*Q * log2(P*Q) per real 2-D transform, (n_left + n_right) forward + n_out inverse, plus
                  6 flops per complex product of the P x (Q/2+1) half spectrum per output; P, Q = the 2,3,5,7-smooth
                  sizes >= 2R-1, 2C-1 (Q even), clpk's FFT padding
  compute bound = min(direct, FFT) flops / FMA peak (default 65 TFLOP/s f32, 33 f64, FMA = 2 flops): the cheaper
                  algorithm at the peak rate
  bound = the larger of the two; fraction = measured time / bound (1 = at the roofline).
No launch latency is in the bound: cases whose bound is a few microseconds sit far from it whatever the kernel does.

Usage: xcorr_roofline.py JSONL... [--variant auto] [--copy-gbps 2980] [--peak-f32 65] [--peak-f64 33] [--md OUT]
                         [--json OUT]   reads clpk-bench-xcorr's JSON lines (or bench/xcorr.sh's merged xcorr.json)
       xcorr_roofline.py --grid [--precision f32] [--md OUT]     the model alone over bench/xcorr.sh's default grid
"""
import argparse
import json
import math
import sys

SIZES = (16, 24, 32, 48, 64, 96, 128, 192, 256)
# bench/xcorr.sh's default grid (tools/clpk_bench_xcorr.c build_cases): (pattern, n_left, n_right)
GRID = ([("one-to-one", 4000, 4000)] + [("one-to-many", 1, n) for n in (2, 8, 32, 4000)] +
        [("n-to-m", n, n) for n in (2, 8, 32, 128)] +
        [("n-to-mn", l, r) for l, r in ((2, 8), (4, 16), (8, 32), (100, 4000))])


def smooth(n, even):
    """Smallest m >= max(n, 2) whose prime factors are 2, 3, 5, 7 (even when asked): clpk's FFT padding."""
    m = max(n, 2)
    while True:
        k = m
        for p in (2, 3, 5, 7):
            while k % p == 0:
                k //= p
        if k == 1 and (not even or m % 2 == 0):
            return m
        m += 1


def output_count(pattern, n_left, n_right):
    return n_left * n_right if pattern == "n-to-m" else (n_left if pattern == "one-to-one" else n_right)


def model(pattern, rows, cols, n_left, n_right, n_out, precision, copy_gbps, peak_f32, peak_f64):
    vb = 8 if precision == "f64" else 4
    out_elems = (2 * rows - 1) * (2 * cols - 1)
    in_bytes = vb * rows * cols * (n_left + n_right)
    out_bytes = vb * n_out * out_elems
    nbytes = in_bytes + out_bytes
    p, q = smooth(2 * rows - 1, False), smooth(2 * cols - 1, True)
    transform = 2.5 * p * q * math.log2(p * q)
    fft_flops = transform * (n_left + n_right + n_out) + 6.0 * p * (q // 2 + 1) * n_out
    direct_flops = 2.0 * rows * rows * cols * cols * n_out
    peak = (peak_f64 if precision == "f64" else peak_f32) * 1e12
    mem_ms = nbytes / (copy_gbps * 1e9) * 1e3
    cheaper = "fft" if fft_flops < direct_flops else "direct"
    comp_ms = min(fft_flops, direct_flops) / peak * 1e3
    return {"roof_bytes": nbytes, "roof_out_bytes": out_bytes, "roof_mem_ms": mem_ms, "roof_direct_flops": direct_flops,
            "roof_fft_flops": fft_flops, "roof_fft_pad": "%dx%d" % (p, q), "roof_cheaper": cheaper,
            "roof_compute_ms": comp_ms, "roof_bound_ms": max(mem_ms, comp_ms),
            "roof_limit": "memory" if mem_ms >= comp_ms else "compute"}


def load(path):
    text = open(path).read().strip()
    if not text:
        return []
    if text[0] == "[":
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def fmt(x):
    if x >= 100:
        return "%.0f" % x
    if x >= 1:
        return "%.3g" % x
    return "%.2g" % x


def measured_table(records, args):
    lines = ["| case | variant (algorithm) | MB moved | memory ms | direct / FFT GFLOP (pad) | compute ms | bound ms "
             "(limit) | measured ms | time / bound |", "|---|---|---|---|---|---|---|---|---|"]
    out = []
    for r in records:
        m = model(r["pattern"], r["rows"], r["cols"], r["n_left"], r["n_right"], r["n_out"], r["precision"],
                  args.copy_gbps, args.peak_f32, args.peak_f64)
        frac = r["median_ms"] / m["roof_bound_ms"]
        rec = dict(r, **m, roof_fraction=frac)
        out.append(rec)
        lines.append("| %s | %s (%s) | %s | %s | %s / %s (%s) | %s | %s (%s) | %s | %s |" % (
            r.get("case", "%s %dx%d %d" % (r["pattern"], r["n_left"], r["n_right"], r["rows"])), r.get("variant", "?"),
            r.get("algorithm", "?"), fmt(m["roof_bytes"] / 1e6), fmt(m["roof_mem_ms"]),
            fmt(m["roof_direct_flops"] / 1e9), fmt(m["roof_fft_flops"] / 1e9), m["roof_fft_pad"],
            fmt(m["roof_compute_ms"]), fmt(m["roof_bound_ms"]), m["roof_limit"], fmt(r["median_ms"]), fmt(frac)))
    return "\n".join(lines) + "\n", out


def grid_table(args):
    """Three tables over the default grid: bytes that must move, the cheaper algorithm's flops, the bound."""
    head = "| pattern, counts | " + " | ".join("%d²" % s for s in SIZES) + " |\n|---|" + "---|" * len(SIZES) + "\n"
    cells = {"mb": [], "gflop": [], "bound": []}
    for pattern, nl, nr in GRID:
        row = {k: [] for k in cells}
        for s in SIZES:
            m = model(pattern, s, s, nl, nr, output_count(pattern, nl, nr), args.precision, args.copy_gbps,
                      args.peak_f32, args.peak_f64)
            row["mb"].append(fmt(m["roof_bytes"] / 1e6))
            fft = m["roof_cheaper"] == "fft"
            row["gflop"].append(fmt(m["roof_fft_flops"] / 1e9) + ("" if fft else " (d %s)" % fmt(
                m["roof_direct_flops"] / 1e9)))
            row["bound"].append("%s %s" % (fmt(m["roof_bound_ms"]), "m" if m["roof_limit"] == "memory" else "c"))
        for k in cells:
            cells[k].append("| %s %dx%d | %s |" % (pattern, nl, nr, " | ".join(row[k])))
    return ("MB that must move (inputs + full outputs once):\n\n" + head + "\n".join(cells["mb"]) +
            "\n\nFFT GFLOP (clpk's smooth padding; '(d x)': the direct count x is lower):\n\n" + head +
            "\n".join(cells["gflop"]) + "\n\nBound in ms per call (m: memory, c: compute):\n\n" + head +
            "\n".join(cells["bound"]) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("jsonl", nargs="*", help="clpk-bench-xcorr JSON lines or a merged xcorr.json")
    ap.add_argument("--variant", action="append", help="only these variants (repeatable; default all)")
    ap.add_argument("--copy-gbps", type=float, default=2980.0)
    ap.add_argument("--peak-f32", type=float, default=65.0, help="TFLOP/s")
    ap.add_argument("--peak-f64", type=float, default=33.0, help="TFLOP/s")
    ap.add_argument("--grid", action="store_true", help="the model over bench/xcorr.sh's default grid, no input")
    ap.add_argument("--precision", default="f32", help="for --grid")
    ap.add_argument("--md", default=None)
    ap.add_argument("--json", default=None, help="the input records with the roof_* fields added (JSON lines)")
    args = ap.parse_args()
    head = ("Roofline: copy %.0f GB/s, FMA peak %.0f TFLOP/s f32 / %.0f f64; bound = max(bytes / copy, min(direct, "
            "FFT) flops / peak); time / bound = 1 at the roofline.\n\n" % (args.copy_gbps, args.peak_f32,
                                                                          args.peak_f64))
    if args.grid:
        text = head + "bench/xcorr.sh's default grid, %s, full output.\n\n" % args.precision + grid_table(args)
        out = []
    else:
        if not args.jsonl:
            ap.error("give JSON lines files, or --grid")
        records = [r for p in args.jsonl for r in load(p)]
        copy = [r for r in records if r.get("impl") == "copy-bandwidth"]
        records = [r for r in records if r.get("status") == "ok" and r.get("pattern") and r.get("median_ms")
                   and (not args.variant or r.get("variant") in args.variant)]
        if not records:
            print("xcorr_roofline: no measured records", file=sys.stderr)
            return 1
        table, out = measured_table(records, args)
        note = ("The run's own copy measurement: %.0f GB/s.\n\n" % copy[0]["gbps"]) if copy else ""
        text = head + note + table
        worst = sorted(out, key=lambda r: -r["roof_fraction"])[:5]
        text += "\nFurthest from the bound: " + "; ".join(
            "%s %s %.3g x" % (r.get("case"), r.get("variant"), r["roof_fraction"]) for r in worst) + "\n"
    print(text, end="")
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    if args.json and out:
        with open(args.json, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
