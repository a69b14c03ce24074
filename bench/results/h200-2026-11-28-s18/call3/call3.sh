#!/usr/bin/env bash
# session 18, call 3: the new GPU default (dsc=pairs where the sampled coefficients per pair reach 1.4; wc=fiber) with
# the shipped profile (no H200 life entries now): DS1 seed 3 both precisions (the README's LiFE row); then problems
# the rule was not derived from: synth medium seed 5 and small seed 7, auto against dsc=voxel / dsc=pairs lists.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-440}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
CLPK_LOG=debug timeout $(left 200) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 20 --iters 500 --check \
    --json $R/life.json --md $R/life.md > $R/life.log 2>&1; stamp "life ds1 rc $?"
for s in "medium 5" "small 7"; do
  set -- $s
  CLPK_LOG=debug timeout $(left 330) $B/clpk-bench-life --size $1 --seed $2 --precision both --runs 30 --iters 200 --check \
      --orders " ;dsc=voxel,wc=fiber;dsc=pairs,wc=fiber;dsc=pairs,wc=pairs" \
      --json $R/life-$1.json --md $R/life-$1.md > $R/life-$1.log 2>&1; stamp "life $1 rc $?"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
sed -n '/^| case/,$p' $R/life.md | head -40
grep -h "pairs (sampled\|^plan (" $R/*.log | cut -c1-200 | head -30
for f in $R/life-medium.md $R/life-small.md; do echo "== $f"; sed -n '/^| case/,$p' $f | head -40; done
