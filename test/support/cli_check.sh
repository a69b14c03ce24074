# Shared by the CLI tests (source it after setting CLI, the program under test): a temporary folder $TMP removed on
# exit, check/expect_fail counting passes and failures, and cli_summary printing "N passed, N failed" and
# returning non-zero on any failure.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
check() { # check DESCRIPTION COMMAND...: the command must succeed
    local what=$1
    shift
    if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what" >&2; fi
}
expect_fail() { # expect_fail CODE PATTERN ARGS...: $CLI exits with CODE and says PATTERN on stderr
    local code=$1 pattern=$2
    shift 2
    "$CLI" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" -eq "$code" ] && grep -qi -- "$pattern" "$TMP/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: '$*' exited $rc (want $code) with: $(cat "$TMP/err")" >&2
    fi
}
cli_summary() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
