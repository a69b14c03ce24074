/* The diffusion-MRI scan pipeline on dipy's public test scans (../shared/data: dmri/small_64D, dmri/small_101D,
 * life/small_25; skipped with a message when absent; $CLPK_SHARED_DATA_DIR overrides the build's path).
 *
 * Reference: a diffusion-tensor fit written here, independent of the library's code: log-linear least squares over
 * every volume, then again weighted by the fitted signal squared (dipy's default WLS), Jacobi eigenvectors. In voxels
 * with FA > 0.4 the pipeline's first peak (order 4, clpk_sshopm_dmri_scan) must lie within 15 degrees of the
 * tensor's principal direction in >= 90% of the voxels. With dipy's default regularisation (lambda 0.006) these
 * noisy scans do not reach that (dipy's own CsaOdfModel peaks neither: 69% on small_64D), so the asserted runs use
 * lambda = 0.5 (docs/sshopm.md); the default and orders 6 and 8 are measured and printed. Every run also has to
 * obey the selection rules, and voxels without signal have no peaks. */
#include "clpk_sshopm.h"
#include "io_nifti.h"
#include "sshopm_util.h"

static const double DEG = 57.29577951308232;

/* Gaussian elimination with partial pivoting on a 7 x 7 system; returns 0 if singular. */
static int solve7(double A[7][7], double b[7]) {
    for (int c = 0; c < 7; ++c) {
        int p = c;
        for (int r = c + 1; r < 7; ++r)
            if (fabs(A[r][c]) > fabs(A[p][c])) p = r;
        if (!(fabs(A[p][c]) > 1e-300)) return 0;
        for (int k = 0; k < 7; ++k) {
            double t = A[c][k];
            A[c][k] = A[p][k], A[p][k] = t;
        }
        double t = b[c];
        b[c] = b[p], b[p] = t;
        for (int r = c + 1; r < 7; ++r) {
            const double f = A[r][c] / A[c][c];
            for (int k = c; k < 7; ++k) A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 6; r >= 0; --r) {
        for (int k = r + 1; k < 7; ++k) b[r] -= A[r][k] * b[k];
        b[r] /= A[r][r];
    }
    return 1;
}

/* Cyclic Jacobi on a symmetric 3 x 3 matrix: eigenvalues w, eigenvectors as columns of V. */
static void jacobi3(double D[3][3], double w[3], double V[3][3]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) V[i][j] = i == j;
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(D[0][1]) + fabs(D[0][2]) + fabs(D[1][2]);
        if (off < 1e-300) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (fabs(D[p][q]) < 1e-300) continue;
                const double th = (D[q][q] - D[p][p]) / (2 * D[p][q]);
                const double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1)), c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < 3; ++k) { /* D = J^T D J */
                    const double a = D[k][p], b = D[k][q];
                    D[k][p] = c * a - s * b, D[k][q] = s * a + c * b;
                }
                for (int k = 0; k < 3; ++k) {
                    const double a = D[p][k], b = D[q][k];
                    D[p][k] = c * a - s * b, D[q][k] = s * a + c * b;
                }
                for (int k = 0; k < 3; ++k) {
                    const double a = V[k][p], b = V[k][q];
                    V[k][p] = c * a - s * b, V[k][q] = s * a + c * b;
                }
            }
    }
    for (int i = 0; i < 3; ++i) w[i] = D[i][i];
}

typedef struct reference {
    int64_t voxels;
    uint8_t *use; /* FA > 0.4 and S0 > 0 */
    double *dir;  /* voxels x 3 */
    int64_t n_use;
} reference;

static void dti_reference(const nifti_file *v, const clpk_sshopm_gradients *g, reference *ref) {
    const int64_t nvox = (int64_t)v->nx * v->ny * v->nz;
    const int Q = g->volumes;
    ref->voxels = nvox;
    ref->use = calloc((size_t)nvox, 1);
    ref->dir = calloc((size_t)nvox * 3, sizeof *ref->dir);
    ref->n_use = 0;
    double (*X)[7] = malloc((size_t)Q * sizeof *X), *y = malloc((size_t)Q * sizeof *y);
    for (int q = 0; q < Q; ++q) {
        const double b = g->bval[q], *u = g->bvec + 3 * q; /* b = 0 rows: vector zero, b dropped */
        const double bb = g->is_b0[q] ? 0 : b;
        X[q][0] = 1, X[q][1] = -bb * u[0] * u[0], X[q][2] = -bb * u[1] * u[1], X[q][3] = -bb * u[2] * u[2];
        X[q][4] = -2 * bb * u[0] * u[1], X[q][5] = -2 * bb * u[0] * u[2], X[q][6] = -2 * bb * u[1] * u[2];
    }
    for (int64_t vox = 0; vox < nvox; ++vox) {
        double s0 = 0;
        int n0 = 0;
        for (int q = 0; q < Q; ++q)
            if (g->is_b0[q]) s0 += v->data[q * nvox + vox], n0++;
        if (!(s0 / n0 > 0)) continue;
        for (int q = 0; q < Q; ++q) y[q] = log(fmax(v->data[q * nvox + vox], 1e-3));
        double beta[7] = {0};
        int ok = 1;
        for (int pass = 0; pass < 2 && ok; ++pass) { /* OLS, then weights = fitted signal squared */
            double A[7][7] = {{0}}, r[7] = {0};
            for (int q = 0; q < Q; ++q) {
                double w = 1;
                if (pass) {
                    double f = 0;
                    for (int k = 0; k < 7; ++k) f += X[q][k] * beta[k];
                    w = exp(2 * f);
                }
                for (int i = 0; i < 7; ++i) {
                    r[i] += w * X[q][i] * y[q];
                    for (int j = 0; j < 7; ++j) A[i][j] += w * X[q][i] * X[q][j];
                }
            }
            ok = solve7(A, r);
            memcpy(beta, r, sizeof beta);
        }
        if (!ok) continue;
        double D[3][3] = {{beta[1], beta[4], beta[5]}, {beta[4], beta[2], beta[6]}, {beta[5], beta[6], beta[3]}}, w[3],
               V[3][3];
        jacobi3(D, w, V);
        int top = 0;
        for (int i = 1; i < 3; ++i)
            if (w[i] > w[top]) top = i;
        for (int i = 0; i < 3; ++i) w[i] = fmax(w[i], 0);
        const double md = (w[0] + w[1] + w[2]) / 3, den = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
        const double fa = den > 0 ? sqrt(1.5 * ((w[0] - md) * (w[0] - md) + (w[1] - md) * (w[1] - md) +
                                                (w[2] - md) * (w[2] - md)) / den)
                                  : 0;
        if (fa > 0.4) {
            ref->use[vox] = 1;
            ref->n_use++;
            for (int i = 0; i < 3; ++i) ref->dir[vox * 3 + i] = V[i][top];
        }
    }
    free(X);
    free(y);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct scan_case {
    const char *name, *dwi, *bval, *bvec;
} scan_case;

static void run_scan(clpk_context *ctx, const char *dir, const scan_case *sc) {
    char dwi[1024], bval[1024], bvec[1024];
    snprintf(dwi, sizeof dwi, "%s/%s", dir, sc->dwi);
    snprintf(bval, sizeof bval, "%s/%s", dir, sc->bval);
    snprintf(bvec, sizeof bvec, "%s/%s", dir, sc->bvec);
    FILE *probe = fopen(dwi, "rb");
    if (!probe) {
        printf("%s: %s absent, skipped\n", sc->name, dwi);
        return;
    }
    fclose(probe);
    nifti_file v = {0};
    clpk_sshopm_gradients g = {0};
    clpk_error err = {0};
    if (!CHECK(nifti_file_read(dwi, &v, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    if (!CHECK(clpk_sshopm_gradients_read(bval, bvec, 50, &g, &err) == CLPK_SUCCESS, "%s", err.message)) {
        nifti_file_free(&v);
        return;
    }
    reference ref;
    dti_reference(&v, &g, &ref);
    printf("%s: %dx%dx%d voxels x %d volumes; tensor fit: %lld voxels with FA > 0.4\n", sc->name, (int)v.nx,
           (int)v.ny, (int)v.nz, (int)v.nt, (long long)ref.n_use);
    struct {
        int order;
        double smooth;
        int assert;
    } runs[] = {{4, 0.5, 1}, {4, 0.006, 0}, {6, 0.5, 0}, {8, 0.5, 0}, {6, 0.006, 0}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        clpk_sshopm_odf_options oo;
        clpk_sshopm_odf_options_default(&oo);
        oo.order = runs[r].order;
        oo.smooth = runs[r].smooth;
        clpk_sshopm_peak_options po;
        clpk_sshopm_peak_options_default(&po);
        clpk_sshopm_scan_peaks s;
        clpk_status st = clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, NULL, &oo, &po, &s);
        if (st == CLPK_ERROR_INVALID_DATA && strstr(clpk_last_error(ctx), "too small")) {
            printf("  order %d: refused (%s)\n", oo.order, clpk_last_error(ctx));
            CHECK(g.volumes - 1 < (oo.order / 2 + 1) * (oo.order + 1), "refused although the scheme is big enough");
            continue;
        }
        if (!CHECK(st == CLPK_SUCCESS, "%s order %d: %s", sc->name, oo.order, clpk_last_error(ctx))) continue;
        double *ang = malloc((size_t)(ref.n_use ? ref.n_use : 1) * sizeof *ang);
        int64_t n = 0, within = 0, rule_breaks = 0;
        const int K = s.peaks.max_peaks;
        for (int64_t x = 0; x < ref.voxels; ++x) {
            const int c = s.peaks.count[x];
            rule_breaks += c < 1; /* every voxel with a signal has a largest maximum */
            for (int k = 1; k < c; ++k) rule_breaks += s.peaks.values[x * K + k] > s.peaks.values[x * K + k - 1];
            if (!ref.use[x]) continue;
            const float *d = s.peaks.dirs + x * K * 3;
            const double *e = ref.dir + x * 3;
            double cth = fabs(d[0] * e[0] + d[1] * e[1] + d[2] * e[2]) /
                         sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
            ang[n] = c ? acos(fmin(1.0, cth)) * DEG : 90;
            within += ang[n] <= 15;
            n++;
        }
        qsort(ang, (size_t)n, sizeof *ang, compare);
        const double frac = n ? (double)within / n : 0;
        printf("  order %d, lambda %-5g: first peak within 15 deg of the tensor in %.3f of %lld voxels, median %.2f "
               "deg (%s; starts %lld converged, %lld capped)\n",
               oo.order, oo.smooth, frac, (long long)n, n ? ang[n / 2] : NAN, s.model,
               (long long)s.peaks.starts_converged, (long long)s.peaks.starts_capped);
        CHECK(rule_breaks == 0 && s.voxels_fitted == ref.voxels, "%s: %lld voxels without a peak or out of order, %lld "
              "fitted", sc->name, (long long)rule_breaks, (long long)s.voxels_fitted);
        if (runs[r].assert) CHECK(frac >= 0.9, "%s order %d: %.3f within 15 degrees", sc->name, oo.order, frac);
        free(ang);
        clpk_sshopm_scan_peaks_free(&s);
    }
    free(ref.use);
    free(ref.dir);
    nifti_file_free(&v);
    clpk_sshopm_gradients_free(&g);
}

int main(void) {
    check_seed();
    const char *data = getenv("CLPK_SHARED_DATA_DIR") ? getenv("CLPK_SHARED_DATA_DIR") : CLPK_SHARED_DATA_DIR;
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/dmri", data);
    FILE *f = fopen(probe, "r");
    if (!f) {
        printf("%s absent: real-scan tests skipped\n", probe);
        return check_summary();
    }
    fclose(f);
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    const scan_case cases[] = {
        {"small_64D", "dmri/small_64D.nii", "dmri/small_64D.bval", "dmri/small_64D.bvec"},
        {"small_101D", "dmri/small_101D.nii.gz", "dmri/small_101D.bval", "dmri/small_101D.bvec"},
        {"small_25", "life/small_25.nii.gz", "life/small_25.bval", "life/small_25.bvec"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const double t0 = core_wall_seconds();
        run_scan(ctx, data, &cases[k]);
        printf("  (%.2f s)\n", core_wall_seconds() - t0);
    }
    clpk_context_destroy(ctx);
    return check_summary();
}
