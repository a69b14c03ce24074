/* Buffer fills (core_fill, lib/core/fill.c; clpk_fill_pattern in cl/util_fill.cl) with the driver's limit lowered to
 * 4096 bytes, so that both paths run on small buffers: regions ending at or below the limit go to clEnqueueFillBuffer
 * (in commands of half the limit), the others to the kernel (the done event's command type tells which ran). Each fill
 * runs over a buffer of random sentinel bytes, all read back: the region holds the pattern bit for bit (NaNs
 * included, signalling ones too), every other byte keeps its sentinel. Patterns of 1, 2, 4 and 8 bytes, regions
 * aligned for the kernel's wider stores and not, straddling the limit, ending at it, empty, seeded random ones, and
 * the refusals (misaligned, past the buffer, patterns the kernel does not take). With no argument also launches whose
 * units outnumber the kernel's work-items (the grid-stride loop); --small skips them (oclgrind). clpk_bench_fill once.
 */
#include "check.h"
#include "clpk_internal.h"

#include <stdlib.h>
#include <string.h>

#define LIMIT ((size_t)4096)

typedef struct fill_buf {
    clpk_context *ctx;
    cl_mem mem;
    size_t size;
    unsigned char *ref, *got;
} fill_buf;

static int buf_create(clpk_context *ctx, size_t size, fill_buf *b) {
    cl_int rc;
    b->ctx = ctx, b->size = size;
    b->mem = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, size, NULL, &rc);
    b->ref = malloc(size), b->got = malloc(size);
    return CHECK(rc == CL_SUCCESS && b->ref && b->got, "buffer of %zu bytes: %d", size, rc);
}

static void buf_destroy(fill_buf *b) {
    if (b->mem) clReleaseMemObject(b->mem);
    free(b->ref), free(b->got);
}

/* Random bytes over the whole buffer, kept in b->ref. */
static int sentinel(fill_buf *b, uint64_t *rng) {
    for (size_t i = 0; i < b->size; i += 8) {
        const uint64_t r = check_rand(rng);
        memcpy(b->ref + i, &r, b->size - i < 8 ? b->size - i : 8);
    }
    const cl_int rc =
        clEnqueueWriteBuffer(clpk_context_queue(b->ctx), b->mem, CL_TRUE, 0, b->size, b->ref, 0, NULL, NULL);
    return CHECK(rc == CL_SUCCESS, "sentinel write: %d", rc);
}

/* One fill after a marker (so the wait list is used) against the host's copy: a fill that succeeds writes the
 * pattern over the region and nothing else, through the path the limit picks; a refused one changes nothing and
 * returns no event. */
static void fill_case(fill_buf *b, uint64_t *rng, const unsigned char *pattern, size_t psize, size_t offset,
                      size_t bytes, size_t limit, clpk_status want) {
    char label[160];
    snprintf(label, sizeof label, "pattern %zu B, bytes %zu..+%zu of %zu, limit %zu", psize, offset, bytes, b->size,
             limit);
    if (!sentinel(b, rng)) return;
    cl_command_queue q = clpk_context_queue(b->ctx);
    cl_event start = NULL, done = NULL;
    cl_int rc = clEnqueueMarkerWithWaitList(q, 0, NULL, &start);
    if (!CHECK(rc == CL_SUCCESS, "%s: marker %d", label, rc)) return;
    const clpk_status st = core_fill(b->ctx, b->mem, pattern, psize, offset, bytes, limit, 1, &start, &done, "test");
    CHECK(st == want, "%s: %s (%s), expected %s", label, clpk_status_string(st), clpk_last_error(b->ctx),
          clpk_status_string(want));
    CHECK((st == CLPK_SUCCESS) == (done != NULL), "%s: done event %p after %s", label, (void *)done,
          clpk_status_string(st));
    if (st == CLPK_SUCCESS && done) {
        cl_command_type type = 0;
        rc = clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL);
        const size_t end = offset + bytes, lim = limit ? limit : CORE_FILL_DRIVER_LIMIT;
        /* the driver's fill may be another command type under oclgrind-check's shim: only the kernel is certain */
        const int by_kernel = type == CL_COMMAND_NDRANGE_KERNEL;
        CHECK(rc == CL_SUCCESS && (bytes ? by_kernel == (end > lim) : type == CL_COMMAND_MARKER),
              "%s: last command of type 0x%x (%d)", label, (unsigned)type, rc);
        for (size_t i = 0; i < bytes; i += psize)
            memcpy(b->ref + offset + i, pattern, psize);
    }
    rc = clEnqueueReadBuffer(q, b->mem, CL_TRUE, 0, b->size, b->got, done ? 1 : 0, done ? &done : NULL, NULL);
    if (CHECK(rc == CL_SUCCESS, "%s: read back %d", label, rc)) {
        size_t wrong = 0, first = b->size;
        for (size_t i = 0; i < b->size; ++i)
            if (b->got[i] != b->ref[i]) wrong++, first = first < i ? first : i;
        CHECK(wrong == 0, "%s: %zu bytes differ, the first at %zu (0x%02x, expected 0x%02x)", label, wrong, first,
              wrong ? b->got[first] : 0, wrong ? b->ref[first] : 0);
    }
    if (done) clReleaseEvent(done);
    clReleaseEvent(start);
}

/* Bit patterns: a byte, two, a signalling float NaN, a signalling double NaN (a trip through a float register could
 * quieten them). */
static const size_t sizes[4] = {1, 2, 4, 8};
static void patterns(unsigned char p[4][8]) {
    const uint32_t nan_f = 0x7f812345u;
    const uint64_t nan_d = 0x7ff00000deadbeefull;
    memset(p, 0, 4 * 8);
    p[0][0] = 0xa5, p[1][0] = 0x34, p[1][1] = 0x12;
    memcpy(p[2], &nan_f, 4);
    memcpy(p[3], &nan_d, 8);
}

static void small_buffer(clpk_context *ctx, uint64_t *rng) {
    unsigned char p[4][8];
    patterns(p);
    fill_buf b = {0};
    if (!buf_create(ctx, 4 * LIMIT, &b)) {
        buf_destroy(&b);
        return;
    }
    for (int k = 0; k < 4; ++k) {
        const size_t s = sizes[k];
        fill_case(&b, rng, p[k], s, 8 * s, 3000 / s * s, LIMIT, CLPK_SUCCESS);      /* driver, two commands */
        fill_case(&b, rng, p[k], s, LIMIT - 64 * s, 64 * s, LIMIT, CLPK_SUCCESS);   /* driver, ends at the limit */
        fill_case(&b, rng, p[k], s, LIMIT - 64 * s, 65 * s, LIMIT, CLPK_SUCCESS);   /* kernel, one unit past it */
        fill_case(&b, rng, p[k], s, LIMIT - 200 * s, 400 * s, LIMIT, CLPK_SUCCESS); /* kernel, straddling */
        fill_case(&b, rng, p[k], s, s, 4 * LIMIT - 2 * s, LIMIT, CLPK_SUCCESS);     /* kernel, unit stores */
        fill_case(&b, rng, p[k], s, 2 * LIMIT, 1000 * 8, LIMIT, CLPK_SUCCESS);      /* kernel, widened to 8 bytes */
        fill_case(&b, rng, p[k], s, 3 * LIMIT + 5 * s, 0, LIMIT, CLPK_SUCCESS);     /* empty: a marker */
        fill_case(&b, rng, p[k], s, 0, 4 * LIMIT, 0, CLPK_SUCCESS);                 /* the default limit */
        for (int r = 0; r < 6; ++r) {                                               /* seeded random regions */
            const size_t units = b.size / s;
            const size_t first = (size_t)(check_rand(rng) % units);
            const size_t n = (size_t)(check_rand(rng) % (units - first + 1));
            fill_case(&b, rng, p[k], s, first * s, n * s, LIMIT, CLPK_SUCCESS);
        }
    }
    /* refusals, on both paths */
    fill_case(&b, rng, p[2], 4, 2, 64, LIMIT, CLPK_ERROR_INVALID_ARGUMENT);                /* misaligned offset */
    fill_case(&b, rng, p[2], 4, LIMIT + 2, 64, LIMIT, CLPK_ERROR_INVALID_ARGUMENT);        /* ... past the limit */
    fill_case(&b, rng, p[3], 8, LIMIT, 60, LIMIT, CLPK_ERROR_INVALID_ARGUMENT);            /* size not of units */
    fill_case(&b, rng, p[3], 8, 3 * LIMIT, LIMIT + 8, LIMIT, CLPK_ERROR_INVALID_ARGUMENT); /* past the buffer */
    fill_case(&b, rng, p[0], 1, 8, 4 * LIMIT, LIMIT, CLPK_ERROR_INVALID_ARGUMENT);         /* past the buffer */
    const unsigned char p3[3] = {1, 2, 3}, p16[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
    fill_case(&b, rng, p3, 3, LIMIT - 31, 60, LIMIT, CLPK_ERROR_UNSUPPORTED);
    CHECK(strstr(clpk_last_error(ctx), "1, 2, 4 or 8") != NULL, "pattern of 3: %s", clpk_last_error(ctx));
    fill_case(&b, rng, p16, 16, 2 * LIMIT, 64, LIMIT, CLPK_ERROR_UNSUPPORTED);
    fill_case(&b, rng, p16, 16, 64, 256, LIMIT, CLPK_SUCCESS);    /* the driver takes 16 bytes */
    fill_case(&b, rng, p3, 3, 3 * LIMIT, 0, LIMIT, CLPK_SUCCESS); /* nothing to fill: nothing refused */
    /* a driver's refusal names the command (OpenCL takes no pattern of 3 bytes; oclgrind fills with it anyway) */
    cl_event ev = NULL;
    clpk_status st = core_fill(ctx, b.mem, p3, 3, 3, 30, LIMIT, 0, NULL, &ev, "test");
    CHECK(st == CLPK_SUCCESS ? ev != NULL
                             : st == CLPK_ERROR_OPENCL && !ev &&
                                   strstr(clpk_last_error(ctx), "clEnqueueFillBuffer(test, bytes 3..33)") != NULL,
          "driver refusal: %s: %s", clpk_status_string(st), clpk_last_error(ctx));
    if (ev) clWaitForEvents(1, &ev), clReleaseEvent(ev), ev = NULL;
    CHECK(core_fill(ctx, b.mem, NULL, 4, 0, 64, LIMIT, 0, NULL, &ev, "test") == CLPK_ERROR_INVALID_ARGUMENT && !ev,
          "NULL pattern accepted");
    CHECK(core_fill(ctx, b.mem, p[2], 0, 0, 64, LIMIT, 0, NULL, &ev, "test") == CLPK_ERROR_INVALID_ARGUMENT && !ev,
          "empty pattern accepted");

    /* the public entry point: a whole-buffer fill ending below 2^31, then read after the queue's earlier commands */
    if (sentinel(&b, rng)) {
        st = clpk_bench_fill(ctx, b.mem, p[3], 8, 16, b.size - 32);
        CHECK(st == CLPK_SUCCESS, "clpk_bench_fill: %s", clpk_last_error(ctx));
        for (size_t i = 16; i < b.size - 16; i += 8)
            memcpy(b.ref + i, p[3], 8);
        cl_int rc = clEnqueueReadBuffer(clpk_context_queue(ctx), b.mem, CL_TRUE, 0, b.size, b.got, 0, NULL, NULL);
        CHECK(rc == CL_SUCCESS && !memcmp(b.got, b.ref, b.size), "clpk_bench_fill result (read %d)", rc);
        CHECK(clpk_bench_fill(ctx, b.mem, p[3], 8, 4, 8) == CLPK_ERROR_INVALID_ARGUMENT, "clpk_bench_fill misaligned");
        CHECK(clpk_bench_fill(NULL, b.mem, p[3], 8, 0, 8) == CLPK_ERROR_INVALID_ARGUMENT, "clpk_bench_fill NULL ctx");
    }
    buf_destroy(&b);
}

/* More units than the launch's work-items: each work-item's loop takes several steps, for each unit size. */
static void grid_stride(clpk_context *ctx, uint64_t *rng) {
    unsigned char p[4][8];
    patterns(p);
    fill_buf big = {0};
    const size_t units = CORE_FILL_MAX_ITEMS * 2 + 5;
    if (buf_create(ctx, units * 8 + 64, &big))
        for (int k = 0; k < 4; ++k)
            fill_case(&big, rng, p[k], sizes[k], sizes[k], units * sizes[k], LIMIT, CLPK_SUCCESS);
    buf_destroy(&big);
}

int main(int argc, char **argv) {
    const int small = argc > 1 && !strcmp(argv[1], "--small");
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    printf("device: %s\n", clpk_context_device_info(ctx)->name);
    small_buffer(ctx, &rng);
    if (!small) grid_stride(ctx, &rng);
    clpk_context_destroy(ctx);
    return check_summary();
}
