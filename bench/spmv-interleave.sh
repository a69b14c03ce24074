#!/usr/bin/env bash
# Rows dealt step-major over threads (interleave=1) against the contiguous deal (interleave=0) in one run
# (docs/perf-spmv.md, row 5): dense 4K and 8K, fem3d, protein, webgraph and random16 at benchmark size, f32 and f64,
# both layouts at the best points of the earlier H100 runs (vload=1) plus shape/tile neighbours. interleave changes
# only the host image (which block sits where inside a row), so each pair runs the very same program. Every plan is
# checked against the double CPU reference (WRONG in the table otherwise); times are medians of 100 profiling
# events after 10 warm-up; GB/s counts BCCOO's own bytes + x + y; %copy is against the copy probe of the same call.
#
#   BIN=.gpu/build/bin bench/spmv-interleave.sh OUT_DIR      (. .gpu/enter first on the H100; ~3-4 minutes there)
# Writes OUT_DIR/spmv-interleave.md (old/new pairs, best per case, every record), spmv-interleave.json,
# spmv-interleave.txt (raw log). SCALE=0.01 makes a quick local smoke run.
set -u
[ $# -eq 1 ] || { echo "usage: BIN=bin_dir bench/spmv-interleave.sh OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1 bin=${BIN:-$(dirname "$here")/build/bin} scale=${SCALE:-1}
[ -x "$bin/clpk-bench-spmv" ] || { echo "spmv-interleave.sh: $bin/clpk-bench-spmv not found (set BIN)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clpk-interleave.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log=$out/spmv-interleave.txt
: >"$log"
status=0
c="format=bccoo,sync=adjacent,skip_scan=1,transpose=offline,vload=1"
s2="wg=256,strategy=2,cache=2" s1="wg=256,strategy=1,cache=1"

# run NAME CASE SCALE PREC:LABEL=PARAMS... : one clpk-bench-spmv call; each point as old- (interleave=0) and new-
run() {
    local name=$1 case=$2 sc=$3
    shift 3
    local args=()
    for v in "$@"; do
        local prec=${v%%:*} rest=${v#*:}
        local label=${rest%%=*} params=${rest#*=}
        args+=(--variant "$prec:old-$label=$params,interleave=0" --variant "$prec:new-$label=$params,interleave=1")
    done
    echo "== $name" | tee -a "$log"
    "$bin/clpk-bench-spmv" --cases "$case" --scale "$sc" --impls none --precision f32,f64 --repeats 100 \
        --json "$tmp/$name.json" "${args[@]}" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
}
sq=$(python3 -c "print($scale)") sq4=$(python3 -c "print(4*$scale)")

run dense4k dense "$sq" \
    "f32:2x2=$c,block=2x2,flag_bits=32,col=short,tile=16,$s2" \
    "f32:4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1" \
    "f32:4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2" \
    "f32:1x4=$c,block=1x4,flag_bits=32,col=short,tile=16,$s2" \
    "f32:2x2-t8=$c,block=2x2,flag_bits=8,col=short,tile=8,$s1" \
    "f32:2x2-t32=$c,block=2x2,flag_bits=32,col=short,tile=32,$s2" \
    "f64:3x4-t8=$c,block=3x4,flag_bits=32,col=short,tile=8,$s2" \
    "f64:4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2" \
    "f64:2x2=$c,block=2x2,flag_bits=32,col=short,tile=16,$s2"
run dense8k dense "$sq4" \
    "f32:4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s1" \
    "f32:2x2=$c,block=2x2,flag_bits=32,col=short,tile=16,$s2" \
    "f32:4x2=$c,block=4x2,flag_bits=32,col=short,tile=16,$s2" \
    "f64:4x4=$c,block=4x4,flag_bits=32,col=short,tile=16,$s2" \
    "f64:3x4-t8=$c,block=3x4,flag_bits=32,col=short,tile=8,$s2"
run fem3d fem3d "$sq" \
    "f32:3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1" \
    "f32:3x4-t8=$c,block=3x4,flag_bits=16,col=int,tile=8,wg=256,strategy=2,cache=4" \
    "f64:3x2=$c,block=3x2,flag_bits=32,col=int,tile=16,$s1"
run protein protein "$sq" \
    "f32:1x4=$c,block=1x4,flag_bits=32,col=short,tile=16,$s2" \
    "f32:2x4=$c,block=2x4,flag_bits=32,col=short,tile=16,$s2" \
    "f64:1x4=$c,block=1x4,flag_bits=32,col=short,tile=16,$s2"
run webgraph webgraph "$sq" \
    "f32:1x1=$c,block=1x1,flag_bits=32,col=int,tile=16,$s2" \
    "f32:2x1=$c,block=2x1,flag_bits=32,col=int,tile=16,$s2" \
    "f64:1x1-t8=$c,block=1x1,flag_bits=32,col=int,tile=8,$s2"
run random16 random16 "$sq" \
    "f32:1x1=$c,block=1x1,flag_bits=32,col=int,tile=16,$s2" \
    "f64:1x1=$c,block=1x1,flag_bits=32,col=int,tile=16,$s2"

python3 "$here/spmv_pairs.py" --tmp "$tmp" --out "$out" --name spmv-interleave \
    --runs dense4k,dense8k,fem3d,protein,webgraph,random16 \
    --title "interleave=1 (rows dealt step-major over threads) vs interleave=0" || status=1
echo "== outputs in $out: $(cd "$out" && ls | tr '\n' ' ')"
exit "$status"
