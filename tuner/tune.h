/* The tuner's contract with the kernel families. Each family declares its search space next to its code in
 * tuner/tune_<family>.c, defining `const tune_family tune_family_<family>`; the build collects them
 * (cmake/tune_registry.cmake), so adding a family edits nothing here.
 *
 * The tuner measures exactly what users run: `evaluate` must go through the family's public plan-creation path with
 * explicit parameters (never a separate benchmark-only kernel launch). */
#ifndef CLPK_TUNE_H
#define CLPK_TUNE_H

#include "clpk_internal.h"

#define CLPK_TUNE_MAX_VALUES 24
#define CLPK_TUNE_MAX_PARAMS 16

/* One tunable parameter and its candidate values, as the strings a -D option or plan parameter takes. */
typedef struct tune_param {
    char name[32];
    int count;
    char values[CLPK_TUNE_MAX_VALUES][24];
    /* A conditional parameter matters only while the earlier parameter `when_name` holds one of the '|'-separated
     * `when_values` (and that parameter matters itself); elsewhere the engine keeps it at its first value, so the
     * listing of valid points skips those combinations instead of asking `valid` about each. Empty: always. */
    char when_name[32];
    char when_values[256];
} tune_param;

/* The space of one problem: the product of the parameters' values, filtered by the family's `valid`. */
typedef struct tune_space {
    int count;
    tune_param params[CLPK_TUNE_MAX_PARAMS];
} tune_space;

/* Adds a parameter with its values (NULL-terminated list); returns CLPK_ERROR_INVALID_ARGUMENT if full. */
clpk_status tune_space_add(tune_space *space, const char *name, const char *const *values);

struct core_param_table;
/* Adds the family table's parameter `name` with the values the table searches (or `values`, '|'-separated, where a
 * problem narrows them) and the table's condition on another parameter (which must have been added before). */
clpk_status tune_space_add_param(tune_space *space, const struct core_param_table *table, const char *name,
                                 const char *values);

/* Makes the parameter `name` conditional (see tune_param): it matters only while the earlier parameter
 * `when_name` holds one of `when_values` ('|'-separated). The family's `valid` must still refuse a point where an
 * inapplicable parameter is off its first value (searches may propose one); this only saves listing them. */
clpk_status tune_space_when(tune_space *space, const char *name, const char *when_name,
                                 const char *when_values);

/* The conditions of a space in the engine's form: cond[i] the index of parameter i's condition parameter (-1: none),
 * applies[i] bit v set when parameter i matters while that parameter holds its value v. A condition naming a
 * parameter the space lacks (or a later one) leaves the parameter unconditional. */
void tune_space_conditions(const tune_space *space, int *cond, unsigned *applies);

/* Puts every parameter that does not matter at `digits` (per the conditions) at its first value. */
void tune_space_normalize(const tune_space *space, const int *cond, const unsigned *applies, int *digits);

/* The parameters of the point `digits` (value indices per parameter). */
void tune_space_digits_point(const tune_space *space, const int *digits, core_params *out);

/* How many combinations a listing walks (parameters that do not matter only at their first value), counted up to
 * limit + 1. */
unsigned long long tune_space_combinations(const tune_space *space, unsigned long long limit);

/* Lists the points that `accept` keeps (1; 0 drops, -1 stops the listing) as indices of the product (the last
 * parameter fastest, as tune_space_point reads them), walking only the combinations where parameters that do
 * not matter sit at their first value. Returns 1 with a malloc'd list (*out, *count; *walked: combinations asked
 * about), or 0 (nothing to free) when more than `limit` combinations would be asked about, accept stopped it, or
 * memory ran out. */
int tune_space_list(const tune_space *space, unsigned long long limit,
                         int (*accept)(void *user, const core_params *point), void *user, unsigned long long **out,
                         size_t *count, unsigned long long *walked);

/* Restricts a space to a sub-space: `spec` is "key=v1|v2,key2=v3"; each parameter named there keeps only the listed
 * values (in the space's order). Keys the space lacks are ignored (one spec serves several families). Fails with
 * CLPK_ERROR_INVALID_ARGUMENT when spec is malformed or leaves a parameter with no value. space may be NULL (only the
 * syntax is checked); spec NULL: no restriction. */
clpk_status tune_space_restrict(tune_space *space, const char *spec, clpk_error *err);

/* Options every family sees. */
typedef struct tune_options {
    const char *precision; /* "f32", "f64" or NULL for both */
    int quick;             /* small problems and a reduced set (CI, tests) */
    unsigned long long seed;
    const char *data_dir;  /* ../shared/data or NULL */
} tune_options;

/* A problem instance of a class: its class features (stored in the profile and matched at run time), a label for
 * the progress display, and the family's own state (inputs on the device, the reference result...). */
typedef struct tune_problem {
    char label[96];
    core_params klass;
    void *state;
} tune_problem;

/* What a family that trains a cost model (train_model) gets: the run's options, when to stop, the run's clock and
 * the threads that may compile programs ahead. */
typedef struct tune_model_request {
    const tune_options *opts;
    double deadline; /* on the run's clock; INFINITY: none */
    double (*now)(void *clock_user);
    void *clock_user;
    int build_threads;
} tune_model_request;

/* A family whose automatic choice is a cost model rather than per-problem profile entries: the run calls its
 * trainer instead of searching its problems; it measures what the model needs within the deadline and returns the
 * model as a JSON object (a cJSON *, the caller's to free) for the profile's "models"; `note` says what it fitted. */
typedef clpk_status (*tune_model_trainer)(clpk_context *ctx, const tune_model_request *req, void **model_json,
                                          char *note, size_t note_size);

typedef struct tune_family {
    const char *name; /* profile key: "spmv", "life", "sshopm", "xcorr" */
    /* Number of training problems for these options. */
    int (*problem_count)(const tune_options *opts);
    /* Creates problem `index`: inputs drawn fresh from opts->seed, the double-precision reference, the class. On
     * failure, state left non-NULL is passed to problem_destroy (which must accept a partly built state). */
    clpk_status (*problem_create)(clpk_context *ctx, const tune_options *opts, int index,
                                  tune_problem *problem);
    void (*problem_destroy)(tune_problem *problem);
    /* The parameters and candidate values for this problem on this device. */
    clpk_status (*space)(clpk_context *ctx, const tune_problem *problem, tune_space *space);
    /* Constraints and cheap pruning (local memory, work-group limits, divisibility, footprint): 1 keeps. */
    int (*valid)(clpk_context *ctx, const tune_problem *problem, const core_params *candidate);
    /* Builds the plan with `candidate`, runs it on poisoned outputs, checks against the reference (returning
     * CLPK_ERROR_WRONG_RESULT with a message when off), and times `repeats` runs after warm-up with profiling events,
     * returning the median in *median_ms. Build failures return CLPK_ERROR_BUILD; out-of-resources
     * CLPK_ERROR_OUT_OF_MEMORY or CLPK_ERROR_UNSUPPORTED; the tuner records and skips them. The best candidate goes
     * into the profile as it is, and the library merges it into a plan's defaults: plan creation must accept every
     * candidate of the space, keys its strategy does not read included. */
    clpk_status (*evaluate)(clpk_context *ctx, tune_problem *problem, const core_params *candidate, int repeats,
                            double *median_ms);
    /* The built-in defaults the library uses without a profile (to report tuned vs default speed-up). */
    void (*defaults)(clpk_context *ctx, const tune_problem *problem, core_params *out);
    /* 1: evaluate creates its plan first, and plan creation requests its first program through the context's cache
     * (core_program_get*) before it runs or allocates anything that takes time. The tuner may then call evaluate
     * with the context recording program requests, to compile a search step's programs ahead on several threads
     * (core_program_prebuild). 0 (fakes, or families whose plans do not build through the cache): never. */
    int prebuild_safe;
    /* The family's part of a run budget (--budget without --family-budget) relative to the other selected families'
     * weights: what its training needs, not how many problems it has. <= 0: the mean of the declared weights. */
    double budget_weight;
    /* Non-NULL: the family trains a cost model with this instead of being searched per problem. */
    tune_model_trainer train_model;
} tune_family;

/* NULL-terminated list of all families built in (generated). */
extern const tune_family *const tune_families[];

#endif
