#!/usr/bin/env bash
# Smoke test of the xcorr benchmark (clpk-bench-xcorr and bench/xcorr.sh) on tiny cases, so that it cannot rot:
# every variant runs, is checked and timed; skips are recorded; the data recipe matches the cuFFT peer's copy of it
# (when numpy is there); the driver script merges, tabulates and plots (when matplotlib is there; the peer itself
# needs CuPy and is skipped here); bad arguments are refused. Usage: cli_bench_xcorr.sh <bin dir>
set -uo pipefail
bin=${1:?usage: cli_bench_xcorr.sh <bin dir>}
src=$(cd "$(dirname "$0")/.." && pwd)
cli=$bin/clpk-bench-xcorr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# 1. A tiny grid: n-to-m 1x1 and 3x3 of 4x4 matrices, every variant.
if "$cli" --patterns n-to-m --sizes 4 --scale 0.02 --repeats 3 --warmup 1 --seed 5 \
    --json "$tmp/b.jsonl" --cases-out "$tmp/cases.txt" --dump-inputs "$tmp" >"$tmp/log" 2>&1; then ok; else
    bad "grid run: $(tail -5 "$tmp/log")"
fi
grep -q "seed 5 (splitmix64 recipe)" "$tmp/log" && ok || bad "seed not printed"
[ "$(wc -l <"$tmp/cases.txt")" -eq 2 ] && ok || bad "cases file: $(cat "$tmp/cases.txt")"
grep -q '"impl":"copy-bandwidth"' "$tmp/b.jsonl" && ok || bad "no copy-bandwidth record"
for v in auto naive shift-buffer split-row grouped multi-right warp-per-overlap local fft; do
    n=$(grep -c "\"impl\":\"clpk-$v\".*\"status\":\"ok\".*\"rel_error\"" "$tmp/b.jsonl")
    [ "$n" -eq 2 ] && ok || bad "$v: $n checked records of 2"
done
n=$(grep -c '"impl":"clpk-multi-both".*"status":"ok"' "$tmp/b.jsonl")
[ "$n" -eq 1 ] && ok || bad "multi-both: $n records (only n-to-m 3x3 applies)"
grep -q '"status":"wrong"' "$tmp/b.jsonl" && bad "a variant gave a wrong result: $(grep wrong "$tmp/b.jsonl")" || ok
grep -q '"case":"n-to-m 3x3 4".*"counts":"3x3".*"median_ms":[0-9]' "$tmp/b.jsonl" && ok || bad "record fields"

# 2. Skips: an estimate over --max-ms is recorded as skipped without running.
"$cli" --patterns one-to-one --sizes 64 --scale 0.001 --variants naive --max-ms 1e-6 --json "$tmp/s.jsonl" \
    >"$tmp/log2" 2>&1 && ok || bad "skip run: $(tail -3 "$tmp/log2")"
grep -q '"status":"skipped","reason":"estimated' "$tmp/s.jsonl" && ok || bad "no skipped record: $(cat "$tmp/s.jsonl")"

# Variants with plan parameters (':' then key=value separated by '/'): checked and recorded under the full name.
"$cli" --patterns one-to-one --sizes 5 --scale 0.001 --repeats 2 --warmup 1 --variants local:rows=1/shifts=2/wg=64 \
    --json "$tmp/p.jsonl" >"$tmp/log3" 2>&1 && ok || bad "parameter variant run: $(tail -3 "$tmp/log3")"
grep -q '"impl":"clpk-local:rows=1/shifts=2/wg=64".*"status":"ok","chosen":"local {wg=64,shifts=2,rows=1}".*"rel_error"' \
    "$tmp/p.jsonl" && ok || bad "parameter variant record: $(cat "$tmp/p.jsonl")"

# 3. The peer's recipe gives the same inputs (numpy stands in for CuPy; the peer imports CuPy only in main()).
if python3 -c "import numpy" 2>/dev/null; then
    if python3 - "$tmp" "$src/bench/peers" <<'EOF'; then ok; else bad "peer recipe differs"; fi
import sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from cufft_xcorr import splitmix_stack
d = sys.argv[1]
for i, line in enumerate(open(d + "/cases.txt")):
    pattern, r, nl, nr = line.split()[0].split(":")
    r, nl, nr = int(r), int(nl), int(nr)
    for side, n in ((0, nl), (1, nr)):
        got = np.load(f"{d}/case{i}_{'right' if side else 'left'}.npy")
        if not np.array_equal(got, splitmix_stack(np, 5, side, (n, r, r), np.float32)):
            sys.exit(f"case {i} side {side} differs")
# the peer's FFT reference against the defining sum, square and not
from cufft_xcorr import correlate_full
rng = np.random.default_rng(7)
for (r, c), (p, q) in (((3, 4), (3, 4)), ((5, 5), (5, 5)), ((4, 2), (2, 3))):
    a, b = rng.uniform(-1, 1, (r, c)), rng.uniform(-1, 1, (p, q))
    want = np.zeros((r + p - 1, c + q - 1))
    for k in range(r + p - 1):
        for l in range(c + q - 1):
            for i in range(r):
                for j in range(c):
                    u, v = i - k + p - 1, j - l + q - 1
                    if 0 <= u < p and 0 <= v < q:
                        want[k, l] += a[i, j] * b[u, v]
    if np.max(np.abs(correlate_full(a, b) - want)) > 1e-12 * np.max(np.abs(want)):
        sys.exit(f"correlate_full differs from the defining sum at {r}x{c} / {p}x{q}")
EOF
else
    echo "skipped: recipe check (python3 without numpy)"
fi

# 4. The driver script end to end (peer skipped without CuPy): JSON, table, one PNG per pattern and counts.
if python3 -c "import matplotlib, numpy" 2>/dev/null; then
    if CLPK_BIN=$bin bash "$src/bench/xcorr.sh" "$tmp/out" --patterns one-to-many --sizes 3,4 --scale 0.0005 \
        --variants auto,naive --repeats 2 --warmup 0 >"$tmp/log3" 2>&1; then ok; else
        bad "bench/xcorr.sh: $(tail -5 "$tmp/log3")"
    fi
    grep -q "^| one-to-many 1x1 4 |" "$tmp/out/xcorr.md" && ok || bad "table: $(cat "$tmp/out/xcorr.md")"
    [ -s "$tmp/out/xcorr-one-to-many-1x1.png" ] && ok || bad "no PNG: $(ls "$tmp/out")"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert any(x.get('impl')=='clpk-auto' for x in r)" \
        "$tmp/out/xcorr.json" && ok || bad "merged JSON"
    # merging the outputs of partial runs (renamed clpk*.jsonl) without running anything
    mkdir -p "$tmp/m" && cp "$tmp/out/clpk.jsonl" "$tmp/m/clpk-A.jsonl" && cp "$tmp/b.jsonl" "$tmp/m/clpk-B.jsonl"
    if MERGE_ONLY=1 PLOTS=0 bash "$src/bench/xcorr.sh" "$tmp/m" >"$tmp/log4" 2>&1 &&
        grep -q "^| n-to-m 3x3 4 |" "$tmp/m/xcorr.md" && grep -q "^| one-to-many 1x1 4 |" "$tmp/m/xcorr.md"; then
        ok
    else
        bad "MERGE_ONLY: $(tail -5 "$tmp/log4")"
    fi
else
    echo "skipped: bench/xcorr.sh (python3 without matplotlib/numpy)"
fi

# 5. Refusals.
"$cli" --variants fast >"$tmp/e" 2>&1
[ $? -eq 2 ] && grep -q "unknown variant 'fast'" "$tmp/e" && ok || bad "unknown variant: $(cat "$tmp/e")"
"$cli" --patterns one-to-few --list >"$tmp/e" 2>&1
[ $? -eq 2 ] && grep -q "unknown pattern" "$tmp/e" && ok || bad "unknown pattern: $(cat "$tmp/e")"
"$cli" --scale 0 >"$tmp/e" 2>&1
[ $? -eq 2 ] && ok || bad "scale 0 accepted"
"$cli" --sizes 16,x >"$tmp/e" 2>&1
[ $? -eq 2 ] && grep -q "bad size" "$tmp/e" && ok || bad "bad size: $(cat "$tmp/e")"
"$cli" --list --scale 0.001 >"$tmp/e" 2>&1 && grep -q "case: dic 1x50 96" "$tmp/e" && ok || bad "--list"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
