#!/usr/bin/env bash
# Smoke test of the SpMV benchmark (so it cannot rot): bench/spmv.sh end to end on tiny generated matrices (clpk
# records correct, JSON + markdown written), the CSR .npy directories the peer reads, the merge with a peer's records
# (ratio_to_peer), clpk-oracle and its report table, and clear refusals. $1 = the build's bin directory.
set -u
BIN=${1:?usage: cli_bench_spmv.sh BIN_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
B="$BIN/clpk-bench-spmv"
if ! python3 -c "import json" 2>/dev/null; then
    echo "SKIP: no python3 here (bench/spmv.sh needs it for the report); checking the CLI alone"
    "$B" --cases fem3d --scale 0.0002 --precision f32 --repeats 2 --json "$tmp/a.json" && grep -q '"correct": true' \
        "$tmp/a.json" && echo "1 passed, 0 failed" && exit 0
    echo "0 passed, 1 failed"; exit 1
fi

out=$("$ROOT/bench/spmv.sh" --bin "$BIN" --out "$tmp/out" --scale 0.0002 --cases fem3d,lp --matrices none \
    --precision f32 --repeats 3 --tune-budget 13 2>&1)
[ $? = 0 ] && ok || bad "bench/spmv.sh failed: $out"
[ -s "$tmp/out/clpk.json" ] && [ -s "$tmp/out/spmv.json" ] && [ -s "$tmp/out/spmv.md" ] && ok || bad "outputs missing"
python3 - "$tmp/out/spmv.json" <<'PY' && ok || bad "records"
import json, sys
recs = json.load(open(sys.argv[1]))
impls = {(r["case"], r["impl"]) for r in recs}
want = {(c, i) for c in ("fem3d", "lp") for i in ("clpk-csr", "clpk-auto", "clpk-tuned")}
assert want <= impls, impls
# cuSPARSE records appear where CuPy is installed (the GPU machine): they carry the peer's own error, not "correct"
for r in recs:
    assert r["family"] == "spmv" and r["precision"] == "f32" and r["median_ms"] > 0 and r["gflops"] > 0, r
    if r["impl"] == "cusparse":
        assert r["rel_error"] is not None and r["rel_error"] < 1e-4, r
        continue
    assert r["correct"] is True and r["gbps"] > 0 and r["runs"] == 3, r
    assert r["pct_copy_bw"] > 0 and r["bytes_per_nnz"] > 0 and r["nnz"] >= 1000, r
tuned = [r for r in recs if r["impl"] == "clpk-tuned"]
assert all(0 < r["tune_multiplies"] <= 13 for r in tuned), tuned
PY
grep -q "| fem3d |" "$tmp/out/spmv.md" && ok || bad "markdown table lacks fem3d"

# the .npy directories the peer reads: same matrix as clpk's (int32 row pointers, int32 columns, f64 values)
"$B" --cases epidem --scale 0.0002 --precision f32 --repeats 2 --warmup 0 --impls clpk-csr --npy-dir "$tmp/npy" \
    > "$tmp/log" 2>&1 && ok || bad "npy run: $(cat "$tmp/log")"
for f in csr_row_ptr csr_col csr_val shape; do [ -s "$tmp/npy/epidem/$f.npy" ] && ok || bad "$f.npy missing"; done
if ! python3 -c "import numpy" 2>/dev/null; then echo "SKIP: no numpy here, .npy contents not checked"; else
python3 - "$tmp/npy/epidem" <<'PY' && ok || bad "npy directory"
import sys, numpy as np
d = sys.argv[1]
rp, col, val, shape = (np.load(f"{d}/{n}.npy") for n in ("csr_row_ptr", "csr_col", "csr_val", "shape"))
assert rp.dtype == np.int32 and col.dtype == np.int32 and val.dtype == np.float64, (rp.dtype, col.dtype, val.dtype)
assert shape.tolist() == [800, 800] and rp[0] == 0 and rp[-1] == len(col) == len(val) and len(rp) == 801
assert (np.diff(rp) >= 1).all() and (np.diff(rp) <= 4).all() and col.max() < 800 and np.isfinite(val).all()
PY
fi

# merge with peer records: ratio = peer time / clpk time
cat > "$tmp/clpk.json" <<'J'
[{"family": "spmv", "case": "a", "impl": "clpk-auto", "precision": "f32", "nnz": 10, "median_ms": 2.0, "gflops": 1,
  "gbps": 1, "copy_gbps": 100, "pct_copy_bw": 1, "bytes_per_nnz": 6, "correct": true, "params": "p"}]
J
echo '{"peer": "cusparse", "matrix": "a", "rows": 1, "cols": 1, "nnz": 10, "precision": "f32", "median_ms": 3.0, "gflops": 1, "csr_gbps": 2}' > "$tmp/peer.json"
python3 "$ROOT/bench/spmv_report.py" --clpk "$tmp/clpk.json" --peer "$tmp/peer.json" --out "$tmp/m.json" \
    --markdown "$tmp/m.md" > /dev/null && python3 -c "
import json, sys
r = json.load(open('$tmp/m.json'))
assert abs(r[0]['ratio_to_peer'] - 1.5) < 1e-12 and r[1]['impl'] == 'cusparse', r" && grep -q "1.50" "$tmp/m.md" && ok \
    || bad "merge"

# clpk-oracle through bench/spmv.sh's corpus path (--only keeps one label): the best correct point of the sweep, every
# point kept, the automatic choice among them; the report's auto-vs-oracle table
printf 'tiny random:400:400:6\nskipped random:50:50:2\n' > "$tmp/corpus.txt"
out=$("$ROOT/bench/spmv.sh" --bin "$BIN" --out "$tmp/or" --cases none --corpus "$tmp/corpus.txt" --only tiny \
    --precision f32 --repeats 3 --impls clpk-auto,clpk-oracle --oracle-max-points 9 2>&1)
[ $? = 0 ] && ok || bad "spmv.sh with clpk-oracle failed: $out"
python3 - "$tmp/or/spmv.json" <<'PY' && ok || bad "oracle records"
import json, sys
recs = [r for r in json.load(open(sys.argv[1])) if r["impl"] != "cusparse"]
assert {r["case"] for r in recs} == {"tiny"}, recs
auto, = [r for r in recs if r["impl"] == "clpk-auto"]
o, = [r for r in recs if r["impl"] == "clpk-oracle"]
pts = o["oracle_points"]
assert o["correct"] and o["oracle_tried"] == len(pts) == 9 and o["oracle_space"] >= 9 + o["oracle_pruned"], o
assert o["oracle_measured"] + o["oracle_unsupported"] == 9 and o["oracle_failed"] == o["oracle_wrong"] == 0, o
assert pts[0]["point"] == "auto" and pts[0]["params"] == auto["params"], (pts[0], auto["params"])
formats = [p["point"].split()[0] for p in pts[1:]]
n_csr = formats.count("csr")  # CSR first (csr_vec 1..32, other CSR kernels), then BCCOO by footprint
assert n_csr >= 6 and formats == ["csr"] * n_csr + ["bccoo"] * (8 - n_csr), formats
ok = [p for p in pts if p["outcome"] == "ok"]
best = min(ok, key=lambda p: p["median_ms"])
assert o["median_ms"] == best["median_ms"] and o["oracle_point"] == best["point"] and o["params"] == best["params"], o
assert abs(auto["ratio_to_oracle"] - o["median_ms"] / auto["median_ms"]) < 1e-12, auto
PY
grep -q "within 10 % of the oracle" "$tmp/or/spmv.md" && grep -q "| tiny | " "$tmp/or/spmv.md" && ok \
    || bad "markdown lacks the oracle table: $(cat "$tmp/or/spmv.md")"

# the auto-vs-oracle verdicts: auto/oracle 0.95 (within 10 %), auto/cuSPARSE 1.5 and 0.9 (one below 0.95)
cat > "$tmp/oc.json" <<'J'
[{"case": "a", "impl": "clpk-auto", "precision": "f32", "nnz": 10, "median_ms": 2.0, "gflops": 1, "plan_s": 0.5, "params": "a"},
 {"case": "a", "impl": "clpk-oracle", "precision": "f32", "nnz": 10, "median_ms": 1.9, "gflops": 1, "params": "p",
  "oracle_point": "csr csr_vec=4", "oracle_measured": 7, "oracle_space": 9},
 {"case": "b", "impl": "clpk-auto", "precision": "f32", "nnz": 10, "median_ms": 1.0, "gflops": 1, "plan_s": 0.5, "params": "b"},
 {"case": "b", "impl": "clpk-oracle", "precision": "f32", "nnz": 10, "median_ms": 0.5, "gflops": 1, "params": "q"}]
J
printf '%s\n' '{"matrix": "a", "rows": 1, "cols": 1, "nnz": 10, "precision": "f32", "median_ms": 3.0, "gflops": 1, "csr_gbps": 2}' \
    '{"matrix": "b", "rows": 1, "cols": 1, "nnz": 10, "precision": "f32", "median_ms": 0.9, "gflops": 1, "csr_gbps": 2}' \
    > "$tmp/op.json"
python3 "$ROOT/bench/spmv_report.py" --clpk "$tmp/oc.json" --peer "$tmp/op.json" --out "$tmp/om.json" \
    --markdown "$tmp/om.md" > /dev/null && grep -q "| a | 10 | 2.0000 | 0.50 | 1.9000 | 0.950 | 3.0000 | 1.50 | 7/9 | csr csr_vec=4 |" \
    "$tmp/om.md" && grep -q "geometric mean 1.16x over 2 matrices; 1 below 0.95x (b f32)" "$tmp/om.md" \
    && grep -q "on 1 of 2 matrices (50 %; target >= 90 %: NOT met)" "$tmp/om.md" && ok || bad "oracle report: $(cat "$tmp/om.md")"

out=$("$B" --cases blob 2>&1); [ $? = 2 ] && grep -q "unknown case" <<<"$out" && ok || bad "unknown case: $out"
out=$("$B" --scale 0 2>&1); [ $? = 2 ] && grep -q "scale" <<<"$out" && ok || bad "scale 0: $out"
out=$("$B" --impls cublas 2>&1); [ $? = 2 ] && grep -q "unknown impl" <<<"$out" && ok || bad "bad impl: $out"
out=$("$B" --oracle-max-points 0 2>&1); [ $? = 2 ] && grep -q "oracle-max-points" <<<"$out" && ok || bad "max 0: $out"
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
