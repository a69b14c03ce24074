#!/usr/bin/env bash
# Tuner quality, one command: "tuned choice >= 95 % of the exhaustive best" (issue #7) measured on a subset of the
# training problems of each family, with a markdown table and a JSON of the ratios. docs/tuning.md ("Quality: tuned
# vs exhaustive") has the method and the numbers measured on the PoCL CI machine.
#
# For each (family, problem) of SUITE:
#   - a space small enough (vary list "-"): `clpk-tune --vs-json` searches with the default strategy (hill), then
#     exhaustively over the same space, then measures both winners again alternately in one process (head-to-head);
#   - a space too big for an exhaustive search (VARY lists the parameters left free):
#     A. hill on the whole space (as a user runs it); the sub-space S fixes every parameter not in VARY at the value
#        hill chose, so S holds the tuned choice; exhaustive over S (`--vs-space S`): an upper bound of the
#        full-space ratio (the exhaustive best of the whole space can only be faster);
#     B. hill restricted to S against exhaustive over S (`--space S`): the search strategy's ratio on a space of a
#        few hundred points, measured exactly.
# Points are cached per family (OUT/<family>[-quick].cache.jsonl) and every step resumes from the cache, so B costs
# only its head-to-head, and an interrupted run continues where it stopped.
#
# PROFILE=FILE (a profile written by a whole clpk-tune run, e.g. the 10-minute all-family tune) measures that run's
# output instead of a fresh hill search: for each problem the profile's entry of the problem's exact class is the
# tuned choice (a one-point --space; the run's defaults stay in as they did in the run), against the exhaustive best
# of the whole space (vary "-": P) or of the sub-space around the profile's choice (PS, an upper bound as in A).
#
# Usage: bench/tune_quality.sh [OUT_DIR]      (default $OUT, else ./bench-out/tune-quality)
# Environment: BIN (folder of clpk-tune; default build/bin), DEVICE (clpk-tune --device), ROUNDS (head-to-head
#   rounds per winner, default 5), SUITE (lines "family full|quick problems vary-list", default below),
#   TUNE_ARGS (extra clpk-tune options).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-${OUT:-bench-out/tune-quality}}
BIN=${BIN:-$ROOT/build/bin}
ROUNDS=${ROUNDS:-5}
# family, problem size, problem numbers (clpk-tune --list [--quick]), parameters the exhaustive sub-space varies
# (none: the whole space).
SUITE=${SUITE:-"sshopm full 0,1,2 -
xcorr quick 0,1,2,3,4,5 -
xcorr full 1 -
life quick 0,1 -
life quick 0 team,runs,unroll,wc_runs,wg
life full 2 team,runs,unroll,wc_runs,wg
spmv quick 0,1 format,flag_bits,tile,wg,strategy,cache,csr_vec"}
mkdir -p "$OUT"
COMMON=(--vs-rounds "$ROUNDS")
[ -n "${DEVICE:-}" ] && COMMON+=(--device "$DEVICE")
# shellcheck disable=SC2206 # TUNE_ARGS is a word list on purpose
COMMON+=(${TUNE_ARGS:-})

# The sub-space of a problem: every parameter of the tuned choice that is not in the vary list, fixed.
subspace() { # profile.json vary-list
    python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
vary = set(sys.argv[2].split(","))
entries = [e for family in doc["families"].values() for e in family]
if len(entries) != 1:
    sys.exit("tune_quality: expected one profile entry in %s, found %d" % (sys.argv[1], len(entries)))
def text(v):
    if isinstance(v, bool): return "1" if v else "0"
    if isinstance(v, (int, float)) and float(v).is_integer(): return str(int(v))
    return str(v)
print(",".join("%s=%s" % (k, text(v)) for k, v in entries[0]["params"].items() if k not in vary))
PY
}

run() { # log-file clpk-tune-arguments...
    local log=$1
    shift
    echo "+ clpk-tune $*" | tee -a "$OUT/commands.txt"
    "$BIN/clpk-tune" "$@" "${COMMON[@]}" >>"$log" 2>&1 || {
        echo "tune_quality: clpk-tune failed, see $log" >&2
        tail -5 "$log" >&2
        return 1
    }
}

# The profile entry of the problem's class, as a --space spec (every parameter fixed), or the sub-space of it that
# leaves the vary list free. Classes come from `clpk-tune --list`.
profile_spec() { # family quick-flag problem vary-list(or "" for the fixed point)
    local listing=$OUT/$1$2.list
    [ -s "$listing" ] || "$BIN/clpk-tune" --list --families "$1" $2 "${COMMON_LIST[@]}" >"$listing" 2>/dev/null
    python3 - "$PROFILE" "$1" "$3" "$4" "$listing" <<'PY'
import json, re, sys
profile, family, problem, vary = sys.argv[1], sys.argv[2], int(sys.argv[3]), set(filter(None, sys.argv[4].split(",")))
klass, space, current = None, {}, None
for line in open(sys.argv[5]):
    m = re.match(r"\s*\[(\d+)\] .*?  class \{(.*)\}  ", line)
    if m:
        current = int(m.group(1))
        if current == problem:
            klass = dict(kv.split("=", 1) for kv in m.group(2).split(","))
    elif current == problem and line.startswith("      "):
        words = line.split()
        space[words[0]] = set(words[1:])
if klass is None:
    sys.exit("tune_quality: problem %d of %s not listed" % (problem, family))
def same(a, b):
    try:
        x, y = float(a), float(b)
        return abs(x - y) <= 1e-6 * max(1.0, abs(x), abs(y))
    except (TypeError, ValueError):
        return str(a) == str(b)
def text(v):
    if isinstance(v, bool): return "1" if v else "0"
    if isinstance(v, (int, float)) and float(v).is_integer(): return str(int(v))
    return str(v)
for e in json.load(open(profile))["families"].get(family, []):
    c = e.get("class", {})
    if set(c) == set(klass) and all(same(c[k], klass[k]) for k in c):
        # keys outside the space (or values outside it: the run's defaults won) cannot be fixed by --space
        kept = ["%s=%s" % (k, text(v)) for k, v in e["params"].items()
                if k not in vary and k in space and text(v) in space[k]]
        dropped = [k for k, v in e["params"].items() if k in space and text(v) not in space[k]]
        if dropped:
            print("tune_quality: %s problem %d: the profile's choice is off the space in %s (the defaults won)"
                  % (family, problem, ",".join(dropped)), file=sys.stderr)
        print(",".join(kept) or "zz_none=1")
        sys.exit(0)
sys.exit("tune_quality: no entry of class %s in %s" % (klass, profile))
PY
}
COMMON_LIST=()
[ -n "${DEVICE:-}" ] && COMMON_LIST+=(--device "$DEVICE")

while read -r family size problems vary; do
    [ -z "$family" ] && continue
    quick=()
    tag=$family
    if [ "$size" = quick ]; then
        quick=(--quick)
        tag=$family-quick
    fi
    cache=$OUT/$tag.cache.jsonl
    for p in ${problems//,/ }; do
        base=$OUT/$tag-$p
        if [ -n "${PROFILE:-}" ]; then
            fixed=$(profile_spec "$family" "${quick[*]}" "$p" "")
            if [ "$vary" = - ]; then
                whole=zz_none=1 kind=P # a key no family has: the whole space
            else
                whole=$(profile_spec "$family" "${quick[*]}" "$p" "$vary") kind=PS
            fi
            echo "$family $size $p: profile choice $fixed; exhaustive over ${whole/zz_none=1/the whole space}" |
                tee -a "$OUT/commands.txt"
            resume=()
            [ -s "$cache" ] && resume=(--resume)
            run "$base.log" --families "$family" "${quick[@]}" --problems "$p" --cache "$cache" "${resume[@]}" \
                --space "$fixed" --out "$base-profile.json" --vs-space "$whole" --vs-json "$base-$kind.json"
            continue
        fi
        resume=()
        [ -s "$cache" ] && resume=(--resume)
        args=(--families "$family" "${quick[@]}" --problems "$p" --cache "$cache")
        if [ "$vary" = - ]; then
            run "$base.log" "${args[@]}" "${resume[@]}" --out "$base-hill.json" --vs-json "$base-full.json"
            continue
        fi
        run "$base.log" "${args[@]}" "${resume[@]}" --out "$base-hill.json"
        space=$(subspace "$base-hill.json" "$vary")
        echo "$family $size $p: sub-space $space (free: $vary)" | tee -a "$OUT/commands.txt"
        run "$base.log" "${args[@]}" --resume --out "$base-hill.json" --vs-space "$space" --vs-json "$base-A.json"
        run "$base.log" "${args[@]}" --resume --out "$base-hill-s.json" --space "$space" --vs-json "$base-B.json"
    done
done <<<"$SUITE"

python3 "$ROOT/bench/tune_quality.py" "$OUT"
