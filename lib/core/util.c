/* Small host helpers shared by the runtime files. */
#include "clpk_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* FNV-1a, 64 bit: good enough to spread cache keys; the full key is stored beside the hash and compared. */
uint64_t core_hash64(const void *data, size_t size, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* One read when the size is known (regular files); a growing buffer for pipes and files that change under us. */
static clpk_status read_growing(FILE *f, const char *path, char **data, size_t *size, clpk_error *err) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (;;) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) break;
        char *bigger = realloc(buf, cap * 2 + 1);
        if (!bigger) {
            free(buf);
            return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        }
        buf = bigger;
        cap *= 2;
    }
    if (ferror(f)) {
        free(buf);
        return core_error_set(err, CLPK_ERROR_IO, "%s: read error", path);
    }
    buf[len] = '\0';
    *data = buf;
    if (size) *size = len;
    return CLPK_SUCCESS;
}

clpk_status core_read_file(const char *path, char **data, size_t *size, clpk_error *err) {
    *data = NULL;
    if (size) *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    clpk_status status;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (uint64_t)st.st_size < (uint64_t)SIZE_MAX) {
        size_t expect = (size_t)st.st_size;
        char *buf = malloc(expect + 1);
        if (!buf) {
            fclose(f);
            return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, expect);
        }
        size_t got = fread(buf, 1, expect, f);
        if (got == expect && !ferror(f) && fgetc(f) == EOF) {
            buf[got] = '\0';
            *data = buf;
            if (size) *size = got;
            fclose(f);
            return CLPK_SUCCESS;
        }
        free(buf);
        rewind(f);
    }
    status = read_growing(f, path, data, size, err);
    fclose(f);
    return status;
}

double core_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *core_device_kind_string(clpk_device_kind kind) {
    switch (kind) {
    case CLPK_DEVICE_CPU: return "CPU";
    case CLPK_DEVICE_GPU: return "GPU";
    default: return "OTHER";
    }
}

clpk_status clpk_precision_parse(const char *text, clpk_precision *out) {
    if (!text || !out) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!strcmp(text, "f32") || !strcmp(text, "float") || !strcmp(text, "single") || !strcmp(text, "fp32")) {
        *out = CLPK_PRECISION_F32;
        return CLPK_SUCCESS;
    }
    if (!strcmp(text, "f64") || !strcmp(text, "double") || !strcmp(text, "fp64")) {
        *out = CLPK_PRECISION_F64;
        return CLPK_SUCCESS;
    }
    return CLPK_ERROR_INVALID_ARGUMENT;
}

const char *clpk_precision_name(clpk_precision p) { return p == CLPK_PRECISION_F64 ? "f64" : "f32"; }
size_t clpk_precision_size(clpk_precision p) { return p == CLPK_PRECISION_F64 ? 8 : 4; }
