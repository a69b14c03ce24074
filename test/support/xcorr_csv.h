/* Reader for the cross-correlation reference data in ../shared/data/xcorr (asmelko/cross-corr-jpdc format): a first
 * line "# rows,cols,count", then count matrices of rows lines with cols comma-separated numbers each. */
#ifndef CLPK_XCORR_CSV_H
#define CLPK_XCORR_CSV_H

#include "clpk.h"

typedef struct xcorr_csv {
    int rows, cols, count;
    double *data; /* count * rows * cols values, row-major, matrices concatenated */
} xcorr_csv;

/* Reads and checks a whole file (header, line and value counts, finite numbers); the message names file and line. */
clpk_status xcorr_csv_read(const char *path, xcorr_csv *out, clpk_error *err);
/* The same from text in memory (`name` for messages). */
clpk_status xcorr_csv_parse(const char *text, const char *name, xcorr_csv *out, clpk_error *err);
void xcorr_csv_free(xcorr_csv *csv);

#endif
