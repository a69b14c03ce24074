#!/usr/bin/env python3
"""Merges clpk-bench-spmv's JSON with the cuSPARSE peer's (bench/peers/cusparse_spmv.py) into flat records
(family, case, impl, precision, median_ms, gflops, gbps, pct_copy_bw, ratio_to_peer = peer time / clpk time) and
writes a markdown table per precision with the issue's targets checked. Where clpk-oracle ran (the fastest plan of an
exhaustive sub-space per matrix, clpk-bench-spmv --impls clpk-oracle), a second table sets the automatic plan against
it and against cuSPARSE (issue #22's held-out evaluation): clpk-auto records get ratio_to_oracle = oracle time / auto
time (<= 1; within 10 % is >= 1/1.1).

Usage: spmv_report.py --clpk clpk.json... [--peer peer.json...] --out merged.json --markdown table.md
(several files each: the outputs of several bench/spmv.sh calls, e.g. cases split across device calls, merge here)
"""
import argparse
import json
import math
import os

WITHIN_10_PCT = 1 / 1.1  # auto/oracle at or above this: the automatic plan is within 10 % of the oracle's time
BELOW = 0.95  # auto/cuSPARSE below this counts as a matrix where cuSPARSE is clearly faster
WITHIN_TARGET = 0.9  # the share of matrices where auto should be within 10 % of the oracle


def load(path):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read().strip()
    if not text:
        return []
    if text[0] == "[":
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def summary_lines(vs_oracle, vs_peer):
    """The held-out evaluation's verdicts over {key: auto/oracle} and {key: auto/cuSPARSE}."""
    out = []
    if vs_peer:
        below = sorted(k for k, v in vs_peer.items() if v < BELOW)
        out.append(f"clpk-auto vs cuSPARSE: geometric mean {geomean(vs_peer.values()):.2f}x over {len(vs_peer)} "
                   f"matrices; {len(below)} below {BELOW}x" + (f" ({', '.join(map(label, below))})" if below else "")
                   + ".")
    else:
        out.append("clpk-auto vs cuSPARSE: no cuSPARSE records (peer skipped: no CuPy here).")
    if vs_oracle:
        within = [k for k, v in vs_oracle.items() if v >= WITHIN_10_PCT]
        share = len(within) / len(vs_oracle)
        worst = min(vs_oracle, key=vs_oracle.get)
        out.append(f"clpk-auto within 10 % of the oracle (auto/oracle >= {WITHIN_10_PCT:.3f}) on {len(within)} of "
                   f"{len(vs_oracle)} matrices ({100 * share:.0f} %; target >= {100 * WITHIN_TARGET:.0f} %: "
                   f"{'met' if share >= WITHIN_TARGET else 'NOT met'}); geometric mean "
                   f"{geomean(vs_oracle.values()):.3f}, lowest {label(worst)} {vs_oracle[worst]:.3f}.")
    return out


def label(key):
    case, prec = key
    return f"{case} {prec}"


def auto_table(prec, cases, rows, peers, summary):
    """Per matrix: the automatic plan against the oracle and cuSPARSE, and its plan time; adds the ratios to
    summary["auto_oracle"] and summary["auto_peer"] under (case, prec)."""
    autos = {r["case"]: r for r in rows if r["impl"] == "clpk-auto"}
    oracles = {r["case"]: r for r in rows if r["impl"] == "clpk-oracle"}
    if not oracles:
        return []
    lines = [f"### {prec}: automatic plan vs oracle and cuSPARSE", "",
             "auto/oracle = oracle time / auto time (<= 1; >= 0.909: within 10 %); auto/cuSPARSE = cuSPARSE time / "
             "auto time; the oracle is the fastest correct plan of its sub-space (points measured of the space; the "
             "automatic plan's own choice is one of them).", "",
             "| case | nnz | auto ms | auto plan s | oracle ms | auto/oracle | cuSPARSE ms | auto/cuSPARSE "
             "| points | oracle point |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    vs_oracle, vs_peer = {}, {}
    for case in cases:
        auto, oracle, peer = autos.get(case), oracles.get(case), peers.get((case, prec))
        if not auto and not oracle:
            continue
        good = auto if auto and auto.get("correct", True) else None
        r_oracle = oracle["median_ms"] / good["median_ms"] if good and oracle and oracle.get("correct", True) else None
        r_peer = peer["median_ms"] / good["median_ms"] if good and peer else None
        if r_oracle:
            vs_oracle[(case, prec)] = r_oracle
        if r_peer:
            vs_peer[(case, prec)] = r_peer
        points = (f"{oracle.get('oracle_measured', '?')}/{oracle.get('oracle_space', '?')}" if oracle else "-")
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {}{} |".format(
            case, (auto or oracle)["nnz"], fmt(auto and auto["median_ms"], ".4f"),
            fmt(auto and auto.get("plan_s"), ".2f"), fmt(oracle and oracle["median_ms"], ".4f"),
            fmt(r_oracle, ".3f"), fmt(peer and peer["median_ms"], ".4f"), fmt(r_peer, ".2f"), points,
            oracle.get("oracle_point", oracle.get("params", "-")) if oracle else "-",
            "" if good else " (auto missing or WRONG)"))
    summary["auto_oracle"].update(vs_oracle)
    summary["auto_peer"].update(vs_peer)
    return lines + [""] + summary_lines(vs_oracle, vs_peer) + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clpk", required=True, nargs="+")
    ap.add_argument("--peer", default=[], nargs="*")
    ap.add_argument("--out", required=True)
    ap.add_argument("--markdown", required=True)
    args = ap.parse_args()
    clpk = [r for path in args.clpk for r in load(path)]
    copy_gbps = next((r["copy_gbps"] for r in clpk if r.get("copy_gbps")), None)
    peers = {}
    merged = list(clpk)
    for p in [r for path in args.peer for r in load(path)]:
        if "skipped" in p:
            continue
        case = p["matrix"][:-4] if p["matrix"].endswith(".mtx") else p["matrix"]
        rec = {"family": "spmv", "case": case, "impl": "cusparse", "precision": p["precision"], "rows": p["rows"],
               "cols": p["cols"], "nnz": p["nnz"], "median_ms": p["median_ms"], "gflops": p["gflops"],
               "gbps": p["csr_gbps"], "rel_error": p.get("rel_error"), "ratio_to_peer": 1.0}
        if copy_gbps:
            rec["pct_copy_bw"] = 100.0 * rec["gbps"] / copy_gbps
        peers[(case, p["precision"])] = rec
        merged.append(rec)
    for r in clpk:
        peer = peers.get((r["case"], r["precision"]))
        if peer and r.get("median_ms"):
            r["ratio_to_peer"] = peer["median_ms"] / r["median_ms"]
    oracles = {(r["case"], r["precision"]): r for r in clpk if r["impl"] == "clpk-oracle" and r.get("correct", True)}
    for r in clpk:
        oracle = oracles.get((r["case"], r["precision"]))
        if r["impl"] == "clpk-auto" and oracle and r.get("median_ms"):
            r["ratio_to_oracle"] = oracle["median_ms"] / r["median_ms"]
    with open(args.out, "w") as f:
        json.dump(merged, f, indent=1)

    lines = ["# SpMV: clpk vs cuSPARSE", ""]
    summary = {"auto_oracle": {}, "auto_peer": {}}
    dev = next((r.get("device") for r in clpk if r.get("device")), "?")
    lines.append(f"Device: {dev}; measured copy bandwidth {fmt(copy_gbps)} GB/s. GFLOP/s = 2 nnz / median time; "
                 "ratio = cuSPARSE time / clpk time (> 1: clpk faster); best = the faster of clpk-auto and clpk-tuned; "
                 "%copy = the format's own bytes + x + y per multiply against the copy bandwidth.")
    lines.append("")
    for prec in ("f32", "f64"):
        rows = [r for r in clpk if r["precision"] == prec]
        if not rows:
            continue
        cases = []
        for r in rows:
            if r["case"] not in cases:
                cases.append(r["case"])
        lines += [f"## {prec}", "",
                  "| case | nnz | clpk-csr | clpk-auto | clpk-tuned | cuSPARSE | best/cuSPARSE | best %copy | best B/nnz "
                  "| best params |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        ratios = {}
        bw = {}
        for case in cases:
            by = {r["impl"]: r for r in rows if r["case"] == case}
            peer = peers.get((case, prec))
            cands = [by[i] for i in ("clpk-auto", "clpk-tuned") if i in by and by[i].get("correct", True)]
            best = min(cands, key=lambda r: r["median_ms"]) if cands else None
            ratio = peer["median_ms"] / best["median_ms"] if best and peer else None
            if ratio:
                ratios[case] = ratio
            if best:
                bw[case] = (best.get("pct_copy_bw"), best.get("size_copy_gbps"), best.get("pct_size_copy_bw"))
            nnz = next(iter(by.values()))["nnz"]
            wrong = [i for i, r in by.items() if not r.get("correct", True)]
            lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {}{} |".format(
                case, nnz, *(fmt(by[i]["gflops"]) if i in by else "-" for i in ("clpk-csr", "clpk-auto", "clpk-tuned")),
                fmt(peer["gflops"]) if peer else "-", fmt(ratio, ".2f"), fmt(best and best.get("pct_copy_bw")),
                fmt(best and best.get("bytes_per_nnz"), ".2f"), best["params"] if best else "-",
                " WRONG: " + ",".join(wrong) if wrong else ""))
        gm = geomean(ratios.values())
        lines.append("")
        if ratios:
            worst = min(ratios, key=ratios.get)
            want_gm = 1.3 if prec == "f32" else 1.2
            lines.append(f"Geometric-mean speed-up over cuSPARSE: {fmt(gm, '.2f')} (target >= {want_gm}: "
                         f"{'met' if gm >= want_gm else 'NOT met'}); lowest {worst} {ratios[worst]:.2f} "
                         f"(target >= 0.9: {'met' if ratios[worst] >= 0.9 else 'NOT met'}).")
            if prec == "f32" and "fem3d" in ratios:
                lines.append(f"FEM (fem3d) speed-up {ratios['fem3d']:.2f} (target >= 1.5: "
                             f"{'met' if ratios['fem3d'] >= 1.5 else 'NOT met'}).")
        else:
            lines.append("No cuSPARSE records (peer skipped: no CuPy here).")
        for case in ("fem3d", "dense"):
            pct, size_gbps, pct_size = bw.get(case, (None, None, None))
            if pct is not None:
                at_size = ""
                if size_gbps and copy_gbps:
                    # the copy of the case's ideal bytes: what launch, ramp-up and drain leave attainable at this size
                    at_size = (f"; a copy of this case's ideal bytes runs at {100.0 * size_gbps / copy_gbps:.1f}% of "
                               f"the large copy, and clpk at {pct_size:.1f}% of that copy")
                lines.append(f"{case}: {pct:.1f}% of the measured copy bandwidth (target >= 85%: "
                             f"{'met' if pct >= 85 else 'NOT met'}){at_size}.")
        lines.append("")
        lines += auto_table(prec, cases, rows, peers, summary)
    if len({p for p, _ in summary["auto_oracle"]} | {p for p, _ in summary["auto_peer"]}) > 1:
        lines += ["## Both precisions", ""] + summary_lines(summary["auto_oracle"], summary["auto_peer"]) + [""]
    text = "\n".join(lines) + "\n"
    with open(args.markdown, "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
