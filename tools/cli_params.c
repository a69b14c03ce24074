#include "cli_params.h"

#include <clpk.h>

void cli_print_family_parameters(FILE *out, const char *family) {
    static char text[32768];
    clpk_error err = {0};
    if (clpk_family_parameters(family, text, sizeof text, &err) != CLPK_SUCCESS) {
        fprintf(out, "(the %s parameters could not be listed: %s)\n", family, err.message);
        return;
    }
    fprintf(out, "--params keys (k=v,...; values | range; built-in default; what the tuner searches):\n%s", text);
}
