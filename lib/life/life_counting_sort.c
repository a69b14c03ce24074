/* Stable counting sorts of index arrays for the pair build (life_pairs.c), on every online core: the input is cut
 * into consecutive ranges, each range counts its keys on its own thread, the ranges' shares of every bucket are laid
 * out range after range, and each range scatters its indices into its shares. A bucket therefore holds its indices
 * in input order, as one thread would write them: the result does not depend on the number of ranges. */
#include "life_internal.h"

#include <stdlib.h>
#include <string.h>

enum { SORT_MIN_PER_PART = 1 << 20, SORT_MAX_COUNTS = 1 << 25 };

#define LIFE_COUNTING_SORT(NAME, IDX_T)                                                                                \
    typedef struct {                                                                                                   \
        const IDX_T *in;                                                                                               \
        const int32_t *key, *rank;                                                                                     \
        int64_t begin, end, *count;                                                                                    \
        IDX_T *out;                                                                                                    \
        int scatter;                                                                                                   \
    } NAME##_part;                                                                                                     \
                                                                                                                       \
    static void *NAME##_run(void *arg) {                                                                               \
        NAME##_part *p = arg;                                                                                          \
        for (int64_t i = p->begin; i < p->end; ++i) {                                                                  \
            const IDX_T k = p->in ? p->in[i] : (IDX_T)i;                                                               \
            const int32_t x = p->key[k], b = p->rank ? p->rank[x] : x;                                                 \
            if (p->scatter)                                                                                            \
                p->out[p->count[b]++] = k;                                                                             \
            else                                                                                                       \
                p->count[b]++;                                                                                         \
        }                                                                                                              \
        return NULL;                                                                                                   \
    }                                                                                                                  \
                                                                                                                       \
    void NAME(const IDX_T *in, int64_t n, const int32_t *key, const int32_t *rank, int32_t n_keys, int64_t *ptr,       \
              IDX_T *out) {                                                                                            \
        int parts = core_parallel_parts(n, SORT_MIN_PER_PART);                                                         \
        while (parts > 1 && (int64_t)parts * n_keys > SORT_MAX_COUNTS)                                                 \
            --parts;                                                                                                   \
        int64_t *counts = parts > 1 ? calloc((size_t)parts * (size_t)n_keys, sizeof *counts) : NULL;                   \
        if (!counts) parts = 1;                                                                                        \
        NAME##_part pp[CORE_MAX_PARTS];                                                                                \
        for (int t = 0; t < parts; ++t)                                                                                \
            pp[t] =                                                                                                    \
                (NAME##_part){                                                                                         \
                    in,  key, rank, n * t / parts, n * (t + 1) / parts, counts ? counts + (size_t)t * n_keys : ptr,    \
                    out, 0};                                                                                           \
        if (!counts) memset(ptr, 0, ((size_t)n_keys + 1) * sizeof *ptr);                                               \
        core_parallel_run(NAME##_run, pp, sizeof pp[0], parts);                                                        \
        /* bucket starts, and each range's first place in every bucket */                                              \
        int64_t at = 0;                                                                                                \
        for (int32_t b = 0; b < n_keys; ++b) {                                                                         \
            const int64_t start = at;                                                                                  \
            for (int t = 0; t < parts; ++t) {                                                                          \
                const int64_t c = pp[t].count[b];                                                                      \
                pp[t].count[b] = at;                                                                                   \
                at += c;                                                                                               \
            }                                                                                                          \
            if (counts) ptr[b] = start;                                                                                \
        }                                                                                                              \
        ptr[n_keys] = n;                                                                                               \
        for (int t = 0; t < parts; ++t)                                                                                \
            pp[t].scatter = 1;                                                                                         \
        core_parallel_run(NAME##_run, pp, sizeof pp[0], parts);                                                        \
        if (!counts) { /* one range counted into ptr: the scatter advanced each start to its bucket's end */           \
            memmove(ptr + 1, ptr, (size_t)n_keys * sizeof *ptr);                                                       \
            ptr[0] = 0;                                                                                                \
        }                                                                                                              \
        free(counts);                                                                                                  \
    }

LIFE_COUNTING_SORT(life_counting_sort, int64_t)
LIFE_COUNTING_SORT(life_counting_sort32, int32_t)
