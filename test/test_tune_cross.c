/* The tuner's cross-check (tune_cross_check): each entry's parameters measured on the family's other problems of the
 * same string features, next to their defaults; the "valid" box it writes holds the entry's own problem and the
 * problems where its parameters held; the library then applies the entry only there. With too little budget each
 * entry is checked on its nearest problems only; off with no_cross_check; a resumed run takes its measurements from
 * the cache. */
#include "check.h"
#include "param_table.h"
#include "tune_fakes.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <unistd.h>

/* Four problems: f32 at sizes 1000, 10000, 100000 and f64 at 10000. Parameter t (0..4, defaults 4): problem i is
 * fastest at t = i (1 ms); the defaults take 2 ms; t = 1 also holds on problem 2 (1.5 ms); anything else 10 ms. */
#define SCALE_PROBLEMS 4
static const char *const scale_t_values[] = {"0", "1", "2", "3", "4", NULL};
static int scale_cross_calls; /* evaluations with the cross-check's repeats */
static double scale_eval_s;   /* virtual seconds per evaluation */

static int scale_count(const tune_options *opts) { return SCALE_PROBLEMS; }

static clpk_status scale_create(clpk_context *ctx, const tune_options *opts, int index, tune_problem *p) {
    int *state = malloc(sizeof *state);
    if (!state) return CLPK_ERROR_OUT_OF_MEMORY;
    *state = index;
    p->state = state;
    snprintf(p->label, sizeof p->label, "scale %d", index);
    core_params_clear(&p->klass);
    core_params_set(&p->klass, "precision", index == 3 ? "f64" : "f32");
    core_params_set_int(&p->klass, "size", index == 3 ? 10000 : index == 0 ? 1000 : index == 1 ? 10000 : 100000);
    return CLPK_SUCCESS;
}

static void scale_destroy(tune_problem *p) {
    free(p->state);
    p->state = NULL;
}

static clpk_status scale_space(clpk_context *ctx, const tune_problem *p, tune_space *space) {
    return tune_space_add(space, "t", scale_t_values);
}

static void scale_defaults(clpk_context *ctx, const tune_problem *p, core_params *out) {
    core_params_set(out, "t", "4");
}

static clpk_status scale_evaluate(clpk_context *ctx, tune_problem *p, const core_params *c, int repeats, double *ms) {
    int i = *(int *)p->state, t = (int)core_params_get_int(c, "t", -1);
    fake_sleep(scale_eval_s);
    scale_cross_calls += repeats == FAKE_REPEATS + 2; /* the re-measure's rounds take fewer */
    *ms = t == i ? 1.0 : t == 4 ? 2.0 : t == 1 && i == 2 ? 1.5 : 10.0;
    return CLPK_SUCCESS;
}

static const tune_family scale_family = {
    .name = "scale",
    .problem_count = scale_count,
    .problem_create = scale_create,
    .problem_destroy = scale_destroy,
    .space = scale_space,
    .evaluate = scale_evaluate,
    .defaults = scale_defaults,
    .prebuild_safe = 0,
};

static const tune_result *result_of(const tune_report *r, int index) {
    for (int i = 0; i < r->count; ++i)
        if (r->items[i].problem_index == index) return &r->items[i];
    return NULL;
}

static const char *get(const core_params *p, const char *key) {
    const char *v = core_params_get(p, key);
    return v ? v : "(none)";
}

static void cross_config(tune_config *cfg) {
    fake_config(cfg, CLPK_TUNE_EXHAUSTIVE);
    cfg->no_cross_check = 0;
}

static void test_boxes(clpk_context *ctx, const char *dir) {
    tune_config cfg;
    cross_config(&cfg);
    char cache[512], profile[512];
    snprintf(cache, sizeof cache, "%s/cross.cache.jsonl", dir);
    snprintf(profile, sizeof profile, "%s/cross.json", dir);
    cfg.cache_path = cache;
    const tune_family *fams[] = {&scale_family, NULL};
    tune_report r;
    scale_cross_calls = 0;
    scale_eval_s = 0.001;
    if (!CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS && r.count == SCALE_PROBLEMS, "run: %s",
               clpk_last_error(ctx)))
        return;
    /* want: box of each problem's entry, checks and passes (f32 entries checked on the 2 other f32 problems) */
    const char *boxes[] = {"1000..1000", "10000..100000", "100000..100000", NULL};
    const int passed[] = {0, 1, 0, 0}, checked[] = {2, 2, 2, 0};
    for (int i = 0; i < SCALE_PROBLEMS; ++i) {
        const tune_result *x = result_of(&r, i);
        char t[8];
        snprintf(t, sizeof t, "%d", i);
        if (!CHECK(x && x->found && !strcmp(get(&x->best, "t"), t), "problem %d tuned to t=%d", i, i)) continue;
        CHECK(x->cross_checked == checked[i] && x->cross_passed == passed[i], "problem %d: checked %d passed %d", i,
              x->cross_checked, x->cross_passed);
        CHECK(x->valid_set == (boxes[i] != NULL), "problem %d: box set %d", i, x->valid_set);
        if (boxes[i])
            CHECK(!strcmp(get(&x->valid, "size"), boxes[i]) && !core_params_get(&x->valid, "precision"),
                  "problem %d: valid size %s (want %s), numeric features only", i, get(&x->valid, "size"), boxes[i]);
    }
    CHECK(scale_cross_calls == 6 && !r.cross_note[0], "6 cross measurements (%d), nothing skipped (%s)",
          scale_cross_calls, r.cross_note);
    clpk_error err = {0};
    CHECK(tune_profile_write(profile, clpk_context_device_info(ctx), &r, &err) == CLPK_SUCCESS, "write: %s",
          err.message);
    tune_report_free(&r);

    /* The file: "valid" as [lo, hi] numbers and "checked_on"; it loads, and each entry applies inside its box. */
    char *text = NULL;
    cJSON *root = core_read_file(profile, &text, NULL, NULL) == CLPK_SUCCESS ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *entries = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "families"), "scale");
    const cJSON *e1 = NULL, *e;
    cJSON_ArrayForEach(e, entries) {
        if (cJSON_GetObjectItem(cJSON_GetObjectItem(e, "class"), "size")->valuedouble == 10000 &&
            !strcmp(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "class"), "precision")->valuestring, "f32"))
            e1 = e;
    }
    const cJSON *size = cJSON_GetObjectItem(cJSON_GetObjectItem(e1, "valid"), "size");
    const cJSON *on = cJSON_GetObjectItem(e1, "checked_on");
    CHECK(cJSON_GetArraySize(size) == 2 && cJSON_GetArrayItem(size, 0)->valuedouble == 10000 &&
              cJSON_GetArrayItem(size, 1)->valuedouble == 100000,
          "valid.size is [10000, 100000]");
    CHECK(cJSON_GetObjectItem(on, "problems")->valuedouble == 2 && cJSON_GetObjectItem(on, "passed")->valuedouble == 1,
          "checked_on {problems 2, passed 1}");
    cJSON_Delete(root);

    setenv("CLPK_PROFILE", profile, 1);
    clpk_context *c2 = NULL;
    clpk_context_create(&c2, NULL);
    if (CHECK(c2 && clpk_context_profile(c2, NULL) != CLPK_PROFILE_DEFAULTS, "the written profile loads")) {
        struct {
            const char *features, *t;
        } cases[] = {{"precision=f32,size=1000", "0"},       {"precision=f32,size=2000", "defaults"},
                     {"precision=f32,size=50000", "1"},      {"precision=f32,size=100000", "2"},
                     {"precision=f32,size=1e6", "defaults"}, {"precision=f64,size=1e6", "3"}};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            core_params f, p;
            core_params_clear(&f);
            core_params_clear(&p);
            core_params_parse(&f, cases[i].features, NULL);
            core_params_set(&p, "t", "defaults");
            char reason[320];
            core_profile_choose_within(c2, "scale", &f, 0, &p, NULL, reason, sizeof reason);
            CHECK(!strcmp(get(&p, "t"), cases[i].t), "%s -> t=%s (want %s): %s", cases[i].features, get(&p, "t"),
                  cases[i].t, reason);
        }
    }
    clpk_context_destroy(c2);
    unsetenv("CLPK_PROFILE");

    /* Resumed: the cross measurements come from the cache. */
    cfg.resume = 1;
    scale_cross_calls = 0;
    if (CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS, "resumed run")) {
        CHECK(scale_cross_calls == 0 && result_of(&r, 1)->valid_set && result_of(&r, 1)->cross_passed == 1,
              "resumed: nothing measured again (%d), same boxes", scale_cross_calls);
        tune_report_free(&r);
    }
    remove(cache);
    remove(profile);
}

static void test_off_and_budget(clpk_context *ctx) {
    const tune_family *fams[] = {&scale_family, NULL};
    tune_config cfg;
    cross_config(&cfg);
    cfg.no_cross_check = 1;
    tune_report r;
    scale_cross_calls = 0;
    scale_eval_s = 0.001;
    if (CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS, "run")) {
        int any = 0;
        for (int i = 0; i < r.count; ++i)
            any |= r.items[i].valid_set || r.items[i].cross_checked;
        CHECK(!any && scale_cross_calls == 0, "no_cross_check: no box, nothing measured");
        tune_report_free(&r);
    }
    /* A budget the searches spend: every problem is tuned (5 points of 1 s each, no re-measure) in 20 of its 22.5 s,
     * and the whole cross-check (6 measurements of 5/3 s) does not fit in the 5 s left: each entry is checked on its
     * nearest problem only (3 measurements), saying what was left out. Every f32 entry failed there (t = i is slow
     * elsewhere), so its box is its own size: never a problem it was not measured on. */
    cross_config(&cfg);
    cfg.top_k = 0;
    cfg.budget_s = 25;
    scale_eval_s = 1.0;
    scale_cross_calls = 0;
    double start = fake_clock_s;
    if (CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS, "budgeted run")) {
        int tuned = 0;
        for (int i = 0; i < r.count; ++i)
            tuned += r.items[i].found;
        CHECK(tuned == SCALE_PROBLEMS && scale_cross_calls == 3 &&
                  strstr(r.cross_note, "1 nearest problems: 3 of 6 measurements left out"),
              "budget nearly spent: %d tuned, %d measured (%s)", tuned, scale_cross_calls, r.cross_note);
        for (int i = 0; i < 3; ++i) {
            const tune_result *x = result_of(&r, i);
            char own[64];
            snprintf(own, sizeof own, "%s..%s", get(&x->klass, "size"), get(&x->klass, "size"));
            CHECK(x->cross_checked == 1 && x->cross_passed == 0 && x->valid_set &&
                      strcmp(get(&x->valid, "size"), own) == 0,
                  "problem %d: checked on its nearest problem only, box %s", i, get(&x->valid, "size"));
        }
        CHECK(fake_clock_s - start <= cfg.budget_s, "within the budget: %.1f s", fake_clock_s - start);
        tune_report_free(&r);
    }
    scale_eval_s = 0.001;
}

FAKE_FAMILY(plain, 0);

/* The fakes of the engine's tests: every entry's box holds its own problem's size. */
static void test_fakes(clpk_context *ctx) {
    tune_config cfg;
    cross_config(&cfg);
    cfg.strategy = CLPK_TUNE_HILL;
    const tune_family *fams[] = {&fake_family_plain, NULL};
    tune_report r;
    if (!CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS && r.count == FAKE_PROBLEMS, "fake run")) return;
    for (int i = 0; i < r.count; ++i) {
        const tune_result *x = &r.items[i];
        double size = (double)core_params_get_int(&x->klass, "size", -1);
        const char *box = get(&x->valid, "size"), *dots = strstr(box, "..");
        double lo = atof(box), hi = dots ? atof(dots + 2) : -1;
        CHECK(x->found && x->valid_set && x->cross_checked == FAKE_PROBLEMS - 1 && lo <= size && size <= hi,
              "fake problem %d: box %s holds size %g (checked on %d, passed %d)", i, get(&x->valid, "size"), size,
              x->cross_checked, x->cross_passed);
    }
    tune_report_free(&r);
}

int main(void) {
    check_seed();
    setenv("CLPK_LOG", "error", 1);
    char dir[] = "/tmp/clpk-test-cross-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "temporary directory")) return check_summary();
    unsetenv("CLPK_PROFILE");
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no OpenCL device")) return check_summary();
    test_boxes(ctx, dir);
    test_off_and_budget(ctx);
    test_fakes(ctx);
    clpk_context_destroy(ctx);
    rmdir(dir);
    return check_summary();
}
