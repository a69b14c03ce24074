/* Layout of clpk's public structs, for bindings that mirror them without a C compiler (the Python package's ctypes
 * copies, python/clpk/_structs.py, are checked field by field against these answers when it loads the library).
 * Names are the C spellings: clpk_abi_offsetof("clpk_csr", "row_ptr"). Not included by clpk.h. */
#ifndef CLPK_ABI_H
#define CLPK_ABI_H

#include "clpk_export.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sizeof the public struct named `type` ("clpk_csr", "clpk_xcorr_shape", ...), 0 if the table does not list it. */
CLPK_API size_t clpk_abi_sizeof(const char *type);
/* offsetof(type, field), or (size_t)-1 when the table does not list that struct or field. */
CLPK_API size_t clpk_abi_offsetof(const char *type, const char *field);

#ifdef __cplusplus
}
#endif

#endif
