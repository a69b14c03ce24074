#!/usr/bin/env bash
# Several builds of clpk-bench-spmv on the same plans, in mirrored order per case (A B C, then C B A) so drift of
# the machine cancels: the measurement of a kernel change that keeps the parameters (docs/perf-spmv.md row 8:
# carry wait). Each case is one process per round with every variant of both precisions; every plan is checked
# against the double CPU reference.
#
#   BUILDS="old:DIR new:DIR ..." bench/spmv-ab.sh OUT_DIR     (. .gpu/enter first on the H100; ~3 min per build)
# DIR holds bin/clpk-bench-spmv and the libclpk it was built with (put first on LD_LIBRARY_PATH per build). Writes
# OUT_DIR/<case>-<round>-<name>.json|txt and OUT_DIR/ab.md (median of each build's two rounds, speed-up over the
# first build, % of copy). SCALE=0.01 for a local smoke run.
set -u
[ $# -eq 1 ] || { echo "usage: BUILDS=\"name:dir ...\" bench/spmv-ab.sh OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1 scale=${SCALE:-1}
read -r -a builds <<<"${BUILDS:?set BUILDS}"
order=()
for b in "${builds[@]}"; do
    [ -x "${b#*:}/bin/clpk-bench-spmv" ] || { echo "spmv-ab.sh: ${b#*:}/bin/clpk-bench-spmv not found" >&2; exit 2; }
    order=("$b" "${order[@]}")
done
order=("${builds[@]}" "${order[@]}") # mirrored: A B C C B A
mkdir -p "$out"
status=0
c="format=bccoo,sync=adjacent,skip_scan=1,transpose=offline,slices=1,vload=1,interleave=1,prefetch=1"
s2="strategy=2,cache=2" s1="strategy=1,cache=1"

# case NAME VARIANT... : two processes per build and case, in mirrored order
case_ab() {
    local name=$1
    shift
    local args=()
    for v in "$@"; do args+=(--variant "$v"); done
    local round=0
    for b in "${order[@]}"; do
        round=$((round + 1))
        local which=${b%%:*} dir=${b#*:}
        LD_LIBRARY_PATH=$dir:${LD_LIBRARY_PATH:-} "$dir/bin/clpk-bench-spmv" --cases "$name" --scale "$scale" \
            --impls none --precision f32,f64 --repeats 100 --json "$out/$name-$round-$which.json" "${args[@]}" \
            >"$out/$name-$round-$which.txt" 2>&1 || status=1
        grep -v '^#' "$out/$name-$round-$which.txt" | sed "s/^/[$round $which] /" | cut -c1-100
    done
}

case_ab dense \
    "f64:3x4-t8-w256=$c,block=3x4,flag_bits=32,col=short,tile=8,wg=256,$s2" \
    "f64:3x4-t10-w128=$c,block=3x4,flag_bits=32,col=short,tile=10,wg=128,$s2" \
    "f64:2x4-t16-w128=$c,block=2x4,flag_bits=32,col=short,tile=16,wg=128,$s2" \
    "f64:4x4-t16-w128=$c,block=4x4,flag_bits=32,col=short,tile=16,wg=128,$s2" \
    "f64:4x4-t8-w128=$c,block=4x4,flag_bits=32,col=short,tile=8,wg=128,$s2" \
    "f32:1x4-t16-w256=$c,block=1x4,flag_bits=32,col=short,tile=16,wg=256,$s2" \
    "f32:2x4-t12-w128=$c,block=2x4,flag_bits=32,col=short,tile=12,wg=128,$s2" \
    "f32:2x4-t16-w256=$c,block=2x4,flag_bits=32,col=short,tile=16,wg=256,$s2" \
    "f32:4x4-t8-w128=$c,block=4x4,flag_bits=32,col=short,tile=8,wg=128,$s2"
case_ab fem3d \
    "f32:3x2-t32=$c,block=3x2,flag_bits=32,col=int,tile=32,wg=256,$s2" \
    "f32:3x2-t16-s1=$c,block=3x2,flag_bits=32,col=int,tile=16,wg=256,$s1" \
    "f64:3x2-t16-s1=$c,block=3x2,flag_bits=32,col=int,tile=16,wg=256,$s1" \
    "f64:3x4-t8=$c,block=3x4,flag_bits=32,col=int,tile=8,wg=256,$s2"
case_ab protein \
    "f32:1x4-t32=$c,block=1x4,flag_bits=32,col=short,tile=32,wg=256,$s2" \
    "f64:1x4-t16-s1=$c,block=1x4,flag_bits=32,col=short,tile=16,wg=256,$s1"
case_ab circuit \
    "f32:1x1-t16=$c,block=1x1,flag_bits=32,col=int,tile=16,wg=256,$s2,vload=0" \
    "f64:1x1-t16=$c,block=1x1,flag_bits=16,col=int,tile=16,wg=256,strategy=2,cache=4,vload=0"
case_ab webgraph \
    "f32:2x1-t8=$c,block=2x1,flag_bits=32,col=int,tile=8,wg=256,$s2" \
    "f64:1x1-t16=$c,block=1x1,flag_bits=16,col=int,tile=16,wg=256,strategy=2,cache=4,vload=0"
case_ab epidem "f32:2x1-t16=$c,block=2x1,flag_bits=32,col=int,tile=16,wg=256,$s2"
case_ab shortrow "f32:1x1-t8=$c,block=1x1,flag_bits=32,col=int,tile=8,wg=256,$s2,vload=0"
case_ab qchem \
    "f32:1x2-t16-s1=$c,block=1x2,flag_bits=32,col=int,tile=16,wg=256,$s1" \
    "f64:1x1-t16=$c,block=1x1,flag_bits=32,col=int,tile=16,wg=256,$s2,vload=0"

python3 - "$out" "${builds[@]%%:*}" <<'EOF' || status=1
import glob, json, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
runs = {}
for f in sorted(glob.glob(os.path.join(out, "*-*-*.json"))):
    which = os.path.basename(f).rsplit(".", 1)[0].rsplit("-", 1)[1]
    for r in json.load(open(f)):
        runs.setdefault((r["case"], r["precision"], r["impl"]), {}).setdefault(which, []).append(r)
head = "| case | prec | plan | " + " | ".join("%s us (rounds)" % n for n in names)
head += " | " + " | ".join("%s/%s" % (n, names[0]) for n in names[1:]) + " | " + " | ".join("%s %% copy" % n for n in names) + " |"
lines = [head, "|---|---|---|" + "---:|" * (3 * len(names) - 1)]
wrong = 0
for (case, prec, impl), v in sorted(runs.items()):
    if any(n not in v for n in names):
        continue
    wrong += sum(not r["correct"] for n in names for r in v[n])
    t = {n: statistics.median(r["median_ms"] for r in v[n]) * 1e3 for n in names}
    pc = {n: statistics.median(r["pct_copy_bw"] for r in v[n]) for n in names}
    cells = ["%.1f (%s)" % (t[n], " ".join("%.1f" % (r["median_ms"] * 1e3) for r in v[n])) for n in names]
    cells += ["%.3f" % (t[names[0]] / t[n]) for n in names[1:]] + ["%.1f" % pc[n] for n in names]
    lines.append("| %s | %s | %s | %s |" % (case, prec, impl, " | ".join(cells)))
lines += ["", "speed-up = time of %s / time of the build; records wrong: %d" % (names[0], wrong)]
open(os.path.join(out, "ab.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if wrong else 0)
EOF
exit $status
