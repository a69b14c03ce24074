#!/usr/bin/env bash
# session 18, call 2: the two-launch pair kernels (dsc=pairs, wc=pairs rebuilt) against dsc=voxel/wc=fiber on DS1
# (f32, f64, f32 dict=half), then bench/sshopm.sh with the shipped profile (the README's SS-HOPM row after s17's
# block-test change).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-565}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
timeout $(left 260) $B/clpk-bench-life --size ds1 --seed 3 --runs 30 --iters 500 --check --precision both \
    --orders "dsc=voxel,wc=fiber;dsc=pairs,wc=pairs;dsc=pairs,wc=pairs,unroll=4,wc_runs=4;dsc=pairs,wc=pairs,team=16,runs=8,wc_runs=16" \
    --json $R/life-pairs.json --md $R/life-pairs.md > $R/life-pairs.log 2>&1; stamp "pairs rc $?"
timeout $(left 330) $B/clpk-bench-life --size ds1 --seed 3 --runs 30 --iters 500 --check --precision f32 \
    --orders "dsc=voxel,wc=fiber,dict=half;dsc=pairs,wc=pairs,dict=half" \
    --json $R/life-pairs-half.json --md $R/life-pairs-half.md > $R/life-pairs-half.log 2>&1; stamp "half rc $?"
timeout $(left) bench/sshopm.sh $R/sshopm > $R/sshopm.log 2>&1; stamp "sshopm.sh rc $?"
find $R -name "*.npy" -delete; find $R -name "*.png" -size +300k -delete
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
sed -n '/^| case/,$p' $R/life-pairs.md | head -40
grep -i "plan\|bitwise\|FAIL" $R/life-pairs.log | head -20
sed -n '/^| case/,$p' $R/life-pairs-half.md | head -20
grep "^| " $R/sshopm/*.md | head -30
