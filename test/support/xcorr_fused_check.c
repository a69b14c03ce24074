/* The driver of the fused FFT path's tests (see xcorr_fused_check.h). */
#include "xcorr_fused_check.h"

#include "check.h"
#include "clpk_internal.h"
#include "param_table.h"
#include "xcorr_params.h"
#include "xcorr_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A context on the default device, its name and local memory printed; NULL (CHECKed) when there is none. */
static clpk_context *fused_context(void) {
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return NULL;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s, local memory %llu bytes\n", dev->name, (unsigned long long)dev->local_mem_bytes);
    return ctx;
}

/* The values the table (lib/xcorr/xcorr_params.c) searches for parameter `name`. */
static int searched(const char *name, const char **out, char *storage, size_t size) {
    return core_param_search_values(core_param_find(&xcorr_param_table, name), out, storage, size, 16);
}

/* Reads the space; 0 (CHECKed) when it no longer has what the sweeps are written for. */
static int space_read(xcorr_fused_space *space) {
    const char *line_values[16], *wg_values[16];
    char line_s[128], wg_s[128];
    space->n_pads = searched("fft_pad", space->pads, space->pad_storage, sizeof space->pad_storage);
    space->n_lines = searched("rows", line_values, line_s, sizeof line_s);
    const int n_wg_values = searched("wg", wg_values, wg_s, sizeof wg_s);
    space->n_wgs = 0;
    for (int i = 0; i < space->n_lines; ++i)
        space->lines[i] = atoi(line_values[i]);
    for (int i = 0; i < n_wg_values; ++i)
        if (atoi(wg_values[i]) >= 64) space->wgs[space->n_wgs++] = atoi(wg_values[i]);
    space->n_points = space->n_pads * space->n_lines * space->n_wgs;
    CHECK(space->n_pads == 2 && space->n_lines >= 4 && space->n_wgs >= 3,
          "the table's fused-fft values changed: extend the sweep");
    return space->n_pads >= 2 && space->n_lines >= 4 && space->n_wgs >= 3;
}

void xcorr_fused_space_point(const xcorr_fused_space *space, int i, char *params, size_t size, int *l, int *w) {
    const int p = i / (space->n_lines * space->n_wgs);
    *l = i / space->n_wgs % space->n_lines;
    *w = i % space->n_wgs;
    snprintf(params, size, "fft_pad=%s,rows=%d,wg=%d", space->pads[p], space->lines[*l], space->wgs[*w]);
}

/* Two runs of one plan (the second at buffer offset 3) on the same fresh inputs give the same bits. */
static void check_same_bits(clpk_context *ctx, uint64_t *rng, const clpk_xcorr_shape *s, const char *label) {
    const size_t mat = (size_t)s->rows * s->cols, n_l = mat * (size_t)s->n_left, n_r = mat * (size_t)s->n_right;
    const size_t no = clpk_xcorr_output_count(s) * (size_t)clpk_xcorr_output_rows(s) * clpk_xcorr_output_cols(s);
    double *l = malloc(n_l * sizeof *l), *r = malloc(n_r * sizeof *r);
    double *o1 = malloc(no * sizeof *o1), *o2 = malloc(no * sizeof *o2);
    clpk_xcorr_plan *plan = NULL;
    if (CHECK(l && r && o1 && o2, "determinism: out of memory") &&
        CHECK(clpk_xcorr_plan_create(ctx, s, "fused-fft", NULL, &plan) == CLPK_SUCCESS, "determinism plan: %s",
              clpk_last_error(ctx))) {
        xcorr_fill_random(rng, l, n_l);
        xcorr_fill_random(rng, r, n_r);
        int g1 = 0, g2 = 0;
        const clpk_status s1 = xcorr_run(ctx, plan, s, l, r, 0, o1, &g1);
        const clpk_status s2 = xcorr_run(ctx, plan, s, l, r, 3, o2, &g2);
        CHECK(s1 == CLPK_SUCCESS && s2 == CLPK_SUCCESS && g1 && g2, "determinism runs");
        CHECK(memcmp(o1, o2, no * sizeof *o1) == 0, "%s: two runs differ", label);
    }
    clpk_xcorr_plan_destroy(plan);
    free(l);
    free(r);
    free(o1);
    free(o2);
}

void xcorr_fused_suite_run(const xcorr_fused_suite *suite, uint64_t *rng) {
    clpk_context *ctx = fused_context();
    if (!ctx) return;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const double t0 = core_wall_seconds();
    suite->sizes(ctx, rng, CLPK_PRECISION_F32);
    printf("f32 sizes: %.1f s\n", core_wall_seconds() - t0);
    xcorr_fused_space space;
    if (space_read(&space)) suite->sweep(ctx, rng, &space);
    printf("sweep: %.1f s\n", core_wall_seconds() - t0);
    if (dev->has_fp64) {
        suite->sizes(ctx, rng, CLPK_PRECISION_F64);
        suite->f64_cases(ctx, rng);
    } else {
        printf("skip f64: %s has no double precision\n", dev->name);
    }
    printf("f64: %.1f s\n", core_wall_seconds() - t0);
    check_same_bits(ctx, rng, &suite->same_bits, suite->same_bits_label);
    suite->rest(ctx);
    printf("total: %.1f s\n", core_wall_seconds() - t0);
    clpk_context_destroy(ctx);
}
