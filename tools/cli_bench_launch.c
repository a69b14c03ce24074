#include "cli_bench_launch.h"

clpk_status cli_life_launch_events(void *user, cl_event *first, cl_event *last) {
    const cli_life_launch *u = user;
    /* equal first and last events are released once by clpk_bench_run */
    return u->dsc ? clpk_life_dsc_events(u->plan, u->in, u->out, 0, NULL, first, last)
                  : clpk_life_wc_events(u->plan, u->in, u->out, 0, NULL, first, last);
}

clpk_status cli_xcorr_launch_events(void *user, cl_event *first, cl_event *last) {
    const cli_xcorr_launch *j = user;
    return clpk_xcorr_execute_events(j->plan, j->left, 0, j->right, 0, j->out, 0, first, last);
}
