/* The context's fields: shared by the runtime files (runtime.c, program_cache.c, profile.c, errors.c) only.
 * Families use the accessors in clpk.h and clpk_internal.h instead. */
#ifndef CLPK_CONTEXT_IMPL_H
#define CLPK_CONTEXT_IMPL_H

#include "clpk_internal.h"

typedef struct core_cached_program {
    uint64_t key_hash;
    char *key; /* full key text: device, driver, source hash, options */
    cl_program program;
    struct core_cached_program *next;
} core_cached_program;

/* A build noted while the context records requests (core_program_record) instead of building. */
typedef struct core_program_request {
    uint64_t key_hash;
    char *key;
    char *source;
    char *options; /* full options, as the build takes them */
} core_program_request;

struct clpk_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl_ctx;
    cl_command_queue queue;
    clpk_device_info info;
    core_log_level log_level;
    char last_error[4096];

    /* program cache */
    core_cached_program *programs;
    char cache_dir[1024]; /* "" when the disk cache is off */
    clpk_cache_stats cache_stats;
    int recording; /* program requests are noted in `requests` and fail as deferred */
    core_program_request *requests;
    int request_count, request_capacity;

    /* profile: the parsed JSON document (cJSON*) of the best-matching file, or NULL */
    void *profile_json;
    clpk_profile_level profile_level;
    char profile_path[512];
    /* families whose stale profile entry was reported already ("spmv,life,"): each is reported once a context */
    char profile_stale_reported[64];

    /* work-items per launch dimension that plans assume (core_launch_dim_items) */
    size_t launch_dim_items;
};

clpk_status core_profile_load_for_context(clpk_context *ctx);
void core_profile_release_json(void *json); /* accepts NULL */
void core_program_cache_release(clpk_context *ctx);
/* Shared by program_cache.c and program_prebuild.c. */
cl_program core_program_cache_find(const clpk_context *ctx, uint64_t key_hash, const char *key); /* NULL: absent */
clpk_status core_program_cache_add(clpk_context *ctx, uint64_t key_hash, char *key, cl_program program); /* owns key */
void core_program_cache_entry_path(const clpk_context *ctx, uint64_t key_hash, char *path, size_t size);
void core_program_cache_disk_store(clpk_context *ctx, const char *path, const char *key, cl_program program);
clpk_status core_program_note_request(clpk_context *ctx, uint64_t key_hash, const char *key, const char *source,
                                      const char *options); /* copies its strings; ignores a repeated key */
void core_program_requests_clear(clpk_context *ctx);
clpk_status core_program_cache_init(clpk_context *ctx);

#endif
