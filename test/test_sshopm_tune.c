/* The SS-HOPM tuner space: problems build with a class, the space has every parameter, `valid` keeps what plans
 * accept and drops what they refuse, `evaluate` (public plan path, poisoned outputs, reference check, timing)
 * succeeds on a set of candidates covering every value of every parameter, and on the defaults. */
#include "clpk_sshopm.h"
#include "sshopm_util.h"
#include "tune.h"

/* Through the generated registry: the family must be registered under its profile key. */
static const tune_family *find_family(void) {
    for (const tune_family *const *f = tune_families; *f; ++f)
        if (!strcmp((*f)->name, "sshopm")) return *f;
    return NULL;
}

static void set(core_params *p, const char *kernel, const char *entries, const char *wg, const char *check) {
    core_params_clear(p);
    core_params_set(p, "kernel", kernel);
    core_params_set(p, "entries", entries);
    core_params_set(p, "wg", wg);
    core_params_set(p, "check_every", check);
}

int main(void) {
    uint64_t seed = check_seed();
    const tune_family *fam = find_family();
    if (!CHECK(fam != NULL, "sshopm tuner family registered")) return check_summary();
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    tune_options o = {"f32", 1, seed, NULL};
    CHECK(fam->problem_count(&o) == 1, "quick f32: one problem");
    tune_options all = {NULL, 0, seed, NULL};
    CHECK(fam->problem_count(&all) >= 16, "full: shapes x precisions");
    tune_problem problem;
    if (!CHECK(fam->problem_create(ctx, &o, 0, &problem) == CLPK_SUCCESS, "problem: %s", clpk_last_error(ctx)))
        return check_summary();
    printf("problem %s\n", problem.label);
    CHECK(core_params_get_int(&problem.klass, "order", 0) == 4 && core_params_get_int(&problem.klass, "dim", 0) == 3 &&
              !strcmp(core_params_get(&problem.klass, "precision"), "f32"),
          "class (4, 3, f32)");
    tune_space sp;
    CHECK(fam->space(ctx, &problem, &sp) == CLPK_SUCCESS && sp.count == 4, "space of 4 parameters");
    int total = 1;
    for (int i = 0; i < sp.count; ++i) total *= sp.params[i].count;
    printf("space: %d points\n", total);

    core_params c;
    set(&c, "general", "private", "128", "4");
    CHECK(!fam->valid(ctx, &problem, &c), "private entries need the generated kernel");
    set(&c, "generated", "private", "100000", "4");
    CHECK(!fam->valid(ctx, &problem, &c), "work-group beyond the device refused");

    /* every value of every parameter at least once */
    const char *cover[][4] = {{"generated", "private", "32", "1"},
                              {"generated", "local", "64", "2"},
                              {"general", "global", "128", "4"},
                              {"general", "local", "256", "8"},
                              {"generated", "global", "512", "16"}};
    for (size_t k = 0; k < sizeof cover / sizeof cover[0]; ++k) {
        set(&c, cover[k][0], cover[k][1], cover[k][2], cover[k][3]);
        char text[160];
        core_params_format(&c, text, sizeof text);
        if (!fam->valid(ctx, &problem, &c)) {
            printf("skip %s: not valid on this device\n", text);
            continue;
        }
        double ms = -1;
        clpk_status st = fam->evaluate(ctx, &problem, &c, 3, &ms);
        CHECK(st == CLPK_SUCCESS && ms >= 0, "evaluate %s: %s", text, clpk_last_error(ctx));
        printf("%-60s %.3f ms\n", text, ms);
    }
    for (int i = 0; i < sp.count; ++i)
        for (int v = 0; v < sp.params[i].count; ++v) {
            int covered = 0;
            for (size_t k = 0; k < sizeof cover / sizeof cover[0]; ++k)
                covered |= !strcmp(cover[k][i], sp.params[i].values[v]);
            CHECK(covered, "value %s=%s covered by the evaluated set", sp.params[i].name, sp.params[i].values[v]);
        }
    core_params d;
    fam->defaults(ctx, &problem, &d);
    double ms = -1;
    CHECK(fam->valid(ctx, &problem, &d) && fam->evaluate(ctx, &problem, &d, 2, &ms) == CLPK_SUCCESS,
          "defaults evaluate: %s", clpk_last_error(ctx));
    fam->problem_destroy(&problem);
    clpk_context_destroy(ctx);
    return check_summary();
}
