#!/usr/bin/env bash
# The main demo on the default device ($CLPK_DEVICE, else the first GPU, else the first CPU):
# lists devices, runs a verified kernel end to end, then each family's demo in scripts/demo.d/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
BIN=$CLPK_BUILD/bin
export BIN CLPK_ROOT
DATA=${CLPK_SHARED_DATA_DIR:-$CLPK_ROOT/../shared/data}
export DATA

echo; echo "== clpk-info"
"$BIN/clpk-info" --device "${CLPK_DEVICE:-}"
echo; echo "== hello-saxpy: a kernel built through the program cache, checked against a double-precision reference"
"$BIN/hello-saxpy"
for fragment in "$CLPK_ROOT"/scripts/demo.d/*.sh; do
    [ -e "$fragment" ] || continue
    echo; echo "== $(basename "$fragment" .sh)"
    bash "$fragment"
done
echo; echo "demo finished"
