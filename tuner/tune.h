/* The tuner's contract with the kernel families. Each family declares its search space next to its code in
 * tuner/tune_<family>.c, defining `const clpk_tune_family clpk_tune_family_<family>`; the build collects them
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
typedef struct clpk_tune_param {
    char name[32];
    int count;
    char values[CLPK_TUNE_MAX_VALUES][24];
} clpk_tune_param;

/* The space of one problem: the product of the parameters' values, filtered by the family's `valid`. */
typedef struct clpk_tune_space {
    int count;
    clpk_tune_param params[CLPK_TUNE_MAX_PARAMS];
} clpk_tune_space;

/* Adds a parameter with its values (NULL-terminated list); returns CLPK_ERROR_INVALID_ARGUMENT if full. */
clpk_status clpk_tune_space_add(clpk_tune_space *space, const char *name, const char *const *values);

/* Restricts a space to a sub-space: `spec` is "key=v1|v2,key2=v3"; each parameter named there keeps only the listed
 * values (in the space's order). Keys the space lacks are ignored (one spec serves several families). Fails with
 * CLPK_ERROR_INVALID_ARGUMENT when spec is malformed or leaves a parameter with no value. space may be NULL (only the
 * syntax is checked); spec NULL: no restriction. */
clpk_status clpk_tune_space_restrict(clpk_tune_space *space, const char *spec, clpk_error *err);

/* Options every family sees. */
typedef struct clpk_tune_options {
    const char *precision; /* "f32", "f64" or NULL for both */
    int quick;             /* small problems and a reduced set (CI, tests) */
    unsigned long long seed;
    const char *data_dir;  /* ../shared/data or NULL */
} clpk_tune_options;

/* A problem instance of a class: its class features (stored in the profile and matched at run time), a label for
 * the progress display, and the family's own state (inputs on the device, the reference result...). */
typedef struct clpk_tune_problem {
    char label[96];
    clpk_params klass;
    void *state;
} clpk_tune_problem;

typedef struct clpk_tune_family {
    const char *name; /* profile key: "spmv", "life", "sshopm", "xcorr" */
    /* Number of training problems for these options. */
    int (*problem_count)(const clpk_tune_options *opts);
    /* Creates problem `index`: inputs drawn fresh from opts->seed, the double-precision reference, the class. On
     * failure, state left non-NULL is passed to problem_destroy (which must accept a partly built state). */
    clpk_status (*problem_create)(clpk_context *ctx, const clpk_tune_options *opts, int index,
                                  clpk_tune_problem *problem);
    void (*problem_destroy)(clpk_tune_problem *problem);
    /* The parameters and candidate values for this problem on this device. */
    clpk_status (*space)(clpk_context *ctx, const clpk_tune_problem *problem, clpk_tune_space *space);
    /* Constraints and cheap pruning (local memory, work-group limits, divisibility, footprint): 1 keeps. */
    int (*valid)(clpk_context *ctx, const clpk_tune_problem *problem, const clpk_params *candidate);
    /* Builds the plan with `candidate`, runs it on poisoned outputs, checks against the reference (returning
     * CLPK_ERROR_WRONG_RESULT with a message when off), and times `repeats` runs after warm-up with profiling events,
     * returning the median in *median_ms. Build failures return CLPK_ERROR_BUILD; out-of-resources
     * CLPK_ERROR_OUT_OF_MEMORY or CLPK_ERROR_UNSUPPORTED; the tuner records and skips them. The best candidate goes
     * into the profile as it is, and the library merges it into a plan's defaults: plan creation must accept every
     * candidate of the space, keys its strategy does not read included. */
    clpk_status (*evaluate)(clpk_context *ctx, clpk_tune_problem *problem, const clpk_params *candidate, int repeats,
                            double *median_ms);
    /* The built-in defaults the library uses without a profile (to report tuned vs default speed-up). */
    void (*defaults)(clpk_context *ctx, const clpk_tune_problem *problem, clpk_params *out);
    /* 1: evaluate creates its plan first, and plan creation requests its first program through the context's cache
     * (clpk_program_get*) before it runs or allocates anything that takes time. The tuner may then call evaluate
     * with the context recording program requests, to compile a search step's programs ahead on several threads
     * (clpk_program_prebuild). 0 (fakes, or families whose plans do not build through the cache): never. */
    int prebuild_safe;
} clpk_tune_family;

/* NULL-terminated list of all families built in (generated). */
extern const clpk_tune_family *const clpk_tune_families[];

#endif
