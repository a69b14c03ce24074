/* Variants derived from one conversion of their block layout (lib/spmv/spmv_images.c) are byte for byte the images a
 * fresh conversion makes: every column coding (int, short, delta) and flag width (8, 16, 32) derived from a 32-bit
 * conversion, over block shapes, BCCOO+ slices, both transposes, interleave and value vectors, on seeded random
 * matrices; verify's kept conversions (spmv_images) give the same images and are freed after their last plan. */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <stdlib.h>
#include <string.h>

typedef struct layout {
    int format, h, w, slices, tile, online, interleave, vload;
} layout;

static spmv_config config_of(const layout *l, int col, int flag_bits) {
    spmv_config c = {.format = l->format,
                     .block_h = l->h,
                     .block_w = l->w,
                     .flag_bits = flag_bits,
                     .col = col,
                     .col_bits = col == SPMV_COL_INT ? 32 : 16,
                     .col_delta = col == SPMV_COL_DELTA,
                     .tile = l->tile,
                     .wg = 32,
                     .strategy = 1,
                     .cache = 1,
                     .sync_adjacent = 1,
                     .slices = l->format == SPMV_BCCOO_PLUS ? l->slices : 1,
                     .csr_vec = 1,
                     .online = l->online,
                     .interleave = l->interleave,
                     .vload = l->vload,
                     .prefetch = 1};
    return c;
}

static const int cols_kinds[] = {SPMV_COL_INT, SPMV_COL_SHORT, SPMV_COL_DELTA};
static const int flag_widths[] = {8, 16, 32};

/* Every coding and flag width derived from a 32-bit conversion of each base flag width, against a fresh conversion;
 * col=short where the block columns do not fit 16 bits fails as the conversion fails. */
static void derive_all(const char *label, const clpk_csr *A, const layout *l, clpk_precision p) {
    clpk_error err = {0};
    for (int bf = 0; bf < 3; bf += 2) {
        spmv_config base_cfg = config_of(l, SPMV_COL_INT, flag_widths[bf]);
        spmv_bccoo base;
        if (!CHECK(spmv_bccoo_build(A, &base_cfg, p, &base, &err) == CLPK_SUCCESS, "%s: %s", label, err.message))
            return;
        for (int c = 0; c < 3; ++c)
            for (int f = 0; f < 3; ++f) {
                spmv_config cfg = config_of(l, cols_kinds[c], flag_widths[f]);
                spmv_bccoo fresh;
                spmv_bccoo_view view;
                clpk_status fs = spmv_bccoo_build(A, &cfg, p, &fresh, &err);
                clpk_status ds = spmv_bccoo_derive(A, &base, &base_cfg, &cfg, p, &view, &err);
                if (CHECK(fs == ds, "%s: derive %d, convert %d (block %dx%d col %d flags %d)", label, (int)ds, (int)fs,
                          l->h, l->w, cols_kinds[c], flag_widths[f]) &&
                    fs == CLPK_SUCCESS)
                    CHECK(spmv_util_same_image(&fresh, &view.image),
                          "%s: derived image differs (format %d block %dx%d slices %d tile %d online %d interleave %d "
                          "vload %d col %d flags %d from flags %d, %s)",
                          label, l->format, l->h, l->w, cfg.slices, l->tile, l->online, l->interleave, l->vload,
                          cols_kinds[c], flag_widths[f], flag_widths[bf], clpk_precision_name(p));
                if (fs == CLPK_SUCCESS) spmv_bccoo_free(&fresh);
                if (ds == CLPK_SUCCESS) spmv_images_done(NULL, &cfg, &view);
            }
        spmv_bccoo_free(&base);
    }
    /* a base of another layout or with narrow columns is refused */
    spmv_config narrow = config_of(l, SPMV_COL_SHORT, 32), other = config_of(l, SPMV_COL_INT, 32);
    other.tile += 1;
    spmv_bccoo base;
    spmv_bccoo_view view;
    spmv_config base_cfg = config_of(l, SPMV_COL_INT, 32);
    if (CHECK(spmv_bccoo_build(A, &base_cfg, p, &base, &err) == CLPK_SUCCESS, "%s: %s", label, err.message)) {
        CHECK(spmv_bccoo_derive(A, &base, &narrow, &base_cfg, p, &view, &err) == CLPK_ERROR_INVALID_ARGUMENT,
              "%s: a 16-bit base accepted", label);
        CHECK(spmv_bccoo_derive(A, &base, &base_cfg, &other, p, &view, &err) == CLPK_ERROR_INVALID_ARGUMENT,
              "%s: another tile accepted", label);
        spmv_bccoo_free(&base);
    }
}

/* verify's path: three plans of one layout and one of another announced; the first of the layout converts, the
 * others derive, the lone layout converts as it is, and nothing is kept after the last plan of each. */
static void images_path(const clpk_csr *A, clpk_precision p) {
    static const layout l = {SPMV_BCCOO, 3, 2, 1, 16, 0, 0, 0}, lone = {SPMV_BCCOO, 1, 1, 1, 16, 0, 0, 0};
    spmv_config cfgs[4] = {config_of(&l, SPMV_COL_DELTA, 32), config_of(&l, SPMV_COL_INT, 32),
                           config_of(&lone, SPMV_COL_INT, 32), config_of(&l, SPMV_COL_SHORT, 8)};
    const int derived[4] = {1, 1, 0, 1};
    spmv_images im;
    spmv_images_init(&im, p);
    for (int i = 0; i < 4; ++i)
        spmv_images_expect(&im, &cfgs[i]);
    CHECK(im.count == 2, "layouts %d, expected 2", im.count);
    clpk_error err = {0};
    for (int i = 0; i < 4; ++i) {
        spmv_bccoo_view view;
        spmv_bccoo fresh;
        if (!CHECK(spmv_images_get(&im, A, &cfgs[i], p, &view, &err) == CLPK_SUCCESS, "plan %d: %s", i, err.message))
            continue;
        CHECK(view.derived == derived[i], "plan %d derived %d, expected %d", i, view.derived, derived[i]);
        if (CHECK(spmv_bccoo_build(A, &cfgs[i], p, &fresh, &err) == CLPK_SUCCESS, "%s", err.message)) {
            CHECK(spmv_util_same_image(&fresh, &view.image), "plan %d: kept conversion's image differs", i);
            spmv_bccoo_free(&fresh);
        }
        spmv_images_done(&im, &cfgs[i], &view);
    }
    CHECK(!im.at[0].built && !im.at[1].built, "a conversion kept after its layout's last plan");
    spmv_images_free(&im);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_csr mats[3];
    const char *labels[3] = {"random", "powerlaw", "wide"};
    clpk_error err = {0};
    int ok = clpk_spmv_generate("random:6007:50021:11", check_rand(&rng), &mats[0], &err) == CLPK_SUCCESS &&
             clpk_spmv_generate("powerlaw:15000", check_rand(&rng), &mats[1], &err) == CLPK_SUCCESS &&
             clpk_spmv_generate("random:3001:300007:7", check_rand(&rng), &mats[2], &err) == CLPK_SUCCESS;
    if (!CHECK(ok, "matrices: %s", err.message)) return check_summary();

    static const layout layouts[] = {
        {SPMV_BCCOO, 1, 1, 1, 16, 0, 0, 0},      {SPMV_BCCOO, 3, 2, 1, 32, 0, 1, 0},
        {SPMV_BCCOO, 2, 2, 1, 12, 1, 0, 1},      {SPMV_BCCOO, 4, 1, 1, 40, 0, 1, 1},
        {SPMV_BCCOO, 3, 4, 1, 8, 1, 1, 0},       {SPMV_BCCOO_PLUS, 1, 2, 4, 16, 0, 0, 1},
        {SPMV_BCCOO_PLUS, 2, 4, 3, 24, 1, 1, 0},
    };
    int n = (int)(sizeof layouts / sizeof layouts[0]);
    for (int m = 0; m < 3; ++m)
        for (int i = 0; i < n; ++i)
            derive_all(labels[m], &mats[m], &layouts[i], (m + i) % 2 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32);
    images_path(&mats[0], CLPK_PRECISION_F64);
    for (int m = 0; m < 3; ++m)
        spmv_util_free(&mats[m]);
    return check_summary();
}
