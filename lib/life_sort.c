/* Restructured LiFE coefficients: stable counting sort by voxel, atom or fibre with run pointers and premultiplied
 * offsets, built once per plan on the host in O(Nc + keys). */
#include "life_internal.h"

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
    memset(s, 0, sizeof *s);
}

clpk_status life_sort_build(const clpk_life_dataset *data, life_order order, int32_t ld_dict, life_sorted *out,
                            clpk_error *err) {
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
    if (!out->run_ptr || !out->atom_off || !out->voxel_off || !out->fiber || !out->phi || !next) {
        free(next);
        life_sorted_free(out);
        return clpk_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory for the sorted coefficients (%lld)",
                              (long long)nc);
    }
    for (int64_t k = 0; k < nc; ++k) out->run_ptr[key[k] + 1]++;
    for (int32_t i = 0; i < n_keys; ++i) out->run_ptr[i + 1] += out->run_ptr[i];
    memcpy(next, out->run_ptr, ((size_t)n_keys + 1) * sizeof *next);
    for (int64_t k = 0; k < nc; ++k) {
        int64_t dst = next[key[k]]++;
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
