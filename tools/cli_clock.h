/* Wall-clock seconds for the tools' progress and timing lines (not for benchmarks: those time on the device). */
#ifndef CLPK_TOOLS_CLI_CLOCK_H
#define CLPK_TOOLS_CLI_CLOCK_H

#include <time.h>

static inline double cli_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
