#!/usr/bin/env bash
# Smoke test of the SS-HOPM benchmark so it cannot rot: clpk-bench-sshopm on tiny sizes (one shape, both
# precisions, FMA peak, dMRI time-to-solution) writes its JSON records, markdown and the .npy inputs the peers read;
# every start ran exactly the fixed iteration count; the driver bench/sshopm.sh merges and tabulates (peers skipped
# without cupy); bad options fail clearly. No speed assertion.
# Usage: cli_bench_sshopm.sh BIN_DIR
set -uo pipefail
BIN=${1:?usage: cli_bench_sshopm.sh BIN_DIR}
CLI=$BIN/clpk-bench-sshopm
HERE=$(cd "$(dirname "$0")" && pwd)
source "$(dirname "$0")/support/cli_check.sh"

# The kernel variant is fixed so the operation counts below follow from it (the device's defaults may pick another).
"$CLI" --out "$TMP/a" --shapes 4x3 --tensors 24 --starts 8 --iters 8 --repeats 2 --voxels 40 --dmri-repeats 1 \
    --params kernel=generated,entries=private >"$TMP/log" 2>&1
rc=$?
check "benchmark runs (exit $rc): $(tail -3 "$TMP/log")" test "$rc" -eq 0
J=$TMP/a/clpk.json
check "JSON written" test -s "$J"
tr -d ' \t\n' <"$J" >"$TMP/flat.json" # one line, no blanks: fields grep as "key":value
J=$TMP/flat.json
for key in '"family":"sshopm"' '"case":"4x3"' '"start_iters_per_s"' '"gflops"' '"pct_peak"' '"params":"kernel=generated,entries=private,' \
    '"flops_per_iter":85,' '"fma_per_iter":32,' '"case":"fma-peak"' '"mode":"time-to-solution"' '"median_ms"' '"converged_fraction"'; do
    check "JSON has $key" grep -q -- "$key" "$J"
done
# fixed iterations: every start ran exactly 8 (the convergence test cannot stop a start)
check "every start ran 8 iterations (f32 and f64)" test "$(grep -o '"iters":8,' "$J" | wc -l)" -eq 2
check "no start stopped early" test "$(grep -o '"not_capped":0,' "$J" | wc -l)" -eq 2
check "markdown table" grep -q '| 4x3 | f32 | clpk-generated |' "$TMP/a/clpk.md"

# --converge: the default options to convergence; every start converges or is capped (none failed), and a start's
# iteration count lies between 1 and max_iter (1000); no flop rate (the adaptive shift's Hessian is not counted)
"$BIN/clpk-bench-sshopm" --out "$TMP/c" --shapes 4x3 --precision f32 --tensors 24 --starts 8 --repeats 2 --voxels 0 \
    --no-peak --no-npy --converge >"$TMP/clog" 2>&1
rc=$?
check "--converge runs (exit $rc): $(tail -2 "$TMP/clog")" test "$rc" -eq 0
tr -d ' \t\n' <"$TMP/c/clpk.json" >"$TMP/cflat.json"
check "--converge: mode converged" grep -q '"mode":"converged"' "$TMP/cflat.json"
check "--converge: none failed" grep -q '"failed":0,' "$TMP/cflat.json"
check "--converge: no flop rate" test "$(grep -c '"gflops"' "$TMP/cflat.json")" -eq 0
its=$(grep -o '"iters":[0-9.e+-]*' "$TMP/cflat.json" | cut -d: -f2)
check "--converge: mean iterations in [1, 1000] ($its)" python3 -c "import sys; assert 1 <= float(sys.argv[1]) <= 1000" "$its"
# .npy inputs for the peers: header + 24 x 15 float64 tensors, 8 x 3 float64 starts
for f in tensors starts; do
    check "$f .npy written" test -s "$TMP/a/sshopm_4x3_$f.npy"
done
size=$(wc -c <"$TMP/a/sshopm_4x3_tensors.npy")
check "tensors .npy holds 24 x 15 doubles ($size bytes)" test $((size - 24 * 15 * 8)) -ge 64 -a $((size - 24 * 15 * 8)) -le 256
check "tensors .npy is float64 (24, 15)" grep -aq "'descr': '<f8'.*(24, 15)" "$TMP/a/sshopm_4x3_tensors.npy"
check "starts .npy is float64 (8, 3)" grep -aq "'descr': '<f8'.*(8, 3)" "$TMP/a/sshopm_4x3_starts.npy"

# the driver script end to end (merge and table need python3; peers skip without cupy)
if command -v python3 >/dev/null 2>&1; then
    BIN=$BIN TENSORS=16 STARTS=8 ITERS=4 REPEATS=2 VOXELS=20 SHAPES=3x3 PRECISION=f32 CLPK_ARGS="--no-peak --dmri-repeats 1" \
        "$HERE/../bench/sshopm.sh" "$TMP/b" >"$TMP/drv" 2>&1
    rc=$?
    check "bench/sshopm.sh runs (exit $rc): $(tail -3 "$TMP/drv")" test "$rc" -eq 0
    check "merged JSON" test -s "$TMP/b/sshopm.json"
    check "merged table" grep -q '| 3x3 | f32 |' "$TMP/b/sshopm.md"
else
    echo "python3 not found: bench/sshopm.sh not exercised"
fi

expect_fail 2 "bad --shapes" --out "$TMP/c" --shapes 9x3
expect_fail 2 "bad --precision" --out "$TMP/c" --precision f16
expect_fail 2 "--out DIR is required" --shapes 4x3
expect_fail 2 "--iters wants an integer" --out "$TMP/c" --iters 0
expect_fail 2 "unknown option" --out "$TMP/c" --bogus 1
expect_fail 2 "bad value" --out "$TMP/c" --alpha -1
expect_fail 1 "dmri-shift" --out "$TMP/c" --shapes 3x3 --precision f32 --tensors 2 --starts 2 --iters 1 --repeats 1 \
    --no-peak --no-npy --voxels 5 --dmri-shift sideways

cli_summary
