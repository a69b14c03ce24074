/* Matrix Market files: a single-pass reader over an in-memory buffer, a writer, and COO -> CSR conversion.
 *
 * The reader is line-based (one entry per line, as the format prescribes) and never calls sscanf: indices are scanned
 * by hand and values go through a scanner that is exact on the common short decimals and hands the rest to strtod.
 * Every complaint names "file:line". Memory for entries is sized from the size line, but never beyond what the
 * remaining bytes could hold, so a lying size line cannot make us allocate more than a few times the input. */
#include "clpk_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Small helpers ------------------------------------------------------------------------------------------- */

/* malloc that never returns NULL for a zero size, so a successful result always has valid pointers. */
static void *alloc_array(uint64_t count, size_t elem) {
    if (count > SIZE_MAX / elem) return NULL;
    size_t bytes = (size_t)count * elem;
    return malloc(bytes ? bytes : 1);
}

/* ---- Lines and tokens ----------------------------------------------------------------------------------------- */

typedef struct mtx_scanner {
    const char *p;   /* start of the next line */
    const char *end; /* end of the buffer */
    const char *name;
    int64_t line; /* 1-based number of the line last returned by next_line (0 before the first) */
} mtx_scanner;

typedef struct mtx_token {
    const char *p;
    size_t n;
} mtx_token;

/* Returns the next line [*begin, *stop) without its '\n', or 0 at the end of the buffer. */
static int next_line(mtx_scanner *s, const char **begin, const char **stop) {
    if (s->p >= s->end) return 0;
    const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
    *begin = s->p;
    *stop = nl ? nl : s->end;
    s->p = nl ? nl + 1 : s->end;
    s->line++;
    return 1;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Splits off the next whitespace-separated token of a line; returns 0 when the line has no more. */
static int next_token(const char **cur, const char *stop, mtx_token *t) {
    const char *p = *cur;
    while (p < stop && is_blank(*p)) ++p;
    if (p == stop) {
        *cur = p;
        return 0;
    }
    const char *q = p;
    while (q < stop && !is_blank(*q)) ++q;
    t->p = p;
    t->n = (size_t)(q - p);
    *cur = q;
    return 1;
}

/* A line with nothing but blanks, or a comment: both may appear anywhere after the banner. */
static int is_skippable(const char *p, const char *stop) {
    while (p < stop && is_blank(*p)) ++p;
    return p == stop || *p == '%';
}

/* A token made printable and short for messages (input may be binary garbage). */
static const char *show(const mtx_token *t, char buf[48]) {
    size_t n = t->n < 40 ? t->n : 40, k = 0;
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)t->p[i];
        buf[k++] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    if (n < t->n) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

static int token_is(const mtx_token *t, const char *word) {
    size_t n = strlen(word);
    if (t->n != n) return 0;
    for (size_t i = 0; i < n; ++i) {
        char a = t->p[i], b = word[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

__attribute__((format(printf, 4, 5))) static clpk_status fail_line(const char *name, int64_t line, clpk_error *err,
                                                                   const char *fmt, ...) {
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return core_error_set(err, CLPK_ERROR_PARSE, "%s:%" PRId64 ": %s", name, line < 1 ? (int64_t)1 : line, what);
}

/* ---- Numbers ------------------------------------------------------------------------------------------------- */

typedef enum num_result { NUM_OK = 0, NUM_SYNTAX, NUM_RANGE, NUM_TOO_LONG } num_result;

/* Longest value token accepted: no real file needs more, and it bounds the digit counters and the strtod copy. */
enum { MTX_MAX_NUMBER = 511 };

/* An unsigned decimal integer (digits only); NUM_RANGE beyond `max`. Up to 19 significant digits cannot overflow
 * 64 bits and 20 exceed any int64 limit, so counting digits replaces a division per digit in this hot loop. */
static num_result scan_uint(const mtx_token *t, uint64_t max, uint64_t *out) {
    if (t->n == 0) return NUM_SYNTAX;
    uint64_t v = 0;
    size_t significant = 0;
    for (size_t i = 0; i < t->n; ++i) {
        unsigned d = (unsigned)(unsigned char)t->p[i] - '0';
        if (d > 9) return NUM_SYNTAX; // keep scanning past an overflow: "12x" is a syntax error even when long
        significant += v != 0 || d != 0;
        if (significant <= 19) v = v * 10 + d;
    }
    if (significant > 19 || v > max) return NUM_RANGE;
    *out = v;
    return NUM_OK;
}

/* Spelled NaN or infinity (which strtod would accept); named in the message rather than called a syntax error. */
static int spells_nonfinite(const mtx_token *t) {
    mtx_token u = *t;
    if (u.n && (*u.p == '+' || *u.p == '-')) {
        ++u.p;
        --u.n;
    }
    if (u.n < 3) return 0;
    mtx_token head = {u.p, 3};
    return token_is(&head, "nan") || token_is(&head, "inf");
}

/* Powers of ten that are exact in a double: the fast path below rounds exactly once. */
static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parses [+-]digits[.digits][(e|E)[+-]digits] (or [+-].digits...). When the significand fits in 53 bits and the
 * decimal exponent is within +-22, one multiplication or division of exact operands gives the correctly rounded
 * result (Clinger's fast path); everything else goes to strtod on a NUL-terminated copy. `integer_only` refuses
 * the fraction and exponent parts (for "integer" files). */
static num_result scan_real(const mtx_token *t, int integer_only, double *out) {
    if (t->n > MTX_MAX_NUMBER) return NUM_TOO_LONG;
    const char *p = t->p, *e = t->p + t->n;
    int negative = 0;
    if (p < e && (*p == '+' || *p == '-')) negative = *p++ == '-';
    uint64_t mant = 0;
    int digits = 0, kept = 0, frac_digits = 0, dropped_int = 0;
    for (; p < e && (unsigned)(*p - '0') <= 9; ++p, ++digits) {
        if (kept < 19) {
            mant = mant * 10 + (uint64_t)(*p - '0');
            kept += mant != 0; // leading zeros do not use up precision
        } else {
            ++dropped_int;
        }
    }
    if (p < e && *p == '.' && !integer_only) {
        for (++p; p < e && (unsigned)(*p - '0') <= 9; ++p, ++digits) {
            if (kept < 19) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                kept += mant != 0;
                ++frac_digits;
            }
        }
    }
    if (digits == 0) return NUM_SYNTAX;
    long exp10 = 0;
    if (p < e && (*p == 'e' || *p == 'E') && !integer_only) {
        ++p;
        int exp_negative = 0;
        if (p < e && (*p == '+' || *p == '-')) exp_negative = *p++ == '-';
        if (p == e) return NUM_SYNTAX;
        for (; p < e && (unsigned)(*p - '0') <= 9; ++p)
            if (exp10 < 100000) exp10 = exp10 * 10 + (*p - '0'); // saturate: strtod decides the huge cases
        if (exp_negative) exp10 = -exp10;
    }
    if (p != e) return NUM_SYNTAX;
    // A significand of at most 2^53 has at most 16 digits, so no digit was dropped when the fast path applies.
    long scale = exp10 - frac_digits + dropped_int;
    if (mant <= (UINT64_C(1) << 53) && scale >= -22 && scale <= 22) {
        double v = (double)mant;
        v = scale >= 0 ? v * exact_pow10[scale] : v / exact_pow10[-scale];
        *out = negative ? -v : v;
        return NUM_OK;
    }
    char copy[MTX_MAX_NUMBER + 1];
    memcpy(copy, t->p, t->n);
    copy[t->n] = '\0';
    char *rest = NULL;
    double v = strtod(copy, &rest);
    if (*rest != '\0') return NUM_SYNTAX; // only under a locale whose decimal point is not '.'
    if (!isfinite(v)) return NUM_RANGE;
    *out = v;
    return NUM_OK;
}

/* ---- Header --------------------------------------------------------------------------------------------------- */

typedef struct mtx_header {
    int is_array;
    clpk_mtx_field field;
    clpk_mtx_symmetry symmetry;
    int64_t rows, cols, nnz; /* nnz only for coordinate files */
} mtx_header;

/* Parses "%%MatrixMarket matrix <format> <field> <symmetry>" on the first line. Complex and hermitian files are
 * valid Matrix Market, but clpk works in real arithmetic, so they are refused by name. */
static clpk_status parse_banner(mtx_scanner *s, mtx_header *h, clpk_error *err) {
    const char *cur, *stop;
    if (!next_line(s, &cur, &stop)) return fail_line(s->name, 1, err, "empty file (no %%%%MatrixMarket banner)");
    mtx_token t[5], extra;
    char shown[48];
    int n = 0;
    while (n < 5 && next_token(&cur, stop, &t[n])) ++n;
    if (n == 0 || !token_is(&t[0], "%%MatrixMarket"))
        return fail_line(s->name, s->line, err,
                         "not a Matrix Market file: the first line must start with \"%%%%MatrixMarket matrix\"");
    if (n < 5 || next_token(&cur, stop, &extra))
        return fail_line(s->name, s->line, err,
                         "malformed banner: expected \"%%%%MatrixMarket matrix <format> <field> <symmetry>\"");
    if (!token_is(&t[1], "matrix"))
        return fail_line(s->name, s->line, err, "unsupported object '%s' (only 'matrix')", show(&t[1], shown));
    if (token_is(&t[2], "coordinate")) h->is_array = 0;
    else if (token_is(&t[2], "array")) h->is_array = 1;
    else return fail_line(s->name, s->line, err, "unknown format '%s' (coordinate or array)", show(&t[2], shown));
    if (token_is(&t[3], "real")) h->field = CLPK_MTX_REAL;
    else if (token_is(&t[3], "integer")) h->field = CLPK_MTX_INTEGER;
    else if (token_is(&t[3], "pattern") && !h->is_array) h->field = CLPK_MTX_PATTERN;
    else if (token_is(&t[3], "complex"))
        return fail_line(s->name, s->line, err,
                         "complex matrices are not supported (clpk reads real, integer and pattern files)");
    else
        return fail_line(s->name, s->line, err, "unsupported field '%s' for %s format", show(&t[3], shown),
                         h->is_array ? "array" : "coordinate");
    if (token_is(&t[4], "general")) h->symmetry = CLPK_MTX_GENERAL;
    else if (token_is(&t[4], "symmetric")) h->symmetry = CLPK_MTX_SYMMETRIC;
    else if (token_is(&t[4], "skew-symmetric")) h->symmetry = CLPK_MTX_SKEW_SYMMETRIC;
    else if (token_is(&t[4], "hermitian"))
        return fail_line(s->name, s->line, err, "hermitian matrices are not supported");
    else return fail_line(s->name, s->line, err, "unknown symmetry '%s'", show(&t[4], shown));
    return CLPK_SUCCESS;
}

/* Reads a size token: rows and columns must fit int32 (the index type of clpk_coo), nnz int64. */
static clpk_status parse_size_field(const mtx_scanner *s, const mtx_token *t, const char *what, uint64_t max,
                                    int64_t *out, clpk_error *err) {
    char shown[48];
    uint64_t v = 0;
    num_result r = scan_uint(t, max, &v);
    if (r == NUM_SYNTAX)
        return fail_line(s->name, s->line, err, "%s '%s' is not a non-negative integer", what, show(t, shown));
    if (r == NUM_RANGE)
        return fail_line(s->name, s->line, err, "%s %s is too large (at most %" PRIu64 ")", what, show(t, shown), max);
    *out = (int64_t)v;
    return CLPK_SUCCESS;
}

/* The first line after the banner that is neither blank nor a comment: "rows cols nnz" or, for arrays, "rows cols". */
static clpk_status parse_size_line(mtx_scanner *s, mtx_header *h, clpk_error *err) {
    const char *cur, *stop;
    for (;;) {
        if (!next_line(s, &cur, &stop))
            return fail_line(s->name, s->line, err, "missing size line after the banner and comments");
        if (!is_skippable(cur, stop)) break;
    }
    int want = h->is_array ? 2 : 3, n = 0;
    mtx_token t[3], extra;
    while (n < want && next_token(&cur, stop, &t[n])) ++n;
    if (n < want || next_token(&cur, stop, &extra))
        return fail_line(s->name, s->line, err, "size line must have %d numbers (%s)", want,
                         h->is_array ? "rows cols" : "rows cols entries");
    CLPK_TRY(parse_size_field(s, &t[0], "row count", INT32_MAX, &h->rows, err));
    CLPK_TRY(parse_size_field(s, &t[1], "column count", INT32_MAX, &h->cols, err));
    h->nnz = 0;
    if (!h->is_array) CLPK_TRY(parse_size_field(s, &t[2], "entry count", INT64_MAX, &h->nnz, err));
    if (h->symmetry != CLPK_MTX_GENERAL && h->rows != h->cols)
        return fail_line(s->name, s->line, err, "a %s matrix must be square, not %" PRId64 " x %" PRId64,
                         h->symmetry == CLPK_MTX_SYMMETRIC ? "symmetric" : "skew-symmetric", h->rows, h->cols);
    return CLPK_SUCCESS;
}

/* ---- Coordinate entries --------------------------------------------------------------------------------------- */

/* Parses a value token for the file's field; `what` names it in messages. */
static clpk_status parse_value(const mtx_scanner *s, const mtx_token *t, clpk_mtx_field field, double *v,
                               clpk_error *err) {
    char shown[48];
    num_result r = scan_real(t, field == CLPK_MTX_INTEGER, v);
    if (r == NUM_OK) return CLPK_SUCCESS;
    if (spells_nonfinite(t))
        return fail_line(s->name, s->line, err, "value '%s' is not finite (NaN and Inf are not allowed)",
                         show(t, shown));
    if (r == NUM_RANGE) return fail_line(s->name, s->line, err, "value '%s' overflows a double", show(t, shown));
    if (r == NUM_TOO_LONG)
        return fail_line(s->name, s->line, err, "value '%s' is longer than %d characters", show(t, shown),
                         MTX_MAX_NUMBER);
    return fail_line(s->name, s->line, err, "'%s' is not %s", show(t, shown),
                     field == CLPK_MTX_INTEGER ? "an integer" : "a real number");
}

/* A 1-based index in [1, limit], returned 0-based. */
static clpk_status parse_index(const mtx_scanner *s, const mtx_token *t, const char *what, int64_t limit, int32_t *out,
                               clpk_error *err) {
    char shown[48];
    uint64_t v = 0;
    num_result r = scan_uint(t, INT32_MAX, &v);
    if (r == NUM_SYNTAX)
        return fail_line(s->name, s->line, err, "%s index '%s' is not a positive integer", what, show(t, shown));
    if (r == NUM_RANGE || v < 1 || (int64_t)v > limit)
        return fail_line(s->name, s->line, err, "%s index %s is out of range 1..%" PRId64, what, show(t, shown), limit);
    *out = (int32_t)(v - 1);
    return CLPK_SUCCESS;
}

/* Parses "i j [value]" of one entry line. */
static clpk_status parse_entry(const mtx_scanner *s, const mtx_header *h, const char *cur, const char *stop, int32_t *i,
                               int32_t *j, double *v, clpk_error *err) {
    int want = h->field == CLPK_MTX_PATTERN ? 2 : 3, n = 0;
    mtx_token t[3], extra;
    while (n < want && next_token(&cur, stop, &t[n])) ++n;
    if (n < want || next_token(&cur, stop, &extra))
        return fail_line(s->name, s->line, err, "an entry of a %s file has %d fields (%s)",
                         h->field == CLPK_MTX_PATTERN ? "pattern" : "real or integer", want,
                         h->field == CLPK_MTX_PATTERN ? "row col" : "row col value");
    CLPK_TRY(parse_index(s, &t[0], "row", h->rows, i, err));
    CLPK_TRY(parse_index(s, &t[1], "column", h->cols, j, err));
    *v = 1.0;
    if (want == 3) CLPK_TRY(parse_value(s, &t[2], h->field, v, err));
    if (h->symmetry == CLPK_MTX_SKEW_SYMMETRIC && *i == *j)
        return fail_line(s->name, s->line, err,
                         "diagonal entry (%d, %d) in a skew-symmetric matrix (must be zero and not stored)", *i + 1,
                         *j + 1);
    return CLPK_SUCCESS;
}

/* After the last declared entry only blanks and comments may follow. */
static clpk_status check_no_more(mtx_scanner *s, int64_t declared, const char *what, clpk_error *err) {
    const char *cur, *stop;
    while (next_line(s, &cur, &stop))
        if (!is_skippable(cur, stop))
            return fail_line(s->name, s->line, err, "more %s than the %" PRId64 " declared in the size line", what,
                             declared);
    return CLPK_SUCCESS;
}

static void coo_append(clpk_coo *m, int32_t i, int32_t j, double v) {
    m->row[m->nnz] = i;
    m->col[m->nnz] = j;
    m->val[m->nnz] = v;
    m->nnz++;
}

/* Reads the entries and expands symmetric storage in place: each off-diagonal entry is followed by its mirror. */
static clpk_status parse_entries(mtx_scanner *s, const mtx_header *h, clpk_coo *m, clpk_error *err) {
    // The shortest entry line is "1 1\n": no honest file holds more entries than that bound.
    uint64_t fit = ((uint64_t)(s->end - s->p) + 1) / 4;
    uint64_t stored = (uint64_t)h->nnz < fit ? (uint64_t)h->nnz : fit;
    uint64_t cap = h->symmetry == CLPK_MTX_GENERAL ? stored : 2 * stored;
    m->row = alloc_array(cap, sizeof *m->row);
    m->col = alloc_array(cap, sizeof *m->col);
    m->val = alloc_array(cap, sizeof *m->val);
    if (!m->row || !m->col || !m->val)
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %" PRIu64 " entries", s->name, cap);
    int64_t found = 0;
    const char *cur, *stop;
    while (found < h->nnz) {
        if (!next_line(s, &cur, &stop))
            return fail_line(s->name, s->line, err,
                             "file ends after %" PRId64 " of the %" PRId64 " entries declared "
                             "in the size line (truncated?)",
                             found, h->nnz);
        if (is_skippable(cur, stop)) continue;
        int32_t i, j;
        double v;
        CLPK_TRY(parse_entry(s, h, cur, stop, &i, &j, &v, err));
        uint64_t need = h->symmetry == CLPK_MTX_GENERAL ? 1 : 2;
        if ((uint64_t)m->nnz + need > cap) // cannot happen given `fit`; checked because the input is untrusted
            return core_error_set(err, CLPK_ERROR_INTERNAL, "%s: entry capacity exceeded", s->name);
        coo_append(m, i, j, v);
        if (h->symmetry != CLPK_MTX_GENERAL && i != j)
            coo_append(m, j, i, h->symmetry == CLPK_MTX_SKEW_SYMMETRIC ? -v : v);
        ++found;
    }
    return check_no_more(s, h->nnz, "entries", err);
}

/* Gives back the unused part of the arrays sized for full expansion (symmetric files have diagonals). */
static void coo_shrink(clpk_coo *m) {
    size_t n = m->nnz ? (size_t)m->nnz : 1;
    int32_t *r = realloc(m->row, n * sizeof *r);
    if (r) m->row = r;
    int32_t *c = realloc(m->col, n * sizeof *c);
    if (c) m->col = c;
    double *v = realloc(m->val, n * sizeof *v);
    if (v) m->val = v;
}

void clpk_coo_free(clpk_coo *m) {
    if (!m) return;
    free(m->row);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

clpk_status clpk_mtx_parse(const char *text, size_t length, const char *name, clpk_coo *out, clpk_error *err) {
    if (!out || (!text && length)) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_mtx_parse: NULL");
    memset(out, 0, sizeof *out);
    if (!text) text = ""; // length is 0: avoid arithmetic on a null pointer
    mtx_scanner s = {text, text + length, name ? name : "<memory>", 0};
    mtx_header h;
    CLPK_TRY(parse_banner(&s, &h, err));
    if (h.is_array)
        return fail_line(s.name, s.line, err,
                         "array format holds a dense matrix; clpk_mtx_read expects coordinate "
                         "format (use clpk_mtx_read_vector for vectors)");
    CLPK_TRY(parse_size_line(&s, &h, err));
    out->rows = (int32_t)h.rows;
    out->cols = (int32_t)h.cols;
    out->symmetry = h.symmetry;
    out->field = h.field;
    clpk_status st = parse_entries(&s, &h, out, err);
    if (st != CLPK_SUCCESS) {
        clpk_coo_free(out);
        return st;
    }
    coo_shrink(out);
    return CLPK_SUCCESS;
}

clpk_status clpk_mtx_read(const char *path, clpk_coo *out, clpk_error *err) {
    if (!path || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_mtx_read: NULL argument");
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t size = 0;
    CLPK_TRY(core_read_file(path, &text, &size, err));
    clpk_status st = clpk_mtx_parse(text, size, path, out, err);
    free(text);
    return st;
}

/* ---- Dense vectors (array format) ------------------------------------------------------------------------------ */

static clpk_status parse_vector(mtx_scanner *s, double **values, int64_t *length, clpk_error *err) {
    mtx_header h;
    CLPK_TRY(parse_banner(s, &h, err));
    if (!h.is_array)
        return fail_line(s->name, s->line, err,
                         "a vector must be in array format (\"%%%%MatrixMarket matrix array "
                         "real general\"), not coordinate");
    if (h.symmetry != CLPK_MTX_GENERAL)
        return fail_line(s->name, s->line, err, "a vector must have symmetry 'general'");
    CLPK_TRY(parse_size_line(s, &h, err));
    if (h.rows != 1 && h.cols != 1)
        return fail_line(s->name, s->line, err, "a vector has one column (or one row), not %" PRId64 " x %" PRId64,
                         h.rows, h.cols);
    int64_t n = h.rows * h.cols;
    // The shortest value line is "1\n".
    uint64_t fit = ((uint64_t)(s->end - s->p) + 1) / 2;
    int64_t cap = (uint64_t)n < fit ? n : (int64_t)fit;
    double *v = alloc_array((uint64_t)cap, sizeof *v);
    if (!v) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    int64_t found = 0;
    const char *cur, *stop;
    clpk_status st = CLPK_SUCCESS;
    while (st == CLPK_SUCCESS && found < n) {
        if (!next_line(s, &cur, &stop)) {
            st = fail_line(s->name, s->line, err,
                           "file ends after %" PRId64 " of the %" PRId64 " values declared in the size line "
                           "(truncated?)",
                           found, n);
            break;
        }
        if (is_skippable(cur, stop)) continue;
        if (found == cap) { // cannot happen given `fit`
            st = core_error_set(err, CLPK_ERROR_INTERNAL, "%s: value capacity exceeded", s->name);
            break;
        }
        mtx_token t, extra;
        next_token(&cur, stop, &t);
        if (next_token(&cur, stop, &extra)) st = fail_line(s->name, s->line, err, "expected one value per line");
        else st = parse_value(s, &t, h.field, &v[found++], err);
    }
    if (st == CLPK_SUCCESS) st = check_no_more(s, n, "values", err);
    if (st != CLPK_SUCCESS) {
        free(v);
        return st;
    }
    *values = v;
    *length = n;
    return CLPK_SUCCESS;
}

clpk_status clpk_mtx_read_vector(const char *path, double **values, int64_t *length, clpk_error *err) {
    if (!path || !values || !length)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_mtx_read_vector: NULL argument");
    *values = NULL;
    *length = 0;
    char *text = NULL;
    size_t size = 0;
    CLPK_TRY(core_read_file(path, &text, &size, err));
    mtx_scanner s = {text, text + size, path, 0};
    clpk_status st = parse_vector(&s, values, length, err);
    free(text);
    return st;
}

/* ---- Writers ---------------------------------------------------------------------------------------------------- */

static clpk_status finish_write(FILE *f, const char *path, clpk_error *err) {
    int failed = ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) return core_error_set(err, CLPK_ERROR_IO, "%s: write error: %s", path, strerror(saved));
    return CLPK_SUCCESS;
}

/* Refuses what the reader would refuse, so that every file we write can be read back. */
static clpk_status check_coo(const clpk_coo *m, const char *who, int need_values, clpk_error *err) {
    if (!m) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: NULL matrix", who);
    if (m->rows < 0 || m->cols < 0 || m->nnz < 0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: negative size %d x %d, %" PRId64 " entries", who,
                              m->rows, m->cols, m->nnz);
    if (m->nnz > 0 && (!m->row || !m->col || (need_values && !m->val)))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: NULL entry arrays", who);
    for (int64_t k = 0; k < m->nnz; ++k) {
        if (m->row[k] < 0 || m->row[k] >= m->rows || m->col[k] < 0 || m->col[k] >= m->cols)
            return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                  "%s: entry %" PRId64 " at (%d, %d) is outside the %d x %d matrix", who, k, m->row[k],
                                  m->col[k], m->rows, m->cols);
        if (need_values && !isfinite(m->val[k]))
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: entry %" PRId64 " has a non-finite value", who, k);
    }
    return CLPK_SUCCESS;
}

clpk_status clpk_mtx_write(const char *path, const clpk_coo *m, clpk_error *err) {
    if (!path) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_mtx_write: NULL path");
    CLPK_TRY(check_coo(m, "clpk_mtx_write", 1, err));
    FILE *f = fopen(path, "w");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %" PRId64 "\n", m->rows, m->cols, m->nnz);
    for (int64_t k = 0; k < m->nnz && !ferror(f); ++k)
        fprintf(f, "%d %d %.17g\n", m->row[k] + 1, m->col[k] + 1, m->val[k]);
    return finish_write(f, path, err);
}

clpk_status clpk_mtx_write_vector(const char *path, const double *values, int64_t length, clpk_error *err) {
    if (!path || length < 0 || (length > 0 && !values))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_mtx_write_vector: bad arguments");
    if (length > INT32_MAX)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "clpk_mtx_write_vector: %" PRId64 " values exceed the int32 row count", length);
    for (int64_t k = 0; k < length; ++k)
        if (!isfinite(values[k]))
            return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                  "clpk_mtx_write_vector: value %" PRId64 " is not finite", k);
    FILE *f = fopen(path, "w");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%" PRId64 " 1\n", length);
    for (int64_t k = 0; k < length && !ferror(f); ++k) fprintf(f, "%.17g\n", values[k]);
    return finish_write(f, path, err);
}

/* ---- COO -> CSR ----------------------------------------------------------------------------------------------- */

/* Entries of one long row while it is sorted; `pos` makes qsort order duplicates as in the input, so they are
 * summed in file order whatever the qsort implementation. */
typedef struct csr_sort_item {
    double val;
    int64_t pos;
    int32_t col;
} csr_sort_item;

static int compare_items(const void *a, const void *b) {
    const csr_sort_item *x = a, *y = b;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Insertion sort on the parallel arrays: short rows are the common case and this is stable. */
static void sort_short_row(int32_t *col, double *val, int64_t n) {
    for (int64_t k = 1; k < n; ++k) {
        int32_t c = col[k];
        double v = val[k];
        int64_t i = k;
        for (; i > 0 && col[i - 1] > c; --i) {
            col[i] = col[i - 1];
            val[i] = val[i - 1];
        }
        col[i] = c;
        val[i] = v;
    }
}

static void sort_long_row(int32_t *col, double *val, int64_t n, csr_sort_item *tmp) {
    for (int64_t k = 0; k < n; ++k) tmp[k] = (csr_sort_item){val[k], k, col[k]};
    qsort(tmp, (size_t)n, sizeof *tmp, compare_items);
    for (int64_t k = 0; k < n; ++k) {
        col[k] = tmp[k].col;
        val[k] = tmp[k].val;
    }
}

enum { CSR_INSERTION_MAX = 16 };

/* Sorts every row by column; returns 0 when the buffer for long rows cannot be allocated. */
static int sort_rows(clpk_csr *m) {
    int64_t longest = 0;
    for (int32_t r = 0; r < m->rows; ++r)
        if (m->row_ptr[r + 1] - m->row_ptr[r] > longest) longest = m->row_ptr[r + 1] - m->row_ptr[r];
    csr_sort_item *tmp = NULL;
    if (longest > CSR_INSERTION_MAX && !(tmp = alloc_array((uint64_t)longest, sizeof *tmp))) return 0;
    for (int32_t r = 0; r < m->rows; ++r) {
        int64_t b = m->row_ptr[r], n = m->row_ptr[r + 1] - b;
        if (n <= CSR_INSERTION_MAX) sort_short_row(m->col + b, m->val + b, n);
        else sort_long_row(m->col + b, m->val + b, n, tmp);
    }
    free(tmp);
    return 1;
}

/* Sums runs of equal columns within each row, compacting the arrays and rewriting row_ptr in place. */
static void sum_duplicates(clpk_csr *m) {
    int64_t w = 0, read_begin = 0;
    for (int32_t r = 0; r < m->rows; ++r) {
        int64_t read_end = m->row_ptr[r + 1], row_begin = w;
        for (int64_t k = read_begin; k < read_end; ++k) {
            if (w > row_begin && m->col[w - 1] == m->col[k]) {
                m->val[w - 1] += m->val[k];
            } else {
                m->col[w] = m->col[k];
                m->val[w] = m->val[k];
                ++w;
            }
        }
        m->row_ptr[r + 1] = w;
        read_begin = read_end;
    }
    m->nnz = w;
}

/* Counting sort by row: stable, so entries keep file order within a row until the column sort. */
static void scatter_rows(const clpk_coo *coo, clpk_csr *m) {
    int64_t *rp = m->row_ptr;
    for (int64_t k = 0; k < coo->nnz; ++k) rp[coo->row[k] + 1]++;
    for (int32_t r = 0; r < coo->rows; ++r) rp[r + 1] += rp[r];
    // rp[r] is used as the insertion cursor of row r, after which it holds the start of row r + 1 ...
    for (int64_t k = 0; k < coo->nnz; ++k) {
        int64_t at = rp[coo->row[k]]++;
        m->col[at] = coo->col[k];
        m->val[at] = coo->val ? coo->val[k] : 1.0;
    }
    // ... so shift back by one row.
    for (int32_t r = coo->rows; r > 0; --r) rp[r] = rp[r - 1];
    rp[0] = 0;
}

void clpk_csr_free(clpk_csr *m) {
    if (!m) return;
    free(m->row_ptr);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

clpk_status clpk_coo_to_csr(const clpk_coo *coo, clpk_csr *out, clpk_error *err) {
    if (!out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_coo_to_csr: NULL output");
    memset(out, 0, sizeof *out);
    CLPK_TRY(check_coo(coo, "clpk_coo_to_csr", 0, err));
    out->rows = coo->rows;
    out->cols = coo->cols;
    out->nnz = coo->nnz;
    out->row_ptr = calloc((size_t)coo->rows + 1, sizeof *out->row_ptr);
    out->col = alloc_array((uint64_t)coo->nnz, sizeof *out->col);
    out->val = alloc_array((uint64_t)coo->nnz, sizeof *out->val);
    if (!out->row_ptr || !out->col || !out->val) {
        clpk_csr_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "clpk_coo_to_csr: out of memory for %" PRId64 " entries",
                              coo->nnz);
    }
    scatter_rows(coo, out);
    if (!sort_rows(out)) {
        clpk_csr_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "clpk_coo_to_csr: out of memory sorting rows");
    }
    sum_duplicates(out);
    size_t n = out->nnz ? (size_t)out->nnz : 1;
    int32_t *c = realloc(out->col, n * sizeof *c);
    if (c) out->col = c;
    double *v = realloc(out->val, n * sizeof *v);
    if (v) out->val = v;
    return CLPK_SUCCESS;
}
