/* Cross-correlation on the seed authors' reference data (../shared/data/xcorr, computed by an independent
 * implementation): every pattern file, every direct algorithm at its defaults in f32, naive and the tile kernel in
 * f64, and the CPU reference itself. Also checks the CSV reader's refusals. */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_csv.h"
#include "xcorr_reference.h"
#include "xcorr_run.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const direct_algorithms[] = {"naive",       "shift-buffer", "split-row",        "grouped",
                                                "multi-right", "multi-both",   "warp-per-overlap", "auto"};

/* Whether `algorithm` applies to the pattern at its defaults. */
static int applies(const char *algorithm, clpk_xcorr_pattern pattern) {
    if (strcmp(algorithm, "multi-right") == 0) return pattern != CLPK_XCORR_ONE_TO_ONE;
    if (strcmp(algorithm, "multi-both") == 0) return pattern == CLPK_XCORR_N_TO_M;
    return 1;
}

static void check_file(clpk_context *ctx, const char *dir, const char *name) {
    /* valid_<pattern>_R_C_NL_NR_IDL_IDR.csv */
    char stem[256];
    snprintf(stem, sizeof stem, "%s", name + strlen("valid_"));
    *strstr(stem, ".csv") = 0;
    int num[6];
    for (int i = 5; i >= 0; --i) {
        char *us = strrchr(stem, '_');
        if (!CHECK(us != NULL, "%s: unexpected file name", name)) return;
        num[i] = atoi(us + 1);
        *us = 0;
    }
    clpk_xcorr_shape shape = {0};
    if (!CHECK(clpk_xcorr_pattern_parse(stem, &shape.pattern) == CLPK_SUCCESS, "%s: pattern '%s'", name, stem)) return;
    shape.rows = num[0], shape.cols = num[1], shape.n_left = num[2], shape.n_right = num[3];
    shape.precision = CLPK_PRECISION_F32;
    char path[1024];
    xcorr_csv left = {0}, right = {0}, valid = {0};
    clpk_error err;
    snprintf(path, sizeof path, "%s/ina_%d_%d_%d_%d.csv", dir, num[0], num[1], num[2], num[4]);
    clpk_status st = xcorr_csv_read(path, &left, &err);
    if (st == CLPK_SUCCESS) {
        /* The authors' file valid_n_to_m_10_10_4_4_1_1 pairs ina_10_10_4_1 with ina_10_10_4_2 (checked against
         * scipy.signal.correlate2d): where the name would give the same file twice, the right one has the next id. */
        const int right_id = num[2] == num[3] && num[4] == num[5] ? num[5] + 1 : num[5];
        snprintf(path, sizeof path, "%s/ina_%d_%d_%d_%d.csv", dir, num[0], num[1], num[3], right_id);
        st = xcorr_csv_read(path, &right, &err);
    }
    if (st == CLPK_SUCCESS) {
        snprintf(path, sizeof path, "%s/%.200s", dir, name);
        st = xcorr_csv_read(path, &valid, &err);
    }
    const size_t count = clpk_xcorr_output_count(&shape);
    const size_t n = count * (size_t)(2 * shape.rows - 1) * (size_t)(2 * shape.cols - 1);
    if (CHECK(st == CLPK_SUCCESS, "%s: %s", name, err.message) &&
        CHECK(left.count == shape.n_left && right.count == shape.n_right && (size_t)valid.count == count &&
                  valid.rows == 2 * shape.rows - 1 && valid.cols == 2 * shape.cols - 1,
              "%s: file sizes disagree with the name", name)) {
        double *ref = malloc(n * sizeof *ref), *got = malloc(n * sizeof *got);
        xcorr_reference(&shape, left.data, right.data, ref);
        /* The files hold single-precision results (errors up to ~1e-6 against a double computation). */
        double e = check_rel_error(valid.data, ref, n);
        CHECK(e <= 2e-6, "%s: CPU reference differs from the file by %.3g", name, e);
        for (int p = 0; p < 2; ++p) {
            shape.precision = p ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            if (p && !clpk_context_device_info(ctx)->has_fp64) {
                printf("skip f64: the device has no double precision\n");
                continue;
            }
            for (size_t a = 0; a < sizeof direct_algorithms / sizeof direct_algorithms[0]; ++a) {
                const char *algo = direct_algorithms[a];
                if (!applies(algo, shape.pattern)) continue;
                if (p && strcmp(algo, "naive") != 0 && strcmp(algo, "grouped") != 0) continue;
                clpk_xcorr_plan *plan = NULL;
                st = clpk_xcorr_plan_create(ctx, &shape, algo, NULL, &plan);
                int guards = 0;
                if (CHECK(st == CLPK_SUCCESS, "%s %s: plan: %s", name, algo, clpk_last_error(ctx)))
                    st = xcorr_run(ctx, plan, &shape, left.data, right.data, a, got, &guards);
                if (plan && CHECK(st == CLPK_SUCCESS, "%s %s: run: %s", name, algo, clpk_last_error(ctx))) {
                    /* f32 against the file; f64 against the double reference (the file is only f32-accurate). */
                    e = check_rel_error(p ? ref : valid.data, got, n);
                    const double tol = p ? 1e-12 : 1e-5;
                    CHECK(e <= tol, "%s %s %s (%s): relative error %.3g > %.1g", name, algo,
                          clpk_precision_name(shape.precision), clpk_xcorr_plan_algorithm(plan), e, tol);
                    CHECK(guards, "%s %s: wrote outside its output", name, algo);
                }
                clpk_xcorr_plan_destroy(plan);
            }
        }
        free(ref);
        free(got);
    }
    xcorr_csv_free(&left);
    xcorr_csv_free(&right);
    xcorr_csv_free(&valid);
}

static void check_reader_refusals(void) {
    static const char *const bad[] = {
        "",                         /* no header */
        "# 2,2\n1,2\n3,4\n",        /* header without count */
        "# 2,2,1\n1,2\n3\n",        /* short row */
        "# 2,2,1\n1,2\n3,4,5\n",    /* long row */
        "# 2,2,1\n1,2\n",           /* truncated */
        "# 2,2,1\n1,2\n3,nan\n",    /* not finite */
        "# 2,2,1\n1,2\n3,4\n5,6\n", /* trailing data */
        "# 0,2,1\n",                /* empty size */
        "# 2,2,1\n1,x\n3,4\n",      /* not a number */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        xcorr_csv csv;
        clpk_error err = {0};
        clpk_status st = xcorr_csv_parse(bad[i], "bad.csv", &csv, &err);
        CHECK(st == CLPK_ERROR_PARSE && strstr(err.message, "bad.csv"), "bad CSV %zu accepted or unclear: %s", i,
              err.message);
    }
    xcorr_csv csv;
    clpk_error err = {0};
    clpk_status st = xcorr_csv_parse("# 1,2,2\n1,2\r\n3,-4.5e-1\n", "good.csv", &csv, &err);
    if (CHECK(st == CLPK_SUCCESS, "good CSV refused: %s", err.message))
        CHECK(csv.rows == 1 && csv.cols == 2 && csv.count == 2 && csv.data[3] == -0.45, "good CSV read wrong");
    xcorr_csv_free(&csv);
}

int main(void) {
    check_seed();
    check_reader_refusals();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    const char *dir = CLPK_SHARED_DATA_DIR "/xcorr";
    DIR *d = opendir(dir);
    if (!d) {
        printf("SKIP: shared data %s is absent\n", dir);
    } else {
        char names[64][128];
        int count = 0;
        struct dirent *ent;
        while ((ent = readdir(d)) && count < 64)
            if (strncmp(ent->d_name, "valid_", 6) == 0 && strstr(ent->d_name, ".csv") &&
                strlen(ent->d_name) < sizeof names[0])
                memcpy(names[count++], ent->d_name, strlen(ent->d_name) + 1);
        closedir(d);
        CHECK(count >= 4, "only %d reference files in %s", count, dir);
        for (int i = 0; i < count; ++i) {
            printf("%s\n", names[i]);
            check_file(ctx, dir, names[i]);
        }
    }
    clpk_context_destroy(ctx);
    return check_summary();
}
