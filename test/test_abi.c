/* The layout table bindings read (clpk_abi.h): known structs and fields answer sizeof/offsetof as this compiler sees
 * them, unknown names answer 0 / (size_t)-1. The Python package checks its ctypes mirrors against the same table. */
#include "check.h"
#include "clpk.h"
#include "clpk_abi.h"

#include <stddef.h>

int main(void) {
    check_seed();
    CHECK(clpk_abi_sizeof("clpk_csr") == sizeof(clpk_csr), "sizeof clpk_csr");
    CHECK(clpk_abi_offsetof("clpk_csr", "val") == offsetof(clpk_csr, val), "offsetof clpk_csr.val");
    CHECK(clpk_abi_sizeof("clpk_sshopm_tensor_result") == sizeof(clpk_sshopm_tensor_result), "tensor_result");
    CHECK(clpk_abi_offsetof("clpk_sshopm_eigenpair", "residual") == offsetof(clpk_sshopm_eigenpair, residual),
          "eigenpair.residual");
    CHECK(clpk_abi_offsetof("clpk_life_dataset", "voxel_ijk") == offsetof(clpk_life_dataset, voxel_ijk),
          "dataset.voxel_ijk");
    CHECK(clpk_abi_offsetof("clpk_device_info", "implementation") == offsetof(clpk_device_info, implementation),
          "device_info.implementation");
    CHECK(clpk_abi_offsetof("clpk_sshopm_scan_peaks", "times") == offsetof(clpk_sshopm_scan_peaks, times),
          "scan_peaks.times");
    CHECK(clpk_abi_sizeof("clpk_sshopm_peak_options") == sizeof(clpk_sshopm_peak_options), "peak_options");
    CHECK(clpk_abi_sizeof("no_such_struct") == 0, "unknown struct");
    CHECK(clpk_abi_sizeof(NULL) == 0, "NULL name");
    CHECK(clpk_abi_offsetof("clpk_csr", "no_such_field") == (size_t)-1, "unknown field");
    CHECK(clpk_abi_offsetof(NULL, "val") == (size_t)-1, "NULL type");
    return check_summary();
}
