/* Checking LiFE products of plans that store D as half (dict=half) against the full-precision host reference. */
#ifndef CLPK_TOOLS_CLI_LIFE_HALF_H
#define CLPK_TOOLS_CLI_LIFE_HALF_H

#include <clpk.h>

/* Whether `plan` stores D as half. */
int cli_life_dict_half(const clpk_life_plan *plan);

/* What rounding D to half may change in the DSC of x (dsc = 1) or the WC of x, relative to the largest value of that
 * product's reference `ref`: 2^-11 max(|Phi| (|D| + 2^-14) |x|) / max|ref| (each D value moves by at most 2^-11 of
 * itself, 2^-25 below the smallest normal half, 2^-14). x NULL: every entry `fill`. A worst case, to add to the
 * bound of the plan's precision; INFINITY without memory. */
double cli_life_half_bound(const clpk_life_dataset *d, int dsc, const double *x, double fill, const double *ref);

#endif
