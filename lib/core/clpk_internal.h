/* Shared runtime used by every kernel family: errors, embedded kernel sources, the program cache, parameter lists
 * and profile lookup. Not installed; families include it from lib/. */
#ifndef CLPK_INTERNAL_H
#define CLPK_INTERNAL_H

#include "clpk.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* ---- Errors ------------------------------------------------------------------------------------------------- */

/* Formats a message into `err` (may be NULL) and returns `status`. */
clpk_status core_error_set(clpk_error *err, clpk_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a failure on the context and returns `status`. */
clpk_status core_fail(clpk_context *ctx, clpk_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a failed OpenCL call (`what` names it) as CLPK_ERROR_OPENCL, or CLPK_ERROR_OUT_OF_MEMORY for the
 * out-of-resources codes, and returns that status. */
clpk_status core_fail_cl(clpk_context *ctx, cl_int code, const char *what);
/* Copies a context-free error into the context's last error and returns its status. */
clpk_status core_fail_from(clpk_context *ctx, const clpk_error *err);
const char *core_cl_error_name(cl_int code);
/* Whether the context's device lists the OpenCL extension `ext` (a whole word of CL_DEVICE_EXTENSIONS). */
int core_device_has_extension(const clpk_context *ctx, const char *ext);

#define CLPK_TRY(expr)                                                                                                 \
    do {                                                                                                               \
        clpk_status clpk_try_status_ = (expr);                                                                         \
        if (clpk_try_status_ != CLPK_SUCCESS) return clpk_try_status_;                                                 \
    } while (0)

#define CLPK_CL_TRY(ctx, call)                                                                                         \
    do {                                                                                                               \
        cl_int clpk_cl_code_ = (call);                                                                                 \
        if (clpk_cl_code_ != CL_SUCCESS) return core_fail_cl((ctx), clpk_cl_code_, #call);                             \
    } while (0)

/* ---- Kernel arguments ------------------------------------------------------------------------------------------
 * The one way a kernel's arguments are set: in order from `first`, every clSetKernelArg checked. The first failure
 * is kept (later arguments are skipped) and core_args_end reports it on the context with the kernel's name and the
 * argument's index:
 *     core_args a;
 *     core_args_begin(&a, ctx, kernel, 0);
 *     CLPK_ARG(&a, buffer);
 *     CLPK_ARG(&a, count);
 *     core_args_local(&a, bytes);
 *     CLPK_TRY(core_args_end(&a)); */
typedef struct core_args {
    clpk_context *ctx;
    cl_kernel kernel;
    cl_uint next;
    cl_int failed_code;
    cl_uint failed_index;
    cl_kernel failed_kernel;
} core_args;
void core_args_begin(core_args *a, clpk_context *ctx, cl_kernel kernel, cl_uint first);
void core_args_set(core_args *a, size_t size, const void *value);
/* Continues at another kernel's or index's argument (arguments fixed at plan time are skipped per run). */
void core_args_jump(core_args *a, cl_kernel kernel, cl_uint index);
void core_args_local(core_args *a, size_t bytes);
clpk_status core_args_end(core_args *a);
#define CLPK_ARG(a, value) core_args_set((a), sizeof(value), &(value))

/* ---- Logging (CLPK_LOG=quiet|warn|info|debug|trace, default warn; to stderr) --------------------------------- */

/* trace: debug, and kernels that support it wait for each launch and log its GPU time (slows every call). */
typedef enum core_log_level {
    CLPK_LOG_QUIET = 0,
    CLPK_LOG_WARN,
    CLPK_LOG_INFO,
    CLPK_LOG_DEBUG,
    CLPK_LOG_TRACE
} core_log_level;
void core_log(const clpk_context *ctx, core_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 1 when core_log at `level` prints: for diagnostics that cost work (a device read) to gather. */
int core_log_enabled(const clpk_context *ctx, core_log_level level);

/* ---- Embedded kernel sources (cl/<name>.cl, compiled into the library) -------------------------------------- */

/* The text of cl/<name>.cl, or NULL if there is no such file. */
const char *core_cl_source(const char *name);

/* ---- Program cache ----------------------------------------------------------------------------------------- */

/* Builds (or fetches from the memory or disk cache) a program from embedded sources concatenated in order, with
 * build options. The context owns the program: do not release it. A failed build returns CLPK_ERROR_BUILD with the
 * compiler's log in the message. */
clpk_status core_program_get(clpk_context *ctx, const char *const *source_names, int source_count, const char *options,
                             cl_program *program);
/* The same for generated source text (e.g. kernels unrolled per problem shape). */
clpk_status core_program_get_text(clpk_context *ctx, const char *source, const char *options, cl_program *program);

/* Parallel compilation for the tuner, whose time is mostly the driver's compiler. While recording is on, a program
 * request that would build (or load) is noted instead and fails with CLPK_ERROR_BUILD ("deferred"), so plan creation
 * stops at its first program. core_program_prebuild then compiles the noted programs with up to `threads` threads
 * (each its own clBuildProgram, which OpenCL allows concurrently), adds those that built to the cache and forgets
 * the notes; one that fails is left for the normal path to build again and report with its log. Returns how many it
 * added. Turning recording off keeps the notes. */
void core_program_record(clpk_context *ctx, int on);
int core_program_prebuild(clpk_context *ctx, int threads);
/* CLPK_ERROR_UNSUPPORTED naming `what` when the context's queue executes out of order: for paths that enqueue
 * dependent passes without events. */
clpk_status core_require_in_order_queue(clpk_context *ctx, const char *what);
/* Work-items per dimension that plans created on this context keep a launch within: INT_MAX (past 2^31 NVIDIA's
 * get_global_id wraps), unless a test lowered it to run a family's multi-dimensional launch form on small problems
 * (core_launch_dim_items_set; 0 restores INT_MAX). */
size_t core_launch_dim_items(const clpk_context *ctx);
void core_launch_dim_items_set(clpk_context *ctx, size_t items);
/* Creates a kernel the caller owns (clReleaseKernel). */
clpk_status core_kernel_create(clpk_context *ctx, cl_program program, const char *name, cl_kernel *kernel);

/* ---- Buffer fills (lib/core/fill.c) ---------------------------------------------------------------------------- */

/* The driver fills only regions that end at or below this byte, so every byte index it touches is below 2^31:
 * NVIDIA's clEnqueueFillBuffer faults on regions reaching further, even in commands of 1 GiB, and leaves the context
 * unusable (pyopencl issue 395; the H100 with the 17.1 GB n-to-m 128x128 256^2 xcorr output). */
#define CORE_FILL_DRIVER_LIMIT ((size_t)1 << 31)
/* Work-items of one launch of the fill kernel (a grid-stride loop covers the rest). */
#define CORE_FILL_MAX_ITEMS ((size_t)1 << 20)

/* Fills `bytes` bytes of `buf` from byte `offset` with copies of `pattern` (pattern_size bytes), on the context's
 * queue after the `n_wait` events of `wait`. offset and bytes must be multiples of pattern_size and the region must
 * lie in the buffer (else CLPK_ERROR_INVALID_ARGUMENT). A region ending at or below `driver_limit` (0:
 * CORE_FILL_DRIVER_LIMIT; tests lower it) goes to clEnqueueFillBuffer in commands of at most driver_limit / 2 bytes
 * (rounded down to a multiple of the pattern), each waiting for the one before: pyopencl saw one command of 2^31
 * bytes fail even from offset 0. Any other region is one launch of clpk_fill_pattern (cl/util_fill.cl), for patterns
 * of 1, 2, 4 or 8 bytes (others: CLPK_ERROR_UNSUPPORTED). `done` (may be NULL) receives the last command's event (a
 * marker after `wait` when bytes is 0), which the caller releases. `what` names the buffer in error messages. */
clpk_status core_fill(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size, size_t offset,
                      size_t bytes, size_t driver_limit, cl_uint n_wait, const cl_event *wait, cl_event *done,
                      const char *what);

/* ---- Parameter lists: tuning parameters, problem features, "k=v,k=v" from the command line ------------------ */

#define CLPK_PARAMS_MAX 48
typedef struct core_param {
    char key[32];
    char value[64];
} core_param;
typedef struct core_params {
    int count;
    core_param items[CLPK_PARAMS_MAX];
} core_params;

void core_params_clear(core_params *p);
clpk_status core_params_set(core_params *p, const char *key, const char *value);
clpk_status core_params_set_int(core_params *p, const char *key, long long value);
clpk_status core_params_set_num(core_params *p, const char *key, double value);
const char *core_params_get(const core_params *p, const char *key); /* NULL if absent */
long long core_params_get_int(const core_params *p, const char *key, long long fallback);
double core_params_get_num(const core_params *p, const char *key, double fallback);
/* Parses "k=v,k=v" (spaces allowed around items) into `p`, overriding keys already there. */
clpk_status core_params_parse(core_params *p, const char *text, clpk_error *err);
/* Overrides keys of `dst` with those of `src`. */
clpk_status core_params_merge(core_params *dst, const core_params *src);
/* Formats as "k=v,k=v" into buf (truncated to size). */
void core_params_format(const core_params *p, char *buf, size_t size);
/* Fails with CLPK_ERROR_INVALID_ARGUMENT naming the first key of `p` not in the NULL-terminated `allowed` list. */
clpk_status core_params_check_keys(const core_params *p, const char *const *allowed, clpk_error *err);

/* ---- Profiles ---------------------------------------------------------------------------------------------- */

typedef struct core_profile_choice {
    int found;                /* 1 if a profile entry was used, 0 if built-in defaults apply */
    clpk_profile_level level; /* how the profile file matched the device */
    char path[512];           /* the profile file ("" for defaults) */
    double distance;          /* distance of the chosen class from the features (0 = exact) */
    core_params klass;        /* the class of the chosen entry */
} core_profile_choice;

/* Picks the entry of `family` in the context's profile whose class is nearest to `features` and merges its
 * parameters into `params` (so set the defaults first). Classes match string values exactly and numeric values by
 * log-scale distance. With no profile or no entry, `params` is left as it is and choice->found is 0. */
clpk_status core_profile_choose(clpk_context *ctx, const char *family, const core_params *features, core_params *params,
                                core_profile_choice *choice);

/* Distance between a stored class and features: +inf when a string value differs; used by the tuner too. */
double core_class_distance(const core_params *klass, const core_params *features);

/* Profile loading internals, exposed for clpk-tune and the tests. `json` is a cJSON* (opaque here). */
clpk_profile_level core_profile_match_level(const clpk_device_info *dev, const char *name, const char *vendor,
                                            const char *driver, const char *type);
/* The context's profile's model of a family (a cJSON object under "models"; its family reads it), or NULL. */
const void *core_profile_model(const clpk_context *ctx, const char *family);
/* Which profile a device would use and where ("" for defaults), without creating a context (clpk-info). */
clpk_profile_level core_profile_for_device(const clpk_device_info *dev, char *path, size_t path_size);
/* The search directories in order ($CLPK_PROFILE_DIR, the installed profiles, the source tree's profiles/).
 * Returns how many were written to dirs (at most capacity). */
int core_profile_search_dirs(const char **dirs, int capacity);

/* ---- Small host helpers ------------------------------------------------------------------------------------ */

uint64_t core_hash64(const void *data, size_t size, uint64_t seed);
/* Reads a whole file into a NUL-terminated malloc'ed buffer. */
clpk_status core_read_file(const char *path, char **data, size_t *size, clpk_error *err);
double core_wall_seconds(void);
/* Type of a device as a profile string: "GPU", "CPU", "OTHER". */
const char *core_device_kind_string(clpk_device_kind kind);

/* ---- Host threads (lib/core/parallel.c) ---------------------------------------------------------------------- */

enum { CORE_MAX_PARTS = 64 };
/* Parts for `work` items split into parts of at least `min_per_part`: at most one per online core and
 * CORE_MAX_PARTS, at least 1. */
int core_parallel_parts(int64_t work, int64_t min_per_part);
/* Runs fn on each of n parts (part i at parts + i * part_size), parts 1.. on their own threads, part 0 and any part
 * whose thread could not start on the calling thread; returns when all have finished. */
void core_parallel_run(void *(*fn)(void *), void *parts, size_t part_size, int n);
/* body(arg, begin, end) over [0, n) split into core_parallel_parts(n, min_per_part) consecutive ranges, one a thread;
 * for loops whose iterations write disjoint places. */
void core_parallel_for(int64_t n, int64_t min_per_part, void (*body)(void *arg, int64_t begin, int64_t end), void *arg);

#endif
