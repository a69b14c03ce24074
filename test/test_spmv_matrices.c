/* spmv on every real matrix of ../shared/data/matrices (SuiteSparse; symmetric, skew, pattern and integer files are
 * expanded by the reader, complex ones must be refused with a clear message), f32 and f64, with the automatic choice,
 * a BCCOO 2x2 strategy-2 plan with adjacent synchronization, BCCOO+ with the fallback carry, and CSR. */
#include "check.h"
#include "spmv_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
    uint64_t rng = check_seed();
    const char *dir = CLPK_SHARED_DATA_DIR "/matrices";
    DIR *d = opendir(dir);
    if (!d) {
        printf("SKIP: %s not found (the shared data folder is absent)\n", dir);
        return check_summary();
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".mtx") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s, %d matrices in %s\n", dev->name, n, dir);
    static const struct {
        const char *format, *params;
    } configs[] = {
        {NULL, NULL},
        {"bccoo", "block_h=2,block_w=2,tile=3,wg=16,strategy=2,cache=1,sync=adjacent"},
        {"bccoo+", "block_h=3,block_w=4,tile=5,wg=16,slices=3,strategy=2,cache=2,sync=fallback,flag_bits=8"},
        {"csr", "csr_vec=8,wg=64"},
    };
    int refused = 0, run = 0;
    for (int i = 0; i < n; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        clpk_coo coo = {0};
        clpk_error err = {0};
        clpk_status st = clpk_mtx_read(path, &coo, &err);
        if (st != CLPK_SUCCESS) {
            /* only complex files are expected to be refused */
            CHECK(strstr(err.message, "complex") != NULL && st == CLPK_ERROR_PARSE, "%s refused unexpectedly: %s",
                  names[i], err.message);
            printf("%-28s refused: %s\n", names[i], err.message);
            clpk_spmv_plan *plan = NULL;
            CHECK(clpk_spmv_plan_create_mtx(ctx, path, CLPK_PRECISION_F32, NULL, NULL, &plan) == st && !plan &&
                      strstr(clpk_last_error(ctx), "complex"),
                  "plan from a refused file: %s", clpk_last_error(ctx));
            ++refused;
            continue;
        }
        clpk_csr A;
        st = clpk_coo_to_csr(&coo, &A, &err);
        clpk_coo_free(&coo);
        if (!CHECK(st == CLPK_SUCCESS, "%s: %s", names[i], err.message)) continue;
        ++run;
        /* also through the COO entry point, once */
        if (i == 0) {
            clpk_coo again = {0};
            clpk_spmv_plan *plan = NULL;
            if (clpk_mtx_read(path, &again, &err) == CLPK_SUCCESS) {
                CHECK(clpk_spmv_plan_create_coo(ctx, &again, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_SUCCESS,
                      "plan from COO: %s", clpk_last_error(ctx));
                clpk_spmv_plan_destroy(plan);
                clpk_coo_free(&again);
            }
            plan = NULL;
            CHECK(clpk_spmv_plan_create_mtx(ctx, path, CLPK_PRECISION_F32, "csr", NULL, &plan) == CLPK_SUCCESS &&
                      clpk_spmv_plan_rows(plan) == A.rows && clpk_spmv_plan_cols(plan) == A.cols,
                  "plan from the file: %s", clpk_last_error(ctx));
            clpk_spmv_plan_destroy(plan);
        }
        for (int pi = 0; pi < 2; ++pi) {
            clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            if (pi && !dev->has_fp64) continue;
            double worst = 0;
            for (size_t c = 0; c < sizeof configs / sizeof configs[0]; ++c) {
                double err_c = spmv_util_check(ctx, &A, p, configs[c].format, configs[c].params, names[i], &rng);
                if (err_c > worst) worst = err_c;
            }
            printf("%-28s %8d x %-8d nnz %-8lld %s worst relative error %.3g\n", names[i], (int)A.rows, (int)A.cols,
                   (long long)A.nnz, clpk_precision_name(p), worst);
        }
        clpk_csr_free(&A);
    }
    CHECK(run > 0, "no matrix could be run");
    printf("%d matrices run, %d refused\n", run, refused);
    for (int i = 0; i < n; ++i) free(names[i]);
    clpk_context_destroy(ctx);
    return check_summary();
}
