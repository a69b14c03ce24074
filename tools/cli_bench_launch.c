#include "cli_bench_launch.h"

#include <time.h>

static double now_ms(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

clpk_status cli_life_launch_events(void *user, cl_event *first, cl_event *last) {
    const cli_life_launch *u = user;
    /* equal first and last events are released once by clpk_bench_run */
    const clpk_status st = u->dsc ? clpk_life_dsc_events(u->plan, u->in, u->out, 0, NULL, first, last)
                                  : clpk_life_wc_events(u->plan, u->in, u->out, 0, NULL, first, last);
    if (st == CLPK_SUCCESS && u->first_only && *last != *first) {
        clReleaseEvent(*last);
        *last = *first;
    }
    return st;
}

clpk_status cli_xcorr_launch_events(void *user, cl_event *first, cl_event *last) {
    const cli_xcorr_launch *j = user;
    return clpk_xcorr_execute_events(j->plan, j->left, 0, j->right, 0, j->out, 0, first, last);
}

clpk_status cli_warm_up_for(clpk_context *ctx, clpk_bench_launch launch, void *user, double ms, int max_calls) {
    const double start = now_ms();
    clpk_bench_stats ignored;
    for (int i = 0; i < max_calls && now_ms() - start < ms; ++i) {
        const clpk_status st = clpk_bench_run(ctx, launch, user, 0, 1, 0, 0, &ignored);
        if (st != CLPK_SUCCESS) return st;
    }
    return CLPK_SUCCESS;
}
