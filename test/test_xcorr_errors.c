/* Bad input to the cross-correlation API gets a clear status and message, never a crash: invalid shapes, unknown
 * algorithms and parameters, parameters a pattern or the device cannot take, short buffers, bad event lists,
 * non-finite host inputs, sizes past the device's limits. Also the helpers (pattern names, output sizes). */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_plan.h"
#include "xcorr_reference.h"

#include <math.h>
#include <string.h>

static clpk_xcorr_shape shape_of(clpk_xcorr_pattern p, int r, int c, int nl, int nr) {
    clpk_xcorr_shape s = {p, r, c, nl, nr, 0, 0, CLPK_PRECISION_F32};
    return s;
}

/* Plan creation must fail with `want` and a message containing `text`. */
static void refuses(clpk_context *ctx, const clpk_xcorr_shape *s, const char *algo, const char *params,
                    clpk_status want, const char *text, const char *label) {
    clpk_xcorr_plan *plan = (clpk_xcorr_plan *)&plan; /* must be reset to NULL */
    clpk_status st = clpk_xcorr_plan_create(ctx, s, algo, params, &plan);
    CHECK(st == want && plan == NULL, "%s: status %s (want %s)", label, clpk_status_string(st),
          clpk_status_string(want));
    CHECK(strstr(clpk_last_error(ctx), text) != NULL, "%s: message '%s' lacks '%s'", label, clpk_last_error(ctx), text);
}

static void helpers(void) {
    clpk_xcorr_pattern p;
    CHECK(clpk_xcorr_pattern_parse("n_to_mn", &p) == CLPK_SUCCESS && p == CLPK_XCORR_N_TO_MN, "n_to_mn");
    CHECK(clpk_xcorr_pattern_parse("one-to-many", &p) == CLPK_SUCCESS && p == CLPK_XCORR_ONE_TO_MANY, "one-to-many");
    CHECK(clpk_xcorr_pattern_parse("many", &p) == CLPK_ERROR_INVALID_ARGUMENT, "'many' accepted");
    CHECK(clpk_xcorr_pattern_parse(NULL, &p) == CLPK_ERROR_INVALID_ARGUMENT, "NULL accepted");
    CHECK(strcmp(clpk_xcorr_pattern_name(CLPK_XCORR_N_TO_M), "n-to-m") == 0, "name of n-to-m");
    CHECK(strcmp(clpk_xcorr_pattern_name((clpk_xcorr_pattern)99), "unknown") == 0, "name of 99");
    clpk_xcorr_shape s = shape_of(CLPK_XCORR_N_TO_M, 5, 3, 2, 7);
    CHECK(clpk_xcorr_output_count(&s) == 14 && clpk_xcorr_output_rows(&s) == 9 && clpk_xcorr_output_cols(&s) == 5,
          "n-to-m sizes");
    s.search_rows = 3;
    s.search_cols = 1;
    CHECK(clpk_xcorr_output_rows(&s) == 3 && clpk_xcorr_output_cols(&s) == 1, "window sizes");
    s = shape_of(CLPK_XCORR_N_TO_MN, 4, 4, 3, 7);
    CHECK(clpk_xcorr_output_count(&s) == 0 && clpk_xcorr_output_rows(&s) == 0, "invalid shape has outputs");
    CHECK(clpk_xcorr_output_count(NULL) == 0, "NULL shape has outputs");
    size_t l, r;
    s = shape_of(CLPK_XCORR_N_TO_MN, 4, 4, 3, 9);
    xcorr_pair_of(&s, 7, &l, &r);
    CHECK(l == 1 && r == 7, "n-to-mn pair of 7: %zu %zu", l, r);
    s = shape_of(CLPK_XCORR_N_TO_M, 4, 4, 3, 5);
    xcorr_pair_of(&s, 13, &l, &r);
    CHECK(l == 2 && r == 3, "n-to-m pair of 13: %zu %zu", l, r);
}

static void shapes(clpk_context *ctx) {
    const clpk_status INV = CLPK_ERROR_INVALID_ARGUMENT;
    clpk_xcorr_shape s = shape_of(CLPK_XCORR_ONE_TO_ONE, 0, 4, 1, 1);
    refuses(ctx, &s, NULL, NULL, INV, "both must be >= 1", "0 rows");
    s = shape_of(CLPK_XCORR_ONE_TO_ONE, 4, -1, 1, 1);
    refuses(ctx, &s, NULL, NULL, INV, "both must be >= 1", "negative cols");
    s = shape_of(CLPK_XCORR_ONE_TO_ONE, 4, 4, 0, 0);
    refuses(ctx, &s, NULL, NULL, INV, "need >= 1", "no matrices");
    s = shape_of(CLPK_XCORR_ONE_TO_ONE, 4, 4, 2, 3);
    refuses(ctx, &s, NULL, NULL, INV, "must be equal", "one-to-one counts");
    s = shape_of(CLPK_XCORR_ONE_TO_MANY, 4, 4, 2, 3);
    refuses(ctx, &s, NULL, NULL, INV, "exactly 1", "one-to-many counts");
    s = shape_of(CLPK_XCORR_N_TO_MN, 4, 4, 2, 3);
    refuses(ctx, &s, NULL, NULL, INV, "not a multiple", "n-to-mn counts");
    s = shape_of((clpk_xcorr_pattern)0, 4, 4, 1, 1);
    refuses(ctx, &s, NULL, NULL, INV, "unknown pattern", "pattern 0");
    s = shape_of(CLPK_XCORR_ONE_TO_ONE, 4, 4, 1, 1);
    s.precision = (clpk_precision)7;
    refuses(ctx, &s, NULL, NULL, INV, "precision", "precision 7");
    s = shape_of(CLPK_XCORR_ONE_TO_ONE, 4, 4, 1, 1);
    s.search_rows = 4, s.search_cols = 3;
    refuses(ctx, &s, NULL, NULL, INV, "odd", "even window");
    s.search_rows = 9;
    refuses(ctx, &s, NULL, NULL, INV, "at most 7x7", "window too large");
    s.search_rows = -1;
    refuses(ctx, &s, NULL, NULL, INV, "odd", "negative window");
    s = shape_of(CLPK_XCORR_ONE_TO_ONE, 100000, 100000, 1, 1);
    refuses(ctx, &s, NULL, NULL, INV, "too large", "huge matrices");
    s = shape_of(CLPK_XCORR_N_TO_M, 4, 4, 100000, 100000);
    refuses(ctx, &s, NULL, NULL, INV, "too many", "n-to-m count past int");
    s = shape_of(CLPK_XCORR_N_TO_M, 4, 4, 20000, 20000);
    refuses(ctx, &s, NULL, NULL, CLPK_ERROR_UNSUPPORTED, "per buffer", "outputs past max_alloc");
    s = shape_of(CLPK_XCORR_ONE_TO_ONE, 4, 4, 1, 1);
    clpk_xcorr_plan *plan = NULL;
    CHECK(clpk_xcorr_plan_create(ctx, NULL, NULL, NULL, &plan) == INV && !plan, "NULL shape accepted");
    CHECK(clpk_xcorr_plan_create(ctx, &s, NULL, NULL, NULL) == INV, "NULL out accepted");
    CHECK(clpk_xcorr_plan_create(NULL, &s, NULL, NULL, &plan) == INV && !plan, "NULL context accepted");
}

static void parameters(clpk_context *ctx) {
    const clpk_status INV = CLPK_ERROR_INVALID_ARGUMENT;
    const clpk_xcorr_shape one = shape_of(CLPK_XCORR_ONE_TO_ONE, 6, 5, 2, 2);
    const clpk_xcorr_shape many = shape_of(CLPK_XCORR_ONE_TO_MANY, 6, 5, 1, 4);
    refuses(ctx, &one, "fastest", NULL, INV, "unknown algorithm 'fastest'", "unknown algorithm");
    refuses(ctx, &one, "naive,wg=64", NULL, INV, "'naive,wg=64'", "algorithm with a parameter in it");
    refuses(ctx, &one, "naive", "algorithm=grouped", INV, "algorithm argument", "algorithm among the parameters");
    refuses(ctx, &one, "naive", "colour=red", INV, "colour", "unknown parameter");
    refuses(ctx, &one, "naive", "shifts=2", INV, "shifts", "key of another algorithm");
    refuses(ctx, &one, "naive", "wg=", INV, "wg", "empty value");
    refuses(ctx, &one, "naive", "wg=abc", INV, "wg=abc", "non-numeric wg");
    refuses(ctx, &one, "naive", "wg=0", INV, "wg=0", "wg 0");
    refuses(ctx, &one, "naive", "wg=100000", INV, "wg=100000", "wg past the device");
    refuses(ctx, &one, "naive", "garbage", INV, "", "unparsable params");
    refuses(ctx, &one, "grouped", "rights=2", INV, "not one-to-one", "rights on one-to-one");
    refuses(ctx, &many, "multi-both", "lefts=2", INV, "n-to-m", "lefts on one-to-many");
    refuses(ctx, &many, "grouped", "shifts=16,rows=16", INV, "at most 128", "too many accumulators");
    refuses(ctx, &many, "grouped", "shifts=17", INV, "shifts=17", "shifts past 16");
    refuses(ctx, &many, "warp-per-overlap", "wg=48", INV, "power of two", "wpo wg not a power of two");
    refuses(ctx, &many, "split-row", "combine=sometimes", INV, "combine=sometimes", "bad combine");
    refuses(ctx, &many, "split-row", "rows_per_worker=0", INV, "rows_per_worker", "rows_per_worker 0");
    refuses(ctx, &many, "split-row", "distribution=diagonal", INV, "distribution=diagonal", "bad distribution");
    refuses(ctx, &many, "split-row", "distribution=", INV, "", "empty distribution");
    refuses(ctx, &many, "shift-buffer", "shuffle=warp", INV, "shuffle=warp", "bad shuffle");
    refuses(ctx, &many, "shift-buffer", "team=-4", INV, "team", "negative team");
    refuses(ctx, &many, "fft", "fft_pad=odd", INV, "fft_pad=odd", "bad fft_pad");
    refuses(ctx, &one, "local", "rows=9", INV, "rows=9", "local rows past 8");
    /* An explicit algorithm reports what it uses. */
    clpk_xcorr_plan *plan = NULL;
    if (CHECK(clpk_xcorr_plan_create(ctx, &many, "grouped", " shifts = 2 , rows=4", &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        char buf[256];
        clpk_xcorr_plan_params(plan, buf, sizeof buf);
        CHECK(strcmp(clpk_xcorr_plan_algorithm(plan), "grouped") == 0 && strstr(buf, "shifts=2") &&
                  strstr(buf, "rows=4"),
              "plan reports %s {%s}", clpk_xcorr_plan_algorithm(plan), buf);
        clpk_xcorr_plan_params(plan, buf, 4);
        CHECK(strlen(buf) <= 3, "params not truncated to the buffer");
    }
    clpk_xcorr_plan_destroy(plan);
    clpk_xcorr_plan_destroy(NULL);
    CHECK(strcmp(clpk_xcorr_plan_algorithm(NULL), "") == 0, "algorithm of NULL plan");
}

static void execution(clpk_context *ctx) {
    const clpk_xcorr_shape s = shape_of(CLPK_XCORR_ONE_TO_MANY, 6, 5, 1, 3);
    const size_t nl = 30, nr = 90, no = 3 * 11 * 9;
    clpk_xcorr_plan *plan = NULL;
    if (!CHECK(clpk_xcorr_plan_create(ctx, &s, "naive", NULL, &plan) == CLPK_SUCCESS, "%s", clpk_last_error(ctx)))
        return;
    cl_context c = clpk_context_cl_context(ctx);
    cl_int rc;
    cl_mem small = clCreateBuffer(c, CL_MEM_READ_WRITE, 16, NULL, &rc);
    cl_mem bl = clCreateBuffer(c, CL_MEM_READ_WRITE, nl * 4, NULL, &rc);
    cl_mem br = clCreateBuffer(c, CL_MEM_READ_WRITE, nr * 4, NULL, &rc);
    cl_mem bo = clCreateBuffer(c, CL_MEM_READ_WRITE, no * 4, NULL, &rc);
    const clpk_status INV = CLPK_ERROR_INVALID_ARGUMENT;
    clpk_status st = clpk_xcorr_execute(plan, small, 0, br, 0, bo, 0, 0, NULL, NULL);
    CHECK(st == INV && strstr(clpk_last_error(ctx), "left buffer"), "short left: %s", clpk_last_error(ctx));
    st = clpk_xcorr_execute(plan, bl, 1, br, 0, bo, 0, 0, NULL, NULL);
    CHECK(st == INV && strstr(clpk_last_error(ctx), "offset 1"), "left offset past the end: %s", clpk_last_error(ctx));
    st = clpk_xcorr_execute(plan, bl, 0, br, 0, bo, 2, 0, NULL, NULL);
    CHECK(st == INV && strstr(clpk_last_error(ctx), "output"), "output offset past the end: %s", clpk_last_error(ctx));
    st = clpk_xcorr_execute(plan, bl, 0, br, (size_t)-1, bo, 0, 0, NULL, NULL);
    CHECK(st == INV, "huge right offset accepted");
    st = clpk_xcorr_execute(plan, bl, 0, NULL, 0, bo, 0, 0, NULL, NULL);
    CHECK(st == INV && strstr(clpk_last_error(ctx), "NULL right"), "NULL right: %s", clpk_last_error(ctx));
    st = clpk_xcorr_execute(plan, bl, 0, br, 0, bo, 0, 2, NULL, NULL);
    CHECK(st == INV && strstr(clpk_last_error(ctx), "n_wait"), "n_wait without events: %s", clpk_last_error(ctx));
    CHECK(clpk_xcorr_execute(NULL, bl, 0, br, 0, bo, 0, 0, NULL, NULL) == INV, "NULL plan executed");
    /* Host path: NaN and infinity refused, NULL arrays refused, finite input works with an event chain. */
    float left[30], right[90], out[3 * 11 * 9];
    for (int i = 0; i < 30; ++i)
        left[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < 90; ++i)
        right[i] = (float)(i % 5) - 2.0f;
    CHECK(clpk_xcorr_execute_host(plan, left, right, out) == CLPK_SUCCESS, "host run: %s", clpk_last_error(ctx));
    right[17] = NAN;
    st = clpk_xcorr_execute_host(plan, left, right, out);
    CHECK(st == CLPK_ERROR_INVALID_DATA && strstr(clpk_last_error(ctx), "right input element 17"), "NaN: %s",
          clpk_last_error(ctx));
    right[17] = 0;
    left[3] = INFINITY;
    st = clpk_xcorr_execute_host(plan, left, right, out);
    CHECK(st == CLPK_ERROR_INVALID_DATA && strstr(clpk_last_error(ctx), "left input element 3"), "inf: %s",
          clpk_last_error(ctx));
    CHECK(clpk_xcorr_execute_host(plan, NULL, right, out) == INV, "NULL host left accepted");
    CHECK(clpk_xcorr_execute_host(NULL, left, right, out) == INV, "NULL plan accepted on the host path");
    /* Waiting on a user event: nothing runs until it completes, then the result is there. */
    cl_event gate = clCreateUserEvent(c, &rc), done = NULL;
    st = clpk_xcorr_execute(plan, bl, 0, br, 0, bo, 0, 1, &gate, &done);
    CHECK(st == CLPK_SUCCESS && done, "execute with a wait list: %s", clpk_last_error(ctx));
    clSetUserEventStatus(gate, CL_COMPLETE);
    if (done) CHECK(clWaitForEvents(1, &done) == CL_SUCCESS, "done event failed");
    if (done) clReleaseEvent(done);
    clReleaseEvent(gate);
    clpk_xcorr_plan_destroy(plan);
    clReleaseMemObject(small);
    clReleaseMemObject(bl);
    clReleaseMemObject(br);
    clReleaseMemObject(bo);
}

int main(void) {
    check_seed();
    helpers();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    shapes(ctx);
    parameters(ctx);
    execution(ctx);
    clpk_context_destroy(ctx);
    return check_summary();
}
