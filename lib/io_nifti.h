/* A NIfTI-1 reader for diffusion volumes: single-file .nii or .nii.gz (gzip through zlib), every common scalar
 * datatype, either byte order, scl_slope/scl_inter applied, the voxel-to-world affine from sform, qform or pixdim.
 * Two-file (.hdr/.img), NIfTI-2 and complex/RGB data are refused with a message naming the file. Not installed. */
#ifndef CLPK_IO_NIFTI_H
#define CLPK_IO_NIFTI_H

#include "clpk_internal.h"

typedef struct clpk_nifti {
    int32_t nx, ny, nz, nt;  /* dims 1..4 (missing ones are 1); higher dims must be 1 */
    int datatype;            /* NIfTI code of the file's data */
    double pixdim[4];        /* qfac, dx, dy, dz */
    double affine[4][4];     /* voxel (i, j, k) -> world mm */
    const char *affine_from; /* "sform", "qform" or "pixdim" */
    double *data;            /* nx * ny * nz * nt values, x fastest, scaled */
} clpk_nifti;

clpk_status clpk_nifti_read(const char *path, clpk_nifti *out, clpk_error *err);
/* The same from the (decompressed) bytes of a .nii file; `name` appears in messages. */
clpk_status clpk_nifti_parse(const void *bytes, size_t length, const char *name, clpk_nifti *out, clpk_error *err);
void clpk_nifti_free(clpk_nifti *v);

#endif
