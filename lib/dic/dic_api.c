/* The DIC application's public entry points (clpk_dic.h). */
#include "dic.h"

void clpk_dic_options_default(clpk_dic_options *opt) { dic_options_default(opt); }

clpk_status clpk_dic_method_parse(const char *text, clpk_dic_method *out) { return dic_method_parse(text, out); }

clpk_status clpk_dic_run(clpk_context *ctx, const double *ref, const double *def, int height, int width,
                         const clpk_dic_options *opt, clpk_dic_field *out) {
    return dic_run(ctx, ref, def, height, width, opt, out);
}

void clpk_dic_field_free(clpk_dic_field *field) { dic_field_free(field); }

void clpk_dic_field_stats(const clpk_dic_field *field, double *mean_mag, double *max_mag, double *mean_u,
                          double *mean_v) {
    dic_field_stats(field, mean_mag, max_mag, mean_u, mean_v);
}

clpk_status clpk_dic_render(const clpk_dic_field *field, const double *ref, int height, int width,
                            unsigned char **rgb) {
    return dic_render(field, ref, height, width, rgb);
}

clpk_status clpk_dic_write_png(const char *path, const clpk_dic_field *field, const double *ref, int height, int width,
                               clpk_error *err) {
    return dic_write_png(path, field, ref, height, width, err);
}
