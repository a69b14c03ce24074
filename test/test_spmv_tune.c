/* The spmv tuner space (tuner/tune_spmv.c) in quick mode: problems build with a class, the space follows the seed's
 * pruning (4 block shapes, BCCOO+ only for wide matrices, fallback-only sync where forward progress is unknown),
 * `valid` keeps points of every format and rejects duplicates and over-limit points, and `evaluate` runs candidates
 * through the public plan path (checked against the reference with poisoned y) and times them. */
#include "check.h"
#include "spmv_util.h"
#include "tune.h"
#include "tune_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const tune_family tune_family_spmv;

static const char *value_of(const tune_space *s, const char *name, int i) {
    for (int k = 0; k < s->count; ++k)
        if (!strcmp(s->params[k].name, name)) return s->params[k].values[i % s->params[k].count];
    return NULL;
}
static int count_of(const tune_space *s, const char *name) {
    for (int k = 0; k < s->count; ++k)
        if (!strcmp(s->params[k].name, name)) return s->params[k].count;
    return 0;
}

typedef struct listing {
    clpk_context *ctx;
    const tune_problem *problem;
} listing;

static int accept(void *user, const core_params *c) {
    const listing *l = user;
    return tune_family_spmv.valid(l->ctx, l->problem, c);
}

/* Valid points of the whole product (last parameter fastest), for comparison with the conditional listing. */
static size_t count_valid(clpk_context *ctx, const tune_problem *prob, const tune_space *space) {
    size_t n = 0;
    double size = tune_space_size(space);
    for (unsigned long long i = 0; i < (unsigned long long)size; ++i) {
        core_params c;
        tune_space_point(space, i, &c);
        n += (size_t)tune_family_spmv.valid(ctx, prob, &c);
    }
    return n;
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const tune_family *f = &tune_family_spmv;
    tune_options o = {"f32", 1, rng, NULL};
    int np = f->problem_count(&o);
    CHECK(np >= 3, "quick mode has %d problems", np);
    for (int pi = 0; pi < np && pi < 3; ++pi) {
        tune_problem prob;
        if (!CHECK(f->problem_create(ctx, &o, pi, &prob) == CLPK_SUCCESS, "problem %d: %s", pi, clpk_last_error(ctx)))
            continue;
        CHECK(core_params_get(&prob.klass, "nnz") && core_params_get(&prob.klass, "precision"), "class of %s",
              prob.label);
        tune_space space;
        CHECK(f->space(ctx, &prob, &space) == CLPK_SUCCESS, "space: %s", clpk_last_error(ctx));
        CHECK(count_of(&space, "block") == 4, "4 block shapes, got %d", count_of(&space, "block"));
        int32_t rows = (int32_t)core_params_get_int(&prob.klass, "rows", 0);
        int32_t cols = (int32_t)core_params_get_int(&prob.klass, "cols", 0);
        CHECK(count_of(&space, "format") == (cols > rows ? 3 : 2), "BCCOO+ only when wider than tall");
        if (pi == 0) {
            /* The space's conditions (parameters of one format, cache under strategy 2) list exactly the valid
             * points of the whole product, walking far fewer combinations. */
            listing l = {ctx, &prob};
            unsigned long long *listed = NULL, walked = 0;
            size_t nlisted = 0, n = count_valid(ctx, &prob, &space);
            int ok = tune_space_list(&space, 1u << 21, accept, &l, &listed, &nlisted, &walked);
            CHECK(ok && nlisted == n && n > 0 && (double)walked < tune_space_size(&space) / 10,
                  "%s: conditional listing %zu valid points in %llu combinations; product %zu valid of %.0f",
                  prob.label, nlisted, walked, n, tune_space_size(&space));
            free(listed);
        }
        /* random points: count valid ones per format */
        int valid[3] = {0, 0, 0}, tried = 0;
        core_params first[3];
        for (int t = 0; t < 3000; ++t) {
            core_params c;
            core_params_clear(&c);
            for (int k = 0; k < space.count; ++k)
                core_params_set(&c, space.params[k].name,
                                space.params[k].values[check_rand(&rng) % (uint64_t)space.params[k].count]);
            ++tried;
            if (!f->valid(ctx, &prob, &c)) continue;
            const char *fmt = core_params_get(&c, "format");
            int fi = !strcmp(fmt, "bccoo") ? 0 : !strcmp(fmt, "csr") ? 1 : 2;
            if (!valid[fi]) first[fi] = c;
            valid[fi]++;
        }
        printf("%s: %d of %d random points valid (bccoo %d, csr %d, bccoo+ %d)\n", prob.label,
               valid[0] + valid[1] + valid[2], tried, valid[0], valid[1], valid[2]);
        CHECK(valid[0] > 0, "valid BCCOO points");
        CHECK(cols <= rows || valid[2] > 0, "valid BCCOO+ points on a wide matrix");
        CHECK(valid[0] + valid[1] + valid[2] < tried, "valid rejects some points (duplicates)");
        /* a CSR point with a non-first tile is a duplicate */
        core_params dup;
        core_params_clear(&dup);
        for (int k = 0; k < space.count; ++k) core_params_set(&dup, space.params[k].name, space.params[k].values[0]);
        core_params_set(&dup, "format", "csr");
        CHECK(f->valid(ctx, &prob, &dup), "first CSR point valid");
        if (!valid[1]) {
            first[1] = dup;
            valid[1] = 1;
        }
        core_params_set(&dup, "tile", value_of(&space, "tile", 1));
        CHECK(!f->valid(ctx, &prob, &dup), "CSR point with another tile is a duplicate");
        /* evaluate the defaults and the first valid point of one format per problem */
        core_params d;
        f->defaults(ctx, &prob, &d);
        double ms = -1;
        CHECK(f->evaluate(ctx, &prob, &d, 3, &ms) == CLPK_SUCCESS && ms > 0, "defaults: %s", clpk_last_error(ctx));
        int fi = pi % 3;
        if (fi == 2 && !valid[2]) fi = 0;
        if (valid[fi]) {
            char text[512];
            core_params_format(&first[fi], text, sizeof text);
            ms = -1;
            clpk_status st = f->evaluate(ctx, &prob, &first[fi], 3, &ms);
            if (spmv_util_device_refuses(st, ctx)) {
                printf("  %s: refused on this device (%s), as the tuner records and skips it\n", text,
                       clpk_last_error(ctx));
            } else {
                CHECK(st == CLPK_SUCCESS && ms > 0, "%s: %s", text, clpk_last_error(ctx));
                printf("  evaluated %s: %.4f ms\n", text, ms);
            }
        }
        f->problem_destroy(&prob);
    }
    clpk_context_destroy(ctx);
    return check_summary();
}
