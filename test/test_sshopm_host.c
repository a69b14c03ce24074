/* Host side of the SS-HOPM family (no device): index tables and ranks, the compressed products against dense
 * brute force for every (m, n), A x^(m-2) against finite differences, the shift bound against sampled spectral
 * radii, dense compression and its symmetry check, classification on matrices (m = 2) with known answers,
 * post-processing (de-duplication, hits, statuses, sorting) and the error paths. */
#include "clpk_sshopm.h"
#include "sshopm_util.h"

#include <unistd.h>

static int64_t ipow(int b, int e) {
    int64_t r = 1;
    for (int i = 0; i < e; ++i) r *= b;
    return r;
}

static double *expand_dense(const sshopm_index *idx, const double *a) {
    const int m = idx->m, n = idx->n;
    int64_t size = ipow(n, m);
    double *d = malloc((size_t)size * sizeof *d);
    int k[SSHOPM_MAX_DIM];
    for (int64_t e = 0; e < size; ++e) {
        int64_t r = e;
        for (int i = 0; i < n; ++i) k[i] = 0;
        for (int p = 0; p < m; ++p) {
            k[r % n]++;
            r /= n;
        }
        d[e] = a[sshopm_rank_mono(m, n, k)];
    }
    return d;
}

static void test_index_and_products(uint64_t *rng) {
    for (int m = 2; m <= 8; ++m) {
        for (int n = 2; n <= 8; ++n) {
            sshopm_index idx;
            if (!CHECK(sshopm_index_build(m, n, &idx, NULL) == CLPK_SUCCESS, "index (%d,%d)", m, n)) continue;
            const int U = idx.U;
            double total = 0;
            int ranks_ok = 1, order_ok = 1;
            for (int u = 0; u < U; ++u) {
                int rep[SSHOPM_MAX_ORDER];
                for (int p = 0; p < m; ++p) rep[p] = idx.rep[u * m + p];
                ranks_ok &= sshopm_rank(m, n, rep) == u;
                if (u > 0) order_ok &= memcmp(idx.rep + (u - 1) * m, idx.rep + u * m, (size_t)m) < 0;
                total += idx.mult[u];
            }
            CHECK(ranks_ok && order_ok, "(%d,%d): ranks invert the lexicographic enumeration", m, n);
            CHECK(fabs(total - (double)ipow(n, m)) < 0.5, "(%d,%d): multinomials sum to n^m (%.0f)", m, n, total);
            if (m == 4 && n == 3) CHECK(U == 15, "(4,3) has 15 unique entries");
            if (m == 3 && n == 4) {
                /* Seed Table 3.1: entry 6 (1-based) is index (1,2,3) */
                CHECK(idx.rep[5 * 3] == 0 && idx.rep[5 * 3 + 1] == 1 && idx.rep[5 * 3 + 2] == 2, "(3,4) entry 6");
            }
            if (ipow(n, m) <= 300000) {
                double *a = malloc((size_t)U * sizeof *a);
                sshopm_random_tensor(rng, U, a);
                double *dense = expand_dense(&idx, a);
                double x[SSHOPM_MAX_DIM], y[SSHOPM_MAX_DIM], yd[SSHOPM_MAX_DIM] = {0};
                double nx = 0;
                for (int i = 0; i < n; ++i) {
                    x[i] = 2 * check_rand_double(rng) - 1;
                    nx += x[i] * x[i];
                }
                for (int i = 0; i < n; ++i) x[i] /= sqrt(nx);
                double lam = sshopm_ref_gradient(&idx, a, x, y);
                const int64_t size = ipow(n, m), stride = size / n;
                double lam_d = 0;
                for (int64_t e = 0; e < size; ++e) {
                    /* first index is the most significant digit */
                    double p = dense[e];
                    int64_t r = e % stride;
                    for (int q = 1; q < m; ++q) {
                        p *= x[r % n];
                        r /= n;
                    }
                    yd[e / stride] += p;
                }
                for (int i = 0; i < n; ++i) lam_d += x[i] * yd[i];
                double scale = 0;
                for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(yd[i]));
                double err = check_rel_error(yd, y, (size_t)n);
                CHECK(err < 1e-12, "(%d,%d): A x^(m-1) vs dense: %.3g", m, n, err);
                CHECK(fabs(lam - lam_d) <= 1e-12 * (scale + 1), "(%d,%d): A x^m vs dense", m, n);
                /* compression round trip */
                double *back = malloc((size_t)U * sizeof *back);
                CHECK(clpk_sshopm_compress_dense(m, n, dense, 1, 1e-12, back, NULL) == CLPK_SUCCESS &&
                          check_rel_error(a, back, (size_t)U) == 0,
                      "(%d,%d): dense compression round trip", m, n);
                dense[1] += 0.5; /* index (0,...,0,1): one member of a class of size m */
                clpk_error err2 = {0};
                CHECK(clpk_sshopm_compress_dense(m, n, dense, 1, 1e-9, back, &err2) == CLPK_ERROR_INVALID_DATA &&
                          strstr(err2.message, "not symmetric"),
                      "(%d,%d): asymmetry refused: %s", m, n, err2.message);
                dense[1] = NAN;
                CHECK(clpk_sshopm_compress_dense(m, n, dense, 1, 1e-9, back, &err2) == CLPK_ERROR_INVALID_DATA,
                      "(%d,%d): NaN refused", m, n);
                /* A x^(m-2) = d(A x^(m-1))/dx / (m-1), by central differences of the polynomial */
                double h[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM], fd[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
                sshopm_ref_hessian(&idx, a, x, h);
                for (int k = 0; k < n; ++k) {
                    double xp[SSHOPM_MAX_DIM], xm[SSHOPM_MAX_DIM], yp[SSHOPM_MAX_DIM], ym[SSHOPM_MAX_DIM];
                    const double step = 1e-5;
                    memcpy(xp, x, sizeof xp);
                    memcpy(xm, x, sizeof xm);
                    xp[k] += step;
                    xm[k] -= step;
                    sshopm_ref_gradient(&idx, a, xp, yp);
                    sshopm_ref_gradient(&idx, a, xm, ym);
                    for (int i = 0; i < n; ++i) fd[i * n + k] = (yp[i] - ym[i]) / (2 * step) / (m - 1);
                }
                double herr = check_rel_error(fd, h, (size_t)n * n);
                CHECK(herr < 1e-6, "(%d,%d): A x^(m-2) vs finite differences: %.3g", m, n, herr);
                /* the shift bound dominates (m-1) rho(A x^(m-2)) at sampled unit x */
                double bound = sshopm_shift_bound(&idx, a);
                double ev[SSHOPM_MAX_DIM];
                sshopm_sym_eig(n, h, ev, NULL);
                double rho = fmax(fabs(ev[0]), fabs(ev[n - 1]));
                CHECK((m - 1) * rho <= bound * (1 + 1e-12), "(%d,%d): bound %.6g < (m-1) rho %.6g", m, n, bound,
                      (m - 1) * rho);
                free(back);
                free(dense);
                free(a);
            }
            sshopm_index_free(&idx);
        }
    }
    clpk_error err = {0};
    sshopm_index idx;
    CHECK(sshopm_index_build(1, 3, &idx, &err) == CLPK_ERROR_INVALID_ARGUMENT && strstr(err.message, "out of range"),
          "order 1 refused: %s", err.message);
    CHECK(sshopm_index_build(4, 9, &idx, &err) == CLPK_ERROR_INVALID_ARGUMENT, "dim 9 refused");
    CHECK(clpk_sshopm_unique_count(4, 3) == 15 && clpk_sshopm_unique_count(8, 8) == 6435 &&
              clpk_sshopm_unique_count(9, 2) == 0,
          "unique counts");
}

/* m = 2: the tensor is a symmetric matrix; its largest eigenpair is the max, the smallest the min, others saddles. */
static void test_classify_matrix(uint64_t *rng) {
    for (int n = 2; n <= 8; ++n) {
        sshopm_index idx;
        sshopm_index_build(2, n, &idx, NULL);
        double a[64], h[64], ev[8], vec[64];
        sshopm_random_tensor(rng, idx.U, a);
        sshopm_ref_hessian(&idx, a, a, h); /* for m = 2, A x^0 is the matrix itself */
        sshopm_sym_eig(n, h, ev, vec);
        for (int i = 0; i < n; ++i) {
            double x[8];
            for (int k = 0; k < n; ++k) x[k] = vec[k * n + i];
            double res;
            clpk_sshopm_type t = clpk_sshopm_classify(2, n, a, ev[i], x, 1e-9, &res);
            clpk_sshopm_type want = i == n - 1 ? CLPK_SSHOPM_TYPE_MAX
                                    : i == 0   ? CLPK_SSHOPM_TYPE_MIN
                                               : CLPK_SSHOPM_TYPE_SADDLE;
            CHECK(t == want && res < 1e-10, "n=%d eigenvalue %d: type %s (want %s), residual %.3g", n, i,
                  clpk_sshopm_type_name(t), clpk_sshopm_type_name(want), res);
        }
        sshopm_index_free(&idx);
    }
}

/* Post-processing on per-start results made by the reference: statuses counted, +-x merged for even m, hits add up,
 * pairs distinct and sorted, every converged limit of the convex iteration classified as a max; capped starts near a
 * maximum (one on it, one 1e-3 away with a stale lambda) polished into its pair by Newton steps, or, with
 * capped_steps 0, counted unconverged and in no pair. */
static void test_postprocess(uint64_t *rng) {
    for (int m = 3; m <= 4; ++m) {
        const int n = 3, V = 40, T = 3;
        sshopm_index idx;
        sshopm_index_build(m, n, &idx, NULL);
        const int U = idx.U;
        double *a = malloc((size_t)T * U * sizeof *a);
        clpk_sshopm_raw raw = {T, m, n, V, 1, {1, 0}, NULL, NULL, NULL};
        raw.lambda = malloc((size_t)T * V * sizeof *raw.lambda);
        raw.x = malloc((size_t)T * V * n * sizeof *raw.x);
        raw.info = malloc((size_t)T * V * sizeof *raw.info);
        double starts[40 * 3];
        sshopm_make_starts(n, V, CLPK_SSHOPM_STARTS_SHARED, check_rand(rng), starts, NULL);
        for (int t = 0; t < T; ++t) {
            sshopm_random_tensor(rng, U, a + t * U);
            for (int s = 0; s < V; ++s) {
                size_t g = (size_t)t * V + s;
                double x[3] = {starts[s * 3], starts[s * 3 + 1], starts[s * 3 + 2]}, lam;
                int its;
                int st = sshopm_ref_run(&idx, a + t * U, x, 1, CLPK_SSHOPM_SHIFT_BOUND, 0, 1e-14, 1e-9, 100000, 4, &lam,
                                        &its);
                if (m % 2 == 0 && s % 2)
                    for (int i = 0; i < 3; ++i) x[i] = -x[i];
                if (s == 5) st = CLPK_SSHOPM_CAPPED;
                if (s == 7) {
                    st = CLPK_SSHOPM_CAPPED;
                    double nn = 0;
                    for (int i = 0; i < 3; ++i) {
                        x[i] += 1e-3 * (i + 1);
                        nn += x[i] * x[i];
                    }
                    for (int i = 0; i < 3; ++i) x[i] /= sqrt(nn);
                    lam += 0.01;
                }
                if (s == 6) {
                    st = CLPK_SSHOPM_FAILED;
                    lam = NAN;
                }
                raw.lambda[g] = lam;
                memcpy(raw.x + g * n, x, sizeof x);
                raw.info[g] = st | (its << 2);
            }
        }
        clpk_sshopm_result r;
        clpk_error err = {0};
        if (CHECK(clpk_sshopm_postprocess(a, &raw, NULL, &r, &err) == CLPK_SUCCESS, "postprocess: %s", err.message)) {
            for (int t = 0; t < T; ++t) {
                const clpk_sshopm_tensor_result *tr = &r.tensors[t];
                int hits = 0, sorted = 1, distinct = 1, maxima = 1;
                for (int i = 0; i < tr->count; ++i) {
                    hits += tr->pairs[i].hits;
                    if (i) sorted &= tr->pairs[i - 1].lambda >= tr->pairs[i].lambda;
                    maxima &= tr->pairs[i].type == CLPK_SSHOPM_TYPE_MAX && tr->pairs[i].residual < 1e-6;
                    for (int j = 0; j < i; ++j)
                        distinct &= fabs(tr->pairs[i].lambda - tr->pairs[j].lambda) > 1e-6 ||
                                    sshopm_xdist(n, tr->pairs[i].x, tr->pairs[j].x, m % 2 == 0) > 1e-3;
                }
                CHECK(tr->capped == 2 && tr->failed == 1 && tr->converged == V - 3, "m=%d t=%d: statuses %d/%d/%d", m,
                      t, tr->converged, tr->capped, tr->failed);
                CHECK(tr->polished == 2 && tr->unconverged == 0, "m=%d t=%d: capped starts %d polished, %d unconverged",
                      m, t, tr->polished, tr->unconverged);
                CHECK(hits == tr->converged + tr->polished, "m=%d t=%d: hits %d add up to %d + %d", m, t, hits,
                      tr->converged, tr->polished);
                CHECK(tr->count >= 1 && sorted && distinct && maxima,
                      "m=%d t=%d: %d pairs sorted %d distinct %d all maxima %d", m, t, tr->count, sorted, distinct,
                      maxima);
            }
            char path[] = "/tmp/clpk_sshopm_host_XXXXXX";
            int fd = mkstemp(path);
            if (fd >= 0) close(fd);
            CHECK(clpk_sshopm_result_write_json(path, &r, &err) == CLPK_SUCCESS, "json: %s", err.message);
            cJSON *j = sshopm_read_json(path);
            cJSON *tensors = j ? cJSON_GetObjectItem(j, "tensors") : NULL;
            CHECK(tensors && cJSON_GetArraySize(tensors) == T, "json has %d tensors", T);
            if (tensors) {
                cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(tensors, 0), "eigenpairs"), 0);
                CHECK(p0 &&
                          fabs(cJSON_GetObjectItem(p0, "lambda")->valuedouble - r.tensors[0].pairs[0].lambda) < 1e-15 &&
                          !strcmp(cJSON_GetObjectItem(p0, "type")->valuestring, "max") &&
                          cJSON_GetObjectItem(p0, "hits")->valueint == r.tensors[0].pairs[0].hits,
                      "json pair round trip");
                cJSON *t0 = cJSON_GetArrayItem(tensors, 0);
                cJSON *pol = cJSON_GetObjectItem(t0, "polished"), *unc = cJSON_GetObjectItem(t0, "unconverged");
                CHECK(pol && unc && pol->valueint == r.tensors[0].polished &&
                          unc->valueint == r.tensors[0].unconverged,
                      "json start counts: polished and unconverged");
            }
            cJSON_Delete(j);
            remove(path);
            CHECK(clpk_sshopm_result_write_json("/nonexistent-dir/x.json", &r, &err) == CLPK_ERROR_IO,
                  "unwritable path refused");
            clpk_sshopm_result r0;
            clpk_sshopm_post_options po;
            clpk_sshopm_post_options_default(&po);
            po.capped_steps = 0;
            if (CHECK(clpk_sshopm_postprocess(a, &raw, &po, &r0, &err) == CLPK_SUCCESS, "postprocess: %s",
                      err.message)) {
                for (int t = 0; t < T; ++t) {
                    const clpk_sshopm_tensor_result *tr = &r0.tensors[t];
                    int hits = 0;
                    for (int i = 0; i < tr->count; ++i) hits += tr->pairs[i].hits;
                    CHECK(tr->capped == 2 && tr->polished == 0 && tr->unconverged == 2 && hits == tr->converged &&
                              tr->count == r.tensors[t].count,
                          "m=%d t=%d capped_steps 0: %d capped, %d polished, %d unconverged, hits %d of %d converged",
                          m, t, tr->capped, tr->polished, tr->unconverged, hits, tr->converged);
                }
                clpk_sshopm_result_free(&r0);
            }
            clpk_sshopm_result_free(&r);
        }
        free(raw.lambda);
        free(raw.x);
        free(raw.info);
        free(a);
        sshopm_index_free(&idx);
    }
}

static void test_starts(void) {
    for (int kind = 0; kind <= 2; kind += 2) {
        for (int n = 2; n <= 8; ++n) {
            double s[64 * 8];
            CHECK(sshopm_make_starts(n, 64, kind, 3, s, NULL) == CLPK_SUCCESS, "starts");
            double worst = 0, min_sep = 4;
            for (int i = 0; i < 64; ++i) {
                double nn = 0;
                for (int k = 0; k < n; ++k) nn += s[i * n + k] * s[i * n + k];
                worst = fmax(worst, fabs(sqrt(nn) - 1));
                for (int j = 0; j < i; ++j) min_sep = fmin(min_sep, sshopm_xdist(n, s + i * n, s + j * n, 0));
            }
            CHECK(worst < 1e-12 && min_sep > 1e-3, "kind %d n %d: unit (%.2g) and distinct (%.3g)", kind, n, worst,
                  min_sep);
        }
    }
    /* the generator is uniform on [-1, 1): mean ~ 0, variance ~ 1/3 */
    double sum = 0, sq = 0;
    for (int i = 0; i < 30000; ++i) {
        double v = sshopm_start_component(9, i / 64, i % 64, 0, 3);
        sum += v;
        sq += v * v;
    }
    CHECK(fabs(sum / 30000) < 0.02 && fabs(sq / 30000 - 1.0 / 3) < 0.02, "start generator moments");
}

/* The generator's operation count (GFLOP/s and % of peak in clpk-bench-sshopm) against the closed form of the
 * shared-monomial scheme, for every (m, n): gradient n (M1 - 1) FMAs and n first-term multiplies, one multiply per
 * monomial of degree 2 .. m-1, lambda 1 multiply + n - 1 FMAs, driver 2n FMAs, n + 1 multiplies, 1 add (the lambda
 * step), one rsqrt;
 * local/global entries add one multiply per monomial whose coefficient (m-1)!/mu! is not 1.
 * Order 4 with private entries: the Q = n(n+1)/2 quadratic monomials, S q with 2U - Q nonzeros (Q rows, each a
 * multiply and FMAs), y = n multiplies + n(n - 1) FMAs, lambda and the driver as above. */
static void test_op_counts(void) {
    for (int m = 2; m <= 8; ++m)
        for (int n = 2; n <= 8; ++n) {
            const int64_t M1 = sshopm_multiset_count(n, m - 1);
            int64_t monomials = 0;
            for (int d = 2; d <= m - 1; ++d) monomials += sshopm_multiset_count(n, d);
            sshopm_op_counts priv, shared;
            CHECK(sshopm_iteration_ops(m, n, 1, &priv) == CLPK_SUCCESS, "ops (%d,%d)", m, n);
            CHECK(sshopm_iteration_ops(m, n, 0, &shared) == CLPK_SUCCESS, "ops (%d,%d)", m, n);
            const int64_t fma = n * (M1 - 1) + (n - 1) + 2 * n, mul = monomials + n + 1 + (n + 1);
            int64_t priv_fma = fma, priv_mul = mul;
            if (m == 4) {
                const int64_t Q = n * (n + 1) / 2, U = sshopm_multiset_count(n, 4);
                priv_fma = (2 * U - 2 * Q) + n * (n - 1) + (n - 1) + 2 * n;
                priv_mul = Q + Q + n + 1 + (n + 1);
            }
            CHECK(priv.fma == priv_fma && priv.mul == priv_mul && priv.add == 1 && priv.special == 1,
                  "(%d,%d) private: %lld FMA %lld mul %lld add, closed form %lld %lld 1", m, n, (long long)priv.fma,
                  (long long)priv.mul, (long long)priv.add, (long long)priv_fma, (long long)priv_mul);
            CHECK(priv.flops == 2.0 * priv_fma + priv_mul + 1 && sshopm_iteration_flops(m, n) == priv.flops,
                  "(%d,%d) flops %g", m, n, priv.flops);
            /* scaled monomials: (m-1)!/mu! is 1 only for the n pure powers x_i^(m-1) (and for every x_i when m = 2) */
            const int64_t scaled = m == 2 ? 0 : M1 - n;
            CHECK(shared.fma == fma && shared.mul == mul + scaled, "(%d,%d) local/global: %lld mul, want %lld", m, n,
                  (long long)shared.mul, (long long)(mul + scaled));
        }
    sshopm_op_counts ops;
    CHECK(sshopm_iteration_ops(4, 3, 1, &ops) == CLPK_SUCCESS && ops.fma == 32 && ops.mul == 20 && ops.flops == 85,
          "(4,3): 32 FMA, 20 mul, 85 flops per iteration");
}

int main(void) {
    uint64_t rng = check_seed();
    test_index_and_products(&rng);
    test_classify_matrix(&rng);
    test_postprocess(&rng);
    test_starts();
    test_op_counts();
    return check_summary();
}
