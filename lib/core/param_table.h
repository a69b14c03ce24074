/* A family's parameters described once: each row says a parameter's name, its type and allowed values, the built-in
 * default per device kind, the -D name it becomes in build options, the field of the family's typed configuration
 * that holds it, whether and over which values the tuner searches it, and when it applies. Parsing, key checking,
 * defaults, formatting, build options, the tuner's space, the CLIs' --help and clpk_family_parameters() all read the
 * same rows, so adding a parameter is one row (plus its use in the kernel). */
#ifndef CLPK_PARAM_TABLE_H
#define CLPK_PARAM_TABLE_H

#include "clpk_internal.h"

typedef enum core_param_type {
    CORE_PARAM_INT, /* a number; the configuration field holds it */
    CORE_PARAM_NAME /* one of `values`; the configuration field holds its index */
} core_param_type;

#define CORE_PARAM_NO_FIELD (-1)

typedef struct core_param_def {
    const char *name;
    core_param_type type;
    /* NAME: the allowed names, '|'-separated. INT: the allowed values ("1|2|4|8"), or NULL for the range lo..hi. */
    const char *values;
    long long lo, hi;
    const char *default_gpu; /* built-in default on GPUs */
    const char *default_cpu; /* on every other device (CPUs, accelerators); NULL: as on GPUs */
    const char *define;      /* -D name in the build options; NULL: not a build option */
    int field;               /* offsetof the int field in the typed configuration, or CORE_PARAM_NO_FIELD */
    const char *search;      /* values the tuner searches ('|'-separated); NULL: the tuner leaves it at its default */
    /* Applies only when other parameters have given values: "format=bccoo|bccoo+" or "a=x;b=y" (all must hold).
     * An inactive parameter is neither checked, stored, formatted nor searched. NULL: always. */
    const char *when;
    const char *help; /* one line for --help and clpk_family_parameters() */
} core_param_def;

typedef struct core_param_table {
    const char *family;
    const core_param_def *defs;
    int count;
    /* How far (core_class_distance) a profile entry's class may lie from a problem's features and still apply to it;
     * 0 means any distance. */
    double profile_reach;
    /* The revision of the family's built-in defaults and rule: raised whenever a change to them could make an entry
     * tuned before it slower than the defaults (an entry only ever beat the defaults of its day). The tuner writes it
     * into each entry; an entry of another revision is not applied. */
    int defaults_revision;
} core_param_table;

#define CORE_PARAM_COUNT(defs) ((int)(sizeof(defs) / sizeof((defs)[0])))

const core_param_def *core_param_find(const core_param_table *t, const char *name);
/* Whether `d` applies given the other values in `p` (its `when` condition). */
int core_param_active(const core_param_def *d, const core_params *p);
/* Fails naming the first key of `p` that is not a parameter of the table (with the list of those that are). */
clpk_status core_param_check_keys(const core_param_table *t, const core_params *p, clpk_error *err);
/* Checks one value against its row (type, allowed values or range). */
clpk_status core_param_check_value(const core_param_table *t, const core_param_def *d, const char *value,
                                   clpk_error *err);
/* The built-in defaults of every row for a device kind. */
void core_param_defaults(const core_param_table *t, clpk_device_kind kind, core_params *out);
/* Checks every active parameter of `p` and stores it in the typed configuration `config` (INT: the number, NAME:
 * the index of the name). Inactive rows leave their field as it is. */
clpk_status core_param_read(const core_param_table *t, const core_params *p, void *config, clpk_error *err);
/* The configuration's active parameters as "k=v,k=v", in table order. */
void core_param_format(const core_param_table *t, const void *config, char *buf, size_t size);
/* The same as parameters (e.g. to evaluate conditions on a stored configuration). */
void core_param_to_params(const core_param_table *t, const void *config, core_params *out);
/* Appends " -DNAME=value" for every active row with a -D name (NAME rows give their index). */
void core_param_defines(const core_param_table *t, const void *config, char *buf, size_t size);
/* The values the tuner searches for a row, split into `out` (at most `capacity`); 0 if it is not searched. */
int core_param_search_values(const core_param_def *d, const char **out, char *storage, size_t storage_size,
                             int capacity);
/* A human-readable listing of the table, one line a parameter (--help, clpk_family_parameters). */
void core_param_describe(const core_param_table *t, char *buf, size_t size);

/* Whether this is the first stale profile entry of `family` reported on the context (a stale profile is reported
 * once, at warn; later ones at debug). */
int core_profile_first_stale_report(clpk_context *ctx, const char *family);

/* The table of a family ("spmv", "life", "sshopm", "xcorr"), or NULL. */
const core_param_table *core_param_table_of(const char *family);

/* ---- One resolve step: built-in defaults -> profile entry or the family's model -> caller ---------------------- */

typedef enum core_param_source {
    CORE_SOURCE_DEFAULT = 0,
    CORE_SOURCE_PROFILE,
    CORE_SOURCE_MODEL,
    CORE_SOURCE_CALLER
} core_param_source;

const char *core_param_source_name(core_param_source s);

/* A family's model: fills `out` (already holding the defaults) from the problem's features, where no profile entry
 * applies. Returns 1 if it set anything. */
typedef int (*core_param_model)(const clpk_context *ctx, const core_params *features, core_params *out, void *user);

typedef struct core_resolve_request {
    const core_param_table *table;
    const core_params *features; /* NULL: no profile lookup (explicit plans) */
    const char *caller;          /* "k=v,..." from the caller, or NULL */
    core_param_model model;      /* optional */
    void *model_user;
} core_resolve_request;

typedef struct core_resolved {
    core_params params;                    /* every parameter's value */
    unsigned char source[CLPK_PARAMS_MAX]; /* core_param_source of params.items[i] */
    core_profile_choice choice;            /* the profile entry used, if any */
    char reason[320];                      /* why that entry applies, or why none does */
} core_resolved;

/* core_profile_choose with the family's reach, as core_resolve applies it (docs/profiles.md, "Which entry a problem
 * uses"): an entry with a "valid" box is a candidate only when every feature it names lies inside the box; an entry
 * without one only within `reach` of the features (0: any distance); the nearest candidate class wins, and only its
 * parameters are merged. `reason` (may be NULL) says why that entry applies, or why none does. */
clpk_status core_profile_choose_within(clpk_context *ctx, const char *family, const core_params *features, double reach,
                                       core_params *params, core_profile_choice *choice, char *reason,
                                       size_t reason_size);

/* Resolves a family's parameters with one rule everywhere:
 *  1. the caller's keys must be parameters of the table (else CLPK_ERROR_INVALID_ARGUMENT naming the key), and each
 *     value must be allowed by its row;
 *  2. the built-in defaults for the device kind;
 *  3. with features: the nearest profile entry of the family that applies to them (core_profile_choose_within:
 *     inside its "valid" box, or without a box within the table's profile_reach);
 *     an entry with a key the table does not know or a value it does not allow is stale and ignored as a whole
 *     (logged at warn once per resolve); without an applying entry, the family's model, if any;
 *  4. the caller's values last.
 * Logs at debug every parameter with its source. */
clpk_status core_resolve(clpk_context *ctx, const core_resolve_request *req, core_resolved *out);
/* The same without a context or profile (the footprint, the tuner's validity checks): the defaults of a device kind,
 * then the caller's values, checked as core_resolve checks them. */
clpk_status core_resolve_explicit(const core_param_table *t, clpk_device_kind kind, const core_params *caller,
                                  core_resolved *out, clpk_error *err);
core_param_source core_resolved_source(const core_resolved *r, const char *name);
/* "tile=16 (profile), wg=256 (default), ..." */
void core_resolved_describe(const core_resolved *r, char *buf, size_t size);

#endif
