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
check "timing noise column" grep -q "same plan timed twice" "$TMP/out/heldout.md"
check "JSON lines parse" python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" \
    "$TMP/out/heldout.jsonl"
# every problem says whether auto and the defaults resolved to the same plan (then the ratio is noise), and a row marked
# so never counts as a miss against the defaults
check "same-plan flags agree with the plans" python3 -c "
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get('record') == 'problem' and r.get('auto_ms')]
assert rows, 'no problem measured'
for r in rows:
    assert r['same_plan'] == (bool(r['auto_plan']) and r['auto_plan'] == r['defaults_plan']), r['problem']
    assert r['defaults_plan'], r['problem'] + ': no defaults plan recorded'
    assert not r['same_plan'] or r['meets_defaults'], r['problem']
" "$TMP/out/heldout.jsonl"
# an xcorr miss of the best target whose best is one of the profile's sets counts only after that set was re-timed
# (auto and the set alternating, --confirm 3 by default), and its ratio is the re-timed one
check "xcorr misses re-timed before they count" python3 -c "
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get('record') == 'problem' and r.get('family') == 'xcorr']
for r in rows:
    if r.get('auto_ms') and not r['meets_best'] and r['best_set'] in r['sets_ms']:
        c = r.get('confirm_first')
        assert c and c['rounds'] == 3 and r['best_set'] in c['sets'], r['problem'] + ': a miss not re-timed'
        assert abs(r['vs_best'] - min(1.0, r['best_ms'] / r['auto_ms'])) < 1e-9, r['problem']
        assert r['best_ms'] == min(v for v in r['sets_ms'].values() if v), r['problem']
" "$TMP/out/heldout.jsonl"

# an xcorr miss of the defaults target where auto and the defaults resolved to different plans counts only after both
# plans were re-timed in one command, and the chosen plan becomes that command's explicit variant
check "xcorr defaults misses re-timed before they count" python3 -c "
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get('record') == 'problem' and r.get('family') == 'xcorr']
for r in rows:
    if r.get('auto_ms') and not r['meets_defaults'] and not r['same_plan']:
        c = r.get('confirm_defaults_first')
        assert c and c['rounds'] == 3, r['problem'] + ': a defaults miss not re-timed'
" "$TMP/out/heldout.jsonl"
check "a chosen plan runs as an explicit variant" python3 -c "
import sys
sys.path.insert(0, sys.argv[1])
import heldout
keys = {'fused-fft': ['wg', 'rows'], 'naive': ['wg']}
assert heldout.plan_variant('fused-fft {wg=64,rows=2,team=8}', keys) == 'fused-fft:wg=64/rows=2'
assert heldout.plan_variant('naive', keys) == 'naive'
assert heldout.plan_variant('', keys) is None
" "$ROOT/bench"

# rounds merge per problem and precision: an f32 and an f64 row of one matrix stay two rows with their own times
check "rounds keep precisions apart" python3 -c "
import sys
sys.path.insert(0, sys.argv[1])
import heldout
rows = [heldout.problem_row('spmv', 'm', p, a, 2 * a, {'s0': 3 * a}, {}) for p, a in (('f32', 1.0), ('f64', 2.0))]
merged = heldout.merge_rounds([rows, rows])
assert sorted((r['precision'], r['auto_ms'], r['rounds']) for r in merged) == [('f32', 1.0, 2), ('f64', 2.0, 2)], merged
" "$ROOT/bench"

# without a profile auto is the defaults and no set is timed: the targets are not applicable, never a PASS
mkdir -p "$TMP/no-profile"
CLPK_PROFILE= CLPK_PROFILE_DIR="$TMP/no-profile" python3 "$ROOT/bench/heldout.py" --bin "$BIN" --quick \
    --families xcorr --out "$TMP/out-none" >"$TMP/none.txt" 2>&1
check "no profile: exits 0" test $? -eq 0
check "no profile: targets not applicable" grep -q "n/a (no profile)" "$TMP/out-none/heldout.md"
check "no profile: no PASS" test "$(grep -c '\*\*PASS\*\*' "$TMP/out-none/heldout.md")" -eq 0

cli_summary
