#!/usr/bin/env bash
# Every kernel variant of every family under oclgrind (Debian package `oclgrind`, an OpenCL device simulator) on tiny
# inputs, through the CLIs, twice: data-race detection (OCLGRIND_DATA_RACES=1) and, separately, uninitialized-value
# detection (OCLGRIND_UNINITIALIZED=1; the two together crash oclgrind 21.10), both with OCLGRIND_CHECK_API=1.
# Out-of-bounds accesses are reported in both modes. A variant fails on any oclgrind report (its log, OCLGRIND_LOG,
# must stay empty), a non-zero exit of the CLI, or a missing "OK" from the CLI's own check of the result (--check
# against the CPU reference). One line per variant, a summary, exit status 1 on any failure. Kernels are interpreted
# at -O0 and the uninitialized mode preloads a small shim: both work around oclgrind 21.10 bugs (comments below).
#
# Usage: scripts/oclgrind-check.sh [--list] [--mode races|uninit|both] [--filter REGEX] [BIN_DIR]
#   BIN_DIR   the build's bin directory (default ${CLPK_BUILD:-build}/bin)
#   --list    print the variants and exit;  --filter REGEX  only the variants whose label matches
#   CLPK_OCLGRIND_JOBS  parallel runs (default: nproc; each oclgrind runs one worker thread)
#
# The device: an OpenCL ICD vendor directory holding only oclgrind's ICD (liboclgrind-rt-icd.so), so it is the one
# device, also selected by name (CLPK_DEVICE=oclgrind). Program cache: a fresh, empty directory per mode.
#
# Skipped reports (exactly two kinds, each matched on all its parts; any other report fails):
#  1. Read-write races inside VkFFT's generated kernel VkFFT_main between a load of inputs[..] and a store of
#     outputs[..] by two work-items of the same work-group. VkFFT reads the group's whole data into local memory before
#     its first barrier and writes after its last one; oclgrind orders global accesses only at barriers with
#     CLK_GLOBAL_MEM_FENCE, VkFFT's are CLK_LOCAL_MEM_FENCE. Evidence: docs/xcorr.md, "oclgrind and VkFFT's in-place
#     transforms".
#  2. Read-write races between the plain (volatile) load that gives a compare-and-swap loop its first guess and
#     another work-item's atomic_cmpxchg/atom_cmpxchg, in the kernels that add floats that way (life_dsc_atomics,
#     life_wc_atomics, life_wc_atom, life_wc_voxel, xcorr_split_atomic). The exchange checks the guess, so the race
#     cannot change a result; guessing 0 instead cost the H100's f64 DSC 43% (cl/life_spmv.cl, docs/life.md).
#
# How the variant list was derived (read the code; the coverage check at the end fails when a tuner list grows a
# value no variant runs):
#  spmv  (cl/spmv_bccoo.cl, cl/spmv_csr.cl; parameters lib/spmv/spmv_params.c, lib/spmv/spmv_config.c,
#        tuner/tune_spmv.c, build options lib/spmv/spmv_plan.c spmv_bccoo_options). Compile-time switches: IS_DOUBLE,
#        BH 1..4 x BW 1|2|4 (the 12 shapes the tuner ranks), FLAG_BITS 8|16|32, COL_BITS 16|32 and COL_DELTA
#        (col=short|int|delta; auto picks short or int), TILE (the table's tile values), WG, STRATEGY 1|2, SYNC_ADJ
#        (sync=adjacent|fallback), SLICED (format bccoo|bccoo+), STAGE (transpose=online with a staging buffer that
#        fits, else natural order; col=delta never stages), VLOAD/VW (block_rows' four load codes: scalar, one vector
#        per block row, BW=1 with 2 or 4 rows per vector, BW=2 with 2 rows per vector; X_ALIGNED follows vload with
#        BW > 1 at x offset 0), PREFETCH 1|4|8. Runtime switches: skip_scan, cache (strategy 2), slices (bccoo+),
#        interleave (host layout), online mode. 24 BCCOO points (12 shapes x f32/f64) carry every value of every
#        list, each precision every combination of strategy x sync x format, online staged and unstaged, and each
#        vload code; CSR: both kernels (scalar, vector) with every csr_vec, both precisions, and csr_kernel=adaptive
#        with and without split rows. Matrices have long rows spanning threads and groups, empty rows, and sizes that
#        are multiples of no block side.
#  xcorr (lib/xcorr/xcorr_direct.c algorithms[], lib/xcorr/xcorr_fft.c, lib/xcorr/xcorr_fused.c, tuner/tune_xcorr.c). Every algorithm
#        on every pattern it accepts (multi-right: not one-to-one; multi-both: n-to-m), every
#        value of its tuner parameters (TEAM, WPO_WG, LOCAL_WG, SHIFTS/ROWS/LEFTS/RIGHTS and BLOCK_ROWS/COLS are
#        compile-time), f32 and f64, some with a search window; fft with batches that leave a remainder (a second
#        VkFFT application) and both paddings (radix-2/3 codes), fused-fft with both paddings, every rows and wg
#        value, every fft_radix (a program each), chunked pairs (fused_batch), both local layouts (fused_gaps), tiled intermediates (fused_tiles),
#        one-to-one's row kernels on their own work-group size (fused_row_wg),
#        on each pattern (one-to-one and the shared-matrix kernels of cl/xcorr_fused_many.cl, with chunks of lefts for n-to-m). Not runnable here:
#        shift-buffer shuffle=subgroup (oclgrind has no sub-groups; the plan refuses it as UNSUPPORTED there).
#  life  (cl/life_spmv.cl, cl/life_fit.cl; lib/life/life_plan.c, tuner/tune_life.c). DSC kernels
#        atomics|voxel|pairs|staged|voxel4 and WC kernels atomics|atom|fiber|voxel|pairs|staged|fiber4, each run
#        by its own subcommand (dsc, wc) in f32 and f64 (HAVE_ATOM64), every team/runs/unroll/wc_team/wc_runs/wg value, VOXEL_KEYED and
#        FIBER_KEYED (voxel_order=morton, fiber_order=voxel: wc=pairs's fibre sums too), DSC_UNROLL (dsc=pairs),
#        THETA_PARTS > 1 (theta_parts 2..4); `fit` runs
#        life_mask/life_bb_step (and CLBlast), and with dsc=pairs,wc=pairs the clipped step's kernels
#        (life_bb_step_clip, life_mark_clipped, stamped pair passes, life_residual_update, life_gradient_update).
#        The "timed" strategy only chooses among these kernels.
#  sshopm (cl/sshopm_*.cl, lib/sshopm/sshopm_plan.c, lib/sshopm/sshopm_codegen.c, lib/sshopm/sshopm_reduce.c, tuner/tune_sshopm.c).
#        Generated kernels (per order and dimension; m = 2 is the codegen's degenerate case) with entries
#        private|local|global and the general kernel with local|global, SSHOPM_ADAPTIVE 0|1 (--shift adaptive),
#        every check_every and wg value, f32 and f64, device-side starts (--starts-kind per-tensor), min/both
#        directions, and the post-processing kernel clpk_sshopm_reduce (--post device). The CLI has no --check:
#        a variant must report no failed start.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
list_only=0 modes="races uninit" filter="" bin=""
while [ $# -gt 0 ]; do
    case $1 in
    --list) list_only=1 ;;
    --mode) modes=${2:?--mode needs races, uninit or both}; [ "$modes" = both ] && modes="races uninit"; shift ;;
    --filter) filter=${2:?--filter needs a regular expression}; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "oclgrind-check: unknown option $1" >&2; exit 2 ;;
    *) bin=$1 ;;
    esac
    shift
done
bin=${bin:-${CLPK_BUILD:-$root/build}/bin}
jobs=${CLPK_OCLGRIND_JOBS:-$(nproc)}

# ---------------------------------------------------------------------------------------------------------------
# Variants: add LABEL EXPECT COMMAND... (LABEL holds the key=value choices; EXPECT: an extended regex the output
# must match, the CLI's own verdict). Commands name $bin, $data (inputs written below) and $work (a per-run file
# prefix) unexpanded.
labels=() expects=() cmds=()
add() {
    local label=$1 expect=$2
    shift 2
    [ -n "$filter" ] && ! grep -qE -- "$filter" <<<"$label" && return
    labels+=("$label")
    expects+=("$expect")
    cmds+=("$*")
}
spmv_ok='^check: .* OK$'
xcorr_ok='^check: .*: OK$'
life_ok='^check: .*: OK$'
sshopm_ok='starts [0-9]+ converged, [0-9]+ capped( \([^)]*\))?, 0 failed$'

# spmv matrices: A long rows (150 entries every 5th row, else 0-3) spanning threads and groups; B 9 per row; D wider
# than tall (BCCOO+ slices). None has a side that a block side divides.
A=longrow:45:203:150 B=random:61:75:9 D=random:37:250:12
# prec block flag_bits col tile wg strategy cache sync skip_scan transpose format slices interleave prefetch vload matrix
spmv_points="
f32 1x1 8  short 8   64  1 1 adjacent 0 offline bccoo  2  0 1 0 A
f32 1x2 16 int   12  128 2 1 adjacent 1 offline bccoo  2  1 8 1 A
f32 1x4 32 delta 16  256 1 1 fallback 0 offline bccoo  2  0 4 0 B
f32 2x1 8  short 24  64  2 2 fallback 1 offline bccoo  2  1 1 1 A
f32 2x2 16 short 32  64  1 1 adjacent 1 offline bccoo+ 2  0 4 0 D
f32 2x4 32 int   40  128 2 3 adjacent 0 offline bccoo+ 4  1 8 1 D
f32 3x1 8  delta 64  64  1 1 fallback 1 offline bccoo+ 8  0 1 0 D
f32 3x2 16 short 96  64  2 4 fallback 0 offline bccoo+ 16 1 4 0 D
f32 3x4 8  short 8   64  2 2 adjacent 1 online  bccoo  2  0 1 0 A
f32 4x1 16 int   16  64  1 1 fallback 0 online  bccoo+ 32 1 4 1 D
f32 4x2 32 delta 128 64  2 1 adjacent 1 online  bccoo  2  0 8 1 A
f32 4x4 8  short 12  512 1 1 fallback 1 online  bccoo+ 2  1 1 0 D
f64 1x1 32 delta 128 64  2 1 fallback 1 online  bccoo  2  1 4 0 A
f64 1x2 8  short 32  64  1 1 adjacent 0 online  bccoo+ 4  0 8 0 D
f64 1x4 16 int   8   512 2 1 fallback 0 offline bccoo  2  1 1 1 B
f64 2x1 32 short 40  64  1 1 adjacent 1 offline bccoo  2  0 8 1 A
f64 2x2 8  delta 24  128 2 2 adjacent 0 offline bccoo+ 8  1 4 1 D
f64 2x4 16 short 16  256 1 1 fallback 1 offline bccoo+ 16 0 1 0 D
f64 3x1 32 int   96  64  2 3 fallback 0 offline bccoo  2  1 8 0 A
f64 3x2 8  short 32  128 1 1 adjacent 0 offline bccoo+ 32 0 4 0 D
f64 3x4 16 delta 12  64  2 4 adjacent 1 offline bccoo  2  1 1 0 A
f64 4x1 32 short 8   256 1 1 fallback 1 online  bccoo  2  0 4 1 B
f64 4x2 8  int   64  64  2 1 fallback 1 online  bccoo+ 2  1 8 0 D
f64 4x4 16 short 16  128 1 1 adjacent 0 offline bccoo  2  1 8 0 A
"
while read -r prec block flag col tile wg strategy cache sync skip transpose format slices inter prefetch vload m; do
    [ -n "$prec" ] || continue
    params="block=$block,flag_bits=$flag,col=$col,tile=$tile,wg=$wg,strategy=$strategy,cache=$cache,sync=$sync"
    params+=",skip_scan=$skip,transpose=$transpose,slices=$slices,interleave=$inter,prefetch=$prefetch,vload=$vload"
    add "spmv $prec format=$format $params" "$spmv_ok" \
        '"$bin/clpk-spmv"' --generate "${!m}" --precision "$prec" --format "$format" --params "$params" --check
done <<<"$spmv_points"
# CSR: csr_vec 1 is the scalar kernel, the rest the vector kernel (lanes reduce in local memory).
for p in "f32 1 64" "f64 1 128" "f32 2 256" "f64 4 512" "f32 8 64" "f64 16 128" "f32 32 64"; do
    read -r prec vec wg <<<"$p"
    add "spmv $prec format=csr csr_vec=$vec,wg=$wg" "$spmv_ok" \
        '"$bin/clpk-spmv"' --generate "$A" --precision "$prec" --format csr --params "csr_vec=$vec,wg=$wg" --check
done
# CSR csr_kernel=adaptive: row blocks of 4*wg entries; at wg <= 32, A's 150-entry rows are split into pieces (the
# second kernel adds them); B's blocks hold several rows each.
for p in "f32 16 16 A" "f64 32 64 A" "f32 1 32 A" "f32 64 1024 B" "f64 256 16 B"; do
    read -r prec wg steps m <<<"$p"
    add "spmv $prec format=csr csr_kernel=adaptive,wg=$wg,csr_steps=$steps" "$spmv_ok" \
        '"$bin/clpk-spmv"' --generate "${!m}" --precision "$prec" --format csr \
        --params "csr_kernel=adaptive,wg=$wg,csr_steps=$steps" --check
done

# xcorr: 9x7 matrices; patterns with their inputs (left, right).
declare -A xin=([one-to-one]="l2 r2" [one-to-many]="l1 r3" [n-to-mn]="l2 r4" [n-to-m]="l2 r3")
# xc PRECISION PATTERN ALGORITHM PARAMS [SEARCH]
xc() {
    local prec=$1 pattern=$2 algorithm=$3 params=$4 search=${5:-} l r
    read -r l r <<<"${xin[$pattern]}"
    local extra=()
    [ -n "$params" ] && extra+=(--params "$params")
    [ -n "$search" ] && extra+=(--search-size "$search")
    add "xcorr $prec $pattern algorithm=$algorithm $params${search:+ search=$search}" "$xcorr_ok" \
        '"$bin/clpk-xcorr"' --pattern "$pattern" --left "\"\$data/$l.npy\"" --right "\"\$data/$r.npy\"" \
        --out '"$work.npy"' --algorithm "$algorithm" --precision "$prec" "${extra[@]}" --check
}
xc f32 one-to-one naive wg=64
xc f64 one-to-many naive wg=128
xc f32 n-to-mn naive wg=256 5x3
xc f64 n-to-m naive wg=32
xc f32 one-to-one shift-buffer team=8,shuffle=local
xc f64 one-to-many shift-buffer team=16,shuffle=local
xc f32 n-to-mn shift-buffer team=32,shuffle=local
xc f64 n-to-m shift-buffer team=64,shuffle=local 3x5
xc f32 one-to-one shift-buffer team=128,shuffle=local 3x3
xc f32 one-to-one split-row rows_per_worker=1,combine=ordered,distribution=rectangle,wg=64
xc f64 one-to-many split-row rows_per_worker=2,combine=atomic,distribution=rectangle,wg=128
xc f32 n-to-mn split-row rows_per_worker=4,combine=ordered,distribution=triangle,wg=256
xc f64 n-to-m split-row rows_per_worker=8,combine=atomic,distribution=triangle,wg=32
xc f32 n-to-m split-row rows_per_worker=16,combine=ordered,distribution=rectangle,wg=64 5x5
xc f32 one-to-one split-row rows_per_worker=4,combine=atomic,distribution=triangle,wg=64 3x7
xc f32 one-to-one grouped shifts=1,rows=1,lefts=1,rights=1,wg=64
xc f64 one-to-many grouped shifts=2,rows=2,lefts=1,rights=1,wg=128
xc f32 n-to-mn grouped shifts=4,rows=4,lefts=1,rights=1,wg=256
xc f64 n-to-m grouped shifts=8,rows=4,lefts=1,rights=1,wg=32 5x3
xc f32 one-to-one grouped shifts=4,rows=8,lefts=1,rights=1,wg=64
xc f32 one-to-many multi-right shifts=1,rows=2,lefts=1,rights=2,wg=64
xc f64 n-to-mn multi-right shifts=2,rows=4,lefts=1,rights=4,wg=128
xc f32 n-to-m multi-right shifts=4,rows=1,lefts=1,rights=8,wg=64 7x5
xc f32 n-to-m multi-both shifts=1,rows=1,lefts=2,rights=2,wg=64
xc f64 n-to-m multi-both shifts=2,rows=1,lefts=4,rights=4,wg=256
xc f32 one-to-one warp-per-overlap wg=32
xc f64 one-to-many warp-per-overlap wg=64 7x5
xc f32 n-to-mn warp-per-overlap wg=128 5x5
xc f64 n-to-m warp-per-overlap wg=256 3x3
xc f32 one-to-one local rows=1,shifts=1,wg=64
xc f64 one-to-many local rows=2,shifts=2,wg=128
xc f32 n-to-mn local rows=4,shifts=4,wg=256
xc f64 n-to-m local rows=1,shifts=8,wg=64 5x3
xc f32 one-to-one fft fft_pad=smooth
xc f64 one-to-many fft fft_pad=pow2
xc f32 n-to-mn fft fft_pad=smooth,fft_batch=3
xc f64 n-to-mn fft fft_pad=smooth
xc f32 n-to-m fft fft_pad=pow2,fft_batch=2 5x3
xc f32 one-to-one fused-fft fft_pad=smooth,rows=1,wg=64,fused_gaps=1
xc f64 one-to-one fused-fft fft_pad=pow2,rows=2,wg=128,fused_gaps=0
xc f32 one-to-one fused-fft fft_pad=smooth,rows=4,wg=256,fused_batch=1
xc f64 one-to-one fused-fft fft_pad=smooth,rows=8,wg=64,fused_gaps=0 5x3
xc f32 one-to-one fused-fft fft_pad=pow2,rows=1,wg=64,fused_batch=1 9x7
xc f32 one-to-many fused-fft fft_pad=smooth,rows=2,wg=64,fused_gaps=1
xc f64 one-to-many fused-fft fft_pad=pow2,rows=8,wg=128,fused_batch=2 5x3
xc f32 n-to-m fused-fft fft_pad=smooth,rows=4,wg=256,fused_gaps=0
xc f64 n-to-m fused-fft fft_pad=smooth,rows=1,wg=64,fused_batch=2 3x5
xc f32 n-to-mn fused-fft fft_pad=pow2,rows=8,wg=64,fused_batch=1
xc f64 n-to-mn fused-fft fft_pad=smooth,rows=2,wg=256,fused_gaps=0 7x5
xc f32 one-to-one fused-fft fft_pad=pow2,rows=2,wg=64,fft_radix=16
xc f64 n-to-m fused-fft fft_pad=pow2,rows=1,wg=128,fft_radix=8
xc f32 one-to-many fused-fft fft_pad=smooth,rows=4,wg=64,fft_radix=16
xc f32 n-to-m fused-fft fft_pad=smooth,rows=3,wg=64,fused_tiles=1
xc f64 one-to-many fused-fft fft_pad=pow2,rows=2,wg=128,fused_tiles=1 5x3
xc f32 one-to-one fused-fft fft_pad=smooth,rows=4,wg=128,fused_row_wg=64,fft_radix=16
xc f32 n-to-mn fused-fft fft_pad=smooth,rows=4,wg=64,fused_tiles=1,fused_batch=2
xc f32 one-to-many fused-fft fft_pad=smooth,rows=16,wg=128,fused_tiles=1,fft_radix=16
xc f64 n-to-mn fused-fft fft_pad=pow2,rows=16,wg=256,fused_tiles=0 5x3

# life: the tiny synthetic dataset (16 directions, 531 coefficients); DSC and WC kernels run by their subcommands.
life_dsc() {
    add "life $1 dsc $2" "$life_ok" '"$bin/clpk-life"' dsc --data '"$data/life"' --w '"$data/life/w_true.npy"' \
        --out '"$work.npy"' --precision "$1" --params "$2" --check
}
life_wc() {
    add "life $1 wc $2" "$life_ok" '"$bin/clpk-life"' wc --data '"$data/life"' --y '"$data/life/signal.npy"' \
        --out '"$work.npy"' --precision "$1" --params "$2" --check
}
life_dsc f32 dsc=atomics,wg=64
life_dsc f64 dsc=atomics,wg=256
life_dsc f32 dsc=voxel,team=8,runs=1,unroll=1,voxel_order=index
life_dsc f64 dsc=voxel,team=16,runs=2,unroll=2,voxel_order=morton
life_dsc f32 dsc=voxel,team=32,runs=4,unroll=4,voxel_order=morton,theta_parts=2
life_dsc f64 dsc=voxel,team=64,runs=8,unroll=8,voxel_order=index,theta_parts=3
life_dsc f32 dsc=pairs,team=16,runs=4,unroll=2,dsc_unroll=4,voxel_order=morton,theta_parts=2
life_dsc f64 dsc=pairs,team=8,runs=2,unroll=4,dsc_unroll=1,voxel_order=index
life_dsc f32 dsc=atomics,wg=128,dict=half
life_dsc f32 dsc=voxel,team=16,runs=2,unroll=4,voxel_order=morton,dict=half
life_dsc f32 dsc=pairs,team=8,runs=4,unroll=8,voxel_order=index,theta_parts=2,dict=half
life_dsc f32 dsc=staged,team=8,runs=4,unroll=2,voxel_order=morton
life_dsc f64 dsc=staged,team=16,runs=2,unroll=1,voxel_order=index,theta_parts=2
life_dsc f32 dsc=staged,team=32,runs=2,unroll=4,dict=half
life_dsc f32 dsc=voxel4,team=8,runs=2,unroll=2,voxel_order=morton
life_dsc f64 dsc=voxel4,team=4,runs=4,unroll=1,voxel_order=index,theta_parts=3
life_dsc f32 dsc=voxel4,team=16,runs=1,unroll=4,theta_parts=2,dict=half
life_wc f32 wc=atomics,wg=128
life_wc f64 wc=atomics,wg=64
life_wc f32 wc=atom,wc_team=8,wc_runs=8
life_wc f64 wc=atom,wc_team=64,wc_runs=1
life_wc f32 wc=fiber,wc_team=16,wc_runs=2,unroll=1,fiber_order=voxel
life_wc f64 wc=fiber,wc_team=32,wc_runs=4,unroll=8,fiber_order=index,theta_parts=2
life_wc f32 wc=fiber,wc_team=64,wc_runs=1,unroll=2,fiber_order=voxel,voxel_order=morton,theta_parts=4
life_wc f32 wc=voxel,wg=256,voxel_order=morton
life_wc f64 wc=voxel,wg=64,voxel_order=index
life_wc f32 wc=pairs,wc_team=8,wc_runs=4,unroll=2,voxel_order=morton,fiber_order=voxel
life_wc f64 wc=pairs,wc_team=32,wc_runs=2,unroll=8,voxel_order=index
life_wc f32 wc=pairs,wc_team=8,wc_runs=4,unroll=2,wc_block=16,voxel_order=morton,fiber_order=voxel
life_wc f64 wc=pairs,wc_team=4,wc_runs=8,unroll=1,wc_block=8,voxel_order=index
life_wc f32 wc=atomics,wg=64,dict=half
life_wc f32 wc=atom,wc_team=16,wc_runs=2,dict=half
life_wc f32 wc=fiber,wc_team=8,wc_runs=4,unroll=1,theta_parts=2,dict=half
life_wc f32 wc=voxel,wg=128,voxel_order=index,dict=half
life_wc f32 wc=pairs,wc_team=16,wc_runs=2,unroll=4,voxel_order=morton,dict=half
life_wc f32 wc=staged,wc_team=8,wc_runs=4,unroll=2,fiber_order=voxel
life_wc f64 wc=staged,wc_team=16,wc_runs=2,unroll=8,theta_parts=3
life_wc f32 wc=staged,wc_team=32,wc_runs=1,unroll=1,dict=half
life_wc f32 wc=fiber4,wc_team=8,wc_runs=2,unroll=2,fiber_order=voxel
life_wc f64 wc=fiber4,wc_team=4,wc_runs=4,unroll=1,theta_parts=3
life_wc f32 wc=fiber4,wc_team=16,wc_runs=1,unroll=4,theta_parts=2,dict=half
# The fit: life_mask, life_bb_step (its last step), and the clipped step's kernels: life_bb_step_clip,
# life_mark_clipped, the stamped dsc=pairs and wc=pairs passes, life_residual_update, life_gradient_update (from
# w_true: step 2 clips weights, steps 1 and 3 update the gradient). f32: in f64, CLBlast's iamax epilogue
# (XamaxEpilogue) branches on values oclgrind calls uninitialized, whatever the kernels around it.
add "life f32 fit dsc=pairs,wc=pairs (life_mask, life_bb_step, the clipped step)" "$life_ok" '"$bin/clpk-life"' fit \
    --data '"$data/life"' --out '"$work.npy"' --iters 4 --residual-every 50 --precision f32 \
    --params dsc=pairs,wc=pairs,wc_team=8,wc_runs=2,wc_block=16,voxel_order=morton,fiber_order=voxel \
    --w0 '"$data/life/w_true.npy"' --check

# sshopm: 3 random tensors, 8 starts each, at most 40 iterations. ss PRECISION ORDER DIM PARAMS [CLI options...]
ss() {
    local prec=$1 m=$2 n=$3 params=$4
    shift 4
    add "sshopm $prec m=$m n=$n $params${*:+ $*}" "$sshopm_ok" '"$bin/clpk-sshopm"' --random 3 --starts 8 \
        --max-iter 40 --order "$m" --dim "$n" --precision "$prec" --params "$params" --quiet "$@"
}
ss f32 4 3 kernel=generated,entries=private,wg=32,check_every=1
ss f64 4 3 kernel=generated,entries=local,wg=64,check_every=2 --shift adaptive
ss f32 3 3 kernel=generated,entries=global,wg=128,check_every=4 --find both --starts-kind per-tensor
ss f64 2 4 kernel=generated,entries=private,wg=256,check_every=8 --shift adaptive
ss f32 6 4 kernel=generated,entries=local,wg=512,check_every=16 --starts-kind sphere
ss f32 4 3 kernel=general,entries=local,wg=64,check_every=4 --shift adaptive
ss f64 3 6 kernel=general,entries=global,wg=32,check_every=1 --find min
ss f32 4 3 kernel=general,entries=global,wg=128,check_every=4 --post device
ss f64 3 3 kernel=generated,entries=private,wg=64,check_every=2 --post device --find both
# the scan pipeline's own kernels (cl/sshopm_scan.cl: the fit + tensor map and dipy's selection) on dipy's small_25
# scan (10x8x2 voxels, 25 directions), both precisions; skipped without ../shared/data
scan=$root/../shared/data/life/small_25
if [ -f "$scan.nii.gz" ]; then
    for prec in f32 f64; do
        add "sshopm dmri $prec order 4 (sshopm_scan_fit, sshopm_scan_select)" "$sshopm_ok" '"$bin/clpk-sshopm"' dmri \
            --dwi "$scan.nii.gz" --bval "$scan.bval" --bvec "$scan.bvec" --order 4 --starts 8 --precision $prec \
            --no-png --out '"$work"'
    done
fi

# ---------------------------------------------------------------------------------------------------------------
# Coverage: every value the parameter tables search (clpk-<family> --help) is run by some variant of the family.
table_values() { # FAMILY PARAM: the values the family's parameter table searches for PARAM, as clpk-FAMILY --help
    # lists them ("  PARAM  ...; tuned over a|b|c; when ...", from clpk_family_parameters)
    "$bin/clpk-$1" --help 2>/dev/null | awk -v name="$2" '
        $1 == name && match($0, /tuned over [^;]*/) { s = substr($0, RSTART + 11, RLENGTH - 11); gsub(/\|/, "\n", s); print s; exit }'
}
coverage_fail=0
covers() { # FAMILY KEY [EXEMPT...]: each value the family's parameter table searches for KEY appears as KEY=value
    # in a FAMILY label
    local family=$1 key=$2 v n=0
    shift 2
    local values runs="" l
    values=$(table_values "$family" "$key")
    for l in "${labels[@]}"; do [[ $l == "$family "* ]] && runs+=" ${l//,/ } "; done
    if [ -z "$values" ]; then
        echo "coverage: clpk-$family --help lists no searched values of $key (update scripts/oclgrind-check.sh)" >&2
        coverage_fail=1
        return
    fi
    for v in $values; do
        n=$((n + 1))
        case " $* " in *" $v "*) continue ;; esac
        [[ $runs == *" $key=$v "* ]] && continue
        echo "coverage: $family $key=$v (searched by its parameter table) is run by no variant" >&2
        coverage_fail=1
    done
}
if [ -z "$filter" ]; then
    for k in tile flag_bits wg strategy cache sync slices csr_vec vload prefetch format; do
        covers spmv $k
    done
    covers spmv col auto # auto = short or int by size: both run
    covers spmv csr_kernel rows # rows: the csr_vec variants
    covers spmv csr_steps
    shapes=$(table_values spmv block)
    [ -n "$shapes" ] || { echo "coverage: no block values in lib/spmv/spmv_params.c" >&2; coverage_fail=1; }
    for s in $shapes; do # build_space ranks all the table's shapes
        for p in f32 f64; do
            covered=0
            for l in "${labels[@]}"; do [[ $l == "spmv $p "*"block=$s,"* ]] && covered=1; done
            [ $covered = 1 ] || { echo "coverage: spmv $p block=$s is run by no variant" >&2; coverage_fail=1; }
        done
    done
    for k in algorithm wg team rows_per_worker combine distribution shifts rows lefts rights fft_pad; do
        covers xcorr $k
    done
    covers xcorr shuffle subgroup # no sub-groups in oclgrind
    for k in dsc wc team runs unroll wc_team wc_runs wg voxel_order fiber_order; do
        covers life $k
    done
    covers life dict full # the default: every variant without dict=
    covers life dsc_unroll 0 # the default: every dsc=pairs variant without dsc_unroll=
    for k in kernel entries wg check_every; do
        covers sshopm $k
    done
fi

if [ "$list_only" = 1 ]; then
    printf '%s\n' "${labels[@]}"
    echo "${#labels[@]} variants per mode"
    exit $coverage_fail
fi

# ---------------------------------------------------------------------------------------------------------------
# oclgrind and its ICD.
icd_lib=""
find_icd() {
    local f
    for f in /usr/lib/oclgrind/liboclgrind-rt-icd.so /usr/lib/*/oclgrind/liboclgrind-rt-icd.so \
        /usr/local/lib/liboclgrind-rt-icd.so /usr/local/lib/oclgrind/liboclgrind-rt-icd.so; do
        [ -f "$f" ] && { icd_lib=$f; return 0; }
    done
    return 1
}
if ! find_icd; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing oclgrind"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get install -y -qq --no-install-recommends oclgrind || { apt-get update -qq && apt-get install -y -qq --no-install-recommends oclgrind; }; } >/dev/null
    fi
    find_icd || { echo "oclgrind-check: oclgrind is not installed: sudo apt-get install -y oclgrind" >&2; exit 1; }
fi
for t in clpk-spmv clpk-xcorr clpk-life clpk-sshopm clpk-info; do
    [ -x "$bin/$t" ] || { echo "oclgrind-check: $bin/$t is missing (build first, or pass the bin directory)" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$tmp/data
mkdir -p "$tmp/icd" "$data"
echo "$icd_lib" >"$tmp/icd/oclgrind.icd"
export OCL_ICD_VENDORS=$tmp/icd # ocl-icd: this directory instead of /etc/OpenCL/vendors
unset OCL_ICD_FILENAMES
export CLPK_DEVICE=oclgrind CLPK_LOG=warn
export OCLGRIND_NUM_THREADS=1        # one worker thread per process; the runs go in parallel instead
export OCLGRIND_MAX_ERRORS=100000000 # never "suppressing further errors": every report is seen and classified
unset OCLGRIND_DATA_RACES OCLGRIND_UNINITIALIZED OCLGRIND_QUICK OCLGRIND_UNIFORM_WRITES
# Kernels are interpreted unoptimised (-O0), in both modes: oclgrind 21.10 mis-executes some optimised IR (it truncates
# to a non-byte width such as i2 without masking the value, so LLVM's `switch (info & 3)` in clpk_sshopm_reduce
# takes the wrong case at -O1 and above), and its uninitialized-value plugin stops at `freeze`, which -O1 and above
# emit for an integer division next to a remainder (fixed after 21.10). -O0 code has neither; it is also the closest
# to the source.
export OCLGRIND_BUILD_OPTIONS=${CLPK_OCLGRIND_BUILD_OPTIONS:--cl-opt-disable}

info=$("$bin/clpk-info" 2>&1)
if ! grep -q "^1 OpenCL device" <<<"$info" || ! grep -qi "oclgrind" <<<"$info"; then
    echo "oclgrind-check: expected oclgrind as the only device, clpk-info says:" >&2
    echo "$info" >&2
    exit 1
fi

# The uninitialized-value mode runs with this shim preloaded. oclgrind 21.10's plugin replaces a buffer's whole
# shadow memory at every host write to it (Uninitialized::hostMemoryStore -> ShadowMemory::allocate of the write's
# size; unchanged upstream), so a fill with a small pattern, or a write or copy into part of a buffer, leaves the rest
# of the buffer "uninitialized" and every later read of it is reported. The shim performs those commands as one
# write of the whole buffer (read, patch on the host, write back; blocking, so in queue order); rectangular writes
# too (the scan pipeline uploads its signal slab by slab). Cost: bytes of the
# buffer that nothing ever wrote count as initialized from then on.
if [[ " $modes " == *" uninit "* ]]; then
    cat >"$tmp/uninit-shim.c" <<'SHIM'
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
typedef cl_int (*read_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
typedef cl_int (*write_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *,
                           cl_event *);
static read_fn real_read(void) { return (read_fn)dlsym(RTLD_NEXT, "clEnqueueReadBuffer"); }
static write_fn real_write(void) { return (write_fn)dlsym(RTLD_NEXT, "clEnqueueWriteBuffer"); }
static size_t mem_size(cl_mem m) {
    size_t n = 0;
    return clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof n, &n, NULL) == CL_SUCCESS ? n : 0;
}
/* The whole of `m` into a new host copy (after the wait list and everything queued before). */
static void *read_all(cl_command_queue q, cl_mem m, size_t n, cl_uint nw, const cl_event *w, cl_int *rc) {
    void *h = malloc(n ? n : 1);
    if (!h) { *rc = CL_OUT_OF_HOST_MEMORY; return NULL; }
    *rc = real_read()(q, m, CL_TRUE, 0, n, h, nw, w, NULL);
    if (*rc != CL_SUCCESS) { free(h); return NULL; }
    return h;
}
static cl_int write_all(cl_command_queue q, cl_mem m, size_t n, void *h, cl_event *ev) {
    cl_int rc = real_write()(q, m, CL_TRUE, 0, n, h, 0, NULL, ev);
    free(h);
    return rc;
}
cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off, size_t size, const void *p,
                            cl_uint nw, const cl_event *w, cl_event *ev) {
    const size_t n = mem_size(m);
    if (off == 0 && size == n) return real_write()(q, m, blocking, off, size, p, nw, w, ev);
    if (off > n || size > n - off) return CL_INVALID_VALUE;
    cl_int rc;
    char *h = read_all(q, m, n, nw, w, &rc);
    if (!h) return rc;
    memcpy(h + off, p, size);
    return write_all(q, m, n, h, ev);
}
cl_int clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *bo, const size_t *ho,
                                const size_t *region, size_t brp, size_t bsp, size_t hrp, size_t hsp, const void *p,
                                cl_uint nw, const cl_event *w, cl_event *ev) {
    (void)blocking;
    const size_t n = mem_size(m);
    if (!brp) brp = region[0];
    if (!bsp) bsp = region[1] * brp;
    if (!hrp) hrp = region[0];
    if (!hsp) hsp = region[1] * hrp;
    cl_int rc;
    char *h = read_all(q, m, n, nw, w, &rc);
    if (!h) return rc;
    for (size_t z = 0; z < region[2]; ++z)
        for (size_t y = 0; y < region[1]; ++y) {
            const size_t b = (bo[2] + z) * bsp + (bo[1] + y) * brp + bo[0];
            const size_t o = (ho[2] + z) * hsp + (ho[1] + y) * hrp + ho[0];
            if (b > n || region[0] > n - b) { free(h); return CL_INVALID_VALUE; }
            memcpy(h + b, (const char *)p + o, region[0]);
        }
    return write_all(q, m, n, h, ev);
}
cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pattern, size_t psize, size_t off, size_t size,
                           cl_uint nw, const cl_event *w, cl_event *ev) {
    const size_t n = mem_size(m);
    if (!psize || off > n || size > n - off || off % psize || size % psize) return CL_INVALID_VALUE;
    cl_int rc;
    char *h = read_all(q, m, n, nw, w, &rc);
    if (!h) return rc;
    for (size_t i = 0; i < size; i += psize) memcpy(h + off + i, pattern, psize);
    return write_all(q, m, n, h, ev);
}
cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t soff, size_t doff, size_t size,
                           cl_uint nw, const cl_event *w, cl_event *ev) {
    const size_t ns = mem_size(src), nd = mem_size(dst);
    if (soff > ns || size > ns - soff || doff > nd || size > nd - doff) return CL_INVALID_VALUE;
    cl_int rc;
    char *s = read_all(q, src, ns, nw, w, &rc);
    if (!s) return rc;
    char *d = read_all(q, dst, nd, 0, NULL, &rc);
    if (!d) { free(s); return rc; }
    memmove(d + doff, s + soff, size);
    free(s);
    return write_all(q, dst, nd, d, ev);
}
SHIM
    if ! cc -shared -fPIC -O2 -o "$tmp/uninit-shim.so" "$tmp/uninit-shim.c" -ldl -lOpenCL 2>"$tmp/shim.log"; then
        echo "oclgrind-check: the shim for the uninitialized-value mode did not build (a C compiler and OpenCL headers" \
            "are needed):" >&2
        cat "$tmp/shim.log" >&2
        exit 1
    fi
fi

# Inputs. .npy files written byte by byte (as test/cli_xcorr.sh does: no Python needed).
hex_byte() { printf "\\x$(printf %02x $(($1 & 255)))"; }
npy_i4() { # FILE SHAPE VALUES...
    local file=$1 shape=$2
    shift 2
    local dict="{'descr': '<i4', 'fortran_order': False, 'shape': $shape, }"
    local pad=$(((64 - (10 + ${#dict} + 1) % 64) % 64))
    local len=$((${#dict} + pad + 1))
    {
        printf '\x93NUMPY\x01\x00'
        hex_byte $len
        hex_byte $((len >> 8))
        printf '%s%*s\n' "$dict" $pad ''
        for v in "$@"; do hex_byte $v; hex_byte $((v >> 8)); hex_byte $((v >> 16)); hex_byte $((v >> 24)); done
    } >"$file"
}
values() { # COUNT SEED: pseudo-random integers in [-9, 9]
    local n=$1 s=$2 i
    for ((i = 0; i < n; ++i)); do
        s=$(((s * 1103515245 + 12345) & 0x7fffffff))
        echo $(((s >> 16) % 19 - 9))
    done
}
npy_i4 "$data/l1.npy" '(1, 9, 7)' $(values 63 11)
npy_i4 "$data/l2.npy" '(2, 9, 7)' $(values 126 7)
npy_i4 "$data/r2.npy" '(2, 9, 7)' $(values 126 13)
npy_i4 "$data/r3.npy" '(3, 9, 7)' $(values 189 17)
npy_i4 "$data/r4.npy" '(4, 9, 7)' $(values 252 19)
if ! "$bin/clpk-life" synth --out "$data/life" --size tiny >"$tmp/synth.log" 2>&1; then
    echo "oclgrind-check: clpk-life synth failed:" >&2
    cat "$tmp/synth.log" >&2
    exit 1
fi

# Splits an oclgrind log into messages (separated by empty lines), drops the two kinds of report described at the
# top, prints the rest; the numbers dropped (VkFFT, compare-and-swap guesses) go to $2.
classify() {
    awk -v skipped_file="$2" '
        function group_of(s) { sub(/.*Group\(/, "", s); sub(/\).*/, "", s); return s }
        function guess_load(s) { return s ~ /^\t  %[^ ]+ = load volatile (float|double|i32|i64), / }
        function cas(s) { return s ~ /call spir_func i(32|64) @(_Z14atomic_cmpxchgPU3AS1Vjjj|_Z12atom_cmpxchgPU3AS1Vmmm)\(/ }
        BEGIN { RS = ""; vkfft = 0; guess = 0 }
        {
            n = split($0, L, "\n"); g1 = g2 = src1 = src2 = ir1 = ir2 = kernel = ""; who = 0
            for (k = 1; k <= n; ++k) {
                if (L[k] ~ /^\tKernel: /) kernel = L[k]
                else if (L[k] ~ /First entity:/) { g1 = group_of(L[k]); who = 1 }
                else if (L[k] ~ /Second entity:/) { g2 = group_of(L[k]); who = 2 }
                else if (L[k - 1] ~ /First entity:/) ir1 = L[k]
                else if (L[k - 1] ~ /Second entity:/) ir2 = L[k]
                else if (k > 1 && L[k - 1] ~ /^\tAt line /) { if (who == 1) src1 = L[k]; else if (who == 2) src2 = L[k] }
            }
            rw = L[1] ~ /^Read-write data race at global memory address /
            in1 = src1 ~ /= inputs\[/; in2 = src2 ~ /= inputs\[/
            out1 = src1 ~ /outputs\[[^]]*\] = /; out2 = src2 ~ /outputs\[[^]]*\] = /
            if (rw && kernel == "\tKernel: VkFFT_main" && g1 != "" && g1 == g2 && ((in1 && out2) || (in2 && out1))) {
                vkfft++
                next
            }
            if (rw && kernel ~ /^\tKernel: (life_dsc_atomics|life_wc_atomics|life_wc_atom|life_wc_voxel|xcorr_split_atomic)$/ &&
                ((guess_load(ir1) && cas(ir2)) || (guess_load(ir2) && cas(ir1)))) {
                guess++
                next
            }
            print $0 "\n"
        }
        END { print vkfft, guess > skipped_file }' "$1"
}

# run_variant MODE INDEX: runs one variant, writes its verdict line to $tmp/MODE/INDEX.result and prints it.
run_variant() {
    local mode=$1 i=$2 dir=$tmp/$1
    local out=$dir/$i.out log=$dir/$i.grind t0 t1 rc
    t0=$(date +%s.%N)
    (
        work=$dir/$i
        export OCLGRIND_LOG=$log CLPK_CACHE_DIR=$tmp/cache-$mode OCLGRIND_CHECK_API=1
        if [ "$mode" = races ]; then export OCLGRIND_DATA_RACES=1; else export OCLGRIND_UNINITIALIZED=1; fi
        [ "$mode" = uninit ] && export LD_PRELOAD=$tmp/uninit-shim.so${LD_PRELOAD:+:$LD_PRELOAD}
        eval "exec timeout 600 ${cmds[i]}"
    ) >"$out" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    : >>"$log"
    classify "$log" "$dir/$i.skipped" >"$dir/$i.reports"
    local why=""
    if [ -s "$dir/$i.reports" ]; then
        why="$(grep -c '^[^[:space:]]' "$dir/$i.reports") oclgrind report(s)"
    elif [ $rc -ne 0 ]; then
        why="exit status $rc"
    elif ! grep -qE -- "${expects[i]}" "$out"; then
        why="no /${expects[i]}/ in the output"
    fi
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    local sv=0 sg=0
    read -r sv sg <"$dir/$i.skipped" || true
    local note=""
    [ "${sv:-0}" -gt 0 ] && note+=" [$sv VkFFT_main in-place reports skipped]"
    [ "${sg:-0}" -gt 0 ] && note+=" [$sg compare-and-swap first-guess reports skipped]"
    if [ -z "$why" ]; then
        echo "PASS $mode  ${labels[i]}  (${secs} s)$note" | tee "$dir/$i.result"
    else
        {
            echo "FAIL $mode  ${labels[i]}  (${secs} s): $why$note"
            echo "    command: ${cmds[i]}  (bin=$bin; data: test inputs)"
            [ -s "$dir/$i.reports" ] && head -40 "$dir/$i.reports" | sed 's/^/    | /'
            [ -s "$dir/$i.reports" ] || tail -15 "$out" | sed 's/^/    > /'
        } | tee "$dir/$i.result"
    fi
}

start=$(date +%s)
n=${#labels[@]}
echo "== oclgrind-check: $n variants x modes ($modes), $jobs parallel, oclgrind ICD $icd_lib"
# The slow variants (measured: the LiFE fit with CLBlast's kernels, VkFFT, shift-buffer, the general SS-HOPM kernel)
# start first, both modes, so that the parallel runs end together.
slow='^life .* fit |algorithm=(fft|fused-fft|shift-buffer) |^sshopm .*kernel=general'
queue=()
for pass in slow rest; do
    for mode in $modes; do
        for ((i = 0; i < n; ++i)); do
            if [[ ${labels[i]} =~ $slow ]]; then [ $pass = slow ] && queue+=("$mode $i"); else [ $pass = rest ] && queue+=("$mode $i"); fi
        done
    done
done
for mode in $modes; do mkdir -p "$tmp/$mode" "$tmp/cache-$mode"; done
for item in "${queue[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    run_variant $item &
done
wait
passed=0 failed=0 skipped_vkfft=0 skipped_guess=0
for mode in $modes; do
    for ((i = 0; i < n; ++i)); do
        if grep -q '^PASS' "$tmp/$mode/$i.result" 2>/dev/null; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
        sv=0 sg=0
        read -r sv sg <"$tmp/$mode/$i.skipped" 2>/dev/null || true
        skipped_vkfft=$((skipped_vkfft + ${sv:-0})) skipped_guess=$((skipped_guess + ${sg:-0}))
    done
done
if [ $failed -gt 0 ]; then
    echo "== failed:"
    for mode in $modes; do
        for ((i = 0; i < n; ++i)); do
            grep -q '^PASS' "$tmp/$mode/$i.result" 2>/dev/null || echo "   $mode  ${labels[i]}"
        done
    done
fi
echo "== oclgrind-check: $passed passed, $failed failed ($n variants x [$modes]) in $(($(date +%s) - start)) s;" \
    "skipped: $skipped_vkfft VkFFT_main in-place reports (docs/xcorr.md), $skipped_guess compare-and-swap" \
    "first-guess reports (cl/life_spmv.cl)"
[ $failed -eq 0 ] && [ $coverage_fail -eq 0 ]
