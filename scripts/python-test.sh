#!/usr/bin/env bash
# Tests of the Python package (python/): installs the Debian packages it needs when missing (as root; otherwise
# prints the apt-get line and fails), builds the package's wheel with Debian's setuptools, installs it into a
# temporary folder, points it at the build's libclpk and runs pytest on it. Exits non-zero on any failure, including
# pytest collecting no tests.
#   CLPK_BUILD   build directory holding libclpk.so (default: build/; built here if absent)
#   PYTHON       interpreter (default: Debian's /usr/bin/python3, which the apt packages serve)
#   CLPK_DEVICE  device selector for the tests (default: the library's default device)
#   extra arguments go to pytest (e.g. -k spmv, -x)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLPK_BUILD:-$root/build}
py=${PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=$(command -v python3)

# module -> Debian package; pyopencl is optional for the tests (its test skips) but installed when we can
declare -A pkg=([numpy]=python3-numpy [scipy]=python3-scipy [pytest]=python3-pytest [pip]=python3-pip
                [wheel]=python3-wheel [pyopencl]=python3-pyopencl)
missing=()
for mod in numpy scipy pytest pip wheel pyopencl; do
    "$py" -c "import $mod" 2>/dev/null || missing+=("${pkg[$mod]}")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
            { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
    else
        echo "missing Python packages; run:  sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

if [ ! -e "$build/libclpk.so" ]; then
    echo "== building libclpk into $build"
    [ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j"$(nproc)" --target clpk >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== building and installing the wheel (setuptools, no network)"
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
cp -r "$root/python" "$work/src"  # setuptools writes build/ and *.egg-info next to the sources: not in the checkout
rm -rf "$work/src/clpk/_lib" "$work/src/tests"
"$py" -m pip wheel --no-build-isolation --no-deps --no-index -q -w "$work/dist" "$work/src"
"$py" -m pip install --no-deps --no-index -q --target "$work/site" "$work"/dist/clpk-*.whl

echo "== pytest"
export PYTHONPATH="$work/site" CLPK_LIBRARY="$build/libclpk.so"
export CLPK_CACHE_DIR=${CLPK_CACHE_DIR:-$build/python-test-cache}
start=$(date +%s)
rc=0
(cd "$work" && "$py" -m pytest -c "$root/python/pyproject.toml" --rootdir "$root/python" -p no:cacheprovider -rs \
    "$root/python/tests" "$@") || rc=$?
if [ "$rc" = 5 ]; then
    echo "python-test: pytest collected no tests" >&2
    exit 1
fi
[ "$rc" = 0 ] && echo "== Python tests passed in $(( $(date +%s) - start )) s"
exit "$rc"
