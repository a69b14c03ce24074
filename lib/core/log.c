/* Diagnostics to stderr, filtered by the context's level (CLPK_LOG). */
#include "context_impl.h"

int core_log_enabled(const clpk_context *ctx, core_log_level level) {
    return level != CLPK_LOG_QUIET && level <= (ctx ? ctx->log_level : CLPK_LOG_WARN);
}

void core_log(const clpk_context *ctx, core_log_level level, const char *fmt, ...) {
    core_log_level limit = ctx ? ctx->log_level : CLPK_LOG_WARN;
    if (level > limit || level == CLPK_LOG_QUIET) return;
    static const char *const names[] = {"", "warning", "info", "debug", "trace"};
    fprintf(stderr, "clpk: %s: ", names[level]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
