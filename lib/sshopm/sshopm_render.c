/* Fibre peaks of one slice as coloured line segments (see sshopm_render.h). */
#include "sshopm_render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void plot(unsigned char *rgb, int w, int h, int x, int y, const unsigned char c[3]) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    memcpy(rgb + ((size_t)y * w + x) * 3, c, 3);
}

static void segment(unsigned char *rgb, int w, int h, double x0, double y0, double x1, double y1, int thick,
                    const unsigned char c[3]) {
    const int steps = (int)ceil(2 * hypot(x1 - x0, y1 - y0)) + 1;
    for (int i = 0; i <= steps; ++i) {
        const double t = (double)i / steps;
        const int x = (int)lround(x0 + t * (x1 - x0)), y = (int)lround(y0 + t * (y1 - y0));
        for (int dy = 0; dy < thick; ++dy)
            for (int dx = 0; dx < thick; ++dx) plot(rgb, w, h, x + dx, y + dy, c);
    }
}

clpk_status sshopm_render_slice(int nx, int ny, int nz, int z, const float *background, const clpk_sshopm_peaks *p,
                                unsigned char **out, int *width, int *height, clpk_error *err) {
    *out = NULL;
    if (!p || nx < 1 || ny < 1 || z < 0 || z >= nz || p->voxels != (int64_t)nx * ny * nz)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "render: bad slice %d of a %dx%dx%d grid", z, nx, ny,
                              nz);
    const int big = nx > ny ? nx : ny;
    int cell = 800 / big;
    cell = cell < 6 ? 6 : cell > 48 ? 48 : cell;
    if ((int64_t)nx * cell > 65535 || (int64_t)ny * cell > 65535)
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "render: a %dx%d slice is too large for one picture", nx, ny);
    const int w = nx * cell, h = ny * cell, K = p->max_peaks;
    unsigned char *rgb = malloc((size_t)w * h * 3);
    if (!rgb) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "render: out of memory");
    const int64_t base = (int64_t)z * nx * ny;
    double lo = INFINITY, hi = -INFINITY, vmax = 0;
    for (int64_t v = base; v < base + (int64_t)nx * ny; ++v) {
        if (background && isfinite(background[v])) lo = fmin(lo, background[v]), hi = fmax(hi, background[v]);
        for (int k = 0; k < p->count[v]; ++k) vmax = fmax(vmax, p->values[v * K + k]);
    }
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const float b = background ? background[base + (int64_t)j * nx + i] : 0.0f;
            const int grey = (hi > lo && isfinite(b)) ? (int)(20 + 120 * (b - lo) / (hi - lo)) : 40;
            const int top = (ny - 1 - j) * cell; /* +y up */
            for (int y = top; y < top + cell; ++y)
                for (int x = i * cell; x < (i + 1) * cell; ++x) {
                    const int edge = (x == i * cell) || (y == top);
                    memset(rgb + ((size_t)y * w + x) * 3, edge ? grey / 2 : grey, 3);
                }
        }
    const int thick = cell >= 20 ? 2 : 1;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const int64_t v = base + (int64_t)j * nx + i;
            const double cx = (i + 0.5) * cell, cy = (ny - 1 - j + 0.5) * cell;
            for (int k = p->count[v] - 1; k >= 0; --k) { /* the largest peak drawn last, on top */
                const float *d = p->dirs + (v * K + k) * 3;
                const double m = fmax(fabs(d[0]), fmax(fabs(d[1]), fabs(d[2])));
                if (!(m > 0)) continue;
                unsigned char c[3];
                for (int q = 0; q < 3; ++q) c[q] = (unsigned char)lround(255 * fabs(d[q]) / m);
                const double len = 0.45 * cell * (vmax > 0 ? fmax(0.2, p->values[v * K + k] / vmax) : 1.0);
                const double dx = d[0] * len, dy = -d[1] * len;
                segment(rgb, w, h, cx - dx, cy - dy, cx + dx, cy + dy, thick, c);
            }
        }
    *out = rgb;
    *width = w;
    *height = h;
    return CLPK_SUCCESS;
}
