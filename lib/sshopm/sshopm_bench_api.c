/* Public benchmarking queries of SS-HOPM plans: the generator's operation counts of the plan's kernel, fixed
 * iteration counts for throughput runs, and the starts a plan uses (for peers given the same data). */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"

clpk_status clpk_sshopm_plan_iteration_ops(const clpk_sshopm_plan *plan, clpk_sshopm_op_counts *ops) {
    if (!plan || !ops) return CLPK_ERROR_INVALID_ARGUMENT;
    sshopm_op_counts counts = {0};
    /* the generator counts private entries apart: they skip the loads the local and global mappings make */
    CLPK_TRY(
        sshopm_iteration_ops(plan->idx.m, plan->idx.n, plan->generated && plan->entries == ENTRIES_PRIVATE, &counts));
    ops->fma = counts.fma;
    ops->mul = counts.mul;
    ops->add = counts.add;
    ops->rsqrt = counts.special;
    ops->flops = counts.flops;
    return CLPK_SUCCESS;
}

clpk_status clpk_sshopm_plan_set_fixed_iterations(clpk_sshopm_plan *plan, int on) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    plan->fixed_iterations = on != 0;
    return CLPK_SUCCESS;
}

clpk_status clpk_sshopm_starts_generate(int dim, int starts, clpk_sshopm_starts kind, uint64_t seed, double *out,
                                        clpk_error *err) {
    if (!out || (kind != CLPK_SSHOPM_STARTS_SHARED && kind != CLPK_SSHOPM_STARTS_SPHERE))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "sshopm: starts_generate wants an output array and the shared or sphere kind");
    return sshopm_make_starts(dim, starts, (int)kind, seed, out, err);
}
