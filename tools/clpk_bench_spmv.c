/* clpk-bench-spmv: SpMV benchmark over the classes of seed 001's Table III (generated, sized by --scale) and real
 * Matrix Market files: clpk's CSR baseline, its automatic choice (profile / defaults) and its online quick tune,
 * each checked against a double CPU reference and timed with profiling events, shown against the device's copy
 * bandwidth measured in the same run. Writes the matrices as CSR .npy directories for the cuSPARSE peer
 * (bench/peers/cusparse_spmv.py) and the records as JSON; bench/spmv.sh runs everything. */
#include "clpk.h"
#include "cli_args.h"
#include "cli_clock.h"

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
    int warmup, repeats, tune_budget;
    double copy_gbps;
    double size_copy_gbps; /* the copy probe moving the case's ideal bytes (values + x + y): the attainable rate at
                            * this size, where launch, ramp-up and drain are not amortised as in the 256 MiB probe */
    const char *device;
    FILE *json;
    int records;
} run_opts;

/* One implementation on one case and precision: plan, check, time, print, record. Returns 0 when correct. `params`:
 * explicit plan parameters of a --variant (NULL for the built-in implementations). */
static int run_impl(clpk_context *ctx, run_opts *o, const bench_case *c, const clpk_csr *A, clpk_precision prec,
                    const char *impl, const char *params, const double *x, const double *ref, const double *scale,
                    double *y) {
    clpk_spmv_plan *plan = NULL;
    clpk_spmv_tune_report rep;
    memset(&rep, 0, sizeof rep);
    double t0 = cli_wall_seconds();
    clpk_status st;
    if (!strcmp(impl, "clpk-tuned"))
        st = clpk_spmv_plan_tune(ctx, A, prec, o->tune_budget, &plan, &rep);
    else if (params)
        st = clpk_spmv_plan_create(ctx, A, prec, NULL, params, &plan);
    else
        st = clpk_spmv_plan_create(ctx, A, prec, !strcmp(impl, "clpk-csr") ? "csr" : NULL, NULL, &plan);
    double plan_s = cli_wall_seconds() - t0;
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-spmv: %s %s %s: %s: %s\n", c->label, clpk_precision_name(prec), impl,
                clpk_status_string(st), clpk_last_error(ctx));
        return 1;
    }
    for (int32_t r = 0; r < A->rows; ++r)
        y[r] = NAN;
    st = clpk_spmv_host(plan, 1.0, x, 0.0, y);
    double err = st == CLPK_SUCCESS ? scaled_error(A, ref, scale, y) : INFINITY;
    double tol = prec == CLPK_PRECISION_F64 ? 1e-11 : 2e-4;
    clpk_bench_stats s;
    memset(&s, 0, sizeof s);
    if (st == CLPK_SUCCESS) st = clpk_spmv_plan_bench(plan, o->warmup, o->repeats, &s);
    char desc[512];
    clpk_spmv_plan_describe(plan, desc, sizeof desc);
    uint64_t fp = clpk_spmv_plan_footprint(plan);
    clpk_spmv_plan_destroy(plan);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-spmv: %s %s %s: %s: %s\n", c->label, clpk_precision_name(prec), impl,
                clpk_status_string(st), clpk_last_error(ctx));
        return 1;
    }
    int ok = err <= tol;
    double pct = o->copy_gbps > 0 ? 100.0 * s.gbps / o->copy_gbps : 0;
    double bpn = A->nnz ? (double)fp / (double)A->nnz : 0;
    printf("%-14s %-4s %-11s %10.4f %9.2f %9.2f %6.1f%% %7.2f  %s%s\n", c->label, clpk_precision_name(prec), impl,
           s.median_ms, s.gflops, s.gbps, pct, bpn, ok ? "" : "WRONG ", desc);
    fflush(stdout);
    if (o->json) {
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
                impl, clpk_precision_name(prec), (int)A->rows, (int)A->cols, (long long)A->nnz, s.median_ms, s.min_ms,
                s.p90_ms, s.runs, s.gflops, s.gbps, s.bytes, (unsigned long long)fp, bpn, o->copy_gbps, pct,
                o->size_copy_gbps, o->size_copy_gbps > 0 ? 100.0 * s.gbps / o->size_copy_gbps : 0.0, err,
                ok ? "true" : "false", plan_s);
        json_text(o->json, desc);
        if (!strcmp(impl, "clpk-tuned"))
            fprintf(o->json,
                    ", \"tune_candidates\": %d, \"tune_rejected\": %d, \"tune_multiplies\": %d, "
                    "\"tune_default_ms\": %.6g, \"tune_chose_default\": %s",
                    rep.candidates, rep.rejected, rep.multiplies, rep.default_ms, rep.chose_default ? "true" : "false");
        fprintf(o->json, ", \"device\": ");
        json_text(o->json, o->device);
        fprintf(o->json, "}");
        fflush(o->json);
    }
    return ok ? 0 : 1;
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
    long long seed = 1, repeats = 100, warmup = 10, tune_budget = 0;
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
         "clpk-csr, clpk-auto, clpk-tuned (default all three); 'none' runs only the --variant plans"},
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
        tune_budget > 1000000000)
        return cli_fail(tool, "--repeats >= 1, --warmup >= 0, --tune-budget >= 0");
    o.repeats = (int)repeats, o.warmup = (int)warmup, o.tune_budget = (int)tune_budget;
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
    char impl_list[3][16];
    int n_impl = 0;
    {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", impls);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n_impl < 3; t = strtok_r(NULL, ",", &save)) {
            if (!strcmp(t, "none")) continue;
            if (strcmp(t, "clpk-csr") && strcmp(t, "clpk-auto") && strcmp(t, "clpk-tuned")) {
                fprintf(stderr, "clpk-bench-spmv: unknown impl '%s' (clpk-csr, clpk-auto, clpk-tuned, none)\n", t);
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
            for (int m = 0; m < n_impl; ++m)
                failures += run_impl(ctx, &o, &cs[i], &A, prec_list[p], impl_list[m], NULL, x, ref, sc, y);
            for (int m = 0; m < n_var; ++m)
                if (!vars[m].precision || vars[m].precision == (int)prec_list[p] + 1)
                    failures +=
                        run_impl(ctx, &o, &cs[i], &A, prec_list[p], vars[m].label, vars[m].params, x, ref, sc, y);
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
