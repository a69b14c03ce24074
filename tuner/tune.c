/* The tuner's vocabulary: strategy and outcome names, configuration defaults, reports, the space's points by index,
 * and the selection of problems and families. */
#include "tune_engine.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

const char *tune_strategy_name(tune_strategy s) {
    switch (s) {
    case CLPK_TUNE_EXHAUSTIVE: return "exhaustive";
    case CLPK_TUNE_RANDOM: return "random";
    case CLPK_TUNE_HILL: return "hill";
    }
    return "unknown";
}

clpk_status tune_strategy_parse(const char *text, tune_strategy *out) {
    static const tune_strategy all[] = {CLPK_TUNE_EXHAUSTIVE, CLPK_TUNE_RANDOM, CLPK_TUNE_HILL};
    for (size_t i = 0; text && i < sizeof all / sizeof all[0]; ++i) {
        if (strcmp(text, tune_strategy_name(all[i])) == 0) {
            *out = all[i];
            return CLPK_SUCCESS;
        }
    }
    return CLPK_ERROR_INVALID_ARGUMENT;
}

const char *tune_outcome_name(tune_outcome o) {
    static const char *const names[CLPK_TUNE_OUTCOMES] = {"ok", "wrong", "build", "timeout", "resources", "error"};
    return (unsigned)o < CLPK_TUNE_OUTCOMES ? names[o] : "unknown";
}

tune_outcome tune_outcome_of(clpk_status st) {
    switch (st) {
    case CLPK_SUCCESS: return CLPK_TUNE_OK;
    case CLPK_ERROR_WRONG_RESULT: return CLPK_TUNE_WRONG;
    case CLPK_ERROR_BUILD: return CLPK_TUNE_BUILD;
    case CLPK_ERROR_TIMEOUT: return CLPK_TUNE_TIMEOUT;
    case CLPK_ERROR_OUT_OF_MEMORY:
    case CLPK_ERROR_UNSUPPORTED: return CLPK_TUNE_RESOURCES;
    default: return CLPK_TUNE_ERROR;
    }
}

void tune_config_defaults(tune_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->strategy = CLPK_TUNE_HILL;
    cfg->repeats = 5;
    cfg->final_repeats = 15;
    cfg->top_k = 4;
    cfg->min_gain = 0.02;
    cfg->samples = 24;
    cfg->first_round_share = 1.0;
    cfg->opts.seed = 1;
}

void tune_model_free(void *model_json) { cJSON_Delete(model_json); }

void tune_report_free(tune_report *report) {
    if (!report) return;
    free(report->items);
    for (int i = 0; i < report->model_count; ++i)
        tune_model_free(report->models[i]);
    memset(report, 0, sizeof *report);
}

/* ---- Space points ---------------------------------------------------------------------------------------------- */

double tune_space_size(const tune_space *space) {
    double n = 1;
    for (int i = 0; i < space->count; ++i)
        n *= space->params[i].count;
    return n;
}

/* The last parameter varies fastest. */
void tune_digits_of_index(const tune_space *space, unsigned long long index, int *digits) {
    for (int i = space->count - 1; i >= 0; --i) {
        unsigned long long n = (unsigned long long)space->params[i].count;
        digits[i] = n ? (int)(index % n) : 0;
        index = n ? index / n : 0;
    }
}

void tune_space_point(const tune_space *space, unsigned long long index, core_params *out) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    tune_digits_of_index(space, index, digits);
    tune_space_digits_point(space, digits, out);
}

/* Where a parameter list (the defaults, a warm start) sits in the space, if it is a point of it. */
int tune_digits_of_params(const tune_space *space, const core_params *params, int *digits) {
    if (params->count != space->count) return 0;
    for (int i = 0; i < space->count; ++i) {
        const char *v = core_params_get(params, space->params[i].name);
        int found = -1;
        for (int j = 0; v && j < space->params[i].count && found < 0; ++j)
            if (strcmp(space->params[i].values[j], v) == 0) found = j;
        if (found < 0) return 0;
        digits[i] = found;
    }
    return 1;
}

/* ---- Selecting problems and families --------------------------------------------------------------------------- */

clpk_status tune_problems_parse(const char *list, clpk_error *err) {
    for (const char *at = list; at && *at;) {
        char *end;
        long v = strtol(at, &end, 10);
        if (end == at || v < 0 || v > 1000000 || (*end && *end != ','))
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                  "bad problem list '%s': expected problem numbers such as 0,3,5", list);
        at = *end ? end + 1 : end;
    }
    return CLPK_SUCCESS;
}

int tune_problem_selected(const char *list, int index) {
    if (!list) return 1;
    for (const char *at = list; *at;) {
        char *end;
        long v = strtol(at, &end, 10);
        if (end == at) return 0;
        if (v == index) return 1;
        at = *end ? end + 1 : end;
    }
    return 0;
}

clpk_status tune_select(const tune_family *const *all, const char *names, const tune_family **out, int capacity,
                        clpk_error *err) {
    int n = 0;
    if (capacity <= 0) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "no room for families");
    if (!names || !*names) {
        for (int i = 0; all[i] && n < capacity - 1; ++i)
            out[n++] = all[i];
        out[n] = NULL;
        return CLPK_SUCCESS;
    }
    const char *at = names;
    while (*at) {
        size_t len = strcspn(at, ",");
        int found = 0;
        for (int i = 0; all[i] && !found; ++i) {
            if (strlen(all[i]->name) != len || strncmp(all[i]->name, at, len) != 0) continue;
            found = 1;
            int dup = 0;
            for (int j = 0; j < n; ++j)
                dup |= out[j] == all[i];
            if (!dup && n < capacity - 1) out[n++] = all[i];
        }
        if (!found && len > 0) {
            char known[256] = "";
            size_t k = 0;
            for (int i = 0; all[i] && k < sizeof known; ++i)
                k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", i ? ", " : "", all[i]->name);
            out[0] = NULL;
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "unknown family '%.*s' (built in: %s)", (int)len,
                                  at, known[0] ? known : "none");
        }
        at += len + (at[len] == ',');
    }
    out[n] = NULL;
    return CLPK_SUCCESS;
}
