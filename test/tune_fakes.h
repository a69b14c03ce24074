/* Fake tuner families for the framework's tests: a synthetic space whose "time" is a known function of the
 * parameters, with switches that make some points fail the way real candidates do (wrong result, build failure,
 * out of resources, past the time limit, flaky between runs). Header-only: included by test_tune_*.c. */
#ifndef CLPK_TEST_TUNE_FAKES_H
#define CLPK_TEST_TUNE_FAKES_H

#include "tune_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    FAKE_WRONG_B1 = 1 << 0,     /* b == 1: wrong result (while claiming to be the fastest) */
    FAKE_BUILD_A2 = 1 << 1,     /* a == 2: build failure */
    FAKE_SLOW_CX = 1 << 2,      /* c == x: takes FAKE_SLOW_S of (virtual) time (past the test's per-candidate limit) */
    FAKE_FLAKY_BEST = 1 << 3,   /* the optimum passes the search but fails when measured again */
    FAKE_SLEEP = 1 << 4,        /* every evaluation takes FAKE_SLEEP_S of (virtual) time (budget tests) */
    FAKE_OOM_A64 = 1 << 5,      /* a == 64: out of resources */
    FAKE_FAIL_CREATE1 = 1 << 6, /* problem 1 cannot be created */
    FAKE_PROGRAM = 1 << 7,      /* each point first gets a real OpenCL program, one per (a, c) (prebuild tests) */
    FAKE_SLOW_START = 1 << 8,   /* a problem's first two re-measure calls run 50 % slower (clocks ramping up) */
    FAKE_FLAKY_LATE = 1 << 9    /* the optimum passes the search and its first re-measure, then fails */
};

#define FAKE_SLOW_S 0.030
#define FAKE_SLEEP_S 0.003
#define FAKE_NA 8
#define FAKE_NB 8
#define FAKE_NC 2

static const char *const fake_a_values[] = {"1", "2", "4", "8", "16", "32", "64", "128", NULL};
static const char *const fake_b_values[] = {"1", "2", "3", "4", "5", "6", "7", "8", NULL};
static const char *const fake_c_values[] = {"x", "y", NULL};

/* How many times each point was evaluated, per phase (repeats == FAKE_REPEATS: search; else the re-measure),
 * over the whole test process so a resumed run can be compared with the interrupted one. */
#define FAKE_REPEATS 3
#define FAKE_PROBLEMS 3
static int fake_search_calls[FAKE_PROBLEMS][FAKE_NA][FAKE_NB][FAKE_NC];
static int fake_final_calls[FAKE_PROBLEMS][FAKE_NA][FAKE_NB][FAKE_NC];

typedef struct fake_state {
    int mode, index;
    int finals, optimum_finals; /* re-measure calls of the problem, and of its optimum */
} fake_state;

/* The points of the re-measure calls in order (a, b, c digits), over the process; reset by the test. */
static int fake_final_order[256][3], fake_final_order_count;

/* FAKE_PROGRAM: the source's tag (a run with a new tag cannot reuse the programs of the last one), the order in
 * which points were measured, and how many of the measured evaluations compiled their program themselves. */
static int fake_program_tag;
static int fake_measured[512][3], fake_measured_count, fake_serial_builds;

/* In-process runs (fake_config) use a virtual clock that only the fakes' "work" advances, so a test's budgets and
 * limits cut the same searches however loaded the machine is. A process that never called fake_config (clpk-tune
 * run as a child by test_tune_cli, whose watchdog needs real time) sleeps for real. */
static int fake_virtual_time;
static double fake_clock_s;
static double fake_clock(void *user) {
    (void)user;
    return fake_clock_s;
}
static void fake_sleep(double s) {
    if (fake_virtual_time) {
        fake_clock_s += s;
        return;
    }
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static int fake_digit(const char *const *values, const char *v) {
    for (int i = 0; v && values[i]; ++i)
        if (strcmp(values[i], v) == 0) return i;
    return -1;
}

/* Separable and convex in (log2 a, b): the optimum is a = 8, b = 3, c = y with 1 ms (problem 0); other problems
 * shift the optimum of b so classes differ. */
static double fake_time_ms(int index, int ia, int ib, int ic) {
    double da = ia - 3, db = ib - (2 + index % 3);
    return 1.0 + 0.3 * da * da + 0.2 * db * db + (ic == 0 ? 0.5 : 0.0) + 0.1 * index;
}

static int fake_count(const tune_options *opts) { return opts->quick ? 1 : FAKE_PROBLEMS; }

static clpk_status fake_create_mode(clpk_context *ctx, const tune_options *opts, int index,
                                    tune_problem *problem, int mode) {
    fake_state *st = calloc(1, sizeof *st);
    if (!st) return CLPK_ERROR_OUT_OF_MEMORY;
    st->mode = mode;
    st->index = index;
    problem->state = st;
    /* Fails with its state half built, left for fake_destroy as tune.h allows. */
    if ((mode & FAKE_FAIL_CREATE1) && index == 1)
        return core_fail(ctx, CLPK_ERROR_INVALID_DATA, "fake: problem 1 cannot be created");
    snprintf(problem->label, sizeof problem->label, "fake problem %d", index);
    core_params_clear(&problem->klass);
    core_params_set(&problem->klass, "precision", "f32");
    core_params_set_int(&problem->klass, "size", 1000 * (index + 1));
    return CLPK_SUCCESS;
}

static int fake_destroyed; /* problem states destroyed, over the process */

static void fake_destroy(tune_problem *problem) {
    fake_destroyed += problem->state != NULL;
    free(problem->state);
    problem->state = NULL;
}

static clpk_status fake_space(clpk_context *ctx, const tune_problem *problem, tune_space *space) {
    CLPK_TRY(tune_space_add(space, "a", fake_a_values));
    CLPK_TRY(tune_space_add(space, "b", fake_b_values));
    return tune_space_add(space, "c", fake_c_values);
}

/* Pruning as a family would (e.g. a local-memory limit): the largest corner is refused. */
static int fake_valid(clpk_context *ctx, const tune_problem *problem, const core_params *p) {
    return !(core_params_get_int(p, "a", 0) == 128 && core_params_get_int(p, "b", 0) == 8);
}

static void fake_defaults(clpk_context *ctx, const tune_problem *problem, core_params *out) {
    core_params_set(out, "a", "1");
    core_params_set(out, "b", "1");
    core_params_set(out, "c", "x");
}

static clpk_status fake_evaluate(clpk_context *ctx, tune_problem *problem, const core_params *p, int repeats,
                                 double *median_ms) {
    fake_state *st = problem->state;
    int ia = fake_digit(fake_a_values, core_params_get(p, "a"));
    int ib = fake_digit(fake_b_values, core_params_get(p, "b"));
    int ic = fake_digit(fake_c_values, core_params_get(p, "c"));
    if (ia < 0 || ib < 0 || ic < 0) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "fake: unknown point");
    if (st->mode & FAKE_PROGRAM) {
        char source[160], options[64];
        snprintf(source, sizeof source, "/* tag %d */ __kernel void fake(__global int *x) { x[0] = A + C; }\n",
                 fake_program_tag);
        snprintf(options, sizeof options, "-DA=%d -DC=%d", ia, ic);
        clpk_cache_stats before, after;
        clpk_context_cache_stats(ctx, &before);
        cl_program program;
        CLPK_TRY(core_program_get_text(ctx, source, options, &program)); /* deferred while the tuner records */
        clpk_context_cache_stats(ctx, &after);
        fake_serial_builds += (int)(after.builds - before.builds);
        if (fake_measured_count < 512) {
            fake_measured[fake_measured_count][0] = ia;
            fake_measured[fake_measured_count][1] = ib;
            fake_measured[fake_measured_count++][2] = ic;
        }
    }
    if (st->index < FAKE_PROBLEMS) {
        if (repeats == FAKE_REPEATS)
            fake_search_calls[st->index][ia][ib][ic]++;
        else
            fake_final_calls[st->index][ia][ib][ic]++;
    }
    int final = repeats != FAKE_REPEATS, optimum = ia == 3 && ib == 2 + st->index % 3 && ic == 1;
    if (final && fake_final_order_count < 256) {
        fake_final_order[fake_final_order_count][0] = ia;
        fake_final_order[fake_final_order_count][1] = ib;
        fake_final_order[fake_final_order_count++][2] = ic;
    }
    int slow_start = final && st->finals++ < 2;
    st->optimum_finals += final && optimum;
    if (st->mode & FAKE_SLEEP) fake_sleep(FAKE_SLEEP_S);
    if ((st->mode & FAKE_BUILD_A2) && ia == 1)
        return core_fail(ctx, CLPK_ERROR_BUILD, "fake: kernel build failed; build log:\nerror: a == 2");
    if ((st->mode & FAKE_OOM_A64) && ia == 6) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "fake: out of resources");
    if ((st->mode & FAKE_SLOW_CX) && ic == 0) fake_sleep(FAKE_SLOW_S);
    *median_ms = fake_time_ms(st->index, ia, ib, ic);
    if ((st->mode & FAKE_WRONG_B1) && ib == 0) {
        *median_ms = 0.01; /* a broken candidate is often the fastest one */
        return core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "fake: max relative error 0.5 > 1e-5");
    }
    if ((st->mode & FAKE_SLOW_CX) && ic == 0) *median_ms = 0.02; /* fast kernel, slow everything else */
    if ((st->mode & FAKE_FLAKY_BEST) && final && optimum)
        return core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "fake: result changed between runs");
    if ((st->mode & FAKE_FLAKY_LATE) && final && optimum && st->optimum_finals > 1)
        return core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "fake: result changed in a later round");
    if ((st->mode & FAKE_SLOW_START) && slow_start) *median_ms *= 1.5;
    return CLPK_SUCCESS;
}

#define FAKE_FAMILY(suffix, mode_bits)                                                                                 \
    static clpk_status fake_create_##suffix(clpk_context *ctx, const tune_options *opts, int index,                    \
                                            tune_problem *problem) {                                                   \
        return fake_create_mode(ctx, opts, index, problem, (mode_bits));                                               \
    }                                                                                                                  \
    static const tune_family fake_family_##suffix = {                                                                  \
        .name = "fake_" #suffix,                                                                                       \
        .problem_count = fake_count,                                                                                   \
        .problem_create = fake_create_##suffix,                                                                        \
        .problem_destroy = fake_destroy,                                                                               \
        .space = fake_space,                                                                                           \
        .valid = fake_valid,                                                                                           \
        .evaluate = fake_evaluate,                                                                                     \
        .defaults = fake_defaults,                                                                                     \
        .prebuild_safe = 0,                                                                                            \
    }

/* The best point of problem `index` is a = 8, b = 3 + index % 3, c = y. */
static inline int fake_is_optimum(const tune_result *r, int index) {
    char b[8];
    snprintf(b, sizeof b, "%d", 3 + index % 3);
    const char *va = core_params_get(&r->best, "a"), *vb = core_params_get(&r->best, "b");
    const char *vc = core_params_get(&r->best, "c");
    return va && vb && vc && !strcmp(va, "8") && !strcmp(vb, b) && !strcmp(vc, "y");
}

static inline void fake_reset_counts(void) {
    memset(fake_search_calls, 0, sizeof fake_search_calls);
    memset(fake_final_calls, 0, sizeof fake_final_calls);
}

/* A tuner configuration for the fakes: few repeats, no budget. */
static inline void fake_config(tune_config *cfg, tune_strategy strategy) {
    tune_config_defaults(cfg);
    cfg->strategy = strategy;
    cfg->repeats = FAKE_REPEATS;
    cfg->final_repeats = FAKE_REPEATS + 2;
    cfg->samples = 12;
    cfg->build_threads = 1; /* the fakes build no programs (only FAKE_PROGRAM, whose test sets its own) */
    cfg->clock = fake_clock;
    cfg->no_cross_check = 1; /* the engine's tests count evaluations; test_tune_cross turns it on */
    fake_virtual_time = 1;
}

#endif
