/* Checked kernel arguments (see clpk_internal.h, "Kernel arguments"). */
#include "clpk_internal.h"

void core_args_begin(core_args *a, clpk_context *ctx, cl_kernel kernel, cl_uint first) {
    a->ctx = ctx;
    a->kernel = kernel;
    a->next = first;
    a->failed_code = CL_SUCCESS;
    a->failed_index = 0;
    a->failed_kernel = NULL;
}

void core_args_jump(core_args *a, cl_kernel kernel, cl_uint index) {
    a->kernel = kernel;
    a->next = index;
}

void core_args_set(core_args *a, size_t size, const void *value) {
    const cl_uint index = a->next++;
    if (a->failed_code != CL_SUCCESS) return;
    const cl_int rc = clSetKernelArg(a->kernel, index, size, value);
    if (rc != CL_SUCCESS) {
        a->failed_code = rc;
        a->failed_index = index;
        a->failed_kernel = a->kernel;
    }
}

void core_args_local(core_args *a, size_t bytes) { core_args_set(a, bytes, NULL); }

clpk_status core_args_end(core_args *a) {
    if (a->failed_code == CL_SUCCESS) return CLPK_SUCCESS;
    char name[128] = "?";
    if (clGetKernelInfo(a->failed_kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL) != CL_SUCCESS)
        snprintf(name, sizeof name, "?");
    name[sizeof name - 1] = '\0';
    char what[192];
    snprintf(what, sizeof what, "clSetKernelArg(%s, argument %u)", name, a->failed_index);
    return core_fail_cl(a->ctx, a->failed_code, what);
}
