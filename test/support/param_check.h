/* Checks the parameter-table tests (test/test_<family>_params.c) share: the values the tuner searches, the shipped
 * profiles' entries of a family, and refusals by core_resolve. Each check is counted through CHECK (check.h). */
#ifndef CLPK_TEST_PARAM_CHECK_H
#define CLPK_TEST_PARAM_CHECK_H

#include "check.h"
#include "clpk_internal.h"
#include "param_table.h"

#include <cjson/cJSON.h>

/* The profiles shipped in profiles/, by file name. */
#define PARAM_CHECK_PROFILE_COUNT 3
extern const char *const param_check_profiles[PARAM_CHECK_PROFILE_COUNT];

/* Checks that every value the tuner searches (each row's `search`) passes the row's check; returns the number of rows
 * the tuner searches. */
int param_check_search_values(const core_param_table *t);

/* profiles/<name> of the source tree, parsed; NULL (a failed check) when it cannot be read. Free with cJSON_Delete. */
cJSON *param_check_profile_load(const char *name);

/* Checks that each of the `family` entries of `profile` (read from `name`) has params that are keys of `t` with
 * values its rows accept and the table's defaults revision (so the entries keep applying); returns the number of
 * entries. */
int param_check_profile_entries(const core_param_table *t, const cJSON *profile, const char *family, const char *name);

/* param_check_profile_entries for every shipped profile; together they must hold some entries of the family unless
 * may_be_empty (a family whose entries were all dropped as stale until the next re-tune). */
void param_check_shipped_profiles(const core_param_table *t, const char *family, int may_be_empty);

/* A caller's parameter string core_resolve must refuse, and what its message must name (needle2 may be NULL). */
typedef struct param_check_refusal {
    const char *caller, *needle1, *needle2;
} param_check_refusal;

/* Checks that core_resolve of each case's caller alone (no features) is refused with CLPK_ERROR_INVALID_ARGUMENT and
 * a message naming its needles. */
void param_check_refusals(clpk_context *ctx, const core_param_table *t, const param_check_refusal *cases, size_t count);

/* Resolves `caller` alone (no features) into *r; returns 1, or 0 (a failed check) when core_resolve fails. */
int param_check_resolve(clpk_context *ctx, const core_param_table *t, const char *caller, core_resolved *r);

/* Checks that every parameter of the comma-separated `names` has `source` in *r. */
void param_check_sources(const core_resolved *r, core_param_source source, const char *names);

/* Writes a profile (printf-style `fmt`) to a new temporary file made from the template `path` ("...XXXXXX", replaced
 * in place) and points CLPK_PROFILE at it, with CLPK_LOG=quiet; returns 1, or 0 (a failed check) when it cannot. */
int param_check_profile_install(char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A context reading its profiles from `dir` (CLPK_PROFILE_DIR, created here with `tag`): a first context learns the
 * device, `write` puts this device's profile into the folder, then the context that reads it is created. NULL (a
 * failed check) when any step fails; the caller removes `dir` (check_tmp_dir_remove) after destroying the context. */
clpk_context *param_check_context_with_profile(check_tmp_dir *dir, const char *tag,
                                               int (*write)(const check_tmp_dir *dir, const clpk_device_info *dev,
                                                            void *user),
                                               void *user);

/* Unsets CLPK_PROFILE and removes the file param_check_profile_install wrote. */
void param_check_profile_remove(const char *path);

#endif
