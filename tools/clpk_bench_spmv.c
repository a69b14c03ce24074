/* clpk-bench-spmv: SpMV benchmark over the classes of seed 001's Table III (generated, sized by --scale) and real
 * Matrix Market files: clpk's CSR baseline, its automatic choice (profile / defaults) and its online quick tune,
 * each checked against a double CPU reference and timed with profiling events, shown against the device's copy
 * bandwidth measured in the same run; clpk-oracle, the per-matrix best of an exhaustive sub-space of explicit plans
 * (tools/cli_spmv_oracle.h), is the yardstick of the automatic choice. Writes the matrices as CSR .npy directories for
 * the cuSPARSE peer (bench/peers/cusparse_spmv.py) and the records as JSON; bench/spmv.sh runs everything. */
#include "clpk.h"
#include "cli_args.h"
#include "cli_clock.h"
#include "cli_spmv_oracle.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const tool = "clpk-bench-spmv";

typedef struct bench_case {
    char label[96];
    char spec[160]; /* generator spec, or empty for a file */
    char path[1024];
} bench_case;

#define MAX_CASES 128

static int add_generated(bench_case *cs, int n, const char *label, double scale) {
    bench_case c = {{0}, {0}, {0}};
    snprintf(c.label, sizeof c.label, "%s", label);
    double s = scale;
    long long v;
    if (!strcmp(label, "fem3d")) {
        v = llround(55.0 * cbrt(s));
        snprintf(c.spec, sizeof c.spec, "fem3d:%lld", v < 2 ? 2 : v);
    } else if (!strcmp(label, "dense")) {
        v = llround(4000.0 * sqrt(s));
        snprintf(c.spec, sizeof c.spec, "dense:%lld", v < 16 ? 16 : v);
    } else if (!strcmp(label, "lp")) {
        long long rows = llround(4000.0 * s), cols = llround(1100000.0 * s), k;
        if (rows < 40) rows = 40;
        if (cols < 4000) cols = 4000;
        k = cols / 4 < 2800 ? cols / 4 : 2800;
        snprintf(c.spec, sizeof c.spec, "random:%lld:%lld:%lld", rows, cols, k);
    } else if (!strcmp(label, "random16")) {
        v = llround(2000000.0 * s);
        if (v < 500) v = 500;
        snprintf(c.spec, sizeof c.spec, "random:%lld:%lld:16", v, v);
    } else {
        static const struct {
            const char *name;
            double rows;
        } rows_at_1[] = {{"protein", 200000},   {"circuit", 2500000},  {"epidem", 4000000},
                         {"webgraph", 3000000}, {"shortrow", 5000000}, {"qchem", 250000}};
        size_t i = 0;
        while (i < sizeof rows_at_1 / sizeof rows_at_1[0] && strcmp(rows_at_1[i].name, label))
            ++i;
        if (i == sizeof rows_at_1 / sizeof rows_at_1[0]) return -1;
        v = llround(rows_at_1[i].rows * s);
        snprintf(c.spec, sizeof c.spec, "%s:%lld", label, v < 200 ? 200 : v);
    }
    if (n < MAX_CASES) cs[n++] = c;
    return n;
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static int add_files(bench_case *cs, int n, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "clpk-bench-spmv: %s: %s (skipped)\n", path, strerror(errno));
        return n;
    }
    char names[64][256];
    int k = 0;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) && k < 64) {
            size_t len = strlen(e->d_name);
            if (len > 4 && len < 256 && !strcmp(e->d_name + len - 4, ".mtx")) memcpy(names[k++], e->d_name, len + 1);
        }
        if (d) closedir(d);
        qsort(names, (size_t)k, sizeof names[0], by_name);
    }
    for (int i = 0; i < (S_ISDIR(st.st_mode) ? k : 1) && n < MAX_CASES; ++i) {
        bench_case c = {{0}, {0}, {0}};
        if (S_ISDIR(st.st_mode))
            snprintf(c.path, sizeof c.path, "%.760s/%.255s", path, names[i]);
        else
            snprintf(c.path, sizeof c.path, "%s", path);
        FILE *f = fopen(c.path, "r");
        char header[256] = "";
        if (f && !fgets(header, sizeof header, f)) header[0] = 0;
        if (f) fclose(f);
        if (strstr(header, "complex") || strstr(header, "hermitian")) {
            printf("skip %s: complex matrix\n", c.path);
            continue;
        }
        const char *base = strrchr(c.path, '/');
        base = base ? base + 1 : c.path;
        snprintf(c.label, sizeof c.label, "%.*s", (int)(strlen(base) - (strstr(base, ".mtx") ? 4 : 0)), base);
        cs[n++] = c;
    }
    return n;
}

static int write_npy_dir(const char *root, const char *label, const clpk_csr *A) {
    char dir[1200], path[1400];
    snprintf(dir, sizeof dir, "%s/%.95s", root, label);
    mkdir(root, 0777);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "clpk-bench-spmv: mkdir %s: %s\n", dir, strerror(errno));
        return -1;
    }
    clpk_error err = {0};
    int64_t rp_shape = (int64_t)A->rows + 1, nnz_shape = A->nnz, two = 2;
    int64_t shape[2] = {A->rows, A->cols};
    int ok = 1;
    /* int32 row pointers while they fit (what the peer's cuSPARSE wants), else int64 */
    int32_t *rp32 = A->nnz <= INT32_MAX ? malloc((size_t)rp_shape * sizeof *rp32) : NULL;
    if (rp32)
        for (int64_t i = 0; i < rp_shape; ++i)
            rp32[i] = (int32_t)A->row_ptr[i];
    snprintf(path, sizeof path, "%s/csr_row_ptr.npy", dir);
    ok &= clpk_npy_write_raw(path, rp32 ? CLPK_DTYPE_I32 : CLPK_DTYPE_I64, 1, &rp_shape,
                             rp32 ? (const void *)rp32 : (const void *)A->row_ptr, &err) == CLPK_SUCCESS;
    free(rp32);
    snprintf(path, sizeof path, "%s/csr_col.npy", dir);
    ok &= ok && clpk_npy_write_raw(path, CLPK_DTYPE_I32, 1, &nnz_shape, A->col, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s/csr_val.npy", dir);
    ok &= ok && clpk_npy_write_raw(path, CLPK_DTYPE_F64, 1, &nnz_shape, A->val, &err) == CLPK_SUCCESS;
    snprintf(path, sizeof path, "%s/shape.npy", dir);
    ok &= ok && clpk_npy_write_raw(path, CLPK_DTYPE_I64, 1, &two, shape, &err) == CLPK_SUCCESS;
    if (!ok) fprintf(stderr, "clpk-bench-spmv: writing %s: %s\n", dir, err.message);
    return ok ? 0 : -1;
}

/* Max over rows of |y - ref| relative to sum_j |a_ij x_j| (0 rows: 0); NaN gives infinity. */
static double scaled_error(const clpk_csr *A, const double *ref, const double *scale, const double *y) {
    double e = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        double d = fabs(y[r] - ref[r]);
        if (isnan(d)) return INFINITY;
        double rel = scale[r] > 0 ? d / scale[r] : d;
        if (rel > e) e = rel;
    }
    return e;
}

static void json_text(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; ++s)
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s >= 32)
            fputc(*s, f);
    fputc('"', f);
}

#define MAX_VARIANTS 32

/* --variant: a labelled plan with explicit parameters, for one precision or both (precision 0). */
typedef struct variant {
    char label[32];
    char params[480];
    int precision; /* 0 both, else CLPK_PRECISION_F32 / F64 + 1 */
} variant;

typedef struct run_opts {
    int warmup, repeats, tune_budget, oracle_max_points;
    double copy_gbps;
    double size_copy_gbps; /* the copy probe moving the case's ideal bytes (values + x + y): the attainable rate at
                            * this size, where launch, ramp-up and drain are not amortised as in the 256 MiB probe */
    const char *device;
    FILE *json;
    int records;
} run_opts;

/* One plan built, checked against the double reference and timed. */
typedef struct measurement {
    clpk_status status; /* CLPK_SUCCESS when built, checked and timed; else the first failure's */
    char message[256];  /* the failure's clpk_last_error */
    double plan_s, err;
    int correct;
    clpk_bench_stats s;
    char desc[512];
    uint64_t footprint;
    clpk_spmv_tune_report rep;
} measurement;

/* `tune`: clpk_spmv_plan_tune; else clpk_spmv_plan_create with `format` and `params`. */
static void measure(clpk_context *ctx, const run_opts *o, const clpk_csr *A, clpk_precision prec, int tune,
                    const char *format, const char *params, const double *x, const double *ref, const double *scale,
                    double *y, measurement *m) {
    memset(m, 0, sizeof *m);
    clpk_spmv_plan *plan = NULL;
    double t0 = cli_wall_seconds();
    if (tune)
        m->status = clpk_spmv_plan_tune(ctx, A, prec, o->tune_budget, &plan, &m->rep);
    else
        m->status = clpk_spmv_plan_create(ctx, A, prec, format, params, &plan);
    m->plan_s = cli_wall_seconds() - t0;
    if (m->status == CLPK_SUCCESS) {
        for (int32_t r = 0; r < A->rows; ++r)
            y[r] = NAN;
        m->status = clpk_spmv_host(plan, 1.0, x, 0.0, y);
    }
    m->err = m->status == CLPK_SUCCESS ? scaled_error(A, ref, scale, y) : INFINITY;
    m->correct = m->err <= (prec == CLPK_PRECISION_F64 ? 1e-11 : 2e-4);
    if (m->status == CLPK_SUCCESS) m->status = clpk_spmv_plan_bench(plan, o->warmup, o->repeats, &m->s);
    if (m->status != CLPK_SUCCESS) snprintf(m->message, sizeof m->message, "%s", clpk_last_error(ctx));
    clpk_spmv_plan_describe(plan, m->desc, sizeof m->desc);
    m->footprint = clpk_spmv_plan_footprint(plan);
    clpk_spmv_plan_destroy(plan);
}

static double bytes_per_nnz(const clpk_csr *A, const measurement *m) {
    return A->nnz ? (double)m->footprint / (double)A->nnz : 0;
}

static void print_row(const run_opts *o, const bench_case *c, const clpk_csr *A, clpk_precision prec, const char *impl,
                      const measurement *m) {
    double pct = o->copy_gbps > 0 ? 100.0 * m->s.gbps / o->copy_gbps : 0;
    printf("%-14s %-4s %-11s %10.4f %9.2f %9.2f %6.1f%% %7.2f  %s%s\n", c->label, clpk_precision_name(prec), impl,
           m->s.median_ms, m->s.gflops, m->s.gbps, pct, bytes_per_nnz(A, m), m->correct ? "" : "WRONG ", m->desc);
    fflush(stdout);
}

/* Writes a record's common fields, up to its params; the caller adds its own and closes with json_end. */
static void json_begin(run_opts *o, const bench_case *c, const clpk_csr *A, clpk_precision prec, const char *impl,
                       const measurement *m) {
    const clpk_bench_stats *s = &m->s;
    double pct = o->copy_gbps > 0 ? 100.0 * s->gbps / o->copy_gbps : 0;
    fprintf(o->json, "%s{\"family\": \"spmv\", \"case\": ", o->records++ ? ",\n " : "");
    json_text(o->json, c->label);
    fprintf(o->json, ", \"spec\": ");
    json_text(o->json, c->spec[0] ? c->spec : c->path);
    fprintf(o->json,
            ", \"impl\": \"%s\", \"precision\": \"%s\", \"rows\": %d, \"cols\": %d, \"nnz\": %lld, "
            "\"median_ms\": %.6g, \"min_ms\": %.6g, \"p90_ms\": %.6g, \"runs\": %d, \"gflops\": %.6g, "
            "\"gbps\": %.6g, \"bytes\": %.6g, \"format_bytes\": %llu, \"bytes_per_nnz\": %.4g, "
            "\"copy_gbps\": %.6g, \"pct_copy_bw\": %.4g, \"size_copy_gbps\": %.6g, \"pct_size_copy_bw\": %.4g, "
            "\"rel_error\": %.3g, \"correct\": %s, \"plan_s\": %.4g, \"params\": ",
            impl, clpk_precision_name(prec), (int)A->rows, (int)A->cols, (long long)A->nnz, s->median_ms, s->min_ms,
            s->p90_ms, s->runs, s->gflops, s->gbps, s->bytes, (unsigned long long)m->footprint, bytes_per_nnz(A, m),
            o->copy_gbps, pct, o->size_copy_gbps, o->size_copy_gbps > 0 ? 100.0 * s->gbps / o->size_copy_gbps : 0.0,
            m->err, m->correct ? "true" : "false", m->plan_s);
    json_text(o->json, m->desc);
}

static void json_end(run_opts *o) {
    fprintf(o->json, ", \"device\": ");
    json_text(o->json, o->device);
    fprintf(o->json, "}");
    fflush(o->json);
}

/* One implementation on one case and precision: plan, check, time, print, record. Returns 0 when correct. `params`:
 * explicit plan parameters of a --variant (NULL for the built-in implementations). The plan's description goes to
 * `desc` (may be NULL). */
static int run_impl(clpk_context *ctx, run_opts *o, const bench_case *c, const clpk_csr *A, clpk_precision prec,
                    const char *impl, const char *params, const double *x, const double *ref, const double *scale,
                    double *y, char desc[512]) {
    measurement m;
    int tuned = !strcmp(impl, "clpk-tuned");
    const char *format = !params && !strcmp(impl, "clpk-csr") ? "csr" : NULL; /* a --variant's params name theirs */
    measure(ctx, o, A, prec, tuned, format, params, x, ref, scale, y, &m);
    if (desc) snprintf(desc, 512, "%s", m.status == CLPK_SUCCESS ? m.desc : "");
    if (m.status != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-spmv: %s %s %s: %s: %s\n", c->label, clpk_precision_name(prec), impl,
                clpk_status_string(m.status), m.message);
        return 1;
    }
    print_row(o, c, A, prec, impl, &m);
    if (o->json) {
        json_begin(o, c, A, prec, impl, &m);
        if (tuned)
            fprintf(o->json,
                    ", \"tune_candidates\": %d, \"tune_rejected\": %d, \"tune_multiplies\": %d, "
                    "\"tune_default_ms\": %.6g, \"tune_chose_default\": %s",
                    m.rep.candidates, m.rep.rejected, m.rep.multiplies, m.rep.default_ms,
                    m.rep.chose_default ? "true" : "false");
        json_end(o);
    }
    return m.correct ? 0 : 1;
}

/* One point of the oracle's sweep. */
typedef struct oracle_result {
    char point[160]; /* "auto" (the automatic plan's choice, made explicit) or "<format> <params>" */
    int index;       /* in the space; -1 for auto */
    measurement m;
} oracle_result;

typedef struct ranked {
    double key;
    int index;
} ranked;

static int by_key(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index - y->index;
}

/* The space's later points (tiles after a group's first) by the best time measured so far in their group (groups
 * without a correct time last), appended to seq; returns the new length. */
static int append_later(const cli_oracle_space *space, const oracle_result *res, int measured, int *seq, int len) {
    double *best = malloc((size_t)(space->groups ? space->groups : 1) * sizeof *best);
    ranked *later = malloc((size_t)(space->count ? space->count : 1) * sizeof *later);
    if (!best || !later) {
        free(best), free(later);
        return len;
    }
    for (int g = 0; g < space->groups; ++g)
        best[g] = INFINITY;
    for (int i = 0; i < measured; ++i) {
        int k = res[i].index;
        if (k < 0 || space->points[k].group < 0 || res[i].m.status != CLPK_SUCCESS || !res[i].m.correct) continue;
        double *b = &best[space->points[k].group];
        if (res[i].m.s.median_ms < *b) *b = res[i].m.s.median_ms;
    }
    int n = 0;
    for (int k = 0; k < space->count; ++k)
        if (space->points[k].later) later[n++] = (ranked){best[space->points[k].group], k};
    qsort(later, (size_t)n, sizeof *later, by_key);
    for (int i = 0; i < n; ++i)
        seq[len++] = later[i].index;
    free(best), free(later);
    return len;
}

static const char *outcome(const measurement *m) {
    if (m->status == CLPK_ERROR_UNSUPPORTED) return "unsupported";
    if (m->status != CLPK_SUCCESS) return "error";
    return m->correct ? "ok" : "wrong";
}

/* clpk-oracle: every point of the exhaustive sub-space of cli_spmv_oracle.h (capped at --oracle-max-points, most
 * plausible first: see the measuring order below), plus the automatic plan's own choice, each checked and timed like
 * the other implementations; the record is the fastest correct point, with every point's time in "oracle_points".
 * `auto_desc`: the automatic plan's description when clpk-auto already ran on this case and precision, else "" (then a
 * plan is made for it). Returns the number of failures (wrong results, errors other than UNSUPPORTED, no correct
 * point). */
static int run_oracle(clpk_context *ctx, run_opts *o, const bench_case *c, const clpk_csr *A, clpk_precision prec,
                      const char *auto_desc, const double *x, const double *ref, const double *scale, double *y) {
    const char *pname = clpk_precision_name(prec);
    double t0 = cli_wall_seconds();
    clpk_error err = {0};
    cli_oracle_space space;
    if (cli_oracle_space_build(A, prec, &space, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-spmv: %s %s clpk-oracle: %s\n", c->label, pname, err.message);
        return 1;
    }
    /* the automatic choice joins the sweep so that the oracle is never slower than a plan clpk itself chose (its
     * parameters may lie outside the sub-space, e.g. a profile's wg or tile) */
    char auto_params[512] = "";
    snprintf(auto_params, sizeof auto_params, "%s", auto_desc ? auto_desc : "");
    if (!auto_params[0]) {
        clpk_spmv_plan *plan = NULL;
        if (clpk_spmv_plan_create(ctx, A, prec, NULL, NULL, &plan) == CLPK_SUCCESS)
            clpk_spmv_plan_describe(plan, auto_params, sizeof auto_params);
        clpk_spmv_plan_destroy(plan);
    }
    int total = space.count + (auto_params[0] != 0);
    int n = total < o->oracle_max_points ? total : o->oracle_max_points;
    oracle_result *res = calloc((size_t)(n ? n : 1), sizeof *res);
    /* the measuring order: auto, CSR, each BCCOO group's first tile (footprint order); the later tiles are appended
     * once those are measured, fastest group first */
    int *seq = malloc((size_t)(total ? total : 1) * sizeof *seq), len = 0;
    if (seq && auto_params[0]) seq[len++] = -1;
    for (int k = 0; seq && k < space.count; ++k)
        if (!space.points[k].later) seq[len++] = k;
    int first_round = len;
    if (!res || !seq) {
        free(res), free(seq);
        cli_oracle_space_free(&space);
        fprintf(stderr, "clpk-bench-spmv: out of memory\n");
        return 1;
    }
    printf("# %s %s clpk-oracle: %d of %d points (%d more BCCOO points left out: footprint > %.0fx the smallest "
           "BCCOO footprint, %.2f B/nnz; footprints counted in %.2f s); auto = %s\n",
           c->label, pname, n, total, space.pruned, CLI_ORACLE_FOOTPRINT_RATIO,
           A->nnz ? (double)space.min_bccoo_footprint / (double)A->nnz : 0.0, cli_wall_seconds() - t0,
           auto_params[0] ? auto_params : "(no automatic plan)");
    int best = -1, unsupported = 0, failed = 0, wrong = 0;
    for (int i = 0; i < n; ++i) {
        if (i == first_round) len = append_later(&space, res, i, seq, len);
        oracle_result *r = &res[i];
        int k = r->index = seq[i];
        if (k < 0) {
            /* explicit: the description names every parameter, and an explicit format applies no profile */
            char format[16] = "";
            const char *f = strstr(auto_params, "format=");
            if (f) snprintf(format, sizeof format, "%.*s", (int)strcspn(f + 7, ","), f + 7);
            snprintf(r->point, sizeof r->point, "auto");
            measure(ctx, o, A, prec, 0, format[0] ? format : NULL, auto_params, x, ref, scale, y, &r->m);
        } else {
            const cli_oracle_point *p = &space.points[k];
            snprintf(r->point, sizeof r->point, "%s %s", p->format, p->params);
            measure(ctx, o, A, prec, 0, p->format, p->params, x, ref, scale, y, &r->m);
        }
        const char *how = outcome(&r->m);
        if (r->m.status == CLPK_ERROR_UNSUPPORTED)
            ++unsupported;
        else if (r->m.status != CLPK_SUCCESS || !r->m.correct) {
            ++*(r->m.status != CLPK_SUCCESS ? &failed : &wrong);
            fprintf(stderr, "clpk-bench-spmv: %s %s clpk-oracle %s: %s%s%s\n", c->label, pname, r->point,
                    r->m.status != CLPK_SUCCESS ? clpk_status_string(r->m.status) : "WRONG",
                    r->m.status != CLPK_SUCCESS ? ": " : "", r->m.message);
        } else if (best < 0 || r->m.s.median_ms < res[best].m.s.median_ms)
            best = i;
        printf("#   %-44s %10.4f ms %7.2f B/nnz  plan %6.2f s  %s\n", r->point, r->m.s.median_ms,
               bytes_per_nnz(A, &r->m), r->m.plan_s, how);
        fflush(stdout);
    }
    double sweep_s = cli_wall_seconds() - t0;
    int measured = n - unsupported - failed - wrong;
    if (best < 0) {
        fprintf(stderr, "clpk-bench-spmv: %s %s clpk-oracle: no correct point among %d\n", c->label, pname, n);
    } else {
        print_row(o, c, A, prec, "clpk-oracle", &res[best].m);
        printf("# %s %s clpk-oracle: best %s of %d measured (%d unsupported, %d failed, %d wrong), sweep %.1f s\n",
               c->label, pname, res[best].point, measured, unsupported, failed, wrong, sweep_s);
    }
    if (o->json && best >= 0) {
        json_begin(o, c, A, prec, "clpk-oracle", &res[best].m);
        fprintf(o->json, ", \"oracle_point\": ");
        json_text(o->json, res[best].point);
        fprintf(o->json,
                ", \"oracle_best_is_auto\": %s, \"oracle_space\": %d, \"oracle_tried\": %d, \"oracle_measured\": %d, "
                "\"oracle_unsupported\": %d, \"oracle_failed\": %d, \"oracle_wrong\": %d, \"oracle_capped\": %d, "
                "\"oracle_pruned\": %d, \"oracle_footprint_ratio\": %g, \"oracle_s\": %.4g, \"oracle_points\": [",
                auto_params[0] && best == 0 ? "true" : "false", total + space.pruned, n, measured, unsupported, failed,
                wrong, total - n, space.pruned, CLI_ORACLE_FOOTPRINT_RATIO, sweep_s);
        for (int i = 0; i < n; ++i) {
            fprintf(o->json, "%s{\"point\": ", i ? ", " : "");
            json_text(o->json, res[i].point);
            fprintf(o->json, ", \"params\": ");
            json_text(o->json, res[i].m.desc);
            fprintf(o->json, ", \"outcome\": \"%s\", \"median_ms\": %.6g, \"bytes_per_nnz\": %.4g, \"plan_s\": %.4g}",
                    outcome(&res[i].m), res[i].m.s.median_ms, bytes_per_nnz(A, &res[i].m), res[i].m.plan_s);
        }
        fprintf(o->json, "]");
        json_end(o);
    }
    free(res), free(seq);
    cli_oracle_space_free(&space);
    return failed + wrong + (best < 0);
}

static const char *const all_generated[] = {"fem3d",    "dense",    "protein", "circuit", "epidem",
                                            "webgraph", "shortrow", "lp",      "qchem",   "random16"};

/* A --variant value, [f32:|f64:]LABEL=PARAMS, into *w; 0 when malformed. */
static int parse_variant(const char *v, variant *w) {
    const char *eq = strchr(v, '=');
    w->precision = 0;
    if (!strncmp(v, "f32:", 4) || !strncmp(v, "f64:", 4)) {
        w->precision = (v[1] == '3' ? CLPK_PRECISION_F32 : CLPK_PRECISION_F64) + 1;
        v += 4;
    }
    if (!eq || eq <= v || eq - v >= (ptrdiff_t)sizeof w->label || strlen(eq + 1) >= sizeof w->params) return 0;
    snprintf(w->label, sizeof w->label, "%.*s", (int)(eq - v), v);
    snprintf(w->params, sizeof w->params, "%s", eq + 1);
    return 1;
}

int main(int argc, char **argv) {
    double scale = 1.0;
    const char *cases = NULL, *npy_dir = NULL, *json_path = NULL, *dev = NULL, *precs = "f32,f64";
    const char *impls = "clpk-csr,clpk-auto,clpk-tuned";
    cli_list files = {0}, variant_args = {0}, spec_args = {0};
    int list = 0, n_var = 0;
    static variant vars[MAX_VARIANTS];
    long long seed = 1, repeats = 100, warmup = 10, tune_budget = 0, oracle_max_points = 60;
    run_opts o = {.device = ""};
    const cli_option options[] = {
        {"--scale", CLI_DOUBLE, &scale, "S",
         "multiplies the generated cases' nonzeros, 0 < S <= 64 (default 1: GPU-filling, >= 10 M each)"},
        {"--cases", CLI_STRING, &cases, "a,b,...",
         "generated cases of seed 001's Table III (default all): fem3d dense protein circuit epidem\n"
         "webgraph shortrow lp qchem random16; 'none' for no generated case"},
        {"--spec", CLI_LIST, &spec_args, "LABEL=SPEC",
         "adds a generated case from any clpk_spmv_generate spec (e.g. bcsstk16x100=replicate:100:m.mtx,\n"
         "stencil=stencil3d:160), not scaled by --scale"},
        {"--matrices", CLI_LIST, &files, "DIR|FILE.mtx",
         "adds Matrix Market files (a directory: every non-complex *.mtx in it)"},
        {"--precision", CLI_STRING, &precs, "f32,f64", "precisions (default both)"},
        {"--impls", CLI_STRING, &impls, "LIST",
         "clpk-csr, clpk-auto, clpk-tuned (default these three), clpk-oracle; 'none' runs only the --variant\n"
         "plans. clpk-oracle: the fastest correct plan of an exhaustive sub-space (CSR kernels x csr_vec; BCCOO every\n"
         "block shape within 2x the smallest BCCOO footprint x col auto|delta x tile 16|8|32; BCCOO+ slices\n"
         "2|4|8 too when wider than tall) and the automatic plan's own choice, each timed like the others"},
        {"--oracle-max-points", CLI_INT, &oracle_max_points, "N",
         "clpk-oracle measures at most N points per case and precision, the most plausible first: the\n"
         "automatic choice, CSR, each BCCOO shape at tile 16 (smallest footprint first), then the other\n"
         "tiles, fastest shape first; default 60"},
        {"--repeats", CLI_INT, &repeats, "N", "timed multiplies, median of the profiling events (default 100)"},
        {"--warmup", CLI_INT, &warmup, "N", "untimed multiplies first (default 10)"},
        {"--tune-budget", CLI_INT, &tune_budget, "N",
         "multiplies of clpk-tuned's online tune (default 0: the tune's own, 60)"},
        {"--npy-dir", CLI_STRING, &npy_dir, "DIR",
         "writes every matrix as DIR/<case>/csr_row_ptr.npy, csr_col.npy, csr_val.npy, shape.npy"},
        {"--json", CLI_STRING, &json_path, "FILE",
         "the records; also the %copy against a copy of the case's ideal bytes (values + x + y),\n"
         "the rate attainable at that size"},
        {"--device", CLI_STRING, &dev, "SEL", "device selector (default $CLPK_DEVICE or the first GPU)"},
        {"--seed", CLI_INT, &seed, "S", "of the generated matrices (default 1)"},
        {"--variant", CLI_LIST, &variant_args, "[f32:|f64:]LABEL=PARAMS",
         "adds an implementation LABEL: a plan with explicit PARAMS (as clpk-spmv --params, format=\n"
         "included), for one precision only with the f32:/f64: prefix"},
        {"--list", CLI_FLAG, &list, NULL, "prints the cases and exits"},
        {NULL, CLI_FLAG, NULL, NULL, NULL}};
    const char *synopsis =
        "[options]\n"
        "SpMV of clpk's CSR baseline, automatic choice and online quick tune on generated and Matrix Market\n"
        "matrices, each checked against a double CPU reference; GB/s counts each format's own device bytes + x + y,\n"
        "%copy is against the float4 copy bandwidth measured at the start of the run.";
    int parsed = cli_parse(tool, synopsis, options, argc, argv, 1, NULL);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (!(scale > 0 && scale <= 64)) return cli_fail(tool, "--scale needs 0 < S <= 64");
    if (repeats < 1 || warmup < 0 || tune_budget < 0 || repeats > 1000000000 || warmup > 1000000000 ||
        tune_budget > 1000000000 || oracle_max_points < 1 || oracle_max_points > 100000)
        return cli_fail(tool, "--repeats >= 1, --warmup >= 0, --tune-budget >= 0, 1 <= --oracle-max-points <= 100000");
    o.repeats = (int)repeats, o.warmup = (int)warmup, o.tune_budget = (int)tune_budget;
    o.oracle_max_points = (int)oracle_max_points;
    for (int i = 0; i < variant_args.count; ++i) {
        if (n_var == MAX_VARIANTS || !parse_variant(variant_args.items[i], &vars[n_var]))
            return cli_fail(tool, "--variant wants [f32:|f64:]LABEL=PARAMS (at most %d, label < 32)", MAX_VARIANTS);
        ++n_var;
    }
    static bench_case cs[MAX_CASES];
    int n = 0;
    if (!cases) {
        for (size_t i = 0; i < sizeof all_generated / sizeof all_generated[0]; ++i)
            n = add_generated(cs, n, all_generated[i], scale);
    } else if (strcmp(cases, "none") != 0) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cases);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int m = add_generated(cs, n, t, scale);
            if (m < 0) {
                fprintf(stderr, "clpk-bench-spmv: unknown case '%s' (see --help)\n", t);
                return 2;
            }
            n = m;
        }
    }
    for (int i = 0; i < spec_args.count; ++i) {
        const char *eq = strchr(spec_args.items[i], '=');
        if (!eq || eq == spec_args.items[i] || !eq[1] || (size_t)(eq - spec_args.items[i]) >= sizeof cs[0].label ||
            strlen(eq + 1) >= sizeof cs[0].spec)
            return cli_fail(tool, "--spec needs LABEL=SPEC (label and spec not empty)");
        if (n < MAX_CASES) {
            bench_case c = {{0}, {0}, {0}};
            snprintf(c.label, sizeof c.label, "%.*s", (int)(eq - spec_args.items[i]), spec_args.items[i]);
            snprintf(c.spec, sizeof c.spec, "%s", eq + 1);
            cs[n++] = c;
        }
    }
    for (int i = 0; i < files.count; ++i)
        n = add_files(cs, n, files.items[i]);
    if (list) {
        for (int i = 0; i < n; ++i)
            printf("%s %s\n", cs[i].label, cs[i].spec[0] ? cs[i].spec : cs[i].path);
        return 0;
    }
    clpk_precision prec_list[2];
    int n_prec = 0;
    {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", precs);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n_prec < 2; t = strtok_r(NULL, ",", &save))
            if (clpk_precision_parse(t, &prec_list[n_prec++]) != CLPK_SUCCESS) {
                fprintf(stderr, "clpk-bench-spmv: unknown precision '%s' (f32 or f64)\n", t);
                return 2;
            }
    }
    char impl_list[4][16];
    int n_impl = 0;
    {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", impls);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n_impl < 4; t = strtok_r(NULL, ",", &save)) {
            if (!strcmp(t, "none")) continue;
            if (strcmp(t, "clpk-csr") && strcmp(t, "clpk-auto") && strcmp(t, "clpk-tuned") &&
                strcmp(t, "clpk-oracle")) {
                fprintf(stderr,
                        "clpk-bench-spmv: unknown impl '%s' (clpk-csr, clpk-auto, clpk-tuned, clpk-oracle, none)\n", t);
                return 2;
            }
            snprintf(impl_list[n_impl++], sizeof impl_list[0], "%s", t);
        }
    }

    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, dev) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-spmv: no device\n");
        return 2;
    }
    const clpk_device_info *info = clpk_context_device_info(ctx);
    o.device = info->name;
    /* copy probe: 256 MiB per buffer at full scale (well past the L2), smaller for tiny runs */
    size_t probe = scale >= 0.05 ? (size_t)256 << 20 : (size_t)8 << 20;
    clpk_bench_stats copy;
    if (clpk_bench_copy_bandwidth(ctx, probe, &copy) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-spmv: copy bandwidth probe failed: %s\n", clpk_last_error(ctx));
        clpk_context_destroy(ctx);
        return 2;
    }
    o.copy_gbps = copy.gbps;
    printf("device: %s  copy bandwidth %.1f GB/s (%.0f MiB buffers)  scale %g  warmup %d  repeats %d\n", info->name,
           copy.gbps, (double)probe / 1048576.0, scale, o.warmup, o.repeats);
    if (json_path && !(o.json = fopen(json_path, "w"))) {
        fprintf(stderr, "clpk-bench-spmv: cannot write %s: %s\n", json_path, strerror(errno));
        clpk_context_destroy(ctx);
        return 2;
    }
    if (o.json) fprintf(o.json, "[");
    printf("%-14s %-4s %-11s %10s %9s %9s %7s %7s  %s\n", "case", "prec", "impl", "median_ms", "GFLOP/s", "GB/s",
           "%copy", "B/nnz", "params");
    int failures = 0;
    for (int i = 0; i < n; ++i) {
        clpk_csr A = {0};
        clpk_error err = {0};
        double t0 = cli_wall_seconds();
        clpk_status st;
        if (cs[i].spec[0]) {
            st = clpk_spmv_generate(cs[i].spec, seed, &A, &err);
        } else {
            clpk_coo coo = {0};
            st = clpk_mtx_read(cs[i].path, &coo, &err);
            if (st == CLPK_SUCCESS) st = clpk_coo_to_csr(&coo, &A, &err);
            clpk_coo_free(&coo);
        }
        if (st != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-bench-spmv: %s: %s\n", cs[i].label, err.message);
            failures++;
            continue;
        }
        printf("# %s (%s): %d x %d, nnz %lld (%.1f/row), made in %.2f s\n", cs[i].label,
               cs[i].spec[0] ? cs[i].spec : cs[i].path, (int)A.rows, (int)A.cols, (long long)A.nnz,
               A.rows ? (double)A.nnz / A.rows : 0.0, cli_wall_seconds() - t0);
        if (npy_dir && write_npy_dir(npy_dir, cs[i].label, &A) != 0) failures++;
        size_t nr = A.rows ? (size_t)A.rows : 1, nc = A.cols ? (size_t)A.cols : 1;
        double *x = malloc(nc * sizeof *x), *ref = calloc(nr, sizeof *ref), *sc = calloc(nr, sizeof *sc),
               *y = malloc(nr * sizeof *y);
        if (!x || !ref || !sc || !y) {
            fprintf(stderr, "clpk-bench-spmv: out of memory\n");
            free(x), free(ref), free(sc), free(y);
            clpk_csr_free(&A);
            failures++;
            break;
        }
        for (size_t j = 0; j < nc; ++j)
            x[j] = 1.0 + (double)(j % 7) / 8.0;
        for (int32_t r = 0; r < A.rows; ++r)
            for (int64_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
                ref[r] += A.val[k] * x[A.col[k]];
                sc[r] += fabs(A.val[k] * x[A.col[k]]);
            }
        for (int p = 0; p < n_prec; ++p) {
            if (prec_list[p] == CLPK_PRECISION_F64 && !info->has_fp64) {
                printf("skip f64: the device has no fp64\n");
                continue;
            }
            /* half the ideal bytes per buffer: the copy reads one and writes the other */
            size_t vs = clpk_precision_size(prec_list[p]);
            size_t ideal = ((size_t)A.nnz + (size_t)A.rows + (size_t)A.cols) * vs;
            clpk_bench_stats sc_copy;
            o.size_copy_gbps = 0;
            if (ideal / 2 >= 16 && clpk_bench_copy_bandwidth(ctx, ideal / 2, &sc_copy) == CLPK_SUCCESS) {
                o.size_copy_gbps = sc_copy.gbps;
                printf("# %s %s: copy of the ideal bytes (2 x %.1f MiB): %.1f GB/s, %.1f%% of the large probe\n",
                       cs[i].label, clpk_precision_name(prec_list[p]), (double)ideal / 2 / 1048576.0, sc_copy.gbps,
                       o.copy_gbps > 0 ? 100.0 * sc_copy.gbps / o.copy_gbps : 0.0);
            }
            char auto_desc[512] = ""; /* clpk-auto's choice, which clpk-oracle measures too */
            for (int m = 0; m < n_impl; ++m)
                if (!strcmp(impl_list[m], "clpk-oracle"))
                    failures += run_oracle(ctx, &o, &cs[i], &A, prec_list[p], auto_desc, x, ref, sc, y);
                else
                    failures += run_impl(ctx, &o, &cs[i], &A, prec_list[p], impl_list[m], NULL, x, ref, sc, y,
                                         !strcmp(impl_list[m], "clpk-auto") ? auto_desc : NULL);
            for (int m = 0; m < n_var; ++m)
                if (!vars[m].precision || vars[m].precision == (int)prec_list[p] + 1)
                    failures +=
                        run_impl(ctx, &o, &cs[i], &A, prec_list[p], vars[m].label, vars[m].params, x, ref, sc, y, NULL);
        }
        free(x), free(ref), free(sc), free(y);
        clpk_csr_free(&A);
    }
    if (o.json) {
        fprintf(o.json, "]\n");
        fclose(o.json);
    }
    clpk_context_destroy(ctx);
    if (failures) fprintf(stderr, "clpk-bench-spmv: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
