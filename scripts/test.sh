#!/usr/bin/env bash
# All tests: the ctest suite on each CPU implementation (PoCL, and Intel's OpenCL CPU runtime from PyPI wheels),
# the Python package's pytest suite, oclgrind's race, bounds and uninitialised-read checks of every kernel variant,
# an install + find_package(clpk) consumer build, a sanitizer build of the host-side tests, and short fuzzing runs
# of the file parsers.
#   CLPK_TEST_IMPLS="pocl intel"   the implementations the ctest suite runs on (e.g. "nvidia" on a GPU machine)
#   CLPK_TEST_OCLGRIND=0           skip the oclgrind checks
set -euo pipefail
export CLPK_EXTRA_PACKAGES="oclgrind python3-pip"
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh" -DCLPK_WERROR=ON
export CLPK_BUILD
jobs=$(nproc)
start=$(date +%s)

for impl in ${CLPK_TEST_IMPLS:-pocl intel}; do
    bash "$CLPK_ROOT/scripts/ctest-on.sh" "$impl"
done

echo "== Python package (pytest on the build's library)"
bash "$CLPK_ROOT/scripts/python-test.sh"

if [ "${CLPK_TEST_OCLGRIND:-1}" != 0 ]; then
    echo "== oclgrind: every kernel variant, data races and uninitialised reads"
    bash "$CLPK_ROOT/scripts/oclgrind-check.sh"
fi

echo "== install and consume with find_package(clpk)"
prefix=$CLPK_BUILD/install-test
rm -rf "$prefix" "$CLPK_BUILD/consumer"
cmake --install "$CLPK_BUILD" --prefix "$prefix" >/dev/null
cmake -S "$CLPK_ROOT/test/install_consumer" -B "$CLPK_BUILD/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$CLPK_BUILD/consumer" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" "$CLPK_BUILD/consumer/consumer"
PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name clpk.pc | head -1)") pkg-config --cflags --libs clpk >/dev/null
echo "consumer OK"

echo "== sanitizer build of the host-side tests (ASan + UBSan)"
asan=$CLPK_BUILD-asan
cmake -S "$CLPK_ROOT" -B "$asan" -DCMAKE_BUILD_TYPE=Debug -DCLPK_SANITIZE=ON -DCLPK_WERROR=ON >/dev/null
# test_spmv_model runs on the device too: the automatic plan's verify creates, times and destroys many plans (their
# events and shared buffers are reference-counted)
host_tests=$(cd "$CLPK_ROOT/test" && { ls test_io_*.c test_params*.c test_profile*.c test_life_data.c test_life_sort.c \
    test_sshopm_host.c test_spmv_model.c 2>/dev/null || true; } | sed 's/\.c$//' | tr '\n' ' ')
if [ -n "${host_tests// /}" ]; then
    # shellcheck disable=SC2086
    cmake --build "$asan" -j"$jobs" --target $host_tests >/dev/null
    pattern="^($(echo $host_tests | sed 's/ *$//' | tr ' ' '|'))\$"
    (cd "$asan" && CLPK_DEVICE=pocl ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -R "$pattern")
fi

if command -v clang >/dev/null && [ -x "$CLPK_ROOT/scripts/fuzz.sh" ]; then
    echo "== fuzzing the parsers briefly"
    bash "$CLPK_ROOT/scripts/fuzz.sh" "${CLPK_FUZZ_SECONDS:-10}"
fi
echo "== all tests passed in $(( $(date +%s) - start )) s after the build"
