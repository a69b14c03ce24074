/* A TrackVis .trk reader: 1000-byte header (magic "TRACK", hdr_size 1000, either byte order), streamlines with
 * per-point scalars and per-streamline properties (skipped), points in TrackVis "voxmm" space (voxel corner at the
 * origin, millimetres). Truncated or inconsistent files are refused with a message naming the file. Not installed. */
#ifndef CLPK_IO_TRK_H
#define CLPK_IO_TRK_H

#include "clpk_internal.h"

typedef struct trk_file {
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
} trk_file;

clpk_status trk_file_read(const char *path, trk_file *out, clpk_error *err);
/* The same from memory (the fuzz target's entry point); `name` appears in messages. */
clpk_status trk_file_parse(const void *bytes, size_t length, const char *name, trk_file *out, clpk_error *err);
void trk_file_free(trk_file *t);

/* The affine from voxmm points to RAS+ millimetres, as nibabel computes it: scale by 1/voxel_size, shift by half a
 * voxel (TrackVis puts the origin at a voxel corner), flip axes where voxel_order disagrees with vox_to_ras, then
 * vox_to_ras. Axis permutations between the two are refused (CLPK_ERROR_UNSUPPORTED). */
clpk_status trk_file_voxmm_to_rasmm(const trk_file *t, double affine[4][4], clpk_error *err);

#endif
