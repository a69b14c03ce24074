/* A seeded synthetic tractogram for the LiFE tests. */
#ifndef CLPK_TEST_LIFE_SYNTH_CHECK_H
#define CLPK_TEST_LIFE_SYNTH_CHECK_H

#include "clpk.h"

#include <stdint.h>

/* The synthetic dataset of a named size (clpk_life_synth_defaults) with a seed drawn from rng. Returns 1, or 0 after
 * recording the failure as a failed check. */
int life_check_synth(const char *size, uint64_t *rng, clpk_life_dataset *d);

#endif
