/* The runtime: device selection (index, P:D, implementation and type names, substrings, $CLPK_DEVICE, bad
 * selectors), device facts, adopting a
 * user's queue, the program cache (memory hit, disk hit in a new context, damaged entries rejected and rebuilt,
 * CLPK_CACHE_DIR=off), build failures with the compiler's log, and clpk_bench_run's statistics on saxpy. */
#include "check.h"
#include "clpk_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];
static uint64_t rng;

/* Creates a context with stderr captured into `log`. */
static clpk_status create_capturing(clpk_context **ctx, const char *selector, char *log, size_t size) {
    char path[512];
    snprintf(path, sizeof path, "%s/stderr.log", tmpdir);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 2);
    clpk_status st = clpk_context_create(ctx, selector);
    fflush(stderr);
    if (fd >= 0) close(fd);
    dup2(saved, 2);
    close(saved);
    char *text = NULL;
    log[0] = '\0';
    if (core_read_file(path, &text, NULL, NULL) == CLPK_SUCCESS) snprintf(log, size, "%s", text);
    free(text);
    remove(path);
    return st;
}

static clpk_device_info fake_device(const char *platform, const char *platform_vendor, const char *name,
                                    const char *vendor, clpk_device_kind kind) {
    clpk_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.platform_name, sizeof d.platform_name, "%s", platform);
    snprintf(d.platform_vendor, sizeof d.platform_vendor, "%s", platform_vendor);
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.vendor, sizeof d.vendor, "%s", vendor);
    d.kind = kind;
    return d;
}

/* What real implementations report (PoCL on an Intel and an AMD host, Intel's CPU runtime and GPU driver, NVIDIA,
 * ROCm, oclgrind), and which selectors must and must not pick each. */
static void test_selector_terms(void) {
    struct {
        clpk_device_info d;
        const char *yes, *no;
    } cases[] = {
        {fake_device("Portable Computing Language", "The pocl project",
                     "pthread-skylake-avx512-Intel(R) Xeon(R) Processor", "GenuineIntel", CLPK_DEVICE_CPU),
         "pocl|POCL|cpu|pocl,cpu|skylake|xeon|pocl, xeon|genuineintel|portable",
         "intel|gpu|pocl,gpu|nvidia|amd|oclgrind"},
        {fake_device("Portable Computing Language", "The pocl project", "cpu-x86-64-AMD EPYC", "AuthenticAMD",
                     CLPK_DEVICE_CPU),
         "pocl|cpu|epyc", "amd|intel|gpu"},
        {fake_device("Intel(R) OpenCL", "Intel(R) Corporation", "Intel(R) Xeon(R) Platinum 8480+",
                     "Intel(R) Corporation", CLPK_DEVICE_CPU),
         "intel|Intel|intel,cpu|cpu|xeon", "pocl|gpu|intel,gpu|amd"},
        {fake_device("Intel(R) OpenCL Graphics", "Intel(R) Corporation", "Intel(R) Arc(TM) A770 Graphics",
                     "Intel(R) Corporation", CLPK_DEVICE_GPU),
         "intel|gpu|intel,gpu|arc", "cpu|intel,cpu|nvidia"},
        {fake_device("NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H100 80GB HBM3", "NVIDIA Corporation",
                     CLPK_DEVICE_GPU),
         "nvidia|gpu|h100|nvidia,gpu", "pocl|cpu|amd|intel"},
        {fake_device("AMD Accelerated Parallel Processing", "Advanced Micro Devices, Inc.", "gfx90a:sramecc+:xnack-",
                     "Advanced Micro Devices, Inc.", CLPK_DEVICE_GPU),
         "amd|gpu|gfx90a", "nvidia|cpu|pocl"},
        {fake_device("Oclgrind", "University of Bristol", "Oclgrind Simulator", "University of Bristol",
                     CLPK_DEVICE_OTHER),
         "oclgrind|accelerator|simulator", "pocl|cpu|gpu|intel"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        for (int want = 1; want >= 0; --want) {
            char list[256];
            snprintf(list, sizeof list, "%s", want ? cases[i].yes : cases[i].no);
            for (char *save = NULL, *sel = strtok_r(list, "|", &save); sel; sel = strtok_r(NULL, "|", &save))
                CHECK(clpk_device_matches(&cases[i].d, sel) == want, "'%s' %s '%s / %s'", sel,
                      want ? "must pick" : "must not pick", cases[i].d.platform_name, cases[i].d.name);
        }
    }
    CHECK(!clpk_device_matches(&cases[0].d, "") && !clpk_device_matches(&cases[0].d, ",") &&
              !clpk_device_matches(&cases[0].d, "pocl,") && !clpk_device_matches(NULL, "pocl"),
          "empty terms pick nothing");
}

static void test_selection(void) {
    clpk_device_info infos[64];
    size_t n = 0;
    clpk_error err = {0};
    if (!CHECK(clpk_list_devices(infos, 64, &n, &err) == CLPK_SUCCESS && n >= 1, "devices listed: %s", err.message))
        return;
    unsetenv("CLPK_DEVICE");
    clpk_context *ctx = NULL;
    CHECK(clpk_context_create(&ctx, "0") == CLPK_SUCCESS && !strcmp(clpk_context_device_info(ctx)->name, infos[0].name),
          "index 0 is the first listed device");
    clpk_context_destroy(ctx);
    CHECK(clpk_context_create(&ctx, "0:0") == CLPK_SUCCESS, "platform:device index");
    clpk_context_destroy(ctx);
    /* A substring of the name, in another case. */
    char part[8];
    snprintf(part, sizeof part, "%.6s", infos[0].name);
    for (char *p = part; *p; ++p)
        *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    ctx = NULL;
    CHECK(clpk_context_create(&ctx, part) == CLPK_SUCCESS &&
              strncasecmp(clpk_context_device_info(ctx)->name, part, strlen(part)) == 0,
          "case-insensitive name substring '%s'", part);
    clpk_context_destroy(ctx);
    /* Every listed device answers to its implementation and type, and that selector opens one of them. */
    for (size_t i = 0; i < n && i < 64; ++i) {
        const char *kind = infos[i].kind == CLPK_DEVICE_CPU   ? "cpu"
                           : infos[i].kind == CLPK_DEVICE_GPU ? "gpu"
                                                              : "accelerator";
        char sel[64];
        snprintf(sel, sizeof sel, "%s,%s", infos[i].implementation, kind);
        CHECK(strcmp(infos[i].implementation, "other") == 0 || clpk_device_matches(&infos[i], sel),
              "device %zu answers to '%s'", i, sel);
        if (!strcmp(infos[i].implementation, "other")) continue;
        ctx = NULL;
        CHECK(clpk_context_create(&ctx, sel) == CLPK_SUCCESS &&
                  !strcmp(clpk_context_device_info(ctx)->implementation, infos[i].implementation) &&
                  clpk_context_device_info(ctx)->kind == infos[i].kind,
              "selector '%s' opens a device of that implementation and type", sel);
        clpk_context_destroy(ctx);
    }
    /* $CLPK_DEVICE when no selector is given. */
    setenv("CLPK_DEVICE", "0", 1);
    ctx = NULL;
    CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS &&
              !strcmp(clpk_context_device_info(ctx)->name, infos[0].name),
          "CLPK_DEVICE=0");
    clpk_context_destroy(ctx);
    char log[4096];
    setenv("CLPK_DEVICE", "no-such-device-anywhere", 1);
    ctx = (clpk_context *)1;
    CHECK(create_capturing(&ctx, "", log, sizeof log) == CLPK_ERROR_DEVICE_NOT_FOUND && ctx == NULL &&
              strstr(log, "no-such-device-anywhere"),
          "a bad CLPK_DEVICE is reported: %s", log);
    unsetenv("CLPK_DEVICE");
    const char *bad[] = {"99", "0:99", "7:0", "no-such-device-anywhere", "0:0:0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        ctx = (clpk_context *)1;
        clpk_status st = create_capturing(&ctx, bad[i], log, sizeof log);
        CHECK(st == CLPK_ERROR_DEVICE_NOT_FOUND && ctx == NULL && strstr(log, bad[i]) && strstr(log, "clpk-info"),
              "selector '%s': %s, message: %s", bad[i], clpk_status_string(st), log);
    }
    CHECK(clpk_context_create(NULL, "0") == CLPK_ERROR_INVALID_ARGUMENT, "NULL output refused");
}

static void test_facts(clpk_context *ctx) {
    const clpk_device_info *d = clpk_context_device_info(ctx);
    CHECK(d->name[0] && d->vendor[0] && d->driver_version[0] && d->platform_name[0], "names present");
    CHECK(d->name[strlen(d->name) - 1] != ' ', "names trimmed");
    CHECK(!strncmp(d->opencl_c_version, "OpenCL C ", 9), "OpenCL C version: %s", d->opencl_c_version);
    CHECK(d->kind == CLPK_DEVICE_CPU || d->kind == CLPK_DEVICE_GPU || d->kind == CLPK_DEVICE_OTHER, "kind");
    CHECK(d->compute_units >= 1 && d->max_work_group_size >= 1 && d->local_mem_bytes >= 16384,
          "compute units %u, max work-group %zu, local memory %llu", d->compute_units, d->max_work_group_size,
          (unsigned long long)d->local_mem_bytes);
    CHECK(d->global_mem_bytes >= d->max_alloc_bytes && d->max_alloc_bytes >= (1u << 20) &&
              d->max_constant_bytes >= 1024,
          "memory sizes");
    CHECK(d->simd_width_hint >= 1 && d->has_int32_global_atomics, "SIMD hint and atomics");
    CHECK(d->is_pocl == (strstr(d->platform_name, "Portable Computing Language") != NULL ||
                         !strncasecmp(d->platform_name, "pocl", 4)),
          "is_pocl agrees with the platform");
    CHECK(d->implementation[0] && d->platform_vendor[0] && clpk_device_matches(d, d->implementation),
          "implementation '%s' named, platform vendor '%s'", d->implementation, d->platform_vendor);
    CHECK(clpk_context_queue(ctx) && clpk_context_cl_context(ctx) && clpk_context_device(ctx), "handles");
    CHECK(!strcmp(core_device_kind_string(CLPK_DEVICE_GPU), "GPU") &&
              !strcmp(core_device_kind_string(d->kind), d->kind == CLPK_DEVICE_CPU   ? "CPU"
                                                        : d->kind == CLPK_DEVICE_GPU ? "GPU"
                                                                                     : "OTHER"),
          "kind strings");
}

/* saxpy through clpk_bench_run: y += a*x launched warmup + repeats times. */
typedef struct saxpy {
    clpk_context *ctx;
    cl_kernel kernel;
    size_t global, local;
} saxpy;

static clpk_status launch_saxpy(void *user, cl_event *first, cl_event *last) {
    saxpy *s = user;
    CLPK_CL_TRY(s->ctx, clEnqueueNDRangeKernel(clpk_context_queue(s->ctx), s->kernel, 1, NULL, &s->global, &s->local, 0,
                                               NULL, first));
    *last = *first; /* one event, one reference: clpk_bench releases it once */
    return CLPK_SUCCESS;
}

/* Runs saxpy warmup + repeats * calls times (through the bench helper when stats is non-NULL: clpk_bench_run, or
 * clpk_bench_run_stream for calls > 1) and checks the result; returns the max relative error against the double
 * reference y0 + launches*a*x. */
static double run_saxpy(clpk_context *ctx, cl_program program, int warmup, int repeats, int calls,
                        clpk_bench_stats *stats) {
    enum { N = 10007 };
    static float x[N], y[N];
    static double ref[N], got[N];
    float a = (float)(0.5 + check_rand_double(&rng));
    for (int i = 0; i < N; ++i) {
        x[i] = (float)(2 * check_rand_double(&rng) - 1);
        y[i] = (float)(2 * check_rand_double(&rng) - 1);
        ref[i] = y[i];
    }
    saxpy s = {ctx, NULL, (N + 63) / 64 * 64, 64};
    if (core_kernel_create(ctx, program, "clpk_saxpy", &s.kernel) != CLPK_SUCCESS) return INFINITY;
    cl_int rc;
    cl_mem bx = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &rc);
    cl_mem by =
        clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y, y, &rc);
    cl_uint n = N;
    clSetKernelArg(s.kernel, 0, sizeof n, &n);
    clSetKernelArg(s.kernel, 1, sizeof a, &a);
    clSetKernelArg(s.kernel, 2, sizeof bx, &bx);
    clSetKernelArg(s.kernel, 3, sizeof by, &by);
    int launches = warmup + repeats * calls;
    clpk_status st = CLPK_SUCCESS;
    if (stats && calls > 1) {
        st = clpk_bench_run_stream(ctx, launch_saxpy, &s, warmup, repeats, calls, 12.0 * N, 2.0 * N, stats);
    } else if (stats) {
        st = clpk_bench_run(ctx, launch_saxpy, &s, warmup, repeats, 12.0 * N, 2.0 * N, stats);
    } else {
        for (int i = 0; i < launches && st == CLPK_SUCCESS; ++i) {
            cl_event e1 = NULL, e2 = NULL;
            st = launch_saxpy(&s, &e1, &e2);
            if (st == CLPK_SUCCESS) {
                clReleaseEvent(e1);
                if (e2 != e1) clReleaseEvent(e2);
            }
        }
    }
    clEnqueueReadBuffer(clpk_context_queue(ctx), by, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
    for (int i = 0; i < N; ++i) {
        for (int k = 0; k < launches; ++k)
            ref[i] += (double)a * x[i];
        got[i] = y[i];
    }
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseKernel(s.kernel);
    return st == CLPK_SUCCESS ? check_rel_error(ref, got, N) : INFINITY;
}

/* The one .clbin file of the cache directory. */
static int cache_file(char *path, size_t size) {
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 6 && !strcmp(e->d_name + len - 6, ".clbin")) {
            snprintf(path, size, "%s/%s", tmpdir, e->d_name);
            ++n;
        }
    }
    if (d) closedir(d);
    return n;
}

typedef enum damage { TRUNCATE, FLIP_BINARY, CHANGE_KEY, GARBAGE } damage;

static void damage_file(const char *path, damage how) {
    char *data = NULL;
    size_t size = 0;
    if (core_read_file(path, &data, &size, NULL) != CLPK_SUCCESS) return;
    if (how == TRUNCATE) size = size * 2 / 3;
    if (how == FLIP_BINARY) data[size - 5] ^= 0x5a;
    if (how == CHANGE_KEY) {
        char *at = strstr(data + 12, "device=");
        if (at) at[7] ^= 0x01;
    }
    if (how == GARBAGE) memset(data, 'x', size < 64 ? size : 64);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
    }
    free(data);
}

static void test_program_cache(void) {
    setenv("CLPK_CACHE_DIR", tmpdir, 1);
    char options[64];
    snprintf(options, sizeof options, "-DCLPK_TEST_UNIQUE=%llu", (unsigned long long)(check_rand(&rng) >> 1));
    const char *names[] = {"util_copy"};
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "context")) return;
    CHECK(!strcmp(clpk_context_cache_dir(ctx), tmpdir), "cache dir from CLPK_CACHE_DIR");
    cl_program p1 = NULL, p2 = NULL;
    CHECK(core_program_get(ctx, names, 1, options, &p1) == CLPK_SUCCESS, "build: %s", clpk_last_error(ctx));
    CHECK(core_program_get(ctx, names, 1, options, &p2) == CLPK_SUCCESS && p1 == p2, "same program again");
    clpk_cache_stats cs;
    clpk_context_cache_stats(ctx, &cs);
    CHECK(cs.builds == 1 && cs.memory_hits == 1 && cs.disk_hits == 0, "build then memory hit: %u %u %u", cs.builds,
          cs.memory_hits, cs.disk_hits);
    CHECK(run_saxpy(ctx, p1, 0, 1, 1, NULL) <= 1e-6, "the built program runs");
    clpk_context_destroy(ctx);
    char path[600];
    CHECK(cache_file(path, sizeof path) == 1, "one cache entry on disk");

    /* A new context finds the binary on disk, and it runs. */
    ctx = NULL;
    clpk_context_create(&ctx, NULL);
    CHECK(core_program_get(ctx, names, 1, options, &p1) == CLPK_SUCCESS, "disk fetch");
    clpk_context_cache_stats(ctx, &cs);
    CHECK(cs.disk_hits == 1 && cs.builds == 0 && cs.disk_rejected == 0, "disk hit: %u %u %u", cs.disk_hits, cs.builds,
          cs.disk_rejected);
    CHECK(run_saxpy(ctx, p1, 0, 2, 1, NULL) <= 1e-6, "the cached binary runs");
    clpk_context_destroy(ctx);

    /* Damaged entries are rejected and rebuilt, and the rebuilt entry is good again. */
    const damage kinds[] = {TRUNCATE, FLIP_BINARY, CHANGE_KEY, GARBAGE};
    const char *what[] = {"truncated", "flipped binary byte", "changed key", "garbage header"};
    for (int k = 0; k < 4; ++k) {
        damage_file(path, kinds[k]);
        ctx = NULL;
        clpk_context_create(&ctx, NULL);
        CHECK(core_program_get(ctx, names, 1, options, &p1) == CLPK_SUCCESS, "%s: rebuilt", what[k]);
        clpk_context_cache_stats(ctx, &cs);
        CHECK(cs.disk_rejected >= 1 && cs.builds == 1 && cs.disk_hits == 0, "%s: rejected %u, builds %u, hits %u",
              what[k], cs.disk_rejected, cs.builds, cs.disk_hits);
        CHECK(run_saxpy(ctx, p1, 0, 1, 1, NULL) <= 1e-6, "%s: the rebuilt program runs", what[k]);
        clpk_context_destroy(ctx);
        ctx = NULL;
        clpk_context_create(&ctx, NULL);
        core_program_get(ctx, names, 1, options, &p1);
        clpk_context_cache_stats(ctx, &cs);
        CHECK(cs.disk_hits == 1 && cs.disk_rejected == 0, "%s: the entry was rewritten", what[k]);
        clpk_context_destroy(ctx);
    }

    /* Compile errors carry the compiler's log; a missing source or kernel name is an error, not a crash. */
    ctx = NULL;
    clpk_context_create(&ctx, NULL);
    cl_program bad = (cl_program)1;
    clpk_status st =
        core_program_get_text(ctx, "__kernel void k(__global float *x) { x[0] = undefined_symbol_q; }", "", &bad);
    CHECK(st == CLPK_ERROR_BUILD && bad == NULL, "syntax error: %s", clpk_status_string(st));
    CHECK(strstr(clpk_last_error(ctx), "build log") && strstr(clpk_last_error(ctx), "undefined_symbol_q"),
          "the log names the problem: %.300s", clpk_last_error(ctx));
    const char *missing[] = {"no_such_source"};
    CHECK(core_program_get(ctx, missing, 1, "", &bad) == CLPK_ERROR_INTERNAL &&
              strstr(clpk_last_error(ctx), "no_such_source"),
          "missing embedded source: %s", clpk_last_error(ctx));
    CHECK(core_program_get(ctx, names, 1, "-DCLPK_BAD_OPTION=", &p1) == CLPK_SUCCESS, "an empty define is fine");
    cl_kernel k = (cl_kernel)1;
    CHECK(core_kernel_create(ctx, p1, "no_such_kernel", &k) != CLPK_SUCCESS && k == NULL &&
              strstr(clpk_last_error(ctx), "no_such_kernel"),
          "unknown kernel name: %s", clpk_last_error(ctx));
    /* A bad kernel argument is reported with the kernel's name and the argument's index; later ones are skipped. */
    cl_program two = NULL;
    cl_kernel two_k = NULL;
    if (CHECK(core_program_get_text(ctx, "__kernel void two_args(__global float *x, int n) { if (n) x[0] = 1; }", "",
                                    &two) == CLPK_SUCCESS &&
                  core_kernel_create(ctx, two, "two_args", &two_k) == CLPK_SUCCESS,
              "two-argument kernel: %s", clpk_last_error(ctx))) {
        core_args a;
        const char wrong = 0;
        const cl_int n = 1;
        core_args_begin(&a, ctx, two_k, 0);
        core_args_set(&a, sizeof wrong, &wrong); /* a 1-byte value for a pointer */
        CLPK_ARG(&a, n);
        clpk_status bad_arg = core_args_end(&a);
        CHECK(bad_arg == CLPK_ERROR_OPENCL && strstr(clpk_last_error(ctx), "two_args, argument 0"),
              "a bad argument is named: %s (%s)", clpk_status_string(bad_arg), clpk_last_error(ctx));
        core_args_begin(&a, ctx, two_k, 1);
        CLPK_ARG(&a, n);
        CHECK(core_args_end(&a) == CLPK_SUCCESS && a.next == 2, "a good argument passes: %s", clpk_last_error(ctx));
    }
    if (two_k) clReleaseKernel(two_k);
    clpk_context_destroy(ctx);

    /* CLPK_CACHE_DIR=off: no disk cache at all. */
    setenv("CLPK_CACHE_DIR", "off", 1);
    int files_before = cache_file(path, sizeof path);
    ctx = NULL;
    clpk_context_create(&ctx, NULL);
    CHECK(clpk_context_cache_dir(ctx)[0] == '\0', "cache dir off");
    char fresh[128];
    snprintf(fresh, sizeof fresh, "%s -DOFF=1", options);
    core_program_get(ctx, names, 1, fresh, &p1);
    core_program_get(ctx, names, 1, options, &p1);
    clpk_context_cache_stats(ctx, &cs);
    CHECK(cs.builds == 2 && cs.disk_hits == 0, "everything built (%u), nothing from disk", cs.builds);
    clpk_context_destroy(ctx);
    CHECK(cache_file(path, sizeof path) == files_before, "nothing written with the cache off");
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        remove(path);
    }
    if (d) closedir(d);
    unsetenv("CLPK_CACHE_DIR");
}

static void test_bench(clpk_context *ctx) {
    double t[] = {5, 1, 3, 2, 4};
    clpk_bench_stats s;
    clpk_bench_summarise(t, 5, 1e6, 2e6, &s);
    CHECK(s.runs == 5 && s.median_ms == 3 && s.min_ms == 1 && s.max_ms == 5 && s.mean_ms == 3, "summary");
    CHECK(fabs(s.p10_ms - 1.4) < 1e-12 && fabs(s.p90_ms - 4.6) < 1e-12, "quantiles %g %g", s.p10_ms, s.p90_ms);
    CHECK(fabs(s.gbps - 1e6 / 3e6) < 1e-12 && fabs(s.gflops - 2e6 / 3e6) < 1e-12, "rates at the median");
    const char *names[] = {"util_copy"};
    cl_program p;
    if (!CHECK(core_program_get(ctx, names, 1, "", &p) == CLPK_SUCCESS, "build")) return;
    clpk_bench_stats st;
    double err = run_saxpy(ctx, p, 2, 7, 1, &st);
    CHECK(err <= 1e-5, "bench ran warmup + repeats = 9 launches exactly: error %g", err);
    CHECK(st.runs == 7 && st.min_ms > 0 && st.min_ms <= st.p10_ms && st.p10_ms <= st.median_ms &&
              st.median_ms <= st.p90_ms && st.p90_ms <= st.max_ms && st.mean_ms >= st.min_ms && st.mean_ms <= st.max_ms,
          "ordered statistics: %g %g %g %g %g", st.min_ms, st.p10_ms, st.median_ms, st.p90_ms, st.max_ms);
    CHECK(fabs(st.gbps - st.bytes / (st.median_ms * 1e6)) < 1e-9 * st.gbps && st.bytes == 12.0 * 10007,
          "GB/s at the median");
    CHECK(clpk_bench_run(ctx, launch_saxpy, NULL, 0, 0, 0, 0, &st) == CLPK_ERROR_INVALID_ARGUMENT, "0 repeats refused");
    CHECK(clpk_bench_run(ctx, NULL, NULL, 0, 3, 0, 0, &st) == CLPK_ERROR_INVALID_ARGUMENT, "no launch refused");
    /* a stream of 3 calls a sample: 2 + 7 * 3 launches, 7 samples of a call's time each */
    err = run_saxpy(ctx, p, 2, 7, 3, &st);
    CHECK(err <= 1e-5, "stream bench ran warmup + repeats * calls = 23 launches exactly: error %g", err);
    CHECK(st.runs == 7 && st.min_ms > 0 && st.min_ms <= st.median_ms && st.median_ms <= st.max_ms,
          "stream statistics: %d runs, %g %g %g", st.runs, st.min_ms, st.median_ms, st.max_ms);
    CHECK(clpk_bench_run_stream(ctx, launch_saxpy, NULL, 0, 3, 0, 0, 0, &st) == CLPK_ERROR_INVALID_ARGUMENT,
          "0 calls a sample refused");
    char *json = clpk_bench_stats_json("saxpy", &st, "{\"n\": 10007}");
    CHECK(json && strstr(json, "\"name\":\"saxpy\"") && strstr(json, "\"n\":10007") && strstr(json, "median_ms"),
          "JSON record: %s", json ? json : "(null)");
    free(json);
}

static void test_adopted_queue(clpk_context *ctx) {
    cl_int rc;
    cl_command_queue q =
        clCreateCommandQueue(clpk_context_cl_context(ctx), clpk_context_device(ctx), CL_QUEUE_PROFILING_ENABLE, &rc);
    if (!CHECK(rc == CL_SUCCESS, "user queue")) return;
    clpk_context *adopted = NULL;
    CHECK(clpk_context_create_from_queue(&adopted, q) == CLPK_SUCCESS && clpk_context_queue(adopted) == q &&
              clpk_context_device(adopted) == clpk_context_device(ctx),
          "adopted the user's queue and device");
    const char *names[] = {"util_copy"};
    cl_program p;
    CHECK(adopted && core_program_get(adopted, names, 1, "", &p) == CLPK_SUCCESS &&
              run_saxpy(adopted, p, 0, 1, 1, NULL) <= 1e-6,
          "runs on the adopted queue");
    clpk_context_destroy(adopted);
    CHECK(clFinish(q) == CL_SUCCESS, "the user's queue survives the context");
    clReleaseCommandQueue(q);
    CHECK(clpk_context_create_from_queue(&adopted, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NULL queue refused");
}

int main(void) {
    rng = check_seed();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clpk-test-runtime-XXXXXX");
    if (!CHECK(mkdtemp(tmpdir) != NULL, "temporary directory")) return check_summary();
    const char *device = getenv("CLPK_DEVICE");
    char saved_device[256] = "";
    if (device) snprintf(saved_device, sizeof saved_device, "%s", device);
    test_selector_terms();
    test_selection();
    if (saved_device[0]) setenv("CLPK_DEVICE", saved_device, 1);
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no OpenCL device")) return check_summary();
    test_facts(ctx);
    test_bench(ctx);
    test_adopted_queue(ctx);
    clpk_context_destroy(ctx);
    test_program_cache();
    rmdir(tmpdir);
    return check_summary();
}
