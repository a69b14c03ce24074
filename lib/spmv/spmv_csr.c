/* CSR plans: the upload, the row blocks of csr_kernel=adaptive (made here in O(rows)), their footprint and their
 * launch (cl/spmv_csr.cl). csr_kernel=rows launches from spmv_launch.c. */
#include "spmv_internal.h"

#include <stdlib.h>
#include <string.h>

/* Entries per work-item of an adaptive row block: a block of many short rows stages this many products per
 * work-item in local memory (4: 16 KiB of f64 at wg=512, so several groups share a GPU core). */
enum { CSR_BLOCK_ITEMS = 4, CSR_LONG_WG = 64 };
#define CSR_PIECE 0x80000000u /* as in cl/spmv_csr.cl */

int64_t spmv_csr_block_entries(const spmv_config *cfg) { return (int64_t)cfg->wg * CSR_BLOCK_ITEMS; }

/* Work-items per row in a block of n rows, as the kernel computes it: the largest power of two with lanes*n <= wg. */
static int64_t lanes_for(int64_t n, int64_t wg) {
    int64_t lanes = wg;
    while (lanes > 1 && lanes * n > wg)
        lanes >>= 1;
    return lanes;
}

/* The row blocks: rows taken in order while the block has at most `cap` entries, at most wg rows and no row longer
 * than csr_steps times its lanes (one long row among many short ones would otherwise keep a single lane busy for
 * hundreds of steps while its work-group waits: a power-law matrix puts rows of 100-1000 entries into most blocks);
 * a row of more than `cap` entries is split into pieces of `cap`, one block each. Counts only (blocks/long_rows
 * NULL) or fills blocks[2*(nb+1)] and long_rows[3*nlong]. */
static void row_blocks(const clpk_csr *A, const spmv_config *cfg, uint32_t *blocks, uint32_t *long_rows,
                       int64_t *n_blocks, int64_t *n_long) {
    const int64_t cap = spmv_csr_block_entries(cfg), wg = cfg->wg, steps = cfg->csr_steps > 0 ? cfg->csr_steps : cap;
    const int64_t *rp = A->row_ptr;
    int64_t nb = 0, nl = 0;
    for (int64_t r = 0; r < A->rows;) {
        int64_t len = rp[r + 1] - rp[r];
        if (len > cap) {
            int64_t pieces = (len + cap - 1) / cap;
            for (int64_t p = 0; blocks && p < pieces; ++p) {
                blocks[2 * (nb + p)] = (uint32_t)r | CSR_PIECE;
                blocks[2 * (nb + p) + 1] = (uint32_t)(rp[r] + p * cap);
            }
            if (long_rows) {
                long_rows[3 * nl] = (uint32_t)r;
                long_rows[3 * nl + 1] = (uint32_t)nb;
                long_rows[3 * nl + 2] = (uint32_t)pieces;
            }
            nb += pieces;
            ++nl;
            ++r;
            continue;
        }
        if (blocks) {
            blocks[2 * nb] = (uint32_t)r;
            blocks[2 * nb + 1] = (uint32_t)rp[r];
        }
        int64_t first = r, k0 = rp[r], longest = 0;
        while (r < A->rows && r - first < wg && rp[r + 1] - k0 <= cap) {
            int64_t n = r - first + 1, row = rp[r + 1] - rp[r];
            if (row > longest) longest = row;
            if (n > 1 && longest > steps * lanes_for(n, wg)) break;
            ++r;
        }
        ++nb;
    }
    if (blocks) {
        blocks[2 * nb] = (uint32_t)A->rows;
        blocks[2 * nb + 1] = (uint32_t)A->nnz;
    }
    *n_blocks = nb;
    *n_long = nl;
}

uint64_t spmv_csr_footprint(const clpk_csr *A, clpk_precision precision) {
    return (uint64_t)(A->rows + 1) * 4 + (uint64_t)A->nnz * (4 + clpk_precision_size(precision));
}

/* Device bytes of the adaptive kernel's own buffers (0 blocks and no split rows still allocate a word each). */
static uint64_t adaptive_bytes(int64_t nb, int64_t nl, clpk_precision precision) {
    return (uint64_t)(nb + 1) * 8 + (uint64_t)(nl ? nl : 1) * 12 +
           (uint64_t)(nb ? nb : 1) * clpk_precision_size(precision);
}

uint64_t spmv_csr_config_footprint(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision) {
    uint64_t bytes = spmv_csr_footprint(A, precision);
    if (cfg->csr_kernel != SPMV_CSR_ADAPTIVE) return bytes;
    int64_t nb = 0, nl = 0;
    row_blocks(A, cfg, NULL, NULL, &nb, &nl);
    return bytes + adaptive_bytes(nb, nl, precision);
}

size_t spmv_csr_local_bytes(const spmv_config *cfg, clpk_precision precision) {
    if (cfg->csr_kernel != SPMV_CSR_ADAPTIVE) return (size_t)cfg->wg * clpk_precision_size(precision);
    return (size_t)(spmv_csr_block_entries(cfg) + cfg->wg) * clpk_precision_size(precision);
}

static clpk_status upload(clpk_context *ctx, size_t bytes, const void *host, cl_mem *out) {
    cl_int rc = CL_SUCCESS;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host && bytes ? CL_MEM_COPY_HOST_PTR : 0);
    *out = clCreateBuffer(clpk_context_cl_context(ctx), flags, bytes ? bytes : 4, bytes ? (void *)host : NULL, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clCreateBuffer (spmv CSR plan)");
    return CLPK_SUCCESS;
}

static clpk_status setup_adaptive(clpk_spmv_plan *plan, const clpk_csr *A) {
    clpk_context *ctx = plan->ctx;
    int64_t nb = 0, nl = 0;
    row_blocks(A, &plan->cfg, NULL, NULL, &nb, &nl);
    uint32_t *blocks = malloc((size_t)(nb + 1) * 2 * sizeof *blocks);
    uint32_t *long_rows = malloc((size_t)(nl ? nl : 1) * 3 * sizeof *long_rows);
    if (!blocks || !long_rows) {
        free(blocks);
        free(long_rows);
        return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    row_blocks(A, &plan->cfg, blocks, long_rows, &nb, &nl);
    plan->csr_blocks_n = nb;
    plan->csr_long_n = nl;
    clpk_status st = upload(ctx, (size_t)(nb + 1) * 8, blocks, &plan->csr_blocks);
    if (st == CLPK_SUCCESS) st = upload(ctx, (size_t)(nl ? nl : 1) * 12, nl ? long_rows : NULL, &plan->csr_long);
    if (st == CLPK_SUCCESS)
        st = upload(ctx, (size_t)(nb ? nb : 1) * clpk_precision_size(plan->precision), NULL, &plan->csr_partial);
    free(blocks);
    free(long_rows);
    CLPK_TRY(st);
    plan->footprint += adaptive_bytes(nb, nl, plan->precision);
    return CLPK_SUCCESS;
}

/* The CSR arrays on the device: shared from `images` (another CSR plan of the same verify uploaded them), else
 * uploaded and, with images, shared from now on. */
static clpk_status csr_arrays(clpk_spmv_plan *plan, const clpk_csr *A, spmv_images *images) {
    clpk_context *ctx = plan->ctx;
    cl_mem *mine[3] = {&plan->row_ptr, &plan->col, &plan->val};
    if (images && images->csr[0]) {
        for (int i = 0; i < 3; ++i) {
            cl_int rc = clRetainMemObject(images->csr[i]);
            if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clRetainMemObject (spmv CSR plan)");
            *mine[i] = images->csr[i];
        }
        core_log(ctx, CLPK_LOG_DEBUG, "spmv plan: CSR arrays shared with the verify's first CSR plan");
        return CLPK_SUCCESS;
    }
    double t0 = core_wall_seconds();
    size_t vs = clpk_precision_size(plan->precision);
    uint32_t *rp = malloc(sizeof *rp * (size_t)(A->rows + 1));
    void *val = malloc(vs * (size_t)(A->nnz ? A->nnz : 1));
    if (!rp || !val) {
        free(rp);
        free(val);
        return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (int32_t r = 0; r <= A->rows; ++r)
        rp[r] = (uint32_t)A->row_ptr[r];
    for (int64_t k = 0; k < A->nnz; ++k) {
        if (plan->precision == CLPK_PRECISION_F64)
            ((double *)val)[k] = A->val[k];
        else
            ((float *)val)[k] = (float)A->val[k];
    }
    clpk_status st = upload(ctx, sizeof *rp * (size_t)(A->rows + 1), rp, &plan->row_ptr);
    if (st == CLPK_SUCCESS) st = upload(ctx, vs * (size_t)A->nnz, val, &plan->val);
    if (st == CLPK_SUCCESS) st = upload(ctx, 4 * (size_t)A->nnz, A->col, &plan->col);
    free(rp);
    free(val);
    CLPK_TRY(st);
    core_log(ctx, CLPK_LOG_DEBUG, "spmv plan: CSR arrays uploaded (%.3f s)", core_wall_seconds() - t0);
    for (int i = 0; images && i < 3; ++i) {
        cl_int rc = clRetainMemObject(*mine[i]);
        if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clRetainMemObject (spmv CSR plan)");
        images->csr[i] = *mine[i];
    }
    return CLPK_SUCCESS;
}

clpk_status spmv_csr_setup(clpk_spmv_plan *plan, const clpk_csr *A, spmv_images *images) {
    clpk_context *ctx = plan->ctx;
    const spmv_config *c = &plan->cfg;
    int adaptive = c->csr_kernel == SPMV_CSR_ADAPTIVE;
    size_t local = spmv_csr_local_bytes(c, plan->precision);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (adaptive && local > dev->local_mem_bytes)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "spmv: CSR parameters need %zu bytes of local memory, device has %llu", local,
                         (unsigned long long)dev->local_mem_bytes);
    /* the program before the upload (see setup_bccoo in spmv_plan.c) */
    char opts[256];
    snprintf(opts, sizeof opts, "-DIS_DOUBLE=%d", plan->precision == CLPK_PRECISION_F64);
    const char *src[] = {"spmv_csr"};
    cl_program prog = NULL;
    CLPK_TRY(core_program_get(ctx, src, 1, opts, &prog));
    const char *name = adaptive ? "spmv_csr_adaptive" : c->csr_vec == 1 ? "spmv_csr_scalar" : "spmv_csr_vector";
    CLPK_TRY(core_kernel_create(ctx, prog, name, &plan->csr_kernel));
    CLPK_TRY(spmv_check_kernel_wg(plan, plan->csr_kernel, name));
    if (adaptive) CLPK_TRY(core_kernel_create(ctx, prog, "spmv_csr_adaptive_long", &plan->csr_long_kernel));
    CLPK_TRY(csr_arrays(plan, A, images));
    plan->footprint = spmv_csr_footprint(A, plan->precision);
    return adaptive ? setup_adaptive(plan, A) : CLPK_SUCCESS;
}

void spmv_csr_args_begin(core_args *a, clpk_spmv_plan *p, cl_mem x, cl_uint xo, cl_mem y, cl_uint yo) {
    core_args_begin(a, p->ctx, p->csr_kernel, 0);
    CLPK_ARG(a, p->row_ptr);
    CLPK_ARG(a, p->col);
    CLPK_ARG(a, p->val);
    CLPK_ARG(a, x);
    CLPK_ARG(a, xo);
    CLPK_ARG(a, y);
    CLPK_ARG(a, yo);
}

clpk_status spmv_csr_adaptive_enqueue(clpk_spmv_plan *p, double alpha, cl_mem x, cl_uint xo, double beta, cl_mem y,
                                      cl_uint yo, cl_uint n_wait, const cl_event *wait, cl_event *first,
                                      cl_event *last) {
    clpk_context *ctx = p->ctx;
    cl_command_queue q = clpk_context_queue(ctx);
    size_t vs = clpk_precision_size(p->precision);
    core_args a;
    spmv_csr_args_begin(&a, p, x, xo, y, yo);
    spmv_arg_scalar(&a, p, alpha);
    spmv_arg_scalar(&a, p, beta);
    CLPK_ARG(&a, p->csr_blocks);
    CLPK_ARG(&a, p->csr_partial);
    core_args_local(&a, (size_t)spmv_csr_block_entries(&p->cfg) * vs);
    core_args_local(&a, (size_t)p->cfg.wg * vs);
    CLPK_TRY(core_args_end(&a));
    size_t wg = (size_t)p->cfg.wg, global = (size_t)p->csr_blocks_n * wg;
    cl_event e1 = NULL, e2 = NULL;
    cl_int rc = clEnqueueNDRangeKernel(q, p->csr_kernel, 1, NULL, &global, &wg, n_wait, wait, &e1);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clEnqueueNDRangeKernel (spmv_csr_adaptive)");
    clpk_status st = CLPK_SUCCESS;
    if (p->csr_long_n > 0) {
        core_args_begin(&a, ctx, p->csr_long_kernel, 0);
        CLPK_ARG(&a, p->csr_long);
        CLPK_ARG(&a, p->csr_partial);
        CLPK_ARG(&a, y);
        CLPK_ARG(&a, yo);
        spmv_arg_scalar(&a, p, alpha);
        spmv_arg_scalar(&a, p, beta);
        core_args_local(&a, (size_t)CSR_LONG_WG * vs);
        st = core_args_end(&a);
        size_t lsize = CSR_LONG_WG, gsize = (size_t)p->csr_long_n * lsize;
        if (st == CLPK_SUCCESS) {
            rc = clEnqueueNDRangeKernel(q, p->csr_long_kernel, 1, NULL, &gsize, &lsize, 1, &e1, &e2); /* OOO queues */
            if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueNDRangeKernel (spmv_csr_adaptive_long)");
        }
    }
    const cl_event events[] = {e1, e2};
    spmv_events_hand_over(st, events, 2, first, last);
    return st;
}
