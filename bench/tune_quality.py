#!/usr/bin/env python3
"""Merges the comparisons bench/tune_quality.sh collected (OUT/*-full.json, *-A.json, *-B.json, and with
PROFILE *-P.json / *-PS.json, written by clpk-tune --vs-json) into OUT/tune_quality.json and a markdown table OUT/tune_quality.md.

quality = 1 when both searches chose the same point, else min(1, head-to-head ratio): the exhaustive best's time
over the tuned choice's, both measured again alternately in one process; a tuned choice measured faster than the
exhaustive best is noise (the exhaustive search saw it too), hence the cap. Per family: the minimum
and the geometric mean of the quality, per kind of comparison."""
import glob
import json
import math
import os
import re
import sys


def kind_of(path):
    m = re.search(r"-(full|A|B|P|PS)\.json$", path)
    kinds = {"full": "whole space", "A": "hill whole / exh. sub-space", "B": "hill sub-space / exh. sub-space",
             "P": "profile choice / exh. whole space", "PS": "profile choice / exh. sub-space"}
    return kinds[m.group(1)]


def main(out):
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "*-*.json"))):
        if not re.search(r"-(full|A|B|P|PS)\.json$", path):
            continue
        for row in json.load(open(path)):
            row["kind"] = kind_of(path)
            row["size"] = "quick" if "-quick-" in os.path.basename(path) else "full"
            row["file"] = os.path.basename(path)
            # the definition clpk-tune prints (recomputed: older outputs capped the noise of a point against itself)
            h2h, search = row.get("h2h_ratio"), row.get("search_ratio")
            row["quality"] = 1.0 if row["same_choice"] else min(1.0, h2h if h2h is not None else search)
            rows.append(row)
    summary = {}
    for r in rows:
        q = r.get("quality")
        if q is None:
            continue
        s = summary.setdefault((r["family"], r["kind"]), {"n": 0, "log": 0.0, "min": 1.0})
        s["n"] += 1
        s["log"] += math.log(q)
        s["min"] = min(s["min"], q)
    families = [{"family": f, "kind": k, "problems": s["n"], "min": s["min"], "geomean": math.exp(s["log"] / s["n"])}
                for (f, k), s in sorted(summary.items())]
    json.dump({"rows": rows, "families": families}, open(os.path.join(out, "tune_quality.json"), "w"), indent=1)

    def fmt(v, spec):
        return "-" if v is None else format(v, spec)

    lines = ["| family | problem | comparison | points tuned / exh. | search ratio | h2h tuned ms | h2h exh. ms "
             "| spread tuned / exh. | quality | same choice |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        spread = "%s / %s" % (fmt(r.get("h2h_tuned_spread") and 100 * r["h2h_tuned_spread"], ".1f"),
                              fmt(r.get("h2h_exhaustive_spread") and 100 * r["h2h_exhaustive_spread"], ".1f"))
        lines.append("| %s | [%d] %s (%s) | %s | %d / %d%s | %s | %s | %s | %s %% | **%s** | %s |" % (
            r["family"], r["problem"], r["label"], r["size"], r["kind"], r["tuned_points"], r["exhaustive_points"],
            "" if r["exhaustive_complete"] else " (cut)", fmt(r.get("search_ratio"), ".3f"),
            fmt(r.get("h2h_tuned_ms"), ".4g"), fmt(r.get("h2h_exhaustive_ms"), ".4g"), spread,
            fmt(r.get("quality"), ".3f"), "yes" if r["same_choice"] else "no"))
    lines += ["", "| family | comparison | problems | min quality | geomean quality |",
              "| --- | --- | --- | --- | --- |"]
    for f in families:
        lines.append("| %s | %s | %d | %.3f | %.3f |" % (f["family"], f["kind"], f["problems"], f["min"], f["geomean"]))
    subspaces = sorted({(r["family"], r["problem"], r["size"], r["exhaustive_space"]) for r in rows
                        if r["exhaustive_space"]})
    if subspaces:
        lines += ["", "Sub-spaces (parameters fixed at the whole-space hill choice; the others free):", ""]
        lines += ["- %s [%d] (%s): `%s`" % s for s in subspaces]
    text = "\n".join(lines) + "\n"
    open(os.path.join(out, "tune_quality.md"), "w").write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench-out/tune-quality")
