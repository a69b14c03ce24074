#!/usr/bin/env bash
# End-to-end checks of clpk-sshopm: the dMRI example (synthetic field saved as .npy, fit, fibres found), .npy input
# of unique and dense tensors, the JSON and .npy outputs, the benchmark line, and clear failures on bad input.
# Usage: cli_sshopm.sh BIN_DIR
set -uo pipefail
BIN=${1:?usage: cli_sshopm.sh BIN_DIR}
CLI=$BIN/clpk-sshopm
source "$(dirname "$0")/support/cli_check.sh"

check "--help" "$CLI" --help >/dev/null

# dMRI example: field saved, fit, report
"$CLI" dmri-synth --voxels 60 --max-fibres 2 --min-angle 45 --snr 50 --seed 4 --save "$TMP/field" \
    --out "$TMP/dmri.json" >"$TMP/dmri.txt" 2>&1
check "dmri-synth runs" test $? -eq 0
cat "$TMP/dmri.txt"
for f in tensors dirs nfibres; do check "field $f saved" test -s "$TMP/field_$f.npy"; done
refined=$(grep '^refined' "$TMP/dmri.txt" | sed -E 's/.*\(([0-9.]+)%\).*/\1/')
check "refined fit finds >= 95% of fibres (got ${refined:-none})" awk -v f="${refined:-0}" 'BEGIN { exit !(f >= 95) }'
check "dmri JSON has 60 tensors" test "$(grep -c '"eigenpairs"' "$TMP/dmri.json")" -eq 60

# the saved field as input: (T, U) unique entries
"$CLI" --tensors "$TMP/field_tensors.npy" --order 4 --dim 3 --starts 32 --out "$TMP/r.json" --out-npy "$TMP/pairs" \
    --out-starts "$TMP/raw" --quiet >"$TMP/r.txt" 2>&1
check "--tensors runs" test $? -eq 0
check "JSON lists 60 tensors" test "$(grep -c '"eigenpairs"' "$TMP/r.json")" -eq 60
check "every pair typed" grep -q '"type": "max"' "$TMP/r.json"
for f in lambda x info; do check "raw $f.npy written" test -s "$TMP/raw_$f.npy"; done
for f in lambda x type hits; do check "pairs $f.npy written" test -s "$TMP/pairs_$f.npy"; done
check "summary line" grep -q "60 tensors:" "$TMP/r.txt"
# the same on the device: same summary line (pairs and start counts)
"$CLI" --tensors "$TMP/field_tensors.npy" --order 4 --dim 3 --starts 32 --post device --out "$TMP/rd.json" \
    --out-npy "$TMP/dpairs" --quiet >"$TMP/rd.txt" 2>&1
check "--post device runs" test $? -eq 0
check "device and host post-processing agree" test "$(grep '60 tensors:' "$TMP/r.txt")" = "$(grep '60 tensors:' "$TMP/rd.txt")"
check "device pairs .npy written" test -s "$TMP/dpairs_lambda.npy"

# benchmark line
"$CLI" --random 16 --order 4 --dim 3 --starts 32 --bench 2 --quiet >"$TMP/b.txt" 2>&1
check "bench runs" test $? -eq 0
check "bench reports start-iterations/s" grep -q "start-iterations/s" "$TMP/b.txt"

# Kofidis-Regalia ex. 1 as .npy, unique and dense (python3 standard library only writes the files)
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP" <<'EOF'
import itertools, struct, sys
tmp = sys.argv[1]
a = [0.2883, -0.0031, 0.1973, -0.2485, -0.2939, 0.3847, 0.2972, 0.1862, 0.0919, -0.3619, 0.1241, -0.3420, 0.2127,
     0.2727, -0.3054]
def npy(path, shape, values, fmt="<f8", code="d"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (fmt, ", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), code), *values))
npy(tmp + "/ex1.npy", (1, 15), a)
npy(tmp + "/ex1_f32.npy", (15,), a, "<f4", "f")
classes = list(itertools.combinations_with_replacement(range(3), 4))
dense = [a[classes.index(tuple(sorted(i)))] for i in itertools.product(range(3), repeat=4)]
npy(tmp + "/ex1_dense.npy", (1, 3, 3, 3, 3), dense)
dense[1] += 0.1
npy(tmp + "/asym_dense.npy", (1, 3, 3, 3, 3), dense)
npy(tmp + "/bad_shape.npy", (2, 14), [0.5] * 28)
npy(tmp + "/nan.npy", (1, 15), [float("nan")] * 15)
EOF
    # close_to FILE "v1 v2 ..." TOL: the first tensor's eigenvalues, in order, each within TOL
    close_to() { python3 -c "
import json, sys
got = [p['lambda'] for p in json.load(open(sys.argv[1]))['tensors'][0]['eigenpairs']]
want = [float(v) for v in sys.argv[2].split()]
ok = len(got) == len(want) and all(abs(g - w) <= float(sys.argv[3]) for g, w in zip(got, want))
print('' if ok else 'got %s, want %s' % (got, want), file=sys.stderr)
sys.exit(0 if ok else 1)" "$@"; }
    for input in ex1 ex1_dense ex1_f32; do
        "$CLI" --tensors "$TMP/$input.npy" --order 4 --dim 3 --shift 2 --precision f64 --tol 1e-14 --max-iter 20000 \
            --out "$TMP/$input.json" >/dev/null 2>&1
        check "$input runs" test $? -eq 0
        tol=1e-9
        [ "$input" = ex1_f32 ] && tol=1e-6 # an f32 file is the rounded tensor
        check "$input: the three local maxima of ex. 1" \
            close_to "$TMP/$input.json" "0.889322010679401 0.816881344983623 0.363306048438438" $tol
    done
    # f64 entries, an f32 run on the device, then polished in double on those entries (an f32 file would be another,
    # rounded, tensor)
    "$CLI" --tensors "$TMP/ex1.npy" --order 4 --dim 3 --shift 2 --polish 4 --post device --out "$TMP/pol.json" \
        >/dev/null 2>&1
    check "f32 on the device + --polish: maxima to 1e-12" \
        close_to "$TMP/pol.json" "0.889322010679401 0.816881344983623 0.363306048438438" 1e-12
    "$CLI" --tensors "$TMP/ex1.npy" --order 4 --dim 3 --shift -2 --out "$TMP/min.json" >/dev/null 2>&1
    check "negative shift finds the three minima (f32, tol 1e-6)" \
        close_to "$TMP/min.json" "-0.045092181060227 -0.562917132699995 -1.095351698946357" 1e-5
    expect_fail 1 "not symmetric" --tensors "$TMP/asym_dense.npy" --order 4 --dim 3 --out "$TMP/x.json"
    expect_fail 1 "shape does not fit" --tensors "$TMP/bad_shape.npy" --order 4 --dim 3 --out "$TMP/x.json"
    expect_fail 1 "not finite" --tensors "$TMP/nan.npy" --order 4 --dim 3 --out "$TMP/x.json"
    expect_fail 1 "shape does not fit" --tensors "$TMP/ex1.npy" --order 3 --dim 3 --out "$TMP/x.json"
else
    echo "SKIP: python3 not found; .npy inputs of ex. 1 not written"
fi

# bad command lines and inputs
# Defaults: the adaptive shift. Capped starts (one iteration) are polished by Newton steps or reported unconverged:
# counted in the summary and the JSON, with a warning exactly when some remain unconverged.
"$CLI" --random 20 --order 4 --dim 3 --quiet --out "$TMP/def.json" >"$TMP/def.txt" 2>&1
check "default run" test $? -eq 0
check "default shift is adaptive" grep -q "shift adaptive" "$TMP/def.txt"
"$CLI" --random 20 --order 4 --dim 3 --max-iter 1 --quiet --out "$TMP/cap.json" >"$TMP/cap.txt" 2>&1
check "capped run" test $? -eq 0
cat "$TMP/cap.txt"
summary=$(grep -E '^20 tensors: .* capped \([0-9]+ polished, [0-9]+ unconverged\)' "$TMP/cap.txt")
polished=$(echo "$summary" | sed -E 's/.*capped \(([0-9]+) polished.*/\1/')
unconverged=$(echo "$summary" | sed -E 's/.*polished, ([0-9]+) unconverged.*/\1/')
check "capped starts polished (summary: ${summary:-none})" test "${polished:-0}" -gt 0
if [ "${unconverged:-0}" -gt 0 ]; then
    check "warning for $unconverged unconverged starts" \
        grep -q "^warning: $unconverged starts .* unconverged" "$TMP/cap.txt"
else
    check "no warning without unconverged starts" test "$(grep -c '^warning' "$TMP/cap.txt")" -eq 0
fi
check "JSON start counts" \
    grep -q '"capped": 128, "failed": 0, "polished": [0-9]*, "unconverged": [0-9]*' "$TMP/cap.json"

expect_fail 2 "order and --dim" --random 4
expect_fail 2 "exactly one" --order 4 --dim 3
expect_fail 2 "bad value" --random 4 --order 9 --dim 3
expect_fail 2 "bad value" --random 4 --order 4 --dim 3 --find sideways
expect_fail 2 "bad value" --random 4 --order 4 --dim 3 --precision f16
expect_fail 2 "unknown option" --random 4 --order 4 --dim 3 --frobnicate
expect_fail 2 "needs a value" --random 4 --order 4 --dim 3 --starts
expect_fail 1 "" --tensors "$TMP/does-not-exist.npy" --order 4 --dim 3
expect_fail 1 "finds minima" --random 4 --order 4 --dim 3 --shift -2 --find max
expect_fail 1 "entries" --random 4 --order 4 --dim 3 --params entries=shared
expect_fail 1 "unknown\|not allowed\|key" --random 4 --order 4 --dim 3 --params colour=blue
expect_fail 2 "bad value" dmri-synth --max-fibres 4
expect_fail 2 "must be even" dmri-synth --order 5 --voxels 4
expect_fail 2 "needs --post host" --random 4 --order 4 --dim 3 --post device --out-starts "$TMP/s"
expect_fail 2 "bad value" --random 4 --order 4 --dim 3 --post gpu
expect_fail 2 "bad value" --random 4 --order 4 --dim 3 --polish -1

cli_summary
