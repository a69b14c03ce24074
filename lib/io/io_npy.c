/* NumPy .npy files: versions 1.0-3.0, the five dtypes of clpk_dtype in either byte order, C order only.
 *
 * The layout is: "\x93NUMPY", major, minor, a little-endian header length (2 bytes in 1.0, 4 in 2.0/3.0), a Python
 * dict literal {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and '\n', then the raw
 * data. The dict is parsed by a small recursive-descent reader that accepts exactly that grammar (either quote
 * style, any spacing, trailing commas, Python 2 "3L" integers), never eval-like. */
#include "clpk_internal.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { NPY_MAGIC_LEN = 6, NPY_MAX_HEADER = 1 << 20 };
static const char npy_magic[NPY_MAGIC_LEN] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* ---- dtypes -------------------------------------------------------------------------------------------------- */

size_t clpk_dtype_size(clpk_dtype dtype) {
    switch (dtype) {
    case CLPK_DTYPE_F32: return 4;
    case CLPK_DTYPE_F64: return 8;
    case CLPK_DTYPE_I32: return 4;
    case CLPK_DTYPE_I64: return 8;
    case CLPK_DTYPE_U8: return 1;
    }
    return 0;
}

const char *clpk_dtype_name(clpk_dtype dtype) {
    switch (dtype) {
    case CLPK_DTYPE_F32: return "float32";
    case CLPK_DTYPE_F64: return "float64";
    case CLPK_DTYPE_I32: return "int32";
    case CLPK_DTYPE_I64: return "int64";
    case CLPK_DTYPE_U8: return "uint8";
    }
    return "unknown";
}

static int host_is_little_endian(void) {
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

static void swap_bytes(void *data, int64_t count, size_t size) {
    unsigned char *p = data;
    if (size < 2) return;
    for (int64_t k = 0; k < count; ++k, p += size)
        for (size_t i = 0; i < size / 2; ++i) {
            unsigned char t = p[i];
            p[i] = p[size - 1 - i];
            p[size - 1 - i] = t;
        }
}

/* ---- Header ---------------------------------------------------------------------------------------------------- */

typedef struct npy_header {
    clpk_dtype dtype;
    int big_endian; /* byte order of the data in the file */
    int ndim;
    int64_t shape[CLPK_NPY_MAX_DIMS];
    int64_t count;
    size_t data_offset; /* bytes before the data: preamble plus header */
    uint64_t data_bytes;
} npy_header;

/* The dict text being parsed, with the position used in messages. */
typedef struct npy_text {
    const char *p, *begin, *end;
    const char *name;
} npy_text;

__attribute__((format(printf, 3, 4))) static clpk_status npy_fail(const char *name, clpk_error *err, const char *fmt,
                                                                  ...) {
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return core_error_set(err, CLPK_ERROR_PARSE, "%s: %s", name, what);
}

__attribute__((format(printf, 3, 4))) static clpk_status dict_fail(const npy_text *t, clpk_error *err, const char *fmt,
                                                                   ...) {
    char what[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return npy_fail(t->name, err, "header dict, at offset %td: %s", t->p - t->begin, what);
}

static void skip_space(npy_text *t) {
    while (t->p < t->end && (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r')) ++t->p;
}

static int take(npy_text *t, char c) {
    skip_space(t);
    if (t->p < t->end && *t->p == c) {
        ++t->p;
        return 1;
    }
    return 0;
}

/* A quoted string without escapes (none of the three keys or dtype strings need them). */
static clpk_status parse_string(npy_text *t, char *buf, size_t size, clpk_error *err) {
    skip_space(t);
    if (t->p >= t->end || (*t->p != '\'' && *t->p != '"')) return dict_fail(t, err, "expected a quoted string");
    char quote = *t->p++;
    size_t n = 0;
    while (t->p < t->end && *t->p != quote) {
        if (*t->p == '\\') return dict_fail(t, err, "escapes in strings are not supported");
        if (n + 1 >= size) return dict_fail(t, err, "string too long");
        buf[n++] = *t->p++;
    }
    if (t->p >= t->end) return dict_fail(t, err, "unterminated string");
    ++t->p;
    buf[n] = '\0';
    return CLPK_SUCCESS;
}

/* Maps a dtype string such as '<f8' or '|u1' to a clpk_dtype and byte order. */
static clpk_status parse_descr(npy_text *t, npy_header *h, clpk_error *err) {
    skip_space(t);
    if (t->p < t->end && (*t->p == '[' || *t->p == '{'))
        return dict_fail(t, err, "structured dtypes are not supported");
    char d[32];
    CLPK_TRY(parse_string(t, d, sizeof d, err));
    const char *s = d;
    h->big_endian = !host_is_little_endian(); // '|' and '=' mean native
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=') {
        if (*s == '<') h->big_endian = 0;
        if (*s == '>') h->big_endian = 1;
        ++s;
    }
    static const struct {
        const char *code;
        clpk_dtype dtype;
    } known[] = {{"f4", CLPK_DTYPE_F32},
                 {"f8", CLPK_DTYPE_F64},
                 {"i4", CLPK_DTYPE_I32},
                 {"i8", CLPK_DTYPE_I64},
                 {"u1", CLPK_DTYPE_U8}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
        if (strcmp(s, known[k].code) == 0) {
            h->dtype = known[k].dtype;
            return CLPK_SUCCESS;
        }
    return npy_fail(t->name, err,
                    "unsupported dtype '%s' (clpk reads float32 '<f4', float64 '<f8', int32 '<i4', "
                    "int64 '<i8' and uint8 '|u1', either byte order)",
                    d);
}

static clpk_status parse_fortran_order(npy_text *t, clpk_error *err) {
    skip_space(t);
    size_t left = (size_t)(t->end - t->p);
    if (left >= 5 && memcmp(t->p, "False", 5) == 0) {
        t->p += 5;
        return CLPK_SUCCESS;
    }
    if (left >= 4 && memcmp(t->p, "True", 4) == 0)
        return npy_fail(t->name, err,
                        "fortran_order is True: only C-ordered arrays are supported (save with np.ascontiguousarray)");
    return dict_fail(t, err, "fortran_order must be True or False");
}

/* A non-negative integer, with the "L" suffix that Python 2 wrote for longs. */
static clpk_status parse_dim(npy_text *t, int64_t *out, clpk_error *err) {
    skip_space(t);
    if (t->p < t->end && *t->p == '-') return dict_fail(t, err, "negative dimension");
    if (t->p >= t->end || (unsigned)(*t->p - '0') > 9) return dict_fail(t, err, "expected a dimension");
    int64_t v = 0;
    for (; t->p < t->end && (unsigned)(*t->p - '0') <= 9; ++t->p) {
        int d = *t->p - '0';
        if (v > (INT64_MAX - d) / 10) return dict_fail(t, err, "dimension too large");
        v = v * 10 + d;
    }
    if (t->p < t->end && (*t->p == 'L' || *t->p == 'l')) ++t->p;
    *out = v;
    return CLPK_SUCCESS;
}

/* "()", "(n,)", "(a, b)", "(a, b,)": a one-element tuple needs its comma, as in Python. */
static clpk_status parse_shape(npy_text *t, npy_header *h, clpk_error *err) {
    if (!take(t, '(')) return dict_fail(t, err, "shape must be a tuple");
    h->ndim = 0;
    int trailing_comma = 0;
    while (!take(t, ')')) {
        if (h->ndim == CLPK_NPY_MAX_DIMS) return npy_fail(t->name, err, "more than %d dimensions", CLPK_NPY_MAX_DIMS);
        CLPK_TRY(parse_dim(t, &h->shape[h->ndim++], err));
        trailing_comma = take(t, ',');
        skip_space(t);
        if (!trailing_comma && (t->p >= t->end || *t->p != ')')) return dict_fail(t, err, "expected ',' or ')'");
    }
    if (h->ndim == 1 && !trailing_comma) return dict_fail(t, err, "shape (n) is not a tuple: expected (n,)");
    return CLPK_SUCCESS;
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static clpk_status parse_item(npy_text *t, npy_header *h, unsigned *seen, clpk_error *err) {
    char key[32];
    CLPK_TRY(parse_string(t, key, sizeof key, err));
    unsigned which = strcmp(key, "descr") == 0           ? KEY_DESCR
                     : strcmp(key, "fortran_order") == 0 ? KEY_FORTRAN
                     : strcmp(key, "shape") == 0         ? KEY_SHAPE
                                                         : 0;
    if (!which) return dict_fail(t, err, "unexpected key '%s'", key);
    if (*seen & which) return dict_fail(t, err, "key '%s' appears twice", key);
    *seen |= which;
    if (!take(t, ':')) return dict_fail(t, err, "expected ':' after '%s'", key);
    if (which == KEY_DESCR) return parse_descr(t, h, err);
    if (which == KEY_FORTRAN) return parse_fortran_order(t, err);
    return parse_shape(t, h, err);
}

static clpk_status parse_dict(npy_text *t, npy_header *h, clpk_error *err) {
    if (!take(t, '{')) return dict_fail(t, err, "expected '{'");
    unsigned seen = 0;
    while (!take(t, '}')) {
        CLPK_TRY(parse_item(t, h, &seen, err));
        if (!take(t, ',')) {
            if (!take(t, '}')) return dict_fail(t, err, "expected ',' or '}'");
            break;
        }
    }
    skip_space(t);
    if (t->p != t->end) return dict_fail(t, err, "unexpected text after the dict");
    if (seen != (KEY_DESCR | KEY_FORTRAN | KEY_SHAPE))
        return npy_fail(t->name, err, "header lacks '%s'",
                        !(seen & KEY_DESCR)     ? "descr"
                        : !(seen & KEY_FORTRAN) ? "fortran_order"
                                                : "shape");
    return CLPK_SUCCESS;
}

/* Element count and byte size, refusing products that overflow. */
static clpk_status shape_size(npy_header *h, clpk_error *err, const char *name) {
    int64_t count = 1;
    for (int d = 0; d < h->ndim; ++d) {
        if (h->shape[d] != 0 && count > INT64_MAX / h->shape[d])
            return npy_fail(name, err, "shape product overflows 64 bits");
        count *= h->shape[d];
    }
    uint64_t size = clpk_dtype_size(h->dtype);
    if ((uint64_t)count > (uint64_t)SIZE_MAX / size) return npy_fail(name, err, "array too large for this machine");
    h->count = count;
    h->data_bytes = (uint64_t)count * size;
    return CLPK_SUCCESS;
}

/* Reads the fixed preamble: magic, version, header length. `prefix` receives 10 (v1) or 12 (v2, v3). */
static clpk_status parse_preamble(const unsigned char *b, size_t length, const char *name, size_t *prefix,
                                  uint32_t *header_len, clpk_error *err) {
    if (length < NPY_MAGIC_LEN || memcmp(b, npy_magic, NPY_MAGIC_LEN) != 0)
        return npy_fail(name, err, "not a .npy file (bad magic; expected \"\\x93NUMPY\")");
    if (length < 8) return npy_fail(name, err, "truncated: file ends inside the preamble");
    unsigned major = b[6], minor = b[7];
    if (major < 1 || major > 3 || minor != 0)
        return npy_fail(name, err, "unsupported .npy version %u.%u (clpk reads 1.0, 2.0 and 3.0)", major, minor);
    *prefix = major == 1 ? 10 : 12;
    if (length < *prefix) return npy_fail(name, err, "truncated: file ends inside the preamble");
    *header_len = major == 1 ? (uint32_t)b[8] | (uint32_t)b[9] << 8
                             : (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
    if (*header_len > NPY_MAX_HEADER)
        return npy_fail(name, err, "header of %" PRIu32 " bytes is implausibly long", *header_len);
    return CLPK_SUCCESS;
}

/* Parses preamble and header from the first bytes of a file; `length` may cover only part of the data. */
static clpk_status parse_header(const unsigned char *b, size_t length, const char *name, npy_header *h,
                                clpk_error *err) {
    memset(h, 0, sizeof *h);
    size_t prefix = 0;
    uint32_t header_len = 0;
    CLPK_TRY(parse_preamble(b, length, name, &prefix, &header_len, err));
    if (length - prefix < header_len)
        return npy_fail(name, err, "truncated: the header needs %" PRIu32 " bytes, the file has %zu after the preamble",
                        header_len, length - prefix);
    npy_text t = {(const char *)b + prefix, (const char *)b + prefix, (const char *)b + prefix + header_len, name};
    CLPK_TRY(parse_dict(&t, h, err));
    CLPK_TRY(shape_size(h, err, name));
    h->data_offset = prefix + header_len;
    return CLPK_SUCCESS;
}

/* Allocates the array for a parsed header (at least one byte, so data is never NULL on success). */
static clpk_status npy_allocate(const npy_header *h, clpk_npy *out, const char *name, clpk_error *err) {
    out->data = malloc(h->data_bytes ? (size_t)h->data_bytes : 1);
    if (!out->data)
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %" PRIu64 " bytes", name,
                              h->data_bytes);
    out->dtype = h->dtype;
    out->ndim = h->ndim;
    memcpy(out->shape, h->shape, sizeof out->shape);
    out->count = h->count;
    return CLPK_SUCCESS;
}

static void to_native(const npy_header *h, clpk_npy *out) {
    if (h->big_endian == host_is_little_endian()) swap_bytes(out->data, out->count, clpk_dtype_size(out->dtype));
}

void clpk_npy_free(clpk_npy *array) {
    if (!array) return;
    free(array->data);
    memset(array, 0, sizeof *array);
}

clpk_status clpk_npy_parse(const void *bytes, size_t length, const char *name, clpk_npy *out, clpk_error *err) {
    if (!out || (!bytes && length)) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_npy_parse: NULL");
    memset(out, 0, sizeof *out);
    if (!name) name = "<memory>";
    const unsigned char *b = bytes ? bytes : (const unsigned char *)"";
    npy_header h;
    CLPK_TRY(parse_header(b, length, name, &h, err));
    size_t have = length - h.data_offset;
    if (have < h.data_bytes)
        return npy_fail(name, err, "truncated: the data needs %" PRIu64 " bytes, the file has %zu", h.data_bytes, have);
    if (have > h.data_bytes)
        return npy_fail(name, err, "%" PRIu64 " bytes of unexpected data after the array",
                        (uint64_t)(have - h.data_bytes));
    CLPK_TRY(npy_allocate(&h, out, name, err));
    if (h.data_bytes) memcpy(out->data, b + h.data_offset, (size_t)h.data_bytes);
    to_native(&h, out);
    return CLPK_SUCCESS;
}

/* Reads the preamble and header into `buf` (malloc'ed) so the data can then be read straight into the array. */
static clpk_status read_header(FILE *f, const char *path, unsigned char **buf, size_t *len, clpk_error *err) {
    unsigned char pre[12];
    size_t got = fread(pre, 1, sizeof pre, f);
    size_t prefix = 0;
    uint32_t header_len = 0;
    CLPK_TRY(parse_preamble(pre, got, path, &prefix, &header_len, err));
    *len = prefix + header_len;
    *buf = malloc(*len);
    if (!*buf) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    memcpy(*buf, pre, got < *len ? got : *len);
    if (got < *len) *len = got + fread(*buf + got, 1, *len - got, f);
    else if (fseek(f, (long)*len, SEEK_SET) != 0) // a header shorter than 2 bytes: step back to the data
        return core_error_set(err, CLPK_ERROR_IO, "%s: seek failed: %s", path, strerror(errno));
    return CLPK_SUCCESS;
}

static clpk_status read_npy(FILE *f, const char *path, clpk_npy *out, clpk_error *err) {
    unsigned char *buf = NULL;
    size_t len = 0;
    npy_header h;
    clpk_status st = read_header(f, path, &buf, &len, err);
    if (st == CLPK_SUCCESS) st = parse_header(buf, len, path, &h, err);
    free(buf);
    CLPK_TRY(st);
    // Check the size before allocating, so a header claiming terabytes fails as truncated, not out of memory.
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)) {
        uint64_t have = (uint64_t)sb.st_size > h.data_offset ? (uint64_t)sb.st_size - h.data_offset : 0;
        if (have < h.data_bytes)
            return npy_fail(path, err, "truncated: the data needs %" PRIu64 " bytes, the file has %" PRIu64,
                            h.data_bytes, have);
    }
    CLPK_TRY(npy_allocate(&h, out, path, err));
    size_t got = fread(out->data, 1, (size_t)h.data_bytes, f);
    if (ferror(f)) return core_error_set(err, CLPK_ERROR_IO, "%s: read error", path);
    if (got < h.data_bytes)
        return npy_fail(path, err, "truncated: the data needs %" PRIu64 " bytes, the file has %zu", h.data_bytes, got);
    if (fgetc(f) != EOF) return npy_fail(path, err, "unexpected data after the array");
    to_native(&h, out);
    return CLPK_SUCCESS;
}

clpk_status clpk_npy_read(const char *path, clpk_npy *out, clpk_error *err) {
    if (!path || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_npy_read: NULL argument");
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    clpk_status st = read_npy(f, path, out, err);
    fclose(f);
    if (st != CLPK_SUCCESS) clpk_npy_free(out);
    return st;
}

/* ---- Writer --------------------------------------------------------------------------------------------------------
 */

static const char *descr_of(clpk_dtype dtype) {
    switch (dtype) {
    case CLPK_DTYPE_F32: return "<f4";
    case CLPK_DTYPE_F64: return "<f8";
    case CLPK_DTYPE_I32: return "<i4";
    case CLPK_DTYPE_I64: return "<i8";
    case CLPK_DTYPE_U8: return "|u1";
    }
    return NULL;
}

/* The 1.0 header, padded with spaces so the data starts on a 64-byte boundary as numpy does. */
static size_t format_header(char *buf, size_t size, clpk_dtype dtype, int ndim, const int64_t *shape) {
    char dims[CLPK_NPY_MAX_DIMS * 24 + 4] = "";
    size_t n = 0;
    for (int d = 0; d < ndim; ++d)
        n += (size_t)snprintf(dims + n, sizeof dims - n, "%s%" PRId64, d ? ", " : "", shape[d]);
    if (ndim == 1) snprintf(dims + n, sizeof dims - n, ",");
    int len = snprintf(buf + 10, size - 10, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr_of(dtype),
                       dims);
    size_t total = 10 + (size_t)len + 1;
    size_t padded = (total + 63) / 64 * 64;
    memset(buf + 10 + len, ' ', padded - total);
    buf[padded - 1] = '\n';
    size_t header_len = padded - 10;
    memcpy(buf, npy_magic, NPY_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (char)(header_len & 0xff);
    buf[9] = (char)(header_len >> 8);
    return padded;
}

/* Writes little-endian data; on a big-endian host through a swapped copy, a chunk at a time. */
static void write_data(FILE *f, const void *data, int64_t count, size_t size) {
    if (host_is_little_endian() || size == 1) {
        fwrite(data, size, (size_t)count, f);
        return;
    }
    unsigned char chunk[1 << 14];
    const unsigned char *p = data;
    int64_t per = (int64_t)(sizeof chunk / size);
    for (int64_t k = 0; k < count && !ferror(f); k += per) {
        int64_t n = count - k < per ? count - k : per;
        memcpy(chunk, p + (size_t)k * size, (size_t)n * size);
        swap_bytes(chunk, n, size);
        fwrite(chunk, size, (size_t)n, f);
    }
}

static clpk_status check_shape(const char *who, clpk_dtype dtype, int ndim, const int64_t *shape, const void *data,
                               int64_t *count, clpk_error *err) {
    if (!descr_of(dtype)) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", who, dtype);
    if (ndim < 0 || ndim > CLPK_NPY_MAX_DIMS || (ndim > 0 && !shape))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: bad ndim %d", who, ndim);
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) {
        if (shape[d] < 0 || (shape[d] != 0 && n > INT64_MAX / shape[d]))
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: bad dimension %" PRId64, who, shape[d]);
        n *= shape[d];
    }
    if (n > 0 && !data) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: NULL data", who);
    *count = n;
    return CLPK_SUCCESS;
}

clpk_status clpk_npy_write_raw(const char *path, clpk_dtype dtype, int ndim, const int64_t *shape, const void *data,
                               clpk_error *err) {
    if (!path) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_npy_write: NULL path");
    int64_t count = 0;
    CLPK_TRY(check_shape("clpk_npy_write", dtype, ndim, shape, data, &count, err));
    char header[512];
    size_t header_size = format_header(header, sizeof header, dtype, ndim, shape);
    FILE *f = fopen(path, "wb");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
    fwrite(header, 1, header_size, f);
    if (count > 0) write_data(f, data, count, clpk_dtype_size(dtype));
    int failed = ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) return core_error_set(err, CLPK_ERROR_IO, "%s: write error: %s", path, strerror(saved));
    return CLPK_SUCCESS;
}

clpk_status clpk_npy_write(const char *path, const clpk_npy *array, clpk_error *err) {
    if (!array) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_npy_write: NULL array");
    int64_t count = 0;
    CLPK_TRY(check_shape("clpk_npy_write", array->dtype, array->ndim, array->shape, array->data, &count, err));
    if (count != array->count)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "clpk_npy_write: count %" PRId64 " does not match the shape (%" PRId64 " elements)",
                              array->count, count);
    return clpk_npy_write_raw(path, array->dtype, array->ndim, array->shape, array->data, err);
}

/* ---- Conversion ------------------------------------------------------------------------------------------------ */

static int is_float(clpk_dtype d) { return d == CLPK_DTYPE_F32 || d == CLPK_DTYPE_F64; }

static double load_float(const void *data, clpk_dtype d, int64_t k) {
    if (d == CLPK_DTYPE_F32) return ((const float *)data)[k];
    return ((const double *)data)[k];
}

static int64_t load_int(const void *data, clpk_dtype d, int64_t k) {
    if (d == CLPK_DTYPE_I32) return ((const int32_t *)data)[k];
    if (d == CLPK_DTYPE_I64) return ((const int64_t *)data)[k];
    return ((const uint8_t *)data)[k];
}

static void int_range(clpk_dtype d, int64_t *lo, int64_t *hi) {
    *lo = d == CLPK_DTYPE_U8 ? 0 : d == CLPK_DTYPE_I32 ? INT32_MIN : INT64_MIN;
    *hi = d == CLPK_DTYPE_U8 ? UINT8_MAX : d == CLPK_DTYPE_I32 ? INT32_MAX : INT64_MAX;
}

/* Why element k cannot be represented in `to`, or NULL if it can. Checked for every element before anything is
 * written, so a refused conversion leaves the array as it was. */
static const char *refusal(const clpk_npy *a, clpk_dtype to, int64_t k) {
    if (is_float(a->dtype)) {
        double v = load_float(a->data, a->dtype, k);
        if (to == CLPK_DTYPE_F64) return NULL;
        if (to == CLPK_DTYPE_F32) return isfinite(v) && fabs(v) > FLT_MAX ? "overflows float32" : NULL;
        if (!isfinite(v)) return "is not finite";
        if (v != trunc(v)) return "is not an integer";
        int64_t lo, hi;
        int_range(to, &lo, &hi);
        // 2^63 is exact as a double while INT64_MAX is not: compare against the exclusive bound.
        if (to == CLPK_DTYPE_I64) return v >= -0x1p63 && v < 0x1p63 ? NULL : "is out of range";
        return v >= (double)lo && v <= (double)hi ? NULL : "is out of range";
    }
    if (is_float(to)) return NULL; // integers round to the nearest float; they cannot overflow
    int64_t v = load_int(a->data, a->dtype, k), lo, hi;
    int_range(to, &lo, &hi);
    return v >= lo && v <= hi ? NULL : "is out of range";
}

static void store(void *dst, clpk_dtype to, int64_t k, const clpk_npy *a) {
    if (is_float(a->dtype)) {
        double v = load_float(a->data, a->dtype, k);
        switch (to) {
        case CLPK_DTYPE_F32: ((float *)dst)[k] = (float)v; break;
        case CLPK_DTYPE_F64: ((double *)dst)[k] = v; break;
        case CLPK_DTYPE_I32: ((int32_t *)dst)[k] = (int32_t)v; break;
        case CLPK_DTYPE_I64: ((int64_t *)dst)[k] = (int64_t)v; break;
        case CLPK_DTYPE_U8: ((uint8_t *)dst)[k] = (uint8_t)v; break;
        }
        return;
    }
    int64_t v = load_int(a->data, a->dtype, k);
    switch (to) {
    case CLPK_DTYPE_F32: ((float *)dst)[k] = (float)v; break;
    case CLPK_DTYPE_F64: ((double *)dst)[k] = (double)v; break;
    case CLPK_DTYPE_I32: ((int32_t *)dst)[k] = (int32_t)v; break;
    case CLPK_DTYPE_I64: ((int64_t *)dst)[k] = v; break;
    case CLPK_DTYPE_U8: ((uint8_t *)dst)[k] = (uint8_t)v; break;
    }
}

clpk_status clpk_npy_convert(clpk_npy *array, clpk_dtype to, clpk_error *err) {
    if (!array || (!array->data && array->count > 0) || array->count < 0 || !clpk_dtype_size(array->dtype) ||
        !clpk_dtype_size(to))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_npy_convert: bad array or dtype");
    if (array->dtype == to) return CLPK_SUCCESS;
    for (int64_t k = 0; k < array->count; ++k) {
        const char *why = refusal(array, to, k);
        if (!why) continue;
        char value[64];
        if (is_float(array->dtype)) snprintf(value, sizeof value, "%.17g", load_float(array->data, array->dtype, k));
        else snprintf(value, sizeof value, "%" PRId64, load_int(array->data, array->dtype, k));
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "cannot convert %s to %s: element %" PRId64 " (%s) %s",
                              clpk_dtype_name(array->dtype), clpk_dtype_name(to), k, value, why);
    }
    size_t size = clpk_dtype_size(to);
    if ((uint64_t)array->count > SIZE_MAX / size)
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "clpk_npy_convert: array too large");
    void *dst = malloc(array->count ? (size_t)array->count * size : 1);
    if (!dst) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "clpk_npy_convert: out of memory");
    for (int64_t k = 0; k < array->count; ++k) store(dst, to, k, array);
    free(array->data);
    array->data = dst;
    array->dtype = to;
    return CLPK_SUCCESS;
}
