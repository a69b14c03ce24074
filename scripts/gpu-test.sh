#!/usr/bin/env bash
# Runs the ctest suite of a build on the NVIDIA device machine (see ../shared/gpu/README.md):
#   here:   ../shared/gpu/prepare && cmake -S . -B .gpu/build -DCMAKE_BUILD_TYPE=Release && cmake --build .gpu/build -j
#   there:  . .gpu/enter && bash scripts/gpu-test.sh [ctest -R regex]
# Writes the log to $OUT (or /tmp) and the test summary to stdout.
set -uo pipefail
build=${CLPK_GPU_BUILD:-.gpu/build}
out=${OUT:-/tmp}
export CLPK_DEVICE=${CLPK_DEVICE:-nvidia}
export CLPK_CACHE_DIR=${CLPK_CACHE_DIR:-/tmp/clpk-cache}
export LD_LIBRARY_PATH=$PWD/$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$build/bin/clpk-info" --device "$CLPK_DEVICE" | tail -4
cd "$build" || exit 1
regex=${1:-.}
ctest --output-on-failure --timeout 500 -R "$regex" 2>&1 | tee "$out/gpu-ctest.log" | grep -E "tests passed|Test +#|FAIL|Failed" | tail -60
