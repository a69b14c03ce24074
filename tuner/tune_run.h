/* The tuner's engine (tune_run.c, the run and its budgets; tune_search.c, tune_strategy.c and tune_hill.c, one
 * problem's search; tune_final.c, the re-measure; tune.c, names, defaults and selections), resume cache
 * (tune_cache.c), profile writer (tune_profile.c) and progress display (tune_progress.c). The engine takes any
 * NULL-terminated list of families, so tests pass fake ones and clpk-tune passes tune_families. Nothing here is
 * global: every run carries its own state. */
#ifndef CLPK_TUNE_RUN_H
#define CLPK_TUNE_RUN_H

#include "tune.h"

#include <signal.h>

/* ---- Strategies ------------------------------------------------------------------------------------------------ */

typedef enum tune_strategy {
    CLPK_TUNE_EXHAUSTIVE = 0, /* every valid point of the space, in order */
    CLPK_TUNE_RANDOM,         /* `samples` distinct valid points drawn at random */
    CLPK_TUNE_HILL            /* random points, then hill-climbing (one parameter one step) from the best two */
} tune_strategy;

const char *tune_strategy_name(tune_strategy s); /* "exhaustive", "random", "hill" */
clpk_status tune_strategy_parse(const char *text, tune_strategy *out);

/* What became of one candidate. */
typedef enum tune_outcome {
    CLPK_TUNE_OK = 0,
    CLPK_TUNE_WRONG,     /* CLPK_ERROR_WRONG_RESULT, or a non-finite time */
    CLPK_TUNE_BUILD,     /* CLPK_ERROR_BUILD */
    CLPK_TUNE_TIMEOUT,   /* past the per-candidate limit, or CLPK_ERROR_TIMEOUT */
    CLPK_TUNE_RESOURCES, /* CLPK_ERROR_OUT_OF_MEMORY, CLPK_ERROR_UNSUPPORTED */
    CLPK_TUNE_ERROR,     /* anything else */
    CLPK_TUNE_OUTCOMES
} tune_outcome;

const char *tune_outcome_name(tune_outcome o); /* "ok", "wrong", "build", "timeout", ... */
tune_outcome tune_outcome_of(clpk_status st);

/* ---- Configuration --------------------------------------------------------------------------------------------- */

typedef struct tune_event tune_event;

typedef struct tune_config {
    tune_options opts;
    tune_strategy strategy;
    double budget_s;          /* the whole run; <= 0: unlimited */
    double family_budget_s;   /* each family; <= 0: its weight's share of budget_s (tune_family.budget_weight) */
    double candidate_limit_s; /* one evaluate call; <= 0: none. A longer call counts as a timeout */
    int repeats;              /* timed runs per candidate during the search */
    int final_repeats;        /* timed runs when the top candidates and the defaults are measured again */
    int top_k;                /* how many of the best candidates are measured again (0: none) */
    int samples;              /* points drawn by the random strategy (the hill climber starts with half) */
    int max_points;           /* at most this many evaluations per problem; <= 0: no cap */
    /* A candidate replaces the defaults only when measured again at least this fraction faster (default 0.02; 0:
     * any gain): a smaller one is the timing noise of the training problem, not a choice that carries over. */
    double min_gain;
    /* Threads compiling the programs of a search step's candidates ahead of measuring them (core_program_prebuild);
     * 0: automatic (GPUs: the host's cores up to 16; CPU devices: 1, their compiler competes with nothing faster);
     * 1: no compiling ahead. */
    int build_threads;
    /* Without family budgets, the part of each family's share of the run's budget shared out over its problems in the
     * first round (default 1: a second round continues cut-short searches only with what the last problems leave). */
    double first_round_share;
    /* "key=v1|v2,...": every family's space is restricted to this sub-space (tune_space_restrict); NULL: none */
    const char *space_restrict;
    /* 1: no cross-check (tune_cross_check); profiles then carry no "valid" ranges */
    int no_cross_check;
    /* "0,3,5": tune only these problems (by index) of each family; NULL: all */
    const char *problems;
    const char *cache_path; /* JSON-lines cache of measured points; NULL: none */
    int resume;             /* reuse the points of cache_path (else the cache starts empty) */
    /* When it becomes non-zero (e.g. on SIGINT) the run stops after the current candidate. */
    volatile const sig_atomic_t *stop;
    /* Called on every event (may be NULL); tune_progress_event is one such sink. */
    void (*on_event)(void *user, const tune_event *ev);
    void *event_user;
    /* Where budgets, deadlines and per-candidate limits read the time (seconds); NULL: the wall clock. The engine's
     * tests run it on a virtual clock that only their fake evaluations advance, so no decision depends on how
     * loaded the machine is. */
    double (*clock)(void *user);
    void *clock_user;
} tune_config;

/* Fills the defaults: hill climbing, no budget, 5 repeats, 15 final repeats, top 4, 24 samples. */
void tune_config_defaults(tune_config *cfg);

/* ---- Results --------------------------------------------------------------------------------------------------- */

typedef struct tune_result {
    char family[32];
    int problem_index; /* the family's problem number (problem_create's index) */
    char label[96];
    core_params klass;
    tune_strategy strategy;
    int found; /* a candidate passed the check: best/best_ms are set */
    core_params best;
    double best_ms;
    int default_ok; /* the defaults passed: default_ms is set */
    core_params defaults;
    double default_ms;
    /* > 1: the best candidate's gain over the defaults, below min_gain, so the defaults were kept */
    double gain_kept_out;
    double space_size;                /* product of the values' counts */
    int evaluated;                    /* points measured (or taken from the cache) in the search */
    int from_cache;                   /* of which taken from the resume cache */
    int pruned;                       /* points the family's `valid` refused */
    int outcomes[CLPK_TUNE_OUTCOMES]; /* search + re-measure outcomes */
    int complete;                     /* the strategy ran to its end (not cut by a budget or a stop) */
    int budget_cut;                   /* a budget ended the search, or kept it from starting */
    int rounds;                       /* searches run (a second round continues searches the first cut short) */
    int warm_starts;                  /* points taken from the winners of the family's earlier problems */
    double setup_s;                   /* problem creation: inputs, reference, device buffers */
    double evaluate_s;                /* wall time inside the family's evaluate calls (search and re-measure) */
    double build_s;                   /* of which in the driver's compiler */
    int builds;                       /* programs compiled from source or loaded from binaries during the evaluations */
    double prebuild_s; /* noting the programs of search steps and compiling them ahead (build_threads > 1) */
    int prebuilt;      /* programs compiled ahead */
    char note[256];    /* why the problem was not tuned, or the first failure's message */
    /* Cross-check of the best parameters on the family's other problems of the same string features: how many were
     * measured and on how many they were no slower than 0.97 x that problem's defaults; with valid_set, `valid`
     * holds "lo..hi" per numeric class feature (the bounding box of those problems and this one). */
    int cross_checked, cross_passed;
    int valid_set;
    core_params valid;
} tune_result;

typedef struct tune_report {
    int count, capacity;
    tune_result *items;
    int family_count;
    char families[16][32]; /* the families the run covered, even those with no result */
    double elapsed_s;
    int stopped;          /* the stop flag ended the run */
    int budget_exhausted; /* a budget cut the run */
    char cross_note[256]; /* why a cross-check was skipped or cut ("" when it ran everywhere or was off) */
    /* Cost models of the families that train one (tune_family.train_model): cJSON objects for "models" */
    int model_count;
    void *models[16];
    char model_family[16][32];
    char model_note[16][200];
} tune_report;

/* Frees a model JSON object (a cJSON *). */
void tune_model_free(void *model_json);

void tune_report_free(tune_report *report);

/* ---- Events (progress) ----------------------------------------------------------------------------------------- */

typedef enum tune_event_kind {
    CLPK_TUNE_EVENT_START, /* total_problems known */
    CLPK_TUNE_EVENT_PROBLEM_START,
    CLPK_TUNE_EVENT_CANDIDATE,    /* after each evaluation */
    CLPK_TUNE_EVENT_PROBLEM_DONE, /* result set */
    CLPK_TUNE_EVENT_FINISH,
    CLPK_TUNE_EVENT_CANDIDATE_START /* an evaluation starts (its pending mark is in the cache): for watchdogs */
} tune_event_kind;

struct tune_event {
    tune_event_kind kind;
    const char *family;
    const char *label;
    int problem_index, total_problems; /* over the whole run */
    int evaluated, planned;            /* in the current problem; planned is an estimate */
    double elapsed_s, budget_s;        /* budget_s <= 0: none */
    double best_ms;                    /* best so far in the problem, or < 0 */
    tune_outcome outcome;              /* for CANDIDATE */
    /* for a failed CANDIDATE: the context's last error; for PROBLEM_DONE in a second round, why the first round's
     * result stands (the round was skipped or found nothing), else NULL */
    const char *message;
    const tune_result *result; /* for PROBLEM_DONE */
};

/* ---- Running --------------------------------------------------------------------------------------------------- */

/* Tunes every problem of every family of `families` (NULL-terminated) on ctx. Failures of candidates, problems or
 * families are recorded in the report, never returned: the status is CLPK_SUCCESS unless the arguments are bad, the
 * cache cannot be opened or memory runs out. */
clpk_status tune_run(clpk_context *ctx, const tune_family *const *families, const tune_config *cfg,
                     tune_report *report);

/* Measures two points of one problem again, alternately (a, b, a, b, ...; `rounds` times each, `repeats` timed runs
 * per evaluation), in one process, so that both see the same machine load: the fair comparison of the tuned choice
 * with the exhaustive best. The problem is created afresh from opts and problem_index. Each *_ms is the median of
 * the rounds' medians; each *_spread is (slowest round - fastest round) / median, the noise of the measurement. A
 * point that fails its check in any round fails the comparison (the status and the context's message say why). */
typedef struct tune_comparison {
    double a_ms, b_ms;
    double a_spread, b_spread;
    int rounds;
} tune_comparison;

clpk_status tune_compare(clpk_context *ctx, const tune_family *fam, const tune_options *opts, int problem_index,
                         const core_params *a, const core_params *b, int rounds, int repeats, tune_comparison *out);

/* How many interleaved rounds the re-measure of the best few takes for `final_repeats` timed runs per candidate
 * (each round final_repeats / rounds of them, rounded up): final_repeats / 5, at least 3 (or final_repeats when
 * smaller), at most 16. */
int tune_final_rounds(int final_repeats);

/* Checks a problem list ("0,3,5": non-negative indices) for tune_config.problems; NULL is valid (all). */
clpk_status tune_problems_parse(const char *list, clpk_error *err);
/* Whether problem `index` is in the list (NULL: every problem is). */
int tune_problem_selected(const char *list, int index);

/* Picks families by a comma-separated list of names ("" or NULL: all) into out (capacity entries, NULL-terminated).
 * An unknown name fails with CLPK_ERROR_INVALID_ARGUMENT naming it and the known ones. */
clpk_status tune_select(const tune_family *const *all, const char *names, const tune_family **out, int capacity,
                        clpk_error *err);

/* The space's points: mixed-radix index <-> parameter list. */
double tune_space_size(const tune_space *space);
void tune_space_point(const tune_space *space, unsigned long long index, core_params *out);

/* ---- Resume cache (JSON lines, one measured point each) ------------------------------------------------------- */

typedef struct tune_cache tune_cache;

/* Opens the cache of `path` for the device. With `resume` the points already there for this device and driver are
 * loaded (unreadable lines, e.g. a line cut by a kill, are skipped); without it the file starts empty. */
clpk_status tune_cache_open(const char *path, const clpk_device_info *dev, int resume, tune_cache **out,
                            clpk_error *err);
void tune_cache_close(tune_cache *cache); /* accepts NULL */
/* Looks a point up; returns 1 and its outcome and time if it was measured. `phase` is "search" or "final". */
int tune_cache_lookup(const tune_cache *cache, const char *family, const core_params *klass, const char *phase,
                      const core_params *params, tune_outcome *outcome, double *ms);
/* Records a point in memory and appends it to the file at once (flushed), so a killed run loses nothing. */
void tune_cache_store(tune_cache *cache, const char *family, const core_params *klass, const char *phase,
                      const core_params *params, tune_outcome outcome, double ms);
/* The same with the evaluation's cost (wall seconds of the evaluate call and of compiling in it), kept in the file
 * so where a run's time went can be read afterwards. */
void tune_cache_store_timed(tune_cache *cache, const char *family, const core_params *klass, const char *phase,
                            const core_params *params, tune_outcome outcome, double ms, double wall_s, double build_s);
/* Records that a point's evaluation starts; its result replaces the mark. A mark still there when the cache is
 * loaded again (the run died in that evaluation: a hang that was killed, a driver crash) reads as a timeout, so a
 * resumed run does not try the point again. */
void tune_cache_mark_pending(tune_cache *cache, const char *family, const core_params *klass, const char *phase,
                             const core_params *params);
/* Whether the point was read from the file when the cache was opened (measured by an earlier run, not pending):
 * taking it costs no time, so a resumed search takes it past its deadline too. */
int tune_cache_earlier(const tune_cache *cache, const char *family, const core_params *klass, const char *phase,
                       const core_params *params);
/* Whether earlier runs measured any point of the family. */
int tune_cache_family_earlier(const tune_cache *cache, const char *family);
int tune_cache_size(const tune_cache *cache);    /* points held */
int tune_cache_skipped(const tune_cache *cache); /* unreadable lines skipped when loading */

/* ---- Profiles -------------------------------------------------------------------------------------------------- */

/* The profile document of a report (schema of docs/profiles.md) as malloc'ed JSON text. */
clpk_status tune_profile_text(const clpk_device_info *dev, const tune_report *report, char **text, clpk_error *err);
/* Writes it to `path` atomically (temporary file + rename). */
clpk_status tune_profile_write(const char *path, const clpk_device_info *dev, const tune_report *report,
                               clpk_error *err);
/* Merges profiles of one device (same name and vendor; with `force`, any) into `out`: for each family the union of
 * the classes, and for a class present in several files the entry with the lowest time_ms; entries tuned against
 * another revision of their family's built-in defaults (never applied) are dropped. The device block of the first
 * file is kept. */
clpk_status tune_profile_merge(const char *const *paths, int count, const char *out, int force, clpk_error *err);

/* ---- Progress display ------------------------------------------------------------------------------------------ */

typedef struct tune_progress {
    FILE *out;
    int tty;          /* redraw a bar with '\r'; else plain lines */
    int verbose;      /* print every failed candidate */
    double last_draw; /* throttles redraws */
    int drawn;        /* a bar is on the line */
    int total_problems;
} tune_progress;

/* Sets up the display on `out` (a bar with ETA when out is a terminal, plain lines otherwise). */
void tune_progress_init(tune_progress *p, FILE *out, int verbose);
/* An event sink for tune_config.on_event (user = the tune_progress). */
void tune_progress_event(void *user, const tune_event *ev);
/* The estimated seconds left: from the fraction done, capped by the budget; < 0 when unknown. */
double tune_eta(double elapsed_s, double fraction_done, double budget_s);

#endif
