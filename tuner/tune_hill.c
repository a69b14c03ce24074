/* The hill-climbing strategy: random starts covering the groups of categorical values, warm starts from the winners
 * of the family's earlier problems, a climb per group, then sweeps and free climbs from the best ends. */
#include "tune_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HILL_STARTS 3

static int better(const search *s, int a, int b) {
    if (a < 0 || s->pts[a].outcome != CLPK_TUNE_OK) return 0;
    return b < 0 || s->pts[b].outcome != CLPK_TUNE_OK || s->pts[a].ms < s->pts[b].ms;
}

/* The climbs' groups: the combinations of the categorical parameters' values (values not all numbers: strategies,
 * formats, kernel variants), taking categorical parameters in order while the combinations stay at most GROUP_LIMIT.
 * Ordered values make a landscape a climber can follow; categories do not (the next one in the list is no nearer than
 * any other, and a category can be slow almost everywhere yet hold the best point), so each group gets a climb of
 * its own sub-space. */
#define GROUP_LIMIT 16

static int numeric_param(const tune_param *p) {
    for (int v = 0; v < p->count; ++v) {
        char *end;
        strtod(p->values[v], &end);
        if (end == p->values[v] || *end) return 0;
    }
    return 1;
}

/* Returns how many groups there are (1: none). */
static int choose_groups(search *s) {
    int combos = 1;
    for (int i = 0; i < s->space->count; ++i) {
        s->grouped[i] = 0;
        if (numeric_param(&s->space->params[i]) || combos * s->space->params[i].count > GROUP_LIMIT) continue;
        s->grouped[i] = 1;
        combos *= s->space->params[i].count;
    }
    /* No categories: starts and climbs still spread over the first parameter's values, which its climbs may move. */
    if (combos == 1 && s->space->count > 0) s->grouped[0] = 2;
    return combos;
}

/* A group's number, below GROUP_IDS: mixed radix over the grouped parameters (at most GROUP_LIMIT combinations of
 * categories, or the first parameter's values). */
#define GROUP_IDS (GROUP_LIMIT > CLPK_TUNE_MAX_VALUES ? GROUP_LIMIT : CLPK_TUNE_MAX_VALUES)
static int group_id(const search *s, const int *digits) {
    int id = 0;
    for (int i = 0; i < s->space->count; ++i)
        if (s->grouped[i]) id = id * s->space->params[i].count + digits[i];
    return id;
}

static int same_group(const search *s, const int *a, const int *b) {
    for (int i = 0; i < s->space->count; ++i)
        if (s->grouped[i] && a[i] != b[i]) return 0;
    return 1;
}

/* Measures one neighbour of `current` (digits moved by d1 on parameter i and d2 on parameter j, j < 0: none) and
 * keeps the better of it and *next; returns 0 when the search must stop. */
static int try_neighbour(search *s, int current, int i, int d1, int j, int d2, int *next) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    memcpy(digits, s->pts[current].digits, sizeof digits);
    digits[i] += d1;
    if (digits[i] < 0 || digits[i] >= s->space->params[i].count) return 1;
    if (j >= 0) {
        digits[j] += d2;
        if (digits[j] < 0 || digits[j] >= s->space->params[j].count) return 1;
    }
    tune_normalize(s, digits);
    int at = tune_visit_digits(s, digits);
    if (at == -1) return 0;
    if (better(s, at, *next)) *next = at;
    return 1;
}

/* Best-improvement hill climbing: measure the neighbours (one parameter one value up or down), move to the best while
 * it beats the current point. When none does, wider rings are tried before stopping: one parameter two values, then
 * two parameters one value each, which step over constraints such as "block sizes multiply to at most N" or parity
 * rules that make every nearest neighbour invalid. `in_group`: the grouped parameters stay fixed (the climb searches
 * its group's sub-space). Returns where it ended. */
/* The neighbours of `current` in one ring (see climb); returns 0 when the search must stop. */
static int ring_neighbours(search *s, int current, int ring, int in_group, int *next) {
    int n = s->space->count;
    for (int i = 0; i < n; ++i) {
        if (in_group && s->grouped[i] == 1) continue;
        for (int d = -1; d <= 1; d += 2) {
            if (ring < 2 && !try_neighbour(s, current, i, d * (ring + 1), -1, 0, next)) return 0;
            for (int j = i + 1; ring == 2 && j < n; ++j) {
                if (in_group && s->grouped[j] == 1) continue;
                for (int e = -1; e <= 1; e += 2)
                    if (!try_neighbour(s, current, i, d, j, e, next)) return 0;
            }
        }
    }
    return 1;
}

static int climb(search *s, int from, int in_group) {
    int current = from;
    while (current >= 0) {
        int next = current;
        for (int ring = 0; ring < 3 && next == current; ++ring) {
            if (tune_begin_collect(s)) {
                int unused = current;
                ring_neighbours(s, current, ring, in_group, &unused);
                tune_end_collect(s);
            }
            if (!ring_neighbours(s, current, ring, in_group, &next)) return current;
        }
        if (next == current) return current;
        current = next;
    }
    return current;
}

/* Coordinate sweeps: every value of every parameter (not only the neighbours, categories included) from `from`,
 * moving to the best, until a whole sweep finds nothing better. Returns where it ended. */
static int sweep(search *s, int from) {
    int current = from;
    for (int moved = 1; moved && current >= 0;) {
        moved = 0;
        for (int i = 0; i < s->space->count; ++i) {
            int next = current;
            for (int pass = tune_begin_collect(s) ? 0 : 1; pass < 2; ++pass) {
                for (int v = 0; v < s->space->params[i].count; ++v) {
                    if (v == s->pts[current].digits[i]) continue;
                    int digits[CLPK_TUNE_MAX_PARAMS];
                    memcpy(digits, s->pts[current].digits, sizeof digits);
                    digits[i] = v;
                    tune_normalize(s, digits);
                    int at = tune_visit_digits(s, digits);
                    if (at == -1) return current;
                    if (pass == 1 && better(s, at, next)) next = at;
                }
                if (pass == 0) tune_end_collect(s);
            }
            moved |= next != current;
            current = next;
        }
    }
    return current;
}

/* Random starting points that cover every group (combination of the grouped parameters' values) first, drawn from
 * the listed valid points. */
static int stratified_pass(search *s, int n) {
    int digits[CLPK_TUNE_MAX_PARAMS];
    int covered[GROUP_IDS] = {0}, drawn = 0;
    for (int k = 0; k < s->count; ++k) /* the defaults, when in the space */
        if (s->pts[k].in_space && !s->pts[k].pruned) covered[group_id(s, s->pts[k].digits)] = 1;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < s->valid_count && drawn < n; ++i) {
            tune_digits_of_index(s->space, s->valid[i], digits);
            int id = group_id(s, digits);
            if ((pass == 0 && covered[id]) || tune_find_point(s, digits) >= 0) continue;
            covered[id] = 1;
            if (tune_visit_digits(s, digits) == -1) return 0;
            ++drawn;
        }
    }
    return 1;
}

static void stratified_starts(search *s, int n) {
    for (size_t i = s->valid_count; i > 1; --i) { /* shuffle */
        size_t j = (size_t)(tune_next_random(&s->rng) % i);
        unsigned long long t = s->valid[i - 1];
        s->valid[i - 1] = s->valid[j];
        s->valid[j] = t;
    }
    if (tune_begin_collect(s)) {
        stratified_pass(s, n);
        tune_end_collect(s);
    }
    stratified_pass(s, n);
}

/* floor(log2(valid points / (4 x samples))), at least 0: how much larger than an exhaustively searched space this
 * one is. Unlisted spaces count by their product. */
static int size_steps(const search *s) {
    double valid = s->enumerated ? (double)s->valid_count : tune_space_size(s->space);
    double ratio = valid / (4.0 * s->run->cfg->samples);
    return ratio >= 2 ? (int)floor(log2(ratio)) : 0;
}

/* Room for the warm starts of report item k. */
static int warm_slot(run_state *run, int k) {
    if (k < run->warm_capacity) return 1;
    int cap = run->report->capacity > k + 1 ? run->report->capacity : k + 1;
    core_params(*warm)[WARM_STARTS] = realloc(run->warm, sizeof *warm * (size_t)cap);
    if (!warm) return 0;
    run->warm = warm;
    int *count = realloc(run->warm_count, sizeof *count * (size_t)cap);
    if (!count) return 0;
    run->warm_count = count;
    for (int i = run->warm_capacity; i < cap; ++i)
        count[i] = -1; /* not chosen yet */
    run->warm_capacity = cap;
    return 1;
}

/* Winners of the family's problems tuned before in this run, nearest class first, measured as the first points of a
 * search: a family's training problems are related (the same strategies win on similar classes), and their
 * programs are usually compiled already. Returns how many were new points of this search. */
static int warm_starts(search *s) {
    run_state *run = s->run;
    const tune_report *report = run->report;
    int self = (int)(s->res - report->items);
    if (!warm_slot(run, self)) return 0;
    core_params *chosen = run->warm[self];
    if (run->warm_count[self] < 0) { /* first search of this problem: the nearest classes' winners */
        int taken[WARM_STARTS], n = 0;
        for (; n < WARM_STARTS; ++n) {
            int nearest = -1;
            double nearest_d = INFINITY;
            for (int k = 0; k < report->count; ++k) {
                const tune_result *r = &report->items[k];
                if (k == self || !r->found || strcmp(r->family, s->fam->name) != 0) continue;
                int used = 0;
                for (int u = 0; u < n && !used; ++u)
                    used = taken[u] == k;
                double d = core_class_distance(&r->klass, &s->prob->klass);
                if (!used && d < nearest_d) nearest = k, nearest_d = d;
            }
            if (nearest < 0) break;
            taken[n] = nearest;
            chosen[n] = report->items[nearest].best;
        }
        run->warm_count[self] = n;
    }
    int visited = 0;
    for (int w = 0; w < run->warm_count[self] && !s->cut; ++w) {
        int digits[CLPK_TUNE_MAX_PARAMS];
        if (!tune_digits_of_params(s->space, &chosen[w], digits)) continue; /* not a point of this space */
        tune_normalize(s, digits);
        int before = s->count, at = tune_visit_digits(s, digits);
        if (at == -1) break;
        visited += at >= before;
    }
    s->res->warm_starts = visited;
    return visited;
}

/* Random starts (more the larger the space), then a climb inside the group of each of the best few groups (from the
 * group's best point; more climbs the larger the space), then coordinate sweeps and free climbs from each of the best
 * few ends until neither improves. A small valid space is searched exhaustively instead: a few climbs would cost
 * about as much. */
void tune_search_hill(search *s) {
    int samples = s->run->cfg->samples;
    if (s->enumerated && s->valid_count <= (size_t)(4 * samples)) {
        tune_search_exhaustive(s);
        return;
    }
    int groups = choose_groups(s);
    int steps = size_steps(s), base = samples / 2 > 4 ? samples / 2 : 4;
    int starts = base + base * steps / 4, climbs = HILL_STARTS + steps / 2;
    /* With the winners of similar problems measured first, fewer random starts are needed and the climbs go from
     * the best points (of distinct groups) rather than from every group. */
    if (warm_starts(s) > 0)
        starts = (starts + 1) / 2;
    else if (groups > climbs)
        climbs = groups;
    if (s->enumerated)
        stratified_starts(s, starts);
    else
        tune_search_random(s, starts);
    int grouping = 0; /* else the climbs start from the best distinct points */
    for (int i = 0; i < s->space->count; ++i)
        grouping |= s->grouped[i] && s->space->params[i].count > 1;
    int used[HILL_STARTS + 64], ends[HILL_STARTS + 64], nused = 0;
    if (climbs > HILL_STARTS + 64) climbs = HILL_STARTS + 64; /* GROUP_LIMIT keeps groups below */
    for (int k = 0; k < climbs && !s->cut; ++k) {
        int best = -1;
        for (int i = 0; i < s->count; ++i) {
            if (!s->pts[i].in_space) continue;
            int taken = 0;
            for (int u = 0; u < nused && !taken; ++u)
                taken = i == used[u] || (grouping && same_group(s, s->pts[i].digits, s->pts[used[u]].digits));
            if (!taken && better(s, i, best)) best = i;
        }
        if (best < 0) break;
        used[nused] = best;
        ends[nused++] = climb(s, best, 1);
    }
    /* The polish starts from the best HILL_STARTS climb ends, best first: the best end can be a local optimum that a
     * sweep from the second one steps past. */
    for (int k = 0; k < HILL_STARTS && !s->cut; ++k) {
        int current = -1;
        for (int u = 0; u < nused; ++u)
            if (ends[u] >= 0 && better(s, ends[u], current)) current = ends[u];
        if (current < 0) break;
        for (int u = 0; u < nused; ++u)
            if (ends[u] == current) ends[u] = -1; /* several climbs can end at one point */
        while (!s->cut) {
            int end = climb(s, sweep(s, current), 0);
            if (!better(s, end, current)) break;
            current = end;
        }
    }
}
