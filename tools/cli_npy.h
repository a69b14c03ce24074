/* Several .npy arrays written under one prefix, for the tools' multi-array outputs. */
#ifndef CLPK_TOOLS_CLI_NPY_H
#define CLPK_TOOLS_CLI_NPY_H

#include <clpk.h>

typedef struct cli_npy_array {
    const char *suffix; /* "_lambda.npy": the file is <prefix><suffix> */
    clpk_dtype dtype;
    int ndim;
    const int64_t *shape;
    const void *data;
} cli_npy_array;

/* Writes the arrays in order, stopping at the first failure, which it prints as "<tool>: <message>" to stderr;
 * returns 1 when all were written, else 0. */
int cli_npy_write_arrays(const char *tool, const char *prefix, const cli_npy_array *arrays, int count);

#endif
