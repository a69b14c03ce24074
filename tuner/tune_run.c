/* Runs and budgets: the loop over families and problems, each family's share of the run's budget (by weight) and
 * each problem's deadline within it, the second round that continues searches cut short, the build threads, and the
 * clock, events and stop flag the whole engine reads. */
#include "tune_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TUNE_MAX_FAMILIES 16

double tune_now_s(const tune_config *cfg) { return cfg->clock ? cfg->clock(cfg->clock_user) : core_wall_seconds(); }

void tune_emit(run_state *run, tune_event *ev) {
    if (!run->cfg->on_event) return;
    ev->problem_index = run->problem_index;
    ev->total_problems = run->total_problems;
    ev->elapsed_s = tune_now_s(run->cfg) - run->start;
    ev->budget_s = run->cfg->budget_s;
    run->cfg->on_event(run->cfg->event_user, ev);
}

int tune_stop_requested(const run_state *run) { return run->cfg->stop && *run->cfg->stop; }

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

int tune_family_usable(const tune_family *f) {
    return f->name && f->problem_count && f->problem_create && f->space && f->evaluate;
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
static void tune_one(run_state *run, const tune_family *fam, int i, double family_deadline, int left, tune_result *res,
                     const tune_result *first) {
    const tune_config *cfg = run->cfg;
    tune_problem prob;
    memset(&prob, 0, sizeof prob);
    double setup_start = tune_now_s(run->cfg);
    clpk_status st = fam->problem_create(run->ctx, &cfg->opts, i, &prob);
    double created = tune_now_s(run->cfg);
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
    tune_event ev = {.kind = CLPK_TUNE_EVENT_PROBLEM_START, .family = fam->name, .label = res->label, .best_ms = -1};
    tune_emit(run, &ev);
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
        tune_search_problem(&s);
        free(s.pts);
        free(s.table);
        free(s.valid);
        free(s.collect_buffer);
    }
    if (fam->problem_destroy) fam->problem_destroy(&prob);
    double end = tune_now_s(run->cfg), past = end - problem_deadline;
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
    tune_emit(run, &ev);
}

/* A problem's search deadline, once it is created: with the run's budget split, an equal share of what is left of
 * the family's round after the overhead of its problems still to come (their creation and the re-measure past a
 * deadline, at the family's running mean) and of this one's re-measure; else an equal share of what the family has
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
        double now = tune_now_s(run->cfg);
        run->round_left--;
        if (tune_stop_requested(run)) {
            run->report->stopped = 1;
            snprintf(res->note, sizeof res->note, "not tuned: stopped");
            continue;
        }
        /* past the deadline a problem still starts when earlier runs measured points of the family (resume): its
         * search takes them from the cache without time (tune_search.c, visit) */
        if ((now >= deadline || now >= run->deadline) && !tune_cache_family_earlier(run->cache, fam->name)) {
            run->report->budget_exhausted = 1;
            res->budget_cut = 1;
            snprintf(res->note, sizeof res->note, "not tuned: budget exhausted");
            continue;
        }
        tune_one(run, fam, i, deadline, left, res, NULL);
    }
    return CLPK_SUCCESS;
}

static double run_clock(void *cfg) { return tune_now_s(cfg); }

/* A family with a cost model: trained once within the family's deadline (its share of the run), the model kept in
 * the report for the profile. */
static clpk_status train_family_model(run_state *run, const tune_family *fam, double deadline) {
    if (tune_stop_requested(run)) return CLPK_SUCCESS;
    tune_model_request req = {.opts = &run->cfg->opts,
                              .deadline = deadline,
                              .now = run_clock,
                              .clock_user = (void *)run->cfg,
                              .build_threads = run->build_threads};
    void *json = NULL;
    char note[200] = "";
    clpk_status st = fam->train_model(run->ctx, &req, &json, note, sizeof note);
    tune_report *report = run->report;
    if (st != CLPK_SUCCESS) {
        snprintf(note, sizeof note, "cost model not trained: %s", clpk_status_string(st));
        st = CLPK_SUCCESS; /* the other families go on; the profile has no model for this one */
    }
    if (json && report->model_count < TUNE_MAX_FAMILIES) {
        report->models[report->model_count] = json;
        snprintf(report->model_family[report->model_count], sizeof report->model_family[0], "%s", fam->name);
        snprintf(report->model_note[report->model_count], sizeof report->model_note[0], "%s", note);
        ++report->model_count;
    } else {
        tune_model_free(json);
        core_log(run->ctx, CLPK_LOG_WARN, "%s: %s", fam->name, note);
    }
    return st;
}

/* A family's second round: the searches its first round cut short (or never started) for lack of time (its results
 * from report index `from` on), in order, each with an equal share of what is left of the family's deadline. A
 * search replays its measured points from the cache (same seed, same draws), so it continues where it stopped.
 * Needs the cache. */
static clpk_status second_round(run_state *run, const tune_family *fam, int from, double deadline) {
    tune_report *report = run->report;
    int first_count = report->count, again = 0;
    for (int k = from; k < first_count; ++k)
        again += report->items[k].budget_cut;
    if (!again) return CLPK_SUCCESS;
    run->total_problems += again;
    run->round_end = deadline;
    run->round_left = again;
    for (int k = from; k < first_count && !tune_stop_requested(run); ++k) {
        tune_result *res = &report->items[k];
        if (!res->budget_cut) continue;
        double now = tune_now_s(run->cfg);
        run->round_left--;
        if (now >= deadline || now >= run->deadline) {
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
            tune_emit(run, &ev);
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
        tune_one(run, fam, res->problem_index, deadline, 0, res, &old);
        run->problem_index++;
    }
    return CLPK_SUCCESS;
}

/* The families' weights in a split run budget (tune_family.budget_weight): one without a weight counts as the mean
 * of the declared ones (1 when none declares one); a family the run skips counts nothing. */
static void family_weights(const tune_family *const *families, int nfam, double *weight) {
    double sum = 0;
    int declared = 0;
    for (int f = 0; f < nfam; ++f) {
        if (!tune_family_usable(families[f]) || !(families[f]->budget_weight > 0)) continue;
        sum += families[f]->budget_weight;
        declared++;
    }
    for (int f = 0; f < nfam; ++f) {
        double w = families[f]->budget_weight;
        weight[f] = !tune_family_usable(families[f]) ? 0 : w > 0 ? w : declared ? sum / declared : 1;
    }
}

/* Family f's end within a split budget ending at `end`: its weight's part of what is left, shared with the families
 * after it, so time an earlier family left unused passes on. */
static double weighted_end(double now, double end, const double *weight, int f, int nfam) {
    double rest = 0;
    for (int g = f; g < nfam; ++g)
        rest += weight[g];
    return now < end && rest > 0 ? now + (end - now) * weight[f] / rest : end;
}

clpk_status tune_run(clpk_context *ctx, const tune_family *const *families, const tune_config *cfg,
                     tune_report *report) {
    if (!report) return CLPK_ERROR_INVALID_ARGUMENT;
    memset(report, 0, sizeof *report);
    if (!ctx || !families || !cfg || cfg->repeats <= 0 || cfg->final_repeats <= 0 || cfg->top_k < 0 ||
        cfg->samples <= 0 || !(cfg->min_gain >= 0 && cfg->min_gain < 1))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "tune: NULL argument, non-positive repeats/samples or min_gain outside [0, 1)");
    run_state run = {.ctx = ctx, .cfg = cfg, .report = report, .start = tune_now_s(cfg)};
    run.build_threads = resolve_build_threads(ctx, cfg->build_threads);
    run.prebuild_program_s = 0.1;
    if (cfg->cache_path) {
        clpk_error err = {0};
        clpk_status st = tune_cache_open(cfg->cache_path, clpk_context_device_info(ctx), cfg->resume, &run.cache, &err);
        if (st != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    }
    int counts[TUNE_MAX_FAMILIES] = {0};
    int nfam = 0;
    for (; families[nfam] && nfam < TUNE_MAX_FAMILIES; ++nfam) {
        const tune_family *f = families[nfam];
        counts[nfam] = tune_family_usable(f) && !f->train_model ? f->problem_count(&cfg->opts) : 0;
        if (counts[nfam] < 0) counts[nfam] = 0;
        run.total_problems += selected_count(cfg, counts[nfam]);
        snprintf(report->families[nfam], sizeof report->families[nfam], "%s", f->name ? f->name : "?");
    }
    report->family_count = nfam;
    /* The searches share out the budget less the cross-checks' part (tune_cross_check), kept only where a family
     * has two problems to check against each other. */
    int cross = 0;
    for (int f = 0; f < nfam && !cfg->no_cross_check; ++f)
        cross |= selected_count(cfg, counts[f]) >= 2;
    double search_budget = cfg->budget_s * (cross ? 1 - CROSS_CHECK_SHARE : 1);
    double family_budget = cfg->family_budget_s * (cross ? 1 - CROSS_CHECK_SHARE : 1);
    double run_end = cfg->budget_s > 0 ? run.start + cfg->budget_s : INFINITY;
    run.deadline = cfg->budget_s > 0 ? run.start + search_budget : INFINITY;
    tune_event ev = {.kind = CLPK_TUNE_EVENT_START, .best_ms = -1};
    tune_emit(&run, &ev);
    clpk_status st = CLPK_SUCCESS;
    /* Without family budgets a finite run budget is split over the families by their weights (what each needs, not
     * how many problems it has: split per problem, the families of many or slow problems took the time of a model
     * trainer's and of a few expensive problems), then within a family over its problems, overhead-aware
     * (problem_deadline_of); what its last problems leave (small spaces that finish early) continues its searches
     * that were cut short, in a second round, and what the family leaves passes on to the next. */
    run.split = cfg->family_budget_s <= 0 && isfinite(run.deadline);
    double first = cfg->first_round_share > 0 && cfg->first_round_share < 1 ? cfg->first_round_share : 1.0;
    double weight[TUNE_MAX_FAMILIES], cross_weight[TUNE_MAX_FAMILIES];
    family_weights(families, nfam, weight);
    for (int f = 0; f < nfam; ++f) /* only families with two problems have cross-checks */
        cross_weight[f] = selected_count(cfg, counts[f]) >= 2 ? weight[f] : 0;
    run.round_end = run.deadline;
    for (int f = 0; f < nfam && st == CLPK_SUCCESS; ++f) {
        const tune_family *fam = families[f];
        if (!tune_family_usable(fam)) {
            tune_result *res = new_result(report, fam->name ? fam->name : "?");
            if (!res)
                st = CLPK_ERROR_OUT_OF_MEMORY;
            else
                snprintf(res->note, sizeof res->note, "family lacks a required function: skipped");
            continue;
        }
        double now = tune_now_s(run.cfg), deadline = run.deadline;
        if (cfg->family_budget_s > 0 && now + family_budget < deadline) deadline = now + family_budget;
        if (run.split) deadline = weighted_end(now, run.deadline, weight, f, nfam);
        if (fam->train_model) {
            st = train_family_model(&run, fam, deadline);
            continue;
        }
        int from = report->count;
        if (run.split) { /* the family's rounds; its overhead is its own (life's problems take 10 s to create) */
            run.round_end = now + first * (deadline - now);
            run.round_left = selected_count(cfg, counts[f]);
            run.overhead_s = 0;
            run.overheads = 0;
        }
        st = run_family(&run, fam, counts[f], deadline);
        if (st == CLPK_SUCCESS && run.split && run.cache) st = second_round(&run, fam, from, deadline);
    }
    /* After every search (a second round may change a result): each family's entries measured on its other
     * problems, within its weight's part of what is left of the run's budget, or the family's share of it. */
    for (int f = 0; cross && st == CLPK_SUCCESS && f < nfam && !tune_stop_requested(&run); ++f) {
        if (!tune_family_usable(families[f])) continue;
        double now = tune_now_s(run.cfg), deadline = run_end;
        if (cfg->family_budget_s > 0 && now + cfg->family_budget_s * CROSS_CHECK_SHARE < deadline)
            deadline = now + cfg->family_budget_s * CROSS_CHECK_SHARE;
        if (run.split) deadline = weighted_end(now, run_end, cross_weight, f, nfam);
        tune_cross_check(&run, families[f], deadline);
    }
    free(run.warm);
    free(run.warm_count);
    report->elapsed_s = tune_now_s(run.cfg) - run.start;
    ev = (tune_event){.kind = CLPK_TUNE_EVENT_FINISH, .best_ms = -1};
    tune_emit(&run, &ev);
    tune_cache_close(run.cache);
    if (st != CLPK_SUCCESS) return core_fail(ctx, st, "tune: out of memory");
    return CLPK_SUCCESS;
}
