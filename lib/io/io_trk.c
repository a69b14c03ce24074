/* TrackVis .trk reader (see io_trk.h). Two passes over the bytes: the first validates every record and counts the
 * points, the second copies them, so a malformed file allocates nothing and a good one allocates once. */
#include "io_trk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRK_HEADER_SIZE 1000
#define TRK_MAX_EXTRA 10000 /* per-point scalars / per-streamline properties: TrackVis allows 10, leave room */

void trk_file_free(trk_file *t) {
    if (!t) return;
    free(t->offsets);
    free(t->points);
    memset(t, 0, sizeof *t);
}

static uint32_t get_u32(const unsigned char *p, int swap) {
    uint32_t v = swap ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3])
                      : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
    return v;
}

static int32_t get_i32(const unsigned char *p, int swap) {
    uint32_t u = get_u32(p, swap);
    int32_t v;
    memcpy(&v, &u, 4);
    return v;
}

static int16_t get_i16(const unsigned char *p, int swap) {
    uint16_t u = swap ? (uint16_t)((unsigned)p[0] << 8 | p[1]) : (uint16_t)((unsigned)p[1] << 8 | p[0]);
    int16_t v;
    memcpy(&v, &u, 2);
    return v;
}

static float get_f32(const unsigned char *p, int swap) {
    uint32_t u = get_u32(p, swap);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

static clpk_status parse_header(const unsigned char *h, size_t length, const char *name, trk_file *t, int *swap,
                                clpk_error *err) {
    if (length < TRK_HEADER_SIZE)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: truncated TrackVis header (%zu of 1000 bytes)", name, length);
    if (memcmp(h, "TRACK", 5) != 0)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: not a TrackVis file (magic is not \"TRACK\")", name);
    *swap = 0;
    if (get_i32(h + 996, 0) != TRK_HEADER_SIZE) {
        if (get_i32(h + 996, 1) != TRK_HEADER_SIZE)
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: hdr_size %d, expected 1000", name,
                                  (int)get_i32(h + 996, 0));
        *swap = 1;
    }
    int s = *swap;
    for (int i = 0; i < 3; i++) {
        t->dim[i] = get_i16(h + 6 + 2 * i, s);
        t->voxel_size[i] = get_f32(h + 12 + 4 * i, s);
        if (!(t->voxel_size[i] > 0) || !isfinite(t->voxel_size[i]))
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: voxel_size[%d] = %g, expected positive", name, i,
                                  t->voxel_size[i]);
    }
    t->n_scalars = get_i16(h + 36, s);
    t->n_properties = get_i16(h + 238, s);
    if (t->n_scalars < 0 || t->n_scalars > TRK_MAX_EXTRA || t->n_properties < 0 || t->n_properties > TRK_MAX_EXTRA)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: n_scalars %d / n_properties %d out of range", name,
                              t->n_scalars, t->n_properties);
    t->version = get_i32(h + 992, s);
    if (t->version != 1 && t->version != 2)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: version %d, expected 1 or 2", name, t->version);
    int has_affine = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            t->vox_to_ras[r][c] = t->version == 2 ? get_f32(h + 440 + 16 * r + 4 * c, s) : 0.0;
            if (!isfinite(t->vox_to_ras[r][c]))
                return core_error_set(err, CLPK_ERROR_PARSE, "%s: vox_to_ras is not finite", name);
        }
    has_affine = t->vox_to_ras[3][3] != 0.0;
    if (!has_affine) { /* version 1, or version 2 with an unset matrix: TrackVis and nibabel use the identity */
        memset(t->vox_to_ras, 0, sizeof t->vox_to_ras);
        for (int i = 0; i < 4; i++) t->vox_to_ras[i][i] = 1.0;
    }
    memcpy(t->voxel_order, h + 948, 3);
    t->voxel_order[3] = '\0';
    if (t->voxel_order[0] == '\0') memcpy(t->voxel_order, "LPS", 4);
    int32_t n_count = get_i32(h + 988, s);
    if (n_count < 0) return core_error_set(err, CLPK_ERROR_PARSE, "%s: n_count %d is negative", name, (int)n_count);
    t->n_streamlines = n_count; /* 0: unknown, read to the end */
    return CLPK_SUCCESS;
}

/* One pass over the records. With t->points == NULL it validates and counts, else it fills. */
static clpk_status walk_records(const unsigned char *bytes, size_t length, const char *name, int swap, trk_file *t,
                                int64_t *n_streamlines, int64_t *n_points, clpk_error *err) {
    size_t pos = TRK_HEADER_SIZE;
    int64_t count = 0, points = 0;
    int64_t expected = t->n_streamlines;
    const size_t per_point = 4 * (size_t)(3 + t->n_scalars), per_line = 4 * (size_t)t->n_properties;
    while (expected > 0 ? count < expected : pos < length) {
        if (length - pos < 4)
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: truncated at streamline %lld (byte %zu): no point count",
                                  name, (long long)count, pos);
        int32_t m = get_i32(bytes + pos, swap);
        pos += 4;
        if (m < 0)
            return core_error_set(err, CLPK_ERROR_PARSE, "%s: streamline %lld has a negative point count %d", name,
                                  (long long)count, (int)m);
        uint64_t need = (uint64_t)m * per_point + per_line;
        if (need > length - pos)
            return core_error_set(err, CLPK_ERROR_PARSE,
                                  "%s: truncated at streamline %lld: %d points need %llu bytes, %zu left", name,
                                  (long long)count, (int)m, (unsigned long long)need, length - pos);
        for (int32_t i = 0; i < m; i++) {
            const unsigned char *p = bytes + pos + (size_t)i * per_point;
            for (int c = 0; c < 3; c++) {
                float x = get_f32(p + 4 * c, swap);
                if (!isfinite(x))
                    return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                          "%s: streamline %lld point %d has a non-finite coordinate", name,
                                          (long long)count, (int)i);
                if (t->points) t->points[3 * (points + i) + c] = x;
            }
        }
        if (t->points) t->offsets[count] = points;
        points += m;
        pos += (size_t)need;
        count++;
    }
    if (expected > 0 && pos != length)
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: %zu trailing bytes after the %lld streamlines of n_count",
                              name, length - pos, (long long)expected);
    if (t->points) t->offsets[count] = points;
    *n_streamlines = count;
    *n_points = points;
    return CLPK_SUCCESS;
}

clpk_status trk_file_parse(const void *bytes, size_t length, const char *name, trk_file *t, clpk_error *err) {
    if (!t) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "trk_file_parse: NULL argument");
    memset(t, 0, sizeof *t);
    if (!bytes) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: no data", name);
    int swap = 0;
    CLPK_TRY(parse_header(bytes, length, name, t, &swap, err));
    int64_t n_lines = 0, n_points = 0;
    CLPK_TRY(walk_records(bytes, length, name, swap, t, &n_lines, &n_points, err));
    t->offsets = malloc((size_t)(n_lines + 1) * sizeof *t->offsets);
    t->points = malloc((size_t)(n_points > 0 ? n_points : 1) * 3 * sizeof *t->points);
    if (!t->offsets || !t->points) {
        trk_file_free(t);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory (%lld points)", name,
                              (long long)n_points);
    }
    clpk_status st = walk_records(bytes, length, name, swap, t, &t->n_streamlines, &t->n_points, err);
    if (st != CLPK_SUCCESS) trk_file_free(t);
    return st;
}

clpk_status trk_file_read(const char *path, trk_file *out, clpk_error *err) {
    if (!path || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "trk_file_read: NULL argument");
    memset(out, 0, sizeof *out);
    char *bytes = NULL;
    size_t length = 0;
    CLPK_TRY(core_read_file(path, &bytes, &length, err));
    clpk_status st = trk_file_parse(bytes, length, path, out, err);
    free(bytes);
    return st;
}

/* Axis code of a voxel axis: 0/1/2 for R/A/S (positive) and 3/4/5 for L/P/I, -1 if unknown. */
static int axis_code(char c) {
    const char *codes = "RASLPI";
    const char *p = c ? strchr(codes, c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c) : NULL;
    return p ? (int)(p - codes) : -1;
}

clpk_status trk_file_voxmm_to_rasmm(const trk_file *t, double A[4][4], clpk_error *err) {
    /* voxmm -> voxel (centre at integer coordinates) */
    double M[4][4] = {{0}};
    for (int i = 0; i < 3; i++) {
        M[i][i] = 1.0 / t->voxel_size[i];
        M[i][3] = -0.5;
    }
    M[3][3] = 1.0;
    /* flip the voxel axes whose direction in voxel_order disagrees with the one vox_to_ras implies */
    int header[3], used = 0;
    for (int j = 0; j < 3; j++) {
        header[j] = axis_code(t->voxel_order[j]);
        if (header[j] < 0)
            return core_error_set(err, CLPK_ERROR_PARSE, "trk: voxel_order \"%s\" is not made of R/L A/P S/I",
                                  t->voxel_order);
        used |= 1 << (header[j] % 3);
    }
    if (used != 7)
        return core_error_set(err, CLPK_ERROR_PARSE, "trk: voxel_order \"%s\" repeats an axis", t->voxel_order);
    for (int j = 0; j < 3; j++) {
        int best = 0;
        for (int i = 1; i < 3; i++)
            if (fabs(t->vox_to_ras[i][j]) > fabs(t->vox_to_ras[best][j])) best = i;
        int affine_code = best + (t->vox_to_ras[best][j] < 0 ? 3 : 0);
        if (affine_code % 3 != header[j] % 3)
            return core_error_set(err, CLPK_ERROR_UNSUPPORTED,
                                  "trk: voxel_order \"%s\" permutes the axes of vox_to_ras; not supported",
                                  t->voxel_order);
        if (affine_code != header[j]) { /* x -> (dim - 1) - x on this axis */
            for (int c = 0; c < 4; c++) M[j][c] = -M[j][c];
            M[j][3] += t->dim[j] - 1;
        }
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += t->vox_to_ras[r][k] * M[k][c];
            A[r][c] = s;
            if (!isfinite(s))
                return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                      "trk: vox_to_ras and voxel_size give a non-finite voxmm -> RAS affine");
        }
    return CLPK_SUCCESS;
}
