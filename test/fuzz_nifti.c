/* libFuzzer target for the NIfTI-1 header and data parser: any input must either parse into a consistent volume
 * (positive dims, a finite non-singular affine) or be refused with a message naming the input. */
#include "../lib/io/io_nifti.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    nifti_file v;
    clpk_error err;
    memset(&err, 0, sizeof err);
    if (nifti_file_parse(data, size, "fuzz.nii", &v, &err) != CLPK_SUCCESS) {
        if (!strstr(err.message, "fuzz.nii")) abort();
        return 0;
    }
    if (v.nx < 1 || v.ny < 1 || v.nz < 1 || v.nt < 1 || !v.data) abort();
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            if (!isfinite(v.affine[r][c])) abort();
    volatile double sum = 0;
    size_t total = (size_t)v.nx * v.ny * v.nz * v.nt;
    for (size_t i = 0; i < total; i++) sum += v.data[i];
    nifti_file_free(&v);
    return 0;
}
