/* libFuzzer target for the TrackVis .trk reader: any input must either parse into a consistent tractogram (offsets
 * increasing from 0 to n_points, finite points, a usable voxmm -> RAS affine or a clear refusal) or be refused with
 * a message naming the input. Seed it with ../shared/data/life/EuDX_small_25.trk. */
#include "../lib/io/io_trk.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    trk_file t;
    clpk_error err;
    memset(&err, 0, sizeof err);
    clpk_status st = trk_file_parse(data, size, "fuzz.trk", &t, &err);
    if (st != CLPK_SUCCESS) {
        if (!strstr(err.message, "fuzz.trk")) abort(); /* every refusal names the input */
        return 0;
    }
    if (t.offsets[0] != 0 || t.offsets[t.n_streamlines] != t.n_points) abort();
    for (int64_t s = 0; s < t.n_streamlines; s++)
        if (t.offsets[s + 1] < t.offsets[s]) abort();
    for (int64_t i = 0; i < 3 * t.n_points; i++)
        if (!isfinite(t.points[i])) abort();
    double A[4][4];
    clpk_error aerr;
    memset(&aerr, 0, sizeof aerr);
    if (trk_file_voxmm_to_rasmm(&t, A, &aerr) == CLPK_SUCCESS) {
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                if (!isfinite(A[r][c])) abort();
    } else if (!aerr.message[0]) {
        abort();
    }
    trk_file_free(&t);
    return 0;
}
