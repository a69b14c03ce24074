/* One problem's search: the points visited (a hash table of their digits), measuring a candidate (or taking it from
 * the resume cache), compiling the programs of a search step ahead, listing the valid points, and the order of a
 * problem's search (defaults, strategy, re-measure). */
#include "tune_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t tune_next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 1 when the search may not start another candidate. */
static int must_stop(search *s) {
    if (tune_stop_requested(s->run)) {
        s->run->report->stopped = 1;
        return s->cut = 1;
    }
    if (tune_now_s(s->run->cfg) >= s->deadline) {
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

int tune_find_point(const search *s, const int *digits) {
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
void tune_evaluate_once(search *s, const core_params *params, const char *phase, int repeats, int record,
                        tune_outcome *outcome, double *ms, double *wall_s, double *build_s) {
    run_state *run = s->run;
    tune_cache_mark_pending(run->cache, s->fam->name, &s->prob->klass, phase, params);
    tune_event start = {.kind = CLPK_TUNE_EVENT_CANDIDATE_START,
                        .family = s->fam->name,
                        .label = s->prob->label,
                        .evaluated = s->res->evaluated,
                        .planned = s->planned,
                        .best_ms = -1};
    tune_emit(run, &start);
    clpk_cache_stats before, after;
    clpk_context_cache_stats(run->ctx, &before);
    double t0 = tune_now_s(s->run->cfg);
    double got = INFINITY;
    clpk_status st = s->fam->evaluate(run->ctx, s->prob, params, repeats, &got);
    double dt = tune_now_s(s->run->cfg) - t0;
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
        tune_cache_store_timed(run->cache, s->fam->name, &s->prob->klass, phase, params, *outcome, *ms, dt, *build_s);
    }
    tune_event ev = {.kind = CLPK_TUNE_EVENT_CANDIDATE,
                     .family = s->fam->name,
                     .label = s->prob->label,
                     .evaluated = s->res->evaluated + 1,
                     .planned = s->planned,
                     .best_ms = isfinite(s->res->best_ms) ? s->res->best_ms : -1,
                     .outcome = *outcome,
                     .message = message};
    tune_emit(run, &ev);
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
    tune_evaluate_once(s, params, phase, repeats, 1, outcome, ms, &wall_s, &build_s);
}

void tune_params_of(const search *s, const point *p, core_params *out) {
    if (p->in_space)
        tune_space_digits_point(s->space, p->digits, out);
    else
        *out = s->default_params;
}

/* Puts the parameters that do not matter at `digits` at their first value: the one point of the space for that
 * plan (a move of a strategy-like parameter then lands on a point `valid` accepts). */
void tune_normalize(const search *s, int *digits) { tune_space_normalize(s->space, s->cond, s->applies, digits); }

static int grow(search *s) {
    if (s->count < s->capacity) return 1;
    int cap = s->capacity ? 2 * s->capacity : 64;
    point *bigger = realloc(s->pts, sizeof *bigger * (size_t)cap);
    if (!bigger) return 0;
    s->pts = bigger;
    s->capacity = cap;
    return 1;
}

/* Whether an earlier run measured the point (resume): taking it from the cache costs no time. */
static int measured_earlier(const search *s, const int *digits, const core_params *params) {
    core_params current;
    if (digits)
        tune_space_digits_point(s->space, digits, &current);
    else
        current = *params;
    return tune_cache_earlier(s->run->cache, s->fam->name, &s->prob->klass, "search", &current);
}

/* Adds a point to the search (measuring it); returns its index, or -1 when the search must stop. A point an earlier
 * run measured is taken past the deadline too: a search replays the same points in the same order, so a resumed run
 * with little budget still ends where the earlier one got, instead of dropping what it measured. */
static int visit(search *s, const int *digits, const core_params *params) {
    if (measured_earlier(s, digits, params)) {
        if (tune_stop_requested(s->run)) return s->run->report->stopped = 1, s->cut = 1, -1;
        if (s->run->cfg->max_points > 0 && s->res->evaluated >= s->run->cfg->max_points) return s->cut = 1, -1;
    } else if (must_stop(s)) {
        return -1;
    }
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
    tune_params_of(s, p, &current);
    measure(s, &current, "search", s->run->cfg->repeats, &p->outcome, &p->ms);
    s->res->evaluated++;
    if (p->outcome == CLPK_TUNE_OK && p->ms < s->res->best_ms) s->res->best_ms = p->ms;
    return s->count++;
}

#define COLLECTED (-3)
#define COLLECT_CAPACITY 512

/* A point of the space: already visited (its index), pruned by `valid` (-2), measured now (-1: stop), or noted for
 * compiling ahead (COLLECTED, while s->collect is set). */
int tune_visit_digits(search *s, const int *digits) {
    int at = tune_find_point(s, digits);
    if (at >= 0) return s->pts[at].pruned ? -2 : at;
    core_params params;
    tune_space_digits_point(s->space, digits, &params);
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
    double t0 = tune_now_s(s->run->cfg);
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
        tune_space_digits_point(s->space, s->collect_buffer[k], &params);
        if (tune_cache_lookup(run->cache, s->fam->name, &s->prob->klass, "search", &params, &outcome, &ms)) continue;
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
    double spent = tune_now_s(s->run->cfg) - t0;
    s->res->prebuilt += added;
    s->res->prebuild_s += spent;
    if (added > 0) run->prebuild_program_s = 0.5 * run->prebuild_program_s + 0.5 * spent / added;
}

/* Notes the new points the next calls of tune_visit_digits would measure (instead of measuring them); tune_end_collect
 * then compiles their programs ahead. Used around a search step run twice, first to note, then for real: the step must
 * make the same choices both times (it may read measured points, not draw random numbers or reorder lists). */
int tune_begin_collect(search *s) {
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

void tune_end_collect(search *s) {
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

void tune_search_problem(search *s) {
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
        int in_space = tune_digits_of_params(s->space, &def, digits);
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
        case CLPK_TUNE_EXHAUSTIVE: tune_search_exhaustive(s); break;
        case CLPK_TUNE_RANDOM: tune_search_random(s, cfg->samples); break;
        case CLPK_TUNE_HILL: tune_search_hill(s); break;
        }
    }
    res->complete = !s->cut;
    tune_remeasure(s);
}
