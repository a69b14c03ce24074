/* The LiFE tuning space, shared by tuner/tune_life.c and the sweep test (which must cover every value in it).
 * Only for code that links clpk_tuner. */
#ifndef CLPK_LIFE_TUNE_SPACE_H
#define CLPK_LIFE_TUNE_SPACE_H

#include "tune.h"

void life_tune_values(const clpk_device_info *dev, tune_space *space);

#endif
