/* Restructured LiFE coefficients: stable counting sort by voxel, atom or fibre with run pointers and premultiplied
 * offsets, built once per plan on the host in O(Nc + keys). */
#include "life_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int32_t *life_key_array(const clpk_life_dataset *data, life_order order, int32_t *n_keys) {
    switch (order) {
    case LIFE_ORDER_VOXEL: *n_keys = data->n_voxels; return data->voxels;
    case LIFE_ORDER_ATOM: *n_keys = data->n_atoms; return data->atoms;
    default: *n_keys = data->n_fibers; return data->fibers;
    }
}

void life_sorted_free(life_sorted *s) {
    if (!s) return;
    free(s->run_ptr);
    free(s->atom_off);
    free(s->voxel_off);
    free(s->fiber);
    free(s->phi);
    free(s->run_key);
    memset(s, 0, sizeof *s);
}

clpk_status life_sort_build(const clpk_life_dataset *data, life_order order, int32_t ld_dict, const int32_t *rank,
                            life_sorted *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    int32_t n_keys = 0;
    const int32_t *key = life_key_array(data, order, &n_keys);
    const int64_t nc = data->n_coeffs;
    size_t cells = nc > 0 ? (size_t)nc : 1;
    out->order = order;
    out->n_coeffs = nc;
    out->n_keys = n_keys;
    out->run_ptr = calloc((size_t)n_keys + 1, sizeof *out->run_ptr);
    out->atom_off = malloc(cells * sizeof *out->atom_off);
    out->voxel_off = malloc(cells * sizeof *out->voxel_off);
    out->fiber = malloc(cells * sizeof *out->fiber);
    out->phi = malloc(cells * sizeof *out->phi);
    int64_t *next = malloc(((size_t)n_keys + 1) * sizeof *next);
    if (rank) out->run_key = malloc(((size_t)n_keys > 0 ? (size_t)n_keys : 1) * sizeof *out->run_key);
    if (!out->run_ptr || !out->atom_off || !out->voxel_off || !out->fiber || !out->phi || !next ||
        (rank && !out->run_key)) {
        free(next);
        life_sorted_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory for the sorted coefficients (%lld)",
                              (long long)nc);
    }
    /* the run of key x is slot rank[x] (a permutation, checked by its builders) or x */
    if (rank)
        for (int32_t x = 0; x < n_keys; ++x) out->run_key[rank[x]] = x;
    for (int64_t k = 0; k < nc; ++k) out->run_ptr[(rank ? rank[key[k]] : key[k]) + 1]++;
    for (int32_t i = 0; i < n_keys; ++i) out->run_ptr[i + 1] += out->run_ptr[i];
    memcpy(next, out->run_ptr, ((size_t)n_keys + 1) * sizeof *next);
    for (int64_t k = 0; k < nc; ++k) {
        int64_t dst = next[rank ? rank[key[k]] : key[k]]++;
        out->atom_off[dst] = data->atoms[k] * ld_dict;
        out->voxel_off[dst] = data->voxels[k] * data->n_theta;
        out->fiber[dst] = data->fibers[k];
        out->phi[dst] = data->phi[k];
    }
    free(next);
    return CLPK_SUCCESS;
}

void life_run_stats(const clpk_life_dataset *data, life_order order, double *mean_run, double *max_run) {
    int32_t n_keys = 0;
    const int32_t *key = life_key_array(data, order, &n_keys);
    int64_t *count = calloc((size_t)n_keys + 1, sizeof *count);
    *mean_run = 0;
    *max_run = 0;
    if (!count) return;
    for (int64_t k = 0; k < data->n_coeffs; ++k) count[key[k]]++;
    int64_t nonempty = 0, longest = 0;
    for (int32_t i = 0; i < n_keys; ++i) {
        if (count[i] > 0) nonempty++;
        if (count[i] > longest) longest = count[i];
    }
    free(count);
    *mean_run = nonempty > 0 ? (double)data->n_coeffs / (double)nonempty : 0;
    *max_run = (double)longest;
}

/* Interleaves the low 21 bits of x with two zero bits between each (the Morton code's spreading step). */
static uint64_t life_spread3(uint64_t x) {
    x &= 0x1fffffull;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

typedef struct life_code {
    uint64_t code;
    int32_t index;
} life_code;

static int life_code_cmp(const void *a, const void *b) {
    const life_code *x = a, *y = b;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

clpk_status life_voxel_rank_morton(const clpk_life_dataset *data, int32_t **rank, char *why, size_t why_size,
                                   clpk_error *err) {
    *rank = NULL;
    const int32_t nv = data->n_voxels;
    const int32_t *ijk = data->voxel_ijk;
    if (!ijk || nv < 1) {
        snprintf(why, why_size, "the dataset has no voxel grid coordinates (voxel_ijk): index order");
        return CLPK_SUCCESS;
    }
    int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    for (int32_t v = 0; v < nv; ++v)
        for (int c = 0; c < 3; ++c) {
            const int32_t x = ijk[3 * (size_t)v + c];
            if (x < lo[c]) lo[c] = x;
            if (x > hi[c]) hi[c] = x;
        }
    for (int c = 0; c < 3; ++c)
        if ((int64_t)hi[c] - lo[c] >= (1 << 21)) {
            snprintf(why, why_size, "grid span %lld on axis %d exceeds the Morton code's 2^21: index order",
                     (long long)hi[c] - lo[c] + 1, c);
            return CLPK_SUCCESS;
        }
    life_code *codes = malloc((size_t)nv * sizeof *codes);
    int32_t *r = malloc((size_t)nv * sizeof *r);
    if (!codes || !r) {
        free(codes);
        free(r);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory for the voxel order (%d)", (int)nv);
    }
    for (int32_t v = 0; v < nv; ++v) {
        const int32_t *p = ijk + 3 * (size_t)v;
        codes[v].code = life_spread3((uint64_t)(p[0] - lo[0])) | life_spread3((uint64_t)(p[1] - lo[1])) << 1 |
                        life_spread3((uint64_t)(p[2] - lo[2])) << 2;
        codes[v].index = v;
    }
    qsort(codes, (size_t)nv, sizeof *codes, life_code_cmp);
    for (int32_t i = 0; i < nv; ++i) r[codes[i].index] = i;
    free(codes);
    *rank = r;
    why[0] = '\0';
    return CLPK_SUCCESS;
}

clpk_status life_fiber_rank_by_voxel(const clpk_life_dataset *data, const int32_t *voxel_rank, int32_t **rank,
                                     clpk_error *err) {
    const int32_t nf = data->n_fibers, nv = data->n_voxels;
    *rank = NULL;
    int64_t *count = calloc((size_t)nf, sizeof *count);
    int32_t *key = malloc((size_t)nf * sizeof *key); /* the middle coefficient's voxel position; nv: no coefficient */
    int64_t *bucket = calloc((size_t)nv + 2, sizeof *bucket);
    int32_t *r = malloc((size_t)nf * sizeof *r);
    if (!count || !key || !bucket || !r) {
        free(count), free(key), free(bucket), free(r);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory for the fibre order (%d)", (int)nf);
    }
    for (int64_t k = 0; k < data->n_coeffs; ++k) count[data->fibers[k]]++;
    for (int32_t f = 0; f < nf; ++f) {
        key[f] = nv;
        count[f] = count[f] > 0 ? count[f] / 2 + 1 : 0; /* 1-based position of the middle coefficient */
    }
    for (int64_t k = 0; k < data->n_coeffs; ++k) {
        const int32_t f = data->fibers[k];
        if (count[f] > 0 && --count[f] == 0) key[f] = voxel_rank ? voxel_rank[data->voxels[k]] : data->voxels[k];
    }
    /* stable counting sort of the fibres by key (0..nv) */
    for (int32_t f = 0; f < nf; ++f) bucket[key[f] + 1]++;
    for (int32_t i = 0; i <= nv; ++i) bucket[i + 1] += bucket[i];
    for (int32_t f = 0; f < nf; ++f) r[f] = (int32_t)bucket[key[f]]++;
    free(count), free(key), free(bucket);
    *rank = r;
    return CLPK_SUCCESS;
}
