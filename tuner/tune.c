/* The tuner's engine: walks each family's problems, searches the constrained space with a strategy under time
 * budgets, checks and times every candidate through the family's `evaluate`, measures the best few and the defaults
 * again, and records every failure instead of stopping on it. */
#include "tune_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TUNE_MAX_FAMILIES 16
#define HILL_STARTS 3
#define WARM_STARTS 4 /* winners of earlier problems measured first (warm_starts) */

const char *tune_strategy_name(tune_strategy s) {
    switch (s) {
    case CLPK_TUNE_EXHAUSTIVE: return "exhaustive";
    case CLPK_TUNE_RANDOM: return "random";
    case CLPK_TUNE_HILL: return "hill";
    }
    return "unknown";
}

clpk_status tune_strategy_parse(const char *text, tune_strategy *out) {
    static const tune_strategy all[] = {CLPK_TUNE_EXHAUSTIVE, CLPK_TUNE_RANDOM, CLPK_TUNE_HILL};
    for (size_t i = 0; text && i < sizeof all / sizeof all[0]; ++i) {
        if (strcmp(text, tune_strategy_name(all[i])) == 0) {
            *out = all[i];
            return CLPK_SUCCESS;
        }
    }
    return CLPK_ERROR_INVALID_ARGUMENT;
}

const char *tune_outcome_name(tune_outcome o) {
    static const char *const names[CLPK_TUNE_OUTCOMES] = {"ok", "wrong", "build", "timeout", "resources", "error"};
    return (unsigned)o < CLPK_TUNE_OUTCOMES ? names[o] : "unknown";
}

tune_outcome tune_outcome_of(clpk_status st) {
    switch (st) {
    case CLPK_SUCCESS: return CLPK_TUNE_OK;
    case CLPK_ERROR_WRONG_RESULT: return CLPK_TUNE_WRONG;
    case CLPK_ERROR_BUILD: return CLPK_TUNE_BUILD;
    case CLPK_ERROR_TIMEOUT: return CLPK_TUNE_TIMEOUT;
    case CLPK_ERROR_OUT_OF_MEMORY:
    case CLPK_ERROR_UNSUPPORTED: return CLPK_TUNE_RESOURCES;
    default: return CLPK_TUNE_ERROR;
    }
}

void tune_config_defaults(tune_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->strategy = CLPK_TUNE_HILL;
    cfg->repeats = 5;
    cfg->final_repeats = 15;
    cfg->top_k = 4;
    cfg->samples = 24;
    cfg->first_round_share = 1.0;
    cfg->opts.seed = 1;
}

void tune_report_free(tune_report *report) {
    if (!report) return;
    free(report->items);
    memset(report, 0, sizeof *report);
}

/* ---- Space points ---------------------------------------------------------------------------------------------- */

double tune_space_size(const tune_space *space) {
    double n = 1;
    for (int i = 0; i < space->count; ++i)
        n *= space->params[i].count;
    return n;
}

static void point_from_digits(const tune_space *space, const int *digits, core_params *out) {
    tune_space_digits_point(space, digits, out);
}

/* The last parameter varies fastest. */
static void digits_of_index(const tune_space *space, unsigned long long index, int *digits) {
    for (int i = space->count - 1; i >= 0; --i) {
        unsigned long long n = (unsigned long long)space->params[i].count;
        digits[i] = n ? (int)(index % n) : 0;
        index = n ? index / n : 0;
    }
}

void tune_space_point(const tune_space *space, unsigned long long index, core_params *out) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    digits_of_index(space, index, digits);
    point_from_digits(space, digits, out);
}

/* ---- One problem's search -------------------------------------------------------------------------------------- */

/* Points keep their digits only (parameters are rebuilt from them), so a large space costs little memory; the one
 * point outside the space, the defaults, is kept in the search. */
typedef struct point {
    int digits[CLPK_TUNE_MAX_PARAMS];
    int in_space; /* digits are meaningful */
    int pruned;   /* refused by the family's `valid`: never measured, remembered so it is not asked again */
    tune_outcome outcome;
    double ms;
} point;

typedef struct run_state {
    clpk_context *ctx;
    const tune_config *cfg;
    tune_cache *cache;
    tune_report *report;
    double start, deadline; /* deadline: INFINITY when unlimited */
    int problem_index, total_problems;
    int build_threads;         /* resolved cfg->build_threads */
    double prebuild_program_s; /* wall seconds per program compiled ahead (running estimate) */
    /* Budget split over the run's problems (no family budget): each problem an equal share of what is left of
     * round_end; a second round continues the searches the first cut short with whatever is left. */
    int split;
    double round_end;
    int round_left;    /* problems of the current round not started yet (after the current one) */
    double overhead_s; /* per problem, running mean: creation plus the time past its search's deadline */
    int overheads;
    /* The warm starts each result's first search measured (by report index), so a second round replays them and
     * with them the whole first path from the cache. */
    core_params (*warm)[WARM_STARTS];
    int *warm_count;
    int warm_capacity;
} run_state;

typedef struct search {
    run_state *run;
    const tune_family *fam;
    tune_problem *prob;
    const tune_space *space;
    tune_result *res;
    double deadline;
    point *pts;
    int count, capacity;
    int default_index; /* in pts, or -1 */
    core_params default_params;
    unsigned long long *valid; /* the valid points' indices, when listed (enumerate_valid) */
    size_t valid_count;
    int enumerated;
    int *table; /* indices into pts by digits, -1 empty */
    size_t table_size;
    int remembered;
    int planned;
    uint64_t rng;
    int cut; /* a budget, the point cap or the stop flag ended the search */
    /* While set, visit_digits notes new valid points here instead of measuring them (prefetch). */
    int (*collect)[CLPK_TUNE_MAX_PARAMS];
    int (*collect_buffer)[CLPK_TUNE_MAX_PARAMS];
    int collected, collect_capacity;
    int no_prefetch; /* noting programs does not work for this family (prefetch_collected) */
    /* hill: 1 a categorical parameter, fixed in its group's climb; 2 the first parameter standing in for the groups
     * when there are no categories (its climbs may move it); 0 neither */
    int grouped[CLPK_TUNE_MAX_PARAMS];
    /* conditional parameters (tune_space_conditions) */
    int cond[CLPK_TUNE_MAX_PARAMS];
    unsigned applies[CLPK_TUNE_MAX_PARAMS];
    unsigned long long listing; /* combinations asked about while listing (enumerate_valid) */
} search;

static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double now_s(const tune_config *cfg) {
    return cfg->clock ? cfg->clock(cfg->clock_user) : core_wall_seconds();
}

static void emit(run_state *run, tune_event *ev) {
    if (!run->cfg->on_event) return;
    ev->problem_index = run->problem_index;
    ev->total_problems = run->total_problems;
    ev->elapsed_s = now_s(run->cfg) - run->start;
    ev->budget_s = run->cfg->budget_s;
    run->cfg->on_event(run->cfg->event_user, ev);
}

static int stop_requested(const run_state *run) { return run->cfg->stop && *run->cfg->stop; }

/* 1 when the search may not start another candidate. */
static int must_stop(search *s) {
    if (stop_requested(s->run)) {
        s->run->report->stopped = 1;
        return s->cut = 1;
    }
    if (now_s(s->run->cfg) >= s->deadline) {
        s->run->report->budget_exhausted = 1;
        s->res->budget_cut = 1;
        return s->cut = 1;
    }
    if (s->run->cfg->max_points > 0 && s->res->evaluated >= s->run->cfg->max_points) return s->cut = 1;
    return 0;
}

/* Visited points of the space are found through a hash table of their digits (open addressing, power-of-two size),
 * so an exhaustive search of a large space stays linear. */
static size_t digits_hash(const search *s, const int *digits) {
    return (size_t)core_hash64(digits, sizeof(int) * (size_t)s->space->count, 0);
}

static int find_point(const search *s, const int *digits) {
    if (!s->table_size) return -1;
    for (size_t h = digits_hash(s, digits) & (s->table_size - 1);; h = (h + 1) & (s->table_size - 1)) {
        int at = s->table[h];
        if (at < 0) return -1;
        if (memcmp(s->pts[at].digits, digits, sizeof(int) * (size_t)s->space->count) == 0) return at;
    }
}

static void table_put(search *s, int at) {
    for (size_t h = digits_hash(s, s->pts[at].digits) & (s->table_size - 1);; h = (h + 1) & (s->table_size - 1)) {
        if (s->table[h] < 0) {
            s->table[h] = at;
            return;
        }
    }
}

/* Adds pts[at] (a point of the space) to the table, growing it to stay at most half full. */
static int remember(search *s, int at) {
    if (2 * (size_t)(s->remembered + 1) > s->table_size) {
        size_t size = s->table_size ? 2 * s->table_size : 256;
        int *table = malloc(sizeof *table * size);
        if (!table) return 0;
        for (size_t i = 0; i < size; ++i)
            table[i] = -1;
        free(s->table);
        s->table = table;
        s->table_size = size;
        for (int i = 0; i < s->count; ++i)
            if (s->pts[i].in_space && i != at) table_put(s, i);
    }
    table_put(s, at);
    s->remembered++;
    return 1;
}

/* One evaluate call of a candidate in `phase` with `repeats` runs: marked pending in the cache, announced, timed,
 * checked against the per-candidate limit and accounted. With `record` its outcome is counted and stored in the cache
 * (before the event, so a run killed after it loses nothing); else the caller does that (the re-measure records one
 * result for several calls). *wall_s and *build_s: the call's cost. */
static void evaluate_once(search *s, const core_params *params, const char *phase, int repeats, int record,
                          tune_outcome *outcome, double *ms, double *wall_s, double *build_s) {
    run_state *run = s->run;
    tune_cache_mark_pending(run->cache, s->fam->name, &s->prob->klass, phase, params);
    tune_event start = {.kind = CLPK_TUNE_EVENT_CANDIDATE_START,
                             .family = s->fam->name,
                             .label = s->prob->label,
                             .evaluated = s->res->evaluated,
                             .planned = s->planned,
                             .best_ms = -1};
    emit(run, &start);
    clpk_cache_stats before, after;
    clpk_context_cache_stats(run->ctx, &before);
    double t0 = now_s(s->run->cfg);
    double got = INFINITY;
    clpk_status st = s->fam->evaluate(run->ctx, s->prob, params, repeats, &got);
    double dt = now_s(s->run->cfg) - t0;
    clpk_context_cache_stats(run->ctx, &after);
    *wall_s = dt;
    *build_s = after.build_seconds - before.build_seconds;
    s->res->evaluate_s += dt;
    s->res->build_s += *build_s;
    s->res->builds += (int)(after.builds + after.disk_hits - before.builds - before.disk_hits);
    *outcome = tune_outcome_of(st);
    const char *message = st == CLPK_SUCCESS ? NULL : clpk_last_error(run->ctx);
    if (*outcome == CLPK_TUNE_OK && !(got >= 0 && isfinite(got))) {
        *outcome = CLPK_TUNE_ERROR;
        message = "evaluate succeeded without a valid time";
    }
    /* A candidate cannot be interrupted inside the driver; one that ran past the limit is refused afterwards. */
    if (run->cfg->candidate_limit_s > 0 && dt > run->cfg->candidate_limit_s) {
        *outcome = CLPK_TUNE_TIMEOUT;
        message = "ran past the per-candidate time limit";
    }
    *ms = *outcome == CLPK_TUNE_OK ? got : INFINITY;
    if (message && !s->res->note[0]) {
        char text[160], note[512];
        core_params_format(params, text, sizeof text);
        snprintf(note, sizeof note, "%s at %s: %s", tune_outcome_name(*outcome), text, message);
        size_t n = strlen(note) < sizeof s->res->note - 1 ? strlen(note) : sizeof s->res->note - 1;
        memcpy(s->res->note, note, n);
        s->res->note[n] = '\0';
    }
    if (record) {
        s->res->outcomes[*outcome]++;
        tune_cache_store_timed(run->cache, s->fam->name, &s->prob->klass, phase, params, *outcome, *ms, dt,
                                    *build_s);
    }
    tune_event ev = {.kind = CLPK_TUNE_EVENT_CANDIDATE,
                          .family = s->fam->name,
                          .label = s->prob->label,
                          .evaluated = s->res->evaluated + 1,
                          .planned = s->planned,
                          .best_ms = isfinite(s->res->best_ms) ? s->res->best_ms : -1,
                          .outcome = *outcome,
                          .message = message};
    emit(run, &ev);
}

/* Measures one candidate (or takes it from the cache) in `phase` with `repeats` runs. */
static void measure(search *s, const core_params *params, const char *phase, int repeats, tune_outcome *outcome,
                    double *ms) {
    run_state *run = s->run;
    *ms = INFINITY;
    if (tune_cache_lookup(run->cache, s->fam->name, &s->prob->klass, phase, params, outcome, ms)) {
        if (strcmp(phase, "search") == 0) s->res->from_cache++;
        s->res->outcomes[*outcome]++;
        return;
    }
    double wall_s, build_s;
    evaluate_once(s, params, phase, repeats, 1, outcome, ms, &wall_s, &build_s);
}

static void params_of(const search *s, const point *p, core_params *out) {
    if (p->in_space)
        point_from_digits(s->space, p->digits, out);
    else
        *out = s->default_params;
}

/* Puts the parameters that do not matter at `digits` at their first value: the one point of the space for that
 * plan (a move of a strategy-like parameter then lands on a point `valid` accepts). */
static void normalize(const search *s, int *digits) {
    tune_space_normalize(s->space, s->cond, s->applies, digits);
}

/* Whether `digits` is already normalized (an unlisted exhaustive search skips the other combinations). */
static int normal(const search *s, const int *digits) {
    int copy[CLPK_TUNE_MAX_PARAMS];
    memcpy(copy, digits, sizeof copy);
    normalize(s, copy);
    return memcmp(copy, digits, sizeof(int) * (size_t)s->space->count) == 0;
}

static int grow(search *s) {
    if (s->count < s->capacity) return 1;
    int cap = s->capacity ? 2 * s->capacity : 64;
    point *bigger = realloc(s->pts, sizeof *bigger * (size_t)cap);
    if (!bigger) return 0;
    s->pts = bigger;
    s->capacity = cap;
    return 1;
}

/* Adds a point to the search (measuring it); returns its index, or -1 when the search must stop. */
static int visit(search *s, const int *digits, const core_params *params) {
    if (must_stop(s)) return -1;
    if (!grow(s)) return s->cut = 1, -1;
    point *p = &s->pts[s->count];
    memset(p, 0, sizeof *p);
    if (digits) {
        memcpy(p->digits, digits, sizeof(int) * (size_t)s->space->count);
        p->in_space = 1;
        if (!remember(s, s->count)) return s->cut = 1, -1;
    } else {
        s->default_params = *params;
    }
    core_params current;
    params_of(s, p, &current);
    measure(s, &current, "search", s->run->cfg->repeats, &p->outcome, &p->ms);
    s->res->evaluated++;
    if (p->outcome == CLPK_TUNE_OK && p->ms < s->res->best_ms) s->res->best_ms = p->ms;
    return s->count++;
}

#define COLLECTED (-3)
#define COLLECT_CAPACITY 512

/* A point of the space: already visited (its index), pruned by `valid` (-2), measured now (-1: stop), or noted for
 * compiling ahead (COLLECTED, while s->collect is set). */
static int visit_digits(search *s, const int *digits) {
    int at = find_point(s, digits);
    if (at >= 0) return s->pts[at].pruned ? -2 : at;
    core_params params;
    point_from_digits(s->space, digits, &params);
    if (s->fam->valid && !s->fam->valid(s->run->ctx, s->prob, &params)) {
        if (!s->enumerated) s->res->pruned++; /* else counted when listed */
        if (grow(s)) {
            point *p = &s->pts[s->count];
            memset(p, 0, sizeof *p);
            memcpy(p->digits, digits, sizeof(int) * (size_t)s->space->count);
            p->in_space = p->pruned = 1;
            p->outcome = CLPK_TUNE_ERROR;
            p->ms = INFINITY;
            if (remember(s, s->count)) s->count++;
        }
        return -2;
    }
    if (s->collect) {
        for (int k = 0; k < s->collected; ++k)
            if (memcmp(s->collect[k], digits, sizeof(int) * (size_t)s->space->count) == 0) return COLLECTED;
        if (s->collected < s->collect_capacity) memcpy(s->collect[s->collected++], digits, sizeof s->collect[0]);
        return COLLECTED;
    }
    return visit(s, digits, NULL);
}

/* Compiles the programs of the points noted in s->collect (those not measured yet, nor in the resume cache) on
 * several threads before they are measured one by one: the evaluate calls run with the context recording, so plan
 * creation notes its first program and stops (core_program_record). Nothing is measured or counted here. */
static void prefetch_collected(search *s) {
    run_state *run = s->run;
    if (run->build_threads <= 1 || s->no_prefetch || !s->fam->prebuild_safe || s->collected < 2 || must_stop(s)) return;
    core_params params;
    int noted = 0;
    double t0 = now_s(s->run->cfg);
    /* Compile ahead only what the problem's time can pay for (at most half of what is left): a search step can
     * note dozens of points, and a problem with a few seconds would otherwise spend them all compiling programs it
     * never measures. Points past the cap compile one by one when measured, as without compiling ahead. */
    int cap = s->collected;
    if (isfinite(s->deadline)) {
        double affordable = 0.5 * (s->deadline - t0) / run->prebuild_program_s;
        cap = affordable < 2 ? 0 : affordable < cap ? (int)affordable : cap;
    }
    if (cap < 2) return;
    core_program_record(run->ctx, 1);
    for (int k = 0; k < cap; ++k) {
        tune_outcome outcome;
        double ms;
        point_from_digits(s->space, s->collect_buffer[k], &params);
        if (tune_cache_lookup(run->cache, s->fam->name, &s->prob->klass, "search", &params, &outcome, &ms))
            continue;
        double ignored;
        if (s->fam->evaluate(run->ctx, s->prob, &params, 1, &ignored) == CLPK_SUCCESS) {
            /* It ran to the end: this family builds no program through the cache at plan creation, so noting would
             * only run every candidate twice. Not again for this problem. */
            s->no_prefetch = 1;
            break;
        }
        ++noted;
    }
    core_program_record(run->ctx, 0);
    /* one program: no gain in threads, but the note must be consumed */
    int added = core_program_prebuild(run->ctx, noted >= 2 ? run->build_threads : 1);
    double spent = now_s(s->run->cfg) - t0;
    s->res->prebuilt += added;
    s->res->prebuild_s += spent;
    if (added > 0) run->prebuild_program_s = 0.5 * run->prebuild_program_s + 0.5 * spent / added;
}

/* Notes the new points the next calls of visit_digits would measure (instead of measuring them); end_collect then
 * compiles their programs ahead. Used around a search step run twice, first to note, then for real: the step must
 * make the same choices both times (it may read measured points, not draw random numbers or reorder lists). */
static int begin_collect(search *s) {
    if (s->run->build_threads <= 1 || s->no_prefetch || !s->fam->prebuild_safe) return 0;
    if (!s->collect_buffer) {
        s->collect_buffer = malloc(sizeof *s->collect_buffer * COLLECT_CAPACITY);
        if (!s->collect_buffer) return 0;
    }
    s->collect = s->collect_buffer;
    s->collect_capacity = COLLECT_CAPACITY;
    s->collected = 0;
    return 1;
}

static void end_collect(search *s) {
    s->collect = NULL;
    prefetch_collected(s);
}

/* Spaces up to this size have their valid points listed once before a random or hill search: a space whose
 * parameters only matter for some strategies (conditional parameters) can be almost all invalid, and drawing from the
 * whole product would then find next to nothing. */
#define ENUMERATE_LIMIT (1u << 21)

static int accept_valid(void *user, const core_params *candidate) {
    search *s = user;
    if ((++s->listing & 4095) == 0 && must_stop(s)) return -1;
    return !s->fam->valid || s->fam->valid(s->run->ctx, s->prob, candidate);
}

/* Lists the valid points (as indices) in s->valid, asking `valid` only about combinations where the parameters that
 * do not matter (conditional ones) sit at their first value; returns 0 (and lists nothing) when that is too many
 * combinations, or the search must stop meanwhile. */
static int enumerate_valid(search *s) {
    size_t count = 0;
    unsigned long long walked = 0;
    if (!tune_space_list(s->space, ENUMERATE_LIMIT, accept_valid, s, &s->valid, &count, &walked)) {
        s->valid = NULL;
        return 0;
    }
    s->valid_count = count;
    s->enumerated = 1;
    s->res->pruned = (int)(walked - count);
    return 1;
}

/* The i-th point of an exhaustive search: of the listed valid points, else of the whole product. */
static void exhaustive_point(const search *s, unsigned long long i, int *digits) {
    digits_of_index(s->space, s->enumerated ? s->valid[i] : i, digits);
}

static void search_exhaustive(search *s) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    double size = tune_space_size(s->space);
    /* Beyond 2^62 points an exhaustive search cannot end anyway: the budget stops it. */
    unsigned long long n = s->enumerated ? s->valid_count : size < 4.6e18 ? (unsigned long long)size : 1ull << 62;
    const unsigned long long chunk = 64; /* points compiled ahead together */
    for (unsigned long long first = 0; first < n; first += chunk) {
        unsigned long long end = n - first < chunk ? n : first + chunk;
        if (begin_collect(s)) {
            for (unsigned long long i = first; i < end; ++i) {
                exhaustive_point(s, i, digits);
                if (s->enumerated || normal(s, digits)) visit_digits(s, digits);
            }
            end_collect(s);
        }
        for (unsigned long long i = first; i < end; ++i) {
            exhaustive_point(s, i, digits);
            if (!s->enumerated && !normal(s, digits)) continue;
            if (visit_digits(s, digits) == -1) return;
        }
    }
}

static void random_digits(search *s, int *digits) {
    for (int i = 0; i < s->space->count; ++i)
        digits[i] = (int)(next_random(&s->rng) % (uint64_t)s->space->params[i].count);
    normalize(s, digits);
}

/* Draws `n` new valid points: from the list of valid points when there is one (a partial shuffle), else by rejection
 * sampling with a cap so a mostly invalid space still ends. */
static void search_random(search *s, int n) {
    if (s->enumerated ? s->valid_count <= (size_t)n : tune_space_size(s->space) <= n) {
        search_exhaustive(s);
        return;
    }
    /* Draw first, then measure, so the drawn points can be compiled ahead together. */
    int(*picked)[CLPK_TUNE_MAX_PARAMS] = malloc(sizeof *picked * (size_t)(n > 0 ? n : 1));
    if (!picked) return;
    int count = 0;
    int digits[CLPK_TUNE_MAX_PARAMS];
    const size_t width = sizeof(int) * (size_t)s->space->count;
    if (s->enumerated) {
        size_t left = s->valid_count;
        while (count < n && left > 0) {
            size_t pick = (size_t)(next_random(&s->rng) % left);
            unsigned long long index = s->valid[pick];
            s->valid[pick] = s->valid[--left]; /* the list's order no longer matters once drawn from */
            s->valid[left] = index;
            digits_of_index(s->space, index, digits);
            if (find_point(s, digits) >= 0) continue;
            memcpy(picked[count++], digits, sizeof digits);
        }
    } else {
        core_params params;
        for (int tries = 0; count < n && tries < 64 * n; ++tries) {
            random_digits(s, digits);
            if (find_point(s, digits) >= 0) continue;
            int again = 0;
            for (int k = 0; k < count && !again; ++k)
                again = memcmp(picked[k], digits, width) == 0;
            if (again) continue;
            point_from_digits(s->space, digits, &params);
            if (s->fam->valid && !s->fam->valid(s->run->ctx, s->prob, &params)) {
                visit_digits(s, digits); /* records the pruned point */
                continue;
            }
            memcpy(picked[count++], digits, sizeof digits);
        }
    }
    if (begin_collect(s)) {
        for (int k = 0; k < count; ++k)
            visit_digits(s, picked[k]);
        end_collect(s);
    }
    for (int k = 0; k < count; ++k)
        if (visit_digits(s, picked[k]) == -1) break;
    free(picked);
}

static int better(const search *s, int a, int b) {
    if (a < 0 || s->pts[a].outcome != CLPK_TUNE_OK) return 0;
    return b < 0 || s->pts[b].outcome != CLPK_TUNE_OK || s->pts[a].ms < s->pts[b].ms;
}

/* The climbs' groups: the combinations of the categorical parameters' values (values not all numbers: strategies,
 * formats, kernel variants), taking categorical parameters in order while the combinations stay at most GROUP_LIMIT.
 * Ordered values make a landscape a climber can follow; categories do not (the next one in the list is no nearer than
 * any other, and a category can be slow almost everywhere yet hold the best point), so each group gets a climb of
 * its own sub-space. */
#define GROUP_LIMIT 16

static int numeric_param(const tune_param *p) {
    for (int v = 0; v < p->count; ++v) {
        char *end;
        strtod(p->values[v], &end);
        if (end == p->values[v] || *end) return 0;
    }
    return 1;
}

/* Returns how many groups there are (1: none). */
static int choose_groups(search *s) {
    int combos = 1;
    for (int i = 0; i < s->space->count; ++i) {
        s->grouped[i] = 0;
        if (numeric_param(&s->space->params[i]) || combos * s->space->params[i].count > GROUP_LIMIT) continue;
        s->grouped[i] = 1;
        combos *= s->space->params[i].count;
    }
    /* No categories: starts and climbs still spread over the first parameter's values, which its climbs may move. */
    if (combos == 1 && s->space->count > 0) s->grouped[0] = 2;
    return combos;
}

/* A group's number, below GROUP_IDS: mixed radix over the grouped parameters (at most GROUP_LIMIT combinations of
 * categories, or the first parameter's values). */
#define GROUP_IDS (GROUP_LIMIT > CLPK_TUNE_MAX_VALUES ? GROUP_LIMIT : CLPK_TUNE_MAX_VALUES)
static int group_id(const search *s, const int *digits) {
    int id = 0;
    for (int i = 0; i < s->space->count; ++i)
        if (s->grouped[i]) id = id * s->space->params[i].count + digits[i];
    return id;
}

static int same_group(const search *s, const int *a, const int *b) {
    for (int i = 0; i < s->space->count; ++i)
        if (s->grouped[i] && a[i] != b[i]) return 0;
    return 1;
}

/* Measures one neighbour of `current` (digits moved by d1 on parameter i and d2 on parameter j, j < 0: none) and
 * keeps the better of it and *next; returns 0 when the search must stop. */
static int try_neighbour(search *s, int current, int i, int d1, int j, int d2, int *next) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    memcpy(digits, s->pts[current].digits, sizeof digits);
    digits[i] += d1;
    if (digits[i] < 0 || digits[i] >= s->space->params[i].count) return 1;
    if (j >= 0) {
        digits[j] += d2;
        if (digits[j] < 0 || digits[j] >= s->space->params[j].count) return 1;
    }
    normalize(s, digits);
    int at = visit_digits(s, digits);
    if (at == -1) return 0;
    if (better(s, at, *next)) *next = at;
    return 1;
}

/* Best-improvement hill climbing: measure the neighbours (one parameter one value up or down), move to the best while
 * it beats the current point. When none does, wider rings are tried before stopping: one parameter two values, then
 * two parameters one value each, which step over constraints such as "block sizes multiply to at most N" or parity
 * rules that make every nearest neighbour invalid. `in_group`: the grouped parameters stay fixed (the climb searches
 * its group's sub-space). Returns where it ended. */
/* The neighbours of `current` in one ring (see climb); returns 0 when the search must stop. */
static int ring_neighbours(search *s, int current, int ring, int in_group, int *next) {
    int n = s->space->count;
    for (int i = 0; i < n; ++i) {
        if (in_group && s->grouped[i] == 1) continue;
        for (int d = -1; d <= 1; d += 2) {
            if (ring < 2 && !try_neighbour(s, current, i, d * (ring + 1), -1, 0, next)) return 0;
            for (int j = i + 1; ring == 2 && j < n; ++j) {
                if (in_group && s->grouped[j] == 1) continue;
                for (int e = -1; e <= 1; e += 2)
                    if (!try_neighbour(s, current, i, d, j, e, next)) return 0;
            }
        }
    }
    return 1;
}

static int climb(search *s, int from, int in_group) {
    int current = from;
    while (current >= 0) {
        int next = current;
        for (int ring = 0; ring < 3 && next == current; ++ring) {
            if (begin_collect(s)) {
                int unused = current;
                ring_neighbours(s, current, ring, in_group, &unused);
                end_collect(s);
            }
            if (!ring_neighbours(s, current, ring, in_group, &next)) return current;
        }
        if (next == current) return current;
        current = next;
    }
    return current;
}

/* Coordinate sweeps: every value of every parameter (not only the neighbours, categories included) from `from`,
 * moving to the best, until a whole sweep finds nothing better. Returns where it ended. */
static int sweep(search *s, int from) {
    int current = from;
    for (int moved = 1; moved && current >= 0;) {
        moved = 0;
        for (int i = 0; i < s->space->count; ++i) {
            int next = current;
            for (int pass = begin_collect(s) ? 0 : 1; pass < 2; ++pass) {
                for (int v = 0; v < s->space->params[i].count; ++v) {
                    if (v == s->pts[current].digits[i]) continue;
                    int digits[CLPK_TUNE_MAX_PARAMS];
                    memcpy(digits, s->pts[current].digits, sizeof digits);
                    digits[i] = v;
                    normalize(s, digits);
                    int at = visit_digits(s, digits);
                    if (at == -1) return current;
                    if (pass == 1 && better(s, at, next)) next = at;
                }
                if (pass == 0) end_collect(s);
            }
            moved |= next != current;
            current = next;
        }
    }
    return current;
}

/* Random starting points that cover every group (combination of the grouped parameters' values) first, drawn from
 * the listed valid points. */
static int stratified_pass(search *s, int n) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    int covered[GROUP_IDS] = {0}, drawn = 0;
    for (int k = 0; k < s->count; ++k) /* the defaults, when in the space */
        if (s->pts[k].in_space && !s->pts[k].pruned) covered[group_id(s, s->pts[k].digits)] = 1;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < s->valid_count && drawn < n; ++i) {
            digits_of_index(s->space, s->valid[i], digits);
            int id = group_id(s, digits);
            if ((pass == 0 && covered[id]) || find_point(s, digits) >= 0) continue;
            covered[id] = 1;
            if (visit_digits(s, digits) == -1) return 0;
            ++drawn;
        }
    }
    return 1;
}

static void stratified_starts(search *s, int n) {
    for (size_t i = s->valid_count; i > 1; --i) { /* shuffle */
        size_t j = (size_t)(next_random(&s->rng) % i);
        unsigned long long t = s->valid[i - 1];
        s->valid[i - 1] = s->valid[j];
        s->valid[j] = t;
    }
    if (begin_collect(s)) {
        stratified_pass(s, n);
        end_collect(s);
    }
    stratified_pass(s, n);
}

/* floor(log2(valid points / (4 x samples))), at least 0: how much larger than an exhaustively searched space this
 * one is. Unlisted spaces count by their product. */
static int size_steps(const search *s) {
    double valid = s->enumerated ? (double)s->valid_count : tune_space_size(s->space);
    double ratio = valid / (4.0 * s->run->cfg->samples);
    return ratio >= 2 ? (int)floor(log2(ratio)) : 0;
}

/* Winners of the family's problems tuned before in this run, nearest class first, measured as the first points of a
 * search: a family's training problems are related (the same strategies win on similar classes), and their
 * programs are usually compiled already. Returns how many were new points of this search. */
static int digits_of_params(const tune_space *space, const core_params *params, int *digits);
/* Room for the warm starts of report item k. */
static int warm_slot(run_state *run, int k) {
    if (k < run->warm_capacity) return 1;
    int cap = run->report->capacity > k + 1 ? run->report->capacity : k + 1;
    core_params(*warm)[WARM_STARTS] = realloc(run->warm, sizeof *warm * (size_t)cap);
    if (!warm) return 0;
    run->warm = warm;
    int *count = realloc(run->warm_count, sizeof *count * (size_t)cap);
    if (!count) return 0;
    run->warm_count = count;
    for (int i = run->warm_capacity; i < cap; ++i)
        count[i] = -1; /* not chosen yet */
    run->warm_capacity = cap;
    return 1;
}

static int warm_starts(search *s) {
    run_state *run = s->run;
    const tune_report *report = run->report;
    int self = (int)(s->res - report->items);
    if (!warm_slot(run, self)) return 0;
    core_params *chosen = run->warm[self];
    if (run->warm_count[self] < 0) { /* first search of this problem: the nearest classes' winners */
        int taken[WARM_STARTS], n = 0;
        for (; n < WARM_STARTS; ++n) {
            int nearest = -1;
            double nearest_d = INFINITY;
            for (int k = 0; k < report->count; ++k) {
                const tune_result *r = &report->items[k];
                if (k == self || !r->found || strcmp(r->family, s->fam->name) != 0) continue;
                int used = 0;
                for (int u = 0; u < n && !used; ++u)
                    used = taken[u] == k;
                double d = core_class_distance(&r->klass, &s->prob->klass);
                if (!used && d < nearest_d) nearest = k, nearest_d = d;
            }
            if (nearest < 0) break;
            taken[n] = nearest;
            chosen[n] = report->items[nearest].best;
        }
        run->warm_count[self] = n;
    }
    int visited = 0;
    for (int w = 0; w < run->warm_count[self] && !s->cut; ++w) {
        int digits[CLPK_TUNE_MAX_PARAMS];
        if (!digits_of_params(s->space, &chosen[w], digits)) continue; /* not a point of this space */
        normalize(s, digits);
        int before = s->count, at = visit_digits(s, digits);
        if (at == -1) break;
        visited += at >= before;
    }
    s->res->warm_starts = visited;
    return visited;
}

/* Random starts (more the larger the space), then a climb inside the group of each of the best few groups (from the
 * group's best point; more climbs the larger the space), then coordinate sweeps and free climbs from each of the best
 * few ends until neither improves. A small valid space is searched exhaustively instead: a few climbs would cost
 * about as much. */
static void search_hill(search *s) {
    int samples = s->run->cfg->samples;
    if (s->enumerated && s->valid_count <= (size_t)(4 * samples)) {
        search_exhaustive(s);
        return;
    }
    int groups = choose_groups(s);
    int steps = size_steps(s), base = samples / 2 > 4 ? samples / 2 : 4;
    int starts = base + base * steps / 4, climbs = HILL_STARTS + steps / 2;
    /* With the winners of similar problems measured first, fewer random starts are needed and the climbs go from
     * the best points (of distinct groups) rather than from every group. */
    if (warm_starts(s) > 0)
        starts = (starts + 1) / 2;
    else if (groups > climbs)
        climbs = groups;
    if (s->enumerated)
        stratified_starts(s, starts);
    else
        search_random(s, starts);
    int grouping = 0; /* else the climbs start from the best distinct points */
    for (int i = 0; i < s->space->count; ++i)
        grouping |= s->grouped[i] && s->space->params[i].count > 1;
    int used[HILL_STARTS + 64], ends[HILL_STARTS + 64], nused = 0;
    if (climbs > HILL_STARTS + 64) climbs = HILL_STARTS + 64; /* GROUP_LIMIT keeps groups below */
    for (int k = 0; k < climbs && !s->cut; ++k) {
        int best = -1;
        for (int i = 0; i < s->count; ++i) {
            if (!s->pts[i].in_space) continue;
            int taken = 0;
            for (int u = 0; u < nused && !taken; ++u)
                taken = i == used[u] || (grouping && same_group(s, s->pts[i].digits, s->pts[used[u]].digits));
            if (!taken && better(s, i, best)) best = i;
        }
        if (best < 0) break;
        used[nused] = best;
        ends[nused++] = climb(s, best, 1);
    }
    /* The polish starts from the best HILL_STARTS climb ends, best first: the best end can be a local optimum that a
     * sweep from the second one steps past. */
    for (int k = 0; k < HILL_STARTS && !s->cut; ++k) {
        int current = -1;
        for (int u = 0; u < nused; ++u)
            if (ends[u] >= 0 && better(s, ends[u], current)) current = ends[u];
        if (current < 0) break;
        for (int u = 0; u < nused; ++u)
            if (ends[u] == current) ends[u] = -1; /* several climbs can end at one point */
        while (!s->cut) {
            int end = climb(s, sweep(s, current), 0);
            if (!better(s, end, current)) break;
            current = end;
        }
    }
}

static int compare_ms(const void *a, const void *b) {
    const point *x = *(point *const *)a, *y = *(point *const *)b;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

#define FINAL_MAX_ROUNDS 16

int tune_final_rounds(int final_repeats) {
    if (final_repeats < 3) return final_repeats > 0 ? final_repeats : 1;
    int rounds = final_repeats / 5;
    return rounds < 3 ? 3 : rounds > FINAL_MAX_ROUNDS ? FINAL_MAX_ROUNDS : rounds;
}

static void median_spread(double *times, int n, double *median, double *spread);

/* A candidate of the re-measure. */
typedef struct final_slot {
    const point *pt;
    int counted; /* one of the top_k (the defaults outside them are not) */
    int active;  /* measured in the rounds still (else its result is final, or the search's measurement) */
    tune_outcome outcome;
    double ms;
    double *times; /* the rounds' medians */
    int n, capacity;
    double wall_s, build_s;
} final_slot;

typedef struct final_set {
    search *s;
    point **ok;  /* the search's passing points, fastest first */
    int n, next; /* ok[next] is the next replacement */
    const point *def;
    int def_at; /* the defaults' slot, or -1 */
    final_slot *slots;
    int count;
    int want, standing; /* counted slots wanted, and those not refused */
    int again;
} final_set;

/* Adds point p as a slot; with `again` its final result may come from the resume cache. Returns its index. */
static int final_add(final_set *f, const point *p, int counted) {
    search *s = f->s;
    final_slot *x = &f->slots[f->count];
    memset(x, 0, sizeof *x);
    x->pt = p;
    x->counted = counted;
    x->ms = p->ms;
    x->active = f->again;
    if (p == f->def) f->def_at = f->count;
    core_params params;
    params_of(s, p, &params);
    double ms;
    if (f->again &&
        tune_cache_lookup(s->run->cache, s->fam->name, &s->prob->klass, "final", &params, &x->outcome, &ms)) {
        s->res->outcomes[x->outcome]++;
        x->active = 0;
        /* A timeout keeps the search's measurement (see final_rounds). */
        if (x->outcome == CLPK_TUNE_TIMEOUT)
            x->outcome = CLPK_TUNE_OK;
        else if (x->outcome == CLPK_TUNE_OK)
            x->ms = ms;
    }
    f->standing += counted && x->outcome == CLPK_TUNE_OK;
    return f->count++;
}

/* Adds the next points of the ranking until `want` counted slots stand (refused ones are replaced, as before the
 * rounds); returns the last slot added that is to be measured, or -1. */
static int final_fill(final_set *f) {
    int added = -1;
    while (f->standing < f->want && f->next < f->n) {
        const point *p = f->ok[f->next++];
        if (p == f->def && f->def_at >= 0) continue; /* measured already as the defaults */
        int at = final_add(f, p, 1);
        if (f->slots[at].active) added = at;
    }
    return added;
}

/* A slot's result is final: counted in the outcomes and stored in the resume cache as one "final" entry. */
static void final_finish(final_set *f, final_slot *x) {
    search *s = f->s;
    x->active = 0;
    s->res->outcomes[x->outcome]++;
    core_params params;
    params_of(s, x->pt, &params);
    tune_cache_store_timed(s->run->cache, s->fam->name, &s->prob->klass, "final", &params, x->outcome,
                                x->outcome == CLPK_TUNE_OK ? x->ms : INFINITY, x->wall_s, x->build_s);
    /* A timeout keeps the search's measurement: the re-measure ran past the candidate limit, which is no wrong
     * answer, and without it a slow problem would keep nothing. */
    if (x->outcome == CLPK_TUNE_TIMEOUT) x->outcome = CLPK_TUNE_OK, x->ms = x->pt->ms;
}

/* Measures the active slots in rounds, each round every one of them once with final_repeats / rounds runs, the
 * round r starting at the slot r mod k, so drift of the clocks, the temperature or the machine's load during the
 * re-measure hits every candidate alike (measured one after the other, whichever went first was favoured or
 * penalised: on the H100 a 30 us xcorr problem picked a point 10 % slower head-to-head). A refused slot's place goes
 * to the next point of the ranking, and the rounds go on until each slot has its rounds. Stops at the run's deadline
 * or the stop flag: a slot keeps the rounds it has, or the search's measurement without any. */
static void final_rounds(final_set *f) {
    search *s = f->s;
    const tune_config *cfg = s->run->cfg;
    int rounds = tune_final_rounds(cfg->final_repeats);
    int repeats = (cfg->final_repeats + rounds - 1) / rounds;
    int k = 0;
    int *place = malloc(sizeof *place * (size_t)(f->count ? f->count : 1));
    if (!place) return;
    for (int i = 0; i < f->count; ++i)
        if (f->slots[i].active) place[k++] = i;
    for (int r = 0, cut = 0; !cut; ++r) {
        int more = 0;
        for (int j = 0; j < k; ++j)
            more |= place[j] >= 0 && f->slots[place[j]].n < rounds;
        if (!more) break;
        for (int j = 0; j < k && !cut; ++j) {
            int at = (r + j) % k;
            if (place[at] < 0) continue;
            if (stop_requested(s->run))
                s->run->report->stopped = cut = 1;
            else if (now_s(s->run->cfg) >= s->run->deadline)
                s->run->report->budget_exhausted = cut = 1;
            if (cut) break;
            final_slot *x = &f->slots[place[at]];
            core_params params;
            params_of(s, x->pt, &params);
            double ms, wall_s, build_s;
            tune_outcome outcome;
            evaluate_once(s, &params, "final", repeats, 0, &outcome, &ms, &wall_s, &build_s);
            x->wall_s += wall_s;
            x->build_s += build_s;
            if (outcome == CLPK_TUNE_OK && x->n == x->capacity) {
                int capacity = x->capacity ? 2 * x->capacity : rounds;
                double *times = realloc(x->times, sizeof *times * (size_t)capacity);
                if (!times)
                    outcome = CLPK_TUNE_ERROR; /* refused rather than measured with a sample lost */
                else
                    x->times = times, x->capacity = capacity;
            }
            if (outcome == CLPK_TUNE_OK) {
                x->times[x->n++] = ms;
                continue;
            }
            /* Refused (a race shows as an answer that changes between rounds) or past the limit: out of the rounds. */
            x->outcome = outcome;
            final_finish(f, x);
            place[at] = -1;
            if (x->counted && x->outcome != CLPK_TUNE_OK) {
                f->standing--;
                place[at] = final_fill(f);
            }
        }
    }
    free(place);
}

/* Measures the best `top_k` and the defaults again with more repeats, interleaved (final_rounds): the search's few
 * repeats are noisy, and a candidate whose answer changes between runs (a race) is refused here. Each candidate's
 * time is the median of its rounds' medians: evaluate returns a median, and the median of the rounds also ignores a
 * round disturbed as a whole (as tune_compare does). */
static void remeasure(search *s) {
    const tune_config *cfg = s->run->cfg;
    tune_result *res = s->res;
    final_set f = {.s = s, .def_at = -1};
    f.ok = malloc(sizeof *f.ok * (size_t)(s->count ? s->count : 1));
    f.slots = malloc(sizeof *f.slots * (size_t)(s->count + 1));
    res->found = 0;
    res->best_ms = INFINITY;
    if (!f.ok || !f.slots) {
        free(f.ok);
        free(f.slots);
        return;
    }
    for (int i = 0; i < s->count; ++i)
        if (s->pts[i].outcome == CLPK_TUNE_OK) f.ok[f.n++] = &s->pts[i];
    qsort(f.ok, (size_t)f.n, sizeof *f.ok, compare_ms);
    if (s->default_index >= 0 && s->pts[s->default_index].outcome == CLPK_TUNE_OK) f.def = &s->pts[s->default_index];
    f.again = cfg->top_k > 0 && !stop_requested(s->run) && now_s(s->run->cfg) < s->run->deadline;
    f.want = f.again ? cfg->top_k : 1;
    final_fill(&f);
    if (f.def && f.def_at < 0) final_add(&f, f.def, 0);
    if (f.again) final_rounds(&f);
    int default_ok = 0;
    for (int i = 0; i < f.count; ++i) {
        final_slot *x = &f.slots[i];
        if (x->active && x->n > 0) {
            double spread;
            median_spread(x->times, x->n, &x->ms, &spread);
            final_finish(&f, x);
        }
        free(x->times);
        if (x->outcome != CLPK_TUNE_OK) continue;
        /* The defaults measured again may beat the candidates measured again: they compete alike. */
        if (x->ms < res->best_ms) {
            res->best_ms = x->ms;
            params_of(s, x->pt, &res->best);
            res->found = 1;
        }
        if (i == f.def_at) {
            default_ok = 1;
            res->default_ms = x->ms;
        }
    }
    res->default_ok = default_ok;
    if (!res->default_ok) res->default_ms = INFINITY;
    free(f.ok);
    free(f.slots);
}

/* Where the defaults sit in the space, if they are a point of it. */
static int digits_of_params(const tune_space *space, const core_params *params, int *digits) {
    if (params->count != space->count) return 0;
    for (int i = 0; i < space->count; ++i) {
        const char *v = core_params_get(params, space->params[i].name);
        int found = -1;
        for (int j = 0; v && j < space->params[i].count && found < 0; ++j)
            if (strcmp(space->params[i].values[j], v) == 0) found = j;
        if (found < 0) return 0;
        digits[i] = found;
    }
    return 1;
}

static void search_problem(search *s) {
    const tune_config *cfg = s->run->cfg;
    tune_result *res = s->res;
    res->space_size = tune_space_size(s->space);
    tune_space_conditions(s->space, s->cond, s->applies);
    switch (cfg->strategy) {
    case CLPK_TUNE_EXHAUSTIVE: s->planned = res->space_size < 1e9 ? (int)res->space_size : 1000000000; break;
    case CLPK_TUNE_RANDOM: s->planned = cfg->samples; break;
    case CLPK_TUNE_HILL: s->planned = cfg->samples / 2 + 4 * s->space->count; break;
    }
    if (cfg->max_points > 0 && s->planned > cfg->max_points) s->planned = cfg->max_points;
    /* The defaults first: the speed-up is reported against them, and they are the fallback. */
    if (s->fam->defaults) {
        core_params def;
        core_params_clear(&def);
        s->fam->defaults(s->run->ctx, s->prob, &def);
        res->defaults = def;
        int digits[CLPK_TUNE_MAX_PARAMS];
        int in_space = digits_of_params(s->space, &def, digits);
        s->default_index = visit(s, in_space ? digits : NULL, &def);
    }
    if (!s->cut && s->space->count > 0) {
        /* exhaustive too: listing skips the combinations of conditional parameters that do not matter */
        if (enumerate_valid(s) && cfg->strategy == CLPK_TUNE_EXHAUSTIVE)
            s->planned =
                s->valid_count < (size_t)1e9 && (cfg->max_points <= 0 || s->valid_count < (size_t)cfg->max_points)
                    ? (int)s->valid_count
                : cfg->max_points > 0 ? cfg->max_points
                                      : 1000000000;
        switch (cfg->strategy) {
        case CLPK_TUNE_EXHAUSTIVE: search_exhaustive(s); break;
        case CLPK_TUNE_RANDOM: search_random(s, cfg->samples); break;
        case CLPK_TUNE_HILL: search_hill(s); break;
        }
    }
    res->complete = !s->cut;
    remeasure(s);
}

/* ---- Families and the run -------------------------------------------------------------------------------------- */

static tune_result *new_result(tune_report *report, const char *family) {
    if (report->count == report->capacity) {
        int cap = report->capacity ? 2 * report->capacity : 32;
        tune_result *bigger = realloc(report->items, sizeof *bigger * (size_t)cap);
        if (!bigger) return NULL;
        report->items = bigger;
        report->capacity = cap;
    }
    tune_result *res = &report->items[report->count++];
    memset(res, 0, sizeof *res);
    snprintf(res->family, sizeof res->family, "%s", family);
    res->best_ms = res->default_ms = INFINITY;
    return res;
}

static int family_usable(const tune_family *f) {
    return f->name && f->problem_count && f->problem_create && f->space && f->evaluate;
}

clpk_status tune_problems_parse(const char *list, clpk_error *err) {
    for (const char *at = list; at && *at;) {
        char *end;
        long v = strtol(at, &end, 10);
        if (end == at || v < 0 || v > 1000000 || (*end && *end != ','))
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                  "bad problem list '%s': expected problem numbers such as 0,3,5", list);
        at = *end ? end + 1 : end;
    }
    return CLPK_SUCCESS;
}

int tune_problem_selected(const char *list, int index) {
    if (!list) return 1;
    for (const char *at = list; *at;) {
        char *end;
        long v = strtol(at, &end, 10);
        if (end == at) return 0;
        if (v == index) return 1;
        at = *end ? end + 1 : end;
    }
    return 0;
}

/* How many of a family's `count` problems the run tunes. */
static int selected_count(const tune_config *cfg, int count) {
    int n = 0;
    for (int i = 0; i < count; ++i)
        n += tune_problem_selected(cfg->problems, i);
    return n;
}

/* Automatic: a GPU's compiler runs on the host, whose cores are otherwise idle while the tuner compiles; on a CPU
 * device the compiler would compete with nothing faster, and the PoCL builds of the CI stay serial. */
static int resolve_build_threads(clpk_context *ctx, int requested) {
    if (requested > 0) return requested;
    if (clpk_context_device_info(ctx)->kind != CLPK_DEVICE_GPU) return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* 4: measured on the H100 (NVIDIA driver 580), 3 spmv problems x 40 s: 168 points serially, 623 with 4
     * threads, 434 with 16 (the driver's compiler does not scale past a few threads and more of them only queue). */
    return cores < 1 ? 1 : cores > 4 ? 4 : (int)cores;
}

static double problem_deadline_of(const run_state *run, double now, double family_deadline, int left);

/* Tunes problem i of fam into res (a fresh result); its search's deadline is set once the problem is created
 * (family_deadline and left: the family's, when the run's budget is not split over problems). In a second round
 * `first` is the first round's result, kept when this one finds nothing. */
static void tune_one(run_state *run, const tune_family *fam, int i, double family_deadline, int left,
                     tune_result *res, const tune_result *first) {
    const tune_config *cfg = run->cfg;
    tune_problem prob;
    memset(&prob, 0, sizeof prob);
    double setup_start = now_s(run->cfg);
    clpk_status st = fam->problem_create(run->ctx, &cfg->opts, i, &prob);
    double created = now_s(run->cfg);
    res->setup_s += created - setup_start;
    double problem_deadline = problem_deadline_of(run, created, family_deadline, left);
    if (st != CLPK_SUCCESS) {
        snprintf(res->note, sizeof res->note, "problem not created (%s): %.200s", clpk_status_string(st),
                 clpk_last_error(run->ctx));
        /* A family may leave partial state behind for its destroy function (which must accept it). */
        if (prob.state && fam->problem_destroy) fam->problem_destroy(&prob);
        return;
    }
    if (prob.label[0]) snprintf(res->label, sizeof res->label, "%s", prob.label);
    res->klass = prob.klass;
    tune_event ev = {
        .kind = CLPK_TUNE_EVENT_PROBLEM_START, .family = fam->name, .label = res->label, .best_ms = -1};
    emit(run, &ev);
    tune_space space;
    memset(&space, 0, sizeof space);
    st = fam->space(run->ctx, &prob, &space);
    int space_ok = st == CLPK_SUCCESS && space.count >= 0 && space.count <= CLPK_TUNE_MAX_PARAMS;
    for (int p = 0; space_ok && p < space.count; ++p)
        space_ok = space.params[p].count > 0 && space.params[p].count <= CLPK_TUNE_MAX_VALUES;
    clpk_error restrict_err = {0};
    if (space_ok && tune_space_restrict(&space, cfg->space_restrict, &restrict_err) != CLPK_SUCCESS) {
        snprintf(res->note, sizeof res->note, "no search space: %.200s", restrict_err.message);
    } else if (!space_ok) {
        snprintf(res->note, sizeof res->note, "no search space (%s): %.200s", clpk_status_string(st),
                 clpk_last_error(run->ctx));
    } else {
        search s = {.run = run,
                    .fam = fam,
                    .prob = &prob,
                    .space = &space,
                    .res = res,
                    .deadline = problem_deadline,
                    .default_index = -1,
                    .rng = cfg->opts.seed ^ core_hash64(fam->name, strlen(fam->name), (uint64_t)i)};
        res->rounds++;
        search_problem(&s);
        free(s.pts);
        free(s.table);
        free(s.valid);
        free(s.collect_buffer);
    }
    if (fam->problem_destroy) fam->problem_destroy(&prob);
    double end = now_s(run->cfg), past = end - problem_deadline;
    run->overhead_s += ((created - setup_start + (past > 0 ? past : 0)) - run->overhead_s) / ++run->overheads;
    const char *remark = NULL;
    if (first && !res->found && first->found) { /* the round failed where the first found something: keep it */
        remark = res->evaluated == 0 && res->budget_cut
                     ? "second round: budget spent before a point was measured; first round's result kept"
                     : "second round: no candidate passed; first round's result kept";
        double setup_s = res->setup_s;
        *res = *first;
        res->setup_s = setup_s;
    }
    ev = (tune_event){.kind = CLPK_TUNE_EVENT_PROBLEM_DONE,
                           .family = fam->name,
                           .label = res->label,
                           .evaluated = res->evaluated,
                           .best_ms = res->found ? res->best_ms : -1,
                           .result = res,
                           .message = remark};
    emit(run, &ev);
}

/* A problem's search deadline, once it is created: with the run's budget split over its problems, an equal share of
 * what is left of the round after the overhead of the problems still to come (their creation and the re-measure
 * past a deadline, at the running mean) and of this one's re-measure; else an equal share of what the family has
 * left (`left` of its problems after this one). Time a problem does not use goes to the next ones. */
static double problem_deadline_of(const run_state *run, double now, double family_deadline, int left) {
    if (run->split) {
        double end = run->round_end < run->deadline ? run->round_end : run->deadline;
        double share = (end - now - run->overhead_s * (run->round_left + 1)) / (run->round_left + 1);
        return now + (share > 0 ? share : 0);
    }
    return isfinite(family_deadline) ? now + (family_deadline - now) / (left + 1) : INFINITY;
}

static clpk_status run_family(run_state *run, const tune_family *fam, int problems, double deadline) {
    const tune_config *cfg = run->cfg;
    int left = selected_count(cfg, problems); /* selected problems not started yet */
    /* run->problem_index counts the run's problems (for the progress display): it moves on after a selected one. */
    for (int i = 0; i < problems; run->problem_index += tune_problem_selected(cfg->problems, i), ++i) {
        if (!tune_problem_selected(cfg->problems, i)) continue;
        --left;
        tune_result *res = new_result(run->report, fam->name);
        if (!res) return CLPK_ERROR_OUT_OF_MEMORY;
        res->strategy = cfg->strategy;
        res->problem_index = i;
        snprintf(res->label, sizeof res->label, "problem %d", i);
        double now = now_s(run->cfg);
        run->round_left--;
        if (stop_requested(run)) {
            run->report->stopped = 1;
            snprintf(res->note, sizeof res->note, "not tuned: stopped");
            continue;
        }
        if (now >= deadline || now >= run->deadline) {
            run->report->budget_exhausted = 1;
            res->budget_cut = 1;
            snprintf(res->note, sizeof res->note, "not tuned: budget exhausted");
            continue;
        }
        tune_one(run, fam, i, deadline, left, res, NULL);
    }
    return CLPK_SUCCESS;
}

/* The second round: the searches the first cut short (or never started) for lack of time, in the run's order, each
 * with an equal share of what is left. A search replays its measured points from the cache (same seed, same
 * draws), so it continues where it stopped. Needs the cache. */
static clpk_status second_round(run_state *run, const tune_family *const *families, int nfam) {
    tune_report *report = run->report;
    int first_count = report->count, again = 0;
    for (int k = 0; k < first_count; ++k)
        again += report->items[k].budget_cut;
    if (!again) return CLPK_SUCCESS;
    run->total_problems += again;
    run->round_end = run->deadline;
    run->round_left = again;
    for (int k = 0; k < first_count && !stop_requested(run); ++k) {
        tune_result *res = &report->items[k];
        if (!res->budget_cut) continue;
        const tune_family *fam = NULL;
        for (int f = 0; f < nfam && !fam; ++f)
            if (families[f]->name && strcmp(families[f]->name, res->family) == 0) fam = families[f];
        double now = now_s(run->cfg);
        run->round_left--;
        if (!fam || now >= run->deadline) {
            /* The first round's result stands: said so, not shown as a problem without a candidate. */
            const char *why = res->found ? "second round skipped: budget spent; first round's result kept"
                                         : "second round skipped: budget spent";
            tune_event ev = {.kind = CLPK_TUNE_EVENT_PROBLEM_DONE,
                                  .family = res->family,
                                  .label = res->label,
                                  .evaluated = res->evaluated,
                                  .best_ms = res->found ? res->best_ms : -1,
                                  .result = res,
                                  .message = why};
            if (fam) emit(run, &ev);
            run->problem_index++;
            continue;
        }
        /* a fresh result, keeping the first round's time accounting */
        tune_result old = *res;
        memset(res, 0, sizeof *res);
        memcpy(res->family, old.family, sizeof res->family);
        memcpy(res->label, old.label, sizeof res->label);
        res->problem_index = old.problem_index;
        res->strategy = old.strategy;
        res->best_ms = res->default_ms = INFINITY;
        res->rounds = old.rounds;
        res->setup_s = old.setup_s;
        res->evaluate_s = old.evaluate_s;
        res->build_s = old.build_s;
        res->builds = old.builds;
        res->prebuild_s = old.prebuild_s;
        res->prebuilt = old.prebuilt;
        tune_one(run, fam, res->problem_index, run->deadline, 0, res, &old);
        run->problem_index++;
    }
    return CLPK_SUCCESS;
}

clpk_status tune_run(clpk_context *ctx, const tune_family *const *families, const tune_config *cfg,
                          tune_report *report) {
    if (!report) return CLPK_ERROR_INVALID_ARGUMENT;
    memset(report, 0, sizeof *report);
    if (!ctx || !families || !cfg || cfg->repeats <= 0 || cfg->final_repeats <= 0 || cfg->top_k < 0 ||
        cfg->samples <= 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "tune: NULL argument or non-positive repeats/samples");
    run_state run = {.ctx = ctx, .cfg = cfg, .report = report, .start = now_s(cfg)};
    run.build_threads = resolve_build_threads(ctx, cfg->build_threads);
    run.prebuild_program_s = 0.1;
    run.deadline = cfg->budget_s > 0 ? run.start + cfg->budget_s : INFINITY;
    if (cfg->cache_path) {
        clpk_error err = {0};
        clpk_status st =
            tune_cache_open(cfg->cache_path, clpk_context_device_info(ctx), cfg->resume, &run.cache, &err);
        if (st != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    }
    int counts[TUNE_MAX_FAMILIES] = {0};
    int nfam = 0;
    for (; families[nfam] && nfam < TUNE_MAX_FAMILIES; ++nfam) {
        const tune_family *f = families[nfam];
        counts[nfam] = family_usable(f) ? f->problem_count(&cfg->opts) : 0;
        if (counts[nfam] < 0) counts[nfam] = 0;
        run.total_problems += selected_count(cfg, counts[nfam]);
        snprintf(report->families[nfam], sizeof report->families[nfam], "%s", f->name ? f->name : "?");
    }
    report->family_count = nfam;
    tune_event ev = {.kind = CLPK_TUNE_EVENT_START, .best_ms = -1};
    emit(&run, &ev);
    clpk_status st = CLPK_SUCCESS;
    /* Without family budgets a finite run budget is split over the run's problems (not over families: a family with
     * many problems would starve), overhead-aware (problem_deadline_of); what the last problems leave (small spaces
     * that finish early) continues the searches that were cut short, in a second round. */
    run.split = cfg->family_budget_s <= 0 && isfinite(run.deadline);
    double first = cfg->first_round_share > 0 && cfg->first_round_share < 1 ? cfg->first_round_share : 1.0;
    run.round_end = run.split ? run.start + first * cfg->budget_s : run.deadline;
    run.round_left = run.total_problems;
    for (int f = 0; f < nfam && st == CLPK_SUCCESS; ++f) {
        const tune_family *fam = families[f];
        if (!family_usable(fam)) {
            tune_result *res = new_result(report, fam->name ? fam->name : "?");
            if (!res)
                st = CLPK_ERROR_OUT_OF_MEMORY;
            else
                snprintf(res->note, sizeof res->note, "family lacks a required function: skipped");
            continue;
        }
        double now = now_s(run.cfg), deadline = run.deadline;
        if (cfg->family_budget_s > 0 && now + cfg->family_budget_s < deadline) deadline = now + cfg->family_budget_s;
        st = run_family(&run, fam, counts[f], deadline);
    }
    if (st == CLPK_SUCCESS && run.split && run.cache) st = second_round(&run, families, nfam);
    free(run.warm);
    free(run.warm_count);
    report->elapsed_s = now_s(run.cfg) - run.start;
    ev = (tune_event){.kind = CLPK_TUNE_EVENT_FINISH, .best_ms = -1};
    emit(&run, &ev);
    tune_cache_close(run.cache);
    if (st != CLPK_SUCCESS) return core_fail(ctx, st, "tune: out of memory");
    return CLPK_SUCCESS;
}

/* One evaluation of a comparison; the median is appended to times. */
static clpk_status compare_once(clpk_context *ctx, const tune_family *fam, tune_problem *prob,
                                const core_params *candidate, int repeats, double *times, int *n) {
    double ms = INFINITY;
    clpk_status st = fam->evaluate(ctx, prob, candidate, repeats, &ms);
    if (st != CLPK_SUCCESS) return st;
    if (!(ms >= 0 && isfinite(ms)))
        return core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "tune compare: evaluate succeeded without a valid time");
    times[(*n)++] = ms;
    return CLPK_SUCCESS;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and relative spread ((max - min) / median) of n > 0 times; sorts them. */
static void median_spread(double *times, int n, double *median, double *spread) {
    qsort(times, (size_t)n, sizeof *times, compare_double);
    *median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    *spread = *median > 0 ? (times[n - 1] - times[0]) / *median : 0;
}

clpk_status tune_compare(clpk_context *ctx, const tune_family *fam, const tune_options *opts,
                              int problem_index, const core_params *a, const core_params *b, int rounds, int repeats,
                              tune_comparison *out) {
    if (!ctx || !fam || !opts || !a || !b || !out || rounds <= 0 || repeats <= 0 || !family_usable(fam) ||
        problem_index < 0 || problem_index >= fam->problem_count(opts))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "tune compare: bad arguments");
    memset(out, 0, sizeof *out);
    double *times = malloc(sizeof *times * 2 * (size_t)rounds);
    if (!times) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "tune compare: out of memory");
    tune_problem prob;
    memset(&prob, 0, sizeof prob);
    clpk_status st = fam->problem_create(ctx, opts, problem_index, &prob);
    int na = 0, nb = 0;
    /* Alternating, so a change of the machine's load hits both points alike. */
    for (int r = 0; st == CLPK_SUCCESS && r < rounds; ++r) {
        st = compare_once(ctx, fam, &prob, a, repeats, times, &na);
        if (st == CLPK_SUCCESS) st = compare_once(ctx, fam, &prob, b, repeats, times + rounds, &nb);
    }
    if (st == CLPK_SUCCESS) {
        median_spread(times, na, &out->a_ms, &out->a_spread);
        median_spread(times + rounds, nb, &out->b_ms, &out->b_spread);
        out->rounds = rounds;
    }
    if ((st == CLPK_SUCCESS || prob.state) && fam->problem_destroy) fam->problem_destroy(&prob);
    free(times);
    return st;
}

clpk_status tune_select(const tune_family *const *all, const char *names, const tune_family **out,
                             int capacity, clpk_error *err) {
    int n = 0;
    if (capacity <= 0) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "no room for families");
    if (!names || !*names) {
        for (int i = 0; all[i] && n < capacity - 1; ++i)
            out[n++] = all[i];
        out[n] = NULL;
        return CLPK_SUCCESS;
    }
    const char *at = names;
    while (*at) {
        size_t len = strcspn(at, ",");
        int found = 0;
        for (int i = 0; all[i] && !found; ++i) {
            if (strlen(all[i]->name) != len || strncmp(all[i]->name, at, len) != 0) continue;
            found = 1;
            int dup = 0;
            for (int j = 0; j < n; ++j)
                dup |= out[j] == all[i];
            if (!dup && n < capacity - 1) out[n++] = all[i];
        }
        if (!found && len > 0) {
            char known[256] = "";
            size_t k = 0;
            for (int i = 0; all[i] && k < sizeof known; ++i)
                k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", i ? ", " : "", all[i]->name);
            out[0] = NULL;
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "unknown family '%.*s' (built in: %s)", (int)len,
                                  at, known[0] ? known : "none");
        }
        at += len + (at[len] == ',');
    }
    out[n] = NULL;
    return CLPK_SUCCESS;
}
