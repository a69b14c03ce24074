/* Reader for the cross-correlation reference CSV files (see xcorr_csv.h). */
#include "xcorr_csv.h"

#include "clpk_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

clpk_status xcorr_csv_parse(const char *text, const char *name, xcorr_csv *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    int rows = 0, cols = 0, count = 0, used = 0;
    if (sscanf(text, "# %d,%d,%d%n", &rows, &cols, &count, &used) != 3 || rows < 1 || cols < 1 || count < 1)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s:1: expected a header '# rows,cols,count' with positive sizes",
                              name);
    if ((long long)rows * cols * count > INT_MAX / 8)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s:1: %d x %d x %d values is too many", name, rows, cols, count);
    const char *p = text + used;
    while (*p == ' ' || *p == '\r')
        ++p;
    if (*p != '\n') return core_error_set(err, CLPK_ERROR_PARSE, "%s:1: unexpected text after the header", name);
    ++p;
    const size_t n = (size_t)rows * cols * count;
    double *data = malloc(n * sizeof *data);
    if (!data) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu values", name, n);
    const int lines = rows * count;
    for (int line = 0; line < lines; ++line) {
        for (int c = 0; c < cols; ++c) {
            char *end = NULL;
            errno = 0;
            double v = strtod(p, &end);
            if (end == p || errno == ERANGE || !isfinite(v)) {
                free(data);
                return core_error_set(err, CLPK_ERROR_PARSE, "%s:%d: value %d is missing or not a finite number", name,
                                      line + 2, c + 1);
            }
            data[(size_t)line * cols + c] = v;
            p = end;
            const char want = c + 1 < cols ? ',' : '\n';
            if (*p == '\r') ++p;
            if (*p != want && !(want == '\n' && *p == 0 && line + 1 == lines)) {
                free(data);
                return core_error_set(err, CLPK_ERROR_PARSE, "%s:%d: expected %s after value %d (a row has %d values)",
                                      name, line + 2, want == ',' ? "','" : "the end of the line", c + 1, cols);
            }
            if (*p) ++p;
        }
    }
    while (*p == '\n' || *p == '\r' || *p == ' ')
        ++p;
    if (*p) {
        free(data);
        return core_error_set(err, CLPK_ERROR_PARSE, "%s:%d: more data than the header's %d lines", name, lines + 2,
                              lines);
    }
    out->rows = rows, out->cols = cols, out->count = count, out->data = data;
    return CLPK_SUCCESS;
}

clpk_status xcorr_csv_read(const char *path, xcorr_csv *out, clpk_error *err) {
    char *text = NULL;
    size_t size = 0;
    memset(out, 0, sizeof *out);
    clpk_status st = core_read_file(path, &text, &size, err);
    if (st != CLPK_SUCCESS) return st;
    st = xcorr_csv_parse(text, path, out, err);
    free(text);
    return st;
}

void xcorr_csv_free(xcorr_csv *csv) {
    if (!csv) return;
    free(csv->data);
    csv->data = NULL;
}
