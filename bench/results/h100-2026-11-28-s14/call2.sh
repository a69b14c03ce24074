#!/usr/bin/env bash
# session 14, call 2: the fused-fft work-group x radix grid for the built-in rule, timed after >= 25 ms of warm-up
# calls (clpk-bench-xcorr --warmup-ms): sizes of the training grid and the spent s12 set only (s13 stays unseen).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
V8=fused-fft:wg=64,fused-fft:wg=128,fused-fft:wg=256
V16=fused-fft:wg=64/fft_radix=16,fused-fft:wg=128/fft_radix=16,fused-fft:wg=256/fft_radix=16
S=28,32,44,60,64,96,120,128,192,256
for p in one-to-many n-to-m n-to-mn one-to-one; do
    timeout $(left 440) $B/clpk-bench-xcorr --patterns $p --sizes $S --repeats 20 --max-ms 200 \
        --variants auto,$V8,$V16 --json $R/f32-$p.jsonl > $R/f32-$p.log 2>&1; stamp "f32 $p rc $?"
done
timeout $(left 480) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn --sizes $S --scale 0.25 --repeats 20 --max-ms 200 \
    --variants auto,$V8,$V16 --json $R/f32-q.jsonl > $R/f32-q.log 2>&1; stamp "f32 quarter rc $?"
for p in one-to-many n-to-m; do
    timeout $(left) $B/clpk-bench-xcorr --patterns $p --precision f64 --sizes 28,44,64,96,128,256 --repeats 20 \
        --max-ms 200 --variants auto,$V8,fused-fft:wg=128/fft_radix=16 --json $R/f64-$p.jsonl > $R/f64-$p.log 2>&1
    stamp "f64 $p rc $?"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
