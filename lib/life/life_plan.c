/* LiFE plans: parameters (defaults -> profile -> strategy -> caller), restructured copies, upload, kernels, and the
 * DSC / WC launches. */
#include "life_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const dsc_names[] = {"atomics", "voxel", "pairs", "staged", "voxel4"};
static const char *const wc_names[] = {"atomics", "atom", "fiber", "voxel", "pairs", "staged", "fiber4"};
static const char *const voxel_order_names[] = {"index", "morton"};
static const char *const fiber_order_names[] = {"index", "voxel"};

const char *life_dsc_name(life_dsc_kind k) { return dsc_names[k]; }
const char *life_wc_name(life_wc_kind k) { return wc_names[k]; }
int life_wc_fibre_sorted(life_wc_kind k) { return k == LIFE_WC_FIBER || k == LIFE_WC_STAGED || k == LIFE_WC_FIBER4; }

void life_default_params(const clpk_device_info *dev, clpk_precision precision, core_params *params) {
    /* A warp per run on GPUs; narrower teams on every other device, where a "lane" is a SIMD slot of one core. */
    const int gpu = dev && dev->kind == CLPK_DEVICE_GPU;
    core_param_defaults(&life_param_table, gpu ? CLPK_DEVICE_GPU : CLPK_DEVICE_CPU, params);
    if (!gpu || precision != CLPK_PRECISION_F64) return;
    /* H100, DS1, f64: D (99 MB) and y (143 MB) no longer fit the 50 MB L2, the rows come from DRAM more often and
     * more independent row loads in flight pay. Session 4 (morton voxel order, 100-iteration fits): unroll 8 with 8
     * fibre runs per group took 15.18 ms per iteration against 18.03 at unroll 4 / 4 runs (DSC 3.76 -> 3.24 ms, WC
     * 6.08 -> 4.74; docs/perf-life.md, section 5). */
    core_params_set(params, "unroll", "8");
    /* Voxel runs along the Z-order curve keep the D rows of neighbouring voxels in L2 when D does not fit it: f64 DSC
     * 3.87 -> 3.78 ms (w_true), 4.37 -> 4.16 (dense), fit -2 %; f32's D fits and it loses 3 %. Fibres stay in index
     * order (the voxel order cost the WC 15-30 %). (docs/perf-life.md, section 4) */
    core_params_set(params, "voxel_order", "morton");
}

uint64_t life_pair_dot_local_bytes(const life_config *c, size_t value_size) {
    return (uint64_t)c->wc_runs * (uint64_t)c->unroll * ((uint64_t)c->wc_team + 1) * value_size;
}

uint64_t life_wc_dot_local_bytes(const life_config *c, int32_t n_theta, size_t value_size) {
    const uint64_t row = ((uint64_t)n_theta + 3) / 4 * 4 * value_size + sizeof(cl_int);
    return life_pair_dot_local_bytes(c, value_size) + (uint64_t)c->wc_block * row;
}

int life_pairs_pay(int64_t n_coeffs, double ratio) {
    if (ratio < LIFE_PAIRS_MIN_RATIO) return 0;
    const double saving_us = 1e-6 * ((33.0 - 5.0) * (double)n_coeffs - 35.0 * (double)n_coeffs / ratio) - 16.0;
    return saving_us >= 16.0;
}

double life_default_pairs(const clpk_device_info *dev, clpk_precision precision, const clpk_life_dataset *data,
                          core_params *defaults) {
    if (!dev || dev->kind != CLPK_DEVICE_GPU) return 0;
    const double ratio = life_pair_ratio_estimate(data);
    if (!life_pairs_pay(data->n_coeffs, ratio)) return ratio;
    /* H200, DS1 and synth medium (docs/perf-life.md, "Two-launch pairs"): wc=pairs 1.36x / 2.3x faster than wc=fiber
     * (f32); teams of 8 lanes, 16 teams a group, 8 pairs a team per round: within 6 % of the best of the three
     * shapes measured on both problems and precisions. The DSC's loop does as well at unroll 8 as at 1. */
    core_params_set(defaults, "dsc", "pairs");
    core_params_set(defaults, "wc", "pairs");
    core_params_set(defaults, "wc_team", "8");
    core_params_set(defaults, "wc_runs", "16");
    core_params_set(defaults, "unroll", "8");
    /* Morton order: D rows of neighbouring voxels stay in L2, and the WC's blocks below share atoms */
    core_params_set(defaults, "voxel_order", "morton");
    /* the fibre sums in the order of the fibres' middle voxels: the dot products they gather lie near each other
     * whatever order the tractogram lists its fibres in (docs/perf-life.md, "The pair sum's fibre order") */
    core_params_set(defaults, "fiber_order", "voxel");
    /* H200, DS1 (docs/perf-life.md, "Voxel blocks for the WC's dot products"): Morton blocks of 32 voxels (f32) / 16
     * (f64) cut the WC 1.54 -> 1.31 ms / 3.15 -> 2.91 (seed 11, held out); larger blocks lost occupancy to their local
     * memory. Only where the blocked launch's chunks (8 rounds, ~1024 pairs) fill the device several times over: at
     * synth medium's 0.4 M pairs (390 chunks for ~1700 group slots) the blocks lost 9-13 %. Halved where the y rows
     * of longer directions lists would not fit. */
    const double pairs = (double)data->n_coeffs / ratio;
    if (pairs < LIFE_WC_BLOCK_MIN_CHUNKS_PER_CU * 1024.0 * (dev->compute_units > 0 ? dev->compute_units : 1))
        return ratio;
    /* 32 teams a group of the blocked dot (chunks of 2048 pairs): H200, DS1, WC 1.322 -> 1.289 ms f32, 2.880 -> 2.857
     * f64 against 16 (8: 1.667 / 3.087); session 22 call 3 */
    life_config c = {.wc_team = 8, .wc_runs = 32, .unroll = 8, .wc_block = precision == CLPK_PRECISION_F64 ? 16 : 32};
    while (c.wc_block >= 8 &&
           life_wc_dot_local_bytes(&c, data->n_theta, clpk_precision_size(precision)) > dev->local_mem_bytes)
        c.wc_block /= 2;
    if (c.wc_block >= 8) {
        core_params_set_int(defaults, "wc_block", c.wc_block);
        core_params_set_int(defaults, "wc_runs", c.wc_runs);
    }
    /* 16 voxel runs a DSC group (512 work-items), on the same large problems: H200, DS1, the DSC's loop 0.94 -> 0.88
     * ms f32, 1.79 -> 1.61 ms f64 against 4 (8: 0.89 / 1.66, 32: 0.91 / 1.74); at synth medium (7 pairs a voxel, 360
     * atoms) 16 lost 5 % / 21 % (docs/perf-life.md, "The pair sum's fibre order, and 16 voxels a DSC group") */
    core_params_set(defaults, "runs", "16");
    /* f32: the DSC's loop with 4 pairs in flight, the WC's rounds keeping 8: H200, DS1, DSC 1.141 -> 1.073 ms (unroll
     * 4 for both: WC 1.322 -> 1.414); f64 lost at 4 (DSC 1.977 -> 2.070) */
    if (precision == CLPK_PRECISION_F32) core_params_set(defaults, "dsc_unroll", "4");
    return ratio;
}

int life_default_theta_parts(const clpk_device_info *dev, clpk_precision precision, uint64_t dict_bytes) {
    /* No split by default, anywhere. The split was meant for f64 dictionaries larger than the L2 (DS1: 99 MB against
     * the H100's 50 MB), but measured there it only costs: f64 DSC 5.29 / 5.52 / 6.86 / 9.17 ms and WC 6.55 / 8.03 /
     * 10.47 / 13.90 ms for 1 / 2 / 3 / 4 parts (docs/perf-life.md, section 3), so the f64 products are not held back
     * by D's capacity misses. The option stays for devices where they are; the arguments say what it would weigh. */
    (void)dev;
    (void)precision;
    (void)dict_bytes;
    return 1;
}

void life_theta_split(int32_t n_theta, int requested, size_t value_size, int *parts, int *part_len) {
    if (requested < 1) requested = 1;
    if (requested > n_theta) requested = n_theta; /* clamped: every part holds at least one direction */
    if (requested == 1) {                         /* no split: one part of every direction */
        *parts = 1;
        *part_len = n_theta;
        return;
    }
    const int base = (n_theta + requested - 1) / requested;
    int len = base;
    /* the largest alignment (128 B down to one value) that still gives `requested` non-empty parts */
    for (int align = (int)(128 / value_size); align > 1; align /= 2) {
        const int l = (base + align - 1) / align * align;
        if ((n_theta + l - 1) / l == requested) {
            len = l;
            break;
        }
    }
    *part_len = len;
    *parts = (n_theta + len - 1) / len; /* may be below `requested` when n_theta does not split evenly, e.g. 5 / 4 */
}

/* Reads the resolved parameters into the plan's fields, refusing what the device cannot run. */
static clpk_status life_apply_params(clpk_life_plan *plan) {
    clpk_context *ctx = plan->ctx;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    clpk_error err;
    if (core_param_read(&life_param_table, &plan->params, &plan->config, &err) != CLPK_SUCCESS)
        return core_fail_from(ctx, &err);
    const life_config *c = &plan->config;
    plan->dsc_kind = (life_dsc_kind)c->dsc;
    plan->wc_kind = (life_wc_kind)c->wc;
    plan->voxel_order = (life_voxel_order)c->voxel_order;
    plan->fiber_order = (life_fiber_order)c->fiber_order;
    /* Half storage serves the bandwidth of f32 products; under f64 it would throw away the precision asked for. */
    if (c->dict == LIFE_DICT_HALF && plan->precision != CLPK_PRECISION_F32)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "LiFE: dict=half (D stored as half values, sums in float) is for f32 plans; %s plans take "
                         "dict=full",
                         clpk_precision_name(plan->precision));
    plan->dict_size = c->dict == LIFE_DICT_HALF ? sizeof(uint16_t) : plan->value_size;
    life_theta_split(plan->n_theta, c->theta_parts, plan->value_size, &plan->theta_parts, &plan->part_len);
    const long long max_wg = dev->max_work_group_size < 1024 ? (long long)dev->max_work_group_size : 1024;
    if ((long long)c->team * c->runs > max_wg || (long long)c->wc_team * c->wc_runs > max_wg || c->wg > max_wg)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "LiFE: work-group sizes team*runs=%d, wc_team*wc_runs=%d, wg=%d must be in 1..%lld",
                         c->team * c->runs, c->wc_team * c->wc_runs, c->wg, max_wg);
    if ((uint64_t)c->wc_team * (uint64_t)c->wc_runs * plan->value_size > dev->local_mem_bytes)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "LiFE: wc_team*wc_runs needs more local memory than %llu bytes",
                         (unsigned long long)dev->local_mem_bytes);
    /* Private accumulators per lane: bounded so they stay in registers. */
    if ((plan->n_theta + c->team - 1) / c->team > 64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "LiFE: n_theta %d / team %d needs over 64 registers per lane",
                         plan->n_theta, c->team);
    if ((uint64_t)plan->ld_dict * plan->value_size > dev->local_mem_bytes / 2)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "LiFE: n_theta %d too large for local memory", plan->n_theta);
    /* the staged kernels keep a chunk's offsets and weights per work-item in local memory (int offsets, one value; WC
     * two offsets and phi next to its reduction's value) */
    const uint64_t local_mem = dev->local_mem_bytes;
    if (plan->dsc_kind == LIFE_DSC_STAGED &&
        (uint64_t)c->team * (uint64_t)c->runs * (sizeof(cl_int) + plan->value_size) > local_mem)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "LiFE: dsc=staged with team*runs=%d needs more local memory than %llu bytes",
                         c->team * c->runs, (unsigned long long)local_mem);
    if (plan->wc_kind == LIFE_WC_STAGED &&
        (uint64_t)c->wc_team * (uint64_t)c->wc_runs * (2 * sizeof(cl_int) + 2 * plan->value_size) > local_mem)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "LiFE: wc=staged with wc_team*wc_runs=%d needs more local memory than %llu bytes",
                         c->wc_team * c->wc_runs, (unsigned long long)local_mem);
    /* wc=pairs's dot products: a round's partial sums of all its teams' UNROLL pairs, and a block's y rows */
    if (plan->wc_kind == LIFE_WC_PAIRS && life_wc_dot_local_bytes(c, plan->n_theta, plan->value_size) > local_mem)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "LiFE: wc=pairs with wc_team=%d, wc_runs=%d, unroll=%d, wc_block=%d needs more local memory "
                         "than %llu bytes",
                         c->wc_team, c->wc_runs, c->unroll, c->wc_block, (unsigned long long)local_mem);
    const int needs_atomics =
        plan->dsc_kind == LIFE_DSC_ATOMICS ||
        (!life_wc_fibre_sorted(plan->wc_kind) && plan->wc_kind != LIFE_WC_PAIRS);
    if (needs_atomics && plan->precision == CLPK_PRECISION_F64 && !dev->has_int64_atomics)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "LiFE: f64 with atomics (dsc=%s, wc=%s) needs 64-bit global atomics, which %s lacks; use "
                         "dsc=voxel,wc=fiber or dsc=pairs,wc=pairs",
                         life_dsc_name(plan->dsc_kind), life_wc_name(plan->wc_kind), dev->name);
    return CLPK_SUCCESS;
}

static clpk_status life_upload(clpk_life_plan *plan, const void *host, size_t bytes, cl_mem *buf) {
    const clpk_device_info *dev = clpk_context_device_info(plan->ctx);
    if (dev->max_alloc_bytes > 0 && (uint64_t)bytes > dev->max_alloc_bytes)
        return core_fail(plan->ctx, CLPK_ERROR_UNSUPPORTED,
                         "LiFE: a buffer of %zu bytes exceeds the largest allocation of %s (%llu bytes)", bytes,
                         dev->name, (unsigned long long)dev->max_alloc_bytes);
    cl_int rc = CL_SUCCESS;
    *buf = clCreateBuffer(clpk_context_cl_context(plan->ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          bytes > 0 ? bytes : 1, (void *)host, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(plan->ctx, rc, "clCreateBuffer (LiFE data)");
    return CLPK_SUCCESS;
}

typedef struct {
    const double *src;
    float *dst;
} to_float;

static void life_to_float(void *arg, int64_t begin, int64_t end) {
    const to_float *c = arg;
    for (int64_t i = begin; i < end; ++i)
        c->dst[i] = (float)c->src[i];
}

/* Uploads an array of doubles converted to the plan's precision (f64: straight from src). */
static clpk_status life_upload_values(clpk_life_plan *plan, const double *src, size_t n, cl_mem *buf) {
    if (plan->precision != CLPK_PRECISION_F32 && n > 0) return life_upload(plan, src, n * sizeof(double), buf);
    float *tmp = malloc((n > 0 ? n : 1) * sizeof *tmp);
    if (!tmp) return core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no host memory for %zu values", n);
    to_float c = {src, tmp};
    core_parallel_for((int64_t)n, 1 << 18, life_to_float, &c);
    clpk_status st = life_upload(plan, tmp, n * sizeof *tmp, buf);
    free(tmp);
    return st;
}

/* dict=half: D's values rounded to the nearest half, once; a value beyond the half range is refused (it would become
 * infinite), values below 2^-24 become 0. */
static clpk_status life_upload_dictionary_half(clpk_life_plan *plan, const double *padded, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!(fabs(padded[i]) <= LIFE_HALF_MAX))
            return core_fail(plan->ctx, CLPK_ERROR_INVALID_DATA,
                             "LiFE: dict=half: dictionary value %g (atom %zu, direction %zu) is beyond the half range "
                             "(+-%g); use dict=full",
                             padded[i], i / (size_t)plan->ld_dict, i % (size_t)plan->ld_dict, LIFE_HALF_MAX);
    uint16_t *bits = malloc((n > 0 ? n : 1) * sizeof *bits);
    if (!bits) return core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no host memory for the dictionary");
    for (size_t i = 0; i < n; ++i)
        bits[i] = life_half_from_double(padded[i]);
    clpk_status st = life_upload(plan, bits, n * sizeof *bits, &plan->dict);
    free(bits);
    return st;
}

/* Dictionary rows zero-padded to a multiple of 32 so each row starts aligned for coalesced lanes; stored in the plan's
 * precision, or as half values (dict=half). */
static clpk_status life_upload_dictionary(clpk_life_plan *plan, const clpk_life_dataset *data) {
    const size_t nd = (size_t)plan->n_atoms * (size_t)plan->ld_dict;
    double *padded = calloc(nd, sizeof *padded);
    if (!padded) return core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no host memory for the dictionary");
    for (int32_t a = 0; a < plan->n_atoms; ++a)
        memcpy(padded + (size_t)a * plan->ld_dict, data->dictionary + (size_t)a * plan->n_theta,
               (size_t)plan->n_theta * sizeof *padded);
    clpk_status st = plan->config.dict == LIFE_DICT_HALF ? life_upload_dictionary_half(plan, padded, nd)
                                                         : life_upload_values(plan, padded, nd, &plan->dict);
    free(padded);
    return st;
}

static clpk_status life_upload_sorted(clpk_life_plan *plan, const clpk_life_dataset *data, life_order order,
                                      const int32_t *rank, cl_mem *ptr, cl_mem *atom_off, cl_mem *voxel_off,
                                      cl_mem *fiber, cl_mem *phi, cl_mem *run_key) {
    life_sorted s;
    clpk_error err;
    if (life_sort_build(data, order, plan->ld_dict, rank, &s, &err) != CLPK_SUCCESS)
        return core_fail_from(plan->ctx, &err);
    const size_t nc = (size_t)s.n_coeffs;
    clpk_status st = CLPK_SUCCESS;
    if (ptr) st = life_upload(plan, s.run_ptr, ((size_t)s.n_keys + 1) * sizeof *s.run_ptr, ptr);
    if (st == CLPK_SUCCESS && run_key && s.run_key)
        st = life_upload(plan, s.run_key, (size_t)s.n_keys * sizeof *s.run_key, run_key);
    if (st == CLPK_SUCCESS && atom_off) st = life_upload(plan, s.atom_off, nc * sizeof(int32_t), atom_off);
    if (st == CLPK_SUCCESS && voxel_off) st = life_upload(plan, s.voxel_off, nc * sizeof(int32_t), voxel_off);
    if (st == CLPK_SUCCESS && fiber) st = life_upload(plan, s.fiber, nc * sizeof(int32_t), fiber);
    if (st == CLPK_SUCCESS && phi) st = life_upload_values(plan, s.phi, nc, phi);
    life_sorted_free(&s);
    return st;
}

/* A value per pair, kept on the device between the two launches of dsc=pairs (weights) or wc=pairs (dot products). */
static clpk_status life_pair_buffer(clpk_life_plan *plan, size_t n_pairs, cl_mem *buf) {
    const size_t bytes = (n_pairs > 0 ? n_pairs : 1) * plan->value_size;
    const clpk_device_info *dev = clpk_context_device_info(plan->ctx);
    if (dev->max_alloc_bytes > 0 && (uint64_t)bytes > dev->max_alloc_bytes)
        return core_fail(plan->ctx, CLPK_ERROR_UNSUPPORTED,
                         "LiFE: the pair buffer of %zu bytes exceeds the largest allocation of %s", bytes, dev->name);
    cl_int rc = CL_SUCCESS;
    *buf = clCreateBuffer(clpk_context_cl_context(plan->ctx), CL_MEM_READ_WRITE, bytes, NULL, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(plan->ctx, rc, "clCreateBuffer (LiFE per-pair values)");
    return CLPK_SUCCESS;
}

/* The pair-merged copy (life_pairs): the voxel side for dsc=pairs, the pairs' voxels, the fibre side and the per-pair
 * dot products for wc=pairs; the pairs' atoms for both. The voxel keys are the voxel-sorted copy's when it has them
 * (the same rank gives the same keys). */
static clpk_status life_upload_pairs(clpk_life_plan *plan, const clpk_life_dataset *data, const int32_t *voxel_rank,
                                     const int32_t *fiber_rank) {
    life_pairs pr;
    clpk_error err;
    const double t0 = core_wall_seconds();
    if (life_pairs_build(data, plan->ld_dict, voxel_rank, fiber_rank, &pr, &err) != CLPK_SUCCESS)
        return core_fail_from(plan->ctx, &err);
    const double t1 = core_wall_seconds();
    const size_t nc = (size_t)pr.n_coeffs, np = (size_t)pr.n_pairs, runs = (size_t)pr.n_voxels + 1;
    const int dsc = plan->dsc_kind == LIFE_DSC_PAIRS, wc = plan->wc_kind == LIFE_WC_PAIRS;
    const int blocked = wc && plan->config.wc_block > 0;
    /* chunks of 8 rounds: a group stages its block's y rows once for about 8 x 128 pairs (wc_team 8, wc_runs 16) */
    const int32_t chunk_len = 8 * plan->config.wc_runs * plan->config.unroll;
    if (blocked && life_pairs_block_order(&pr, plan->config.wc_block, chunk_len, plan->n_atoms, plan->ld_dict,
                                          &err) != CLPK_SUCCESS) {
        life_pairs_free(&pr);
        return core_fail_from(plan->ctx, &err);
    }
    plan->n_chunks = pr.n_chunks;
    plan->n_pairs = pr.n_pairs;
    const double t2 = core_wall_seconds();
    /* the voxel order's atoms and voxels: dsc=pairs's, and the unblocked dot's (blocked: only for dsc=pairs's stamped
     * weight pass) */
    const int voxel_pairs = dsc || (wc && !blocked);
    clpk_status st = CLPK_SUCCESS;
    if (voxel_pairs) st = life_upload(plan, pr.pair_atom_off, np * sizeof(int32_t), &plan->pr_atom_off);
    if (st == CLPK_SUCCESS && dsc) st = life_upload(plan, pr.run_pair, runs * sizeof(int64_t), &plan->pr_run_pair);
    if (st == CLPK_SUCCESS && dsc) st = life_upload(plan, pr.pair_coeff, (np + 1) * sizeof(int64_t), &plan->pr_coeff);
    if (st == CLPK_SUCCESS && dsc) st = life_upload(plan, pr.fiber, nc * sizeof(int32_t), &plan->pr_fiber);
    if (st == CLPK_SUCCESS && dsc) st = life_upload_values(plan, pr.phi, nc, &plan->pr_phi);
    if (st == CLPK_SUCCESS && (dsc || blocked) && pr.run_key && !plan->dsc_key)
        st = life_upload(plan, pr.run_key, (size_t)pr.n_voxels * sizeof(int32_t), &plan->dsc_key);
    if (st == CLPK_SUCCESS && wc && voxel_pairs)
        st = life_upload(plan, pr.pair_voxel_off, np * sizeof(int32_t), &plan->pr_voxel_off);
    if (st == CLPK_SUCCESS && wc)
        st = life_upload(plan, pr.fiber_ptr, ((size_t)pr.n_fibers + 1) * sizeof(int64_t), &plan->pr_fiber_ptr);
    if (st == CLPK_SUCCESS && wc) st = life_upload(plan, pr.fiber_pair, nc * sizeof(int32_t), &plan->pr_fiber_pair);
    if (st == CLPK_SUCCESS && wc) st = life_upload_values(plan, pr.fiber_phi, nc, &plan->pr_fiber_phi);
    if (st == CLPK_SUCCESS && wc && pr.fiber_key)
        st = life_upload(plan, pr.fiber_key, (size_t)pr.n_fibers * sizeof(int32_t), &plan->wc_key);
    const size_t n_chunks = (size_t)pr.n_chunks;
    if (st == CLPK_SUCCESS && blocked)
        st = life_upload(plan, pr.chunk_pair, (n_chunks + 1) * sizeof(int64_t), &plan->pr_chunk_pair);
    if (st == CLPK_SUCCESS && blocked)
        st = life_upload(plan, pr.chunk_block, (n_chunks > 0 ? n_chunks : 1) * sizeof(int32_t), &plan->pr_chunk_block);
    if (st == CLPK_SUCCESS && blocked)
        st = life_upload(plan, pr.block_atom_off, np * sizeof(int32_t), &plan->pr_block_atom_off);
    if (st == CLPK_SUCCESS && blocked) st = life_upload(plan, pr.block_vloc, np, &plan->pr_block_vloc);
    if (st == CLPK_SUCCESS && blocked)
        st = life_upload(plan, pr.block_voxel_off, np * sizeof(int32_t), &plan->pr_block_voxel_off);
    life_pairs_free(&pr);
    core_log(plan->ctx, CLPK_LOG_DEBUG, "life: pair copy built in %.2f s, block order %.2f s, uploaded in %.2f s",
             t1 - t0, t2 - t1, core_wall_seconds() - t2);
    if (st == CLPK_SUCCESS && dsc) st = life_pair_buffer(plan, np, &plan->pr_weight);
    if (st == CLPK_SUCCESS && wc) st = life_pair_buffer(plan, np, &plan->pr_dot);
    return st;
}

/* The coefficients in the dataset's own order with premultiplied offsets (atomics kernels). */
static clpk_status life_upload_original(clpk_life_plan *plan, const clpk_life_dataset *data) {
    const size_t nc = (size_t)data->n_coeffs, cells = nc > 0 ? nc : 1;
    int32_t *ao = malloc(cells * sizeof *ao), *vo = malloc(cells * sizeof *vo);
    clpk_status st = CLPK_SUCCESS;
    if (!ao || !vo) st = core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no host memory for offsets");
    for (size_t k = 0; st == CLPK_SUCCESS && k < nc; ++k) {
        ao[k] = data->atoms[k] * plan->ld_dict;
        vo[k] = data->voxels[k] * plan->n_theta;
    }
    if (st == CLPK_SUCCESS) st = life_upload(plan, ao, nc * sizeof *ao, &plan->c_atom_off);
    if (st == CLPK_SUCCESS) st = life_upload(plan, vo, nc * sizeof *vo, &plan->c_voxel_off);
    if (st == CLPK_SUCCESS) st = life_upload(plan, data->fibers, nc * sizeof(int32_t), &plan->c_fiber);
    if (st == CLPK_SUCCESS) st = life_upload_values(plan, data->phi, nc, &plan->c_phi);
    free(ao);
    free(vo);
    return st;
}

/* The program and kernels, requested before anything large is sorted or uploaded (the tuner's compile-ahead notes a
 * candidate's program by creating its plan and stopping at this request). `voxel_keyed` / `fiber_keyed`: the runs go
 * in a rank order, so the kernels read each run's key. */
static clpk_status life_build_kernels(clpk_life_plan *plan, int voxel_keyed, int fiber_keyed) {
    const clpk_device_info *dev = clpk_context_device_info(plan->ctx);
    const int f64 = plan->precision == CLPK_PRECISION_F64;
    char options[512], split[160] = "";
    /* theta_parts 1, index orders and dict=full add no option: the same program (and cache entry) as before they
     * existed */
    if (plan->theta_parts > 1)
        snprintf(split, sizeof split, " -DTHETA_PARTS=%d -DPART_LEN=%d", plan->theta_parts, plan->part_len);
    if (voxel_keyed) strncat(split, " -DVOXEL_KEYED", sizeof split - strlen(split) - 1);
    if (fiber_keyed) strncat(split, " -DFIBER_KEYED", sizeof split - strlen(split) - 1);
    if (plan->config.dict == LIFE_DICT_HALF) strncat(split, " -DDICT_HALF", sizeof split - strlen(split) - 1);
    if (plan->wc_kind == LIFE_WC_PAIRS && plan->config.wc_block > 0)
        snprintf(split + strlen(split), sizeof split - strlen(split), " -DWC_BLOCK=%d", plan->config.wc_block);
    snprintf(options, sizeof options, "-DVALUE_T=%s%s%s -DNTHETA=%d -DLDD=%d", f64 ? "double" : "float",
             f64 ? " -DVALUE_IS_DOUBLE" : "", f64 && dev->has_int64_atomics ? " -DHAVE_ATOM64" : "", plan->n_theta,
             plan->ld_dict);
    core_param_defines(&life_param_table, &plan->config, options, sizeof options); /* TEAM, UNROLL, WC_TEAM */
    strncat(options, split, sizeof options - strlen(options) - 1);
    const char *sources[] = {"life_spmv"};
    CLPK_TRY(core_program_get(plan->ctx, sources, 1, options, &plan->program));
    static const char *const dsc_kernels[] = {"life_dsc_atomics", "life_dsc_voxel", "life_dsc_pairs",
                                              "life_dsc_staged", "life_dsc_voxel4"};
    static const char *const wc_kernels[] = {"life_wc_atomics", "life_wc_atom",     "life_wc_fiber", "life_wc_voxel",
                                             "life_wc_pair_dot", "life_wc_staged", "life_wc_fiber4"};
    const int blocked = plan->wc_kind == LIFE_WC_PAIRS && plan->config.wc_block > 0;
    CLPK_TRY(core_kernel_create(plan->ctx, plan->program, dsc_kernels[plan->dsc_kind], &plan->k_dsc));
    CLPK_TRY(core_kernel_create(plan->ctx, plan->program, blocked ? "life_wc_block_dot" : wc_kernels[plan->wc_kind],
                                &plan->k_wc));
    if (plan->wc_kind == LIFE_WC_PAIRS)
        CLPK_TRY(core_kernel_create(plan->ctx, plan->program, "life_wc_pair_sum", &plan->k_wc_sum));
    if (plan->dsc_kind == LIFE_DSC_PAIRS)
        CLPK_TRY(core_kernel_create(plan->ctx, plan->program, "life_pair_weights", &plan->k_dsc_weights));
    CLPK_TRY(core_kernel_create(plan->ctx, plan->program, "life_zero", &plan->k_zero));
    return CLPK_SUCCESS;
}

/* Defaults finer than the table's per device kind (life_default_params: precision, non-GPU devices; theta_parts from
 * the dictionary's size; for the automatic strategy on GPUs, the pair kernels where the coefficients merge into few
 * enough pairs) replace the values that are still the table's defaults. */
static void life_finer_defaults(clpk_life_plan *plan, const clpk_life_dataset *data, int is_auto, core_resolved *r) {
    const clpk_device_info *dev = clpk_context_device_info(plan->ctx);
    core_params defaults;
    life_default_params(dev, plan->precision, &defaults);
    const int kernels_free = is_auto && core_resolved_source(r, "dsc") == CORE_SOURCE_DEFAULT &&
                             core_resolved_source(r, "wc") == CORE_SOURCE_DEFAULT;
    if (kernels_free) {
        const double ratio = life_default_pairs(dev, plan->precision, data, &defaults);
        if (ratio > 0)
            core_log(plan->ctx, CLPK_LOG_DEBUG,
                     "life: %.3g coefficients per (voxel, atom) pair (sampled), %lld coefficients: the pair kernels "
                     "%s on GPUs",
                     ratio, (long long)data->n_coeffs, life_pairs_pay(data->n_coeffs, ratio) ? "pay" : "do not pay");
    }
    core_params_set_int(
        &defaults, "theta_parts",
        life_default_theta_parts(dev, plan->precision, (uint64_t)plan->n_atoms * plan->ld_dict * plan->value_size));
    char changed[256] = "";
    size_t at = 0;
    for (int i = 0; i < defaults.count; ++i) {
        const core_param *d = &defaults.items[i];
        const char *now = core_params_get(&r->params, d->key);
        if (core_resolved_source(r, d->key) != CORE_SOURCE_DEFAULT || (now && strcmp(now, d->value) == 0)) continue;
        core_params_set(&r->params, d->key, d->value);
        if (at < sizeof changed)
            at += (size_t)snprintf(changed + at, sizeof changed - at, "%s%s=%s", at ? ", " : "", d->key, d->value);
    }
    if (changed[0])
        core_log(plan->ctx, CLPK_LOG_DEBUG, "life: defaults for %s %s: %s",
                 dev->kind == CLPK_DEVICE_GPU ? "GPU" : "non-GPU", clpk_precision_name(plan->precision), changed);
}

/* Parameters: defaults -> profile entry (strategy auto) -> strategy (atomics, sorted) -> caller (core_resolve, the
 * strategy's kernels only where the caller named none). */
static clpk_status life_plan_setup(clpk_life_plan *plan, const clpk_life_dataset *data, const char *strategy,
                                   const char *params) {
    clpk_context *ctx = plan->ctx;
    clpk_error err;
    const int is_auto = !strategy || !*strategy || strcmp(strategy, "auto") == 0;
    if (!is_auto && strcmp(strategy, "atomics") != 0 && strcmp(strategy, "sorted") != 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: unknown strategy '%s' (auto, atomics, sorted, timed)",
                         strategy);
    double t[6];
    t[0] = core_wall_seconds();
    core_params features;
    core_params_clear(&features);
    if (is_auto) {
        double voxel_run = 0, fiber_run = 0, longest = 0;
        life_run_stats(data, LIFE_ORDER_VOXEL, &voxel_run, &longest);
        life_run_stats(data, LIFE_ORDER_FIBER, &fiber_run, &longest);
        core_params_set(&features, "precision", clpk_precision_name(plan->precision));
        core_params_set_int(&features, "n_theta", plan->n_theta);
        core_params_set_num(&features, "voxel_run", voxel_run > 1 ? voxel_run : 1);
        core_params_set_num(&features, "fiber_run", fiber_run > 1 ? fiber_run : 1);
        /* the scale, so that a profile entry's validity range can say which sizes it was checked on */
        core_params_set_int(&features, "n_coeffs", data->n_coeffs);
    }
    const core_resolve_request request = {&life_param_table, is_auto ? &features : NULL, params, NULL, NULL};
    core_resolved r;
    CLPK_TRY(core_resolve(ctx, &request, &r));
    life_finer_defaults(plan, data, is_auto, &r);
    if (!is_auto) {
        const int atomics = strcmp(strategy, "atomics") == 0;
        snprintf(plan->origin, sizeof plan->origin, "strategy %s", strategy);
        if (core_resolved_source(&r, "dsc") != CORE_SOURCE_CALLER)
            core_params_set(&r.params, "dsc", atomics ? "atomics" : "voxel");
        if (atomics && core_resolved_source(&r, "wc") != CORE_SOURCE_CALLER)
            core_params_set(&r.params, "wc", "atomics");
    } else if (r.choice.found) {
        snprintf(plan->origin, sizeof plan->origin, "profile %s (%s, class distance %.2f)", r.choice.path,
                 clpk_profile_level_string(r.choice.level), r.choice.distance);
    } else {
        snprintf(plan->origin, sizeof plan->origin, "built-in defaults");
    }
    if (params && *params) {
        size_t len = strlen(plan->origin);
        snprintf(plan->origin + len, sizeof plan->origin - len, " + caller's parameters");
    }
    /* dict=half from a profile entry or a model serves f32 plans only: f64 keeps full storage (the caller's own
     * dict=half is refused by life_apply_params) */
    const char *dict = core_params_get(&r.params, "dict");
    if (plan->precision != CLPK_PRECISION_F32 && dict && strcmp(dict, "half") == 0 &&
        core_resolved_source(&r, "dict") != CORE_SOURCE_CALLER) {
        core_params_set(&r.params, "dict", "full");
        core_log(ctx, CLPK_LOG_INFO, "LiFE: dict=half (from %s) is for f32 plans: %s keeps dict=full",
                 core_param_source_name(core_resolved_source(&r, "dict")), clpk_precision_name(plan->precision));
    }
    plan->params = r.params;
    CLPK_TRY(life_apply_params(plan));

    t[1] = core_wall_seconds();
    /* Processing orders: the ranks are built once here, O(Nv log Nv + Nc), next to the O(Nc) sorts. */
    const int pairs = plan->dsc_kind == LIFE_DSC_PAIRS || plan->wc_kind == LIFE_WC_PAIRS;
    /* the voxel-sorted copy (dsc=voxel(4), dsc=staged, wc=voxel) and the fibre-sorted one (wc=fiber, wc=staged) */
    const int voxel_sorted = plan->dsc_kind == LIFE_DSC_VOXEL || plan->dsc_kind == LIFE_DSC_VOXEL4 ||
                             plan->dsc_kind == LIFE_DSC_STAGED || plan->wc_kind == LIFE_WC_VOXEL;
    const int fiber_sorted = life_wc_fibre_sorted(plan->wc_kind);
    const int voxel_runs = voxel_sorted || pairs;
    const int morton = plan->voxel_order == LIFE_VOXEL_ORDER_MORTON; /* also the fibre order's voxel positions */
    if (!voxel_runs) plan->voxel_order = LIFE_VOXEL_ORDER_INDEX;     /* no voxel-sorted kernel: nothing to order */
    /* wc=pairs: the fibre order is its second launch's (the fibre sums and the fit's clipped-fibre marks) */
    const int fiber_runs = fiber_sorted || plan->wc_kind == LIFE_WC_PAIRS;
    if (!fiber_runs) plan->fiber_order = LIFE_FIBER_ORDER_INDEX;
    int32_t *voxel_rank = NULL, *fiber_rank = NULL;
    if (morton && (voxel_runs || plan->fiber_order == LIFE_FIBER_ORDER_VOXEL)) {
        if (life_voxel_rank_morton(data, &voxel_rank, plan->order_note, sizeof plan->order_note, &err) != CLPK_SUCCESS)
            return core_fail_from(ctx, &err);
        if (!voxel_rank) {
            plan->voxel_order = LIFE_VOXEL_ORDER_INDEX;
            core_log(ctx, CLPK_LOG_INFO, "LiFE: voxel_order=morton: %s", plan->order_note);
        }
    }
    if (plan->fiber_order == LIFE_FIBER_ORDER_VOXEL &&
        life_fiber_rank_by_voxel(data, voxel_rank, &fiber_rank, &err) != CLPK_SUCCESS) {
        free(voxel_rank);
        return core_fail_from(ctx, &err);
    }
    /* the keys the uploads below give (life_upload_sorted, life_upload_pairs): voxel keys with a Morton rank for the
     * voxel-sorted copy or dsc=pairs, fibre keys with a fibre rank */
    const int wc_blocked = plan->wc_kind == LIFE_WC_PAIRS && plan->config.wc_block > 0;
    const int voxel_keyed = voxel_rank && plan->voxel_order == LIFE_VOXEL_ORDER_MORTON &&
                            (voxel_sorted || plan->dsc_kind == LIFE_DSC_PAIRS || wc_blocked);
    const int fiber_keyed = fiber_rank && fiber_runs;
    t[2] = core_wall_seconds();
    clpk_status st = life_build_kernels(plan, voxel_keyed, fiber_keyed);
    t[3] = core_wall_seconds();
    if (st == CLPK_SUCCESS) st = life_upload_dictionary(plan, data);
    if (st == CLPK_SUCCESS && data->signal)
        st = life_upload_values(plan, data->signal, (size_t)plan->n_voxels * plan->n_theta, &plan->signal);
    t[4] = core_wall_seconds();
    if (st == CLPK_SUCCESS && (plan->dsc_kind == LIFE_DSC_ATOMICS || plan->wc_kind == LIFE_WC_ATOMICS))
        st = life_upload_original(plan, data);
    if (st == CLPK_SUCCESS && voxel_sorted)
        st = life_upload_sorted(plan, data, LIFE_ORDER_VOXEL,
                                plan->voxel_order == LIFE_VOXEL_ORDER_MORTON ? voxel_rank : NULL, &plan->dsc_ptr,
                                &plan->dsc_atom_off, NULL, &plan->dsc_fiber, &plan->dsc_phi, &plan->dsc_key);
    if (st == CLPK_SUCCESS && plan->wc_kind == LIFE_WC_ATOM)
        st = life_upload_sorted(plan, data, LIFE_ORDER_ATOM, NULL, NULL, &plan->wc_atom_off, &plan->wc_voxel_off,
                                &plan->wc_fiber, &plan->wc_phi, NULL);
    if (st == CLPK_SUCCESS && fiber_sorted)
        st = life_upload_sorted(plan, data, LIFE_ORDER_FIBER, fiber_rank, &plan->wc_ptr, &plan->wc_atom_off,
                                &plan->wc_voxel_off, NULL, &plan->wc_phi, &plan->wc_key);
    if (st == CLPK_SUCCESS && pairs)
        st = life_upload_pairs(plan, data, plan->voxel_order == LIFE_VOXEL_ORDER_MORTON ? voxel_rank : NULL,
                               plan->wc_kind == LIFE_WC_PAIRS ? fiber_rank : NULL);
    free(voxel_rank);
    free(fiber_rank);
    t[5] = core_wall_seconds();
    core_log(ctx, CLPK_LOG_DEBUG,
             "life: plan set up in %.2f s: parameters %.2f, orders %.2f, programs %.2f, dictionary and signal %.2f, "
             "coefficient copies %.2f",
             t[5] - t[0], t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4]);
    return st;
}

clpk_status clpk_life_plan_create(clpk_context *ctx, const clpk_life_dataset *data, clpk_precision precision,
                                  const char *strategy, const char *params, clpk_life_plan **plan_out) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!plan_out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: plan pointer is NULL");
    *plan_out = NULL;
    clpk_error err;
    if (life_check_dataset(data, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    if (precision != CLPK_PRECISION_F32 && precision != CLPK_PRECISION_F64)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: unknown precision %d", (int)precision);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (precision == CLPK_PRECISION_F64 && !dev->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "LiFE: %s has no double precision", dev->name);
    if (strategy && strcmp(strategy, "timed") == 0)
        return life_plan_create_timed(ctx, data, precision, params, plan_out);
    clpk_life_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory for the plan");
    plan->ctx = ctx;
    plan->precision = precision;
    plan->value_size = clpk_precision_size(precision);
    plan->n_atoms = data->n_atoms;
    plan->n_voxels = data->n_voxels;
    plan->n_fibers = data->n_fibers;
    plan->n_theta = data->n_theta;
    plan->n_coeffs = data->n_coeffs;
    plan->ld_dict = (data->n_theta + 31) / 32 * 32;
    clpk_status st = life_plan_setup(plan, data, strategy, params);
    if (st != CLPK_SUCCESS) {
        clpk_life_plan_destroy(plan);
        return st;
    }
    *plan_out = plan;
    return CLPK_SUCCESS;
}

static void release_mem(cl_mem *m) {
    if (*m) clReleaseMemObject(*m);
    *m = NULL;
}

void clpk_life_plan_destroy(clpk_life_plan *plan) {
    if (!plan) return;
    cl_kernel kernels[] = {plan->k_dsc,  plan->k_wc,   plan->k_wc_sum, plan->k_dsc_weights,
                           plan->k_zero, plan->k_mask, plan->k_step, plan->k_step_clip, plan->k_residual, plan->k_mark,
                           plan->k_gradient};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
        if (kernels[i]) clReleaseKernel(kernels[i]);
    cl_mem *mems[] = {&plan->dict,         &plan->signal,        &plan->c_atom_off,   &plan->c_voxel_off,
                      &plan->c_fiber,      &plan->c_phi,         &plan->dsc_ptr,      &plan->dsc_atom_off,
                      &plan->dsc_fiber,    &plan->dsc_phi,       &plan->wc_ptr,       &plan->wc_atom_off,
                      &plan->wc_voxel_off, &plan->wc_fiber,      &plan->wc_phi,       &plan->dsc_key,
                      &plan->wc_key,       &plan->pr_run_pair,   &plan->pr_coeff,     &plan->pr_atom_off,
                      &plan->pr_weight,    &plan->pr_fiber,      &plan->pr_phi,       &plan->pr_voxel_off,
                      &plan->pr_fiber_ptr, &plan->pr_fiber_pair, &plan->pr_fiber_phi, &plan->pr_dot,
                      &plan->pr_chunk_pair, &plan->pr_chunk_block, &plan->pr_block_atom_off, &plan->pr_block_vloc,
                      &plan->pr_block_voxel_off};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
        release_mem(mems[i]);
    free(plan);
}

void clpk_life_plan_describe(const clpk_life_plan *plan, char *buf, size_t size) {
    if (!buf || size == 0) return;
    if (!plan) {
        snprintf(buf, size, "(no plan)");
        return;
    }
    char params[512];
    core_params_format(&plan->params, params, sizeof params);
    snprintf(buf, size,
             "LiFE %s: n_theta %d, atoms %d, voxels %d, fibers %d, coeffs %lld; dsc=%s wc=%s, runs in voxel order %s "
             "and fibre order %s%s%s (%s; %s)",
             clpk_precision_name(plan->precision), plan->n_theta, plan->n_atoms, plan->n_voxels, plan->n_fibers,
             (long long)plan->n_coeffs, life_dsc_name(plan->dsc_kind), life_wc_name(plan->wc_kind),
             voxel_order_names[plan->voxel_order], fiber_order_names[plan->fiber_order],
             plan->order_note[0] ? ": " : "", plan->order_note, params, plan->origin);
}

/* ---- Launches ------------------------------------------------------------------------------------------------ */

/* Global size for grid-stride kernels: enough groups to fill the device, never more than the work. */
static size_t life_grid(size_t work_items, size_t local) {
    size_t groups = (work_items + local - 1) / local;
    if (groups > 65536) groups = 65536;
    if (groups < 1) groups = 1;
    return groups * local;
}

/* Zero-fills `n` values of `buf` (before an atomics kernel) with a kernel; the event orders the next launch. */
static clpk_status life_zero(clpk_life_plan *plan, cl_mem buf, size_t n, cl_uint n_wait, const cl_event *wait,
                             cl_event *ev) {
    cl_long count = (cl_long)n;
    core_args a;
    core_args_begin(&a, plan->ctx, plan->k_zero, 0);
    CLPK_ARG(&a, count);
    CLPK_ARG(&a, buf);
    CLPK_TRY(core_args_end(&a));
    size_t local = 64, global = life_grid(n > 0 ? n : 1, local);
    CLPK_CL_TRY(plan->ctx, clEnqueueNDRangeKernel(clpk_context_queue(plan->ctx), plan->k_zero, 1, NULL, &global, &local,
                                                  n_wait, wait, ev));
    return CLPK_SUCCESS;
}

static clpk_status life_launch(clpk_life_plan *plan, cl_kernel k, size_t global, size_t local, cl_uint n_wait,
                               const cl_event *wait, cl_event *done) {
    CLPK_CL_TRY(plan->ctx,
                clEnqueueNDRangeKernel(clpk_context_queue(plan->ctx), k, 1, NULL, &global, &local, n_wait, wait, done));
    return CLPK_SUCCESS;
}

/* The run kernels (dsc=voxel, pairs, staged; wc=fiber, staged): one launch per theta part (argument `pass_arg` = the
 * part), in order, each waiting for the previous (WC passes > 0 add to w). *first (may be NULL) gets the first pass's
 * event, *done the last's. */
static clpk_status life_launch_passes(clpk_life_plan *plan, cl_kernel k, cl_uint pass_arg, size_t global, size_t local,
                                      cl_uint n_wait, const cl_event *wait, cl_event *first, cl_event *done) {
    cl_event prev = NULL;
    clpk_status st = CLPK_SUCCESS;
    for (cl_int pass = 0; pass < plan->theta_parts && st == CLPK_SUCCESS; ++pass) {
        const int last = pass == plan->theta_parts - 1;
        cl_event ev = NULL;
        core_args a;
        core_args_begin(&a, plan->ctx, k, pass_arg);
        CLPK_ARG(&a, pass);
        if ((st = core_args_end(&a)) != CLPK_SUCCESS) break;
        st = life_launch(plan, k, global, local, pass == 0 ? n_wait : 1, pass == 0 ? wait : &prev,
                         (last && !done && !(first && pass == 0)) ? NULL : &ev);
        if (st != CLPK_SUCCESS) break;
        if (pass == 0 && first) {
            *first = ev;
            if (!last) clRetainEvent(ev); /* a second reference only when it is not also *done */
        }
        if (prev) clReleaseEvent(prev);
        prev = ev;
    }
    if (st == CLPK_SUCCESS && done) {
        *done = prev;
        prev = NULL;
    }
    if (prev) clReleaseEvent(prev);
    return st;
}

static clpk_status life_check_buffers(clpk_life_plan *plan, cl_mem in, size_t in_n, cl_mem out, size_t out_n) {
    size_t a = 0, b = 0;
    if (!in || !out) return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: NULL buffer");
    CLPK_CL_TRY(plan->ctx, clGetMemObjectInfo(in, CL_MEM_SIZE, sizeof a, &a, NULL));
    CLPK_CL_TRY(plan->ctx, clGetMemObjectInfo(out, CL_MEM_SIZE, sizeof b, &b, NULL));
    if (a < in_n * plan->value_size || b < out_n * plan->value_size)
        return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "LiFE: buffers of %zu and %zu bytes are smaller than %zu and %zu %s values", a, b, in_n, out_n,
                         clpk_precision_name(plan->precision));
    return CLPK_SUCCESS;
}

/* The arguments the voxel-sorted kernels (DSC voxel and staged, WC voxel) start with: the voxel count, the voxel-sorted
 * coefficients, the dictionary, then the input and output vectors. */
static void args_voxel_sorted(core_args *a, clpk_life_plan *plan, cl_kernel k, cl_mem in, cl_mem out) {
    const cl_int nv = plan->n_voxels;
    core_args_begin(a, plan->ctx, k, 0);
    CLPK_ARG(a, nv);
    CLPK_ARG(a, plan->dsc_ptr);
    CLPK_ARG(a, plan->dsc_atom_off);
    CLPK_ARG(a, plan->dsc_fiber);
    CLPK_ARG(a, plan->dsc_phi);
    CLPK_ARG(a, plan->dict);
    CLPK_ARG(a, in);
    CLPK_ARG(a, out);
}

/* dsc=pairs, first launch: each pair's weight (sum of phi * w over its coefficients) into pr_weight. */
static clpk_status life_pair_weights_launch(clpk_life_plan *plan, cl_mem w, cl_mem stamp, cl_int it, cl_uint n_wait,
                                            const cl_event *wait, cl_event *done) {
    const cl_long np = plan->n_pairs;
    core_args a;
    core_args_begin(&a, plan->ctx, plan->k_dsc_weights, 0);
    CLPK_ARG(&a, np);
    CLPK_ARG(&a, plan->pr_coeff);
    CLPK_ARG(&a, plan->pr_fiber);
    CLPK_ARG(&a, plan->pr_phi);
    CLPK_ARG(&a, w);
    CLPK_ARG(&a, plan->pr_weight);
    CLPK_ARG(&a, plan->pr_voxel_off); /* read only with a stamp (then wc=pairs's pair voxels are there) */
    CLPK_ARG(&a, stamp);
    CLPK_ARG(&a, it);
    CLPK_TRY(core_args_end(&a));
    /* at most 128 work-items a group: H200, DS1, the pass took 0.28 / 0.31 / 0.33 ms at 128 / 512 / 1024 */
    size_t local = (size_t)plan->config.team * plan->config.runs;
    while (local > 128 && local % 2 == 0) local /= 2;
    return life_launch(plan, plan->k_dsc_weights, life_grid(np > 0 ? (size_t)np : 1, local), local, n_wait, wait,
                       done);
}

/* stamp (NULL for a full product): dsc=pairs only, the pass over the voxels stamped `it` (life_dsc_stamped). */
static clpk_status life_dsc_launch(clpk_life_plan *plan, cl_mem w, cl_mem y, cl_uint n_wait, const cl_event *wait,
                                   cl_event *first, cl_event *done, cl_mem stamp, cl_int it) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    const size_t ny = (size_t)plan->n_voxels * plan->n_theta;
    CLPK_TRY(life_check_buffers(plan, w, (size_t)plan->n_fibers, y, ny));
    cl_kernel k = plan->k_dsc;
    if (plan->dsc_kind == LIFE_DSC_ATOMICS) {
        cl_long nc = plan->n_coeffs;
        core_args a;
        core_args_begin(&a, plan->ctx, k, 0);
        CLPK_ARG(&a, nc);
        CLPK_ARG(&a, plan->c_atom_off);
        CLPK_ARG(&a, plan->c_voxel_off);
        CLPK_ARG(&a, plan->c_fiber);
        CLPK_ARG(&a, plan->c_phi);
        CLPK_ARG(&a, plan->dict);
        CLPK_ARG(&a, w);
        CLPK_ARG(&a, y);
        CLPK_TRY(core_args_end(&a));
        cl_event zeroed = NULL;
        CLPK_TRY(life_zero(plan, y, ny, n_wait, wait, &zeroed));
        size_t local = (size_t)plan->config.wg;
        clpk_status st = life_launch(plan, k, life_grid((size_t)nc * plan->n_theta, local), local, 1, &zeroed, done);
        clReleaseEvent(zeroed);
        return st;
    }
    const cl_int nv = plan->n_voxels;
    core_args a;
    cl_uint pass_arg = 8;
    cl_event weighed = NULL; /* dsc=pairs: the pair weights, which the passes wait for */
    if (plan->dsc_kind == LIFE_DSC_PAIRS) {
        CLPK_TRY(life_pair_weights_launch(plan, w, stamp, it, n_wait, wait, &weighed));
        n_wait = 1;
        wait = &weighed;
        core_args_begin(&a, plan->ctx, k, 0);
        CLPK_ARG(&a, nv);
        CLPK_ARG(&a, plan->pr_run_pair);
        CLPK_ARG(&a, plan->pr_atom_off);
        CLPK_ARG(&a, plan->pr_weight);
        CLPK_ARG(&a, plan->dict);
        CLPK_ARG(&a, y);
        pass_arg = 6;
    } else {
        args_voxel_sorted(&a, plan, k, w, y);
    }
    core_args_jump(&a, k, pass_arg + 1); /* pass_arg: the theta part, set per pass */
    CLPK_ARG(&a, plan->dsc_key);         /* NULL in index order (the kernel is then built without VOXEL_KEYED) */
    if (plan->dsc_kind == LIFE_DSC_PAIRS) {
        CLPK_ARG(&a, stamp);
        CLPK_ARG(&a, it);
    }
    size_t local = (size_t)plan->config.team * plan->config.runs;
    if (plan->dsc_kind == LIFE_DSC_STAGED) { /* a chunk's atom offsets and phi * w */
        core_args_local(&a, local * sizeof(cl_int));
        core_args_local(&a, local * plan->value_size);
    }
    clpk_status st = core_args_end(&a);
    size_t groups = ((size_t)nv + plan->config.runs - 1) / plan->config.runs;
    if (st == CLPK_SUCCESS)
        st = life_launch_passes(plan, k, pass_arg, groups * local, local, n_wait, wait, weighed ? NULL : first, done);
    if (weighed && st == CLPK_SUCCESS && first)
        *first = weighed;
    else if (weighed)
        clReleaseEvent(weighed);
    return st;
}

/* wc=pairs: the per-pair dot products into pr_dot, then the per-fibre sums into w (waiting for the first); *first
 * (may be NULL) gets the first launch's event, *done the second's. */
static clpk_status life_wc_pairs_launch(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_uint n_wait, const cl_event *wait,
                                        cl_event *first, cl_event *done, cl_mem stamp, cl_int it) {
    const cl_long np = plan->n_pairs;
    const cl_int nf = plan->n_fibers;
    const size_t local = (size_t)plan->config.wc_team * plan->config.wc_runs;
    const int block = plan->config.wc_block;
    core_args a;
    core_args_begin(&a, plan->ctx, plan->k_wc, 0);
    if (block > 0) {
        const cl_int nv = plan->n_voxels, n_chunks = plan->n_chunks;
        CLPK_ARG(&a, nv);
        CLPK_ARG(&a, n_chunks);
        CLPK_ARG(&a, plan->pr_chunk_pair);
        CLPK_ARG(&a, plan->pr_chunk_block);
        CLPK_ARG(&a, plan->pr_block_atom_off);
        CLPK_ARG(&a, plan->pr_block_vloc);
        CLPK_ARG(&a, plan->dsc_key); /* NULL in index order (the kernel is then built without VOXEL_KEYED) */
    } else {
        CLPK_ARG(&a, np);
        CLPK_ARG(&a, plan->pr_atom_off);
        CLPK_ARG(&a, plan->pr_voxel_off);
    }
    CLPK_ARG(&a, plan->dict);
    CLPK_ARG(&a, y);
    CLPK_ARG(&a, plan->pr_dot);
    core_args_local(&a, (size_t)life_pair_dot_local_bytes(&plan->config, plan->value_size));
    CLPK_ARG(&a, stamp);
    CLPK_ARG(&a, it);
    CLPK_TRY(core_args_end(&a));
    core_args_begin(&a, plan->ctx, plan->k_wc_sum, 0);
    CLPK_ARG(&a, nf);
    CLPK_ARG(&a, plan->pr_fiber_ptr);
    CLPK_ARG(&a, plan->pr_fiber_pair);
    CLPK_ARG(&a, plan->pr_fiber_phi);
    CLPK_ARG(&a, plan->pr_dot);
    CLPK_ARG(&a, w);
    core_args_local(&a, local * plan->value_size);
    CLPK_ARG(&a, plan->wc_key); /* NULL in index order (the kernel is then built without FIBER_KEYED) */
    CLPK_TRY(core_args_end(&a));
    const size_t pair_teams = ((size_t)np + plan->config.unroll - 1) / plan->config.unroll;
    /* blocked: a group per chunk */
    const size_t global = block > 0 ? life_grid((size_t)(plan->n_chunks > 0 ? plan->n_chunks : 1) * local, local)
                                    : life_grid((pair_teams > 0 ? pair_teams : 1) * plan->config.wc_team, local);
    cl_event dots = NULL;
    CLPK_TRY(life_launch(plan, plan->k_wc, global, local, n_wait, wait, &dots));
    clpk_status st =
        life_launch(plan, plan->k_wc_sum, life_grid((size_t)nf * plan->config.wc_team, local), local, 1, &dots, done);
    if (st == CLPK_SUCCESS && first)
        *first = dots;
    else
        clReleaseEvent(dots);
    return st;
}

static clpk_status life_wc_launch(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_uint n_wait, const cl_event *wait,
                                  cl_event *first, cl_event *done) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    const size_t ny = (size_t)plan->n_voxels * plan->n_theta;
    CLPK_TRY(life_check_buffers(plan, y, ny, w, (size_t)plan->n_fibers));
    cl_kernel k = plan->k_wc;
    cl_long nc = plan->n_coeffs;
    if (life_wc_fibre_sorted(plan->wc_kind)) {
        cl_int nf = plan->n_fibers;
        size_t local = (size_t)plan->config.wc_team * plan->config.wc_runs;
        core_args a;
        core_args_begin(&a, plan->ctx, k, 0);
        CLPK_ARG(&a, nf);
        CLPK_ARG(&a, plan->wc_ptr);
        CLPK_ARG(&a, plan->wc_atom_off);
        CLPK_ARG(&a, plan->wc_voxel_off);
        CLPK_ARG(&a, plan->wc_phi);
        CLPK_ARG(&a, plan->dict);
        CLPK_ARG(&a, y);
        CLPK_ARG(&a, w);
        core_args_local(&a, local * plan->value_size);
        core_args_jump(&a, k, 10); /* 9: the theta part, set per pass */
        CLPK_ARG(&a, plan->wc_key);
        if (plan->wc_kind == LIFE_WC_STAGED) { /* a chunk's atom and voxel offsets and phi */
            core_args_local(&a, local * sizeof(cl_int));
            core_args_local(&a, local * sizeof(cl_int));
            core_args_local(&a, local * plan->value_size);
        }
        CLPK_TRY(core_args_end(&a));
        return life_launch_passes(plan, k, 9, life_grid((size_t)nf * plan->config.wc_team, local), local, n_wait, wait,
                                  first, done);
    }
    if (plan->wc_kind == LIFE_WC_PAIRS) return life_wc_pairs_launch(plan, y, w, n_wait, wait, first, done, NULL, 0);
    core_args a;
    core_args_begin(&a, plan->ctx, k, 0);
    if (plan->wc_kind == LIFE_WC_VOXEL) {
        const cl_int nv = plan->n_voxels;
        args_voxel_sorted(&a, plan, k, y, w);
        CLPK_ARG(&a, plan->dsc_key);
        CLPK_TRY(core_args_end(&a));
        cl_event zeroed = NULL;
        CLPK_TRY(life_zero(plan, w, (size_t)plan->n_fibers, n_wait, wait, &zeroed));
        size_t local = (size_t)plan->config.wg;
        clpk_status st = life_launch(plan, k, life_grid((size_t)nv * local, local), local, 1, &zeroed, done);
        clReleaseEvent(zeroed);
        return st;
    }
    const int atom = plan->wc_kind == LIFE_WC_ATOM;
    cl_mem ao = atom ? plan->wc_atom_off : plan->c_atom_off, vo = atom ? plan->wc_voxel_off : plan->c_voxel_off;
    cl_mem fb = atom ? plan->wc_fiber : plan->c_fiber, ph = atom ? plan->wc_phi : plan->c_phi;
    CLPK_ARG(&a, nc);
    CLPK_ARG(&a, ao);
    CLPK_ARG(&a, vo);
    CLPK_ARG(&a, fb);
    CLPK_ARG(&a, ph);
    CLPK_ARG(&a, plan->dict);
    CLPK_ARG(&a, y);
    CLPK_ARG(&a, w);
    size_t local, global;
    if (atom) {
        local = (size_t)plan->config.wc_team * plan->config.wc_runs;
        core_args_local(&a, local * plan->value_size);
        global = life_grid((size_t)nc * plan->config.wc_team, local);
    } else {
        local = (size_t)plan->config.wg;
        global = life_grid((size_t)nc, local);
    }
    CLPK_TRY(core_args_end(&a));
    cl_event zeroed = NULL;
    CLPK_TRY(life_zero(plan, w, (size_t)plan->n_fibers, n_wait, wait, &zeroed));
    clpk_status st = CLPK_SUCCESS;
    if (nc > 0)
        st = life_launch(plan, k, global, local, 1, &zeroed, done);
    else if (done) {
        *done = zeroed;
        zeroed = NULL;
    }
    if (zeroed) clReleaseEvent(zeroed);
    return st;
}

/* Single-launch paths leave *first NULL: then it is the same event as *done (one reference). */
static clpk_status life_first_is_done(clpk_status st, cl_event *first, cl_event *done) {
    if (st == CLPK_SUCCESS && first && !*first) *first = *done;
    return st;
}

int life_dsc_can_stamp(const clpk_life_plan *plan) {
    return plan->dsc_kind == LIFE_DSC_PAIRS && plan->pr_voxel_off && plan->pr_fiber_ptr && plan->pr_fiber_pair;
}

clpk_status life_dsc_stamped(clpk_life_plan *plan, cl_mem w, cl_mem y, cl_mem stamp, cl_int it) {
    if (!life_dsc_can_stamp(plan) || !stamp)
        return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: a stamped DSC needs dsc=pairs and wc=pairs");
    return life_dsc_launch(plan, w, y, 0, NULL, NULL, NULL, stamp, it);
}

clpk_status life_wc_stamped(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_mem stamp, cl_int it) {
    if (!life_dsc_can_stamp(plan) || plan->wc_kind != LIFE_WC_PAIRS || !stamp)
        return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: a stamped WC needs dsc=pairs and wc=pairs");
    return life_wc_pairs_launch(plan, y, w, 0, NULL, NULL, NULL, stamp, it);
}

clpk_status clpk_life_dsc(clpk_life_plan *plan, cl_mem w, cl_mem y, cl_uint n_wait, const cl_event *wait,
                          cl_event *done) {
    return life_dsc_launch(plan, w, y, n_wait, wait, NULL, done, NULL, 0);
}

clpk_status clpk_life_wc(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_uint n_wait, const cl_event *wait,
                         cl_event *done) {
    return life_wc_launch(plan, y, w, n_wait, wait, NULL, done);
}

clpk_status clpk_life_dsc_events(clpk_life_plan *plan, cl_mem w, cl_mem y, cl_uint n_wait, const cl_event *wait,
                                 cl_event *first, cl_event *done) {
    if (!first || !done) return CLPK_ERROR_INVALID_ARGUMENT;
    *first = NULL;
    return life_first_is_done(life_dsc_launch(plan, w, y, n_wait, wait, first, done, NULL, 0), first, done);
}

clpk_status clpk_life_wc_events(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_uint n_wait, const cl_event *wait,
                                cl_event *first, cl_event *done) {
    if (!first || !done) return CLPK_ERROR_INVALID_ARGUMENT;
    *first = NULL;
    return life_first_is_done(life_wc_launch(plan, y, w, n_wait, wait, first, done), first, done);
}

/* ---- Host-array conveniences ----------------------------------------------------------------------------------- */

static clpk_status life_host_product(clpk_life_plan *plan, int dsc, const double *in, double *out) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!in || !out) return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: NULL host array");
    const size_t ny = (size_t)plan->n_voxels * plan->n_theta, nw = (size_t)plan->n_fibers;
    const size_t n_in = dsc ? nw : ny, n_out = dsc ? ny : nw;
    cl_mem bin = NULL, bout = NULL;
    void *tmp = malloc((n_out > n_in ? n_out : n_in) * plan->value_size);
    cl_int rc = CL_SUCCESS;
    clpk_status st = CLPK_SUCCESS;
    if (!tmp) return core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no host memory");
    st = life_upload_values(plan, in, n_in, &bin);
    if (st == CLPK_SUCCESS) {
        bout =
            clCreateBuffer(clpk_context_cl_context(plan->ctx), CL_MEM_READ_WRITE, n_out * plan->value_size, NULL, &rc);
        if (rc != CL_SUCCESS) st = core_fail_cl(plan->ctx, rc, "clCreateBuffer (LiFE output)");
    }
    if (st == CLPK_SUCCESS)
        st = dsc ? clpk_life_dsc(plan, bin, bout, 0, NULL, NULL) : clpk_life_wc(plan, bin, bout, 0, NULL, NULL);
    if (st == CLPK_SUCCESS) {
        rc = clEnqueueReadBuffer(clpk_context_queue(plan->ctx), bout, CL_TRUE, 0, n_out * plan->value_size, tmp, 0,
                                 NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(plan->ctx, rc, "clEnqueueReadBuffer (LiFE output)");
    }
    if (st == CLPK_SUCCESS) {
        for (size_t i = 0; i < n_out; ++i)
            out[i] = plan->precision == CLPK_PRECISION_F32 ? (double)((float *)tmp)[i] : ((double *)tmp)[i];
    }
    if (bin) clReleaseMemObject(bin);
    if (bout) clReleaseMemObject(bout);
    free(tmp);
    return st;
}

clpk_status clpk_life_dsc_host(clpk_life_plan *plan, const double *w, double *y) {
    return life_host_product(plan, 1, w, y);
}

clpk_status clpk_life_wc_host(clpk_life_plan *plan, const double *y, double *w) {
    return life_host_product(plan, 0, y, w);
}
