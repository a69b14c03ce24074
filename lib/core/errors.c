/* One error style for the whole library: a status code plus a formatted message kept where the caller can read it. */
#include "context_impl.h"

#include <string.h>

const char *clpk_status_string(clpk_status status) {
    switch (status) {
    case CLPK_SUCCESS: return "success";
    case CLPK_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case CLPK_ERROR_OUT_OF_MEMORY: return "out of memory";
    case CLPK_ERROR_DEVICE_NOT_FOUND: return "device not found";
    case CLPK_ERROR_OPENCL: return "OpenCL error";
    case CLPK_ERROR_BUILD: return "kernel build failed";
    case CLPK_ERROR_UNSUPPORTED: return "unsupported by the device";
    case CLPK_ERROR_IO: return "I/O error";
    case CLPK_ERROR_PARSE: return "malformed file";
    case CLPK_ERROR_INVALID_DATA: return "invalid data";
    case CLPK_ERROR_PROFILE: return "malformed profile";
    case CLPK_ERROR_TIMEOUT: return "time limit exceeded";
    case CLPK_ERROR_WRONG_RESULT: return "wrong result";
    case CLPK_ERROR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

clpk_status core_error_set(clpk_error *err, clpk_status status, const char *fmt, ...) {
    if (err) {
        err->status = status;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return status;
}

clpk_status core_fail(clpk_context *ctx, clpk_status status, const char *fmt, ...) {
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
        va_end(ap);
        core_log(ctx, CLPK_LOG_DEBUG, "error (%s): %s", clpk_status_string(status), ctx->last_error);
    }
    return status;
}

clpk_status core_fail_from(clpk_context *ctx, const clpk_error *err) {
    return core_fail(ctx, err->status, "%s", err->message);
}

clpk_status core_fail_cl(clpk_context *ctx, cl_int code, const char *what) {
    clpk_status status = CLPK_ERROR_OPENCL;
    if (code == CL_OUT_OF_HOST_MEMORY || code == CL_OUT_OF_RESOURCES || code == CL_MEM_OBJECT_ALLOCATION_FAILURE)
        status = CLPK_ERROR_OUT_OF_MEMORY;
    return core_fail(ctx, status, "%s failed: %s (%d)", what, core_cl_error_name(code), (int)code);
}

const char *clpk_last_error(const clpk_context *ctx) { return ctx ? ctx->last_error : "no context"; }

const char *core_cl_error_name(cl_int code) {
    switch (code) {
#define CLPK_CASE(c)                                                                                                   \
    case c: return #c;
        CLPK_CASE(CL_SUCCESS)
        CLPK_CASE(CL_DEVICE_NOT_FOUND)
        CLPK_CASE(CL_DEVICE_NOT_AVAILABLE)
        CLPK_CASE(CL_COMPILER_NOT_AVAILABLE)
        CLPK_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        CLPK_CASE(CL_OUT_OF_RESOURCES)
        CLPK_CASE(CL_OUT_OF_HOST_MEMORY)
        CLPK_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
        CLPK_CASE(CL_MEM_COPY_OVERLAP)
        CLPK_CASE(CL_IMAGE_FORMAT_MISMATCH)
        CLPK_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        CLPK_CASE(CL_BUILD_PROGRAM_FAILURE)
        CLPK_CASE(CL_MAP_FAILURE)
        CLPK_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        CLPK_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        CLPK_CASE(CL_COMPILE_PROGRAM_FAILURE)
        CLPK_CASE(CL_LINKER_NOT_AVAILABLE)
        CLPK_CASE(CL_LINK_PROGRAM_FAILURE)
        CLPK_CASE(CL_DEVICE_PARTITION_FAILED)
        CLPK_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        CLPK_CASE(CL_INVALID_VALUE)
        CLPK_CASE(CL_INVALID_DEVICE_TYPE)
        CLPK_CASE(CL_INVALID_PLATFORM)
        CLPK_CASE(CL_INVALID_DEVICE)
        CLPK_CASE(CL_INVALID_CONTEXT)
        CLPK_CASE(CL_INVALID_QUEUE_PROPERTIES)
        CLPK_CASE(CL_INVALID_COMMAND_QUEUE)
        CLPK_CASE(CL_INVALID_HOST_PTR)
        CLPK_CASE(CL_INVALID_MEM_OBJECT)
        CLPK_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        CLPK_CASE(CL_INVALID_IMAGE_SIZE)
        CLPK_CASE(CL_INVALID_SAMPLER)
        CLPK_CASE(CL_INVALID_BINARY)
        CLPK_CASE(CL_INVALID_BUILD_OPTIONS)
        CLPK_CASE(CL_INVALID_PROGRAM)
        CLPK_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
        CLPK_CASE(CL_INVALID_KERNEL_NAME)
        CLPK_CASE(CL_INVALID_KERNEL_DEFINITION)
        CLPK_CASE(CL_INVALID_KERNEL)
        CLPK_CASE(CL_INVALID_ARG_INDEX)
        CLPK_CASE(CL_INVALID_ARG_VALUE)
        CLPK_CASE(CL_INVALID_ARG_SIZE)
        CLPK_CASE(CL_INVALID_KERNEL_ARGS)
        CLPK_CASE(CL_INVALID_WORK_DIMENSION)
        CLPK_CASE(CL_INVALID_WORK_GROUP_SIZE)
        CLPK_CASE(CL_INVALID_WORK_ITEM_SIZE)
        CLPK_CASE(CL_INVALID_GLOBAL_OFFSET)
        CLPK_CASE(CL_INVALID_EVENT_WAIT_LIST)
        CLPK_CASE(CL_INVALID_EVENT)
        CLPK_CASE(CL_INVALID_OPERATION)
        CLPK_CASE(CL_INVALID_GL_OBJECT)
        CLPK_CASE(CL_INVALID_BUFFER_SIZE)
        CLPK_CASE(CL_INVALID_MIP_LEVEL)
        CLPK_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
        CLPK_CASE(CL_INVALID_PROPERTY)
        CLPK_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
        CLPK_CASE(CL_INVALID_COMPILER_OPTIONS)
        CLPK_CASE(CL_INVALID_LINKER_OPTIONS)
        CLPK_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef CLPK_CASE
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}
