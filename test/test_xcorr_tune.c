/* The cross-correlation tuner space (tuner/tune_xcorr.c): the quick problems build, the space enumerates to distinct
 * valid points that name every algorithm applying to the pattern, `valid` refuses what the plan would refuse, and
 * `evaluate` (through the public plan path, with a check against the reference) succeeds on the defaults and on a
 * seeded sample of valid points. Every value of the space is also swept for correctness in test_xcorr_direct. */
#include "check.h"
#include "tune.h"
#include "tune_run.h"
#include "xcorr_shuffle.h"

#include <stdlib.h>
#include <string.h>

extern const tune_family tune_family_xcorr;

/* Calls `visit` for each valid point of the space (odometer over the parameter lists); returns how many. */
static int enumerate(clpk_context *ctx, const tune_family *fam, const tune_problem *problem,
                     const tune_space *sp, core_params *points, int capacity) {
    int idx[CLPK_TUNE_MAX_PARAMS] = {0}, count = 0;
    for (;;) {
        core_params c;
        core_params_clear(&c);
        for (int i = 0; i < sp->count; ++i)
            core_params_set(&c, sp->params[i].name, sp->params[i].values[idx[i]]);
        if (fam->valid(ctx, problem, &c)) {
            if (count < capacity) points[count] = c;
            ++count;
        }
        int i = 0;
        while (i < sp->count && ++idx[i] == sp->params[i].count)
            idx[i++] = 0;
        if (i == sp->count) break;
    }
    return count;
}

typedef struct listing {
    clpk_context *ctx;
    const tune_family *fam;
    const tune_problem *problem;
} listing;

static int accept(void *user, const core_params *c) {
    const listing *l = user;
    return l->fam->valid(l->ctx, l->problem, c);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    const tune_family *fam = &tune_family_xcorr;
    int registered = 0;
    for (int i = 0; tune_families[i]; ++i) registered |= tune_families[i] == fam;
    CHECK(registered && strcmp(fam->name, "xcorr") == 0, "xcorr is not in the tuner registry");
    tune_options opts = {.precision = "f32", .quick = 1, .seed = rng, .data_dir = NULL};
    const int problems = fam->problem_count(&opts);
    CHECK(problems >= 3, "only %d quick problems", problems);
    enum { CAPACITY = 4096 };
    core_params *points = malloc(CAPACITY * sizeof *points);
    for (int p = 0; p < problems; ++p) {
        tune_problem problem;
        st = fam->problem_create(ctx, &opts, p, &problem);
        if (!CHECK(st == CLPK_SUCCESS, "problem %d: %s", p, clpk_last_error(ctx))) continue;
        printf("%s\n", problem.label);
        CHECK(core_params_get(&problem.klass, "pattern") && core_params_get(&problem.klass, "rows") &&
                  core_params_get(&problem.klass, "n_right") && core_params_get(&problem.klass, "precision"),
              "%s: class lacks features", problem.label);
        tune_space sp;
        st = fam->space(ctx, &problem, &sp);
        if (CHECK(st == CLPK_SUCCESS, "%s: space", problem.label)) {
            const int n = enumerate(ctx, fam, &problem, &sp, points, CAPACITY);
            printf("  %d valid points\n", n);
            CHECK(n > 20 && n <= CAPACITY, "%s: %d valid points", problem.label, n);
            /* The space's conditions (a parameter matters only for the algorithms reading it) list the same valid
             * points as the whole product, asking `valid` about far fewer combinations. */
            listing l = {ctx, fam, &problem};
            unsigned long long *listed = NULL, walked = 0;
            size_t nlisted = 0;
            int ok = tune_space_list(&sp, 1u << 21, accept, &l, &listed, &nlisted, &walked);
            /* every listed point passed `valid` (distinct indices): as many as the product holds means the same */
            CHECK(ok && nlisted == (size_t)n && (double)walked < tune_space_size(&sp) / 100,
                  "%s: conditional listing %zu points in %llu combinations, product %d valid of %.0f", problem.label,
                  nlisted, walked, n, tune_space_size(&sp));
            free(listed);
            /* Every algorithm of the space has at least one valid point; points are distinct. */
            for (int a = 0; a < sp.params[0].count; ++a) {
                int seen = 0;
                for (int i = 0; i < n && i < CAPACITY; ++i)
                    seen |= strcmp(core_params_get(&points[i], "algorithm"), sp.params[0].values[a]) == 0;
                CHECK(seen, "%s: no valid point for %s", problem.label, sp.params[0].values[a]);
            }
            /* shift-buffer's shuffle form is offered exactly where the device has a shuffle (never on PoCL), and
             * split-row's two distributions are both valid points. */
            const int has_shuffle = xcorr_shuffle_kind_of(ctx) != CLPK_XCORR_SHUFFLE_NONE;
            int subgroup_points = 0, triangle_points = 0, rectangle_points = 0;
            for (int i = 0; i < n && i < CAPACITY; ++i) {
                const char *algo = core_params_get(&points[i], "algorithm");
                const char *shuffle = core_params_get(&points[i], "shuffle");
                const char *dist = core_params_get(&points[i], "distribution");
                subgroup_points += shuffle && strcmp(shuffle, "subgroup") == 0;
                if (strcmp(algo, "split-row") == 0) {
                    triangle_points += dist && strcmp(dist, "triangle") == 0;
                    rectangle_points += dist && strcmp(dist, "rectangle") == 0;
                }
            }
            printf("  shuffle=subgroup points: %d (device shuffle: %s)\n", subgroup_points,
                   xcorr_shuffle_kind_name(xcorr_shuffle_kind_of(ctx)));
            CHECK(has_shuffle ? subgroup_points > 0 : subgroup_points == 0,
                  "%s: %d shuffle=subgroup points on a device %s a shuffle", problem.label, subgroup_points,
                  has_shuffle ? "with" : "without");
            CHECK(triangle_points > 0 && triangle_points == rectangle_points,
                  "%s: split-row points: %d triangle, %d rectangle", problem.label, triangle_points, rectangle_points);
            /* The defaults, then a seeded sample of valid points, through evaluate (which checks results). */
            core_params cand;
            fam->defaults(ctx, &problem, &cand);
            double ms = -1;
            st = fam->evaluate(ctx, &problem, &cand, 3, &ms);
            CHECK(st == CLPK_SUCCESS && ms >= 0, "%s: defaults: %s", problem.label, clpk_last_error(ctx));
            for (int k = 0; k < 5 && n > 0; ++k) {
                const core_params *c = &points[check_rand(&rng) % (uint64_t)(n < CAPACITY ? n : CAPACITY)];
                char text[512];
                core_params_format(c, text, sizeof text);
                ms = -1;
                st = fam->evaluate(ctx, &problem, c, 2, &ms);
                CHECK(st == CLPK_SUCCESS && ms >= 0, "%s {%s}: %s", problem.label, text, clpk_last_error(ctx));
            }
            /* What the plan refuses, valid refuses too. */
            core_params bad;
            core_params_clear(&bad);
            for (int i = 0; i < sp.count; ++i)
                core_params_set(&bad, sp.params[i].name, sp.params[i].values[0]);
            core_params_set(&bad, "algorithm", "grouped");
            core_params_set(&bad, "shifts", "8");
            core_params_set(&bad, "rows", "8");
            CHECK(!fam->valid(ctx, &problem, &bad), "%s: 64 accumulators accepted", problem.label);
            core_params_set(&bad, "algorithm", "naive");
            core_params_set(&bad, "rows", "1");
            core_params_set(&bad, "shifts", "2");
            CHECK(!fam->valid(ctx, &problem, &bad), "%s: duplicate naive point accepted", problem.label);
        }
        fam->problem_destroy(&problem);
    }
    free(points);
    clpk_context_destroy(ctx);
    return check_summary();
}
