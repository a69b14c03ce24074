/* LiFE's plan-time passes on several threads (host only, no device): the counting sorts give the stable order of a
 * plain one-pass reference on inputs split over 1, 3 and the default number of threads (CLPK_THREADS), with and
 * without a rank permutation, 64- and 32-bit indices; the pair-merged copy and its block order of a synthetic
 * tractogram ("medium", ~2 M coefficients, seeded) are byte for byte the same with 1 and 5 threads. */
#include "check.h"
#include "life_internal.h"
#include "life_synth_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stable order by bucket (rank[key] or key) of the indices 0..n-1, one bucket at a time: O(n * buckets) on few
 * buckets, obviously right. */
static void reference_order(int64_t n, const int32_t *key, const int32_t *rank, int32_t n_keys, int64_t *ptr,
                            int64_t *out) {
    int64_t at = 0;
    for (int32_t b = 0; b < n_keys; ++b) {
        ptr[b] = at;
        for (int64_t i = 0; i < n; ++i)
            if ((rank ? rank[key[i]] : key[i]) == b) out[at++] = i;
    }
    ptr[n_keys] = at;
}

static void set_threads(const char *n) {
    if (n)
        setenv("CLPK_THREADS", n, 1);
    else
        unsetenv("CLPK_THREADS");
}

static void counting_sorts(uint64_t *rng) {
    enum { N = 3 << 20, KEYS = 24 };
    int32_t *key = malloc(N * sizeof *key), rank[KEYS];
    int64_t *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got), want_ptr[KEYS + 1], ptr[KEYS + 1];
    int32_t *got32 = malloc(N * sizeof *got32);
    if (!CHECK(key && want && got && got32, "no memory")) goto done;
    for (int64_t i = 0; i < N; ++i) /* a skewed spread with an empty key */
        key[i] = (int32_t)(check_rand(rng) % (KEYS - 1)) * (check_rand(rng) % 4 ? 1 : 0) + (i % 97 == 0);
    for (int32_t k = 0; k < KEYS; ++k)
        rank[k] = (k * 7 + 3) % KEYS; /* 7 is prime to 24: a permutation */
    const char *threads[] = {"1", "3", NULL};
    for (int with_rank = 0; with_rank < 2; ++with_rank) {
        const int32_t *r = with_rank ? rank : NULL;
        reference_order(N, key, r, KEYS, want_ptr, want);
        for (int t = 0; t < 3; ++t) {
            set_threads(threads[t]);
            memset(got, 0xff, N * sizeof *got);
            life_counting_sort(NULL, N, key, r, KEYS, ptr, got);
            CHECK(memcmp(ptr, want_ptr, sizeof ptr) == 0 && memcmp(got, want, N * sizeof *got) == 0,
                  "64-bit counting sort, %s threads, %s rank", threads[t] ? threads[t] : "default",
                  with_rank ? "with" : "without");
            memset(got32, 0xff, N * sizeof *got32);
            life_counting_sort32(NULL, N, key, r, KEYS, ptr, got32);
            int same = memcmp(ptr, want_ptr, sizeof ptr) == 0;
            for (int64_t i = 0; same && i < N; ++i)
                same = got32[i] == want[i];
            CHECK(same, "32-bit counting sort, %s threads, %s rank", threads[t] ? threads[t] : "default",
                  with_rank ? "with" : "without");
        }
    }
    /* through an index array: sorting want (already in bucket order) by the same keys again keeps it */
    set_threads("3");
    life_counting_sort(want, N, key, NULL, KEYS, ptr, got);
    reference_order(N, key, NULL, KEYS, want_ptr, want);
    CHECK(memcmp(got, want, N * sizeof *got) == 0, "a sort through an index array keeps a stable order");
done:
    set_threads(NULL);
    free(key), free(want), free(got), free(got32);
}

#define SAME(field, count)                                                                                             \
    (((a)->field == NULL) == ((b)->field == NULL) &&                                                                   \
     ((a)->field == NULL || memcmp((a)->field, (b)->field, (size_t)(count) * sizeof *(a)->field) == 0))

static int pairs_equal(const life_pairs *a, const life_pairs *b) {
    const int64_t nc = a->n_coeffs, np = a->n_pairs, nv = a->n_voxels, nf = a->n_fibers;
    return a->n_pairs == b->n_pairs && a->n_chunks == b->n_chunks && SAME(run_pair, nv + 1) &&
           SAME(run_coeff, nv + 1) && SAME(run_key, nv) && SAME(pair_atom_off, np) && SAME(pair_voxel_off, np) &&
           SAME(pair_len, np) && SAME(pair_coeff, np + 1) && SAME(fiber, nc) && SAME(phi, nc) &&
           SAME(fiber_ptr, nf + 1) && SAME(fiber_pair, nc) && SAME(fiber_phi, nc) && SAME(fiber_key, nf) &&
           SAME(chunk_pair, a->n_chunks + 1) && SAME(chunk_block, a->n_chunks) && SAME(block_atom_off, np) &&
           SAME(block_voxel_off, np) && SAME(block_vloc, np);
}

static void pair_build(uint64_t *rng) {
    clpk_life_dataset d;
    clpk_error err;
    if (!life_check_synth("medium", rng, &d)) return;
    int32_t *rank = NULL;
    char why[160];
    CHECK(life_voxel_rank_morton(&d, &rank, why, sizeof why, &err) == CLPK_SUCCESS && rank, "morton ranks: %s", why);
    int32_t *fiber_rank = NULL;
    CHECK(life_fiber_rank_by_voxel(&d, rank, &fiber_rank, &err) == CLPK_SUCCESS, "%s", err.message);
    const char *threads[] = {"1", "5"};
    life_pairs pr[2];
    int built[2] = {0, 0};
    for (int t = 0; t < 2; ++t) {
        set_threads(threads[t]);
        built[t] =
            CHECK(life_pairs_build(&d, 96, rank, fiber_rank, &pr[t], &err) == CLPK_SUCCESS, "%s", err.message) &&
            CHECK(life_pairs_block_order(&pr[t], 32, 1024, d.n_atoms, 96, &err) == CLPK_SUCCESS, "%s", err.message);
    }
    set_threads(NULL);
    if (built[0] && built[1])
        CHECK(pairs_equal(&pr[0], &pr[1]), "pairs and block order of %lld coefficients (%lld pairs): 1 and 5 threads",
              (long long)d.n_coeffs, (long long)pr[0].n_pairs);
    printf("medium synth: %lld coefficients, %lld pairs, %d chunks\n", (long long)d.n_coeffs, (long long)pr[0].n_pairs,
           pr[0].n_chunks);
    for (int t = 0; t < 2; ++t)
        life_pairs_free(&pr[t]);
    free(rank);
    free(fiber_rank);
    clpk_life_dataset_free(&d);
}

int main(void) {
    uint64_t rng = check_seed();
    counting_sorts(&rng);
    pair_build(&rng);
    return check_summary();
}
