/* Variants of one BCCOO block layout from one conversion (issue #22 item 3). The layout (block shape, slices, tile,
 * wg, transpose, interleave, value vectors) fixes where every block lies, so values, result entries and the stop
 * positions are the same for every column coding and flag width: verify converts a layout once, with 32-bit
 * columns, and derives each variant's columns (narrowed or delta-coded) and flag words from it. */
#include "spmv_internal.h"

#include <stdlib.h>
#include <string.h>

int spmv_bccoo_same_layout(const spmv_config *a, const spmv_config *b, clpk_precision precision) {
    return a->format == b->format && a->block_h == b->block_h && a->block_w == b->block_w &&
           (a->format != SPMV_BCCOO_PLUS || a->slices == b->slices) && a->tile == b->tile && a->wg == b->wg &&
           a->online == b->online && a->interleave == b->interleave &&
           spmv_value_vec(a, precision) == spmv_value_vec(b, precision);
}

/* Index of the flag word holding block j of work-item t, and the bit (packed most significant first). */
static int64_t flag_index(const spmv_config *cfg, int fw, int64_t nt, int64_t t, int j, int *bit) {
    int fb = cfg->flag_bits, word = j / fb;
    *bit = fb - 1 - j % fb;
    return cfg->online ? t * fw + word : (int64_t)word * nt + t;
}

static uint32_t flag_word(const void *flags, int fb, int64_t i) {
    if (fb == 8) return ((const uint8_t *)flags)[i];
    if (fb == 16) return ((const uint16_t *)flags)[i];
    return ((const uint32_t *)flags)[i];
}

/* The stop bits of `from`'s flag words in `to`'s width; padding bits are 1 as the conversion leaves them. */
static void repack_flags(const spmv_config *from, const void *src, const spmv_config *to, void *dst, int64_t nt,
                         size_t dst_bytes) {
    int fw_from = spmv_bccoo_flag_words(from), fw_to = spmv_bccoo_flag_words(to), fb = to->flag_bits;
    memset(dst, 0xff, dst_bytes);
    for (int64_t t = 0; t < nt; ++t)
        for (int j = 0; j < to->tile; ++j) {
            int bit_from, bit;
            int64_t i_from = flag_index(from, fw_from, nt, t, j, &bit_from);
            if (flag_word(src, from->flag_bits, i_from) >> bit_from & 1) continue;
            int64_t i = flag_index(to, fw_to, nt, t, j, &bit);
            if (fb == 8)
                ((uint8_t *)dst)[i] &= (uint8_t) ~(1u << bit);
            else if (fb == 16)
                ((uint16_t *)dst)[i] &= (uint16_t) ~(1u << bit);
            else
                ((uint32_t *)dst)[i] &= ~(1u << bit);
        }
}

clpk_status spmv_bccoo_derive(const clpk_csr *A, const spmv_bccoo *base, const spmv_config *base_cfg,
                              const spmv_config *cfg, clpk_precision precision, spmv_bccoo_view *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    if (base_cfg->col_bits != 32 || base_cfg->col_delta || !spmv_bccoo_same_layout(base_cfg, cfg, precision))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "spmv: a variant derives only from a conversion of its layout with 32-bit columns");
    CLPK_TRY(spmv_bccoo_check_short(A, cfg, err));
    spmv_bccoo *im = &out->image, *own = &out->own;
    *im = *base;
    im->col_base = im->esc_start = im->esc = NULL;
    im->n_esc = 0;
    int64_t slots = base->nt * cfg->tile;
    if (cfg->flag_bits != base_cfg->flag_bits) {
        im->flag_bytes = (size_t)base->nt * spmv_bccoo_flag_words(cfg) * (cfg->flag_bits / 8);
        own->flags = im->flags = malloc(im->flag_bytes ? im->flag_bytes : 1);
        if (!own->flags) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv: out of memory deriving flags");
        repack_flags(base_cfg, base->flags, cfg, im->flags, base->nt, im->flag_bytes);
    }
    clpk_status st = CLPK_SUCCESS;
    if (cfg->col_delta) {
        st = spmv_bccoo_compress_columns(cfg, spmv_bccoo_parts(A->nnz), base->cols, im, err);
        own->col_base = im->col_base;
        own->esc_start = im->esc_start;
        own->esc = im->esc;
        if (st == CLPK_SUCCESS) own->cols = im->cols;
    } else if (cfg->col_bits == 16) {
        im->col_bytes = (size_t)slots * sizeof(uint16_t);
        uint16_t *narrow = malloc(im->col_bytes ? im->col_bytes : 1);
        if (narrow) {
            const uint32_t *full = base->cols;
            for (int64_t i = 0; i < slots; ++i)
                narrow[i] = (uint16_t)full[i];
        } else {
            st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv: out of memory narrowing columns");
        }
        own->cols = im->cols = narrow;
    }
    if (st != CLPK_SUCCESS) {
        spmv_bccoo_free(own);
        memset(out, 0, sizeof *out);
    }
    out->derived = st == CLPK_SUCCESS;
    return st;
}

void spmv_images_init(spmv_images *im, clpk_precision precision) {
    memset(im, 0, sizeof *im);
    im->precision = precision;
}

static int find_layout(const spmv_images *im, const spmv_config *cfg) {
    for (int i = 0; i < im->count; ++i)
        if (spmv_bccoo_same_layout(&im->at[i].layout, cfg, im->precision)) return i;
    return -1;
}

void spmv_images_expect(spmv_images *im, const spmv_config *cfg) {
    if (cfg->format == SPMV_CSR) return;
    int i = find_layout(im, cfg);
    if (i < 0) {
        if (im->count == SPMV_IMAGES_MAX) return;
        i = im->count++;
        im->at[i].layout = *cfg;
    }
    im->at[i].expected++;
}

clpk_status spmv_images_get(spmv_images *im, const clpk_csr *A, const spmv_config *cfg, clpk_precision precision,
                            spmv_bccoo_view *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    int i = im ? find_layout(im, cfg) : -1;
    if (i >= 0 && im->at[i].expected > 0) im->at[i].expected--;
    if (i < 0 || (!im->at[i].built && im->at[i].expected == 0)) { /* the layout's only plan: convert it as it is */
        CLPK_TRY(spmv_bccoo_build(A, cfg, precision, &out->own, err));
        out->image = out->own;
        return CLPK_SUCCESS;
    }
    if (!im->at[i].built) {
        spmv_config wide = *cfg;
        wide.col = SPMV_COL_INT;
        wide.col_bits = 32;
        wide.col_delta = 0;
        CLPK_TRY(spmv_bccoo_build(A, &wide, precision, &im->at[i].base, err));
        im->at[i].layout = wide;
        im->at[i].built = 1;
    }
    return spmv_bccoo_derive(A, &im->at[i].base, &im->at[i].layout, cfg, precision, out, err);
}

void spmv_images_done(spmv_images *im, const spmv_config *cfg, spmv_bccoo_view *view) {
    spmv_bccoo_free(&view->own);
    memset(view, 0, sizeof *view);
    int i = im ? find_layout(im, cfg) : -1;
    if (i >= 0 && im->at[i].built && im->at[i].expected == 0) {
        spmv_bccoo_free(&im->at[i].base);
        im->at[i].built = 0;
    }
}

void spmv_images_free(spmv_images *im) {
    for (int i = 0; i < im->count; ++i)
        if (im->at[i].built) spmv_bccoo_free(&im->at[i].base);
    for (int i = 0; i < 3; ++i)
        if (im->csr[i]) clReleaseMemObject(im->csr[i]);
    spmv_images_init(im, im->precision);
}
