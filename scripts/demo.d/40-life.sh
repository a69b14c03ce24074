# LiFE demo fragment (sourced by the demo script with $BIN = the build's bin directory): a small synthetic
# connectome, its SBB-NNLS fit on the device, the objective, time and correlation with the true fascicle weights.
LIFE_DEMO_DIR=$(mktemp -d)
echo "== LiFE: SBB-NNLS fit of a small synthetic connectome =="
"$BIN/clpk-life" synth --size small --seed 42 --out "$LIFE_DEMO_DIR/small" &&
    "$BIN/clpk-life" fit --data "$LIFE_DEMO_DIR/small" --iters 500 --out "$LIFE_DEMO_DIR/w.npy" --check
rm -rf "$LIFE_DEMO_DIR"
