#!/usr/bin/env bash
# session 23, call 1: where fused-fft's time goes. Per-kernel GPU times (CLPK_LOG=trace, one event per launch) for
# one-to-many 1 x 4000 and one-to-one 4000 at 64^2-256^2, f32; the same with the FFT stages skipped (nofft: wrong
# answers, only the memory phases and barriers left); and 16-value gaps in the local layout (sh4) against HEAD's 4.
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-280}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
X="--patterns one-to-many,one-to-one --sizes 64,128,256"
timeout $(left 60) $B/clpk-bench-xcorr $X --variants auto --repeats 20 --json $R/head.jsonl > $R/head.log 2>&1
stamp "head rc $?"
CLPK_LOG=trace timeout $(left 100) $B/clpk-bench-xcorr $X --variants auto --repeats 5 --warmup 2 --stream-ms 0 \
    --json $R/head-trace.jsonl > $R/head-trace.log 2>&1; stamp "head trace rc $?"
LD_LIBRARY_PATH=$PWD/.gpu/s23/nofft:$BASE_LD CLPK_LOG=trace timeout $(left 140) $B/clpk-bench-xcorr $X \
    --variants auto --repeats 5 --warmup 2 --stream-ms 0 --json $R/nofft-trace.jsonl > $R/nofft-trace.log 2>&1
stamp "nofft trace rc $?"
LD_LIBRARY_PATH=$PWD/.gpu/s23/sh4:$BASE_LD timeout $(left 180) $B/clpk-bench-xcorr $X --variants auto --repeats 20 \
    --json $R/sh4.jsonl > $R/sh4.log 2>&1; stamp "sh4 rc $?"
timeout $(left 220) $B/clpk-bench-xcorr $X --variants auto --repeats 20 --json $R/head2.jsonl > $R/head2.log 2>&1
stamp "head2 rc $?"
gzip -9 $R/*trace.log
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log $R/gpu.txt
for f in head sh4 head2; do echo "== $f"; grep -h "\"n_right\":4000\|\"pairs\":4000" $R/$f.jsonl | cut -c1-260 | head -12; done
