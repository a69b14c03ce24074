/* Post-processing on the device against the host's: the same distinct pairs (lambda, x, hits, type) and start
 * counts per tensor for several shapes, precisions, directions and shifts, and with a cap that leaves most starts
 * capped (both paths polish those on the host: the same polished and unconverged counts), no two pairs within the
 * clustering tolerances of each other (a pair found from both directions is one pair); the reduce kernel writes
 * every slot (NaN-poisoned before) and counts what it had to drop when max_pairs is small; bad arguments are refused.
 */
#include "clpk_sshopm.h"
#include "sshopm_util.h"

typedef struct reduce_case {
    int m, n;
    clpk_precision prec;
    clpk_sshopm_find find;
    clpk_sshopm_shift shift;
    double alpha;
    int max_iter;
} reduce_case;

static void compare_case(clpk_context *ctx, const reduce_case *c, uint64_t *rng) {
    const int T = 12, U = clpk_sshopm_unique_count(c->m, c->n);
    double *a = malloc((size_t)T * U * sizeof *a);
    for (int t = 0; t < T; ++t)
        sshopm_random_tensor(rng, U, a + (size_t)t * U);
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = 48;
    o.find = c->find;
    o.shift = c->shift;
    o.alpha = c->alpha;
    o.seed = check_rand(rng);
    o.max_iter = c->max_iter;
    char label[96];
    snprintf(label, sizeof label, "(%d,%d) %s find %d shift %d max_iter %d", c->m, c->n, clpk_precision_name(c->prec),
             (int)c->find, (int)c->shift, c->max_iter);
    clpk_sshopm_plan *plan = NULL;
    if (!CHECK(clpk_sshopm_plan_create(ctx, c->m, c->n, c->prec, 5, &o, &plan) == CLPK_SUCCESS, "%s: plan: %s", label,
               clpk_last_error(ctx))) {
        free(a);
        return;
    }
    clpk_sshopm_result host, dev;
    /* max_tensors 5 < T: both paths run in chunks */
    int ok = CHECK(clpk_sshopm_solve_host(plan, a, T, NULL, &host) == CLPK_SUCCESS, "%s: host: %s", label,
                   clpk_last_error(ctx));
    ok &= CHECK(clpk_sshopm_solve_device(plan, a, T, NULL, 0, &dev) == CLPK_SUCCESS, "%s: device: %s", label,
                clpk_last_error(ctx));
    int bad = 0, pairs = 0, capped = 0, polished = 0;
    for (int t = 0; ok && t < T; ++t) {
        const clpk_sshopm_tensor_result *h = &host.tensors[t], *d = &dev.tensors[t];
        capped += h->capped;
        polished += h->polished;
        if (h->count != d->count || h->converged != d->converged || h->capped != d->capped || h->failed != d->failed ||
            h->polished != d->polished || h->unconverged != d->unconverged || d->dropped != 0) {
            if (bad++ < 3)
                CHECK(0,
                      "%s tensor %d: host %d pairs %d/%d/%d (%d polished), device %d pairs %d/%d/%d (%d polished, "
                      "dropped %d)",
                      label, t, h->count, h->converged, h->capped, h->failed, h->polished, d->count, d->converged,
                      d->capped, d->failed, d->polished, d->dropped);
            continue;
        }
        for (int i = 0; i < h->count; ++i) {
            const clpk_sshopm_eigenpair *p = &h->pairs[i];
            int match = 0;
            for (int k = 0; k < d->count && !match; ++k) {
                const clpk_sshopm_eigenpair *q = &d->pairs[k];
                match = fabs(p->lambda - q->lambda) <= 1e-12 * fmax(1, fabs(p->lambda)) &&
                        sshopm_xdist(c->n, p->x, q->x, 0) <= 1e-12 && p->hits == q->hits && p->type == q->type;
            }
            ++pairs;
            if (!match && bad++ < 3)
                CHECK(0, "%s tensor %d: host pair lambda %.9g (%s, %d hits) not on the device", label, t, p->lambda,
                      clpk_sshopm_type_name(p->type), p->hits);
        }
        for (int k = 1; k < d->count; ++k)
            if (d->pairs[k].lambda > d->pairs[k - 1].lambda && bad++ < 3)
                CHECK(0, "%s: device pairs not sorted", label);
        /* distinct pairs are distinct under the clustering rule, also when two directions found one pair */
        const clpk_sshopm_tensor_result *both[2] = {h, d};
        clpk_sshopm_post_options po;
        clpk_sshopm_post_options_default(&po);
        for (int r = 0; r < 2; ++r)
            for (int i = 0; i < both[r]->count; ++i)
                for (int k = 0; k < i; ++k) {
                    const clpk_sshopm_eigenpair *p = &both[r]->pairs[i], *q = &both[r]->pairs[k];
                    if (fabs(p->lambda - q->lambda) <= po.lambda_tol * fmax(1, fabs(p->lambda)) &&
                        sshopm_xdist(c->n, p->x, q->x, c->m % 2 == 0) <= po.x_tol && bad++ < 3)
                        CHECK(0, "%s tensor %d: %s pairs %d and %d are one pair (lambda %.9g)", label, t,
                              r ? "device" : "host", k, i, p->lambda);
                }
    }
    CHECK(bad == 0, "%s: %d mismatches", label, bad);
    if (c->max_iter < 100) CHECK(polished > 0, "%s: no capped start polished: the capped path was not run", label);
    printf("%-52s %d tensors, %d pairs agree (%d capped starts, %d polished)\n", label, T, pairs, capped, polished);
    if (ok) {
        clpk_sshopm_result_free(&host);
        clpk_sshopm_result_free(&dev);
    }
    clpk_sshopm_plan_destroy(plan);
    free(a);
}

/* Tensors far from unit norm (the default tolerances are absolute below |lambda| = 1; f32 squares overflow near 1e19):
 * both solve paths give the pairs of the same tensors at unit norm, lambda times the norm, the same types; without
 * the scaling, at 1e-9 they came back as dozens of degenerate pairs a tensor, at 1e25 in f32 as failed starts. */
static void far_norm(clpk_context *ctx, clpk_precision prec, double scale, uint64_t *rng) {
    const int m = 4, n = 3, T = 6, U = clpk_sshopm_unique_count(m, n);
    double *unit = malloc((size_t)T * U * sizeof *unit), *small = malloc((size_t)T * U * sizeof *small);
    double norm[6];
    sshopm_index idx;
    if (!CHECK(sshopm_index_build(m, n, &idx, NULL) == CLPK_SUCCESS, "index")) {
        free(unit), free(small);
        return;
    }
    for (int t = 0; t < T; ++t) {
        double *a = unit + (size_t)t * U, s = 0;
        sshopm_random_tensor(rng, U, a);
        s = sshopm_ref_frobenius(&idx, a);
        for (int u = 0; u < U; ++u) {
            a[u] /= s;
            small[(size_t)t * U + u] = a[u] * s * scale;
        }
        norm[t] = s * scale;
    }
    sshopm_index_free(&idx);
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = 32;
    o.seed = check_rand(rng);
    clpk_sshopm_plan *plan = NULL;
    if (!CHECK(clpk_sshopm_plan_create(ctx, m, n, prec, T, &o, &plan) == CLPK_SUCCESS, "norm %.0e plan: %s", scale,
               clpk_last_error(ctx))) {
        free(unit), free(small);
        return;
    }
    const double ltol = prec == CLPK_PRECISION_F32 ? 1e-4 : 1e-9;
    /* paths: host, device, host then clpk_sshopm_polish (which re-classifies: at unit norm too) */
    const char *names[] = {"host", "device", "host+polish"};
    for (int path = 0; path < 3; ++path) {
        clpk_sshopm_result ru, rs;
        clpk_error err = {0};
        int ok = path == 1 ? clpk_sshopm_solve_device(plan, unit, T, NULL, 0, &ru) == CLPK_SUCCESS
                           : clpk_sshopm_solve_host(plan, unit, T, NULL, &ru) == CLPK_SUCCESS;
        ok = ok && (path == 1 ? clpk_sshopm_solve_device(plan, small, T, NULL, 0, &rs) == CLPK_SUCCESS
                              : clpk_sshopm_solve_host(plan, small, T, NULL, &rs) == CLPK_SUCCESS);
        if (ok && path == 2)
            ok = clpk_sshopm_polish(unit, &ru, 3, 0, &err) == CLPK_SUCCESS &&
                 clpk_sshopm_polish(small, &rs, 3, 0, &err) == CLPK_SUCCESS;
        if (!CHECK(ok, "norm %.0e %s: %s %s", scale, names[path], clpk_last_error(ctx), err.message)) continue;
        int bad = 0, pairs = 0;
        for (int t = 0; t < T; ++t) {
            const clpk_sshopm_tensor_result *u = &ru.tensors[t], *s = &rs.tensors[t];
            if (u->count != s->count && bad++ < 3)
                CHECK(0, "norm %.0e %s tensor %d: %d pairs at unit norm, %d at norm %.3g", scale, names[path], t,
                      u->count, s->count, norm[t]);
            for (int i = 0; i < u->count && i < s->count; ++i) {
                const clpk_sshopm_eigenpair *p = &u->pairs[i], *q = &s->pairs[i];
                ++pairs;
                if ((fabs(q->lambda / norm[t] - p->lambda) > ltol * fmax(1, fabs(p->lambda)) || p->type != q->type ||
                     sshopm_xdist(n, p->x, q->x, 1) > 1e-2) &&
                    bad++ < 3)
                    CHECK(0, "norm %.0e %s tensor %d pair %d: lambda %.9g (%s) at unit norm, %.9g (%s) / norm", scale,
                          names[path], t, i, p->lambda, clpk_sshopm_type_name(p->type), q->lambda / norm[t],
                          clpk_sshopm_type_name(q->type));
            }
        }
        CHECK(bad == 0 && pairs >= T, "norm %.0e %s %s: %d mismatches of %d pairs", scale, clpk_precision_name(prec),
              names[path], bad, pairs);
        printf("norm %.0e %s %s: %d pairs as at unit norm\n", scale, clpk_precision_name(prec), names[path], pairs);
        clpk_sshopm_result_free(&ru);
        clpk_sshopm_result_free(&rs);
    }
    clpk_sshopm_plan_destroy(plan);
    free(unit), free(small);
}

/* Direct use: poisoned outputs, every slot written, dropped counted with a small max_pairs. */
static void poisoned_slots(clpk_context *ctx, uint64_t *rng) {
    const int T = 6, V = 64, K = 2, U = 15, base = 1, slots = base + T;
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = V;
    o.find = CLPK_SSHOPM_FIND_MAX;
    clpk_sshopm_plan *plan = NULL;
    if (!CHECK(clpk_sshopm_plan_create(ctx, 4, 3, CLPK_PRECISION_F32, T, &o, &plan) == CLPK_SUCCESS, "plan: %s",
               clpk_last_error(ctx)))
        return;
    float a[6 * 15];
    for (int i = 0; i < T * U; ++i)
        a[i] = (float)(2 * check_rand_double(rng) - 1);
    cl_context cc = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc;
    cl_mem bt = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &rc);
    cl_mem bl = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)T * V * 4, NULL, &rc);
    cl_mem bx = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)T * V * 3 * 4, NULL, &rc);
    cl_mem bi = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)T * V * 4, NULL, &rc);
    cl_mem ol = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)slots * K * 4, NULL, &rc);
    cl_mem ox = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)slots * K * 3 * 4, NULL, &rc);
    cl_mem om = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)slots * K * 4, NULL, &rc);
    cl_mem oc = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)slots * 5 * 4, NULL, &rc);
    const float poison_f = 12345.0f;
    const cl_int poison_i = -7;
    clEnqueueFillBuffer(q, ol, &poison_f, 4, 0, (size_t)slots * K * 4, 0, NULL, NULL);
    clEnqueueFillBuffer(q, ox, &poison_f, 4, 0, (size_t)slots * K * 3 * 4, 0, NULL, NULL);
    clEnqueueFillBuffer(q, om, &poison_i, 4, 0, (size_t)slots * K * 4, 0, NULL, NULL);
    clEnqueueFillBuffer(q, oc, &poison_i, 4, 0, (size_t)slots * 5 * 4, 0, NULL, NULL);
    CHECK(clpk_sshopm_execute(plan, T, bt, 1, bl, bx, bi, 0, NULL, NULL) == CLPK_SUCCESS, "execute");
    CHECK(clpk_sshopm_reduce(plan, T, bt, bl, bx, bi, NULL, K, base, ol, ox, om, oc, 0, NULL, NULL) == CLPK_SUCCESS,
          "reduce: %s", clpk_last_error(ctx));
    CHECK(clpk_sshopm_reduce(plan, T, bt, bl, bx, bi, NULL, K, base + 1, ol, ox, om, oc, 0, NULL, NULL) ==
              CLPK_ERROR_INVALID_ARGUMENT,
          "slots past the output buffers refused");
    CHECK(clpk_sshopm_reduce(plan, T, bt, bl, bx, bi, NULL, 0, base, ol, ox, om, oc, 0, NULL, NULL) ==
              CLPK_ERROR_INVALID_ARGUMENT,
          "max_pairs 0 refused");
    float hl[14], hx[42];
    cl_int hm[14], hc[35];
    clEnqueueReadBuffer(q, ol, CL_TRUE, 0, sizeof hl, hl, 0, NULL, NULL);
    clEnqueueReadBuffer(q, ox, CL_TRUE, 0, sizeof hx, hx, 0, NULL, NULL);
    clEnqueueReadBuffer(q, om, CL_TRUE, 0, sizeof hm, hm, 0, NULL, NULL);
    clEnqueueReadBuffer(q, oc, CL_TRUE, 0, sizeof hc, hc, 0, NULL, NULL);
    CHECK(hl[0] == poison_f && hm[0] == poison_i && hc[0] == poison_i, "slot before out_base untouched");
    int written = 1, sums = 1, dropped = 0;
    for (int t = 0; t < T; ++t) {
        const int s = base + t, count = hc[s * 5];
        int hits = 0;
        for (int k = 0; k < K; ++k) {
            const int e = s * K + k;
            if (k < count) {
                written &= isfinite(hl[e]) && hm[e] > 0 && (hm[e] & 7) >= 1 && (hm[e] & 7) <= 4 && isfinite(hx[e * 3]);
                hits += hm[e] >> 3;
            } else {
                written &= isnan(hl[e]) && hm[e] == 0 && isnan(hx[e * 3]);
            }
        }
        written &= count >= 0 && count <= K;
        sums &= hits + hc[s * 5 + 4] == hc[s * 5 + 1] && hc[s * 5 + 1] + hc[s * 5 + 2] + hc[s * 5 + 3] == V;
        dropped += hc[s * 5 + 4];
    }
    CHECK(written, "every slot written (pairs or NaN/0)");
    CHECK(sums, "hits + dropped = converged, and the statuses add up to V");
    printf("max_pairs %d: %d converged starts dropped over %d tensors\n", K, dropped, T);
    cl_mem all[] = {bt, bl, bx, bi, ol, ox, om, oc};
    for (int i = 0; i < 8; ++i)
        clReleaseMemObject(all[i]);
    clpk_sshopm_plan_destroy(plan);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    const int fp64 = clpk_context_device_info(ctx)->has_fp64;
    const clpk_precision p64 = fp64 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
    const reduce_case cases[] = {
        {4, 3, CLPK_PRECISION_F32, CLPK_SSHOPM_FIND_BOTH, CLPK_SSHOPM_SHIFT_BOUND, 0, 3000},
        {3, 3, p64, CLPK_SSHOPM_FIND_BOTH, CLPK_SSHOPM_SHIFT_FIXED, 2, 3000},
        {6, 3, CLPK_PRECISION_F32, CLPK_SSHOPM_FIND_MIN, CLPK_SSHOPM_SHIFT_FIXED, -3, 3000},
        {4, 5, p64, CLPK_SSHOPM_FIND_MAX, CLPK_SSHOPM_SHIFT_ADAPTIVE, 0, 3000},
        {2, 8, CLPK_PRECISION_F32, CLPK_SSHOPM_FIND_BOTH, CLPK_SSHOPM_SHIFT_BOUND, 0, 3000},
        /* most starts capped: polished on the host by both paths (odd order, both directions) */
        {3, 4, CLPK_PRECISION_F32, CLPK_SSHOPM_FIND_BOTH, CLPK_SSHOPM_SHIFT_ADAPTIVE, 0, 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        compare_case(ctx, &cases[i], &rng);
    poisoned_slots(ctx, &rng);
    for (int k = 0; k < 2; ++k) {
        const double scale = k ? 1e25 : 1e-9;
        far_norm(ctx, CLPK_PRECISION_F32, scale, &rng);
        if (fp64) far_norm(ctx, CLPK_PRECISION_F64, scale, &rng);
    }
    clpk_context_destroy(ctx);
    return check_summary();
}
