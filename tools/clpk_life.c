/* clpk-life: the LiFE products and the SBB-NNLS fit from the command line.
 *   clpk-life synth  --out DIR [--size tiny|small|medium|ds1] [--seed S] [--shuffle-fibers P]
 *   clpk-life encode --dwi X.nii.gz --bval X.bval --bvec X.bvec --trk X.trk --out DIR [--atoms N]
 *   clpk-life dsc    --data DIR --w w.npy --out y.npy
 *   clpk-life wc     --data DIR --y y.npy --out w.npy
 *   clpk-life fit    --data DIR --out w.npy [--iters N] [--tol T] [--every K] [--residual-every K] [--w0 w.npy]
 *                    [--compare ref.npy]
 * Common: --device SEL, --precision f32|f64, --strategy auto|atomics|sorted, --params k=v,..., --check (compare with
 * the double-precision host reference), --bench N (dsc/wc: median of N timed runs). */
#include <clpk.h>
#include <clpk_bench.h>

#include "cli_args.h"
#include "cli_bench_launch.h"
#include "cli_clock.h"
#include "cli_life_half.h"
#include "cli_params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli {
    const char *cmd, *data, *out, *w, *y, *w0, *compare, *device, *strategy, *params, *size, *precision_name;
    const char *dwi, *bval, *bvec, *trk;
    clpk_precision precision;
    long long iters, every, residual_every, bench, atoms, seed, shuffle;
    int check;
    double tol;
} cli;

static const char *const synopsis =
    "COMMAND [options]\n"
    "       clpk-life synth --out DIR [--size tiny|small|medium|ds1] [--seed S] [--shuffle-fibers P]\n"
    "       clpk-life encode --dwi F.nii.gz --bval F --bvec F --trk F.trk --out DIR [--atoms N]\n"
    "       clpk-life dsc --data DIR --w w.npy --out y.npy\n"
    "       clpk-life wc --data DIR --y y.npy --out w.npy\n"
    "       clpk-life fit --data DIR --out w.npy [--iters N] [--tol T] [--every K] [--residual-every K] [--w0 w.npy]\n"
    "                     [--compare ref.npy]";

/* The parsed command line; file-scope so that the option table below can point into it. */
static cli args;

static const cli_option options[] = {
    {"--out", CLI_STRING, &args.out, "PATH", "synth, encode: the dataset directory; dsc, wc, fit: the result (.npy)"},
    {"--data", CLI_STRING, &args.data, "DIR", "the dataset (from synth or encode)"},
    {"--w", CLI_STRING, &args.w, "w.npy", "dsc: the fibre weights (n_fibers)"},
    {"--y", CLI_STRING, &args.y, "y.npy", "wc: the voxel signals (n_voxels x n_theta)"},
    {"--size", CLI_STRING, &args.size, "tiny|small|medium|ds1", "synth: the dataset size (default small)"},
    {"--seed", CLI_INT, &args.seed, "S", "synth: the random seed (default 1)"},
    {"--shuffle-fibers", CLI_INT, &args.shuffle, "P",
     "synth: list the fibres in the order of a permutation seeded by P (default 0: the generator's,\n"
     "a bundle's fibres one after another), as a merged or filtered tractogram may"},
    {"--dwi", CLI_STRING, &args.dwi, "F.nii.gz", "encode: the diffusion-weighted images"},
    {"--bval", CLI_STRING, &args.bval, "F", "encode: the b-values"},
    {"--bvec", CLI_STRING, &args.bvec, "F", "encode: the gradient directions"},
    {"--trk", CLI_STRING, &args.trk, "F.trk", "encode: the tractography"},
    {"--atoms", CLI_INT, &args.atoms, "N", "encode: dictionary atoms (default 360)"},
    {"--iters", CLI_INT, &args.iters, "N", "fit: at most N iterations (default 500)"},
    {"--tol", CLI_DOUBLE, &args.tol, "T", "fit: relative tolerance of convergence (default 1e-6)"},
    {"--every", CLI_INT, &args.every, "K", "fit: evaluate the objective every K iterations (default 10)"},
    {"--residual-every", CLI_INT, &args.residual_every, "K",
     "fit: r = M w - y from M w every K iterations (default 0: the library's; 1: every step)"},
    {"--w0", CLI_STRING, &args.w0, "w.npy", "fit: the starting weights"},
    {"--compare", CLI_STRING, &args.compare, "ref.npy",
     "fit: print the correlation of the weights with these (and with DIR/w_true.npy if any)"},
    {"--device", CLI_STRING, &args.device, "SEL", "device selector, as for clpk-info (default $CLPK_DEVICE)"},
    {"--precision", CLI_STRING, &args.precision_name, "f32|f64", "precision of the plan (default f32)"},
    {"--strategy", CLI_STRING, &args.strategy, "auto|atomics|sorted", "how the products combine (default auto)"},
    {"--params", CLI_STRING, &args.params, "k=v,...", "override the plan's parameters (keys below)"},
    {"--check", CLI_FLAG, &args.check, NULL, "compare with the double-precision host reference"},
    {"--bench", CLI_INT, &args.bench, "N", "dsc, wc: median of N timed runs"},
    {NULL, 0, NULL, NULL, NULL}};

static int usage(void) {
    cli_usage(stderr, "clpk-life", synopsis, options);
    return 2;
}

/* Fills `args`; returns 0 to go on, -1 after --help, else the exit status. */
static int parse(int argc, char **argv) {
    cli *c = &args;
    c->precision_name = "f32";
    c->iters = 500;
    c->every = 10;
    c->tol = 1e-6;
    c->size = "small";
    c->seed = 1;
    if (argc < 2) return usage();
    c->cmd = argv[1];
    int rc = cli_parse("clpk-life", synopsis, options, argc, argv,
                       strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? 2 : 1, NULL);
    if (rc == 1) {
        cli_print_family_parameters(stdout, "life");
        return -1;
    }
    if (rc) return rc;
    if (clpk_precision_parse(c->precision_name, &c->precision) != CLPK_SUCCESS)
        return cli_fail("clpk-life", "unknown precision '%s'", c->precision_name);
    const struct {
        const char *name;
        long long value;
    } counts[] = {{"--iters", c->iters},
                  {"--every", c->every},
                  {"--residual-every", c->residual_every},
                  {"--bench", c->bench},
                  {"--atoms", c->atoms},
                  {"--seed", c->seed},
                  {"--shuffle-fibers", c->shuffle}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i)
        if (counts[i].value < 0 || counts[i].value > 1000000000)
            return cli_fail("clpk-life", "%s needs a non-negative integer, not '%lld'", counts[i].name,
                            counts[i].value);
    if (!(c->tol >= 0)) return cli_fail("clpk-life", "--tol needs a non-negative number, not '%g'", c->tol);
    return 0;
}

static int fail(const char *what, clpk_status st, const char *message) {
    fprintf(stderr, "clpk-life: %s: %s: %s\n", what, clpk_status_string(st), message ? message : "");
    return 1;
}

/* Reads a 1-D or 2-D .npy of `expected` values into doubles. */
static int read_vector(const char *path, int64_t expected, double **out) {
    clpk_npy a;
    clpk_error err = {0};
    if (clpk_npy_read(path, &a, &err) != CLPK_SUCCESS) return fail(path, err.status, err.message);
    if (clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) != CLPK_SUCCESS) {
        clpk_npy_free(&a);
        return fail(path, err.status, err.message);
    }
    if (a.count != expected) {
        fprintf(stderr, "clpk-life: %s has %lld values, expected %lld\n", path, (long long)a.count,
                (long long)expected);
        clpk_npy_free(&a);
        return 1;
    }
    for (int64_t i = 0; i < a.count; ++i)
        if (!isfinite(((double *)a.data)[i])) {
            fprintf(stderr, "clpk-life: %s: value %lld is not finite\n", path, (long long)i);
            clpk_npy_free(&a);
            return 1;
        }
    *out = a.data;
    a.data = NULL;
    clpk_npy_free(&a);
    return 0;
}

static int write_vector(const char *path, const double *v, int ndim, int64_t d0, int64_t d1) {
    int64_t shape[2] = {d0, d1};
    clpk_error err = {0};
    if (clpk_npy_write_raw(path, CLPK_DTYPE_F64, ndim, shape, v, &err) != CLPK_SUCCESS)
        return fail(path, err.status, err.message);
    return 0;
}

static clpk_precision plan_precision(const clpk_life_plan *plan) {
    clpk_life_plan_info info;
    return clpk_life_plan_get_info(plan, &info) == CLPK_SUCCESS ? info.precision : CLPK_PRECISION_F32;
}

static double correlation(const double *a, const double *b, int64_t n) {
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (int64_t i = 0; i < n; ++i)
        ma += a[i], mb += b[i];
    ma /= (double)n, mb /= (double)n;
    for (int64_t i = 0; i < n; ++i) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}

/* Relabels the fibres by a permutation seeded by `seed` (Fisher-Yates on a 64-bit xorshift*): fibre f becomes
 * perm[f] in the coefficients and in w_true, which keep their meaning (M w_true is unchanged). */
static int shuffle_fibers(clpk_life_dataset *d, double *w_true, uint64_t seed) {
    const int32_t nf = d->n_fibers;
    int32_t *perm = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *perm);
    double *w = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *w);
    if (!perm || !w) {
        free(perm), free(w);
        return fail("synth", CLPK_ERROR_OUT_OF_MEMORY, "no memory for the fibre permutation");
    }
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int32_t f = 0; f < nf; ++f) perm[f] = f;
    for (int32_t f = nf - 1; f > 0; --f) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        const int32_t g = (int32_t)((x * 0x2545F4914F6CDD1Dull >> 11) % (uint64_t)(f + 1));
        const int32_t t = perm[f];
        perm[f] = perm[g];
        perm[g] = t;
    }
    for (int64_t k = 0; k < d->n_coeffs; ++k) d->fibers[k] = perm[d->fibers[k]];
    for (int32_t f = 0; f < nf; ++f) w[perm[f]] = w_true[f];
    memcpy(w_true, w, (size_t)nf * sizeof *w);
    free(perm), free(w);
    return 0;
}

static int cmd_synth(const cli *c) {
    if (!c->out) return usage();
    clpk_life_synth_options o;
    clpk_error err = {0};
    clpk_status st = clpk_life_synth_defaults(c->size, &o);
    if (st != CLPK_SUCCESS) return fail("synth", st, "unknown --size (tiny, small, medium, ds1)");
    o.seed = (uint64_t)c->seed;
    clpk_life_dataset d;
    double *w_true = NULL;
    if ((st = clpk_life_synth(&o, &d, &w_true, &err)) != CLPK_SUCCESS) return fail("synth", st, err.message);
    int rc = c->shuffle > 0 ? shuffle_fibers(&d, w_true, (uint64_t)c->shuffle) : 0;
    if (!rc && (st = clpk_life_dataset_save(c->out, &d, &err)) != CLPK_SUCCESS) rc = fail(c->out, st, err.message);
    char path[4096];
    snprintf(path, sizeof path, "%s/w_true.npy", c->out);
    if (!rc) rc = write_vector(path, w_true, 1, d.n_fibers, 0);
    if (!rc)
        printf("synth %s: %d voxels, %d fibers%s, %d atoms, n_theta %d, %lld coefficients -> %s\n", c->size,
               d.n_voxels, d.n_fibers, c->shuffle > 0 ? " (shuffled)" : "", d.n_atoms, d.n_theta,
               (long long)d.n_coeffs, c->out);
    free(w_true);
    clpk_life_dataset_free(&d);
    return rc;
}

static int cmd_encode(const cli *c) {
    if (!c->out || !c->dwi || !c->bval || !c->bvec || !c->trk) return usage();
    clpk_life_encode_options o = {.n_atoms = c->atoms > 0 ? (int)c->atoms : 360, .b0_threshold = 50, .use_mask = 1};
    clpk_life_dataset d;
    clpk_error err = {0};
    clpk_status st = clpk_life_encode(c->dwi, c->bval, c->bvec, c->trk, &o, &d, &err);
    if (st != CLPK_SUCCESS) return fail("encode", st, err.message);
    int rc = 0;
    if ((st = clpk_life_dataset_save(c->out, &d, &err)) != CLPK_SUCCESS) rc = fail(c->out, st, err.message);
    if (!rc)
        printf("encode: %d voxels, %d fibers, %d atoms, n_theta %d, %lld coefficients -> %s\n", d.n_voxels, d.n_fibers,
               d.n_atoms, d.n_theta, (long long)d.n_coeffs, c->out);
    clpk_life_dataset_free(&d);
    return rc;
}

static int run_bench(clpk_context *ctx, clpk_life_plan *plan, int dsc, int repeats, const clpk_life_dataset *d) {
    const size_t ny = (size_t)d->n_voxels * d->n_theta, nw = (size_t)d->n_fibers;
    const size_t vs = clpk_precision_size(plan_precision(plan));
    cl_int rc = CL_SUCCESS, rc_out = CL_SUCCESS;
    cli_life_launch u = {plan, dsc, NULL, NULL, 0};
    u.in = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, (dsc ? nw : ny) * vs, NULL, &rc);
    u.out = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, (dsc ? ny : nw) * vs, NULL, &rc_out);
    /* every input 0.5 in the plan's precision (a double's first 4 bytes would read as 0.0f: zero weights) */
    const double half = 0.5;
    const float half_f = 0.5f;
    clpk_status fill = CLPK_SUCCESS;
    if (rc == CL_SUCCESS && rc_out == CL_SUCCESS)
        fill = clpk_bench_fill(ctx, u.in, vs == 4 ? (const void *)&half_f : (const void *)&half, vs, 0,
                               (dsc ? nw : ny) * vs);
    if (rc != CL_SUCCESS || rc_out != CL_SUCCESS || fill != CLPK_SUCCESS) {
        if (u.in) clReleaseMemObject(u.in);
        if (u.out) clReleaseMemObject(u.out);
        if (fill != CLPK_SUCCESS)
            fprintf(stderr, "clpk-life: bench: filling the input failed: %s\n", clpk_last_error(ctx));
        else
            fprintf(stderr, "clpk-life: bench: device buffers of %zu and %zu bytes failed (OpenCL error %d)\n",
                    (dsc ? nw : ny) * vs, (dsc ? ny : nw) * vs, rc != CL_SUCCESS ? rc : rc_out);
        return 1;
    }
    /* bytes: coefficient data (3 ints + value), the D row and the y row once per coefficient (cache-oblivious) */
    const double bytes = (double)d->n_coeffs * (12.0 + vs + 2.0 * d->n_theta * vs);
    const double flops = 2.0 * (double)d->n_coeffs * d->n_theta;
    clpk_bench_stats stats;
    clpk_status st = clpk_bench_run(ctx, cli_life_launch_events, &u, 2, repeats, bytes, flops, &stats);
    if (st == CLPK_SUCCESS)
        printf("bench %s: median %.4f ms (min %.4f, max %.4f) over %d runs, %.2f GFLOP/s, %.2f GB/s (nominal)\n",
               dsc ? "dsc" : "wc", stats.median_ms, stats.min_ms, stats.max_ms, stats.runs, stats.gflops, stats.gbps);
    clReleaseMemObject(u.in);
    clReleaseMemObject(u.out);
    return st == CLPK_SUCCESS ? 0 : fail("bench", st, clpk_last_error(ctx));
}

static int cmd_product(const cli *c, clpk_context *ctx, clpk_life_plan *plan, const clpk_life_dataset *d, int dsc) {
    const char *in_path = dsc ? c->w : c->y;
    if (!in_path || !c->out) return usage();
    const int64_t ny = (int64_t)d->n_voxels * d->n_theta, nw = d->n_fibers;
    double *in = NULL;
    if (read_vector(in_path, dsc ? nw : ny, &in)) return 1;
    double *out = malloc((size_t)(dsc ? ny : nw) * sizeof *out);
    const double t0 = cli_wall_seconds();
    clpk_status st = dsc ? clpk_life_dsc_host(plan, in, out) : clpk_life_wc_host(plan, in, out);
    int rc = st == CLPK_SUCCESS ? 0 : fail(c->cmd, st, clpk_last_error(ctx));
    if (!rc) {
        printf("%s: %lld coefficients, %.3f ms (with transfers)\n", c->cmd, (long long)d->n_coeffs,
               1e3 * (cli_wall_seconds() - t0));
        rc = dsc ? write_vector(c->out, out, 2, d->n_voxels, d->n_theta) : write_vector(c->out, out, 1, nw, 0);
    }
    if (!rc && c->check) {
        double *ref = malloc((size_t)(dsc ? ny : nw) * sizeof *ref);
        if (dsc)
            clpk_life_dsc_reference(d, in, ref);
        else
            clpk_life_wc_reference(d, in, ref);
        double err = 0, scale = 0;
        for (int64_t i = 0; i < (dsc ? ny : nw); ++i) {
            double e = fabs(out[i] - ref[i]);
            if (!(e <= err)) err = isnan(e) ? INFINITY : e;
            scale = fmax(scale, fabs(ref[i]));
        }
        double rel = scale > 0 ? err / scale : err;
        double tol = plan_precision(plan) == CLPK_PRECISION_F32 ? 1e-4 : 1e-10;
        if (cli_life_dict_half(plan)) tol += cli_life_half_bound(d, dsc, in, 0, ref); /* plus D's rounding */
        printf("check: relative error %.3g vs double host reference: %s\n", rel, rel <= tol ? "OK" : "WRONG");
        if (!(rel <= tol)) rc = 1;
        free(ref);
    }
    if (!rc && c->bench > 0) rc = run_bench(ctx, plan, dsc, (int)c->bench, d);
    free(in);
    free(out);
    return rc;
}

static int cmd_fit(const cli *c, clpk_context *ctx, clpk_life_plan *plan, const clpk_life_dataset *d) {
    if (!c->out) return usage();
    if (!d->signal) {
        fprintf(stderr, "clpk-life: %s has no signal.npy: nothing to fit\n", c->data);
        return 1;
    }
    const int64_t ny = (int64_t)d->n_voxels * d->n_theta, nw = d->n_fibers;
    double *w0 = NULL;
    if (c->w0 && read_vector(c->w0, nw, &w0)) return 1;
    double *w = malloc((size_t)nw * sizeof *w);
    clpk_life_fit_options o = {.max_iterations = (int)c->iters,
                               .tolerance = c->tol,
                               .objective_every = (int)c->every,
                               .w_start = w0,
                               .progress = 1,
                               .residual_every = (int)c->residual_every};
    clpk_life_fit_result res;
    clpk_status st = clpk_life_fit(plan, &o, w, &res);
    int rc = st == CLPK_SUCCESS ? 0 : fail("fit", st, clpk_last_error(ctx));
    if (!rc) {
        int64_t zeros = 0;
        for (int64_t i = 0; i < nw; ++i)
            zeros += w[i] == 0;
        printf("fit: %d iterations%s, objective %.6e, %.3f s, %lld of %lld weights zero\n", res.iterations,
               res.converged ? " (converged)" : "", res.objective, res.seconds, (long long)zeros, (long long)nw);
        /* RMSE of the model over all voxels and directions, in the units of the dataset's signal */
        double *pred = malloc((size_t)ny * sizeof *pred);
        clpk_life_dsc_reference(d, w, pred);
        double sse = 0;
        for (int64_t i = 0; i < ny; ++i)
            sse += (pred[i] - d->signal[i]) * (pred[i] - d->signal[i]);
        printf("rmse: %.6e (host evaluation of the returned weights)\n", sqrt(sse / (double)ny));
        if (c->check) {
            double rel = fabs(0.5 * sse - res.objective) / fmax(0.5 * sse, 1e-300);
            double tol = plan_precision(plan) == CLPK_PRECISION_F32 ? 1e-3 : 1e-9;
            printf("check: device objective vs host %.3g: %s\n", rel, rel <= tol ? "OK" : "WRONG");
            if (!(rel <= tol)) rc = 1;
        }
        free(pred);
        rc = rc ? rc : write_vector(c->out, w, 1, nw, 0);
    }
    char truth[4096];
    snprintf(truth, sizeof truth, "%s/w_true.npy", c->data);
    const char *refs[2] = {c->compare, NULL};
    FILE *f = fopen(truth, "rb");
    if (f) {
        fclose(f);
        refs[1] = truth;
    }
    for (int r = 0; !rc && r < 2; ++r) {
        if (!refs[r]) continue;
        double *ref = NULL;
        if (read_vector(refs[r], nw, &ref)) {
            rc = 1;
            break;
        }
        printf("correlation with %s: %.4f\n", refs[r], correlation(w, ref, nw));
        free(ref);
    }
    free(w);
    free(w0);
    return rc;
}

int main(int argc, char **argv) {
    int rc = parse(argc, argv);
    cli c = args;
    if (rc) return rc < 0 ? 0 : rc;
    if (strcmp(c.cmd, "synth") == 0) return cmd_synth(&c);
    if (strcmp(c.cmd, "encode") == 0) return cmd_encode(&c);
    int dsc = strcmp(c.cmd, "dsc") == 0, wc = strcmp(c.cmd, "wc") == 0, fit = strcmp(c.cmd, "fit") == 0;
    if (!dsc && !wc && !fit) return usage();
    if (!c.data) return usage();
    clpk_life_dataset d;
    clpk_error err = {0};
    clpk_status st = clpk_life_dataset_load(c.data, &d, &err);
    if (st != CLPK_SUCCESS) return fail(c.data, st, err.message);
    clpk_context *ctx = NULL;
    st = clpk_context_create(&ctx, c.device);
    if (st != CLPK_SUCCESS) {
        clpk_life_dataset_free(&d);
        return fail("device", st, "no OpenCL device matches");
    }
    clpk_life_plan *plan = NULL;
    st = clpk_life_plan_create(ctx, &d, c.precision, c.strategy, c.params, &plan);
    if (st != CLPK_SUCCESS) {
        rc = fail("plan", st, clpk_last_error(ctx));
    } else {
        char text[1024];
        clpk_life_plan_describe(plan, text, sizeof text);
        printf("device: %s\n%s\n", clpk_context_device_info(ctx)->name, text);
        rc = fit ? cmd_fit(&c, ctx, plan, &d) : cmd_product(&c, ctx, plan, &d, dsc);
    }
    clpk_life_plan_destroy(plan);
    clpk_context_destroy(ctx);
    clpk_life_dataset_free(&d);
    return rc;
}
