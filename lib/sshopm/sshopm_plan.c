/* SS-HOPM plans: kernel choice (generated per (m, n) or general), mapping parameters (profile, then the caller's),
 * build, index tables and shared starts on the device, and the launch. */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SSHOPM_MAX_STARTS (1 << 20) /* the starts generator packs the start index into 20 bits */
#define SSHOPM_MAX_ITER (1 << 28)   /* info packs iterations << 2 into an int */
#define SSHOPM_UNROLL_LIMIT 8192    /* FMAs per gradient beyond which generated source takes minutes to compile */

int clpk_sshopm_unique_count(int order, int dim) { return sshopm_unique_count(order, dim); }

void clpk_sshopm_options_default(clpk_sshopm_options *o) {
    memset(o, 0, sizeof *o);
    o->starts = 128;
    o->starts_kind = CLPK_SSHOPM_STARTS_SHARED;
    o->seed = 1;
    o->find = CLPK_SSHOPM_FIND_MAX;
    o->shift = CLPK_SSHOPM_SHIFT_ADAPTIVE;
    o->max_iter = 1000;
}

static int local_tensors(int wg, int V) { return (wg - 1) / V + 2; }

static clpk_status validate_options(clpk_context *ctx, const clpk_sshopm_options *o, clpk_precision precision) {
    if (o->starts < 1 || o->starts > SSHOPM_MAX_STARTS)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: starts %d out of range 1..%d", o->starts,
                         SSHOPM_MAX_STARTS);
    if (o->starts_kind < CLPK_SSHOPM_STARTS_SHARED || o->starts_kind > CLPK_SSHOPM_STARTS_SPHERE)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: unknown starts kind %d", (int)o->starts_kind);
    if (o->find < CLPK_SSHOPM_FIND_MAX || o->find > CLPK_SSHOPM_FIND_BOTH)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: unknown find mode %d", (int)o->find);
    if (o->shift < CLPK_SSHOPM_SHIFT_BOUND || o->shift > CLPK_SSHOPM_SHIFT_ADAPTIVE)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: unknown shift mode %d", (int)o->shift);
    if (!isfinite(o->alpha) || !isfinite(o->tol) || o->tol < 0 || !isfinite(o->xtol) || o->xtol < 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "sshopm: alpha, tol and xtol must be finite (tol, xtol >= 0)");
    if (o->max_iter < 1 || o->max_iter > SSHOPM_MAX_ITER)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: max_iter %d out of range 1..%d", o->max_iter,
                         SSHOPM_MAX_ITER);
    if (o->shift == CLPK_SSHOPM_SHIFT_FIXED) {
        if (o->find == CLPK_SSHOPM_FIND_MAX && o->alpha < 0)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                             "sshopm: a negative (concave) shift %g finds minima, not maxima", o->alpha);
        if (o->find == CLPK_SSHOPM_FIND_MIN && o->alpha > 0)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                             "sshopm: a positive (convex) shift %g finds maxima, not minima", o->alpha);
    }
    if (precision != CLPK_PRECISION_F32 && precision != CLPK_PRECISION_F64)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: unknown precision %d", (int)precision);
    return CLPK_SUCCESS;
}

/* The choices the resolved parameters leave to the plan: auto kernel and entries from (m, n), unroll_max,
 * private_max and the device's local memory; the work-group within the device. A profile entry was tuned as a whole
 * for one kernel: when the caller overrides part of it (say kernel=general) and a profile value no longer fits
 * (entries=private, local memory beyond the device, a work-group too large), that value falls back to the built-in
 * choice; the same conflict in the caller's own values is an error. */
static clpk_status resolve_params(clpk_sshopm_plan *plan, const core_resolved *r) {
    const int caller_kernel = core_resolved_source(r, "kernel") == CORE_SOURCE_CALLER;
    const int caller_entries = core_resolved_source(r, "entries") == CORE_SOURCE_CALLER;
    const int caller_wg = core_resolved_source(r, "wg") == CORE_SOURCE_CALLER;
    clpk_context *ctx = plan->ctx;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const int m = plan->idx.m, n = plan->idx.n, U = plan->idx.U;
    sshopm_config c, defaults;
    sshopm_config_defaults(dev->kind, &defaults);
    clpk_error err = {0};
    if (core_param_read(&sshopm_param_table, &r->params, &c, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    const int64_t terms = sshopm_unrolled_terms(m, n);
    /* A profile's entry may come from the nearest class of a smaller shape: its generated kernel is only a hint where
     * this shape is past what the tuner offers generated kernels for (unroll_max), which auto then decides. */
    if (c.kernel == KERNEL_GENERATED && !caller_kernel && (terms > c.unroll_max || terms > SSHOPM_UNROLL_LIMIT))
        c.kernel = KERNEL_AUTO;
    if (c.kernel == KERNEL_AUTO) {
        plan->generated = terms <= c.unroll_max && terms <= SSHOPM_UNROLL_LIMIT;
    } else if (c.kernel == KERNEL_GENERATED) {
        if (terms > SSHOPM_UNROLL_LIMIT)
            return core_fail(
                ctx, CLPK_ERROR_UNSUPPORTED,
                "sshopm: order %d, dimension %d is too large to unroll (%lld FMAs per gradient, limit %d); "
                "use kernel=general",
                m, n, (long long)terms, SSHOPM_UNROLL_LIMIT);
        plan->generated = 1;
    } else {
        plan->generated = 0;
    }
    if ((size_t)c.wg > dev->max_work_group_size && !caller_wg) c.wg = defaults.wg;
    if ((size_t)c.wg > dev->max_work_group_size)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "sshopm: work-group size %d outside 1..%zu of this device", c.wg,
                         dev->max_work_group_size);
    plan->wg = c.wg;
    plan->check_every = c.check_every;
    const size_t vsize = clpk_precision_size(plan->precision);
    const uint64_t local_bytes = (uint64_t)local_tensors(plan->wg, plan->opts.starts) * U * vsize;
    if (!caller_entries) {
        const int profile_private = c.entries == ENTRIES_PRIVATE && !plan->generated;
        const int profile_local = c.entries == ENTRIES_LOCAL && local_bytes > dev->local_mem_bytes;
        if (profile_private || profile_local) c.entries = ENTRIES_AUTO;
    }
    if (c.entries == ENTRIES_AUTO) {
        /* private entries are kept pre-multiplied, up to n * C(m+n-2, m-1) registers: U alone understates them */
        if (plan->generated && terms <= c.private_max)
            plan->entries = ENTRIES_PRIVATE;
        else if (local_bytes <= dev->local_mem_bytes)
            plan->entries = ENTRIES_LOCAL;
        else
            plan->entries = ENTRIES_GLOBAL;
        return CLPK_SUCCESS;
    }
    if (c.entries == ENTRIES_PRIVATE && !plan->generated)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "sshopm: entries=private needs the generated kernel (kernel=generated)");
    if (c.entries == ENTRIES_LOCAL && local_bytes > dev->local_mem_bytes)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "sshopm: entries=local needs %llu bytes of local memory (wg %d, %d starts, U %d); the "
                         "device has %llu",
                         (unsigned long long)local_bytes, plan->wg, plan->opts.starts, U,
                         (unsigned long long)dev->local_mem_bytes);
    plan->entries = c.entries;
    return CLPK_SUCCESS;
}

/* The plan's resolved parameters in the table's form (unroll_max and private_max, spent on the choices, stay 0). */
static void plan_config(const clpk_sshopm_plan *plan, sshopm_config *c) {
    *c = (sshopm_config){0};
    c->kernel = plan->generated ? KERNEL_GENERATED : KERNEL_GENERAL;
    c->entries = plan->entries;
    c->wg = plan->wg;
    c->check_every = plan->check_every;
}

/* The caller's parameters: opts->params, then opts->kernel over its kernel (malloc'ed; NULL if none). */
static clpk_status caller_params(clpk_context *ctx, const clpk_sshopm_options *opts, char **out) {
    *out = NULL;
    const char *params = opts && opts->params ? opts->params : "";
    const char *kernel = opts && opts->kernel ? opts->kernel : "";
    if (strpbrk(kernel, ",="))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: kernel '%s' is not auto, generated or general",
                         kernel);
    if (!*params && !*kernel) return CLPK_SUCCESS;
    size_t size = strlen(params) + strlen(kernel) + 16;
    *out = malloc(size);
    if (!*out) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory");
    snprintf(*out, size, "%s%s%s%s", params, *params && *kernel ? "," : "", *kernel ? "kernel=" : "", kernel);
    return CLPK_SUCCESS;
}

static clpk_status upload(clpk_sshopm_plan *plan, cl_mem *buf, const void *data, size_t bytes) {
    cl_int rc;
    *buf = clCreateBuffer(clpk_context_cl_context(plan->ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)data, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(plan->ctx, rc, "clCreateBuffer (sshopm tables)");
    return CLPK_SUCCESS;
}

/* Values in the plan's precision from doubles (malloc'ed). */
static void *to_precision(const double *v, size_t count, clpk_precision p) {
    void *out = malloc(count * clpk_precision_size(p) + 8);
    if (!out) return NULL;
    if (p == CLPK_PRECISION_F64)
        memcpy(out, v, count * sizeof(double));
    else
        for (size_t i = 0; i < count; ++i)
            ((float *)out)[i] = (float)v[i];
    return out;
}

static clpk_status upload_tables(clpk_sshopm_plan *plan) {
    const sshopm_index *idx = &plan->idx;
    const int m = idx->m, n = idx->n, U = idx->U, V = plan->opts.starts;
    double *gcoef = calloc((size_t)U * m, sizeof *gcoef);
    double *starts = calloc((size_t)V * n, sizeof *starts);
    clpk_status st = CLPK_SUCCESS;
    if (!gcoef || !starts) st = core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory");
    for (int u = 0; st == CLPK_SUCCESS && u < U; ++u)
        for (int p = 0; p < m; ++p) {
            int j = idx->rep[u * m + p];
            if (p == 0 || idx->rep[u * m + p - 1] != j) gcoef[u * m + p] = idx->mult[u] * idx->mono[u * n + j] / m;
        }
    if (st == CLPK_SUCCESS) {
        clpk_error err = {0};
        int kind = plan->opts.starts_kind == CLPK_SSHOPM_STARTS_PER_TENSOR ? CLPK_SSHOPM_STARTS_SHARED
                                                                           : (int)plan->opts.starts_kind;
        if (sshopm_make_starts(n, V, kind, plan->opts.seed, starts, &err) != CLPK_SUCCESS)
            st = core_fail_from(plan->ctx, &err);
    }
    void *g = NULL, *mu = NULL, *s = NULL;
    if (st == CLPK_SUCCESS) {
        g = to_precision(gcoef, (size_t)U * m, plan->precision);
        mu = to_precision(idx->mult, (size_t)U, plan->precision);
        s = to_precision(starts, (size_t)V * n, plan->precision);
        if (!g || !mu || !s) st = core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory");
    }
    const size_t vs = clpk_precision_size(plan->precision);
    if (st == CLPK_SUCCESS) st = upload(plan, &plan->rep, idx->rep, (size_t)U * m);
    if (st == CLPK_SUCCESS) st = upload(plan, &plan->gcoef, g, (size_t)U * m * vs);
    if (st == CLPK_SUCCESS) st = upload(plan, &plan->mult, mu, (size_t)U * vs);
    if (st == CLPK_SUCCESS) st = upload(plan, &plan->starts, s, (size_t)V * n * vs);
    free(gcoef);
    free(starts);
    free(g);
    free(mu);
    free(s);
    return st;
}

static clpk_status build_kernel(clpk_sshopm_plan *plan) {
    char options[256];
    const int f64 = plan->precision == CLPK_PRECISION_F64;
    snprintf(options, sizeof options, "-DVALUE_T=%s -DSSHOPM_FP64=%d", f64 ? "double" : "float", f64);
    sshopm_config config;
    plan_config(plan, &config);
    core_param_defines(&sshopm_param_table, &config, options, sizeof options); /* entries, check_every */
    const size_t len = strlen(options);
    snprintf(options + len, sizeof options - len, " -DSSHOPM_ADAPTIVE=%d -DSSHOPM_XTOL=%d",
             plan->opts.shift == CLPK_SSHOPM_SHIFT_ADAPTIVE, plan->opts.xtol > 0);
    cl_program program = NULL;
    if (plan->generated) {
        char *body = sshopm_generate_unrolled(&plan->idx);
        const char *common = core_cl_source("sshopm_common"), *driver = core_cl_source("sshopm_driver");
        if (!common || !driver) {
            free(body);
            return core_fail(plan->ctx, CLPK_ERROR_INTERNAL, "sshopm: embedded kernel sources missing");
        }
        size_t size = body ? strlen(common) + strlen(body) + strlen(driver) + 64 : 0;
        char *text = body ? malloc(size) : NULL;
        if (!text) {
            free(body);
            return core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory generating the kernel");
        }
        snprintf(text, size, "%s\n%s\n%s\n", common, body, driver);
        free(body);
        clpk_status st = core_program_get_text(plan->ctx, text, options, &program);
        free(text);
        CLPK_TRY(st);
    } else {
        const char *names[] = {"sshopm_common", "sshopm_general", "sshopm_driver"};
        CLPK_TRY(core_program_get(plan->ctx, names, 3, options, &program));
    }
    return core_kernel_create(plan->ctx, program, "clpk_sshopm", &plan->kernel);
}

clpk_status clpk_sshopm_plan_create(clpk_context *ctx, int order, int dim, clpk_precision precision,
                                    int64_t max_tensors, const clpk_sshopm_options *opts, clpk_sshopm_plan **out) {
    if (!ctx || !out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: NULL context or plan pointer");
    *out = NULL;
    clpk_sshopm_options o;
    if (opts)
        o = *opts;
    else
        clpk_sshopm_options_default(&o);
    CLPK_TRY(validate_options(ctx, &o, precision));
    if (max_tensors < 1 || max_tensors > (int64_t)1 << 40)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: max_tensors %lld out of range",
                         (long long)max_tensors);
    if (precision == CLPK_PRECISION_F64 && !clpk_context_device_info(ctx)->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "sshopm: f64 requested but the device has no fp64 support");
    /* The default tolerance cannot be met where lambda's rounding (a few ulps of ||A||_F) exceeds it: there it is
     * raised per tensor to 2 ulps of ||A||_F (f32 tensors of norm ~80 otherwise left a sixth of the starts capped). */
    const double tol_floor = o.tol == 0 ? (precision == CLPK_PRECISION_F64 ? 0x1p-51 : 0x1p-22) : 0;
    if (o.tol == 0) o.tol = precision == CLPK_PRECISION_F64 ? 1e-12 : 1e-6;
    o.params = NULL;
    o.kernel = NULL;

    clpk_sshopm_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory");
    plan->ctx = ctx;
    plan->precision = precision;
    plan->max_tensors = max_tensors;
    plan->opts = o;
    plan->tol_floor = tol_floor;
    clpk_error err = {0};
    clpk_status st = sshopm_index_build(order, dim, &plan->idx, &err);
    if (st != CLPK_SUCCESS) {
        free(plan);
        return core_fail_from(ctx, &err);
    }
    /* defaults -> nearest profile entry -> caller, then what auto leaves to the plan */
    core_params features;
    core_params_clear(&features);
    core_params_set_int(&features, "order", order);
    core_params_set_int(&features, "dim", dim);
    core_params_set(&features, "precision", clpk_precision_name(precision));
    char *caller = NULL;
    core_resolved resolved;
    st = caller_params(ctx, opts, &caller);
    if (st == CLPK_SUCCESS) {
        core_resolve_request request = {&sshopm_param_table, &features, caller, NULL, NULL};
        st = core_resolve(ctx, &request, &resolved);
    }
    free(caller);
    if (st == CLPK_SUCCESS) st = resolve_params(plan, &resolved);
    if (st == CLPK_SUCCESS) {
        plan->directions = o.find == CLPK_SSHOPM_FIND_BOTH ? 2 : 1;
        plan->direction[0] = o.find == CLPK_SSHOPM_FIND_MIN ? -1 : 1;
        plan->direction[1] = -1;
        st = upload_tables(plan);
    }
    if (st == CLPK_SUCCESS) st = build_kernel(plan);
    if (st != CLPK_SUCCESS) {
        clpk_sshopm_plan_destroy(plan);
        return st;
    }
    core_log(ctx, CLPK_LOG_DEBUG, "sshopm plan (%d, %d) %s: %s%s", order, dim, clpk_precision_name(precision),
             resolved.choice.found ? "profile " : "defaults ", resolved.choice.path);
    *out = plan;
    return CLPK_SUCCESS;
}

void clpk_sshopm_plan_destroy(clpk_sshopm_plan *plan) {
    if (!plan) return;
    if (plan->kernel) clReleaseKernel(plan->kernel);
    if (plan->reduce_kernel) clReleaseKernel(plan->reduce_kernel);
    cl_mem bufs[] = {plan->rep, plan->gcoef, plan->mult, plan->starts};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    sshopm_index_free(&plan->idx);
    free(plan);
}

/* The tuned parameters (those a profile entry holds), as the plan resolved them. */
void clpk_sshopm_plan_params(const clpk_sshopm_plan *plan, char *buf, size_t size) {
    sshopm_config config;
    plan_config(plan, &config);
    core_params all, tuned;
    core_param_to_params(&sshopm_param_table, &config, &all);
    core_params_clear(&tuned);
    for (int i = 0; i < sshopm_param_table.count; ++i) {
        const core_param_def *d = &sshopm_param_table.defs[i];
        if (d->search) core_params_set(&tuned, d->name, core_params_get(&all, d->name));
    }
    core_params_format(&tuned, buf, size);
}

void clpk_sshopm_plan_describe(const clpk_sshopm_plan *plan, char *buf, size_t size) {
    static const char *const shifts[] = {"bound", "fixed", "adaptive"};
    static const char *const starts[] = {"shared", "per-tensor", "sphere"};
    char params[160];
    clpk_sshopm_plan_params(plan, params, sizeof params);
    snprintf(buf, size, "sshopm order %d dim %d (U %d) %s, %d starts (%s), shift %s, tol %g, max_iter %d: %s",
             plan->idx.m, plan->idx.n, plan->idx.U, clpk_precision_name(plan->precision), plan->opts.starts,
             starts[plan->opts.starts_kind], shifts[plan->opts.shift], plan->opts.tol, plan->opts.max_iter, params);
}

int clpk_sshopm_plan_is_generated(const clpk_sshopm_plan *plan) { return plan ? plan->generated : 0; }

double clpk_sshopm_plan_iteration_flops(const clpk_sshopm_plan *plan) {
    return sshopm_iteration_flops(plan->idx.m, plan->idx.n);
}

void sshopm_args_begin(core_args *a, clpk_sshopm_plan *plan, cl_kernel k, int64_t n_tensors, cl_mem tensors) {
    const cl_long T = n_tensors;
    const cl_int V = plan->opts.starts, n = plan->idx.n, m = plan->idx.m, U = plan->idx.U;
    core_args_begin(a, plan->ctx, k, 0);
    CLPK_ARG(a, T);
    CLPK_ARG(a, V);
    CLPK_ARG(a, n);
    CLPK_ARG(a, m);
    CLPK_ARG(a, U);
    CLPK_ARG(a, plan->rep);
    CLPK_ARG(a, plan->gcoef);
    CLPK_ARG(a, plan->mult);
    CLPK_ARG(a, tensors);
}

clpk_status clpk_sshopm_execute(clpk_sshopm_plan *plan, int64_t n_tensors, cl_mem tensors, int direction, cl_mem lambda,
                                cl_mem x, cl_mem info, cl_uint n_wait, const cl_event *wait, cl_event *done) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_context *ctx = plan->ctx;
    if (n_tensors < 1 || n_tensors > plan->max_tensors)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: %lld tensors; the plan takes 1..%lld",
                         (long long)n_tensors, (long long)plan->max_tensors);
    if (!tensors || !lambda || !x || !info)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: NULL device buffer");
    if (direction != 1 && direction != -1)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: direction must be +1 or -1");
    const int V = plan->opts.starts, n = plan->idx.n, U = plan->idx.U;
    const size_t vs = clpk_precision_size(plan->precision);
    /* Buffers too small would be written out of bounds: check them. */
    struct {
        cl_mem buf;
        size_t need;
        const char *name;
    } checks[] = {{tensors, (size_t)n_tensors * U * vs, "tensors"},
                  {lambda, (size_t)n_tensors * V * vs, "lambda"},
                  {x, (size_t)n_tensors * V * n * vs, "x"},
                  {info, (size_t)n_tensors * V * sizeof(cl_int), "info"}};
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; ++i) {
        size_t have = 0;
        CLPK_CL_TRY(ctx, clGetMemObjectInfo(checks[i].buf, CL_MEM_SIZE, sizeof have, &have, NULL));
        if (have < checks[i].need)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: buffer %s holds %zu bytes, needs %zu",
                             checks[i].name, have, checks[i].need);
    }
    /* A fixed shift's sign follows the direction (validated against `find` at plan creation). */
    double alpha = plan->opts.shift == CLPK_SSHOPM_SHIFT_FIXED ? direction * fabs(plan->opts.alpha) : 0;
    const cl_int per_tensor = plan->opts.starts_kind == CLPK_SSHOPM_STARTS_PER_TENSOR;
    const cl_ulong seed = plan->opts.seed;
    const cl_int dir = direction, shift_mode = (cl_int)plan->opts.shift, max_iter = plan->opts.max_iter;
    float af = (float)alpha, tf = (float)plan->opts.tol, xf = (float)plan->opts.xtol, ff = (float)plan->tol_floor;
    double ad = alpha, td = plan->opts.tol, xd = plan->opts.xtol, fd = plan->tol_floor;
    if (plan->fixed_iterations) tf = -1.0f, td = -1.0; /* |dlambda| <= -1 never holds: max_iter iterations */
    const int f64 = plan->precision == CLPK_PRECISION_F64;
    size_t local_bytes = plan->entries == ENTRIES_LOCAL ? (size_t)local_tensors(plan->wg, V) * U * vs : vs;
    cl_kernel k = plan->kernel;
    core_args args;
    sshopm_args_begin(&args, plan, k, n_tensors, tensors);
    CLPK_ARG(&args, plan->starts);
    CLPK_ARG(&args, per_tensor);
    CLPK_ARG(&args, seed);
    CLPK_ARG(&args, dir);
    CLPK_ARG(&args, shift_mode);
    if (f64)
        CLPK_ARG(&args, ad);
    else
        CLPK_ARG(&args, af);
    if (f64)
        CLPK_ARG(&args, td);
    else
        CLPK_ARG(&args, tf);
    if (f64)
        CLPK_ARG(&args, fd);
    else
        CLPK_ARG(&args, ff);
    if (f64)
        CLPK_ARG(&args, xd);
    else
        CLPK_ARG(&args, xf);
    CLPK_ARG(&args, max_iter);
    CLPK_ARG(&args, lambda);
    CLPK_ARG(&args, x);
    CLPK_ARG(&args, info);
    core_args_local(&args, local_bytes);
    CLPK_TRY(core_args_end(&args));
    size_t local = (size_t)plan->wg;
    size_t global = (size_t)((n_tensors * V + plan->wg - 1) / plan->wg) * local;
    CLPK_CL_TRY(ctx, clEnqueueNDRangeKernel(clpk_context_queue(ctx), k, 1, NULL, &global, &local, n_wait, wait, done));
    return CLPK_SUCCESS;
}

void clpk_sshopm_raw_free(clpk_sshopm_raw *raw) {
    if (!raw) return;
    free(raw->lambda);
    free(raw->x);
    free(raw->info);
    memset(raw, 0, sizeof *raw);
}

clpk_status clpk_sshopm_run_host(clpk_sshopm_plan *plan, const double *tensors, int64_t n_tensors,
                                 clpk_sshopm_raw *raw) {
    if (!plan || !tensors || !raw) return CLPK_ERROR_INVALID_ARGUMENT;
    memset(raw, 0, sizeof *raw);
    clpk_context *ctx = plan->ctx;
    if (n_tensors < 1) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: no tensors");
    const int V = plan->opts.starts, n = plan->idx.n, U = plan->idx.U, D = plan->directions;
    for (int64_t i = 0; i < n_tensors * U; ++i)
        if (!isfinite(tensors[i]))
            return core_fail(ctx, CLPK_ERROR_INVALID_DATA, "sshopm: tensor %lld entry %lld is not finite",
                             (long long)(i / U), (long long)(i % U));
    raw->n_tensors = n_tensors;
    raw->order = plan->idx.m;
    raw->dim = n;
    raw->starts = V;
    raw->directions = D;
    raw->direction[0] = plan->direction[0];
    raw->direction[1] = D > 1 ? plan->direction[1] : 0;
    raw->lambda = malloc((size_t)n_tensors * D * V * sizeof *raw->lambda);
    raw->x = malloc((size_t)n_tensors * D * V * n * sizeof *raw->x);
    raw->info = malloc((size_t)n_tensors * D * V * sizeof *raw->info);
    const int64_t chunk = n_tensors < plan->max_tensors ? n_tensors : plan->max_tensors;
    const size_t vs = clpk_precision_size(plan->precision);
    void *host_t = malloc((size_t)chunk * U * vs + 8);
    void *host_l = malloc((size_t)chunk * V * vs + 8);
    void *host_x = malloc((size_t)chunk * V * n * vs + 8);
    clpk_status st = CLPK_SUCCESS;
    if (!raw->lambda || !raw->x || !raw->info || !host_t || !host_l || !host_x)
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of host memory for %lld tensors",
                       (long long)n_tensors);
    cl_mem bt = NULL, bl = NULL, bx = NULL, bi = NULL;
    cl_context c = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc = CL_SUCCESS;
    if (st == CLPK_SUCCESS) {
        bt = clCreateBuffer(c, CL_MEM_READ_ONLY, (size_t)chunk * U * vs, NULL, &rc);
        if (rc == CL_SUCCESS) bl = clCreateBuffer(c, CL_MEM_WRITE_ONLY, (size_t)chunk * V * vs, NULL, &rc);
        if (rc == CL_SUCCESS) bx = clCreateBuffer(c, CL_MEM_WRITE_ONLY, (size_t)chunk * V * n * vs, NULL, &rc);
        if (rc == CL_SUCCESS) bi = clCreateBuffer(c, CL_MEM_WRITE_ONLY, (size_t)chunk * V * sizeof(cl_int), NULL, &rc);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer (sshopm batch)");
    }
    for (int64_t t0 = 0; st == CLPK_SUCCESS && t0 < n_tensors; t0 += chunk) {
        int64_t nt = n_tensors - t0 < chunk ? n_tensors - t0 : chunk;
        for (int64_t i = 0; i < nt * U; ++i) {
            if (vs == 8)
                ((double *)host_t)[i] = tensors[t0 * U + i];
            else
                ((float *)host_t)[i] = (float)tensors[t0 * U + i];
        }
        rc = clEnqueueWriteBuffer(q, bt, CL_TRUE, 0, (size_t)nt * U * vs, host_t, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            st = core_fail_cl(ctx, rc, "clEnqueueWriteBuffer (sshopm tensors)");
            break;
        }
        for (int d = 0; st == CLPK_SUCCESS && d < D; ++d) {
            st = clpk_sshopm_execute(plan, nt, bt, plan->direction[d], bl, bx, bi, 0, NULL, NULL);
            if (st != CLPK_SUCCESS) break;
            int32_t *info = malloc((size_t)nt * V * sizeof *info);
            if (!info) {
                st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory");
                break;
            }
            rc = clEnqueueReadBuffer(q, bl, CL_FALSE, 0, (size_t)nt * V * vs, host_l, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, bx, CL_FALSE, 0, (size_t)nt * V * n * vs, host_x, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, bi, CL_TRUE, 0, (size_t)nt * V * sizeof *info, info, 0, NULL, NULL);
            if (rc != CL_SUCCESS) {
                free(info);
                st = core_fail_cl(ctx, rc, "clEnqueueReadBuffer (sshopm results)");
                break;
            }
            for (int64_t t = 0; t < nt; ++t)
                for (int s = 0; s < V; ++s) {
                    size_t src = (size_t)t * V + s, dst = ((size_t)(t0 + t) * D + d) * V + s;
                    raw->lambda[dst] = vs == 8 ? ((double *)host_l)[src] : ((float *)host_l)[src];
                    raw->info[dst] = info[src];
                    for (int i = 0; i < n; ++i)
                        raw->x[dst * n + i] =
                            vs == 8 ? ((double *)host_x)[src * n + i] : ((float *)host_x)[src * n + i];
                }
            free(info);
        }
    }
    cl_mem bufs[] = {bt, bl, bx, bi};
    for (int i = 0; i < 4; ++i)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    free(host_t);
    free(host_l);
    free(host_x);
    if (st != CLPK_SUCCESS) clpk_sshopm_raw_free(raw);
    return st;
}
