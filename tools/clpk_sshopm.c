/* clpk-sshopm: eigenpairs of many small symmetric tensors (SS-HOPM), and the diffusion-MRI example.
 *
 *   clpk-sshopm --tensors T.npy --order m --dim n [options] --out result.json
 *   clpk-sshopm --random T --order m --dim n [options] [--bench N]
 *   clpk-sshopm dmri-synth [--voxels N] [--order 4|6] [--max-fibres K] [--min-angle DEG] [--snr S] [options]
 *   clpk-sshopm dmri --dwi F.nii[.gz] --bval F --bvec F [--mask M] [--order 4|6|8] --out PREFIX (sshopm_dmri_cli.h)
 */
#include "clpk_internal.h"
#include "sshopm_dmri_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
    printf(
        "usage: clpk-sshopm (--tensors T.npy | --random T) --order m --dim n [options]\n"
        "       clpk-sshopm dmri-synth [dmri options] [options]\n"
        "       clpk-sshopm dmri --dwi F.nii[.gz] --bval F --bvec F [--mask M] [--order m] --out PREFIX (fibre peaks\n"
        "                    of a scan; clpk-sshopm dmri --help)\n"
        "  --tensors FILE     (T, U) unique entries in lexicographic order, (U,) one tensor, or (T, n, ..., n) dense\n"
        "                     (checked for symmetry); float32 or float64\n"
        "  --random T         T random tensors, entries uniform on [-1, 1] (seeded by --seed)\n"
        "  --order m --dim n  2 <= m, n <= 8\n"
        "  --starts V         starts per tensor (default 128)\n"
        "  --starts-kind K    shared (default) | per-tensor | sphere\n"
        "  --seed S           seed of random starts and --random tensors (default 1)\n"
        "  --find F           max (default) | min | both\n"
        "  --shift S          auto/adaptive (default: per iteration from the local Hessian, lambda monotone; the\n"
        "                     bound shift for a start whose lambda drops) | bound (per tensor (m-1)||A||_F:\n"
        "                     guaranteed but slow) | VALUE (fixed; a negative VALUE finds minima)\n"
        "  --tol X            stop at |dlambda| <= X (default 1e-6 f32, 1e-12 f64, raised to 2 ulps of ||A||_F)\n"
        "  --xtol X           also require max |dx| <= X (default off)\n"
        "  --max-iter K       iteration cap (default 1000); capped starts get up to 20 Newton steps in double and\n"
        "                     count in the pair they reach ('polished'); the rest are reported 'unconverged'\n"
        "  --precision P      f32 (default) | f64\n"
        "  --kernel K         auto (default) | generated | general\n"
        "  --params k=v,...   tuning parameters (kernel, entries, wg, check_every, unroll_max, private_max)\n"
        "  --device SEL       device index, P:D or name substring (default $CLPK_DEVICE, else first GPU)\n"
        "  --out FILE         result JSON: {\"tensors\": [{\"eigenpairs\": [{lambda, x, type, hits}, ...]}, ...]}\n"
        "  --post host|device de-duplicate and classify on the host in double (default; residuals) or on the device\n"
        "                     (only the distinct pairs come back: for large batches)\n"
        "  --max-pairs K      distinct pairs kept per tensor and direction by --post device (default 16)\n"
        "  --polish K         up to K Newton steps per pair in double on the host (f32 runs to f64 accuracy)\n"
        "  --out-npy PREFIX   the pairs as arrays padded with NaN / 0: PREFIX_lambda.npy (T, P), PREFIX_x.npy (T, P, "
        "n),\n"
        "                     PREFIX_type.npy (T, P) int32 (1 max, 2 min, 3 saddle, 4 degenerate), PREFIX_hits.npy\n"
        "  --out-starts PREFIX  per-start arrays PREFIX_lambda.npy, PREFIX_x.npy, PREFIX_info.npy (status | its << 2)\n"
        "                     (--post host only)\n"
        "  --bench N          time N launches on device buffers (median of profiling events)\n"
        "  --quiet            no per-tensor summary\n"
        "dmri-synth options (a field of voxels with 1..K fibres, A = sum_f w_f u_f^(x)m + noise, then the fit):\n"
        "  --voxels N (1000) --order 4|6 (4) --max-fibres K (2) --min-angle DEG (45) --snr S (50, 0 = none)\n"
        "  --match DEG        a fibre counts as found within DEG degrees (default 10)\n"
        "  --residual R       relative residual that stops adding fibres in the refinement (default 0.06)\n"
        "  --save PREFIX      write PREFIX_tensors.npy, PREFIX_dirs.npy, PREFIX_nfibres.npy\n");
}

typedef struct cli {
    const char *tensors_path, *out, *out_npy, *out_starts, *device, *kernel, *params, *save;
    int64_t random;
    int order, dim, bench, quiet, find_given, device_post, max_pairs, polish;
    clpk_sshopm_options opts;
    clpk_precision precision;
    /* dmri */
    int dmri;
    clpk_sshopm_dmri_options dmri_opts;
    double match_deg, residual;
} cli;

static int parse_double(const char *s, double *out) {
    char *end;
    *out = strtod(s, &end);
    return *s && !*end && isfinite(*out);
}

static int parse_int64(const char *s, int64_t *out) {
    char *end;
    long long v = strtoll(s, &end, 10);
    *out = v;
    return *s && !*end;
}

static int parse_args(int argc, char **argv, cli *c) {
    memset(c, 0, sizeof *c);
    clpk_sshopm_options_default(&c->opts);
    clpk_sshopm_dmri_options_default(&c->dmri_opts);
    c->precision = CLPK_PRECISION_F32;
    c->match_deg = 10;
    c->residual = 0.06;
    int i = 1;
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
        i = 2;
    }
    for (; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t iv = 0;
        double dv = 0;
#define NEED_VALUE                                                                                                     \
    do {                                                                                                               \
        if (!v) {                                                                                                      \
            fprintf(stderr, "clpk-sshopm: %s needs a value\n", a);                                                     \
            return 0;                                                                                                  \
        }                                                                                                              \
        ++i;                                                                                                           \
    } while (0)
#define BAD_VALUE()                                                                                                    \
    do {                                                                                                               \
        fprintf(stderr, "clpk-sshopm: bad value '%s' for %s\n", v, a);                                                 \
        return 0;                                                                                                      \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            exit(0);
        } else if (!strcmp(a, "--quiet")) {
            c->quiet = 1;
        } else if (!strcmp(a, "--tensors")) {
            NEED_VALUE;
            c->tensors_path = v;
        } else if (!strcmp(a, "--random")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 1) BAD_VALUE();
            c->random = iv;
        } else if (!strcmp(a, "--order")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 2 || iv > 8) BAD_VALUE();
            c->order = (int)iv;
            c->dmri_opts.order = (int)iv;
        } else if (!strcmp(a, "--dim")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 2 || iv > 8) BAD_VALUE();
            c->dim = (int)iv;
        } else if (!strcmp(a, "--starts")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 1 || iv > (1 << 20)) BAD_VALUE();
            c->opts.starts = (int)iv;
        } else if (!strcmp(a, "--starts-kind")) {
            NEED_VALUE;
            if (!strcmp(v, "shared"))
                c->opts.starts_kind = CLPK_SSHOPM_STARTS_SHARED;
            else if (!strcmp(v, "per-tensor"))
                c->opts.starts_kind = CLPK_SSHOPM_STARTS_PER_TENSOR;
            else if (!strcmp(v, "sphere"))
                c->opts.starts_kind = CLPK_SSHOPM_STARTS_SPHERE;
            else
                BAD_VALUE();
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv)) BAD_VALUE();
            c->opts.seed = (uint64_t)iv;
            c->dmri_opts.seed = (uint64_t)iv;
        } else if (!strcmp(a, "--find")) {
            NEED_VALUE;
            c->find_given = 1;
            if (!strcmp(v, "max"))
                c->opts.find = CLPK_SSHOPM_FIND_MAX;
            else if (!strcmp(v, "min"))
                c->opts.find = CLPK_SSHOPM_FIND_MIN;
            else if (!strcmp(v, "both"))
                c->opts.find = CLPK_SSHOPM_FIND_BOTH;
            else
                BAD_VALUE();
        } else if (!strcmp(a, "--shift")) {
            NEED_VALUE;
            if (!strcmp(v, "bound"))
                c->opts.shift = CLPK_SSHOPM_SHIFT_BOUND;
            else if (!strcmp(v, "auto") || !strcmp(v, "adaptive"))
                c->opts.shift = CLPK_SSHOPM_SHIFT_ADAPTIVE;
            else if (parse_double(v, &dv)) {
                c->opts.shift = CLPK_SSHOPM_SHIFT_FIXED;
                c->opts.alpha = dv;
            } else
                BAD_VALUE();
        } else if (!strcmp(a, "--tol")) {
            NEED_VALUE;
            if (!parse_double(v, &dv) || dv < 0) BAD_VALUE();
            c->opts.tol = dv;
        } else if (!strcmp(a, "--xtol")) {
            NEED_VALUE;
            if (!parse_double(v, &dv) || dv < 0) BAD_VALUE();
            c->opts.xtol = dv;
        } else if (!strcmp(a, "--max-iter")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 1 || iv > (1 << 28)) BAD_VALUE();
            c->opts.max_iter = (int)iv;
        } else if (!strcmp(a, "--precision")) {
            NEED_VALUE;
            if (clpk_precision_parse(v, &c->precision) != CLPK_SUCCESS) BAD_VALUE();
        } else if (!strcmp(a, "--kernel")) {
            NEED_VALUE;
            c->opts.kernel = v;
        } else if (!strcmp(a, "--params")) {
            NEED_VALUE;
            c->opts.params = v;
        } else if (!strcmp(a, "--device")) {
            NEED_VALUE;
            c->device = v;
        } else if (!strcmp(a, "--out")) {
            NEED_VALUE;
            c->out = v;
        } else if (!strcmp(a, "--out-npy")) {
            NEED_VALUE;
            c->out_npy = v;
        } else if (!strcmp(a, "--out-starts")) {
            NEED_VALUE;
            c->out_starts = v;
        } else if (!strcmp(a, "--post")) {
            NEED_VALUE;
            if (!strcmp(v, "host"))
                c->device_post = 0;
            else if (!strcmp(v, "device"))
                c->device_post = 1;
            else
                BAD_VALUE();
        } else if (!strcmp(a, "--polish")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 0 || iv > 100) BAD_VALUE();
            c->polish = (int)iv;
        } else if (!strcmp(a, "--max-pairs")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 1 || iv > 4096) BAD_VALUE();
            c->max_pairs = (int)iv;
        } else if (!strcmp(a, "--bench")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 1 || iv > 100000) BAD_VALUE();
            c->bench = (int)iv;
        } else if (c->dmri && !strcmp(a, "--voxels")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 1) BAD_VALUE();
            c->dmri_opts.voxels = iv;
        } else if (c->dmri && !strcmp(a, "--max-fibres")) {
            NEED_VALUE;
            if (!parse_int64(v, &iv) || iv < 1 || iv > 3) BAD_VALUE();
            c->dmri_opts.max_fibres = (int)iv;
        } else if (c->dmri && !strcmp(a, "--min-angle")) {
            NEED_VALUE;
            if (!parse_double(v, &dv)) BAD_VALUE();
            c->dmri_opts.min_angle_deg = dv;
        } else if (c->dmri && !strcmp(a, "--snr")) {
            NEED_VALUE;
            if (!parse_double(v, &dv)) BAD_VALUE();
            c->dmri_opts.snr = dv;
        } else if (c->dmri && !strcmp(a, "--match")) {
            NEED_VALUE;
            if (!parse_double(v, &dv) || dv <= 0) BAD_VALUE();
            c->match_deg = dv;
        } else if (c->dmri && !strcmp(a, "--residual")) {
            NEED_VALUE;
            if (!parse_double(v, &dv) || dv <= 0) BAD_VALUE();
            c->residual = dv;
        } else if (c->dmri && !strcmp(a, "--save")) {
            NEED_VALUE;
            c->save = v;
        } else {
            fprintf(stderr, "clpk-sshopm: unknown argument '%s' (see --help)\n", a);
            return 0;
        }
#undef NEED_VALUE
#undef BAD_VALUE
    }
    if (c->device_post && c->out_starts) {
        fprintf(stderr,
                "clpk-sshopm: --out-starts needs --post host (the device path keeps the starts on the device)\n");
        return 0;
    }
    if (c->opts.shift == CLPK_SSHOPM_SHIFT_FIXED && c->opts.alpha < 0 && !c->find_given)
        c->opts.find = CLPK_SSHOPM_FIND_MIN;
    if (c->dmri) {
        c->dim = 3;
        c->order = c->dmri_opts.order;
        return 1;
    }
    if (!c->tensors_path == !c->random) {
        fprintf(stderr, "clpk-sshopm: give exactly one of --tensors FILE or --random T (see --help)\n");
        return 0;
    }
    if (!c->order || !c->dim) {
        fprintf(stderr, "clpk-sshopm: --order and --dim are required\n");
        return 0;
    }
    return 1;
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
        for (int d = 1; d <= c->order; ++d) ok = ok && arr.shape[d] == c->dim ? 2 : 0;
        *count = arr.shape[0];
    }
    if (!ok) {
        fprintf(stderr,
                "clpk-sshopm: %s: shape does not fit order %d, dimension %d: want (T, %d) unique entries or (T%s) "
                "dense\n",
                c->tensors_path, c->order, c->dim, U, c->order == 4 ? ", n, n, n, n" : ", n, ..., n");
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
    char path[1100];
    clpk_error err = {0};
    const int64_t per = (int64_t)raw->directions * raw->starts;
    int64_t shape[3] = {raw->n_tensors, per, raw->dim};
    snprintf(path, sizeof path, "%s_lambda.npy", prefix);
    int ok = clpk_npy_write_raw(path, CLPK_DTYPE_F64, 2, shape, raw->lambda, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s_x.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_F64, 3, shape, raw->x, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s_info.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_I32, 2, shape, raw->info, &err) == CLPK_SUCCESS;
    if (!ok) fprintf(stderr, "clpk-sshopm: %s\n", err.message);
    return ok;
}

/* The distinct pairs as padded arrays (P = most pairs of any tensor). */
static int write_pairs(const char *prefix, const clpk_sshopm_result *r) {
    int P = 1;
    for (int64_t t = 0; t < r->n_tensors; ++t) P = r->tensors[t].count > P ? r->tensors[t].count : P;
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
            for (int i = 0; i < n; ++i) x[e * n + i] = have ? p->x[i] : NAN;
            ty[e] = have ? (int32_t)p->type : 0;
            hi[e] = have ? p->hits : 0;
        }
    char path[1100];
    clpk_error err = {0};
    int64_t shape[3] = {r->n_tensors, P, n};
    snprintf(path, sizeof path, "%s_lambda.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_F64, 2, shape, l, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s_x.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_F64, 3, shape, x, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s_type.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_I32, 2, shape, ty, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s_hits.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_I32, 2, shape, hi, &err) == CLPK_SUCCESS;
    if (!ok) fprintf(stderr, "clpk-sshopm: %s\n", err.message[0] ? err.message : "out of memory writing .npy");
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
    for (int64_t k = 0; ok && k < T * V; ++k) iterations += CLPK_SSHOPM_INFO_ITERATIONS(info[k]);
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
            for (int j = 0; j < r->dim; ++j) printf("%s%+.6f", j ? ", " : "", p->x[j]);
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
    char path[1100];
    clpk_error err = {0};
    int64_t s1[2] = {f->voxels, f->unique}, s2[3] = {f->voxels, 3, 3}, s3[1] = {f->voxels};
    snprintf(path, sizeof path, "%s_tensors.npy", prefix);
    int ok = clpk_npy_write_raw(path, CLPK_DTYPE_F64, 2, s1, f->tensors, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s_dirs.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_F64, 3, s2, f->dirs, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s_nfibres.npy", prefix);
    ok = ok && clpk_npy_write_raw(path, CLPK_DTYPE_I32, 1, s3, f->n_fibres, &err) == CLPK_SUCCESS;
    if (!ok) fprintf(stderr, "clpk-sshopm: %s\n", err.message);
    return ok;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "dmri")) return dmri_main(argc - 1, argv + 1);
    cli c;
    if (!parse_args(argc, argv, &c)) return 2;
    double *tensors = NULL;
    int64_t T = 0;
    clpk_sshopm_dmri_field field = {0};
    clpk_error err = {0};
    if (c.dmri) {
        double t0 = core_wall_seconds();
        if (clpk_sshopm_dmri_synth(&c.dmri_opts, &field, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", err.message);
            return 2;
        }
        tensors = field.tensors;
        T = field.voxels;
        printf("dmri-synth: %lld voxels, order %d, 1..%d fibres at >= %g deg, SNR %g (%.2f s)\n", (long long)T,
               field.order, c.dmri_opts.max_fibres, c.dmri_opts.min_angle_deg, c.dmri_opts.snr,
               core_wall_seconds() - t0);
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
        double t0 = core_wall_seconds();
        if (clpk_sshopm_solve_device(plan, tensors, T, NULL, c.max_pairs, &result) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", clpk_last_error(ctx));
            rc = 1;
        } else {
            int64_t dropped = 0;
            for (int64_t t = 0; t < T; ++t) dropped += result.tensors[t].dropped;
            printf("solve: %.3f s end to end (upload, iterations, de-duplication and classification on the device, "
                   "download of the distinct pairs)\n",
                   core_wall_seconds() - t0);
            if (dropped)
                printf("warning: %lld converged starts found all --max-pairs slots of their tensor taken\n",
                       (long long)dropped);
            print_summary(&result, c.quiet || c.dmri);
        }
    } else if (!rc) {
        double t0 = core_wall_seconds();
        if (clpk_sshopm_run_host(plan, tensors, T, &raw) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", clpk_last_error(ctx));
            rc = 1;
        }
        double t1 = core_wall_seconds();
        if (!rc && clpk_sshopm_postprocess(tensors, &raw, NULL, &result, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", err.message);
            rc = 1;
        }
        if (!rc) {
            printf("solve: %.3f s on the device (upload, iterations, download), %.3f s post-processing on the host\n",
                   t1 - t0, core_wall_seconds() - t1);
            print_summary(&result, c.quiet || c.dmri);
        }
    }
    if (!rc && c.polish) {
        double t0 = core_wall_seconds();
        if (clpk_sshopm_polish(tensors, &result, c.polish, 0, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", err.message);
            rc = 1;
        } else {
            printf("polish: %d Newton steps at most per pair in double, %.3f s\n", c.polish, core_wall_seconds() - t0);
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
        double t0 = core_wall_seconds();
        if (clpk_sshopm_dmri_peaks(&result, 0.3, &peaks, &err) != CLPK_SUCCESS ||
            clpk_sshopm_dmri_evaluate(&field, &peaks, c.match_deg, &sp, NULL, &err) != CLPK_SUCCESS ||
            clpk_sshopm_dmri_refine(tensors, &result, c.residual, &refined, &err) != CLPK_SUCCESS ||
            clpk_sshopm_dmri_evaluate(&field, &refined, c.match_deg, &sr, NULL, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-sshopm: %s\n", err.message);
            rc = 1;
        } else {
            printf("fibres within %g deg (peaks: local maxima with lambda >= 0.3 max; refined: low-rank fit from "
                   "them, %.2f s):\n",
                   c.match_deg, core_wall_seconds() - t0);
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
