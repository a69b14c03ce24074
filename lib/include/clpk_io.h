/* File formats users exchange with clpk: Matrix Market (sparse matrices, dense vectors) and NumPy .npy arrays.
 * These helpers need no device; failures are reported through the optional clpk_error argument. */
#ifndef CLPK_IO_H
#define CLPK_IO_H

#include "clpk_export.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sparse matrices ---------------------------------------------------------------------------------------- */

typedef enum clpk_mtx_symmetry {
    CLPK_MTX_GENERAL = 0,
    CLPK_MTX_SYMMETRIC,
    CLPK_MTX_SKEW_SYMMETRIC
} clpk_mtx_symmetry;

typedef enum clpk_mtx_field { CLPK_MTX_REAL = 0, CLPK_MTX_INTEGER, CLPK_MTX_PATTERN } clpk_mtx_field;

/* A matrix in coordinate form, 0-based, values in double. Entries are in file order (not sorted); duplicates are
 * kept as they are (they add up in a product). Owned by the caller: free with clpk_coo_free. */
typedef struct clpk_coo {
    int32_t rows, cols;
    int64_t nnz;
    int32_t *row;
    int32_t *col;
    double *val;
    clpk_mtx_symmetry symmetry; /* of the file; entries are already expanded to general */
    clpk_mtx_field field;       /* of the file; pattern entries have value 1 */
} clpk_coo;

/* A matrix in compressed sparse row form, 0-based, column indices sorted within a row, duplicates summed. */
typedef struct clpk_csr {
    int32_t rows, cols;
    int64_t nnz;
    int64_t *row_ptr; /* rows + 1 */
    int32_t *col;
    double *val;
} clpk_csr;

/* Reads a Matrix Market coordinate file (real | integer | pattern; general | symmetric | skew-symmetric) and expands
 * symmetric and skew-symmetric storage. Complex, hermitian, array-format and malformed files are refused with a
 * message naming the file and line. */
CLPK_API clpk_status clpk_mtx_read(const char *path, clpk_coo *out, clpk_error *err);
/* The same from a memory buffer (used by the fuzzer); `name` appears in messages. */
CLPK_API clpk_status clpk_mtx_parse(const char *text, size_t length, const char *name, clpk_coo *out, clpk_error *err);
/* Writes coordinate real general, 1-based, with 17 significant digits. */
CLPK_API clpk_status clpk_mtx_write(const char *path, const clpk_coo *m, clpk_error *err);

/* Dense vectors in Matrix Market array format (real general, one column). */
CLPK_API clpk_status clpk_mtx_read_vector(const char *path, double **values, int64_t *length, clpk_error *err);
CLPK_API clpk_status clpk_mtx_write_vector(const char *path, const double *values, int64_t length, clpk_error *err);

CLPK_API void clpk_coo_free(clpk_coo *m);
/* Sorts by (row, col), sums duplicates. Returns CLPK_ERROR_OUT_OF_MEMORY on allocation failure. */
CLPK_API clpk_status clpk_coo_to_csr(const clpk_coo *coo, clpk_csr *out, clpk_error *err);
CLPK_API void clpk_csr_free(clpk_csr *m);

/* ---- NumPy .npy --------------------------------------------------------------------------------------------- */

typedef enum clpk_dtype {
    CLPK_DTYPE_F32 = 1,
    CLPK_DTYPE_F64,
    CLPK_DTYPE_I32,
    CLPK_DTYPE_I64,
    CLPK_DTYPE_U8
} clpk_dtype;

CLPK_API size_t clpk_dtype_size(clpk_dtype dtype);
CLPK_API const char *clpk_dtype_name(clpk_dtype dtype); /* "float32", ... */

#define CLPK_NPY_MAX_DIMS 8

/* A C-ordered array in host memory. Owned by the caller: free with clpk_npy_free. */
typedef struct clpk_npy {
    clpk_dtype dtype;
    int ndim;
    int64_t shape[CLPK_NPY_MAX_DIMS];
    int64_t count; /* product of shape (1 for ndim 0) */
    void *data;
} clpk_npy;

/* Reads .npy versions 1.0-3.0, little- or big-endian (converted to native), of the dtypes above, C order.
 * Fortran order, other dtypes, object arrays and truncated files are refused with a message. */
CLPK_API clpk_status clpk_npy_read(const char *path, clpk_npy *out, clpk_error *err);
CLPK_API clpk_status clpk_npy_parse(const void *bytes, size_t length, const char *name, clpk_npy *out, clpk_error *err);
/* Writes version 1.0, little-endian, C order. */
CLPK_API clpk_status clpk_npy_write(const char *path, const clpk_npy *array, clpk_error *err);
/* Convenience: writes `data` with the given dtype and shape. */
CLPK_API clpk_status clpk_npy_write_raw(const char *path, clpk_dtype dtype, int ndim, const int64_t *shape, const void *data,
                       clpk_error *err);
CLPK_API void clpk_npy_free(clpk_npy *array);
/* Converts in place to another dtype (e.g. to F64 for a reference, to I32 for indices); refuses integer
 * conversions that would overflow and float-to-int of non-integral values. */
CLPK_API clpk_status clpk_npy_convert(clpk_npy *array, clpk_dtype to, clpk_error *err);

#ifdef __cplusplus
}
#endif

#endif
