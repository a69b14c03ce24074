#!/usr/bin/env bash
# session 13, call 3: fused-fft default fft_radix=8 on GPUs; the tune's profile: xcorr held-out s12 again, the SpMV
# evaluation corpus (auto vs cuSPARSE), xcorr auto vs cuFFT on the other patterns and small sizes, f64 radix check
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
export CLPK_PROFILE=$PWD/.gpu/s13/tuned.json
B=.gpu/build/bin
R=/tmp/res3; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-520}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left) python3 bench/heldout.py --device nvidia --bin $B --profile $CLPK_PROFILE --families xcorr --out $R/heldout-xcorr-s12 > $R/heldout-xcorr-s12.log 2>&1; stamp "heldout xcorr s12 rc $?"
timeout $(left 330) bench/spmv.sh --out $R/spmv-eval --bin $B --cases none --corpus bench/spmv_corpus.txt --impls clpk-auto > $R/spmv-eval.log 2>&1; stamp "spmv eval rc $?"
timeout $(left 360) $B/clpk-bench-xcorr --precision f64 --patterns one-to-one,one-to-many --sizes 64,128,256 --repeats 10 --variants auto,fused-fft:fft_radix=4,fused-fft:fft_radix=8,fused-fft:fft_radix=16 --json $R/xcorr-f64-radix.jsonl > $R/xcorr-f64-radix.log 2>&1; stamp "xcorr f64 radix rc $?"
PLOTS=0 timeout $(left 440) bench/xcorr.sh $R/xcorr-grid-a --variants auto --repeats 20 --sizes 16,32,64,128,256 --patterns one-to-many,one-to-one > $R/xcorr-grid-a.log 2>&1; stamp "xcorr grid a rc $?"
PLOTS=0 timeout $(left) bench/xcorr.sh $R/xcorr-grid-b --variants auto --repeats 20 --sizes 32,64,128,256 --patterns n-to-mn,n-to-m > $R/xcorr-grid-b.log 2>&1; stamp "xcorr grid b rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
for f in $R/*/heldout.md; do echo "== $f"; sed -n '/^| family/,/^$/p' $f; done
tail -5 $R/spmv-eval.log
