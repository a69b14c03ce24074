/* hello-saxpy: the smallest end-to-end use of clpk: open the default device, build an embedded kernel through the
 * program cache, run y = a*x + y and check it against a double-precision host computation. */
#include "clpk_internal.h"

#include <math.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, argc > 1 ? argv[1] : NULL);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "hello-saxpy: no device: %s\n", clpk_status_string(st));
        return 1;
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s / %s\n", dev->platform_name, dev->name);
    enum { N = 1000003 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
    unsigned seed = 12345;
    for (int i = 0; i < N; ++i) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / (float)(1 << 24) - 0.5f;
        y[i] = (float)(i % 97) * 0.25f - 3.0f;
    }
    const float a = 1.75f;
    const char *sources[] = {"util_copy"};
    cl_program program = NULL;
    cl_kernel kernel = NULL;
    cl_int rc = CL_SUCCESS;
    cl_mem bx = NULL, by = NULL;
    st = core_program_get(ctx, sources, 1, "", &program);
    if (st == CLPK_SUCCESS) st = core_kernel_create(ctx, program, "clpk_saxpy", &kernel);
    if (st == CLPK_SUCCESS) {
        cl_context c = clpk_context_cl_context(ctx);
        bx = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *x, x, &rc);
        if (rc == CL_SUCCESS) by = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof *y, y, &rc);
        cl_uint n = N;
        if (rc == CL_SUCCESS) {
            clSetKernelArg(kernel, 0, sizeof n, &n);
            clSetKernelArg(kernel, 1, sizeof a, &a);
            clSetKernelArg(kernel, 2, sizeof bx, &bx);
            clSetKernelArg(kernel, 3, sizeof by, &by);
            size_t local = 128, global = (N + 127) / 128 * 128;
            rc = clEnqueueNDRangeKernel(clpk_context_queue(ctx), kernel, 1, NULL, &global, &local, 0, NULL, NULL);
        }
        if (rc == CL_SUCCESS)
            rc = clEnqueueReadBuffer(clpk_context_queue(ctx), by, CL_TRUE, 0, N * sizeof *out, out, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = CLPK_ERROR_OPENCL;
    }
    double max_err = 0;
    if (st == CLPK_SUCCESS) {
        for (int i = 0; i < N; ++i) {
            double ref = (double)a * x[i] + y[i];
            double e = fabs(out[i] - ref) / (fabs(ref) + 1e-30);
            if (!(e <= max_err)) max_err = isnan(e) ? INFINITY : e;
        }
        printf("saxpy of %d elements: max relative error %.2e vs double reference: %s\n", N, max_err,
               max_err <= 1e-6 ? "OK" : "WRONG");
    } else {
        fprintf(stderr, "hello-saxpy: %s\n", rc != CL_SUCCESS ? core_cl_error_name(rc) : clpk_last_error(ctx));
    }
    if (bx) clReleaseMemObject(bx);
    if (by) clReleaseMemObject(by);
    if (kernel) clReleaseKernel(kernel);
    clpk_context_destroy(ctx);
    free(x);
    free(y);
    free(out);
    return st == CLPK_SUCCESS && max_err <= 1e-6 ? 0 : 1;
}
