/* The diffusion-MRI scan pipeline of the SS-HOPM family on inputs with known answers (the real scans are in
 * test_sshopm_scan_data):
 *  - spherical harmonics: the addition theorem sum_m Y_lm(x)^2 = (2l+1)/(4 pi) and orthonormality by quadrature;
 *    the harmonics-to-tensor map exact (T x^m = sum psi Y(x) at random x) for every even order; spherical mean and
 *    the isotropic tensor;
 *  - the CSA fit: an isotropic signal gives the constant ODF 1/(4 pi); a two-shell mono-exponential signal gives the
 *    same tensor as one shell at the reference b (the rescaling); invalid voxels zeroed, every output written;
 *  - gradient tables: FSL 3 x N and N x 3 with a NaN b = 0 row read alike; refusals with messages;
 *  - NIfTI writer: 3-, 4- and 5-D, plain and gzip, read back exactly with the geometry;
 *  - tensor peaks: orthogonal rank-one crossings exact; the existing generator's two-fibre field (45-90 degrees, SNR
 *    30) with the low-rank refinement finds both fibres within 5 degrees in >= 90% of voxels; the selection rules
 *    (count <= K, unit directions, values descending, separation, threshold) hold on every voxel;
 *  - the signal path end to end on synthetic scans (multi-tensor signal of the generator's fibres, Rician noise);
 *  - clpk_sshopm_dmri_scan and the CLI: refusals (3-D volume, count mismatch, scheme too small for the order, mask
 *    of another grid, missing file) and a run writing readable outputs. */
#include "clpk_sshopm.h"
#include "io_nifti.h"
#include "sshopm_sh.h"
#include "sshopm_util.h"

#include <unistd.h>

static const double PI = 3.14159265358979323846;
static const double DEG = 57.29577951308232;

static void random_unit(uint64_t *rng, double *x) {
    double z = 2 * check_rand_double(rng) - 1, ph = 2 * PI * check_rand_double(rng), r = sqrt(1 - z * z);
    x[0] = r * cos(ph), x[1] = r * sin(ph), x[2] = z;
}

static double axis_angle(const double *a, const double *b) {
    double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    double c = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (na * nb);
    return acos(fmin(1.0, c)) * DEG;
}

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* ---- spherical harmonics ---------------------------------------------------------------------------------- */

static void test_harmonics(uint64_t *rng) {
    for (int L = 0; L <= 8; L += 2) {
        const int R = sshopm_sh_count(L);
        int l[SSHOPM_SH_MAX_COEFFS];
        sshopm_sh_degrees(L, l);
        double worst = 0;
        for (int t = 0; t < 50; ++t) {
            double x[3], y[SSHOPM_SH_MAX_COEFFS], sum[9] = {0};
            random_unit(rng, x);
            sshopm_sh_eval(L, x, y);
            for (int r = 0; r < R; ++r) sum[l[r]] += y[r] * y[r];
            for (int d = 0; d <= L; d += 2) worst = fmax(worst, fabs(sum[d] - (2 * d + 1) / (4 * PI)));
        }
        CHECK(worst < 1e-12, "order %d: addition theorem off by %g", L, worst);
    }
    /* orthonormality: Fibonacci quadrature with 20000 points */
    {
        const int L = 8, R = sshopm_sh_count(L), J = 20000;
        double *G = calloc((size_t)R * R, sizeof *G), y[SSHOPM_SH_MAX_COEFFS];
        const double golden = PI * (3 - sqrt(5.0));
        for (int j = 0; G && j < J; ++j) {
            double z = 1 - (2.0 * j + 1) / J, r = sqrt(1 - z * z), x[3] = {r * cos(golden * j), r * sin(golden * j), z};
            sshopm_sh_eval(L, x, y);
            for (int a = 0; a < R; ++a)
                for (int b = 0; b < R; ++b) G[a * R + b] += y[a] * y[b] * 4 * PI / J;
        }
        double worst = 0;
        for (int a = 0; G && a < R; ++a)
            for (int b = 0; b < R; ++b) worst = fmax(worst, fabs(G[a * R + b] - (a == b)));
        CHECK(G && worst < 1e-3, "Gram matrix of the order-8 basis off the identity by %g", worst);
        free(G);
    }
    /* harmonics -> tensor: exact on the sphere; spherical mean; isotropic tensor */
    for (int m = 2; m <= 8; m += 2) {
        const int R = sshopm_sh_count(m), U = clpk_sshopm_unique_count(m, 3);
        double *C = malloc((size_t)U * R * sizeof *C), psi[SSHOPM_SH_MAX_COEFFS], a[SSHOPM_SH_MAX_COEFFS];
        double iso[SSHOPM_SH_MAX_COEFFS];
        clpk_error err = {0};
        if (!CHECK(C && U == R && sshopm_sh_to_tensor(m, C, &err) == CLPK_SUCCESS, "order %d: map: %s", m,
                   err.message)) {
            free(C);
            continue;
        }
        sshopm_index idx;
        sshopm_index_build(m, 3, &idx, NULL);
        for (int r = 0; r < R; ++r) psi[r] = 2 * check_rand_double(rng) - 1;
        for (int u = 0; u < U; ++u) {
            a[u] = 0;
            for (int r = 0; r < R; ++r) a[u] += C[u * R + r] * psi[r];
        }
        sshopm_tensor_isotropic(m, iso);
        double worst = 0, worst_iso = 0, scale = 0;
        for (int t = 0; t < 100; ++t) {
            double x[3], y[SSHOPM_SH_MAX_COEFFS], g[3], f = 0;
            random_unit(rng, x);
            sshopm_sh_eval(m, x, y);
            for (int r = 0; r < R; ++r) f += psi[r] * y[r];
            worst = fmax(worst, fabs(sshopm_ref_gradient(&idx, a, x, g) - f));
            worst_iso = fmax(worst_iso, fabs(sshopm_ref_gradient(&idx, iso, x, g) - 1));
            scale = fmax(scale, fabs(f));
        }
        CHECK(worst < 1e-10 * scale, "order %d: T x^m differs from the harmonic series by %g (scale %g)", m, worst,
              scale);
        CHECK(worst_iso < 1e-12, "order %d: isotropic tensor off 1 by %g", m, worst_iso);
        /* the spherical mean is psi_00 / (2 sqrt(pi)) */
        const double mean = sshopm_tensor_sphere_mean(m, a), want = psi[0] / (2 * sqrt(PI));
        CHECK(fabs(mean - want) < 1e-12 * fmax(1, fabs(want)), "order %d: spherical mean %.15g, expected %.15g", m,
              mean, want);
        sshopm_index_free(&idx);
        free(C);
    }
}

/* ---- gradient tables and the CSA fit ------------------------------------------------------------------------- */

/* n hemisphere directions (Fibonacci), for synthetic schemes */
static void hemisphere(int n, double *g) {
    const double golden = PI * (3 - sqrt(5.0));
    for (int i = 0; i < n; ++i) {
        double z = 1 - (i + 0.5) / n, r = sqrt(1 - z * z);
        g[3 * i] = r * cos(golden * i), g[3 * i + 1] = r * sin(golden * i), g[3 * i + 2] = z;
    }
}

/* A table of one b = 0 volume then n directions at each of the `shells` b-values. */
static void make_table(int n, int shells, const double *b, clpk_sshopm_gradients *g) {
    g->volumes = 1 + n * shells;
    g->bval = calloc((size_t)g->volumes, sizeof *g->bval);
    g->bvec = calloc((size_t)g->volumes * 3, sizeof *g->bvec);
    g->is_b0 = calloc((size_t)g->volumes, sizeof *g->is_b0);
    g->is_b0[0] = 1;
    double *dirs = malloc((size_t)n * 3 * sizeof *dirs);
    hemisphere(n, dirs);
    for (int s = 0; s < shells; ++s)
        for (int i = 0; i < n; ++i) {
            const int q = 1 + s * n + i;
            g->bval[q] = b[s];
            memcpy(g->bvec + 3 * q, dirs + 3 * i, 3 * sizeof(double));
        }
    free(dirs);
}

/* Multi-tensor signal of the generator's fibres (axial 1.7e-3, radial 0.3e-3 mm^2/s, weights normalised), S0 = 100,
 * Rician noise of sigma = S0 / snr (snr 0: none); volume-major as in a NIfTI file. */
static void make_signal(const clpk_sshopm_dmri_field *f, const clpk_sshopm_gradients *g, double snr, uint64_t *rng,
                        double *signal) {
    const int64_t V = f->voxels;
    for (int64_t v = 0; v < V; ++v) {
        double wsum = 0;
        for (int k = 0; k < f->n_fibres[v]; ++k) wsum += f->weights[v * 3 + k];
        for (int q = 0; q < g->volumes; ++q) {
            double s = 0;
            for (int k = 0; k < f->n_fibres[v]; ++k) {
                const double *u = f->dirs + v * 9 + 3 * k, *x = g->bvec + 3 * q;
                const double c = u[0] * x[0] + u[1] * x[1] + u[2] * x[2];
                s += f->weights[v * 3 + k] / wsum * exp(-g->bval[q] * (0.3e-3 + 1.4e-3 * c * c));
            }
            s *= 100;
            if (snr > 0) {
                const double sigma = 100 / snr;
                double u1 = fmax(check_rand_double(rng), 1e-300), u2 = check_rand_double(rng);
                double n1 = sqrt(-2 * log(u1)) * cos(2 * PI * u2), n2 = sqrt(-2 * log(u1)) * sin(2 * PI * u2);
                s = sqrt((s + sigma * n1) * (s + sigma * n1) + sigma * n2 * sigma * n2);
            }
            signal[q * V + v] = s;
        }
    }
}

static void test_fit(uint64_t *rng) {
    clpk_error err = {0};
    /* isotropic signal -> the constant ODF 1/(4 pi) */
    {
        const double b[1] = {1000};
        clpk_sshopm_gradients g = {0};
        make_table(40, 1, b, &g);
        clpk_sshopm_odf_options o;
        clpk_sshopm_odf_options_default(&o);
        o.order = 6;
        clpk_sshopm_odf_model *m = NULL;
        if (CHECK(clpk_sshopm_odf_model_create(&g, &o, &m, &err) == CLPK_SUCCESS, "model: %s", err.message)) {
            const int U = clpk_sshopm_unique_count(6, 3);
            double signal[41 * 3], tensors[3 * 28], iso[28];
            uint8_t valid[3], active[3] = {1, 1, 0};
            for (int q = 0; q < 41; ++q) {
                signal[q * 3 + 0] = q == 0 ? 200 : 200 * exp(-0.7); /* isotropic */
                signal[q * 3 + 1] = q == 0 ? 0 : 50;                /* S0 = 0: no signal */
                signal[q * 3 + 2] = 100;                            /* inactive */
            }
            for (int i = 0; i < 3 * U; ++i) tensors[i] = NAN;
            memset(valid, 0xAA, sizeof valid);
            int64_t n_valid = -1;
            CHECK(clpk_sshopm_odf_fit(m, signal, 3, active, tensors, valid, &n_valid, &err) == CLPK_SUCCESS, "fit: %s",
                  err.message);
            sshopm_tensor_isotropic(6, iso);
            double worst = 0;
            for (int u = 0; u < U; ++u) worst = fmax(worst, fabs(tensors[u] - iso[u] / (4 * PI)));
            CHECK(worst < 1e-12, "isotropic signal: tensor off iso / (4 pi) by %g", worst);
            CHECK(valid[0] == 1 && valid[1] == 0 && valid[2] == 0 && n_valid == 1, "valid flags %d %d %d, %lld",
                  valid[0], valid[1], valid[2], (long long)n_valid);
            int zeros = 1;
            for (int u = 0; u < 2 * U; ++u) zeros &= tensors[U + u] == 0;
            CHECK(zeros, "invalid voxels get zero tensors");
            char desc[256];
            clpk_sshopm_odf_model_describe(m, desc, sizeof desc);
            CHECK(contains(desc, "order 6") && contains(desc, "40 of 41 volumes"), "describe: %s", desc);
        }
        clpk_sshopm_odf_model_destroy(m);
        clpk_sshopm_gradients_free(&g);
    }
    /* two mono-exponential shells give the single shell at the reference b (the window's median) */
    {
        const double b2[2] = {1000, 2000}, b1[1] = {1500};
        clpk_sshopm_gradients g2 = {0}, g1 = {0};
        make_table(45, 2, b2, &g2);
        make_table(45, 1, b1, &g1);
        clpk_sshopm_odf_model *m2 = NULL, *m1 = NULL;
        clpk_sshopm_odf_options o;
        clpk_sshopm_odf_options_default(&o);
        int ok = CHECK(clpk_sshopm_odf_model_create(&g2, &o, &m2, &err) == CLPK_SUCCESS, "2 shells: %s", err.message);
        o.smooth /= 2; /* each direction once instead of twice: half the regularisation for the same solution */
        ok = ok && CHECK(clpk_sshopm_odf_model_create(&g1, &o, &m1, &err) == CLPK_SUCCESS, "1 shell: %s", err.message);
        if (ok) {
            /* ADC(x) = 1e-3 (0.3 + 1.4 (u.x)^2) for a random u, per voxel */
            enum { NV = 4 };
            double s2[91 * NV], s1[46 * NV], t2[15 * NV], t1[15 * NV];
            for (int v = 0; v < NV; ++v) {
                double u[3];
                random_unit(rng, u);
                s2[v] = s1[v] = 150;
                for (int q = 1; q < 91; ++q) {
                    const double *x = g2.bvec + 3 * q, c = u[0] * x[0] + u[1] * x[1] + u[2] * x[2];
                    s2[q * NV + v] = 150 * exp(-g2.bval[q] * 1e-3 * (0.3 + 1.4 * c * c));
                    if (q <= 45) s1[q * NV + v] = 150 * exp(-1500 * 1e-3 * (0.3 + 1.4 * c * c));
                }
            }
            clpk_sshopm_odf_fit(m2, s2, NV, NULL, t2, NULL, NULL, &err);
            clpk_sshopm_odf_fit(m1, s1, NV, NULL, t1, NULL, NULL, &err);
            /* 90 volumes against 45: the same directions twice, the same values after rescaling */
            double worst = 0, scale = 0;
            for (int i = 0; i < 15 * NV; ++i) worst = fmax(worst, fabs(t2[i] - t1[i])), scale = fmax(scale, fabs(t1[i]));
            CHECK(worst < 1e-9 * scale, "two shells rescaled vs one shell at b 1500: %g (scale %g)", worst, scale);
        }
        clpk_sshopm_odf_model_destroy(m1);
        clpk_sshopm_odf_model_destroy(m2);
        clpk_sshopm_gradients_free(&g1);
        clpk_sshopm_gradients_free(&g2);
    }
    /* refusals of the model */
    {
        const double b[1] = {1000};
        clpk_sshopm_gradients g = {0};
        make_table(20, 1, b, &g);
        clpk_sshopm_odf_model *m = NULL;
        clpk_sshopm_odf_options o;
        clpk_sshopm_odf_options_default(&o);
        o.order = 6; /* 28 coefficients > 20 directions */
        CHECK(clpk_sshopm_odf_model_create(&g, &o, &m, &err) == CLPK_ERROR_INVALID_DATA && !m &&
                  contains(err.message, "too small for order 6") && contains(err.message, "20 distinct"),
              "scheme too small: %s", err.message);
        o.order = 5;
        CHECK(clpk_sshopm_odf_model_create(&g, &o, &m, &err) == CLPK_ERROR_INVALID_ARGUMENT, "odd order refused");
        o.order = 4;
        o.bmin = 2000, o.bmax = 3000;
        CHECK(clpk_sshopm_odf_model_create(&g, &o, &m, &err) == CLPK_ERROR_INVALID_DATA &&
                  contains(err.message, "no diffusion-weighted volume"),
              "empty window: %s", err.message);
        /* the same direction 20 times is one direction */
        for (int q = 2; q < g.volumes; ++q) memcpy(g.bvec + 3 * q, g.bvec + 3, 3 * sizeof(double));
        o.bmin = o.bmax = 0;
        CHECK(clpk_sshopm_odf_model_create(&g, &o, &m, &err) == CLPK_ERROR_INVALID_DATA &&
                  contains(err.message, "1 distinct"),
              "repeated direction: %s", err.message);
        clpk_sshopm_gradients_free(&g);
    }
}

static void test_gradients(const check_tmp_dir *dir) {
    char bval[512], fsl[512], rows[512], bad[512];
    check_tmp_file(dir, "g.bval", bval, sizeof bval);
    check_tmp_file(dir, "fsl.bvec", fsl, sizeof fsl);
    check_tmp_file(dir, "rows.bvec", rows, sizeof rows);
    check_tmp_file(dir, "bad.bvec", bad, sizeof bad);
    write_text(bval, "0 1000 1000\n1000 5\n");
    write_text(fsl, "0 1 0 0 0\n0 0 2 0 0.6\n0 0 0 -1 0.8\n");
    write_text(rows, "nan nan nan\n1 0 0\n0 2 0\n0 0 -1\n0 0.6 0.8\n");
    clpk_sshopm_gradients a = {0}, b = {0};
    clpk_error err = {0};
    int ok = CHECK(clpk_sshopm_gradients_read(bval, fsl, 50, &a, &err) == CLPK_SUCCESS, "FSL: %s", err.message);
    ok = CHECK(clpk_sshopm_gradients_read(bval, rows, 50, &b, &err) == CLPK_SUCCESS, "rows + NaN b0: %s",
               err.message) && ok;
    if (ok) {
        int same = a.volumes == 5 && b.volumes == 5;
        for (int i = 0; same && i < 15; ++i) same = a.bvec[i] == b.bvec[i];
        CHECK(same, "both layouts give the same table");
        CHECK(a.is_b0[0] && a.is_b0[4] && !a.is_b0[1] && a.bvec[7] == 1.0 && a.bvec[0] == 0 && !isnan(b.bvec[0]),
              "b0 volumes (b <= 50), normalised vectors, b0 vectors zeroed");
    }
    clpk_sshopm_gradients_free(&a);
    clpk_sshopm_gradients_free(&b);
    struct {
        const char *bvec, *bval, *what;
    } cases[] = {
        {"0 1 0 0\n0 0 1 0\n0 0 0 1\n", NULL, "expected 3 x 5"},             /* 4 columns */
        {"0 1 0 0 0\n0 0 1 0 0.6\n0 0 0 1\n0.8\n", NULL, "expected 3 rows of 5"}, /* ragged */
        {"0 0 0\n1 0 0\n0 1 0\n0 0 0\n0 0.6 0.8\n", NULL, "volume 3 has b = 1000"},  /* zero vector */
        {"0 0 0\n1 0 0\n0 1 0\nnan 0 1\n0 0.6 0.8\n", NULL, "volume 3 has b = 1000"}, /* NaN vector at b > 0 */
        {"0 0 0\n1 0 x\n0 1 0\n0 0 1\n0 0.6 0.8\n", NULL, "not a number"},
        {"0 1 0 0 0\n0 0 1 0 0.6\n0 0 0 1 0.8\n", "0 1000 -3 1000 5", "b-value 2 is -3"},
        {"1 1 0 0 0\n0 0 1 0 0.6\n0 0 0 1 0.8\n", "300 1000 1000 1000 500", "no b = 0 volume"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        write_text(bad, cases[k].bvec);
        if (cases[k].bval) write_text(bval, cases[k].bval);
        clpk_sshopm_gradients g = {0};
        clpk_status st = clpk_sshopm_gradients_read(bval, bad, 50, &g, &err);
        CHECK(st != CLPK_SUCCESS && contains(err.message, cases[k].what) && g.bval == NULL,
              "case %zu: status %d, message '%s', expected '%s'", k, (int)st, err.message, cases[k].what);
        write_text(bval, "0 1000 1000\n1000 5\n");
    }
    CHECK(clpk_sshopm_gradients_read(bval, "/nonexistent/x.bvec", 50, &a, &err) == CLPK_ERROR_IO, "missing file");
}

/* ---- NIfTI writer ----------------------------------------------------------------------------------------- */

static void test_nifti_writer(const check_tmp_dir *dir, uint64_t *rng) {
    nifti_file like = {0};
    like.pixdim[0] = -1, like.pixdim[1] = 2, like.pixdim[2] = 2.5, like.pixdim[3] = 3;
    like.qform_code = 1, like.sform_code = 2, like.xyzt_units = 10;
    like.quatern[0] = 0, like.quatern[1] = 0.6, like.quatern[2] = 0.8, like.qoffset[0] = 10, like.qoffset[1] = -20,
    like.qoffset[2] = 5;
    double srow[3][4] = {{0, -2, 0, 20}, {-1.9, 0, -0.5, 25}, {-0.5, 0, 1.9, 12}};
    memcpy(like.srow, srow, sizeof srow);
    const int64_t dims[5] = {4, 3, 2, 5, 3};
    float data[360];
    for (int i = 0; i < 360; ++i) data[i] = (float)(check_rand_double(rng) * 2 - 1);
    data[7] = NAN;
    for (int nd = 3; nd <= 5; ++nd)
        for (int gz = 0; gz <= 1; ++gz) {
            char path[512], name[64];
            snprintf(name, sizeof name, "w%d.nii%s", nd, gz ? ".gz" : "");
            check_tmp_file(dir, name, path, sizeof path);
            clpk_error err = {0};
            nifti_file v = {0};
            if (!CHECK(nifti_file_write_f32(path, nd, dims, data, &like, &err) == CLPK_SUCCESS, "%s: %s", name,
                       err.message))
                continue;
            if (!CHECK(nifti_file_read_5d(path, &v, &err) == CLPK_SUCCESS, "read back %s: %s", name, err.message))
                continue;
            size_t n = 1;
            for (int i = 0; i < nd; ++i) n *= (size_t)dims[i];
            int same = v.ndim == nd && v.nx == 4 && v.ny == 3 && v.nz == 2 && v.nt == (nd > 3 ? 5 : 1) &&
                       v.nu == (nd > 4 ? 3 : 1) && v.datatype == 16;
            for (size_t i = 0; same && i < n; ++i) same = (isnan(data[i]) && isnan(v.data[i])) || v.data[i] == data[i];
            CHECK(same, "%s: dims %d %dx%dx%dx%dx%d and data read back", name, v.ndim, v.nx, v.ny, v.nz, v.nt, v.nu);
            int geo = v.qform_code == 1 && v.sform_code == 2 && v.xyzt_units == 10 && v.pixdim[0] == -1 &&
                      v.pixdim[2] == 2.5 && !strcmp(v.affine_from, "sform");
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c) geo &= fabs(v.affine[r][c] - srow[r][c]) < 1e-6;
            geo &= fabs(v.quatern[1] - 0.6) < 1e-7 && v.qoffset[1] == -20;
            CHECK(geo, "%s: geometry copied", name);
            if (nd == 5) {
                nifti_file u = {0};
                CHECK(nifti_file_read(path, &u, &err) == CLPK_ERROR_UNSUPPORTED, "the 4-D reader still refuses 5-D");
                nifti_file_free(&u);
            }
            nifti_file_free(&v);
        }
    clpk_error err = {0};
    const int64_t zero[3] = {4, 0, 2};
    CHECK(nifti_file_write_f32("/tmp/x.nii", 3, zero, data, NULL, &err) == CLPK_ERROR_INVALID_ARGUMENT,
          "a zero dimension is refused");
    CHECK(nifti_file_write_f32("/nonexistent/dir/x.nii.gz", 3, dims, data, NULL, &err) == CLPK_ERROR_IO,
          "unwritable path: %s", err.message);
}

/* ---- tensor peaks ----------------------------------------------------------------------------------------- */

/* Invariants of the selection that ran with options o, on every voxel. */
static int check_selection(const clpk_sshopm_peaks *p, const clpk_sshopm_peak_options *o, const char *label) {
    int64_t bad = 0;
    for (int64_t v = 0; v < p->voxels; ++v) {
        const int K = p->max_peaks, n = p->count[v];
        int ok = n >= 0 && n <= o->max_peaks && K == o->max_peaks;
        for (int k = 0; ok && k < K; ++k) {
            const float *d = p->dirs + (v * K + k) * 3;
            const double norm = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
            if (k >= n) {
                ok = d[0] == 0 && d[1] == 0 && d[2] == 0 && p->values[v * K + k] == 0;
                continue;
            }
            ok = fabs(norm - 1) < 1e-5 && isfinite(p->values[v * K + k]);
            if (k > 0) ok = ok && p->values[v * K + k] <= p->values[v * K + k - 1];
            for (int j = 0; ok && j < k && !o->refine; ++j) {
                double a[3] = {d[0], d[1], d[2]}, b[3];
                for (int c = 0; c < 3; ++c) b[c] = p->dirs[(v * K + j) * 3 + c];
                ok = axis_angle(a, b) >= o->min_separation_deg - 1e-3;
            }
        }
        bad += !ok;
    }
    return CHECK(bad == 0, "%s: %lld voxels break the selection rules", label, (long long)bad);
}

static void test_tensor_peaks(clpk_context *ctx, uint64_t seed) {
    /* orthogonal rank-one crossings, noiseless, order 6: the maxima are the fibres (exact), values the weights */
    {
        const int m = 6, U = clpk_sshopm_unique_count(m, 3);
        enum { NV = 12 };
        double *t = calloc((size_t)NV * U, sizeof *t), truth[NV][2][3], w[NV][2];
        sshopm_index idx;
        sshopm_index_build(m, 3, &idx, NULL);
        uint64_t rng = seed ^ 0x0a7;
        for (int v = 0; v < NV; ++v) {
            double u[3], e[3];
            random_unit(&rng, u);
            random_unit(&rng, e);
            double d = u[0] * e[0] + u[1] * e[1] + u[2] * e[2], n = 0;
            for (int c = 0; c < 3; ++c) e[c] -= d * u[c], n += e[c] * e[c];
            for (int c = 0; c < 3; ++c) e[c] /= sqrt(n);
            w[v][0] = 1, w[v][1] = 0.6 + 0.3 * check_rand_double(&rng);
            memcpy(truth[v][0], u, sizeof u), memcpy(truth[v][1], e, sizeof e);
            for (int f = 0; f < 2; ++f)
                for (int c = 0; c < U; ++c) {
                    double p = w[v][f];
                    for (int q = 0; q < m; ++q) p *= truth[v][f][idx.rep[c * m + q]];
                    t[v * U + c] += p;
                }
        }
        clpk_sshopm_peak_options o;
        clpk_sshopm_peak_options_default(&o);
        o.precision = CLPK_PRECISION_F64;
        clpk_sshopm_peaks p;
        if (CHECK(clpk_sshopm_tensor_peaks(ctx, m, t, NV, NULL, &o, &p) == CLPK_SUCCESS, "peaks: %s",
                  clpk_last_error(ctx))) {
            double worst = 0, worst_w = 0;
            int counts = 1;
            for (int v = 0; v < NV; ++v) {
                counts &= p.count[v] == 2;
                for (int f = 0; f < 2 && p.count[v] == 2; ++f) {
                    double d[3] = {p.dirs[(v * 5 + f) * 3], p.dirs[(v * 5 + f) * 3 + 1], p.dirs[(v * 5 + f) * 3 + 2]};
                    worst = fmax(worst, axis_angle(d, truth[v][f]));
                    worst_w = fmax(worst_w, fabs(p.values[v * 5 + f] - w[v][f]));
                }
            }
            CHECK(counts && worst < 0.01 && worst_w < 1e-5, "orthogonal crossings: 2 peaks each %d, worst %.4f deg, "
                  "weight %.2g", counts, worst, worst_w);
            check_selection(&p, &o, "orthogonal crossings");
            clpk_sshopm_peaks_free(&p);
        }
        sshopm_index_free(&idx);
        free(t);
    }
    /* the existing generator: 1-2 fibres at 45-90 degrees, SNR 30 on the tensor, order 4; two-fibre voxels kept */
    {
        clpk_sshopm_dmri_options d;
        clpk_sshopm_dmri_options_default(&d);
        d.voxels = 300;
        d.max_fibres = 2;
        d.min_angle_deg = 45;
        d.snr = 30;
        d.seed = seed;
        clpk_sshopm_dmri_field f;
        clpk_error err = {0};
        if (!CHECK(clpk_sshopm_dmri_synth(&d, &f, &err) == CLPK_SUCCESS, "synth: %s", err.message)) return;
        uint8_t *two = malloc((size_t)f.voxels);
        int64_t n_two = 0;
        for (int64_t v = 0; v < f.voxels; ++v) n_two += two[v] = f.n_fibres[v] == 2;
        for (int refine = 0; refine <= 1; ++refine) {
            clpk_sshopm_peak_options o;
            clpk_sshopm_peak_options_default(&o);
            o.refine = refine;
            clpk_sshopm_peaks p;
            if (!CHECK(clpk_sshopm_tensor_peaks(ctx, 4, f.tensors, f.voxels, two, &o, &p) == CLPK_SUCCESS,
                       "peaks: %s", clpk_last_error(ctx)))
                continue;
            int64_t found = 0, inactive_zero = 1;
            double errs[2 * 300];
            int ne = 0;
            for (int64_t v = 0; v < f.voxels; ++v) {
                if (!two[v]) {
                    inactive_zero &= p.count[v] == 0;
                    continue;
                }
                int both = 1;
                for (int k = 0; k < 2; ++k) {
                    double best = 90;
                    for (int j = 0; j < p.count[v]; ++j) {
                        double e[3] = {p.dirs[(v * 5 + j) * 3], p.dirs[(v * 5 + j) * 3 + 1], p.dirs[(v * 5 + j) * 3 + 2]};
                        best = fmin(best, axis_angle(e, f.dirs + v * 9 + 3 * k));
                    }
                    errs[ne++] = best;
                    both &= best <= 5;
                }
                found += both;
            }
            double sorted[600];
            memcpy(sorted, errs, (size_t)ne * sizeof *errs);
            for (int i = 1; i < ne; ++i)
                for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; --j) {
                    double s = sorted[j];
                    sorted[j] = sorted[j - 1], sorted[j - 1] = s;
                }
            printf("generator field, order 4, SNR 30, %lld two-fibre voxels (45-90 deg), %s: both fibres within 5 deg "
                   "in %.3f; fibre error median %.2f, p90 %.2f deg\n",
                   (long long)n_two, refine ? "low-rank refinement" : "maxima", (double)found / n_two,
                   sorted[ne / 2], sorted[ne * 9 / 10]);
            CHECK(inactive_zero, "inactive voxels have no peaks");
            check_selection(&p, &o, refine ? "generator, refined" : "generator, maxima");
            if (refine)
                CHECK((double)found / n_two >= 0.9, "refined: both fibres within 5 degrees in %.3f of voxels",
                      (double)found / n_two);
            clpk_sshopm_peaks_free(&p);
        }
        free(two);
        clpk_sshopm_dmri_field_free(&f);
    }
    /* refusals */
    {
        double t[15] = {1};
        clpk_sshopm_peak_options o;
        clpk_sshopm_peaks p;
        clpk_sshopm_peak_options_default(&o);
        CHECK(clpk_sshopm_tensor_peaks(ctx, 3, t, 1, NULL, &o, &p) == CLPK_ERROR_INVALID_ARGUMENT, "odd order");
        o.max_peaks = 0;
        CHECK(clpk_sshopm_tensor_peaks(ctx, 4, t, 1, NULL, &o, &p) == CLPK_ERROR_INVALID_ARGUMENT &&
                  contains(clpk_last_error(ctx), "max_peaks"),
              "K = 0: %s", clpk_last_error(ctx));
        clpk_sshopm_peak_options_default(&o);
        o.refine = 1;
        CHECK(clpk_sshopm_tensor_peaks(ctx, 8, t, 1, NULL, &o, &p) == CLPK_ERROR_INVALID_ARGUMENT, "refine at 8");
    }
}

/* The signal path on synthetic scans: order 4, b = 1000 (single fibres) and order 8, b = 3000 (crossings), 64
 * directions. */
static void test_signal_path(clpk_context *ctx, uint64_t seed) {
    struct {
        int order, fibres;
        double b, snr, min_angle, within, need;
        const char *what;
    } cases[] = {
        {4, 1, 1000, 30, 0, 5, 0.9, "single fibres, b 1000, SNR 30, order 4"},
        {8, 2, 3000, 0, 60, 5, 0.9, "two fibres 60-90 deg, b 3000, noiseless, order 8"},
        {8, 2, 3000, 30, 60, 10, 0.85, "two fibres 60-90 deg, b 3000, SNR 30, order 8"},
        {8, 2, 3000, 0, 45, 5, 0.0, "two fibres 45-90 deg, b 3000, noiseless, order 8 (reported)"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        clpk_sshopm_dmri_options d;
        clpk_sshopm_dmri_options_default(&d);
        d.voxels = 200;
        d.max_fibres = cases[c].fibres;
        d.min_angle_deg = cases[c].min_angle;
        d.snr = 0;
        d.seed = seed + c;
        clpk_sshopm_dmri_field f;
        clpk_error err = {0};
        if (!CHECK(clpk_sshopm_dmri_synth(&d, &f, &err) == CLPK_SUCCESS, "synth: %s", err.message)) continue;
        const double b[1] = {cases[c].b};
        clpk_sshopm_gradients g = {0};
        make_table(64, 1, b, &g);
        uint64_t rng = seed * 31 + c;
        double *signal = malloc((size_t)g.volumes * f.voxels * sizeof *signal);
        make_signal(&f, &g, cases[c].snr, &rng, signal);
        clpk_sshopm_odf_options oo;
        clpk_sshopm_odf_options_default(&oo);
        oo.order = cases[c].order;
        clpk_sshopm_odf_model *m = NULL;
        const int U = clpk_sshopm_unique_count(oo.order, 3);
        double *t = malloc((size_t)f.voxels * U * sizeof *t);
        uint8_t *active = malloc((size_t)f.voxels), *valid = malloc((size_t)f.voxels);
        for (int64_t v = 0; v < f.voxels; ++v) active[v] = cases[c].fibres == 1 || f.n_fibres[v] == 2;
        clpk_sshopm_peaks p = {0};
        int ok = CHECK(clpk_sshopm_odf_model_create(&g, &oo, &m, &err) == CLPK_SUCCESS, "model: %s", err.message);
        ok = ok && CHECK(clpk_sshopm_odf_fit(m, signal, f.voxels, active, t, valid, NULL, &err) == CLPK_SUCCESS,
                         "fit: %s", err.message);
        ok = ok && CHECK(clpk_sshopm_tensor_peaks(ctx, oo.order, t, f.voxels, valid, NULL, &p) == CLPK_SUCCESS,
                         "peaks: %s", clpk_last_error(ctx));
        if (ok) {
            int64_t voxels = 0, found = 0;
            double worst_median[400];
            int ne = 0;
            for (int64_t v = 0; v < f.voxels; ++v) {
                if (!active[v]) continue;
                voxels++;
                int all = 1;
                for (int k = 0; k < f.n_fibres[v]; ++k) {
                    double best = 90;
                    for (int j = 0; j < p.count[v]; ++j) {
                        double e[3] = {p.dirs[(v * 5 + j) * 3], p.dirs[(v * 5 + j) * 3 + 1], p.dirs[(v * 5 + j) * 3 + 2]};
                        best = fmin(best, axis_angle(e, f.dirs + v * 9 + 3 * k));
                    }
                    if (ne < 400) worst_median[ne++] = best;
                    all &= best <= cases[c].within;
                }
                found += all;
            }
            for (int i = 1; i < ne; ++i)
                for (int j = i; j > 0 && worst_median[j] < worst_median[j - 1]; --j) {
                    double s = worst_median[j];
                    worst_median[j] = worst_median[j - 1], worst_median[j - 1] = s;
                }
            const double frac = (double)found / (double)voxels;
            printf("signal path, %s: every fibre within %g deg in %.3f of %lld voxels; fibre error median %.2f, p90 "
                   "%.2f deg\n",
                   cases[c].what, cases[c].within, frac, (long long)voxels, worst_median[ne / 2],
                   worst_median[ne * 9 / 10]);
            CHECK(frac >= cases[c].need, "%s: %.3f within %g degrees", cases[c].what, frac, cases[c].within);
            clpk_sshopm_peak_options o;
            clpk_sshopm_peak_options_default(&o);
            check_selection(&p, &o, cases[c].what);
        }
        clpk_sshopm_peaks_free(&p);
        clpk_sshopm_odf_model_destroy(m);
        free(t);
        free(active);
        free(valid);
        free(signal);
        clpk_sshopm_gradients_free(&g);
        clpk_sshopm_dmri_field_free(&f);
    }
}

/* ---- the scan API and the CLI -------------------------------------------------------------------------------- */

/* Writes a synthetic nx x ny x nz scan of `n` directions at b 2000 plus one b = 0 (FSL files, the b = 0 vector NaN
 * in the N x 3 layout) and a mask. */
static void write_scan(const check_tmp_dir *dir, int n, uint64_t seed) {
    const int nx = 5, ny = 4, nz = 3;
    const int64_t nvox = nx * ny * nz;
    clpk_sshopm_dmri_options d;
    clpk_sshopm_dmri_options_default(&d);
    d.voxels = nvox, d.max_fibres = 2, d.min_angle_deg = 60, d.snr = 0, d.seed = seed;
    clpk_sshopm_dmri_field f;
    clpk_sshopm_dmri_synth(&d, &f, NULL);
    const double b[1] = {2000};
    clpk_sshopm_gradients g = {0};
    make_table(n, 1, b, &g);
    double *signal = malloc((size_t)g.volumes * nvox * sizeof *signal);
    float *fs = malloc((size_t)g.volumes * nvox * sizeof *fs), mask[60];
    uint64_t rng = seed;
    make_signal(&f, &g, 50, &rng, signal);
    for (int64_t i = 0; i < g.volumes * nvox; ++i) fs[i] = (float)signal[i];
    for (int i = 0; i < 60; ++i) mask[i] = (float)(i % 3 != 0);
    char path[512];
    const int64_t dims[4] = {nx, ny, nz, g.volumes}, mdims[3] = {nx, ny, nz}, wrong[3] = {nx, ny, 2};
    nifti_file_write_f32(check_tmp_file(dir, "scan.nii.gz", path, sizeof path), 4, dims, fs, NULL, NULL);
    nifti_file_write_f32(check_tmp_file(dir, "vol3d.nii", path, sizeof path), 3, dims, fs, NULL, NULL);
    nifti_file_write_f32(check_tmp_file(dir, "mask.nii", path, sizeof path), 3, mdims, mask, NULL, NULL);
    nifti_file_write_f32(check_tmp_file(dir, "mask_wrong.nii", path, sizeof path), 3, wrong, mask, NULL, NULL);
    FILE *fb = fopen(check_tmp_file(dir, "scan.bval", path, sizeof path), "w");
    FILE *fv = fopen(check_tmp_file(dir, "scan.bvec", path, sizeof path), "w");
    FILE *fw = fopen(check_tmp_file(dir, "short.bval", path, sizeof path), "w");
    for (int q = 0; fb && fv && fw && q < g.volumes; ++q) {
        fprintf(fb, "%g ", g.bval[q]);
        if (q) fprintf(fw, "%g ", g.bval[q]); /* one b-value short */
        if (g.is_b0[q])
            fprintf(fv, "nan nan nan\n");
        else
            fprintf(fv, "%.9f %.9f %.9f\n", g.bvec[3 * q], g.bvec[3 * q + 1], g.bvec[3 * q + 2]);
    }
    if (fb) fclose(fb);
    if (fv) fclose(fv);
    if (fw) fclose(fw);
    free(signal);
    free(fs);
    clpk_sshopm_gradients_free(&g);
    clpk_sshopm_dmri_field_free(&f);
}

static void test_scan_api(clpk_context *ctx, const check_tmp_dir *dir, uint64_t seed) {
    char dwi[512], bval[512], bvec[512], vol3d[512], mask[512], wrong[512], shortb[512], out[512];
    write_scan(dir, 30, seed);
    check_tmp_file(dir, "scan.nii.gz", dwi, sizeof dwi);
    check_tmp_file(dir, "scan.bval", bval, sizeof bval);
    check_tmp_file(dir, "scan.bvec", bvec, sizeof bvec);
    check_tmp_file(dir, "vol3d.nii", vol3d, sizeof vol3d);
    check_tmp_file(dir, "mask.nii", mask, sizeof mask);
    check_tmp_file(dir, "mask_wrong.nii", wrong, sizeof wrong);
    check_tmp_file(dir, "short.bval", shortb, sizeof shortb);
    check_tmp_file(dir, "out", out, sizeof out);
    clpk_sshopm_scan_peaks s;
    clpk_sshopm_odf_options oo;
    clpk_sshopm_odf_options_default(&oo);
    /* refusals */
    CHECK(clpk_sshopm_dmri_scan(ctx, vol3d, bval, bvec, NULL, NULL, NULL, &s) == CLPK_ERROR_INVALID_DATA &&
              contains(clpk_last_error(ctx), "4-D"),
          "3-D volume: %s", clpk_last_error(ctx));
    CHECK(clpk_sshopm_dmri_scan(ctx, dwi, shortb, bvec, NULL, NULL, NULL, &s) != CLPK_SUCCESS &&
              contains(clpk_last_error(ctx), "expected 3 x 30"),
          "bvec/bval counts: %s", clpk_last_error(ctx));
    oo.order = 6; /* 28 coefficients, 30 directions: fine; 8: 45 > 30 */
    CHECK(clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, NULL, &oo, NULL, &s) == CLPK_SUCCESS, "order 6: %s",
          clpk_last_error(ctx));
    clpk_sshopm_scan_peaks_free(&s);
    oo.order = 8;
    CHECK(clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, NULL, &oo, NULL, &s) == CLPK_ERROR_INVALID_DATA &&
              contains(clpk_last_error(ctx), "too small for order 8"),
          "order 8 with 30 directions: %s", clpk_last_error(ctx));
    CHECK(clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, wrong, NULL, NULL, &s) == CLPK_ERROR_INVALID_DATA &&
              contains(clpk_last_error(ctx), "grid"),
          "mask of another grid: %s", clpk_last_error(ctx));
    CHECK(clpk_sshopm_dmri_scan(ctx, "/nonexistent.nii.gz", bval, bvec, NULL, NULL, NULL, &s) == CLPK_ERROR_IO,
          "missing scan: %s", clpk_last_error(ctx));
    CHECK(clpk_sshopm_dmri_scan(ctx, bval, bval, bvec, NULL, NULL, NULL, &s) == CLPK_ERROR_PARSE,
          "not a NIfTI file: %s", clpk_last_error(ctx));
    /* a run with the mask: voxels outside have no peaks; the files read back */
    if (CHECK(clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, mask, NULL, NULL, &s) == CLPK_SUCCESS, "masked run: %s",
              clpk_last_error(ctx))) {
        int outside = 1, inside = 1;
        for (int v = 0; v < 60; ++v) {
            if (v % 3 == 0) outside &= s.peaks.count[v] == 0;
            else inside &= s.peaks.count[v] >= 1;
        }
        CHECK(outside && inside && s.voxels_fitted == 40, "mask respected (%lld fitted)", (long long)s.voxels_fitted);
        clpk_error err = {0};
        if (CHECK(clpk_sshopm_dmri_scan_write(out, &s, -1, &err) == CLPK_SUCCESS, "write: %s", err.message)) {
            char path[600];
            nifti_file d = {0}, v = {0};
            snprintf(path, sizeof path, "%s_peak_dirs.nii.gz", out);
            int ok = CHECK(nifti_file_read_5d(path, &d, &err) == CLPK_SUCCESS, "dirs: %s", err.message);
            snprintf(path, sizeof path, "%s_peak_values.nii.gz", out);
            ok = CHECK(nifti_file_read_5d(path, &v, &err) == CLPK_SUCCESS, "values: %s", err.message) && ok;
            if (ok) {
                int same = d.ndim == 5 && d.nx == 5 && d.ny == 4 && d.nz == 3 && d.nt == 5 && d.nu == 3 &&
                           v.ndim == 4 && v.nt == 5;
                for (int64_t x = 0; same && x < 60; ++x)
                    for (int k = 0; k < 5; ++k) {
                        same &= v.data[x + 60 * k] == s.peaks.values[x * 5 + k];
                        for (int c = 0; c < 3; ++c) same &= d.data[x + 60 * (k + 5 * c)] == s.peaks.dirs[(x * 5 + k) * 3 + c];
                    }
                CHECK(same, "written arrays are dipy's layout of the peaks");
            }
            nifti_file_free(&d);
            nifti_file_free(&v);
            snprintf(path, sizeof path, "%s_peaks.png", out);
            FILE *png = fopen(path, "rb");
            unsigned char sig[8] = {0};
            CHECK(png && fread(sig, 1, 8, png) == 8 && sig[1] == 'P' && sig[2] == 'N' && sig[3] == 'G', "PNG written");
            if (png) fclose(png);
        }
        CHECK(clpk_sshopm_dmri_scan_write(out, &s, 7, &err) == CLPK_ERROR_INVALID_ARGUMENT, "slice 7 of 3 refused");
        clpk_sshopm_scan_peaks_free(&s);
    }
    /* the CLI */
    const char *bin = getenv("CLPK_BIN_DIR");
    if (!bin) {
        printf("CLPK_BIN_DIR not set: CLI checks skipped\n");
        return;
    }
    char cmd[4096], log[512], text[4096] = {0};
    check_tmp_file(dir, "cli.log", log, sizeof log);
    snprintf(cmd, sizeof cmd, "%s/clpk-sshopm dmri --dwi %s --bval %s --bvec %s --mask %s --order 4 --out %s_cli > %s 2>&1",
             bin, dwi, bval, bvec, mask, out, log);
    int rc = system(cmd);
    FILE *lf = fopen(log, "r");
    if (lf) text[fread(text, 1, sizeof text - 1, lf)] = 0, fclose(lf);
    CHECK(rc == 0 && contains(text, "40 voxels fitted") && contains(text, "_cli_peaks.png"), "CLI run (%d): %s", rc,
          text);
    snprintf(cmd, sizeof cmd, "%s/clpk-sshopm dmri --dwi %s --bval %s --bvec %s --out %s_cli3 > %s 2>&1", bin, vol3d,
             bval, bvec, out, log);
    rc = system(cmd);
    lf = fopen(log, "r");
    if (lf) text[fread(text, 1, sizeof text - 1, lf)] = 0, fclose(lf);
    CHECK(rc != 0 && contains(text, "4-D"), "CLI refuses a 3-D volume (%d): %s", rc, text);
    snprintf(cmd, sizeof cmd, "%s/clpk-sshopm dmri --dwi %s --bval %s --out x > %s 2>&1", bin, dwi, bval, log);
    rc = system(cmd);
    lf = fopen(log, "r");
    if (lf) text[fread(text, 1, sizeof text - 1, lf)] = 0, fclose(lf);
    CHECK(rc != 0 && contains(text, "required"), "CLI without --bvec (%d): %s", rc, text);
    /* remove the CLI's outputs so the directory can go */
    const char *suffix[] = {"_cli_peak_dirs.nii.gz", "_cli_peak_values.nii.gz", "_cli_peaks.png", "_peak_dirs.nii.gz",
                            "_peak_values.nii.gz", "_peaks.png"};
    for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; ++k) {
        char path[600];
        snprintf(path, sizeof path, "%s%s", out, suffix[k]);
        unlink(path);
    }
}

int main(void) {
    uint64_t seed = check_seed(), rng = seed;
    check_tmp_dir dir;
    if (!CHECK(check_tmp_dir_create(&dir, "sshopm-scan"), "temporary directory")) return check_summary();
    double t0 = core_wall_seconds();
    test_harmonics(&rng);
    test_fit(&rng);
    test_gradients(&dir);
    test_nifti_writer(&dir, &rng);
    printf("host parts: %.2f s\n", core_wall_seconds() - t0);
    clpk_context *ctx = sshopm_test_context();
    if (ctx) {
        t0 = core_wall_seconds();
        test_tensor_peaks(ctx, seed);
        printf("tensor peaks: %.2f s\n", core_wall_seconds() - t0);
        t0 = core_wall_seconds();
        test_signal_path(ctx, seed);
        printf("signal path: %.2f s\n", core_wall_seconds() - t0);
        t0 = core_wall_seconds();
        test_scan_api(ctx, &dir, seed);
        printf("scan API and CLI: %.2f s\n", core_wall_seconds() - t0);
        clpk_context_destroy(ctx);
    }
    check_tmp_dir_remove(&dir);
    return check_summary();
}
