#!/usr/bin/env bash
# The public surface is the public API: every symbol libclpk.so exports is a function declared CLPK_API in a public
# header, and every such declaration is exported (a missing CLPK_API would break users at link time).
#   test/exports.sh LIBCLPK_SO PUBLIC_INCLUDE_DIR
set -euo pipefail
lib=$1 include=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWw]$/ {print $3}' | grep -v '^_' | sed 's/@.*//' | sort -u)
declared=$(cat "$include"/*.h | tr '\n' ' ' | grep -oE 'CLPK_API [^;{]*\(' | grep -oE '\bclpk_[a-z0-9_]+ *\($' |
    tr -d ' (' | sort -u)
[ -n "$exported" ] || { echo "FAIL: no exported symbols read from $lib"; exit 1; }
[ -n "$declared" ] || { echo "FAIL: no CLPK_API declarations read from $include"; exit 1; }
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
echo "exports: $(echo "$exported" | wc -l) symbols exported, $(echo "$declared" | wc -l) declared CLPK_API"
status=0
if [ -n "$extra" ]; then
    echo "FAIL: exported but not declared CLPK_API in a public header:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
    echo "FAIL: declared CLPK_API but not exported:"; echo "$missing" | sed 's/^/  /'; status=1
fi
[ $status = 0 ] && echo "PASS: the exported symbols are exactly the public API"
exit $status
