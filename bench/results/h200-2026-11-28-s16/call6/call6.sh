#!/usr/bin/env bash
# session 16, call 6: the sshopm classes call 3's resume did not reach ((4,4), (6,4), (3,6), f32 and f64), from the
# cache of calls 2-3 with the fixed resume (a resumed run replays earlier points past its deadline), merged into
# profiles/nvidia-h200.json; then the sshopm held-out check to convergence with the merged profile.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-380}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
cp .gpu/s16/tune-cache3.jsonl $R/sshopm-rest.json.cache.jsonl
export CLPK_CACHE_DIR=/tmp/clpk-cache-cold; rm -rf $CLPK_CACHE_DIR
timeout $(left 150) $B/clpk-tune --device nvidia --families sshopm --resume --problems 8,9,12,13,14,15 --budget 15 \
    --out $R/sshopm-rest.json > $R/tune.log 2>&1
stamp "tune rc $?"
$B/clpk-tune --merge profiles/nvidia-h200.json $R/sshopm-rest.json --out $R/merged.json > $R/merge.log 2>&1
stamp "merge rc $?"
export CLPK_CACHE_DIR=/tmp/clpk-cache
timeout $(left) python3 bench/heldout.py --device nvidia --bin $B --families sshopm --profile $R/merged.json --out $R/heldout-sshopm \
    > $R/heldout-sshopm.log 2>&1; stamp "held-out rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep "sshopm (" $R/tune.log | tail -12
sed -n '/^| family/,/^$/p' $R/heldout-sshopm/heldout.md
grep "^| (" $R/heldout-sshopm/heldout.md
