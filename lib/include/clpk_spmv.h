/* clpk spmv family: public API (filled in by the family's issue). */
#ifndef CLPK_SPMV_H
#define CLPK_SPMV_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
