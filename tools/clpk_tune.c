/* clpk-tune: the offline autotuner. Tunes the built-in families on one device and writes the profile the library
 * reads at run time; also merges profiles and lists the families and their search spaces. See docs/tuning.md. */
#include "tune_run.h"
#include "tune_spmv_model.h"

#include "cli_args.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FAMILIES 16

static volatile sig_atomic_t interrupted;

/* The first Ctrl-C stops after the current candidate; a second one (a kernel that does not return) ends the process
 * at once: the point in flight stays marked pending in the cache, and --resume refuses it. */
static void on_sigint(int sig) {
    (void)sig;
    if (interrupted) _exit(130);
    interrupted = 1;
}

/* ---- Watchdog: a kernel that never returns cannot be stopped inside the driver, so the whole process is replaced by
 * a fresh run with --resume, in which the hung point (still marked pending in the cache) counts as a timeout. */

#define MAX_RESTARTS 3

typedef struct watchdog {
    tune_progress *progress;
    atomic_llong started_ns; /* the evaluation in flight started then; 0: none */
    double hang_s;
    int argc, restarts;
    char **argv;
} watchdog;

static long long monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void watch_event(void *user, const tune_event *ev) {
    watchdog *w = user;
    if (ev->kind == CLPK_TUNE_EVENT_CANDIDATE_START)
        atomic_store(&w->started_ns, monotonic_ns());
    else if (ev->kind == CLPK_TUNE_EVENT_CANDIDATE)
        atomic_store(&w->started_ns, 0);
    tune_progress_event(w->progress, ev);
}

static void restart(watchdog *w, double seconds) {
    fprintf(stderr, "\nclpk-tune: a candidate has run for %.0f s (hang limit %.0f s): ", seconds, w->hang_s);
    if (w->restarts >= MAX_RESTARTS) {
        fprintf(stderr, "giving up after %d restarts; run again with --resume\n", w->restarts);
        _exit(3);
    }
    fprintf(stderr, "restarting with --resume; the point is recorded as a timeout\n");
    char **args = calloc((size_t)w->argc + 4, sizeof *args);
    char count[16];
    snprintf(count, sizeof count, "%d", w->restarts + 1);
    int n = 0, has_resume = 0;
    for (int i = 0; i < w->argc; ++i) {
        if (!strcmp(w->argv[i], "--restart-count")) {
            ++i;
            continue;
        }
        has_resume |= !strcmp(w->argv[i], "--resume");
        if (args) args[n++] = w->argv[i];
    }
    if (args) {
        if (!has_resume) args[n++] = "--resume";
        args[n++] = "--restart-count";
        args[n++] = count;
        fflush(NULL);
        execv("/proc/self/exe", args);
    }
    fprintf(stderr, "clpk-tune: restart failed; run again with --resume\n");
    _exit(3);
}

static void *watch(void *user) {
    watchdog *w = user;
    for (;;) {
        sleep(1);
        long long t = atomic_load(&w->started_ns);
        double seconds = t ? (double)(monotonic_ns() - t) * 1e-9 : 0;
        if (t && seconds > w->hang_s) restart(w, seconds);
    }
    return NULL;
}

static const char *const synopsis = "[options]                 tune and write a profile\n"
                                    "       clpk-tune --merge A.json B.json ... --out C.json [--force]\n"
                                    "       clpk-tune --list [--device SEL] [--families LIST] [--quick]";

static void sanitize(const char *in, char *out, size_t size) {
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < size; ++p) {
        char c = (char)tolower((unsigned char)*p);
        out[n++] = isalnum((unsigned char)c) ? c : '-';
    }
    out[n] = '\0';
}

static double geometric_mean_speedup(const tune_report *r, const char *family, int *n) {
    double sum = 0;
    *n = 0;
    for (int i = 0; i < r->count; ++i) {
        const tune_result *x = &r->items[i];
        if (strcmp(x->family, family) || !x->found || !x->default_ok || !(x->best_ms > 0)) continue;
        sum += log(x->default_ms / x->best_ms);
        ++*n;
    }
    return *n ? exp(sum / *n) : NAN;
}

/* Where the family's time went: problem set-up, evaluations, and the driver's compiler inside them. */
static void print_cost(const tune_report *r, const char *family) {
    double setup = 0, evaluate = 0, build = 0, prebuild = 0;
    int points = 0, cached = 0, builds = 0, prebuilt = 0, searches = 0, complete = 0, second = 0, warm = 0;
    for (int i = 0; i < r->count; ++i) {
        const tune_result *x = &r->items[i];
        if (strcmp(x->family, family)) continue;
        setup += x->setup_s;
        evaluate += x->evaluate_s;
        build += x->build_s;
        prebuild += x->prebuild_s;
        prebuilt += x->prebuilt;
        builds += x->builds;
        points += x->evaluated;
        cached += x->from_cache;
        searches += x->rounds > 0;
        complete += x->rounds > 0 && x->complete;
        second += x->rounds > 1;
        warm += x->warm_starts;
    }
    printf("  %s: %d points (%d from the cache); %.1f s evaluating (%.1f s compiling %d programs), %.1f s noting and "
           "compiling %d ahead, %.1f s creating problems\n",
           family, points, cached, evaluate, build, builds, prebuild, prebuilt, setup);
    printf("  %s: %d of %d searches complete, %d continued in a second round; %d warm starts\n", family, complete,
           searches, second, warm);
}

static void print_table(const tune_report *r) {
    for (int f = 0; f < r->family_count; ++f) {
        const char *fam = r->families[f];
        printf("\n%s\n  %-40s %12s %12s %8s %7s  %s\n", fam, "problem", "default ms", "tuned ms", "speed-up", "points",
               "tuned parameters / note");
        for (int i = 0; i < r->count; ++i) {
            const tune_result *x = &r->items[i];
            if (strcmp(x->family, fam)) continue;
            char text[256] = "";
            if (x->found) core_params_format(&x->best, text, sizeof text);
            if (!x->found) {
                printf("  %-40.40s %12s %12s %8s %7d  %s\n", x->label, "-", "-", "-", x->evaluated, x->note);
            } else if (x->default_ok) {
                char kept[80] = "";
                if (x->gain_kept_out > 1)
                    snprintf(kept, sizeof kept, " (the defaults kept: best %.3fx, below the minimum gain)",
                             x->gain_kept_out);
                printf("  %-40.40s %12.4g %12.4g %7.2fx %7d  %s%s%s\n", x->label, x->default_ms, x->best_ms,
                       x->default_ms / x->best_ms, x->evaluated, text, kept, x->complete ? "" : " (cut short)");
            } else {
                printf("  %-40.40s %12s %12.4g %8s %7d  %s (defaults failed)\n", x->label, "-", x->best_ms, "-",
                       x->evaluated, text);
            }
        }
        for (int m = 0; m < r->model_count; ++m)
            if (!strcmp(r->model_family[m], fam)) printf("  %s: %s\n", fam, r->model_note[m]);
        print_cost(r, fam);
        int n;
        double g = geometric_mean_speedup(r, fam, &n);
        if (n) {
            printf("  %s: tuned vs defaults, geometric mean over %d problem%s: %.2fx\n", fam, n, n == 1 ? "" : "s", g);
        } else {
            printf("  %s: no speed-up to report (no problem tuned, or the defaults failed)\n", fam);
        }
    }
}

/* The quality check of the issue: how close the chosen strategy came to the exhaustive best. The search ratio
 * compares the times each search measured (at different moments, so machine load moves it); the head-to-head ratio
 * measures both winners again, alternately in one process (tune_compare), and is the one to trust. */
typedef struct vs_options {
    const tune_family *const *families;
    const tune_config *cfg;
    int rounds;                                 /* head-to-head rounds per winner (0: no head-to-head) */
    const char *json;                           /* write the comparison there (NULL: don't) */
    const char *tuned_space, *exhaustive_space; /* the restrictions of the two searches (NULL: whole space) */
} vs_options;

static const tune_family *family_named(const tune_family *const *fams, const char *name) {
    for (int i = 0; fams[i]; ++i)
        if (!strcmp(fams[i]->name, name)) return fams[i];
    return NULL;
}

static int same_params(const core_params *a, const core_params *b) {
    if (a->count != b->count) return 0;
    for (int i = 0; i < a->count; ++i) {
        const char *v = core_params_get(b, a->items[i].key);
        if (!v || strcmp(v, a->items[i].value)) return 0;
    }
    return 1;
}

static cJSON *params_json(const core_params *p) {
    char text[512];
    core_params_format(p, text, sizeof text);
    return cJSON_CreateString(text);
}

static void add_number(cJSON *obj, const char *key, double v) {
    if (isfinite(v))
        cJSON_AddNumberToObject(obj, key, v);
    else
        cJSON_AddNullToObject(obj, key);
}

static int print_vs_exhaustive(clpk_context *ctx, const tune_report *tuned, const tune_report *full,
                               const vs_options *o) {
    printf("\ntuned vs exhaustive (time of the exhaustive best / time of the tuned choice; 1.00 = as good)\n"
           "  search: the times each search measured; head-to-head: both winners measured again alternately, %d "
           "rounds x %d runs (spread: (slowest - fastest round) / median)\n",
           o->rounds, o->cfg->final_repeats);
    printf("  %-8s %-36s %7s %7s %12s %12s %7s %7s %9s\n", "family", "problem", "search", "h2h", "tuned ms",
           "exhaust. ms", "spread", "spread", "points");
    cJSON *doc = cJSON_CreateArray();
    double sum = 0, worst = INFINITY;
    int n = 0;
    for (int i = 0; i < tuned->count && i < full->count && !interrupted; ++i) {
        const tune_result *a = &tuned->items[i], *b = &full->items[i];
        if (strcmp(a->family, b->family) || a->problem_index != b->problem_index) continue;
        if (!a->found || !b->found || !(a->best_ms > 0)) continue;
        double search_ratio = b->best_ms / a->best_ms;
        tune_comparison cmp = {NAN, NAN, NAN, NAN, 0};
        const tune_family *fam = family_named(o->families, a->family);
        if (o->rounds > 0 && fam &&
            tune_compare(ctx, fam, &o->cfg->opts, a->problem_index, &a->best, &b->best, o->rounds,
                         o->cfg->final_repeats, &cmp) != CLPK_SUCCESS)
            printf("  %s %s: head-to-head failed: %s\n", a->family, a->label, clpk_last_error(ctx));
        double h2h = cmp.b_ms / cmp.a_ms;
        /* The same point is as good by definition (its head-to-head ratio is the noise); a tuned choice faster than
         * the exhaustive best is noise too: the exhaustive search saw every point. */
        int same = same_params(&a->best, &b->best);
        double quality = same ? 1 : isfinite(h2h) ? fmin(h2h, 1) : fmin(search_ratio, 1);
        printf("  %-8s %-36.36s %7.3f %7.3f %12.4g %12.4g %6.1f%% %6.1f%% %4d/%-4d%s\n", a->family, a->label,
               search_ratio, h2h, cmp.a_ms, cmp.b_ms, 100 * cmp.a_spread, 100 * cmp.b_spread, a->evaluated,
               b->evaluated, b->complete ? "" : " (exhaustive cut short)");
        sum += log(quality);
        if (quality < worst) worst = quality;
        ++n;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "family", a->family);
        cJSON_AddNumberToObject(row, "problem", a->problem_index);
        cJSON_AddStringToObject(row, "label", a->label);
        cJSON_AddItemToObject(row, "class", params_json(&a->klass));
        cJSON_AddStringToObject(row, "tuned_space", o->tuned_space ? o->tuned_space : "");
        cJSON_AddStringToObject(row, "exhaustive_space", o->exhaustive_space ? o->exhaustive_space : "");
        cJSON_AddItemToObject(row, "tuned_params", params_json(&a->best));
        cJSON_AddItemToObject(row, "exhaustive_params", params_json(&b->best));
        cJSON_AddBoolToObject(row, "same_choice", same);
        add_number(row, "tuned_search_ms", a->best_ms);
        add_number(row, "exhaustive_search_ms", b->best_ms);
        add_number(row, "search_ratio", search_ratio);
        cJSON_AddNumberToObject(row, "h2h_rounds", cmp.rounds);
        add_number(row, "h2h_tuned_ms", cmp.a_ms);
        add_number(row, "h2h_exhaustive_ms", cmp.b_ms);
        add_number(row, "h2h_tuned_spread", cmp.a_spread);
        add_number(row, "h2h_exhaustive_spread", cmp.b_spread);
        add_number(row, "h2h_ratio", h2h);
        add_number(row, "quality", quality);
        cJSON_AddNumberToObject(row, "tuned_points", a->evaluated);
        cJSON_AddNumberToObject(row, "exhaustive_points", b->evaluated);
        cJSON_AddBoolToObject(row, "exhaustive_complete", b->complete);
        add_number(row, "space_size", b->space_size);
        cJSON_AddItemToArray(doc, row);
    }
    if (n) printf("  geometric mean %.3f, worst %.3f over %d problem%s\n", exp(sum / n), worst, n, n == 1 ? "" : "s");
    int rc = 0;
    if (o->json) {
        char *text = cJSON_Print(doc);
        FILE *f = text ? fopen(o->json, "w") : NULL;
        if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0) {
            fprintf(stderr, "clpk-tune: cannot write %s\n", o->json);
            rc = 1;
        }
        if (f && fclose(f) != 0) rc = 1;
        free(text);
    }
    cJSON_Delete(doc);
    return rc;
}

typedef struct list_valid {
    clpk_context *ctx;
    const tune_family *fam;
    tune_problem *prob;
} list_valid;

static int accept_listed(void *user, const core_params *candidate) {
    const list_valid *lv = user;
    return !lv->fam->valid || lv->fam->valid(lv->ctx, lv->prob, candidate);
}

static int list_families(const tune_family *const *fams, const char *selector, const tune_options *opts,
                         const char *restriction, const char *selection) {
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, selector) != CLPK_SUCCESS)
        fprintf(stderr, "clpk-tune: no device: listing families without their spaces\n");
    int n = 0;
    for (; fams[n]; ++n) {
        const tune_family *f = fams[n];
        int problems = f->problem_count(opts);
        printf("%s: %d problem%s\n", f->name, problems, problems == 1 ? "" : "s");
        for (int i = 0; ctx && i < problems; ++i) {
            if (!tune_problem_selected(selection, i)) continue;
            tune_problem prob;
            memset(&prob, 0, sizeof prob);
            if (f->problem_create(ctx, opts, i, &prob) != CLPK_SUCCESS) {
                printf("  [%d] not created: %s\n", i, clpk_last_error(ctx));
                if (prob.state && f->problem_destroy) f->problem_destroy(&prob);
                continue;
            }
            char klass[512];
            core_params_format(&prob.klass, klass, sizeof klass);
            tune_space space;
            memset(&space, 0, sizeof space);
            clpk_error restrict_err = {0};
            clpk_status space_st = f->space(ctx, &prob, &space);
            if (space_st == CLPK_SUCCESS && tune_space_restrict(&space, restriction, &restrict_err) != CLPK_SUCCESS) {
                printf("  [%d] %s: %s\n", i, prob.label, restrict_err.message);
            } else if (space_st == CLPK_SUCCESS) {
                double size = tune_space_size(&space);
                char valid_text[48] = "";
                unsigned long long *valid = NULL;
                size_t nvalid = 0;
                list_valid lv = {ctx, f, &prob};
                /* the constrained space, as the searches list it */
                if (tune_space_list(&space, 1u << 21, accept_listed, &lv, &valid, &nvalid, NULL)) {
                    snprintf(valid_text, sizeof valid_text, ", %zu valid", nvalid);
                    free(valid);
                }
                printf("  [%d] %s  class {%s}  %.0f points%s\n", i, prob.label, klass, size, valid_text);
                for (int p = 0; p < space.count; ++p) {
                    printf("      %-16s", space.params[p].name);
                    for (int v = 0; v < space.params[p].count; ++v)
                        printf(" %s", space.params[p].values[v]);
                    putchar('\n');
                }
            } else {
                printf("  [%d] %s: no space: %s\n", i, prob.label, clpk_last_error(ctx));
            }
            if (f->problem_destroy) f->problem_destroy(&prob);
        }
    }
    if (n == 0) printf("no tuner family is built in\n");
    clpk_context_destroy(ctx);
    return 0;
}

/* A count option: unset stays `fallback`; else within [lo, 1e9]. Returns 0 when out of range. */
static int take_count(long long value, int lo, int *out) {
    if (value == CLI_INT_UNSET) return 1;
    if (value < lo || value > 1000000000) return 0;
    *out = (int)value;
    return 1;
}

int main(int argc, char **argv) {
    tune_config cfg;
    tune_config_defaults(&cfg);
    cfg.candidate_limit_s = 30;
    const char *selector = NULL, *family_names = NULL, *out = NULL, *cache = NULL, *precision = NULL, *strategy = NULL;
    int merging = 0, force = 0, list = 0, prebuild = 0, verbose = 0, vs_exhaustive = 0, restarts = 0, rounds = 5;
    const char *vs_json = NULL, *vs_space = NULL;
    double hang_s = NAN; /* NAN: 4 x the candidate limit */
    long long restart_count = CLI_INT_UNSET, samples = CLI_INT_UNSET, repeats = CLI_INT_UNSET,
              final_repeats = CLI_INT_UNSET, top_k = CLI_INT_UNSET, max_points = CLI_INT_UNSET,
              build_threads = CLI_INT_UNSET, vs_rounds = CLI_INT_UNSET, seed = CLI_INT_UNSET;
    cli_list inputs = {0};
    cfg.opts.data_dir = getenv("CLPK_SHARED_DATA_DIR");
    const cli_option options[] = {
        {"--device", CLI_STRING, &selector, "SEL",
         "index, P:D or name substring (default $CLPK_DEVICE, else first GPU, else CPU)"},
        {"--families", CLI_STRING, &family_names, "LIST", "comma-separated families (default: all built in)"},
        {"--budget", CLI_DOUBLE, &cfg.budget_s, "SECONDS",
         "time budget of the whole run (default: none), shared out over the families\n"
         "by weight, then over their problems; time a family's problems leave continues\n"
         "its searches cut short (from the cache)"},
        {"--family-budget", CLI_DOUBLE, &cfg.family_budget_s, "S",
         "time budget of each family instead, shared out over its problems"},
        {"--candidate-limit", CLI_DOUBLE, &cfg.candidate_limit_s, "S",
         "a candidate taking longer (build included) is a timeout (default 30)"},
        {"--hang-limit", CLI_DOUBLE, &hang_s, "S",
         "a candidate still running after S seconds is taken as hung: the run restarts\n"
         "itself with --resume, skipping it (default 4 x the candidate limit; 0: never)"},
        {"--restart-count", CLI_INT, &restart_count, "N", "(set by that restart: how many came before)"},
        {"--strategy", CLI_STRING, &strategy, "NAME", "hill (default), random or exhaustive"},
        {"--samples", CLI_INT, &samples, "N", "random points (hill: half of them start the climbs; default 24)"},
        {"--repeats", CLI_INT, &repeats, "N", "timed runs per candidate (default 5)"},
        {"--final-repeats", CLI_INT, &final_repeats, "N", "timed runs of the best candidates (default 15)"},
        {"--top-k", CLI_INT, &top_k, "N", "best candidates measured again (default 4)"},
        {"--min-gain", CLI_DOUBLE, &cfg.min_gain, "F",
         "a candidate replaces the defaults only when measured again at least F faster\n"
         "(a fraction; default 0.02; 0: any gain)"},
        {"--max-points", CLI_INT, &max_points, "N", "at most N evaluations per problem"},
        {"--build-threads", CLI_INT, &build_threads, "N",
         "threads compiling a search step's candidates ahead (default: GPUs the host's\n"
         "cores up to 16, CPU devices 1 = no compiling ahead)"},
        {"--problems", CLI_STRING, &cfg.problems, "LIST",
         "tune only these problems of each family (numbers as --list shows them)"},
        {"--space", CLI_STRING, &cfg.space_restrict, "K=V|V,...",
         "search only this sub-space: each parameter named keeps the values listed\n"
         "(parameters a family lacks are ignored)"},
        {"--precision", CLI_STRING, &precision, "P", "f32 or f64 (default: both where the family supports them)"},
        {"--quick", CLI_FLAG, &cfg.opts.quick, NULL, "small problems and a reduced set (CI)"},
        {"--seed", CLI_INT, &seed, "N", "seed of the inputs and of the random strategies (default 1)"},
        {"--data-dir", CLI_STRING, &cfg.opts.data_dir, "DIR", "shared real data (default $CLPK_SHARED_DATA_DIR)"},
        {"--out", CLI_STRING, &out, "FILE", "profile to write (default clpk-profile-<device>.json)"},
        {"--cache", CLI_STRING, &cache, "FILE", "measured points, for --resume (default FILE.cache.jsonl)"},
        {"--resume", CLI_FLAG, &cfg.resume, NULL,
         "continue an interrupted run: points in the cache are not measured again"},
        {"--merge", CLI_FLAG, &merging, NULL, "merge the profiles given as arguments into --out"},
        {"--force", CLI_FLAG, &force, NULL, "--merge: merge profiles of different devices too"},
        {"--list", CLI_FLAG, &list, NULL, "list the families, their problems and search spaces"},
        {"--prebuild", CLI_FLAG, &prebuild, NULL,
         "compile every program the automatic choices may build (spmv: the cost model's variants) into the program "
         "cache ($CLPK_CACHE_DIR), then exit: a tuned device then compiles nothing at plan time"},
        {"--vs-exhaustive", CLI_FLAG, &vs_exhaustive, NULL,
         "then search exhaustively too and report tuned/exhaustive per problem, both\n"
         "winners measured again alternately (head-to-head)"},
        {"--vs-rounds", CLI_INT, &vs_rounds, "N", "head-to-head rounds per winner (default 5; 0: none)"},
        {"--vs-space", CLI_STRING, &vs_space, "K=V|V,...",
         "the exhaustive search covers this sub-space instead (implies --vs-exhaustive)"},
        {"--vs-json", CLI_STRING, &vs_json, "FILE", "also write that comparison as JSON (implies --vs-exhaustive)"},
        {"--verbose", CLI_FLAG, &verbose, NULL, "print every rejected candidate with its reason"},
        {"--no-cross-check", CLI_FLAG, &cfg.no_cross_check, NULL,
         "no validity ranges: entries not measured on other problems"},
        {NULL, 0, NULL, NULL, NULL}};
    int parsed = cli_parse("clpk-tune", synopsis, options, argc, argv, 1, &inputs);
    if (parsed) return parsed == 1 ? 0 : parsed;
    const char *bad = NULL;
    clpk_error spec_err = {0};
    if (!take_count(restart_count, 0, &restarts))
        bad = "--restart-count";
    else if (!take_count(samples, 1, &cfg.samples))
        bad = "--samples";
    else if (!take_count(repeats, 1, &cfg.repeats))
        bad = "--repeats";
    else if (!take_count(final_repeats, 1, &cfg.final_repeats))
        bad = "--final-repeats";
    else if (!take_count(top_k, 0, &cfg.top_k))
        bad = "--top-k";
    else if (!take_count(max_points, 0, &cfg.max_points))
        bad = "--max-points";
    else if (!take_count(build_threads, 1, &cfg.build_threads))
        bad = "--build-threads";
    else if (!take_count(vs_rounds, 0, &rounds))
        bad = "--vs-rounds";
    else if (!(cfg.min_gain >= 0 && cfg.min_gain < 1))
        bad = "--min-gain";
    else if (!(cfg.budget_s >= 0))
        bad = "--budget";
    else if (!(cfg.family_budget_s >= 0))
        bad = "--family-budget";
    else if (!(cfg.candidate_limit_s >= 0))
        bad = "--candidate-limit";
    else if (!isnan(hang_s) && !(hang_s >= 0))
        bad = "--hang-limit";
    else if (strategy && tune_strategy_parse(strategy, &cfg.strategy) != CLPK_SUCCESS)
        bad = "--strategy";
    else if (cfg.space_restrict && tune_space_restrict(NULL, cfg.space_restrict, &spec_err) != CLPK_SUCCESS)
        bad = "--space";
    else if (vs_space && tune_space_restrict(NULL, vs_space, &spec_err) != CLPK_SUCCESS)
        bad = "--vs-space";
    else if (cfg.problems && tune_problems_parse(cfg.problems, &spec_err) != CLPK_SUCCESS)
        bad = "--problems";
    if (!bad && precision) {
        clpk_precision p;
        if (clpk_precision_parse(precision, &p) == CLPK_SUCCESS)
            cfg.opts.precision = clpk_precision_name(p);
        else
            bad = "--precision";
    }
    if (bad) {
        if (spec_err.message[0]) cli_fail("clpk-tune", "%s", spec_err.message);
        cli_fail("clpk-tune", "bad value for %s", bad);
        cli_usage(stderr, "clpk-tune", synopsis, options);
        return 2;
    }
    if (inputs.count && !merging) {
        cli_fail("clpk-tune", "unexpected argument '%s' (profiles to merge follow --merge)", inputs.items[0]);
        cli_usage(stderr, "clpk-tune", synopsis, options);
        return 2;
    }
    if (seed != CLI_INT_UNSET) cfg.opts.seed = (uint64_t)seed;
    if (vs_space || vs_json) vs_exhaustive = 1;
    const char *const *merge = inputs.items;
    const int nmerge = inputs.count;
    if (merging) {
        if (nmerge == 0 || !out) {
            fprintf(stderr, "clpk-tune: --merge needs input profiles and --out\n");
            return 2;
        }
        clpk_error err = {0};
        if (tune_profile_merge(merge, nmerge, out, force, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-tune: merge failed: %s\n", err.message);
            return 1;
        }
        printf("merged %d profile%s into %s\n", nmerge, nmerge == 1 ? "" : "s", out);
        return 0;
    }
    const tune_family *families[MAX_FAMILIES + 1];
    clpk_error err = {0};
    if (tune_select(tune_families, family_names, families, MAX_FAMILIES + 1, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-tune: %s\n", err.message);
        return 2;
    }
    if (list) return list_families(families, selector, &cfg.opts, cfg.space_restrict, cfg.problems);

    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, selector) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-tune: cannot open device '%s' (see clpk-info)\n", selector ? selector : "(default)");
        return 1;
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (prebuild) {
        int spmv = 0;
        for (int f = 0; families[f]; ++f)
            spmv |= strcmp(families[f]->name, "spmv") == 0;
        int threads = cfg.build_threads > 0 ? cfg.build_threads : dev->kind == CLPK_DEVICE_GPU ? 4 : 1;
        double t0 = core_wall_seconds();
        int added = spmv ? tune_spmv_model_prebuild(ctx, threads) : 0;
        printf("prebuilt %d program%s in %.1f s (%s)\n", added, added == 1 ? "" : "s", core_wall_seconds() - t0,
               spmv ? "spmv: the cost model's variants" : "no family with programs to prebuild selected");
        clpk_context_destroy(ctx);
        return 0;
    }
    char default_out[300], default_cache[1100];
    if (!out) {
        char name[200];
        sanitize(dev->name, name, sizeof name);
        snprintf(default_out, sizeof default_out, "clpk-profile-%s.json", name);
        out = default_out;
    }
    if (!cache) {
        snprintf(default_cache, sizeof default_cache, "%s.cache.jsonl", out);
        cache = default_cache;
    }
    cfg.cache_path = cache;
    cfg.stop = &interrupted;
    tune_progress progress;
    tune_progress_init(&progress, stderr, verbose);
    watchdog dog = {.progress = &progress, .argc = argc, .argv = argv, .restarts = restarts};
    atomic_init(&dog.started_ns, 0);
    dog.hang_s = hang_s >= 0 ? hang_s : 4 * cfg.candidate_limit_s;
    cfg.on_event = watch_event;
    cfg.event_user = &dog;
    pthread_t watcher;
    if (dog.hang_s > 0 && pthread_create(&watcher, NULL, watch, &dog) == 0) pthread_detach(watcher);
    if (restarts) printf("restart %d after a hung candidate\n", restarts);
    signal(SIGINT, on_sigint);
    printf("device: %s / %s (driver %s)\nstrategy: %s%s, cache %s\n", dev->platform_name, dev->name,
           dev->driver_version, tune_strategy_name(cfg.strategy), cfg.resume ? ", resuming" : "", cache);
    fflush(stdout);

    tune_report report;
    int rc = 0;
    if (tune_run(ctx, families, &cfg, &report) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-tune: %s\n", clpk_last_error(ctx));
        clpk_context_destroy(ctx);
        return 1;
    }
    print_table(&report);
    if (tune_profile_write(out, dev, &report, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-tune: %s\n", err.message);
        rc = 1;
    } else {
        printf("\nprofile written: %s (%.1f s%s)\n", out, report.elapsed_s,
               report.budget_exhausted ? ", budget exhausted: some searches were cut short" : "");
    }
    if (report.stopped) {
        printf("interrupted: run again with --resume to continue from %s\n", cache);
        rc = rc ? rc : 130;
    }
    if (vs_exhaustive && !report.stopped) {
        tune_config full = cfg;
        full.strategy = CLPK_TUNE_EXHAUSTIVE;
        full.min_gain = 0; /* the comparison is against the space's true best */
        full.resume = 1;   /* the points the first search measured are not measured again */
        if (vs_space) full.space_restrict = vs_space;
        full.on_event = watch_event; /* the watchdog keeps watching; its progress lines go to stderr */
        tune_report exhaustive;
        if (tune_run(ctx, families, &full, &exhaustive) == CLPK_SUCCESS) {
            vs_options vo = {families, &cfg, rounds, vs_json, cfg.space_restrict, full.space_restrict};
            if (print_vs_exhaustive(ctx, &report, &exhaustive, &vo) != 0 && rc == 0) rc = 1;
            tune_report_free(&exhaustive);
        } else {
            fprintf(stderr, "clpk-tune: exhaustive search: %s\n", clpk_last_error(ctx));
            rc = rc ? rc : 1;
        }
    }
    tune_report_free(&report);
    clpk_context_destroy(ctx);
    return rc;
}
