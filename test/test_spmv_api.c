/* spmv API and host format: bad input gives clear errors (NULL, unknown or out-of-range parameters, unsorted or
 * non-finite matrices, small buffers, device limits), the BCCOO image of a hand-made matrix is exactly as specified
 * (flags MSB first with 0 = row stop and 1-padding, dummy blocks for empty block rows, result entries, offline
 * transpose; interleave deals rows step-major), and the footprint is exact: clpk_spmv_footprint == plan footprint ==
 * bytes the device allocated. */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_format(void) {
    /* 5 x 6, block 2x2: block rows {0,1}, {2,3}, {4}. Rows 2 and 3 are empty -> a dummy block.
     * row 0: cols 0, 5; row 1: col 1; row 4: cols 2, 3 */
    int64_t rp[] = {0, 2, 3, 3, 3, 5};
    int32_t col[] = {0, 5, 1, 2, 3};
    double val[] = {1, 2, 3, 4, 5};
    clpk_csr A = {5, 6, 5, rp, col, val};
    spmv_config cfg = {.format = SPMV_BCCOO, .block_h = 2, .block_w = 2, .flag_bits = 8, .col_bits = 16, .tile = 3,
                       .wg = 2, .strategy = 1, .cache = 1, .sync_adjacent = 1, .slices = 1, .csr_vec = 1};
    spmv_bccoo b;
    clpk_error err = {0};
    if (!CHECK(spmv_bccoo_build(&A, &cfg, CLPK_PRECISION_F64, &b, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    /* blocks: (br0, bc0) (br0, bc2) | dummy (br1) | (br2, bc1) -> 4 blocks; tile 3 x wg 2 -> 1 group, nt = 2 */
    CHECK(b.blocks == 4 && b.nt == 2 && b.groups == 1, "blocks %lld nt %lld groups %lld", (long long)b.blocks,
          (long long)b.nt, (long long)b.groups);
    const uint8_t *fl = b.flags;
    /* thread 0: blocks 0,1,2 = not-stop, stop, stop -> 1 0 0 then 1-padding: 0b10011111; thread 1: block 3 stop,
     * blocks 4,5 padding: 0b01111111. Offline layout: word w of thread t at w*nt + t. */
    CHECK(fl[0] == 0x9f && fl[1] == 0x7f, "flags %02x %02x", fl[0], fl[1]);
    const uint16_t *c = b.cols;
    /* block j of thread t at j*nt + t: thread 0 blocks 0,1,2 at 0,2,4; thread 1 block 3 at 1 */
    CHECK(c[0] == 0 && c[2] == 2 && c[4] == 0 && c[1] == 1, "cols %u %u %u %u", c[0], c[2], c[4], c[1]);
    CHECK(b.entries[0] == 0 && b.entries[1] == 2 && b.entries[2] == 3, "entries %u %u %u", b.entries[0],
          b.entries[1], b.entries[2]);
    const double *v = b.values; /* block_h arrays of nt*tile*block_w values */
    int64_t nbpw = b.nt * cfg.tile * cfg.block_w;
    /* block 0 (pos 0): row 0 = [1, 0], row 1 = [0, 3]; block 1 (pos 2): row 0 = [0, 2]; dummy (pos 4) zeros;
     * block 3 (pos 1): row 0 (matrix row 4) = [4, 5] */
    CHECK(v[0] == 1 && v[1] == 0 && v[nbpw + 0] == 0 && v[nbpw + 1] == 3, "block 0 values");
    CHECK(v[2 * 2] == 0 && v[2 * 2 + 1] == 2, "block 1 values %g %g", v[4], v[5]);
    CHECK(v[4 * 2] == 0 && v[4 * 2 + 1] == 0 && v[nbpw + 8] == 0, "dummy block values");
    CHECK(v[1 * 2] == 4 && v[1 * 2 + 1] == 5 && v[nbpw + 2] == 0, "block 3 values");
    spmv_bccoo_free(&b);

    /* BCCOO+ with 2 slices of 2 block columns (bc 0-1 | bc 2): slice 0 = block rows 0..2, slice 1 = 3..5 */
    cfg.format = SPMV_BCCOO_PLUS;
    cfg.slices = 2;
    int64_t blocks = 0;
    CHECK(spmv_bccoo_count(&A, &cfg, &blocks, &err) == CLPK_SUCCESS, "%s", err.message);
    /* slice 0: br0 {bc0}, br1 dummy, br2 {bc1}; slice 1: br0 {bc2}, br1 dummy, br2 dummy -> 6 */
    CHECK(blocks == 6, "BCCOO+ blocks %lld, expected 6", (long long)blocks);
}

/* col=delta decodes to exactly the full column array, with escapes where a delta does not fit in 16 bits. */
static void test_delta(void) {
    clpk_csr A;
    clpk_error err = {0};
    clpk_spmv_generate("random:60:200000:40", 9, &A, &err);
    for (int online = 0; online < 2; ++online) {
        spmv_config cfg = {.format = SPMV_BCCOO, .block_h = 1, .block_w = 2, .flag_bits = 8, .col_bits = 32,
                           .tile = 7, .wg = 16, .strategy = 1, .cache = 1, .sync_adjacent = 1, .slices = 1,
                           .csr_vec = 1, .online = online};
        spmv_bccoo full, d;
        CHECK(spmv_bccoo_build(&A, &cfg, CLPK_PRECISION_F32, &full, &err) == CLPK_SUCCESS, "%s", err.message);
        cfg.col_delta = 1;
        cfg.col_bits = 16;
        CHECK(spmv_bccoo_build(&A, &cfg, CLPK_PRECISION_F32, &d, &err) == CLPK_SUCCESS, "%s", err.message);
        CHECK(d.n_esc > 0 && d.esc_start[d.nt] == (uint32_t)d.n_esc, "escapes: %lld", (long long)d.n_esc);
        int64_t bad = 0;
        for (int64_t t = 0; t < d.nt; ++t) {
            uint32_t prev = d.col_base[t], k = d.esc_start[t];
            for (int64_t j = 0; j < cfg.tile; ++j) {
                int64_t pos = online ? t * cfg.tile + j : j * d.nt + t;
                uint16_t v = ((const uint16_t *)d.cols)[pos];
                uint32_t c = v == 0x8000 ? d.esc[k++] : (uint32_t)((int32_t)prev + (int16_t)v);
                if (c != ((const uint32_t *)full.cols)[pos]) ++bad;
                prev = c;
            }
            if (k != d.esc_start[t + 1]) ++bad;
        }
        CHECK(bad == 0, "col=delta (%s) decodes wrongly at %lld places", online ? "online" : "offline",
              (long long)bad);
        spmv_bccoo_free(&full);
        spmv_bccoo_free(&d);
    }
    spmv_util_free(&A);
}

/* Column (block column) of the block at logical index b of an offline image with full 32- or 16-bit columns. */
static int64_t col_at(const spmv_bccoo *b, const spmv_config *cfg, int64_t blk) {
    int64_t t = blk / cfg->tile, pos = (blk % cfg->tile) * b->nt + t;
    return cfg->col_bits == 16 ? ((const uint16_t *)b->cols)[pos] : ((const uint32_t *)b->cols)[pos];
}

/* interleave=1 deals each row segment's blocks step-major over the threads it spans: the image holds the same
 * flags, result entries and, per row segment, the same columns; and within a dense row, threads t and t+1 hold
 * consecutive block columns at every step (the coalesced x loads it is for). Both the 1x1 fast path and the merge
 * path, offline layout. */
static void test_interleave(void) {
    clpk_csr A;
    clpk_error err = {0};
    if (!CHECK(clpk_spmv_generate("dense:45", 4, &A, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    static const int shapes[][2] = {{1, 1}, {1, 2}, {2, 2}};
    for (int s = 0; s < 3; ++s) {
        spmv_config cfg = {.format = SPMV_BCCOO, .block_h = shapes[s][0], .block_w = shapes[s][1], .flag_bits = 8,
                           .col_bits = 32, .tile = 4, .wg = 8, .strategy = 1, .cache = 1, .sync_adjacent = 1,
                           .slices = 1, .csr_vec = 1};
        spmv_bccoo row, lane;
        CHECK(spmv_bccoo_build(&A, &cfg, CLPK_PRECISION_F32, &row, &err) == CLPK_SUCCESS, "%s", err.message);
        cfg.interleave = 1;
        CHECK(spmv_bccoo_build(&A, &cfg, CLPK_PRECISION_F32, &lane, &err) == CLPK_SUCCESS, "%s", err.message);
        CHECK(row.nt == lane.nt && row.blocks == lane.blocks, "interleave changed the geometry");
        CHECK(memcmp(row.flags, lane.flags, row.flag_bytes) == 0 &&
                  memcmp(row.entries, lane.entries, (size_t)(row.nt + 1) * sizeof *row.entries) == 0,
              "interleave %dx%d changed the flags or result entries", shapes[s][0], shapes[s][1]);
        int64_t bcols = (A.cols + cfg.block_w - 1) / cfg.block_w, moved = 0, bad_set = 0, bad_step = 0;
        for (int64_t r0 = 0; r0 < row.blocks; r0 += bcols) { /* dense: block row k is blocks [k*bcols, +bcols) */
            uint64_t sum_row = 0, sum_lane = 0, sq_row = 0, sq_lane = 0;
            for (int64_t k = r0; k < r0 + bcols; ++k) {
                int64_t cr = col_at(&row, &cfg, k), cl = col_at(&lane, &cfg, k);
                sum_row += (uint64_t)cr, sq_row += (uint64_t)(cr * cr);
                sum_lane += (uint64_t)cl, sq_lane += (uint64_t)(cl * cl);
                moved += cr != cl;
                /* the next thread's block at the same step, if it is in this row */
                int64_t next = k + cfg.tile;
                if (next < r0 + bcols && col_at(&lane, &cfg, next) != cl + 1) ++bad_step;
            }
            bad_set += sum_row != sum_lane || sq_row != sq_lane;
        }
        CHECK(bad_set == 0 && moved > 0, "interleave %dx%d: %lld rows hold other columns, %lld blocks moved",
              shapes[s][0], shapes[s][1], (long long)bad_set, (long long)moved);
        CHECK(bad_step == 0, "interleave %dx%d: %lld neighbouring threads not on consecutive columns", shapes[s][0],
              shapes[s][1], (long long)bad_step);
        spmv_bccoo_free(&row);
        spmv_bccoo_free(&lane);
    }
    spmv_util_free(&A);
}

static void test_errors(clpk_context *ctx, uint64_t *rng) {
    clpk_csr A;
    clpk_error err = {0};
    clpk_spmv_generate("random:50:40:4", 3, &A, &err);
    clpk_spmv_plan *plan = NULL;
    CHECK(clpk_spmv_plan_create(ctx, NULL, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_ERROR_INVALID_ARGUMENT,
          "NULL matrix");
    CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
          "NULL plan");
    CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "ell", NULL, &plan) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(clpk_last_error(ctx), "format"),
          "unknown format: %s", clpk_last_error(ctx));
    const char *bad[] = {"tile=0", "block_w=3", "block_h=5", "sync=maybe", "foo=1", "wg=96", "flag_bits=12",
                         "csr_vec=3", "tile=abc", "transpose=sideways", "slices=0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        clpk_status st = clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "bccoo", bad[i], &plan);
        CHECK(st == CLPK_ERROR_INVALID_ARGUMENT && strlen(clpk_last_error(ctx)) > 10, "%s: %s (%s)", bad[i],
              clpk_status_string(st), clpk_last_error(ctx));
        CHECK(plan == NULL, "no plan after a failure");
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    char big[64];
    snprintf(big, sizeof big, "wg=%zu", dev->max_work_group_size * 2 > 1024 ? (size_t)1024 * 2 : dev->max_work_group_size * 2);
    clpk_status st = clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "bccoo", big, &plan);
    CHECK(st == CLPK_ERROR_UNSUPPORTED || st == CLPK_ERROR_INVALID_ARGUMENT, "%s: %s", big, clpk_last_error(ctx));
    if (dev->has_fp64 && dev->max_work_group_size >= 1024 && 1024 * 4 * 8 * 5 > dev->local_mem_bytes) {
        st = clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F64, "bccoo", "block_h=4,wg=1024,strategy=2,cache=4",
                                   &plan);
        CHECK(st == CLPK_ERROR_UNSUPPORTED && strstr(clpk_last_error(ctx), "local memory"),
              "local memory over the limit: %s", clpk_last_error(ctx));
        clpk_spmv_plan_destroy(plan);
        plan = NULL;
    } else {
        printf("local memory limit not tested: the device has %llu bytes\n",
               (unsigned long long)dev->local_mem_bytes);
    }
    /* malformed matrices */
    int32_t c0 = A.col[0], c1 = A.col[1];
    A.col[0] = c1, A.col[1] = c0;
    CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_ERROR_INVALID_DATA,
          "unsorted columns: %s", clpk_last_error(ctx));
    A.col[0] = c0, A.col[1] = c1;
    A.col[2] = A.cols;
    CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_ERROR_INVALID_DATA,
          "column out of range: %s", clpk_last_error(ctx));
    A.col[2] = A.col[1] + 1 < A.col[3] ? A.col[1] + 1 : A.col[2];
    spmv_util_free(&A);
    clpk_spmv_generate("random:50:40:4", 3, &A, &err);
    double keep = A.val[7];
    A.val[7] = NAN;
    CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_ERROR_INVALID_DATA,
          "NaN value: %s", clpk_last_error(ctx));
    A.val[7] = keep;
    /* small buffers */
    CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "bccoo", NULL, &plan) == CLPK_SUCCESS, "plan: %s",
          clpk_last_error(ctx));
    cl_int rc = 0;
    cl_mem x = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, 40 * 4, NULL, &rc);
    cl_mem y = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, 50 * 4, NULL, &rc);
    CHECK(clpk_spmv(plan, 1, x, 1, 0, y, 0, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "x too small: %s",
          clpk_last_error(ctx));
    CHECK(clpk_spmv(plan, 1, x, 0, 0, y, 1, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "y too small");
    CHECK(clpk_spmv(plan, 1, NULL, 0, 0, y, 0, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NULL x");
    CHECK(clpk_spmv(plan, 1, x, 0, 0, y, 0, 0, NULL, NULL) == CLPK_SUCCESS, "fitting buffers: %s",
          clpk_last_error(ctx));
    clFinish(clpk_context_queue(ctx));
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clpk_spmv_plan_destroy(plan);
    clpk_spmv_plan_destroy(NULL);
    /* col=short beyond 65535 block columns */
    clpk_csr wide;
    clpk_spmv_generate("random:4:70000:3", 4, &wide, &err);
    CHECK(clpk_spmv_plan_create(ctx, &wide, CLPK_PRECISION_F32, "bccoo", "col=short", &plan) ==
              CLPK_ERROR_INVALID_ARGUMENT,
          "col=short on 70000 columns: %s", clpk_last_error(ctx));
    spmv_util_check(ctx, &wide, CLPK_PRECISION_F32, "bccoo", "col=auto", "70000 columns (int indices)", rng);
    spmv_util_free(&wide);
    spmv_util_free(&A);
    CHECK(clpk_spmv_generate("nonsense:3", 1, &A, &err) == CLPK_ERROR_INVALID_ARGUMENT, "bad generator spec");
}

static void test_footprint(clpk_context *ctx) {
    clpk_csr A;
    clpk_error err = {0};
    clpk_spmv_generate("fem:12", 5, &A, &err);
    const struct {
        const char *format, *params;
    } cases[] = {{"csr", "csr_vec=8,wg=64"},
                 {"csr", "csr_kernel=adaptive,wg=64"},
                 {"csr", "csr_kernel=adaptive,wg=4"},
                 {"bccoo", "tile=4,wg=32,sync=adjacent,strategy=1"},
                 {"bccoo", "block_h=2,block_w=2,tile=3,wg=16,strategy=2,cache=1,sync=adjacent"},
                 {"bccoo", "block_h=1,block_w=2,tile=7,wg=16,strategy=1,sync=adjacent,col=delta"},
                 {"bccoo+", "block_h=3,block_w=4,tile=5,wg=16,slices=3,strategy=2,cache=2,sync=fallback,flag_bits=8"}};
    for (int pi = 0; pi < 2; ++pi) {
        clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (pi && !clpk_context_device_info(ctx)->has_fp64) continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            uint64_t predicted = 0;
            CHECK(clpk_spmv_footprint(&A, p, cases[i].format, cases[i].params, &predicted, &err) == CLPK_SUCCESS,
                  "%s", err.message);
            clpk_spmv_plan *plan = NULL;
            if (!CHECK(clpk_spmv_plan_create(ctx, &A, p, cases[i].format, cases[i].params, &plan) == CLPK_SUCCESS,
                       "%s", clpk_last_error(ctx)))
                continue;
            uint64_t actual = spmv_plan_device_bytes(plan);
            CHECK(predicted == clpk_spmv_plan_footprint(plan) && predicted == actual,
                  "%s %s: predicted %llu, plan %llu, allocated %llu", cases[i].format, cases[i].params,
                  (unsigned long long)predicted, (unsigned long long)clpk_spmv_plan_footprint(plan),
                  (unsigned long long)actual);
            char desc[512];
            clpk_spmv_plan_describe(plan, desc, sizeof desc);
            CHECK(strstr(desc, cases[i].format) != NULL, "describe: %s", desc);
            clpk_spmv_plan_destroy(plan);
        }
    }
    CHECK(clpk_spmv_footprint(&A, CLPK_PRECISION_F32, "auto", NULL, &(uint64_t){0}, &err) ==
              CLPK_ERROR_INVALID_ARGUMENT,
          "footprint needs an explicit format");
    spmv_util_free(&A);
}

int main(void) {
    uint64_t rng = check_seed();
    test_format();
    test_delta();
    test_interleave();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    test_errors(ctx, &rng);
    test_footprint(ctx);
    clpk_context_destroy(ctx);
    return check_summary();
}
