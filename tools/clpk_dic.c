/* clpk-dic: digital image correlation of two images with the cross-correlation family.
 *
 *   clpk-dic --ref A.npy --def B.npy [--subset 64] [--step 32] [--method one-to-one|n-to-mn] [--search M] [--reach K]
 *            --out disp.npy [--png disp.png] [--device SEL] [--precision f32|f64] [--algorithm A] [--params k=v,...]
 *            [--refine gn|peak] [--min-score Z]
 *
 * Images: 2-D .npy arrays (uint8, float32 or float64), same shape. Writes disp.npy, float64 of shape (rows, cols, 2)
 * holding (u, v) = displacement along x (columns) and y (rows) in pixels at each grid point (NaN where invalid), and
 * optionally a PNG of the field over the reference image. */
#include <clpk.h>
#include <clpk_dic.h>

#include "cli_args.h"
#include "cli_clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const synopsis = "--ref A.npy --def B.npy --out disp.npy [options]\n"
                                    "  output: disp.npy float64 (rows, cols, 2) = (u, v) in pixels, NaN where no "
                                    "vector was found";

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

static int bad_value(const char *option, const char *value) {
    return cli_fail("clpk-dic", "bad value '%s' for %s", value, option);
}

int main(int argc, char **argv) {
    const char *ref_path = NULL, *def_path = NULL, *out_path = NULL, *png_path = NULL, *device = NULL;
    const char *method = NULL, *precision = NULL, *refine = NULL;
    long long subset = CLI_INT_UNSET, step = CLI_INT_UNSET, search = CLI_INT_UNSET, reach = CLI_INT_UNSET;
    clpk_dic_options opt;
    clpk_dic_options_default(&opt);
    const cli_option options[] = {
        {"--ref", CLI_STRING, &ref_path, "A.npy", "the reference image: a 2-D .npy (uint8, float32 or float64)"},
        {"--def", CLI_STRING, &def_path, "B.npy", "the deformed image, of the same shape"},
        {"--out", CLI_STRING, &out_path, "disp.npy", "the displacement field (see below)"},
        {"--png", CLI_STRING, &png_path, "disp.png", "also a picture of the field over the reference image"},
        {"--subset", CLI_INT, &subset, "S", "subset side in pixels, 5..1024 (default 64)"},
        {"--step", CLI_INT, &step, "N", "grid step in pixels (default 32)"},
        {"--method", CLI_STRING, &method, "one-to-one|n-to-mn",
         "one-to-one: one window per subset (|d| <= M); n-to-mn: (2K+1)^2 windows per subset,\n"
         "|d| <= M + K(2M+1)"},
        {"--search", CLI_INT, &search, "M", "shifts -M..M per window (default S/4)"},
        {"--reach", CLI_INT, &reach, "K", "n-to-mn: windows per side, 1..16 (default 1)"},
        {"--device", CLI_STRING, &device, "SEL", "device selector, as for clpk-info (default $CLPK_DEVICE)"},
        {"--precision", CLI_STRING, &precision, "f32|f64", "precision of the correlation (default f32)"},
        {"--algorithm", CLI_STRING, &opt.algorithm, "A",
         "the cross-correlation algorithm: auto (default), fft, naive, ... (as for clpk-xcorr),\n"
         "or cpu (the host reference, no device)"},
        {"--params", CLI_STRING, &opt.params, "k=v,...", "the cross-correlation plan's parameters"},
        {"--refine", CLI_STRING, &refine, "gn|peak",
         "gn: peak fit then Gauss-Newton (default); peak: 3-point Gaussian peak fit only"},
        {"--min-score", CLI_DOUBLE, &opt.min_score, "Z",
         "points whose peak ZNCC is below Z get no vector (default 0.5)"},
        {NULL, 0, NULL, NULL, NULL}};
    int parsed = cli_parse("clpk-dic", synopsis, options, argc, argv, 1, NULL);
    if (parsed) return parsed == 1 ? 0 : parsed;
    const struct {
        const char *name;
        long long value, lo, hi;
        int *target;
    } counts[] = {{"--subset", subset, 5, 1024, &opt.subset},
                  {"--step", step, 1, 100000, &opt.step},
                  {"--search", search, 1, 1024, &opt.search},
                  {"--reach", reach, 1, 16, &opt.reach}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        if (counts[i].value == CLI_INT_UNSET) continue;
        if (counts[i].value < counts[i].lo || counts[i].value > counts[i].hi) {
            char text[32];
            snprintf(text, sizeof text, "%lld", counts[i].value);
            return bad_value(counts[i].name, text);
        }
        *counts[i].target = (int)counts[i].value;
    }
    if (!(opt.min_score >= -1.0 && opt.min_score <= 1.0)) {
        char text[32];
        snprintf(text, sizeof text, "%g", opt.min_score);
        return bad_value("--min-score", text);
    }
    if (method && clpk_dic_method_parse(method, &opt.method) != CLPK_SUCCESS) return bad_value("--method", method);
    if (precision && clpk_precision_parse(precision, &opt.precision) != CLPK_SUCCESS)
        return bad_value("--precision", precision);
    if (refine) {
        static const char *const refinements[] = {"gn", "peak", NULL};
        static const clpk_dic_refine values[] = {CLPK_DIC_REFINE_GN, CLPK_DIC_REFINE_PEAK};
        int k = cli_choice(refine, refinements);
        if (k < 0) return bad_value("--refine", refine);
        opt.refine = values[k];
    }
    if (!ref_path || !def_path || !out_path) {
        cli_fail("clpk-dic", "--ref, --def and --out are required");
        cli_usage(stderr, "clpk-dic", synopsis, options);
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
    clpk_dic_field f;
    double t0 = cli_wall_seconds();
    st = clpk_dic_run(ctx, ref, def, h, w, &opt, &f);
    const double total = cli_wall_seconds() - t0;
    int rc = 0;
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-dic: %s: %s\n", clpk_status_string(st), ctx ? clpk_last_error(ctx) : "");
        rc = 1;
    } else {
        double mean_mag, max_mag, mu, mv;
        clpk_dic_field_stats(&f, &mean_mag, &max_mag, &mu, &mv);
        printf("clpk-dic: %dx%d images, subset %d, step %d, %s, %dx%d points (%d valid)\n", h, w, opt.subset, opt.step,
               opt.method == CLPK_DIC_N_TO_MN ? "n-to-mn" : "one-to-one", f.rows, f.cols, f.valid);
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
            for (size_t i = 0; i < n; ++i)
                uv[2 * i] = f.u[i], uv[2 * i + 1] = f.v[i];
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
            if (clpk_dic_write_png(png_path, &f, ref, h, w, &err) != CLPK_SUCCESS) {
                fprintf(stderr, "clpk-dic: %s\n", err.message);
                rc = 1;
            } else {
                printf("  wrote %s (%dx%d: |d| from blue 0 to red %.3f px, arrows scaled to 0.45 steps)\n", png_path, w,
                       h, max_mag);
            }
        }
        clpk_dic_field_free(&f);
    }
    clpk_context_destroy(ctx);
    free(ref), free(def);
    return rc;
}
