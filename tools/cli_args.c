#include "cli_args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *placeholder(const cli_option *o) {
    if (o->meta) return o->meta;
    switch (o->kind) {
    case CLI_INT: return "N";
    case CLI_DOUBLE: return "X";
    case CLI_STRING:
    case CLI_LIST: return "VALUE";
    case CLI_FLAG: break;
    }
    return "";
}

/* Writes `text` with every line after the first indented to `indent` columns. */
static void print_indented(FILE *out, const char *text, int indent) {
    for (const char *p = text; *p; ++p) {
        fputc(*p, out);
        if (*p == '\n' && p[1]) fprintf(out, "%*s", indent, "");
    }
}

void cli_print_options(FILE *out, const cli_option *options) {
    enum { column = 28 };
    for (const cli_option *o = options; o && o->name; ++o) {
        char head[128];
        if (o->kind == CLI_FLAG)
            snprintf(head, sizeof head, "  %s", o->name);
        else
            snprintf(head, sizeof head, "  %s %s", o->name, placeholder(o));
        int len = (int)strlen(head);
        fputs(head, out);
        if (o->help && *o->help) {
            if (len + 2 > column)
                fprintf(out, "\n%*s", column, "");
            else
                fprintf(out, "%*s", column - len, "");
            print_indented(out, o->help, column);
        }
        if (o->kind == CLI_LIST) fputs(o->help && *o->help ? " (repeatable)" : "  (repeatable)", out);
        fputc('\n', out);
    }
}

void cli_usage(FILE *out, const char *tool, const char *synopsis, const cli_option *options) {
    fprintf(out, "usage: %s%s%s\n", tool, synopsis && *synopsis ? " " : "", synopsis ? synopsis : "");
    fprintf(out, "options:\n");
    cli_print_options(out, options);
    fprintf(out, "  -h, --help                print this help and exit\n");
}

int cli_choice(const char *value, const char *const *choices) {
    for (int i = 0; value && choices && choices[i]; ++i)
        if (strcmp(value, choices[i]) == 0) return i;
    return -1;
}

int cli_fail(const char *tool, const char *fmt, ...) {
    fprintf(stderr, "%s: ", tool);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

static int usage_error(const char *tool, const char *synopsis, const cli_option *options) {
    cli_usage(stderr, tool, synopsis, options);
    return 2;
}

static const cli_option *find_option(const cli_option *options, const char *name, size_t len) {
    for (const cli_option *o = options; o && o->name; ++o)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
    return NULL;
}

static int parse_int(const char *text, long long *out) {
    if (!*text) return 0;
    const char *digits = text[0] == '-' || text[0] == '+' ? text + 1 : text;
    int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, base);
    if (errno || end == text || *end) return 0;
    *out = v;
    return 1;
}

static int parse_double(const char *text, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

static int append(cli_list *list, const char *item) {
    if (list->count >= CLI_LIST_MAX) return 0;
    list->items[list->count++] = item;
    return 1;
}

/* Stores `value` into o's target; returns 0 when the value is malformed (message already printed). */
static int store(const char *tool, const cli_option *o, const char *value) {
    switch (o->kind) {
    case CLI_FLAG: *(int *)o->target = 1; return 1;
    case CLI_STRING: *(const char **)o->target = value; return 1;
    case CLI_INT:
        if (parse_int(value, (long long *)o->target)) return 1;
        cli_fail(tool, "bad value '%s' for %s: an integer expected", value, o->name);
        return 0;
    case CLI_DOUBLE:
        if (parse_double(value, (double *)o->target)) return 1;
        cli_fail(tool, "bad value '%s' for %s: a number expected", value, o->name);
        return 0;
    case CLI_LIST:
        if (append((cli_list *)o->target, value)) return 1;
        cli_fail(tool, "%s given more than %d times", o->name, CLI_LIST_MAX);
        return 0;
    }
    return 0;
}

int cli_parse(const char *tool, const char *synopsis, const cli_option *options, int argc, char **argv, int first,
              cli_list *positional) {
    int options_done = 0;
    for (int i = first; i < argc; ++i) {
        const char *arg = argv[i];
        int is_option = !options_done && arg[0] == '-' && arg[1] != '\0';
        if (!is_option) {
            if (!positional) {
                cli_fail(tool, "unexpected argument '%s'", arg);
                return usage_error(tool, synopsis, options);
            }
            if (!append(positional, arg)) {
                cli_fail(tool, "more than %d arguments", CLI_LIST_MAX);
                return usage_error(tool, synopsis, options);
            }
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = 1;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            cli_usage(stdout, tool, synopsis, options);
            return 1;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        const cli_option *o = find_option(options, arg, name_len);
        if (!o) {
            cli_fail(tool, "unknown option '%.*s'", (int)name_len, arg);
            return usage_error(tool, synopsis, options);
        }
        const char *value = NULL;
        if (o->kind == CLI_FLAG) {
            if (eq) {
                cli_fail(tool, "%s takes no value", o->name);
                return usage_error(tool, synopsis, options);
            }
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            cli_fail(tool, "%s needs a value (%s)", o->name, placeholder(o));
            return usage_error(tool, synopsis, options);
        }
        if (!store(tool, o, value)) return usage_error(tool, synopsis, options);
    }
    return 0;
}
