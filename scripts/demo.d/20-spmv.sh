#!/usr/bin/env bash
# spmv demo: y = A*x with BCCOO on a generated FEM-like matrix (dense 2x2 sub-blocks) and on one real SuiteSparse
# matrix, each checked against a double-precision CPU reference, with GFLOP/s. Run by scripts/demo.sh with $BIN set.
set -euo pipefail
BIN=${BIN:?BIN must point at the build bin directory}
DATA=${DATA:-${CLPK_SHARED_DATA_DIR:-$(dirname "${BASH_SOURCE[0]}")/../../../shared/data}}
echo "-- generated FEM-like matrix (2 unknowns per node on a 300x300 grid, 9-point coupling), BCCOO 2x2"
"$BIN/clpk-spmv" --generate fem:300 --format bccoo --params block_h=2,block_w=2 --check --bench 20
echo "-- the same matrix in f64 with the automatic choice"
"$BIN/clpk-spmv" --generate fem:300 --precision f64 --check --bench 20
real=$DATA/matrices/bcsstk16.mtx
if [ -f "$real" ]; then
    echo "-- real matrix: HB/bcsstk16 (structural FEM, symmetric, expanded)"
    "$BIN/clpk-spmv" "$real" --check --bench 20
else
    echo "-- no real matrix: $real not found (the shared data folder is absent)"
fi
