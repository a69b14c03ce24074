#include "param_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const param_check_profiles[PARAM_CHECK_PROFILE_COUNT] = {"nvidia-h100.json", "nvidia-h200.json",
                                                                     "pocl-cpu-amd-epyc.json"};

int param_check_search_values(const core_param_table *t) {
    int searched = 0;
    for (int i = 0; i < t->count; ++i) {
        const core_param_def *d = &t->defs[i];
        /* room for more values than the tuner keeps, so none goes unchecked */
        const char *values[64];
        char storage[1024];
        const int n = core_param_search_values(d, values, storage, sizeof storage, 64);
        searched += n > 0;
        for (int v = 0; v < n; ++v) {
            clpk_error err = {0};
            CHECK(core_param_check_value(t, d, values[v], &err) == CLPK_SUCCESS, "searched %s=%s: %s", d->name,
                  values[v], err.message);
        }
    }
    return searched;
}

static char *read_text(const char *path) {
    FILE *in = fopen(path, "rb");
    if (!in) return NULL;
    fseek(in, 0, SEEK_END);
    const long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    const size_t got = text ? fread(text, 1, (size_t)size, in) : 0;
    if (text) text[got] = '\0';
    fclose(in);
    return text;
}

cJSON *param_check_profile_load(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/../profiles/%s", CLPK_TEST_SOURCE_DIR, name);
    char *text = read_text(path);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    CHECK(root != NULL, "read %s", path);
    return root;
}

int param_check_profile_entries(const core_param_table *t, const cJSON *profile, const char *family, const char *name) {
    const cJSON *entries = cJSON_GetObjectItem(cJSON_GetObjectItem(profile, "families"), family);
    int count = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, entries) {
        const cJSON *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItem(e, "params")) {
            const core_param_def *d = core_param_find(t, item->string);
            char value[64];
            if (cJSON_IsNumber(item))
                snprintf(value, sizeof value, "%d", item->valueint);
            else
                snprintf(value, sizeof value, "%s", cJSON_IsString(item) ? item->valuestring : "");
            clpk_error err = {0};
            CHECK(d && core_param_check_value(t, d, value, &err) == CLPK_SUCCESS, "%s: %s=%s: %s", name, item->string,
                  value, d ? err.message : "unknown key");
        }
        /* a shipped entry of an older revision would be ignored with a warning on every run: none is shipped */
        const cJSON *revision = cJSON_GetObjectItem(e, "defaults_revision");
        CHECK(!cJSON_IsNumber(revision) || revision->valueint == t->defaults_revision,
              "%s: a %s entry of defaults revision %d, the library has %d", name, family,
              cJSON_IsNumber(revision) ? revision->valueint : -1, t->defaults_revision);
        ++count;
    }
    return count;
}

void param_check_shipped_profiles(const core_param_table *t, const char *family, int may_be_empty) {
    int total = 0, loaded = 0;
    for (int f = 0; f < PARAM_CHECK_PROFILE_COUNT; ++f) {
        cJSON *root = param_check_profile_load(param_check_profiles[f]);
        if (!root) continue;
        ++loaded;
        total += param_check_profile_entries(t, root, family, param_check_profiles[f]);
        cJSON_Delete(root);
    }
    /* a profile may lack a family whose entries went stale (the defaults apply), not all of them */
    CHECK(loaded == 0 || total > 0 || may_be_empty, "no shipped profile has %s entries", family);
}

void param_check_refusals(clpk_context *ctx, const core_param_table *t, const param_check_refusal *cases,
                          size_t count) {
    for (size_t i = 0; i < count; ++i) {
        const param_check_refusal *c = &cases[i];
        const core_resolve_request req = {.table = t, .caller = c->caller};
        core_resolved r;
        const clpk_status st = core_resolve(ctx, &req, &r);
        const char *msg = clpk_last_error(ctx);
        CHECK(st == CLPK_ERROR_INVALID_ARGUMENT && strstr(msg, c->needle1) && (!c->needle2 || strstr(msg, c->needle2)),
              "'%s' refused naming '%s' and '%s': %s (%s)", c->caller, c->needle1, c->needle2 ? c->needle2 : "",
              clpk_status_string(st), msg);
    }
}

int param_check_resolve(clpk_context *ctx, const core_param_table *t, const char *caller, core_resolved *r) {
    const core_resolve_request req = {.table = t, .caller = caller};
    return CHECK(core_resolve(ctx, &req, r) == CLPK_SUCCESS, "resolve: %s", clpk_last_error(ctx));
}

void param_check_sources(const core_resolved *r, core_param_source source, const char *names) {
    char list[256], wrong[256] = "";
    snprintf(list, sizeof list, "%s", names);
    size_t at = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const core_param_source got = core_resolved_source(r, name);
        if (got != source && at < sizeof wrong)
            at += (size_t)snprintf(wrong + at, sizeof wrong - at, " %s (%s)", name, core_param_source_name(got));
    }
    CHECK(!wrong[0], "%s: not from the %s:%s", names, core_param_source_name(source), wrong);
}

int param_check_profile_install(char *path, const char *fmt, ...) {
    const int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!CHECK(f != NULL, "temporary profile")) return 0;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    setenv("CLPK_PROFILE", path, 1);
    setenv("CLPK_LOG", "quiet", 1);
    return 1;
}

void param_check_profile_remove(const char *path) {
    unsetenv("CLPK_PROFILE");
    remove(path);
}

clpk_context *param_check_context_with_profile(check_tmp_dir *dir, const char *tag,
                                               int (*write)(const check_tmp_dir *dir, const clpk_device_info *dev,
                                                            void *user),
                                               void *user) {
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return NULL;
    int ok = check_tmp_dir_create(dir, tag) && write(dir, clpk_context_device_info(ctx), user);
    clpk_context_destroy(ctx);
    if (!CHECK(ok, "%s: profile written", tag)) return NULL;
    setenv("CLPK_PROFILE_DIR", dir->path, 1);
    unsetenv("CLPK_PROFILE");
    ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "%s: context with the profile", tag)) return NULL;
    return ctx;
}
