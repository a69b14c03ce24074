#!/usr/bin/env bash
# session 23, call 3: (a) the gap shift 4 library (HEAD 40150e9) against call 1's (.gpu/s23/old) in f64 and the
# shared-matrix patterns; (b) K2's product in place for one left (two local regions instead of three: occupancy;
# .gpu/s23/inplace) against HEAD; (c) what a user gets with HEAD against the cuFFT pipeline, f32 and f64;
# per-kernel times; ptxas -v over the cached programs (registers: what bounds the groups per SM).
set -u
. .gpu/enter
BASE_LD=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$PWD/.gpu/build:$BASE_LD CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res3; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-420}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
LD_LIBRARY_PATH=$PWD/.gpu/s23/inplace:$BASE_LD timeout $(left 60) .gpu/s23/inplace/test_xcorr_fused_many \
    > $R/test_inplace.log 2>&1; stamp "test inplace rc $? (one refusal check expected to fail)"
for lib in head inplace old head2; do
    d=$PWD/.gpu/build; [ $lib = old ] && d=$PWD/.gpu/s23/old; [ $lib = inplace ] && d=$PWD/.gpu/s23/inplace
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 200) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,n-to-m \
        --sizes 64,128,256 --variants auto --repeats 20 --max-ms 60 --json $R/$lib.jsonl > $R/$lib.log 2>&1
    stamp "$lib rc $?"
done
for lib in head old; do
    d=$PWD/.gpu/build; [ $lib = old ] && d=$PWD/.gpu/s23/old
    LD_LIBRARY_PATH=$d:$BASE_LD timeout $(left 240) $B/clpk-bench-xcorr --patterns one-to-many,one-to-one \
        --sizes 64,128,256 --variants auto --repeats 20 --precision f64 --json $R/$lib-f64.jsonl > $R/$lib-f64.log 2>&1
    stamp "$lib f64 rc $?"
done
for lib in head inplace; do
    d=$PWD/.gpu/build; [ $lib = inplace ] && d=$PWD/.gpu/s23/inplace
    LD_LIBRARY_PATH=$d:$BASE_LD CLPK_LOG=trace timeout $(left 260) $B/clpk-bench-xcorr --patterns one-to-many \
        --sizes 64,128,256 --variants auto --repeats 5 --warmup 2 --stream-ms 0 > $R/$lib-trace.log 2>&1
    stamp "$lib trace rc $?"; gzip -9 $R/$lib-trace.log
done
PLOTS=0 PEER_REPEATS=20 timeout $(left 320) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one > $R/xcorr-f32.log 2>&1; stamp "xcorr f32 + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 370) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
mkdir -p /tmp/ptx; export PATH=$PATH:/usr/local/cuda/bin
timeout $(left 410) python3 .gpu/s23/ptxas.py > $R/ptxas.txt 2>&1; stamp "ptxas rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 2 $R/test_inplace.log
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep "4000" | cut -d'|' -f2,4,8,9; done
grep -B1 -A3 "xcorr_many_columns\|xcorr_many_out" $R/ptxas.txt | grep -E "registers|==" | cut -c1-160 | head -20
