/* Command-line parsing shared by the clpk-* tools: each tool describes its options once, in a table, and the same
 * table drives the parser and the --help text, so the two cannot drift apart. */
#ifndef CLPK_TOOLS_CLI_ARGS_H
#define CLPK_TOOLS_CLI_ARGS_H

#include <limits.h>
#include <stdio.h>

typedef enum cli_kind {
    CLI_FLAG,   /* no value: sets an int to 1 */
    CLI_STRING, /* const char *, pointing into argv */
    CLI_INT,    /* long long, decimal or 0x-hexadecimal */
    CLI_DOUBLE, /* double */
    CLI_LIST    /* repeatable string: appends to a cli_list */
} cli_kind;

#define CLI_LIST_MAX 64

/* Preset a CLI_INT target to this to tell "not given" from every value a user can write. */
#define CLI_INT_UNSET LLONG_MIN

typedef struct cli_list {
    int count;
    const char *items[CLI_LIST_MAX];
} cli_list;

typedef struct cli_option {
    const char *name; /* "--out" */
    cli_kind kind;
    void *target;     /* int*, const char**, long long*, double*, cli_list* */
    const char *meta; /* "DIR" or NULL (then a generic placeholder by kind) */
    const char *help; /* may span several lines ('\n'); continuation lines are indented under the first */
} cli_option;

/* Parses argv[first..argc) against `options` (terminated by an entry with name NULL). A value follows its option as
 * the next argument or after '=' ("--out DIR" or "--out=DIR"). --help/-h prints the usage to stdout and returns 1;
 * an unknown option, a missing or malformed value prints "<tool>: ..." and the usage to stderr and returns 2; 0 when
 * all parsed. Positional arguments are refused unless `positional` is non-NULL (then collected there); "--" ends
 * the options. Targets of options that do not appear are left as they are, so callers preset defaults. */
int cli_parse(const char *tool, const char *synopsis, const cli_option *options, int argc, char **argv, int first,
              cli_list *positional);

/* Prints "usage: <tool> <synopsis>" and one line per option (then -h, --help). */
void cli_usage(FILE *out, const char *tool, const char *synopsis, const cli_option *options);

/* Prints one line per option of `options` (no header, no -h): for help texts with several tables. */
void cli_print_options(FILE *out, const cli_option *options);

/* Index of `value` in the NULL-terminated list `choices`, or -1 (for options that take one of a few words). */
int cli_choice(const char *value, const char *const *choices);

/* Prints "<tool>: <message>" to stderr and returns 2, the usage-error exit status, for checks after cli_parse. */
int cli_fail(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
