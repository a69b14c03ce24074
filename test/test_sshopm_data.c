/* SS-HOPM on the real test tensors of ../shared/data/sshopm (Kofidis-Regalia ex. 1, order 4; Kolda-Mayo ex. 3.6,
 * order 3): every local max with a convex shift and every local min with a concave shift, lambda to 1e-5 (f32) /
 * 1e-10 (f64, and f32 after Newton polishing), no saddle reported as a max or min; fixed, bound and adaptive shifts;
 * generated and general kernels;
 * alpha = 0 does not converge on ex. 1 (the seed's slip). */
#include "clpk_sshopm.h"
#include "sshopm_util.h"

typedef struct ref_pair {
    double lambda;
    double x[3];
    clpk_sshopm_type type;
} ref_pair;

typedef struct dataset {
    const char *name;
    int m, n;
    double a[16];
    int count;
    ref_pair pairs[32];
} dataset;

static int load(const char *file, dataset *d) {
    char path[1024];
    /* $CLPK_SHARED_DATA_DIR wins over the build's default (runs on another machine, another checkout). */
    const char *data_dir = getenv("CLPK_SHARED_DATA_DIR");
    snprintf(path, sizeof path, "%s/sshopm/%s", data_dir && *data_dir ? data_dir : CLPK_SHARED_DATA_DIR, file);
    cJSON *j = sshopm_read_json(path);
    if (!j) {
        printf("SKIP %s: %s not found\n", file, path);
        return 0;
    }
    memset(d, 0, sizeof *d);
    d->name = file;
    d->m = cJSON_GetObjectItem(j, "order")->valueint;
    d->n = cJSON_GetObjectItem(j, "dim")->valueint;
    cJSON *e = cJSON_GetObjectItem(j, "unique_entries");
    int u = 0;
    cJSON *it;
    cJSON_ArrayForEach(it, e) d->a[u++] = it->valuedouble;
    CHECK(u == clpk_sshopm_unique_count(d->m, d->n), "%s: %d entries", file, u);
    cJSON *pairs = cJSON_GetObjectItem(j, "real_eigenpairs_up_to_sign");
    if (!pairs) pairs = cJSON_GetObjectItem(j, "real_eigenpairs");
    sshopm_index idx;
    sshopm_index_build(d->m, d->n, &idx, NULL);
    cJSON_ArrayForEach(it, pairs) {
        ref_pair p = {0};
        p.lambda = cJSON_GetObjectItem(it, "lambda")->valuedouble;
        int i = 0;
        cJSON *xv;
        cJSON_ArrayForEach(xv, cJSON_GetObjectItem(it, "x")) p.x[i++] = xv->valuedouble;
        /* The file gives 6 to 15 digits: classify, then polish in double with the reference iteration run in the
         * direction that keeps the point (a max is attracting for the convex iteration, a min for the concave). */
        p.type = clpk_sshopm_classify(d->m, d->n, d->a, p.lambda, p.x, 1e-3, NULL);
        for (int sign = 1; sign >= -1; sign -= 2) {
            ref_pair q = p;
            if (sign < 0) {
                if (d->m % 2 == 0) break; /* even order: -x is the same pair */
                q.lambda = -p.lambda;
                for (int k = 0; k < 3; ++k) q.x[k] = -p.x[k];
                q.type = p.type == CLPK_SSHOPM_TYPE_MAX   ? CLPK_SSHOPM_TYPE_MIN
                         : p.type == CLPK_SSHOPM_TYPE_MIN ? CLPK_SSHOPM_TYPE_MAX
                                                          : p.type;
            }
            if (q.type == CLPK_SSHOPM_TYPE_MAX || q.type == CLPK_SSHOPM_TYPE_MIN) {
                double lam;
                int its;
                double x[3] = {q.x[0], q.x[1], q.x[2]};
                int dir = q.type == CLPK_SSHOPM_TYPE_MAX ? 1 : -1;
                int st =
                    sshopm_ref_run(&idx, d->a, x, dir, CLPK_SSHOPM_SHIFT_BOUND, 0, 1e-15, 1e-14, 200000, 1, &lam, &its);
                CHECK(st == CLPK_SSHOPM_CONVERGED && fabs(lam - q.lambda) < 2e-5 &&
                          sshopm_xdist(d->n, x, q.x, 0) < 1e-3,
                      "%s: reference pair %.6f does not polish (status %d, lambda %.9f)", file, q.lambda, st, lam);
                q.lambda = lam;
                memcpy(q.x, x, sizeof x);
            }
            d->pairs[d->count++] = q;
        }
    }
    sshopm_index_free(&idx);
    cJSON_Delete(j);
    return 1;
}

/* Checks a result against the reference pairs. want: which types must all be found. */
static void compare(const dataset *d, const clpk_sshopm_result *r, int want_max, int want_min, clpk_precision prec,
                    const char *label) {
    const double ltol = prec == CLPK_PRECISION_F64 ? 1e-10 : 1e-5;
    const double xtol = prec == CLPK_PRECISION_F64 ? 1e-7 : 2e-3;
    const int even = d->m % 2 == 0;
    const clpk_sshopm_tensor_result *tr = &r->tensors[0];
    for (int i = 0; i < d->count; ++i) {
        const ref_pair *p = &d->pairs[i];
        int wanted = (p->type == CLPK_SSHOPM_TYPE_MAX && want_max) || (p->type == CLPK_SSHOPM_TYPE_MIN && want_min);
        if (!wanted) continue;
        int found = 0;
        for (int k = 0; k < tr->count; ++k)
            if (fabs(tr->pairs[k].lambda - p->lambda) <= ltol && sshopm_xdist(d->n, tr->pairs[k].x, p->x, even) <= xtol)
                found = tr->pairs[k].type == p->type;
        CHECK(found, "%s %s %s: %s lambda=%.12f not found", d->name, label, clpk_precision_name(prec),
              clpk_sshopm_type_name(p->type), p->lambda);
    }
    /* Every reported max/min is a reference max/min of the same type: no saddle passes as an extremum. */
    for (int k = 0; k < tr->count; ++k) {
        const clpk_sshopm_eigenpair *e = &tr->pairs[k];
        int match = 0;
        for (int i = 0; i < d->count; ++i)
            if (fabs(e->lambda - d->pairs[i].lambda) <= 1e-4 && sshopm_xdist(d->n, e->x, d->pairs[i].x, even) <= 1e-2)
                match = d->pairs[i].type == e->type;
        CHECK(match && (e->type == CLPK_SSHOPM_TYPE_MAX || e->type == CLPK_SSHOPM_TYPE_MIN),
              "%s %s %s: reported %s lambda=%.9f matches no reference extremum", d->name, label,
              clpk_precision_name(prec), clpk_sshopm_type_name(e->type), e->lambda);
        CHECK(e->residual < (prec == CLPK_PRECISION_F64 ? 1e-8 : 1e-3), "%s %s: residual %.3g", d->name, label,
              e->residual);
    }
}

static void run_case_polished(clpk_context *ctx, const dataset *d, clpk_precision prec, clpk_sshopm_find find,
                              clpk_sshopm_shift shift, double alpha, const char *kernel, const char *label,
                              int polish) {
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = 64;
    o.find = find;
    o.shift = shift;
    o.alpha = alpha;
    o.kernel = kernel;
    o.seed = 7;
    if (prec == CLPK_PRECISION_F64) {
        o.tol = 1e-15;
        o.xtol = 1e-11;
        o.max_iter = 20000;
    } else {
        o.tol = 1e-7;
        o.xtol = 2e-5;
        o.max_iter = 5000;
    }
    clpk_sshopm_plan *plan = NULL;
    clpk_status st = clpk_sshopm_plan_create(ctx, d->m, d->n, prec, 1, &o, &plan);
    if (!CHECK(st == CLPK_SUCCESS, "%s %s: plan: %s", d->name, label, clpk_last_error(ctx))) return;
    clpk_sshopm_result r;
    st = clpk_sshopm_solve_host(plan, d->a, 1, NULL, &r);
    if (CHECK(st == CLPK_SUCCESS, "%s %s: solve: %s", d->name, label, clpk_last_error(ctx))) {
        char desc[256];
        clpk_sshopm_plan_describe(plan, desc, sizeof desc);
        printf("%s %s: %d pairs, %d converged, %d capped | %s\n", d->name, label, r.tensors[0].count,
               r.tensors[0].converged, r.tensors[0].capped, desc);
        CHECK(r.tensors[0].failed == 0, "%s %s: %d failed starts", d->name, label, r.tensors[0].failed);
        clpk_error err = {0};
        if (polish)
            CHECK(clpk_sshopm_polish(d->a, &r, polish, 0, &err) == CLPK_SUCCESS, "%s %s: polish: %s", d->name, label,
                  err.message);
        /* polished pairs are held to the f64 tolerances whatever precision found them */
        compare(d, &r, find != CLPK_SSHOPM_FIND_MIN, find != CLPK_SSHOPM_FIND_MAX, polish ? CLPK_PRECISION_F64 : prec,
                label);
        clpk_sshopm_result_free(&r);
    }
    clpk_sshopm_plan_destroy(plan);
}

static void run_case(clpk_context *ctx, const dataset *d, clpk_precision prec, clpk_sshopm_find find,
                     clpk_sshopm_shift shift, double alpha, const char *kernel, const char *label) {
    run_case_polished(ctx, d, prec, find, shift, alpha, kernel, label, 0);
}

int main(void) {
    check_seed();
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    dataset d[2];
    int have[2] = {load("kofidis_regalia_ex1.json", &d[0]), load("kolda_mayo_ex36.json", &d[1])};
    int maxima = 0;
    for (int i = 0; i < d[0].count && have[0]; ++i) maxima += d[0].pairs[i].type == CLPK_SSHOPM_TYPE_MAX;
    if (have[0]) CHECK(maxima == 3, "ex1 has 3 local maxima by classification, got %d", maxima);
    const int fp64 = clpk_context_device_info(ctx)->has_fp64;
    for (int k = 0; k < 2; ++k) {
        if (!have[k]) continue;
        for (int p = 0; p < 2; ++p) {
            clpk_precision prec = p ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            if (p && !fp64) {
                printf("SKIP f64: device has no fp64\n");
                continue;
            }
            run_case(ctx, &d[k], prec, CLPK_SSHOPM_FIND_MAX, CLPK_SSHOPM_SHIFT_FIXED, 2, NULL, "alpha=2 generated");
            run_case(ctx, &d[k], prec, CLPK_SSHOPM_FIND_MIN, CLPK_SSHOPM_SHIFT_FIXED, -2, "general",
                     "alpha=-2 general");
            run_case(ctx, &d[k], prec, CLPK_SSHOPM_FIND_BOTH, CLPK_SSHOPM_SHIFT_BOUND, 0, NULL, "bound both");
            run_case(ctx, &d[k], prec, CLPK_SSHOPM_FIND_BOTH, CLPK_SSHOPM_SHIFT_ADAPTIVE, 0, NULL,
                     "adaptive generated");
            run_case(ctx, &d[k], prec, CLPK_SSHOPM_FIND_MAX, CLPK_SSHOPM_SHIFT_ADAPTIVE, 0, "general",
                     "adaptive general");
            if (!p) /* f32, then Newton-polished in double: held to the f64 tolerances */
                run_case_polished(ctx, &d[k], prec, CLPK_SSHOPM_FIND_BOTH, CLPK_SSHOPM_SHIFT_BOUND, 0, NULL,
                                  "bound both + polish", 3);
        }
    }
    if (have[0]) {
        /* alpha = 0 (the seed's choice) converges from no start on ex. 1. */
        clpk_sshopm_options o;
        clpk_sshopm_options_default(&o);
        o.starts = 64;
        o.shift = CLPK_SSHOPM_SHIFT_FIXED;
        o.alpha = 0;
        o.tol = 1e-10;
        o.max_iter = 2000;
        clpk_precision prec = fp64 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (!fp64) o.tol = 1e-6;
        clpk_sshopm_plan *plan = NULL;
        if (CHECK(clpk_sshopm_plan_create(ctx, 4, 3, prec, 1, &o, &plan) == CLPK_SUCCESS, "alpha=0 plan: %s",
                  clpk_last_error(ctx))) {
            clpk_sshopm_raw raw;
            if (CHECK(clpk_sshopm_run_host(plan, d[0].a, 1, &raw) == CLPK_SUCCESS, "alpha=0 run: %s",
                      clpk_last_error(ctx))) {
                int converged = 0, capped = 0;
                for (int s = 0; s < raw.starts; ++s) {
                    converged += CLPK_SSHOPM_INFO_STATUS(raw.info[s]) == CLPK_SSHOPM_CONVERGED;
                    capped += CLPK_SSHOPM_INFO_STATUS(raw.info[s]) == CLPK_SSHOPM_CAPPED;
                }
                printf("alpha=0 on ex1: %d converged, %d capped of %d\n", converged, capped, raw.starts);
                CHECK(converged == 0 && capped == raw.starts, "alpha=0: %d of %d starts converged", converged,
                      raw.starts);
                clpk_sshopm_raw_free(&raw);
            }
            clpk_sshopm_plan_destroy(plan);
        }
    }
    clpk_context_destroy(ctx);
    return check_summary();
}
