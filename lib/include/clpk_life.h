/* clpk life family: public API (filled in by the family's issue). */
#ifndef CLPK_LIFE_H
#define CLPK_LIFE_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
