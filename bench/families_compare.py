#!/usr/bin/env python3
"""Sets two bench/families.sh result folders side by side: per family and case, the time before and after, the
ratio, and whether the same plan was chosen (a refactor must keep both; a re-tune may change the plan).

    bench/families_compare.py BEFORE_DIR AFTER_DIR [--md OUT.md]
"""
import argparse
import json
import os
import re
import sys


def load_json_list(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read().strip()
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def params_key(text):
    """A plan description as a set of key=value items (the order of a description is not part of the plan)."""
    return frozenset(re.split(r"[,/ {}]+", text or "")) - {""}


def spmv_rows(folder):
    rows = {}
    for r in load_json_list(os.path.join(folder, "spmv.json")):
        if r.get("impl") == "clpk-auto" and "median_ms" in r:
            rows[f"spmv {r['case']} {r['precision']}"] = (r["median_ms"], r.get("params", ""), r.get("correct"))
    return rows


def life_rows(folder):
    rows = {}
    for r in load_json_list(os.path.join(folder, "life.json")):
        kind, prec = r.get("kind"), r.get("precision")
        if kind == "fit" and r.get("impl") == "clpk-auto":
            rows[f"life fit500 {prec}"] = (r.get("seconds", r.get("median_ms")), r.get("params", ""), True)
        elif kind in ("dsc", "wc") and r.get("impl") == "clpk-auto":
            rows[f"life {kind} {prec}"] = (r["median_ms"], r.get("params", r.get("kernel", "")), True)
    return rows


def sshopm_rows(folder):
    rows = {}
    path = os.path.join(folder, "sshopm.log")
    if not os.path.exists(path):
        return rows
    pat = re.compile(r"^(\d+x\d+) (f32|f64) clpk-generated: ([\d.]+) ms.*\[(.*)\]")
    for line in open(path):
        m = pat.match(line)
        if m:
            rows[f"sshopm {m.group(1)} {m.group(2)}"] = (float(m.group(3)), m.group(4), True)
    return rows


def xcorr_rows(folder):
    rows = {}
    for prec in ("f32", "f64"):
        for r in load_json_list(os.path.join(folder, f"xcorr-{prec}.jsonl")):
            if r.get("impl") == "clpk-auto" and r.get("status") == "ok":
                rows[f"xcorr {r['case']} {prec}"] = (r["median_ms"], r.get("chosen", ""), True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--md")
    args = ap.parse_args()
    lines = ["| case | before | after | after / before | same plan |", "|---|---|---|---|---|"]
    ratios, changed = [], []
    for reader in (spmv_rows, life_rows, sshopm_rows, xcorr_rows):
        before, after = reader(args.before), reader(args.after)
        for key in sorted(set(before) & set(after)):
            (tb, pb, _), (ta, pa, ok) = before[key], after[key]
            if not tb or not ta:
                continue
            same = params_key(pb) <= params_key(pa) or params_key(pa) <= params_key(pb)
            ratio = ta / tb
            ratios.append(ratio)
            if not same:
                changed.append(f"{key}: {pb} -> {pa}")
            lines.append(f"| {key} | {tb:.4g} | {ta:.4g} | {ratio:.3f} | {'yes' if same else 'NO'} |")
        for key in sorted(set(before) ^ set(after)):
            lines.append(f"| {key} | {'-' if key not in before else before[key][0]} | "
                         f"{'-' if key not in after else after[key][0]} | | only one side |")
    if ratios:
        import math
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append("")
        lines.append(f"{len(ratios)} cases: after/before geometric mean {geo:.3f}, min {min(ratios):.3f}, "
                     f"max {max(ratios):.3f}; plans changed: {len(changed)}")
        lines += [f"- {c}" for c in changed]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
