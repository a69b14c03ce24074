/* clpk xcorr family: public API (filled in by the family's issue). */
#ifndef CLPK_XCORR_H
#define CLPK_XCORR_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
