/* spmv plans: parameter choice (core_resolve: defaults -> profile -> caller), conversion, upload, kernel build. */
#include "spmv_internal.h"

#include <stdlib.h>
#include <string.h>

/* Adjacent synchronization needs every started work-group to keep making progress while another spins. Known to
 * hold: NVIDIA GPUs (a resident block keeps its SM slot until it exits and warps are scheduled fairly) and PoCL's
 * CPU devices (each work-group runs to completion on one worker thread). Elsewhere the fallback is chosen. */
int spmv_device_has_forward_progress(const clpk_device_info *dev) {
    if (!dev || !dev->has_int32_global_atomics || !dev->has_int64_atomics) return 0;
    if (dev->is_pocl) return 1;
    if (dev->kind == CLPK_DEVICE_GPU && strstr(dev->vendor, "NVIDIA")) return 1;
    return 0;
}

size_t spmv_bccoo_local_bytes(const spmv_config *cfg, clpk_precision precision) {
    size_t vs = clpk_precision_size(precision);
    size_t bytes = (size_t)cfg->wg * cfg->block_h * vs + (size_t)cfg->wg * 4 + 8 + (size_t)cfg->block_h * vs;
    if (cfg->strategy == 2) bytes += (size_t)cfg->cache * cfg->wg * cfg->block_h * vs;
    return bytes;
}

/* The BCCOO program's build options: the table's -D options (BH, BW, FLAG_BITS, TILE, WG, STRATEGY, VLOAD,
 * PREFETCH) with those derived from the configuration and the plan spliced in where they have always stood, so that
 * the text, and with it the program cache's keys, stays the same. */
void spmv_bccoo_options(const clpk_spmv_plan *plan, int x_aligned, char *buf, size_t size) {
    const spmv_config *c = &plan->cfg;
    char table[256] = "", derived[3][96];
    core_param_defines(&spmv_param_table, c, table, sizeof table);
    static const char *const before[] = {" -DTILE=", " -DVLOAD=", " -DPREFETCH="};
    snprintf(derived[0], sizeof derived[0], " -DCOL_BITS=%d", c->col_bits);
    snprintf(derived[1], sizeof derived[1], " -DSYNC_ADJ=%d -DSLICED=%d -DCOL_DELTA=%d -DSTAGE=%d", c->sync_adjacent,
             c->format == SPMV_BCCOO_PLUS, c->col_delta, plan->online_mode == 2);
    snprintf(derived[2], sizeof derived[2], " -DVW=%d -DX_ALIGNED=%d", spmv_value_vec(c, plan->precision), x_aligned);
    size_t at = (size_t)snprintf(buf, size, "-DIS_DOUBLE=%d", plan->precision == CLPK_PRECISION_F64);
    const char *from = table;
    for (int i = 0; i < 3 && at < size; ++i) {
        const char *cut = strstr(from, before[i]);
        if (!cut) cut = from + strlen(from);
        at += (size_t)snprintf(buf + at, size - at, "%.*s%s", (int)(cut - from), from, derived[i]);
        from = cut;
    }
    if (at < size) snprintf(buf + at, size - at, "%s", from);
}

size_t spmv_bccoo_stage_bytes(const spmv_config *cfg, clpk_precision precision) {
    return (size_t)cfg->wg * cfg->tile * cfg->block_h * clpk_precision_size(precision);
}

void clpk_spmv_plan_destroy(clpk_spmv_plan *plan) {
    if (!plan) return;
    cl_mem *mems[] = {&plan->row_ptr,   &plan->col,        &plan->val,      &plan->values,     &plan->flags,
                      &plan->cols_idx,  &plan->entries,    &plan->sync,     &plan->grp_sum,    &plan->col_base,
                      &plan->esc_start, &plan->esc,        &plan->grp_stop, &plan->tmp,        &plan->bench_x,
                      &plan->bench_y,   &plan->csr_blocks, &plan->csr_long, &plan->csr_partial};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
        if (*mems[i]) clReleaseMemObject(*mems[i]);
    cl_kernel ks[] = {plan->csr_kernel,     plan->main_kernel,    plan->carry_kernel,
                      plan->combine_kernel, plan->main_kernel_xu, plan->csr_long_kernel};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i)
        if (ks[i]) clReleaseKernel(ks[i]);
    free(plan);
}

static clpk_status make_buffer(clpk_context *ctx, size_t bytes, const void *host, cl_mem *out) {
    cl_int rc = CL_SUCCESS;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
    *out = clCreateBuffer(clpk_context_cl_context(ctx), flags, bytes ? bytes : 4, (void *)host, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clCreateBuffer (spmv plan)");
    return CLPK_SUCCESS;
}

static clpk_status make_zero_buffer(clpk_context *ctx, size_t bytes, cl_mem *out) {
    void *zero = calloc(1, bytes ? bytes : 4);
    if (!zero) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    clpk_status st = make_buffer(ctx, bytes ? bytes : 4, zero, out);
    free(zero);
    return st;
}

clpk_status spmv_check_kernel_wg(clpk_spmv_plan *plan, cl_kernel k, const char *name) {
    size_t max = 0;
    cl_int rc =
        clGetKernelWorkGroupInfo(k, clpk_context_device(plan->ctx), CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max, NULL);
    if (rc != CL_SUCCESS) return core_fail_cl(plan->ctx, rc, "clGetKernelWorkGroupInfo");
    if (max < (size_t)plan->cfg.wg)
        return core_fail(plan->ctx, CLPK_ERROR_UNSUPPORTED, "spmv: kernel %s allows work-groups of %zu, not wg=%d",
                         name, max, plan->cfg.wg);
    return CLPK_SUCCESS;
}

static clpk_status setup_bccoo(clpk_spmv_plan *plan, const clpk_csr *A, spmv_images *images) {
    clpk_context *ctx = plan->ctx;
    const spmv_config *c = &plan->cfg;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    size_t local = spmv_bccoo_local_bytes(c, plan->precision);
    if (local > dev->local_mem_bytes)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "spmv: parameters need %zu bytes of local memory, device has %llu", local,
                         (unsigned long long)dev->local_mem_bytes);
    /* The program first (it needs only the configuration): the tuner notes its candidates' programs by creating
     * their plans with the context recording (core_program_record), which stops here, before the format conversion,
     * the expensive part of plan creation. The online transpose stages the group's products in local memory when
     * they fit (and columns are not delta-coded, whose decoding is sequential per work-item); otherwise natural
     * order is read directly. */
    plan->online_mode = 0;
    if (c->online) {
        /* CPU implementations report caches of 1-2 MiB as local memory; a cap keeps the choice (and so the program
         * that runs) the same on every host, and GPUs have less than the cap anyway. */
        uint64_t room = dev->local_mem_bytes < SPMV_STAGE_MAX_BYTES ? dev->local_mem_bytes : SPMV_STAGE_MAX_BYTES;
        plan->online_mode = !c->col_delta && local + spmv_bccoo_stage_bytes(c, plan->precision) <= room ? 2u : 1u;
    }
    plan->epoch = 0;
    char opts[512];
    spmv_bccoo_options(plan, c->vload && c->block_w > 1, opts, sizeof opts);
    const char *src[] = {"spmv_bccoo"};
    cl_program prog = NULL;
    CLPK_TRY(core_program_get(ctx, src, 1, opts, &prog));
    CLPK_TRY(core_kernel_create(ctx, prog, "spmv_bccoo", &plan->main_kernel));
    CLPK_TRY(spmv_check_kernel_wg(plan, plan->main_kernel, "spmv_bccoo"));
    if (!c->sync_adjacent) CLPK_TRY(core_kernel_create(ctx, prog, "spmv_bccoo_carry", &plan->carry_kernel));
    if (c->format == SPMV_BCCOO_PLUS)
        CLPK_TRY(core_kernel_create(ctx, prog, "spmv_bccoo_combine", &plan->combine_kernel));

    clpk_error err = {0};
    spmv_bccoo_view view;
    double t0 = core_wall_seconds();
    clpk_status st = spmv_images_get(images, A, c, plan->precision, &view, &err);
    if (st != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    double t1 = core_wall_seconds();
    const spmv_bccoo b = view.image;
    plan->block_rows = b.block_rows;
    plan->nt = b.nt;
    plan->groups = b.groups;
    plan->footprint = spmv_bccoo_footprint(A, c, plan->precision, b.blocks, b.n_esc);
    size_t vs = clpk_precision_size(plan->precision);
    st = make_buffer(ctx, b.value_bytes, b.values, &plan->values);
    if (st == CLPK_SUCCESS) st = make_buffer(ctx, b.flag_bytes, b.flags, &plan->flags);
    if (st == CLPK_SUCCESS) st = make_buffer(ctx, b.col_bytes, b.cols, &plan->cols_idx);
    if (st == CLPK_SUCCESS) st = make_buffer(ctx, b.entry_bytes, b.entries, &plan->entries);
    if (st == CLPK_SUCCESS && c->col_delta) {
        st = make_buffer(ctx, (size_t)b.nt * 4, b.col_base, &plan->col_base);
        if (st == CLPK_SUCCESS) st = make_buffer(ctx, (size_t)(b.nt + 1) * 4, b.esc_start, &plan->esc_start);
        if (st == CLPK_SUCCESS) st = make_buffer(ctx, (size_t)(b.n_esc ? b.n_esc : 1) * 4, b.esc, &plan->esc);
    }
    /* plan time is the issue-#22 budget: where it goes, at debug level */
    core_log(ctx, CLPK_LOG_DEBUG, "spmv plan: %s %.3f s, upload %.3f s", view.derived ? "derived" : "conversion",
             t1 - t0, core_wall_seconds() - t1);
    spmv_images_done(images, c, &view);
    if (st == CLPK_SUCCESS) st = make_zero_buffer(ctx, 4 * sizeof(cl_uint), &plan->sync);
    if (st == CLPK_SUCCESS) st = make_zero_buffer(ctx, (size_t)plan->groups * 4, &plan->grp_stop);
    if (st == CLPK_SUCCESS)
        st = make_zero_buffer(ctx, (size_t)spmv_carry_bytes(plan->groups, c->block_h, plan->precision), &plan->grp_sum);
    if (st == CLPK_SUCCESS && c->format == SPMV_BCCOO_PLUS)
        st = make_zero_buffer(ctx, (size_t)c->slices * plan->block_rows * c->block_h * vs, &plan->tmp);
    CLPK_TRY(st);

    /* Watchdog window in spin iterations without any group publishing; long enough for one group's tile on a slow
     * or time-shared device (a CPU iteration is ~10 ns, a GPU atomic round trip ~1 us). */
    plan->spin_limit = dev->kind == CLPK_DEVICE_GPU ? (1u << 24) : (1u << 27);
    return CLPK_SUCCESS;
}

static clpk_status choose_params(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *format,
                                 const char *params, spmv_config *cfg) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    clpk_error err = {0};
    int automatic = !format || !*format || strcmp(format, "auto") == 0;
    /* an explicit format is the caller's "format" */
    core_params given;
    core_params_clear(&given);
    if (params && core_params_parse(&given, params, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    if (!automatic) core_params_set(&given, "format", format);
    char caller[CLPK_PARAMS_MAX * (sizeof(core_param) + 2)];
    core_params_format(&given, caller, sizeof caller);
    /* the profile only for automatic plans: an explicit format asks for exactly these parameters */
    core_params features;
    if (automatic && spmv_features(A, precision, &features, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    core_resolve_request req = {.table = &spmv_param_table, .features = automatic ? &features : NULL, .caller = caller};
    core_resolved resolved;
    CLPK_TRY(core_resolve(ctx, &req, &resolved));
    if (spmv_config_read(&resolved, A, cfg, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    if (cfg->sync_adjacent < 0) {
        cfg->sync_adjacent = spmv_device_has_forward_progress(dev);
        cfg->sync = cfg->sync_adjacent ? SPMV_SYNC_ADJACENT : SPMV_SYNC_FALLBACK;
    }
    if ((size_t)cfg->wg > dev->max_work_group_size)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "spmv: wg=%d exceeds the device's %zu", cfg->wg,
                         dev->max_work_group_size);
    if (cfg->sync_adjacent && (!dev->has_int32_global_atomics || !dev->has_int64_atomics))
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "spmv: sync=adjacent needs 32- and 64-bit global atomics (cl_khr_int64_base_atomics)");
    return CLPK_SUCCESS;
}

clpk_status spmv_plan_config(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *format,
                             const char *params, spmv_config *cfg) {
    return choose_params(ctx, A, precision, format, params, cfg);
}

clpk_status spmv_plan_create_checked(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *format,
                                     const char *params, clpk_spmv_plan **out) {
    *out = NULL;
    spmv_config cfg;
    CLPK_TRY(choose_params(ctx, A, precision, format, params, &cfg));
    return spmv_plan_create_config(ctx, A, precision, &cfg, NULL, out);
}

clpk_status spmv_plan_create_config(clpk_context *ctx, const clpk_csr *A, clpk_precision precision,
                                    const spmv_config *cfg, spmv_images *images, clpk_spmv_plan **out) {
    *out = NULL;
    clpk_spmv_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    plan->ctx = ctx;
    plan->precision = precision;
    plan->rows = A->rows;
    plan->cols = A->cols;
    plan->nnz = A->nnz;
    plan->cfg = *cfg;
    clpk_status st = cfg->format == SPMV_CSR ? spmv_csr_setup(plan, A, images) : setup_bccoo(plan, A, images);
    if (st != CLPK_SUCCESS) {
        clpk_spmv_plan_destroy(plan);
        return st;
    }
    char desc[512];
    clpk_spmv_plan_describe(plan, desc, sizeof desc);
    core_log(ctx, CLPK_LOG_DEBUG, "spmv plan %dx%d nnz=%lld: %s", (int)A->rows, (int)A->cols, (long long)A->nnz, desc);
    *out = plan;
    return CLPK_SUCCESS;
}

clpk_status clpk_spmv_plan_create(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *format,
                                  const char *params, clpk_spmv_plan **out) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!out || !A) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_plan_create: NULL argument");
    *out = NULL;
    if (precision != CLPK_PRECISION_F32 && precision != CLPK_PRECISION_F64)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_plan_create: unknown precision");
    if (precision == CLPK_PRECISION_F64 && !clpk_context_device_info(ctx)->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "spmv: f64 requested but the device %s has no fp64",
                         clpk_context_device_info(ctx)->name);
    clpk_error err = {0};
    if (spmv_csr_validate(A, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    if (!format || !*format || strcmp(format, "auto") == 0) {
        int chose = 0;
        clpk_status st = spmv_select_plan(ctx, A, precision, params, out, &chose, NULL);
        if (st != CLPK_SUCCESS || chose) return st;
    }
    return spmv_plan_create_checked(ctx, A, precision, format, params, out);
}

void clpk_spmv_plan_describe(const clpk_spmv_plan *plan, char *buf, size_t size) {
    if (!buf || !size) return;
    if (!plan) {
        snprintf(buf, size, "(no plan)");
        return;
    }
    core_param_format(&spmv_param_table, &plan->cfg, buf, size);
}

uint64_t clpk_spmv_plan_footprint(const clpk_spmv_plan *plan) { return plan ? plan->footprint : 0; }
int32_t clpk_spmv_plan_rows(const clpk_spmv_plan *plan) { return plan ? plan->rows : 0; }
int32_t clpk_spmv_plan_cols(const clpk_spmv_plan *plan) { return plan ? plan->cols : 0; }
clpk_precision clpk_spmv_plan_precision(const clpk_spmv_plan *plan) {
    return plan ? plan->precision : CLPK_PRECISION_F32;
}

clpk_status clpk_spmv_footprint(const clpk_csr *A, clpk_precision precision, const char *format, const char *params,
                                uint64_t *bytes, clpk_error *err) {
    if (!bytes || !format || strcmp(format, "auto") == 0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_footprint: needs an explicit format");
    if (precision != CLPK_PRECISION_F32 && precision != CLPK_PRECISION_F64)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_footprint: unknown precision");
    CLPK_TRY(spmv_csr_validate(A, err));
    core_params given;
    core_params_clear(&given);
    if (params) CLPK_TRY(core_params_parse(&given, params, err));
    /* no device: the CPU defaults, the same everywhere */
    core_resolved resolved;
    CLPK_TRY(spmv_resolve_explicit(CLPK_DEVICE_CPU, format, &given, &resolved, err));
    spmv_config cfg;
    CLPK_TRY(spmv_config_read(&resolved, A, &cfg, err));
    if (cfg.format == SPMV_CSR) {
        *bytes = spmv_csr_config_footprint(A, &cfg, precision);
        return CLPK_SUCCESS;
    }
    int64_t blocks = 0;
    CLPK_TRY(spmv_bccoo_count(A, &cfg, &blocks, err));
    int64_t n_esc = 0;
    if (cfg.col_delta) { /* the escapes depend on the layout: build it (still linear in nnz) */
        spmv_bccoo b;
        CLPK_TRY(spmv_bccoo_build(A, &cfg, precision, &b, err));
        n_esc = b.n_esc;
        spmv_bccoo_free(&b);
    }
    *bytes = spmv_bccoo_footprint(A, &cfg, precision, blocks, n_esc);
    return CLPK_SUCCESS;
}
clpk_status clpk_spmv_plan_create_coo(clpk_context *ctx, const clpk_coo *A, clpk_precision precision,
                                      const char *format, const char *params, clpk_spmv_plan **plan) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_csr csr;
    clpk_error err = {0};
    if (clpk_coo_to_csr(A, &csr, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    clpk_status st = clpk_spmv_plan_create(ctx, &csr, precision, format, params, plan);
    clpk_csr_free(&csr);
    return st;
}

uint64_t spmv_plan_device_bytes(const clpk_spmv_plan *plan) {
    const cl_mem mems[] = {plan->row_ptr,  plan->col,        plan->val,       plan->values,  plan->flags,
                           plan->cols_idx, plan->entries,    plan->sync,      plan->grp_sum, plan->grp_stop,
                           plan->tmp,      plan->col_base,   plan->esc_start, plan->esc,     plan->csr_blocks,
                           plan->csr_long, plan->csr_partial};
    uint64_t total = 0;
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i) {
        size_t size = 0;
        if (mems[i] && clGetMemObjectInfo(mems[i], CL_MEM_SIZE, sizeof size, &size, NULL) == CL_SUCCESS) total += size;
    }
    return total;
}

clpk_status clpk_spmv_plan_create_mtx(clpk_context *ctx, const char *path, clpk_precision precision, const char *format,
                                      const char *params, clpk_spmv_plan **plan) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!path) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_plan_create_mtx: NULL path");
    clpk_coo coo;
    clpk_error err = {0};
    if (clpk_mtx_read(path, &coo, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    clpk_status st = clpk_spmv_plan_create_coo(ctx, &coo, precision, format, params, plan);
    clpk_coo_free(&coo);
    return st;
}
