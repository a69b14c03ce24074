#!/usr/bin/env bash
# BCCOO value vectors (vload=1) against the old per-row loads (vload=0) in one run (docs/perf-spmv.md, row 4):
# dense 4K and 8K, fem3d at benchmark size and webgraph (irregular, Zipf columns), f32 and f64, old and new path
# at the tuned points of the earlier H100 runs plus a few tile/shape neighbours. Every plan is checked against the
# double CPU reference (WRONG in the table otherwise); times are medians of 100 profiling events after 10 warm-up;
# GB/s counts BCCOO's own bytes + x + y; %copy is against the float4 copy probe of the same call. A fresh program
# cache lets the script count the load instructions in the compiled programs (PTX on NVIDIA).
#
#   BIN=.gpu/build/bin bench/spmv-vload.sh OUT_DIR      (. .gpu/enter first on the H100; ~2-3 minutes there)
# Writes OUT_DIR/spmv-vload.md (tables, old/new pairs, load counts), spmv-vload.json (records + pairs),
# spmv-vload.txt (raw log). SCALE=0.01 makes a quick local smoke run.
set -u
[ $# -eq 1 ] || { echo "usage: BIN=bin_dir bench/spmv-vload.sh OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1 bin=${BIN:-$(dirname "$here")/build/bin} scale=${SCALE:-1}
[ -x "$bin/clpk-bench-spmv" ] || { echo "spmv-vload.sh: $bin/clpk-bench-spmv not found (set BIN)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clpk-vload.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export CLPK_CACHE_DIR=$tmp/cache # fresh: every program is compiled here, so its binary can be inspected
mkdir -p "$CLPK_CACHE_DIR"
log=$out/spmv-vload.txt
: >"$log"
status=0
c="format=bccoo,sync=adjacent,skip_scan=1,transpose=offline,interleave=0" # the layout of session 4
s2="wg=256,strategy=2,cache=2" s1="wg=256,strategy=1,cache=1"

# run NAME CASE SCALE VARIANT... : one clpk-bench-spmv call (one copy probe), old/new variants interleaved
run() {
    local name=$1 case=$2 sc=$3
    shift 3
    local args=()
    for v in "$@"; do args+=(--variant "$v"); done
    echo "== $name" | tee -a "$log"
    "$bin/clpk-bench-spmv" --cases "$case" --scale "$sc" --impls none --precision f32,f64 --repeats 100 \
        --json "$tmp/$name.json" "${args[@]}" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
}
sq=$(python3 -c "print($scale)") sq4=$(python3 -c "print(4*$scale)")

# dense 4K (16 M nnz): tuned f32 4x2 t16 s2 (session 2) and 4x4 t16 s1 (session 3); f64 4x4 t16 s2, 3x4 t8 s2
run dense4k dense "$sq" \
    "f32:old-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f32:new-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f32:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=0" \
    "f32:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=1" \
    "f32:old-2x2=$c,block=2x2,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f32:new-2x2=$c,block=2x2,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f32:new-4x2-t8=$c,block=4x2,flag_bits=8,col=short,tile=8,$s1,vload=1" \
    "f32:new-4x2-t32=$c,block=4x2,flag_bits=32,col=short,tile=32,$s2,vload=1" \
    "f64:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f64:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f64:old-3x4-t8=$c,block=3x4,flag_bits=32,col=short,tile=8,$s2,vload=0" \
    "f64:new-3x4-t8=$c,block=3x4,flag_bits=32,col=short,tile=8,$s2,vload=1" \
    "f64:old-4x1=$c,block=4x1,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f64:new-4x1=$c,block=4x1,flag_bits=32,col=short,tile=16,$s2,vload=1"
# dense 8K (64 M nnz)
run dense8k dense "$sq4" \
    "f32:old-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f32:new-4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2,vload=1" \
    "f32:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=0" \
    "f32:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1,vload=1" \
    "f64:old-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=0" \
    "f64:new-4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2,vload=1"
# fem3d (39 M nnz): tuned 3x2 t16 s1 col=int (f32 and f64), the profile's 3x4 t8 s2 flag16 (f32), 3x2 delta (f64)
run fem3d fem3d "$sq" \
    "f32:old-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=0" \
    "f32:new-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=1" \
    "f32:old-3x4-t8=$c,block=3x4,flag_bits=16,col=int,tile=8,wg=256,strategy=2,cache=4,vload=0" \
    "f32:new-3x4-t8=$c,block=3x4,flag_bits=16,col=int,tile=8,wg=256,strategy=2,cache=4,vload=1" \
    "f32:new-3x2-t8=$c,block=3x2,flag_bits=16,col=int,tile=8,$s1,vload=1" \
    "f64:old-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=0" \
    "f64:new-3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1,vload=1" \
    "f64:old-3x2-delta=$c,block=3x2,flag_bits=16,col=delta,tile=8,$s1,vload=0" \
    "f64:new-3x2-delta=$c,block=3x2,flag_bits=16,col=delta,tile=8,$s1,vload=1"
# webgraph (13.9 M nnz, irregular): tuned f32 2x1 t16 s2 (vload=1 makes it one float2 per block); 1x1 unchanged
run webgraph webgraph "$sq" \
    "f32:old-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=0" \
    "f32:new-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=1" \
    "f32:old-1x1=$c,block=1x1,flag_bits=32,col=int,tile=16,$s2,vload=0" \
    "f64:old-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=0" \
    "f64:new-2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2,vload=1" \
    "f64:old-1x1-t8=$c,block=1x1,flag_bits=32,col=int,tile=8,$s2,vload=0"

python3 "$here/spmv_pairs.py" --tmp "$tmp" --out "$out" --name spmv-vload --runs dense4k,dense8k,fem3d,webgraph \
    --title "vload=1 (value vectors, aligned loads) vs vload=0" --cache "$CLPK_CACHE_DIR" || status=1
echo "== outputs in $out: $(cd "$out" && ls | tr '\n' ' ')"
exit "$status"
