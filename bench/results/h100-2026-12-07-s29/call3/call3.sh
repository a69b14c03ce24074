#!/usr/bin/env bash
# session 29, call 3 (H100): does the shipped profile's one sshopm entry ((3,6) f32: entries=global, valid for orders
# 3-4 and dimensions 4-6) still pay on the shapes its range covers, now that order 4 with private entries is a
# quadratic form? Each shape with that profile (as shipped before this call: .gpu/s29/oldprof), with the built-in
# defaults (an empty profile folder) and with entries=private where the kernel is generated; fixed 200 iterations,
# 65 536 tensors x 128 starts.
set -u
. .gpu/enter
ln -sfn libclpk.so.0.1.0 .gpu/build/libclpk.so.0; export LD_LIBRARY_PATH=$PWD/.gpu/build:$LD_LIBRARY_PATH
export CLPK_CACHE_DIR=/tmp/cc
B=.gpu/build/bin; R=/tmp/res3; rm -rf $R; mkdir -p $R /tmp/empty
t0=$(date +%s)
stamp() { echo "$(( $(date +%s) - t0 )) s: $*" | tee -a $R/steps.log; }
S="--tensors 65536 --starts 128 --iters 200 --repeats 20 --voxels 0 --no-peak --no-npy"
g() { grep -oE '[0-9.]+ ms, [0-9.]+ G start-iterations/s' $1 | head -1; grep -oE 'kernel=[a-z]+,entries=[a-z]+' $1 | head -1; }
for shape in 4x4 4x5 3x6 3x4; do
    CLPK_PROFILE_DIR=$PWD/.gpu/s29/oldprof timeout 40 $B/clpk-bench-sshopm --out $R/$shape-profile $S --shapes $shape \
        --precision f32 > $R/$shape-profile.log 2>&1
    stamp "$shape profile: $(g $R/$shape-profile.log | tr '\n' ' ')"
    CLPK_PROFILE_DIR=/tmp/empty timeout 40 $B/clpk-bench-sshopm --out $R/$shape-defaults $S --shapes $shape --precision f32 \
        > $R/$shape-defaults.log 2>&1
    stamp "$shape defaults: $(g $R/$shape-defaults.log | tr '\n' ' ')"
    timeout 40 $B/clpk-bench-sshopm --out $R/$shape-private $S --shapes $shape --precision f32 \
        --params kernel=generated,entries=private > $R/$shape-private.log 2>&1
    stamp "$shape private: $(g $R/$shape-private.log | tr '\n' ' ')"
done
tar czf $OUT/results.tgz -C $R .
