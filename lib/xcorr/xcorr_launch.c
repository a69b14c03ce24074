/* Launch geometry of the cross-correlation family (see xcorr_launch.h). */
#include "xcorr_launch.h"

int xcorr_range_of(size_t groups, size_t wg, size_t max_items, xcorr_range *out) {
    if (!groups || !wg || wg > max_items) return 0;
    const size_t max_groups = max_items / wg; /* per dimension 0 */
    out->local[0] = wg, out->local[1] = 1;
    if (groups <= max_groups) {
        out->dims = 1;
        out->global[0] = groups * wg, out->global[1] = 1;
        return 1;
    }
    const size_t rows = (groups - 1) / max_groups + 1;
    if (rows > XCORR_MAX_DIM1_GROUPS) return 0;
    /* as few padding groups as the row count allows: at most rows - 1 */
    const size_t cols = (groups - 1) / rows + 1;
    out->dims = 2;
    out->global[0] = cols * wg, out->global[1] = rows;
    return 1;
}
