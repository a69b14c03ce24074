#!/usr/bin/env bash
# End-to-end checks of clpk-spmv: generated and real matrices with --check in f32 and f64, --out/--x round trip,
# --bench output, clear refusals (complex file, bad options, missing file). $1 = the build's bin directory.
set -u
BIN=${1:?usage: cli_spmv.sh BIN_DIR}
DATA=${CLPK_SHARED_DATA_DIR:-$(dirname "$0")/../../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { # expect STATUS PATTERN -- command...
    local want=$1 pattern=$2; shift 3
    local out status
    out=$("$@" 2>&1); status=$?
    if [ "$status" != "$want" ]; then bad "$* exited $status, expected $want: $out"; return; fi
    if ! grep -qE -- "$pattern" <<<"$out"; then bad "$*: output lacks /$pattern/: $out"; return; fi
    ok
}
S="$BIN/clpk-spmv"
expect 0 "check: relative error .* OK" -- "$S" --generate fem:20 --check
expect 0 "check: relative error .* OK" -- "$S" --generate powerlaw:2000 --check --precision f64 --format bccoo+
expect 0 "check: relative error .* OK" -- "$S" --generate stencil3d:12 --check --format csr
expect 0 "plan: f32 format=bccoo,block_h=2,block_w=2" -- "$S" --generate fem:8 --format bccoo \
    --params block_h=2,block_w=2,tile=3,wg=16,strategy=2,cache=1,sync=adjacent --check
expect 0 "bench: 3 runs, median .* GFLOP/s, .* GB/s" -- "$S" --generate fem:10 --bench 3
expect 2 "unknown format|not one of" -- "$S" --generate fem:4 --format ell
expect 2 "tile=0" -- "$S" --generate fem:4 --params tile=0
expect 2 "unknown spec" -- "$S" --generate blob:4
expect 2 "give a matrix file" -- "$S"
expect 2 "cannot open|No such file|could not" -- "$S" "$tmp/missing.mtx"
if [ -d "$DATA/matrices" ]; then
    M=$DATA/matrices
    expect 2 "complex" -- "$S" "$M/young1c.mtx" --check
    for f in west0479 lp_e226 dwt_992 zenios; do
        expect 0 "check: relative error .* OK" -- "$S" "$M/$f.mtx" --check
        expect 0 "check: relative error .* OK" -- "$S" "$M/$f.mtx" --check --precision f64
    done
    # --out then --x: y = A*x written, then used as x of a square matrix
    expect 0 "check" -- "$S" "$M/west0479.mtx" --check --out "$tmp/y.mtx"
    if [ "$(grep -vc '^%' "$tmp/y.mtx")" -ge 479 ]; then ok; else bad "y.mtx has too few lines"; fi
    expect 0 "check: relative error .* OK" -- "$S" "$M/west0479.mtx" --x "$tmp/y.mtx" --check --precision f64
    expect 2 "entries" -- "$S" "$M/lp_e226.mtx" --x "$tmp/y.mtx"
else
    echo "SKIP real matrices: $DATA/matrices not found"
fi
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
