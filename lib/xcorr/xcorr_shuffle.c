/* Sub-group shuffle support of the shift-buffer kernel (see xcorr_shuffle.h). */
#include "xcorr_shuffle.h"

#include <CL/cl_ext.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int contains_ci(const char *text, const char *word) {
    const size_t n = strlen(word);
    for (const char *p = text; *p; ++p)
        if (strncasecmp(p, word, n) == 0) return 1;
    return 0;
}

static int is_nvidia_gpu(const clpk_device_info *dev) {
    return dev->kind == CLPK_DEVICE_GPU &&
           (contains_ci(dev->vendor, "NVIDIA") || contains_ci(dev->platform_name, "NVIDIA"));
}

xcorr_shuffle_kind xcorr_shuffle_kind_of(clpk_context *ctx) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (dev->has_subgroup_shuffle) { /* cl_khr_subgroup_shuffle or cl_intel_subgroups: which one? */
        /* Intel's form with a required sub-group size runs every team the device lists; the khr form gets the
         * compiler's one width (16 on an AVX-512 CPU), so it is the second choice. */
        if (core_device_has_extension(ctx, "cl_intel_subgroups") &&
            core_device_has_extension(ctx, "cl_intel_required_subgroup_size"))
            return CLPK_XCORR_SHUFFLE_INTEL;
        if (core_device_has_extension(ctx, "cl_khr_subgroup_shuffle")) return CLPK_XCORR_SHUFFLE_KHR;
        if (core_device_has_extension(ctx, "cl_intel_subgroups")) return CLPK_XCORR_SHUFFLE_INTEL;
    }
    if (is_nvidia_gpu(dev)) return CLPK_XCORR_SHUFFLE_NV_PTX;
    return CLPK_XCORR_SHUFFLE_NONE;
}

const char *xcorr_shuffle_kind_name(xcorr_shuffle_kind kind) {
    switch (kind) {
    case CLPK_XCORR_SHUFFLE_KHR: return "cl_khr_subgroup_shuffle";
    case CLPK_XCORR_SHUFFLE_INTEL: return "cl_intel_subgroups";
    case CLPK_XCORR_SHUFFLE_NV_PTX: return "NVIDIA PTX shfl.sync";
    default: return "none";
    }
}

/* With cl_intel_required_subgroup_size, the sizes the device lists (CL_DEVICE_SUB_GROUP_SIZES_INTEL); without it
 * the compiler picks the width, and 8, 16 and 32 are the ones Intel's compilers use. */
static int intel_team_possible(clpk_context *ctx, int team) {
    if (!core_device_has_extension(ctx, "cl_intel_required_subgroup_size"))
        return team == 8 || team == 16 || team == 32;
    size_t sizes[16], bytes = 0;
    if (clGetDeviceInfo(clpk_context_device(ctx), 0x4108 /* CL_DEVICE_SUB_GROUP_SIZES_INTEL */, sizeof sizes, sizes,
                        &bytes) != CL_SUCCESS)
        return 0;
    for (size_t i = 0; i < bytes / sizeof sizes[0] && i < 16; ++i)
        if ((int)sizes[i] == team) return 1;
    return 0;
}

int xcorr_shuffle_team_possible(clpk_context *ctx, int team) {
    switch (xcorr_shuffle_kind_of(ctx)) {
    case CLPK_XCORR_SHUFFLE_NV_PTX: return team == 32;
    case CLPK_XCORR_SHUFFLE_INTEL: return intel_team_possible(ctx, team);
    case CLPK_XCORR_SHUFFLE_KHR: return team == 16 || team == 32 || team == 64;
    default: return 0;
    }
}

void xcorr_shuffle_options(clpk_context *ctx, xcorr_shuffle_kind kind, int team, char *buf, size_t size) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const char *std = "";
    if (kind == CLPK_XCORR_SHUFFLE_KHR) {
        /* Sub-group built-ins belong to OpenCL C 2.0+ (cl_khr_subgroups) or 3.0 (__opencl_c_subgroups); compilers
         * that default to 1.2 only declare them under the newer standard. */
        if (strstr(dev->opencl_c_version, "OpenCL C 3."))
            std = " -cl-std=CL3.0";
        else if (strstr(dev->opencl_c_version, "OpenCL C 2."))
            std = " -cl-std=CL2.0";
    }
    const int reqd =
        kind == CLPK_XCORR_SHUFFLE_INTEL && core_device_has_extension(ctx, "cl_intel_required_subgroup_size");
    snprintf(buf, size, "-DTEAM=%d -DXCORR_SHUFFLE=%d -DXCORR_INTEL_REQD_SG=%d%s", team, (int)kind, reqd, std);
}

typedef cl_int(CL_API_CALL *sub_group_info_fn)(cl_kernel, cl_device_id, cl_uint, size_t, const void *, size_t, void *,
                                               size_t *);

clpk_status xcorr_shuffle_check_kernel(clpk_context *ctx, xcorr_shuffle_kind kind, cl_kernel kernel, int team) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (kind == CLPK_XCORR_SHUFFLE_NV_PTX) {
        /* A 1-D work-group of 32 items is exactly one warp; the kernel's shfl.sync names all 32 lanes. */
        if (dev->simd_width_hint > 1 && dev->simd_width_hint != 32)
            return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                             "xcorr shift-buffer: shuffle=subgroup on %s: the kernel's PTX assumes 32-lane warps, the "
                             "device reports %u",
                             dev->name, dev->simd_width_hint);
        if (team != 32)
            return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                             "xcorr shift-buffer: shuffle=subgroup on %s uses warp shuffles: team must be 32 (one "
                             "warp), not %d",
                             dev->name, team);
        return CLPK_SUCCESS;
    }
    if (kind == CLPK_XCORR_SHUFFLE_INTEL && core_device_has_extension(ctx, "cl_intel_required_subgroup_size"))
        return CLPK_SUCCESS; /* intel_reqd_sub_group_size(TEAM): the build fails where the width is not offered */
    cl_device_id device = clpk_context_device(ctx);
    cl_platform_id platform = NULL;
    sub_group_info_fn info = NULL;
    if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) == CL_SUCCESS)
        info = (sub_group_info_fn)clGetExtensionFunctionAddressForPlatform(platform, "clGetKernelSubGroupInfoKHR");
    const size_t local = (size_t)team;
    size_t width = 0, count = 0;
    if (!info ||
        info(kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR, sizeof local, &local, sizeof width, &width,
             NULL) != CL_SUCCESS ||
        info(kernel, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE_KHR, sizeof local, &local, sizeof count, &count,
             NULL) != CL_SUCCESS)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr shift-buffer: shuffle=subgroup: cannot ask %s for the kernel's sub-group width "
                         "(clGetKernelSubGroupInfoKHR unavailable or failing)",
                         dev->name);
    if (width != local || count != 1)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr shift-buffer: shuffle=subgroup: %s runs a work-group of %d items as %zu sub-group(s) "
                         "of up to %zu items; the team must be one sub-group (try team=%zu)",
                         dev->name, team, count, width, width);
    return CLPK_SUCCESS;
}
