#!/usr/bin/env bash
# Dense 4K (16 M nonzeros) in both precisions over tile x work-group x shape, prefetch 1, plus single-parameter
# neighbours of the best f64 point (docs/perf-spmv.md, "Dense 4K: waves"). Programs are compiled into a fresh cache
# that is copied to OUT_DIR/cache, so the register use of every program can be read afterwards (`ptxas -v` on the
# PTX the NVIDIA driver keeps) and set against the number of work-groups the device runs at once.
#
#   BIN=.gpu/build/bin bench/spmv-dense.sh OUT_DIR      (. .gpu/enter first on the H100; ~3 minutes there)
# Writes OUT_DIR/dense-f32.txt|json, dense-f64.txt|json, dense-f64-n.txt|json, cache/*.clbin. SCALE=0.01 for a
# local smoke run.
set -u
[ $# -eq 1 ] || { echo "usage: BIN=bin_dir bench/spmv-dense.sh OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1 bin=${BIN:-$(dirname "$here")/build/bin} scale=${SCALE:-1}
[ -x "$bin/clpk-bench-spmv" ] || { echo "spmv-dense.sh: $bin/clpk-bench-spmv not found (set BIN)" >&2; exit 2; }
mkdir -p "$out/cache"
export CLPK_CACHE_DIR=$out/cache
status=0
c="format=bccoo,flag_bits=32,col=short,cache=2,sync=adjacent,skip_scan=1,transpose=offline,slices=1,vload=1"
c="$c,interleave=1,prefetch=1,strategy=2"

# run NAME PREC VARIANT... : one clpk-bench-spmv process (one copy probe, at most 32 variants)
run() {
    local name=$1 prec=$2
    shift 2
    local args=()
    for v in "$@"; do args+=(--variant "$prec:$v"); done
    "$bin/clpk-bench-spmv" --cases dense --scale "$scale" --impls none --precision "$prec" --repeats 100 \
        --json "$out/$name.json" "${args[@]}" >"$out/$name.txt" 2>&1 || status=1
    cat "$out/$name.txt"
}

v=()
for shape in 3x4 4x4 2x4; do
    for tile in 4 6 8 10 12 16; do
        [ "$shape" != 3x4 ] && [ "$tile" = 4 ] && continue
        for wg in 128 256; do v+=("$shape-t$tile-w$wg=$c,block=$shape,tile=$tile,wg=$wg"); done
    done
done
run dense-f64 f64 "${v[@]:0:32}"

b="$c,block=3x4,tile=8,wg=256"
run dense-f64-n f64 "base=$b" "s1=$b,strategy=1,cache=1" "fallback=$b,sync=fallback" "flag8=$b,flag_bits=8" \
    "scan=$b,skip_scan=0" "noint=$b,interleave=0" "novload=$b,vload=0" "cache1=$b,cache=1" "cache4=$b,cache=4" \
    "w64=$c,block=3x4,tile=8,wg=64" "t8w512=$c,block=3x4,tile=8,wg=512" "t7=$c,block=3x4,tile=7,wg=256" \
    "t9=$c,block=3x4,tile=9,wg=256" "base2=$b"

v=()
for shape in 1x4 2x4 2x2 4x4; do
    for tile in 8 12 16 24; do
        for wg in 128 256; do v+=("$shape-t$tile-w$wg=$c,block=$shape,tile=$tile,wg=$wg"); done
    done
done
run dense-f32 f32 "${v[@]:0:32}"
exit $status
