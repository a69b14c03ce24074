/* clpk: portable OpenCL kernels with an offline autotuner.
 *
 * Conventions of the whole API:
 *  - every function that can fail returns a clpk_status; CLPK_SUCCESS is 0;
 *  - functions acting on a context record a message for the last failure, read with clpk_last_error(ctx);
 *    context-free helpers (file readers) fill an optional clpk_error the caller passes (may be NULL);
 *  - objects are opaque, created and destroyed in pairs (x_create / x_destroy); destroy accepts NULL;
 *  - indices are 0-based everywhere except inside Matrix Market files.
 */
#ifndef CLPK_H
#define CLPK_H

#include "clpk_export.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLPK_VERSION_MAJOR 0
#define CLPK_VERSION_MINOR 1
#define CLPK_VERSION_STRING "0.1"

typedef enum clpk_status {
    CLPK_SUCCESS = 0,
    CLPK_ERROR_INVALID_ARGUMENT, /* a NULL pointer, a size out of range, an unknown option */
    CLPK_ERROR_OUT_OF_MEMORY,    /* host allocation failed */
    CLPK_ERROR_DEVICE_NOT_FOUND, /* no OpenCL device, or none matches the selector */
    CLPK_ERROR_OPENCL,           /* an OpenCL call failed; the message names the call and the CL error */
    CLPK_ERROR_BUILD,            /* a kernel failed to compile; the message carries the build log */
    CLPK_ERROR_UNSUPPORTED,      /* the device lacks something the request needs (fp64, local memory...) */
    CLPK_ERROR_IO,               /* a file could not be opened, read or written */
    CLPK_ERROR_PARSE,            /* a file is malformed; the message names the file and line */
    CLPK_ERROR_INVALID_DATA,     /* input values are invalid: NaN, index out of range, mismatched lengths */
    CLPK_ERROR_PROFILE,          /* a tuning profile is malformed */
    CLPK_ERROR_TIMEOUT,          /* a kernel or a search ran past its time limit */
    CLPK_ERROR_WRONG_RESULT,     /* a self-check against the reference failed */
    CLPK_ERROR_INTERNAL          /* a bug in clpk: please report it */
} clpk_status;

/* Text of a status code, e.g. "invalid argument". Never NULL. */
CLPK_API const char *clpk_status_string(clpk_status status);

/* Floating-point precision of a plan's values. */
typedef enum clpk_precision { CLPK_PRECISION_F32 = 1, CLPK_PRECISION_F64 = 2 } clpk_precision;

/* "f32"/"float"/"single" or "f64"/"double"; returns CLPK_ERROR_INVALID_ARGUMENT for anything else. */
CLPK_API clpk_status clpk_precision_parse(const char *text, clpk_precision *out);
CLPK_API const char *clpk_precision_name(clpk_precision p); /* "f32" or "f64" */
CLPK_API size_t clpk_precision_size(clpk_precision p);      /* 4 or 8 */

/* Where context-free helpers report failures. */
typedef struct clpk_error {
    clpk_status status;
    char message[1024];
} clpk_error;

/* ------------------------------------------------------------------------------------------------------------ */
/* Context: one device, its queue, program cache and tuning profile.                                              */

typedef struct clpk_context clpk_context;

typedef enum clpk_device_kind { CLPK_DEVICE_CPU = 1, CLPK_DEVICE_GPU = 2, CLPK_DEVICE_OTHER = 3 } clpk_device_kind;

/* Facts about a device, collected once when the context is created. */
typedef struct clpk_device_info {
    char platform_name[128];
    char name[128];
    char vendor[128];
    char driver_version[128];
    char device_version[128];
    char opencl_c_version[128];
    clpk_device_kind kind;
    unsigned compute_units;
    unsigned max_clock_mhz;
    size_t max_work_group_size;
    uint64_t local_mem_bytes;
    uint64_t global_mem_bytes;
    uint64_t max_alloc_bytes;
    uint64_t max_constant_bytes;
    int has_fp64;
    int has_int32_global_atomics;
    int has_int32_local_atomics;
    int has_int64_atomics;
    int has_subgroups;        /* cl_khr_subgroups or cl_intel_subgroups */
    int has_subgroup_shuffle; /* cl_khr_subgroup_shuffle or cl_intel_subgroups */
    unsigned simd_width_hint; /* warp/wavefront width if known (32 NVIDIA, 64 AMD GCN), else 1 */
    int is_pocl;
    uint64_t global_cache_bytes; /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (the L2 on GPUs), 0 if not reported */
    char platform_vendor[128];
    /* The OpenCL implementation, from the platform's name and vendor: "pocl", "intel", "nvidia", "amd", "oclgrind",
     * "apple", "rusticl", "clover" or "other". A selector naming it picks this platform's devices. */
    char implementation[16];
} clpk_device_info;

/* Creates a context on the device chosen by `selector`: NULL or "" uses $CLPK_DEVICE, and if that is unset the first
 * GPU, else the first CPU. A selector is "P:D" / "D" (platform and device index as listed by clpk-info), or one or
 * more comma-separated terms that must all match (case-insensitive), each either
 *   - an implementation: pocl, intel, nvidia, amd, oclgrind, apple, rusticl, clover (matched against the platform's
 *     name and vendor, never the device's: PoCL on an Intel CPU answers to "pocl", not "intel"), or
 *   - a device type: cpu, gpu, accelerator, or
 *   - any substring of "platform name / device name", the device vendor or the platform vendor.
 * Among several matches a GPU is preferred, then a CPU, each in clpk-info's order: "intel" picks Intel's GPU driver
 * when there is one, "intel,cpu" its CPU runtime. */
CLPK_API clpk_status clpk_context_create(clpk_context **ctx, const char *selector);

/* Adopts a user's queue (and so its context and device); clpk retains them and never releases the caller's
 * references. Profiling must be enabled on the queue for the timing helpers. */
CLPK_API clpk_status clpk_context_create_from_queue(clpk_context **ctx, cl_command_queue queue);

CLPK_API void clpk_context_destroy(clpk_context *ctx);

CLPK_API const clpk_device_info *clpk_context_device_info(const clpk_context *ctx);

/* 1 when `selector` (as for clpk_context_create, without the index forms) picks out this device, else 0. */
CLPK_API int clpk_device_matches(const clpk_device_info *info, const char *selector);
CLPK_API cl_context clpk_context_cl_context(const clpk_context *ctx);
CLPK_API cl_command_queue clpk_context_queue(const clpk_context *ctx);
CLPK_API cl_device_id clpk_context_device(const clpk_context *ctx);

/* Message of the last failure on this context ("" if none). Valid until the next call on the context. */
CLPK_API const char *clpk_last_error(const clpk_context *ctx);

/* Enumerates all devices of all platforms (for clpk-info). `count` receives the number found. */
CLPK_API clpk_status clpk_list_devices(clpk_device_info *infos, size_t capacity, size_t *count, clpk_error *err);

/* Where the on-disk program cache lives for this context ("" when disabled with CLPK_CACHE_DIR=off). */
CLPK_API const char *clpk_context_cache_dir(const clpk_context *ctx);

/* Program-cache statistics, for tests and clpk-info. */
typedef struct clpk_cache_stats {
    unsigned memory_hits;
    unsigned disk_hits;
    unsigned builds;
    unsigned disk_rejected; /* corrupt or stale entries that were rebuilt */
    double build_seconds;   /* wall time spent in the driver's compiler (source and binary builds) */
} clpk_cache_stats;
CLPK_API void clpk_context_cache_stats(const clpk_context *ctx, clpk_cache_stats *stats);

/* ------------------------------------------------------------------------------------------------------------ */
/* Tuning profiles.                                                                                               */

typedef enum clpk_profile_level {
    CLPK_PROFILE_EXACT = 1,       /* same device name and driver version */
    CLPK_PROFILE_SAME_DEVICE = 2, /* same device name, other driver */
    CLPK_PROFILE_SAME_VENDOR = 3, /* same vendor and device type */
    CLPK_PROFILE_DEFAULTS = 4     /* no profile: built-in defaults */
} clpk_profile_level;

CLPK_API const char *clpk_profile_level_string(clpk_profile_level level);

/* Which profile file the context uses, and at which level it matched ("" and CLPK_PROFILE_DEFAULTS if none). */
CLPK_API clpk_profile_level clpk_context_profile(const clpk_context *ctx, const char **path);

/* Which profile file a device would use and at which level, without opening it: what clpk_context_profile would say
 * for a context on it. `path` receives the file ("" for none) and may be NULL. */
CLPK_API clpk_profile_level clpk_profile_for_device(const clpk_device_info *dev, char *path, size_t path_size);

/* The profile entry a problem would use, as found by clpk_profile_find. */
typedef struct clpk_profile_entry {
    int found;                /* 1 if an entry of the profile applies, 0 if the family's built-in defaults do */
    clpk_profile_level level; /* how the profile file matched the device */
    char path[512];           /* the profile file ("" when no entry applies) */
    double distance;          /* of the entry's class from the features (0 = the same class) */
    char klass[1024];         /* the entry's class, "k=v,..." */
    char params[1024];        /* the parameters the entry sets, "k=v,..." */
    /* Every parameter of the family as the plan's resolve step sets it before the family's own rules, with its
     * source: "tile=16 (profile), wg=256 (default), ..." */
    char resolved[2048];
    /* Why the entry applies, or why none does: e.g. "entry {precision=f64,nnz=100000} not valid for nnz=4.1e+07
     * (valid 1e+05..4e+06)" (a profile entry applies only inside the feature ranges it was validated on) */
    char reason[512];
} clpk_profile_entry;

/* Which entry of the context's profile a problem of `family` with `features` ("k=v,...": the class keys its plans
 * describe a problem by, e.g. "precision=f32,rows=800000") would use, by the same rule plans apply (the family's
 * reach; an entry with keys or values its parameter table does not know is stale and not used). CLPK_ERROR_INVALID_ARGUMENT when `features` is
 * malformed. */
CLPK_API clpk_status clpk_profile_find(clpk_context *ctx, const char *family, const char *features,
                                       clpk_profile_entry *entry);

/* The parameters a family's plans take ("spmv", "life", "sshopm", "xcorr"), one per line with the allowed values, the
 * built-in defaults (GPU and CPU), the values the tuner searches and when a parameter applies: the keys a `params`
 * string of that family may set. Truncated to `size`. */
CLPK_API clpk_status clpk_family_parameters(const char *family, char *buf, size_t size, clpk_error *err);

#ifdef __cplusplus
}
#endif

#include "clpk_io.h"
#include "clpk_bench.h"
#include "clpk_spmv.h"
#include "clpk_life.h"
#include "clpk_sshopm.h"
#include "clpk_xcorr.h"

#endif
