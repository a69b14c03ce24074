/* clpk-bench-xcorr: the cross-correlation benchmark grid (docs/perf-xcorr.md). For every case (pattern, size,
 * counts) it times clpk's automatic choice, every direct variant and the FFT path with profiling events (median of
 * repeats), checks each variant's result on sampled output matrices against a double-precision host computation of
 * sampled elements (a benchmark that times wrong answers is worthless), and writes one JSON line per
 * (case, implementation). Variants whose estimated or measured single call exceeds --max-ms are recorded as
 * skipped.
 *
 * Input data recipe (shared exactly with bench/peers/cufft_xcorr.py --recipe splitmix): element i (flat C-order
 * index in its stack) of stream s (0 = left stack, 1 = right stack) is
 *     z = splitmix64(seed * 2^41 + (s + 1) * 2^40 + i),   value = (z >> 40) / 2^23 - 1   in [-1, 1),
 * exact in f32 and f64 (24 significant bits), so both programs correlate bit-identical inputs. */
#include "clpk.h"
#include "cli_args.h"
#include "cli_bench_launch.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tool = "clpk-bench-xcorr";

#define MAX_LIST 32

static const char *const all_variants[] = {"auto",    "naive",       "shift-buffer", "split-row",
                                           "grouped", "multi-right", "multi-both",   "warp-per-overlap",
                                           "local",   "fft",         "fused-fft"};
#define N_VARIANTS (sizeof all_variants / sizeof all_variants[0])

/* Throughputs (FLOP/s of useful multiply-adds) below which no direct variant runs on the H100, from the
 * measurements of docs/xcorr.md rounded up: used only to skip calls that would surely exceed --max-ms. */
static double optimistic_rate(const char *variant) {
    if (strcmp(variant, "warp-per-overlap") == 0) return 1e12;
    if (strcmp(variant, "local") == 0) return 70e12; /* not measured yet: the FMA peak, so nothing is skipped early */
    if (strcmp(variant, "naive") == 0 || strcmp(variant, "shift-buffer") == 0 || strcmp(variant, "split-row") == 0)
        return 5e12;
    return 25e12;
}

typedef struct options {
    const char *patterns[MAX_LIST], *variants[MAX_LIST];
    int n_patterns, n_variants, sizes[MAX_LIST], n_sizes;
    double scale, max_ms, warmup_ms, stream_ms;
    int repeats, warmup, list_only;
    unsigned long seed;
    clpk_precision precision;
    const char *json, *cases_out, *device, *dump_dir;
} options;

typedef struct bench_case {
    clpk_xcorr_shape shape;
    char label[64], group[16];
} bench_case;

/* A variant is an algorithm name, optionally with parameters: "local:rows=4/shifts=8" (':' then k=v separated by
 * '/', since ',' separates variants). Splits it into the algorithm and a plan parameter string ("" for none). */
static void variant_parts(const char *variant, char *algo, size_t algo_size, char *params, size_t params_size) {
    const char *colon = strchr(variant, ':');
    const size_t n = colon ? (size_t)(colon - variant) : strlen(variant);
    snprintf(algo, algo_size, "%.*s", (int)n, variant);
    snprintf(params, params_size, "%s", colon ? colon + 1 : "");
    for (char *c = params; *c; ++c)
        if (*c == '/') *c = ',';
}

static int split_list(char *text, const char **items, int max) {
    int n = 0;
    for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ","))
        if (n < max) items[n++] = tok;
    return n;
}

/* Parses the command line into *o; returns 0 to go on, else the exit status (0 after --help, 2 on a usage error). */
static int parse_args(int argc, char **argv, options *o) {
    static const int size_default[] = {16, 24, 32, 48, 64, 96, 128, 192, 256};
    memset(o, 0, sizeof *o);
    o->scale = 1, o->max_ms = 1000, o->warmup_ms = 25, o->stream_ms = 0.5;
    const char *patterns = "one-to-one,one-to-many,n-to-m,n-to-mn,dic";
    const char *variants =
        "auto,naive,shift-buffer,split-row,grouped,multi-right,multi-both,warp-per-overlap,local,fft,fused-fft";
    const char *sizes = NULL, *precision = "f32";
    long long repeats = 50, warmup = 3, seed = 1;
    const cli_option table[] = {
        {"--patterns", CLI_STRING, &patterns, "LIST",
         "one-to-one,one-to-many,n-to-m,n-to-mn,dic (default all); dic is n-to-mn 86x4300 of 96x96,\n"
         "sizes ignored"},
        {"--sizes", CLI_STRING, &sizes, "16,24,...", "square matrix sizes (default 16 24 32 48 64 96 128 192 256)"},
        {"--variants", CLI_STRING, &variants, "LIST",
         "auto,naive,shift-buffer,split-row,grouped,multi-right,multi-both,warp-per-overlap,local,\n"
         "fft,fused-fft (default all); a variant may carry plan parameters: local:rows=4/shifts=8/wg=256\n"
         "(':' then key=value separated by '/')"},
        {"--scale", CLI_DOUBLE, &o->scale, "F",
         "multiplies the counts, 0 < F <= 1 (at least 1 matrix; n-to-mn keeps its multiple)"},
        {"--precision", CLI_STRING, &precision, "f32|f64", "(default f32)"},
        {"--seed", CLI_INT, &seed, "N", "of the splitmix64 input recipe (default 1, printed)"},
        {"--repeats", CLI_INT, &repeats, "N", "timed calls, median (default 50)"},
        {"--warmup", CLI_INT, &warmup, "N", "untimed calls first (default 3)"},
        {"--warmup-ms", CLI_DOUBLE, &o->warmup_ms, "MS",
         "and untimed calls until MS of wall time have passed (default 25: clocks after a build)"},
        {"--stream-ms", CLI_DOUBLE, &o->stream_ms, "MS",
         "a timed sample is as many calls back to back as take about MS (1-64 calls; default 0.5),\n"
         "timed from the first call's start to the last one's end, as the cuFFT peer is; 0: one call"},
        {"--max-ms", CLI_DOUBLE, &o->max_ms, "MS",
         "variants estimated or measured above it per call are recorded as skipped (default 1000)"},
        {"--json", CLI_STRING, &o->json, "OUT.jsonl", "one JSON line per (case, implementation)"},
        {"--cases-out", CLI_STRING, &o->cases_out, "CASES.txt",
         "writes 'PATTERN:R:NL:NR LABEL' lines for bench/peers/cufft_xcorr.py"},
        {"--list", CLI_FLAG, &o->list_only, NULL, "prints the cases and exits"},
        {"--device", CLI_STRING, &o->device, "SELECTOR", "device selector (default $CLPK_DEVICE or the first GPU)"},
        {"--dump-inputs", CLI_STRING, &o->dump_dir, "DIR",
         "writes case<i>_left.npy / case<i>_right.npy (stacks up to 2^22 elements) to check a\n"
         "peer's copy of the recipe"},
        {NULL, CLI_FLAG, NULL, NULL, NULL}};
    const char *synopsis =
        "[options]\n"
        "The cross-correlation grid of docs/perf-xcorr.md: one-to-one x4000, one-to-many 1x{2,8,32,4000},\n"
        "n-to-m {2x2,8x8,32x32,128x128}, n-to-mn {2x8,4x16,8x32,100x4000}, dic; every variant checked\n"
        "on sampled outputs and timed with profiling events.";
    int parsed = cli_parse(tool, synopsis, table, argc, argv, 1, NULL);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (clpk_precision_parse(precision, &o->precision) != CLPK_SUCCESS)
        return cli_fail(tool, "--precision %s: f32 or f64", precision);
    if (!(o->scale >= 1e-6 && o->scale <= 1)) return cli_fail(tool, "bad argument --scale %g (1e-6 .. 1)", o->scale);
    if (!(o->max_ms >= 1e-9 && o->max_ms <= 1e9)) return cli_fail(tool, "bad argument --max-ms %g", o->max_ms);
    if (repeats < 1 || repeats > 100000) return cli_fail(tool, "bad argument --repeats %lld (1 .. 100000)", repeats);
    if (warmup < 0 || warmup > 1000) return cli_fail(tool, "bad argument --warmup %lld (0 .. 1000)", warmup);
    if (!(o->stream_ms >= 0 && o->stream_ms <= 1000))
        return cli_fail(tool, "bad argument --stream-ms %g (0 .. 1000)", o->stream_ms);
    if (!(o->warmup_ms >= 0 && o->warmup_ms <= 60000))
        return cli_fail(tool, "bad argument --warmup-ms %g (0 .. 60000)", o->warmup_ms);
    if (seed < 0 || seed > 1 << 20) return cli_fail(tool, "bad argument --seed %lld (0 .. 2^20)", seed);
    o->repeats = (int)repeats, o->warmup = (int)warmup, o->seed = (unsigned long)seed;
    /* the lists are cut in place: copies, so that argv stays as it was */
    static char pattern_text[1024], variant_text[4096], size_text[1024];
    snprintf(pattern_text, sizeof pattern_text, "%s", patterns);
    snprintf(variant_text, sizeof variant_text, "%s", variants);
    o->n_patterns = split_list(pattern_text, o->patterns, MAX_LIST);
    o->n_variants = split_list(variant_text, o->variants, MAX_LIST);
    for (int i = 0; i < o->n_variants; ++i) {
        int known = 0;
        char algo[64], params[256];
        variant_parts(o->variants[i], algo, sizeof algo, params, sizeof params);
        for (size_t k = 0; k < N_VARIANTS; ++k)
            known |= strcmp(algo, all_variants[k]) == 0;
        if (!known) return cli_fail(tool, "unknown variant '%s'", o->variants[i]);
    }
    if (sizes) {
        const char *items[MAX_LIST];
        snprintf(size_text, sizeof size_text, "%s", sizes);
        o->n_sizes = split_list(size_text, items, MAX_LIST);
        for (int i = 0; i < o->n_sizes; ++i) {
            char *end = NULL;
            const long v = strtol(items[i], &end, 10);
            if (end == items[i] || *end || v < 1 || v > 4096) return cli_fail(tool, "bad size %s", items[i]);
            o->sizes[i] = (int)v;
        }
    } else {
        o->n_sizes = (int)(sizeof size_default / sizeof size_default[0]);
        memcpy(o->sizes, size_default, sizeof size_default);
    }
    if (!o->n_patterns || !o->n_variants || !o->n_sizes) return cli_fail(tool, "empty list");
    return -1;
}

static int scaled(int n, double scale) {
    const long v = lround(n * scale);
    return v < 1 ? 1 : (int)v;
}

static int add_case(bench_case *cases, int n, int max, const char *group, clpk_xcorr_pattern pattern, int size, int nl,
                    int nr, clpk_precision precision) {
    if (n >= max) return n;
    for (int i = 0; i < n; ++i) /* scaled-down counts can repeat a case */
        if (strcmp(cases[i].group, group) == 0 && cases[i].shape.rows == size && cases[i].shape.n_left == nl &&
            cases[i].shape.n_right == nr)
            return n;
    bench_case *c = &cases[n];
    memset(c, 0, sizeof *c);
    c->shape.pattern = pattern;
    c->shape.rows = c->shape.cols = size;
    c->shape.n_left = nl, c->shape.n_right = nr;
    c->shape.precision = precision;
    snprintf(c->group, sizeof c->group, "%s", group);
    snprintf(c->label, sizeof c->label, "%s %dx%d %d", group, nl, nr, size);
    return n + 1;
}

/* The grid of the issue, counts scaled by --scale. */
static int build_cases(const options *o, bench_case *cases, int max) {
    static const int otm[] = {2, 8, 32, 4000}, ntm[] = {2, 8, 32, 128}, ntmn_l[] = {2, 4, 8, 100},
                     ntmn_r[] = {8, 16, 32, 4000};
    int n = 0;
    for (int p = 0; p < o->n_patterns; ++p) {
        const char *g = o->patterns[p];
        if (strcmp(g, "dic") == 0) {
            const int nl = scaled(86, o->scale);
            n = add_case(cases, n, max, "dic", CLPK_XCORR_N_TO_MN, 96, nl, nl * 50, o->precision);
            continue;
        }
        clpk_xcorr_pattern pattern;
        if (clpk_xcorr_pattern_parse(g, &pattern) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-bench-xcorr: unknown pattern '%s'\n", g);
            return -1;
        }
        for (int s = 0; s < o->n_sizes; ++s) {
            const int size = o->sizes[s];
            const char *name = clpk_xcorr_pattern_name(pattern);
            for (int k = 0; k < 4; ++k) {
                if (pattern == CLPK_XCORR_ONE_TO_ONE) {
                    n = add_case(cases, n, max, name, pattern, size, scaled(4000, o->scale), scaled(4000, o->scale),
                                 o->precision);
                    break;
                }
                if (pattern == CLPK_XCORR_ONE_TO_MANY)
                    n = add_case(cases, n, max, name, pattern, size, 1, scaled(otm[k], o->scale), o->precision);
                else if (pattern == CLPK_XCORR_N_TO_M)
                    n = add_case(cases, n, max, name, pattern, size, scaled(ntm[k], o->scale), scaled(ntm[k], o->scale),
                                 o->precision);
                else {
                    const int nl = scaled(ntmn_l[k], o->scale);
                    n = add_case(cases, n, max, name, pattern, size, nl, nl * (ntmn_r[k] / ntmn_l[k]), o->precision);
                }
            }
        }
    }
    return n;
}

/* ---- data ----------------------------------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double recipe_value(unsigned long seed, int stream, size_t i) {
    const uint64_t key = ((uint64_t)seed << 41) + ((uint64_t)(stream + 1) << 40) + (uint64_t)i;
    return (double)(splitmix64(key) >> 40) / 8388608.0 - 1.0;
}

/* Fills a stack in the plan's precision (float or double). */
static void fill_stack(void *data, size_t n, int f64, unsigned long seed, int stream) {
    for (size_t i = 0; i < n; ++i) {
        const double v = recipe_value(seed, stream, i);
        if (f64)
            ((double *)data)[i] = v;
        else
            ((float *)data)[i] = (float)v;
    }
}

static double at(const void *data, size_t i, int f64) {
    return f64 ? ((const double *)data)[i] : (double)((const float *)data)[i];
}

/* Multiply-adds of the full output: every shift's overlap area (R^2 C^2 per pair). */
static double count_macs(const clpk_xcorr_shape *s) {
    return (double)s->rows * s->rows * (double)s->cols * s->cols * (double)clpk_xcorr_output_count(s);
}

/* ---- one variant ---------------------------------------------------------------------------------------------- */

typedef struct case_data {
    clpk_context *ctx; /* NULL once the device's context is lost: the case's records say so */
    const char *device;
    const bench_case *bc;
    void *hl, *hr;
    cl_mem left, right, out;
    int f64;
    size_t elem, out_elems; /* elements of one output matrix */
} case_data;

/* The left and right matrices output matrix `o` correlates, by the patterns' definitions (clpk_xcorr.h). */
static void pair_of(const clpk_xcorr_shape *s, size_t o, size_t *left, size_t *right) {
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_MANY: *left = 0, *right = o; break;
    case CLPK_XCORR_N_TO_MN: *left = o % (size_t)s->n_left, *right = o; break;
    case CLPK_XCORR_N_TO_M: *left = o / (size_t)s->n_right, *right = o % (size_t)s->n_right; break;
    default: *left = o, *right = o; break; /* one-to-one */
    }
}

/* Fills the whole output with NaN (clpk_bench_fill: NVIDIA's own fill faults past 2^31 bytes, which the n-to-m
 * 128x128 256^2 output of 17.1 GB reaches); returns 0 with *why set on a failure. */
static int poison(case_data *d, char *why, size_t wsize) {
    const double nan_d = NAN;
    const float nan_f = NAN;
    const void *pattern = d->f64 ? (const void *)&nan_d : (const void *)&nan_f;
    const size_t bytes = d->out_elems * clpk_xcorr_output_count(&d->bc->shape) * d->elem;
    if (clpk_bench_fill(d->ctx, d->out, pattern, d->elem, 0, bytes) != CLPK_SUCCESS)
        return snprintf(why, wsize, "poisoning the output (%zu bytes): %s", bytes, clpk_last_error(d->ctx)), 0;
    return 1;
}

/* One poisoned, timed call; then sampled output matrices (first, middle, last) are read back: every element must
 * be finite and sampled elements (centre, corners, pseudo-random) must match a double host sum. Returns 1 if
 * correct; *rel receives the error relative to the largest sampled reference value. */
static int checked_call(case_data *d, clpk_xcorr_plan *plan, double *once_ms, double *rel, char *why, size_t wsize) {
    const clpk_xcorr_shape *s = &d->bc->shape;
    cl_command_queue q = clpk_context_queue(d->ctx);
    if (!poison(d, why, wsize)) return 0;
    cl_event first = NULL, last = NULL;
    clpk_status st = clpk_xcorr_execute_events(plan, d->left, 0, d->right, 0, d->out, 0, &first, &last);
    if (st != CLPK_SUCCESS) return snprintf(why, wsize, "execute: %s", clpk_last_error(d->ctx)), 0;
    cl_int rc = clWaitForEvents(1, &last);
    if (rc == CL_SUCCESS && clpk_event_span_ms(first, last, once_ms) != CLPK_SUCCESS)
        rc = CL_INVALID_EVENT; /* no profiling times: the command did not complete */
    if (first != last) clReleaseEvent(first);
    clReleaseEvent(last);
    if (rc != CL_SUCCESS) return snprintf(why, wsize, "the execution failed (clWaitForEvents / profiling: %d)", rc), 0;
    const size_t n_out = clpk_xcorr_output_count(s);
    const int R = s->rows, C = s->cols, OC = 2 * C - 1;
    double *got = malloc(d->out_elems * sizeof *got);
    void *raw = malloc(d->out_elems * d->elem);
    if (!got || !raw) {
        free(got), free(raw);
        return snprintf(why, wsize, "out of host memory for the check"), 0;
    }
    const size_t picks[3] = {0, n_out / 2, n_out - 1};
    double max_err = 0, max_ref = 0;
    int ok = 1;
    for (int p = 0; p < 3 && ok; ++p) {
        const size_t o = picks[p];
        if (p > 0 && o == picks[p - 1]) continue;
        rc = clEnqueueReadBuffer(q, d->out, CL_TRUE, o * d->out_elems * d->elem, d->out_elems * d->elem, raw, 0, NULL,
                                 NULL);
        if (rc != CL_SUCCESS) {
            ok = 0, snprintf(why, wsize, "clEnqueueReadBuffer: %d", rc);
            break;
        }
        for (size_t e = 0; e < d->out_elems; ++e) {
            got[e] = at(raw, e, d->f64);
            if (!isfinite(got[e])) {
                ok = 0, snprintf(why, wsize, "output %zu element %zu is not finite (unwritten?)", o, e);
                break;
            }
        }
        size_t li = 0, ri = 0;
        pair_of(s, o, &li, &ri);
        uint64_t state = o * 7919u + 17u;
        for (int k = 0; k < 32 && ok; ++k) {
            int dk, dl; /* shift of left against right */
            if (k == 0)
                dk = 0, dl = 0;
            else if (k <= 4)
                dk = (k & 1) ? R - 1 : 1 - R, dl = (k & 2) ? C - 1 : 1 - C;
            else {
                state = splitmix64(state);
                dk = (int)(state % (uint64_t)(2 * R - 1)) - (R - 1);
                dl = (int)((state >> 32) % (uint64_t)OC) - (C - 1);
            }
            double ref = 0;
            for (int i = dk < 0 ? -dk : 0; i < R && i + dk < R; ++i) {
                double row = 0;
                for (int j = dl < 0 ? -dl : 0; j < C && j + dl < C; ++j)
                    row += at(d->hl, li * R * C + (size_t)(i + dk) * C + (size_t)(j + dl), d->f64) *
                           at(d->hr, ri * R * C + (size_t)i * C + (size_t)j, d->f64);
                ref += row;
            }
            const double g = got[(size_t)(dk + R - 1) * OC + (size_t)(dl + C - 1)];
            max_err = fmax(max_err, fabs(g - ref));
            max_ref = fmax(max_ref, fabs(ref));
        }
    }
    free(got), free(raw);
    *rel = max_ref > 0 ? max_err / max_ref : max_err;
    const double tol = d->f64 ? 1e-10 : 5e-5;
    if (ok && !(*rel <= tol)) ok = 0, snprintf(why, wsize, "relative error %.3g above %.0e", *rel, tol);
    return ok;
}

static void json_escape(const char *in, char *out, size_t size) {
    size_t k = 0;
    for (; *in && k + 3 < size; ++in) {
        if (*in == '"' || *in == '\\') out[k++] = '\\';
        out[k++] = (unsigned char)*in < 32 ? ' ' : *in;
    }
    out[k] = 0;
}

/* The fields every record of a case shares. */
static void case_fields(const case_data *d, const char *impl, const char *variant, char *buf, size_t size) {
    const clpk_xcorr_shape *s = &d->bc->shape;
    snprintf(buf, size,
             "\"family\":\"xcorr\",\"case\":\"%s\",\"group\":\"%s\",\"pattern\":\"%s\",\"rows\":%d,\"cols\":%d,"
             "\"n_left\":%d,\"n_right\":%d,\"counts\":\"%dx%d\",\"n_out\":%zu,\"precision\":\"%s\",\"impl\":\"%s\","
             "\"variant\":\"%s\","
             "\"device\":\"%s\"",
             d->bc->label, d->bc->group, clpk_xcorr_pattern_name(s->pattern), s->rows, s->cols, s->n_left, s->n_right,
             s->n_left, s->n_right, clpk_xcorr_output_count(s), clpk_precision_name(s->precision), impl, variant,
             d->device);
}

static void emit(FILE *json, const char *record) {
    printf("%s\n", record);
    if (json) fprintf(json, "%s\n", record), fflush(json);
}

static void record_status(FILE *json, const case_data *d, const char *variant, const char *status, const char *msg,
                          double once_ms) {
    char impl[48], fields[768], esc[512], rec[1536];
    snprintf(impl, sizeof impl, "clpk-%s", variant);
    case_fields(d, impl, variant, fields, sizeof fields);
    json_escape(msg, esc, sizeof esc);
    if (once_ms > 0)
        snprintf(rec, sizeof rec, "{%s,\"status\":\"%s\",\"reason\":\"%s\",\"once_ms\":%.6g}", fields, status, esc,
                 once_ms);
    else
        snprintf(rec, sizeof rec, "{%s,\"status\":\"%s\",\"reason\":\"%s\"}", fields, status, esc);
    emit(json, rec);
}

static int applicable(const clpk_xcorr_shape *s, const char *name) {
    char variant[64], params[256];
    variant_parts(name, variant, sizeof variant, params, sizeof params);
    if (strcmp(variant, "multi-right") == 0) return s->pattern != CLPK_XCORR_ONE_TO_ONE;
    if (strcmp(variant, "multi-both") == 0) return s->pattern == CLPK_XCORR_N_TO_M && s->n_left > 1;
    return 1;
}

/* What run_variant recorded: a wrong answer (the exit status reports it), a timing or skip, or a failure to plan or
 * run (after which the case checks that the context still works). */
enum { VARIANT_WRONG = 0, VARIANT_DONE = 1, VARIANT_FAILED = 2 };

static int run_variant(case_data *d, const options *o, const char *variant, FILE *json, double bw_gbps) {
    const clpk_xcorr_shape *s = &d->bc->shape;
    char algo[64], params[256];
    variant_parts(variant, algo, sizeof algo, params, sizeof params);
    const int is_direct = strcmp(algo, "fft") != 0 && strcmp(algo, "fused-fft") != 0 && strcmp(algo, "auto") != 0;
    const double macs = count_macs(s);
    if (is_direct) {
        const double est_ms = 2 * macs / optimistic_rate(algo) * 1e3;
        if (est_ms > o->max_ms) {
            char msg[128];
            snprintf(msg, sizeof msg, "estimated >= %.0f ms per call (limit %.0f)", est_ms, o->max_ms);
            record_status(json, d, variant, "skipped", msg, 0);
            return VARIANT_DONE;
        }
    }
    clpk_xcorr_plan *plan = NULL;
    if (clpk_xcorr_plan_create(d->ctx, s, algo, params[0] ? params : NULL, &plan) != CLPK_SUCCESS) {
        record_status(json, d, variant, "unsupported", clpk_last_error(d->ctx), 0);
        return VARIANT_FAILED;
    }
    char used[256], chosen[320], why[256] = "";
    clpk_xcorr_plan_params(plan, used, sizeof used);
    snprintf(chosen, sizeof chosen, "%s {%s}", clpk_xcorr_plan_algorithm(plan), used);
    double once_ms = 0, rel = 0;
    int ok = checked_call(d, plan, &once_ms, &rel, why, sizeof why);
    /* The first launch can include the driver's lazy compilation (PoCL specialises kernels per launch size): a
     * slow first call is timed once more before the variant is declared too slow. */
    if (ok && once_ms > o->max_ms) ok = checked_call(d, plan, &once_ms, &rel, why, sizeof why);
    if (!ok) {
        record_status(json, d, variant, "wrong", why, once_ms);
        clpk_xcorr_plan_destroy(plan);
        return VARIANT_WRONG;
    }
    if (once_ms > o->max_ms) {
        char msg[128];
        snprintf(msg, sizeof msg, "one call took %.0f ms (limit %.0f)", once_ms, o->max_ms);
        record_status(json, d, variant, "skipped", msg, once_ms);
        clpk_xcorr_plan_destroy(plan);
        return VARIANT_DONE;
    }
    /* >= 50 runs (by default) unless a run is long: then about a second of runs, at least 5. */
    int repeats = o->repeats;
    int warmup = o->warmup;
    if (once_ms > 20 && repeats > 5) repeats = (int)fmax(5, fmin(repeats, 1000 / once_ms));
    if (once_ms > 20 && warmup > 1) warmup = 1; /* the checked call has warmed it up already */
    const size_t n_out = clpk_xcorr_output_count(s);
    const double bytes =
        (double)d->elem * ((double)(s->n_left + s->n_right) * s->rows * s->cols + (double)n_out * (double)d->out_elems);
    cli_xcorr_launch job = {plan, d->left, d->right, d->out};
    clpk_bench_stats stats;
    clpk_status st = cli_warm_up_for(d->ctx, cli_xcorr_launch_events, &job, o->warmup_ms, 100000);
    const int calls = o->stream_ms > 0 && once_ms > 0 ? (int)fmin(64, fmax(1, ceil(o->stream_ms / once_ms))) : 1;
    if (st == CLPK_SUCCESS)
        st = clpk_bench_run_stream(d->ctx, cli_xcorr_launch_events, &job, warmup, repeats, calls, bytes, 2 * macs,
                                   &stats);
    if (st != CLPK_SUCCESS) {
        record_status(json, d, variant, "error", clpk_last_error(d->ctx), once_ms);
        clpk_xcorr_plan_destroy(plan);
        return VARIANT_FAILED;
    }
    char impl[48], fields[768], esc[384], rec[2048];
    snprintf(impl, sizeof impl, "clpk-%s", variant);
    case_fields(d, impl, variant, fields, sizeof fields);
    json_escape(chosen, esc, sizeof esc);
    const double outputs = (double)n_out * (double)d->out_elems;
    snprintf(rec, sizeof rec,
             "{%s,\"status\":\"ok\",\"chosen\":\"%s\",\"algorithm\":\"%s\",\"runs\":%d,\"median_ms\":%.6g,"
             "\"min_ms\":%.6g,\"p10_ms\":%.6g,\"p90_ms\":%.6g,\"outputs_per_s\":%.6g,\"matrices_per_s\":%.6g,"
             "\"direct_gflops\":%.6g,\"gbps\":%.6g,\"copy_gbps\":%.6g,\"frac_of_copy_bw\":%.4g,\"rel_error\":%.3g,"
             "\"calls_per_sample\":%d,\"seed\":%lu}",
             fields, esc, clpk_xcorr_plan_algorithm(plan), stats.runs, stats.median_ms, stats.min_ms, stats.p10_ms,
             stats.p90_ms, outputs / (stats.median_ms * 1e-3), (double)n_out / (stats.median_ms * 1e-3), stats.gflops,
             stats.gbps, bw_gbps, bw_gbps > 0 ? stats.gbps / bw_gbps : 0, rel, calls, o->seed);
    emit(json, rec);
    clpk_xcorr_plan_destroy(plan);
    return VARIANT_DONE;
}

/* Writes a case's stacks as .npy (small stacks only) so that a peer's implementation of the recipe can be checked. */
static void dump_inputs(const char *dir, int index, const case_data *d, size_t nl, size_t nr) {
    const clpk_xcorr_shape *s = &d->bc->shape;
    if (nl > (1u << 22) || nr > (1u << 22)) return;
    char path[1024];
    clpk_error err = {0};
    for (int side = 0; side < 2; ++side) {
        const int64_t shape[3] = {side ? s->n_right : s->n_left, s->rows, s->cols};
        snprintf(path, sizeof path, "%s/case%d_%s.npy", dir, index, side ? "right" : "left");
        if (clpk_npy_write_raw(path, d->f64 ? CLPK_DTYPE_F64 : CLPK_DTYPE_F32, 3, shape, side ? d->hr : d->hl, &err) !=
            CLPK_SUCCESS)
            fprintf(stderr, "clpk-bench-xcorr: %s\n", err.message);
    }
}

/* Records every applicable variant of a case from `from` on with `status` and `reason`. */
static void record_rest(FILE *json, const case_data *d, const options *o, int from, const char *status,
                        const char *reason) {
    for (int v = from; v < o->n_variants; ++v)
        if (applicable(&d->bc->shape, o->variants[v])) record_status(json, d, o->variants[v], status, reason, 0);
}

/* Whether the context still runs commands: after a kernel fault NVIDIA's fails every later launch and build. */
static int context_works(clpk_context *ctx) {
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc = clFinish(q);
    cl_mem probe = NULL;
    if (rc == CL_SUCCESS) probe = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, 64, NULL, &rc);
    const cl_uint five = 5;
    cl_uint back = 0;
    if (rc == CL_SUCCESS) rc = clEnqueueFillBuffer(q, probe, &five, sizeof five, 0, 64, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clEnqueueReadBuffer(q, probe, CL_TRUE, 60, sizeof back, &back, 0, NULL, NULL);
    if (probe) clReleaseMemObject(probe);
    return rc == CL_SUCCESS && back == five;
}

/* Uploads a case's data and runs every requested variant; every variant gets a record, also when the case cannot be
 * set up (ctx NULL: no working context left). Returns the number of wrong variants, -1 on failure to set the case up
 * or run it; *lost is set when the context stopped working during the case (the caller makes a new one). */
static int run_case(clpk_context *ctx, const char *device, const options *o, int case_index, const bench_case *bc,
                    FILE *json, double bw_gbps, int *lost) {
    const clpk_xcorr_shape *s = &bc->shape;
    case_data d = {ctx, device, bc, NULL, NULL, NULL, NULL, NULL, s->precision == CLPK_PRECISION_F64, 0, 0};
    d.elem = clpk_precision_size(s->precision);
    d.out_elems = (size_t)clpk_xcorr_output_rows(s) * (size_t)clpk_xcorr_output_cols(s);
    *lost = 0;
    if (!ctx) {
        record_rest(json, &d, o, 0, "error", "not run: no working OpenCL context (lost in an earlier case)");
        return -1;
    }
    const size_t nl = (size_t)s->n_left * s->rows * s->cols, nr = (size_t)s->n_right * s->rows * s->cols;
    const size_t no = clpk_xcorr_output_count(s) * d.out_elems;
    const clpk_device_info *info = clpk_context_device_info(ctx);
    int wrong = 0;
    if (no * d.elem > info->max_alloc_bytes || (nl + nr + no) * d.elem > info->global_mem_bytes * 0.7) {
        record_rest(json, &d, o, 0, "skipped", "buffers exceed the device's memory limits");
        return 0;
    }
    d.hl = malloc(nl * d.elem), d.hr = malloc(nr * d.elem);
    cl_int rc = CL_SUCCESS;
    if (d.hl && d.hr) {
        fill_stack(d.hl, nl, d.f64, o->seed, 0);
        fill_stack(d.hr, nr, d.f64, o->seed, 1);
        if (o->dump_dir) dump_inputs(o->dump_dir, case_index, &d, nl, nr);
        cl_context c = clpk_context_cl_context(ctx);
        d.left = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nl * d.elem, d.hl, &rc);
        if (rc == CL_SUCCESS)
            d.right = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nr * d.elem, d.hr, &rc);
        if (rc == CL_SUCCESS) d.out = clCreateBuffer(c, CL_MEM_READ_WRITE, no * d.elem, NULL, &rc);
    }
    if (!d.hl || !d.hr || rc != CL_SUCCESS) {
        char msg[160];
        snprintf(msg, sizeof msg, "cannot allocate the case's buffers (host memory or clCreateBuffer %d)", rc);
        fprintf(stderr, "clpk-bench-xcorr: %s: %s\n", bc->label, msg);
        record_rest(json, &d, o, 0, "error", msg);
        wrong = -1;
    }
    for (int v = 0; v < o->n_variants && wrong >= 0; ++v) {
        if (!applicable(s, o->variants[v])) continue;
        const int r = run_variant(&d, o, o->variants[v], json, bw_gbps);
        if (r == VARIANT_WRONG) ++wrong;
        if (r != VARIANT_DONE && !context_works(ctx)) {
            char msg[192];
            snprintf(msg, sizeof msg, "not run: the OpenCL context stopped working after variant %s", o->variants[v]);
            fprintf(stderr, "clpk-bench-xcorr: %s: %s\n", bc->label, msg);
            record_rest(json, &d, o, v + 1, "error", msg);
            *lost = 1;
            wrong = -1;
        }
    }
    if (d.left) clReleaseMemObject(d.left);
    if (d.right) clReleaseMemObject(d.right);
    if (d.out) clReleaseMemObject(d.out);
    free(d.hl), free(d.hr);
    return wrong;
}

int main(int argc, char **argv) {
    options o;
    const int parsed = parse_args(argc, argv, &o);
    if (parsed >= 0) return parsed;
    enum { MAX_CASES = 512 };
    bench_case *cases = calloc(MAX_CASES, sizeof *cases);
    if (!cases) return 1;
    const int n_cases = build_cases(&o, cases, MAX_CASES);
    if (n_cases < 0) {
        free(cases);
        return 2;
    }
    if (o.cases_out) {
        FILE *f = fopen(o.cases_out, "w");
        if (!f) {
            fprintf(stderr, "clpk-bench-xcorr: cannot write %s\n", o.cases_out);
            free(cases);
            return 1;
        }
        for (int i = 0; i < n_cases; ++i) {
            const clpk_xcorr_shape *s = &cases[i].shape;
            fprintf(f, "%s:%d:%d:%d %s\n", clpk_xcorr_pattern_name(s->pattern), s->rows, s->n_left, s->n_right,
                    cases[i].label);
        }
        fclose(f);
    }
    printf("clpk-bench-xcorr: %d cases, seed %lu (splitmix64 recipe), %s\n", n_cases, o.seed,
           clpk_precision_name(o.precision));
    if (o.list_only) {
        for (int i = 0; i < n_cases; ++i)
            printf("case: %s\n", cases[i].label);
        free(cases);
        return 0;
    }
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, o.device) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-xcorr: no OpenCL device%s%s\n", o.device ? " matching " : "",
                o.device ? o.device : "");
        free(cases);
        return 1;
    }
    const clpk_device_info *info = clpk_context_device_info(ctx);
    if (o.precision == CLPK_PRECISION_F64 && !info->has_fp64) {
        fprintf(stderr, "clpk-bench-xcorr: %s has no fp64\n", info->name);
        clpk_context_destroy(ctx);
        free(cases);
        return 1;
    }
    FILE *json = o.json ? fopen(o.json, "w") : NULL;
    if (o.json && !json) {
        fprintf(stderr, "clpk-bench-xcorr: cannot write %s\n", o.json);
        clpk_context_destroy(ctx);
        free(cases);
        return 1;
    }
    /* Copy bandwidth of this device in the same run: the yardstick of the gbps fields. */
    clpk_bench_stats bw;
    size_t bw_bytes = info->kind == CLPK_DEVICE_CPU ? (size_t)16 << 20 : (size_t)512 << 20;
    double bw_gbps = 0;
    if (clpk_bench_copy_bandwidth(ctx, bw_bytes, &bw) == CLPK_SUCCESS) {
        bw_gbps = bw.gbps;
        char rec[512];
        snprintf(rec, sizeof rec,
                 "{\"family\":\"xcorr\",\"case\":\"copy\",\"impl\":\"copy-bandwidth\",\"precision\":\"%s\","
                 "\"median_ms\":%.6g,\"gbps\":%.6g,\"device\":\"%s\",\"status\":\"ok\"}",
                 clpk_precision_name(o.precision), bw.median_ms, bw.gbps, info->name);
        emit(json, rec);
    }
    printf("device: %s, copy bandwidth %.1f GB/s\n", info->name, bw_gbps);
    char device[256];
    snprintf(device, sizeof device, "%s", info->name);
    int wrong = 0, failed = 0;
    for (int i = 0; i < n_cases; ++i) {
        printf("case %d/%d: %s\n", i + 1, n_cases, cases[i].label);
        fflush(stdout);
        int lost = 0;
        const int w = run_case(ctx, device, &o, i, &cases[i], json, bw_gbps, &lost);
        if (w < 0)
            ++failed;
        else
            wrong += w;
        if (lost) {
            /* a failed case must not fail the ones after it: a fresh context (the old one's programs are gone) */
            clpk_context_destroy(ctx);
            ctx = NULL;
            const clpk_status st = clpk_context_create(&ctx, o.device);
            fprintf(stderr, "clpk-bench-xcorr: the OpenCL context stopped working in case %s: %s\n", cases[i].label,
                    st == CLPK_SUCCESS ? "continuing on a new one" : "no new one, the remaining cases are not run");
            if (st != CLPK_SUCCESS) ctx = NULL;
        }
    }
    if (json) fclose(json);
    printf("clpk-bench-xcorr: %d cases, %d wrong results, %d cases not set up or not run to the end\n", n_cases, wrong,
           failed);
    clpk_context_destroy(ctx);
    free(cases);
    return wrong || failed ? 1 : 0;
}
