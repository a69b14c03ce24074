/* The SpMV cost model (issue #22): a predicted time for every kernel variant on any matrix, from the feature pass
 * (spmv_features.h) and per-variant coefficients that `clpk-tune` fits on its training matrices and writes into the
 * device's profile ("models": {"spmv": ...}, docs/profiles.md). A variant is a format, block shape and column coding
 * with every other parameter at the device's defaults; the automatic plan takes the variant of smallest predicted
 * time (and, with verify, times the best few). */
#ifndef CLPK_SPMV_MODEL_H
#define CLPK_SPMV_MODEL_H

#include "spmv_features.h"

/* The model's terms: a constant (launches, synchronization), the matrix data the variant reads (MB), the x lines the
 * gathers touch (MB), rows (millions: y, row stops), the longest row (thousands of nonzeros: the critical path of a
 * row per work-item or per team) and the part of the matrix data in long rows (MB; spmv_features.h
 * long_row_share: a row per work-item reads it uncoalesced). The time in ms is their dot product with the variant's
 * coefficients. */
enum { SPMV_MODEL_TERMS = 6, SPMV_MODEL_MAX_VARIANTS = 40 };

extern const char *const spmv_model_term_names[SPMV_MODEL_TERMS];

/* The variant that is the built-in defaults (the table's format, block and column defaults): verify measures it too. */
#define SPMV_DEFAULT_VARIANT "format=bccoo,block=1x1"

/* The variants the tuner measures and the plan ranks (parameter strings; the device's defaults fill the rest). */
int spmv_model_variant_count(void);
const char *spmv_model_variant(int index);

typedef struct spmv_variant_model {
    char params[128];
    double coef[SPMV_MODEL_TERMS];
    int samples;    /* training measurements the coefficients were fitted on */
    double rel_rms; /* root mean square of the fit's relative errors on them */
} spmv_variant_model;

typedef struct spmv_model {
    int count;
    spmv_variant_model variants[SPMV_MODEL_MAX_VARIANTS];
    double nnz_lo, nnz_hi; /* training matrices' nonzeros */
    /* The device's measured copy rate (GB/s, read + write): no prediction is faster than reading the matrix data
     * and writing y at it, however a fit extrapolates. 0: unknown. */
    double copy_gbps;
} spmv_model;

/* A variant's terms on A. Returns 0 where the variant cannot serve A (its parameters do not resolve, e.g. a column
 * coding that does not fit), 1 otherwise; *data_bytes (may be NULL) receives the matrix data it reads. */
int spmv_model_terms(const clpk_csr *A, const spmv_matrix_features *f, clpk_precision precision, clpk_device_kind kind,
                     const char *params, double terms[SPMV_MODEL_TERMS], double *data_bytes);

double spmv_model_predict(const spmv_variant_model *v, const double terms[SPMV_MODEL_TERMS]);

/* Non-negative least squares on relative errors: minimises sum ((terms_i . coef - ms_i) / ms_i)^2 over coef >= 0. */
void spmv_model_fit(const double (*terms)[SPMV_MODEL_TERMS], const double *ms, int n, double coef[SPMV_MODEL_TERMS],
                    double *rel_rms);

/* Reads the model of one precision from a profile's "models"."spmv" object (a cJSON *). Returns 0 with `why` when
 * it is absent or malformed. */
int spmv_model_read(const void *spmv_models_json, clpk_precision precision, spmv_model *out, char *why, size_t size);

/* Which variants are worth ranking or measuring on a matrix: CSR always, a BCCOO variant while its matrix data is
 * within twice the least data of any BCCOO variant (`least_bccoo`); the ranking and the tuner's training share it. */
int spmv_model_is_csr(const char *params);
int spmv_model_plausible(const char *params, double data_bytes, double least_bccoo);

/* The explicit plan of a variant (its `format` key as the format argument), as clpk_spmv_plan_create makes it. */
clpk_status spmv_model_variant_plan(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *params,
                                    clpk_spmv_plan **plan);

typedef struct spmv_ranked {
    int index;         /* into the model's variants */
    double ms;         /* predicted */
    double data_bytes; /* matrix data the variant reads */
} spmv_ranked;

/* The model's variants that can serve A, fastest predicted first (never below the copy-rate floor); BCCOO variants
 * reading more than twice the smallest BCCOO data are left out (their few training samples lie far from such a matrix).
 * Returns how many. */
int spmv_model_rank(const spmv_model *m, const clpk_csr *A, const spmv_matrix_features *f, clpk_precision precision,
                    clpk_device_kind kind, spmv_ranked *out, int capacity);

#endif
