#!/usr/bin/env bash
# clpk-tune end to end on the CI device: a budget-limited quick tune of every built-in family (<= 2 minutes), whose
# profile the other tests then use (CLPK_PROFILE_DIR points at the directory it is written to), then resume, merge,
# list, clpk-info's profile report, and the usage errors. With no family built in it still writes a valid profile.
set -u
BIN=${1:?usage: cli_tune.sh BIN_DIR}
OUT_DIR=${CLPK_TUNED_PROFILE_DIR:-$BIN/../tuned-profiles}
TMP=$(mktemp -d /tmp/clpk-cli-tune-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0
check() { # check DESCRIPTION COMMAND...: the command must succeed
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what" >&2; fi
}
status_is() { # status_is CODE COMMAND...
    local want=$1
    shift
    "$@" >"$TMP/out.txt" 2>&1
    local got=$?
    [ "$got" -eq "$want" ] || { echo "exit $got, want $want: $*" >&2; cat "$TMP/out.txt" >&2; return 1; }
}

check "--help" status_is 0 "$BIN/clpk-tune" --help
check "unknown option" status_is 2 "$BIN/clpk-tune" --no-such-option
check "bad budget" status_is 2 "$BIN/clpk-tune" --budget -3
check "bad strategy" status_is 2 "$BIN/clpk-tune" --strategy annealing
check "bad --min-gain" status_is 2 "$BIN/clpk-tune" --min-gain 1.5
check "unknown family" status_is 2 "$BIN/clpk-tune" --families no_such_family
check "merge without --out" status_is 2 "$BIN/clpk-tune" --merge a.json
check "bad --space" status_is 2 "$BIN/clpk-tune" --space "wg"
check "... says why" grep -q "expected key=value|value" "$TMP/out.txt"
check "bad --problems" status_is 2 "$BIN/clpk-tune" --problems "1,x"
check "--list" status_is 0 "$BIN/clpk-tune" --list --quick

# The CI tune. Its profile goes where the other tests look (see CMakeLists.txt).
mkdir -p "$OUT_DIR"
start=$(date +%s)
check "CI tune" status_is 0 "$BIN/clpk-tune" --quick --budget 60 --candidate-limit 20 --out "$TMP/ci.json" \
    --cache "$TMP/ci.cache.jsonl"
cat "$TMP/out.txt"
elapsed=$(($(date +%s) - start))
check "CI tune within 2 minutes (${elapsed}s)" test "$elapsed" -le 120
check "profile written" grep -q '"schema":[[:space:]]*1' "$TMP/ci.json"
check "path reported" grep -q "profile written: $TMP/ci.json" "$TMP/out.txt"
CLPK_PROFILE="$TMP/ci.json" "$BIN/clpk-info" --device "" >"$TMP/info.txt" 2>&1
check "the library accepts the tuned profile" grep -q "^profile: exact device and driver $TMP/ci.json" "$TMP/info.txt"
cp "$TMP/ci.json" "$OUT_DIR/ci-tuned.json"

# Resuming takes the measured points from the cache and goes on (briefly: the first run was cut by its budget).
start=$(date +%s)
check "resume" status_is 0 "$BIN/clpk-tune" --quick --resume --budget 10 --candidate-limit 20 \
    --out "$TMP/resumed.json" --cache "$TMP/ci.cache.jsonl"
# Past its budget a problem still replays the points earlier runs measured, then times its winner and the defaults
# head to head, which builds their plans (on Intel's CPU runtime up to ~6 s a problem: VkFFT f64 applications): so
# the bound is the budget plus that per problem (10 here), not the budget; a resume that measured everything again
# would take the first run's 60 s budget and more. Alone on 2 cores this resume takes ~22 s.
resumed=$(($(date +%s) - start))
check "resume within its budget and the re-measures (${resumed}s)" test "$resumed" -le 70
check "resume took the earlier points from the cache" grep -Eq "^  sshopm: [0-9]+ points \([1-9][0-9]* from the cache\)" \
    "$TMP/out.txt"
check "resumed profile written" grep -q '"families"' "$TMP/resumed.json"

# The quality check on a sub-space of one problem: hill and exhaustive over the 5 work-group sizes, both winners
# measured again head-to-head, the comparison written as JSON.
"$BIN/clpk-tune" --list --quick --families sshopm --problems 1 --space "wg=64|128" >"$TMP/list.txt" 2>&1
check "--list with --problems and --space" grep -q "^      wg  *64 128$" "$TMP/list.txt"
check "... only the problem asked" test "$(grep -c '^  \[' "$TMP/list.txt")" -eq 1
check "vs-exhaustive on a sub-space" status_is 0 "$BIN/clpk-tune" --quick --resume --families sshopm --problems 0 \
    --space "kernel=generated,entries=private,check_every=4" --vs-rounds 2 --vs-json "$TMP/vs.json" \
    --out "$TMP/vs-profile.json" --cache "$TMP/ci.cache.jsonl"
check "... prints the ratio" grep -q "geometric mean .*, worst .* over 1 problem" "$TMP/out.txt"
check "... writes the JSON" grep -q '"exhaustive_space":[[:space:]]*"kernel=generated,entries=private,check_every=4"' \
    "$TMP/vs.json"
check "... with the head-to-head" grep -q '"h2h_rounds":[[:space:]]*2' "$TMP/vs.json"
check "... searched only the sub-space" grep -q '"exhaustive_points":[[:space:]]*[1-6],' "$TMP/vs.json"

# Merging two runs gives a valid profile; a malformed input fails with its name.
check "merge" status_is 0 "$BIN/clpk-tune" --merge "$TMP/ci.json" "$TMP/resumed.json" --out "$TMP/merged.json"
CLPK_PROFILE="$TMP/merged.json" "$BIN/clpk-info" --device "" >"$TMP/info.txt" 2>&1
check "merged profile accepted" grep -q "^profile: exact device and driver $TMP/merged.json" "$TMP/info.txt"
echo '{"schema": 1,' >"$TMP/broken.json"
check "merge of a malformed file fails" status_is 1 "$BIN/clpk-tune" --merge "$TMP/ci.json" "$TMP/broken.json" \
    --out "$TMP/never.json"
check "... naming it" grep -q "broken.json" "$TMP/out.txt"
check "... writing nothing" test ! -e "$TMP/never.json"

# clpk-info --family/--features: which entry a problem would use.
name=$(sed -n 's/.*"name":[[:space:]]*"\(.*\)",*$/\1/p' "$TMP/ci.json" | head -1)
vendor=$(sed -n 's/.*"vendor":[[:space:]]*"\(.*\)",*$/\1/p' "$TMP/ci.json" | head -1)
cat >"$TMP/hand.json" <<EOF
{"schema": 1, "device": {"name": "$name", "vendor": "$vendor", "driver": "hand-written", "type": "CPU"},
 "families": {"spmv": [{"class": {"precision": "f32", "rows": 1000}, "params": {"format": "csr", "wg": 64}},
                       {"class": {"precision": "f32", "rows": 1000000}, "params": {"format": "bccoo", "wg": 256}}]}}
EOF
CLPK_PROFILE="$TMP/hand.json" "$BIN/clpk-info" --family spmv --features precision=f32,rows=800000 >"$TMP/info.txt" 2>&1
check "clpk-info names the nearest class" grep -q "class {precision=f32,rows=1000000}" "$TMP/info.txt"
check "clpk-info prints its parameters" grep -q "parameters: format=bccoo,wg=256" "$TMP/info.txt"
CLPK_PROFILE="$TMP/hand.json" "$BIN/clpk-info" --family spmv --features precision=f64 >"$TMP/info.txt" 2>&1
check "clpk-info says defaults when nothing fits" grep -q "built-in defaults" "$TMP/info.txt"
check "clpk-info bad features" status_is 2 "$BIN/clpk-info" --family spmv --features rows

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
