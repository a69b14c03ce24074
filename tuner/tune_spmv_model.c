/* Training of the spmv cost model (lib/spmv/spmv_model.h; issue #22): every variant the model knows is measured on
 * generated training matrices of the seed's Table III classes plus node-block meshes, at two sizes each (GPUs: about
 * 1-2 M nonzeros, inside a large L2, and 8-16 M, well past it; CPUs an eighth), then each variant's coefficients are
 * fitted (spmv_model_fit) and written as the profile's "models"."spmv". The evaluation corpus (bench/spmv_corpus.txt:
 * real matrices replicated, 2D FEM, 3D stencil, power-law, long rows) shares none of these generators.
 * A variant is measured on a matrix only where its matrix data is within twice the least of any block shape (the
 * plausible ones; the plan ranks the same set), plus CSR always. Programs of a matrix's variants are compiled ahead
 * on several threads; the measuring stops at the deadline and the fit uses what was measured. */
#include "spmv_model.h"
#include "tune_spmv_model.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct training_matrix {
    const char *gpu, *cpu; /* generator specs */
} training_matrix;

/* Small sizes first: every variant gets samples from both regimes before the budget can run out. */
static const training_matrix training[] = {
    {"fem3d:20", "fem3d:10"},
    {"dense:1200", "dense:400"},
    {"protein:12000", "protein:1500"},
    {"circuit:250000", "circuit:30000"},
    {"epidem:400000", "epidem:50000"},
    {"webgraph:250000", "webgraph:30000"},
    {"shortrow:500000", "shortrow:60000"},
    {"qchem:25000", "qchem:3000"},
    {"random:200:600000:5000", "random:60:100000:2000"},
    {"random:120000:120000:16", "random:15000:15000:16"},
    {"nodes:40000:4:5", "nodes:5000:4:5"},
    {"nodes:100000:2:9", "nodes:12000:2:9"},
    {"fem3d:40", "fem3d:20"},
    {"dense:3200", "dense:1100"},
    {"protein:100000", "protein:12000"},
    {"circuit:1800000", "circuit:220000"},
    {"epidem:3000000", "epidem:400000"},
    {"webgraph:1800000", "webgraph:220000"},
    {"shortrow:3500000", "shortrow:450000"},
    {"qchem:160000", "qchem:20000"},
    {"random:1000:2000000:10000", "random:250:400000:4000"},
    {"random:800000:800000:16", "random:100000:100000:16"},
    {"nodes:300000:4:5", "nodes:40000:4:5"},
    {"nodes:800000:2:9", "nodes:100000:2:9"},
};
#define TRAINING_COUNT ((int)(sizeof training / sizeof training[0]))
static const char *const quick_training[] = {"fem3d:8", "webgraph:6000", "random:2000:2000:12", "nodes:800:4:5",
                                             "shortrow:8000"};
#define QUICK_COUNT ((int)(sizeof quick_training / sizeof quick_training[0]))

typedef struct sample {
    int variant;
    double terms[SPMV_MODEL_TERMS];
    double ms;
} sample;

typedef struct samples {
    sample *items;
    int count, capacity;
    double nnz_lo, nnz_hi;
    FILE *csv; /* $CLPK_SPMV_MODEL_SAMPLES: every measurement, for studying other model forms offline */
} samples;

static int add_sample(samples *s, int variant, const double *terms, double ms) {
    if (s->count == s->capacity) {
        int cap = s->capacity ? 2 * s->capacity : 256;
        sample *grown = realloc(s->items, (size_t)cap * sizeof *grown);
        if (!grown) return 0;
        s->items = grown;
        s->capacity = cap;
    }
    sample *x = &s->items[s->count++];
    x->variant = variant;
    memcpy(x->terms, terms, sizeof x->terms);
    x->ms = ms;
    return 1;
}

/* y = A x in double, and the scale of each row's terms for the relative check. */
static void reference(const clpk_csr *A, const double *x, double *ref, double *scale) {
    *scale = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        double sum = 0, mag = 0;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; ++k) {
            sum += A->val[k] * x[A->col[k]];
            mag += fabs(A->val[k] * x[A->col[k]]);
        }
        ref[r] = sum;
        if (mag > *scale) *scale = mag;
    }
}

/* Creates, checks (NaN-poisoned y against the double reference) and times one variant. */
static clpk_status measure(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *params,
                           const double *x, const double *ref, double scale, double *y, double *ms) {
    clpk_spmv_plan *plan = NULL;
    CLPK_TRY(spmv_model_variant_plan(ctx, A, precision, params, &plan));
    for (int32_t r = 0; r < A->rows; ++r)
        y[r] = NAN;
    clpk_status st = clpk_spmv_host(plan, 1.0, x, 0.0, y);
    if (st == CLPK_SUCCESS) {
        double worst = 0;
        for (int32_t r = 0; r < A->rows; ++r) {
            double d = fabs(y[r] - ref[r]);
            if (!(d <= worst)) worst = d;
        }
        double e = scale > 0 ? worst / scale : worst;
        double tol = precision == CLPK_PRECISION_F64 ? 1e-12 : 1e-5;
        if (!(e <= tol))
            st = core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "spmv model training: %s: error %.3g over %.0e", params, e,
                           tol);
    }
    clpk_bench_stats stats;
    if (st == CLPK_SUCCESS) st = clpk_spmv_plan_bench(plan, 3, 15, &stats);
    if (st == CLPK_SUCCESS) *ms = stats.median_ms;
    clpk_spmv_plan_destroy(plan);
    return st;
}

/* Quick runs (CI) measure these only: the machinery, not a usable model. */
static int in_quick_set(const char *variant) {
    static const char *const quick[] = {"format=csr,csr_vec=1", "format=bccoo,block=1x1",
                                        "format=bccoo,block=1x1,col=delta", "format=bccoo,block=2x2"};
    for (size_t i = 0; i < sizeof quick / sizeof quick[0]; ++i)
        if (!strcmp(variant, quick[i])) return 1;
    return 0;
}

/* The variants plausible on A (matrix data within twice the least block shape's, CSR always), with their terms. */
static int plausible(const clpk_csr *A, const spmv_matrix_features *f, clpk_precision precision, clpk_device_kind kind,
                     int quick, int *which, double (*terms)[SPMV_MODEL_TERMS]) {
    int nv = spmv_model_variant_count(), n = 0;
    double bytes[64], least = INFINITY;
    int ok[64];
    for (int v = 0; v < nv && v < 64; ++v) {
        ok[v] = spmv_model_terms(A, f, precision, kind, spmv_model_variant(v), terms[v], &bytes[v]);
        if (ok[v] && !spmv_model_is_csr(spmv_model_variant(v)) && bytes[v] < least) least = bytes[v];
    }
    for (int v = 0; v < nv && v < 64; ++v)
        if (ok[v] && spmv_model_plausible(spmv_model_variant(v), bytes[v], least) &&
            (!quick || in_quick_set(spmv_model_variant(v))))
            which[n++] = v;
    return n;
}

static clpk_status train_matrix(clpk_context *ctx, const tune_model_request *req, const char *spec, uint64_t seed,
                                clpk_precision precision, samples *out, int *failures) {
    clpk_csr A;
    clpk_error err = {0};
    if (clpk_spmv_generate(spec, seed, &A, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    spmv_matrix_features f;
    clpk_status st = spmv_matrix_features_compute(&A, 0, 0, &f, &err);
    if (st != CLPK_SUCCESS) st = core_fail_from(ctx, &err);
    double *x = malloc(sizeof *x * (size_t)(A.cols ? A.cols : 1));
    double *ref = malloc(sizeof *ref * (size_t)(A.rows ? A.rows : 1));
    double *y = malloc(sizeof *y * (size_t)(A.rows ? A.rows : 1));
    if (st == CLPK_SUCCESS && (!x || !ref || !y)) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    double scale = 0;
    if (st == CLPK_SUCCESS) {
        uint64_t state = seed ^ 0xabcdefull;
        for (int32_t i = 0; i < A.cols; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            x[i] = (double)(state >> 11) * 0x1.0p-53 * 2.0 - 1.0;
        }
        reference(&A, x, ref, &scale);
    }
    int which[64];
    double terms[64][SPMV_MODEL_TERMS];
    int n = st == CLPK_SUCCESS
                ? plausible(&A, &f, precision, clpk_context_device_info(ctx)->kind, req->opts->quick, which, terms)
                : 0;
    /* compile the variants' programs ahead: plan creation stops at its program while the context records */
    if (n > 1 && req->build_threads > 1) {
        core_program_record(ctx, 1);
        for (int i = 0; i < n; ++i) {
            clpk_spmv_plan *plan = NULL;
            if (spmv_model_variant_plan(ctx, &A, precision, spmv_model_variant(which[i]), &plan) == CLPK_SUCCESS)
                clpk_spmv_plan_destroy(plan);
        }
        core_program_record(ctx, 0);
        core_program_prebuild(ctx, req->build_threads);
    }
    int measured = 0;
    for (int i = 0; i < n && st == CLPK_SUCCESS; ++i) {
        if (req->now(req->clock_user) >= req->deadline) break;
        double ms = 0;
        clpk_status m = measure(ctx, &A, precision, spmv_model_variant(which[i]), x, ref, scale, y, &ms);
        if (m == CLPK_SUCCESS && ms > 0 && isfinite(ms)) {
            if (!add_sample(out, which[i], terms[i], ms)) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "oom");
            if (out->csv) {
                fprintf(out->csv, "%s,%s,\"%s\",%.9g", spec, clpk_precision_name(precision),
                        spmv_model_variant(which[i]), ms);
                for (int j = 0; j < SPMV_MODEL_TERMS; ++j)
                    fprintf(out->csv, ",%.9g", terms[i][j]);
                fprintf(out->csv, "\n");
            }
            ++measured;
        } else if (m == CLPK_ERROR_WRONG_RESULT) {
            st = m; /* a wrong result is a defect, not a point to skip */
        } else {
            ++*failures;
        }
    }
    if (measured) {
        if (out->nnz_lo == 0 || (double)A.nnz < out->nnz_lo) out->nnz_lo = (double)A.nnz;
        if ((double)A.nnz > out->nnz_hi) out->nnz_hi = (double)A.nnz;
    }
    core_log(ctx, CLPK_LOG_INFO, "spmv model: %s %s (%lld nonzeros): %d of %d variants measured", spec,
             clpk_precision_name(precision), (long long)A.nnz, measured, n);
    free(x);
    free(ref);
    free(y);
    clpk_csr_free(&A);
    return st;
}

/* Every program an automatic plan may build from the model's variants: each variant in both precisions, on a matrix
 * whose block columns fit 16-bit indices and on one whose do not (the col=auto programs differ), noted with the
 * context recording (plan creation stops at its program) and compiled on `threads` threads into the program cache. */
int tune_spmv_model_prebuild(clpk_context *ctx, int threads) {
    static const char *const specs[] = {"random:64:1000:4", "random:64:300000:4"};
    int added = 0;
    core_program_record(ctx, 1);
    for (int m = 0; m < 2; ++m) {
        clpk_csr A;
        clpk_error err = {0};
        if (clpk_spmv_generate(specs[m], 1, &A, &err) != CLPK_SUCCESS) continue;
        for (int p = 0; p < 2; ++p) {
            clpk_precision precision = p ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            if (p && !clpk_context_device_info(ctx)->has_fp64) continue;
            for (int v = 0; v < spmv_model_variant_count(); ++v) {
                clpk_spmv_plan *plan = NULL;
                if (spmv_model_variant_plan(ctx, &A, precision, spmv_model_variant(v), &plan) == CLPK_SUCCESS)
                    clpk_spmv_plan_destroy(plan); /* already cached: nothing noted */
            }
        }
        clpk_csr_free(&A);
    }
    core_program_record(ctx, 0);
    added += core_program_prebuild(ctx, threads > 0 ? threads : 1);
    return added;
}

static cJSON *fit_json(const samples *s, int *fitted) {
    cJSON *prec = cJSON_CreateObject();
    cJSON *range = cJSON_CreateArray();
    cJSON_AddItemToArray(range, cJSON_CreateNumber(s->nnz_lo));
    cJSON_AddItemToArray(range, cJSON_CreateNumber(s->nnz_hi));
    cJSON_AddItemToObject(prec, "nnz", range);
    cJSON *list = cJSON_AddArrayToObject(prec, "variants");
    int nv = spmv_model_variant_count();
    double(*terms)[SPMV_MODEL_TERMS] = malloc(sizeof *terms * (size_t)(s->count ? s->count : 1));
    double *ms = malloc(sizeof *ms * (size_t)(s->count ? s->count : 1));
    for (int v = 0; terms && ms && v < nv; ++v) {
        int n = 0;
        for (int i = 0; i < s->count; ++i)
            if (s->items[i].variant == v) {
                memcpy(terms[n], s->items[i].terms, sizeof terms[n]);
                ms[n++] = s->items[i].ms;
            }
        if (n < 3) continue;
        double coef[SPMV_MODEL_TERMS], rms = 0;
        spmv_model_fit((const double(*)[SPMV_MODEL_TERMS])terms, ms, n, coef, &rms);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "params", spmv_model_variant(v));
        cJSON_AddItemToObject(e, "coef", cJSON_CreateDoubleArray(coef, SPMV_MODEL_TERMS));
        cJSON_AddNumberToObject(e, "samples", n);
        cJSON_AddNumberToObject(e, "rel_rms", rms);
        cJSON_AddItemToArray(list, e);
        ++*fitted;
    }
    free(terms);
    free(ms);
    return prec;
}

clpk_status tune_spmv_model_train(clpk_context *ctx, const tune_model_request *req, void **model_json, char *note,
                                  size_t note_size) {
    *model_json = NULL;
    const tune_options *o = req->opts;
    const int gpu = clpk_context_device_info(ctx)->kind == CLPK_DEVICE_GPU;
    cJSON *root = cJSON_CreateObject();
    if (!root) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    cJSON *names = cJSON_AddArrayToObject(root, "terms");
    for (int j = 0; j < SPMV_MODEL_TERMS; ++j)
        cJSON_AddItemToArray(names, cJSON_CreateString(spmv_model_term_names[j]));
    /* every variant's programs first, beyond the plausible ones a training matrix measures: nothing an automatic
     * plan may pick compiles at plan time afterwards (quick runs skip it: CI's CPU compilers are slow) */
    if (!o->quick) tune_spmv_model_prebuild(ctx, req->build_threads);
    clpk_bench_stats copy;
    clpk_status st = clpk_bench_copy_bandwidth(ctx, gpu ? (size_t)256 << 20 : (size_t)32 << 20, &copy);
    if (st == CLPK_SUCCESS) cJSON_AddNumberToObject(root, "copy_GBps", copy.gbps);
    int total_fitted = 0, total_samples = 0, failures = 0, csv_started = 0;
    for (int p = 0; p < 2 && st == CLPK_SUCCESS; ++p) {
        clpk_precision precision = p ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (o->precision && strcmp(o->precision, clpk_precision_name(precision)) != 0) continue;
        if (precision == CLPK_PRECISION_F64 && !clpk_context_device_info(ctx)->has_fp64) continue;
        samples s = {0};
        const char *csv = getenv("CLPK_SPMV_MODEL_SAMPLES");
        if (csv && *csv) s.csv = fopen(csv, csv_started++ ? "a" : "w");
        int count = o->quick ? QUICK_COUNT : TRAINING_COUNT;
        /* each precision its half of what is left */
        double start = req->now(req->clock_user);
        tune_model_request part = *req;
        if (isfinite(req->deadline) && !o->precision && p == 0) part.deadline = start + 0.5 * (req->deadline - start);
        for (int i = 0; i < count && st == CLPK_SUCCESS; ++i) {
            if (part.now(part.clock_user) >= part.deadline) break;
            const char *spec = o->quick ? quick_training[i] : gpu ? training[i].gpu : training[i].cpu;
            st = train_matrix(ctx, &part, spec, o->seed + (uint64_t)i, precision, &s, &failures);
        }
        int fitted = 0;
        if (st == CLPK_SUCCESS) cJSON_AddItemToObject(root, clpk_precision_name(precision), fit_json(&s, &fitted));
        total_fitted += fitted;
        total_samples += s.count;
        free(s.items);
        if (s.csv) fclose(s.csv);
    }
    if (st != CLPK_SUCCESS) {
        cJSON_Delete(root);
        return st;
    }
    snprintf(note, note_size, "cost model: %d variant fits from %d measurements (%d variants not possible)",
             total_fitted, total_samples, failures);
    *model_json = root;
    return CLPK_SUCCESS;
}
