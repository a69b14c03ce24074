/* What the engine's files share (tune.c, tune_run.c, tune_search.c, tune_strategy.c, tune_hill.c, tune_final.c,
 * tune_cross.c, tune_cache.c, tune_profile.c): the state of a run and of one problem's search, and the steps they call
 * across files. Internal to the engine: families, the CLI and the tests use tune_run.h. */
#ifndef CLPK_TUNE_ENGINE_H
#define CLPK_TUNE_ENGINE_H

#include "tune_run.h"

#include <stdint.h>

#define WARM_STARTS 4 /* winners of earlier problems measured first (warm_starts) */

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
    /* Budget split (no family budget): each family its weight's share of what is left, each of its problems an equal
     * share of what is left of round_end; a second round continues the family's searches the first cut short with
     * whatever is left of the family's share. */
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

/* ---- The run (tune_run.c) -------------------------------------------------------------------------------------- */

double tune_now_s(const tune_config *cfg);      /* the run's clock (cfg->clock or the wall clock), seconds */
void tune_emit(run_state *run, tune_event *ev); /* fills the run's part of ev and passes it to cfg->on_event */
int tune_stop_requested(const run_state *run);  /* the stop flag is set */
int tune_family_usable(const tune_family *f);   /* the family has the functions the engine needs */

/* ---- Space points (tune.c) ------------------------------------------------------------------------------------- */

/* The digits (value index per parameter) of the product's point `index`; the last parameter varies fastest. */
void tune_digits_of_index(const tune_space *space, unsigned long long index, int *digits);
/* Where `params` sit in the space: 1 with their digits, 0 when they are not a point of it. */
int tune_digits_of_params(const tune_space *space, const core_params *params, int *digits);

/* ---- One problem's search (tune_search.c) ---------------------------------------------------------------------- */

/* Searches s->prob: the defaults, the configured strategy, then the re-measure (s->res filled). */
void tune_search_problem(search *s);
uint64_t tune_next_random(uint64_t *state);              /* the search's random numbers (splitmix64 on s->rng) */
int tune_find_point(const search *s, const int *digits); /* index in s->pts of a visited point, or -1 */
void tune_normalize(const search *s, int *digits);       /* parameters that do not matter to their first value */
void tune_params_of(const search *s, const point *p, core_params *out);
/* Visits a point of the space: its index (visited before or measured now), -2 pruned by `valid`, -1 the search must
 * stop; while collecting, new points are only noted. */
int tune_visit_digits(search *s, const int *digits);
/* Around a search step run twice (first noting its new points, then for real): compiles their programs ahead.
 * tune_begin_collect returns 0 when compiling ahead is off for this search (the noting pass is then skipped). */
int tune_begin_collect(search *s);
void tune_end_collect(search *s);
/* One evaluate call, accounted (see its definition); with `record` its outcome is counted and cached. */
void tune_evaluate_once(search *s, const core_params *params, const char *phase, int repeats, int record,
                        tune_outcome *outcome, double *ms, double *wall_s, double *build_s);

/* ---- Strategies (tune_strategy.c, tune_hill.c) ----------------------------------------------------------------- */

void tune_search_exhaustive(search *s);    /* every valid point, in order */
void tune_search_random(search *s, int n); /* n new valid points drawn at random */
void tune_search_hill(search *s);          /* random starts, then climbs and sweeps */

/* ---- Re-measure (tune_final.c) --------------------------------------------------------------------------------- */

/* Measures the best top_k and the defaults again and sets the result's best and default times. */
void tune_remeasure(search *s);

/* ---- Cross-check (tune_cross.c) -------------------------------------------------------------------------------- */

/* An entry's parameters may apply to a problem of another class only if they are no slower there than this fraction
 * of that problem's defaults' speed (time <= default time / CROSS_CHECK_KEEP). */
#define CROSS_CHECK_KEEP 0.97
/* The part of a finite budget kept for the cross-checks (the searches share out the rest). */
#define CROSS_CHECK_SHARE 0.1

/* After a family's problems are tuned: measures each result's best parameters (where they beat the defaults) on the
 * family's other tuned problems of the same string features, next to those problems' re-measured defaults, and
 * sets the results' cross_checked, cross_passed and `valid` box. Stops at `deadline` or the stop flag; skipped when
 * its estimated cost does not fit: then, and for results whose checks were cut, no box is set and the reason goes
 * to the report's cross_note. */
void tune_cross_check(run_state *run, const tune_family *fam, double deadline);

/* ---- JSON (tune_cache.c, tune_profile.c) ----------------------------------------------------------------------- */

struct cJSON;
/* The string member `key` of a JSON object, or NULL (obj NULL, no such member, or not a string). */
const char *tune_json_string(const struct cJSON *obj, const char *key);

#endif
