#!/usr/bin/env bash
# Builds the libFuzzer targets (test/fuzz_*.c) with clang and runs each for a number of seconds (default 30).
# Usage: scripts/fuzz.sh [seconds]
#   CLPK_FUZZ_BUILD  build directory (default: ${CLPK_BUILD:-build}-fuzz)
# Corpora are kept between runs in <build>/corpus/<target> and seeded with small valid files; inputs that crash are
# saved to <build>/crashes/<target>/ and make the script fail. Replay one with: <build>/fuzz/<target> <file>
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-30}
build=${CLPK_FUZZ_BUILD:-${CLPK_BUILD:-$root/build}-fuzz}
command -v clang >/dev/null || { echo "fuzz.sh: clang is needed for libFuzzer" >&2; exit 1; }

echo "== building the fuzzers in $build"
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLPK_BUILD_FUZZERS=ON \
      -DCLPK_BUILD_TESTS=OFF >/dev/null
targets=$(cd "$root/test" && ls fuzz_*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
if ! cmake --build "$build" -j"$(nproc)" --target $targets >"$build/build.log" 2>&1; then
    echo "fuzz.sh: the fuzzers did not build:" >&2
    grep -E "error|warning:" "$build/build.log" | head -40 >&2
    exit 1
fi
grep -E "warning:" "$build/build.log" || true

# Seeds: one small valid file per feature, so the fuzzer starts past the banner and header checks.
seed_mtx() {
    local dir=$1
    printf '%%%%MatrixMarket matrix coordinate real general\n%% c\n3 4 3\n1 1 1.5\n3 2 -2e-3\n2 4 3\n' >"$dir/general"
    printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 1 .5\n3 3 4E+2\n' >"$dir/symmetric"
    printf '%%%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -7\n' >"$dir/skew"
    printf '%%%%MatrixMarket matrix coordinate pattern general\r\n2 2 2\r\n1 2\r\n2 1\r\n' >"$dir/pattern"
    printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n2\n' >"$dir/array"
    printf '%%%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n' >"$dir/complex"
    printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 0.12345678901234567e-300\n' >"$dir/long_value"
}
seed_npy() {
    local dir=$1 h
    npy_file() { # version, header text, data bytes (printf escapes)
        local len=${#2}
        if [ "$1" = 1 ]; then
            printf "\x93NUMPY\x01\x00\\x$(printf %02x $((len % 256)))\\x$(printf %02x $((len / 256)))%s$3" "$2"
        else
            printf "\x93NUMPY\x0$1\x00\\x$(printf %02x $((len % 256)))\\x$(printf %02x $((len / 256)))\x00\x00%s$3" "$2"
        fi
    }
    h="{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    npy_file 1 "$h" '\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\xc0' >"$dir/f8"
    h="{'descr': '>i4', 'fortran_order': False, 'shape': (1, 2), }"
    npy_file 2 "$h" '\x00\x00\x00\x07\xff\xff\xff\xff' >"$dir/i4_big"
    h="{'descr': '|u1', 'fortran_order': False, 'shape': (), }"
    npy_file 3 "$h" '\x05' >"$dir/u1_scalar"
    h="{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }"
    npy_file 1 "$h" '' >"$dir/f4_empty"
    h="{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }"
    npy_file 1 "$h" '\x01\x00\x00\x00\x00\x00\x00\x80' >"$dir/i8"
}
seed_trk() { # the shared dipy tractogram (3976 bytes) when it is there
    local src=$root/../shared/data/life/EuDX_small_25.trk
    if [ -f "$src" ]; then cp "$src" "$1/eudx.trk"; else printf 'TRACK' >"$1/magic"; fi
}
seed_nifti() { # a 2x2x1x2 uint8 NIfTI-1 volume
    local f=$1/small.nii
    head -c 352 /dev/zero >"$f"
    put() { printf "$2" | dd of="$f" bs=1 seek="$1" conv=notrunc status=none; }
    put 0 '\x5c\x01\x00\x00'
    put 40 '\x04\x00\x02\x00\x02\x00\x01\x00\x02\x00\x01\x00\x01\x00\x01\x00'
    put 70 '\x02\x00\x08\x00'
    put 76 '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x00\x40\x00\x00\x00\x40'
    put 108 '\x00\x00\xb0\x43'
    put 344 'n+1\x00'
    printf '\x01\x02\x03\x04\x05\x06\x07\x08' >>"$f"
}

write_dict() {
    case $1 in
    fuzz_mtx) printf '%s\n' '"%%MatrixMarket"' '"matrix"' '"coordinate"' '"array"' '"real"' '"integer"' \
        '"pattern"' '"complex"' '"general"' '"symmetric"' '"skew-symmetric"' '"hermitian"' '"e-"' '"E+"' '"nan"' \
        '"inf"' '"2147483647"' '"2147483648"' '"9223372036854775807"' '"\x0d\x0a"' '"\x0a%"' ;;
    fuzz_npy) printf '%s\n' '"\x93NUMPY"' '"{"' '"}"' '"\x27descr\x27: "' '"\x27fortran_order\x27: "' \
        '"\x27shape\x27: "' '"False"' '"True"' '"\x27<f8\x27"' '"\x27>f4\x27"' '"\x27<i4\x27"' '"\x27>i8\x27"' \
        '"\x27|u1\x27"' '"(1,)"' '"()"' '"(2, 3)"' '"L"' '"9223372036854775807"' ;;
    fuzz_trk) printf '%s\n' '"TRACK\x00"' '"RAS"' '"LPS"' '"LAS"' '"\xe8\x03\x00\x00"' '"\x00\x00\x03\xe8"' \
        '"\x02\x00\x00\x00"' '"\x00\x00\x80\x3f"' '"\xff\xff\xff\x7f"' '"\x00\x00\xc0\x7f"' ;;
    fuzz_nifti) printf '%s\n' '"n+1\x00"' '"ni1\x00"' '"\x5c\x01\x00\x00"' '"\x00\x00\x01\x5c"' \
        '"\x1c\x02\x00\x00"' '"\x00\x00\xb0\x43"' '"\x10\x00\x20\x00"' '"\x40\x00\x40\x00"' '"\x00\x00\xc0\x7f"' ;;
    esac
}

status=0
for t in $targets; do
    corpus=$build/corpus/$t crashes=$build/crashes/$t
    mkdir -p "$corpus" "$crashes"
    if [ -z "$(ls -A "$corpus")" ]; then
        case $t in
        fuzz_mtx) seed_mtx "$corpus" ;; fuzz_npy) seed_npy "$corpus" ;;
        fuzz_trk) seed_trk "$corpus" ;; fuzz_nifti) seed_nifti "$corpus" ;;
        esac
    fi
    write_dict "$t" >"$build/$t.dict"
    echo "== $t for ${seconds}s"
    log=$build/$t.log
    if "$build/fuzz/$t" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -dict="$build/$t.dict" -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb" "$log" || true
    else
        status=1
        echo "$t FAILED; the end of its log ($log):"
        tail -40 "$log"
        ls -l "$crashes"
    fi
done
exit $status
