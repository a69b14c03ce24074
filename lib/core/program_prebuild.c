/* Parallel program builds for the tuner. Most of a tuning run on a GPU is the driver's compiler (0.25-0.4 s per
 * program on the H100 against ~0.02 s to check and time a candidate), and the candidates of a search step are known
 * before any of them runs. The tuner notes the programs those candidates will request (recording, program_cache.c)
 * and compiles them here on several threads at once; the candidates' plans then find them in the cache. OpenCL lets
 * separate programs be built concurrently; only the cache list and the statistics are touched, by the calling thread
 * alone, after the workers have finished. */
#include "context_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREBUILD_MAX_THREADS 64

typedef struct prebuild_job {
    clpk_context *ctx; /* read only in the workers: device and OpenCL context */
    core_program_request *requests;
    cl_program *built; /* per request: the program, or NULL (skipped or failed) */
    int count;
    int next; /* next request to take, under lock */
    pthread_mutex_t lock;
} prebuild_job;

void core_program_record(clpk_context *ctx, int on) {
    if (ctx) ctx->recording = on != 0;
}

clpk_status core_program_note_request(clpk_context *ctx, uint64_t key_hash, const char *key, const char *source,
                                      const char *options) {
    for (int i = 0; i < ctx->request_count; ++i)
        if (ctx->requests[i].key_hash == key_hash && strcmp(ctx->requests[i].key, key) == 0) return CLPK_SUCCESS;
    if (ctx->request_count == ctx->request_capacity) {
        int capacity = ctx->request_capacity ? 2 * ctx->request_capacity : 16;
        core_program_request *grown = realloc(ctx->requests, sizeof *grown * (size_t)capacity);
        if (!grown) return CLPK_ERROR_OUT_OF_MEMORY;
        ctx->requests = grown;
        ctx->request_capacity = capacity;
    }
    core_program_request r = {key_hash, strdup(key), strdup(source), strdup(options)};
    if (!r.key || !r.source || !r.options) {
        free(r.key);
        free(r.source);
        free(r.options);
        return CLPK_ERROR_OUT_OF_MEMORY;
    }
    ctx->requests[ctx->request_count++] = r;
    return CLPK_SUCCESS;
}

void core_program_requests_clear(clpk_context *ctx) {
    for (int i = 0; i < ctx->request_count; ++i) {
        free(ctx->requests[i].key);
        free(ctx->requests[i].source);
        free(ctx->requests[i].options);
    }
    free(ctx->requests);
    ctx->requests = NULL;
    ctx->request_count = ctx->request_capacity = 0;
}

static void *prebuild_worker(void *arg) {
    prebuild_job *job = arg;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        int i = job->next++;
        pthread_mutex_unlock(&job->lock);
        if (i >= job->count) return NULL;
        const core_program_request *r = &job->requests[i];
        if (!r->source) continue; /* skipped by the caller */
        cl_int rc;
        const char *source = r->source;
        cl_program program = clCreateProgramWithSource(job->ctx->cl_ctx, 1, &source, NULL, &rc);
        if (rc != CL_SUCCESS) continue;
        if (clBuildProgram(program, 1, &job->ctx->device, r->options, NULL, NULL) != CL_SUCCESS) {
            clReleaseProgram(program);
            continue;
        }
        job->built[i] = program;
    }
}

int core_program_prebuild(clpk_context *ctx, int threads) {
    if (!ctx || ctx->request_count == 0) return 0;
    int count = ctx->request_count;
    /* Programs already in memory or on disk need no compiler: the normal path takes them. */
    for (int i = 0; i < count; ++i) {
        core_program_request *r = &ctx->requests[i];
        int have = core_program_cache_find(ctx, r->key_hash, r->key) != NULL;
        if (!have && ctx->cache_dir[0]) {
            char path[1100];
            core_program_cache_entry_path(ctx, r->key_hash, path, sizeof path);
            have = access(path, R_OK) == 0;
        }
        if (have) {
            free(r->source);
            r->source = NULL;
        }
    }
    prebuild_job job = {.ctx = ctx, .requests = ctx->requests, .count = count};
    job.built = calloc((size_t)count, sizeof *job.built);
    if (!job.built || pthread_mutex_init(&job.lock, NULL) != 0) {
        free(job.built);
        core_program_requests_clear(ctx);
        return 0;
    }
    if (threads > count) threads = count;
    if (threads > PREBUILD_MAX_THREADS) threads = PREBUILD_MAX_THREADS;
    pthread_t workers[PREBUILD_MAX_THREADS];
    int started = 0;
    double t0 = core_wall_seconds();
    for (; started < threads - 1; ++started)
        if (pthread_create(&workers[started], NULL, prebuild_worker, &job) != 0) break;
    prebuild_worker(&job); /* the calling thread works too (and alone if no thread could start) */
    for (int i = 0; i < started; ++i) pthread_join(workers[i], NULL);
    ctx->cache_stats.build_seconds += core_wall_seconds() - t0;
    pthread_mutex_destroy(&job.lock);

    int added = 0;
    for (int i = 0; i < count; ++i) {
        core_program_request *r = &ctx->requests[i];
        if (!job.built[i]) continue;
        if (core_program_cache_add(ctx, r->key_hash, r->key, job.built[i]) != CLPK_SUCCESS) {
            clReleaseProgram(job.built[i]);
            continue;
        }
        ctx->cache_stats.builds++;
        if (ctx->cache_dir[0]) {
            char path[1100];
            core_program_cache_entry_path(ctx, r->key_hash, path, sizeof path);
            core_program_cache_disk_store(ctx, path, r->key, job.built[i]);
        }
        r->key = NULL; /* owned by the cache now */
        ++added;
    }
    free(job.built);
    core_program_requests_clear(ctx);
    return added;
}
