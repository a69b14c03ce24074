/* Public timing entry of cross-correlation plans: the launch sequence with its first and last events. */
#include "clpk_xcorr.h"
#include "xcorr_plan.h"

clpk_status clpk_xcorr_execute_events(clpk_xcorr_plan *plan, cl_mem left, size_t left_offset, cl_mem right,
                                      size_t right_offset, cl_mem out, size_t out_offset, cl_event *first,
                                      cl_event *last) {
    return xcorr_execute_timed(plan, left, left_offset, right, right_offset, out, out_offset, first, last);
}
