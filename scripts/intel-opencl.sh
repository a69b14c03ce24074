#!/usr/bin/env bash
# Intel's OpenCL CPU runtime (OpenCL 3.x, sub-groups of 4-64 lanes) from PyPI wheels, without root.
#
#   source scripts/intel-opencl.sh [--only]          # set it up if needed; export OCL_ICD_VENDORS in this shell
#   scripts/intel-opencl.sh [--print-env] [--only]   # set it up if needed; print the export line
#   eval "$(scripts/intel-opencl.sh --print-env)"
#   scripts/intel-opencl.sh --check [--only]         # set it up if needed; clinfo -l with that environment
#
# The exported ICD vendors directory holds the Intel ICD and links to the system's ICDs (/etc/OpenCL/vendors), so
# PoCL and Intel both show up; --only (or CLPK_INTEL_OCL_ONLY=1) exports a directory with the Intel ICD alone.
# Select the device with CLPK_DEVICE=intel (or --device intel).
#
# Cache folder: $CLPK_INTEL_OCL_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/clpk-intel-opencl): wheels/ (the
# downloads, ~270 MB), <version>/lib (the wheels' lib folders merged, ~500 MB), <version>/vendors*/. A complete
# unpacked folder is used without touching the network; wheels already downloaded are unpacked without downloading.
# CLPK_INTEL_OCL_VERSION picks the release (default 2026.2.0). pip is the only client used; only PyPI is reached.
# No LD_LIBRARY_PATH: the wheels' lib folders are merged into one, where libintelocl.so's RUNPATH ($ORIGIN) finds its
# libraries (TBB, the compiler runtime); the wheel's own libOpenCL.so (Khronos' loader) is left out, as on
# LD_LIBRARY_PATH it would replace the system's ocl-icd. OCL_ICD_VENDORS is a directory of .icd files, the form every
# loader takes (ocl-icd 2.3.1 also takes one .icd file or the library's path; Khronos' loader only a directory).

# Downloads the pinned wheels (PINS... -- PATTERNS...) into $1 unless a file per pattern is already there.
_clpk_intel_ocl_download() (
    set -euo pipefail
    local wheels=$1 pins=() p have=1
    shift
    while [ "$1" != -- ]; do
        pins+=("$1")
        shift
    done
    shift
    for p in "$@"; do
        compgen -G "$wheels/$p*.whl" >/dev/null || have=0
    done
    [ "$have" = 1 ] && exit 0
    if ! python3 -m pip --version >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "== installing python3-pip" >&2
            DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >&2
        else
            echo "intel-opencl.sh needs pip: sudo apt-get install -y python3-pip" >&2
            exit 1
        fi
    fi
    echo "== downloading ${pins[*]} into $wheels (~270 MB)" >&2
    mkdir -p "$wheels"
    # --no-cache-dir: this folder is the cache; pip's own would keep a second copy
    python3 -m pip download --no-deps --only-binary=:all: --no-cache-dir --disable-pip-version-check \
        --progress-bar off -q -d "$wheels" "${pins[@]}" >&2
)

# Unpacks the newest wheel in $2 matching each pattern into $1 (lib/, intel-cpu.icd, .complete), all or nothing.
_clpk_intel_ocl_unpack() (
    set -euo pipefail
    local root=$1 wheels_dir=$2 p wheels=()
    shift 2
    for p in "$@"; do
        wheels+=("$(find "$wheels_dir" -maxdepth 1 -name "$p*.whl" | sort -V | tail -1)")
    done
    echo "== unpacking into $root" >&2
    rm -rf "$root.tmp"
    mkdir -p "$root.tmp/lib"
    # The wheels' lib folders (<name>.data/data/lib/*) merged into one, so libintelocl.so's RUNPATH ($ORIGIN) finds
    # TBB and the compiler runtime without LD_LIBRARY_PATH. Left out: the wheel's libOpenCL.so* (Khronos' loader).
    # Identical copies (libX.so, libX.so.N) become links.
    python3 - "$root.tmp/lib" "${wheels[@]}" <<'PY'
import os, re, shutil, sys, zipfile
dest, wheels = sys.argv[1], sys.argv[2:]
first = {}
for w in wheels:
    with zipfile.ZipFile(w) as z:
        for i in sorted(z.infolist(), key=lambda i: -len(i.filename)):  # versioned names first: they hold the bytes
            m = re.fullmatch(r"[^/]+\.data/data/lib/([^/]+)", i.filename)
            if not m or m.group(1).startswith("libOpenCL.so"):
                continue
            name, key = m.group(1), (i.CRC, i.file_size)
            out = os.path.join(dest, name)
            if key in first and i.file_size > 4096:
                os.symlink(first[key], out)
                continue
            with z.open(i) as src, open(out, "wb") as dst:  # checks the CRC as it reads
                shutil.copyfileobj(src, dst, 1 << 20)
            os.chmod(out, 0o755 if ".so" in name else 0o644)
            first[key] = name
PY
    test -f "$root.tmp/lib/libintelocl.so"
    printf '%s\n' "$root/lib/libintelocl.so" >"$root.tmp/intel-cpu.icd"
    printf '%s\n' "${wheels[@]##*/}" >"$root.tmp/.complete"
    rm -rf "$root"
    mv "$root.tmp" "$root"
)

_clpk_intel_ocl_setup() (
    set -euo pipefail
    local version=$1 dir=$2 attempt f
    local root=$dir/$version
    local pins=("intel-opencl-rt==$version" "intel-cmplr-lib-rt==$version" "intel-cmplr-lic-rt==$version" "tbb==2023.*")
    local patterns=("intel_opencl_rt-$version-" "intel_cmplr_lib_rt-$version-" "intel_cmplr_lic_rt-$version-" "tbb-2023.")
    if [ ! -f "$root/.complete" ] || [ ! -f "$root/lib/libintelocl.so" ]; then
        for attempt in 1 2; do
            _clpk_intel_ocl_download "$dir/wheels" "${pins[@]}" -- "${patterns[@]}"
            _clpk_intel_ocl_unpack "$root" "$dir/wheels" "${patterns[@]}" && break
            [ "$attempt" = 2 ] && { echo "intel-opencl.sh: unpacking failed twice" >&2; exit 1; }
            echo "== unpacking failed: downloading the wheels again" >&2
            rm -rf "$dir/wheels"
        done
    fi
    # vendors-only: the Intel ICD alone; vendors: it and the system's ICDs (refreshed on every run)
    rm -rf "$root/vendors-only" "$root/vendors"
    mkdir -p "$root/vendors-only" "$root/vendors"
    ln -s ../intel-cpu.icd "$root/vendors-only/intel-cpu.icd"
    for f in "${OPENCL_VENDOR_PATH:-/etc/OpenCL/vendors}"/*.icd; do
        if [ -e "$f" ]; then ln -sf "$f" "$root/vendors/"; fi
    done
    ln -sf ../intel-cpu.icd "$root/vendors/intel-cpu.icd"
)

_clpk_intel_ocl_main() {
    local mode=env only=${CLPK_INTEL_OCL_ONLY:-0} a
    for a in "$@"; do
        case $a in
            --print-env) mode=print ;;
            --check) mode=check ;;
            --only) only=1 ;;
            -h | --help)
                sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
                return 0
                ;;
            *)
                echo "intel-opencl.sh: unknown argument $a (--print-env, --check, --only)" >&2
                return 2
                ;;
        esac
    done
    local version=${CLPK_INTEL_OCL_VERSION:-2026.2.0}
    local dir=${CLPK_INTEL_OCL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/clpk-intel-opencl}
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
    _clpk_intel_ocl_setup "$version" "$dir" || return 1
    local vendors=$dir/$version/vendors
    if [ "$only" = 1 ]; then vendors=$dir/$version/vendors-only; fi
    case $mode in
        print)
            printf 'export OCL_ICD_VENDORS=%q\n' "$vendors"
            ;;
        env | check)
            export OCL_ICD_VENDORS=$vendors
            if [ "$mode" = check ]; then clinfo -l; fi
            ;;
    esac
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
    _clpk_intel_ocl_main "$@"
else
    set -euo pipefail
    if [ $# -eq 0 ]; then set -- --print-env; fi
    _clpk_intel_ocl_main "$@"
fi
