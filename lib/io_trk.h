/* A TrackVis .trk reader: 1000-byte header (magic "TRACK", hdr_size 1000, either byte order), streamlines with
 * per-point scalars and per-streamline properties (skipped), points in TrackVis "voxmm" space (voxel corner at the
 * origin, millimetres). Truncated or inconsistent files are refused with a message naming the file. Not installed. */
#ifndef CLPK_IO_TRK_H
#define CLPK_IO_TRK_H

#include "clpk_internal.h"

typedef struct clpk_trk {
    int32_t dim[3];
    double voxel_size[3];
    int n_scalars, n_properties;
    double vox_to_ras[4][4]; /* identity when the file has none (version 1 or all zero) */
    char voxel_order[4];     /* e.g. "RAS"; "LPS" when the file leaves it empty (TrackVis' default) */
    int version;
    int64_t n_streamlines;
    int64_t n_points;
    int64_t *offsets; /* n_streamlines + 1: streamline s has points offsets[s] .. offsets[s+1]-1 */
    float *points;    /* n_points x 3, voxmm */
} clpk_trk;

clpk_status clpk_trk_read(const char *path, clpk_trk *out, clpk_error *err);
/* The same from memory (the fuzz target's entry point); `name` appears in messages. */
clpk_status clpk_trk_parse(const void *bytes, size_t length, const char *name, clpk_trk *out, clpk_error *err);
void clpk_trk_free(clpk_trk *t);

/* The affine from voxmm points to RAS+ millimetres, as nibabel computes it: scale by 1/voxel_size, shift by half a
 * voxel (TrackVis puts the origin at a voxel corner), flip axes where voxel_order disagrees with vox_to_ras, then
 * vox_to_ras. Axis permutations between the two are refused (CLPK_ERROR_UNSUPPORTED). */
clpk_status clpk_trk_voxmm_to_rasmm(const clpk_trk *t, double affine[4][4], clpk_error *err);

#endif
