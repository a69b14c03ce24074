/* --help text shared by the tools that take a family's --params. */
#ifndef CLPK_TOOLS_CLI_PARAMS_H
#define CLPK_TOOLS_CLI_PARAMS_H

#include <stdio.h>

/* Prints the keys a --params string of `family` may set, as the library lists them (clpk_family_parameters), so that
 * the help never drifts from the parameter tables. */
void cli_print_family_parameters(FILE *out, const char *family);

#endif
