/* NumPy .npy reader/writer and dtype conversion: round trips of every dtype and shape kind, hand-built files of
 * versions 1.0-3.0 in both byte orders, every refusal (status and file name in the message), and the real arrays in
 * ../shared/data when present. */
#include "check.h"
#include "clpk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static int write_bytes(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* ---- Hand-built files -------------------------------------------------------------------------------------------- */

typedef struct npy_bytes {
    unsigned char b[4096];
    size_t n;
} npy_bytes;

/* Magic, version major.minor, the header length in the version's width, the header text as given, then data. */
static void build(npy_bytes *f, unsigned major, unsigned minor, const char *header, const void *data, size_t len) {
    size_t h = strlen(header);
    memcpy(f->b, "\x93NUMPY", 6);
    f->b[6] = (unsigned char)major;
    f->b[7] = (unsigned char)minor;
    size_t at = 8;
    f->b[at++] = (unsigned char)(h & 0xff);
    f->b[at++] = (unsigned char)(h >> 8 & 0xff);
    if (major >= 2) {
        f->b[at++] = (unsigned char)(h >> 16 & 0xff);
        f->b[at++] = (unsigned char)(h >> 24 & 0xff);
    }
    memcpy(f->b + at, header, h);
    at += h;
    if (len) memcpy(f->b + at, data, len);
    f->n = at + len;
}

static void big_endian_copy(unsigned char *dst, const void *src, size_t count, size_t size) {
    const unsigned char *s = src;
    int little = 1;
    unsigned char probe;
    memcpy(&probe, &little, 1);
    for (size_t k = 0; k < count; ++k)
        for (size_t i = 0; i < size; ++i) dst[k * size + i] = probe ? s[k * size + size - 1 - i] : s[k * size + i];
}

static void test_versions_and_byte_orders(void) {
    const double f8[] = {1.5, -2.0, 3.25e-300, 7.0};
    const float f4[] = {1.5f, -2.0f, 1e30f};
    const int32_t i4[] = {-1, 2147483647, 7};
    const int64_t i8[] = {-9223372036854775807 - 1, 42, 1099511627776};
    const uint8_t u1[] = {0, 255, 17};
    unsigned char be[64];
    npy_bytes f;
    clpk_npy a;
    clpk_error err = {0};

    build(&f, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }          \n", f8, sizeof f8);
    if (CHECK(clpk_npy_parse(f.b, f.n, "v1.npy", &a, &err) == CLPK_SUCCESS, "v1 <f8: %s", err.message)) {
        CHECK(a.dtype == CLPK_DTYPE_F64 && a.ndim == 1 && a.shape[0] == 4 && a.count == 4, "v1 <f8 header");
        CHECK(memcmp(a.data, f8, sizeof f8) == 0, "v1 <f8 data");
    }
    clpk_npy_free(&a);
    CHECK(a.data == NULL && a.count == 0, "npy free clears");

    big_endian_copy(be, f8, 4, 8);
    build(&f, 2, 0, "{\"descr\":\">f8\",\"shape\":(2,2),\"fortran_order\":False}\n", be, 32);
    if (CHECK(clpk_npy_parse(f.b, f.n, "v2.npy", &a, &err) == CLPK_SUCCESS, "v2 >f8: %s", err.message)) {
        CHECK(a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 2 && a.count == 4, "v2 >f8 shape");
        CHECK(memcmp(a.data, f8, sizeof f8) == 0, "v2 >f8 converted to native");
    }
    clpk_npy_free(&a);

    big_endian_copy(be, f4, 3, 4);
    build(&f, 3, 0, "{'descr': '>f4', 'fortran_order': False, 'shape': (3L,)}", be, 12);
    CHECK(clpk_npy_parse(f.b, f.n, "v3f4.npy", &a, &err) == CLPK_SUCCESS && a.dtype == CLPK_DTYPE_F32 &&
              memcmp(a.data, f4, sizeof f4) == 0,
          "v3 >f4: %s", err.message);
    clpk_npy_free(&a);

    big_endian_copy(be, i4, 3, 4);
    build(&f, 1, 0, "{'descr': '>i4', 'fortran_order': False, 'shape': (3,)}", be, 12);
    CHECK(clpk_npy_parse(f.b, f.n, "i4.npy", &a, &err) == CLPK_SUCCESS && a.dtype == CLPK_DTYPE_I32 &&
              memcmp(a.data, i4, sizeof i4) == 0,
          ">i4: %s", err.message);
    clpk_npy_free(&a);

    big_endian_copy(be, i8, 3, 8);
    build(&f, 1, 0, "{'descr': '>i8', 'fortran_order': False, 'shape': (1, 3)}", be, 24);
    CHECK(clpk_npy_parse(f.b, f.n, "i8.npy", &a, &err) == CLPK_SUCCESS && a.dtype == CLPK_DTYPE_I64 && a.ndim == 2 &&
              memcmp(a.data, i8, sizeof i8) == 0,
          ">i8: %s", err.message);
    clpk_npy_free(&a);

    build(&f, 1, 0, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,)}", i8, 24);
    CHECK(clpk_npy_parse(f.b, f.n, "i8le.npy", &a, &err) == CLPK_SUCCESS && memcmp(a.data, i8, sizeof i8) == 0,
          "<i8: %s", err.message);
    clpk_npy_free(&a);

    const char *u1_headers[] = {"{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }",
                                "{'descr': '<u1', 'fortran_order': False, 'shape': (3,), }",
                                "{ 'shape' : ( 3 , ) , 'descr' : '|u1' , 'fortran_order' : False , }\n\n  "};
    for (int k = 0; k < 3; ++k) {
        build(&f, 1, 0, u1_headers[k], u1, 3);
        CHECK(clpk_npy_parse(f.b, f.n, "u1.npy", &a, &err) == CLPK_SUCCESS && a.dtype == CLPK_DTYPE_U8 &&
                  memcmp(a.data, u1, 3) == 0,
              "u1 header %d: %s", k, err.message);
        clpk_npy_free(&a);
    }

    build(&f, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': ()}", f8, 8);
    CHECK(clpk_npy_parse(f.b, f.n, "scalar.npy", &a, &err) == CLPK_SUCCESS && a.ndim == 0 && a.count == 1 &&
              ((double *)a.data)[0] == 1.5,
          "scalar: %s", err.message);
    clpk_npy_free(&a);

    build(&f, 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0, 3)}", NULL, 0);
    CHECK(clpk_npy_parse(f.b, f.n, "empty.npy", &a, &err) == CLPK_SUCCESS && a.ndim == 3 && a.count == 0 &&
              a.data != NULL,
          "empty array: %s", err.message);
    clpk_npy_free(&a);
}

/* ---- Refusals ------------------------------------------------------------------------------------------------------
 */

typedef struct bad_npy {
    const char *name;
    unsigned major, minor;
    const char *header; /* NULL: use `raw` as the whole file */
    size_t data_bytes;  /* zero bytes appended after the header */
    const char *needle;
    const char *raw;
    size_t raw_len;
} bad_npy;

#define HDR(descr, shape) "{'descr': '" descr "', 'fortran_order': False, 'shape': " shape ", }\n"

static const bad_npy bad_cases[] = {
    {"empty", 0, 0, NULL, 0, "bad magic", "", 0},
    {"bad_magic", 0, 0, NULL, 0, "bad magic", "\x93NUMPX\x01\x00\x00\x00", 10},
    {"text_file", 0, 0, NULL, 0, "bad magic", "hello, world\n", 13},
    {"short_preamble", 0, 0, NULL, 0, "truncated", "\x93NUMPY\x01", 7},
    {"short_length", 0, 0, NULL, 0, "truncated", "\x93NUMPY\x02\x00\x10\x00", 10},
    {"version_4", 4, 0, HDR("<f8", "(1,)"), 8, "unsupported .npy version 4.0", NULL, 0},
    {"version_1_1", 1, 1, HDR("<f8", "(1,)"), 8, "unsupported .npy version 1.1", NULL, 0},
    {"version_0", 0, 0, NULL, 0, "unsupported .npy version 0.0", "\x93NUMPY\x00\x00\x00\x00", 10},
    {"header_past_end", 0, 0, NULL, 0, "truncated: the header", "\x93NUMPY\x01\x00\x50\x00{'descr'", 17},
    {"truncated_data", 1, 0, HDR("<f8", "(4,)"), 31, "truncated: the data needs 32 bytes", NULL, 0},
    {"trailing_data", 1, 0, HDR("<f8", "(4,)"), 33, "after the array", NULL, 0},
    {"fortran_order", 1, 0, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", 32, "fortran_order", NULL, 0},
    {"complex_dtype", 1, 0, HDR("<c16", "(1,)"), 16, "unsupported dtype '<c16'", NULL, 0},
    {"half_dtype", 1, 0, HDR("<f2", "(1,)"), 2, "unsupported dtype '<f2'", NULL, 0},
    {"object_dtype", 1, 0, HDR("|O", "(1,)"), 8, "unsupported dtype '|O'", NULL, 0},
    {"int16_dtype", 1, 0, HDR("<i2", "(1,)"), 2, "unsupported dtype", NULL, 0},
    {"structured_dtype", 1, 0, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", 8, "structured",
     NULL, 0},
    {"missing_shape", 1, 0, "{'descr': '<f8', 'fortran_order': False}", 8, "lacks 'shape'", NULL, 0},
    {"missing_descr", 1, 0, "{'fortran_order': False, 'shape': (1,)}", 8, "lacks 'descr'", NULL, 0},
    {"extra_key", 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", 8, "unexpected key 'x'",
     NULL, 0},
    {"duplicate_key", 1, 0, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", 8, "twice", NULL,
     0},
    {"shape_not_tuple", 1, 0, HDR("<f8", "(3)"), 24, "not a tuple", NULL, 0},
    {"shape_list", 1, 0, HDR("<f8", "[3]"), 24, "must be a tuple", NULL, 0},
    {"shape_negative", 1, 0, HDR("<f8", "(-1,)"), 0, "negative dimension", NULL, 0},
    {"shape_nine_dims", 1, 0, HDR("|u1", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), 1, "more than 8 dimensions", NULL, 0},
    {"shape_overflow", 1, 0, HDR("<f8", "(4294967296, 4294967296, 4294967296)"), 0, "overflows", NULL, 0},
    {"shape_bytes_overflow", 1, 0, HDR("<f8", "(4611686018427387904,)"), 0, "too large for this machine", NULL, 0},
    {"dim_too_large", 1, 0, HDR("<f8", "(99999999999999999999,)"), 0, "dimension too large", NULL, 0},
    {"shape_junk", 1, 0, HDR("<f8", "(2 3)"), 0, "expected ',' or ')'", NULL, 0},
    {"not_a_dict", 1, 0, "'descr': '<f8'", 0, "expected '{'", NULL, 0},
    {"unterminated_string", 1, 0, "{'descr", 0, "unterminated string", NULL, 0},
    {"unterminated_dict", 1, 0, "{'descr': '<f8'", 0, "expected ',' or '}'", NULL, 0},
    {"escape_in_string", 1, 0, "{'de\\scr': '<f8'}", 0, "escapes", NULL, 0},
    {"fortran_not_bool", 1, 0, "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}", 8, "True or False", NULL, 0},
    {"missing_colon", 1, 0, "{'descr' '<f8', 'fortran_order': False, 'shape': (1,)}", 8, "expected ':'", NULL, 0},
    {"text_after_dict", 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x", 8, "after the dict", NULL,
     0},
};

static void make_bad(const bad_npy *c, npy_bytes *f) {
    if (!c->header) {
        memcpy(f->b, c->raw, c->raw_len);
        f->n = c->raw_len;
        return;
    }
    unsigned char zeros[64] = {0};
    build(f, c->major, c->minor, c->header, zeros, c->data_bytes);
}

static void test_refusals(const check_tmp_dir *dir) {
    char path[512];
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; ++k) {
        const bad_npy *c = &bad_cases[k];
        npy_bytes f;
        make_bad(c, &f);
        char name[96];
        snprintf(name, sizeof name, "bad_%s.npy", c->name);
        clpk_npy a;
        clpk_error err = {0};
        clpk_status st = clpk_npy_parse(f.b, f.n, name, &a, &err);
        CHECK(st == CLPK_ERROR_PARSE, "%s (memory): status %d: %s", c->name, st, err.message);
        CHECK(strncmp(err.message, name, strlen(name)) == 0 && strstr(err.message, c->needle),
              "%s (memory): message lacks the name or '%s': %s", c->name, c->needle, err.message);
        CHECK(a.data == NULL && a.count == 0, "%s: output not cleared", c->name);
        // The same through a file: the reader streams the data, so it has its own truncation checks.
        check_tmp_file(dir, name, path, sizeof path);
        if (!CHECK(write_bytes(path, f.b, f.n), "cannot write %s", path)) continue;
        memset(&err, 0, sizeof err);
        st = clpk_npy_read(path, &a, &err);
        CHECK(st == CLPK_ERROR_PARSE, "%s (file): status %d: %s", c->name, st, err.message);
        CHECK(strncmp(err.message, path, strlen(path)) == 0 && strstr(err.message, c->needle),
              "%s (file): message lacks the path or '%s': %s", c->name, c->needle, err.message);
        CHECK(a.data == NULL, "%s (file): output not cleared", c->name);
        CHECK(clpk_npy_parse(f.b, f.n, NULL, &a, NULL) == CLPK_ERROR_PARSE, "%s: no error record", c->name);
    }
    clpk_npy a;
    clpk_error err = {0};
    check_tmp_file(dir, "missing.npy", path, sizeof path);
    CHECK(clpk_npy_read(path, &a, &err) == CLPK_ERROR_IO && strstr(err.message, path), "missing file: %s", err.message);
}

/* ---- Round trips --------------------------------------------------------------------------------------------------
 */

static void fill_random(void *data, size_t bytes, uint64_t *rng) {
    unsigned char *p = data; // any bit pattern, NaNs included: the data is compared byte for byte
    for (size_t k = 0; k < bytes; ++k) p[k] = (unsigned char)check_rand(rng);
}

static void test_round_trips(const check_tmp_dir *dir, uint64_t *rng) {
    static const clpk_dtype dtypes[] = {CLPK_DTYPE_F32, CLPK_DTYPE_F64, CLPK_DTYPE_I32, CLPK_DTYPE_I64, CLPK_DTYPE_U8};
    static const struct {
        int ndim;
        int64_t shape[8];
    } shapes[] = {{0, {0}},      {1, {0}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 4}}, {8, {1, 2, 1, 1, 1, 1, 1, 7}},
                  {2, {100, 37}}};
    char path[512];
    check_tmp_file(dir, "round_trip.npy", path, sizeof path);
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
            int64_t count = 1;
            for (int k = 0; k < shapes[s].ndim; ++k) count *= shapes[s].shape[k];
            size_t bytes = (size_t)count * clpk_dtype_size(dtypes[d]);
            void *data = malloc(bytes + 8);
            fill_random(data, bytes, rng);
            clpk_error err = {0};
            clpk_npy a;
            clpk_status st = clpk_npy_write_raw(path, dtypes[d], shapes[s].ndim, shapes[s].shape, data, &err);
            if (CHECK(st == CLPK_SUCCESS, "write %s: %s", clpk_dtype_name(dtypes[d]), err.message) &&
                CHECK(clpk_npy_read(path, &a, &err) == CLPK_SUCCESS, "read %s ndim %d: %s", clpk_dtype_name(dtypes[d]),
                      shapes[s].ndim, err.message)) {
                CHECK(a.dtype == dtypes[d] && a.ndim == shapes[s].ndim && a.count == count, "round trip header");
                CHECK(memcmp(a.shape, shapes[s].shape, sizeof(int64_t) * (size_t)a.ndim) == 0, "round trip shape");
                CHECK(bytes == 0 || memcmp(a.data, data, bytes) == 0, "round trip data");
                // numpy aligns the data to 64 bytes; check the file size says the same.
                FILE *f = fopen(path, "rb");
                fseek(f, 0, SEEK_END);
                long size = ftell(f);
                fclose(f);
                CHECK((size - (long)bytes) % 64 == 0, "header not padded to 64 bytes (file %ld bytes)", size);
                // And through the struct writer.
                CHECK(clpk_npy_write(path, &a, &err) == CLPK_SUCCESS, "clpk_npy_write: %s", err.message);
                clpk_npy_free(&a);
            }
            free(data);
        }
    }
    double x = 1.0;
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, negative[1] = {-1};
    clpk_error err = {0};
    CHECK(clpk_npy_write_raw(path, CLPK_DTYPE_F64, 9, nine, &x, &err) == CLPK_ERROR_INVALID_ARGUMENT, "ndim 9");
    CHECK(clpk_npy_write_raw(path, CLPK_DTYPE_F64, 1, negative, &x, &err) == CLPK_ERROR_INVALID_ARGUMENT, "dim -1");
    CHECK(clpk_npy_write_raw(path, CLPK_DTYPE_F64, 1, nine, NULL, &err) == CLPK_ERROR_INVALID_ARGUMENT, "NULL data");
    CHECK(clpk_npy_write_raw(path, (clpk_dtype)99, 1, nine, &x, &err) == CLPK_ERROR_INVALID_ARGUMENT, "bad dtype");
    clpk_npy wrong = {CLPK_DTYPE_F64, 1, {1}, 2, &x};
    CHECK(clpk_npy_write(path, &wrong, &err) == CLPK_ERROR_INVALID_ARGUMENT, "count not matching the shape");
    check_tmp_file(dir, "no_such_dir/a.npy", path, sizeof path);
    CHECK(clpk_npy_write_raw(path, CLPK_DTYPE_F64, 1, nine, &x, &err) == CLPK_ERROR_IO && strstr(err.message, path),
          "unwritable: %s", err.message);
}

/* ---- Conversion ---------------------------------------------------------------------------------------------------
 */

/* Makes a 1-D array holding a copy of `values`. */
static clpk_npy make_array(clpk_dtype dtype, const void *values, int64_t n) {
    clpk_npy a = {dtype, 1, {n}, n, malloc((size_t)n * clpk_dtype_size(dtype) + 1)};
    memcpy(a.data, values, (size_t)n * clpk_dtype_size(dtype));
    return a;
}

static void expect_refused(const char *what, clpk_dtype from, const void *values, int64_t n, clpk_dtype to) {
    clpk_npy a = make_array(from, values, n);
    clpk_error err = {0};
    clpk_status st = clpk_npy_convert(&a, to, &err);
    CHECK(st == CLPK_ERROR_INVALID_DATA, "%s: status %d", what, st);
    CHECK(a.dtype == from && memcmp(a.data, values, (size_t)n * clpk_dtype_size(from)) == 0,
          "%s: array changed by a refused conversion", what);
    CHECK(strstr(err.message, clpk_dtype_name(to)) != NULL, "%s: message: %s", what, err.message);
    clpk_npy_free(&a);
}

static void test_convert(void) {
    const double d[] = {1.0, -2.0, 3.0, 0.0};
    clpk_npy a = make_array(CLPK_DTYPE_F64, d, 4);
    clpk_error err = {0};
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_I32, &err) == CLPK_SUCCESS && a.dtype == CLPK_DTYPE_I32 &&
              ((int32_t *)a.data)[1] == -2,
          "f64 -> i32: %s", err.message);
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_I64, &err) == CLPK_SUCCESS && ((int64_t *)a.data)[2] == 3, "i32 -> i64");
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_F32, &err) == CLPK_SUCCESS && ((float *)a.data)[1] == -2.0f, "i64 -> f32");
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS && memcmp(a.data, d, sizeof d) == 0, "f32 -> f64");
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS, "same dtype is a no-op");
    CHECK(a.count == 4 && a.ndim == 1 && a.shape[0] == 4, "shape kept");
    clpk_npy_free(&a);

    const uint8_t u[] = {0, 255};
    a = make_array(CLPK_DTYPE_U8, u, 2);
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS && ((double *)a.data)[1] == 255.0, "u8->f64");
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_U8, &err) == CLPK_SUCCESS && ((uint8_t *)a.data)[1] == 255, "f64->u8");
    clpk_npy_free(&a);

    const double lowest = -0x1p63;
    a = make_array(CLPK_DTYPE_F64, &lowest, 1);
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_I64, &err) == CLPK_SUCCESS && ((int64_t *)a.data)[0] == INT64_MIN,
          "-2^63 -> i64: %s", err.message);
    clpk_npy_free(&a);

    const double fraction[] = {1.0, 1.5}, nan[] = {NAN}, big[] = {1e300}, past_i32[] = {2147483648.0},
                 two63[] = {0x1p63}, negative[] = {-1.0};
    expect_refused("f64 1.5 -> i32", CLPK_DTYPE_F64, fraction, 2, CLPK_DTYPE_I32);
    expect_refused("f64 NaN -> i64", CLPK_DTYPE_F64, nan, 1, CLPK_DTYPE_I64);
    expect_refused("f64 1e300 -> f32", CLPK_DTYPE_F64, big, 1, CLPK_DTYPE_F32);
    expect_refused("f64 2^31 -> i32", CLPK_DTYPE_F64, past_i32, 1, CLPK_DTYPE_I32);
    expect_refused("f64 2^63 -> i64", CLPK_DTYPE_F64, two63, 1, CLPK_DTYPE_I64);
    expect_refused("f64 -1 -> u8", CLPK_DTYPE_F64, negative, 1, CLPK_DTYPE_U8);
    const int64_t i64[] = {1, 1099511627776};
    const int32_t i32[] = {255, 256};
    expect_refused("i64 2^40 -> i32", CLPK_DTYPE_I64, i64, 2, CLPK_DTYPE_I32);
    expect_refused("i32 256 -> u8", CLPK_DTYPE_I32, i32, 2, CLPK_DTYPE_U8);
    const float inf[] = {INFINITY};
    expect_refused("f32 inf -> i32", CLPK_DTYPE_F32, inf, 1, CLPK_DTYPE_I32);
    a = make_array(CLPK_DTYPE_F32, inf, 1);
    CHECK(clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS && isinf(((double *)a.data)[0]),
          "inf stays inf as a float");
    clpk_npy_free(&a);
    CHECK(clpk_npy_convert(NULL, CLPK_DTYPE_F64, &err) == CLPK_ERROR_INVALID_ARGUMENT, "NULL array");
}

static void test_dtype_names(void) {
    CHECK(clpk_dtype_size(CLPK_DTYPE_F32) == 4 && clpk_dtype_size(CLPK_DTYPE_F64) == 8 &&
              clpk_dtype_size(CLPK_DTYPE_I32) == 4 && clpk_dtype_size(CLPK_DTYPE_I64) == 8 &&
              clpk_dtype_size(CLPK_DTYPE_U8) == 1 && clpk_dtype_size((clpk_dtype)0) == 0,
          "dtype sizes");
    CHECK(strcmp(clpk_dtype_name(CLPK_DTYPE_F32), "float32") == 0 &&
              strcmp(clpk_dtype_name(CLPK_DTYPE_U8), "uint8") == 0 &&
              strcmp(clpk_dtype_name((clpk_dtype)42), "unknown") == 0,
          "dtype names");
}

/* ---- Shared data ---------------------------------------------------------------------------------------------------
 */

/* Reads a file both ways (streamed, and parsed from memory) and checks they agree with the expected header. */
static void check_shared(const char *path, clpk_dtype dtype, int64_t rows, int64_t cols, clpk_npy *out) {
    clpk_error err = {0};
    if (!CHECK(clpk_npy_read(path, out, &err) == CLPK_SUCCESS, "%s: %s", path, err.message)) return;
    CHECK(out->dtype == dtype && out->count == rows * (cols ? cols : 1), "%s: %s, %lld elements", path,
          clpk_dtype_name(out->dtype), (long long)out->count);
    CHECK(cols ? out->ndim == 2 && out->shape[0] == rows && out->shape[1] == cols
               : out->ndim == 1 && out->shape[0] == rows,
          "%s: shape", path);
    FILE *f = fopen(path, "rb");
    static unsigned char bytes[1 << 20];
    size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f) fclose(f);
    clpk_npy again;
    if (CHECK(clpk_npy_parse(bytes, n, path, &again, &err) == CLPK_SUCCESS, "%s parse: %s", path, err.message)) {
        CHECK(again.count == out->count &&
                  memcmp(again.data, out->data, (size_t)out->count * clpk_dtype_size(dtype)) == 0,
              "%s: read and parse disagree", path);
        clpk_npy_free(&again);
    }
}

static void test_shared_arrays(void) {
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s", CLPK_SHARED_DATA_DIR);
    snprintf(path, sizeof path, "%s/dic", dir);
    if (access(path, R_OK) != 0) {
        printf("SKIP shared arrays: %s is absent (the shared data lives in ../shared/data beside the checkout)\n",
               path);
        return;
    }
    static const struct {
        const char *file;
        clpk_dtype dtype;
        int64_t rows, cols;
    } files[] = {
        {"dic/refSpeckled.npy", CLPK_DTYPE_U8, 512, 512},        {"dic/defSpeckled.npy", CLPK_DTYPE_U8, 512, 512},
        {"dic/oht_cfrp_00.npy", CLPK_DTYPE_U8, 1040, 400},       {"dic/oht_cfrp_06.npy", CLPK_DTYPE_U8, 1040, 400},
        {"life/life_matlab_weights.npy", CLPK_DTYPE_F64, 60, 0}, {"life/life_matlab_rmse.npy", CLPK_DTYPE_F64, 62, 0}};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k].file);
        clpk_npy a = {0};
        check_shared(path, files[k].dtype, files[k].rows, files[k].cols, &a);
        if (!a.data) continue;
        clpk_error err = {0};
        if (CHECK(clpk_npy_convert(&a, CLPK_DTYPE_F64, &err) == CLPK_SUCCESS, "%s: to f64", files[k].file)) {
            const double *v = a.data;
            double lo = INFINITY, hi = -INFINITY;
            int finite = 1;
            for (int64_t i = 0; i < a.count; ++i) {
                finite &= isfinite(v[i]) != 0;
                lo = v[i] < lo ? v[i] : lo;
                hi = v[i] > hi ? v[i] : hi;
            }
            CHECK(finite && hi > lo, "%s: values not finite or constant", files[k].file);
            printf("  %-30s %-7s %lld elements, range [%g, %g]\n", files[k].file, clpk_dtype_name(files[k].dtype),
                   (long long)a.count, lo, hi);
        }
        clpk_npy_free(&a);
    }
}

int main(void) {
    uint64_t rng = check_seed();
    check_tmp_dir dir;
    if (!CHECK(check_tmp_dir_create(&dir, "io-npy"), "cannot create a temporary directory")) return check_summary();
    test_dtype_names();
    test_versions_and_byte_orders();
    test_refusals(&dir);
    test_round_trips(&dir, &rng);
    test_convert();
    test_shared_arrays();
    check_tmp_dir_remove(&dir);
    return check_summary();
}
