#!/usr/bin/env bash
# session 14, call 1: the core_fill fix on the 2^31 / 2^32 / 17.1 GB outputs (a fresh process per step), the n-to-mn
# 8x32 32^2 anomaly with a long warm-up, n-to-m against cuFFT (cut in session 13), and the fused-fft work-group grid
# for the built-in rule (sizes of the training grid and the spent s12 set only; s13's sizes stay unseen).
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-560}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
for s in 0.35 0.36 0.51 1; do
    timeout $(left 170) $B/clpk-bench-xcorr --patterns n-to-m --sizes 256 --scale $s --variants auto \
        --repeats 5 --json $R/large-$s.jsonl > $R/large-$s.log 2>&1; stamp "large scale $s rc $?"
done
timeout $(left 200) $B/clpk-bench-xcorr --patterns n-to-mn --sizes 32 --variants auto --warmup 50 --repeats 50 \
    --json $R/nmn32-warm.jsonl > $R/nmn32-warm.log 2>&1; stamp "n-to-mn 32 warm rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 330) bench/xcorr.sh $R/xcorr-n-to-m --variants auto --repeats 20 --sizes 32,64,128 \
    --patterns n-to-m > $R/xcorr-n-to-m.log 2>&1; stamp "n-to-m grid rc $?"
for p in one-to-many n-to-m n-to-mn; do
    timeout $(left) $B/clpk-bench-xcorr --patterns $p --sizes 28,32,44,60,64,96,120,128 --repeats 20 --max-ms 200 \
        --variants auto,fused-fft:wg=64,fused-fft:wg=128,fused-fft:wg=256,fused-fft:wg=128/fft_radix=16 \
        --json $R/wg-$p.jsonl > $R/wg-$p.log 2>&1; stamp "wg grid $p rc $?"
done
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log; tail -5 $R/large-*.log
