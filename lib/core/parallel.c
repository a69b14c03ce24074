/* Host threads for the plan-time passes (format conversion, feature sampling, LiFE's sorts): one thread per part,
 * joined before returning, no pool and no state kept between calls. */
#include "clpk_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* CLPK_THREADS=N (1..CORE_MAX_PARTS) sets the threads instead of the online cores: a shared node's share, or more
 * parts than cores (the tests split small inputs that way); other values are ignored. */
static long thread_budget(void) {
    const char *env = getenv("CLPK_THREADS");
    if (env && *env) {
        char *end = NULL;
        const long n = strtol(env, &end, 10);
        if (end && *end == '\0' && n >= 1 && n <= CORE_MAX_PARTS) return n;
    }
    return sysconf(_SC_NPROCESSORS_ONLN);
}

int core_parallel_parts(int64_t work, int64_t min_per_part) {
    long cores = thread_budget();
    int64_t n = min_per_part > 0 ? work / min_per_part : work;
    if (cores < 1) cores = 1;
    if (n > cores) n = cores;
    if (n > CORE_MAX_PARTS) n = CORE_MAX_PARTS;
    return n < 1 ? 1 : (int)n;
}

void core_parallel_run(void *(*fn)(void *), void *parts, size_t part_size, int n) {
    pthread_t ids[CORE_MAX_PARTS];
    int created[CORE_MAX_PARTS] = {0};
    if (n > CORE_MAX_PARTS) n = CORE_MAX_PARTS;
    for (int i = 1; i < n; ++i)
        created[i] = pthread_create(&ids[i], NULL, fn, (char *)parts + i * part_size) == 0;
    for (int i = 0; i < n; ++i)
        if (!created[i]) fn((char *)parts + i * part_size);
    for (int i = 1; i < n; ++i)
        if (created[i]) pthread_join(ids[i], NULL);
}

typedef struct {
    void (*body)(void *arg, int64_t begin, int64_t end);
    void *arg;
    int64_t begin, end;
} for_part;

static void *for_part_run(void *p) {
    const for_part *f = p;
    f->body(f->arg, f->begin, f->end);
    return NULL;
}

void core_parallel_for(int64_t n, int64_t min_per_part, void (*body)(void *arg, int64_t begin, int64_t end),
                       void *arg) {
    if (n <= 0) return;
    const int parts = core_parallel_parts(n, min_per_part);
    for_part fp[CORE_MAX_PARTS];
    for (int i = 0; i < parts; ++i)
        fp[i] = (for_part){body, arg, n * i / parts, n * (i + 1) / parts};
    core_parallel_run(for_part_run, fp, sizeof fp[0], parts);
}
