/* Shape checks and the double-precision CPU reference of the cross-correlation family. */
#include "xcorr_reference.h"

#include <limits.h>
#include <string.h>

static const struct {
    clpk_xcorr_pattern pattern;
    const char *name;
} pattern_names[] = {{CLPK_XCORR_ONE_TO_ONE, "one-to-one"},
                     {CLPK_XCORR_ONE_TO_MANY, "one-to-many"},
                     {CLPK_XCORR_N_TO_MN, "n-to-mn"},
                     {CLPK_XCORR_N_TO_M, "n-to-m"}};

clpk_status clpk_xcorr_pattern_parse(const char *text, clpk_xcorr_pattern *out) {
    if (!text || !out) return CLPK_ERROR_INVALID_ARGUMENT;
    char norm[32];
    size_t n = strlen(text);
    if (n >= sizeof norm) return CLPK_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i <= n; ++i)
        norm[i] = text[i] == '_' ? '-' : text[i];
    for (size_t i = 0; i < sizeof pattern_names / sizeof pattern_names[0]; ++i)
        if (strcmp(norm, pattern_names[i].name) == 0) {
            *out = pattern_names[i].pattern;
            return CLPK_SUCCESS;
        }
    return CLPK_ERROR_INVALID_ARGUMENT;
}

const char *clpk_xcorr_pattern_name(clpk_xcorr_pattern pattern) {
    for (size_t i = 0; i < sizeof pattern_names / sizeof pattern_names[0]; ++i)
        if (pattern_names[i].pattern == pattern) return pattern_names[i].name;
    return "unknown";
}

clpk_status xcorr_shape_check(const clpk_xcorr_shape *s, clpk_error *err) {
    if (!s) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: NULL shape");
    if (s->precision != CLPK_PRECISION_F32 && s->precision != CLPK_PRECISION_F64)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: unknown precision %d", (int)s->precision);
    if (s->rows < 1 || s->cols < 1)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: matrix size %dx%d: both must be >= 1", s->rows,
                              s->cols);
    /* Every index inside one output matrix is an int in the kernels. */
    if ((long long)(2 * (long long)s->rows - 1) * (2 * (long long)s->cols - 1) > INT_MAX / 2)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: matrix size %dx%d is too large", s->rows,
                              s->cols);
    if (s->n_left < 1 || s->n_right < 1)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: %d left and %d right matrices: need >= 1 each",
                              s->n_left, s->n_right);
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_ONE:
        if (s->n_left != s->n_right)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                  "xcorr one-to-one: %d left but %d right matrices (must be equal)", s->n_left,
                                  s->n_right);
        break;
    case CLPK_XCORR_ONE_TO_MANY:
        if (s->n_left != 1)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                  "xcorr one-to-many: %d left matrices (must be exactly 1)", s->n_left);
        break;
    case CLPK_XCORR_N_TO_MN:
        if (s->n_right % s->n_left != 0)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                  "xcorr n-to-mn: %d right matrices is not a multiple of %d left matrices", s->n_right,
                                  s->n_left);
        break;
    case CLPK_XCORR_N_TO_M:
        if ((long long)s->n_left * s->n_right > INT_MAX)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "xcorr n-to-m: %d x %d outputs is too many",
                                  s->n_left, s->n_right);
        break;
    default: return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: unknown pattern %d", (int)s->pattern);
    }
    const int full_rows = 2 * s->rows - 1, full_cols = 2 * s->cols - 1;
    if (s->search_rows < 0 || s->search_cols < 0 || s->search_rows > full_rows || s->search_cols > full_cols ||
        (s->search_rows && s->search_rows % 2 == 0) || (s->search_cols && s->search_cols % 2 == 0))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "xcorr: search window %dx%d must be 0 (full) or odd and at most %dx%d", s->search_rows,
                              s->search_cols, full_rows, full_cols);
    return CLPK_SUCCESS;
}

size_t clpk_xcorr_output_count(const clpk_xcorr_shape *shape) {
    if (xcorr_shape_check(shape, NULL) != CLPK_SUCCESS) return 0;
    if (shape->pattern == CLPK_XCORR_N_TO_M) return (size_t)shape->n_left * (size_t)shape->n_right;
    return (size_t)shape->n_right;
}

int clpk_xcorr_output_rows(const clpk_xcorr_shape *shape) {
    if (xcorr_shape_check(shape, NULL) != CLPK_SUCCESS) return 0;
    return shape->search_rows ? shape->search_rows : 2 * shape->rows - 1;
}

int clpk_xcorr_output_cols(const clpk_xcorr_shape *shape) {
    if (xcorr_shape_check(shape, NULL) != CLPK_SUCCESS) return 0;
    return shape->search_cols ? shape->search_cols : 2 * shape->cols - 1;
}

void xcorr_pair_of(const clpk_xcorr_shape *shape, size_t o, size_t *left, size_t *right) {
    switch (shape->pattern) {
    case CLPK_XCORR_ONE_TO_MANY: *left = 0, *right = o; break;
    case CLPK_XCORR_N_TO_MN: *left = o % (size_t)shape->n_left, *right = o; break;
    case CLPK_XCORR_N_TO_M: *left = o / (size_t)shape->n_right, *right = o % (size_t)shape->n_right; break;
    default: *left = o, *right = o; break;
    }
}

void xcorr_reference(const clpk_xcorr_shape *shape, const double *left, const double *right, double *out) {
    const int R = shape->rows, C = shape->cols;
    const int out_rows = clpk_xcorr_output_rows(shape), out_cols = clpk_xcorr_output_cols(shape);
    const size_t count = clpk_xcorr_output_count(shape), mat = (size_t)R * C;
    for (size_t o = 0; o < count; ++o) {
        size_t li, ri;
        xcorr_pair_of(shape, o, &li, &ri);
        const double *a = left + li * mat, *b = right + ri * mat;
        double *res = out + o * (size_t)out_rows * out_cols;
        for (int k = 0; k < out_rows; ++k) {
            const int dk = k - (out_rows - 1) / 2;
            const int i0 = dk < 0 ? -dk : 0, i1 = dk > 0 ? R - dk : R;
            for (int l = 0; l < out_cols; ++l) {
                const int dl = l - (out_cols - 1) / 2;
                const int j0 = dl < 0 ? -dl : 0, j1 = dl > 0 ? C - dl : C;
                double sum = 0;
                for (int i = i0; i < i1; ++i)
                    for (int j = j0; j < j1; ++j)
                        sum += a[(size_t)(i + dk) * C + j + dl] * b[(size_t)i * C + j];
                res[(size_t)k * out_cols + l] = sum;
            }
        }
    }
}
