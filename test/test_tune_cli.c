/* clpk-tune's command line end to end with fake families: this test links the CLI's own source with its own family
 * registry and runs itself as `clpk-tune` in child processes. Checks Ctrl-C (profile written, exit 130, the message
 * to resume) then --resume (nothing measured twice, per the cache), and the watchdog: a candidate that never returns
 * makes the run restart itself with --resume and skip it. */
int tune_main(int argc, char **argv);
#define main tune_main
#include "../tools/clpk_tune.c"
#undef main

#include "check.h"
#include "tune_fakes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

FAKE_FAMILY(sleepy, FAKE_SLEEP);

/* Never returns (as far as the test cares) on two points: a = 16, b = 3. */
static clpk_status hang_evaluate(clpk_context *ctx, tune_problem *problem, const core_params *p, int repeats,
                                 double *ms) {
    if (!strcmp(core_params_get(p, "a"), "16") && !strcmp(core_params_get(p, "b"), "3")) fake_sleep(300);
    return fake_evaluate(ctx, problem, p, repeats, ms);
}
static clpk_status hang_create(clpk_context *ctx, const tune_options *opts, int index,
                               tune_problem *problem) {
    return fake_create_mode(ctx, opts, index, problem, 0);
}
static const tune_family hang_family = {
    .name = "hang",
    .problem_count = fake_count,
    .problem_create = hang_create,
    .problem_destroy = fake_destroy,
    .space = fake_space,
    .valid = fake_valid,
    .evaluate = hang_evaluate,
    .defaults = fake_defaults,
    .prebuild_safe = 0,
};

/* The registry of this executable (it replaces the generated one of clpk_tuner). */
const tune_family *const tune_families[] = {&fake_family_sleepy, &hang_family, NULL};

static char tmpdir[256];

/* Starts this executable as clpk-tune with `args` (NULL-terminated), output to `log`. */
static pid_t start(const char *const *args, const char *log) {
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        char *argv[32];
        int n = 0;
        argv[n++] = "clpk-tune";
        for (; args[n - 1] && n < 31; ++n) argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    return pid;
}

static int finish(pid_t pid) {
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status); /* killed: never 130 */
}

static char *slurp(const char *path) {
    char *text = NULL;
    if (core_read_file(path, &text, NULL, NULL) != CLPK_SUCCESS) return calloc(1, 1);
    return text;
}

static int count_lines_with(const char *text, const char *a, const char *b) {
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        n += strstr(buf, a) && (!b || strstr(buf, b));
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* Every measured point has at most one result line per phase: nothing was measured twice. */
static int measured_twice(const char *cache) {
    int twice = 0;
    for (const char *line = cache; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024], key[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        char *outcome = strstr(buf, "\"outcome\"");
        if (outcome && !strstr(buf, "\"pending\"")) {
            snprintf(key, sizeof key, "%.*s", (int)(outcome - buf), buf);
            twice += count_lines_with(cache, key, "\"ms\"") + count_lines_with(cache, key, "\"outcome\":\"t") > 1;
        }
        line = end ? end + 1 : NULL;
    }
    return twice;
}

static void test_interrupt_and_resume(void) {
    char out[512], cache[512], log[512];
    snprintf(out, sizeof out, "%s/p.json", tmpdir);
    snprintf(cache, sizeof cache, "%s/p.jsonl", tmpdir);
    snprintf(log, sizeof log, "%s/run1.log", tmpdir);
    /* 3 problems x 126 points x 3 ms: well over a second. */
    const char *args[] = {"--families", "fake_sleepy", "--strategy", "exhaustive", "--out", out, "--cache", cache, NULL};
    pid_t pid = start(args, log);
    /* Wait until it is measuring (its handler is installed by then), then press Ctrl-C. */
    struct stat st;
    for (int i = 0; i < 500 && !(stat(cache, &st) == 0 && st.st_size > 4000); ++i) fake_sleep(0.01);
    kill(pid, SIGINT);
    int rc = finish(pid);
    char *text = slurp(log);
    CHECK(rc == 130, "Ctrl-C: exit status %d", rc);
    CHECK(strstr(text, "interrupted: run again with --resume") && strstr(text, "profile written"),
          "says how to continue and writes the profile: %.400s", text);
    free(text);
    CHECK(stat(out, &st) == 0, "a profile of what was found so far");

    const char *again[] = {"--families", "fake_sleepy", "--strategy", "exhaustive", "--out", out, "--cache", cache,
                           "--resume", NULL};
    snprintf(log, sizeof log, "%s/run2.log", tmpdir);
    rc = finish(start(again, log));
    text = slurp(log);
    CHECK(rc == 0 && strstr(text, "resuming") && strstr(text, "fake problem 2: best 1.2 ms"), "resumed to the end: %.600s",
          text);
    free(text);
    char *lines = slurp(cache);
    CHECK(count_lines_with(lines, "\"phase\":\"search\"", "\"ms\"") == 3 * 126, "every valid point measured: %d",
          count_lines_with(lines, "\"phase\":\"search\"", "\"ms\""));
    CHECK(measured_twice(lines) == 0, "no point measured twice across the interruption");
    free(lines);
    remove(out);
    remove(cache);
}

static void test_watchdog(void) {
    char out[512], cache[512], log[512];
    snprintf(out, sizeof out, "%s/h.json", tmpdir);
    snprintf(cache, sizeof cache, "%s/h.jsonl", tmpdir);
    snprintf(log, sizeof log, "%s/hang.log", tmpdir);
    const char *args[] = {"--families", "hang", "--quick", "--strategy", "exhaustive", "--candidate-limit", "0.5",
                          "--hang-limit", "1", "--out", out, "--cache", cache, NULL};
    double t0 = core_wall_seconds();
    int rc = finish(start(args, log));
    double dt = core_wall_seconds() - t0;
    char *text = slurp(log);
    CHECK(rc == 0 && dt < 30, "a run with two hanging candidates ends: status %d after %.1f s", rc, dt);
    CHECK(count_lines_with(text, "restarting with --resume", NULL) == 2, "restarted once per hung point: %.800s",
          text);
    CHECK(strstr(text, "restart 2 after a hung candidate") && strstr(text, "best 1 ms"), "finished after restarts");
    free(text);
    char *lines = slurp(cache);
    CHECK(count_lines_with(lines, "\"params\":\"a=16,b=3,", "\"pending\"") == 2 &&
              count_lines_with(lines, "\"params\":\"a=16,b=3,", "\"ms\"") == 0,
          "the hung points stay marked pending, never measured");
    free(lines);
    text = slurp(out);
    CHECK(strstr(text, "\"timeout\":\t2") != NULL, "the profile counts them as timeouts: %.600s", text);
    free(text);
    remove(out);
    remove(cache);
}

int main(int argc, char **argv) {
    if (argc > 1) return tune_main(argc, argv); /* a child run (also after the watchdog's restart) */
    check_seed();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clpk-test-tune-cli-XXXXXX");
    if (!CHECK(mkdtemp(tmpdir) != NULL, "temporary directory")) return check_summary();
    test_interrupt_and_resume();
    test_watchdog();
    const char *logs[] = {"run1.log", "run2.log", "hang.log"};
    for (int i = 0; i < 3; ++i) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", tmpdir, logs[i]);
        remove(path);
    }
    rmdir(tmpdir);
    return check_summary();
}
