/* ENCODE-style synthetic LiFE datasets. Bundles of smooth streamlines (quadratic Bezier centre lines, fibres offset
 * inside a tube whose radius may grow: fanning) are laid through a voxel grid in pairs that cross or kiss; each node
 * of a fibre falls into a voxel and, by its tangent, into a dictionary orientation; phi(v, f, a) is the fraction of
 * f's nodes in v that point along a, scaled by S0(v) (ENCODE's Phi); the signal is M w_true plus Gaussian noise.
 * One pass over the fibres, coefficients written straight into arrays sized by the node count (an upper bound),
 * so DS1-size data (5e5 fibres, ~6e7 coefficients) takes seconds and no per-coefficient allocation. */
#include "life_data_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SYNTH_PI 3.14159265358979323846

clpk_status clpk_life_synth_defaults(const char *size_class, clpk_life_synth_options *o) {
    if (!o) return CLPK_ERROR_INVALID_ARGUMENT;
    memset(o, 0, sizeof *o);
    o->b_value = 2.0; /* b = 2000 s/mm^2 times the stick's diffusivity 1e-3 mm^2/s, as the seed's STN96 data */
    o->snr = 20.0;
    o->zero_weight_fraction = 0.2;
    o->seed = 1;
    const char *c = size_class ? size_class : "small";
    if (strcasecmp(c, "tiny") == 0) {
        o->grid[0] = 10, o->grid[1] = 8, o->grid[2] = 6;
        o->n_fibers = 48, o->nodes_per_fiber = 24, o->n_theta = 16, o->n_atoms = 60;
    } else if (strcasecmp(c, "small") == 0) {
        o->grid[0] = 24, o->grid[1] = 24, o->grid[2] = 16;
        o->n_fibers = 2000, o->nodes_per_fiber = 48, o->n_theta = 48, o->n_atoms = 360;
    } else if (strcasecmp(c, "medium") == 0) {
        o->grid[0] = 48, o->grid[1] = 48, o->grid[2] = 32;
        o->n_fibers = 50000, o->nodes_per_fiber = 80, o->n_theta = 96, o->n_atoms = 360;
    } else if (strcasecmp(c, "ds1") == 0) {
        /* the seed's DS1: 96 directions, ~1.9e5 voxels, 5e5 fibres, ~6e7 coefficients, a fine dictionary */
        o->grid[0] = 64, o->grid[1] = 64, o->grid[2] = 48;
        o->n_fibers = 500000, o->nodes_per_fiber = 165, o->n_theta = 96, o->n_atoms = 129241;
    } else {
        return CLPK_ERROR_INVALID_ARGUMENT;
    }
    return CLPK_SUCCESS;
}

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s) { return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static double rng_normal(uint64_t *s) {
    double u = rng_uniform(s), v = rng_uniform(s);
    return sqrt(-2.0 * log(1.0 - u)) * cos(2 * SYNTH_PI * v);
}

typedef struct bundle {
    double p0[3], p1[3], p2[3];
    double e1[3], e2[3]; /* unit vectors across the bundle */
    double r0, r1;       /* tube radius at the start and the end (fanning when r1 > r0) */
    double weight;       /* typical weight of its fibres */
} bundle;

static void normalize3(double v[3]) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0) v[0] /= n, v[1] /= n, v[2] /= n;
}

static void random_unit(uint64_t *rng, double u[3]) {
    double z = 2 * rng_uniform(rng) - 1, phi = 2 * SYNTH_PI * rng_uniform(rng), r = sqrt(1 - z * z);
    u[0] = r * cos(phi), u[1] = r * sin(phi), u[2] = z;
}

/* Two unit vectors perpendicular to u and to each other. */
static void frame(const double u[3], double e1[3], double e2[3]) {
    double a[3] = {1, 0, 0};
    if (fabs(u[0]) > 0.9) a[0] = 0, a[1] = 1;
    e1[0] = u[1] * a[2] - u[2] * a[1], e1[1] = u[2] * a[0] - u[0] * a[2], e1[2] = u[0] * a[1] - u[1] * a[0];
    normalize3(e1);
    e2[0] = u[1] * e1[2] - u[2] * e1[1], e2[1] = u[2] * e1[0] - u[0] * e1[2], e2[2] = u[0] * e1[1] - u[1] * e1[0];
}

static void finish_bundle(bundle *b, uint64_t *rng) {
    double u[3] = {b->p2[0] - b->p0[0], b->p2[1] - b->p0[1], b->p2[2] - b->p0[2]};
    normalize3(u);
    if (u[0] == 0 && u[1] == 0 && u[2] == 0) u[0] = 1;
    frame(u, b->e1, b->e2);
    b->weight = 0.5 + rng_uniform(rng);
}

/* Lays out bundles in scenarios: crossing pairs, kissing pairs, fanning and plain curved bundles. */
static void make_bundles(const int grid[3], bundle *bundles, int n, uint64_t *rng) {
    double g[3] = {grid[0], grid[1], grid[2]};
    double gmin = fmin(g[0], fmin(g[1], g[2])), gmean = (g[0] + g[1] + g[2]) / 3;
    double radius = fmax(0.75, 0.06 * gmean);
    for (int i = 0; i < n;) {
        int kind = (i / 2) % 4; /* 0 crossing pair, 1 kissing pair, 2 fanning, 3 curved */
        double c[3];
        for (int k = 0; k < 3; k++) c[k] = g[k] * (0.25 + 0.5 * rng_uniform(rng));
        double h = 0.5 * gmean * (0.6 + 0.4 * rng_uniform(rng)); /* half length */
        if (kind <= 1 && i + 1 < n) {
            double u[3], v[3], e1[3], e2[3];
            random_unit(rng, u);
            frame(u, e1, e2);
            bundle *a = &bundles[i], *b = &bundles[i + 1];
            memset(a, 0, sizeof *a);
            memset(b, 0, sizeof *b);
            a->r0 = a->r1 = b->r0 = b->r1 = radius;
            if (kind == 0) { /* crossing at 45..90 degrees through c */
                double ang = SYNTH_PI / 4 + SYNTH_PI / 4 * rng_uniform(rng);
                for (int k = 0; k < 3; k++) v[k] = cos(ang) * u[k] + sin(ang) * e1[k];
                for (int k = 0; k < 3; k++) {
                    a->p0[k] = c[k] - h * u[k], a->p1[k] = c[k], a->p2[k] = c[k] + h * u[k];
                    b->p0[k] = c[k] - h * v[k], b->p1[k] = c[k], b->p2[k] = c[k] + h * v[k];
                }
            } else { /* kissing: both tangent to u where they touch near c, bending away on either side */
                double s = 0.5 * h, gap = 0.6 * radius;
                for (int k = 0; k < 3; k++) {
                    double ca = c[k] + gap * e1[k], cb = c[k] - gap * e1[k];
                    a->p0[k] = ca - h * u[k] + s * e1[k], a->p2[k] = ca + h * u[k] + s * e1[k];
                    a->p1[k] = ca - s * e1[k];
                    b->p0[k] = cb - h * u[k] - s * e1[k], b->p2[k] = cb + h * u[k] - s * e1[k];
                    b->p1[k] = cb + s * e1[k];
                }
            }
            finish_bundle(a, rng);
            finish_bundle(b, rng);
            i += 2;
            continue;
        }
        bundle *a = &bundles[i];
        memset(a, 0, sizeof *a);
        double u[3], e1[3], e2[3];
        random_unit(rng, u);
        frame(u, e1, e2);
        double bend = (0.2 + 0.3 * rng_uniform(rng)) * h;
        for (int k = 0; k < 3; k++) {
            a->p0[k] = c[k] - h * u[k];
            a->p2[k] = c[k] + h * u[k];
            a->p1[k] = c[k] + bend * e1[k];
        }
        if (kind == 2) a->r0 = 0.5 * radius, a->r1 = fmin(3 * radius, 0.3 * gmin + radius);
        else a->r0 = a->r1 = radius;
        finish_bundle(a, rng);
        i++;
    }
    /* keep the control points in the grid: the centre line then stays inside (convex hull) */
    for (int i = 0; i < n; i++) {
        double *pts[3] = {bundles[i].p0, bundles[i].p1, bundles[i].p2};
        for (int p = 0; p < 3; p++)
            for (int k = 0; k < 3; k++) pts[p][k] = fmin(fmax(pts[p][k], 0.0), g[k] * (1 - 1e-9));
    }
}

/* A smooth, positive S0 field over the grid (ENCODE scales phi by the measured b0 signal). */
static double s0_at(const int grid[3], int64_t lin) {
    int64_t x = lin % grid[0], y = (lin / grid[0]) % grid[1], z = lin / ((int64_t)grid[0] * grid[1]);
    return 1.0 + 0.25 * sin(2 * SYNTH_PI * (x + 0.5) / grid[0]) * cos(2 * SYNTH_PI * (y + 0.5) / grid[1]) +
           0.1 * cos(SYNTH_PI * (z + 0.5) / grid[2]);
}

/* Per-fibre counting of nodes per (voxel, atom) and per voxel, in first-seen order, with small hash tables. */
typedef struct fibre_counter {
    int cap;            /* table size, a power of two >= 2 x nodes */
    int32_t *slot_pair; /* cap: pair index + 1, 0 empty */
    int32_t *slot_vox;  /* cap: voxel entry index + 1 */
    int64_t *pair_vox;  /* nodes: voxel (linear) of each pair */
    int32_t *pair_atom, *pair_count, *pair_vox_entry;
    int64_t *vox_key;
    int32_t *vox_count;
    int n_pairs, n_vox;
} fibre_counter;

static uint32_t hash_u64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

static int counter_init(fibre_counter *c, int nodes) {
    memset(c, 0, sizeof *c);
    c->cap = 16;
    while (c->cap < 2 * nodes) c->cap *= 2;
    c->slot_pair = calloc((size_t)c->cap, sizeof *c->slot_pair);
    c->slot_vox = calloc((size_t)c->cap, sizeof *c->slot_vox);
    c->pair_vox = malloc((size_t)nodes * sizeof *c->pair_vox);
    c->pair_atom = malloc((size_t)nodes * sizeof *c->pair_atom);
    c->pair_count = malloc((size_t)nodes * sizeof *c->pair_count);
    c->pair_vox_entry = malloc((size_t)nodes * sizeof *c->pair_vox_entry);
    c->vox_key = malloc((size_t)nodes * sizeof *c->vox_key);
    c->vox_count = malloc((size_t)nodes * sizeof *c->vox_count);
    return c->slot_pair && c->slot_vox && c->pair_vox && c->pair_atom && c->pair_count && c->pair_vox_entry &&
           c->vox_key && c->vox_count;
}

static void counter_free(fibre_counter *c) {
    free(c->slot_pair);
    free(c->slot_vox);
    free(c->pair_vox);
    free(c->pair_atom);
    free(c->pair_count);
    free(c->pair_vox_entry);
    free(c->vox_key);
    free(c->vox_count);
}

static void counter_reset(fibre_counter *c) {
    memset(c->slot_pair, 0, (size_t)c->cap * sizeof *c->slot_pair);
    memset(c->slot_vox, 0, (size_t)c->cap * sizeof *c->slot_vox);
    c->n_pairs = c->n_vox = 0;
}

static void counter_add(fibre_counter *c, int64_t voxel, int32_t atom) {
    uint32_t mask = (uint32_t)c->cap - 1;
    uint32_t h = hash_u64((uint64_t)voxel) & mask;
    int ve;
    for (;;) {
        int32_t s = c->slot_vox[h];
        if (s == 0) {
            ve = c->n_vox++;
            c->vox_key[ve] = voxel;
            c->vox_count[ve] = 0;
            c->slot_vox[h] = ve + 1;
            break;
        }
        if (c->vox_key[s - 1] == voxel) {
            ve = s - 1;
            break;
        }
        h = (h + 1) & mask;
    }
    c->vox_count[ve]++;
    h = hash_u64((uint64_t)voxel * 0x100000001b3ULL ^ (uint64_t)atom) & mask;
    for (;;) {
        int32_t s = c->slot_pair[h];
        if (s == 0) {
            int pe = c->n_pairs++;
            c->pair_vox[pe] = voxel;
            c->pair_atom[pe] = atom;
            c->pair_count[pe] = 1;
            c->pair_vox_entry[pe] = ve;
            c->slot_pair[h] = pe + 1;
            return;
        }
        if (c->pair_vox[s - 1] == voxel && c->pair_atom[s - 1] == atom) {
            c->pair_count[s - 1]++;
            return;
        }
        h = (h + 1) & mask;
    }
}

static clpk_status check_options(const clpk_life_synth_options *o, clpk_error *err) {
    int64_t cells = 1;
    for (int k = 0; k < 3; k++) {
        if (o->grid[k] < 1 || o->grid[k] > 65536)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: grid[%d] = %d must be in 1..65536", k,
                                  o->grid[k]);
        cells *= o->grid[k];
    }
    if (cells >= INT32_MAX)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: grid of %lld voxels is too large",
                              (long long)cells);
    if (o->n_fibers < 1) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: n_fibers %d < 1", o->n_fibers);
    if (o->nodes_per_fiber < 2 || o->nodes_per_fiber > 1000000)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: nodes_per_fiber %d must be in 2..1e6",
                              o->nodes_per_fiber);
    if ((int64_t)o->n_fibers * o->nodes_per_fiber >= INT64_MAX / 64)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: too many nodes");
    if (!o->bvec_path && (o->n_theta < 1 || o->n_theta > 100000))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: n_theta %d must be in 1..100000", o->n_theta);
    if ((o->bvec_path == NULL) != (o->bval_path == NULL))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: give both bval_path and bvec_path, or neither");
    if (o->n_atoms < 1) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: n_atoms %d < 1", o->n_atoms);
    if (!(o->b_value > 0) || !isfinite(o->b_value))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: b_value %g must be positive", o->b_value);
    if (!(o->snr >= 0) || !isfinite(o->snr))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: snr %g must be >= 0 (0: no noise)", o->snr);
    if (!(o->zero_weight_fraction >= 0 && o->zero_weight_fraction < 1))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "synth: zero_weight_fraction %g must be in [0, 1)",
                              o->zero_weight_fraction);
    return CLPK_SUCCESS;
}

/* Walks every fibre and writes its coefficients (voxels as linear grid indices for now). */
static clpk_status generate_phi(const clpk_life_synth_options *o, const life_orientations *orient,
                                const bundle *bundles, int n_bundles, const double *s0, clpk_life_dataset *d, double *w,
                                uint64_t *rng, clpk_error *err) {
    const int n_nodes = o->nodes_per_fiber;
    size_t cap = (size_t)o->n_fibers * (size_t)n_nodes; /* one coefficient per node at most */
    d->atoms = malloc(cap * sizeof *d->atoms);
    d->voxels = malloc(cap * sizeof *d->voxels);
    d->fibers = malloc(cap * sizeof *d->fibers);
    d->phi = malloc(cap * sizeof *d->phi);
    int64_t *lin = malloc((size_t)n_nodes * sizeof *lin);
    double *xyz = malloc((size_t)n_nodes * 3 * sizeof *xyz);
    int32_t *atom = malloc((size_t)n_nodes * sizeof *atom);
    fibre_counter fc;
    int ok = counter_init(&fc, n_nodes);
    clpk_status st = CLPK_SUCCESS;
    if (!ok || !d->atoms || !d->voxels || !d->fibers || !d->phi || !lin || !xyz || !atom)
        st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "synth: out of memory for %zu coefficients", cap);
    const int *g = o->grid;
    int64_t nc = 0;
    for (int f = 0; f < o->n_fibers && st == CLPK_SUCCESS; f++) {
        const bundle *b = &bundles[(int64_t)f * n_bundles / o->n_fibers];
        double rr = sqrt(rng_uniform(rng)), ang = 2 * SYNTH_PI * rng_uniform(rng);
        double off[3];
        for (int k = 0; k < 3; k++) off[k] = rr * (cos(ang) * b->e1[k] + sin(ang) * b->e2[k]);
        double t0 = 0.1 * rng_uniform(rng), t1 = 1.0 - 0.1 * rng_uniform(rng);
        w[f] = rng_uniform(rng) < o->zero_weight_fraction ? 0.0 : b->weight * (0.5 + rng_uniform(rng));
        int inside = 0;
        for (int i = 0; i < n_nodes; i++) {
            double t = t0 + (t1 - t0) * i / (n_nodes - 1), s = 1 - t, r = b->r0 + (b->r1 - b->r0) * t;
            double tan[3];
            int in = 1;
            for (int k = 0; k < 3; k++) {
                double x = s * s * b->p0[k] + 2 * s * t * b->p1[k] + t * t * b->p2[k] + r * off[k];
                tan[k] = 2 * s * (b->p1[k] - b->p0[k]) + 2 * t * (b->p2[k] - b->p1[k]) + (b->r1 - b->r0) * off[k];
                xyz[3 * i + k] = x;
                in &= x >= 0 && x < g[k];
            }
            atom[i] = life_orientations_cell(orient, tan);
            lin[i] = in ? 1 : -1;
            inside += in;
        }
        counter_reset(&fc);
        for (int i = 0; i < n_nodes; i++) {
            if (inside > 0 && lin[i] < 0) continue; /* outside the grid (the brain mask) */
            int64_t v[3];
            for (int k = 0; k < 3; k++) { /* a fibre wholly outside a tiny grid is clamped in rather than lost */
                double x = floor(xyz[3 * i + k]);
                v[k] = x < 0 ? 0 : x >= g[k] ? g[k] - 1 : (int64_t)x;
            }
            counter_add(&fc, v[0] + (int64_t)g[0] * (v[1] + (int64_t)g[1] * v[2]), atom[i]);
        }
        for (int p = 0; p < fc.n_pairs; p++) {
            d->voxels[nc] = (int32_t)fc.pair_vox[p];
            d->atoms[nc] = fc.pair_atom[p];
            d->fibers[nc] = f;
            d->phi[nc] = (double)fc.pair_count[p] / fc.vox_count[fc.pair_vox_entry[p]] * s0[fc.pair_vox[p]];
            nc++;
        }
    }
    counter_free(&fc);
    free(lin);
    free(xyz);
    free(atom);
    d->n_coeffs = nc;
    if (st == CLPK_SUCCESS && nc > 0 && (size_t)nc < cap) { /* give back the unused tail */
        int32_t *a = realloc(d->atoms, (size_t)nc * sizeof *a);
        if (a) d->atoms = a;
        int32_t *v = realloc(d->voxels, (size_t)nc * sizeof *v);
        if (v) d->voxels = v;
        int32_t *fb = realloc(d->fibers, (size_t)nc * sizeof *fb);
        if (fb) d->fibers = fb;
        double *ph = realloc(d->phi, (size_t)nc * sizeof *ph);
        if (ph) d->phi = ph;
    }
    return st;
}

clpk_status clpk_life_synth(const clpk_life_synth_options *o, clpk_life_dataset *d, double **w_true, clpk_error *err) {
    if (!o || !d) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_life_synth: NULL argument");
    memset(d, 0, sizeof *d);
    if (w_true) *w_true = NULL;
    CLPK_TRY(check_options(o, err));
    uint64_t rng = o->seed ^ 0x6c69666573796e74ULL; /* "lifesynt" */
    life_orientations orient;
    life_gradients grad;
    memset(&grad, 0, sizeof grad);
    CLPK_TRY(life_orientations_make(o->n_atoms, &orient, err));
    clpk_status st = o->bvec_path ? life_gradients_read(o->bval_path, o->bvec_path, 50.0, &grad, err)
                                  : life_gradients_make(o->n_theta, o->b_value * 1000.0, &grad, err);
    if (st == CLPK_SUCCESS) st = life_dictionary_make(&orient, &grad, &d->dictionary, err);
    d->n_atoms = o->n_atoms;
    d->n_theta = grad.n;
    d->n_fibers = o->n_fibers;

    int n_bundles = o->n_fibers < 4 ? 1 : o->n_fibers / 200 < 4 ? 4 : o->n_fibers / 200;
    if (n_bundles > o->n_fibers) n_bundles = o->n_fibers;
    bundle *bundles = malloc((size_t)n_bundles * sizeof *bundles);
    double *w = malloc((size_t)o->n_fibers * sizeof *w);
    int64_t cells = (int64_t)o->grid[0] * o->grid[1] * o->grid[2];
    int32_t *voxel_id = malloc((size_t)cells * sizeof *voxel_id);
    double *s0 = malloc((size_t)cells * sizeof *s0);
    if (st == CLPK_SUCCESS && (!bundles || !w || !voxel_id || !s0))
        st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "synth: out of memory");
    if (st == CLPK_SUCCESS) {
        make_bundles(o->grid, bundles, n_bundles, &rng);
        for (int64_t k = 0; k < cells; k++) s0[k] = s0_at(o->grid, k);
        st = generate_phi(o, &orient, bundles, n_bundles, s0, d, w, &rng, err);
    }
    if (st == CLPK_SUCCESS) { /* keep only the voxels some fibre touches, numbered in grid order */
        for (int64_t k = 0; k < cells; k++) voxel_id[k] = -1;
        for (int64_t k = 0; k < d->n_coeffs; k++) voxel_id[d->voxels[k]] = 0;
        int32_t nv = 0;
        for (int64_t k = 0; k < cells; k++)
            if (voxel_id[k] == 0) voxel_id[k] = nv++;
        for (int64_t k = 0; k < d->n_coeffs; k++) d->voxels[k] = voxel_id[d->voxels[k]];
        d->n_voxels = nv;
        d->signal = calloc((size_t)nv * grad.n, sizeof *d->signal);
        d->voxel_ijk = malloc(((size_t)nv > 0 ? (size_t)nv : 1) * 3 * sizeof *d->voxel_ijk);
        if (!d->signal || !d->voxel_ijk)
            st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "synth: out of memory for the signal");
        for (int64_t k = 0; st == CLPK_SUCCESS && k < cells; k++) { /* the grid position, for spatial orders */
            if (voxel_id[k] < 0) continue;
            int32_t *ijk = d->voxel_ijk + 3 * (size_t)voxel_id[k];
            ijk[0] = (int32_t)(k % o->grid[0]);
            ijk[1] = (int32_t)(k / o->grid[0] % o->grid[1]);
            ijk[2] = (int32_t)(k / ((int64_t)o->grid[0] * o->grid[1]));
        }
    }
    if (st == CLPK_SUCCESS) { /* signal = M w_true + noise */
        const int nt = grad.n;
        for (int64_t k = 0; k < d->n_coeffs; k++) {
            double s = d->phi[k] * w[d->fibers[k]];
            if (s == 0.0) continue;
            double *y = d->signal + (size_t)d->voxels[k] * nt;
            const double *D = d->dictionary + (size_t)d->atoms[k] * nt;
            for (int i = 0; i < nt; i++) y[i] += s * D[i];
        }
        if (o->snr > 0) {
            double ss = 0;
            size_t n = (size_t)d->n_voxels * nt;
            for (size_t i = 0; i < n; i++) ss += d->signal[i] * d->signal[i];
            double sigma = sqrt(ss / (double)n) / o->snr;
            for (size_t i = 0; i < n; i++) d->signal[i] += sigma * rng_normal(&rng);
        }
        st = clpk_life_dataset_validate(d, err);
    }
    free(bundles);
    free(voxel_id);
    free(s0);
    life_orientations_free(&orient);
    life_gradients_free(&grad);
    if (st != CLPK_SUCCESS) {
        free(w);
        clpk_life_dataset_free(d);
        return st;
    }
    if (w_true) *w_true = w;
    else free(w);
    return CLPK_SUCCESS;
}
