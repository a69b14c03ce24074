/* Program cache: one build per (device, driver, source, options), kept in memory for the context's life and on disk
 * across runs. The disk entry stores its full key and a checksum of the binary, so a driver update, a hash collision
 * or a damaged file leads to a rebuild, never to a stale or corrupt binary being used. */
#include "context_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "CLPKBIN1"
#define CACHE_MAGIC_LEN 8
#define BUILD_STD_OPTION "-cl-std=CL1.2"

static int make_dirs(const char *path) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}

clpk_status core_program_cache_init(clpk_context *ctx) {
    const char *dir = getenv("CLPK_CACHE_DIR");
    ctx->cache_dir[0] = '\0';
    if (dir && (!strcmp(dir, "off") || !strcmp(dir, "0") || !*dir)) return CLPK_SUCCESS;
    if (dir) {
        snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", dir);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg) snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s/clpk", xdg);
        else if (home && *home) snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s/.cache/clpk", home);
        else return CLPK_SUCCESS;
    }
    if (make_dirs(ctx->cache_dir) != 0) {
        core_log(ctx, CLPK_LOG_INFO, "program cache directory %s unusable (%s): disk cache off", ctx->cache_dir,
                 strerror(errno));
        ctx->cache_dir[0] = '\0';
    }
    return CLPK_SUCCESS;
}

void core_program_cache_release(clpk_context *ctx) {
    core_cached_program *p = ctx->programs;
    while (p) {
        core_cached_program *next = p->next;
        if (p->program) clReleaseProgram(p->program);
        free(p->key);
        free(p);
        p = next;
    }
    ctx->programs = NULL;
    core_program_requests_clear(ctx);
}

/* The key names everything a binary depends on. */
static char *make_key(const clpk_context *ctx, const char *source, const char *options) {
    uint64_t h1 = core_hash64(source, strlen(source), 0);
    uint64_t h2 = core_hash64(source, strlen(source), 0x9e3779b97f4a7c15ull);
    size_t size = strlen(options) + 1024;
    char *key = malloc(size);
    if (!key) return NULL;
    snprintf(key, size, "platform=%s\ndevice=%s\nvendor=%s\ndriver=%s\nversion=%s\nsource=%016llx%016llx/%zu\n"
                        "options=%s\nclpk=%s\n",
             ctx->info.platform_name, ctx->info.name, ctx->info.vendor, ctx->info.driver_version,
             ctx->info.device_version, (unsigned long long)h1, (unsigned long long)h2, strlen(source), options,
             CLPK_VERSION_STRING);
    return key;
}

void core_program_cache_entry_path(const clpk_context *ctx, uint64_t key_hash, char *path, size_t size) {
    snprintf(path, size, "%s/%016llx.clbin", ctx->cache_dir, (unsigned long long)key_hash);
}

/* Reads a disk entry; returns the binary only if the key and checksum match. */
static unsigned char *disk_load(clpk_context *ctx, const char *path, const char *key, size_t *bin_size) {
    char *data = NULL;
    size_t size = 0;
    if (core_read_file(path, &data, &size, NULL) != CLPK_SUCCESS) return NULL;
    size_t key_len = strlen(key);
    unsigned char *result = NULL;
    size_t header = CACHE_MAGIC_LEN + sizeof(uint32_t) + key_len + 2 * sizeof(uint64_t);
    if (size >= header && memcmp(data, CACHE_MAGIC, CACHE_MAGIC_LEN) == 0) {
        uint32_t stored_key_len;
        memcpy(&stored_key_len, data + CACHE_MAGIC_LEN, sizeof stored_key_len);
        const char *p = data + CACHE_MAGIC_LEN + sizeof(uint32_t);
        if (stored_key_len == key_len && memcmp(p, key, key_len) == 0) {
            p += key_len;
            uint64_t len, sum;
            memcpy(&len, p, sizeof len);
            memcpy(&sum, p + sizeof len, sizeof sum);
            p += 2 * sizeof(uint64_t);
            if (len > 0 && len == size - header && core_hash64(p, len, 7) == sum) {
                result = malloc(len);
                if (result) {
                    memcpy(result, p, len);
                    *bin_size = len;
                }
            }
        }
    }
    if (!result) {
        ctx->cache_stats.disk_rejected++;
        core_log(ctx, CLPK_LOG_INFO, "program cache entry %s is stale or damaged: rebuilding", path);
    }
    free(data);
    return result;
}

/* Writes to a temporary file then renames, so a concurrent reader never sees half an entry. */
void core_program_cache_disk_store(clpk_context *ctx, const char *path, const char *key, cl_program program) {
    size_t bin_size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, NULL) != CL_SUCCESS ||
        bin_size == 0)
        return;
    unsigned char *bin = malloc(bin_size);
    if (!bin) return;
    unsigned char *bins[1] = {bin};
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
        free(bin);
        return;
    }
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f) {
        uint32_t key_len = (uint32_t)strlen(key);
        uint64_t len = bin_size, sum = core_hash64(bin, bin_size, 7);
        int ok = fwrite(CACHE_MAGIC, 1, CACHE_MAGIC_LEN, f) == CACHE_MAGIC_LEN &&
                 fwrite(&key_len, sizeof key_len, 1, f) == 1 && fwrite(key, 1, key_len, f) == key_len &&
                 fwrite(&len, sizeof len, 1, f) == 1 && fwrite(&sum, sizeof sum, 1, f) == 1 &&
                 fwrite(bin, 1, bin_size, f) == bin_size;
        ok = (fclose(f) == 0) && ok;
        if (!ok || rename(tmp, path) != 0) remove(tmp);
    }
    free(bin);
}

static clpk_status fail_build(clpk_context *ctx, cl_program program, cl_int rc, const char *options) {
    size_t log_size = 0;
    clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
    char *log = calloc(log_size + 1, 1);
    if (log) clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
    clpk_status st = core_fail(ctx, CLPK_ERROR_BUILD, "kernel build failed (%s) with options '%s'; build log:\n%s",
                               core_cl_error_name(rc), options, log ? log : "(no log)");
    core_log(ctx, CLPK_LOG_DEBUG, "%s", ctx->last_error);
    free(log);
    return st;
}

static cl_program try_binary(clpk_context *ctx, const unsigned char *bin, size_t bin_size, const char *options) {
    cl_int rc, bin_status;
    cl_program program = clCreateProgramWithBinary(ctx->cl_ctx, 1, &ctx->device, &bin_size, &bin, &bin_status, &rc);
    if (rc != CL_SUCCESS || bin_status != CL_SUCCESS) {
        if (program) clReleaseProgram(program);
        return NULL;
    }
    double t0 = core_wall_seconds();
    cl_int built = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    ctx->cache_stats.build_seconds += core_wall_seconds() - t0;
    if (built != CL_SUCCESS) {
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

clpk_status core_program_get_text(clpk_context *ctx, const char *source, const char *options, cl_program *out) {
    if (!ctx || !source || !out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "program: NULL argument");
    *out = NULL;
    char *full_options = malloc(strlen(options ? options : "") + sizeof BUILD_STD_OPTION + 2);
    if (!full_options) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    sprintf(full_options, "%s %s", BUILD_STD_OPTION, options ? options : "");
    char *key = make_key(ctx, source, full_options);
    if (!key) {
        free(full_options);
        return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    uint64_t key_hash = core_hash64(key, strlen(key), 0);
    if (ctx->recording) {
        /* Deferred even when cached: the plan must not go on to run anything while the tuner only notes builds. */
        int noted = core_program_cache_find(ctx, key_hash, key) != NULL ||
                    core_program_note_request(ctx, key_hash, key, source, full_options) == CLPK_SUCCESS;
        free(key);
        free(full_options);
        if (!noted) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
        return core_fail(ctx, CLPK_ERROR_BUILD, "program build deferred (the tuner notes programs to compile them in "
                                                "parallel)");
    }
    cl_program cached = core_program_cache_find(ctx, key_hash, key);
    if (cached) {
        ctx->cache_stats.memory_hits++;
        *out = cached;
        free(key);
        free(full_options);
        return CLPK_SUCCESS;
    }
    cl_program program = NULL;
    char path[1100] = "";
    if (ctx->cache_dir[0]) {
        core_program_cache_entry_path(ctx, key_hash, path, sizeof path);
        if (access(path, R_OK) == 0) {
            size_t bin_size = 0;
            unsigned char *bin = disk_load(ctx, path, key, &bin_size);
            if (bin) {
                program = try_binary(ctx, bin, bin_size, full_options);
                free(bin);
                if (program) ctx->cache_stats.disk_hits++;
                else ctx->cache_stats.disk_rejected++;
            }
        }
    }
    clpk_status st = CLPK_SUCCESS;
    if (!program) {
        cl_int rc;
        program = clCreateProgramWithSource(ctx->cl_ctx, 1, &source, NULL, &rc);
        if (rc != CL_SUCCESS) {
            st = core_fail_cl(ctx, rc, "clCreateProgramWithSource");
        } else {
            double t0 = core_wall_seconds();
            rc = clBuildProgram(program, 1, &ctx->device, full_options, NULL, NULL);
            ctx->cache_stats.build_seconds += core_wall_seconds() - t0;
            if (rc != CL_SUCCESS) {
                st = fail_build(ctx, program, rc, full_options);
                clReleaseProgram(program);
                program = NULL;
            } else {
                ctx->cache_stats.builds++;
                if (path[0]) core_program_cache_disk_store(ctx, path, key, program);
            }
        }
    }
    if (st == CLPK_SUCCESS && core_program_cache_add(ctx, key_hash, key, program) != CLPK_SUCCESS) {
        clReleaseProgram(program);
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    free(full_options);
    if (st != CLPK_SUCCESS) {
        free(key);
        return st;
    }
    *out = program; /* key: owned by the cache now */
    return CLPK_SUCCESS;
}

cl_program core_program_cache_find(const clpk_context *ctx, uint64_t key_hash, const char *key) {
    for (const core_cached_program *p = ctx->programs; p; p = p->next)
        if (p->key_hash == key_hash && strcmp(p->key, key) == 0) return p->program;
    return NULL;
}

clpk_status core_program_cache_add(clpk_context *ctx, uint64_t key_hash, char *key, cl_program program) {
    core_cached_program *entry = malloc(sizeof *entry);
    if (!entry) return CLPK_ERROR_OUT_OF_MEMORY;
    *entry = (core_cached_program){key_hash, key, program, ctx->programs};
    ctx->programs = entry;
    return CLPK_SUCCESS;
}

clpk_status core_program_get(clpk_context *ctx, const char *const *source_names, int source_count,
                             const char *options, cl_program *program) {
    if (!ctx || !source_names || source_count <= 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "program: no source named");
    size_t total = 1;
    for (int i = 0; i < source_count; ++i) {
        const char *text = core_cl_source(source_names[i]);
        if (!text) return core_fail(ctx, CLPK_ERROR_INTERNAL, "no embedded kernel source cl/%s.cl", source_names[i]);
        total += strlen(text) + 64;
    }
    char *joined = malloc(total);
    if (!joined) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t at = 0;
    for (int i = 0; i < source_count; ++i) {
        /* #line keeps compiler messages pointing into the right file. */
        at += (size_t)snprintf(joined + at, total - at, "#line 1 \"%s.cl\"\n%s\n", source_names[i],
                               core_cl_source(source_names[i]));
    }
    clpk_status st = core_program_get_text(ctx, joined, options, program);
    free(joined);
    return st;
}

clpk_status core_kernel_create(clpk_context *ctx, cl_program program, const char *name, cl_kernel *kernel) {
    cl_int rc;
    *kernel = clCreateKernel(program, name, &rc);
    if (rc != CL_SUCCESS) {
        *kernel = NULL;
        return core_fail(ctx, rc == CL_OUT_OF_HOST_MEMORY ? CLPK_ERROR_OUT_OF_MEMORY : CLPK_ERROR_OPENCL,
                         "clCreateKernel(%s) failed: %s", name, core_cl_error_name(rc));
    }
    return CLPK_SUCCESS;
}
