#include "life_synth_check.h"

#include "check.h"

int life_check_synth(const char *size, uint64_t *rng, clpk_life_dataset *d) {
    clpk_life_synth_options so;
    clpk_error err;
    if (!CHECK(clpk_life_synth_defaults(size, &so) == CLPK_SUCCESS, "synth defaults for '%s'", size)) return 0;
    so.seed = check_rand(rng);
    return CHECK(clpk_life_synth(&so, d, NULL, &err) == CLPK_SUCCESS, "synth %s: %s", size, err.message);
}
