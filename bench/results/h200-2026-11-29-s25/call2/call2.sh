#!/usr/bin/env bash
# session 25, call 2 (main with prune + walk merged, .gpu/build): fused tests on the GPU; plans outside the tuner's
# grid (16 lines at 64^2, 8 at 128^2, 4 at 256^2, wg 256, tiles) against the auto plans; per-kernel traces of chunked
# plans (fused_batch 400 / 200 against 0); then what a user gets against the cuFFT pipeline and the held-out s16.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res2; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-300}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
timeout $(left 40) .gpu/s25/main/test_xcorr_fused > $R/test_xcorr_fused.log 2>&1; stamp "test_xcorr_fused rc $?"
timeout $(left 80) .gpu/s25/main/test_xcorr_fused_many > $R/test_xcorr_fused_many.log 2>&1
stamp "test_xcorr_fused_many rc $?"
plans() { # size radix rows...: auto first, then the listed plans
    local s=$1 x=$2; shift 2; local v=auto
    for p in "$@"; do v="$v,fused-fft:fft_pad=smooth/fft_radix=$x/fused_gaps=1/$p"; done; echo $v; }
run_grid() { # name size precision variants
    timeout $(left $5) $B/clpk-bench-xcorr --patterns one-to-many,n-to-mn,one-to-one --sizes $2 --precision $3 \
        --variants $4 --repeats 20 --json $R/grid-$1.jsonl > $R/grid-$1.log 2>&1; stamp "grid $1 rc $?"; }
run_grid 64 64 f32 $(plans 64 16 rows=8/wg=256/fused_tiles=0 rows=16/wg=128/fused_tiles=0 \
    rows=16/wg=256/fused_tiles=0 rows=16/wg=128/fused_tiles=1 rows=16/wg=256/fused_tiles=1) 110
run_grid 128 128 f32 $(plans 128 16 rows=4/wg=256/fused_tiles=0 rows=8/wg=128/fused_tiles=0 \
    rows=8/wg=256/fused_tiles=0 rows=8/wg=128/fused_tiles=1 rows=8/wg=256/fused_tiles=1) 150
run_grid 256 256 f32 $(plans 256 8 rows=2/wg=256/fused_tiles=0 rows=4/wg=128/fused_tiles=0 \
    rows=4/wg=256/fused_tiles=0 rows=4/wg=128/fused_tiles=1 rows=4/wg=256/fused_tiles=1) 200
run_grid 64-f64 64 f64 $(plans 64 8 rows=8/wg=128/fused_tiles=1 rows=8/wg=256/fused_tiles=1 \
    rows=4/wg=256/fused_tiles=1) 230
run_grid 128-f64 128 f64 $(plans 128 8 rows=4/wg=128/fused_tiles=1 rows=4/wg=256/fused_tiles=1) 260
tar czf $OUT/results.tgz -C $R .
ch=""; for fb in 0 400 200; do ch="$ch,fused-fft:wg=128/rows=8/fft_pad=smooth/fft_radix=16/fused_gaps=1/fused_tiles=0/fused_batch=$fb"; done
CLPK_LOG=trace timeout $(left 280) $B/clpk-bench-xcorr --patterns one-to-many --sizes 64 --variants ${ch#,} \
    --repeats 5 --warmup 2 --stream-ms 0 > $R/chunks-trace.log 2>&1; stamp "chunks trace rc $?"; gzip -9 $R/chunks-trace.log
$B/clpk-info > $R/info.txt 2>&1
PLOTS=0 PEER_REPEATS=20 timeout $(left 380) bench/xcorr.sh $R/xcorr-f32 --variants auto --repeats 20 --max-ms 70 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one,n-to-mn > $R/xcorr-f32.log 2>&1
stamp "xcorr f32 + cuFFT rc $?"
PLOTS=0 PEER_REPEATS=20 timeout $(left 400) bench/xcorr.sh $R/xcorr-f32-nm --variants auto --repeats 20 \
    --max-ms 70 --sizes 64,128 --patterns n-to-m > $R/xcorr-f32-nm.log 2>&1; stamp "xcorr f32 n-to-m + cuFFT rc $?"
PRECISION=f64 PLOTS=0 PEER_REPEATS=20 timeout $(left 450) bench/xcorr.sh $R/xcorr-f64 --variants auto --repeats 20 \
    --sizes 64,128,256 --patterns one-to-many,one-to-one > $R/xcorr-f64.log 2>&1; stamp "xcorr f64 + cuFFT rc $?"
find $R -name "*.npy" -delete
tar czf $OUT/results.tgz -C $R .
timeout $(left 560) python3 bench/heldout.py --device nvidia --bin $B --families xcorr --xcorr-set s16 \
    --out $R/heldout-s16 > $R/heldout-s16.log 2>&1; stamp "held-out s16 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_xcorr_fused.log $R/test_xcorr_fused_many.log
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/res2/grid-*.jsonl')):
    for l in open(f):
        d = json.loads(l)
        if d.get('n_out', 0) >= 1000:
            print('%-26s %s %-60s %s %s' % (d['case'], d['precision'], d.get('variant', '')[-58:],
                                          d.get('median_ms'), d.get('status')))
PY
for f in $R/xcorr-*/xcorr.md; do echo "== $f"; grep "^| " $f | grep -E "4000|128x128" | cut -d'|' -f2,4,8,9; done
grep "auto >=" $R/heldout-s16.log
