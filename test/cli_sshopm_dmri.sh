#!/usr/bin/env bash
# End-to-end checks of `clpk-sshopm dmri` on dipy's real test scans (../shared/data; skipped with a message when
# absent): small_64D (N x 3 bvec with a NaN b = 0 row) and small_25 (FSL 3 x N) give dipy's peaks layout and a PNG,
# with the summary lines; small_25 at order 6 is refused (25 directions < 28 coefficients); bad arguments fail clearly.
# (The synthetic-scan CLI checks are in test_sshopm_scan.) Usage: cli_sshopm_dmri.sh BIN_DIR
set -uo pipefail
BIN=${1:?usage: cli_sshopm_dmri.sh BIN_DIR}
CLI=$BIN/clpk-sshopm
DATA=${CLPK_SHARED_DATA_DIR:-$(dirname "$0")/../../shared/data}
source "$(dirname "$0")/support/cli_check.sh"

check "dmri --help" "$CLI" dmri --help >/dev/null
expect_fail 2 "required" dmri --dwi x.nii --out "$TMP/x"
expect_fail 2 "must be even" dmri --dwi x.nii --bval x --bvec x --order 5 --out "$TMP/x"
expect_fail 2 "unknown option" dmri --dwi x.nii --bval x --bvec x --frobnicate 1 --out "$TMP/x"
expect_fail 1 "cannot open" dmri --dwi "$TMP/missing.nii.gz" --bval x --bvec x --out "$TMP/x"

if [ ! -d "$DATA/dmri" ] || [ ! -d "$DATA/life" ]; then
    echo "$DATA/dmri or $DATA/life absent: real-scan CLI checks skipped"
else
    D=$DATA/dmri
    "$CLI" dmri --dwi "$D/small_64D.nii" --bval "$D/small_64D.bval" --bvec "$D/small_64D.bvec" --order 4 \
        --smooth 0.5 --out "$TMP/s64" >"$TMP/s64.txt" 2>&1
    check "small_64D runs" test $? -eq 0
    cat "$TMP/s64.txt"
    check "small_64D: 1000 voxels fitted" grep -q "1000 voxels fitted" "$TMP/s64.txt"
    check "small_64D: the model line names 64 of 65 volumes" grep -q "64 of 65 volumes" "$TMP/s64.txt"
    for f in peak_dirs.nii.gz peak_values.nii.gz peaks.png; do check "small_64D $f" test -s "$TMP/s64_$f"; done
    # X*Y*Z*K*3 float32 values after the 352-byte header
    check "peak_dirs holds 10x10x10x5x3 floats" test "$(gzip -dc "$TMP/s64_peak_dirs.nii.gz" | wc -c)" -eq $((352 + 15000 * 4))
    check "peak_values holds 10x10x10x5 floats" test "$(gzip -dc "$TMP/s64_peak_values.nii.gz" | wc -c)" -eq $((352 + 5000 * 4))
    L=$DATA/life
    "$CLI" dmri --dwi "$L/small_25.nii.gz" --bval "$L/small_25.bval" --bvec "$L/small_25.bvec" --slice 0 \
        --max-peaks 3 --out "$TMP/s25" >"$TMP/s25.txt" 2>&1
    check "small_25 runs" test $? -eq 0
    check "small_25: PNG of slice 0" grep -q "s25_peaks.png (slice 0)" "$TMP/s25.txt"
    check "peak_values holds 10x8x2x3 floats" test "$(gzip -dc "$TMP/s25_peak_values.nii.gz" | wc -c)" -eq $((352 + 480 * 4))
    expect_fail 1 "too small for order 6" dmri --dwi "$L/small_25.nii.gz" --bval "$L/small_25.bval" \
        --bvec "$L/small_25.bvec" --order 6 --out "$TMP/s25o6"
    expect_fail 1 "26 b-values, but" dmri --dwi "$D/small_64D.nii" --bval "$L/small_25.bval" \
        --bvec "$L/small_25.bvec" --out "$TMP/mix"
fi
cli_summary
