/* clpk digital image correlation (DIC), an application of the cross-correlation family: the displacement field between
 * a reference and a deformed image, one vector per subset of a grid. Not included by clpk.h: include <clpk_dic.h>.
 *
 * Each reference subset (s x s, zero-mean, unit norm) is zero-padded by m on every side into an (s+2m)^2 template and
 * correlated with (s+2m)^2 windows of the deformed image over the centred (2m+1)^2 search window of shifts, so the
 * template always overlaps its window fully (no overlap bias). The integer peak of the zero-normalised
 * cross-correlation (ZNCC: the deformed region's energy at every shift comes from integral images) gives the
 * displacement; a 3-point Gaussian fit per axis (parabolic where a value is not positive) on the 3x3 ZNCC values
 * refines it to sub-pixel (its error is a few 0.01 px, up to ~0.1 px: peak locking), then by default an
 * inverse-compositional Gauss-Newton on the zero-normalised SSD with bicubic resampling (translation only) polishes it
 * (~0.01 px on smooth speckle); where that cannot converge the peak-fit value stays.
 *   one-to-one: one window per subset at the subset's own position (|displacement| <= m).
 *   n-to-mn:    (2k+1)^2 windows per subset, offset by multiples of 2m+1, covering |displacement| <= m + k(2m+1).
 */
#ifndef CLPK_DIC_PUBLIC_H
#define CLPK_DIC_PUBLIC_H

#include "clpk_export.h"
#include "clpk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum clpk_dic_method { CLPK_DIC_ONE_TO_ONE = 1, CLPK_DIC_N_TO_MN } clpk_dic_method;

typedef enum clpk_dic_refine {
    CLPK_DIC_REFINE_GN = 0, /* peak fit, then Gauss-Newton (default) */
    CLPK_DIC_REFINE_PEAK    /* 3-point peak fit only */
} clpk_dic_refine;

typedef struct clpk_dic_options {
    int subset;             /* s: subset side in pixels (>= 5) */
    int step;               /* grid step in pixels (>= 1) */
    clpk_dic_method method; /* one-to-one or n-to-mn */
    int search;             /* m: shifts -m..m per window; 0 = s/4 */
    int reach;              /* k: n-to-mn windows per side (>= 1; default 1); ignored by one-to-one */
    clpk_precision precision;
    const char *algorithm;  /* xcorr plan algorithm: NULL/"auto", "fft", "naive", ... or "cpu" (host reference) */
    const char *params;     /* xcorr plan parameters or NULL */
    clpk_dic_refine refine; /* sub-pixel refinement */
    double min_score;       /* points whose peak ZNCC is below this get no vector (NaN); default 0.5 */
} clpk_dic_options;

/* Fills defaults: subset 64, step 32, one-to-one, search s/4, reach 1, f32, auto, Gauss-Newton, min_score 0.5. */
CLPK_API void clpk_dic_options_default(clpk_dic_options *opt);

/* "one-to-one" or "n-to-mn" (underscores accepted). */
CLPK_API clpk_status clpk_dic_method_parse(const char *text, clpk_dic_method *out);

typedef struct clpk_dic_field {
    int rows, cols;     /* grid points */
    double *x, *y;      /* subset centres in pixels (column, row), rows*cols each */
    double *u, *v;      /* displacement (deformed - reference) along x (columns) and y (rows); NaN where invalid */
    double *score;      /* ZNCC at the integer peak, in [-1, 1] (NaN where the subset has no texture) */
    int valid;          /* number of points with a finite displacement */
    char algorithm[64]; /* the xcorr algorithm that ran */
    double seconds;     /* wall time of the correlation step (plan creation excluded) */
} clpk_dic_field;

/* Computes the displacement field of `def` relative to `ref` (both height x width, row-major). `ctx` may be NULL when
 * opt->algorithm is "cpu". Fails with CLPK_ERROR_INVALID_ARGUMENT when the image is too small for one subset with its
 * search margin. Free the field with clpk_dic_field_free. */
CLPK_API clpk_status clpk_dic_run(clpk_context *ctx, const double *ref, const double *def, int height, int width,
                                  const clpk_dic_options *opt, clpk_dic_field *out);
CLPK_API void clpk_dic_field_free(clpk_dic_field *field);

/* Summary of the finite vectors: mean and max magnitude, mean u and v. */
CLPK_API void clpk_dic_field_stats(const clpk_dic_field *field, double *mean_mag, double *max_mag, double *mean_u,
                                   double *mean_v);

/* An RGB picture (height x width x 3, malloc'ed: free() it) of the field over the reference image: cells tinted by
 * |d| (blue 0 .. red max), arrows scaled so the longest is 0.45 grid steps; grey cells have no valid vector. */
CLPK_API clpk_status clpk_dic_render(const clpk_dic_field *field, const double *ref, int height, int width,
                                     unsigned char **rgb);
/* clpk_dic_render written as a PNG. */
CLPK_API clpk_status clpk_dic_write_png(const char *path, const clpk_dic_field *field, const double *ref, int height,
                                        int width, clpk_error *err);

#ifdef __cplusplus
}
#endif

#endif
