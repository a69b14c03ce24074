/* FFT path of the cross-correlation family (lib/xcorr/xcorr_fft.c, VkFFT) against a double-precision CPU reference: every
 * pattern, odd and non-square sizes, centred search windows, pow2/smooth padding, chunked batches, f32 and f64,
 * element offsets, outputs poisoned with NaN (and guard elements around them that must stay untouched), events, bad
 * parameters (read through the family's table). Each distinct padded size and batch compiles VkFFT kernels once (~0.5-1.5 s on PoCL), so the cases are
 * few and small. */
#include "check.h"
#include "xcorr_csv.h"
#include "xcorr_fft.h"

#include <dirent.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The FFT path's configuration for "k=v" parameters, read through the family's table (lib/xcorr/xcorr_params.c) as
 * plan creation does; fails naming a parameter the table refuses. */
static clpk_status fft_config(clpk_context *ctx, const char *text, xcorr_config *config) {
    core_params p;
    core_param_defaults(&xcorr_param_table, clpk_context_device_info(ctx)->kind, &p);
    core_params_set(&p, "algorithm", "fft");
    clpk_error err = {0};
    memset(config, 0, sizeof *config);
    clpk_status st = text ? core_params_parse(&p, text, &err) : CLPK_SUCCESS;
    if (st == CLPK_SUCCESS) st = core_param_read(&xcorr_param_table, &p, config, &err);
    return st == CLPK_SUCCESS ? st : core_fail_from(ctx, &err);
}

/* out[k, l] = sum_ij left[i + k - (R-1), j + l - (C-1)] * right[i, j] in the centred window of the shape. */
static void reference_one(const clpk_xcorr_shape *s, const double *left, const double *right, int orows, int ocols,
                          double *out) {
    const int R = s->rows, C = s->cols, hr = (orows - 1) / 2, hc = (ocols - 1) / 2;
    for (int k = 0; k < orows; ++k)
        for (int l = 0; l < ocols; ++l) {
            const int sr = k - hr, sc = l - hc;
            double sum = 0.0;
            for (int i = 0; i < R; ++i) {
                const int li = i + sr;
                if (li < 0 || li >= R) continue;
                for (int j = 0; j < C; ++j) {
                    const int lj = j + sc;
                    if (lj < 0 || lj >= C) continue;
                    sum += left[(size_t)li * C + lj] * right[(size_t)i * C + j];
                }
            }
            out[(size_t)k * ocols + l] = sum;
        }
}

static size_t output_count(const clpk_xcorr_shape *s) {
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_ONE: return (size_t)s->n_left;
    case CLPK_XCORR_N_TO_M: return (size_t)s->n_left * (size_t)s->n_right;
    default: return (size_t)s->n_right;
    }
}

static void pair_of(const clpk_xcorr_shape *s, size_t o, size_t *l, size_t *r) {
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_ONE: *l = o, *r = o; break;
    case CLPK_XCORR_ONE_TO_MANY: *l = 0, *r = o; break;
    case CLPK_XCORR_N_TO_MN: *l = o % (size_t)s->n_left, *r = o; break;
    case CLPK_XCORR_N_TO_M: *l = o / (size_t)s->n_right, *r = o % (size_t)s->n_right; break;
    }
}

static const char *pattern_label(clpk_xcorr_pattern p) {
    static const char *const names[] = {"?", "one-to-one", "one-to-many", "n-to-mn", "n-to-m"};
    return (int)p >= 1 && (int)p <= 4 ? names[p] : names[0];
}

typedef struct fft_case {
    clpk_xcorr_pattern pattern;
    int rows, cols, n_left, n_right, search_rows, search_cols;
    clpk_precision precision;
    const char *params;
    size_t offset; /* element offset of left, right and out inside their buffers (guarded on both sides) */
} fft_case;

static void put(void *dst, size_t i, double v, clpk_precision p) {
    if (p == CLPK_PRECISION_F64) ((double *)dst)[i] = v;
    else ((float *)dst)[i] = (float)v;
}
static double get(const void *src, size_t i, clpk_precision p) {
    return p == CLPK_PRECISION_F64 ? ((const double *)src)[i] : (double)((const float *)src)[i];
}

static cl_mem upload(clpk_context *ctx, const void *host, size_t bytes) {
    cl_int rc = CL_SUCCESS;
    cl_mem m = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                              (void *)host, &rc);
    return rc == CL_SUCCESS ? m : NULL;
}

static void run_case(clpk_context *ctx, const fft_case *c, uint64_t *rng) {
    const clpk_xcorr_shape s = {c->pattern, c->rows, c->cols, c->n_left, c->n_right, c->search_rows, c->search_cols,
                                c->precision};
    const int orows = s.search_rows ? s.search_rows : 2 * s.rows - 1,
              ocols = s.search_cols ? s.search_cols : 2 * s.cols - 1;
    const size_t msize = (size_t)s.rows * s.cols, osize = (size_t)orows * ocols, n_out = output_count(&s);
    const size_t es = clpk_precision_size(c->precision), guard = 7, off = c->offset;
    const size_t nl = (size_t)s.n_left * msize, nr = (size_t)s.n_right * msize, no = n_out * osize;
    char label[160];
    snprintf(label, sizeof label, "%s %dx%d %d,%d search %dx%d %s [%s] offset %zu", pattern_label(s.pattern),
             s.rows, s.cols, s.n_left, s.n_right, s.search_rows, s.search_cols, clpk_precision_name(s.precision),
             c->params ? c->params : "", off);

    double *left = malloc(nl * sizeof *left), *right = malloc(nr * sizeof *right), *ref = malloc(no * sizeof *ref);
    double *got = malloc(no * sizeof *got);
    unsigned char *hl = malloc((off + nl) * es), *hr = malloc((off + nr) * es), *ho = malloc((off + no + guard) * es);
    if (!CHECK(left && right && ref && got && hl && hr && ho, "%s: out of memory", label)) goto done_host;
    for (size_t i = 0; i < nl; ++i) left[i] = 2.0 * check_rand_double(rng) - 1.0;
    for (size_t i = 0; i < nr; ++i) right[i] = 2.0 * check_rand_double(rng) - 1.0;
    for (size_t i = 0; i < off; ++i) put(hl, i, 1e30, c->precision), put(hr, i, 1e30, c->precision);
    for (size_t i = 0; i < nl; ++i) put(hl, off + i, left[i], c->precision);
    for (size_t i = 0; i < nr; ++i) put(hr, off + i, right[i], c->precision);
    for (size_t i = 0; i < off + no + guard; ++i) put(ho, i, NAN, c->precision);
    for (size_t o = 0; o < n_out; ++o) {
        size_t l = 0, r = 0;
        pair_of(&s, o, &l, &r);
        reference_one(&s, left + l * msize, right + r * msize, orows, ocols, ref + o * osize);
    }

    xcorr_config config;
    xcorr_fft *fft = NULL;
    double t0 = core_wall_seconds();
    clpk_status st = fft_config(ctx, c->params, &config);
    if (st == CLPK_SUCCESS) st = xcorr_fft_create(ctx, &s, &config, &fft);
    double t_create = core_wall_seconds() - t0;
    if (!CHECK(st == CLPK_SUCCESS, "%s: create: %s: %s", label, clpk_status_string(st), clpk_last_error(ctx)))
        goto done_host;
    cl_mem dl = upload(ctx, hl, (off + nl) * es), dr = upload(ctx, hr, (off + nr) * es);
    cl_mem dout = upload(ctx, ho, (off + no + guard) * es);
    if (!CHECK(dl && dr && dout, "%s: buffers", label)) goto done_dev;
    /* twice: the plan is reusable and the second run must not depend on leftovers of the first */
    for (int rep = 0; rep < 2; ++rep) {
        cl_event marker = NULL, done = NULL;
        cl_int rc = clEnqueueMarkerWithWaitList(clpk_context_queue(ctx), 0, NULL, &marker);
        t0 = core_wall_seconds();
        st = xcorr_fft_execute(fft, dl, off, dr, off, dout, off, rc == CL_SUCCESS ? 1 : 0, &marker, &done);
        CHECK(st == CLPK_SUCCESS, "%s: execute: %s: %s", label, clpk_status_string(st), clpk_last_error(ctx));
        CHECK(done != NULL, "%s: no completion event", label);
        if (done) {
            CHECK(clWaitForEvents(1, &done) == CL_SUCCESS, "%s: waiting for the event", label);
            clReleaseEvent(done);
        }
        if (marker) clReleaseEvent(marker);
        double t_exec = core_wall_seconds() - t0;
        CHECK(clEnqueueReadBuffer(clpk_context_queue(ctx), dout, CL_TRUE, 0, (off + no + guard) * es, ho, 0, NULL,
                                  NULL) == CL_SUCCESS,
              "%s: read back", label);
        for (size_t i = 0; i < no; ++i) got[i] = get(ho, off + i, c->precision);
        const double err = check_rel_error(ref, got, no);
        const double tol = c->precision == CLPK_PRECISION_F64 ? 1e-12 : 2e-5;
        CHECK(err <= tol, "%s: relative error %.3g > %.3g", label, err, tol);
        size_t touched = 0;
        for (size_t i = 0; i < off; ++i) touched += !isnan(get(ho, i, c->precision));
        for (size_t i = 0; i < guard; ++i) touched += !isnan(get(ho, off + no + i, c->precision));
        CHECK(touched == 0, "%s: %zu guard elements around the output were written", label, touched);
        if (rep == 0) printf("  %-70s err %.2e  create %.2f s  run %.3f s\n", label, err, t_create, t_exec);
    }
done_dev:
    if (dl) clReleaseMemObject(dl);
    if (dr) clReleaseMemObject(dr);
    if (dout) clReleaseMemObject(dout);
    xcorr_fft_destroy(fft);
done_host:
    free(left), free(right), free(ref), free(got), free(hl), free(hr), free(ho);
}

/* One valid_<pattern>_R_C_NL_NR_IDL_IDR.csv of the shared data through the FFT path in f32, against the file. */
static void check_csv(clpk_context *ctx, const char *dir, const char *name) {
    char stem[256], path[1024];
    snprintf(stem, sizeof stem, "%s", name + strlen("valid_"));
    *strstr(stem, ".csv") = 0;
    int num[6];
    for (int i = 5; i >= 0; --i) {
        char *us = strrchr(stem, '_');
        if (!CHECK(us != NULL, "%s: unexpected file name", name)) return;
        num[i] = atoi(us + 1);
        *us = 0;
    }
    clpk_xcorr_shape s = {0, num[0], num[1], num[2], num[3], 0, 0, CLPK_PRECISION_F32};
    for (int p = 1; p <= 4; ++p)
        if (!strcmp(stem, p == 1 ? "one_to_one" : p == 2 ? "one_to_many" : p == 3 ? "n_to_mn" : "n_to_m"))
            s.pattern = (clpk_xcorr_pattern)p;
    if (!CHECK(s.pattern != 0, "%s: unknown pattern %s", name, stem)) return;
    xcorr_csv left = {0}, right = {0}, valid = {0};
    clpk_error err = {0, ""};
    snprintf(path, sizeof path, "%s/ina_%d_%d_%d_%d.csv", dir, num[0], num[1], num[2], num[4]);
    clpk_status st = xcorr_csv_read(path, &left, &err);
    /* as in test_xcorr_data.c: where the name gives the same input twice, the right one is the next id */
    const int right_id = num[2] == num[3] && num[4] == num[5] ? num[5] + 1 : num[5];
    snprintf(path, sizeof path, "%s/ina_%d_%d_%d_%d.csv", dir, num[0], num[1], num[3], right_id);
    if (st == CLPK_SUCCESS) st = xcorr_csv_read(path, &right, &err);
    snprintf(path, sizeof path, "%s/%.200s", dir, name);
    if (st == CLPK_SUCCESS) st = xcorr_csv_read(path, &valid, &err);
    const size_t n_out = output_count(&s), osize = (size_t)(2 * s.rows - 1) * (2 * s.cols - 1), no = n_out * osize;
    xcorr_fft *fft = NULL;
    cl_mem dl = NULL, dr = NULL, dout = NULL;
    float *buf = NULL;
    double *got = NULL;
    if (!CHECK(st == CLPK_SUCCESS, "%s: %s", name, err.message) ||
        !CHECK(left.count == s.n_left && right.count == s.n_right && (size_t)valid.count == n_out,
               "%s: file sizes disagree with the name", name))
        goto done;
    const size_t nl = (size_t)left.count * left.rows * left.cols, nr = (size_t)right.count * right.rows * right.cols;
    buf = malloc((nl + nr + no) * sizeof *buf);
    got = malloc(no * sizeof *got);
    if (!CHECK(buf && got, "out of memory")) goto done;
    for (size_t i = 0; i < nl; ++i) buf[i] = (float)left.data[i];
    for (size_t i = 0; i < nr; ++i) buf[nl + i] = (float)right.data[i];
    for (size_t i = 0; i < no; ++i) buf[nl + nr + i] = NAN;
    dl = upload(ctx, buf, nl * sizeof *buf), dr = upload(ctx, buf + nl, nr * sizeof *buf);
    dout = upload(ctx, buf + nl + nr, no * sizeof *buf);
    st = xcorr_fft_create(ctx, &s, NULL, &fft);
    if (CHECK(st == CLPK_SUCCESS && dl && dr && dout, "%s: create: %s", name, clpk_last_error(ctx))) {
        st = xcorr_fft_execute(fft, dl, 0, dr, 0, dout, 0, 0, NULL, NULL);
        if (st == CLPK_SUCCESS)
            st = clEnqueueReadBuffer(clpk_context_queue(ctx), dout, CL_TRUE, 0, no * sizeof *buf, buf, 0, NULL, NULL)
                     ? CLPK_ERROR_OPENCL
                     : CLPK_SUCCESS;
        if (CHECK(st == CLPK_SUCCESS, "%s: run: %s", name, clpk_last_error(ctx))) {
            for (size_t i = 0; i < no; ++i) got[i] = buf[i];
            const double e = check_rel_error(valid.data, got, no);
            CHECK(e <= 1e-5, "%s: relative error %.3g against the file", name, e);
            printf("  %-44s err %.2e\n", name, e);
        }
    }
done:
    xcorr_fft_destroy(fft);
    if (dl) clReleaseMemObject(dl);
    if (dr) clReleaseMemObject(dr);
    if (dout) clReleaseMemObject(dout);
    free(buf), free(got);
    xcorr_csv_free(&left), xcorr_csv_free(&right), xcorr_csv_free(&valid);
}

static void shared_data(clpk_context *ctx) {
    /* $CLPK_SHARED_DATA_DIR first (where the data travels to another machine), else the checkout's */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/xcorr",
             getenv("CLPK_SHARED_DATA_DIR") ? getenv("CLPK_SHARED_DATA_DIR") : CLPK_SHARED_DATA_DIR);
    DIR *d = opendir(dir);
    if (!d) {
        printf("SKIP shared reference data: %s is absent\n", dir);
        return;
    }
    char names[64][128];
    int count = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && count < 64)
        if (!strncmp(ent->d_name, "valid_", 6) && strstr(ent->d_name, ".csv") && strlen(ent->d_name) < sizeof names[0])
            memcpy(names[count++], ent->d_name, strlen(ent->d_name) + 1); /* length checked above */
    closedir(d);
    CHECK(count >= 4, "only %d reference files in %s", count, dir);
    for (int i = 0; i < count; ++i) check_csv(ctx, dir, names[i]);
}

static void bad_inputs(clpk_context *ctx) {
    const clpk_xcorr_shape good = {CLPK_XCORR_ONE_TO_MANY, 6, 5, 1, 3, 0, 0, CLPK_PRECISION_F32};
    xcorr_fft *fft = (xcorr_fft *)&good; /* must be reset to NULL on failure */
    clpk_xcorr_shape s = good;
    s.n_left = 2;
    CHECK(xcorr_fft_create(ctx, &s, NULL, &fft) == CLPK_ERROR_INVALID_ARGUMENT && fft == NULL,
          "one-to-many with 2 lefts accepted");
    s = good, s.search_rows = 4;
    CHECK(xcorr_fft_create(ctx, &s, NULL, &fft) == CLPK_ERROR_INVALID_ARGUMENT, "even search window accepted");
    s = good, s.search_cols = 11;
    CHECK(xcorr_fft_create(ctx, &s, NULL, &fft) == CLPK_ERROR_INVALID_ARGUMENT, "search window > 2C-1 accepted");
    s = good, s.rows = 0;
    CHECK(xcorr_fft_create(ctx, &s, NULL, &fft) == CLPK_ERROR_INVALID_ARGUMENT, "empty matrices accepted");
    s = good, s.pattern = CLPK_XCORR_N_TO_MN, s.n_left = 2;
    CHECK(xcorr_fft_create(ctx, &s, NULL, &fft) == CLPK_ERROR_INVALID_ARGUMENT, "n-to-mn with 3 %% 2 accepted");
    /* the table refuses bad values, naming them; fft_batch=0 is the default (by memory) */
    xcorr_config config;
    CHECK(fft_config(ctx, "fft_pad=prime", &config) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(clpk_last_error(ctx), "fft_pad=prime"),
          "fft_pad=prime accepted or not named: %s", clpk_last_error(ctx));
    CHECK(fft_config(ctx, "fft_batch=3x", &config) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(clpk_last_error(ctx), "fft_batch=3x"),
          "fft_batch=3x accepted or not named: %s", clpk_last_error(ctx));
    CHECK(fft_config(ctx, "fft_batch=-1", &config) == CLPK_ERROR_INVALID_ARGUMENT, "fft_batch=-1 accepted");
    if (CHECK(fft_config(ctx, "fft_batch=0", &config) == CLPK_SUCCESS && config.fft_batch == 0, "fft_batch=0: %s",
              clpk_last_error(ctx))) {
        CHECK(xcorr_fft_create(ctx, &good, &config, &fft) == CLPK_SUCCESS, "fft_batch=0: %s", clpk_last_error(ctx));
        xcorr_fft_destroy(fft);
        fft = NULL;
    }
    CHECK(xcorr_fft_create(ctx, NULL, NULL, &fft) == CLPK_ERROR_INVALID_ARGUMENT, "NULL shape accepted");
    CHECK(xcorr_fft_execute(NULL, NULL, 0, NULL, 0, NULL, 0, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
          "NULL plan accepted");
    xcorr_fft_destroy(NULL);
    /* an adopted out-of-order queue: refused (the steps and VkFFT's passes rely on in-order execution) */
    cl_command_queue_properties props = 0;
    clGetDeviceInfo(clpk_context_device(ctx), CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        cl_int rc = CL_SUCCESS;
        cl_command_queue q = clCreateCommandQueue(clpk_context_cl_context(ctx), clpk_context_device(ctx),
                                                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &rc);
        clpk_context *octx = NULL;
        if (CHECK(rc == CL_SUCCESS && clpk_context_create_from_queue(&octx, q) == CLPK_SUCCESS, "out-of-order queue")) {
            CHECK(xcorr_fft_create(octx, &good, NULL, &fft) == CLPK_ERROR_UNSUPPORTED &&
                      strstr(clpk_last_error(octx), "in-order"),
                  "out-of-order queue accepted or unclear: %s", clpk_last_error(octx));
        }
        clpk_context_destroy(octx);
        if (q) clReleaseCommandQueue(q);
    } else {
        printf("SKIP out-of-order queue refusal: the device has no out-of-order queues\n");
    }
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no OpenCL device: %s", clpk_status_string(st))) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s / %s\n", dev->platform_name, dev->name);

    /* the shape of the first case, so the probe's kernels are reused (program caches) */
    const clpk_xcorr_shape probe = {CLPK_XCORR_ONE_TO_ONE, 7, 5, 3, 3, 0, 0, CLPK_PRECISION_F32};
    xcorr_fft *fft = NULL;
    st = xcorr_fft_create(ctx, &probe, NULL, &fft);
    xcorr_fft_destroy(fft);
    if (st == CLPK_ERROR_UNSUPPORTED) {
        printf("SKIP: %s\n", clpk_last_error(ctx));
        CHECK(strstr(clpk_last_error(ctx), "VkFFT") != NULL, "unsupported without naming VkFFT");
        clpk_context_destroy(ctx);
        return check_summary();
    }

    const fft_case cases[] = {
        /* every pattern, odd / non-square sizes, full output */
        {CLPK_XCORR_ONE_TO_ONE, 7, 5, 3, 3, 0, 0, CLPK_PRECISION_F32, NULL, 0},
        {CLPK_XCORR_ONE_TO_MANY, 9, 13, 1, 5, 0, 0, CLPK_PRECISION_F32, NULL, 3},
        {CLPK_XCORR_N_TO_MN, 6, 11, 2, 6, 0, 0, CLPK_PRECISION_F32, "fft_pad=pow2", 0},
        {CLPK_XCORR_N_TO_M, 5, 8, 3, 4, 0, 0, CLPK_PRECISION_F32, NULL, 1},
        /* centred search windows (smaller padded sizes), chunked batches with a remainder */
        {CLPK_XCORR_ONE_TO_MANY, 16, 12, 1, 7, 5, 9, CLPK_PRECISION_F32, "fft_batch=3", 0},
        {CLPK_XCORR_N_TO_M, 5, 8, 3, 4, 3, 15, CLPK_PRECISION_F32, "fft_batch=4", 0},
        {CLPK_XCORR_ONE_TO_ONE, 7, 5, 5, 5, 1, 1, CLPK_PRECISION_F32, "fft_batch=2,fft_pad=pow2", 2},
        {CLPK_XCORR_N_TO_MN, 33, 20, 3, 9, 13, 39, CLPK_PRECISION_F32, "fft_batch=4", 0},
        /* degenerate axes: one row (padded to 2), one column (padded to 2) */
        {CLPK_XCORR_N_TO_M, 1, 7, 2, 3, 0, 0, CLPK_PRECISION_F32, NULL, 0},
        {CLPK_XCORR_ONE_TO_MANY, 7, 1, 1, 5, 0, 0, CLPK_PRECISION_F32, NULL, 0},
        /* (64x64 sizes come with the shared reference files below) */
    };
    const fft_case cases64[] = {
        {CLPK_XCORR_N_TO_M, 7, 6, 2, 3, 0, 0, CLPK_PRECISION_F64, NULL, 5},
        {CLPK_XCORR_N_TO_MN, 10, 9, 2, 4, 7, 5, CLPK_PRECISION_F64, "fft_batch=3", 0},
        {CLPK_XCORR_ONE_TO_ONE, 12, 17, 2, 2, 0, 0, CLPK_PRECISION_F64, "fft_pad=pow2", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) run_case(ctx, &cases[i], &rng);
    if (dev->has_fp64) {
        for (size_t i = 0; i < sizeof cases64 / sizeof cases64[0]; ++i) run_case(ctx, &cases64[i], &rng);
    } else {
        const clpk_xcorr_shape s = {CLPK_XCORR_ONE_TO_ONE, 4, 4, 1, 1, 0, 0, CLPK_PRECISION_F64};
        CHECK(xcorr_fft_create(ctx, &s, NULL, &fft) == CLPK_ERROR_UNSUPPORTED, "f64 without fp64 accepted");
    }
    shared_data(ctx);
    bad_inputs(ctx);
    clpk_context_destroy(ctx);
    return check_summary();
}
