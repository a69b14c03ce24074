#!/usr/bin/env bash
# session 21, call 1: (1) LiFE with the stamp-first blocked WC: DS1 seed 3 and seed 11 (held out), the defaults
# ("unroll=8") against wc_block=0, products and 500-step fits, both precisions; dict=half on the current kernels (f32,
# products only); test_life_fit. (2) SpMV: transpose=online (staged) against offline on the corpus' matrices below
# 0.95x cuSPARSE and two controls, with the fair cuSPARSE peer in the same command.
set -u
. .gpu/enter
export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH CLPK_CACHE_DIR=/tmp/clpk-cache
B=.gpu/build/bin
R=/tmp/res; mkdir -p $R
t0=$(date +%s)
left() { local l=$(( ${1:-${LIMIT:-570}} - ($(date +%s) - t0) )); [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
stamp start
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/info.txt 2>&1
timeout $(left 25) .gpu/s21/test_life_fit > $R/test_life_fit.log 2>&1; stamp "test_life_fit rc $?"
# SpMV first (the LiFE part can be cut by the time limit without losing it)
M=$PWD/.gpu/data/matrices
N=$(mktemp -d)
V="format=bccoo,block_h=1,block_w=1,col=int"
timeout $(left 230) $B/clpk-bench-spmv --cases none --impls clpk-auto \
    --spec bcsstk13x300=replicate:300:$M/bcsstk13.mtx --spec bayer10x200=replicate:200:$M/bayer10.mtx \
    --spec rajat01x400=replicate:400:$M/rajat01.mtx --spec groebnerx100=replicate:100:$M/Groebner_id2003_aug.mtx \
    --spec zeniosx800=replicate:800:$M/zenios.mtx --spec lp_e226x3000=replicate:3000:$M/lp_e226.mtx \
    --spec powerlaw=powerlaw:4000000 --spec stencil3d=stencil3d:160 \
    --variant off1x1=$V,tile=16 --variant on1x1=$V,tile=16,transpose=online \
    --variant on1x1t8=$V,tile=8,transpose=online --variant f32:on1x1t32=$V,tile=32,transpose=online \
    --variant on2x1=format=bccoo,block_h=2,block_w=1,col=int,tile=16,transpose=online \
    --variant adaptive=format=csr,csr_kernel=adaptive \
    --npy-dir $N --json $R/spmv-clpk.json > $R/spmv-clpk.txt 2>&1
stamp "spmv clpk rc $?"
timeout $(left 290) python3 bench/peers/cusparse_spmv.py $N/* --precision f32,f64 --json $R/spmv-peer.json \
    > $R/spmv-peer.txt 2>&1
stamp "spmv peer rc $?"
python3 bench/spmv_report.py --clpk $R/spmv-clpk.json --peer $R/spmv-peer.json --out $R/spmv.json \
    --markdown $R/spmv.md > $R/spmv-report.log 2>&1
rm -rf $N
timeout $(left 310) $B/clpk-life synth --out /tmp/ds1 --size ds1 --seed 3 > $R/synth.log 2>&1
stamp "synth rc $?"
timeout $(left 330) $B/clpk-bench-life --data /tmp/ds1 --precision f32 --runs 10 --iters 0 --first-launch \
    --orders "unroll=8,dict=half" --json $R/half.json --md $R/half.md > $R/half.log 2>&1
stamp "half rc $?"
timeout $(left 450) $B/clpk-bench-life --data /tmp/ds1 --precision both --runs 10 --iters 500 --first-launch \
    --orders "unroll=8;wc_block=0" --json $R/ds1.json --md $R/ds1.md > $R/ds1.log 2>&1
stamp "ds1 rc $?"
timeout $(left) $B/clpk-bench-life --size ds1 --seed 11 --precision both --runs 10 --iters 500 --first-launch \
    --orders "unroll=8;wc_block=0" --json $R/seed11.json --md $R/seed11.md > $R/seed11.log 2>&1
stamp "seed 11 rc $?"
tar czf $OUT/results.tgz -C $R .
cat $R/steps.log
tail -n 1 $R/test_life_fit.log
grep -h "^fit\|first launch" $R/ds1.log $R/seed11.log $R/half.log | cut -c1-150
grep -E "^\|" $R/spmv.md | head -60
