/* Digital image correlation (lib/dic/dic.c) on synthetic speckle images moved by a known rigid displacement (integer,
 * sub-pixel, and beyond one window's reach for n-to-mn), with the correlation on the device (the xcorr plan: auto
 * and the FFT path) and on the host; then the shared DIC images end to end with a sanity check, and bad input. */
#include "check.h"
#include "dic.h"
#include "png_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sum of Gaussian blobs (radius ~2 px) at random positions, evaluated exactly at (y - dy, x - dx): the deformed
 * image is the reference moved by (dx, dy) with no interpolation error. */
typedef struct blob {
    double y, x, a;
} blob;

static void speckle(const blob *blobs, int n_blobs, int h, int w, double dy, double dx, double *img) {
    const double sigma = 1.8, r = 4.0 * sigma;
    for (size_t i = 0; i < (size_t)h * w; ++i)
        img[i] = 20.0;
    for (int k = 0; k < n_blobs; ++k) {
        const double cy = blobs[k].y + dy, cx = blobs[k].x + dx;
        const int y0 = (int)floor(cy - r), y1 = (int)ceil(cy + r), x0 = (int)floor(cx - r), x1 = (int)ceil(cx + r);
        for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < h; ++y)
            for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < w; ++x) {
                const double d2 = (y - cy) * (y - cy) + (x - cx) * (x - cx);
                img[(size_t)y * w + x] += blobs[k].a * exp(-d2 / (2.0 * sigma * sigma));
            }
    }
}

static blob *make_blobs(uint64_t *rng, int h, int w, int *n) {
    *n = h * w / 10;
    blob *b = malloc((size_t)*n * sizeof *b);
    for (int k = 0; b && k < *n; ++k) {
        b[k].y = -20.0 + (h + 40.0) * check_rand_double(rng);
        b[k].x = -20.0 + (w + 40.0) * check_rand_double(rng);
        b[k].a = 40.0 + 80.0 * check_rand_double(rng);
    }
    return b;
}

typedef struct shift_case {
    const char *name;
    double dx, dy;
    dic_method method;
    int subset, step, search;
    const char *algorithm;
    double tol;        /* bound of the worst point's displacement error (px) */
    double median_tol; /* bound of the median point's error (px); 0: the worst-point bound alone */
    dic_refine refine;
} shift_case;

static int compare_doubles(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run_shift(clpk_context *ctx, const shift_case *c, const double *ref, const double *def, int h, int w) {
    dic_options opt;
    dic_options_default(&opt);
    opt.subset = c->subset, opt.step = c->step, opt.search = c->search, opt.method = c->method;
    opt.algorithm = c->algorithm;
    opt.refine = c->refine;
    dic_field f;
    clpk_status st = dic_run(ctx, ref, def, h, w, &opt, &f);
    if (st == CLPK_ERROR_UNSUPPORTED && c->algorithm && !strcmp(c->algorithm, "fft")) {
        printf("SKIP %s: %s\n", c->name, clpk_last_error(ctx)); /* a build without VkFFT */
        return;
    }
    if (!CHECK(st == CLPK_SUCCESS, "%s: %s: %s", c->name, clpk_status_string(st), ctx ? clpk_last_error(ctx) : ""))
        return;
    const size_t n = (size_t)f.rows * f.cols;
    double worst = 0.0, min_score = 1.0;
    double *errors = malloc((n ? n : 1) * sizeof *errors);
    if (!CHECK(errors != NULL, "%s: out of host memory", c->name)) {
        dic_field_free(&f);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        const double e = hypot(f.u[i] - c->dx, f.v[i] - c->dy);
        errors[i] = isfinite(e) ? e : INFINITY;
        worst = isfinite(e) && e > worst ? e : (isfinite(e) ? worst : INFINITY);
        if (f.score[i] < min_score) min_score = f.score[i];
    }
    qsort(errors, n, sizeof *errors, compare_doubles);
    const double median = n ? errors[n / 2] : INFINITY;
    free(errors);
    printf("  %-44s %2dx%-2d points (%s) max error %.4f px, median %.4f  min ZNCC %.3f  %.3f s\n", c->name, f.rows,
           f.cols, f.algorithm, worst, median, min_score, f.seconds);
    if (c->median_tol > 0)
        CHECK(median <= c->median_tol, "%s: median displacement error %.4f px > %.3f", c->name, median, c->median_tol);
    CHECK(f.rows >= 2 && f.cols >= 2, "%s: grid %dx%d", c->name, f.rows, f.cols);
    CHECK(f.valid == (int)n, "%s: %d of %zu points valid", c->name, f.valid, n);
    CHECK(worst <= c->tol, "%s: displacement error %.4f px > %.3f", c->name, worst, c->tol);
    CHECK(min_score > 0.9, "%s: min ZNCC %.3f", c->name, min_score);
    for (size_t i = 0; i + 1 < n && f.cols > 1; ++i)
        if ((i + 1) % (size_t)f.cols) CHECK(f.x[i + 1] - f.x[i] == c->step, "%s: grid spacing", c->name);
    dic_field_free(&f);
}

static double *load_u8_as_double(const char *path, int *h, int *w) {
    clpk_npy a;
    clpk_error err;
    if (clpk_npy_read(path, &a, &err) != CLPK_SUCCESS) {
        printf("  cannot read %s: %s\n", path, err.message);
        return NULL;
    }
    double *img = NULL;
    if (CHECK(a.ndim == 2 && a.dtype == CLPK_DTYPE_U8, "%s: expected a 2-D uint8 image", path) &&
        CHECK(clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS, "%s: %s", path, err.message)) {
        *h = (int)a.shape[0], *w = (int)a.shape[1];
        img = malloc((size_t)a.count * sizeof *img);
        if (img) memcpy(img, a.data, (size_t)a.count * sizeof *img);
    }
    clpk_npy_free(&a);
    return img;
}

static void shared_images(clpk_context *ctx) {
    /* $CLPK_SHARED_DATA_DIR first (where the data travels to another machine), else the checkout's */
    const char *dir = getenv("CLPK_SHARED_DATA_DIR") ? getenv("CLPK_SHARED_DATA_DIR") : CLPK_SHARED_DATA_DIR;
    char pr[512], pd[512];
    snprintf(pr, sizeof pr, "%s/dic/refSpeckled.npy", dir);
    snprintf(pd, sizeof pd, "%s/dic/defSpeckled.npy", dir);
    int h = 0, w = 0, h2 = 0, w2 = 0;
    double *ref = load_u8_as_double(pr, &h, &w);
    double *def = ref ? load_u8_as_double(pd, &h2, &w2) : NULL;
    if (!ref || !def) {
        printf("SKIP shared DIC images: %s not readable\n", ref ? pd : pr);
        free(ref), free(def);
        return;
    }
    CHECK(h == h2 && w == w2, "image sizes differ: %dx%d vs %dx%d", h, w, h2, w2);
    dic_options opt;
    dic_options_default(&opt);
    opt.subset = 48, opt.step = 48, opt.method = CLPK_DIC_N_TO_MN, opt.search = 6;
    dic_field f;
    clpk_status st = dic_run(ctx, ref, def, h, w, &opt, &f);
    if (CHECK(st == CLPK_SUCCESS, "shared images: %s: %s", clpk_status_string(st), clpk_last_error(ctx))) {
        const size_t n = (size_t)f.rows * f.cols;
        double mean_mag, max_mag, mu, mv;
        dic_field_stats(&f, &mean_mag, &max_mag, &mu, &mv);
        size_t good = 0;
        for (size_t i = 0; i < n; ++i)
            good += f.score[i] > 0.5;
        printf("  shared refSpeckled/defSpeckled %dx%d: %dx%d points (%s), %d valid, mean |d| %.3f px, max %.3f px, "
               "mean (u, v) = (%.3f, %.3f), %zu with ZNCC > 0.5\n",
               h, w, f.rows, f.cols, f.algorithm, f.valid, mean_mag, max_mag, mu, mv, good);
        CHECK(f.valid >= (int)(0.9 * n), "shared images: only %d of %zu valid", f.valid, n);
        CHECK(good >= (size_t)(0.9 * n), "shared images: only %zu of %zu with ZNCC > 0.5", good, n);
        CHECK(max_mag < 6.0 + 13.0, "shared images: max displacement %.2f beyond the search reach", max_mag);
        dic_field_free(&f);
    }
    free(ref), free(def);
}

static void bad_inputs(clpk_context *ctx, const double *img) {
    dic_options opt;
    dic_options_default(&opt);
    dic_field f;
    opt.subset = 64;
    CHECK(dic_run(ctx, img, img, 40, 40, &opt, &f) == CLPK_ERROR_INVALID_ARGUMENT, "image smaller than a subset");
    opt.subset = 3;
    CHECK(dic_run(ctx, img, img, 40, 40, &opt, &f) == CLPK_ERROR_INVALID_ARGUMENT, "subset 3 accepted");
    opt.subset = 16, opt.step = 0;
    CHECK(dic_run(ctx, img, img, 40, 40, &opt, &f) == CLPK_ERROR_INVALID_ARGUMENT, "step 0 accepted");
    CHECK(dic_run(ctx, NULL, img, 40, 40, &opt, &f) == CLPK_ERROR_INVALID_ARGUMENT, "NULL image accepted");
    double *nan_img = malloc(40 * 40 * sizeof *nan_img);
    memcpy(nan_img, img, 40 * 40 * sizeof *nan_img);
    nan_img[333] = NAN;
    opt.step = 8;
    CHECK(dic_run(ctx, img, nan_img, 40, 40, &opt, &f) == CLPK_ERROR_INVALID_DATA, "NaN pixel accepted");
    free(nan_img);
    dic_method m;
    CHECK(dic_method_parse("n-to-mn", &m) == CLPK_SUCCESS && m == CLPK_DIC_N_TO_MN, "method parse");
    CHECK(dic_method_parse("n-to-m", &m) == CLPK_ERROR_INVALID_ARGUMENT, "method n-to-m accepted");
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The PNG writer: known CRC/Adler values, then a written file parsed back (chunk CRCs, the zlib stream of stored
 * blocks, the pixels), and a rendered field. */
static void png_checks(const dic_field *field, const double *ref, int h, int w) {
    CHECK(png_crc32(0, (const unsigned char *)"123456789", 9) == 0xCBF43926u, "crc32 check value");
    CHECK(png_adler32(1, (const unsigned char *)"Wikipedia", 9) == 0x11E60398u, "adler32 check value");
    const int pw = 300, ph = 230; /* rows of 901 bytes: more than one 64 KiB stored block */
    unsigned char *px = malloc((size_t)pw * ph * 3);
    for (size_t i = 0; px && i < (size_t)pw * ph * 3; ++i)
        px[i] = (unsigned char)(i * 7 + i / 3);
    char path[256];
    snprintf(path, sizeof path, "%s/clpk_test_dic_%d.png", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    clpk_error err;
    if (!CHECK(px && png_write_rgb(path, pw, ph, px, &err) == CLPK_SUCCESS, "png write: %s", err.message)) {
        free(px);
        return;
    }
    FILE *fp = fopen(path, "rb");
    unsigned char *file = malloc(1 << 20);
    size_t size = fp && file ? fread(file, 1, 1 << 20, fp) : 0;
    if (fp) fclose(fp);
    CHECK(size > 8 && !memcmp(file, "\x89PNG\r\n\x1a\n", 8), "png signature");
    size_t at = 8, idat_at = 0, idat_len = 0;
    int chunks = 0, crc_ok = 1, ihdr_ok = 0, iend = 0;
    while (at + 12 <= size && !iend) {
        const uint32_t len = be32(file + at);
        if (at + 12 + len > size) break;
        crc_ok &= png_crc32(0, file + at + 4, 4 + len) == be32(file + at + 8 + len);
        if (!memcmp(file + at + 4, "IHDR", 4))
            ihdr_ok = len == 13 && be32(file + at + 8) == (uint32_t)pw && be32(file + at + 12) == (uint32_t)ph &&
                      file[at + 16] == 8 && file[at + 17] == 2;
        if (!memcmp(file + at + 4, "IDAT", 4)) idat_at = at + 8, idat_len = len;
        iend = !memcmp(file + at + 4, "IEND", 4);
        at += 12 + len, ++chunks;
    }
    CHECK(chunks == 3 && iend && at == size && crc_ok && ihdr_ok, "png chunks: %d, crc %d, ihdr %d", chunks, crc_ok,
          ihdr_ok);
    /* inflate the stored blocks and compare with the filter-0 scanlines */
    const size_t row = (size_t)pw * 3 + 1, raw_size = row * ph;
    unsigned char *raw = malloc(raw_size);
    size_t got = 0, p = idat_at + 2;
    int last = 0, stream_ok = idat_len > 6 && (file[idat_at] * 256 + file[idat_at + 1]) % 31 == 0;
    while (raw && stream_ok && !last && p + 5 <= idat_at + idat_len) {
        last = file[p] & 1;
        stream_ok &= (file[p] & 6) == 0;
        const size_t n = file[p + 1] | (size_t)file[p + 2] << 8, nn = file[p + 3] | (size_t)file[p + 4] << 8;
        stream_ok &= (n ^ 0xFFFF) == nn && got + n <= raw_size;
        if (stream_ok) memcpy(raw + got, file + p + 5, n), got += n;
        p += 5 + n;
    }
    stream_ok &=
        last && got == raw_size && p + 4 == idat_at + idat_len && be32(file + p) == png_adler32(1, raw, raw_size);
    int pixels_ok = stream_ok;
    for (int y = 0; pixels_ok && y < ph; ++y)
        pixels_ok = raw[y * row] == 0 && !memcmp(raw + y * row + 1, px + (size_t)y * pw * 3, (size_t)pw * 3);
    CHECK(stream_ok && pixels_ok, "png zlib stream %d, pixels %d", stream_ok, pixels_ok);
    CHECK(png_write_rgb("/nonexistent-dir/x.png", 2, 2, px, &err) == CLPK_ERROR_IO, "png write to a bad path");
    CHECK(png_write_rgb(path, 0, 2, px, &err) == CLPK_ERROR_INVALID_ARGUMENT, "png of width 0");
    free(raw), free(file), free(px);
    /* a rendered field: the right size, arrows drawn (white pixels exist) */
    unsigned char *rgb = NULL;
    if (CHECK(dic_render(field, ref, h, w, &rgb) == CLPK_SUCCESS && rgb, "render")) {
        size_t white = 0;
        for (size_t i = 0; i < (size_t)h * w; ++i)
            white += rgb[3 * i] == 255 && rgb[3 * i + 1] == 255 && rgb[3 * i + 2] == 255;
        CHECK(white > (size_t)field->valid, "only %zu arrow pixels for %d vectors", white, field->valid);
        free(rgb);
    }
    CHECK(dic_write_png(path, field, ref, h, w, &err) == CLPK_SUCCESS, "field png: %s", err.message);
    remove(path);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no OpenCL device: %s", clpk_status_string(st))) return check_summary();
    printf("device: %s\n", clpk_context_device_info(ctx)->name);

    const int h = 144, w = 160;
    int n_blobs = 0;
    blob *blobs = make_blobs(&rng, h, w, &n_blobs);
    double *ref = malloc((size_t)h * w * sizeof *ref), *def_int = malloc((size_t)h * w * sizeof *ref);
    double *def_sub = malloc((size_t)h * w * sizeof *ref), *def_far = malloc((size_t)h * w * sizeof *ref);
    if (!CHECK(blobs && ref && def_int && def_sub && def_far, "out of memory")) return check_summary();
    speckle(blobs, n_blobs, h, w, 0.0, 0.0, ref);
    speckle(blobs, n_blobs, h, w, -2.0, 3.0, def_int);
    speckle(blobs, n_blobs, h, w, 0.6, -1.3, def_sub);
    speckle(blobs, n_blobs, h, w, -9.7, 11.4, def_far);

    const shift_case cases[] = {
        {"integer (3, -2) one-to-one auto", 3.0, -2.0, CLPK_DIC_ONE_TO_ONE, 32, 16, 8, NULL, 0.02, 0,
         CLPK_DIC_REFINE_GN},
        {"sub-pixel (-1.3, 0.6) one-to-one auto", -1.3, 0.6, CLPK_DIC_ONE_TO_ONE, 32, 16, 8, NULL, 0.05, 0,
         CLPK_DIC_REFINE_GN},
        {"sub-pixel (-1.3, 0.6) one-to-one fft", -1.3, 0.6, CLPK_DIC_ONE_TO_ONE, 32, 16, 8, "fft", 0.05, 0,
         CLPK_DIC_REFINE_GN},
        {"sub-pixel (-1.3, 0.6) one-to-one cpu", -1.3, 0.6, CLPK_DIC_ONE_TO_ONE, 32, 16, 8, "cpu", 0.05, 0,
         CLPK_DIC_REFINE_GN},
        {"far (11.4, -9.7) n-to-mn auto", 11.4, -9.7, CLPK_DIC_N_TO_MN, 32, 24, 5, NULL, 0.05, 0, CLPK_DIC_REFINE_GN},
        /* the 3-point Gaussian peak fit alone: the integer peak must be right at every point (error < 0.5 px), and
         * the median point within 0.1 px (0.02-0.05 over 40 seeds); single subsets reached 0.24-0.30 px on some
         * speckles */
        {"sub-pixel (-1.3, 0.6) one-to-one peak fit only", -1.3, 0.6, CLPK_DIC_ONE_TO_ONE, 32, 16, 8, NULL, 0.5, 0.1,
         CLPK_DIC_REFINE_PEAK},
    };
    const double *defs[] = {def_int, def_sub, def_sub, def_sub, def_far, def_sub};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        run_shift(ctx, &cases[i], ref, defs[i], h, w);
    shared_images(ctx);
    bad_inputs(ctx, ref);
    dic_options opt;
    dic_options_default(&opt);
    opt.subset = 32, opt.step = 16, opt.search = 8, opt.algorithm = "cpu";
    dic_field f;
    if (CHECK(dic_run(NULL, ref, def_sub, h, w, &opt, &f) == CLPK_SUCCESS, "host DIC without a context")) {
        png_checks(&f, ref, h, w);
        dic_field_free(&f);
    }
    free(blobs), free(ref), free(def_int), free(def_sub), free(def_far);
    clpk_context_destroy(ctx);
    return check_summary();
}
