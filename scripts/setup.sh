#!/usr/bin/env bash
# Shared by demo.sh and test.sh: makes sure the Debian packages clpk needs are installed, then configures and builds.
# Usage: source scripts/setup.sh [extra cmake args...]   (sets CLPK_ROOT and CLPK_BUILD)
set -euo pipefail
CLPK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLPK_BUILD=${CLPK_BUILD:-$CLPK_ROOT/build}
CLPK_PACKAGES=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers ocl-icd-libopencl1
               pocl-opencl-icd clinfo libcjson-dev libclblast-dev libvkfft-dev zlib1g-dev libnifti2-dev clang)
# scripts/test.sh adds what only the tests need (oclgrind, pip for Intel's CPU runtime).
CLPK_PACKAGES+=(${CLPK_EXTRA_PACKAGES:-})

clpk_missing_packages() {
    local missing=()
    for p in "${CLPK_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    echo "${missing[@]:-}"
}

missing=$(clpk_missing_packages)
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "== installing: $missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
        echo "clpk needs these Debian packages; install them, then run this script again:"
        echo "  sudo apt-get install -y $missing"
        exit 1
    fi
fi

echo "== configuring and building in $CLPK_BUILD"
cmake -S "$CLPK_ROOT" -B "$CLPK_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$CLPK_BUILD" -j"$(nproc)" 2>&1 | grep -E "error|warning:|Error" || true
test -x "$CLPK_BUILD/bin/clpk-info" || { echo "build failed" >&2; cmake --build "$CLPK_BUILD" 2>&1 | tail -40; exit 1; }
