/* The data half of the LiFE family: synthetic generator statistics, dataset files (round trip, every malformed case
 * refused with the file named), the NIfTI and TrackVis readers on the shared dipy data and on broken copies, and the
 * encoder on the shared data with a double-precision NNLS fit compared with MATLAB LiFE's weights. No device. */
#include "check.h"
#include "clpk.h"
#include "clpk_internal.h"
#include "clpk_life.h"
#include "io_nifti.h"
#include "io_trk.h"
#include "life_data_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_dir[256];

static const char *tmp_path(const char *name) {
    static char buf[8][512];
    static int next = 0;
    char *p = buf[next++ % 8];
    snprintf(p, 512, "%s/%s", tmp_dir, name);
    return p;
}

static int write_bytes(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t put = fwrite(bytes, 1, n, f);
    return fclose(f) == 0 && put == n;
}

static int contains(const char *haystack, const char *needle) { return strstr(haystack, needle) != NULL; }

static int have_shared_data(void) {
    struct stat st;
    if (stat(CLPK_SHARED_DATA_DIR "/life/small_25.nii.gz", &st) == 0) return 1;
    printf("SKIP: shared data not found at %s/life; real-data checks skipped\n", CLPK_SHARED_DATA_DIR);
    return 0;
}

/* y = M w in double, the reference every check uses. */
static void reference_dsc(const clpk_life_dataset *d, const double *w, double *y) {
    memset(y, 0, (size_t)d->n_voxels * d->n_theta * sizeof *y);
    for (int64_t k = 0; k < d->n_coeffs; k++) {
        double s = d->phi[k] * w[d->fibers[k]];
        const double *D = d->dictionary + (size_t)d->atoms[k] * d->n_theta;
        double *yv = y + (size_t)d->voxels[k] * d->n_theta;
        for (int i = 0; i < d->n_theta; i++) yv[i] += s * D[i];
    }
}

static void reference_wc(const clpk_life_dataset *d, const double *y, double *w) {
    memset(w, 0, (size_t)d->n_fibers * sizeof *w);
    for (int64_t k = 0; k < d->n_coeffs; k++) {
        const double *D = d->dictionary + (size_t)d->atoms[k] * d->n_theta;
        const double *yv = y + (size_t)d->voxels[k] * d->n_theta;
        double dot = 0;
        for (int i = 0; i < d->n_theta; i++) dot += D[i] * yv[i];
        w[d->fibers[k]] += d->phi[k] * dot;
    }
}

/* Projected Barzilai-Borwein NNLS in double (min 0.5 ||M w - y||^2, w >= 0), the CPU check of the data half. */
static void reference_nnls(const clpk_life_dataset *d, int iterations, double *w) {
    size_t ny = (size_t)d->n_voxels * d->n_theta, nf = (size_t)d->n_fibers;
    double *r = malloc(ny * sizeof *r), *g = malloc(nf * sizeof *g), *g_old = malloc(nf * sizeof *g_old),
           *w_old = malloc(nf * sizeof *w_old), *Mg = malloc(ny * sizeof *Mg);
    for (size_t f = 0; f < nf; f++) w[f] = 0;
    double step = 0;
    for (int it = 0; it < iterations; it++) {
        reference_dsc(d, w, r);
        for (size_t i = 0; i < ny; i++) r[i] -= d->signal[i];
        reference_wc(d, r, g);
        if (it == 0) { /* exact line search along -g for the first step */
            reference_dsc(d, g, Mg);
            double gg = 0, mm = 0;
            for (size_t f = 0; f < nf; f++) gg += g[f] * g[f];
            for (size_t i = 0; i < ny; i++) mm += Mg[i] * Mg[i];
            step = mm > 0 ? gg / mm : 1.0;
        } else {
            double ss = 0, sy = 0;
            for (size_t f = 0; f < nf; f++) {
                double s = w[f] - w_old[f], yy = g[f] - g_old[f];
                ss += s * s, sy += s * yy;
            }
            if (sy > 0) step = (it % 2) ? ss / sy : step; /* alternate BB1 with keeping the step */
            if (sy > 0 && !(it % 2)) {
                double yy2 = 0;
                for (size_t f = 0; f < nf; f++) yy2 += (g[f] - g_old[f]) * (g[f] - g_old[f]);
                step = sy / yy2;
            }
        }
        memcpy(w_old, w, nf * sizeof *w);
        memcpy(g_old, g, nf * sizeof *g);
        for (size_t f = 0; f < nf; f++) w[f] = fmax(0.0, w[f] - step * g[f]);
    }
    free(r), free(g), free(g_old), free(w_old), free(Mg);
}

static double objective(const clpk_life_dataset *d, const double *w) {
    size_t ny = (size_t)d->n_voxels * d->n_theta;
    double *y = malloc(ny * sizeof *y), s = 0;
    reference_dsc(d, w, y);
    for (size_t i = 0; i < ny; i++) s += (y[i] - d->signal[i]) * (y[i] - d->signal[i]);
    free(y);
    return 0.5 * s;
}

static double correlation(const double *a, const double *b, size_t n) {
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++) ma += a[i], mb += b[i];
    ma /= n, mb /= n;
    for (size_t i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / sqrt(saa * sbb);
}

/* ---- Dictionary ------------------------------------------------------------------------------------------------ */

static void test_orientations(uint64_t *rng) {
    const int sizes[] = {1, 7, 60, 360, 5000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        life_orientations o;
        clpk_error err = {0};
        if (!CHECK(life_orientations_make(sizes[s], &o, &err) == CLPK_SUCCESS, "%s", err.message)) continue;
        int bad_norm = 0, covered = 0, not_nearest = 0;
        int *hit = calloc((size_t)o.n, sizeof *hit);
        for (int a = 0; a < o.n; a++) {
            const double *u = o.xyz + 3 * a;
            if (fabs(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] - 1) > 1e-12 || u[2] < 0) bad_norm++;
            /* an atom's own direction falls into its own cell */
            if (life_orientations_cell(&o, u) != a) bad_norm++;
        }
        /* random directions: the cell's atom is close to the nearest atom (cells are about a spacing wide) */
        double spacing = sqrt(2 * 3.14159265358979 / o.n), worst = 0;
        for (int i = 0; i < 4000; i++) {
            static const double special[8][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0},
                                                 {1, 1, 0}, {1, 0, 1e-17}, {0, -1, -1e-12}};
            double d[3] = {2 * check_rand_double(rng) - 1, 2 * check_rand_double(rng) - 1,
                           2 * check_rand_double(rng) - 1};
            if (i < 8) memcpy(d, special[i], sizeof d);
            double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (n < 1e-3) continue;
            for (int k = 0; k < 3; k++) d[k] /= n;
            int c = life_orientations_cell(&o, d), e = life_orientations_nearest(&o, d);
            int brute = 0;
            double brute_dot = -1;
            for (int a = 0; a < o.n; a++) {
                const double *u = o.xyz + 3 * a;
                double dot = fabs(u[0] * d[0] + u[1] * d[1] + u[2] * d[2]);
                if (dot > brute_dot) brute_dot = dot, brute = a;
            }
            if (e != brute) not_nearest++;
            hit[c] = 1;
            const double *uc = o.xyz + 3 * c, *ue = o.xyz + 3 * e;
            double ac = acos(fmin(1.0, fabs(uc[0] * d[0] + uc[1] * d[1] + uc[2] * d[2])));
            double ae = acos(fmin(1.0, fabs(ue[0] * d[0] + ue[1] * d[1] + ue[2] * d[2])));
            if (ac - ae > worst) worst = ac - ae;
        }
        for (int a = 0; a < o.n; a++) covered += hit[a];
        CHECK(not_nearest == 0, "%d atoms: banded nearest differs from a full scan %d times", o.n, not_nearest);
        CHECK(bad_norm == 0, "%d atoms: %d atoms off the unit hemisphere or outside their own cell", o.n, bad_norm);
        CHECK(worst <= 1.5 * spacing + 1e-9 || o.n < 8,
              "%d atoms: cell lookup %.3f rad worse than nearest (spacing %.3f)", o.n, worst, spacing);
        if (o.n <= 360)
            CHECK(covered > o.n * 9 / 10, "%d atoms: only %d cells hit by 4000 random directions", o.n, covered);
        free(hit);
        life_orientations_free(&o);
    }
    clpk_error err = {0};
    life_orientations o;
    CHECK(life_orientations_make(0, &o, &err) == CLPK_ERROR_INVALID_ARGUMENT, "0 orientations accepted");
}

/* ---- Synthetic data ------------------------------------------------------------------------------------------- */

static void test_synth(uint64_t seed) {
    clpk_life_synth_options o;
    CHECK(clpk_life_synth_defaults("tiny", &o) == CLPK_SUCCESS, "tiny defaults");
    CHECK(clpk_life_synth_defaults("ds1", &o) == CLPK_SUCCESS && o.n_theta == 96 && o.n_fibers == 500000,
          "ds1 defaults: the seed's DS1 scale");
    CHECK(clpk_life_synth_defaults("huge", &o) == CLPK_ERROR_INVALID_ARGUMENT, "unknown size class accepted");
    const char *classes[] = {"tiny", "small"};
    for (int c = 0; c < 2; c++) {
        clpk_life_synth_defaults(classes[c], &o);
        o.seed = seed + (uint64_t)c;
        o.snr = 0;
        clpk_life_dataset d;
        double *w = NULL;
        clpk_error err = {0};
        double t0 = core_wall_seconds();
        if (!CHECK(clpk_life_synth(&o, &d, &w, &err) == CLPK_SUCCESS, "%s: %s", classes[c], err.message)) continue;
        printf("synth %s: Nv %d Nf %d Na %d Ntheta %d Nc %lld (%.3f s)\n", classes[c], d.n_voxels, d.n_fibers,
               d.n_atoms, d.n_theta, (long long)d.n_coeffs, core_wall_seconds() - t0);
        CHECK(clpk_life_dataset_validate(&d, &err) == CLPK_SUCCESS, "%s", err.message);
        CHECK(d.n_fibers == o.n_fibers && d.n_theta == o.n_theta && d.n_atoms == o.n_atoms, "%s: sizes", classes[c]);
        /* every fibre touches voxels; every voxel is touched (compact numbering) */
        int *touched_f = calloc((size_t)d.n_fibers, sizeof(int)), *touched_v = calloc((size_t)d.n_voxels, sizeof(int));
        int untouched_f = 0, untouched_v = 0, bad_phi = 0;
        for (int64_t k = 0; k < d.n_coeffs; k++) {
            touched_f[d.fibers[k]] = 1, touched_v[d.voxels[k]] = 1;
            if (!(d.phi[k] > 0)) bad_phi++;
        }
        for (int f = 0; f < d.n_fibers; f++) untouched_f += !touched_f[f];
        for (int v = 0; v < d.n_voxels; v++) untouched_v += !touched_v[v];
        CHECK(untouched_f == 0, "%s: %d fibres touch no voxel", classes[c], untouched_f);
        CHECK(untouched_v == 0, "%s: %d voxels without coefficients", classes[c], untouched_v);
        CHECK(bad_phi == 0, "%s: %d phi values not positive", classes[c], bad_phi);
        /* phi(v, f, .) sums to S0(v): the same for every fibre in a voxel */
        double *s0 = malloc((size_t)d.n_voxels * sizeof *s0), *sum = calloc((size_t)d.n_voxels * 1, sizeof *sum);
        for (int v = 0; v < d.n_voxels; v++) s0[v] = -1;
        int64_t start = 0, s0_bad = 0;
        while (start < d.n_coeffs) { /* coefficients come fibre by fibre */
            int64_t end = start;
            while (end < d.n_coeffs && d.fibers[end] == d.fibers[start]) end++;
            for (int64_t k = start; k < end; k++) sum[d.voxels[k]] = 0;
            for (int64_t k = start; k < end; k++) sum[d.voxels[k]] += d.phi[k];
            for (int64_t k = start; k < end; k++) {
                int v = d.voxels[k];
                if (s0[v] < 0) s0[v] = sum[v];
                else if (fabs(s0[v] - sum[v]) > 1e-12 * s0[v]) s0_bad++;
            }
            start = end;
        }
        CHECK(s0_bad == 0, "%s: %lld (voxel, fibre) phi sums differ from the voxel's S0", classes[c],
              (long long)s0_bad);
        free(s0), free(sum);
        /* D rows have zero mean and are not all zero */
        double worst_mean = 0, max_abs = 0;
        for (int a = 0; a < d.n_atoms; a++) {
            double m = 0;
            for (int i = 0; i < d.n_theta; i++) m += d.dictionary[(size_t)a * d.n_theta + i];
            worst_mean = fmax(worst_mean, fabs(m / d.n_theta));
            for (int i = 0; i < d.n_theta; i++) max_abs = fmax(max_abs, fabs(d.dictionary[(size_t)a * d.n_theta + i]));
        }
        CHECK(worst_mean < 1e-13 && max_abs > 0.1, "%s: dictionary row mean %g, max |D| %g", classes[c], worst_mean,
              max_abs);
        /* noise-free signal equals M w_true; some weights are zero, the others positive */
        size_t ny = (size_t)d.n_voxels * d.n_theta;
        double *y = malloc(ny * sizeof *y);
        reference_dsc(&d, w, y);
        CHECK(check_rel_error(y, d.signal, ny) < 1e-12, "%s: signal != M w_true (rel %g)", classes[c],
              check_rel_error(y, d.signal, ny));
        int zeros = 0, negative = 0;
        for (int f = 0; f < d.n_fibers; f++) zeros += w[f] == 0, negative += w[f] < 0;
        CHECK(negative == 0 && zeros > 0 && zeros < d.n_fibers / 2, "%s: w_true has %d zeros, %d negative", classes[c],
              zeros, negative);
        /* orientation diversity: crossing bundles give voxels holding orientations 30 degrees or more apart */
        CHECK(d.n_coeffs > d.n_fibers * 2, "%s: only %lld coefficients", classes[c], (long long)d.n_coeffs);
        life_orientations orient;
        if (CHECK(life_orientations_make(d.n_atoms, &orient, &err) == CLPK_SUCCESS, "%s", err.message)) {
            int32_t *first_atom = malloc((size_t)d.n_voxels * sizeof *first_atom);
            char *crossing = calloc((size_t)d.n_voxels, 1);
            for (int v = 0; v < d.n_voxels; v++) first_atom[v] = -1;
            for (int64_t k = 0; k < d.n_coeffs; k++) {
                int v = d.voxels[k];
                if (first_atom[v] < 0) first_atom[v] = d.atoms[k];
                const double *a = orient.xyz + 3 * first_atom[v], *b = orient.xyz + 3 * d.atoms[k];
                if (fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) < cos(3.14159265358979 / 6)) crossing[v] = 1;
            }
            int n_crossing = 0;
            for (int v = 0; v < d.n_voxels; v++) n_crossing += crossing[v];
            printf("synth %s: %d of %d voxels hold orientations >= 30 degrees apart\n", classes[c], n_crossing,
                   d.n_voxels);
            CHECK(c == 0 || n_crossing * 20 > d.n_voxels, "%s: only %d of %d voxels with crossing orientations",
                  classes[c], n_crossing, d.n_voxels);
            free(first_atom), free(crossing);
            life_orientations_free(&orient);
        }

        /* with noise: the residual matches the requested SNR */
        clpk_life_dataset dn;
        o.snr = 10;
        if (CHECK(clpk_life_synth(&o, &dn, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) {
            double ss = 0, rr = 0;
            for (size_t i = 0; i < ny; i++) ss += y[i] * y[i], rr += (dn.signal[i] - y[i]) * (dn.signal[i] - y[i]);
            double snr = sqrt(ss / rr);
            CHECK(dn.n_coeffs == d.n_coeffs && fabs(snr - 10) < 1.0, "%s: measured SNR %.2f, asked 10", classes[c],
                  snr);
            clpk_life_dataset_free(&dn);
        }
        /* deterministic for a seed, different for another */
        clpk_life_dataset d2;
        o.snr = 0;
        if (CHECK(clpk_life_synth(&o, &d2, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) {
            CHECK(d2.n_coeffs == d.n_coeffs && memcmp(d2.phi, d.phi, (size_t)d.n_coeffs * sizeof *d.phi) == 0 &&
                      memcmp(d2.atoms, d.atoms, (size_t)d.n_coeffs * sizeof *d.atoms) == 0,
                  "%s: same seed, different data", classes[c]);
            clpk_life_dataset_free(&d2);
        }
        o.seed += 1000;
        if (CHECK(clpk_life_synth(&o, &d2, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) {
            CHECK(d2.n_coeffs != d.n_coeffs || memcmp(d2.phi, d.phi, (size_t)d.n_coeffs * sizeof *d.phi) != 0,
                  "%s: another seed, same data", classes[c]);
            clpk_life_dataset_free(&d2);
        }
        free(y), free(w), free(touched_f), free(touched_v);
        clpk_life_dataset_free(&d);
    }
    /* bad options are refused */
    clpk_life_synth_defaults("tiny", &o);
    clpk_life_synth_options bad[6];
    for (int i = 0; i < 6; i++) bad[i] = o;
    bad[0].grid[1] = 0;
    bad[1].n_fibers = 0;
    bad[2].nodes_per_fiber = 1;
    bad[3].snr = NAN;
    bad[4].zero_weight_fraction = 1.0;
    bad[5].n_atoms = 0;
    for (int i = 0; i < 6; i++) {
        clpk_life_dataset d;
        clpk_error err = {0};
        CHECK(clpk_life_synth(&bad[i], &d, NULL, &err) == CLPK_ERROR_INVALID_ARGUMENT && err.message[0],
              "bad synth option %d accepted", i);
    }
}

static void test_synth_bvec(void) {
    if (!have_shared_data()) return;
    clpk_life_synth_options o;
    clpk_life_synth_defaults("tiny", &o);
    o.bval_path = CLPK_SHARED_DATA_DIR "/life/small_25.bval";
    o.bvec_path = CLPK_SHARED_DATA_DIR "/life/small_25.bvec";
    clpk_life_dataset d;
    clpk_error err = {0};
    if (CHECK(clpk_life_synth(&o, &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) {
        CHECK(d.n_theta == 25, "directions from small_25.bvec: %d, expected 25 (b0 removed)", d.n_theta);
        clpk_life_dataset_free(&d);
    }
}

/* ---- Dataset files --------------------------------------------------------------------------------------------- */

static int same_dataset(const clpk_life_dataset *a, const clpk_life_dataset *b) {
    size_t nc = (size_t)a->n_coeffs;
    return a->n_coeffs == b->n_coeffs && a->n_atoms == b->n_atoms && a->n_voxels == b->n_voxels &&
           a->n_fibers == b->n_fibers && a->n_theta == b->n_theta && memcmp(a->atoms, b->atoms, nc * 4) == 0 &&
           memcmp(a->voxels, b->voxels, nc * 4) == 0 && memcmp(a->fibers, b->fibers, nc * 4) == 0 &&
           memcmp(a->phi, b->phi, nc * 8) == 0 &&
           memcmp(a->dictionary, b->dictionary, (size_t)a->n_atoms * a->n_theta * 8) == 0 &&
           (a->signal == NULL) == (b->signal == NULL) &&
           (!a->signal || memcmp(a->signal, b->signal, (size_t)a->n_voxels * a->n_theta * 8) == 0) &&
           (a->voxel_ijk == NULL) == (b->voxel_ijk == NULL) &&
           (!a->voxel_ijk || memcmp(a->voxel_ijk, b->voxel_ijk, (size_t)a->n_voxels * 3 * 4) == 0);
}

/* Saves `d` to a fresh directory and returns its path. */
static const char *fresh_copy(const clpk_life_dataset *d, const char *name) {
    const char *dir = tmp_path(name);
    clpk_error err = {0};
    if (!CHECK(clpk_life_dataset_save(dir, d, &err) == CLPK_SUCCESS, "save %s: %s", dir, err.message)) return dir;
    return dir;
}

static void expect_refused(const char *dir, const char *file, const char *what) {
    clpk_life_dataset d;
    clpk_error err = {0};
    clpk_status st = clpk_life_dataset_load(dir, &d, &err);
    CHECK(st != CLPK_SUCCESS && contains(err.message, file), "%s: loaded or message without %s: %s", what, file,
          err.message);
    if (st == CLPK_SUCCESS) clpk_life_dataset_free(&d);
}

static void write_npy(const char *dir, const char *file, clpk_dtype dtype, int ndim, int64_t n0, int64_t n1,
                      const void *data) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int64_t shape[2] = {n0, n1};
    clpk_error err = {0};
    CHECK(clpk_npy_write_raw(path, dtype, ndim, shape, data, &err) == CLPK_SUCCESS, "write %s: %s", path, err.message);
}

static void write_text(const char *dir, const char *file, const char *text) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    CHECK(write_bytes(path, text, strlen(text)), "write %s", path);
}

static void test_dataset_files(uint64_t seed) {
    clpk_life_synth_options o;
    clpk_life_synth_defaults("tiny", &o);
    o.seed = seed;
    clpk_life_dataset d, back;
    clpk_error err = {0};
    if (!CHECK(clpk_life_synth(&o, &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    const int64_t nc = d.n_coeffs;
    const char *good = fresh_copy(&d, "good/nested");
    if (CHECK(clpk_life_dataset_load(good, &back, &err) == CLPK_SUCCESS, "load: %s", err.message)) {
        CHECK(same_dataset(&d, &back), "save/load round trip differs");
        clpk_life_dataset_free(&back);
    }
    /* int64 indices and float32 values are accepted */
    {
        const char *dir = fresh_copy(&d, "wide");
        int64_t *i64 = malloc((size_t)nc * 8);
        float *f32 = malloc((size_t)nc * 4);
        for (int64_t k = 0; k < nc; k++) i64[k] = d.fibers[k], f32[k] = (float)d.phi[k];
        write_npy(dir, "phi_fibers.npy", CLPK_DTYPE_I64, 1, nc, 0, i64);
        write_npy(dir, "phi_values.npy", CLPK_DTYPE_F32, 1, nc, 0, f32);
        if (CHECK(clpk_life_dataset_load(dir, &back, &err) == CLPK_SUCCESS, "int64/float32: %s", err.message)) {
            int bad = 0;
            for (int64_t k = 0; k < nc; k++) bad += back.fibers[k] != d.fibers[k] || back.phi[k] != (double)f32[k];
            CHECK(bad == 0, "int64/float32 dataset read differently (%d)", bad);
            clpk_life_dataset_free(&back);
        }
        /* an index beyond int32 */
        i64[nc / 2] = (int64_t)1 << 40;
        write_npy(dir, "phi_fibers.npy", CLPK_DTYPE_I64, 1, nc, 0, i64);
        expect_refused(dir, "phi_fibers.npy", "int64 index 2^40");
        free(i64), free(f32);
    }
    /* voxel_ijk.npy (grid coordinates, optional): kept by the round trip above (same_dataset compares it), absent
     * means unknown, int64 accepted; a wrong shape, a negative or a 2^40 coordinate is refused with the file's name */
    if (CHECK(d.voxel_ijk != NULL, "synth fills voxel_ijk")) {
        const char *dir = fresh_copy(&d, "ijk");
        const int64_t n = (int64_t)d.n_voxels * 3;
        int64_t *i64 = malloc((size_t)n * 8);
        for (int64_t k = 0; k < n; k++) i64[k] = d.voxel_ijk[k];
        write_npy(dir, "voxel_ijk.npy", CLPK_DTYPE_I64, 2, d.n_voxels, 3, i64);
        if (CHECK(clpk_life_dataset_load(dir, &back, &err) == CLPK_SUCCESS, "int64 voxel_ijk: %s", err.message)) {
            CHECK(same_dataset(&d, &back), "int64 voxel_ijk read differently");
            clpk_life_dataset_free(&back);
        }
        i64[n - 1] = (int64_t)1 << 40;
        write_npy(dir, "voxel_ijk.npy", CLPK_DTYPE_I64, 2, d.n_voxels, 3, i64);
        expect_refused(dir, "voxel_ijk.npy", "voxel_ijk 2^40");
        write_npy(dir, "voxel_ijk.npy", CLPK_DTYPE_I32, 2, d.n_voxels, 2, d.voxel_ijk);
        expect_refused(dir, "voxel_ijk.npy", "voxel_ijk (Nv, 2)");
        const int32_t keep = d.voxel_ijk[4];
        d.voxel_ijk[4] = -1;
        write_npy(dir, "voxel_ijk.npy", CLPK_DTYPE_I32, 2, d.n_voxels, 3, d.voxel_ijk);
        expect_refused(dir, "voxel_ijk.npy", "negative voxel_ijk");
        d.voxel_ijk[4] = keep;
        char path[600];
        snprintf(path, sizeof path, "%s/voxel_ijk.npy", dir);
        unlink(path);
        if (CHECK(clpk_life_dataset_load(dir, &back, &err) == CLPK_SUCCESS, "no voxel_ijk: %s", err.message)) {
            CHECK(back.voxel_ijk == NULL, "voxel_ijk without voxel_ijk.npy");
            clpk_life_dataset_free(&back);
        }
        free(i64);
    }
    /* meta.json may declare more fibres (untouched ones), never fewer; without signal.npy it gives n_voxels */
    {
        const char *dir = fresh_copy(&d, "meta");
        char text[200];
        snprintf(text, sizeof text, "{\"n_fibers\": %d, \"n_voxels\": %d}", d.n_fibers + 7, d.n_voxels);
        write_text(dir, "meta.json", text);
        if (CHECK(clpk_life_dataset_load(dir, &back, &err) == CLPK_SUCCESS, "meta: %s", err.message)) {
            CHECK(back.n_fibers == d.n_fibers + 7, "meta.json n_fibers ignored (%d)", back.n_fibers);
            clpk_life_dataset_free(&back);
        }
        char sig[600];
        snprintf(sig, sizeof sig, "%s/signal.npy", dir);
        unlink(sig);
        if (CHECK(clpk_life_dataset_load(dir, &back, &err) == CLPK_SUCCESS, "no signal: %s", err.message)) {
            CHECK(back.signal == NULL && back.n_voxels == d.n_voxels, "no signal.npy: n_voxels %d", back.n_voxels);
            clpk_life_dataset_free(&back);
        }
        snprintf(text, sizeof text, "{\"n_fibers\": %d}", d.n_fibers - 1);
        write_text(dir, "meta.json", text);
        expect_refused(dir, "meta.json", "meta.json n_fibers too small");
        write_text(dir, "meta.json", "{\"n_fibers\": 12.5}");
        expect_refused(dir, "meta.json", "meta.json n_fibers not an integer");
        write_text(dir, "meta.json", "{n_fibers: ");
        expect_refused(dir, "meta.json", "meta.json not JSON");
    }
    /* every malformed file is refused with its name */
    int32_t *idx = malloc((size_t)nc * 4);
    double *val = malloc((size_t)nc * 8);
    size_t nd = (size_t)d.n_atoms * d.n_theta, ns = (size_t)d.n_voxels * d.n_theta;
    double *big = malloc((ns + (size_t)d.n_voxels + nd) * 8);
    const char *dir = fresh_copy(&d, "bad");
#define RESET() (clpk_life_dataset_save(dir, &d, &err))
    memcpy(idx, d.fibers, (size_t)nc * 4);
    write_npy(dir, "phi_fibers.npy", CLPK_DTYPE_I32, 1, nc - 1, 0, idx);
    expect_refused(dir, "phi_fibers.npy", "phi_fibers shorter");
    RESET();
    memcpy(val, d.phi, (size_t)nc * 8);
    write_npy(dir, "phi_values.npy", CLPK_DTYPE_F64, 1, nc - 1, 0, val);
    expect_refused(dir, "phi_values.npy", "phi_values shorter");
    RESET();
    memcpy(idx, d.voxels, (size_t)nc * 4);
    idx[nc - 1] = d.n_voxels;
    write_npy(dir, "phi_voxels.npy", CLPK_DTYPE_I32, 1, nc, 0, idx);
    expect_refused(dir, "phi_voxels.npy", "voxel index = Nv");
    RESET();
    memcpy(idx, d.atoms, (size_t)nc * 4);
    idx[0] = -1;
    write_npy(dir, "phi_atoms.npy", CLPK_DTYPE_I32, 1, nc, 0, idx);
    expect_refused(dir, "phi_atoms.npy", "negative atom index");
    idx[0] = d.n_atoms;
    write_npy(dir, "phi_atoms.npy", CLPK_DTYPE_I32, 1, nc, 0, idx);
    expect_refused(dir, "phi_atoms.npy", "atom index = Na");
    RESET();
    val[nc / 3] = NAN;
    write_npy(dir, "phi_values.npy", CLPK_DTYPE_F64, 1, nc, 0, val);
    expect_refused(dir, "phi_values.npy", "NaN phi");
    write_npy(dir, "phi_values.npy", CLPK_DTYPE_F64, 2, nc / 2, 2, d.phi);
    expect_refused(dir, "phi_values.npy", "2-D phi_values");
    RESET();
    memcpy(big, d.dictionary, nd * 8);
    big[nd - 1] = INFINITY;
    write_npy(dir, "dictionary.npy", CLPK_DTYPE_F64, 2, d.n_atoms, d.n_theta, big);
    expect_refused(dir, "dictionary.npy", "infinite dictionary entry");
    write_npy(dir, "dictionary.npy", CLPK_DTYPE_F64, 1, (int64_t)nd, 0, d.dictionary);
    expect_refused(dir, "dictionary.npy", "1-D dictionary");
    int32_t max_atom = 0;
    for (int64_t k = 0; k < nc; k++) max_atom = d.atoms[k] > max_atom ? d.atoms[k] : max_atom;
    write_npy(dir, "dictionary.npy", CLPK_DTYPE_F64, 2, max_atom, d.n_theta, d.dictionary);
    expect_refused(dir, "phi_atoms.npy", "dictionary with fewer atoms than phi_atoms uses");
    RESET();
    memcpy(big, d.signal, ns * 8);
    big[7] = NAN;
    write_npy(dir, "signal.npy", CLPK_DTYPE_F64, 2, d.n_voxels, d.n_theta, big);
    expect_refused(dir, "signal.npy", "NaN signal");
    memcpy(big, d.signal, ns * 8);
    write_npy(dir, "signal.npy", CLPK_DTYPE_F64, 2, d.n_voxels - 1, d.n_theta + 1, big);
    expect_refused(dir, "signal.npy", "signal with another number of directions");
    write_npy(dir, "signal.npy", CLPK_DTYPE_F64, 2, d.n_voxels - 1, d.n_theta, big);
    expect_refused(dir, "signal.npy", "signal with fewer voxels than meta.json says");
    write_text(dir, "meta.json", "{}");
    expect_refused(dir, "phi_voxels.npy", "signal with fewer voxels than phi_voxels uses");
    RESET();
    write_npy(dir, "phi_atoms.npy", CLPK_DTYPE_F64, 1, nc, 0, d.phi);
    expect_refused(dir, "phi_atoms.npy", "float indices");
    write_npy(dir, "phi_atoms.npy", CLPK_DTYPE_U8, 1, nc, 0, d.atoms);
    expect_refused(dir, "phi_atoms.npy", "uint8 indices");
    RESET();
    write_npy(dir, "phi_values.npy", CLPK_DTYPE_I32, 1, nc, 0, d.atoms);
    expect_refused(dir, "phi_values.npy", "integer phi values");
    RESET();
    for (int i = 0; i < 3; i++) {
        const char *names[] = {"phi_atoms.npy", "phi_voxels.npy", "phi_fibers.npy"};
        write_npy(dir, names[i], CLPK_DTYPE_I32, 1, 0, 0, idx);
    }
    write_npy(dir, "phi_values.npy", CLPK_DTYPE_F64, 1, 0, 0, val);
    expect_refused(dir, "phi_atoms.npy", "no coefficients");
    RESET();
    {
        char path[600];
        snprintf(path, sizeof path, "%s/phi_values.npy", dir);
        unlink(path);
        expect_refused(dir, "phi_values.npy", "missing phi_values.npy");
        write_bytes(path, "\x93NUMPY\x01\x00", 8);
        expect_refused(dir, "phi_values.npy", "truncated phi_values.npy");
    }
    expect_refused(tmp_path("no-such-dir"), "phi_atoms.npy", "missing directory");
#undef RESET
    /* validate() on an in-memory dataset and save() of an invalid one */
    int32_t keep = d.fibers[0];
    d.fibers[0] = d.n_fibers;
    CHECK(clpk_life_dataset_validate(&d, &err) == CLPK_ERROR_INVALID_DATA && contains(err.message, "phi_fibers"),
          "validate: fibre index = Nf: %s", err.message);
    CHECK(clpk_life_dataset_save(tmp_path("invalid"), &d, &err) == CLPK_ERROR_INVALID_DATA, "invalid dataset saved");
    d.fibers[0] = keep;
    write_bytes(tmp_path("a-file"), "x", 1);
    CHECK(clpk_life_dataset_save(tmp_path("a-file/sub"), &d, &err) == CLPK_ERROR_IO, "save into a file: %s",
          err.message);
    free(idx), free(val), free(big);
    clpk_life_dataset_free(&d);
}

/* ---- TrackVis -------------------------------------------------------------------------------------------------- */

static void put_i32(unsigned char *p, int32_t v) { memcpy(p, &v, 4); }
static void put_f32(unsigned char *p, float v) { memcpy(p, &v, 4); }

static void swap4(unsigned char *p) {
    unsigned char t = p[0];
    p[0] = p[3], p[3] = t, t = p[1], p[1] = p[2], p[2] = t;
}

static void test_trk(void) {
    if (!have_shared_data()) return;
    const char *path = CLPK_SHARED_DATA_DIR "/life/EuDX_small_25.trk";
    trk_file t;
    clpk_error err = {0};
    if (!CHECK(trk_file_read(path, &t, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    CHECK(t.n_streamlines == 60 && t.n_points == 228, "EuDX: %lld streamlines, %lld points (expected 60, 228)",
          (long long)t.n_streamlines, (long long)t.n_points);
    CHECK(t.offsets[1] == 4 && t.offsets[2] == 8 && t.offsets[3] == 13 && t.offsets[4] == 20, "EuDX: first lengths");
    CHECK(t.points[0] == -79.5f && t.points[1] == -119.5f && t.points[2] == -59.5f, "EuDX: first point");
    CHECK(strcmp(t.voxel_order, "RAS") == 0 && t.version == 2, "EuDX: voxel order %s version %d", t.voxel_order,
          t.version);
    double A[4][4];
    if (CHECK(trk_file_voxmm_to_rasmm(&t, A, &err) == CLPK_SUCCESS, "%s", err.message)) {
        double x = A[0][0] * t.points[0] + A[0][1] * t.points[1] + A[0][2] * t.points[2] + A[0][3];
        CHECK(fabs(x - (-80.0)) < 1e-9, "voxmm -> rasmm: x %g, expected -80 (half-voxel shift)", x);
    }
    char *bytes = NULL;
    size_t n = 0;
    if (!CHECK(core_read_file(path, &bytes, &n, &err) == CLPK_SUCCESS, "%s", err.message)) {
        trk_file_free(&t);
        return;
    }
    unsigned char *b = malloc(n);
    /* every truncation is refused with the name in the message */
    int accepted = 0, unnamed = 0;
    for (size_t cut = 0; cut < n; cut += (cut < 1000 ? 97 : 1)) {
        trk_file u;
        clpk_error e = {0};
        if (trk_file_parse(bytes, cut, "cut.trk", &u, &e) == CLPK_SUCCESS) accepted++, trk_file_free(&u);
        else if (!contains(e.message, "cut.trk")) unnamed++;
    }
    CHECK(accepted == 0 && unnamed == 0, "truncated .trk: %d accepted, %d messages without the name", accepted,
          unnamed);
    /* a truncated file on disk */
    const char *cut_path = tmp_path("truncated.trk");
    write_bytes(cut_path, bytes, n - 7);
    trk_file u;
    clpk_error e = {0};
    CHECK(trk_file_read(cut_path, &u, &e) == CLPK_ERROR_PARSE && contains(e.message, "truncated") &&
              contains(e.message, cut_path),
          "truncated file: %s", e.message);
    /* corruptions */
    struct {
        const char *what;
        size_t off;
        int kind; /* 0: i32, 1: f32, 2: byte */
        double value;
    } cases[] = {
        {"magic", 0, 2, 'X'},          {"hdr_size", 996, 0, 999},          {"version", 992, 0, 7},
        {"n_count too big", 988, 0, 61}, {"n_count -1", 988, 0, -1},        {"negative point count", 1000, 0, -4},
        {"huge point count", 1000, 0, 2000000000}, {"NaN coordinate", 1004, 1, NAN}, {"voxel size 0", 12, 1, 0},
        {"n_scalars -1 (i16)", 36, 2, 0xff},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(b, bytes, n);
        if (cases[c].kind == 0) put_i32(b + cases[c].off, (int32_t)cases[c].value);
        else if (cases[c].kind == 1) put_f32(b + cases[c].off, (float)cases[c].value);
        else {
            b[cases[c].off] = (unsigned char)cases[c].value;
            if (cases[c].off == 36) b[37] = 0xff;
        }
        clpk_status st = trk_file_parse(b, n, "bad.trk", &u, &e);
        CHECK(st != CLPK_SUCCESS && contains(e.message, "bad.trk"), "corrupt .trk (%s) accepted or unnamed: %s",
              cases[c].what, e.message);
        if (st == CLPK_SUCCESS) trk_file_free(&u);
    }
    /* trailing bytes after n_count streamlines */
    unsigned char *longer = malloc(n + 4);
    memcpy(longer, bytes, n);
    put_i32(longer + n, 0);
    CHECK(trk_file_parse(longer, n + 4, "long.trk", &u, &e) == CLPK_ERROR_PARSE, "trailing bytes accepted");
    /* n_count 0 means "read to the end" */
    memcpy(b, bytes, n);
    put_i32(b + 988, 0);
    if (CHECK(trk_file_parse(b, n, "zero.trk", &u, &e) == CLPK_SUCCESS, "%s", e.message)) {
        CHECK(u.n_streamlines == 60 && u.n_points == 228, "n_count 0: %lld streamlines", (long long)u.n_streamlines);
        trk_file_free(&u);
    }
    /* big-endian copy reads the same */
    memcpy(b, bytes, n);
    const size_t i16_fields[] = {6, 8, 10, 36, 238};
    for (size_t i = 0; i < sizeof i16_fields / sizeof i16_fields[0]; i++) {
        unsigned char x = b[i16_fields[i]];
        b[i16_fields[i]] = b[i16_fields[i] + 1], b[i16_fields[i] + 1] = x;
    }
    for (size_t off = 12; off < 24; off += 4) swap4(b + off);
    for (size_t off = 440; off < 504; off += 4) swap4(b + off);
    swap4(b + 988), swap4(b + 992), swap4(b + 996);
    for (size_t off = 1000; off < n; off += 4) swap4(b + off);
    if (CHECK(trk_file_parse(b, n, "big.trk", &u, &e) == CLPK_SUCCESS, "big-endian: %s", e.message)) {
        CHECK(u.n_points == t.n_points && memcmp(u.points, t.points, (size_t)t.n_points * 12) == 0 &&
                  memcmp(u.offsets, t.offsets, (size_t)(t.n_streamlines + 1) * 8) == 0,
              "big-endian copy reads differently");
        trk_file_free(&u);
    }
    /* per-point scalars and per-streamline properties are skipped */
    {
        size_t m = (size_t)t.n_points, ns = (size_t)t.n_streamlines;
        size_t size = 1000 + ns * (4 + 4) + m * 4 * 5; /* 2 scalars, 1 property */
        unsigned char *s = calloc(1, size);
        memcpy(s, bytes, 1000);
        s[36] = 2, s[37] = 0, s[238] = 1, s[239] = 0;
        size_t pos = 1000;
        for (size_t l = 0; l < ns; l++) {
            int32_t cnt = (int32_t)(t.offsets[l + 1] - t.offsets[l]);
            put_i32(s + pos, cnt), pos += 4;
            for (int32_t p = 0; p < cnt; p++) {
                memcpy(s + pos, t.points + 3 * (t.offsets[l] + p), 12), pos += 12;
                put_f32(s + pos, 7.0f), put_f32(s + pos + 4, 8.0f), pos += 8;
            }
            put_f32(s + pos, 9.0f), pos += 4;
        }
        if (CHECK(trk_file_parse(s, size, "scalars.trk", &u, &e) == CLPK_SUCCESS, "%s", e.message)) {
            CHECK(u.n_points == t.n_points && memcmp(u.points, t.points, m * 12) == 0, "scalars: points differ");
            trk_file_free(&u);
        }
        free(s);
    }
    free(longer);
    free(b);
    free(bytes);
    trk_file_free(&t);
}

/* ---- NIfTI ----------------------------------------------------------------------------------------------------- */

static void test_nifti(void) {
    if (!have_shared_data()) return;
    const char *path = CLPK_SHARED_DATA_DIR "/life/small_25.nii.gz";
    nifti_file v;
    clpk_error err = {0};
    if (!CHECK(nifti_file_read(path, &v, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    CHECK(v.nx == 10 && v.ny == 8 && v.nz == 2 && v.nt == 26 && v.datatype == 2, "small_25: %dx%dx%dx%d type %d", v.nx,
          v.ny, v.nz, v.nt, v.datatype);
    CHECK(strcmp(v.affine_from, "sform") == 0 && v.affine[0][0] == 2 && v.affine[0][3] == -80 &&
              v.affine[1][3] == -120 && v.affine[2][3] == -60,
          "small_25 affine (%s)", v.affine_from);
    size_t total = (size_t)v.nx * v.ny * v.nz * v.nt;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < total; i++) lo = fmin(lo, v.data[i]), hi = fmax(hi, v.data[i]);
    CHECK(lo >= 0 && hi <= 255 && hi > lo, "uint8 data range %g..%g", lo, hi);

    /* an uncompressed copy built by the test, then broken field by field */
    size_t n = 352 + total;
    unsigned char *b = calloc(1, n), *c = malloc(n + 8);
    put_i32(b, 348);
    int16_t dims[8] = {4, (int16_t)v.nx, (int16_t)v.ny, (int16_t)v.nz, (int16_t)v.nt, 1, 1, 1};
    memcpy(b + 40, dims, 16);
    int16_t dt = 2, bitpix = 8, sform = 1;
    memcpy(b + 70, &dt, 2), memcpy(b + 72, &bitpix, 2), memcpy(b + 254, &sform, 2);
    for (int i = 0; i < 4; i++) put_f32(b + 76 + 4 * i, i == 0 ? 1.0f : 2.0f);
    put_f32(b + 108, 352.0f);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 4; k++) put_f32(b + 280 + 16 * r + 4 * k, (float)v.affine[r][k]);
    memcpy(b + 344, "n+1\0", 4);
    for (size_t i = 0; i < total; i++) b[352 + i] = (unsigned char)v.data[i];
    nifti_file u;
    clpk_error e = {0};
    if (CHECK(nifti_file_parse(b, n, "copy.nii", &u, &e) == CLPK_SUCCESS, "%s", e.message)) {
        CHECK(check_rel_error(v.data, u.data, total) == 0, "uncompressed copy reads differently");
        nifti_file_free(&u);
    }
    const char *plain = tmp_path("copy.nii");
    write_bytes(plain, b, n);
    if (CHECK(nifti_file_read(plain, &u, &e) == CLPK_SUCCESS, "%s", e.message)) nifti_file_free(&u);
    /* scl_slope / scl_inter applied */
    memcpy(c, b, n);
    put_f32(c + 112, 2.0f), put_f32(c + 116, 1.0f);
    if (CHECK(nifti_file_parse(c, n, "scaled.nii", &u, &e) == CLPK_SUCCESS, "%s", e.message)) {
        CHECK(u.data[5] == 2 * v.data[5] + 1, "scl_slope not applied");
        nifti_file_free(&u);
    }
    /* int16 big-endian copy */
    {
        size_t n16 = 352 + 2 * total;
        unsigned char *be = calloc(1, n16);
        memcpy(be, b, 352);
        int16_t dt16 = 4, bp16 = 16;
        memcpy(be + 70, &dt16, 2), memcpy(be + 72, &bp16, 2);
        for (size_t i = 0; i < total; i++) {
            int16_t x = (int16_t)(v.data[i] * 3 - 100);
            memcpy(be + 352 + 2 * i, &x, 2);
        }
        /* swap every header field we set, and the data */
        swap4(be);
        for (int i = 0; i < 8; i++) {
            unsigned char t = be[40 + 2 * i];
            be[40 + 2 * i] = be[41 + 2 * i], be[41 + 2 * i] = t;
        }
        const size_t i16s[] = {70, 72, 252, 254};
        for (int i = 0; i < 4; i++) {
            unsigned char t = be[i16s[i]];
            be[i16s[i]] = be[i16s[i] + 1], be[i16s[i] + 1] = t;
        }
        for (size_t off = 76; off < 120; off += 4) swap4(be + off);
        for (size_t off = 280; off < 328; off += 4) swap4(be + off);
        for (size_t i = 0; i < total; i++) {
            unsigned char t = be[352 + 2 * i];
            be[352 + 2 * i] = be[353 + 2 * i], be[353 + 2 * i] = t;
        }
        if (CHECK(nifti_file_parse(be, n16, "big.nii", &u, &e) == CLPK_SUCCESS, "big-endian: %s", e.message)) {
            int bad = 0;
            for (size_t i = 0; i < total; i++) bad += u.data[i] != v.data[i] * 3 - 100;
            CHECK(bad == 0 && u.affine[1][3] == -120, "big-endian int16 copy: %d values differ", bad);
            nifti_file_free(&u);
        }
        free(be);
    }
    struct {
        const char *what;
        size_t off;
        int kind; /* 0 i32, 1 f32, 2 i16, 3 bytes */
        double value;
    } cases[] = {
        {"sizeof_hdr", 0, 0, 349},   {"NIfTI-2", 0, 0, 540},      {"dim[0] = 0", 40, 2, 0},
        {"dim[0] = 8", 40, 2, 8},    {"dim[2] = 0", 44, 2, 0},    {"dim[2] = -3", 44, 2, -3},
        {"datatype complex", 70, 2, 32}, {"datatype RGB", 70, 2, 128}, {"bitpix", 72, 2, 16},
        {"vox_offset 100", 108, 1, 100}, {"vox_offset 352.5", 108, 1, 352.5}, {"vox_offset huge", 108, 1, 1e9},
        {"scl_slope inf", 112, 1, INFINITY}, {"pixdim 0", 80, 1, 0}, {"pixdim NaN", 84, 1, NAN},
        {"sform singular", 280, 1, 0}, {"magic ni1", 344, 3, 1}, {"magic", 344, 3, 2}, {"5-D", 50, 2, 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(c, b, n);
        if (cases[k].kind == 0) put_i32(c + cases[k].off, (int32_t)cases[k].value);
        else if (cases[k].kind == 1) put_f32(c + cases[k].off, (float)cases[k].value);
        else if (cases[k].kind == 2) {
            int16_t x = (int16_t)cases[k].value;
            memcpy(c + cases[k].off, &x, 2);
        } else
            memcpy(c + cases[k].off, cases[k].value == 1 ? "ni1\0" : "xyz\0", 4);
        if (cases[k].off == 280) put_f32(c + 300, 0.0f), put_f32(c + 320, 0.0f); /* zero diagonal: singular */
        if (cases[k].off == 50) c[40] = 5; /* dim[0] = 5 with dim[5] = 2 */
        clpk_status st = nifti_file_parse(c, n, "bad.nii", &u, &e);
        CHECK(st != CLPK_SUCCESS && contains(e.message, "bad.nii"), "corrupt NIfTI (%s) accepted or unnamed: %s",
              cases[k].what, e.message);
        if (st == CLPK_SUCCESS) nifti_file_free(&u);
    }
    int accepted = 0;
    for (size_t cut = 0; cut < n; cut += 37) {
        if (nifti_file_parse(b, cut, "cut.nii", &u, &e) == CLPK_SUCCESS) accepted++, nifti_file_free(&u);
    }
    CHECK(accepted == 0, "truncated NIfTI accepted %d times", accepted);
    /* a truncated and a corrupted .nii.gz */
    char *gz = NULL;
    size_t gz_n = 0;
    if (CHECK(core_read_file(path, &gz, &gz_n, &err) == CLPK_SUCCESS, "%s", err.message)) {
        const char *cut_gz = tmp_path("cut.nii.gz");
        write_bytes(cut_gz, gz, gz_n / 2);
        CHECK(nifti_file_read(cut_gz, &u, &e) != CLPK_SUCCESS && contains(e.message, cut_gz),
              "truncated .nii.gz accepted: %s", e.message);
        for (size_t i = gz_n / 3; i < gz_n / 3 + 16; i++) gz[i] ^= 0x5a;
        const char *bad_gz = tmp_path("corrupt.nii.gz");
        write_bytes(bad_gz, gz, gz_n);
        CHECK(nifti_file_read(bad_gz, &u, &e) != CLPK_SUCCESS && contains(e.message, bad_gz),
              "corrupted .nii.gz accepted: %s", e.message);
        free(gz);
    }
    CHECK(nifti_file_read(tmp_path("missing.nii"), &u, &e) == CLPK_ERROR_IO, "missing file");
    free(b), free(c);
    nifti_file_free(&v);
}

/* ---- Encoder on the shared dipy data --------------------------------------------------------------------------- */

static void test_encode(void) {
    if (!have_shared_data()) return;
    const char *dir = CLPK_SHARED_DATA_DIR "/life/";
    char nii[512], bval[512], bvec[512], trk[512];
    snprintf(nii, sizeof nii, "%ssmall_25.nii.gz", dir);
    snprintf(bval, sizeof bval, "%ssmall_25.bval", dir);
    snprintf(bvec, sizeof bvec, "%ssmall_25.bvec", dir);
    snprintf(trk, sizeof trk, "%sEuDX_small_25.trk", dir);
    clpk_life_dataset d;
    life_encode_extra x;
    clpk_error err = {0};
    if (!CHECK(life_encode_full(nii, bval, bvec, trk, NULL, &d, &x, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    /* 111 distinct voxels under dipy's mapping (rounded voxel coordinates), 60 fibres, 25 directions, 228 nodes */
    CHECK(d.n_voxels == 111 && d.n_fibers == 60 && d.n_theta == 25 && d.n_atoms == 360,
          "encoded shapes: Nv %d Nf %d Ntheta %d Na %d", d.n_voxels, d.n_fibers, d.n_theta, d.n_atoms);
    double nodes = 0;
    for (int64_t k = 0; k < d.n_coeffs; k++) nodes += d.phi[k];
    CHECK(nodes == 228, "phi counts %g nodes, expected 228", nodes);
    double worst = 0;
    for (int v = 0; v < d.n_voxels; v++) {
        double m = 0;
        for (int i = 0; i < d.n_theta; i++) m += d.signal[(size_t)v * d.n_theta + i];
        worst = fmax(worst, fabs(m));
    }
    CHECK(worst < 1e-12, "signal rows not demeaned (%g)", worst);
    CHECK(x.voxel_ijk[0] == 0 && x.voxel_ijk[1] == 0 && x.voxel_ijk[2] == 0 && x.s0[0] > 0,
          "first voxel (0,0,0) with S0 > 0");
    printf("encoded small_25: Nv %d Nf %d Na %d Ntheta %d Nc %lld\n", d.n_voxels, d.n_fibers, d.n_atoms, d.n_theta,
           (long long)d.n_coeffs);

    /* without the mask every voxel of the volume is kept; the coefficients and fitted rows stay the same */
    clpk_life_dataset all;
    life_encode_extra xa;
    clpk_life_encode_options no_mask = {.n_atoms = 360, .b0_threshold = 50, .use_mask = 0};
    if (CHECK(life_encode_full(nii, bval, bvec, trk, &no_mask, &all, &xa, &err) == CLPK_SUCCESS, "%s", err.message)) {
        int differ = all.n_voxels != 10 * 8 * 2 || all.n_coeffs != d.n_coeffs;
        for (int64_t k = 0; !differ && k < d.n_coeffs; k++) {
            const int32_t *a = x.voxel_ijk + 3 * d.voxels[k], *b = xa.voxel_ijk + 3 * all.voxels[k];
            differ |= a[0] != b[0] || a[1] != b[1] || a[2] != b[2] || all.phi[k] != d.phi[k] ||
                      all.atoms[k] != d.atoms[k] || all.fibers[k] != d.fibers[k] ||
                      memcmp(all.signal + (size_t)all.voxels[k] * d.n_theta, d.signal + (size_t)d.voxels[k] * d.n_theta,
                             (size_t)d.n_theta * 8) != 0;
        }
        CHECK(!differ, "use_mask = 0: %d voxels (expected 160) or coefficients differ from the masked encoding",
              all.n_voxels);
        clpk_life_dataset_free(&all);
        life_encode_extra_free(&xa);
    }

    /* errors: mismatched volumes, a streamline outside the volume, bad options */
    clpk_life_dataset bad;
    clpk_life_encode_options o = {.n_atoms = 0, .b0_threshold = 50, .use_mask = 1};
    CHECK(clpk_life_encode(nii, bval, bvec, trk, &o, &bad, &err) == CLPK_ERROR_INVALID_ARGUMENT, "n_atoms 0 accepted");
    const char *short_bval = tmp_path("short.bval"), *short_bvec = tmp_path("short.bvec");
    write_bytes(short_bval, "0 2000 2000\n", 12);
    write_bytes(short_bvec, "0 1 0\n0 0 1\n0 0 0\n", 18);
    CHECK(clpk_life_encode(nii, short_bval, short_bvec, trk, NULL, &bad, &err) == CLPK_ERROR_INVALID_DATA &&
              contains(err.message, "volumes"),
          "3 b-values for 26 volumes: %s", err.message);
    char *bytes = NULL;
    size_t n = 0;
    if (CHECK(core_read_file(trk, &bytes, &n, &err) == CLPK_SUCCESS, "%s", err.message)) {
        put_f32((unsigned char *)bytes + 1004, 500.0f); /* first point far outside the 20 mm wide volume */
        const char *out_trk = tmp_path("outside.trk");
        write_bytes(out_trk, bytes, n);
        CHECK(clpk_life_encode(nii, bval, bvec, out_trk, NULL, &bad, &err) == CLPK_ERROR_INVALID_DATA &&
                  contains(err.message, "outside"),
              "streamline outside the volume: %s", err.message);
        /* one streamline of one node: no orientation */
        unsigned char one[1000 + 4 + 12];
        memcpy(one, bytes, 1000);
        put_i32(one + 988, 1);
        put_i32(one + 1000, 1);
        put_f32(one + 1004, -75.0f), put_f32(one + 1008, -115.0f), put_f32(one + 1012, -59.0f);
        const char *one_trk = tmp_path("one_node.trk");
        write_bytes(one_trk, one, sizeof one);
        CHECK(clpk_life_encode(nii, bval, bvec, one_trk, NULL, &bad, &err) == CLPK_ERROR_INVALID_DATA &&
                  contains(err.message, "at least 2") && contains(err.message, one_trk),
              "one-node streamline: %s", err.message);
        free(bytes);
    }
    CHECK(clpk_life_encode(nii, bval, bvec, tmp_path("missing.trk"), NULL, &bad, &err) == CLPK_ERROR_IO,
          "missing tractogram");

    /* fit in double precision on the CPU */
    double *w = malloc((size_t)d.n_fibers * sizeof *w);
    reference_nnls(&d, 2000, w);
    double obj = objective(&d, w), obj0 = 0;
    for (size_t i = 0; i < (size_t)d.n_voxels * d.n_theta; i++) obj0 += 0.5 * d.signal[i] * d.signal[i];
    printf("CPU NNLS on small_25: objective %.6g (from %.6g at w = 0)\n", obj, obj0);
    CHECK(obj < obj0, "the fit does not reduce the objective");
    /* per-voxel RMSE of the predicted signal, in the data's units, over all volumes (dipy's FiberFit.predict) */
    size_t ny = (size_t)d.n_voxels * d.n_theta;
    double *y = malloc(ny * sizeof *y), *rmse = malloc((size_t)d.n_voxels * sizeof *rmse);
    reference_dsc(&d, w, y);
    for (int v = 0; v < d.n_voxels; v++) {
        double ss = 0;
        int q_dw = 0;
        for (int q = 0; q < x.n_volumes; q++) {
            double pred = x.is_b0[q] ? x.s0[v] : (y[(size_t)v * d.n_theta + q_dw++] + x.mean[v]) * x.s0[v];
            double r = pred - x.measured[(size_t)v * x.n_volumes + q];
            ss += r * r;
        }
        rmse[v] = sqrt(ss / x.n_volumes);
    }
    double median_rmse = 0;
    { /* median by counting */
        for (int v = 0; v < d.n_voxels; v++) {
            int below = 0, equal = 0;
            for (int u = 0; u < d.n_voxels; u++) below += rmse[u] < rmse[v], equal += rmse[u] == rmse[v];
            if (below <= d.n_voxels / 2 && below + equal > d.n_voxels / 2) median_rmse = rmse[v];
        }
    }
    printf("CPU NNLS on small_25: median voxel RMSE %.4f\n", median_rmse);
    /* MATLAB LiFE's weights and RMSE on these data (dipy's test_fit_data asks for correlation > 0.6 and a median
     * RMSE below MATLAB's) */
    clpk_npy mw, mr;
    if (CHECK(clpk_npy_read(CLPK_SHARED_DATA_DIR "/life/life_matlab_weights.npy", &mw, &err) == CLPK_SUCCESS &&
                  clpk_npy_convert(&mw, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS,
              "%s", err.message)) {
        if (CHECK(mw.count == d.n_fibers, "MATLAB weights: %lld, fibres %d", (long long)mw.count, d.n_fibers)) {
            double r = correlation(mw.data, w, (size_t)mw.count);
            printf("CPU NNLS on small_25: correlation with MATLAB LiFE weights %.4f\n", r);
            CHECK(r > 0.6, "correlation with MATLAB LiFE weights %.4f <= 0.6", r);
        }
        clpk_npy_free(&mw);
    }
    if (CHECK(clpk_npy_read(CLPK_SHARED_DATA_DIR "/life/life_matlab_rmse.npy", &mr, &err) == CLPK_SUCCESS &&
                  clpk_npy_convert(&mr, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS,
              "%s", err.message)) {
        const double *m = mr.data;
        double median_matlab = 0;
        for (int64_t v = 0; v < mr.count; v++) {
            int64_t below = 0, equal = 0;
            for (int64_t u = 0; u < mr.count; u++) below += m[u] < m[v], equal += m[u] == m[v];
            if (below <= mr.count / 2 && below + equal > mr.count / 2) median_matlab = m[v];
        }
        printf("MATLAB LiFE median voxel RMSE %.4f\n", median_matlab);
        CHECK(median_rmse < median_matlab, "median RMSE %.4f not below MATLAB's %.4f", median_rmse, median_matlab);
        clpk_npy_free(&mr);
    }
    /* the encoded dataset survives a save/load round trip */
    clpk_life_dataset back;
    const char *enc_dir = tmp_path("encoded");
    if (CHECK(clpk_life_dataset_save(enc_dir, &d, &err) == CLPK_SUCCESS, "%s", err.message) &&
        CHECK(clpk_life_dataset_load(enc_dir, &back, &err) == CLPK_SUCCESS, "%s", err.message)) {
        CHECK(same_dataset(&d, &back), "encoded dataset: save/load round trip differs");
        clpk_life_dataset_free(&back);
    }
    free(y), free(rmse), free(w);
    clpk_life_dataset_free(&d);
    life_encode_extra_free(&x);
}

int main(void) {
    uint64_t seed = check_seed(), rng = seed;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/clpk_test_life_data_XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        CHECK(0, "cannot create a temporary directory");
        return check_summary();
    }
    test_orientations(&rng);
    test_synth(seed);
    test_synth_bvec();
    test_dataset_files(seed);
    test_trk();
    test_nifti();
    test_encode();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", tmp_dir);
    return check_summary();
}
