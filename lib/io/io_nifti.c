/* NIfTI-1 single-file reader (see io_nifti.h). The header is validated field by field before any data is touched,
 * because a diffusion volume from an unknown tool is exactly the kind of input that arrives broken. */
#include "io_nifti.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef CLPK_HAVE_ZLIB
#include <zlib.h>
#endif

#define NIFTI1_HEADER_SIZE 348

void nifti_file_free(nifti_file *v) {
    if (!v) return;
    free(v->data);
    memset(v, 0, sizeof *v);
}

static void swap_bytes(unsigned char *p, size_t size) {
    for (size_t i = 0; i < size / 2; i++) {
        unsigned char t = p[i];
        p[i] = p[size - 1 - i];
        p[size - 1 - i] = t;
    }
}

static int16_t get_i16(const unsigned char *h, size_t off, int swap) {
    unsigned char b[2];
    memcpy(b, h + off, 2);
    if (swap) swap_bytes(b, 2);
    int16_t v;
    memcpy(&v, b, 2);
    return v;
}

static int32_t get_i32(const unsigned char *h, size_t off, int swap) {
    unsigned char b[4];
    memcpy(b, h + off, 4);
    if (swap) swap_bytes(b, 4);
    int32_t v;
    memcpy(&v, b, 4);
    return v;
}

static double get_f32(const unsigned char *h, size_t off, int swap) {
    unsigned char b[4];
    memcpy(b, h + off, 4);
    if (swap) swap_bytes(b, 4);
    float v;
    memcpy(&v, b, 4);
    return v;
}

/* Element size in bytes of a supported NIfTI datatype, 0 if unsupported. */
static int datatype_size(int code) {
    switch (code) {
    case 2: /* uint8 */
    case 256: /* int8 */ return 1;
    case 4: /* int16 */
    case 512: /* uint16 */ return 2;
    case 8: /* int32 */
    case 768: /* uint32 */
    case 16: /* float32 */ return 4;
    case 64: /* float64 */
    case 1024: /* int64 */
    case 1280: /* uint64 */ return 8;
    default: return 0;
    }
}

static double element_value(const unsigned char *p, int code, int swap) {
    unsigned char b[8];
    int size = datatype_size(code);
    memcpy(b, p, (size_t)size);
    if (swap) swap_bytes(b, (size_t)size);
    switch (code) {
    case 2: return b[0];
    case 256: return (int8_t)b[0];
    case 4: { int16_t v; memcpy(&v, b, 2); return v; }
    case 512: { uint16_t v; memcpy(&v, b, 2); return v; }
    case 8: { int32_t v; memcpy(&v, b, 4); return v; }
    case 768: { uint32_t v; memcpy(&v, b, 4); return v; }
    case 16: { float v; memcpy(&v, b, 4); return v; }
    case 64: { double v; memcpy(&v, b, 8); return v; }
    case 1024: { int64_t v; memcpy(&v, b, 8); return (double)v; }
    default: { uint64_t v; memcpy(&v, b, 8); return (double)v; }
    }
}

static void quaternion_affine(const unsigned char *h, int swap, const double pixdim[4], double A[4][4]) {
    double b = get_f32(h, 256, swap), c = get_f32(h, 260, swap), d = get_f32(h, 264, swap);
    double a = 1.0 - (b * b + c * c + d * d);
    if (a < 1e-7) { /* a 180-degree rotation: renormalise (b, c, d) as the NIfTI reference does */
        double s = 1.0 / sqrt(b * b + c * c + d * d);
        b *= s, c *= s, d *= s, a = 0.0;
    } else {
        a = sqrt(a);
    }
    double qfac = pixdim[0] < 0 ? -1.0 : 1.0;
    double sx = pixdim[1], sy = pixdim[2], sz = qfac * pixdim[3];
    double R[3][3] = {{a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)},
                      {2 * (b * c + a * d), a * a + c * c - b * b - d * d, 2 * (c * d - a * b)},
                      {2 * (b * d - a * c), 2 * (c * d + a * b), a * a + d * d - c * c - b * b}};
    for (int i = 0; i < 3; i++) {
        A[i][0] = R[i][0] * sx;
        A[i][1] = R[i][1] * sy;
        A[i][2] = R[i][2] * sz;
    }
    A[0][3] = get_f32(h, 268, swap);
    A[1][3] = get_f32(h, 272, swap);
    A[2][3] = get_f32(h, 276, swap);
    A[3][0] = A[3][1] = A[3][2] = 0.0;
    A[3][3] = 1.0;
}

static clpk_status parse(const void *bytes, size_t length, const char *name, int max_dims, nifti_file *v,
                         clpk_error *err) {
    memset(v, 0, sizeof *v);
    const unsigned char *h = bytes;
    if (!h || length < 4)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: truncated NIfTI header (%zu bytes)", name, length);
    int swap = 0;
    int32_t sizeof_hdr = get_i32(h, 0, 0);
    if (sizeof_hdr != NIFTI1_HEADER_SIZE) {
        int32_t swapped = get_i32(h, 0, 1);
        if (swapped == NIFTI1_HEADER_SIZE) swap = 1;
        else if (sizeof_hdr == 540 || swapped == 540)
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: NIfTI-2 files are not supported (convert to NIfTI-1)",
                                  name);
        else
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: not a NIfTI-1 file (sizeof_hdr %d, expected 348)", name,
                                  (int)sizeof_hdr);
    }
    if (length < NIFTI1_HEADER_SIZE)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: truncated NIfTI header (%zu of 348 bytes)", name, length);
    if (memcmp(h + 344, "ni1\0", 4) == 0)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: two-file NIfTI (.hdr/.img) is not supported; use .nii", name);
    if (memcmp(h + 344, "n+1\0", 4) != 0)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: bad NIfTI magic (expected \"n+1\")", name);

    int ndim = get_i16(h, 40, swap);
    if (ndim < 1 || ndim > 7)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: dim[0] = %d, expected 1..7", name, ndim);
    int64_t dims[7] = {1, 1, 1, 1, 1, 1, 1};
    int64_t total = 1;
    for (int i = 0; i < ndim; i++) {
        dims[i] = get_i16(h, 42 + 2 * (size_t)i, swap);
        if (dims[i] < 1)
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: dim[%d] = %lld, expected >= 1", name, i + 1,
                                  (long long)dims[i]);
        total *= dims[i];
        if (i >= max_dims && dims[i] != 1)
            return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "%s: %d-D data (dim[%d] = %lld) is not supported", name,
                                  ndim, i + 1, (long long)dims[i]);
    }
    int datatype = get_i16(h, 70, swap), bitpix = get_i16(h, 72, swap);
    int esize = datatype_size(datatype);
    if (esize == 0)
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED,
                              "%s: datatype %d is not supported (only real scalar integer and float types)", name,
                              datatype);
    if (bitpix != 8 * esize)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: bitpix %d does not match datatype %d (%d bits)", name, bitpix,
                              datatype, 8 * esize);
    for (int i = 0; i < 4; i++) v->pixdim[i] = get_f32(h, 76 + 4 * (size_t)i, swap);
    for (int i = 1; i < 4; i++)
        if (!isfinite(v->pixdim[i]) || (i <= ndim && !(v->pixdim[i] > 0)))
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: pixdim[%d] = %g, expected a positive voxel size", name, i,
                                  v->pixdim[i]);
    double vox_offset = get_f32(h, 108, swap);
    if (!(vox_offset >= NIFTI1_HEADER_SIZE + 4) || vox_offset != floor(vox_offset) || vox_offset > 1e12)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: vox_offset %g, expected an integer >= 352", name, vox_offset);
    double slope = get_f32(h, 112, swap), inter = get_f32(h, 116, swap);
    int scaled = isfinite(slope) && slope != 0.0; /* 0 or NaN: no scaling (the NIfTI rule) */
    if (scaled && !isfinite(inter))
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: scl_inter is not finite", name);
    if (isinf(slope)) return core_error_set(err, CLPK_ERROR_PARSE, "%s: scl_slope is infinite", name);

    size_t offset = (size_t)vox_offset;
    if ((uint64_t)total > (SIZE_MAX - offset) / (size_t)esize / 2)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: volume too large (%lld voxels)", name, (long long)total);
    size_t need = offset + (size_t)total * (size_t)esize;
    if (length < need)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: truncated: data needs %zu bytes, file has %zu", name, need,
                              length);

    int qform = get_i16(h, 252, swap), sform = get_i16(h, 254, swap);
    v->qform_code = qform;
    v->sform_code = sform;
    v->xyzt_units = h[123];
    for (int i = 0; i < 3; i++) {
        v->quatern[i] = get_f32(h, 256 + 4 * (size_t)i, swap);
        v->qoffset[i] = get_f32(h, 268 + 4 * (size_t)i, swap);
        for (int c = 0; c < 4; c++) v->srow[i][c] = get_f32(h, 280 + 16 * (size_t)i + 4 * (size_t)c, swap);
    }
    if (sform > 0) {
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) v->affine[r][c] = get_f32(h, 280 + 16 * (size_t)r + 4 * (size_t)c, swap);
        v->affine[3][3] = 1.0;
        v->affine_from = "sform";
    } else if (qform > 0) {
        quaternion_affine(h, swap, v->pixdim, v->affine);
        v->affine_from = "qform";
    } else {
        for (int i = 0; i < 3; i++) v->affine[i][i] = v->pixdim[i + 1] > 0 ? v->pixdim[i + 1] : 1.0;
        v->affine[3][3] = 1.0;
        v->affine_from = "pixdim";
    }
    double det = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            if (!isfinite(v->affine[r][c]))
                return core_error_set(err, CLPK_ERROR_PARSE, "%s: the %s affine is not finite", name, v->affine_from);
    det = v->affine[0][0] * (v->affine[1][1] * v->affine[2][2] - v->affine[1][2] * v->affine[2][1]) -
          v->affine[0][1] * (v->affine[1][0] * v->affine[2][2] - v->affine[1][2] * v->affine[2][0]) +
          v->affine[0][2] * (v->affine[1][0] * v->affine[2][1] - v->affine[1][1] * v->affine[2][0]);
    if (!(fabs(det) > 1e-12))
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: the %s affine is singular", name, v->affine_from);

    v->nx = (int32_t)dims[0];
    v->ny = (int32_t)dims[1];
    v->nz = (int32_t)dims[2];
    v->nt = (int32_t)dims[3];
    v->nu = (int32_t)dims[4];
    v->ndim = ndim;
    v->datatype = datatype;
    v->data = malloc((size_t)total * sizeof *v->data);
    if (!v->data)
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory (%lld voxels)", name, (long long)total);
    const unsigned char *src = h + offset;
    for (int64_t i = 0; i < total; i++) {
        double x = element_value(src + (size_t)i * (size_t)esize, datatype, swap);
        v->data[i] = scaled ? x * slope + inter : x;
    }
    return CLPK_SUCCESS;
}

clpk_status nifti_file_parse(const void *bytes, size_t length, const char *name, nifti_file *v, clpk_error *err) {
    return parse(bytes, length, name, 4, v, err);
}

/* Reads a whole file, gunzipping it when it is gzip data (zlib reads plain files unchanged). */
static clpk_status read_all(const char *path, unsigned char **bytes, size_t *length, clpk_error *err) {
    *bytes = NULL;
    *length = 0;
#ifdef CLPK_HAVE_ZLIB
    gzFile f = gzopen(path, "rb");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    clpk_status st = buf ? CLPK_SUCCESS : core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    while (st == CLPK_SUCCESS) {
        if (len == cap) {
            unsigned char *bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!bigger) {
                st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t want = cap - len > (1u << 30) ? (1u << 30) : cap - len;
        int got = gzread(f, buf + len, (unsigned)want);
        if (got < 0) {
            int code = 0;
            const char *msg = gzerror(f, &code);
            st = core_error_set(err, CLPK_ERROR_IO, "%s: read error (corrupt or truncated gzip?): %s", path, msg);
            break;
        }
        if (got == 0) {
            int code = 0;
            const char *msg = gzerror(f, &code);
            if (code != Z_OK && code != Z_STREAM_END)
                st = core_error_set(err, CLPK_ERROR_IO, "%s: read error (corrupt or truncated gzip?): %s", path, msg);
            break;
        }
        len += (size_t)got;
    }
    gzclose(f);
    if (st != CLPK_SUCCESS) {
        free(buf);
        return st;
    }
    *bytes = buf;
    *length = len;
    return CLPK_SUCCESS;
#else
    char *text = NULL;
    CLPK_TRY(core_read_file(path, &text, length, err));
    if (*length >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b) {
        free(text);
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "%s: gzip-compressed, but clpk was built without zlib",
                              path);
    }
    *bytes = (unsigned char *)text;
    return CLPK_SUCCESS;
#endif
}

static clpk_status read_dims(const char *path, int max_dims, nifti_file *out, clpk_error *err) {
    if (!path || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "nifti_file_read: NULL argument");
    memset(out, 0, sizeof *out);
    unsigned char *bytes = NULL;
    size_t length = 0;
    CLPK_TRY(read_all(path, &bytes, &length, err));
    clpk_status st = parse(bytes, length, path, max_dims, out, err);
    free(bytes);
    return st;
}

clpk_status nifti_file_read(const char *path, nifti_file *out, clpk_error *err) { return read_dims(path, 4, out, err); }

clpk_status nifti_file_read_5d(const char *path, nifti_file *out, clpk_error *err) {
    return read_dims(path, 5, out, err);
}

/* ---- Writer ------------------------------------------------------------------------------------------------- */

static void put_i16(unsigned char *h, size_t off, int v) {
    int16_t x = (int16_t)v;
    memcpy(h + off, &x, 2); /* little-endian hosts only (checked by the caller) */
}
static void put_i32(unsigned char *h, size_t off, int32_t v) { memcpy(h + off, &v, 4); }
static void put_f32(unsigned char *h, size_t off, double v) {
    float x = (float)v;
    memcpy(h + off, &x, 4);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

clpk_status nifti_file_write_f32(const char *path, int ndim, const int64_t *dims, const float *data,
                                 const nifti_file *like, clpk_error *err) {
    if (!path || !dims || !data)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "nifti_file_write_f32: NULL argument");
    if (ndim < 1 || ndim > 5)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: %d dimensions, expected 1..5", path, ndim);
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    if (first != 1)
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "%s: the NIfTI writer needs a little-endian host", path);
    size_t total = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 1 || dims[i] > 32767)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: dimension %d is %lld, expected 1..32767",
                                  path, i + 1, (long long)dims[i]);
        total *= (size_t)dims[i];
    }
    unsigned char h[352];
    memset(h, 0, sizeof h);
    put_i32(h, 0, NIFTI1_HEADER_SIZE);
    h[38] = 'r';
    put_i16(h, 40, ndim);
    for (int i = 0; i < 7; i++) put_i16(h, 42 + 2 * (size_t)i, i < ndim ? (int)dims[i] : 1);
    put_i16(h, 70, 16); /* float32 */
    put_i16(h, 72, 32);
    for (int i = 0; i < 8; i++) put_f32(h, 76 + 4 * (size_t)i, 1.0);
    put_f32(h, 108, 352.0);
    put_f32(h, 112, 1.0); /* scl_slope 1, scl_inter 0: values as stored */
    snprintf((char *)h + 148, 80, "clpk");
    if (like) {
        put_f32(h, 76, like->pixdim[0] < 0 ? -1.0 : 1.0);
        for (int i = 1; i < 4; i++) put_f32(h, 76 + 4 * (size_t)i, like->pixdim[i] > 0 ? like->pixdim[i] : 1.0);
        h[123] = (unsigned char)like->xyzt_units;
        put_i16(h, 252, like->qform_code);
        put_i16(h, 254, like->sform_code);
        for (int i = 0; i < 3; i++) {
            put_f32(h, 256 + 4 * (size_t)i, like->quatern[i]);
            put_f32(h, 268 + 4 * (size_t)i, like->qoffset[i]);
            for (int c = 0; c < 4; c++) put_f32(h, 280 + 16 * (size_t)i + 4 * (size_t)c, like->srow[i][c]);
        }
    } else {
        h[123] = 2; /* mm */
        put_i16(h, 254, 2); /* sform: aligned to an anatomical truth, identity */
        put_f32(h, 280, 1.0), put_f32(h, 300, 1.0), put_f32(h, 320, 1.0);
    }
    memcpy(h + 344, "n+1\0", 4);
    /* bytes 348..351: extension flag 0 (no extensions) */
    const size_t bytes = total * sizeof(float);
    int gz = ends_with(path, ".gz");
    if (gz) {
#ifdef CLPK_HAVE_ZLIB
        gzFile f = gzopen(path, "wb6");
        if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
        int ok = gzwrite(f, h, sizeof h) == (int)sizeof h;
        const unsigned char *p = (const unsigned char *)data;
        for (size_t done = 0; ok && done < bytes;) {
            unsigned n = bytes - done > (1u << 30) ? (1u << 30) : (unsigned)(bytes - done);
            ok = gzwrite(f, p + done, n) == (int)n;
            done += n;
        }
        if (gzclose(f) != Z_OK) ok = 0;
        if (!ok) return core_error_set(err, CLPK_ERROR_IO, "%s: write failed", path);
        return CLPK_SUCCESS;
#else
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "%s: .gz output needs zlib (clpk was built without it)",
                              path);
#endif
    }
    FILE *f = fopen(path, "wb");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
    int ok = fwrite(h, 1, sizeof h, f) == sizeof h && fwrite(data, 1, bytes, f) == bytes;
    if (fclose(f) != 0) ok = 0;
    if (!ok) return core_error_set(err, CLPK_ERROR_IO, "%s: write failed: %s", path, strerror(errno));
    return CLPK_SUCCESS;
}
