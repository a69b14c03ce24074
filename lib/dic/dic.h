/* The DIC application's internal interface: the public types (clpk_dic.h describes the method) under the internal
 * names the implementation and the tests use; lib/dic/dic_api.c exports them as clpk_dic_*. */
#ifndef CLPK_DIC_H
#define CLPK_DIC_H

#include "clpk_dic.h"

typedef clpk_dic_method dic_method;
typedef clpk_dic_refine dic_refine;
typedef clpk_dic_options dic_options;
typedef clpk_dic_field dic_field;

void dic_options_default(dic_options *opt);
clpk_status dic_method_parse(const char *text, dic_method *out);
clpk_status dic_run(clpk_context *ctx, const double *ref, const double *def, int height, int width,
                    const dic_options *opt, dic_field *out);
void dic_field_free(dic_field *field);
void dic_field_stats(const dic_field *field, double *mean_mag, double *max_mag, double *mean_u, double *mean_v);
clpk_status dic_render(const dic_field *field, const double *ref, int height, int width, unsigned char **rgb);
clpk_status dic_write_png(const char *path, const dic_field *field, const double *ref, int height, int width,
                          clpk_error *err);

#endif
