#!/usr/bin/env bash
# All tests: the unit and end-to-end tests (ctest, on PoCL or the default device), an install + find_package(clpk)
# consumer build, a sanitizer build of the host-side tests, and short fuzzing runs of the file parsers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh" -DCLPK_WERROR=ON
jobs=$(nproc)
start=$(date +%s)

echo "== ctest"
(cd "$CLPK_BUILD" && ctest --output-on-failure --timeout 900 -j"$jobs")

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
host_tests=$(cd "$CLPK_ROOT/test" && { ls test_io_*.c test_params*.c test_profile*.c test_life_data.c test_sshopm_host.c 2>/dev/null || true; } | sed 's/\.c$//' | tr '\n' ' ')
if [ -n "${host_tests// /}" ]; then
    # shellcheck disable=SC2086
    cmake --build "$asan" -j"$jobs" --target $host_tests >/dev/null
    (cd "$asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -R "^($(echo $host_tests | sed 's/ *$//' | tr ' ' '|'))\$")
fi

if command -v clang >/dev/null && [ -x "$CLPK_ROOT/scripts/fuzz.sh" ]; then
    echo "== fuzzing the parsers briefly"
    bash "$CLPK_ROOT/scripts/fuzz.sh" "${CLPK_FUZZ_SECONDS:-10}"
fi
echo "== all tests passed in $(( $(date +%s) - start )) s after the build"
