/* The exhaustive and random search strategies (the hill climber is in tune_hill.c). */
#include "tune_engine.h"

#include <stdlib.h>
#include <string.h>

/* Whether `digits` is already normalized (an unlisted exhaustive search skips the other combinations). */
static int normal(const search *s, const int *digits) {
    int copy[CLPK_TUNE_MAX_PARAMS];
    memcpy(copy, digits, sizeof copy);
    tune_normalize(s, copy);
    return memcmp(copy, digits, sizeof(int) * (size_t)s->space->count) == 0;
}

/* The i-th point of an exhaustive search: of the listed valid points, else of the whole product. */
static void exhaustive_point(const search *s, unsigned long long i, int *digits) {
    tune_digits_of_index(s->space, s->enumerated ? s->valid[i] : i, digits);
}

void tune_search_exhaustive(search *s) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    double size = tune_space_size(s->space);
    /* Beyond 2^62 points an exhaustive search cannot end anyway: the budget stops it. */
    unsigned long long n = s->enumerated ? s->valid_count : size < 4.6e18 ? (unsigned long long)size : 1ull << 62;
    const unsigned long long chunk = 64; /* points compiled ahead together */
    for (unsigned long long first = 0; first < n; first += chunk) {
        unsigned long long end = n - first < chunk ? n : first + chunk;
        if (tune_begin_collect(s)) {
            for (unsigned long long i = first; i < end; ++i) {
                exhaustive_point(s, i, digits);
                if (s->enumerated || normal(s, digits)) tune_visit_digits(s, digits);
            }
            tune_end_collect(s);
        }
        for (unsigned long long i = first; i < end; ++i) {
            exhaustive_point(s, i, digits);
            if (!s->enumerated && !normal(s, digits)) continue;
            if (tune_visit_digits(s, digits) == -1) return;
        }
    }
}

static void random_digits(search *s, int *digits) {
    for (int i = 0; i < s->space->count; ++i)
        digits[i] = (int)(tune_next_random(&s->rng) % (uint64_t)s->space->params[i].count);
    tune_normalize(s, digits);
}

/* Draws `n` new valid points: from the list of valid points when there is one (a partial shuffle), else by rejection
 * sampling with a cap so a mostly invalid space still ends. */
void tune_search_random(search *s, int n) {
    if (s->enumerated ? s->valid_count <= (size_t)n : tune_space_size(s->space) <= n) {
        tune_search_exhaustive(s);
        return;
    }
    /* Draw first, then measure, so the drawn points can be compiled ahead together. */
    int(*picked)[CLPK_TUNE_MAX_PARAMS] = malloc(sizeof *picked * (size_t)(n > 0 ? n : 1));
    if (!picked) return;
    int count = 0;
    int digits[CLPK_TUNE_MAX_PARAMS];
    const size_t width = sizeof(int) * (size_t)s->space->count;
    if (s->enumerated) {
        size_t left = s->valid_count;
        while (count < n && left > 0) {
            size_t pick = (size_t)(tune_next_random(&s->rng) % left);
            unsigned long long index = s->valid[pick];
            s->valid[pick] = s->valid[--left]; /* the list's order no longer matters once drawn from */
            s->valid[left] = index;
            tune_digits_of_index(s->space, index, digits);
            if (tune_find_point(s, digits) >= 0) continue;
            memcpy(picked[count++], digits, sizeof digits);
        }
    } else {
        core_params params;
        for (int tries = 0; count < n && tries < 64 * n; ++tries) {
            random_digits(s, digits);
            if (tune_find_point(s, digits) >= 0) continue;
            int again = 0;
            for (int k = 0; k < count && !again; ++k)
                again = memcmp(picked[k], digits, width) == 0;
            if (again) continue;
            tune_space_digits_point(s->space, digits, &params);
            if (s->fam->valid && !s->fam->valid(s->run->ctx, s->prob, &params)) {
                tune_visit_digits(s, digits); /* records the pruned point */
                continue;
            }
            memcpy(picked[count++], digits, sizeof digits);
        }
    }
    if (tune_begin_collect(s)) {
        for (int k = 0; k < count; ++k)
            tune_visit_digits(s, picked[k]);
        tune_end_collect(s);
    }
    for (int k = 0; k < count; ++k)
        if (tune_visit_digits(s, picked[k]) == -1) break;
    free(picked);
}
