/* Training of the spmv cost model (tune_spmv_model.c): the spmv family's train_model. */
#ifndef CLPK_TUNE_SPMV_MODEL_H
#define CLPK_TUNE_SPMV_MODEL_H

#include "tune.h"

clpk_status tune_spmv_model_train(clpk_context *ctx, const tune_model_request *req, void **model_json, char *note,
                                  size_t note_size);

/* Compiles every program the model's variants may need into the context's program cache (clpk-tune --prebuild, and
 * before training); returns how many were added. */
int tune_spmv_model_prebuild(clpk_context *ctx, int threads);

#endif
