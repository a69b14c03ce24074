/* Progress of a tuning run: on a terminal one bar redrawn in place with the ETA, elsewhere (CI logs, pipes) one plain
 * line per problem so logs stay readable. */
#include "tune_run.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#define BAR_WIDTH 28
#define REDRAW_S 0.1

void tune_progress_init(tune_progress *p, FILE *out, int verbose) {
    memset(p, 0, sizeof *p);
    p->out = out;
    p->tty = out && isatty(fileno(out));
    p->verbose = verbose;
    p->last_draw = -1;
}

double tune_eta(double elapsed_s, double fraction_done, double budget_s) {
    double eta = -1;
    if (fraction_done > 0.01 && fraction_done <= 1) eta = elapsed_s * (1 - fraction_done) / fraction_done;
    if (budget_s > 0) {
        double left = budget_s - elapsed_s;
        if (left < 0) left = 0;
        if (eta < 0 || eta > left) eta = left;
    }
    return eta;
}

static void format_seconds(double s, char *buf, size_t size) {
    if (s < 0) snprintf(buf, size, "?");
    else if (s < 60) snprintf(buf, size, "%.0fs", s);
    else if (s < 3600) snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(buf, size, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

static double fraction_of(const tune_event *ev) {
    if (ev->total_problems <= 0) return 1;
    double within = 0;
    if (ev->kind == CLPK_TUNE_EVENT_CANDIDATE && ev->planned > 0) {
        within = (double)ev->evaluated / ev->planned;
        if (within > 0.95) within = 0.95; /* the estimate of `planned` is rough: never claim done early */
    }
    if (ev->kind == CLPK_TUNE_EVENT_PROBLEM_DONE) within = 1;
    return (ev->problem_index + within) / ev->total_problems;
}

static void draw_bar(tune_progress *p, const tune_event *ev) {
    double fraction = fraction_of(ev);
    int filled = (int)(fraction * BAR_WIDTH + 0.5);
    char bar[BAR_WIDTH + 1];
    for (int i = 0; i < BAR_WIDTH; ++i) bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    char elapsed[16], eta[16], best[24] = "";
    format_seconds(ev->elapsed_s, elapsed, sizeof elapsed);
    format_seconds(tune_eta(ev->elapsed_s, fraction, ev->budget_s), eta, sizeof eta);
    if (ev->best_ms >= 0) snprintf(best, sizeof best, " best %.4g ms", ev->best_ms);
    /* \033[K clears what a longer previous line left behind. */
    fprintf(p->out, "\r[%s] %3.0f%% %s ETA %s  %s %d/%d %.32s #%d%s\033[K", bar, 100 * fraction, elapsed, eta,
            ev->family ? ev->family : "", ev->problem_index + 1, ev->total_problems, ev->label ? ev->label : "",
            ev->evaluated, best);
    fflush(p->out);
    p->drawn = 1;
}

static void end_bar(tune_progress *p) {
    if (p->drawn) fputc('\n', p->out);
    p->drawn = 0;
}

void tune_progress_event(void *user, const tune_event *ev) {
    tune_progress *p = user;
    if (!p || !p->out) return;
    switch (ev->kind) {
    case CLPK_TUNE_EVENT_START:
        p->total_problems = ev->total_problems;
        fprintf(p->out, "clpk-tune: %d problem%s to tune", ev->total_problems, ev->total_problems == 1 ? "" : "s");
        if (ev->budget_s > 0) fprintf(p->out, " within %.0f s", ev->budget_s);
        fputc('\n', p->out);
        break;
    case CLPK_TUNE_EVENT_PROBLEM_START:
        if (p->tty) draw_bar(p, ev);
        break;
    case CLPK_TUNE_EVENT_CANDIDATE:
        if (p->verbose && ev->outcome != CLPK_TUNE_OK) {
            end_bar(p);
            fprintf(p->out, "  %s %s: candidate %d rejected (%s): %.300s\n", ev->family, ev->label, ev->evaluated,
                    tune_outcome_name(ev->outcome), ev->message ? ev->message : "");
        }
        if (p->tty && ev->elapsed_s - p->last_draw >= REDRAW_S) {
            p->last_draw = ev->elapsed_s;
            draw_bar(p, ev);
        }
        break;
    case CLPK_TUNE_EVENT_PROBLEM_DONE: {
        const tune_result *r = ev->result;
        end_bar(p);
        char elapsed[16], eta[16];
        format_seconds(ev->elapsed_s, elapsed, sizeof elapsed);
        format_seconds(tune_eta(ev->elapsed_s, fraction_of(ev), ev->budget_s), eta, sizeof eta);
        fprintf(p->out, "[%d/%d %s, ETA %s] %s %s: ", ev->problem_index + 1, ev->total_problems, elapsed, eta,
                ev->family, ev->label);
        if (r && r->found) {
            fprintf(p->out, "best %.4g ms", r->best_ms);
            if (r->default_ok && r->best_ms > 0) fprintf(p->out, " (x%.2f vs defaults)", r->default_ms / r->best_ms);
            fprintf(p->out, ", %d points%s", r->evaluated, r->complete ? "" : " (search cut short)");
            fprintf(p->out, "%s%s\n", ev->message ? "; " : "", ev->message ? ev->message : "");
        } else {
            /* A search the budget ended before anything passed is not one where every candidate failed. */
            const char *why = ev->message                   ? ev->message
                              : r && r->note[0]             ? r->note
                              : r && r->budget_cut          ? "budget spent before a candidate passed"
                                                            : "no candidate passed";
            fprintf(p->out, "not tuned: %s\n", why);
        }
        break;
    }
    case CLPK_TUNE_EVENT_FINISH: end_bar(p); break;
    case CLPK_TUNE_EVENT_CANDIDATE_START: break;
    }
    fflush(p->out);
}
