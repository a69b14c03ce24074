/* The xcorr family's parameters, described once (see param_table.h). One table serves every algorithm: the
 * algorithm is a NAME row and each other row's condition names the algorithms that read it. Rows appear in the order
 * of the tuner's space (tuner/tune_xcorr.c adds them in this order, so its candidates and the profiles' entries keep
 * their shape).
 *
 * Defaults: where every algorithm that reads a parameter starts from the same value, the row holds it; where the
 * value depends on the algorithm or the shape (wg, team, rows_per_worker, shifts, rows, lefts, rights), the row has
 * none and the family derives it (xcorr_direct_defaults, xcorr_fused_defaults), because a single value per row could
 * not say "128 for naive, 64 for grouped, 32 for warp-per-overlap, by size for fused-fft" and separate rows would
 * split one profile key into several. None of the rows is a -D of its own: the same parameter becomes different
 * macros in different kernels (rows: ROWS in xcorr_tile.cl, BLOCK_ROWS in xcorr_local.cl; wg: WPO_WG, LOCAL_WG or
 * only the launch size), so the kernels' build options stay with their code. */
#include "xcorr_params.h"

#include <stddef.h>
#include <string.h>

#define FIELD(member) ((int)offsetof(xcorr_config, member))

#define ALGORITHMS                                                                                                     \
    "auto|naive|shift-buffer|split-row|grouped|multi-right|multi-both|warp-per-overlap|local|fft|fused-fft"
#define TILE_VARIANTS "grouped|multi-right|multi-both"

static const core_param_def xcorr_param_defs[] = {
    {.name = "algorithm",
     .type = CORE_PARAM_NAME,
     .values = ALGORITHMS,
     .default_gpu = "auto",
     .field = FIELD(algorithm),
     .search = "naive|shift-buffer|split-row|grouped|multi-right|multi-both|warp-per-overlap|local|fft|fused-fft",
     .help = "auto: the profile's entry for the nearest class within reach, else the built-in rule"},
    {.name = "wg",
     .type = CORE_PARAM_INT,
     .lo = 1,
     .hi = 65536,
     .field = FIELD(wg),
     .search = "64|128|256|32",
     .when = "algorithm=naive|split-row|" TILE_VARIANTS "|warp-per-overlap|local|fused-fft",
     .help = "work-group size, at most the device's (default 128 naive, split-row, local; 64 grouped, multi-*; 32 "
             "warp-per-overlap, a power of two there; fused-fft: 128 from 512 values a work-group with radix 8 or 16, "
             "else 64; radix 4: its butterflies per stage, 64-256)"},
    {.name = "team",
     .type = CORE_PARAM_INT,
     .lo = 1,
     .hi = 65536,
     .field = FIELD(team),
     .search = "32|8|16|64|128",
     .when = "algorithm=shift-buffer",
     .help = "work-items sharing a row of shifts (default the output width's power of two within 8..64)"},
    {.name = "shuffle",
     .type = CORE_PARAM_NAME,
     .values = "local|subgroup",
     .default_gpu = "local",
     .field = FIELD(shuffle),
     .search = "local|subgroup",
     .when = "algorithm=shift-buffer",
     .help = "the team's buffer in local memory or in registers through sub-group (warp) shuffles"},
    {.name = "rows_per_worker",
     .type = CORE_PARAM_INT,
     .lo = 1,
     .hi = 2147483647,
     .field = FIELD(rows_per_worker),
     .search = "4|1|2|8|16",
     .when = "algorithm=split-row",
     .help = "input rows per worker (default 4, or rows/16 rounded up above 64 rows)"},
    {.name = "combine",
     .type = CORE_PARAM_NAME,
     .values = "ordered|atomic",
     .default_gpu = "ordered",
     .field = FIELD(combine),
     .search = "ordered|atomic",
     .when = "algorithm=split-row",
     .help = "partial sums added in worker order (deterministic) or by atomics"},
    {.name = "distribution",
     .type = CORE_PARAM_NAME,
     .values = "rectangle|triangle",
     .default_gpu = "rectangle",
     .field = FIELD(distribution),
     .search = "rectangle|triangle",
     .when = "algorithm=split-row",
     .help = "workers for every output row, or only those its band of rows needs"},
    {.name = "shifts",
     .type = CORE_PARAM_INT,
     .lo = 1,
     .hi = 16,
     .field = FIELD(shifts),
     .search = "1|2|4|8",
     .when = "algorithm=" TILE_VARIANTS "|local",
     .help = "column shifts per work-item (default 8; local: block columns, default 4)"},
    {.name = "rows",
     .type = CORE_PARAM_INT,
     .lo = 1,
     .hi = 16,
     .field = FIELD(rows),
     .search = "1|2|4|8|16",
     .when = "algorithm=" TILE_VARIANTS "|local|fused-fft",
     .help = "row shifts per work-item (default 1; local: block rows up to 8, default 2; fused-fft: FFT lines per "
             "work-group, default by size; 16 is searched for fused-fft only)"},
    {.name = "lefts",
     .type = CORE_PARAM_INT,
     .lo = 1,
     .hi = 8,
     .field = FIELD(lefts),
     .search = "1|2|4",
     .when = "algorithm=" TILE_VARIANTS,
     .help = "left matrices per work-item, n-to-m only (default 2 for multi-both on n-to-m, else 1)"},
    {.name = "rights",
     .type = CORE_PARAM_INT,
     .lo = 1,
     .hi = 16,
     .field = FIELD(rights),
     .search = "1|2|4|8",
     .when = "algorithm=" TILE_VARIANTS,
     .help = "right matrices per work-item, not one-to-one (default 4 multi-right, 2 multi-both, else 1)"},
    {.name = "fft_pad",
     .type = CORE_PARAM_NAME,
     .values = "smooth|pow2",
     .default_gpu = "smooth",
     .field = FIELD(fft_pad),
     .search = "pow2|smooth",
     .when = "algorithm=fft|fused-fft",
     .help = "padded transform sizes: 2,3,5,7-smooth (fused-fft: 2^i 3^j, or the power of two within 20 %) or powers "
             "of two"},
    {.name = "fft_batch",
     .type = CORE_PARAM_INT,
     .lo = 0,
     .hi = 1 << 24,
     .default_gpu = "0",
     .field = FIELD(fft_batch),
     .when = "algorithm=fft",
     .help = "matrices per transform batch (0: all that fit a quarter of the largest allocation, at most 256 MiB)"},
    {.name = "fused_batch",
     .type = CORE_PARAM_INT,
     .lo = 0,
     .hi = 1 << 30,
     .default_gpu = "0",
     .field = FIELD(fused_batch),
     .when = "algorithm=fused-fft",
     .help = "pairs (output matrices) per chunk of launches, rounded up to even except for one-to-one (0: "
             "intermediates within a quarter of the largest allocation, at most 512 MiB)"},
    {.name = "fused_gaps",
     .type = CORE_PARAM_INT,
     .values = "0|1",
     .lo = 0,
     .hi = 1,
     .default_gpu = "1",
     .field = FIELD(fused_gaps),
     .when = "algorithm=fused-fft",
     .help = "a gap per 16 complex values in local memory against bank conflicts"},
    {.name = "fused_tiles",
     .type = CORE_PARAM_INT,
     .values = "0|1",
     .lo = 0,
     .hi = 1,
     .default_gpu = "0",
     .field = FIELD(fused_tiles),
     .when = "algorithm=fused-fft",
     .help = "one-to-many, n-to-m, n-to-mn: the intermediates in tiles of rows (FFT lines per work-group) columns, so "
             "that the column pass reads and writes contiguous runs (1), or row-major (0); default 1 on GPUs for "
             "n-to-m and f64"},
    /* not searched: session 26 (H200, per-kernel times) measured one-to-one's row kernels 7-19 % faster at 64 items
     * than at 128, its column kernel (two column sets) 17 % slower; the default waits for a measurement of the split
     * (docs/perf-xcorr.md, "Call 7") */
    {.name = "fused_row_wg",
     .type = CORE_PARAM_INT,
     .lo = 0,
     .hi = 65536,
     .default_gpu = "0",
     .field = FIELD(fused_row_wg),
     .when = "algorithm=fused-fft",
     .help = "one-to-one: work-group size of the row kernels (K1, K3; 0: wg, which the column kernel keeps); the other "
             "patterns ignore it"},
    {.name = "fft_radix",
     .type = CORE_PARAM_INT,
     .values = "4|8|16",
     .lo = 4,
     .hi = 16,
     .default_gpu = "8",
     .default_cpu = "4",
     .field = FIELD(fft_radix),
     .search = "4|8|16",
     .when = "algorithm=fused-fft",
     .help = "the largest radix of a local-memory FFT stage: 8 and 16 do two passes in registers (fewer local-memory "
             "trips and barriers, fewer items busy per stage); default 8 on GPUs, 16 in f32 where it saves a stage "
             "(lines of 128, 256, 384), 4 on CPUs"},
};

/* How far (core_class_distance: the sum over the features of (log(1 + a) - log(1 + b))^2) a profile class may lie
 * from the problem and still decide it. The best algorithm changes with size and count by orders of magnitude (on
 * the H100 a 16^2 x 4000 one-to-one class says "grouped", which at 64^2 x 4000 is 3.5x slower than the FFT path; a
 * 16^2 one-to-many class of 4000 rights says multi-right, which at 32^2 is 1.25x slower than FFT; a class of 4000
 * rights says FFT for 2 rights, 11x slower than warp-per-overlap), so a class further away than about a factor 1.65
 * in side (both dimensions) or 2 in count gives way to the built-in rule, whose cost model extrapolates. */
#define XCORR_PROFILE_REACH 0.5

/* 2: session 14's fused-fft work-group and radix defaults and the f32 warp-per-overlap threshold (16384 outputs).
 * 3: session 25's wider fused-fft work-groups for one-to-many, n-to-mn and n-to-m (an entry of revision 2 lost up
 * to 1.32x to them: one-to-many 40^2 1 x 600 f64 on the H200).
 * 4: session 26's f64 padding (the power of two where it saves two stages: 64 against 54), fused-fft work-groups
 * (f32 radix-16 lines: 1024 values on 64 items; f64 lines of 2^k points: 512 values; f64 n-to-m's one line of 512:
 * 128 items) and 16 lines in the tuner's fused-fft space.
 * 5: session 26's f64 one-to-many and n-to-mn on radix-16 stages with 64 items (lines of 128-384). */
#define XCORR_DEFAULTS_REVISION 5

const core_param_table xcorr_param_table = {"xcorr", xcorr_param_defs, CORE_PARAM_COUNT(xcorr_param_defs),
                                            XCORR_PROFILE_REACH, XCORR_DEFAULTS_REVISION};

/* The algorithm row's values in order (test_xcorr_params checks them against the row). */
static const char *const algorithm_names[XCORR_ALGORITHM_COUNT] = {
    "auto",  "naive", "shift-buffer", "split-row", "grouped", "multi-right", "multi-both", "warp-per-overlap",
    "local", "fft",   "fused-fft"};

const char *xcorr_algorithm_name(int algorithm) {
    return algorithm >= 0 && algorithm < XCORR_ALGORITHM_COUNT ? algorithm_names[algorithm] : "";
}

int xcorr_algorithm_of(const char *name) {
    const char *at = xcorr_param_defs[0].values;
    const size_t n = name ? strlen(name) : 0;
    for (int index = 0; name && at; ++index) {
        const size_t len = strcspn(at, "|");
        if (len == n && strncmp(at, name, n) == 0) return index;
        at = at[len] ? at + len + 1 : NULL;
    }
    return -1;
}
