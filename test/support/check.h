/* A tiny assertion kit shared by the clpk tests.
 *
 *   #include "check.h"
 *   int main(void) {
 *       uint64_t rng = check_seed();                 // prints the seed; CLPK_TEST_SEED=... repeats a run
 *       CHECK(x == 3, "x is %d", x);                  // counts a pass or prints the failure and counts it
 *       if (!CHECK(p != NULL, "no buffer")) return check_summary();  // CHECK yields the condition
 *       double e = check_rel_error(ref, got, n);
 *       return check_summary();                      // prints "N passed, N failed"; 0 when nothing failed
 *   }
 *
 * Counters are process-wide: one test executable is one test run. Not thread-safe (call from one thread). */
#ifndef CLPK_CHECK_H
#define CLPK_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Records one check. On failure prints "FAIL file:line: expr: message" to stderr. Returns `ok` (0 or 1). */
int check_record(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* CHECK(cond, fmt, ...): the format (and its arguments) describe the failure; a format is required. */
#define CHECK(cond, ...) check_record((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

/* Prints the build-time watch's slowest points, then "N passed, N failed" to stdout and returns the process exit code
 * (0 when no check failed). */
int check_summary(void);

/* Seconds on a monotonic clock. */
double check_seconds(void);

/* Build-time watch. A point's first plan creation and run is where JIT compilers do their work (PoCL compiles a
 * kernel at its first enqueue), so tests that walk a tuning space report its wall time here. check_summary() prints
 * the slowest point of each family and fails one whose time exceeds $CLPK_TEST_BUILD_LIMIT_S (default 60 s): a
 * point a tuner may pick must compile in bounded time on every CPU implementation. With warm program caches the
 * times are only run times. */
void check_build_time(const char *family, const char *label, double seconds);

/* Number of failed checks so far (e.g. to stop a test early). */
int check_failures(void);

/* The seed of this run: $CLPK_TEST_SEED (decimal or 0x hex) if set, else derived from the clock. Printed to
 * stdout so a failing run can be repeated. Use it as the state of check_rand(). */
uint64_t check_seed(void);

/* A small deterministic generator (splitmix64) over a caller-held state, so tests need no global RNG. */
uint64_t check_rand(uint64_t *state);
/* Uniform in [0, 1) with 53 random bits. */
double check_rand_double(uint64_t *state);

/* Max-norm relative error max|got-ref| / max|ref| over finite elements (absolute error when ref is all zero, 0 for
 * n == 0). INFINITY if any element is NaN or an infinity is not matched exactly, so NaNs never pass a tolerance. */
double check_rel_error(const double *ref, const double *got, size_t n);

/* A temporary directory for files a test writes (malformed inputs, round trips), removed with its files. */
typedef struct check_tmp_dir {
    char path[256];
} check_tmp_dir;
/* Creates $TMPDIR/clpk-test-<tag>-XXXXXX (default /tmp); returns 1 on success. */
int check_tmp_dir_create(check_tmp_dir *d, const char *tag);
/* Removes the files in the directory (not subdirectories) and the directory. */
void check_tmp_dir_remove(check_tmp_dir *d);
/* "<dir>/<name>" in buf; returns buf. */
const char *check_tmp_file(const check_tmp_dir *d, const char *name, char *buf, size_t size);

#endif
