/* CLPK_API marks the functions libclpk exports; everything else in the library is built with hidden visibility. */
#ifndef CLPK_EXPORT_H
#define CLPK_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define CLPK_API __attribute__((visibility("default")))
#else
#define CLPK_API
#endif

#endif
