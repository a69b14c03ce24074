#!/usr/bin/env bash
# The four families' automatic plans in one short run, for before/after comparisons of changes that must not move
# speed (refactors, a re-tune): SpMV (suite matrices, auto plan, f32 and f64), LiFE (DS1 scale, 500 SBB-NNLS
# iterations, both precisions), SS-HOPM (65536 tensors x 128 starts, the main shapes) and cross-correlation (auto
# choice at small and large sizes of each pattern). Each tool prints the plan it chose with its time; the logs land
# in OUT_DIR, and bench/families_compare.py sets two such folders side by side.
#
# Usage: bench/families.sh [OUT_DIR]   (default $OUT, else bench-out/families)
# Environment: BIN (folder of the clpk tools; default .gpu/build/bin, else build/bin), SCALE (SpMV and xcorr
#   count scale, default 1), FAMILIES (spmv,life,sshopm,xcorr).
# On the H100:  . .gpu/enter && bench/families.sh "$OUT"
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-bench-out/families}}
mkdir -p "$out"
if [ -z "${BIN:-}" ]; then
    if [ -x "$root/.gpu/build/bin/clpk-bench-spmv" ]; then BIN=$root/.gpu/build/bin; else BIN=$root/build/bin; fi
fi
families=${FAMILIES:-spmv,life,sshopm,xcorr}
scale=${SCALE:-1}
run() { # name, command...
    local name=$1
    shift
    local t0=$SECONDS
    "$@" >"$out/$name.log" 2>&1
    echo "$name: exit $? in $((SECONDS - t0)) s"
}
case ",$families," in *,spmv,*)
    run spmv "$BIN/clpk-bench-spmv" --scale "$scale" --cases fem3d,protein,circuit,webgraph,random16,dense \
        --impls clpk-auto --precision f32,f64 --repeats 50 --json "$out/spmv.json" ;;
esac
case ",$families," in *,life,*)
    run life "$BIN/clpk-bench-life" --size ds1 --seed 3 --precision both --iters 500 --runs 20 \
        --atomics-iters 0 --fit-params "" --json "$out/life.json" ;;
esac
case ",$families," in *,sshopm,*)
    run sshopm "$BIN/clpk-bench-sshopm" --out "$out/sshopm" --shapes 3x3,4x3,6x3,4x4 --precision f32,f64 \
        --tensors 65536 --starts 128 --iters 200 --repeats 20 --voxels 100000 --no-npy ;;
esac
case ",$families," in *,xcorr,*)
    for p in f32 f64; do
        run "xcorr-$p" "$BIN/clpk-bench-xcorr" --patterns one-to-one,one-to-many,n-to-m,n-to-mn --sizes 16,64,128 \
            --variants auto --scale "$scale" --precision "$p" --repeats 10 --json "$out/xcorr-$p.jsonl"
    done ;;
esac
