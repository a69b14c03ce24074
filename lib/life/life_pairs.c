/* Coefficients merged per (voxel, atom) pair for dsc=pairs and wc=pairs: two stable counting sorts (by atom, then by
 * the voxel's processing position) put each voxel run's coefficients in atom order, so the coefficients of a pair are
 * contiguous; a stable counting sort by fibre gives each fibre its (pair, phi) list. O(Nc + Na + Nv + Nf). */
#include "life_internal.h"

#include <stdlib.h>
#include <string.h>

void life_pairs_free(life_pairs *p) {
    if (!p) return;
    free(p->run_pair);
    free(p->run_coeff);
    free(p->run_key);
    free(p->pair_atom_off);
    free(p->pair_voxel_off);
    free(p->pair_len);
    free(p->pair_coeff);
    free(p->fiber);
    free(p->phi);
    free(p->fiber_ptr);
    free(p->fiber_pair);
    free(p->fiber_phi);
    free(p->fiber_key);
    free(p->chunk_pair);
    free(p->chunk_block);
    free(p->block_atom_off);
    free(p->block_voxel_off);
    free(p->block_vloc);
    memset(p, 0, sizeof *p);
}

static clpk_status life_pairs_oom(life_pairs *p, clpk_error *err) {
    life_pairs_free(p);
    return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory for the pair-merged coefficients");
}

/* Plan-time loops on every core: at least this many items a thread (a thread costs tens of microseconds). */
enum { LIFE_MIN_PER_THREAD = 1 << 18 };

/* The pair pass over the runs [r0, r1): counts the runs' pairs into first_pair, or (fill) numbers them from
 * first_pair and writes the pair arrays, the pair-order coefficients and each coefficient's pair. */
typedef struct {
    const clpk_life_dataset *data;
    life_pairs *out;
    const int64_t *sorted; /* coefficients (dataset indices) in run order, atoms ascending within a run */
    int32_t *pair_of;
    int32_t ld_dict, r0, r1, fill;
    int64_t first_pair;
} pair_pass;

static void *life_pair_range(void *arg) {
    pair_pass *t = arg;
    const clpk_life_dataset *data = t->data;
    life_pairs *out = t->out;
    const int64_t *sorted = t->sorted;
    if (!t->fill) {
        int64_t n = 0;
        for (int32_t r = t->r0; r < t->r1; ++r)
            for (int64_t i = out->run_coeff[r]; i < out->run_coeff[r + 1]; ++i)
                n += i == out->run_coeff[r] || data->atoms[sorted[i]] != data->atoms[sorted[i - 1]];
        t->first_pair = n;
        return NULL;
    }
    int64_t p = t->first_pair - 1;
    for (int32_t r = t->r0; r < t->r1; ++r) {
        out->run_pair[r] = p + 1;
        for (int64_t i = out->run_coeff[r]; i < out->run_coeff[r + 1]; ++i) {
            const int64_t k = sorted[i];
            if (i == out->run_coeff[r] || data->atoms[k] != data->atoms[sorted[i - 1]]) {
                ++p;
                out->pair_atom_off[p] = data->atoms[k] * t->ld_dict;
                out->pair_voxel_off[p] = data->voxels[k] * data->n_theta;
                out->pair_len[p] = 0;
                out->pair_coeff[p] = i;
            }
            out->pair_len[p]++;
            out->fiber[i] = data->fibers[k];
            out->phi[i] = data->phi[k];
            t->pair_of[k] = (int32_t)p;
        }
    }
    return NULL;
}

/* Cuts the runs into ranges of about equal coefficients (at most one a core); returns their number. */
static int life_pair_ranges(const clpk_life_dataset *data, life_pairs *out, const int64_t *sorted, int32_t ld_dict,
                            pair_pass *pass) {
    const int64_t nc = data->n_coeffs;
    const int32_t nv = data->n_voxels;
    const int parts = core_parallel_parts(nc, LIFE_MIN_PER_THREAD);
    int32_t r = 0;
    for (int t = 0; t < parts; ++t) {
        const int64_t until = nc * (t + 1) / parts;
        const int32_t r0 = r;
        while (r < nv && (t == parts - 1 || out->run_coeff[r] < until))
            ++r;
        pass[t] = (pair_pass){data, out, sorted, NULL, ld_dict, r0, r, 0, 0};
    }
    return parts;
}

typedef struct {
    const clpk_life_dataset *data;
    life_pairs *out;
    const int64_t *by_fiber;
    const int32_t *pair_of;
} fibre_gather;

static void life_fibre_gather(void *arg, int64_t begin, int64_t end) {
    const fibre_gather *g = arg;
    for (int64_t i = begin; i < end; ++i) {
        g->out->fiber_pair[i] = g->pair_of[g->by_fiber[i]];
        g->out->fiber_phi[i] = g->data->phi[g->by_fiber[i]];
    }
}

clpk_status life_pairs_build(const clpk_life_dataset *data, int32_t ld_dict, const int32_t *voxel_rank,
                             const int32_t *fiber_rank, life_pairs *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    const int64_t nc = data->n_coeffs;
    const int32_t nv = data->n_voxels, na = data->n_atoms, nf = data->n_fibers;
    const size_t cells = nc > 0 ? (size_t)nc : 1;
    out->n_coeffs = nc;
    out->n_voxels = nv;
    out->n_fibers = nf;
    int64_t *by_atom = malloc(cells * sizeof *by_atom), *sorted = malloc(cells * sizeof *sorted);
    int64_t *atom_ptr = malloc(((size_t)na + 1) * sizeof *atom_ptr);
    out->run_coeff = malloc(((size_t)nv + 1) * sizeof *out->run_coeff);
    out->run_pair = malloc(((size_t)nv + 1) * sizeof *out->run_pair);
    if (!by_atom || !sorted || !atom_ptr || !out->run_coeff || !out->run_pair) {
        free(by_atom), free(sorted), free(atom_ptr);
        return life_pairs_oom(out, err);
    }
    /* by atom, then (stable) by voxel position: voxel runs in processing order, atoms ascending within a run, and the
     * coefficients of one pair in the dataset's order */
    life_counting_sort(NULL, nc, data->atoms, NULL, na, atom_ptr, by_atom);
    life_counting_sort(by_atom, nc, data->voxels, voxel_rank, nv, out->run_coeff, sorted);
    free(by_atom);
    free(atom_ptr);
    /* ranges of runs of about equal coefficients, one a thread: each counts its pairs, then fills them from the
     * first pair index the ranges before it leave */
    pair_pass pass[CORE_MAX_PARTS];
    const int parts = life_pair_ranges(data, out, sorted, ld_dict, pass);
    core_parallel_run(life_pair_range, pass, sizeof pass[0], parts);
    int64_t n_pairs = 0;
    for (int t = 0; t < parts; ++t) {
        const int64_t c = pass[t].first_pair;
        pass[t].first_pair = n_pairs;
        n_pairs += c;
    }
    if (n_pairs >= INT32_MAX) {
        free(sorted);
        life_pairs_free(out);
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "LiFE: %lld (voxel, atom) pairs exceed int32 indices",
                              (long long)n_pairs);
    }
    out->n_pairs = n_pairs;
    const size_t pcells = n_pairs > 0 ? (size_t)n_pairs : 1;
    int32_t *pair_of = malloc(cells * sizeof *pair_of); /* coefficient (dataset index) -> its pair */
    out->pair_atom_off = malloc(pcells * sizeof *out->pair_atom_off);
    out->pair_voxel_off = malloc(pcells * sizeof *out->pair_voxel_off);
    out->pair_len = malloc(pcells * sizeof *out->pair_len);
    out->pair_coeff = malloc(((size_t)n_pairs + 1) * sizeof *out->pair_coeff);
    out->fiber = malloc(cells * sizeof *out->fiber);
    out->phi = malloc(cells * sizeof *out->phi);
    if (voxel_rank) out->run_key = malloc(((size_t)nv > 0 ? (size_t)nv : 1) * sizeof *out->run_key);
    if (!pair_of || !out->pair_atom_off || !out->pair_voxel_off || !out->pair_len || !out->pair_coeff ||
        !out->fiber || !out->phi || (voxel_rank && !out->run_key)) {
        free(sorted), free(pair_of);
        return life_pairs_oom(out, err);
    }
    if (voxel_rank)
        for (int32_t v = 0; v < nv; ++v)
            out->run_key[voxel_rank[v]] = v;
    for (int t = 0; t < parts; ++t) {
        pass[t].pair_of = pair_of;
        pass[t].fill = 1;
    }
    core_parallel_run(life_pair_range, pass, sizeof pass[0], parts);
    out->run_pair[nv] = n_pairs;
    out->pair_coeff[n_pairs] = nc;
    free(sorted);
    /* fibre side: the fibres in fiber_rank order (index order without), each fibre's coefficients in the dataset's
     * order (as wc=fiber's runs), as (pair, phi) */
    int64_t *by_fiber = malloc(cells * sizeof *by_fiber);
    out->fiber_ptr = malloc(((size_t)nf + 1) * sizeof *out->fiber_ptr);
    out->fiber_pair = malloc(cells * sizeof *out->fiber_pair);
    out->fiber_phi = malloc(cells * sizeof *out->fiber_phi);
    if (fiber_rank) out->fiber_key = malloc(((size_t)nf > 0 ? (size_t)nf : 1) * sizeof *out->fiber_key);
    if (!by_fiber || !out->fiber_ptr || !out->fiber_pair || !out->fiber_phi || (fiber_rank && !out->fiber_key)) {
        free(by_fiber), free(pair_of);
        return life_pairs_oom(out, err);
    }
    if (fiber_rank)
        for (int32_t f = 0; f < nf; ++f)
            out->fiber_key[fiber_rank[f]] = f;
    life_counting_sort(NULL, nc, data->fibers, fiber_rank, nf, out->fiber_ptr, by_fiber);
    fibre_gather fg = {data, out, by_fiber, pair_of};
    core_parallel_for(nc, LIFE_MIN_PER_THREAD, life_fibre_gather, &fg);
    free(by_fiber);
    free(pair_of);
    return CLPK_SUCCESS;
}

/* The block order's passes (life_pairs_block_order); each writes disjoint places. */
typedef struct {
    life_pairs *p;
    int32_t *atom, *blk, *by_atom, *order;
    int32_t ld_dict, block;
} block_pass;

/* runs [begin, end): each pair's atom, and its run for now (the block and the place within it follow) */
static void life_block_keys(void *arg, int64_t begin, int64_t end) {
    const block_pass *b = arg;
    for (int64_t r = begin; r < end; ++r)
        for (int64_t i = b->p->run_pair[r]; i < b->p->run_pair[r + 1]; ++i) {
            b->atom[i] = b->p->pair_atom_off[i] / b->ld_dict;
            b->blk[i] = (int32_t)r;
        }
}

/* the atom-sorted positions [begin, end): `atom` becomes the place in the block (the atoms are sorted), blk the
 * block */
static void life_block_places(void *arg, int64_t begin, int64_t end) {
    const block_pass *b = arg;
    for (int64_t i = begin; i < end; ++i) {
        const int32_t k = b->by_atom[i], r = b->blk[k];
        b->atom[k] = r % b->block;
        b->blk[k] = r / b->block;
    }
}

/* block-order positions [begin, end): the pair's atom and voxel offsets and its place; by_atom (reused) gets the
 * block-order index of each pair */
static void life_block_gather(void *arg, int64_t begin, int64_t end) {
    const block_pass *b = arg;
    life_pairs *p = b->p;
    for (int64_t i = begin; i < end; ++i) {
        const int32_t k = b->order[i];
        p->block_atom_off[i] = p->pair_atom_off[k];
        p->block_voxel_off[i] = p->pair_voxel_off[k];
        p->block_vloc[i] = (uint8_t)b->atom[k];
        b->by_atom[k] = (int32_t)i;
    }
}

static void life_block_renumber(void *arg, int64_t begin, int64_t end) {
    const block_pass *b = arg;
    for (int64_t j = begin; j < end; ++j)
        b->p->fiber_pair[j] = b->by_atom[b->p->fiber_pair[j]];
}

clpk_status life_pairs_block_order(life_pairs *p, int32_t block, int32_t chunk_len, int32_t n_atoms, int32_t ld_dict,
                                   clpk_error *err) {
    if (block < 1 || block > 256 || chunk_len < 1)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "LiFE: a pair block of %d voxels (1..256) in chunks of %d pairs (>= 1)", (int)block,
                              (int)chunk_len);
    const int32_t np = (int32_t)p->n_pairs, nv = p->n_voxels, n_blocks = (nv + block - 1) / block;
    const size_t cells = np > 0 ? (size_t)np : 1;
    int32_t *atom = malloc(cells * sizeof *atom), *blk = malloc(cells * sizeof *blk);
    int32_t *by_atom = malloc(cells * sizeof *by_atom), *order = malloc(cells * sizeof *order);
    int64_t *atom_ptr = malloc(((size_t)n_atoms + 1) * sizeof *atom_ptr);
    int64_t *block_pair = malloc(((size_t)n_blocks + 1) * sizeof *block_pair);
    p->block_atom_off = malloc(cells * sizeof *p->block_atom_off);
    p->block_voxel_off = malloc(cells * sizeof *p->block_voxel_off);
    p->block_vloc = malloc(cells * sizeof *p->block_vloc);
    if (!atom || !blk || !by_atom || !order || !atom_ptr || !block_pair || !p->block_atom_off ||
        !p->block_voxel_off || !p->block_vloc) {
        free(atom), free(blk), free(by_atom), free(order), free(atom_ptr), free(block_pair);
        return life_pairs_oom(p, err);
    }
    p->block = block;
    block_pass bp = {p, atom, blk, by_atom, order, ld_dict, block};
    core_parallel_for(nv, LIFE_MIN_PER_THREAD / 64, life_block_keys, &bp);
    /* by atom, then (stable) by block: within a block the atoms ascend, each atom's pairs in run order */
    life_counting_sort32(NULL, np, atom, NULL, n_atoms, atom_ptr, by_atom);
    core_parallel_for(np, LIFE_MIN_PER_THREAD, life_block_places, &bp);
    life_counting_sort32(by_atom, np, blk, NULL, n_blocks, block_pair, order);
    free(atom_ptr);
    /* chunks: each non-empty block's pairs in pieces of at most chunk_len */
    int64_t n_chunks = 0;
    for (int32_t b = 0; b < n_blocks; ++b)
        n_chunks += (block_pair[b + 1] - block_pair[b] + chunk_len - 1) / chunk_len;
    p->chunk_pair = malloc(((size_t)n_chunks + 1) * sizeof *p->chunk_pair);
    p->chunk_block = malloc(((size_t)n_chunks > 0 ? (size_t)n_chunks : 1) * sizeof *p->chunk_block);
    if (!p->chunk_pair || !p->chunk_block) {
        free(atom), free(blk), free(by_atom), free(order), free(block_pair);
        return life_pairs_oom(p, err);
    }
    p->n_chunks = (int32_t)n_chunks;
    int64_t c = 0;
    for (int32_t b = 0; b < n_blocks; ++b)
        for (int64_t i = block_pair[b]; i < block_pair[b + 1]; i += chunk_len) {
            p->chunk_pair[c] = i;
            p->chunk_block[c++] = b;
        }
    p->chunk_pair[n_chunks] = np;
    free(block_pair);
    core_parallel_for(np, LIFE_MIN_PER_THREAD, life_block_gather, &bp);
    core_parallel_for(p->n_coeffs, LIFE_MIN_PER_THREAD, life_block_renumber, &bp);
    free(atom), free(blk), free(by_atom), free(order);
    return CLPK_SUCCESS;
}

static int life_key_cmp(const void *a, const void *b) {
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* 1 voxel in `every` by Knuth's multiplicative hash (the middle bits, spread over every voxel index range) */
static int life_voxel_sampled(int32_t v, uint32_t every) {
    return every == 1 || (((uint32_t)v * 2654435761u) >> 12) % every == 0;
}

double life_pair_ratio_estimate(const clpk_life_dataset *data) {
    uint32_t every = (uint32_t)(data->n_voxels / LIFE_PAIR_SAMPLE_VOXELS);
    every = every < 1 ? 1 : every > 32 ? 32 : every;
    int64_t n = 0;
    for (int64_t k = 0; k < data->n_coeffs; ++k)
        n += life_voxel_sampled(data->voxels[k], every);
    if (n == 0) return 1;
    int64_t *keys = malloc((size_t)n * sizeof *keys);
    if (!keys) return -1;
    int64_t m = 0;
    for (int64_t k = 0; k < data->n_coeffs; ++k)
        if (life_voxel_sampled(data->voxels[k], every))
            keys[m++] = (int64_t)data->voxels[k] * data->n_atoms + data->atoms[k];
    qsort(keys, (size_t)n, sizeof *keys, life_key_cmp);
    int64_t distinct = 1;
    for (int64_t i = 1; i < n; ++i)
        distinct += keys[i] != keys[i - 1];
    free(keys);
    return (double)n / (double)distinct;
}
