/* Contexts: device selection, device facts, queue ownership. */
#include "context_impl.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLPK_MAX_PLATFORMS 16
#define CLPK_MAX_DEVICES 64

typedef struct device_entry {
    cl_platform_id platform;
    cl_device_id device;
    unsigned platform_index, device_index;
} device_entry;

static void get_string(cl_device_id dev, cl_device_info what, char *out, size_t size) {
    out[0] = '\0';
    if (clGetDeviceInfo(dev, what, size, out, NULL) != CL_SUCCESS) out[0] = '\0';
    out[size - 1] = '\0';
    /* Some drivers pad names with spaces; profiles compare names exactly, so trim. */
    size_t n = strlen(out);
    while (n > 0 && isspace((unsigned char)out[n - 1]))
        out[--n] = '\0';
}

static uint64_t get_u64(cl_device_id dev, cl_device_info what) {
    cl_ulong v = 0;
    clGetDeviceInfo(dev, what, sizeof v, &v, NULL);
    return v;
}

static unsigned get_uint(cl_device_id dev, cl_device_info what) {
    cl_uint v = 0;
    clGetDeviceInfo(dev, what, sizeof v, &v, NULL);
    return v;
}

static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static int contains_ci(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (const char *p = haystack; *p; ++p)
        if (strncasecmp(p, needle, n) == 0) return 1;
    return n == 0;
}

/* Each implementation with the words its platform name or platform vendor carries; the first hit wins, so PoCL
 * and oclgrind (whose devices may report any CPU vendor) come before the hardware vendors. */
static const struct {
    const char *name;
    const char *marks[3];
} implementations[] = {
    {"pocl", {"Portable Computing Language", "pocl", NULL}},
    {"oclgrind", {"Oclgrind", NULL, NULL}},
    {"rusticl", {"rusticl", NULL, NULL}},
    {"clover", {"Clover", "Mesa", NULL}},
    {"nvidia", {"NVIDIA", NULL, NULL}},
    {"amd", {"AMD Accelerated Parallel Processing", "Advanced Micro Devices", NULL}},
    {"intel", {"Intel", NULL, NULL}},
    {"apple", {"Apple", NULL, NULL}},
};

static const char *implementation_of(const clpk_device_info *info) {
    for (size_t i = 0; i < sizeof implementations / sizeof implementations[0]; ++i)
        for (size_t k = 0; k < 3 && implementations[i].marks[k]; ++k)
            if (contains_ci(info->platform_name, implementations[i].marks[k]) ||
                contains_ci(info->platform_vendor, implementations[i].marks[k]))
                return implementations[i].name;
    return "other";
}

static int is_implementation_name(const char *term, size_t len) {
    for (size_t i = 0; i < sizeof implementations / sizeof implementations[0]; ++i)
        if (strlen(implementations[i].name) == len && !strncasecmp(term, implementations[i].name, len)) return 1;
    return 0;
}

static int term_matches(const clpk_device_info *info, const char *term, size_t len) {
    char t[128];
    if (len == 0 || len >= sizeof t) return 0;
    memcpy(t, term, len);
    t[len] = '\0';
    if (is_implementation_name(t, len)) return !strcasecmp(t, implementation_of(info));
    if (!strcasecmp(t, "cpu")) return info->kind == CLPK_DEVICE_CPU;
    if (!strcasecmp(t, "gpu")) return info->kind == CLPK_DEVICE_GPU;
    if (!strcasecmp(t, "accelerator")) return info->kind == CLPK_DEVICE_OTHER;
    char full[300];
    snprintf(full, sizeof full, "%s / %s", info->platform_name, info->name);
    return contains_ci(full, t) || contains_ci(info->vendor, t) || contains_ci(info->platform_vendor, t);
}

int clpk_device_matches(const clpk_device_info *info, const char *selector) {
    if (!info || !selector) return 0;
    const char *p = selector;
    int terms = 0;
    for (;;) {
        while (*p == ' ')
            ++p;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len > 0 && p[len - 1] == ' ')
            --len;
        if (!term_matches(info, p, len)) return 0;
        ++terms;
        if (!end) break;
        p = end + 1;
    }
    return terms > 0;
}

static void collect_facts(cl_platform_id platform, cl_device_id dev, clpk_device_info *info) {
    memset(info, 0, sizeof *info);
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform_name, info->platform_name, NULL);
    info->platform_name[sizeof info->platform_name - 1] = '\0';
    get_string(dev, CL_DEVICE_NAME, info->name, sizeof info->name);
    get_string(dev, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    get_string(dev, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    get_string(dev, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);
    get_string(dev, CL_DEVICE_OPENCL_C_VERSION, info->opencl_c_version, sizeof info->opencl_c_version);
    cl_device_type type = 0;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->kind = (type & CL_DEVICE_TYPE_GPU)   ? CLPK_DEVICE_GPU
                 : (type & CL_DEVICE_TYPE_CPU) ? CLPK_DEVICE_CPU
                                               : CLPK_DEVICE_OTHER;
    info->compute_units = get_uint(dev, CL_DEVICE_MAX_COMPUTE_UNITS);
    info->max_clock_mhz = get_uint(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    size_t wg = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    info->max_work_group_size = wg;
    info->local_mem_bytes = get_u64(dev, CL_DEVICE_LOCAL_MEM_SIZE);
    info->global_mem_bytes = get_u64(dev, CL_DEVICE_GLOBAL_MEM_SIZE);
    info->max_alloc_bytes = get_u64(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    info->max_constant_bytes = get_u64(dev, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    info->global_cache_bytes = get_u64(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);

    size_t ext_size = 0;
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size);
    char *ext = calloc(ext_size + 1, 1);
    if (ext && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) == CL_SUCCESS) {
        cl_device_fp_config fp64 = 0;
        clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
        info->has_fp64 = has_word(ext, "cl_khr_fp64") || fp64 != 0;
        /* Base and extended 32-bit atomics are core in OpenCL C 1.1+. */
        info->has_int32_global_atomics = 1;
        info->has_int32_local_atomics = 1;
        info->has_int64_atomics = has_word(ext, "cl_khr_int64_base_atomics");
        info->has_subgroups = has_word(ext, "cl_khr_subgroups") || has_word(ext, "cl_intel_subgroups");
        info->has_subgroup_shuffle = has_word(ext, "cl_khr_subgroup_shuffle") || has_word(ext, "cl_intel_subgroups");
        if (has_word(ext, "cl_nv_device_attribute_query")) {
            cl_uint warp = 0;
            if (clGetDeviceInfo(dev, 0x4003 /* CL_DEVICE_WARP_SIZE_NV */, sizeof warp, &warp, NULL) == CL_SUCCESS)
                info->simd_width_hint = warp;
        }
        if (has_word(ext, "cl_amd_device_attribute_query") && info->simd_width_hint == 0) {
            cl_uint wave = 0;
            if (clGetDeviceInfo(dev, 0x4043 /* CL_DEVICE_WAVEFRONT_WIDTH_AMD */, sizeof wave, &wave, NULL) ==
                CL_SUCCESS)
                info->simd_width_hint = wave;
        }
    }
    free(ext);
    if (info->simd_width_hint == 0) info->simd_width_hint = 1;
    clGetPlatformInfo(platform, CL_PLATFORM_VENDOR, sizeof info->platform_vendor, info->platform_vendor, NULL);
    info->platform_vendor[sizeof info->platform_vendor - 1] = '\0';
    snprintf(info->implementation, sizeof info->implementation, "%s", implementation_of(info));
    info->is_pocl = !strcmp(info->implementation, "pocl");
}

/* All devices of all platforms in platform order. */
static clpk_status enumerate(device_entry *out, size_t capacity, size_t *count, clpk_error *err) {
    cl_platform_id platforms[CLPK_MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(CLPK_MAX_PLATFORMS, platforms, &np);
    *count = 0;
    if (rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (rc == CL_SUCCESS && np == 0))
        return core_error_set(err, CLPK_ERROR_DEVICE_NOT_FOUND,
                              "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
    if (rc != CL_SUCCESS)
        return core_error_set(err, CLPK_ERROR_OPENCL, "clGetPlatformIDs failed: %s", core_cl_error_name(rc));
    if (np > CLPK_MAX_PLATFORMS) np = CLPK_MAX_PLATFORMS;
    for (cl_uint p = 0; p < np; ++p) {
        cl_device_id devs[CLPK_MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, CLPK_MAX_DEVICES, devs, &nd) != CL_SUCCESS) continue;
        if (nd > CLPK_MAX_DEVICES) nd = CLPK_MAX_DEVICES;
        for (cl_uint d = 0; d < nd && *count < capacity; ++d)
            out[(*count)++] = (device_entry){platforms[p], devs[d], p, d};
    }
    if (*count == 0) return core_error_set(err, CLPK_ERROR_DEVICE_NOT_FOUND, "no OpenCL device found");
    return CLPK_SUCCESS;
}

clpk_status clpk_list_devices(clpk_device_info *infos, size_t capacity, size_t *count, clpk_error *err) {
    device_entry entries[CLPK_MAX_PLATFORMS * 4];
    size_t n = 0;
    *count = 0;
    CLPK_TRY(enumerate(entries, sizeof entries / sizeof entries[0], &n, err));
    for (size_t i = 0; i < n && i < capacity; ++i)
        collect_facts(entries[i].platform, entries[i].device, &infos[i]);
    *count = n;
    return CLPK_SUCCESS;
}

static int parse_index_selector(const char *sel, unsigned *platform, unsigned *device, int *has_platform) {
    char *end = NULL;
    unsigned long a = strtoul(sel, &end, 10);
    if (end == sel) return 0;
    if (*end == '\0') {
        *has_platform = 0;
        *device = (unsigned)a;
        return 1;
    }
    if (*end != ':') return 0;
    const char *rest = end + 1;
    unsigned long b = strtoul(rest, &end, 10);
    if (end == rest || *end != '\0') return 0;
    *has_platform = 1;
    *platform = (unsigned)a;
    *device = (unsigned)b;
    return 1;
}

/* Picks a device: index "D" (over all devices), "P:D", or terms as clpk_device_matches reads them, a GPU before a
 * CPU among several matches; without a selector the first GPU, then CPU, then anything. */
static clpk_status select_device(const char *selector, device_entry *chosen, clpk_error *err) {
    device_entry entries[CLPK_MAX_PLATFORMS * 4];
    size_t n = 0;
    CLPK_TRY(enumerate(entries, sizeof entries / sizeof entries[0], &n, err));
    if (selector && *selector) {
        unsigned pi = 0, di = 0;
        int has_platform = 0;
        if (parse_index_selector(selector, &pi, &di, &has_platform)) {
            for (size_t i = 0; i < n; ++i) {
                int match =
                    has_platform ? (entries[i].platform_index == pi && entries[i].device_index == di) : (i == di);
                if (match) {
                    *chosen = entries[i];
                    return CLPK_SUCCESS;
                }
            }
            return core_error_set(err, CLPK_ERROR_DEVICE_NOT_FOUND,
                                  "device selector '%s': no such device index (%zu devices; see clpk-info)", selector,
                                  n);
        }
        static const clpk_device_kind kind_order[] = {CLPK_DEVICE_GPU, CLPK_DEVICE_CPU, CLPK_DEVICE_OTHER};
        for (size_t k = 0; k < sizeof kind_order / sizeof kind_order[0]; ++k) {
            for (size_t i = 0; i < n; ++i) {
                clpk_device_info info;
                collect_facts(entries[i].platform, entries[i].device, &info);
                if (info.kind == kind_order[k] && clpk_device_matches(&info, selector)) {
                    *chosen = entries[i];
                    return CLPK_SUCCESS;
                }
            }
        }
        return core_error_set(err, CLPK_ERROR_DEVICE_NOT_FOUND,
                              "device selector '%s' matches no device (see clpk-info for the list and what each "
                              "device answers to)",
                              selector);
    }
    static const cl_device_type preference[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_ALL};
    for (size_t k = 0; k < sizeof preference / sizeof preference[0]; ++k) {
        for (size_t i = 0; i < n; ++i) {
            cl_device_type t = 0;
            clGetDeviceInfo(entries[i].device, CL_DEVICE_TYPE, sizeof t, &t, NULL);
            if (t & preference[k]) {
                *chosen = entries[i];
                return CLPK_SUCCESS;
            }
        }
    }
    *chosen = entries[0];
    return CLPK_SUCCESS;
}

static core_log_level log_level_from_env(void) {
    const char *v = getenv("CLPK_LOG");
    if (!v) return CLPK_LOG_WARN;
    if (!strcasecmp(v, "quiet") || !strcmp(v, "0")) return CLPK_LOG_QUIET;
    if (!strcasecmp(v, "info")) return CLPK_LOG_INFO;
    if (!strcasecmp(v, "debug")) return CLPK_LOG_DEBUG;
    if (!strcasecmp(v, "trace")) return CLPK_LOG_TRACE;
    return CLPK_LOG_WARN;
}

/* Shared tail of both constructors: cache, profile. */
static clpk_status finish_context(clpk_context *ctx) {
    collect_facts(ctx->platform, ctx->device, &ctx->info);
    CLPK_TRY(core_program_cache_init(ctx));
    CLPK_TRY(core_profile_load_for_context(ctx));
    core_log(ctx, CLPK_LOG_INFO, "device '%s' (%s, driver %s), profile: %s %s", ctx->info.name, ctx->info.platform_name,
             ctx->info.driver_version, clpk_profile_level_string(ctx->profile_level), ctx->profile_path);
    return CLPK_SUCCESS;
}

static clpk_context *context_alloc(void) {
    clpk_context *ctx = calloc(1, sizeof *ctx);
    if (ctx) {
        ctx->log_level = log_level_from_env();
        ctx->profile_level = CLPK_PROFILE_DEFAULTS;
        ctx->launch_dim_items = (size_t)INT_MAX;
    }
    return ctx;
}

clpk_status clpk_context_create(clpk_context **out, const char *selector) {
    if (!out) return CLPK_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!selector || !*selector) selector = getenv("CLPK_DEVICE");
    clpk_context *ctx = context_alloc();
    if (!ctx) return CLPK_ERROR_OUT_OF_MEMORY;
    clpk_error err = {0};
    device_entry chosen = {0};
    clpk_status st = select_device(selector, &chosen, &err);
    if (st != CLPK_SUCCESS) {
        /* There is no context to hold the message: log it so the user sees why. */
        core_log(NULL, CLPK_LOG_WARN, "%s", err.message);
        free(ctx);
        return st;
    }
    ctx->platform = chosen.platform;
    ctx->device = chosen.device;
    cl_int rc = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)chosen.platform, 0};
    ctx->cl_ctx = clCreateContext(props, 1, &ctx->device, NULL, NULL, &rc);
    if (rc == CL_SUCCESS) ctx->queue = clCreateCommandQueue(ctx->cl_ctx, ctx->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (rc == CL_SUCCESS)
        st = finish_context(ctx);
    else
        st = core_fail_cl(ctx, rc, "creating the OpenCL context and queue");
    if (st != CLPK_SUCCESS) {
        core_log(NULL, CLPK_LOG_WARN, "%s", ctx->last_error);
        clpk_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return CLPK_SUCCESS;
}

clpk_status clpk_context_create_from_queue(clpk_context **out, cl_command_queue queue) {
    if (!out || !queue) return CLPK_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    clpk_context *ctx = context_alloc();
    if (!ctx) return CLPK_ERROR_OUT_OF_MEMORY;
    cl_int rc = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx->cl_ctx, &ctx->cl_ctx, NULL);
    if (rc == CL_SUCCESS) rc = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof ctx->platform, &ctx->platform, NULL);
    if (rc != CL_SUCCESS) {
        free(ctx);
        return CLPK_ERROR_INVALID_ARGUMENT;
    }
    clRetainContext(ctx->cl_ctx);
    clRetainCommandQueue(queue);
    ctx->queue = queue;
    clpk_status st = finish_context(ctx);
    if (st != CLPK_SUCCESS) {
        core_log(NULL, CLPK_LOG_WARN, "%s", ctx->last_error);
        clpk_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return CLPK_SUCCESS;
}

void clpk_context_destroy(clpk_context *ctx) {
    if (!ctx) return;
    if (ctx->queue) clFinish(ctx->queue);
    core_program_cache_release(ctx);
    core_profile_release_json(ctx->profile_json);
    if (ctx->queue) clReleaseCommandQueue(ctx->queue);
    if (ctx->cl_ctx) clReleaseContext(ctx->cl_ctx);
    free(ctx);
}

int core_device_has_extension(const clpk_context *ctx, const char *ext) {
    size_t size = 0;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || size == 0) return 0;
    char *list = calloc(size + 1, 1);
    int found = list && clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, size, list, NULL) == CL_SUCCESS &&
                has_word(list, ext);
    free(list);
    return found;
}

const clpk_device_info *clpk_context_device_info(const clpk_context *ctx) { return &ctx->info; }
cl_context clpk_context_cl_context(const clpk_context *ctx) { return ctx->cl_ctx; }
cl_command_queue clpk_context_queue(const clpk_context *ctx) { return ctx->queue; }

clpk_status core_require_in_order_queue(clpk_context *ctx, const char *what) {
    cl_command_queue_properties props = 0;
    if (clGetCommandQueueInfo(clpk_context_queue(ctx), CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) == CL_SUCCESS &&
        (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "%s needs an in-order command queue (its passes carry no events)",
                         what);
    return CLPK_SUCCESS;
}
size_t core_launch_dim_items(const clpk_context *ctx) { return ctx->launch_dim_items; }
void core_launch_dim_items_set(clpk_context *ctx, size_t items) {
    ctx->launch_dim_items = items ? items : (size_t)INT_MAX;
}
cl_device_id clpk_context_device(const clpk_context *ctx) { return ctx->device; }
const char *clpk_context_cache_dir(const clpk_context *ctx) { return ctx->cache_dir; }
void clpk_context_cache_stats(const clpk_context *ctx, clpk_cache_stats *stats) { *stats = ctx->cache_stats; }

clpk_profile_level clpk_context_profile(const clpk_context *ctx, const char **path) {
    if (path) *path = ctx->profile_path;
    return ctx->profile_level;
}
