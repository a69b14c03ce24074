/* Matrix Market reader/writer and COO -> CSR: round trips, every malformed-file complaint (status, file and line),
 * symmetric expansion, duplicate summing, and the real SuiteSparse matrices in ../shared/data when present. */
#include "check.h"
#include "clpk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ---- Well-formed files ------------------------------------------------------------------------------------------ */

typedef struct entry {
    int32_t i, j;
    double v;
} entry;

/* Parses `text` from memory and checks shape, header facts and the exact entry sequence. */
static void expect_entries(const char *what, const char *text, int32_t rows, int32_t cols, clpk_mtx_field field,
                           clpk_mtx_symmetry symmetry, const entry *want, int64_t n) {
    clpk_coo m;
    clpk_error err = {0};
    clpk_status st = clpk_mtx_parse(text, strlen(text), what, &m, &err);
    if (!CHECK(st == CLPK_SUCCESS, "%s: status %d: %s", what, st, err.message)) return;
    CHECK(m.rows == rows && m.cols == cols, "%s: shape %d x %d", what, m.rows, m.cols);
    CHECK(m.field == field && m.symmetry == symmetry, "%s: field %d symmetry %d", what, m.field, m.symmetry);
    if (CHECK(m.nnz == n, "%s: nnz %lld, want %lld", what, (long long)m.nnz, (long long)n)) {
        for (int64_t k = 0; k < n; ++k)
            CHECK(m.row[k] == want[k].i && m.col[k] == want[k].j && same_double(m.val[k], want[k].v),
                  "%s: entry %lld is (%d, %d, %g), want (%d, %d, %g)", what, (long long)k, m.row[k], m.col[k], m.val[k],
                  want[k].i, want[k].j, want[k].v);
    }
    clpk_coo_free(&m);
}

static void test_good_files(void) {
    const entry general[] = {{0, 0, 1.5}, {2, 1, -2.0}, {1, 3, 3e-5}};
    expect_entries("general",
                   "%%MatrixMarket matrix coordinate real general\n% a comment\n\n  % indented comment\n"
                   "3 4 3\n1 1 1.5\n\n3 2 -2\n% comment between entries\n2 4 3e-5\n% trailing\n",
                   3, 4, CLPK_MTX_REAL, CLPK_MTX_GENERAL, general, 3);
    expect_entries("crlf tabs no final newline",
                   "%%matrixmarket MATRIX Coordinate REAL General\r\n3 4 3\r\n\t1\t1\t1.5\r\n 3  2 -2.0 \r\n2 4 .3e-4",
                   3, 4, CLPK_MTX_REAL, CLPK_MTX_GENERAL, general, 3);
    const entry sym[] = {{0, 0, 1}, {1, 0, 2}, {0, 1, 2}, {2, 0, 3}, {0, 2, 3}, {2, 2, 4}};
    expect_entries("symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 1 3\n3 3 4\n",
                   3, 3, CLPK_MTX_REAL, CLPK_MTX_SYMMETRIC, sym, 6);
    const entry skew[] = {{1, 0, 5}, {0, 1, -5}, {2, 1, -1.5}, {1, 2, 1.5}};
    expect_entries("skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 -1.5\n", 3, 3,
                   CLPK_MTX_REAL, CLPK_MTX_SKEW_SYMMETRIC, skew, 4);
    const entry pattern[] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 1}};
    expect_entries("pattern symmetric", "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 2\n2 2\n", 2, 2,
                   CLPK_MTX_PATTERN, CLPK_MTX_SYMMETRIC, pattern, 3);
    const entry integer[] = {{0, 0, -7}, {1, 1, 123456789012.0}, {0, 1, 3}};
    expect_entries("integer",
                   "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -7\n2 2 123456789012\n1 2 +3\n", 2, 2,
                   CLPK_MTX_INTEGER, CLPK_MTX_GENERAL, integer, 3);
    expect_entries("empty", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", 0, 0, CLPK_MTX_REAL,
                   CLPK_MTX_GENERAL, NULL, 0);
    const entry dup[] = {{0, 0, 1}, {0, 0, 2}};
    expect_entries("duplicates kept in coo", "%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 1\n1 1 2\n", 1,
                   1, CLPK_MTX_REAL, CLPK_MTX_GENERAL, dup, 2);
}

/* One entry whose value is `text`: the scanner must agree bit for bit with strtod (correct rounding). */
static void expect_value(const char *text) {
    char file[256];
    snprintf(file, sizeof file, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 %s\n", text);
    clpk_coo m;
    clpk_error err = {0};
    clpk_status st = clpk_mtx_parse(file, strlen(file), "value", &m, &err);
    if (CHECK(st == CLPK_SUCCESS && m.nnz == 1, "value '%s': %s", text, err.message)) {
        double want = strtod(text, NULL);
        CHECK(same_double(m.val[0], want), "value '%s' read as %.17g, strtod gives %.17g", text, m.val[0], want);
    }
    clpk_coo_free(&m);
}

static void test_number_scanner(uint64_t *rng) {
    static const char *const fixed[] = {"1",
                                        "-0",
                                        "0",
                                        "+2",
                                        "0.5",
                                        ".5",
                                        "5.",
                                        "1e-3",
                                        "1E+3",
                                        "0.1",
                                        "3.14159265358979323846",
                                        "-1.25e-7",
                                        "123456789012345678901234567890",
                                        "9007199254740993",
                                        "9007199254740992",
                                        "18446744073709551615",
                                        "2.2250738585072014e-308",
                                        "2.2250738585072011e-308",
                                        "4.9e-324",
                                        "1e-400",
                                        "1.7976931348623157e308",
                                        "0.000000000000000000000000000001",
                                        "1e22",
                                        "1e23",
                                        "123456789e-22",
                                        "00000000000000000000000001.5",
                                        "0e999999999",
                                        "8.98846567431158e307"};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; ++k) expect_value(fixed[k]);
    // Random short decimals exercise the exact fast path, random 17-digit ones the strtod path.
    char text[64];
    for (int k = 0; k < 2000; ++k) {
        double mant = check_rand_double(rng) * 2.0 - 1.0;
        int exp10 = (int)(check_rand(rng) % 61) - 30;
        int digits = 1 + (int)(check_rand(rng) % 17);
        snprintf(text, sizeof text, "%.*e", digits, mant * pow(10.0, exp10));
        expect_value(text);
        snprintf(text, sizeof text, "%.*f", (int)(check_rand(rng) % 8), mant * 1000.0);
        expect_value(text);
    }
}

/* ---- Malformed files ----------------------------------------------------------------------------------------------
 */

typedef struct bad_case {
    const char *name;
    const char *text;
    int line;           /* the line the message must name */
    const char *needle; /* a phrase the message must contain */
} bad_case;

#define BANNER "%%MatrixMarket matrix coordinate real general\n"
#define DIGITS_64 "1234567890123456789012345678901234567890123456789012345678901234"
#define LONG_DIGITS DIGITS_64 DIGITS_64 DIGITS_64 DIGITS_64 DIGITS_64 DIGITS_64 DIGITS_64 DIGITS_64 /* 512 */

static const bad_case bad_cases[] = {
    {"empty", "", 1, "empty file"},
    {"no_banner", "3 3 1\n1 1 1\n", 1, "not a Matrix Market file"},
    {"short_banner", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "malformed banner"},
    {"long_banner", "%%MatrixMarket matrix coordinate real general more\n1 1 1\n1 1 1\n", 1, "malformed banner"},
    {"vector_object", "%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 1, "object"},
    {"bad_format", "%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", 1, "format"},
    {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "complex"},
    {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, "hermitian"},
    {"bad_field", "%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 1\n", 1, "field"},
    {"bad_symmetry", "%%MatrixMarket matrix coordinate real upper\n1 1 1\n1 1 1\n", 1, "symmetry"},
    {"array_matrix", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "array"},
    {"array_pattern", "%%MatrixMarket matrix array pattern general\n2 2\n", 1, "field"},
    {"no_size_line", BANNER "% only a comment\n\n", 3, "missing size line"},
    {"size_two_numbers", BANNER "3 3\n1 1 1\n", 2, "size line"},
    {"size_four_numbers", BANNER "3 3 1 1\n1 1 1\n", 2, "size line"},
    {"size_not_number", BANNER "3 x 1\n1 1 1\n", 2, "not a non-negative integer"},
    {"size_negative", BANNER "-3 3 1\n1 1 1\n", 2, "not a non-negative integer"},
    {"rows_beyond_int32", BANNER "3000000000 3 1\n1 1 1\n", 2, "too large"},
    {"cols_beyond_int32", BANNER "3 2147483648 1\n1 1 1\n", 2, "too large"},
    {"nnz_beyond_int64", BANNER "3 3 99999999999999999999\n1 1 1\n", 2, "too large"},
    {"symmetric_not_square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "square"},
    {"skew_not_square", "%%MatrixMarket matrix coordinate real skew-symmetric\n4 3 1\n2 1 1\n", 2, "square"},
    {"truncated", BANNER "3 3 3\n1 1 1\n2 2 2\n", 4, "ends after 2 of the 3"},
    {"truncated_no_newline", BANNER "3 3 3\n1 1 1\n2 2 2", 4, "ends after 2 of the 3"},
    {"truncated_huge_nnz", BANNER "3 3 1000000000000\n1 1 1\n", 3, "ends after 1 of the 1000000000000"},
    {"too_many", BANNER "3 3 1\n1 1 1\n2 2 2\n", 4, "more entries"},
    {"too_many_after_comment", BANNER "3 3 1\n1 1 1\n% ok\n\n3 3 3\n", 6, "more entries"},
    {"row_zero", BANNER "3 3 1\n0 1 1.0\n", 3, "out of range"},
    {"row_past_end", BANNER "3 3 1\n4 1 1.0\n", 3, "out of range 1..3"},
    {"col_past_end", BANNER "2 5 2\n1 5 1\n2 6 1.0\n", 4, "out of range 1..5"},
    {"index_huge", BANNER "3 3 1\n99999999999999999999999 1 1\n", 3, "out of range"},
    {"index_letters", BANNER "3 3 1\na 1 1\n", 3, "not a positive integer"},
    {"index_fraction", BANNER "3 3 1\n1 1.5 1\n", 3, "not a positive integer"},
    {"index_negative", BANNER "3 3 1\n-1 1 1\n", 3, "not a positive integer"},
    {"value_letters", BANNER "3 3 1\n1 1 abc\n", 3, "not a real number"},
    {"value_two_points", BANNER "3 3 1\n1 1 1.0.0\n", 3, "not a real number"},
    {"value_hex", BANNER "3 3 1\n1 1 0x1p3\n", 3, "not a real number"},
    {"value_bare_exponent", BANNER "3 3 1\n1 1 1e\n", 3, "not a real number"},
    {"value_nan", BANNER "3 3 1\n1 1 nan\n", 3, "not finite"},
    {"value_inf", BANNER "3 3 1\n1 1 -Inf\n", 3, "not finite"},
    {"value_infinity", BANNER "3 3 1\n1 1 infinity\n", 3, "not finite"},
    {"value_overflow", BANNER "3 3 1\n1 1 1e999\n", 3, "overflows"},
    {"value_too_long", BANNER "3 3 1\n1 1 0." LONG_DIGITS "\n", 3, "longer than 511 characters"},
    {"integer_fraction", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3, "not an integer"},
    {"integer_exponent", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1e5\n", 3, "not an integer"},
    {"too_few_fields", BANNER "3 3 1\n1 1\n", 3, "fields"},
    {"too_many_fields", BANNER "3 3 1\n1 1 1 1\n", 3, "fields"},
    {"pattern_with_value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3, "fields"},
    {"skew_diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", 4, "diagonal"},
    {"line_count_with_comments", BANNER "% c\r\n%c\r\n3 3 2\r\n\r\n1 1 1\r\n1 1 x\r\n", 7, "not a real number"},
};

static void test_bad_files(const check_tmp_dir *dir) {
    char path[512], needle[600];
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; ++k) {
        const bad_case *c = &bad_cases[k];
        char name[128];
        snprintf(name, sizeof name, "bad_%s.mtx", c->name);
        check_tmp_file(dir, name, path, sizeof path);
        if (!CHECK(write_text(path, c->text), "cannot write %s", path)) continue;
        clpk_coo m;
        clpk_error err = {0};
        clpk_status st = clpk_mtx_read(path, &m, &err);
        CHECK(st == CLPK_ERROR_PARSE && err.status == CLPK_ERROR_PARSE, "%s: status %d (%s)", c->name, st, err.message);
        snprintf(needle, sizeof needle, "%s:%d: ", path, c->line);
        CHECK(strstr(err.message, needle) != NULL, "%s: message lacks '%s': %s", c->name, needle, err.message);
        CHECK(strstr(err.message, c->needle) != NULL, "%s: message lacks '%s': %s", c->name, c->needle, err.message);
        CHECK(m.nnz == 0 && m.row == NULL && m.val == NULL, "%s: output not cleared on failure", c->name);
        // The same from memory, with no error record: must not crash and must agree on the status.
        CHECK(clpk_mtx_parse(c->text, strlen(c->text), NULL, &m, NULL) == CLPK_ERROR_PARSE, "%s: parse", c->name);
    }
    clpk_coo m;
    clpk_error err = {0};
    check_tmp_file(dir, "does_not_exist.mtx", path, sizeof path);
    CHECK(clpk_mtx_read(path, &m, &err) == CLPK_ERROR_IO && strstr(err.message, path), "missing file: %s", err.message);
    CHECK(clpk_mtx_read(NULL, &m, &err) == CLPK_ERROR_INVALID_ARGUMENT, "NULL path");
}

/* ---- Round trips ----------------------------------------------------------------------------------------------------
 */

/* Values that stress %.17g: random bit patterns, integers, tiny and huge magnitudes, signed zero. */
static double random_value(uint64_t *rng) {
    switch (check_rand(rng) % 6) {
    case 0: return (double)(int64_t)(check_rand(rng) % 2001) - 1000.0;
    case 1: return -0.0;
    case 2: return (check_rand_double(rng) - 0.5) * 1e-300;
    case 3: return 4.9406564584124654e-324 * (double)(check_rand(rng) % 100);
    default: {
        for (;;) {
            uint64_t bits = check_rand(rng);
            double v;
            memcpy(&v, &bits, sizeof v);
            if (isfinite(v)) return v;
        }
    }
    }
}

static void random_coo(uint64_t *rng, clpk_coo *m, int32_t rows, int32_t cols, int64_t nnz) {
    memset(m, 0, sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->nnz = nnz;
    m->row = malloc(sizeof *m->row * (size_t)(nnz + 1));
    m->col = malloc(sizeof *m->col * (size_t)(nnz + 1));
    m->val = malloc(sizeof *m->val * (size_t)(nnz + 1));
    for (int64_t k = 0; k < nnz; ++k) {
        m->row[k] = (int32_t)(check_rand(rng) % (uint64_t)rows);
        m->col[k] = (int32_t)(check_rand(rng) % (uint64_t)cols);
        m->val[k] = random_value(rng);
    }
}

static void test_round_trip(const check_tmp_dir *dir, uint64_t *rng) {
    char path[512];
    check_tmp_file(dir, "round_trip.mtx", path, sizeof path);
    for (int round = 0; round < 20; ++round) {
        int32_t rows = 1 + (int32_t)(check_rand(rng) % 300), cols = 1 + (int32_t)(check_rand(rng) % 300);
        int64_t nnz = (int64_t)(check_rand(rng) % 3000);
        clpk_coo m, back;
        clpk_error err = {0};
        random_coo(rng, &m, rows, cols, nnz);
        clpk_status st = clpk_mtx_write(path, &m, &err);
        if (CHECK(st == CLPK_SUCCESS, "write: %s", err.message)) {
            st = clpk_mtx_read(path, &back, &err);
            if (CHECK(st == CLPK_SUCCESS, "read back: %s", err.message)) {
                CHECK(back.rows == rows && back.cols == cols && back.nnz == nnz, "round trip shape");
                CHECK(back.field == CLPK_MTX_REAL && back.symmetry == CLPK_MTX_GENERAL, "round trip header");
                int64_t bad = 0;
                for (int64_t k = 0; k < nnz && back.nnz == nnz; ++k)
                    bad += back.row[k] != m.row[k] || back.col[k] != m.col[k] || !same_double(back.val[k], m.val[k]);
                CHECK(bad == 0, "round trip: %lld entries differ", (long long)bad);
                clpk_coo_free(&back);
            }
        }
        clpk_coo_free(&m);
    }
    // The writer refuses what the reader would refuse.
    clpk_coo m;
    clpk_error err = {0};
    random_coo(rng, &m, 3, 3, 2);
    m.val[1] = NAN;
    CHECK(clpk_mtx_write(path, &m, &err) == CLPK_ERROR_INVALID_DATA, "writing NaN: %s", err.message);
    m.val[1] = 1.0;
    m.col[0] = 3;
    CHECK(clpk_mtx_write(path, &m, &err) == CLPK_ERROR_INVALID_DATA, "writing an index out of range: %s", err.message);
    clpk_coo_free(&m);
    random_coo(rng, &m, 3, 3, 1);
    check_tmp_file(dir, "no_such_dir/x.mtx", path, sizeof path);
    CHECK(clpk_mtx_write(path, &m, &err) == CLPK_ERROR_IO && strstr(err.message, path), "unwritable: %s", err.message);
    clpk_coo_free(&m);
}

/* ---- CSR ----------------------------------------------------------------------------------------------------------
 */

static int csr_is_well_formed(const clpk_csr *c) {
    if (c->row_ptr[0] != 0 || c->row_ptr[c->rows] != c->nnz) return 0;
    for (int32_t r = 0; r < c->rows; ++r) {
        if (c->row_ptr[r + 1] < c->row_ptr[r]) return 0;
        for (int64_t k = c->row_ptr[r]; k < c->row_ptr[r + 1]; ++k) {
            if (c->col[k] < 0 || c->col[k] >= c->cols) return 0;
            if (k > c->row_ptr[r] && c->col[k] <= c->col[k - 1]) return 0; // sorted and no duplicates
        }
    }
    return 1;
}

static void test_csr_small(void) {
    int32_t row[] = {2, 0, 2, 0, 2, 1};
    int32_t col[] = {3, 1, 0, 1, 3, 2};
    double val[] = {1, 2, 3, 4, 5, 6};
    clpk_coo m = {3, 4, 6, row, col, val, CLPK_MTX_GENERAL, CLPK_MTX_REAL};
    clpk_csr c;
    clpk_error err = {0};
    if (!CHECK(clpk_coo_to_csr(&m, &c, &err) == CLPK_SUCCESS, "csr: %s", err.message)) return;
    const int64_t want_ptr[] = {0, 1, 2, 4};
    const int32_t want_col[] = {1, 2, 0, 3};
    const double want_val[] = {6, 6, 3, 6};
    CHECK(c.nnz == 4 && c.rows == 3 && c.cols == 4, "csr small: nnz %lld", (long long)c.nnz);
    CHECK(memcmp(c.row_ptr, want_ptr, sizeof want_ptr) == 0, "csr small: row_ptr");
    if (c.nnz == 4) {
        CHECK(memcmp(c.col, want_col, sizeof want_col) == 0, "csr small: col");
        CHECK(memcmp(c.val, want_val, sizeof want_val) == 0, "csr small: val");
    }
    clpk_csr_free(&c);
    CHECK(c.row_ptr == NULL && c.nnz == 0, "csr free clears");
    row[2] = 3; // outside the 3 rows
    CHECK(clpk_coo_to_csr(&m, &c, &err) == CLPK_ERROR_INVALID_DATA, "csr of a bad coo: %s", err.message);
    clpk_coo empty = {0, 0, 0, NULL, NULL, NULL, CLPK_MTX_GENERAL, CLPK_MTX_REAL};
    CHECK(clpk_coo_to_csr(&empty, &c, &err) == CLPK_SUCCESS && c.nnz == 0 && c.row_ptr[0] == 0, "empty csr");
    clpk_csr_free(&c);
}

/* Random matrices with many duplicates, short rows (insertion sort) and long rows (qsort), against a dense sum in
 * the same order (file order), so values must match exactly. */
static void test_csr_random(uint64_t *rng) {
    for (int round = 0; round < 12; ++round) {
        int32_t rows = 1 + (int32_t)(check_rand(rng) % 60), cols = 1 + (int32_t)(check_rand(rng) % 400);
        int64_t nnz = (int64_t)(check_rand(rng) % (uint64_t)(rows * (round % 3 == 0 ? 2 : 200) + 1));
        clpk_coo m;
        random_coo(rng, &m, rows, cols, nnz);
        for (int64_t k = 0; k < nnz; ++k) {
            m.val[k] = (double)(check_rand(rng) % 1000) / 8.0; // sums exact in any order ...
            if (k % 7 == 0) m.row[k] = 0;                      // ... and one long row
            if (k % 5 == 0) m.col[k] %= 4;                     // ... with heavy duplication
        }
        double *dense = calloc((size_t)rows * (size_t)cols, sizeof *dense);
        unsigned char *seen = calloc((size_t)rows * (size_t)cols, 1);
        int64_t distinct = 0;
        for (int64_t k = 0; k < nnz; ++k) {
            size_t at = (size_t)m.row[k] * (size_t)cols + (size_t)m.col[k];
            dense[at] += m.val[k];
            distinct += !seen[at];
            seen[at] = 1;
        }
        clpk_csr c;
        clpk_error err = {0};
        if (CHECK(clpk_coo_to_csr(&m, &c, &err) == CLPK_SUCCESS, "csr random: %s", err.message)) {
            CHECK(csr_is_well_formed(&c), "csr random: rows sorted, no duplicates");
            CHECK(c.nnz == distinct, "csr random: nnz %lld, want %lld", (long long)c.nnz, (long long)distinct);
            int64_t bad = 0;
            for (int32_t r = 0; r < rows && csr_is_well_formed(&c); ++r)
                for (int64_t k = c.row_ptr[r]; k < c.row_ptr[r + 1]; ++k)
                    bad += !same_double(c.val[k], dense[(size_t)r * (size_t)cols + (size_t)c.col[k]]);
            CHECK(bad == 0, "csr random: %lld values differ from the dense sum", (long long)bad);
            clpk_csr_free(&c);
        }
        free(dense);
        free(seen);
        clpk_coo_free(&m);
    }
}

/* ---- Vectors --------------------------------------------------------------------------------------------------------
 */

static void test_vectors(const check_tmp_dir *dir, uint64_t *rng) {
    char path[512], needle[600];
    check_tmp_file(dir, "vector.mtx", path, sizeof path);
    const int64_t lengths[] = {0, 1, 7, 1000};
    for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; ++t) {
        int64_t n = lengths[t];
        double *v = malloc(sizeof *v * (size_t)(n + 1)), *back = NULL;
        for (int64_t k = 0; k < n; ++k) v[k] = random_value(rng);
        int64_t got = -1;
        clpk_error err = {0};
        CHECK(clpk_mtx_write_vector(path, v, n, &err) == CLPK_SUCCESS, "write vector: %s", err.message);
        if (CHECK(clpk_mtx_read_vector(path, &back, &got, &err) == CLPK_SUCCESS, "read vector: %s", err.message)) {
            CHECK(got == n, "vector length %lld, want %lld", (long long)got, (long long)n);
            CHECK(got != n || n == 0 || memcmp(back, v, sizeof *v * (size_t)n) == 0, "vector values differ");
        }
        free(back);
        free(v);
    }
    const struct {
        const char *text;
        int ok, line;
        int64_t length;
        const char *needle;
    } cases[] = {
        {"%%MatrixMarket matrix array integer general\n% c\n3 1\n1\n\n-2\n3\n", 1, 0, 3, ""},
        {"%%MatrixMarket matrix array real general\n1 3\n1\n2\n3", 1, 0, 3, ""},
        {"%%MatrixMarket matrix coordinate real general\n3 1 1\n1 1 1\n", 0, 1, 0, "array format"},
        {"%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", 0, 1, 0, "general"},
        {"%%MatrixMarket matrix array complex general\n2 1\n1 0\n2 0\n", 0, 1, 0, "complex"},
        {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 0, 2, 0, "one column"},
        {"%%MatrixMarket matrix array real general\n3 1 3\n1\n2\n3\n", 0, 2, 0, "size line"},
        {"%%MatrixMarket matrix array real general\n3 1\n1\n2\n", 0, 4, 0, "ends after 2 of the 3"},
        {"%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n", 0, 5, 0, "more values"},
        {"%%MatrixMarket matrix array real general\n2 1\n1\nx\n", 0, 4, 0, "not a real number"},
        {"%%MatrixMarket matrix array real general\n2 1\n1\nNaN\n", 0, 4, 0, "not finite"},
        {"%%MatrixMarket matrix array real general\n2 1\n1 2\n", 0, 3, 0, "one value per line"},
        {"%%MatrixMarket matrix array integer general\n2 1\n1\n2.5\n", 0, 4, 0, "not an integer"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char name[64];
        snprintf(name, sizeof name, "vector_case_%zu.mtx", k);
        check_tmp_file(dir, name, path, sizeof path);
        if (!CHECK(write_text(path, cases[k].text), "cannot write %s", path)) continue;
        double *v = NULL;
        int64_t n = -1;
        clpk_error err = {0};
        clpk_status st = clpk_mtx_read_vector(path, &v, &n, &err);
        if (cases[k].ok) {
            CHECK(st == CLPK_SUCCESS && n == cases[k].length, "vector case %zu: %s", k, err.message);
        } else {
            snprintf(needle, sizeof needle, "%s:%d: ", path, cases[k].line);
            CHECK(st == CLPK_ERROR_PARSE && v == NULL, "vector case %zu: status %d", k, st);
            CHECK(strstr(err.message, needle) && strstr(err.message, cases[k].needle),
                  "vector case %zu: message lacks '%s' / '%s': %s", k, needle, cases[k].needle, err.message);
        }
        free(v);
    }
    double bad[] = {1.0, INFINITY};
    clpk_error err = {0};
    CHECK(clpk_mtx_write_vector(path, bad, 2, &err) == CLPK_ERROR_INVALID_DATA, "writing Inf: %s", err.message);
}

/* ---- Real matrices ------------------------------------------------------------------------------------------------
 */

typedef struct known_matrix {
    const char *file;
    int32_t rows, cols;
    int64_t nnz; /* after expansion */
    clpk_mtx_field field;
    clpk_mtx_symmetry symmetry;
} known_matrix;

/* From ../shared/data/README.md; expanded counts of symmetric files are 2 * stored - diagonal. */
static const known_matrix known[] = {
    {"bcsstk16.mtx", 4884, 4884, 290378, CLPK_MTX_REAL, CLPK_MTX_SYMMETRIC},
    {"bayer10.mtx", 13436, 13436, 94926, CLPK_MTX_REAL, CLPK_MTX_GENERAL},
    {"bcsstk13.mtx", 2003, 2003, 83883, CLPK_MTX_REAL, CLPK_MTX_SYMMETRIC},
    {"rajat01.mtx", 6833, 6833, 43250, CLPK_MTX_PATTERN, CLPK_MTX_GENERAL},
    {"cryg2500.mtx", 2500, 2500, 12349, CLPK_MTX_REAL, CLPK_MTX_GENERAL},
    {"watt_2.mtx", 1856, 1856, 11550, CLPK_MTX_REAL, CLPK_MTX_GENERAL},
    {"Pd.mtx", 8081, 8081, 13036, CLPK_MTX_REAL, CLPK_MTX_GENERAL},
    {"zenios.mtx", 2873, 2873, 27191, CLPK_MTX_REAL, CLPK_MTX_SYMMETRIC},
    {"lp_e226.mtx", 223, 472, 2768, CLPK_MTX_REAL, CLPK_MTX_GENERAL},
    {"west0479.mtx", 479, 479, 1910, CLPK_MTX_REAL, CLPK_MTX_GENERAL},
    {"Groebner_id2003_aug.mtx", 4967, 2456, 173670, CLPK_MTX_INTEGER, CLPK_MTX_GENERAL},
    {"dwt_992.mtx", 992, 992, 16744, CLPK_MTX_PATTERN, CLPK_MTX_SYMMETRIC},
    {"jagmesh7.mtx", 1138, 1138, 7450, CLPK_MTX_PATTERN, CLPK_MTX_SYMMETRIC},
};

/* A symmetric matrix equals its transpose: build the transpose's CSR from the swapped COO and compare. */
static int csr_equals_transpose(const clpk_coo *m, const clpk_csr *c) {
    clpk_coo t = *m;
    t.row = m->col;
    t.col = m->row;
    clpk_csr ct;
    if (clpk_coo_to_csr(&t, &ct, NULL) != CLPK_SUCCESS) return 0;
    int same = ct.nnz == c->nnz && memcmp(ct.row_ptr, c->row_ptr, sizeof *c->row_ptr * (size_t)(c->rows + 1)) == 0 &&
               memcmp(ct.col, c->col, sizeof *c->col * (size_t)c->nnz) == 0 &&
               memcmp(ct.val, c->val, sizeof *c->val * (size_t)c->nnz) == 0;
    clpk_csr_free(&ct);
    return same;
}

static void check_known_matrix(const char *dir, const known_matrix *k) {
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, k->file);
    clpk_coo m;
    clpk_error err = {0};
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    clpk_status st = clpk_mtx_read(path, &m, &err);
    double seconds = (double)clock() / CLOCKS_PER_SEC - t0;
    if (!CHECK(st == CLPK_SUCCESS, "%s: %s", k->file, err.message)) return;
    printf("  %-26s %6d x %-6d %7lld entries  %.1f M entries/s\n", k->file, m.rows, m.cols, (long long)m.nnz,
           seconds > 0 ? (double)m.nnz / seconds * 1e-6 : 0.0);
    CHECK(m.rows == k->rows && m.cols == k->cols, "%s: shape %d x %d", k->file, m.rows, m.cols);
    CHECK(m.nnz == k->nnz, "%s: %lld entries, README says %lld", k->file, (long long)m.nnz, (long long)k->nnz);
    CHECK(m.field == k->field && m.symmetry == k->symmetry, "%s: field %d symmetry %d", k->file, m.field, m.symmetry);
    int finite = 1;
    for (int64_t e = 0; e < m.nnz; ++e) finite &= isfinite(m.val[e]) != 0;
    CHECK(finite, "%s: non-finite value", k->file);
    clpk_csr c;
    if (CHECK(clpk_coo_to_csr(&m, &c, &err) == CLPK_SUCCESS, "%s: csr: %s", k->file, err.message)) {
        CHECK(csr_is_well_formed(&c), "%s: csr rows sorted without duplicates", k->file);
        CHECK(c.nnz <= m.nnz, "%s: csr has more entries than the coo", k->file);
        if (k->symmetry == CLPK_MTX_SYMMETRIC)
            CHECK(csr_equals_transpose(&m, &c), "%s: expanded matrix is not symmetric", k->file);
        clpk_csr_free(&c);
    }
    clpk_coo_free(&m);
}

static void test_shared_matrices(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/matrices", CLPK_SHARED_DATA_DIR);
    if (access(dir, R_OK) != 0) {
        printf("SKIP shared matrices: %s is absent (the shared data lives in ../shared/data beside the checkout)\n",
               dir);
        return;
    }
    printf("shared matrices in %s:\n", dir);
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) check_known_matrix(dir, &known[k]);
    char path[1100];
    snprintf(path, sizeof path, "%s/young1c.mtx", dir);
    clpk_coo m;
    clpk_error err = {0};
    clpk_status st = clpk_mtx_read(path, &m, &err);
    CHECK(st == CLPK_ERROR_PARSE, "young1c.mtx (complex) must be refused, status %d", st);
    CHECK(strstr(err.message, "young1c.mtx:1: ") && strstr(err.message, "complex"), "young1c.mtx message: %s",
          err.message);
    printf("  young1c.mtx refused as expected: %s\n", err.message);
}

int main(void) {
    uint64_t rng = check_seed();
    check_tmp_dir dir;
    if (!CHECK(check_tmp_dir_create(&dir, "io-mtx"), "cannot create a temporary directory")) return check_summary();
    test_good_files();
    test_number_scanner(&rng);
    test_bad_files(&dir);
    test_round_trip(&dir, &rng);
    test_csr_small();
    test_csr_random(&rng);
    test_vectors(&dir, &rng);
    test_shared_matrices();
    check_tmp_dir_remove(&dir);
    return check_summary();
}
