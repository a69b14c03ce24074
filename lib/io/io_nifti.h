/* A NIfTI-1 reader for diffusion volumes: single-file .nii or .nii.gz (gzip through zlib), every common scalar
 * datatype, either byte order, scl_slope/scl_inter applied, the voxel-to-world affine from sform, qform or pixdim.
 * Two-file (.hdr/.img), NIfTI-2 and complex/RGB data are refused with a message naming the file. And a float32
 * NIfTI-1 writer (results such as fibre peaks) that copies the geometry of an input volume. Not installed. */
#ifndef CLPK_IO_NIFTI_H
#define CLPK_IO_NIFTI_H

#include "clpk_internal.h"

typedef struct nifti_file {
    int32_t nx, ny, nz, nt;  /* dims 1..4 (missing ones are 1); higher dims must be 1 */
    int32_t nu;              /* dim 5: 1, unless read by nifti_file_read_5d */
    int32_t ndim;            /* dim[0] of the file */
    int datatype;            /* NIfTI code of the file's data */
    double pixdim[4];        /* qfac, dx, dy, dz */
    double affine[4][4];     /* voxel (i, j, k) -> world mm */
    const char *affine_from; /* "sform", "qform" or "pixdim" */
    double *data;            /* nx * ny * nz * nt (* nu) values, x fastest, scaled */
    /* the geometry fields as stored, so that a writer can copy them exactly */
    int qform_code, sform_code, xyzt_units;
    double quatern[3], qoffset[3]; /* quatern_b, c, d; qoffset_x, y, z */
    double srow[3][4];
} nifti_file;

clpk_status nifti_file_read(const char *path, nifti_file *out, clpk_error *err);
/* The same from the (decompressed) bytes of a .nii file; `name` appears in messages. */
clpk_status nifti_file_parse(const void *bytes, size_t length, const char *name, nifti_file *out, clpk_error *err);
void nifti_file_free(nifti_file *v);
/* As nifti_file_read, but a fifth dimension (v->nu) is accepted too (dipy's peak arrays are X x Y x Z x K x 3). */
clpk_status nifti_file_read_5d(const char *path, nifti_file *out, clpk_error *err);

/* Writes a float32 NIfTI-1 single file (header 348 bytes, empty extension flag, data at vox_offset 352, little
 * endian), gzip-compressed when the path ends in ".gz" (needs zlib). dims[0 .. ndim-1] (1 <= ndim <= 5, each 1 ..
 * 32767), data x fastest. The geometry (qform and sform codes and fields, qfac, voxel sizes, units) is copied from
 * `like` when not NULL, else 1 mm voxels with an identity sform. Non-finite values are written as they are. */
clpk_status nifti_file_write_f32(const char *path, int ndim, const int64_t *dims, const float *data,
                                 const nifti_file *like, clpk_error *err);

#endif
