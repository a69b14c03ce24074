#!/usr/bin/env bash
# End-to-end test of clpk-xcorr: .npy files written here byte by byte (no Python needed on CI), a hand-computed
# result, every pattern and several algorithms with --check against the CPU reference, search windows, f64,
# --bench, and clear refusals of bad input. Usage: cli_xcorr.sh <bin dir>
set -uo pipefail
bin=${1:?usage: cli_xcorr.sh <bin dir>}
cli=$bin/clpk-xcorr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

hex_byte() { printf "\\x$(printf %02x $(($1 & 255)))"; }
# npy <file> <descr> <shape tuple text> : writes the header; the data follows on stdin (raw bytes)
npy_header() {
    local descr=$1 shape=$2
    local dict="{'descr': '$descr', 'fortran_order': False, 'shape': $shape, }"
    local total=$((10 + ${#dict} + 1))
    local pad=$(((64 - total % 64) % 64))
    local len=$((${#dict} + pad + 1))
    printf '\x93NUMPY\x01\x00'
    hex_byte $len
    hex_byte $((len >> 8))
    printf '%s%*s\n' "$dict" $pad ''
}
le32() { hex_byte $1; hex_byte $(($1 >> 8)); hex_byte $(($1 >> 16)); hex_byte $(($1 >> 24)); }
# npy_i4 <file> <shape tuple text> <values...>
npy_i4() {
    local file=$1 shape=$2
    shift 2
    { npy_header '<i4' "$shape"; for v in "$@"; do le32 $((v & 0xFFFFFFFF)); done; } >"$file"
}
# count values of a deterministic pseudo-random sequence in [-9, 9]
seq_values() {
    local n=$1 s=$2
    for ((i = 0; i < n; ++i)); do
        s=$(((s * 1103515245 + 12345) & 0x7fffffff))
        echo $(((s >> 16) % 19 - 9))
    done
}
expect_ok() { # label, command...
    local label=$1
    shift
    if out=$("$@" 2>&1); then ok; else bad "$label: exit $?: $out"; fi
}
expect_fail() { # label, message regex, command...
    local label=$1 re=$2
    shift 2
    out=$("$@" 2>&1)
    local rc=$?
    if [ $rc -ne 0 ] && grep -qiE "$re" <<<"$out"; then ok; else bad "$label: rc $rc, output: $out"; fi
}

# 1. By hand: left [[1,2],[3,4]], right identity -> [[1,2,0],[3,5,2],[0,3,4]].
npy_i4 "$tmp/l1.npy" '(1, 2, 2)' 1 2 3 4
npy_i4 "$tmp/r1.npy" '(2, 2)' 1 0 0 1
expect_ok "hand example" "$cli" --pattern one-to-one --left "$tmp/l1.npy" --right "$tmp/r1.npy" --out "$tmp/o1.npy"
got=$(tail -c 36 "$tmp/o1.npy" | od -An -tf4 -v | tr -s ' \n' ' ' | sed 's/^ //;s/ $//')
if [ "$got" = "1 2 0 3 5 2 0 3 4" ]; then ok; else bad "hand example: got '$got'"; fi
head -c 6 "$tmp/o1.npy" | od -c | grep -q "N   U   M   P   Y" && ok || bad "output is not .npy"
grep -q "'shape': (1, 3, 3)" "$tmp/o1.npy" && ok || bad "output shape is not (1, 3, 3)"

# 2. Every pattern, several algorithms, checked against the CPU reference.
npy_i4 "$tmp/left2.npy" '(2, 5, 4)' $(seq_values 40 7)
npy_i4 "$tmp/left1.npy" '(1, 5, 4)' $(seq_values 20 11)
npy_i4 "$tmp/right2.npy" '(2, 5, 4)' $(seq_values 40 13)
npy_i4 "$tmp/right6.npy" '(6, 5, 4)' $(seq_values 120 17)
run_check() { # pattern left right algorithm [extra args]
    local p=$1 l=$2 r=$3 a=$4
    shift 4
    if out=$("$cli" --pattern "$p" --left "$tmp/$l" --right "$tmp/$r" --out "$tmp/o.npy" --algorithm "$a" --check "$@" 2>&1) &&
        grep -q "check: .*OK" <<<"$out"; then ok; else bad "$p $a $*: $out"; fi
}
for a in auto naive shift-buffer split-row grouped warp-per-overlap local fused-fft; do
    run_check one-to-one left2.npy right2.npy $a
done
run_check one-to-one left2.npy right2.npy fused-fft --search-size 3x5 --params rows=2,wg=64,fft_pad=pow2
for a in auto naive multi-right split-row; do
    run_check one-to-many left1.npy right6.npy $a
    run_check n-to-mn left2.npy right6.npy $a
done
for a in naive multi-right multi-both; do run_check n-to-m left2.npy right6.npy $a; done
run_check n_to_m left2.npy right6.npy multi-both --params lefts=2,rights=4,shifts=1,rows=2
run_check one-to-many left1.npy right6.npy grouped --search-size 3x5
run_check n-to-m left2.npy right6.npy local --search-size 3x5 --params rows=4,shifts=2,wg=64
run_check n-to-mn left2.npy right6.npy naive --search-size 5 --precision f64
run_check one-to-one left2.npy right2.npy split-row --precision f64 --params combine=atomic,rows_per_worker=2
run_check n-to-mn left2.npy right6.npy split-row --params distribution=triangle,rows_per_worker=2
run_check one-to-many left1.npy right6.npy fused-fft --search-size 3x5
run_check n-to-m left2.npy right6.npy fused-fft --params rows=2,wg=64,fused_batch=2
run_check n-to-mn left2.npy right6.npy fused-fft --precision f64 --params fft_pad=pow2
# The shuffle form: checked where the device has a sub-group (warp) shuffle with one of these teams as a sub-group
# (32: NVIDIA's warps; 16 or 8: Intel's CPU runtime picks 16 or 8 lanes), else a clear UNSUPPORTED refusal.
for team in 32 16 8; do
    rc=0
    out=$("$cli" --pattern one-to-one --left "$tmp/left2.npy" --right "$tmp/right2.npy" --out "$tmp/o.npy" \
        --algorithm shift-buffer --params team=$team,shuffle=subgroup --check 2>&1) || rc=$?
    [ "$rc" = 0 ] && break
    grep -q "sub-group" <<<"$out" || break # a failure, not a refusal
done
if [ "$rc" = 0 ]; then
    grep -q "check: .*OK" <<<"$out" && ok || bad "shuffle=subgroup team=$team: $out"
else
    grep -q "sub-group" <<<"$out" && ok || bad "shuffle=subgroup team=$team refused without a reason: $out"
fi
out=$("$cli" --pattern n-to-mn --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --search-size 3 2>&1)
grep -q "'shape': (6, 3, 3)" "$tmp/o.npy" && ok || bad "search window output shape: $out"
out=$("$cli" --pattern n-to-m --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --bench 3 2>&1)
grep -q "bench: 3 runs, median" <<<"$out" && ok || bad "bench: $out"

# 3. Refusals with a clear message and a non-zero exit.
expect_fail "missing file" "no-such|open|exist" "$cli" --pattern one-to-one --left "$tmp/no-such.npy" --right "$tmp/r1.npy" --out "$tmp/o.npy"
expect_fail "size mismatch" "2x2 but right ones 5x4" "$cli" --pattern one-to-one --left "$tmp/l1.npy" --right "$tmp/right2.npy" --out "$tmp/o.npy"
expect_fail "pattern counts" "one-to-one.*must be equal" "$cli" --pattern one-to-one --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy"
expect_fail "one-to-many counts" "exactly 1" "$cli" --pattern one-to-many --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy"
expect_fail "unknown pattern" "unknown pattern" "$cli" --pattern many --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy"
expect_fail "unknown algorithm" "unknown algorithm" "$cli" --pattern n-to-m --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --algorithm fastest
expect_fail "unknown parameter" "shiftz" "$cli" --pattern n-to-m --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --algorithm grouped --params shiftz=2
expect_fail "bad parameter value" "wg=0" "$cli" --pattern n-to-m --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --algorithm naive --params wg=0
expect_fail "even window" "odd" "$cli" --pattern n-to-m --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --search-size 4
expect_fail "window too big" "at most 9x7" "$cli" --pattern n-to-m --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --search-size 11x7
expect_fail "bench count" "bench" "$cli" --pattern n-to-m --left "$tmp/left2.npy" --right "$tmp/right6.npy" --out "$tmp/o.npy" --bench 0
expect_fail "missing argument" "required" "$cli" --pattern n-to-m --left "$tmp/left2.npy"
head -c 100 "$tmp/right6.npy" >"$tmp/trunc.npy"
expect_fail "truncated file" "trunc" "$cli" --pattern one-to-many --left "$tmp/left1.npy" --right "$tmp/trunc.npy" --out "$tmp/o.npy"
{ npy_header '<f4' '(1, 1, 2)'; printf '\x00\x00\x80\x3f\x00\x00\xc0\x7f'; } >"$tmp/nan.npy"
expect_fail "NaN input" "not finite" "$cli" --pattern one-to-one --left "$tmp/nan.npy" --right "$tmp/nan.npy" --out "$tmp/o.npy"
{ npy_header '<i4' '(0, 2, 2)'; } >"$tmp/empty.npy"
expect_fail "empty stack" "empty" "$cli" --pattern one-to-one --left "$tmp/empty.npy" --right "$tmp/empty.npy" --out "$tmp/o.npy"
npy_i4 "$tmp/vec.npy" '(4,)' 1 2 3 4
expect_fail "1-D input" "dimensions" "$cli" --pattern one-to-one --left "$tmp/vec.npy" --right "$tmp/vec.npy" --out "$tmp/o.npy"
expect_fail "unwritable output" "o.npy|open|write" "$cli" --pattern one-to-one --left "$tmp/l1.npy" --right "$tmp/r1.npy" --out "$tmp/no/dir/o.npy"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
