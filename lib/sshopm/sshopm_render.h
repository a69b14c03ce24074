/* Picture of one axial slice of fibre peaks (lib/sshopm/sshopm_render.c). Internal. */
#ifndef CLPK_SSHOPM_RENDER_H
#define CLPK_SSHOPM_RENDER_H

#include "clpk_internal.h"
#include "clpk_sshopm.h"

/* RGB image (malloc'ed, *height rows of *width * 3 bytes, top row first) of slice z of an nx x ny x nz grid: each
 * voxel a square cell, grey by `background` (scaled to the slice's range; may be NULL), each peak a line segment
 * through the cell centre along its in-plane projection (x to the right, y up), half-length 0.45 cells times value
 * over the slice's largest value, coloured (|x|, |y|, |z|) scaled to a maximum component of 255; peaks nearly
 * through the plane show as a dot of their colour. */
clpk_status sshopm_render_slice(int nx, int ny, int nz, int z, const float *background, const clpk_sshopm_peaks *p,
                                unsigned char **rgb, int *width, int *height, clpk_error *err);

#endif
