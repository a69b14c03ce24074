/* Picture of a DIC displacement field: the reference image dimmed, each grid cell tinted by the displacement
 * magnitude (blue = 0 to red = the field's maximum), and an arrow per point scaled so the longest is 0.45 grid steps.
 */
#include "dic.h"

#include "clpk_internal.h"
#include "png_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void colormap(double t, unsigned char rgb[3]) {
    static const double anchors[5][3] = {{30, 60, 200}, {0, 190, 210}, {60, 200, 60}, {240, 220, 40}, {220, 40, 30}};
    if (!(t >= 0.0)) t = 0.0;
    if (t > 1.0) t = 1.0;
    const double x = t * 4.0;
    const int i = x >= 4.0 ? 3 : (int)x;
    const double f = x - i;
    for (int c = 0; c < 3; ++c) rgb[c] = (unsigned char)lround(anchors[i][c] * (1.0 - f) + anchors[i + 1][c] * f);
}

static void plot(unsigned char *rgb, int w, int h, int x, int y, const unsigned char colour[3]) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    memcpy(rgb + ((size_t)y * w + x) * 3, colour, 3);
}

static void line(unsigned char *rgb, int w, int h, double x0, double y0, double x1, double y1,
                 const unsigned char colour[3]) {
    const double len = hypot(x1 - x0, y1 - y0);
    const int steps = (int)ceil(len * 2.0) + 1;
    for (int i = 0; i <= steps && steps < 100000; ++i) {
        const double t = (double)i / steps;
        plot(rgb, w, h, (int)lround(x0 + t * (x1 - x0)), (int)lround(y0 + t * (y1 - y0)), colour);
    }
}

clpk_status dic_render(const dic_field *f, const double *ref, int height, int width, unsigned char **out) {
    if (!f || !ref || !out || height < 1 || width < 1) return CLPK_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    unsigned char *rgb = malloc((size_t)height * width * 3);
    if (!rgb) return CLPK_ERROR_OUT_OF_MEMORY;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < (size_t)height * width; ++i) {
        if (ref[i] < lo) lo = ref[i];
        if (ref[i] > hi) hi = ref[i];
    }
    const double gscale = hi > lo ? 160.0 / (hi - lo) : 0.0;
    for (size_t i = 0; i < (size_t)height * width; ++i)
        memset(rgb + i * 3, (int)(30.0 + (ref[i] - lo) * gscale), 3);
    double max_mag = 0.0;
    dic_field_stats(f, NULL, &max_mag, NULL, NULL);
    if (!(max_mag > 0.0)) max_mag = 1.0;
    const size_t n = (size_t)f->rows * f->cols;
    const double step_x = f->cols > 1 ? f->x[1] - f->x[0] : 32.0, step_y = f->rows > 1 ? f->y[f->cols] - f->y[0] : 32.0;
    /* tint the cell of each point */
    for (size_t i = 0; i < n; ++i) {
        unsigned char c[3] = {128, 128, 128};
        const int ok = isfinite(f->u[i]) && isfinite(f->v[i]);
        if (ok) colormap(hypot(f->u[i], f->v[i]) / max_mag, c);
        const int y0 = (int)floor(f->y[i] - step_y / 2.0), x0 = (int)floor(f->x[i] - step_x / 2.0);
        for (int y = y0; y < y0 + (int)step_y; ++y)
            for (int x = x0; x < x0 + (int)step_x; ++x) {
                if (x < 0 || y < 0 || x >= width || y >= height) continue;
                unsigned char *p = rgb + ((size_t)y * width + x) * 3;
                for (int k = 0; k < 3; ++k) p[k] = (unsigned char)((p[k] * 2 + c[k] * 3) / 5);
            }
    }
    /* arrows */
    const double step = step_x < step_y ? step_x : step_y, scale = 0.45 * step / max_mag;
    static const unsigned char white[3] = {255, 255, 255}, black[3] = {0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(f->u[i]) || !isfinite(f->v[i])) continue;
        const double x0 = f->x[i], y0 = f->y[i], x1 = x0 + f->u[i] * scale, y1 = y0 + f->v[i] * scale;
        plot(rgb, width, height, (int)lround(x0), (int)lround(y0), black);
        line(rgb, width, height, x0, y0, x1, y1, white);
        const double len = hypot(x1 - x0, y1 - y0), head = 0.3 * len;
        if (len < 2.0) continue;
        const double a = atan2(y1 - y0, x1 - x0);
        line(rgb, width, height, x1, y1, x1 - head * cos(a - 0.45), y1 - head * sin(a - 0.45), white);
        line(rgb, width, height, x1, y1, x1 - head * cos(a + 0.45), y1 - head * sin(a + 0.45), white);
    }
    *out = rgb;
    return CLPK_SUCCESS;
}

clpk_status dic_write_png(const char *path, const dic_field *f, const double *ref, int height, int width,
                               clpk_error *err) {
    unsigned char *rgb = NULL;
    clpk_status st = dic_render(f, ref, height, width, &rgb);
    if (st != CLPK_SUCCESS) return core_error_set(err, st, "dic: cannot render the field (%s)", clpk_status_string(st));
    st = png_write_rgb(path, width, height, rgb, err);
    free(rgb);
    return st;
}
