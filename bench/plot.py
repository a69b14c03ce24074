#!/usr/bin/env python3
"""Charts for the benchmark JSON files (a JSON array of flat records, or JSON lines).

Grouped bars (one group per --x value, one bar per --series value) or lines (y against a numeric --x):
  plot.py clpk.json peer.json --kind bar --x matrix --series impl --y gflops --out spmv.png --title "SpMV f32"
  plot.py xcorr.json --kind line --x rows --series variant --y median_ms --logy --where pattern=one-to-many --out a.png
--where k=v (repeatable) keeps records whose field k equals v (as text). Needs matplotlib.
"""
import argparse
import json
import sys


def load(paths):
    records = []
    for path in paths:
        with open(path) as f:
            text = f.read().strip()
        if not text:
            continue
        if text[0] == "[":
            records.extend(json.loads(text))
        else:
            records.extend(json.loads(line) for line in text.splitlines() if line.strip().startswith("{"))
    return records


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--kind", choices=["bar", "line"], default="bar")
    ap.add_argument("--x", required=True)
    ap.add_argument("--y", required=True)
    ap.add_argument("--series", required=True)
    ap.add_argument("--where", action="append", default=[])
    ap.add_argument("--logx", action="store_true")
    ap.add_argument("--logy", action="store_true")
    ap.add_argument("--title", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = load(args.inputs)
    for cond in args.where:
        k, v = cond.split("=", 1)
        recs = [r for r in recs if str(r.get(k)) == v]
    recs = [r for r in recs if r.get(args.y) is not None and r.get(args.x) is not None and args.series in r]
    if not recs:
        print("plot.py: no records match", file=sys.stderr)
        return 1
    series = sorted({str(r[args.series]) for r in recs})
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len({str(r[args.x]) for r in recs}) + 4), 4.5))
    if args.kind == "bar":
        xs = []
        for r in recs:
            if str(r[args.x]) not in xs:
                xs.append(str(r[args.x]))
        width = 0.8 / len(series)
        for i, s in enumerate(series):
            vals = []
            for x in xs:
                match = [r[args.y] for r in recs if str(r[args.series]) == s and str(r[args.x]) == x]
                vals.append(match[0] if match else 0)
            ax.bar([j + i * width for j in range(len(xs))], vals, width, label=s)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(xs))])
        ax.set_xticklabels(xs, rotation=45, ha="right")
    else:
        for s in series:
            pts = sorted((float(r[args.x]), r[args.y]) for r in recs if str(r[args.series]) == s)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=s)
    if args.logx:
        ax.set_xscale("log", base=2)
    if args.logy:
        ax.set_yscale("log")
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    ax.set_title(args.title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
