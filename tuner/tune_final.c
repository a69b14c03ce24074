/* Measuring again: the best few candidates of a search and the defaults, in interleaved rounds, and two points of one
 * problem head to head (tune_compare). */
#include "tune_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    tune_params_of(s, p, &params);
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
    tune_params_of(s, x->pt, &params);
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
            if (tune_stop_requested(s->run))
                s->run->report->stopped = cut = 1;
            else if (tune_now_s(s->run->cfg) >= s->run->deadline)
                s->run->report->budget_exhausted = cut = 1;
            if (cut) break;
            final_slot *x = &f->slots[place[at]];
            core_params params;
            tune_params_of(s, x->pt, &params);
            double ms, wall_s, build_s;
            tune_outcome outcome;
            tune_evaluate_once(s, &params, "final", repeats, 0, &outcome, &ms, &wall_s, &build_s);
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
void tune_remeasure(search *s) {
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
    f.again = cfg->top_k > 0 && !tune_stop_requested(s->run) && tune_now_s(s->run->cfg) < s->run->deadline;
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
            tune_params_of(s, x->pt, &res->best);
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

clpk_status tune_compare(clpk_context *ctx, const tune_family *fam, const tune_options *opts, int problem_index,
                         const core_params *a, const core_params *b, int rounds, int repeats, tune_comparison *out) {
    if (!ctx || !fam || !opts || !a || !b || !out || rounds <= 0 || repeats <= 0 || !tune_family_usable(fam) ||
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

/* ---- Cross-check: where an entry's parameters hold ------------------------------------------------------------- */

/* A class value that is a number ("1000") or a range ("4..16"): its ends. */
static int numeric_value(const char *v, double *lo, double *hi) {
    char *end;
    *lo = *hi = strtod(v, &end);
    if (end != v && !*end && isfinite(*lo)) return 1;
    const char *dots = strstr(v, "..");
    if (!dots) return 0;
    char a[64];
    snprintf(a, sizeof a, "%.*s", (int)(dots - v), v);
    *lo = strtod(a, &end);
    if (end == a || *end) return 0;
    *hi = strtod(dots + 2, &end);
    return end != dots + 2 && !*end && isfinite(*lo) && isfinite(*hi);
}

/* Every string feature of either class is in the other with the same value (numbers may differ). */
static int same_strings(const core_params *a, const core_params *b) {
    for (int pass = 0; pass < 2; ++pass) {
        const core_params *x = pass ? b : a, *y = pass ? a : b;
        for (int i = 0; i < x->count; ++i) {
            double lo, hi;
            if (numeric_value(x->items[i].value, &lo, &hi)) continue;
            const char *other = core_params_get(y, x->items[i].key);
            if (!other || strcmp(other, x->items[i].value) != 0) return 0;
        }
    }
    return 1;
}

static int same_params(const core_params *a, const core_params *b) {
    if (a->count != b->count) return 0;
    for (int i = 0; i < a->count; ++i) {
        const char *v = core_params_get(b, a->items[i].key);
        if (!v || strcmp(v, a->items[i].value) != 0) return 0;
    }
    return 1;
}

/* One result whose parameters are cross-checked, and the box of the problems they held on. */
typedef struct cross_entry {
    tune_result *r;
    double lo[CLPK_PARAMS_MAX], hi[CLPK_PARAMS_MAX]; /* per numeric key of r->klass (numeric[k]) */
    int numeric[CLPK_PARAMS_MAX];
    int targets; /* problems it is to be measured on */
} cross_entry;

/* Whether entry e is to be measured on the problem of result t: another tuned problem of the same string
 * features, with measured defaults and every numeric feature of e's class. */
static int cross_applies(const cross_entry *e, const tune_result *t) {
    if (t == e->r || !t->default_ok || !isfinite(t->default_ms) || !t->klass.count) return 0;
    if (!same_strings(&e->r->klass, &t->klass)) return 0;
    for (int k = 0; k < e->r->klass.count; ++k) {
        double lo, hi;
        const char *v = core_params_get(&t->klass, e->r->klass.items[k].key);
        if (e->numeric[k] && (!v || !numeric_value(v, &lo, &hi))) return 0;
    }
    return 1;
}

/* The time of `params` on t's problem: t's own re-measured times where they are its best or its defaults, else the
 * resume cache, else one evaluation through the engine's measuring path (phase "cross", final_repeats runs). */
static void cross_measure(run_state *run, const tune_family *fam, tune_problem *prob, tune_result *t,
                          const core_params *params, tune_outcome *outcome, double *ms) {
    *outcome = CLPK_TUNE_OK;
    if (t->found && same_params(params, &t->best)) {
        *ms = t->best_ms;
        return;
    }
    if (same_params(params, &t->defaults)) {
        *ms = t->default_ms;
        return;
    }
    if (tune_cache_lookup(run->cache, fam->name, &t->klass, "cross", params, outcome, ms)) return;
    tune_result scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.best_ms = INFINITY;
    search s = {.run = run, .fam = fam, .prob = prob, .res = &scratch, .default_index = -1};
    double wall_s, build_s;
    tune_evaluate_once(&s, params, "cross", run->cfg->final_repeats, 0, outcome, ms, &wall_s, &build_s);
    tune_cache_store_timed(run->cache, fam->name, &t->klass, "cross", params, *outcome, *ms, wall_s, build_s);
    t->evaluate_s += scratch.evaluate_s;
    t->build_s += scratch.build_s;
    t->builds += scratch.builds;
}

static void cross_note(run_state *run, const char *family, const char *why) {
    tune_report *report = run->report;
    size_t at = strlen(report->cross_note);
    if (at < sizeof report->cross_note - 1)
        snprintf(report->cross_note + at, sizeof report->cross_note - at, "%s%s: %s", at ? "; " : "", family, why);
    core_log(run->ctx, CLPK_LOG_WARN, "tune: %s: %s", family, why);
}

/* Whether t's class lies inside (or overlaps) the box of e's numeric features, grown by `add` when not NULL. */
static int cross_covers(const cross_entry *e, const tune_result *add, const tune_result *t) {
    for (int k = 0; k < e->r->klass.count; ++k) {
        double lo = e->lo[k], hi = e->hi[k], a, b, x, y;
        if (!e->numeric[k]) continue;
        if (add && numeric_value(core_params_get(&add->klass, e->r->klass.items[k].key), &a, &b))
            lo = a < lo ? a : lo, hi = b > hi ? b : hi;
        if (!numeric_value(core_params_get(&t->klass, e->r->klass.items[k].key), &x, &y) || y < lo || x > hi) return 0;
    }
    return 1;
}

/* Sorts entry e's targets (report indices, order[0..n)) by class distance, nearest first, ties by index: an insertion
 * sort over the distances (a family has tens of problems), so no comparison state outlives the call. */
static void sort_by_distance(const cross_entry *e, const tune_report *report, int *order, int n) {
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    if (!d) return; /* unsorted: the check still runs, on the targets in report order */
    for (int i = 0; i < n; ++i)
        d[i] = core_class_distance(&e->r->klass, &report->items[order[i]].klass);
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && (d[j] < d[j - 1] || (d[j] == d[j - 1] && order[j] < order[j - 1])); --j) {
            const double t = d[j];
            const int o = order[j];
            d[j] = d[j - 1], order[j] = order[j - 1];
            d[j - 1] = t, order[j - 1] = o;
        }
    free(d);
}

/* Plans a cross-check that fits: each entry on its `near` nearest targets (planned[i * count + j] set), the largest
 * near whose estimated cost fits in `left` seconds (at least 1); returns near (0: nothing to plan). */
static int cross_plan(const tune_report *report, const cross_entry *entries, int n, int *order, char *planned,
                      double per_eval, double per_setup, double left, int *pairs) {
    int count = report->count, most = 0;
    for (int i = 0; i < n; ++i)
        most = entries[i].targets > most ? entries[i].targets : most;
    for (int near = most; near >= 1; --near) {
        memset(planned, 0, (size_t)n * (size_t)count);
        int evaluations = 0, creations = 0;
        for (int i = 0; i < n; ++i)
            for (int r = 0; r < near && r < entries[i].targets; ++r, ++evaluations)
                planned[(size_t)i * count + order[(size_t)i * count + r]] = 1;
        for (int j = 0; j < count; ++j) {
            int needed = 0;
            for (int i = 0; i < n && !needed; ++i)
                needed = planned[(size_t)i * count + j];
            creations += needed;
        }
        *pairs = evaluations;
        if (evaluations * per_eval + creations * per_setup <= left || near == 1) return near;
    }
    return 0;
}

/* The valid box of an entry: its own class, grown over the problems it held on (nearest first) only while the box
 * covers no target it was not measured on, so a range never vouches for a training problem left unchecked. */
static void cross_box(const tune_report *report, cross_entry *e, const int *order, const char *measured) {
    for (int k = 0; k < e->r->klass.count; ++k)
        if (e->numeric[k]) numeric_value(e->r->klass.items[k].value, &e->lo[k], &e->hi[k]);
    for (int r = 0; r < e->targets; ++r) {
        const tune_result *t = &report->items[order[r]];
        if (measured[order[r]] != 1) continue; /* 1: held there */
        int safe = 1;
        for (int q = 0; q < e->targets && safe; ++q)
            safe = measured[order[q]] || !cross_covers(e, t, &report->items[order[q]]);
        if (!safe) continue;
        for (int k = 0; k < e->r->klass.count; ++k) {
            double lo, hi;
            if (!e->numeric[k]) continue;
            numeric_value(core_params_get(&t->klass, e->r->klass.items[k].key), &lo, &hi);
            if (lo < e->lo[k]) e->lo[k] = lo;
            if (hi > e->hi[k]) e->hi[k] = hi;
        }
    }
    core_params_clear(&e->r->valid);
    for (int k = 0; k < e->r->klass.count; ++k) {
        if (!e->numeric[k]) continue;
        char range[80];
        snprintf(range, sizeof range, "%.17g..%.17g", e->lo[k], e->hi[k]);
        core_params_set(&e->r->valid, e->r->klass.items[k].key, range);
    }
    e->r->valid_set = 1;
}

void tune_cross_check(run_state *run, const tune_family *fam, double deadline) {
    tune_report *report = run->report;
    const tune_config *cfg = run->cfg;
    int count = report->count;
    cross_entry *entries = calloc((size_t)(count ? count : 1), sizeof *entries);
    int *order = malloc(sizeof *order * (size_t)(count ? count : 1) * (size_t)(count ? count : 1));
    char *planned = calloc((size_t)(count ? count : 1) * (size_t)(count ? count : 1), 1);
    char *measured = calloc((size_t)(count ? count : 1) * (size_t)(count ? count : 1), 1); /* 1 held, 2 not */
    if (!entries || !order || !planned || !measured) goto done;
    int n = 0, evaluations = 0, measured_points = 0, created = 0;
    double evaluate_s = 0, setup_s = 0;
    for (int i = 0; i < count; ++i) {
        tune_result *r = &report->items[i];
        if (strcmp(r->family, fam->name) != 0) continue;
        evaluate_s += r->evaluate_s, setup_s += r->setup_s;
        for (int o = 0; o < CLPK_TUNE_OUTCOMES; ++o)
            measured_points += r->outcomes[o];
        created += r->klass.count > 0;
        /* Only parameters that beat their own problem's defaults apply anywhere (core_profile_choose). */
        if (!r->found || !r->default_ok || !(r->best_ms < r->default_ms)) continue;
        cross_entry *e = &entries[n++];
        e->r = r;
        for (int k = 0; k < r->klass.count; ++k)
            e->numeric[k] = numeric_value(r->klass.items[k].value, &e->lo[k], &e->hi[k]);
    }
    for (int i = 0; i < n; ++i) { /* each entry's targets, nearest first */
        cross_entry *e = &entries[i];
        int *mine = order + (size_t)i * count;
        for (int j = 0; j < count; ++j)
            if (strcmp(report->items[j].family, fam->name) == 0 && cross_applies(e, &report->items[j]))
                mine[e->targets++] = j;
        sort_by_distance(e, report, mine, e->targets);
        evaluations += e->targets;
    }
    if (!evaluations) goto done;
    /* The cost at the family's running means (an evaluation measures final_repeats runs, a search one `repeats`).
     * When the whole check does not fit, each entry is checked on its nearest problems, as many as fit. */
    double per_eval = measured_points ? evaluate_s / measured_points : 0, per_setup = created ? setup_s / created : 0;
    double ratio =
        cfg->repeats > 0 && cfg->final_repeats > cfg->repeats ? (double)cfg->final_repeats / cfg->repeats : 1;
    double now = tune_now_s(cfg);
    int pairs = 0;
    int near =
        tune_stop_requested(run) || now >= deadline
            ? 0
            : cross_plan(report, entries, n, order, planned, per_eval * ratio, per_setup, deadline - now, &pairs);
    if (!near) {
        char why[160];
        snprintf(why, sizeof why, "cross-check skipped (%d measurements, %.0f s left): no valid ranges", evaluations,
                 deadline > now ? deadline - now : 0);
        cross_note(run, fam->name, tune_stop_requested(run) ? "cross-check skipped: stopped" : why);
        goto done;
    }
    if (pairs < evaluations) {
        char why[160];
        snprintf(why, sizeof why, "cross-check on each entry's %d nearest problems: %d of %d measurements left out",
                 near, evaluations - pairs, evaluations);
        cross_note(run, fam->name, why);
    }
    int cut = 0;
    /* Each target problem is created once and every entry planned there is measured on it. */
    for (int j = 0; j < count && !cut; ++j) {
        tune_result *t = &report->items[j];
        int any = 0;
        for (int i = 0; i < n && !any; ++i)
            any = planned[(size_t)i * count + j];
        if (!any) continue;
        tune_problem prob;
        memset(&prob, 0, sizeof prob);
        double t0 = tune_now_s(cfg);
        clpk_status st = fam->problem_create(run->ctx, &cfg->opts, t->problem_index, &prob);
        t->setup_s += tune_now_s(cfg) - t0;
        for (int i = 0; i < n && st == CLPK_SUCCESS; ++i) {
            cross_entry *e = &entries[i];
            if (!planned[(size_t)i * count + j]) continue;
            if (tune_stop_requested(run) || tune_now_s(cfg) >= deadline) {
                cut = 1;
                break;
            }
            tune_outcome outcome;
            double ms;
            cross_measure(run, fam, &prob, t, &e->r->best, &outcome, &ms);
            e->r->cross_checked++;
            int held = outcome == CLPK_TUNE_OK && ms <= t->default_ms / CROSS_CHECK_KEEP;
            e->r->cross_passed += held;
            measured[(size_t)i * count + j] = held ? 1 : 2;
        }
        /* a problem not created leaves its entries unchecked there: their boxes stay clear of it */
        if (prob.state && fam->problem_destroy) fam->problem_destroy(&prob);
    }
    int unboxed = 0;
    for (int i = 0; i < n; ++i) {
        cross_entry *e = &entries[i];
        if (!e->r->cross_checked) { /* measured nowhere: no evidence for a range */
            unboxed += e->targets > 0;
            continue;
        }
        /* the box reads measured[] by report index: entry i's row */
        cross_box(report, e, order + (size_t)i * count, measured + (size_t)i * count);
    }
    if (unboxed) {
        char why[160];
        snprintf(why, sizeof why, "cross-check cut short (%s): %d entries without valid ranges",
                 tune_stop_requested(run) ? "stopped" : "budget spent or a problem not created", unboxed);
        cross_note(run, fam->name, why);
    }
done:
    free(entries);
    free(order);
    free(planned);
    free(measured);
}
