/* Implementation of check.h: counters, seed, RNG and error norm for the tests. */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Process-wide on purpose: a test executable is a single test run. */
static int check_passed_;
static int check_failed_;

int check_record(int ok, const char *file, int line, const char *expr, const char *fmt, ...) {
    if (ok) {
        ++check_passed_;
        return 1;
    }
    ++check_failed_;
    fprintf(stderr, "FAIL %s:%d: %s: ", file, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    return 0;
}

double check_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct {
    char family[16], label[256];
    double seconds;
    int points;
} slowest_[8];

void check_build_time(const char *family, const char *label, double seconds) {
    for (size_t i = 0; i < sizeof slowest_ / sizeof slowest_[0]; ++i) {
        if (slowest_[i].points && strcmp(slowest_[i].family, family) != 0) continue;
        if (!slowest_[i].points) snprintf(slowest_[i].family, sizeof slowest_[i].family, "%s", family);
        ++slowest_[i].points;
        if (seconds >= slowest_[i].seconds) {
            slowest_[i].seconds = seconds;
            snprintf(slowest_[i].label, sizeof slowest_[i].label, "%s", label);
        }
        return;
    }
}

static void report_build_times(void) {
    const char *env = getenv("CLPK_TEST_BUILD_LIMIT_S");
    double limit = env && *env ? atof(env) : 60.0;
    for (size_t i = 0; i < sizeof slowest_ / sizeof slowest_[0] && slowest_[i].points; ++i) {
        printf("slowest first build and run of %d %s points: %.2f s (%s)\n", slowest_[i].points, slowest_[i].family,
               slowest_[i].seconds, slowest_[i].label);
        CHECK(slowest_[i].seconds <= limit, "%s point '%s' took %.1f s to build and run once (limit %.0f s)",
              slowest_[i].family, slowest_[i].label, slowest_[i].seconds, limit);
    }
}

int check_summary(void) {
    report_build_times();
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    fflush(stdout);
    return check_failed_ ? 1 : 0;
}

int check_failures(void) { return check_failed_; }

uint64_t check_seed(void) {
    const char *env = getenv("CLPK_TEST_SEED");
    uint64_t seed;
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        // Mix the pid in so tests started in the same nanosecond by ctest -j still differ.
        seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    }
    printf("seed: %" PRIu64 " (set CLPK_TEST_SEED=%" PRIu64 " to repeat)\n", seed, seed);
    fflush(stdout);
    return seed;
}

uint64_t check_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double check_rand_double(uint64_t *state) { return (double)(check_rand(state) >> 11) * 0x1.0p-53; }

double check_rel_error(const double *ref, const double *got, size_t n) {
    double max_diff = 0.0, max_ref = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (isnan(got[i]) || isnan(ref[i])) return INFINITY;
        if (isinf(got[i]) || isinf(ref[i])) {
            if (got[i] != ref[i]) return INFINITY;
            continue; // the same infinity: no error, and it must not poison the norm of ref
        }
        double d = fabs(got[i] - ref[i]);
        if (d > max_diff) max_diff = d;
        if (fabs(ref[i]) > max_ref) max_ref = fabs(ref[i]);
    }
    return max_ref > 0.0 ? max_diff / max_ref : max_diff;
}

int check_tmp_dir_create(check_tmp_dir *d, const char *tag) {
    const char *base = getenv("TMPDIR");
    snprintf(d->path, sizeof d->path, "%s/clpk-test-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    return mkdtemp(d->path) != NULL;
}

void check_tmp_dir_remove(check_tmp_dir *d) {
    DIR *dir = opendir(d->path);
    if (!dir) return;
    struct dirent *e;
    char file[512];
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(file, sizeof file, "%s/%s", d->path, e->d_name);
        unlink(file);
    }
    closedir(dir);
    rmdir(d->path);
}

const char *check_tmp_file(const check_tmp_dir *d, const char *name, char *buf, size_t size) {
    snprintf(buf, size, "%s/%s", d->path, name);
    return buf;
}
