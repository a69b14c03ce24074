/* The cross-check: each tuned entry measured on its family's other problems, and the box of problem features where its
 * parameters held (the entry's validity range, docs/profiles.md). */
#include "tune_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
