/* clpk-sshopm: eigenpairs of many small symmetric tensors (SS-HOPM), and the diffusion-MRI example.
 *
 *   clpk-sshopm --tensors T.npy --order m --dim n [options] --out result.json
 *   clpk-sshopm --random T --order m --dim n [options] [--bench N]
 *   clpk-sshopm dmri-synth [--voxels N] [--order 4|6] [--max-fibres K] [--min-angle DEG] [--snr S] [options]
 *   clpk-sshopm dmri --dwi F.nii[.gz] --bval F --bvec F [--mask M] [--order 4|6|8] --out PREFIX (sshopm_dmri_cli.h)
 */
#include <clpk.h>

#include "cli_args.h"
#include "cli_clock.h"
#include "cli_npy.h"
#include "cli_params.h"
#include "sshopm_dmri_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli {
    const char *tensors_path, *out, *out_npy, *out_starts, *device, *save;
    const char *starts_kind, *find, *shift, *precision_name, *post;
    long long random, order, dim, starts, seed, max_iter, polish, max_pairs, bench, voxels, max_fibres;
    double tol, xtol, min_angle, snr;
    int quiet, device_post;
    clpk_sshopm_options opts;
    clpk_precision precision;
    /* dmri */
    int dmri;
    clpk_sshopm_dmri_options dmri_opts;
    double match_deg, residual;
} cli;

/* The parsed command line; file-scope so that the option tables below can point into it. */
static cli args;

static const char *const synopsis =
    "(--tensors T.npy | --random T) --order m --dim n [options]\n"
    "       clpk-sshopm dmri-synth [dmri-synth options] [options]\n"
    "       clpk-sshopm dmri --dwi F.nii[.gz] --bval F --bvec F [--mask M] [--order m] --out PREFIX (fibre peaks\n"
    "                    of a scan; clpk-sshopm dmri --help)";

static const cli_option solve_options[] = {
    {"--tensors", CLI_STRING, &args.tensors_path, "FILE",
     "(T, U) unique entries in lexicographic order, (U,) one tensor, or (T, n, ..., n) dense\n"
     "(checked for symmetry); float32 or float64"},
    {"--random", CLI_INT, &args.random, "T", "T random tensors, entries uniform on [-1, 1] (seeded by --seed)"},
    {"--order", CLI_INT, &args.order, "m", "tensor order, 2 <= m <= 8"},
    {"--dim", CLI_INT, &args.dim, "n", "dimension, 2 <= n <= 8"},
    {"--starts", CLI_INT, &args.starts, "V", "starts per tensor (default 128)"},
    {"--starts-kind", CLI_STRING, &args.starts_kind, "K", "shared (default) | per-tensor | sphere"},
    {"--seed", CLI_INT, &args.seed, "S", "seed of random starts and --random tensors (default 1)"},
    {"--find", CLI_STRING, &args.find, "F", "max (default) | min | both"},
    {"--shift", CLI_STRING, &args.shift, "S",
     "auto/adaptive (default: per iteration from the local Hessian, lambda monotone; the\n"
     "bound shift for a start whose lambda drops) | bound (per tensor (m-1)||A||_F:\n"
     "guaranteed but slow) | VALUE (fixed; a negative VALUE finds minima)"},
    {"--tol", CLI_DOUBLE, &args.tol, "X",
     "stop at |dlambda| <= X (default 1e-6 f32, 1e-12 f64, raised to 2 ulps of ||A||_F)"},
    {"--xtol", CLI_DOUBLE, &args.xtol, "X", "also require max |dx| <= X (default off)"},
    {"--max-iter", CLI_INT, &args.max_iter, "K",
     "iteration cap (default 1000); capped starts get up to 20 Newton steps in double and\n"
     "count in the pair they reach ('polished'); the rest are reported 'unconverged'"},
    {"--precision", CLI_STRING, &args.precision_name, "P", "f32 (default) | f64"},
    {"--kernel", CLI_STRING, &args.opts.kernel, "K", "auto (default) | generated | general"},
    {"--params", CLI_STRING, &args.opts.params, "k=v,...", "tuning parameters (keys below)"},
    {"--device", CLI_STRING, &args.device, "SEL",
     "device index, P:D or name substring (default $CLPK_DEVICE, else first GPU)"},
    {"--out", CLI_STRING, &args.out, "FILE",
     "result JSON: {\"tensors\": [{\"eigenpairs\": [{lambda, x, type, hits}, ...]}, ...]}"},
    {"--post", CLI_STRING, &args.post, "host|device",
     "de-duplicate and classify on the host in double (default; residuals) or on the device\n"
     "(only the distinct pairs come back: for large batches)"},
    {"--max-pairs", CLI_INT, &args.max_pairs, "K",
     "distinct pairs kept per tensor and direction by --post device (default 16)"},
    {"--polish", CLI_INT, &args.polish, "K",
     "up to K Newton steps per pair in double on the host (f32 runs to f64 "
     "accuracy)"},
    {"--out-npy", CLI_STRING, &args.out_npy, "PREFIX",
     "the pairs as arrays padded with NaN / 0: PREFIX_lambda.npy (T, P), PREFIX_x.npy (T, P, n),\n"
     "PREFIX_type.npy (T, P) int32 (1 max, 2 min, 3 saddle, 4 degenerate), PREFIX_hits.npy"},
    {"--out-starts", CLI_STRING, &args.out_starts, "PREFIX",
     "per-start arrays PREFIX_lambda.npy, PREFIX_x.npy, PREFIX_info.npy (status | its << 2)\n"
     "(--post host only)"},
    {"--bench", CLI_INT, &args.bench, "N", "time N launches on device buffers (median of profiling events)"},
    {"--quiet", CLI_FLAG, &args.quiet, NULL, "no per-tensor summary"},
    {NULL, 0, NULL, NULL, NULL}};

/* dmri-synth only: a field of voxels with 1..K fibres, A = sum_f w_f u_f^(x)m + noise, then the fit. */
static const cli_option synth_options[] = {
    {"--voxels", CLI_INT, &args.voxels, "N", "voxels (default 1000); --order 4|6 (default 4)"},
    {"--max-fibres", CLI_INT, &args.max_fibres, "K", "fibres per voxel, 1..3 (default 2)"},
    {"--min-angle", CLI_DOUBLE, &args.min_angle, "DEG", "smallest angle between fibres (default 45)"},
    {"--snr", CLI_DOUBLE, &args.snr, "S", "signal-to-noise ratio (default 50, 0 = none)"},
    {"--match", CLI_DOUBLE, &args.match_deg, "DEG", "a fibre counts as found within DEG degrees (default 10)"},
    {"--residual", CLI_DOUBLE, &args.residual, "R",
     "relative residual that stops adding fibres in the refinement (default 0.06)"},
    {"--save", CLI_STRING, &args.save, "PREFIX", "write PREFIX_tensors.npy, PREFIX_dirs.npy, PREFIX_nfibres.npy"},
    {NULL, 0, NULL, NULL, NULL}};

static int bad_value(const char *option, const char *value) {
    return cli_fail("clpk-sshopm", "bad value '%s' for %s", value, option);
}

static int bad_count(const char *option, long long value) {
    char text[32];
    snprintf(text, sizeof text, "%lld", value);
    return bad_value(option, text);
}

/* An integer option given outside [lo, hi]? */
static int out_of_range(long long value, long long lo, long long hi) {
    return value != CLI_INT_UNSET && (value < lo || value > hi);
}

/* Fills `args`; returns 0 to go on, -1 after --help, else the exit status. */
static int parse_args(int argc, char **argv) {
    cli *c = &args;
    clpk_sshopm_options_default(&c->opts);
    clpk_sshopm_dmri_options_default(&c->dmri_opts);
    c->precision_name = "f32";
    c->match_deg = 10;
    c->residual = 0.06;
    c->tol = c->xtol = c->min_angle = c->snr = NAN;
    c->random = c->order = c->dim = c->starts = c->seed = c->max_iter = c->polish = c->max_pairs = c->bench =
        c->voxels = c->max_fibres = CLI_INT_UNSET;
    int first = 1;
    if (argc > 1 && !strcmp(argv[1], "dmri-synth")) {
        c->dmri = 1;
        c->order = 4;
        c->dim = 3;
        c->opts.starts = 48;
        c->opts.starts_kind = CLPK_SSHOPM_STARTS_SPHERE;
        c->opts.shift = CLPK_SSHOPM_SHIFT_FIXED;
        c->opts.alpha = 1;
        c->opts.tol = 1e-7;
        c->opts.max_iter = 3000;
        first = 2;
    }
    cli_option table[sizeof solve_options / sizeof solve_options[0] + sizeof synth_options / sizeof synth_options[0]];
    size_t n = 0;
    for (const cli_option *o = solve_options; o->name; ++o)
        table[n++] = *o;
    for (const cli_option *o = synth_options; c->dmri && o->name; ++o)
        table[n++] = *o;
    table[n] = (cli_option){0};
    int rc = cli_parse("clpk-sshopm", synopsis, table, argc, argv, first, NULL);
    if (rc == 1) {
        if (!c->dmri) {
            printf("dmri-synth options (a field of voxels with 1..K fibres, A = sum_f w_f u_f^(x)m + noise, then the "
                   "fit):\n");
            cli_print_options(stdout, synth_options);
        }
        cli_print_family_parameters(stdout, "sshopm");
        return -1;
    }
    if (rc) return rc;

    if (out_of_range(c->random, 1, LLONG_MAX)) return bad_count("--random", c->random);
    if (out_of_range(c->order, 2, 8)) return bad_count("--order", c->order);
    if (out_of_range(c->dim, 2, 8)) return bad_count("--dim", c->dim);
    if (out_of_range(c->starts, 1, 1 << 20)) return bad_count("--starts", c->starts);
    if (out_of_range(c->max_iter, 1, 1 << 28)) return bad_count("--max-iter", c->max_iter);
    if (out_of_range(c->polish, 0, 100)) return bad_count("--polish", c->polish);
    if (out_of_range(c->max_pairs, 1, 4096)) return bad_count("--max-pairs", c->max_pairs);
    if (out_of_range(c->bench, 1, 100000)) return bad_count("--bench", c->bench);
    if (out_of_range(c->voxels, 1, LLONG_MAX)) return bad_count("--voxels", c->voxels);
    if (out_of_range(c->max_fibres, 1, 3)) return bad_count("--max-fibres", c->max_fibres);
    if (c->tol < 0) return bad_value("--tol", "negative");
    if (c->xtol < 0) return bad_value("--xtol", "negative");
    if (!(c->match_deg > 0)) return bad_value("--match", "not positive");
    if (!(c->residual > 0)) return bad_value("--residual", "not positive");
    if (c->order != CLI_INT_UNSET) c->dmri_opts.order = (int)c->order;
    if (c->starts != CLI_INT_UNSET) c->opts.starts = (int)c->starts;
    if (c->seed != CLI_INT_UNSET) c->opts.seed = c->dmri_opts.seed = (uint64_t)c->seed;
    if (c->max_iter != CLI_INT_UNSET) c->opts.max_iter = (int)c->max_iter;
    if (c->voxels != CLI_INT_UNSET) c->dmri_opts.voxels = c->voxels;
    if (c->max_fibres != CLI_INT_UNSET) c->dmri_opts.max_fibres = (int)c->max_fibres;
    if (!isnan(c->tol)) c->opts.tol = c->tol;
    if (!isnan(c->xtol)) c->opts.xtol = c->xtol;
    if (!isnan(c->min_angle)) c->dmri_opts.min_angle_deg = c->min_angle;
    if (!isnan(c->snr)) c->dmri_opts.snr = c->snr;
    if (c->polish == CLI_INT_UNSET) c->polish = 0;
    if (c->max_pairs == CLI_INT_UNSET) c->max_pairs = 0;
    if (c->bench == CLI_INT_UNSET) c->bench = 0;
    if (c->random == CLI_INT_UNSET) c->random = 0;
    if (c->starts_kind) {
        static const char *const kinds[] = {"shared", "per-tensor", "sphere", NULL};
        static const clpk_sshopm_starts values[] = {CLPK_SSHOPM_STARTS_SHARED, CLPK_SSHOPM_STARTS_PER_TENSOR,
                                                    CLPK_SSHOPM_STARTS_SPHERE};
        int k = cli_choice(c->starts_kind, kinds);
        if (k < 0) return bad_value("--starts-kind", c->starts_kind);
        c->opts.starts_kind = values[k];
    }
    if (c->find) {
        static const char *const finds[] = {"max", "min", "both", NULL};
        static const clpk_sshopm_find values[] = {CLPK_SSHOPM_FIND_MAX, CLPK_SSHOPM_FIND_MIN, CLPK_SSHOPM_FIND_BOTH};
        int k = cli_choice(c->find, finds);
        if (k < 0) return bad_value("--find", c->find);
        c->opts.find = values[k];
    }
    if (c->shift) {
        char *end = NULL;
        double alpha = strtod(c->shift, &end);
        if (!strcmp(c->shift, "bound")) {
            c->opts.shift = CLPK_SSHOPM_SHIFT_BOUND;
        } else if (!strcmp(c->shift, "auto") || !strcmp(c->shift, "adaptive")) {
            c->opts.shift = CLPK_SSHOPM_SHIFT_ADAPTIVE;
        } else if (*c->shift && !*end && isfinite(alpha)) {
            c->opts.shift = CLPK_SSHOPM_SHIFT_FIXED;
            c->opts.alpha = alpha;
        } else {
            return bad_value("--shift", c->shift);
        }
    }
    if (clpk_precision_parse(c->precision_name, &c->precision) != CLPK_SUCCESS)
        return bad_value("--precision", c->precision_name);
    if (c->post) {
        static const char *const places[] = {"host", "device", NULL};
        c->device_post = cli_choice(c->post, places);
        if (c->device_post < 0) return bad_value("--post", c->post);
    }
    if (c->device_post && c->out_starts)
        return cli_fail("clpk-sshopm",
                        "--out-starts needs --post host (the device path keeps the starts on the device)");
    if (c->opts.shift == CLPK_SSHOPM_SHIFT_FIXED && c->opts.alpha < 0 && !c->find) c->opts.find = CLPK_SSHOPM_FIND_MIN;
    if (c->dmri) {
        c->dim = 3;
        c->order = c->dmri_opts.order;
        return 0;
    }
    if (!c->tensors_path == !c->random)
        return cli_fail("clpk-sshopm", "give exactly one of --tensors FILE or --random T (see --help)");
    if (c->order == CLI_INT_UNSET || c->dim == CLI_INT_UNSET)
        return cli_fail("clpk-sshopm", "--order and --dim are required");
    return 0;
}

/* Reads unique entries (T x U doubles) from a .npy of shape (T, U), (U,) or (T, n, ..., n). */
static int load_tensors(const cli *c, double **out, int64_t *count) {
    clpk_npy arr;
    clpk_error err = {0};
    const int U = clpk_sshopm_unique_count(c->order, c->dim);
    if (clpk_npy_read(c->tensors_path, &arr, &err) != CLPK_SUCCESS ||
        clpk_npy_convert(&arr, CLPK_DTYPE_F64, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm: %s\n", err.message);
        return 0;
    }
    int ok = 0;
    if (arr.ndim == 2 && arr.shape[1] == U && arr.shape[0] > 0) {
        *count = arr.shape[0];
        ok = 1;
    } else if (arr.ndim == 1 && arr.shape[0] == U) {
        *count = 1;
        ok = 1;
    } else if (arr.ndim == c->order + 1 && arr.shape[0] > 0) {
        ok = 2;
        for (int d = 1; d <= c->order; ++d)
            ok = ok && arr.shape[d] == c->dim ? 2 : 0;
        *count = arr.shape[0];
    }
    if (!ok) {
        fprintf(stderr,
                "clpk-sshopm: %s: shape does not fit order %d, dimension %d: want (T, %d) unique entries or (T%s) "
                "dense\n",
                c->tensors_path, (int)c->order, (int)c->dim, U, c->order == 4 ? ", n, n, n, n" : ", n, ..., n");
        clpk_npy_free(&arr);
        return 0;
    }
    const double *d = arr.data;
    for (int64_t i = 0; i < arr.count; ++i)
        if (!isfinite(d[i])) {
            fprintf(stderr, "clpk-sshopm: %s: element %lld is not finite\n", c->tensors_path, (long long)i);
            clpk_npy_free(&arr);
            return 0;
        }
    *out = malloc((size_t)*count * U * sizeof **out);
    if (!*out) {
        clpk_npy_free(&arr);
        fprintf(stderr, "clpk-sshopm: out of memory\n");
        return 0;
    }
    if (ok == 1) {
        memcpy(*out, d, (size_t)*count * U * sizeof **out);
    } else if (clpk_sshopm_compress_dense(c->order, c->dim, d, *count, 1e-6, *out, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm: %s: %s\n", c->tensors_path, err.message);
        free(*out);
        clpk_npy_free(&arr);
        return 0;
    }
    clpk_npy_free(&arr);
    return 1;
}

static int write_starts(const char *prefix, const clpk_sshopm_raw *raw) {
    const int64_t per = (int64_t)raw->directions * raw->starts;
    const int64_t shape[3] = {raw->n_tensors, per, raw->dim};
    const cli_npy_array arrays[] = {{"_lambda.npy", CLPK_DTYPE_F64, 2, shape, raw->lambda},
                                    {"_x.npy", CLPK_DTYPE_F64, 3, shape, raw->x},
                                    {"_info.npy", CLPK_DTYPE_I32, 2, shape, raw->info}};
    return cli_npy_write_arrays("clpk-sshopm", prefix, arrays, 3);
}

/* The distinct pairs as padded arrays (P = most pairs of any tensor). */
static int write_pairs(const char *prefix, const clpk_sshopm_result *r) {
    int P = 1;
    for (int64_t t = 0; t < r->n_tensors; ++t)
        P = r->tensors[t].count > P ? r->tensors[t].count : P;
    const int n = r->dim;
    double *l = malloc((size_t)r->n_tensors * P * sizeof *l), *x = malloc((size_t)r->n_tensors * P * n * sizeof *x);
    int32_t *ty = calloc((size_t)r->n_tensors * P, sizeof *ty), *hi = calloc((size_t)r->n_tensors * P, sizeof *hi);
    int ok = l && x && ty && hi;
    for (int64_t t = 0; ok && t < r->n_tensors; ++t)
        for (int k = 0; k < P; ++k) {
            const size_t e = (size_t)t * P + k;
            const int have = k < r->tensors[t].count;
            const clpk_sshopm_eigenpair *p = have ? &r->tensors[t].pairs[k] : NULL;
            l[e] = have ? p->lambda : NAN;
            for (int i = 0; i < n; ++i)
                x[e * n + i] = have ? p->x[i] : NAN;
            ty[e] = have ? (int32_t)p->type : 0;
            hi[e] = have ? p->hits : 0;
        }
    const int64_t shape[3] = {r->n_tensors, P, n};
    const cli_npy_array arrays[] = {{"_lambda.npy", CLPK_DTYPE_F64, 2, shape, l},
                                    {"_x.npy", CLPK_DTYPE_F64, 3, shape, x},
                                    {"_type.npy", CLPK_DTYPE_I32, 2, shape, ty},
                                    {"_hits.npy", CLPK_DTYPE_I32, 2, shape, hi}};
    if (ok)
        ok = cli_npy_write_arrays("clpk-sshopm", prefix, arrays, 4);
    else
        fprintf(stderr, "clpk-sshopm: out of memory writing .npy\n");
    free(l);
    free(x);
    free(ty);
    free(hi);
    return ok;
}

typedef struct bench_state {
    clpk_sshopm_plan *plan;
    int64_t T;
    cl_mem t, l, x, i;
    int direction;
} bench_state;

static clpk_status bench_launch(void *user, cl_event *first, cl_event *last) {
    bench_state *b = user;
    clpk_status st = clpk_sshopm_execute(b->plan, b->T, b->t, b->direction, b->l, b->x, b->i, 0, NULL, first);
    *last = *first;
    return st;
}

/* Times the plan's first direction on device buffers; reports start-iterations/s from the iterations actually run. */
static int bench(clpk_context *ctx, clpk_sshopm_plan *plan, const double *tensors, int64_t T, const cli *c) {
    const int U = clpk_sshopm_unique_count(c->order, c->dim), V = c->opts.starts;
    const size_t vs = clpk_precision_size(c->precision);
    void *ht = malloc((size_t)T * U * vs);
    int32_t *info = malloc((size_t)T * V * sizeof *info);
    if (!ht || !info) return 0;
    for (int64_t k = 0; k < T * U; ++k) {
        if (vs == 8)
            ((double *)ht)[k] = tensors[k];
        else
            ((float *)ht)[k] = (float)tensors[k];
    }
    cl_int rc;
    cl_context cc = clpk_context_cl_context(ctx);
    bench_state b = {plan, T, NULL, NULL, NULL, NULL, c->opts.find == CLPK_SSHOPM_FIND_MIN ? -1 : 1};
    b.t = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)T * U * vs, ht, &rc);
    b.l = clCreateBuffer(cc, CL_MEM_WRITE_ONLY, (size_t)T * V * vs, NULL, &rc);
    b.x = clCreateBuffer(cc, CL_MEM_WRITE_ONLY, (size_t)T * V * c->dim * vs, NULL, &rc);
    b.i = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)T * V * sizeof(cl_int), NULL, &rc);
    int ok = b.t && b.l && b.x && b.i;
    clpk_bench_stats stats;
    if (ok) {
        /* iterations are data dependent: count them from one run, then time */
        ok = clpk_sshopm_execute(plan, T, b.t, b.direction, b.l, b.x, b.i, 0, NULL, NULL) == CLPK_SUCCESS &&
             clEnqueueReadBuffer(clpk_context_queue(ctx), b.i, CL_TRUE, 0, (size_t)T * V * sizeof *info, info, 0, NULL,
                                 NULL) == CL_SUCCESS;
    }
    double iterations = 0;
    for (int64_t k = 0; ok && k < T * V; ++k)
        iterations += CLPK_SSHOPM_INFO_ITERATIONS(info[k]);
    const double flops = iterations * clpk_sshopm_plan_iteration_flops(plan);
    const double bytes = (double)T * U * vs + (double)T * V * ((c->dim + 1) * vs + 4);
    if (ok) ok = clpk_bench_run(ctx, bench_launch, &b, 2, c->bench, bytes, flops, &stats) == CLPK_SUCCESS;
    if (ok) {
        char desc[512];
        clpk_sshopm_plan_describe(plan, desc, sizeof desc);
        printf("bench: %s\n", desc);
        printf("bench: %lld tensors x %d starts, %.1f iterations per start: median %.4f ms (p10 %.4f, p90 %.4f), "
               "%.2f G start-iterations/s, %.1f GFLOP/s\n",
               (long long)T, V, iterations / ((double)T * V), stats.median_ms, stats.p10_ms, stats.p90_ms,
               iterations / (stats.median_ms * 1e-3) / 1e9, stats.gflops);
    } else {
        fprintf(stderr, "clpk-sshopm: bench failed: %s\n", clpk_last_error(ctx));
    }
    cl_mem bufs[] = {b.t, b.l, b.x, b.i};
    for (int k = 0; k < 4; ++k)
        if (bufs[k]) clReleaseMemObject(bufs[k]);
    free(ht);
    free(info);
    return ok;
}

static void print_summary(const clpk_sshopm_result *r, int quiet) {
    int64_t pairs = 0, conv = 0, capped = 0, failed = 0, polished = 0, unconverged = 0, with = 0;
    for (int64_t t = 0; t < r->n_tensors; ++t) {
        const clpk_sshopm_tensor_result *tr = &r->tensors[t];
        pairs += tr->count;
        conv += tr->converged;
        capped += tr->capped;
        failed += tr->failed;
        polished += tr->polished;
        unconverged += tr->unconverged;
        with += tr->unconverged > 0;
        if (quiet || t >= 8) continue;
        printf("tensor %lld: %d eigenpairs (%d converged, %d capped: %d polished, %d unconverged; %d failed starts)\n",
               (long long)t, tr->count, tr->converged, tr->capped, tr->polished, tr->unconverged, tr->failed);
        for (int i = 0; i < tr->count; ++i) {
            const clpk_sshopm_eigenpair *p = &tr->pairs[i];
            printf("  lambda %+.9f  %-10s hits %4d  x = [", p->lambda, clpk_sshopm_type_name(p->type), p->hits);
            for (int j = 0; j < r->dim; ++j)
                printf("%s%+.6f", j ? ", " : "", p->x[j]);
            printf("]\n");
        }
    }
    if (!quiet && r->n_tensors > 8) printf("... (%lld more tensors)\n", (long long)(r->n_tensors - 8));
    printf("%lld tensors: %lld eigenpairs; starts %lld converged, %lld capped (%lld polished, %lld unconverged), %lld "
           "failed\n",
           (long long)r->n_tensors, (long long)pairs, (long long)conv, (long long)capped, (long long)polished,
           (long long)unconverged, (long long)failed);
    if (unconverged)
        printf("warning: %lld starts of %lld tensors ended unconverged (capped, and Newton reached no eigenpair): "
               "eigenpairs in their basins may be missing; raise --max-iter\n",
               (long long)unconverged, (long long)with);
}

static void print_dmri(const char *label, const clpk_sshopm_dmri_stats *s) {
    printf("%-8s fibres found %lld of %lld (%.1f%%); angular error mean %.3f, median %.3f, p90 %.3f, max %.3f deg; "
           "spurious %lld; voxels with exactly their fibres %lld\n",
           label, (long long)s->found, (long long)s->fibres, 100 * s->fraction_found, s->mean_deg, s->median_deg,
           s->p90_deg, s->max_deg, (long long)s->spurious, (long long)s->voxels_exact);
}

static int save_field(const char *prefix, const clpk_sshopm_dmri_field *f) {
    const int64_t s1[2] = {f->voxels, f->unique}, s2[3] = {f->voxels, 3, 3}, s3[1] = {f->voxels};
    const cli_npy_array arrays[] = {{"_tensors.npy", CLPK_DTYPE_F64, 2, s1, f->tensors},
                                    {"_dirs.npy", CLPK_DTYPE_F64, 3, s2, f->dirs},
                                    {"_nfibres.npy", CLPK_DTYPE_I32, 1, s3, f->n_fibres}};
    return cli_npy_write_arrays("clpk-sshopm", prefix, arrays, 3);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "dmri")) return dmri_main(argc - 1, argv + 1);
    int parsed = parse_args(argc, argv);
    if (parsed) return parsed < 0 ? 0 : parsed;
    const cli c = args;
    double *tensors = NULL;
    int64_t T = 0;
    clpk_sshopm_dmri_field field = {0};
    clpk_error err = {0};
    if (c.dmri) {
        double t0 = cli_wall_seconds();
        if (clpk_sshopm_dmri_synth(&c.dmri_opts, &field, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", err.message);
            return 2;
        }
        tensors = field.tensors;
        T = field.voxels;
        printf("dmri-synth: %lld voxels, order %d, 1..%d fibres at >= %g deg, SNR %g (%.2f s)\n", (long long)T,
               field.order, c.dmri_opts.max_fibres, c.dmri_opts.min_angle_deg, c.dmri_opts.snr,
               cli_wall_seconds() - t0);
        if (c.save && !save_field(c.save, &field)) return 1;
    } else if (c.random) {
        const int U = clpk_sshopm_unique_count(c.order, c.dim);
        T = c.random;
        tensors = malloc((size_t)T * U * sizeof *tensors);
        if (!tensors) return 1;
        uint64_t s = c.opts.seed * 0x9e3779b97f4a7c15ull + 12345;
        for (int64_t k = 0; k < T * U; ++k) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            tensors[k] = (double)(s >> 11) * (2.0 / 9007199254740992.0) - 1;
        }
    } else if (!load_tensors(&c, &tensors, &T)) {
        return 1;
    }

    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, c.device) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm: no device: %s\n", ctx ? clpk_last_error(ctx) : "context creation failed");
        return 1;
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s / %s\n", dev->platform_name, dev->name);
    clpk_sshopm_plan *plan = NULL;
    int rc = 0;
    if (clpk_sshopm_plan_create(ctx, c.order, c.dim, c.precision, T, &c.opts, &plan) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm: %s\n", clpk_last_error(ctx));
        rc = 1;
    }
    if (!rc) {
        char desc[512];
        clpk_sshopm_plan_describe(plan, desc, sizeof desc);
        printf("plan: %s\n", desc);
    }
    if (!rc && c.bench && !bench(ctx, plan, tensors, T, &c)) rc = 1;
    clpk_sshopm_raw raw = {0};
    clpk_sshopm_result result = {0};
    if (!rc && c.device_post) {
        double t0 = cli_wall_seconds();
        if (clpk_sshopm_solve_device(plan, tensors, T, NULL, c.max_pairs, &result) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", clpk_last_error(ctx));
            rc = 1;
        } else {
            int64_t dropped = 0;
            for (int64_t t = 0; t < T; ++t)
                dropped += result.tensors[t].dropped;
            printf("solve: %.3f s end to end (upload, iterations, de-duplication and classification on the device, "
                   "download of the distinct pairs)\n",
                   cli_wall_seconds() - t0);
            if (dropped)
                printf("warning: %lld converged starts found all --max-pairs slots of their tensor taken\n",
                       (long long)dropped);
            print_summary(&result, c.quiet || c.dmri);
        }
    } else if (!rc) {
        double t0 = cli_wall_seconds();
        /* solve_host: tensors far from unit norm are solved at unit norm (the default tolerances are absolute) */
        if (clpk_sshopm_solve_host(plan, tensors, T, NULL, &result) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", clpk_last_error(ctx));
            rc = 1;
        }
        if (!rc) {
            printf("solve: %.3f s end to end (upload, iterations, download, post-processing on the host)\n",
                   cli_wall_seconds() - t0);
            print_summary(&result, c.quiet || c.dmri);
        }
        /* the starts as the device left them, for --out-starts: one more run */
        if (!rc && c.out_starts && clpk_sshopm_run_host(plan, tensors, T, &raw) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", clpk_last_error(ctx));
            rc = 1;
        }
    }
    if (!rc && c.polish) {
        double t0 = cli_wall_seconds();
        if (clpk_sshopm_polish(tensors, &result, c.polish, 0, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", err.message);
            rc = 1;
        } else {
            printf("polish: %d Newton steps at most per pair in double, %.3f s\n", (int)c.polish,
                   cli_wall_seconds() - t0);
        }
    }
    if (!rc && c.out && clpk_sshopm_result_write_json(c.out, &result, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm: %s\n", err.message);
        rc = 1;
    }
    if (!rc && c.out_npy && !write_pairs(c.out_npy, &result)) rc = 1;
    if (!rc && c.out_starts && !write_starts(c.out_starts, &raw)) rc = 1;
    if (!rc && c.dmri) {
        clpk_sshopm_dmri_fibres peaks = {0}, refined = {0};
        clpk_sshopm_dmri_stats sp, sr;
        double t0 = cli_wall_seconds();
        if (clpk_sshopm_dmri_peaks(&result, 0.3, &peaks, &err) != CLPK_SUCCESS ||
            clpk_sshopm_dmri_evaluate(&field, &peaks, c.match_deg, &sp, NULL, &err) != CLPK_SUCCESS ||
            clpk_sshopm_dmri_refine(tensors, &result, c.residual, &refined, &err) != CLPK_SUCCESS ||
            clpk_sshopm_dmri_evaluate(&field, &refined, c.match_deg, &sr, NULL, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", err.message);
            rc = 1;
        } else {
            printf("fibres within %g deg (peaks: local maxima with lambda >= 0.3 max; refined: low-rank fit from "
                   "them, %.2f s):\n",
                   c.match_deg, cli_wall_seconds() - t0);
            print_dmri("peaks", &sp);
            print_dmri("refined", &sr);
        }
        clpk_sshopm_dmri_fibres_free(&peaks);
        clpk_sshopm_dmri_fibres_free(&refined);
    }
    clpk_sshopm_result_free(&result);
    clpk_sshopm_raw_free(&raw);
    clpk_sshopm_plan_destroy(plan);
    clpk_context_destroy(ctx);
    if (c.dmri)
        clpk_sshopm_dmri_field_free(&field);
    else
        free(tensors);
    return rc;
}
