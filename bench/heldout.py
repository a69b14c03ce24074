#!/usr/bin/env python3
"""Held-out check of a tuned profile (issue #23 item 3), per family, through the public benchmark CLIs.

For every problem of a held-out list (shapes, sizes, counts and datasets that are not among the tuner's training
problems, tuner/tune_<family>.c) three timings:
  auto      the CLI's automatic plan with the profile in use;
  defaults  the same with CLPK_PROFILE_DIR pointing at an empty folder (the built-in defaults);
  best      the fastest of the explicit plans made from every parameter set of the family's profile entries of the
            problem's precision, and of the defaults: the oracle over what the selection could have chosen.
Times: SpMV the median multiply, xcorr the median call, SS-HOPM the median launch of fixed iterations, LiFE the DSC +
WC medians (clpk-bench-life --orders: one plan per parameter list; the list " " names none, so that with the
profile it is the automatic plan). Each family's problems run in a few CLI calls (commands.log lists them).
Targets (issue #23): defaults_ms / auto_ms >= 0.97 on every problem, best_ms / auto_ms >= 0.90 on >= 90 % of them.
The targets are reported (PASS / MISS), not asserted. Exit status: 0 when the report is written and every run was
correct, 1 when a run failed or a result was wrong (the report still lists what was measured), 2 on usage errors.

Correctness: SpMV and cross-correlation records carry the CLIs' check against a double reference; LiFE runs with
--check (every product against the double host reference); clpk-bench-sshopm has no reference check, so an SS-HOPM
result counts as correct when every start ran its fixed iterations without NaN/Inf (its "not_capped" count is 0).

Standard library only (the CI machine runs it with the system python3).
Usage: bench/heldout.py [--bin DIR] [--device SEL] [--profile FILE] [--scale S] [--families LIST] [--quick]
                        [--max-sets N] [--rounds N] [--confirm N] [--life-dipy DIR] [--life-data DIR] [--out DIR]
                        [--estimate]
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

FAMILIES = ("spmv", "xcorr", "sshopm", "life")
TARGET_DEFAULTS = 0.97  # defaults_ms / auto_ms, on every problem
TARGET_BEST = 0.90  # best_ms / auto_ms, on >= 90 % of the problems
TARGET_BEST_SHARE = 0.90


# ---- problem lists ----------------------------------------------------------------------------------------------
# The tuner trains SpMV's cost model on generated Table III classes and node-block meshes (tuner/tune_spmv_model.c);
# the held-out set is the evaluation corpus bench/spmv_corpus.txt (real matrices replicated to 8-29 M nonzeros, 2D FEM,
# 3D stencil, power-law, long rows: generators the training never uses), f32 and f64; --scale < 1 keeps the first
# matrices only (a CPU). Quick (CI): one small 2D FEM.
def spmv_groups(scale, quick, root, shared):
    if quick:
        return [{"specs": ["fem2d=fem:24"], "precision": "f32"}]
    real = next((d for d in (os.path.join(shared, "matrices"), os.path.join(root, ".gpu/data/matrices"))
                 if os.path.isdir(d)), None)
    specs = []
    with open(os.path.join(root, "bench/spmv_corpus.txt")) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 2 or parts[0].startswith("#"):
                continue
            if "MATRICES" in parts[1] and not real:
                continue
            specs.append("%s=%s" % (parts[0], parts[1].replace("MATRICES", real or "")))
    if scale < 1:
        specs = specs[:max(1, int(len(specs) * scale))]
    return [{"specs": specs, "precision": "f32"}, {"specs": specs, "precision": "f64"}]


# The tuner trains cross-correlation on sizes 16, 32, 64, 96, 128 with counts 1, 8, 32, 1000, 4000 (one-to-one 1 and
# 4000 pairs, n-to-mn 4x64 and 8x32, n-to-m 32x32 and 8x8). Three held-out sets lie between and beyond:
# - "s10": sizes 24, 48, 80, 160 with clpk-bench-xcorr's grid at --scale 0.5 (counts 1, 4, 16, 64, 2000). Session 11
#   changed the built-in rule from its H100 results (warp-per-overlap up to 10000 outputs, fused-fft's lines for
#   occupancy), so it is no longer unseen: kept to show the change on the problems behind it.
# - "s11": sizes 20, 40, 56, 72, 112, 192 and the grid at --scale 0.75 (counts 1, 6, 24, 96, 3000); session 11's
#   second rule change (split-row for few pairs, f64 thresholds, fused-fft's padding) was drawn from it too.
# - "s12": sizes 28, 44, 60, 100, 120, 144 and the grid at --scale 0.6 (counts 1, 4, 19, 76, 2400); session 14's
#   fused-fft work-group grid took its sizes and its warp-per-overlap miss (28^2 x 5) moved a threshold.
# - "s13", "s14" and "s15" (default): below.
XCORR_SETS = {  # name: (grid scale, [(patterns, sizes, precision), ...])
    "s10": (0.5, [("one-to-many", "24,160", "f32"), ("n-to-m", "24,48", "f32"), ("n-to-mn", "48", "f32"),
                  ("one-to-one", "24,80", "f32"), ("one-to-many", "48", "f64")]),
    "s11": (0.75, [("one-to-many", "20,112", "f32"), ("n-to-m", "20,56", "f32"), ("n-to-mn", "40", "f32"),
                   ("one-to-one", "72,192", "f32"), ("one-to-many", "40", "f64")]),
    "s12": (0.6, [("one-to-many", "28,120", "f32"), ("n-to-m", "28,60", "f32"), ("n-to-mn", "44", "f32"),
                  ("one-to-one", "100,144", "f32"), ("one-to-many", "44", "f64")]),
    # judged session 14's fused-fft defaults (wg, radix 16), unseen until then; its two warp-per-overlap misses then
    # moved the f32 threshold to 16384 outputs, so it is spent for that threshold
    "s13": (0.4, [("one-to-many", "36,88", "f32"), ("n-to-m", "36,52", "f32"), ("n-to-mn", "68", "f32"),
                  ("one-to-one", "84,168", "f32"), ("one-to-many", "52", "f64")]),
    # sizes none of s10-s13, the training grid or session 14's work-group grid used (176^2 pads to 384: the radix-16
    # rule on a size it was not fitted on), counts at 0.3 (1, 2-3, 9-10, 1200); spent in session 15: its 26^2 and
    # 108^2 misses on the H100 and the H200 moved fused-fft's padding rule
    "s14": (0.3, [("one-to-many", "26,108", "f32"), ("n-to-m", "42,58", "f32"), ("n-to-mn", "76", "f32"),
                  ("one-to-one", "136,176", "f32"), ("one-to-many", "58", "f64")]),
    # judged session 15's padding rule (27 * 2^i lengths go to the power of two): 25, 50, 104 and 200 pad to such
    # lengths (54, 108, 216, 432 before), 46, 90 and 124 to others (controls), counts at 0.35 (1, 2-3, 11, 1400);
    # spent in session 16: its f64 50^2 x 1400 miss sent f64 back to the 10 % rule
    "s15": (0.35, [("one-to-many", "25,104", "f32"), ("n-to-m", "46,50", "f32"), ("n-to-mn", "90", "f32"),
                   ("one-to-one", "124,200", "f32"), ("one-to-many", "50", "f64")]),
    # unseen by every rule; judges session 16's split (f32: power of two within 20 %, f64: within 10 %) on sizes whose
    # lines pad to 27 * 2^i: f64 27 (53 -> 54), 53 (105 -> 108), 100 and 102 (199, 203 -> 216) keep the smooth size,
    # f32 53 and 102 take 128 and 256; counts at 0.3 (1, 2-3, 9-10, 1200)
    # judged session 26's f64 padding (64 instead of 54), fitted on 25^2-26^2: not spent by it
    "s16": (0.3, [("one-to-many", "27,100", "f64"), ("n-to-m", "53", "f64"), ("one-to-one", "102", "f64"),
                  ("one-to-many", "53,102", "f32")]),
    # sizes none of the grids of sessions 25-26 used; judges session 26's work-group rules: 118^2 and 230^2 f32 (256
    # and 512-point lines: the radix-16 halving, and not), f64 72^2 (144: 768 values), n-to-m 140^2 f64 (288 points),
    # 36^2 / 80^2 / 150^2 f32 (72, 162, 324: rules unchanged); counts at 0.3 (1, 2-3, 9-10, 1200)
    "s26": (0.3, [("one-to-many", "36,118", "f32"), ("one-to-many", "72", "f64"), ("n-to-mn", "80,230", "f32"),
                  ("n-to-m", "140", "f64"), ("one-to-one", "150", "f32")]),
}


def xcorr_groups(scale, quick, which="s12"):
    if quick:
        return [{"patterns": "one-to-many", "sizes": "12", "scale": 0.002, "precision": "f32"}]
    if scale < 0.25:  # a CPU: the direct algorithms take seconds a call at 160 x 160
        s = 0.5 * scale
        return [{"patterns": "one-to-many", "sizes": "12,24", "scale": s, "precision": "f32"},
                {"patterns": "n-to-m", "sizes": "12", "scale": s, "precision": "f32"},
                {"patterns": "one-to-one", "sizes": "20", "scale": s, "precision": "f64"}]
    grid, groups = XCORR_SETS[which]
    return [{"patterns": pat, "sizes": sizes, "scale": grid * scale, "precision": prec} for pat, sizes, prec in groups]


# The tuner trains SS-HOPM on (m, n) = (4,3) (3,3) (6,3) (8,3) (4,4) (4,6) (6,4) (3,6) (8,8) with 512 (or 64)
# tensors x 128 starts; the held-out shapes are other orders and dimensions, with 64 k tensors.
def sshopm_groups(scale, quick):
    if quick:
        return [{"shapes": "5x3", "precision": "f32", "tensors": 256, "starts": 16, "iters": 20}]
    t = max(64, int(round(65536 * scale)))
    starts, iters = (128, 100) if scale >= 0.25 else (16, 20)  # a CPU: about a second a launch at 128 x 100
    shapes = "5x3,7x3,3x4,5x4,4x5,3x8"
    return [{"shapes": shapes, "precision": p, "tensors": t, "starts": starts, "iters": iters} for p in ("f32", "f64")]


# The tuner trains LiFE on random streamline-like datasets of 67 k-160 k coefficients (n_theta 96 and 64); the
# held-out datasets are the seed's DS1 scale (57 M coefficients) and the medium synth, with other seeds, and real
# data: dipy's small_25 scan and tractogram encoded by clpk-life (found under --life-dipy, when there), and any
# dataset directory given with --life-data. The large size once more with another seed and its fibres listed in a
# random order (clpk-life synth --shuffle-fibers), as a merged or filtered tractogram lists them: the synth writes a
# bundle's fibres one after another, which orders that follow the fibre index enjoy.
def life_groups(scale, quick, data_dirs):
    if quick:
        return [{"size": "tiny", "seed": 3, "precision": "f32"}]
    big, other = ("ds1", "medium") if scale >= 0.5 else ("medium", "small") if scale >= 0.1 else ("small", "tiny")
    groups = [{"size": big, "seed": 3, "precision": "both"}, {"size": other, "seed": 5, "precision": "both"},
              {"size": big, "seed": 11, "shuffle": 22, "precision": "both"}]
    return groups + [{"data": d, "precision": "both"} for d in data_dirs]


def life_shuffled_dataset(r, g, args):
    """Writes the synth dataset of group g with its fibres shuffled and points g at it."""
    name = "life-%s-seed%d-shuffled%d" % (g["size"], g["seed"], g["shuffle"])
    out = os.path.join(os.path.abspath(args.out), name)
    rc, text, _ = r.run("life-synth-shuffled", ["clpk-life", "synth", "--size", g["size"], "--seed", str(g["seed"]),
                                                "--shuffle-fibers", str(g["shuffle"]), "--out", out], "defaults")
    if rc:
        raise Failure("clpk-life synth --shuffle-fibers failed: %s" % reason(text))
    g["data"] = out


def life_dipy_dataset(r, args):
    """Encodes dipy's test data (small_25.nii.gz, .bval, .bvec, EuDX_small_25.trk under args.life_dipy) into a
    LiFE dataset folder; None when the files are not there."""
    src = args.life_dipy
    files = ["small_25.nii.gz", "small_25.bval", "small_25.bvec", "EuDX_small_25.trk"]
    if args.quick or not src or not all(os.path.exists(os.path.join(src, f)) for f in files):
        return None
    out = os.path.join(args.out, "life-dipy-small_25")
    rc, text, _ = r.run("life-encode", ["clpk-life", "encode"] + ["--dwi", os.path.join(src, files[0]), "--bval",
                                                                  os.path.join(src, files[1]), "--bvec",
                                                                  os.path.join(src, files[2]), "--trk",
                                                                  os.path.join(src, files[3]), "--out", out],
                        "defaults")
    if rc:
        raise Failure("clpk-life encode of %s failed: %s" % (src, reason(text)))
    return out


# ---- helpers ----------------------------------------------------------------------------------------------------
class Failure(Exception):
    """A run failed or a result was wrong: the check fails (after writing what it has)."""


def param_text(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def params_of(entry):
    return [(k, param_text(v)) for k, v in entry["params"].items()]


def candidate_sets(profile, family, precision, max_sets):
    """Distinct parameter sets of the family's entries whose precision matches (string class values must match for
    the selection to take an entry), in file order: [(label, [(key, value), ...])]. A family with a cost model in the
    profile (spmv: "models"."spmv") offers its variants instead (docs/profiles.md)."""
    out, seen = [], set()
    model = (profile or {}).get("models", {}).get(family, {})
    for prec in ((precision,) if precision not in (None, "both") else ("f32", "f64")):
        for v in model.get(prec, {}).get("variants", []):
            kv = [tuple(x.split("=", 1)) for x in v["params"].split(",") if "=" in x]
            key = ",".join("%s=%s" % x for x in kv)
            if key not in seen:
                seen.add(key)
                out.append(kv)
    for e in (profile or {}).get("families", {}).get(family, []):
        p = e.get("class", {}).get("precision")
        if precision not in (None, "both") and p is not None and p != precision:
            continue
        kv = params_of(e)
        key = ",".join("%s=%s" % x for x in kv)
        if key in seen:
            continue
        seen.add(key)
        out.append(kv)
    if max_sets:
        out = out[:max_sets]
    return [("s%d" % i, kv) for i, kv in enumerate(out)]


class Runner:
    def __init__(self, args):
        self.args = args
        self.raw = os.path.join(args.out, "raw")
        os.makedirs(self.raw, exist_ok=True)
        self.empty = os.path.join(args.out, "empty-profile-dir")
        os.makedirs(self.empty, exist_ok=True)
        self.count = 0
        self.log = open(os.path.join(args.out, "commands.log"), "w")

    def env(self, mode):
        e = dict(os.environ)
        if self.args.device:
            e["CLPK_DEVICE"] = self.args.device
        if mode == "auto":
            if self.args.profile_file:
                e["CLPK_PROFILE"] = self.args.profile_file
        else:  # built-in defaults (and explicit plans over them)
            e.pop("CLPK_PROFILE", None)
            e["CLPK_PROFILE_DIR"] = self.empty
        return e

    def run(self, name, argv, mode):
        """Runs one CLI; returns (rc, stdout+stderr text). Output kept under OUT/raw."""
        self.count += 1
        tag = "%03d-%s" % (self.count, name)
        exe = os.path.join(self.args.bin, argv[0])
        cmd = [exe] + argv[1:]
        t0 = time.time()
        p = subprocess.run(cmd, env=self.env(mode), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", cwd=self.raw)
        dt = time.time() - t0
        prefix = "CLPK_PROFILE_DIR=%s " % self.empty if mode != "auto" else (
            "CLPK_PROFILE=%s " % self.args.profile_file if self.args.profile_file else "")
        self.log.write("# %s (%s, rc %d, %.1f s)\n%s%s\n" % (tag, mode, p.returncode, dt, prefix,
                                                             " ".join("'%s'" % a if (" " in a or ";" in a) else a
                                                                      for a in cmd)))
        self.log.flush()
        with open(os.path.join(self.raw, tag + ".log"), "w") as f:
            f.write(p.stdout)
        if self.args.verbose:
            print("  %s: rc %d, %.1f s" % (tag, p.returncode, dt), flush=True)
        return p.returncode, p.stdout, os.path.join(self.raw, tag)

    def device_args(self):
        return ["--device", self.args.device] if self.args.device else []


def reason(out):
    """Why a CLI refused: its last own message ('clpk-...: ...'), else its last line."""
    lines = [x for x in (out or "").strip().splitlines() if x.strip()]
    own = [x for x in lines if re.match(r"clpk-[a-z-]+: ", x)]
    return ((own or lines or ["?"])[-1])[:240]


def problem_row(family, problem, precision, auto_ms, defaults_ms, sets, refused, auto_plan="", notes="",
                defaults_plan=""):
    """sets: {label: ms} of the explicit candidates (the defaults included as 'defaults'). Where auto and the defaults
    resolved to the same plan (same algorithm and parameters) the user gets the defaults' speed by construction: the
    measured ratio is timing noise (up to 15 % at 10-60 us calls on the H100), so the row meets the defaults target, and
    the best target where the defaults are the best, and says so (same_plan)."""
    timed = {k: v for k, v in sets.items() if v is not None and v > 0}
    if defaults_ms:
        timed.setdefault("defaults", defaults_ms)
    best_label = min(timed, key=timed.get) if timed else None
    best_ms = timed[best_label] if timed else None
    row = {"family": family, "problem": problem, "precision": precision, "auto_ms": auto_ms,
           "defaults_ms": defaults_ms, "best_ms": best_ms, "best_set": best_label, "sets_ms": sets,
           "refused": refused, "auto_plan": auto_plan, "defaults_plan": defaults_plan, "notes": notes,
           "same_plan": bool(auto_plan) and auto_plan == defaults_plan}
    row["vs_defaults"] = defaults_ms / auto_ms if auto_ms and defaults_ms else None
    row["vs_best"] = min(1.0, best_ms / auto_ms) if auto_ms and best_ms else None
    row["meets_defaults"] = row["vs_defaults"] is not None and (row["vs_defaults"] >= TARGET_DEFAULTS or
                                                                 row["same_plan"])
    row["meets_best"] = row["vs_best"] is not None and (row["vs_best"] >= TARGET_BEST or
                                                         (row["same_plan"] and best_label == "defaults"))
    return row


# ---- SpMV -------------------------------------------------------------------------------------------------------
def run_spmv(r, profile, args):
    rows = []
    reps = ["--repeats", str(args.repeats), "--warmup", str(max(1, args.repeats // 10))]
    for g in spmv_groups(args.scale, args.quick, args.root, args.shared):
        prec = g["precision"]
        base = ["clpk-bench-spmv"] + r.device_args() + ["--cases", "none", "--precision", prec] + reps
        for spec in g["specs"]:
            base += ["--spec", spec]
        rc, out, tag = r.run("spmv-auto", base + ["--impls", "clpk-auto", "--json", tag_json(r, "spmv-auto")],
                             "auto")
        auto = load_json_array(r.last_json)
        check_spmv(auto, rc, out, "auto")
        sets = candidate_sets(profile, "spmv", prec, args.max_sets)
        variants = []
        for label, kv in sets:
            variants += ["--variant", "%s:%s=%s" % (prec, label, ",".join("%s=%s" % x for x in kv))]
        rc, out, tag = r.run("spmv-defaults", base + ["--impls", "clpk-auto", "--json", tag_json(r, "spmv-def")] +
                             variants, "defaults")
        recs = load_json_array(r.last_json)
        check_spmv(recs, None, out, "defaults/candidates")
        for a in auto:
            case = a["case"]
            d = [x for x in recs if x["case"] == case and x["impl"] == "clpk-auto"]
            if not d:
                raise Failure("spmv %s: no defaults record (see %s.log)" % (case, tag))
            times, refused = {}, {}
            for label, _ in sets:
                c = [x for x in recs if x["case"] == case and x["impl"] == label]
                if c:
                    times[label] = c[0]["median_ms"]
                else:
                    refused[label] = "plan refused (see %s.log)" % os.path.basename(tag)
            name = "%s %s (%s, %d x %d, %.1f M nnz)" % (case, prec, a["spec"], a["rows"], a["cols"], a["nnz"] / 1e6)
            rows.append(problem_row("spmv", name, prec, a["median_ms"], d[0]["median_ms"], times, refused,
                                    a.get("params", ""), defaults_plan=d[0].get("params", "")))
    return rows


def tag_json(r, name):
    r.last_json = os.path.join(r.raw, "%03d-%s.json" % (r.count + 1, name))
    return r.last_json


def load_json_array(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("cannot read %s: %s" % (path, e))


def check_spmv(recs, rc, out, what):
    wrong = [x for x in recs if not x.get("correct")]
    if wrong:
        raise Failure("spmv %s: wrong result: %s" % (what, ", ".join("%s %s" % (x["case"], x["impl"]) for x in wrong)))
    if rc is not None and rc != 0:
        raise Failure("spmv %s: clpk-bench-spmv failed (rc %d): %s" % (what, rc, out.strip()[-400:]))


# ---- cross-correlation ------------------------------------------------------------------------------------------
def xcorr_applicable_keys(r):
    """Which parameters each algorithm takes, from the CLI's own refusal message (the library's table)."""
    algos = ["naive", "shift-buffer", "split-row", "grouped", "multi-right", "multi-both", "warp-per-overlap", "local",
             "fft", "fused-fft"]
    probe = ",".join("%s:%s" % (a, "team=32" if a == "fused-fft" else "fused_gaps=0") for a in algos)
    argv = ["clpk-bench-xcorr"] + r.device_args() + ["--patterns", "n-to-m", "--sizes", "4", "--scale", "0.0001",
                                                     "--repeats", "1", "--warmup", "0", "--variants", probe,
                                                     "--json", tag_json(r, "xcorr-probe")]
    r.run("xcorr-probe", argv, "defaults")
    keys = {}
    try:
        lines = open(r.last_json).read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        rec = json.loads(line)
        m = re.search(r"xcorr ([a-z-]+): parameter '[a-z_]+' does not apply \(it takes: ([^)]*)\)",
                      rec.get("reason", ""))
        if m:
            keys[m.group(1)] = set(k.strip() for k in m.group(2).split(",") if k.strip())
    return keys


def xcorr_variant(kv, keys):
    algo = dict(kv).get("algorithm")
    if not algo:
        return None
    takes = keys.get(algo)
    rest = [(k, v) for k, v in kv if k != "algorithm" and (takes is None or k in takes)]
    return algo + (":" + "/".join("%s=%s" % x for x in rest) if rest else "")


def load_jsonl(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                if line.strip():
                    out.append(json.loads(line))
    except (OSError, ValueError) as e:
        raise Failure("cannot read %s: %s" % (path, e))
    return [x for x in out if "case" in x and "variant" in x]


def run_xcorr(r, profile, args):
    rows = []
    keys = xcorr_applicable_keys(r)
    repeats = args.repeats if args.quick else max(args.repeats, 50)  # calls of microseconds: the CLI's default
    reps = ["--repeats", str(repeats), "--warmup", str(max(1, repeats // 10)), "--max-ms", "2000"]
    for g in xcorr_groups(args.scale, args.quick, args.xcorr_set):
        prec = g["precision"]
        base = ["clpk-bench-xcorr"] + r.device_args() + ["--patterns", g["patterns"], "--sizes", g["sizes"],
                                                        "--scale", "%g" % g["scale"], "--precision", prec] + reps
        rc, out, tag = r.run("xcorr-auto", base + ["--variants", "auto", "--json", tag_json(r, "xcorr-auto")], "auto")
        auto = load_jsonl(r.last_json)
        check_xcorr(auto, rc, out, "auto")
        sets = candidate_sets(profile, "xcorr", prec, args.max_sets)
        labels = {}
        for label, kv in sets:
            v = xcorr_variant(kv, keys)
            if v and v not in labels.values():
                labels[label] = v
        variants = ",".join(["auto"] + list(labels.values()))
        rc, out, tag = r.run("xcorr-defaults", base + ["--variants", variants, "--json", tag_json(r, "xcorr-def")],
                             "defaults")
        recs = load_jsonl(r.last_json)
        check_xcorr(recs, rc, out, "defaults/candidates")
        for a in auto:
            case = a["case"]
            if a.get("status") != "ok":
                rows.append(problem_row("xcorr", case, prec, None, None, {}, {}, notes="auto " + a.get("status", "?")))
                continue
            d = [x for x in recs if x["case"] == case and x["variant"] == "auto" and x.get("status") == "ok"]
            times, refused = {}, {}
            for label, v in labels.items():
                c = [x for x in recs if x["case"] == case and x["variant"] == v]
                if c and c[0].get("status") == "ok":
                    times[label] = c[0]["median_ms"]
                elif c:
                    refused[label] = "%s: %s" % (c[0].get("status"), c[0].get("reason", ""))
                else:
                    refused[label] = "not applicable to the pattern"
            name = "%s %s %dx%d %s" % (a["pattern"], a["counts"], a["rows"], a["cols"], prec)
            row = problem_row("xcorr", name, prec, a["median_ms"], d[0]["median_ms"] if d else None, times,
                              refused, a.get("chosen", ""), defaults_plan=d[0].get("chosen", "") if d else "")
            if args.confirm > 0:
                group = dict(g, patterns=a["pattern"], sizes=str(a["rows"]))
                row = confirm_xcorr(r, row, case, group, labels, reps, args.confirm)
                row = confirm_xcorr_defaults(r, row, case, group, keys, reps, args.confirm)
            rows.append(row)
    return rows


def retime_against_auto(r, case, g, reps, variant, rounds, tag, what):
    """auto and `variant` timed together in one command, `rounds` times, alternating which runs first: the medians
    of each, (auto_ms, variant_ms), every result checked."""
    base = ["clpk-bench-xcorr"] + r.device_args() + ["--patterns", g["patterns"], "--sizes", g["sizes"], "--scale",
                                                    "%g" % g["scale"], "--precision", g["precision"]] + reps
    auto_ms, variant_ms = [], []
    for k in range(rounds):
        order = ["auto", variant] if k % 2 == 0 else [variant, "auto"]
        rc, out, _ = r.run(tag, base + ["--variants", ",".join(order), "--json", tag_json(r, tag)], "auto")
        recs = [x for x in load_jsonl(r.last_json) if x["case"] == case and x.get("status") == "ok"]
        check_xcorr(recs, rc, out, what)
        auto_ms += [x["median_ms"] for x in recs if x["variant"] == "auto"]
        variant_ms += [x["median_ms"] for x in recs if x["variant"] == variant]
    return auto_ms, variant_ms


def confirm_xcorr(r, row, case, g, labels, reps, rounds):
    """Re-times a miss of the best target: auto and the best set alone, alternating which runs first, `rounds` times,
    each keeping its fastest median; again with the next set while another set's single timing is then the best. The
    best of many candidates, each timed once, is biased low by the noise of the one timing that made it the best (the
    winner's curse): at 10-60 us calls one plan timed twice differs by up to 25 %. The row keeps its first timings in
    confirm_first."""
    first = {"auto_ms": row["auto_ms"], "best_ms": row["best_ms"], "vs_best": row["vs_best"], "rounds": rounds,
             "sets": []}
    auto_ms = []
    while not row["meets_best"] and row["best_set"] in labels and row["best_set"] not in first["sets"]:
        label = row["best_set"]
        first["sets"].append(label)
        more_auto, best_ms = retime_against_auto(r, case, g, reps, labels[label], rounds, "xcorr-confirm",
                                                 "confirmation")
        auto_ms += more_auto
        if not auto_ms or not best_ms:
            break
        row = problem_row(row["family"], row["problem"], row["precision"], min(auto_ms), row["defaults_ms"],
                          dict(row["sets_ms"], **{label: min(best_ms)}), row["refused"], row["auto_plan"],
                          row["notes"], row["defaults_plan"])
    if first["sets"]:
        row["confirm_first"] = first
    return row


def plan_variant(plan, keys):
    """The variant that runs a chosen plan explicitly: 'fused-fft {wg=64,rows=2}' -> 'fused-fft:wg=64/rows=2'."""
    m = re.match(r"^\s*([\w-]+)\s*(?:\{(.*)\})?\s*$", plan or "")
    if not m:
        return None
    kv = [("algorithm", m.group(1))] + [tuple(x.split("=", 1)) for x in (m.group(2) or "").split(",") if "=" in x]
    return xcorr_variant(kv, keys)


def confirm_xcorr_defaults(r, row, case, g, keys, reps, rounds):
    """Re-times a miss of the defaults target where auto and the defaults resolved to different plans: auto and the
    defaults' plan (explicit) in one run, alternating which runs first, `rounds` times, each keeping its fastest
    median (the two were first timed in separate runs, one timing each). The first timings stay in
    confirm_defaults_first."""
    if rounds < 1 or row["meets_defaults"] or row["same_plan"] or not row["auto_ms"]:
        return row
    v = plan_variant(row["defaults_plan"], keys)
    if not v:
        return row
    auto_ms, def_ms = retime_against_auto(r, case, g, reps, v, rounds, "xcorr-confirm-defaults",
                                          "confirmation of the defaults")
    if not auto_ms or not def_ms:
        return row
    first = {"auto_ms": row["auto_ms"], "defaults_ms": row["defaults_ms"], "vs_defaults": row["vs_defaults"],
             "rounds": rounds}
    kept = {k: row[k] for k in ("confirm_first",) if k in row}
    row = problem_row(row["family"], row["problem"], row["precision"], min(auto_ms), min(def_ms), row["sets_ms"],
                      row["refused"], row["auto_plan"], row["notes"], row["defaults_plan"])
    row.update(kept, confirm_defaults_first=first)
    return row


def check_xcorr(recs, rc, out, what):
    wrong = [x for x in recs if x.get("status") == "wrong"]
    if wrong:
        raise Failure("xcorr %s: wrong result: %s" % (what, "; ".join("%s %s: %s" % (x["case"], x["variant"],
                                                                                     x.get("reason", ""))
                                                                      for x in wrong)))
    if rc != 0:
        raise Failure("xcorr %s: clpk-bench-xcorr failed (rc %d): %s" % (what, rc, out.strip()[-400:]))


# ---- SS-HOPM ----------------------------------------------------------------------------------------------------
def sshopm_run(r, g, shapes, mode, params, name):
    """Runs to convergence with the default options (what a user's run costs: a start stops at the end of its
    check_every block) unless --sshopm-mode fixed (g["iters"] iterations at a fixed shift, the tuner's measure)."""
    converge = r.args.sshopm_mode == "converged"
    folder = os.path.join(r.raw, "%03d-%s.d" % (r.count + 1, name))
    argv = ["clpk-bench-sshopm", "--out", folder] + r.device_args() + [
        "--shapes", shapes, "--precision", g["precision"], "--tensors", str(g["tensors"]), "--starts",
        str(g["starts"]), "--iters", str(g["iters"]), "--repeats", str(max(3, r.args.repeats // 5)), "--voxels", "0",
        "--no-peak", "--no-npy"] + (["--converge"] if converge else [])
    if params:
        argv += ["--params", params]
    rc, out, tag = r.run(name, argv, mode)
    recs = []
    if rc == 0:
        recs = [x for x in load_json_array(os.path.join(folder, "clpk.json")) if x.get("mode") == r.args.sshopm_mode]
        bad = [x for x in recs if (x.get("failed") if converge else x.get("not_capped"))]
        if bad:
            raise Failure("sshopm %s: starts %s: %s" % (name, "failed (NaN/Inf)" if converge else
                                                        "stopped early (NaN/Inf)", ", ".join(x["case"] for x in bad)))
    return rc, out, recs


def run_sshopm(r, profile, args):
    rows = []
    for g in sshopm_groups(args.scale, args.quick):
        prec = g["precision"]
        rc, out, auto = sshopm_run(r, g, g["shapes"], "auto", None, "sshopm-auto")
        if rc:
            raise Failure("sshopm auto: clpk-bench-sshopm failed (rc %d): %s" % (rc, out.strip()[-400:]))
        rc, out, defaults = sshopm_run(r, g, g["shapes"], "defaults", None, "sshopm-defaults")
        if rc:
            raise Failure("sshopm defaults: clpk-bench-sshopm failed (rc %d): %s" % (rc, out.strip()[-400:]))
        sets = candidate_sets(profile, "sshopm", prec, args.max_sets)
        cand = {}  # label -> {case: ms} or a refusal text per case
        refusals = {}
        for label, kv in sets:
            text = ",".join("%s=%s" % x for x in kv)
            rc, out, recs = sshopm_run(r, g, g["shapes"], "defaults", text, "sshopm-" + label)
            if rc:  # a set may not fit every shape: one shape at a time
                recs = []
                for shape in g["shapes"].split(","):
                    rc1, out1, one = sshopm_run(r, g, shape, "defaults", text, "sshopm-%s-%s" % (label, shape))
                    if rc1:
                        refusals.setdefault(label, {})[shape] = reason(out1)
                    recs += one
            cand[label] = {x["case"]: x["median_ms"] for x in recs}
        for a in auto:
            case = a["case"]
            d = [x for x in defaults if x["case"] == case]
            times = {label: cand[label][case] for label in cand if case in cand[label]}
            refused = {label: refusals[label][case] for label in refusals if case in refusals[label]}
            name = "(%s) %s, %d tensors x %d starts %s" % (
                case.replace("x", ","), prec, g["tensors"], g["starts"], "to convergence" if
                args.sshopm_mode == "converged" else "x %d iterations" % g["iters"])
            rows.append(problem_row("sshopm", name, prec, a["median_ms"], d[0]["median_ms"] if d else None, times,
                                    refused, a.get("params", ""), defaults_plan=d[0].get("params", "") if d else ""))
    return rows


# ---- LiFE -------------------------------------------------------------------------------------------------------
def life_base(r, g, args):
    src = ["--data", g["data"]] if "data" in g else ["--size", g["size"], "--seed", str(g["seed"])]
    return ["clpk-bench-life"] + r.device_args() + src + [
        "--precision", g["precision"], "--runs", str(max(3, args.repeats // 3)), "--iters", str(args.life_iters),
        "--atomics-iters", "0", "--copy-mb", "64" if not args.quick else "8", "--check"]


def life_product_ms(recs, impl_match):
    """DSC (dense w) + WC medians per precision of the records whose impl matches: what an SBB-NNLS iteration
    spends on the device (the tuner's measure)."""
    out = {}
    for prec in ("f32", "f64"):
        d = [x for x in recs if x["case"] == "dsc-dense" and x["precision"] == prec and impl_match(x["impl"])]
        w = [x for x in recs if x["case"] == "wc" and x["precision"] == prec and impl_match(x["impl"])]
        f = [x for x in recs if x["case"] == "fit" and x["precision"] == prec and impl_match(x["impl"])]
        if d and w:
            out[prec] = (d[0]["median_ms"] + w[0]["median_ms"], f[0]["per_iter_ms"] if f else None,
                         d[0].get("n_coeffs"))
    return out


def life_orders(r, g, args, lists, name, mode="defaults"):
    """Plans of the automatic strategy with each parameter list (clpk-bench-life --orders), every product checked:
    {list index: records}. The list " " names no parameter: with the profile, the automatic plan itself."""
    base = life_base(r, g, args)
    md = os.path.join(r.raw, "%03d-%s.md" % (r.count + 1, name))
    rc, out, tag = r.run(name, base + ["--orders", ";".join(lists), "--json", tag_json(r, name), "--md", md], mode)
    if "WRONG" in out:
        raise Failure("life %s: wrong result (see %s.log)" % (name, os.path.basename(tag)))
    if rc:
        return None, out
    groups, cur = [], None
    for x in load_json_array(r.last_json):
        if x["case"] == "plan":
            cur = []
            groups.append(cur)
        elif cur is not None:
            cur.append(x)
    # one plan per list and precision, the lists in order within each precision
    per_list = {i: [] for i in range(len(lists))}
    for k, grp in enumerate(groups):
        per_list[k % len(lists)] += grp
    return per_list, out


def run_life(r, profile, args):
    rows = []
    dipy = life_dipy_dataset(r, args)
    for g in life_groups(args.scale, args.quick, [d for d in (dipy, args.life_data) if d]):
        if "shuffle" in g:
            life_shuffled_dataset(r, g, args)
        what = os.path.basename(g["data"]) if "data" in g else "%s seed %d" % (g["size"], g["seed"])
        per_list, out = life_orders(r, g, args, [" "], "life-auto", "auto")
        if per_list is None:
            raise Failure("life auto %s failed: %s" % (what, out.strip()[-400:]))
        auto = life_product_ms(per_list[0], lambda i: True)
        precs = sorted(auto)
        auto_plan = dict(zip(precs, re.findall(r"^plan \([0-9.]+ s\): (.*)$", out, re.M)))
        sets = []
        for p in precs:
            for label, kv in candidate_sets(profile, "life", p, args.max_sets):
                sets.append(("%s-%s" % (p, label), p, ",".join("%s=%s" % x for x in kv)))
        # the first: the built-in defaults as they are (no parameter: the precision's own defaults, e.g. Morton voxel
        # order in f64 on GPUs, which an explicit voxel_order=index would override)
        lists = [" "] + [s[2] for s in sets]
        per_list, out = life_orders(r, g, args, lists, "life-defaults")
        # plans print per precision, the lists in order within each: the defaults' plan opens each precision's lists
        plans = re.findall(r"^plan \([0-9.]+ s\): (.*)$", out, re.M) if per_list is not None else []
        defaults_plan = {p: plans[k * len(lists)] for k, p in enumerate(precs) if k * len(lists) < len(plans)}
        refused = {}
        if per_list is None:  # a set refused for this dataset: one at a time
            per_list = {}
            for i, lst in enumerate(lists):
                one, out1 = life_orders(r, g, args, [lst], "life-set%d" % i)
                if one is None:
                    if i == 0:
                        raise Failure("life defaults %s failed: %s" % (what, out1.strip()[-400:]))
                    refused[i] = reason(out1)
                else:
                    per_list[i] = one[0]
        for p in precs:
            a_ms, a_fit, nc = auto[p]
            d = life_product_ms(per_list.get(0, []), lambda i: True).get(p)
            times, ref = {}, {}
            for i, (label, sp, _) in enumerate(sets, start=1):
                if sp != p:
                    continue
                if i in refused:
                    ref[label] = refused[i]
                    continue
                m = life_product_ms(per_list.get(i, []), lambda i: True).get(p)
                if m:
                    times[label] = m[0]
            size = "?" if not nc else "%.1f M" % (nc / 1e6) if nc >= 1e6 else "%.0f k" % (nc / 1e3) if nc >= 1e4 else nc
            name = "%s %s (%s coefficients)" % (what, p, size)
            note = "fit ms/iteration: auto %s, defaults %s" % (
                "%.3f" % a_fit if a_fit else "-", "%.3f" % d[1] if d and d[1] else "-")
            rows.append(problem_row("life", name, p, a_ms, d[0] if d else None, times, ref, auto_plan.get(p, ""),
                                    notes=note, defaults_plan=defaults_plan.get(p, "")))
    return rows


# ---- estimate, report --------------------------------------------------------------------------------------------
def estimate(profile, args):
    """Rough seconds on an H100-class GPU with a warm program cache (the unit costs in the comments are guesses from
    the CLIs' earlier H100 runs: plan building on the host dominates)."""
    total, lines = 0.0, []
    for fam in args.families:
        if fam == "spmv":  # per matrix (~20 M nonzeros): generation and reference twice (~8 s), ~1 s a plan
            gs = spmv_groups(args.scale, args.quick, args.root, args.shared)
            n = sum(len(g["specs"]) for g in gs)
            unit = 0.05 if args.quick else 1.0
            t = sum(len(g["specs"]) * ((2 + len(candidate_sets(profile, fam, g["precision"], args.max_sets))) * unit
                                       + 8 * unit) for g in gs)
        elif fam == "xcorr":  # ~1 s a CLI start, ~0.3 s a timed variant
            gs = xcorr_groups(args.scale, args.quick, args.xcorr_set)
            n = sum(len(g["sizes"].split(",")) * (1 if g["patterns"] == "one-to-one" else 4) for g in gs)
            t = 1 + sum(2 + len(g["sizes"].split(",")) * (1 if g["patterns"] == "one-to-one" else 4) *
                        (2 + len(candidate_sets(profile, fam, g["precision"], args.max_sets))) * 0.3 for g in gs)
            t += 0.3 * n * args.confirm * 1.5  # about a third of the problems re-timed, a CLI start each time
        elif fam == "sshopm":  # ~2 s a CLI start and ~0.5 s a shape (kernel build, 6 launches)
            gs = sshopm_groups(args.scale, args.quick)
            n = sum(len(g["shapes"].split(",")) for g in gs)
            t = sum((2 + len(candidate_sets(profile, fam, g["precision"], args.max_sets))) *
                    (2 + 0.5 * len(g["shapes"].split(","))) for g in gs)
        else:  # DS1: synth 12 s and references ~10 s per run, ~6 s a plan; medium: a tenth
            gs = life_groups(args.scale, args.quick, [d for d in (args.life_dipy, args.life_data) if d])
            n = sum(1 if g["precision"] != "both" else 2 for g in gs)
            k = sum(len(candidate_sets(profile, fam, p, args.max_sets)) for p in ("f32", "f64"))
            unit = {"ds1": 1.0, "medium": 0.1}
            t = sum(unit.get(g.get("size"), 0.02) * (44 + 6 * (2 + 2 * (1 + k)) + 20)
                    for g in gs)
        lines.append("%s: %d problems, ~%.0f s" % (fam, n, t))
        total += t
    return total, lines


def merge_rounds(rounds):
    """Rows of several rounds of one family into one row per problem and precision: the fastest median of each
    configuration (auto, defaults, each set), which takes a noisy machine's slow outliers out of every ratio alike."""
    merged = {}
    for rows in rounds:
        for x in rows:
            key = (x["family"], x["problem"], x["precision"])
            m = merged.setdefault(key, {"row": x, "auto": [], "defaults": [], "sets": {}, "refused": {}})
            m["auto"].append(x["auto_ms"])
            m["defaults"].append(x["defaults_ms"])
            for k, v in x["sets_ms"].items():
                m["sets"].setdefault(k, []).append(v)
            m["refused"].update(x["refused"])
    out = []
    for m in merged.values():
        x = m["row"]
        fastest = lambda vs: min((v for v in vs if v), default=None)  # noqa: E731
        row = problem_row(x["family"], x["problem"], x["precision"], fastest(m["auto"]), fastest(m["defaults"]),
                          {k: fastest(v) for k, v in m["sets"].items()}, m["refused"], x["auto_plan"], x["notes"],
                          x.get("defaults_plan", ""))
        row["rounds"] = len(m["auto"])
        for k in ("confirm_first", "confirm_defaults_first"):
            if x.get(k):
                row[k] = x[k]
        out.append(row)
    return out


def fmt(v, spec=".4f"):
    return "-" if v is None else format(v, spec)


def summarise(rows, has_profile=True):
    """Per family and overall. Without a profile auto is the defaults and no set is timed: both targets are then
    vacuous and reported as not applicable (None) rather than passed."""
    out = {}
    for fam in list(FAMILIES) + ["all"]:
        rs = [x for x in rows if fam == "all" or x["family"] == fam]
        if not rs:
            continue
        measured = [x for x in rs if x["auto_ms"]]
        n = len(measured)
        nd = sum(1 for x in measured if x["meets_defaults"])
        nb = sum(1 for x in measured if x["meets_best"])
        geo = (math.exp(sum(math.log(x["vs_defaults"]) for x in measured if x["vs_defaults"]) /
                        max(1, sum(1 for x in measured if x["vs_defaults"]))) if measured else None)
        # two timings of one plan (auto and the defaults resolved alike): how far apart the same plan measures
        same = [x["vs_defaults"] for x in measured if x.get("same_plan") and x["vs_defaults"]]
        out[fam] = {"problems": len(rs), "measured": n, "meets_defaults": nd, "meets_best": nb,
                    "same_plan_count": len(same), "same_plan_min": min(same, default=None),
                    "same_plan_max": max(same, default=None),
                    "defaults_pass": (n > 0 and nd == n) if has_profile else None,
                    "best_pass": (n > 0 and nb >= math.ceil(TARGET_BEST_SHARE * n - 1e-9)) if has_profile else None,
                    "geomean_vs_defaults": geo,
                    "min_vs_defaults": min((x["vs_defaults"] for x in measured if x["vs_defaults"]), default=None),
                    "min_vs_best": min((x["vs_best"] for x in measured if x["vs_best"]), default=None)}
    return out


def verdict(passed):
    return "n/a (no profile)" if passed is None else "PASS" if passed else "MISS"


def write_report(args, rows, summary, meta, failures):
    with open(os.path.join(args.out, "heldout.jsonl"), "w") as f:
        f.write(json.dumps(dict(meta, record="meta")) + "\n")
        for x in rows:
            f.write(json.dumps(dict(x, record="problem")) + "\n")
        for fam, s in summary.items():
            f.write(json.dumps(dict(s, record="summary", family=fam)) + "\n")
    md = ["# Held-out check of the tuned profile", "",
          "Device: %s. Profile: %s. Scale %g%s, %d round(s). Started %s, %.0f s." % (
              meta["device"], meta["profile"] or "none (built-in defaults)", args.scale, " (quick)" if args.quick else "",
              args.rounds, meta["started"], meta["seconds"]),
          "",
          "Targets (issue #23): auto vs defaults = defaults_ms / auto_ms >= %.2f on every problem; auto vs best = "
          "best_ms / auto_ms >= %.2f on >= %d %% of them (best: the fastest of the profile's parameter sets of the "
          "family and precision, and the defaults, each as an explicit plan)." % (
              TARGET_DEFAULTS, TARGET_BEST, round(100 * TARGET_BEST_SHARE)), ""]
    if failures:
        md += ["**FAILED**: " + f for f in failures] + [""]
    md += ["| family | problems | auto >= %.2f x defaults | auto >= %.2f x best | geomean defaults/auto "
           "| min defaults/auto | min best/auto | same plan timed twice: n, range |" % (TARGET_DEFAULTS, TARGET_BEST),
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for fam, s in summary.items():
        md.append("| %s | %d (%d measured) | %d / %d **%s** | %d / %d **%s** | %s | %s | %s | %d, %s-%s |" % (
            fam, s["problems"], s["measured"], s["meets_defaults"], s["measured"],
            verdict(s["defaults_pass"]), s["meets_best"], s["measured"], verdict(s["best_pass"]),
            fmt(s["geomean_vs_defaults"], ".3f"),
            fmt(s["min_vs_defaults"], ".3f"), fmt(s["min_vs_best"], ".3f"), s["same_plan_count"],
            fmt(s["same_plan_min"], ".3f"), fmt(s["same_plan_max"], ".3f")))
    md += ["", "The last column is the timing noise at these sizes: where auto and the defaults resolve to the same "
           "plan, their ratio compares two measurements of one plan; a miss inside that range is not distinguishable "
           "from noise. xcorr misses are re-timed before they count (`--confirm`, 're-timed' in the tables): of the "
           "best target, auto and the best set alternating; of the defaults target where the plans differ, auto and "
           "the defaults' plan (explicit) alternating in one run."]
    for fam in args.families:
        rs = [x for x in rows if x["family"] == fam]
        md += ["", "## %s" % fam, "",
               "| problem | auto ms | defaults ms | best ms (set) | defaults/auto | best/auto | sets timed / refused |",
               "| --- | --- | --- | --- | --- | --- | --- |"]
        for x in rs:
            md.append("| %s | %s | %s | %s (%s) | %s %s | %s %s | %d / %d |" % (
                x["problem"], fmt(x["auto_ms"]), fmt(x["defaults_ms"]), fmt(x["best_ms"]), x["best_set"] or "-",
                fmt(x["vs_defaults"], ".3f"), ("(same plan)" if x.get("same_plan") else "" if x["meets_defaults"]
                                               else "**MISS**") + (
                    " (re-timed %dx; first %s)" % (x["confirm_defaults_first"]["rounds"],
                                                   fmt(x["confirm_defaults_first"]["vs_defaults"], ".3f"))
                    if x.get("confirm_defaults_first") else ""),
                fmt(x["vs_best"], ".3f"), ("" if x["meets_best"] else "**MISS**") + (
                    " (re-timed %dx; first %s)" % (x["confirm_first"]["rounds"], fmt(x["confirm_first"]["vs_best"],
                                                                                     ".3f"))
                    if x.get("confirm_first") else ""), len(x["sets_ms"]), len(x["refused"])))
        sets = meta["sets"].get(fam, {})
        if sets:
            md += ["", "Parameter sets of the profile (%s):" % fam, ""]
            md += ["- `%s`: %s" % (k, v) for k, v in sets.items()]
        refused = ["- %s, set %s: %s" % (x["problem"], k, v) for x in rs for k, v in x["refused"].items()]
        if refused:
            md += ["", "Sets refused (not counted in best):", ""] + refused
        notes = [x for x in rs if x["notes"]]
        if notes:
            md += [""] + ["- %s: %s" % (x["problem"], x["notes"]) for x in notes]
    md += ["", "Commands: commands.log; raw outputs: raw/."]
    with open(os.path.join(args.out, "heldout.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def resolve_profile(r, args):
    """The profile file the auto runs use: --profile, $CLPK_PROFILE, else what clpk-info says the device resolves to."""
    if args.profile:
        return os.path.abspath(args.profile), "given"
    if os.environ.get("CLPK_PROFILE"):
        return os.environ["CLPK_PROFILE"], "CLPK_PROFILE"
    rc, out, _ = r.run("info", ["clpk-info"] + r.device_args(), "auto")
    if rc:
        raise Failure("clpk-info failed: %s" % out.strip()[-300:])
    dev = re.search(r"chosen device: (.*)", out)
    m = re.search(r"^profile: (.*?)(/\S+\.json)\s*$", out, re.M)
    r.device_name = dev.group(1).strip() if dev else "?"
    return (m.group(2), m.group(1).strip()) if m else (None, "built-in defaults")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    default_bin = os.environ.get("CLPK_BIN") or next(
        (p for p in (os.path.join(root, ".gpu/build/bin"), os.path.join(root, "build/bin")) if os.path.isdir(p)),
        os.path.join(root, "build/bin"))
    ap.add_argument("--bin", default=default_bin, help="folder of the clpk CLIs (default $CLPK_BIN, .gpu/build/bin, "
                                                       "build/bin)")
    ap.add_argument("--device", default=os.environ.get("CLPK_DEVICE"), help="device selector (default $CLPK_DEVICE)")
    ap.add_argument("--profile", help="profile FILE (default: the one the device resolves to)")
    ap.add_argument("--scale", type=float, default=1.0, help="problem sizes: 1 = H100 scale, small for CPUs")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--quick", action="store_true", help="tiny problems, 1-2 per family, <= 3 sets (CI)")
    ap.add_argument("--max-sets", type=int, default=None, help="at most N profile parameter sets per family and "
                                                               "precision (default all; 3 with --quick)")
    ap.add_argument("--repeats", type=int, default=None, help="timed runs per plan (default 30; 5 with --quick)")
    ap.add_argument("--life-iters", type=int, default=None, help="SBB-NNLS iterations of the informative fit timing")
    shared = os.environ.get("CLPK_SHARED_DATA_DIR") or os.path.join(os.path.dirname(root), "shared/data")
    dipy = next((d for d in (os.path.join(shared, "life"), os.path.join(root, ".gpu/data/life")) if os.path.isdir(d)),
                None)
    ap.add_argument("--life-dipy", default=dipy, help="folder of dipy's small_25 files, encoded and checked as a "
                                                      "LiFE problem (default $CLPK_SHARED_DATA_DIR/life, "
                                                      "../shared/data/life or .gpu/data/life when there)")
    ap.add_argument("--life-data", help="also a LiFE dataset directory")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench-out/heldout"))
    ap.add_argument("--xcorr-set", choices=sorted(XCORR_SETS), default="s26",
                    help="xcorr's held-out problems: s26 (default; no rule has been fitted to it), or s10-s16 (each "
                    "the data of a later rule change: see XCORR_SETS)")
    ap.add_argument("--confirm", type=int, default=3, help="xcorr: re-time each miss N times "
                    "(auto and the best set, or the defaults' plan, alternating; 0: off)")
    ap.add_argument("--sshopm-mode", choices=("converged", "fixed"), default="converged",
                    help="sshopm: run to convergence with the default options (default: what users run) or a fixed "
                    "number of iterations at a fixed shift (the tuner's measure)")
    ap.add_argument("--rounds", type=int, default=1, help="measure everything N times and keep each "
                                                          "configuration's fastest median (a noisy machine)")
    ap.add_argument("--estimate", action="store_true", help="print the estimate and exit")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    args.root, args.shared = root, shared
    args.families = [f for f in args.families.split(",") if f]
    bad = [f for f in args.families if f not in FAMILIES]
    if bad or not (args.scale > 0) or args.rounds < 1 or args.confirm < 0:
        ap.error("unknown family %s (known: %s)" % (",".join(bad), ",".join(FAMILIES)) if bad else
                 "--scale > 0, --rounds >= 1, --confirm >= 0")
    if args.max_sets is None:
        args.max_sets = 3 if args.quick else 0
    if args.repeats is None:
        args.repeats = 5 if args.quick else 30
    if args.life_iters is None:
        args.life_iters = 5 if args.quick else 50
    args.out = os.path.abspath(args.out)
    args.bin = os.path.abspath(args.bin)
    if args.life_data:
        args.life_data = os.path.abspath(args.life_data)
    if args.life_dipy:
        args.life_dipy = os.path.abspath(args.life_dipy)
    if not os.path.exists(os.path.join(args.bin, "clpk-info")):
        ap.error("no clpk-info in %s (--bin or CLPK_BIN)" % args.bin)
    if os.path.isdir(os.path.join(args.out, "raw")):
        shutil.rmtree(os.path.join(args.out, "raw"))
    os.makedirs(args.out, exist_ok=True)
    args.profile_file = None
    r = Runner(args)
    r.device_name = "?"
    failures = []
    t0 = time.time()
    try:
        path, level = resolve_profile(r, args)
    except Failure as e:
        print("heldout: %s" % e, file=sys.stderr)
        return 1
    args.profile_file = path
    profile = None
    if path:
        with open(path) as f:
            profile = json.load(f)
        if r.device_name == "?":
            r.device_name = profile.get("device", {}).get("name", "?")
    total, lines = estimate(profile, args)
    total *= args.rounds
    print("heldout: profile %s (%s); bin %s; out %s" % (path or "none", level, args.bin, args.out))
    print("heldout: estimate about %.0f s on an H100-class GPU (%s)" % (total, "; ".join(lines)), flush=True)
    if args.estimate:
        return 0
    rows = []
    runners = {"spmv": run_spmv, "xcorr": run_xcorr, "sshopm": run_sshopm, "life": run_life}
    seconds = {}
    sets = {}
    for fam in args.families:
        for p in ("f32", "f64"):
            for label, kv in candidate_sets(profile, fam, p, args.max_sets):
                sets.setdefault(fam, {})["%s %s" % (p, label)] = ",".join("%s=%s" % x for x in kv)
    meta = {"device": r.device_name, "profile": path, "profile_level": level, "scale": args.scale, "rounds": args.rounds,
            "quick": args.quick, "families": args.families, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                                      time.gmtime(t0)),
            "seconds": 0, "family_seconds": seconds, "failures": failures, "sets": sets,
            "targets": {"defaults": TARGET_DEFAULTS, "best": TARGET_BEST, "best_share": TARGET_BEST_SHARE}}
    for fam in args.families:
        t1 = time.time()
        if not os.path.exists(os.path.join(args.bin, "clpk-bench-" + fam)):  # a build without the family
            print("heldout: %s skipped: no clpk-bench-%s in %s" % (fam, fam, args.bin), flush=True)
            meta.setdefault("skipped", []).append(fam)
            continue
        print("heldout: %s ..." % fam, flush=True)
        try:
            rows += merge_rounds([runners[fam](r, profile, args) for _ in range(args.rounds)])
        except (Failure, KeyError, ValueError, IndexError, TypeError, OSError) as e:
            failures.append("%s: %s%s" % (fam, "" if isinstance(e, Failure) else type(e).__name__ + ": ", e))
            print("heldout: FAILED %s: %s" % (fam, e), file=sys.stderr, flush=True)
        seconds[fam] = time.time() - t1
        print("heldout: %s done in %.0f s" % (fam, seconds[fam]), flush=True)
        meta["seconds"] = time.time() - t0  # the report so far: a run cut by a time limit keeps what it measured
        summary = summarise(rows, bool(path))
        write_report(args, rows, summary, meta, failures)
    meta["seconds"] = time.time() - t0
    summary = summarise(rows, bool(path))
    write_report(args, rows, summary, meta, failures)
    for fam, s in summary.items():
        print("heldout: %-6s %2d problems: auto >= %.2f x defaults %d/%d %s; auto >= %.2f x best %d/%d %s" % (
            fam, s["measured"], TARGET_DEFAULTS, s["meets_defaults"], s["measured"], verdict(s["defaults_pass"]),
            TARGET_BEST, s["meets_best"], s["measured"], verdict(s["best_pass"])))
    print("heldout: wrote %s and %s (%.0f s)" % (os.path.join(args.out, "heldout.md"),
                                                os.path.join(args.out, "heldout.jsonl"), time.time() - t0))
    if failures:
        print("heldout: %d failure(s): %s" % (len(failures), "; ".join(failures)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
