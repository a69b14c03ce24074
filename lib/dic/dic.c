/* Digital image correlation on the cross-correlation family (see dic.h for the method). The device computes the
 * integer search (one batched xcorr over all subsets and windows); the host normalises it with integral images and
 * refines the peaks in double precision. */
#include "dic.h"

#include "clpk_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dic_options_default(dic_options *opt) {
    memset(opt, 0, sizeof *opt);
    opt->subset = 64;
    opt->step = 32;
    opt->method = CLPK_DIC_ONE_TO_ONE;
    opt->reach = 1;
    opt->precision = CLPK_PRECISION_F32;
    opt->min_score = 0.5;
}

clpk_status dic_method_parse(const char *text, dic_method *out) {
    if (!text || !out) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!strcmp(text, "one-to-one") || !strcmp(text, "one_to_one")) *out = CLPK_DIC_ONE_TO_ONE;
    else if (!strcmp(text, "n-to-mn") || !strcmp(text, "n_to_mn")) *out = CLPK_DIC_N_TO_MN;
    else return CLPK_ERROR_INVALID_ARGUMENT;
    return CLPK_SUCCESS;
}

/* Sums over rectangles in O(1): (h+1) x (w+1) prefix sums of the image and of its square. */
typedef struct integral {
    int h, w;
    double *s1, *s2;
} integral;

static int integral_build(integral *ig, const double *img, int h, int w) {
    ig->h = h, ig->w = w;
    const size_t n = (size_t)(h + 1) * (size_t)(w + 1);
    ig->s1 = calloc(n, sizeof *ig->s1);
    ig->s2 = calloc(n, sizeof *ig->s2);
    if (!ig->s1 || !ig->s2) return 0;
    for (int y = 0; y < h; ++y) {
        double r1 = 0.0, r2 = 0.0;
        for (int x = 0; x < w; ++x) {
            const double v = img[(size_t)y * w + x];
            r1 += v, r2 += v * v;
            const size_t at = (size_t)(y + 1) * (w + 1) + (x + 1), up = (size_t)y * (w + 1) + (x + 1);
            ig->s1[at] = ig->s1[up] + r1;
            ig->s2[at] = ig->s2[up] + r2;
        }
    }
    return 1;
}

/* Sum of squared deviations from the mean over the s x s square at (y, x). */
static double integral_energy(const integral *ig, int y, int x, int s) {
    const size_t w = (size_t)ig->w + 1;
    const size_t a = (size_t)y * w + x, b = (size_t)y * w + x + s, c = (size_t)(y + s) * w + x,
                 d = (size_t)(y + s) * w + x + s;
    const double s1 = ig->s1[d] - ig->s1[b] - ig->s1[c] + ig->s1[a];
    const double s2 = ig->s2[d] - ig->s2[b] - ig->s2[c] + ig->s2[a];
    const double e = s2 - s1 * s1 / ((double)s * s);
    return e > 0.0 ? e : 0.0;
}

/* The problem laid out for one xcorr call. */
typedef struct dic_layout {
    int s, m, k, side, shifts;  /* side = s + 2m, shifts = 2m + 1 */
    int n_windows;              /* windows per subset: 1 or (2k+1)^2 */
    int margin;                 /* m + k * (2m + 1): the grid keeps this far from the borders */
    int refine;                 /* Gauss-Newton refinement after the peak fit */
    double min_score;           /* weaker peaks give no vector */
    int rows, cols, n;          /* grid */
    int *py, *px;               /* subset top-left corners */
} dic_layout;

static void window_offset(const dic_layout *L, int b, int *oy, int *ox) {
    const int per_side = 2 * L->k + 1;
    *oy = (b / per_side - L->k) * L->shifts;
    *ox = (b % per_side - L->k) * L->shifts;
}

/* ZNCC of the unit-norm zero-mean template `t` (s x s) against the deformed region at (y, x); NaN out of bounds. */
static double zncc_at(const dic_layout *L, const double *tmpl, const double *def, int width, const integral *ig,
                      int y, int x) {
    const int s = L->s;
    if (y < 0 || x < 0 || y + s > ig->h || x + s > ig->w) return NAN;
    const double e = integral_energy(ig, y, x, s);
    if (e <= 1e-12) return 0.0;
    double sum = 0.0;
    for (int i = 0; i < s; ++i)
        for (int j = 0; j < s; ++j) sum += tmpl[(size_t)i * s + j] * def[(size_t)(y + i) * width + (x + j)];
    return sum / sqrt(e);
}

/* Offset of the maximum of three samples (-1, 0, +1) around the middle one: Gaussian fit when all are positive,
 * else parabolic. Returns 0 and clears *ok when the middle is not a strict maximum. */
static double peak_offset(double a, double b, double c, int *ok) {
    if (!(b >= a && b >= c) || !(b > a || b > c)) {
        *ok = 0;
        return 0.0;
    }
    if (a > 0.0 && b > 0.0 && c > 0.0) {
        const double la = log(a), lb = log(b), lc = log(c), den = la - 2.0 * lb + lc;
        if (den < 0.0) return 0.5 * (la - lc) / den;
    }
    const double den = a - 2.0 * b + c;
    if (den < 0.0) return 0.5 * (a - c) / den;
    *ok = 0;
    return 0.0;
}

/* Keys' cubic convolution weights (a = -0.5) for the taps at -1, 0, 1, 2 around a fraction t in [0, 1). */
static void cubic_weights(double t, double w[4]) {
    const double a = -0.5, t2 = t * t, t3 = t2 * t;
    w[0] = a * (t3 - 2.0 * t2 + t);
    w[1] = (a + 2.0) * t3 - (a + 3.0) * t2 + 1.0;
    w[2] = -(a + 2.0) * t3 + (2.0 * a + 3.0) * t2 - a * t;
    w[3] = -a * (t3 - t2);
}

/* Inverse-compositional Gauss-Newton on the zero-normalised SSD for a pure translation: the template's gradients
 * (4th-order central differences of the reference) give a constant Hessian; the deformed subset is resampled with
 * bicubic interpolation at each iterate. Starts from (*dy, *dx) (the peak fit) and returns 0 when it cannot move
 * (too close to the border, flat template, divergence), leaving the start as it is. */
static int refine_icgn(const dic_layout *L, int py, int px, const double *ref, const double *def, int height,
                       int width, double *dy, double *dx) {
    const int s = L->s;
    if (py < 2 || px < 2 || py + s + 2 > height || px + s + 2 > width) return 0;
    const size_t ss = (size_t)s * s;
    double *t = malloc(ss * sizeof *t), *gy = malloc(ss * sizeof *gy), *gx = malloc(ss * sizeof *gx);
    double *g = malloc(ss * sizeof *g);
    int ok = t && gy && gx && g;
    double tmean = 0.0, tnorm = 0.0, h11 = 0.0, h12 = 0.0, h22 = 0.0;
    for (int i = 0; ok && i < s; ++i)
        for (int j = 0; j < s; ++j) {
            const double *r = ref + (size_t)(py + i) * width + (px + j);
            const size_t at = (size_t)i * s + j;
            t[at] = r[0];
            tmean += r[0];
            gx[at] = (-r[2] + 8.0 * r[1] - 8.0 * r[-1] + r[-2]) / 12.0;
            gy[at] = (-r[2 * width] + 8.0 * r[width] - 8.0 * r[-width] + r[-2 * width]) / 12.0;
        }
    if (ok) {
        tmean /= (double)ss;
        for (size_t k = 0; k < ss; ++k) t[k] -= tmean, tnorm += t[k] * t[k];
        tnorm = sqrt(tnorm);
        ok = tnorm > 1e-9;
    }
    for (size_t k = 0; ok && k < ss; ++k) {
        t[k] /= tnorm, gx[k] /= tnorm, gy[k] /= tnorm;
        h11 += gy[k] * gy[k], h12 += gy[k] * gx[k], h22 += gx[k] * gx[k];
    }
    const double det = h11 * h22 - h12 * h12;
    ok = ok && det > 1e-12 * (h11 * h22 + 1e-300);
    double y = *dy, x = *dx;
    int converged = 0;
    for (int it = 0; ok && it < 30 && !converged; ++it) {
        const double fy = floor(y), fx = floor(x);
        const int iy = py + (int)fy, ix = px + (int)fx;
        if (iy < 1 || ix < 1 || iy + s + 2 > height || ix + s + 2 > width) {
            ok = 0;
            break;
        }
        double wy[4], wx[4], gmean = 0.0, gnorm = 0.0;
        cubic_weights(y - fy, wy);
        cubic_weights(x - fx, wx);
        for (int i = 0; i < s; ++i)
            for (int j = 0; j < s; ++j) {
                double v = 0.0;
                for (int a = 0; a < 4; ++a) {
                    const double *row = def + (size_t)(iy + i + a - 1) * width + (ix + j - 1);
                    v += wy[a] * (wx[0] * row[0] + wx[1] * row[1] + wx[2] * row[2] + wx[3] * row[3]);
                }
                g[(size_t)i * s + j] = v;
                gmean += v;
            }
        gmean /= (double)ss;
        for (size_t k = 0; k < ss; ++k) g[k] -= gmean, gnorm += g[k] * g[k];
        if (gnorm <= 1e-18) {
            ok = 0;
            break;
        }
        gnorm = 1.0 / sqrt(gnorm);
        double b1 = 0.0, b2 = 0.0;
        for (size_t k = 0; k < ss; ++k) {
            const double r = g[k] * gnorm - t[k];
            b1 += gy[k] * r, b2 += gx[k] * r;
        }
        const double ddy = (h22 * b1 - h12 * b2) / det, ddx = (h11 * b2 - h12 * b1) / det;
        /* T(y + delta) ~ G(y): the deformed subset sits delta further than the current estimate */
        y -= ddy, x -= ddx;
        converged = fabs(ddy) < 1e-5 && fabs(ddx) < 1e-5;
        if (fabs(y - *dy) > 1.0 || fabs(x - *dx) > 1.0) ok = 0;
    }
    free(t), free(gy), free(gx), free(g);
    if (!ok || !converged) return 0;
    *dy = y, *dx = x;
    return 1;
}

/* Host reference of the plan's job in double: out[o] over the centred shifts window. */
static void correlate_cpu(const dic_layout *L, size_t n_out, const double *left, const double *right, double *out) {
    const int side = L->side, m = L->m, sh = L->shifts;
    for (size_t o = 0; o < n_out; ++o) {
        const double *lt = left + (o % (size_t)L->n) * side * side, *rt = right + o * side * side;
        for (int k = 0; k < sh; ++k)
            for (int l = 0; l < sh; ++l) {
                const int tr = k - m, tc = l - m;
                double sum = 0.0;
                for (int i = 0; i < side; ++i) {
                    const int li = i + tr;
                    if (li < 0 || li >= side) continue;
                    for (int j = 0; j < side; ++j) {
                        const int lj = j + tc;
                        if (lj >= 0 && lj < side) sum += lt[(size_t)li * side + lj] * rt[(size_t)i * side + j];
                    }
                }
                out[o * sh * sh + (size_t)k * sh + l] = sum;
            }
    }
}

static clpk_status correlate_device(clpk_context *ctx, const dic_layout *L, const dic_options *opt,
                                    const double *left, const double *right, double *out, dic_field *field) {
    const clpk_xcorr_shape shape = {L->n_windows == 1 ? CLPK_XCORR_ONE_TO_ONE : CLPK_XCORR_N_TO_MN,
                                    L->side,
                                    L->side,
                                    L->n,
                                    L->n * L->n_windows,
                                    L->shifts,
                                    L->shifts,
                                    opt->precision};
    const size_t n_left = (size_t)L->n * L->side * L->side, n_right = n_left * L->n_windows;
    const size_t n_out = (size_t)L->n * L->n_windows * L->shifts * L->shifts;
    clpk_xcorr_plan *plan = NULL;
    CLPK_TRY(clpk_xcorr_plan_create(ctx, &shape, opt->algorithm, opt->params, &plan));
    snprintf(field->algorithm, sizeof field->algorithm, "%s", clpk_xcorr_plan_algorithm(plan));
    clpk_status st = CLPK_SUCCESS;
    void *hl = NULL, *hr = NULL, *ho = NULL;
    if (opt->precision == CLPK_PRECISION_F64) {
        hl = (void *)left, hr = (void *)right, ho = out;
    } else {
        float *fl = malloc(n_left * sizeof *fl), *fr = malloc(n_right * sizeof *fr), *fo = malloc(n_out * sizeof *fo);
        hl = fl, hr = fr, ho = fo;
        if (!fl || !fr || !fo) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dic: out of host memory");
        for (size_t i = 0; st == CLPK_SUCCESS && i < n_left; ++i) fl[i] = (float)left[i];
        for (size_t i = 0; st == CLPK_SUCCESS && i < n_right; ++i) fr[i] = (float)right[i];
    }
    double t0 = core_wall_seconds();
    if (st == CLPK_SUCCESS) st = clpk_xcorr_execute_host(plan, hl, hr, ho);
    field->seconds = core_wall_seconds() - t0;
    if (st == CLPK_SUCCESS && opt->precision != CLPK_PRECISION_F64)
        for (size_t i = 0; i < n_out; ++i) out[i] = (double)((const float *)ho)[i];
    if (opt->precision != CLPK_PRECISION_F64) free(hl), free(hr), free(ho);
    clpk_xcorr_plan_destroy(plan);
    return st;
}

static clpk_status check_options(clpk_context *ctx, const dic_options *opt, int height, int width) {
    if (!(opt->min_score >= -1.0 && opt->min_score <= 1.0))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "dic: min_score must be in [-1, 1]");
    if (opt->subset < 5 || opt->step < 1 || opt->search < 0 || opt->reach < 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "dic: subset must be >= 5, step >= 1, search and reach >= 0 (got %d, %d, %d, %d)",
                         opt->subset, opt->step, opt->search, opt->reach);
    if (opt->method != CLPK_DIC_ONE_TO_ONE && opt->method != CLPK_DIC_N_TO_MN)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "dic: unknown method %d", (int)opt->method);
    if (opt->subset > 1024 || (opt->search && opt->search > opt->subset))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "dic: subset %d > 1024 or search %d > subset",
                         opt->subset, opt->search);
    if (height < 1 || width < 1 || (size_t)height * (size_t)width > ((size_t)1 << 31))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "dic: bad image size %dx%d", height, width);
    return CLPK_SUCCESS;
}

static clpk_status make_layout(clpk_context *ctx, const dic_options *opt, int height, int width, dic_layout *L) {
    memset(L, 0, sizeof *L);
    L->s = opt->subset;
    L->m = opt->search ? opt->search : (opt->subset / 4 > 1 ? opt->subset / 4 : 1);
    L->k = opt->method == CLPK_DIC_N_TO_MN ? (opt->reach ? opt->reach : 1) : 0;
    L->side = L->s + 2 * L->m;
    L->shifts = 2 * L->m + 1;
    L->n_windows = (2 * L->k + 1) * (2 * L->k + 1);
    L->margin = L->m + L->k * L->shifts;
    L->refine = opt->refine != CLPK_DIC_REFINE_PEAK;
    L->min_score = opt->min_score;
    const int span_y = height - L->s - 2 * L->margin, span_x = width - L->s - 2 * L->margin;
    if (span_y < 0 || span_x < 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "dic: a %dx%d image is too small for subset %d with a search margin of %d", height, width,
                         L->s, L->margin);
    L->rows = span_y / opt->step + 1;
    L->cols = span_x / opt->step + 1;
    L->n = L->rows * L->cols;
    L->py = malloc((size_t)L->n * sizeof *L->py);
    L->px = malloc((size_t)L->n * sizeof *L->px);
    if (!L->py || !L->px) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dic: out of host memory");
    /* centre the grid in the usable span */
    const int y0 = L->margin + (span_y % opt->step) / 2, x0 = L->margin + (span_x % opt->step) / 2;
    for (int r = 0; r < L->rows; ++r)
        for (int c = 0; c < L->cols; ++c) {
            L->py[r * L->cols + c] = y0 + r * opt->step;
            L->px[r * L->cols + c] = x0 + c * opt->step;
        }
    return CLPK_SUCCESS;
}

/* Zero-mean unit-norm templates (s x s, kept for the host refinement) and their padded copies as the lefts; the
 * windows (mean removed: harmless since the templates sum to zero, and it keeps f32 sums small) as the rights. */
static int build_inputs(const dic_layout *L, const double *ref, const double *def, int width, double *tmpl,
                        double *left, double *right, int *textured) {
    const int s = L->s, side = L->side, m = L->m;
    const size_t ss = (size_t)s * s, sd = (size_t)side * side;
    for (int i = 0; i < L->n; ++i) {
        double *t = tmpl + (size_t)i * ss, mean = 0.0, norm = 0.0;
        for (int y = 0; y < s; ++y)
            for (int x = 0; x < s; ++x)
                mean += t[(size_t)y * s + x] = ref[(size_t)(L->py[i] + y) * width + L->px[i] + x];
        mean /= (double)ss;
        for (size_t j = 0; j < ss; ++j) t[j] -= mean, norm += t[j] * t[j];
        textured[i] = norm > 1e-12;
        norm = textured[i] ? 1.0 / sqrt(norm) : 0.0;
        for (size_t j = 0; j < ss; ++j) t[j] *= norm;
        double *l = left + (size_t)i * sd;
        memset(l, 0, sd * sizeof *l);
        for (int y = 0; y < s; ++y) memcpy(l + (size_t)(y + m) * side + m, t + (size_t)y * s, (size_t)s * sizeof *l);
        for (int b = 0; b < L->n_windows; ++b) {
            int oy, ox;
            window_offset(L, b, &oy, &ox);
            double *r = right + ((size_t)b * L->n + i) * sd, wmean = 0.0;
            const int wy = L->py[i] - m + oy, wx = L->px[i] - m + ox;
            for (int y = 0; y < side; ++y)
                for (int x = 0; x < side; ++x)
                    wmean += r[(size_t)y * side + x] = def[(size_t)(wy + y) * width + wx + x];
            wmean /= (double)sd;
            for (size_t j = 0; j < sd; ++j) r[j] -= wmean;
        }
    }
    return 1;
}

static clpk_status field_alloc(clpk_context *ctx, const dic_layout *L, dic_field *f) {
    memset(f, 0, sizeof *f);
    f->rows = L->rows, f->cols = L->cols;
    const size_t n = (size_t)L->n;
    f->x = malloc(n * sizeof *f->x), f->y = malloc(n * sizeof *f->y);
    f->u = malloc(n * sizeof *f->u), f->v = malloc(n * sizeof *f->v), f->score = malloc(n * sizeof *f->score);
    if (!f->x || !f->y || !f->u || !f->v || !f->score) {
        dic_field_free(f);
        return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dic: out of host memory");
    }
    return CLPK_SUCCESS;
}

/* Integer peak over all windows and shifts of subset i (ZNCC), then the 3x3 refinement on the host. */
static void locate_peak(const dic_layout *L, int i, const double *corr, const double *tmpl, const double *ref,
                        const double *def, int width, const integral *ig, dic_field *f) {
    const int sh = L->shifts, m = L->m;
    double best = -INFINITY;
    int best_dy = 0, best_dx = 0;
    for (int b = 0; b < L->n_windows; ++b) {
        int oy, ox;
        window_offset(L, b, &oy, &ox);
        const double *c = corr + ((size_t)b * L->n + i) * sh * sh;
        for (int k = 0; k < sh; ++k)
            for (int l = 0; l < sh; ++l) {
                /* shift t = (k - m, l - m) reads the deformed region at p + o - t: displacement o - t */
                const int dy = oy - (k - m), dx = ox - (l - m);
                const double e = integral_energy(ig, L->py[i] + dy, L->px[i] + dx, L->s);
                if (e <= 1e-12) continue;
                const double z = c[(size_t)k * sh + l] / sqrt(e);
                if (z > best) best = z, best_dy = dy, best_dx = dx;
            }
    }
    f->u[i] = f->v[i] = NAN;
    f->score[i] = isfinite(best) ? best : NAN;
    if (!isfinite(best)) return;
    double z[3][3];
    for (int a = -1; a <= 1; ++a)
        for (int b = -1; b <= 1; ++b)
            z[a + 1][b + 1] = zncc_at(L, tmpl, def, width, ig, L->py[i] + best_dy + a, L->px[i] + best_dx + b);
    f->score[i] = z[1][1];
    /* a weak peak is a wrong match more often than not (no texture, occlusion, a hole in the specimen) */
    if (!(z[1][1] >= L->min_score)) return;
    int ok = 1;
    for (int a = 0; a < 3 && ok; ++a)
        for (int b = 0; b < 3; ++b) ok &= isfinite(z[a][b]);
    if (!ok) return;
    const double sx = peak_offset(z[1][0], z[1][1], z[1][2], &ok);
    const double sy = peak_offset(z[0][1], z[1][1], z[2][1], &ok);
    if (!ok || fabs(sx) > 0.5 || fabs(sy) > 0.5) return;
    double dy = best_dy + sy, dx = best_dx + sx;
    if (L->refine) refine_icgn(L, L->py[i], L->px[i], ref, def, ig->h, width, &dy, &dx);
    f->u[i] = dx;
    f->v[i] = dy;
}

clpk_status dic_run(clpk_context *ctx, const double *ref, const double *def, int height, int width,
                         const dic_options *opt, dic_field *out) {
    if (!ref || !def || !opt || !out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "dic: NULL argument");
    memset(out, 0, sizeof *out);
    const int on_cpu = opt->algorithm && !strcmp(opt->algorithm, "cpu");
    if (!ctx && !on_cpu) return CLPK_ERROR_INVALID_ARGUMENT;
    CLPK_TRY(check_options(ctx, opt, height, width));
    for (size_t i = 0; i < (size_t)height * width; ++i)
        if (!isfinite(ref[i]) || !isfinite(def[i]))
            return core_fail(ctx, CLPK_ERROR_INVALID_DATA, "dic: non-finite pixel at %zu", i);
    dic_layout L;
    clpk_status st = make_layout(ctx, opt, height, width, &L);
    integral ig = {0, 0, NULL, NULL};
    double *tmpl = NULL, *left = NULL, *right = NULL, *corr = NULL;
    int *textured = NULL;
    if (st != CLPK_SUCCESS) goto done;
    const size_t sd = (size_t)L.side * L.side, n_out = (size_t)L.n * L.n_windows;
    tmpl = malloc((size_t)L.n * L.s * L.s * sizeof *tmpl);
    left = malloc((size_t)L.n * sd * sizeof *left);
    right = malloc(n_out * sd * sizeof *right);
    corr = malloc(n_out * L.shifts * L.shifts * sizeof *corr);
    textured = malloc((size_t)L.n * sizeof *textured);
    if (!tmpl || !left || !right || !corr || !textured || !integral_build(&ig, def, height, width)) {
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dic: out of host memory");
        goto done;
    }
    build_inputs(&L, ref, def, width, tmpl, left, right, textured);
    if ((st = field_alloc(ctx, &L, out)) != CLPK_SUCCESS) goto done;
    if (on_cpu) {
        snprintf(out->algorithm, sizeof out->algorithm, "cpu");
        double t0 = core_wall_seconds();
        correlate_cpu(&L, n_out, left, right, corr);
        out->seconds = core_wall_seconds() - t0;
    } else if ((st = correlate_device(ctx, &L, opt, left, right, corr, out)) != CLPK_SUCCESS) {
        dic_field_free(out);
        goto done;
    }
    for (int i = 0; i < L.n; ++i) {
        out->x[i] = L.px[i] + (L.s - 1) / 2.0;
        out->y[i] = L.py[i] + (L.s - 1) / 2.0;
        if (textured[i]) locate_peak(&L, i, corr, tmpl + (size_t)i * L.s * L.s, ref, def, width, &ig, out);
        else out->u[i] = out->v[i] = out->score[i] = NAN;
        out->valid += isfinite(out->u[i]) && isfinite(out->v[i]);
    }
done:
    free(L.py), free(L.px), free(ig.s1), free(ig.s2);
    free(tmpl), free(left), free(right), free(corr), free(textured);
    return st;
}

void dic_field_free(dic_field *f) {
    if (!f) return;
    free(f->x), free(f->y), free(f->u), free(f->v), free(f->score);
    f->x = f->y = f->u = f->v = f->score = NULL;
}

void dic_field_stats(const dic_field *f, double *mean_mag, double *max_mag, double *mean_u, double *mean_v) {
    double sm = 0.0, mx = 0.0, su = 0.0, sv = 0.0;
    size_t n = 0;
    for (size_t i = 0; f->u && i < (size_t)f->rows * f->cols; ++i) {
        if (!isfinite(f->u[i]) || !isfinite(f->v[i])) continue;
        const double mag = hypot(f->u[i], f->v[i]);
        sm += mag, su += f->u[i], sv += f->v[i], ++n;
        if (mag > mx) mx = mag;
    }
    if (mean_mag) *mean_mag = n ? sm / n : NAN;
    if (max_mag) *max_mag = n ? mx : NAN;
    if (mean_u) *mean_u = n ? su / n : NAN;
    if (mean_v) *mean_v = n ? sv / n : NAN;
}
