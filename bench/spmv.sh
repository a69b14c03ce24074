#!/usr/bin/env bash
# SpMV benchmark in one command: generate the Table III matrices (+ the real ones) -> clpk (csr, auto, tuned) ->
# cuSPARSE through CuPy on the very same CSR data -> merged JSON, markdown ratio table, PNG charts per precision.
#
#   bench/spmv.sh [--out DIR] [--bin BIN_DIR] [--scale S] [--cases a,b,..|none] [--matrices DIR|none]
#                 [--precision f32,f64] [--repeats N] [--impls ...] [--tune-budget N] [--device SEL]
#                 [--corpus FILE]   (LABEL SPEC lines, e.g. bench/spmv_corpus.txt: the held-out evaluation corpus;
#                                    MATRICES in a spec stands for the real matrices' folder)
#                 [--only a,b,...]  (only these labels of the corpus: to split it across device calls)
#                 [--oracle-max-points N]  (with --impls ...,clpk-oracle: points measured per matrix and precision)
#                 [--variant [f32:|f64:]LABEL=PARAMS]  (repeatable: clpk-bench-spmv's labelled plans, e.g. verify=close)
# The held-out evaluation (issue #22): --cases none --corpus bench/spmv_corpus.txt --impls clpk-auto,clpk-oracle;
# spmv.md then sets the automatic plan against the per-matrix oracle and cuSPARSE.
# On the H100 (see docs/perf-spmv.md):  . .gpu/enter && bench/spmv.sh --out "$OUT" --bin .gpu/build/bin
# Peers are skipped (with a message) where `import cupy` fails; charts where matplotlib is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${OUT:-spmv-bench-out} bin="" scale=1 cases="" matrices="" precision=f32,f64 repeats=100 impls="" device="" tune_budget=""
corpus="" only="" oracle_max="" variants=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --bin) bin=$2; shift 2 ;;
        --scale) scale=$2; shift 2 ;;
        --cases) cases=$2; shift 2 ;;
        --matrices) matrices=$2; shift 2 ;;
        --precision) precision=$2; shift 2 ;;
        --repeats) repeats=$2; shift 2 ;;
        --impls) impls=$2; shift 2 ;;
        --device) device=$2; shift 2 ;;
        --tune-budget) tune_budget=$2; shift 2 ;;
        --corpus) corpus=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --oracle-max-points) oracle_max=$2; shift 2 ;;
        --variant) variants+=("$2"); shift 2 ;;
        -h|--help) sed -n 2,16p "$0"; exit 0 ;;
        *) echo "spmv.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if [ -z "$bin" ]; then
    for b in "$root/.gpu/build/bin" "$root/build/bin"; do [ -x "$b/clpk-bench-spmv" ] && bin=$b && break; done
fi
[ -x "$bin/clpk-bench-spmv" ] || { echo "spmv.sh: clpk-bench-spmv not found (give --bin)" >&2; exit 2; }
if [ -z "$matrices" ]; then
    for d in "${CLPK_SHARED_DATA_DIR:-/nonexistent}/matrices" "$root/shared/data/matrices" "$root/../shared/data/matrices"; do
        [ -d "$d" ] && matrices=$d && break
    done
fi
mkdir -p "$out"
npy=$(mktemp -d "${TMPDIR:-/tmp}/clpk-spmv-npy.XXXXXX") # large: kept out of $OUT
trap 'rm -rf "$npy"' EXIT
args=(--scale "$scale" --precision "$precision" --repeats "$repeats" --npy-dir "$npy" --json "$out/clpk.json")
[ -n "$cases" ] && args+=(--cases "$cases")
[ -n "$impls" ] && args+=(--impls "$impls")
[ -n "$device" ] && args+=(--device "$device")
[ -n "$tune_budget" ] && args+=(--tune-budget "$tune_budget")
[ -n "$oracle_max" ] && args+=(--oracle-max-points "$oracle_max")
for v in ${variants[@]+"${variants[@]}"}; do args+=(--variant "$v"); done
if [ -n "$corpus" ]; then
    real=${matrices:-}
    if [ -z "$real" ] || [ "$real" = none ]; then
        for d in "${CLPK_SHARED_DATA_DIR:-/nonexistent}/matrices" "$root/.gpu/data/matrices" "$root/../shared/data/matrices"; do
            [ -d "$d" ] && real=$d && break
        done
    fi
    while read -r label spec; do
        case "$label" in ''|'#'*) continue ;; esac
        [ -z "$only" ] || [[ ",$only," == *",$label,"* ]] || continue
        args+=(--spec "$label=${spec//MATRICES/$real}")
    done <"$corpus"
    matrices=none
fi
if [ -n "$matrices" ] && [ "$matrices" != none ]; then args+=(--matrices "$matrices"); else echo "spmv.sh: no real matrices"; fi
echo "== clpk: $bin/clpk-bench-spmv ${args[*]}"
"$bin/clpk-bench-spmv" "${args[@]}" 2>&1 | tee "$out/clpk.txt"
status=${PIPESTATUS[0]}
peer_json=""
if python3 -c "import cupy, cupyx.cusparse" 2>/dev/null; then
    echo "== cuSPARSE peer (CuPy) on the same CSR data"
    dirs=("$npy"/*)
    if [ -e "${dirs[0]}" ]; then
        python3 "$here/peers/cusparse_spmv.py" "${dirs[@]}" --precision "$precision" --repeats "$repeats" \
            --json "$out/peer.json" 2>&1 | tee "$out/peer.txt"
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
        peer_json=$out/peer.json
    fi
else
    echo "== cuSPARSE peer skipped: python3 cannot import cupy here"
fi
echo "== report"
python3 "$here/spmv_report.py" --clpk "$out/clpk.json" ${peer_json:+--peer "$peer_json"} --out "$out/spmv.json" \
    --markdown "$out/spmv.md" || status=1
if python3 -c "import matplotlib" 2>/dev/null; then
    for p in ${precision//,/ }; do
        python3 "$here/plot.py" "$out/spmv.json" --kind bar --x case --series impl --y gflops --where precision="$p" \
            --title "SpMV $p GFLOP/s (clpk vs cuSPARSE)" --out "$out/spmv_${p}_gflops.png" || status=1
        python3 "$here/plot.py" "$out/spmv.json" --kind bar --x case --series impl --y pct_copy_bw \
            --where precision="$p" --title "SpMV $p % of copy bandwidth" --out "$out/spmv_${p}_bw.png" || status=1
        if [ -n "$peer_json" ]; then
            python3 "$here/plot.py" "$out/spmv.json" --kind bar --x case --series impl --y ratio_to_peer \
                --where precision="$p" --title "SpMV $p speed-up over cuSPARSE" --out "$out/spmv_${p}_ratio.png" \
                || status=1
        fi
    done
else
    echo "== charts skipped: no matplotlib"
fi
echo "== outputs in $out: $(cd "$out" && ls | tr '\n' ' ')"
exit "$status"
