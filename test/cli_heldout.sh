#!/usr/bin/env bash
# The held-out check (bench/heldout.sh --quick) runs end to end on the CI device: every family's problems through the
# benchmark CLIs with the tuned profile, the built-in defaults and the profile's parameter sets, every result checked;
# the report is written and lists every family. No speed assertion (a CPU and tiny problems). The profile is the CI
# tune's (test/cli_tune.sh writes it into CLPK_TUNED_PROFILE_DIR); run alone, a short tune makes one.
set -u
BIN=${1:?usage: cli_heldout.sh BIN_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLI=$ROOT/bench/heldout.sh
# shellcheck source=support/cli_check.sh
. "$ROOT/test/support/cli_check.sh"

PROFILE=${CLPK_TUNED_PROFILE_DIR:-$BIN/../tuned-profiles}/ci-tuned.json
if [ ! -f "$PROFILE" ]; then
    PROFILE=$TMP/short-tune.json
    "$BIN/clpk-tune" --quick --budget 30 --candidate-limit 20 --out "$PROFILE" --cache "$TMP/tune.cache.jsonl" \
        >"$TMP/tune.txt" 2>&1 || { cat "$TMP/tune.txt" >&2; }
fi
check "a tuned profile" test -f "$PROFILE"

check "usage error" test "$(python3 "$ROOT/bench/heldout.py" --bin "$BIN" --families nope >/dev/null 2>&1; echo $?)" \
    -eq 2

start=$(date +%s)
bash "$ROOT/bench/heldout.sh" "$TMP/out" --bin "$BIN" --quick --profile "$PROFILE" >"$TMP/run.txt" 2>&1
rc=$?
cat "$TMP/run.txt"
elapsed=$(($(date +%s) - start))
check "heldout.sh --quick exits 0 (every result correct)" test "$rc" -eq 0
echo "quick held-out check: ${elapsed}s"
check "markdown report written" test -s "$TMP/out/heldout.md"
check "JSON lines written" test -s "$TMP/out/heldout.jsonl"
for family in spmv xcorr sshopm life; do
    [ -x "$BIN/clpk-bench-$family" ] || continue # a build without the family
    check "report lists $family" grep -q "^## $family\$" "$TMP/out/heldout.md"
    check "... with a summary row" grep -q "^| $family | [1-9]" "$TMP/out/heldout.md"
    check "... and JSON problems" grep -q "\"record\": \"problem\".*\"family\": \"$family\"\|\"family\": \"$family\".*\"record\": \"problem\"" \
        "$TMP/out/heldout.jsonl"
done
check "targets marked" grep -Eq '\*\*(PASS|MISS)\*\*' "$TMP/out/heldout.md"
check "JSON lines parse" python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" \
    "$TMP/out/heldout.jsonl"

cli_summary
