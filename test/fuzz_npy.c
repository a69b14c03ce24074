/* libFuzzer target for the .npy reader: any input must either parse into a consistent array or be refused with a
 * message naming the file. The input also goes through a scratch file to clpk_npy_read, which streams the data with
 * its own checks and must agree with clpk_npy_parse; parsed arrays are pushed through every dtype conversion. */
#include "clpk.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[64]; /* one scratch file per fuzzing process */

static void remove_scratch(void) { unlink(scratch); }

/* tmpfs when there is one: a file round trip per input on a disk would slow fuzzing fifty-fold. */
static const char *scratch_dir(void) { return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"; }

static const char *write_scratch(const uint8_t *data, size_t size) {
    if (!scratch[0]) {
        snprintf(scratch, sizeof scratch, "%s/clpk-fuzz-npy-%ld.npy", scratch_dir(), (long)getpid());
        atexit(remove_scratch);
    }
    FILE *f = fopen(scratch, "wb");
    if (!f) return NULL;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? scratch : NULL;
}

static void check_array(const clpk_npy *a, size_t input_size) {
    int64_t count = 1;
    for (int d = 0; d < a->ndim; ++d) count *= a->shape[d];
    if (a->ndim < 0 || a->ndim > CLPK_NPY_MAX_DIMS || a->count != count || !a->data) abort();
    if ((uint64_t)a->count * clpk_dtype_size(a->dtype) > input_size) abort(); // the data must come from the input
}

static int same_array(const clpk_npy *a, const clpk_npy *b) {
    return a->dtype == b->dtype && a->ndim == b->ndim && a->count == b->count &&
           memcmp(a->shape, b->shape, sizeof a->shape) == 0 &&
           memcmp(a->data, b->data, (size_t)a->count * clpk_dtype_size(a->dtype)) == 0;
}

/* A refused conversion must leave the array as it was. */
static void fuzz_conversions(clpk_npy *a) {
    static const clpk_dtype order[] = {CLPK_DTYPE_F64, CLPK_DTYPE_I64, CLPK_DTYPE_F32,
                                       CLPK_DTYPE_I32, CLPK_DTYPE_U8,  CLPK_DTYPE_F64};
    clpk_error err;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; ++k) {
        clpk_dtype before = a->dtype;
        if (clpk_npy_convert(a, order[k], &err) != CLPK_SUCCESS && a->dtype != before) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // An exact-size copy, so ASan sees any read past the end of the input.
    unsigned char *bytes = malloc(size ? size : 1);
    if (!bytes) return 0;
    if (size) memcpy(bytes, data, size);
    clpk_npy a, b;
    clpk_error err;
    err.message[0] = '\0';
    clpk_status st = clpk_npy_parse(bytes, size, "fuzz.npy", &a, &err);
    if (st == CLPK_SUCCESS) check_array(&a, size);
    else if (strncmp(err.message, "fuzz.npy: ", 10) != 0) abort();
    const char *path = write_scratch(data, size);
    if (path) {
        clpk_status file_st = clpk_npy_read(path, &b, &err);
        if (file_st != st || (st == CLPK_SUCCESS && !same_array(&a, &b))) abort();
        clpk_npy_free(&b);
    }
    if (st == CLPK_SUCCESS) fuzz_conversions(&a);
    clpk_npy_free(&a);
    free(bytes);
    return 0;
}
