/* clpk sshopm family: public API (filled in by the family's issue). */
#ifndef CLPK_SSHOPM_H
#define CLPK_SSHOPM_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
