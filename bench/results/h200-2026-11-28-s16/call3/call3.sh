#!/usr/bin/env bash
# session 16, call 3: finish the H200 sshopm re-tune of call 2 from its cache (--resume; the (8,8) classes left out:
# their candidates take seconds each), merge into profiles/nvidia-h200.json (sshopm stripped), then with the merged
# profile: bench/sshopm.sh (the README row: fixed-iteration throughput against the seed's design in CUDA, dMRI) and
# the sshopm held-out check (to convergence).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-565}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
cp .gpu/s16/tune-cache.jsonl $R/sshopm-tuned.json.cache.jsonl
export CLPK_CACHE_DIR=/tmp/clpk-cache-cold; rm -rf $CLPK_CACHE_DIR
timeout $(left 150) $B/clpk-tune --device nvidia --families sshopm --resume --problems 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 \
    --budget 90 --out $R/sshopm-tuned.json > $R/tune.log 2>&1
stamp "tune rc $?"
$B/clpk-tune --merge profiles/nvidia-h200.json $R/sshopm-tuned.json --out $R/merged.json > $R/merge.log 2>&1
stamp "merge rc $?"
export CLPK_CACHE_DIR=/tmp/clpk-cache
CLPK_PROFILE=$R/merged.json timeout $(left 330) bench/sshopm.sh $R/sshopm > $R/sshopm.log 2>&1; stamp "sshopm.sh rc $?"
find $R -name "*.npy" -delete; find $R -name "*.png" -size +300k -delete
timeout $(left) python3 bench/heldout.py --device nvidia --bin $B --families sshopm --profile $R/merged.json --out $R/heldout-sshopm \
    > $R/heldout-sshopm.log 2>&1; stamp "held-out rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
grep "sshopm (" $R/tune.log | tail -18
sed -n '/^| family/,/^$/p' $R/heldout-sshopm/heldout.md
grep "^| " $R/sshopm/*.md | head -40
grep -i "dmri" $R/sshopm/clpk.log | head
