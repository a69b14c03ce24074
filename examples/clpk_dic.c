/* clpk-dic: digital image correlation of two images with the cross-correlation family.
 *
 *   clpk-dic --ref A.npy --def B.npy [--subset 64] [--step 32] [--method one-to-one|n-to-mn] [--search M] [--reach K]
 *            --out disp.npy [--png disp.png] [--device SEL] [--precision f32|f64] [--algorithm A] [--params k=v,...]
 *            [--refine gn|peak] [--min-score Z]
 *
 * Images: 2-D .npy arrays (uint8, float32 or float64), same shape. Writes disp.npy, float64 of shape (rows, cols, 2)
 * holding (u, v) = displacement along x (columns) and y (rows) in pixels at each grid point (NaN where invalid), and
 * optionally a PNG of the field over the reference image. */
#include "clpk.h"
#include "clpk_internal.h"
#include "dic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *to) {
    fprintf(to,
            "usage: clpk-dic --ref A.npy --def B.npy --out disp.npy [--png disp.png] [--subset 64] [--step 32]\n"
            "                [--method one-to-one|n-to-mn] [--search M] [--reach K] [--device SEL]\n"
            "                [--precision f32|f64] [--algorithm auto|fft|naive|...|cpu] [--params k=v,...]\n"
            "                [--refine gn|peak] [--min-score Z]\n"
            "  --subset S   subset side in pixels; --step grid step; --search M shifts -M..M per window (default S/4)\n"
            "  --method     one-to-one: one window per subset (|d| <= M); n-to-mn: (2K+1)^2 windows per subset\n"
            "               (--reach K, default 1), |d| <= M + K(2M+1)\n"
            "  --refine     gn: peak fit then Gauss-Newton (default); peak: 3-point Gaussian peak fit only\n"
            "  --min-score  points whose peak ZNCC is below Z get no vector (default 0.5)\n"
            "  output: disp.npy float64 (rows, cols, 2) = (u, v) in pixels, NaN where no vector was found\n");
}

static int parse_int(const char *text, int lo, int hi, int *out) {
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* A 2-D image as doubles. */
static double *load_image(const char *path, int *h, int *w) {
    clpk_npy a;
    clpk_error err;
    if (clpk_npy_read(path, &a, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-dic: %s\n", err.message);
        return NULL;
    }
    double *img = NULL;
    if (a.ndim != 2 || a.shape[0] < 1 || a.shape[1] < 1 || a.shape[0] > 1000000 || a.shape[1] > 1000000) {
        fprintf(stderr, "clpk-dic: %s: expected a 2-D image, got %d dimensions\n", path, a.ndim);
    } else if (clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-dic: %s: %s\n", path, err.message);
    } else if ((img = malloc((size_t)a.count * sizeof *img)) != NULL) {
        memcpy(img, a.data, (size_t)a.count * sizeof *img);
        *h = (int)a.shape[0], *w = (int)a.shape[1];
    }
    clpk_npy_free(&a);
    return img;
}

int main(int argc, char **argv) {
    const char *ref_path = NULL, *def_path = NULL, *out_path = NULL, *png_path = NULL, *device = NULL;
    dic_options opt;
    dic_options_default(&opt);
    int bad = 0;
    for (int i = 1; i < argc && !bad; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "clpk-dic: %s needs a value\n", a);
            bad = 1;
            break;
        }
        ++i;
        if (!strcmp(a, "--ref")) ref_path = v;
        else if (!strcmp(a, "--def")) def_path = v;
        else if (!strcmp(a, "--out")) out_path = v;
        else if (!strcmp(a, "--png")) png_path = v;
        else if (!strcmp(a, "--device")) device = v;
        else if (!strcmp(a, "--algorithm")) opt.algorithm = v;
        else if (!strcmp(a, "--params")) opt.params = v;
        else if (!strcmp(a, "--subset")) bad = !parse_int(v, 5, 1024, &opt.subset);
        else if (!strcmp(a, "--step")) bad = !parse_int(v, 1, 100000, &opt.step);
        else if (!strcmp(a, "--search")) bad = !parse_int(v, 1, 1024, &opt.search);
        else if (!strcmp(a, "--reach")) bad = !parse_int(v, 1, 16, &opt.reach);
        else if (!strcmp(a, "--min-score")) {
            char *end = NULL;
            opt.min_score = strtod(v, &end);
            bad = !*v || *end || !(opt.min_score >= -1.0 && opt.min_score <= 1.0);
        } else if (!strcmp(a, "--method")) bad = dic_method_parse(v, &opt.method) != CLPK_SUCCESS;
        else if (!strcmp(a, "--precision")) bad = clpk_precision_parse(v, &opt.precision) != CLPK_SUCCESS;
        else if (!strcmp(a, "--refine")) {
            if (!strcmp(v, "gn")) opt.refine = CLPK_DIC_REFINE_GN;
            else if (!strcmp(v, "peak")) opt.refine = CLPK_DIC_REFINE_PEAK;
            else bad = 1;
        } else {
            fprintf(stderr, "clpk-dic: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
        if (bad) fprintf(stderr, "clpk-dic: bad value '%s' for %s\n", v, a);
    }
    if (bad || !ref_path || !def_path || !out_path) {
        if (!bad) fprintf(stderr, "clpk-dic: --ref, --def and --out are required\n");
        usage(stderr);
        return 2;
    }

    int h = 0, w = 0, h2 = 0, w2 = 0;
    double *ref = load_image(ref_path, &h, &w), *def = ref ? load_image(def_path, &h2, &w2) : NULL;
    if (!ref || !def) return free(ref), 1;
    if (h != h2 || w != w2) {
        fprintf(stderr, "clpk-dic: the images differ in size: %dx%d and %dx%d\n", h, w, h2, w2);
        return free(ref), free(def), 1;
    }
    clpk_context *ctx = NULL;
    const int on_cpu = opt.algorithm && !strcmp(opt.algorithm, "cpu");
    clpk_status st = on_cpu ? CLPK_SUCCESS : clpk_context_create(&ctx, device);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-dic: no device: %s\n", clpk_status_string(st));
        return free(ref), free(def), 1;
    }
    dic_field f;
    double t0 = core_wall_seconds();
    st = dic_run(ctx, ref, def, h, w, &opt, &f);
    const double total = core_wall_seconds() - t0;
    int rc = 0;
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-dic: %s: %s\n", clpk_status_string(st), ctx ? clpk_last_error(ctx) : "");
        rc = 1;
    } else {
        double mean_mag, max_mag, mu, mv;
        dic_field_stats(&f, &mean_mag, &max_mag, &mu, &mv);
        printf("clpk-dic: %dx%d images, subset %d, step %d, %s, %dx%d points (%d valid)\n", h, w, opt.subset,
               opt.step, opt.method == CLPK_DIC_N_TO_MN ? "n-to-mn" : "one-to-one", f.rows, f.cols, f.valid);
        printf("  correlation: %s on %s, %.3f s (total with plan and refinement %.3f s)\n", f.algorithm,
               ctx ? clpk_context_device_info(ctx)->name : "host", f.seconds, total);
        printf("  displacement: mean |d| %.4f px, max |d| %.4f px, mean (u, v) = (%.4f, %.4f) px\n", mean_mag, max_mag,
               mu, mv);
        const size_t n = (size_t)f.rows * f.cols;
        double *uv = malloc(n * 2 * sizeof *uv);
        clpk_error err;
        if (!uv) {
            fprintf(stderr, "clpk-dic: out of memory\n");
            rc = 1;
        } else {
            for (size_t i = 0; i < n; ++i) uv[2 * i] = f.u[i], uv[2 * i + 1] = f.v[i];
            const int64_t shape[3] = {f.rows, f.cols, 2};
            if (clpk_npy_write_raw(out_path, CLPK_DTYPE_F64, 3, shape, uv, &err) != CLPK_SUCCESS) {
                fprintf(stderr, "clpk-dic: %s\n", err.message);
                rc = 1;
            } else {
                printf("  wrote %s (float64 %dx%dx2: u, v)\n", out_path, f.rows, f.cols);
            }
            free(uv);
        }
        if (png_path && rc == 0) {
            if (dic_write_png(png_path, &f, ref, h, w, &err) != CLPK_SUCCESS) {
                fprintf(stderr, "clpk-dic: %s\n", err.message);
                rc = 1;
            } else {
                printf("  wrote %s (%dx%d: |d| from blue 0 to red %.3f px, arrows scaled to 0.45 steps)\n", png_path,
                       w, h, max_mag);
            }
        }
        dic_field_free(&f);
    }
    clpk_context_destroy(ctx);
    free(ref), free(def);
    return rc;
}
