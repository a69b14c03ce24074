#!/usr/bin/env bash
# session 15, call 1: first look at an H200 (a device no profile was tuned on). What a user gets today: the shipped
# H100 profile applies at the "same vendor and type" level; against the built-in defaults and the exhaustive best.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R /tmp/empty-profiles
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-570}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $R/info.txt
$B/clpk-info >> $R/info.txt 2>&1
stamp start
P=$PWD/profiles/nvidia-h100.json
H="python3 bench/heldout.py --device nvidia --bin $B --profile $P"
timeout $(left 10) $B/clpk-bench-sshopm --out $R/sshopm43-shipped --shapes 4x3 --precision f32,f64 --tensors 65536 --starts 128 --iters 200 --repeats 50 --voxels 0 > $R/sshopm43-shipped.log 2>&1; stamp "sshopm 4x3 shipped rc $?"
CLPK_PROFILE_DIR=/tmp/empty-profiles timeout $(left 20) $B/clpk-bench-sshopm --out $R/sshopm43-defaults --shapes 4x3 --precision f32,f64 --tensors 65536 --starts 128 --iters 200 --repeats 50 --voxels 0 > $R/sshopm43-defaults.log 2>&1; stamp "sshopm 4x3 defaults rc $?"
timeout $(left 80) $H --families xcorr --xcorr-set s14 --out $R/heldout-xcorr-s14 > $R/heldout-xcorr-s14.log 2>&1; stamp "heldout xcorr s14 rc $?"
timeout $(left 150) $H --families sshopm --out $R/heldout-sshopm > $R/heldout-sshopm.log 2>&1; stamp "heldout sshopm rc $?"
timeout $(left 250) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 30 --iters 500 --check --json $R/life-shipped.json --md $R/life-shipped.md > $R/life-shipped.log 2>&1; stamp "life shipped rc $?"
CLPK_PROFILE_DIR=/tmp/empty-profiles timeout $(left 350) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 30 --iters 500 --check --json $R/life-defaults.json --md $R/life-defaults.md > $R/life-defaults.log 2>&1; stamp "life defaults rc $?"
timeout $(left) bench/spmv.sh --out $R/spmv-eval --bin $B --cases none --corpus bench/spmv_corpus.txt --impls clpk-auto > $R/spmv-eval.log 2>&1; stamp "spmv eval rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log $R/info.txt
for f in $R/*/heldout.md; do echo "== $f"; sed -n '/^| family/,/^$/p' $f; done
grep -h "total\|500 iter" $R/life-*.md | head; tail -5 $R/spmv-eval.log
