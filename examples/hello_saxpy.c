/* hello-saxpy: clpk's context as a way into plain OpenCL. Opens the default device (or argv[1], a selector as for
 * clpk-info), builds a kernel of our own on the context's cl_context, runs y = a*x + y on its queue and checks the
 * result against a double-precision host computation. */
#include <clpk.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source = "__kernel void saxpy(uint n, float a, __global const float *x, __global float *y) {\n"
                            "    uint i = get_global_id(0);\n"
                            "    if (i < n) y[i] = a * x[i] + y[i];\n"
                            "}\n";

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
    const cl_uint n = N;
    const float a = 1.75f;
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
    if (!x || !y || !out) return 1;
    for (int i = 0; i < N; ++i) {
        x[i] = (float)((unsigned)i * 7919u % 1000u) / 1000.0f - 0.5f;
        y[i] = (float)(i % 97) * 0.25f - 3.0f;
    }
    cl_context cl = clpk_context_cl_context(ctx);
    cl_device_id device = clpk_context_device(ctx);
    cl_command_queue queue = clpk_context_queue(ctx);
    cl_int rc = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(cl, 1, &source, NULL, &rc);
    if (rc == CL_SUCCESS) rc = clBuildProgram(program, 1, &device, "", NULL, NULL);
    cl_kernel kernel = rc == CL_SUCCESS ? clCreateKernel(program, "saxpy", &rc) : NULL;
    cl_mem bx =
        rc == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *x, x, &rc) : NULL;
    cl_mem by =
        rc == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof *y, y, &rc) : NULL;
    if (rc == CL_SUCCESS) rc = clSetKernelArg(kernel, 0, sizeof n, &n);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(kernel, 1, sizeof a, &a);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(kernel, 2, sizeof bx, &bx);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(kernel, 3, sizeof by, &by);
    size_t local = 128, global = (N + local - 1) / local * local;
    if (rc == CL_SUCCESS) rc = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clEnqueueReadBuffer(queue, by, CL_TRUE, 0, N * sizeof *out, out, 0, NULL, NULL);
    double max_err = INFINITY;
    if (rc == CL_SUCCESS) {
        max_err = 0;
        for (int i = 0; i < N; ++i) {
            double ref = (double)a * x[i] + y[i];
            double e = fabs(out[i] - ref) / (fabs(ref) + 1e-30);
            if (!(e <= max_err)) max_err = isnan(e) ? INFINITY : e;
        }
        printf("saxpy of %d elements: max relative error %.2e vs double reference: %s\n", N, max_err,
               max_err <= 1e-6 ? "OK" : "WRONG");
    } else {
        fprintf(stderr, "hello-saxpy: OpenCL error %d\n", rc);
    }
    if (bx) clReleaseMemObject(bx);
    if (by) clReleaseMemObject(by);
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    clpk_context_destroy(ctx);
    free(x);
    free(y);
    free(out);
    return max_err <= 1e-6 ? 0 : 1;
}
