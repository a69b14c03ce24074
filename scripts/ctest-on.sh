#!/usr/bin/env bash
# Runs the whole ctest suite of an existing build on one OpenCL implementation, with only that one visible.
#
#   scripts/ctest-on.sh IMPL [--fresh] [ctest args...]
#
# IMPL: intel (Intel's OpenCL CPU runtime, set up by scripts/intel-opencl.sh in its cache folder) or pocl; any other
# word is passed as CLPK_DEVICE with the ICDs left as they are. Build: $CLPK_BUILD (default build/).
# --fresh (or CLPK_FRESH_CACHES=1): empty program caches for this run (CLPK_CACHE_DIR, POCL_CACHE_DIR), removed
# afterwards; otherwise CLPK_CACHE_DIR and POCL_CACHE_DIR pass through as the caller set them.
# ctest args default to --output-on-failure --timeout 900 -j$(nproc).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLPK_BUILD:-$root/build}
[ $# -ge 1 ] || { sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 2; }
impl=$1
shift
fresh=${CLPK_FRESH_CACHES:-0}
if [ "${1:-}" = --fresh ]; then
    fresh=1
    shift
fi
[ -f "$build/CTestTestfile.cmake" ] || { echo "ctest-on.sh: no ctest suite in $build (set CLPK_BUILD)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $impl in
    intel)
        # shellcheck source=intel-opencl.sh
        source "$root/scripts/intel-opencl.sh" --only
        ;;
    pocl)
        mkdir "$tmp/vendors"
        for f in "${OPENCL_VENDOR_PATH:-/etc/OpenCL/vendors}"/*pocl*.icd; do
            if [ -e "$f" ]; then ln -s "$f" "$tmp/vendors/"; fi
        done
        compgen -G "$tmp/vendors/*.icd" >/dev/null || { echo "ctest-on.sh: no PoCL ICD (apt-get install pocl-opencl-icd)" >&2; exit 1; }
        export OCL_ICD_VENDORS=$tmp/vendors
        ;;
esac
export CLPK_DEVICE=$impl
if [ "$fresh" = 1 ]; then
    mkdir "$tmp/clpk-cache" "$tmp/pocl-cache"
    export CLPK_CACHE_DIR=$tmp/clpk-cache POCL_CACHE_DIR=$tmp/pocl-cache
fi
[ $# -gt 0 ] || set -- --output-on-failure --timeout 900 -j"$(nproc)"

echo "== ctest on $impl (CLPK_DEVICE=$CLPK_DEVICE${OCL_ICD_VENDORS:+, OCL_ICD_VENDORS=$OCL_ICD_VENDORS}$([ "$fresh" = 1 ] && echo ", fresh caches"))"
"$build/bin/clpk-info" --device "$impl" | sed -n '1,4p'
start=$(date +%s)
status=0
(cd "$build" && ctest "$@") || status=$?
echo "== ctest on $impl: $([ $status = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
exit $status
