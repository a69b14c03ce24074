/* The progress display of clpk-tune (plain lines when not on a terminal, a redrawn bar with ETA on one) and the event
 * sequence the engine emits (every evaluation announced before it runs, so the watchdog can time it). */
#include "check.h"
#include "tune_fakes.h"

#include <stdlib.h>
#include <unistd.h>

FAKE_FAMILY(plain, 0);
FAKE_FAMILY(wrong, FAKE_WRONG_B1);
FAKE_FAMILY(sleepy, FAKE_SLEEP);

static char *read_all(FILE *f) {
    fflush(f);
    long size = ftell(f);
    char *text = calloc((size_t)size + 1, 1);
    rewind(f);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size) text[0] = '\0';
    return text;
}

static int count_of(const char *text, const char *what) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) ++n;
    return n;
}

typedef struct sequence {
    tune_progress *progress;
    int starts, candidates, open, bad_order, problems_done, finish;
} sequence;

static void record(void *user, const tune_event *ev) {
    sequence *s = user;
    if (ev->kind == CLPK_TUNE_EVENT_CANDIDATE_START) {
        s->bad_order += s->open;
        s->open = 1;
        s->starts++;
    } else if (ev->kind == CLPK_TUNE_EVENT_CANDIDATE) {
        s->bad_order += !s->open;
        s->open = 0;
        s->candidates++;
    } else if (ev->kind == CLPK_TUNE_EVENT_PROBLEM_DONE) {
        s->problems_done++;
    } else if (ev->kind == CLPK_TUNE_EVENT_FINISH) {
        s->finish++;
    }
    if (s->progress) tune_progress_event(s->progress, ev);
}

/* Spends the run's budget inside an event (a slow problem, as far as the engine can tell): at the end of the first
 * round (the third problem done), or when the second round's first problem starts (after its creation). */
typedef struct budget_eater {
    tune_progress *progress;
    tune_event_kind kind;
    int seen, at;
} budget_eater;

static void eat_budget(void *user, const tune_event *ev) {
    budget_eater *b = user;
    if (ev->kind == b->kind && ++b->seen == b->at) fake_sleep(ev->budget_s - ev->elapsed_s + 0.02);
    tune_progress_event(b->progress, ev);
}

/* A second round with no time left keeps the first round's results and says so, instead of "no candidate passed". */
static void test_second_round_out_of_time(clpk_context *ctx) {
    const tune_family *fams[] = {&fake_family_sleepy, NULL};
    tune_config cfg;
    fake_config(&cfg, CLPK_TUNE_EXHAUSTIVE);
    char cache[] = "/tmp/clpk-test-progress-rounds-XXXXXX";
    int fd = mkstemp(cache);
    if (fd >= 0) close(fd);
    cfg.cache_path = cache;
    cfg.budget_s = 0.6; /* 3 problems x 126 points x 3 ms need > 1.1 s: every first search is cut short */
    cfg.first_round_share = 0.5;
    cfg.on_event = eat_budget;
    for (int when = 0; when < 2; ++when) {
        FILE *f = tmpfile();
        tune_progress progress;
        tune_progress_init(&progress, f, 0);
        budget_eater eater = {&progress, when == 0 ? CLPK_TUNE_EVENT_PROBLEM_DONE : CLPK_TUNE_EVENT_PROBLEM_START, 0,
                              when == 0 ? 3 : 4};
        cfg.event_user = &eater;
        tune_report r;
        CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS && r.count == FAKE_PROBLEMS, "run %d", when);
        int found = 0;
        for (int i = 0; i < r.count; ++i) found += r.items[i].found && r.items[i].rounds == 1;
        CHECK(found == FAKE_PROBLEMS, "run %d: the first round's results kept: %d", when, found);
        char *text = read_all(f);
        const char *skipped = "second round skipped: budget spent; first round's result kept\n";
        const char *empty = "second round: budget spent before a point was measured; first round's result kept\n";
        CHECK(count_of(text, "best ") == 2 * FAKE_PROBLEMS && count_of(text, "not tuned") == 0 &&
                  strstr(text, "no candidate passed") == NULL,
              "run %d: every line of both rounds shows a result: %s", when, text);
        CHECK(count_of(text, skipped) == (when == 0 ? 3 : 2) && count_of(text, empty) == (when == 0 ? 0 : 1),
              "run %d: why the second round kept the first round's results: %s", when, text);
        CHECK(strstr(text, "[6/6 ") != NULL, "run %d: the second round's lines count on to the end", when);
        free(text);
        fclose(f);
        tune_report_free(&r);
    }
    remove(cache);
}

int main(void) {
    check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no OpenCL device")) return check_summary();
    tune_config cfg;
    fake_config(&cfg, CLPK_TUNE_HILL);
    const tune_family *fams[] = {&fake_family_plain, &fake_family_wrong, NULL};

    /* Plain lines: a header, one line per problem with its result, nothing redrawn. */
    FILE *f = tmpfile();
    tune_progress progress;
    tune_progress_init(&progress, f, 1);
    CHECK(!progress.tty, "a file is not a terminal");
    sequence seq = {&progress, 0, 0, 0, 0, 0, 0};
    cfg.on_event = record;
    cfg.event_user = &seq;
    cfg.budget_s = 100;
    tune_report r;
    CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS, "run");
    char *text = read_all(f);
    CHECK(strstr(text, "clpk-tune: 6 problems to tune within 100 s") != NULL, "header: %.80s", text);
    CHECK(count_of(text, "] fake_plain fake problem ") == 3 && count_of(text, "] fake_wrong fake problem ") == 3,
          "one line per problem");
    CHECK(strstr(text, "[1/6 ") && strstr(text, "[6/6 ") && strstr(text, "ETA"), "position and ETA on each line");
    CHECK(strstr(text, "best 1 ms (x5.00 vs defaults)") != NULL, "result and speed-up: %.300s", text);
    CHECK(strstr(text, "rejected (wrong): fake: max relative error") != NULL, "verbose: rejected candidates shown");
    CHECK(strchr(text, '\r') == NULL && strstr(text, "\033[K") == NULL, "no redrawing off a terminal");
    free(text);
    fclose(f);
    CHECK(seq.bad_order == 0 && seq.starts == seq.candidates && seq.starts > 0,
          "each evaluation announced before it runs: %d starts, %d results, %d out of order", seq.starts,
          seq.candidates, seq.bad_order);
    CHECK(seq.problems_done == 6 && seq.finish == 1, "problem and finish events");
    tune_report_free(&r);

    /* On a terminal: a bar redrawn in place with the percentage and ETA, closed by a newline per problem. */
    f = tmpfile();
    tune_progress_init(&progress, f, 0);
    progress.tty = 1;
    seq = (sequence){&progress, 0, 0, 0, 0, 0, 0};
    CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS, "run on a terminal");
    text = read_all(f);
    CHECK(strstr(text, "\r[") && strstr(text, "%") && strstr(text, "ETA") && strstr(text, "\033[K"),
          "a redrawn bar with the percentage and ETA");
    CHECK(strstr(text, "fake problem 2: best") != NULL, "results still printed");
    free(text);
    fclose(f);
    tune_report_free(&r);

    /* Cached points are not evaluations: no start event for them. */
    char cache[] = "/tmp/clpk-test-progress-XXXXXX";
    int fd = mkstemp(cache);
    if (fd >= 0) close(fd);
    cfg.cache_path = cache;
    seq = (sequence){NULL, 0, 0, 0, 0, 0, 0};
    tune_run(ctx, fams, &cfg, &r);
    int first = seq.starts;
    tune_report_free(&r);
    cfg.resume = 1;
    seq = (sequence){NULL, 0, 0, 0, 0, 0, 0};
    tune_run(ctx, fams, &cfg, &r);
    CHECK(first > 0 && seq.starts == 0 && seq.candidates == 0, "a resumed run evaluates nothing again: %d", seq.starts);
    tune_report_free(&r);
    remove(cache);
    test_second_round_out_of_time(ctx);
    clpk_context_destroy(ctx);
    return check_summary();
}
