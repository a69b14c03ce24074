#!/usr/bin/env bash
# End-to-end test of clpk-dic: the shared speckle images (skipped with a message when absent) give a displacement
# field file of the right shape and a valid PNG; a 2-D image against itself gives zero displacement; bad input is
# refused with a clear message and a non-zero exit. Usage: cli_dic.sh <bin dir>
set -uo pipefail
bin=${1:?usage: cli_dic.sh <bin dir>}
cli=$bin/clpk-dic
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
# expect_fail <what> <message regex> <args...>
expect_fail() {
    local what=$1 regex=$2
    shift 2
    if "$cli" "$@" >"$tmp/out.txt" 2>&1; then bad "$what: accepted"; return; fi
    grep -qiE "$regex" "$tmp/out.txt" && ok || bad "$what: unclear message: $(head -c 300 "$tmp/out.txt")"
}

data=${CLPK_SHARED_DATA_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}/dic
if [ -r "$data/refSpeckled.npy" ] && [ -r "$data/defSpeckled.npy" ]; then
    if "$cli" --ref "$data/refSpeckled.npy" --def "$data/defSpeckled.npy" --subset 48 --step 48 --method n-to-mn \
        --search 6 --out "$tmp/d.npy" --png "$tmp/d.png" >"$tmp/log.txt" 2>&1; then
        ok
        # float64 (rows, cols, 2): header names the shape; 9x9 grid for 48-px subsets every 48 px with margin 19
        head -c 128 "$tmp/d.npy" | grep -q "'descr': '<f8'.*'shape': (9, 9, 2)" && ok || bad "npy header: $(head -c 100 "$tmp/d.npy" | tr -d '\0')"
        [ "$(head -c 8 "$tmp/d.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && ok || bad "png signature"
        [ "$(stat -c %s "$tmp/d.png")" -gt $((512 * 512 * 3)) ] && ok || bad "png too small"
        grep -q "(81 valid)" "$tmp/log.txt" && ok || bad "not all points valid: $(cat "$tmp/log.txt")"
        mean=$(sed -n 's/.*mean |d| \([0-9.]*\) px.*/\1/p' "$tmp/log.txt")
        awk -v m="$mean" 'BEGIN { exit !(m > 0.3 && m < 1.0) }' && ok || bad "mean displacement $mean not near 0.57 px"
    else
        bad "shared images: $(cat "$tmp/log.txt")"
    fi
    # an image against itself: zero displacement everywhere (host correlation, no device needed)
    "$cli" --ref "$data/refSpeckled.npy" --def "$data/refSpeckled.npy" --subset 64 --step 64 --algorithm cpu \
        --out "$tmp/z.npy" >"$tmp/log.txt" 2>&1 && grep -q "max |d| 0.0000 px" "$tmp/log.txt" && ok ||
        bad "self-correlation: $(cat "$tmp/log.txt")"
    expect_fail "subset larger than the image" "too small" --ref "$data/refSpeckled.npy" --def "$data/defSpeckled.npy" \
        --subset 600 --out "$tmp/x.npy"
else
    echo "SKIP shared-image cases: $data not found"
fi

printf 'not a numpy file' >"$tmp/garbage.npy"
expect_fail "no arguments" "required" 
expect_fail "missing file" "no such file|cannot|open" --ref "$tmp/none.npy" --def "$tmp/none.npy" --out "$tmp/x.npy"
expect_fail "garbage file" "npy|magic|not" --ref "$tmp/garbage.npy" --def "$tmp/garbage.npy" --out "$tmp/x.npy"
expect_fail "bad subset" "bad value" --ref a --def b --out c --subset 2
expect_fail "bad method" "bad value" --ref a --def b --out c --method n-to-m
expect_fail "bad precision" "bad value" --ref a --def b --out c --precision f16
expect_fail "bad refine" "bad value" --ref a --def b --out c --refine cubic
expect_fail "bad min score" "bad value" --ref a --def b --out c --min-score 2
expect_fail "unknown option" "unknown option" --ref a --def b --out c --frobnicate 1
"$cli" --help | grep -q "usage: clpk-dic" && ok || bad "--help"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
