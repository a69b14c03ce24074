#!/bin/bash
# clpk-bench-life smoke test: the tiny synthetic dataset, both precisions, every kernel checked against the double
# host reference (--check), a short fit; the JSON has the fields the H100 driver's charts need; the driver script
# runs end to end (charts when matplotlib is there), and so does the processing-order driver; bad arguments are
# refused.
set -u
BIN=${1:?usage: cli_bench_life.sh BIN_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# products of both precisions here; the fits (CLBlast compiles its kernels per precision: slow on a cold PoCL cache)
# run in f32 through the driver below, the same code serves f64.
out=$("$BIN/clpk-bench-life" --size tiny --seed 5 --runs 3 --iters 0 --atomics-iters 0 --copy-mb 4 --check \
    --json "$TMP/life.json" --md "$TMP/life.md" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "bench run (rc $rc): $out"; fi
# every kernel of both precisions checked: 3 DSC (auto, atomics, voxel) x 2 cases + 5 WC = 11 per precision
n_ok=$(grep -c "^check .*: OK" <<<"$out")
if [ "$n_ok" -eq 22 ] && ! grep -q WRONG <<<"$out"; then ok; else bad "expected 22 OK checks, got $n_ok: $out"; fi
if python3 - "$TMP/life.json" <<'PY'; then ok; else bad "JSON content"; fi
import json, sys
recs = json.load(open(sys.argv[1]))
need = {"family", "case", "impl", "precision", "median_ms"}
assert all(need <= set(r) and r["family"] == "life" and r["median_ms"] > 0 for r in recs), "fields"
prod = [r for r in recs if r["kind"] == "product"]
impls = {(r["precision"], r["case"], r["impl"]) for r in prod}
for p in ("f32", "f64"):
    for k in ("clpk-atomics", "clpk-fiber", "clpk-atom", "clpk-voxel"):
        assert (p, "wc", k) in impls, (p, k)
    for c in ("dsc-wtrue", "dsc-dense"):
        assert (p, c, "clpk-atomics") in impls and (p, c, "clpk-voxel") in impls, (p, c)
assert all(r["gbps"] > 0 and r["gbps_d_per_coeff"] >= r["gbps"] and r["bytes_d_per_coeff"] >= r["bytes"] and
           r["d_served"] in ("L2", "DRAM/L2") and r["speedup_vs_atomics"] > 0 for r in prod), "byte model"
assert not [r for r in recs if r["kind"] == "fit"], "fits with --iters 0"
copy = [r for r in recs if r["kind"] == "copy"]
assert len(copy) == 1 and copy[0]["gbps"] > 0 and all(r["copy_gbps"] == copy[0]["gbps"] for r in recs), "copy"
PY
if grep -q "| wc | f64 | clpk-fiber |" "$TMP/life.md"; then ok
else bad "markdown table: $(cat "$TMP/life.md")"; fi

# the driver script: JSON, table and (with matplotlib) charts in the output directory
if CLPK_BIN="$BIN" LIFE_SIZE=tiny RUNS=2 ITERS=6 ATOMICS_ITERS=2 COPY_MB=4 FIT_PARAMS="unroll=2" \
    "$HERE/../bench/life.sh" "$TMP/out" --precision f32 >"$TMP/driver.log" 2>&1 && [ -s "$TMP/out/life.json" ] &&
    [ -s "$TMP/out/life.md" ]; then ok
else bad "bench/life.sh: $(cat "$TMP/driver.log")"; fi
if python3 - "$TMP/out/life.json" <<'PY'; then ok; else bad "fit records: $(cat "$TMP/driver.log")"; fi
import json, sys
fits = [r for r in json.load(open(sys.argv[1])) if r["kind"] == "fit"]
assert [(r["impl"], r["precision"], r["iterations"]) for r in fits] == [
    ("clpk-auto", "f32", 6), ("clpk-auto-textbook", "f32", 6), ("clpk-atomics", "f32", 2),
    ("clpk-auto+unroll=2", "f32", 6)], fits
assert all(r["per_iter_ms"] > 0 and abs(r["total_500_s"] - 0.5 * r["per_iter_ms"]) < 1e-4 * r["total_500_s"]
           for r in fits)
assert fits[0]["speedup_vs_atomics"] > 0
# the default fit against the textbook iteration (r = M w - y every step): the same iterates up to rounding
change = fits[0]["textbook_objective_change"]
assert abs(change) <= 1e-4 and abs(fits[0]["objective"] - fits[1]["objective"]) <= 1e-4 * fits[1]["objective"], fits
PY
if grep -q "| clpk-auto | f32 | 6 |" "$TMP/out/life.md"; then ok; else bad "fit table: $(cat "$TMP/out/life.md")"; fi
if python3 -c "import matplotlib" 2>/dev/null; then
    if [ -s "$TMP/out/life_f32_ms.png" ] && [ -s "$TMP/out/life_fit.png" ]; then ok; else bad "charts missing"; fi
else
    echo "matplotlib missing: charts not checked"
fi

# the processing-order driver (bench/life-order.sh): both orders of each kind, both precisions, every product checked,
# the outputs bit for bit equal to index order, the summary written (no fits here: the fit path is the one above)
# (explicit orders in every list: a tuned profile may pick either order for a plain dsc=voxel,wc=fiber)
P=dsc=voxel,wc=fiber
if BIN="$BIN" LIFE_SIZE=tiny RUNS=2 ITERS=0 \
    ORDERS="$P,voxel_order=index,fiber_order=index;$P,voxel_order=morton,fiber_order=voxel" \
    "$HERE/../bench/life-order.sh" "$TMP/order" >"$TMP/order.log" 2>&1; then ok
else bad "bench/life-order.sh: $(cat "$TMP/order.log")"; fi
if python3 - "$TMP/order/life-order.json" <<'PY'; then ok; else bad "order records: $(cat "$TMP/order.log")"; fi
import json, sys
recs = json.load(open(sys.argv[1]))
plans = [r for r in recs if r["kind"] == "plan"]
assert [(r["precision"], r["order"], r["bitwise_equal_to_first"]) for r in plans] == [
    ("f32", "index/index", None), ("f32", "morton/voxel", True), ("f64", "index/index", None),
    ("f64", "morton/voxel", True)], plans
assert all(r["host_rank_ms"] >= 0 and r["host_voxel_sort_ms"] >= 0 for r in plans)
prod = [r for r in recs if r["kind"] == "product"]
assert len(prod) == 12 and all(r["median_ms"] > 0 and "order" in r for r in prod), prod
assert not [r for r in recs if r["kind"] == "fit"], "fits with ITERS=0 (f64 CLBlast builds are slow on a cold cache)"
PY
if grep -q "checks against the double reference: 12 OK, 0 WRONG" "$TMP/order/life-order.md" &&
    grep -q "| f64 | morton/voxel |.*| yes |" "$TMP/order/life-order.md"; then ok
else bad "life-order.md: $(cat "$TMP/order/life-order.md")"; fi

# refusals
for args in "--size huge" "--precision f16" "--runs x" "--bogus 1" "--data $TMP/missing"; do
    # shellcheck disable=SC2086
    if "$BIN/clpk-bench-life" $args >"$TMP/err.log" 2>&1; then bad "accepted $args"
    elif [ -s "$TMP/err.log" ]; then ok
    else bad "no message for $args"; fi
done

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
