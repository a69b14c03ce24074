/* SS-HOPM driver kernel: one work-item per (tensor, start), work-items of a group cover consecutive (tensor, start)
 * pairs, so a group holds the starts of one or a few tensors. Entries come from local memory (the group's tensors,
 * loaded coalesced once), straight from global memory, or private registers (generated kernels). Iterations run in
 * fixed blocks of SSHOPM_CHECK_EVERY; a block ends the run when the test |dlambda| <= tol (and max|dx| <= xtol
 * with SSHOPM_XTOL, built when xtol > 0) held at one of its iterations and, too, at its last iteration (within
 * SSHOPM_LAST_SLACK) or in the block before; results are written once at the end.
 *
 * The gradient provider defines DIM (loop bound: a literal or n_rt), DIM_CAP (array size), sshopm_gradient,
 * sshopm_frob2 and, with SSHOPM_ADAPTIVE, sshopm_hessian_step.
 *
 * lambda = x . (A x^(m-1)) comes from the gradient already computed for the next step, so one gradient per
 * iteration does both jobs. With the adaptive shift, H = A x^(m-2) is needed anyway: the gradient is y = H x (n^2
 * FMAs instead of a second expansion) and the shift for the next step comes from H's Gershgorin bounds. A start whose
 * lambda drops by more than rounding (local convexity at x_k does not make a long step monotone) falls back to the
 * bound shift, which does, for the rest of its run. */
#define SSHOPM_CONVERGED 0
#define SSHOPM_CAPPED 1
#define SSHOPM_FAILED 2

/* What the iterations of a run carry and read besides x and y. */
typedef struct {
    VALUE_T lambda, shift, sign, tol_eff;
#if SSHOPM_ADAPTIVE
    VALUE_T lo, hi, bound, drop;
    int fallback, direction;
#endif
#if SSHOPM_XTOL
    VALUE_T xtol;
    int met, met_last; /* the block test held at one iteration / at the last one */
#else
    VALUE_T step_min, step_last; /* the block's smallest and last lambda step */
#endif
} sshopm_run;

/* One iteration: x = sign (y + shift x) / ||y + shift x||, then the gradient y and lambda at the new x, and the
 * block test's bookkeeping. H: the entries the adaptive shift's Hessian takes (the plain ones). */
void sshopm_iterate(ENTRY_SPACE const VALUE_T *A, ENTRY_SPACE const VALUE_T *H, VALUE_T *x, VALUE_T *y,
                    sshopm_run *r, SSHOPM_TABLE_PARAMS);
void sshopm_iterate(ENTRY_SPACE const VALUE_T *A, ENTRY_SPACE const VALUE_T *H, VALUE_T *x, VALUE_T *y,
                    sshopm_run *r, SSHOPM_TABLE_PARAMS) {
#if SSHOPM_ADAPTIVE
    {
        /* Kolda-Mayo (2014): locally convex (concave) at x with H's extreme eigenvalue replaced by its Gershgorin
         * bound (only larger |shift|); the bound shift once the start has fallen back */
        const VALUE_T m_ = (VALUE_T)(SSHOPM_ORDER_EXPR);
        const VALUE_T tau = (VALUE_T)1e-6;
        const VALUE_T adaptive = r->direction > 0 ? fmax((VALUE_T)0, tau / m_ - (m_ - (VALUE_T)1) * r->lo)
                                                  : fmin((VALUE_T)0, -(tau / m_ + (m_ - (VALUE_T)1) * r->hi));
        r->shift = r->fallback ? r->bound : adaptive;
    }
#else
    (void)H;
#endif
    /* the sign rides on the inverse norm */
    VALUE_T nrm = (VALUE_T)0;
    for (int i = 0; i < DIM; ++i) {
        y[i] = fma(r->shift, x[i], y[i]);
        nrm = fma(y[i], y[i], nrm);
    }
    /* A vanished iterate gives inf * 0 = NaN below, caught as a failure at the check. */
    const VALUE_T inv = r->sign * rsqrt(nrm);
#if SSHOPM_XTOL
    VALUE_T dx = (VALUE_T)0;
    for (int i = 0; i < DIM; ++i) {
        const VALUE_T v = y[i] * inv;
        dx = fmax(dx, fabs(v - x[i]));
        x[i] = v;
    }
#else
    for (int i = 0; i < DIM; ++i) x[i] = y[i] * inv;
#endif
#if SSHOPM_ADAPTIVE
    const VALUE_T next = sshopm_hessian_step(H, x, y, &r->lo, &r->hi, SSHOPM_TABLE_ARGS);
    r->fallback |= r->sign * (next - r->lambda) < -r->drop;
#else
    const VALUE_T next = sshopm_gradient(A, x, y, SSHOPM_TABLE_ARGS);
#endif
    const VALUE_T step = fabs(next - r->lambda);
#if SSHOPM_XTOL
    r->met |= step <= r->tol_eff && dx <= r->xtol;
    r->met_last = step <= (VALUE_T)SSHOPM_LAST_SLACK * r->tol_eff && dx <= (VALUE_T)SSHOPM_LAST_SLACK * r->xtol;
#else
    r->step_last = step;
    r->step_min = fmin(r->step_min, step);
#endif
    r->lambda = next;
}

__kernel void clpk_sshopm(const long T, const int V, SSHOPM_TABLE_PARAMS, __global const VALUE_T *tensors,
                          __global const VALUE_T *starts, const int per_tensor_starts, const ulong seed,
                          const int direction, const int shift_mode, const VALUE_T alpha, const VALUE_T tol,
                          const VALUE_T tol_floor, const VALUE_T xtol, const int max_iter, __global VALUE_T *lambda_out,
                          __global VALUE_T *x_out, __global int *info_out, __local VALUE_T *local_entries) {
    const long g = get_global_id(0);
    const long total = T * (long)V;
#if SSHOPM_ENTRIES == SSHOPM_ENTRIES_LOCAL
    /* The group's tensors are contiguous in global memory: one coalesced copy, then a uniform barrier. */
    const long g0 = (long)get_group_id(0) * (long)get_local_size(0);
    const long t_first = g0 / V;
    long t_last = (g0 + (long)get_local_size(0) - 1) / V;
    if (t_last > T - 1) t_last = T - 1;
    const int count = t_last >= t_first ? (int)((t_last - t_first + 1) * U_rt) : 0;
    for (int i = (int)get_local_id(0); i < count; i += (int)get_local_size(0))
        local_entries[i] = tensors[t_first * U_rt + i];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    if (g >= total) return;
    const long t = g / V;
    const int s = (int)(g - t * V);

#if SSHOPM_ENTRIES == SSHOPM_ENTRIES_LOCAL
    __local const VALUE_T *A = local_entries + (t - t_first) * U_rt;
#elif SSHOPM_ENTRIES == SSHOPM_ENTRIES_GLOBAL
    __global const VALUE_T *A = tensors + t * U_rt;
#else
    /* Generated kernels only: the entries, pre-multiplied by their literal coefficients, in registers. */
    VALUE_T A[SSHOPM_PRIVATE_COUNT];
    VALUE_T A_raw[SSHOPM_U]; /* the plain entries, for A x^(m-2) of the adaptive shift (dead code otherwise) */
    VALUE_T frob2_private;
    SSHOPM_LOAD_PRIVATE(A, A_raw, tensors + t * SSHOPM_U, frob2_private);
#define HESSIAN_ENTRIES A_raw
#endif
#ifndef HESSIAN_ENTRIES
#define HESSIAN_ENTRIES A
#endif

    VALUE_T x[DIM_CAP], y[DIM_CAP];
    VALUE_T norm2 = (VALUE_T)0;
    for (int i = 0; i < DIM; ++i) {
        x[i] = per_tensor_starts ? sshopm_start_component(seed, t, s, i) : starts[s * DIM + i];
        norm2 += x[i] * x[i];
    }
    if (norm2 < (VALUE_T)1e-6) {
        for (int i = 0; i < DIM; ++i) x[i] = (VALUE_T)(i == s % DIM);
    } else {
        const VALUE_T inv = rsqrt(norm2);
        for (int i = 0; i < DIM; ++i) x[i] *= inv;
    }

    VALUE_T frob = (VALUE_T)0;
    if (shift_mode != 1 || tol_floor > (VALUE_T)0) {
#if SSHOPM_ENTRIES == SSHOPM_ENTRIES_PRIVATE
        frob = sqrt(frob2_private);
#else
        frob = sqrt(sshopm_frob2(A, SSHOPM_TABLE_ARGS));
#endif
    }
    sshopm_run r;
    r.shift = shift_mode != 1 ? (VALUE_T)direction * (VALUE_T)(SSHOPM_ORDER_EXPR - 1) * frob : alpha;
    r.sign = (VALUE_T)direction;
    /* the default tolerance is raised to the rounding level of lambda (about tol_floor ||A||_F; tol < 0: none) */
    r.tol_eff = tol < (VALUE_T)0 ? tol : fmax(tol, tol_floor * frob);
#if SSHOPM_ADAPTIVE
    r.bound = r.shift;
    r.drop = (VALUE_T)SSHOPM_DROP_EPS * frob; /* |lambda| <= ||A||_F: a drop beyond rounding */
    r.direction = direction;
    r.fallback = 0;
    r.lambda = sshopm_hessian_step(HESSIAN_ENTRIES, x, y, &r.lo, &r.hi, SSHOPM_TABLE_ARGS);
#else
    r.lambda = sshopm_gradient(A, x, y, SSHOPM_TABLE_ARGS);
#endif
#if SSHOPM_XTOL
    r.xtol = xtol;
#endif
    int status = SSHOPM_CAPPED;
    int it = 0, held_before = 0;
    while (it < max_iter) {
        /* The test holds at any iteration of the block, not only its last: in f32 lambda can settle into a cycle
         * of period 2 whose steps alternate between 0 and more than tol, and a check every even iteration may
         * only ever see the large one (0.1 % of (4,3) starts ran to max_iter with check_every 16). But a start
         * that begins (or passes) next to a minimum or saddle takes tiny steps before it speeds away, and stopping
         * there would report an x already moving off, no eigenpair: the test must also hold at the block's last
         * iteration, within SSHOPM_LAST_SLACK for rounding noise, or in the block before (the cycle holds in every
         * block). Without xtol that is the block's smallest and last lambda step against tol (two instructions an
         * iteration); with xtol both conditions must hold at one iteration, so the x step is compiled in only
         * then. */
#if SSHOPM_XTOL
        r.met = 0;
        r.met_last = 0;
#else
        r.step_min = (VALUE_T)INFINITY;
        r.step_last = (VALUE_T)INFINITY;
#endif
        /* max_iter is honoured exactly: a last partial block stops at it. Full blocks have a literal trip count,
         * so their iterations are unrolled without a test each. */
        const int block = min(SSHOPM_CHECK_EVERY, max_iter - it);
        if (block == SSHOPM_CHECK_EVERY) {
            for (int k = 0; k < SSHOPM_CHECK_EVERY; ++k)
                sshopm_iterate(A, HESSIAN_ENTRIES, x, y, &r, SSHOPM_TABLE_ARGS);
        } else {
            for (int k = 0; k < block; ++k) sshopm_iterate(A, HESSIAN_ENTRIES, x, y, &r, SSHOPM_TABLE_ARGS);
        }
        it += block;
        /* a NaN iterate (vanished y) reaches lambda, which comes from it */
        if (!isfinite(r.lambda)) {
            status = SSHOPM_FAILED;
            break;
        }
#if SSHOPM_XTOL
        const int held = r.met, held_last = r.met_last;
#else
        const int held = r.step_min <= r.tol_eff, held_last = r.step_last <= (VALUE_T)SSHOPM_LAST_SLACK * r.tol_eff;
#endif
        if (held && (held_last || held_before)) {
            status = SSHOPM_CONVERGED;
            break;
        }
        held_before = held;
    }
    lambda_out[g] = r.lambda;
    for (int i = 0; i < DIM; ++i) x_out[g * DIM + i] = x[i];
    info_out[g] = status | (it << 2);
}
