#include "cli_npy.h"

#include <stdio.h>

int cli_npy_write_arrays(const char *tool, const char *prefix, const cli_npy_array *arrays, int count) {
    clpk_error err = {0};
    for (int i = 0; i < count; ++i) {
        char path[1100];
        snprintf(path, sizeof path, "%s%s", prefix, arrays[i].suffix);
        if (clpk_npy_write_raw(path, arrays[i].dtype, arrays[i].ndim, arrays[i].shape, arrays[i].data, &err) !=
            CLPK_SUCCESS) {
            fprintf(stderr, "%s: %s\n", tool, err.message);
            return 0;
        }
    }
    return 1;
}
