/* The LiFE dictionary: orientations of the atoms, gradient tables (generated or from FSL bval/bvec files) and the
 * demeaned stick responses that form the rows of D. */
#include "life_data_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LIFE_PI 3.14159265358979323846

void life_orientations_free(life_orientations *o) {
    if (!o) return;
    free(o->xyz);
    free(o->band_start);
    free(o->band_cos);
    memset(o, 0, sizeof *o);
}

clpk_status life_orientations_make(int n, life_orientations *o, clpk_error *err) {
    memset(o, 0, sizeof *o);
    if (n < 1 || n > 50000000)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dictionary: %d orientations (need 1 .. 5e7)", n);
    /* Bands about as tall as a cell is wide, so cells are roughly square: cell side = sqrt(hemisphere area / n). */
    int nb = (int)lround((LIFE_PI / 2) / sqrt(2 * LIFE_PI / n));
    if (nb < 1) nb = 1;
    if (nb > n) nb = n;
    o->n = n;
    o->n_bands = nb;
    o->xyz = malloc((size_t)n * 3 * sizeof *o->xyz);
    o->band_start = malloc((size_t)(nb + 1) * sizeof *o->band_start);
    o->band_cos = malloc((size_t)(nb + 1) * sizeof *o->band_cos);
    double *share = malloc((size_t)nb * sizeof *share);
    if (!o->xyz || !o->band_start || !o->band_cos || !share) {
        free(share);
        life_orientations_free(o);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "dictionary: out of memory for %d orientations", n);
    }
    for (int i = 0; i <= nb; i++) o->band_cos[i] = cos((LIFE_PI / 2) * i / nb);
    o->band_cos[nb] = 0.0;
    /* Atoms per band in proportion to the band's area (cos of its edges), at least one, largest remainder first. */
    int total = 0;
    for (int i = 0; i < nb; i++) {
        share[i] = n * (o->band_cos[i] - o->band_cos[i + 1]);
        int k = (int)floor(share[i]);
        if (k < 1) k = 1;
        o->band_start[i + 1] = k; /* counts for now */
        total += k;
    }
    while (total != n) {
        int best = -1;
        double best_gap = -INFINITY;
        for (int i = 0; i < nb; i++) {
            int k = o->band_start[i + 1];
            double gap = total < n ? share[i] - k : k - share[i];
            if ((total < n || k > 1) && gap > best_gap) best_gap = gap, best = i;
        }
        o->band_start[best + 1] += total < n ? 1 : -1;
        total += total < n ? 1 : -1;
    }
    free(share);
    o->band_start[0] = 0;
    for (int i = 0; i < nb; i++) o->band_start[i + 1] += o->band_start[i];
    for (int i = 0; i < nb; i++) {
        double theta = (LIFE_PI / 2) * (i + 0.5) / nb;
        int k = o->band_start[i + 1] - o->band_start[i];
        for (int j = 0; j < k; j++) {
            double phi = 2 * LIFE_PI * (j + 0.5) / k;
            double *u = o->xyz + 3 * (size_t)(o->band_start[i] + j);
            u[0] = sin(theta) * cos(phi);
            u[1] = sin(theta) * sin(phi);
            u[2] = cos(theta);
        }
    }
    return CLPK_SUCCESS;
}

int life_orientations_cell(const life_orientations *o, const double d[3]) {
    double x = d[0], y = d[1], z = d[2];
    if (z < 0) x = -x, y = -y, z = -z;
    double norm = sqrt(x * x + y * y + z * z);
    double c = norm > 0 ? z / norm : 1.0;
    /* band i holds cos(theta) in (band_cos[i+1], band_cos[i]]; band_cos decreases */
    int lo = 0, hi = o->n_bands - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (c > o->band_cos[mid + 1]) hi = mid;
        else lo = mid + 1;
    }
    int k = o->band_start[lo + 1] - o->band_start[lo];
    double phi = atan2(y, x);
    if (phi < 0) phi += 2 * LIFE_PI;
    int j = (int)(phi / (2 * LIFE_PI) * k);
    if (j >= k) j = k - 1;
    if (j < 0) j = 0;
    return o->band_start[lo] + j;
}

static void scan_bands(const life_orientations *o, const double d[3], double lo, double hi, int *best,
                       double *best_dot) {
    const double band_height = (LIFE_PI / 2) / o->n_bands;
    if (hi < 0 || lo > LIFE_PI / 2) return;
    int first = lo <= 0 ? 0 : (int)(lo / band_height), last = (int)(hi / band_height);
    if (last >= o->n_bands) last = o->n_bands - 1;
    for (int a = o->band_start[first]; a < o->band_start[last + 1]; a++) {
        const double *u = o->xyz + 3 * (size_t)a;
        double dot = fabs(u[0] * d[0] + u[1] * d[1] + u[2] * d[2]);
        if (dot > *best_dot || (dot == *best_dot && a < *best)) *best_dot = dot, *best = a;
    }
}

int life_orientations_nearest(const life_orientations *o, const double d_in[3]) {
    double n = sqrt(d_in[0] * d_in[0] + d_in[1] * d_in[1] + d_in[2] * d_in[2]);
    if (!(n > 0)) return 0; /* no direction: every atom is as near, the first wins (as a linear scan would) */
    double d[3] = {d_in[0] / n, d_in[1] / n, d_in[2] / n};
    if (d[2] < 0) d[0] = -d[0], d[1] = -d[1], d[2] = -d[2];
    /* The cell's atom bounds the distance; an atom (or its antipode) nearer than that has a polar angle within the
     * bound of d's, so only the bands meeting those two polar-angle windows need scanning. */
    int best = life_orientations_cell(o, d);
    const double *uc = o->xyz + 3 * (size_t)best;
    double best_dot = fabs(uc[0] * d[0] + uc[1] * d[1] + uc[2] * d[2]);
    double bound = acos(fmin(1.0, best_dot)) + 1e-9, theta = acos(fmin(1.0, d[2]));
    scan_bands(o, d, theta - bound, theta + bound, &best, &best_dot);
    scan_bands(o, d, LIFE_PI - theta - bound, LIFE_PI - theta + bound, &best, &best_dot);
    return best;
}

/* ---- Gradient tables ---------------------------------------------------------------------------------------- */

void life_gradients_free(life_gradients *g) {
    if (!g) return;
    free(g->g);
    free(g->b);
    free(g->is_b0);
    memset(g, 0, sizeof *g);
}

clpk_status life_gradients_make(int n, double b, life_gradients *g, clpk_error *err) {
    memset(g, 0, sizeof *g);
    if (n < 1 || n > 100000)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "gradient table: %d directions (need 1 .. 100000)", n);
    if (!(b > 0) || !isfinite(b))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "gradient table: b-value %g must be positive", b);
    g->n = g->n_volumes = n;
    g->g = malloc((size_t)n * 3 * sizeof *g->g);
    g->b = malloc((size_t)n * sizeof *g->b);
    g->is_b0 = calloc((size_t)n, sizeof *g->is_b0);
    if (!g->g || !g->b || !g->is_b0) {
        life_gradients_free(g);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "gradient table: out of memory");
    }
    const double golden = LIFE_PI * (3.0 - sqrt(5.0));
    for (int i = 0; i < n; i++) {
        double z = 1.0 - (i + 0.5) / n, r = sqrt(1.0 - z * z), phi = golden * i;
        g->g[3 * i] = r * cos(phi);
        g->g[3 * i + 1] = r * sin(phi);
        g->g[3 * i + 2] = z;
        g->b[i] = b;
    }
    return CLPK_SUCCESS;
}

/* Parses whitespace-separated numbers; `rows` receives how many non-empty lines held numbers. */
static clpk_status parse_numbers(const char *path, double **values, int *count, int *rows, clpk_error *err) {
    char *text = NULL;
    size_t size = 0;
    CLPK_TRY(core_read_file(path, &text, &size, err));
    int cap = 64, n = 0, nrows = 0, line = 1, line_has = 0;
    double *v = malloc((size_t)cap * sizeof *v);
    if (!v) {
        free(text);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
            if (*p == '\n') {
                nrows += line_has;
                line_has = 0;
                line++;
            }
            p++;
        }
        if (*p == '\0') break;
        char *end = NULL;
        double x = strtod(p, &end);
        if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n') || !isfinite(x)) {
            free(v);
            free(text);
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: line %d: not a finite number", path, line);
        }
        if (n == cap) {
            double *bigger = realloc(v, (size_t)cap * 2 * sizeof *v);
            if (!bigger) {
                free(v);
                free(text);
                return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
            v = bigger;
            cap *= 2;
        }
        v[n++] = x;
        line_has = 1;
        p = end;
    }
    nrows += line_has;
    free(text);
    *values = v;
    *count = n;
    *rows = nrows;
    return CLPK_SUCCESS;
}

clpk_status life_gradients_read(const char *bval_path, const char *bvec_path, double b0_threshold, life_gradients *g,
                                clpk_error *err) {
    memset(g, 0, sizeof *g);
    double *bval = NULL, *bvec = NULL;
    int nb = 0, nv = 0, rows_b = 0, rows_v = 0;
    CLPK_TRY(parse_numbers(bval_path, &bval, &nb, &rows_b, err));
    clpk_status st = parse_numbers(bvec_path, &bvec, &nv, &rows_v, err);
    if (st != CLPK_SUCCESS) {
        free(bval);
        return st;
    }
    if (nb == 0) st = core_error_set(err, CLPK_ERROR_PARSE, "%s: no b-values", bval_path);
    else if (nv != 3 * nb)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: %d numbers, expected 3 x %d (the b-values of %s)",
                            bvec_path, nv, nb, bval_path);
    else if (rows_v != 3 && rows_v != nb)
        st = core_error_set(err, CLPK_ERROR_PARSE, "%s: %d lines; expected 3 rows (FSL) or %d rows of 3", bvec_path,
                            rows_v, nb);
    for (int i = 0; st == CLPK_SUCCESS && i < nb; i++)
        if (bval[i] < 0)
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: negative b-value %g at position %d", bval_path,
                                bval[i], i);
    if (st == CLPK_SUCCESS) {
        g->n_volumes = nb;
        g->is_b0 = calloc((size_t)nb, sizeof *g->is_b0);
        g->g = malloc((size_t)nb * 3 * sizeof *g->g);
        g->b = malloc((size_t)nb * sizeof *g->b);
        if (!g->is_b0 || !g->g || !g->b)
            st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", bvec_path);
    }
    /* 3 rows of nb values (FSL) unless the file has nb lines of 3 (3 x 3 is ambiguous: FSL wins). */
    int fsl_rows = rows_v == 3;
    for (int i = 0; st == CLPK_SUCCESS && i < nb; i++) {
        double v[3];
        for (int c = 0; c < 3; c++) v[c] = fsl_rows ? bvec[c * nb + i] : bvec[3 * i + c];
        if (bval[i] <= b0_threshold) {
            g->is_b0[i] = 1;
            continue;
        }
        double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(norm > 1e-6)) {
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: zero gradient vector for volume %d with b = %g",
                                bvec_path, i, bval[i]);
            break;
        }
        for (int c = 0; c < 3; c++) g->g[3 * g->n + c] = v[c] / norm;
        g->b[g->n++] = bval[i];
    }
    if (st == CLPK_SUCCESS && g->n == 0)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: no diffusion-weighted volume (all b <= %g)", bval_path,
                            b0_threshold);
    free(bval);
    free(bvec);
    if (st != CLPK_SUCCESS) life_gradients_free(g);
    return st;
}

clpk_status life_dictionary_make(const life_orientations *o, const life_gradients *g, double **dictionary,
                                 clpk_error *err) {
    double *d = malloc((size_t)o->n * g->n * sizeof *d);
    if (!d) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "dictionary: out of memory (%d x %d)", o->n, g->n);
    for (int a = 0; a < o->n; a++) {
        const double *u = o->xyz + 3 * (size_t)a;
        double *row = d + (size_t)a * g->n, mean = 0;
        for (int i = 0; i < g->n; i++) {
            const double *gi = g->g + 3 * (size_t)i;
            double c = u[0] * gi[0] + u[1] * gi[1] + u[2] * gi[2];
            row[i] = exp(-g->b[i] * 1e-3 * c * c);
            mean += row[i];
        }
        mean /= g->n;
        for (int i = 0; i < g->n; i++) row[i] -= mean;
    }
    *dictionary = d;
    return CLPK_SUCCESS;
}
