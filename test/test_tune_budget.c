/* The run budget shared out by the families' weights (tune_family.budget_weight): each family its weight's part of
 * what is left, time a family leaves passing on to the next, a model trainer its share as deadline, and
 * --family-budget unchanged. On the fakes' virtual clock, each problem's search stops at its deadline with at most
 * one evaluation (FAKE_SLEEP_S) over. */
#include "check.h"
#include "tune_fakes.h"

#include <math.h>

/* Searches take 3 problems x 126 points x 3 ms (> 1.1 s): each family uses all of any share below that. */
static clpk_status sleepy_create(clpk_context *ctx, const tune_options *opts, int index, tune_problem *problem) {
    return fake_create_mode(ctx, opts, index, problem, FAKE_SLEEP);
}
/* Searches take no time: a family that leaves its share. */
static clpk_status quick_create(clpk_context *ctx, const tune_options *opts, int index, tune_problem *problem) {
    return fake_create_mode(ctx, opts, index, problem, 0);
}

/* A trainer that records its deadline and uses only half of what it was given. */
static double trained_at, trained_deadline;
static clpk_status half_trainer(clpk_context *ctx, const tune_model_request *req, void **model_json, char *note,
                                size_t note_size) {
    trained_at = req->now(req->clock_user);
    trained_deadline = req->deadline;
    fake_sleep((req->deadline - trained_at) / 2);
    *model_json = NULL;
    snprintf(note, note_size, "fake model");
    return CLPK_SUCCESS;
}

#define WEIGHTED(var, label, create, weight, trainer)                                                                  \
    static const tune_family var = {.name = label,                                                                     \
                                    .problem_count = fake_count,                                                       \
                                    .problem_create = create,                                                          \
                                    .problem_destroy = fake_destroy,                                                   \
                                    .space = fake_space,                                                               \
                                    .valid = fake_valid,                                                               \
                                    .evaluate = fake_evaluate,                                                         \
                                    .defaults = fake_defaults,                                                         \
                                    .budget_weight = weight,                                                           \
                                    .train_model = trainer}

WEIGHTED(light, "light", sleepy_create, 1, NULL);
WEIGHTED(heavy, "heavy", sleepy_create, 3, NULL);
WEIGHTED(unweighted, "unweighted", sleepy_create, 0, NULL);
WEIGHTED(early, "early", quick_create, 2, NULL);
WEIGHTED(model, "model", sleepy_create, 2, half_trainer);

/* When each family's last problem was done, on the virtual clock. */
typedef struct family_ends {
    const char *names[4];
    double end[4];
} family_ends;

static void note_end(void *user, const tune_event *ev) {
    family_ends *e = user;
    if (ev->kind != CLPK_TUNE_EVENT_PROBLEM_DONE) return;
    for (int i = 0; i < 4 && e->names[i]; ++i)
        if (strcmp(ev->family, e->names[i]) == 0) e->end[i] = fake_clock_s;
}

/* A search overruns its deadline by one evaluation at most, and the next share starts where it stopped. */
static int near(double got, double want) { return fabs(got - want) <= FAKE_SLEEP_S + 1e-9; }

/* Runs `fams` with the budget, exhaustive (so every share is used up), no re-measure (top_k 0) and no cross-check:
 * each family's time is its search's. Returns the run's start on the virtual clock. */
static double run_weighted(clpk_context *ctx, const tune_family *const *fams, double budget, double family_budget,
                           family_ends *ends) {
    tune_config cfg;
    fake_config(&cfg, CLPK_TUNE_EXHAUSTIVE);
    cfg.top_k = 0;
    cfg.budget_s = budget;
    cfg.family_budget_s = family_budget;
    cfg.on_event = note_end;
    cfg.event_user = ends;
    tune_report r;
    double start = fake_clock_s;
    CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS, "weighted run");
    tune_report_free(&r);
    return start;
}

static void test_weighted_shares(clpk_context *ctx) {
    /* Only the selected families' weights count: light 1/4 of the budget, heavy 3/4. */
    const tune_family *pair[] = {&light, &heavy, NULL};
    family_ends e = {{"light", "heavy"}, {0}};
    double start = run_weighted(ctx, pair, 0.8, 0, &e);
    CHECK(near(e.end[0] - start, 0.2), "light: %.4f s of 0.8 (weight 1 of 4)", e.end[0] - start);
    CHECK(near(e.end[1] - e.end[0], 0.6), "heavy: %.4f s of 0.8 (weight 3 of 4)", e.end[1] - e.end[0]);

    /* A trainer's deadline is its share (2 of 6: 0.4 s of 1.2); the half it leaves passes on to the families after
     * it: light 1/4 and heavy 3/4 of the remaining 1.0 s. */
    const tune_family *with_model[] = {&model, &light, &heavy, NULL};
    family_ends m = {{"light", "heavy"}, {0}};
    start = run_weighted(ctx, with_model, 1.2, 0, &m);
    CHECK(fabs(trained_at - start) < 1e-9 && fabs(trained_deadline - start - 0.4) < 1e-9,
          "the trainer's deadline is its share: %.4f s", trained_deadline - trained_at);
    CHECK(near(m.end[0] - start, 0.2 + 0.25), "light after the trainer: %.4f s (0.25 of the 1.0 s left)",
          m.end[0] - start - 0.2);
    CHECK(near(m.end[1] - m.end[0], 0.75), "heavy: %.4f s (0.75 of the 1.0 s left)", m.end[1] - m.end[0]);

    /* A family done early (weight 2 of 6) leaves its share to the next ones: light 0.3 s and heavy 0.9 s of 1.2. */
    const tune_family *with_early[] = {&early, &light, &heavy, NULL};
    family_ends q = {{"early", "light", "heavy"}, {0}};
    start = run_weighted(ctx, with_early, 1.2, 0, &q);
    CHECK(q.end[0] - start < 1e-9, "the early family took no time: %.4f s", q.end[0] - start);
    CHECK(near(q.end[1] - q.end[0], 0.3), "light: %.4f s (1/4 of what the early family left)", q.end[1] - q.end[0]);
    CHECK(near(q.end[2] - q.end[1], 0.9), "heavy: %.4f s (3/4 of it)", q.end[2] - q.end[1]);

    /* A family without a weight counts as the mean of the declared ones (2): light 1/6, unweighted 2/6, heavy 3/6. */
    const tune_family *mixed[] = {&light, &unweighted, &heavy, NULL};
    family_ends u = {{"light", "unweighted", "heavy"}, {0}};
    start = run_weighted(ctx, mixed, 1.2, 0, &u);
    CHECK(near(u.end[0] - start, 0.2), "light: %.4f s (1 of 6)", u.end[0] - start);
    CHECK(near(u.end[1] - u.end[0], 0.4), "unweighted: %.4f s (the mean weight, 2 of 6)", u.end[1] - u.end[0]);
    CHECK(near(u.end[2] - u.end[1], 0.6), "heavy: %.4f s (3 of 6)", u.end[2] - u.end[1]);

    /* --family-budget keeps its meaning: each family that much, whatever its weight. */
    family_ends f = {{"light", "heavy"}, {0}};
    start = run_weighted(ctx, pair, 0, 0.15, &f);
    CHECK(near(f.end[0] - start, 0.15), "light with a family budget: %.4f s", f.end[0] - start);
    CHECK(near(f.end[1] - f.end[0], 0.15), "heavy with a family budget: %.4f s", f.end[1] - f.end[0]);
}

int main(void) {
    check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no OpenCL device")) return check_summary();
    test_weighted_shares(ctx);
    clpk_context_destroy(ctx);
    return check_summary();
}
