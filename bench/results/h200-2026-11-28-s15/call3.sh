#!/usr/bin/env bash
# session 15, call 3: the H200 tune's profile (.gpu/s15/tuned.json): held-out xcorr s14, sshopm, life; SS-HOPM (4,3)
# after a warm GPU with the tuned, the shipped H100 and no profile; LiFE DS1 500 iterations; the SpMV corpus.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
export CLPK_PROFILE=$PWD/.gpu/s15/tuned.json
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R /tmp/empty-profiles
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-520}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
$B/clpk-info > $R/info.txt 2>&1
stamp start
H="python3 bench/heldout.py --device nvidia --bin $B --profile $CLPK_PROFILE"
timeout $(left 70) $H --families xcorr --xcorr-set s14 --out $R/heldout-xcorr-s14 > $R/heldout-xcorr-s14.log 2>&1; stamp "heldout xcorr s14 rc $?"
S="--shapes 4x3 --precision f32,f64 --tensors 65536 --starts 128 --iters 200 --repeats 50 --voxels 0"
for k in 1 2; do
timeout $(left 80) $B/clpk-bench-sshopm --out $R/sshopm43-tuned-$k $S > $R/sshopm43-tuned-$k.log 2>&1; stamp "sshopm 4x3 tuned rc $?"
CLPK_PROFILE=$PWD/profiles/nvidia-h100.json timeout $(left 80) $B/clpk-bench-sshopm --out $R/sshopm43-shipped-$k $S > $R/sshopm43-shipped-$k.log 2>&1; stamp "sshopm 4x3 shipped rc $?"
CLPK_PROFILE= CLPK_PROFILE_DIR=/tmp/empty-profiles timeout $(left 80) $B/clpk-bench-sshopm --out $R/sshopm43-defaults-$k $S > $R/sshopm43-defaults-$k.log 2>&1; stamp "sshopm 4x3 defaults rc $?"
done
timeout $(left 130) $H --families sshopm --out $R/heldout-sshopm > $R/heldout-sshopm.log 2>&1; stamp "heldout sshopm rc $?"
timeout $(left 240) $B/clpk-bench-life --size ds1 --seed 3 --precision both --runs 30 --iters 500 --check --json $R/life-tuned.json --md $R/life-tuned.md > $R/life-tuned.log 2>&1; stamp "life tuned rc $?"
timeout $(left 310) bench/spmv.sh --out $R/spmv-eval --bin $B --cases none --corpus bench/spmv_corpus.txt --impls clpk-auto > $R/spmv-eval.log 2>&1; stamp "spmv eval rc $?"
timeout $(left) $H --families life --out $R/heldout-life > $R/heldout-life.log 2>&1; stamp "heldout life rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/*/heldout.md; do echo "== $f"; sed -n '/^| family/,/^$/p' $f; done
grep -h "500 iter\|clpk-auto" $R/life-tuned.md | head -4; grep -h "G start" $R/sshopm43-*.log | cut -c1-60; grep -h "Geometric" $R/spmv-eval/spmv.md
