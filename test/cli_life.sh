#!/bin/bash
# clpk-life end to end: synth -> dsc/wc with --check (both precisions, both strategies) -> fit with the correlation to
# the true weights; bad arguments refused with a message; the dipy data (encode -> fit, correlation with MATLAB LiFE's
# weights > 0.6, as dipy's own test) when ../shared/data/life is present.
set -u
BIN=${1:?usage: cli_life.sh BIN_DIR}
LIFE="$BIN/clpk-life"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
expect() { # expect "description" "pattern" command...
    local what=$1 pattern=$2
    shift 2
    local out
    out=$("$@" 2>&1)
    local rc=$?
    if [ $rc -eq 0 ] && grep -qE "$pattern" <<<"$out"; then ok; else bad "$what (rc $rc): $out"; fi
}
expect_fail() { # expect_fail "description" "pattern" command...
    local what=$1 pattern=$2
    shift 2
    local out
    out=$("$@" 2>&1)
    local rc=$?
    if [ $rc -ne 0 ] && grep -qiE "$pattern" <<<"$out"; then ok; else bad "$what (rc $rc): $out"; fi
}

expect "synth tiny" "coefficients" "$LIFE" synth --size tiny --seed 7 --out "$TMP/tiny"
[ -f "$TMP/tiny/w_true.npy" ] && ok || bad "synth wrote no w_true.npy"
# the same dataset with its fibres relabelled: other fibre ids, the same M w_true to the bit (each voxel sums the same
# products in the same order)
expect "synth shuffled" "fibers \(shuffled\)" "$LIFE" synth --size tiny --seed 7 --shuffle-fibers 5 --out "$TMP/shuf"
cmp -s "$TMP/tiny/phi_fibers.npy" "$TMP/shuf/phi_fibers.npy" && bad "--shuffle-fibers kept the fibre ids" || ok
for d in tiny shuf; do
    expect "dsc w_true $d" "check: .*OK" "$LIFE" dsc --data "$TMP/$d" --w "$TMP/$d/w_true.npy" --out "$TMP/y_$d.npy" \
        --strategy sorted --check
done
cmp -s "$TMP/y_tiny.npy" "$TMP/y_shuf.npy" && ok || bad "M w_true differs after --shuffle-fibers"
expect_fail "bad shuffle" "non-negative" "$LIFE" synth --size tiny --shuffle-fibers -2 --out "$TMP/x"

F64=f64
"$BIN/clpk-info" 2>/dev/null | grep -qi "fp64 no" && F64=""
for prec in f32 $F64; do
    for strategy in atomics sorted; do
        expect "dsc $prec $strategy" "check: .*OK" "$LIFE" dsc --data "$TMP/tiny" --w "$TMP/tiny/w_true.npy" \
            --out "$TMP/y.npy" --precision $prec --strategy $strategy --check
        expect "wc $prec $strategy" "check: .*OK" "$LIFE" wc --data "$TMP/tiny" --y "$TMP/y.npy" --out "$TMP/w.npy" \
            --precision $prec --strategy $strategy --check
    done
done
expect "dsc timed" "check: .*OK" "$LIFE" dsc --data "$TMP/tiny" --w "$TMP/tiny/w_true.npy" --out "$TMP/y.npy" \
    --strategy timed --check
expect "dsc bench" "bench dsc: median" "$LIFE" dsc --data "$TMP/tiny" --w "$TMP/tiny/w_true.npy" --out "$TMP/y.npy" \
    --bench 3

out=$("$LIFE" fit --data "$TMP/tiny" --iters 300 --tol 1e-8 --out "$TMP/fit.npy" --check 2>&1)
rc=$?
echo "$out"
if [ $rc -eq 0 ] && grep -q "check: .*OK" <<<"$out" && [ -f "$TMP/fit.npy" ]; then ok; else bad "fit tiny: $out"; fi
corr=$(sed -n 's/^correlation with .*w_true.npy: //p' <<<"$out")
if [ -n "$corr" ] && awk -v c="$corr" 'BEGIN { exit !(c > 0.5) }'; then ok; else bad "correlation to w_true '$corr'"; fi
# warm start from the fit: already converged, the objective does not go up
expect "fit warm start" "fit: " "$LIFE" fit --data "$TMP/tiny" --iters 20 --w0 "$TMP/fit.npy" --out "$TMP/fit2.npy"

expect_fail "no --data" "usage" "$LIFE" fit --out "$TMP/x.npy"
expect_fail "unknown command" "usage" "$LIFE" frobnicate
expect_fail "missing dataset" "no such|cannot|open|not found" "$LIFE" fit --data "$TMP/nope" --out "$TMP/x.npy"
expect_fail "wrong-length w" "expected" "$LIFE" dsc --data "$TMP/tiny" --w "$TMP/y.npy" --out "$TMP/x.npy"
expect_fail "bad strategy" "strategy" "$LIFE" dsc --data "$TMP/tiny" --w "$TMP/tiny/w_true.npy" --out "$TMP/x.npy" \
    --strategy magic
expect_fail "bad params" "team" "$LIFE" wc --data "$TMP/tiny" --y "$TMP/y.npy" --out "$TMP/x.npy" --params team=3
expect_fail "bad iters" "integer" "$LIFE" fit --data "$TMP/tiny" --iters -4 --out "$TMP/x.npy"

DIPY=${CLPK_SHARED_DATA_DIR:-}/life
if [ -n "${CLPK_SHARED_DATA_DIR:-}" ] && [ -f "$DIPY/small_25.nii.gz" ]; then
    expect "encode dipy" "coefficients" "$LIFE" encode --dwi "$DIPY/small_25.nii.gz" --bval "$DIPY/small_25.bval" \
        --bvec "$DIPY/small_25.bvec" --trk "$DIPY/EuDX_small_25.trk" --out "$TMP/dipy"
    out=$("$LIFE" fit --data "$TMP/dipy" --precision f64 --iters 500 --tol 1e-8 --out "$TMP/dipy_w.npy" \
        --compare "$DIPY/life_matlab_weights.npy" 2>&1)
    echo "$out"
    corr=$(sed -n 's/^correlation with .*life_matlab_weights.npy: //p' <<<"$out")
    if [ -n "$corr" ] && awk -v c="$corr" 'BEGIN { exit !(c > 0.6) }'; then ok; else bad "dipy correlation '$corr'"; fi
else
    echo "shared data life/ not found: dipy end-to-end skipped"
fi

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
