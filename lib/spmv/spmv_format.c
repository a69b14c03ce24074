/* BCCOO / BCCOO+ host format: block counting, conversion from CSR, exact footprint, features for the profile.
 * Counting, filling and column compression run on every online core: each pass is split into parts (ranges of
 * block rows balanced by entries, or ranges of work-items) that write disjoint places, and the offsets between
 * parts come from sequential prefix sums, so the image is byte for byte the one a single thread builds. */
#include "spmv_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

clpk_status spmv_csr_validate(const clpk_csr *A, clpk_error *err) {
    if (!A) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: NULL matrix");
    if (A->rows < 0 || A->cols < 0 || A->nnz < 0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: negative matrix size");
    if (A->nnz > UINT32_MAX - 1)
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "spmv: %lld entries exceed the 32-bit index range",
                              (long long)A->nnz);
    if (!A->row_ptr || (A->nnz > 0 && (!A->col || !A->val)))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: matrix arrays missing");
    if (A->row_ptr[0] != 0 || A->row_ptr[A->rows] != A->nnz)
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "spmv: row pointers do not span 0..nnz");
    for (int32_t r = 0; r < A->rows; ++r) {
        int64_t b = A->row_ptr[r], e = A->row_ptr[r + 1];
        if (e < b || e > A->nnz)
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "spmv: row pointer of row %d decreases", (int)r);
        int32_t prev = -1;
        for (int64_t k = b; k < e; ++k) {
            int32_t c = A->col[k];
            if (c < 0 || c >= A->cols)
                return core_error_set(err, CLPK_ERROR_INVALID_DATA, "spmv: column %d out of range in row %d", (int)c,
                                      (int)r);
            if (c <= prev)
                return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                      "spmv: columns of row %d not sorted or duplicated (use clpk_coo_to_csr)", (int)r);
            if (!isfinite(A->val[k]))
                return core_error_set(err, CLPK_ERROR_INVALID_DATA, "spmv: non-finite value at row %d column %d",
                                      (int)r, (int)c);
            prev = c;
        }
    }
    return CLPK_SUCCESS;
}

/* log2 of a power of two */
static int log2_of(int v) {
    int n = 0;
    while ((1 << n) < v)
        ++n;
    return n;
}

/* Geometry shared by counting and building. */
typedef struct geometry {
    int bh, bw, s;
    int bw_shift;    /* block_w = 1 << bw_shift: the merge's hot loop shifts instead of dividing */
    int64_t br;      /* block rows per slice */
    int64_t bc;      /* block columns */
    int64_t slice_w; /* block columns per slice */
} geometry;

static geometry geometry_of(const clpk_csr *A, const spmv_config *cfg) {
    geometry g;
    g.bh = cfg->block_h;
    g.bw = cfg->block_w;
    g.bw_shift = log2_of(g.bw);
    g.s = cfg->format == SPMV_BCCOO_PLUS ? cfg->slices : 1;
    g.br = ((int64_t)A->rows + g.bh - 1) / g.bh;
    g.bc = ((int64_t)A->cols + g.bw - 1) / g.bw;
    g.slice_w = (g.bc + g.s - 1) / g.s;
    if (g.slice_w < 1) g.slice_w = 1;
    return g;
}

/* The slice of block column c. */
static inline int64_t slice_of(const geometry *g, int64_t c) { return g->s == 1 ? 0 : c / g->slice_w; }

/* Parts of a pass: at most one per online core, and none below 64 K entries (a thread costs tens of microseconds). */
enum { MAX_PARTS = CORE_MAX_PARTS, MIN_ENTRIES_PER_PART = 1 << 16 };

int spmv_bccoo_parts(int64_t entries) { return core_parallel_parts(entries, MIN_ENTRIES_PER_PART); }

/* Entries before block row r plus r: the work up to r, so that empty rows count too. */
static int64_t work_before(const clpk_csr *A, const geometry *g, int64_t r) {
    int64_t row = r * g->bh;
    return A->row_ptr[row < A->rows ? row : A->rows] + r;
}

/* bounds[0..n]: n ranges of block rows of about equal work (bounds[0] = 0, bounds[n] = br). */
static void split_block_rows(const clpk_csr *A, const geometry *g, int n, int64_t *bounds) {
    int64_t total = work_before(A, g, g->br);
    bounds[0] = 0;
    for (int i = 1; i < n; ++i) {
        int64_t target = (int64_t)((double)total * i / n), lo = bounds[i - 1], hi = g->br;
        while (lo < hi) { /* first block row with work_before >= target */
            int64_t mid = lo + (hi - lo) / 2;
            if (work_before(A, g, mid) < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        bounds[i] = lo;
    }
    bounds[n] = g->br;
}

/* Visits the distinct block columns of block row r in increasing order: calls emit(user, block_col, p) where p[i]
 * is the first entry of row r*bh+i in that block column (entries up to the next block column belong to it). */
typedef struct merge_state {
    int64_t p[4], e[4];
} merge_state;

static inline void merge_init(const clpk_csr *A, const geometry *g, int64_t r, merge_state *m) {
    for (int i = 0; i < g->bh; ++i) {
        int64_t row = r * g->bh + i;
        if (row < A->rows) {
            m->p[i] = A->row_ptr[row];
            m->e[i] = A->row_ptr[row + 1];
        } else {
            m->p[i] = m->e[i] = 0;
        }
    }
}

/* Next block column of the merge (-1 when done); advances p[] past it, recording where each row's run began. */
static inline int64_t merge_next(const clpk_csr *A, const geometry *g, merge_state *m, int64_t begin[4]) {
    int64_t best = -1;
    for (int i = 0; i < g->bh; ++i)
        if (m->p[i] < m->e[i]) {
            int64_t c = A->col[m->p[i]] >> g->bw_shift;
            if (best < 0 || c < best) best = c;
        }
    if (best < 0) return -1;
    for (int i = 0; i < g->bh; ++i) {
        begin[i] = m->p[i];
        while (m->p[i] < m->e[i] && A->col[m->p[i]] >> g->bw_shift == best)
            m->p[i]++;
    }
    return best;
}

/* One part of the counting pass: counts[k*br + r] = real blocks of slice k in block row r for r in [r0, r1), and
 * the part's real and stored (real + dummy) blocks. */
typedef struct count_part {
    const clpk_csr *A;
    const geometry *g;
    int64_t r0, r1;
    int64_t *counts;
    int64_t real, total;
} count_part;

static void *count_range(void *arg) {
    count_part *p = arg;
    const clpk_csr *A = p->A;
    const geometry *g = p->g;
    if (g->bh == 1 && g->bw == 1 && g->s == 1) {
        for (int64_t r = p->r0; r < p->r1; ++r)
            p->counts[r] = A->row_ptr[r + 1] - A->row_ptr[r];
    } else {
        int64_t begin[4];
        for (int64_t r = p->r0; r < p->r1; ++r) {
            merge_state m;
            merge_init(A, g, r, &m);
            int64_t c;
            while ((c = merge_next(A, g, &m, begin)) >= 0)
                p->counts[slice_of(g, c) * g->br + r]++;
        }
    }
    for (int64_t k = 0; k < g->s; ++k)
        for (int64_t r = p->r0; r < p->r1; ++r) {
            int64_t n = p->counts[k * g->br + r];
            p->real += n;
            p->total += n ? n : 1; /* an empty block row gets one all-zero dummy block */
        }
    return NULL;
}

static clpk_status count_all(const clpk_csr *A, const geometry *g, int parts, int64_t **counts_out, int64_t *real,
                             int64_t *total, clpk_error *err) {
    size_t n = (size_t)(g->s * g->br);
    int64_t *counts = calloc(n ? n : 1, sizeof *counts);
    if (!counts) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv: out of memory counting blocks");
    if (parts > g->br) parts = g->br > 0 ? (int)g->br : 1;
    int64_t bounds[MAX_PARTS + 1];
    split_block_rows(A, g, parts, bounds);
    count_part cp[MAX_PARTS];
    for (int i = 0; i < parts; ++i)
        cp[i] = (count_part){A, g, bounds[i], bounds[i + 1], counts, 0, 0};
    core_parallel_run(count_range, cp, sizeof cp[0], parts);
    int64_t re = 0, to = 0;
    for (int i = 0; i < parts; ++i) {
        re += cp[i].real;
        to += cp[i].total;
    }
    *real = re;
    *total = to;
    if (counts_out)
        *counts_out = counts;
    else
        free(counts);
    return CLPK_SUCCESS;
}

clpk_status spmv_bccoo_count(const clpk_csr *A, const spmv_config *cfg, int64_t *blocks, clpk_error *err) {
    geometry g = geometry_of(A, cfg);
    int64_t real = 0;
    return count_all(A, &g, spmv_bccoo_parts(A->nnz), NULL, &real, blocks, err);
}

int spmv_bccoo_flag_words(const spmv_config *cfg) { return (cfg->tile + cfg->flag_bits - 1) / cfg->flag_bits; }

clpk_status spmv_bccoo_check_short(const clpk_csr *A, const spmv_config *cfg, clpk_error *err) {
    int64_t bc = ((int64_t)A->cols + cfg->block_w - 1) / cfg->block_w;
    if (cfg->col_bits == 16 && !cfg->col_delta && bc > 65535)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "spmv: col=short needs fewer than 65536 block columns (this matrix has %lld)",
                              (long long)bc);
    return CLPK_SUCCESS;
}

static void sizes_of(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, int64_t blocks,
                     spmv_bccoo *b) {
    geometry g = geometry_of(A, cfg);
    int64_t per_group = (int64_t)cfg->tile * cfg->wg;
    b->block_rows = g.br;
    b->blocks = blocks;
    b->groups = (blocks + per_group - 1) / per_group;
    if (b->groups < 1) b->groups = 1;
    b->nt = b->groups * cfg->wg;
    b->value_bytes = (size_t)b->nt * cfg->tile * cfg->block_w * cfg->block_h * clpk_precision_size(precision);
    b->flag_bytes = (size_t)b->nt * spmv_bccoo_flag_words(cfg) * (cfg->flag_bits / 8);
    b->col_bytes = (size_t)b->nt * cfg->tile * (cfg->col_bits / 8);
    b->entry_bytes = (size_t)(b->nt + 1) * sizeof(uint32_t);
}

uint64_t spmv_carry_bytes(int64_t groups, int block_h, clpk_precision precision) {
    return (uint64_t)groups * (uint64_t)block_h * (clpk_precision_size(precision) / 4) * 8;
}

uint64_t spmv_bccoo_footprint(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, int64_t blocks,
                              int64_t n_esc) {
    spmv_bccoo b;
    sizes_of(A, cfg, precision, blocks, &b);
    size_t vs = clpk_precision_size(precision);
    uint64_t bytes = b.value_bytes + b.flag_bytes + b.col_bytes + b.entry_bytes;
    bytes += 4 * sizeof(uint32_t); /* sync words */
    if (cfg->col_delta) bytes += (uint64_t)(2 * b.nt + 1 + (n_esc ? n_esc : 1)) * sizeof(uint32_t);
    bytes += (uint64_t)b.groups * sizeof(uint32_t); /* stop flags */
    bytes += spmv_carry_bytes(b.groups, cfg->block_h, precision);
    if (cfg->format == SPMV_BCCOO_PLUS)
        bytes += (uint64_t)cfg->slices * b.block_rows * cfg->block_h * vs; /* partial rows of the slices */
    return bytes;
}

void spmv_bccoo_free(spmv_bccoo *b) {
    if (!b) return;
    free(b->values);
    free(b->flags);
    free(b->cols);
    free(b->entries);
    free(b->col_base);
    free(b->esc_start);
    free(b->esc);
    memset(b, 0, sizeof *b);
}

/* Writers of the three arrays at a block's storage position. */
typedef struct writer {
    const spmv_config *cfg;
    int64_t nt, nbp;
    int fw; /* flag words per thread */
    int f64;
    int vec;       /* elements per value vector (spmv_value_vec, a power of two) */
    int vec_shift; /* vec = 1 << vec_shift */
    void *values, *flags, *cols;
} writer;

static inline int64_t position(const writer *w, int64_t b) {
    if (w->cfg->online) return b;
    int64_t t = b / w->cfg->tile, j = b - t * w->cfg->tile;
    return j * w->nt + t;
}

/* Element (i, k) of the block at pos: element e = i*block_w + k of the block lies in vector plane e / vec at lane
 * e % vec, planes of nbp vectors (vec = block_w: one plane per block row). */
static inline void put_value(const writer *w, int i, int64_t pos, int k, double v) {
    int e = i * w->cfg->block_w + k;
    int64_t idx = (((int64_t)(e >> w->vec_shift) * w->nbp + pos) << w->vec_shift) + (e & (w->vec - 1));
    if (w->f64)
        ((double *)w->values)[idx] = v;
    else
        ((float *)w->values)[idx] = (float)v;
}

static inline void put_col(const writer *w, int64_t pos, int64_t c) {
    if (w->cfg->col_bits == 16)
        ((uint16_t *)w->cols)[pos] = (uint16_t)c;
    else
        ((uint32_t *)w->cols)[pos] = (uint32_t)c;
}

/* A 1x1 block (the fast path): its column and value at pos, element types passed as flags the caller hoists. */
static inline void put_entry(const writer *w, int c16, int f64, int64_t pos, int32_t col, double val) {
    if (c16)
        ((uint16_t *)w->cols)[pos] = (uint16_t)col;
    else
        ((uint32_t *)w->cols)[pos] = (uint32_t)col;
    if (f64)
        ((double *)w->values)[pos] = val;
    else
        ((float *)w->values)[pos] = (float)val;
}

/* Clears the flag bit of block b (0 = row stop); bits are packed most significant first. */
static inline void put_stop(const writer *w, int64_t b) {
    int tile = w->cfg->tile, fb = w->cfg->flag_bits;
    int64_t t = b / tile;
    int j = (int)(b - t * tile);
    int word = j / fb, bit = fb - 1 - j % fb;
    int64_t idx = w->cfg->online ? t * w->fw + word : (int64_t)word * w->nt + t;
    if (fb == 8)
        ((uint8_t *)w->flags)[idx] &= (uint8_t) ~(1u << bit);
    else if (fb == 16)
        ((uint16_t *)w->flags)[idx] &= (uint16_t) ~(1u << bit);
    else
        ((uint32_t *)w->flags)[idx] &= ~(1u << bit);
}

static clpk_status build_full(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, int parts,
                              spmv_bccoo *out, clpk_error *err);

/* Which logical block the k-th block (in column order) of a row segment takes. interleave=0: the next one. With
 * interleave=1 the segment's logical blocks are taken step-major: step j of every thread the segment spans, then
 * step j+1. At each step, consecutive threads then hold consecutive block columns, and a warp's x loads fall into
 * one or two cache lines instead of one line per lane (a dense row of 2x2 f32 blocks with tile 16 put lanes 128
 * bytes apart). Blocks stay inside their row, so the segmented sum only adds in another order. */
typedef struct dealer {
    int64_t first, end; /* the segment's logical blocks [first, end) */
    int64_t t0, t1, t, j, tile;
    int spread; /* the segment spans several threads and is interleaved */
} dealer;

static void deal_start(dealer *d, int64_t first, int64_t n, int tile, int interleave) {
    d->first = first;
    d->end = first + n;
    d->tile = tile;
    d->t0 = d->t = first / tile;
    d->t1 = (first + n - 1) / tile;
    d->j = 0;
    d->spread = interleave && d->t1 > d->t0;
}

/* Called once per block of the segment (n times). */
static inline int64_t deal_next(dealer *d) {
    if (!d->spread) return d->first + d->j++;
    for (;;) {
        int64_t b = d->t * d->tile + d->j;
        if (++d->t > d->t1) {
            d->t = d->t0;
            ++d->j;
        }
        if (b >= d->first && b < d->end) return b;
    }
}

/* col=delta: 16-bit deltas within each thread's segment in place of the full 32-bit column array. The first block
 * of a thread has delta 0 from col_base[t]; a delta outside [-32767, 32767] is stored as 0x8000 and its column goes
 * to esc[esc_start[t] + k] (k-th escape of the thread), so the kernel needs no search. Parts are ranges of threads:
 * each counts its escapes, a prefix sum gives each its first escape, then each writes its range. */
typedef struct delta_part {
    const spmv_config *cfg;
    spmv_bccoo *b;
    const uint32_t *full;
    uint16_t *delta;
    int64_t t0, t1;
    int64_t n_esc; /* escapes in [t0, t1) */
    int64_t first; /* escapes before t0 */
    int fill;      /* 0: count escapes, 1: write */
} delta_part;

static void *delta_range(void *arg) {
    delta_part *p = arg;
    const int64_t nt = p->b->nt, tile = p->cfg->tile;
    int64_t n_esc = p->first;
    for (int64_t t = p->t0; t < p->t1; ++t) {
        if (p->fill) p->b->esc_start[t] = (uint32_t)n_esc;
        int64_t prev = 0;
        for (int64_t j = 0; j < tile; ++j) {
            int64_t pos = p->cfg->online ? t * tile + j : j * nt + t;
            int64_t c = p->full[pos];
            if (j == 0) prev = c;
            int64_t d = c - prev;
            if (d >= -32767 && d <= 32767) {
                if (p->fill) p->delta[pos] = (uint16_t)(int16_t)d;
            } else {
                if (p->fill) {
                    p->delta[pos] = 0x8000u;
                    p->b->esc[n_esc] = (uint32_t)c;
                }
                ++n_esc;
            }
            if (p->fill && j == 0) p->b->col_base[t] = (uint32_t)c;
            prev = c;
        }
    }
    p->n_esc = n_esc - p->first;
    return NULL;
}

clpk_status spmv_bccoo_compress_columns(const spmv_config *cfg, int parts, const uint32_t *full, spmv_bccoo *b,
                                        clpk_error *err) {
    int64_t nt = b->nt, tile = cfg->tile;
    b->col_base = malloc((size_t)nt * sizeof *b->col_base);
    b->esc_start = malloc((size_t)(nt + 1) * sizeof *b->esc_start);
    uint16_t *delta = malloc((size_t)(nt * tile) * sizeof *delta);
    if (!b->col_base || !b->esc_start || !delta) {
        free(delta);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv: out of memory compressing columns");
    }
    if (parts > nt) parts = nt > 0 ? (int)nt : 1;
    delta_part dp[MAX_PARTS];
    for (int i = 0; i < parts; ++i)
        dp[i] = (delta_part){cfg, b, full, delta, nt * i / parts, nt * (i + 1) / parts, 0, 0, 0};
    core_parallel_run(delta_range, dp, sizeof dp[0], parts);
    int64_t n_esc = 0;
    for (int i = 0; i < parts; ++i) {
        dp[i].first = n_esc;
        dp[i].fill = 1;
        n_esc += dp[i].n_esc;
    }
    b->esc = malloc((size_t)(n_esc ? n_esc : 1) * sizeof *b->esc);
    if (!b->esc) {
        free(delta);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv: out of memory compressing columns");
    }
    core_parallel_run(delta_range, dp, sizeof dp[0], parts);
    b->esc_start[nt] = (uint32_t)n_esc;
    b->n_esc = n_esc;
    b->cols = delta;
    b->col_bytes = (size_t)(nt * tile) * sizeof *delta;
    return CLPK_SUCCESS;
}

clpk_status spmv_bccoo_build_parts(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, int parts,
                                   spmv_bccoo *out, clpk_error *err) {
    if (parts <= 0) parts = spmv_bccoo_parts(A->nnz);
    if (parts > MAX_PARTS) parts = MAX_PARTS;
    if (!cfg->col_delta) return build_full(A, cfg, precision, parts, out, err);
    spmv_config wide = *cfg;
    wide.col_delta = 0;
    wide.col_bits = 32;
    CLPK_TRY(build_full(A, &wide, precision, parts, out, err));
    uint32_t *full = out->cols;
    out->cols = NULL;
    clpk_status st = spmv_bccoo_compress_columns(cfg, parts, full, out, err);
    free(full);
    if (st != CLPK_SUCCESS) spmv_bccoo_free(out);
    return st;
}

clpk_status spmv_bccoo_build(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, spmv_bccoo *out,
                             clpk_error *err) {
    return spmv_bccoo_build_parts(A, cfg, precision, 0, out, err);
}

/* One part of the fill pass: the blocks of block rows [r0, r1), from their stacked positions `cursor`. */
typedef struct fill_part {
    const clpk_csr *A;
    const geometry *g;
    const writer *w;
    const int64_t *counts, *cursor;
    int64_t r0, r1;
} fill_part;

/* 1x1 blocks, one slice: one block per entry, in order; the storage position advances without divisions and the
 * element types are fixed per loop (this path must convert at >= 50 M entries/s on one core). */
static void *fill_entries(void *arg) {
    const fill_part *p = arg;
    const clpk_csr *A = p->A;
    const writer *w = p->w;
    const spmv_config *cfg = w->cfg;
    const int64_t tile = cfg->tile, nt = w->nt;
    const int online = cfg->online, f64 = w->f64, c16 = cfg->col_bits == 16;
    if (p->r0 >= p->r1) return NULL;
    int64_t t = p->cursor[p->r0] / tile, j = p->cursor[p->r0] - t * tile;
    for (int64_t r = p->r0; r < p->r1; ++r) {
        int64_t k = A->row_ptr[r], e = A->row_ptr[r + 1];
        if (k == e) e = k + 1;                       /* the dummy block (already written) takes one slot */
        if (cfg->interleave && j + (e - k) > tile) { /* the row spans threads: dealt step-major */
            dealer d;
            deal_start(&d, t * tile + j, e - k, cfg->tile, 1);
            for (; k < e; ++k)
                put_entry(w, c16, f64, position(w, deal_next(&d)), A->col[k], A->val[k]);
            t = d.end / tile;
            j = d.end - t * tile;
            continue;
        }
        for (; k < e; ++k) {
            int64_t pos = online ? t * tile + j : j * nt + t;
            if (k < A->row_ptr[r + 1]) put_entry(w, c16, f64, pos, A->col[k], A->val[k]);
            if (++j == tile) {
                j = 0;
                ++t;
            }
        }
    }
    return NULL;
}

/* Any shape or slicing: the block columns of each block row merged in order. */
static void *fill_blocks(void *arg) {
    const fill_part *p = arg;
    const clpk_csr *A = p->A;
    const geometry *g = p->g;
    const writer *w = p->w;
    int64_t begin[4];
    dealer d = {0};
    size_t dealing = (size_t)-1; /* the (slice, block row) being dealt: each one's blocks come in one run */
    for (int64_t r = p->r0; r < p->r1; ++r) {
        merge_state m;
        merge_init(A, g, r, &m);
        int64_t c;
        while ((c = merge_next(A, g, &m, begin)) >= 0) {
            size_t gi = (size_t)(slice_of(g, c) * g->br + r);
            if (gi != dealing) {
                deal_start(&d, p->cursor[gi], p->counts[gi], w->cfg->tile, w->cfg->interleave);
                dealing = gi;
            }
            int64_t pos = position(w, deal_next(&d));
            put_col(w, pos, c);
            for (int i = 0; i < g->bh; ++i)
                for (int64_t k = begin[i]; k < m.p[i]; ++k)
                    put_value(w, i, pos, (int)(A->col[k] - c * g->bw), A->val[k]);
        }
    }
    return NULL;
}

static clpk_status build_full(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, int parts,
                              spmv_bccoo *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    geometry g = geometry_of(A, cfg);
    int64_t *counts = NULL, real = 0, total = 0;
    CLPK_TRY(count_all(A, &g, parts, &counts, &real, &total, err));
    sizes_of(A, cfg, precision, total, out);
    int64_t nbp = out->nt * cfg->tile;
    if ((uint64_t)nbp * cfg->block_w * cfg->block_h >= UINT32_MAX || out->nt + 1 >= UINT32_MAX ||
        (uint64_t)g.s * g.br * g.bh >= UINT32_MAX) {
        free(counts);
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "spmv: BCCOO of %lld blocks exceeds 32-bit indexing",
                              (long long)total);
    }
    clpk_status short_ok = spmv_bccoo_check_short(A, cfg, err);
    if (short_ok != CLPK_SUCCESS) {
        free(counts);
        return short_ok;
    }
    out->values = calloc(1, out->value_bytes ? out->value_bytes : 1);
    out->flags = malloc(out->flag_bytes ? out->flag_bytes : 1);
    out->cols = calloc(1, out->col_bytes ? out->col_bytes : 1);
    out->entries = malloc(out->entry_bytes);
    size_t ngr = (size_t)(g.s * g.br);
    int64_t *cursor = malloc((ngr ? ngr : 1) * sizeof *cursor);
    if (!out->values || !out->flags || !out->cols || !out->entries || !cursor) {
        free(counts);
        free(cursor);
        spmv_bccoo_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv: out of memory converting to BCCOO");
    }
    memset(out->flags, 0xff, out->flag_bytes); /* padding bits are 1 (no stop) */
    int vec = spmv_value_vec(cfg, precision);
    writer w = {.cfg = cfg,
                .nt = out->nt,
                .nbp = nbp,
                .fw = spmv_bccoo_flag_words(cfg),
                .f64 = precision == CLPK_PRECISION_F64,
                .vec = vec,
                .vec_shift = log2_of(vec),
                .values = out->values,
                .flags = out->flags,
                .cols = out->cols};

    /* Stacked order: slice-major, then block row. cursor = first block of each (slice, block row). */
    int64_t at = 0;
    for (size_t i = 0; i < ngr; ++i) {
        cursor[i] = at;
        at += counts[i] ? counts[i] : 1;
    }
    /* Result entries: block rows (stops) before each thread's first block. The stop of group i is its last block. */
    {
        size_t gi = 0;
        int64_t stops = 0;
        for (int64_t t = 0; t <= out->nt; ++t) {
            int64_t first = t * cfg->tile;
            while (gi < ngr && cursor[gi] + (counts[gi] ? counts[gi] : 1) - 1 < first) {
                ++stops;
                ++gi;
            }
            out->entries[t] = (uint32_t)stops;
        }
    }
    /* Dummy blocks and stop flags. */
    for (size_t i = 0; i < ngr; ++i) {
        int64_t n = counts[i] ? counts[i] : 1;
        if (!counts[i]) {
            int64_t k = (int64_t)i / (g.br ? g.br : 1);
            int64_t c = k * g.slice_w;
            if (c >= g.bc) c = g.bc > 0 ? g.bc - 1 : 0;
            put_col(&w, position(&w, cursor[i]), c);
        }
        put_stop(&w, cursor[i] + n - 1);
    }
    /* Blocks: parts of block rows balanced by entries (each part's blocks lie at its own positions). */
    if (parts > g.br) parts = g.br > 0 ? (int)g.br : 1;
    int64_t bounds[MAX_PARTS + 1];
    split_block_rows(A, &g, parts, bounds);
    fill_part fp[MAX_PARTS];
    for (int i = 0; i < parts; ++i)
        fp[i] = (fill_part){A, &g, &w, counts, cursor, bounds[i], bounds[i + 1]};
    core_parallel_run(g.bh == 1 && g.bw == 1 && g.s == 1 ? fill_entries : fill_blocks, fp, sizeof fp[0], parts);
    free(cursor);
    free(counts);
    return CLPK_SUCCESS;
}

clpk_status spmv_features(const clpk_csr *A, clpk_precision precision, core_params *f, clpk_error *err) {
    double mean = A->rows ? (double)A->nnz / A->rows : 0, var = 0;
    int64_t maxrow = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        int64_t n = A->row_ptr[r + 1] - A->row_ptr[r];
        var += (n - mean) * (n - mean);
        if (n > maxrow) maxrow = n;
    }
    core_params_clear(f);
    core_params_set(f, "precision", clpk_precision_name(precision));
    core_params_set_int(f, "rows", A->rows);
    core_params_set_int(f, "cols", A->cols);
    core_params_set_int(f, "nnz", A->nnz);
    core_params_set_num(f, "nnz_row_mean", mean);
    core_params_set_num(f, "nnz_row_std", A->rows ? sqrt(var / A->rows) : 0);
    core_params_set_int(f, "max_row", maxrow);
    static const int shapes[][2] = {{2, 2}, {4, 4}};
    for (int s = 0; s < 2; ++s) {
        spmv_config cfg = {0};
        cfg.format = SPMV_BCCOO;
        cfg.block_h = shapes[s][0];
        cfg.block_w = shapes[s][1];
        geometry g = geometry_of(A, &cfg);
        int64_t real = 0, total = 0;
        CLPK_TRY(count_all(A, &g, spmv_bccoo_parts(A->nnz), NULL, &real, &total, err));
        char key[32];
        snprintf(key, sizeof key, "fill_%dx%d", shapes[s][0], shapes[s][1]);
        core_params_set_num(f, key, real ? (double)A->nnz / ((double)real * g.bh * g.bw) : 1.0);
    }
    return CLPK_SUCCESS;
}
