/* LiFE datasets on disk: a directory of .npy files (phi_atoms, phi_voxels, phi_fibers, phi_values, dictionary,
 * signal) plus an optional meta.json. Loading checks every file against the others and names the file at fault. */
#include "clpk_internal.h"
#include "clpk_life.h"
#include "life_data_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

void clpk_life_dataset_free(clpk_life_dataset *data) {
    if (!data) return;
    free(data->atoms);
    free(data->voxels);
    free(data->fibers);
    free(data->phi);
    free(data->dictionary);
    free(data->signal);
    free(data->voxel_ijk);
    memset(data, 0, sizeof *data);
}

static clpk_status check_indices(const int32_t *idx, int64_t n, int32_t limit, const char *what, const char *limit_what,
                                 clpk_error *err) {
    for (int64_t k = 0; k < n; k++) {
        if (idx[k] < 0 || idx[k] >= limit)
            return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                  "%s: index %d at position %lld out of range [0, %d) (%s)", what, (int)idx[k],
                                  (long long)k, (int)limit, limit_what);
    }
    return CLPK_SUCCESS;
}

static clpk_status check_finite(const double *v, int64_t n, const char *what, clpk_error *err) {
    for (int64_t k = 0; k < n; k++) {
        if (!isfinite(v[k]))
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: value at position %lld is %s", what, (long long)k,
                                  isnan(v[k]) ? "NaN" : "infinite");
    }
    return CLPK_SUCCESS;
}

clpk_status clpk_life_dataset_validate(const clpk_life_dataset *d, clpk_error *err) {
    if (!d) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "LiFE dataset: NULL");
    if (d->n_coeffs <= 0)
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "LiFE dataset: no coefficients (n_coeffs = %lld)",
                              (long long)d->n_coeffs);
    if (d->n_atoms <= 0 || d->n_voxels <= 0 || d->n_fibers <= 0 || d->n_theta <= 0)
        return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                              "LiFE dataset: sizes must be positive (atoms %d, voxels %d, fibers %d, theta %d)",
                              (int)d->n_atoms, (int)d->n_voxels, (int)d->n_fibers, (int)d->n_theta);
    if (!d->atoms || !d->voxels || !d->fibers || !d->phi || !d->dictionary)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "LiFE dataset: missing arrays");
    CLPK_TRY(check_indices(d->atoms, d->n_coeffs, d->n_atoms, "phi_atoms", "dictionary rows", err));
    CLPK_TRY(check_indices(d->voxels, d->n_coeffs, d->n_voxels, "phi_voxels", "voxels", err));
    CLPK_TRY(check_indices(d->fibers, d->n_coeffs, d->n_fibers, "phi_fibers", "fibers", err));
    CLPK_TRY(check_finite(d->phi, d->n_coeffs, "phi_values", err));
    CLPK_TRY(check_finite(d->dictionary, (int64_t)d->n_atoms * d->n_theta, "dictionary", err));
    if (d->signal) CLPK_TRY(check_finite(d->signal, (int64_t)d->n_voxels * d->n_theta, "signal", err));
    if (d->voxel_ijk) CLPK_TRY(check_indices(d->voxel_ijk, (int64_t)d->n_voxels * 3, INT32_MAX, "voxel_ijk",
                                             "int32 grid coordinates", err));
    return CLPK_SUCCESS;
}

/* ---- Loading ------------------------------------------------------------------------------------------------ */

static void join_path(char *buf, size_t size, const char *dir, const char *name) {
    size_t n = strlen(dir);
    snprintf(buf, size, "%s%s%s", dir, (n > 0 && dir[n - 1] == '/') ? "" : "/", name);
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Takes an integer index array out of `a` as int32 (values must lie in [0, INT32_MAX)). */
static clpk_status take_indices(clpk_npy *a, const char *path, int32_t **out, clpk_error *err) {
    if (a->ndim != 1)
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: expected a 1-D array, got %d dimensions", path,
                              a->ndim);
    if (a->dtype == CLPK_DTYPE_I32) {
        *out = a->data;
        a->data = NULL;
    } else if (a->dtype == CLPK_DTYPE_I64) {
        const int64_t *src = a->data;
        int32_t *dst = malloc((size_t)(a->count > 0 ? a->count : 1) * sizeof *dst);
        if (!dst) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        for (int64_t k = 0; k < a->count; k++) {
            if (src[k] < 0 || src[k] >= INT32_MAX) {
                free(dst);
                return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: index %lld at position %lld out of range",
                                      path, (long long)src[k], (long long)k);
            }
            dst[k] = (int32_t)src[k];
        }
        *out = dst;
    } else {
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: dtype %s, expected int32 or int64 indices", path,
                              clpk_dtype_name(a->dtype));
    }
    return CLPK_SUCCESS;
}

/* Takes a float array out of `a` as double, refusing NaN and infinities. */
static clpk_status take_values(clpk_npy *a, const char *path, double **out, clpk_error *err) {
    if (a->dtype == CLPK_DTYPE_F64) {
        *out = a->data;
        a->data = NULL;
    } else if (a->dtype == CLPK_DTYPE_F32) {
        const float *src = a->data;
        double *dst = malloc((size_t)(a->count > 0 ? a->count : 1) * sizeof *dst);
        if (!dst) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        for (int64_t k = 0; k < a->count; k++) dst[k] = src[k];
        *out = dst;
    } else {
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: dtype %s, expected float32 or float64", path,
                              clpk_dtype_name(a->dtype));
    }
    return check_finite(*out, a->count, path, err);
}

typedef struct meta_info {
    long long n_fibers, n_voxels; /* -1 when absent */
} meta_info;

static clpk_status read_meta(const char *path, meta_info *meta, clpk_error *err) {
    meta->n_fibers = meta->n_voxels = -1;
    if (!file_exists(path)) return CLPK_SUCCESS;
    char *text = NULL;
    size_t size = 0;
    CLPK_TRY(core_read_file(path, &text, &size, err));
    cJSON *root = cJSON_ParseWithLength(text, size);
    free(text);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return core_error_set(err, CLPK_ERROR_PARSE, "%s: not a JSON object", path);
    }
    static const char *const keys[] = {"n_fibers", "n_voxels"};
    long long *slots[] = {&meta->n_fibers, &meta->n_voxels};
    for (int i = 0; i < 2; i++) {
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
        if (!item) continue;
        double v = cJSON_IsNumber(item) ? item->valuedouble : -1.0;
        if (!(v >= 1.0 && v < (double)INT32_MAX && v == floor(v))) {
            cJSON_Delete(root);
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: \"%s\" must be a positive integer below 2^31",
                                  path, keys[i]);
        }
        *slots[i] = (long long)v;
    }
    cJSON_Delete(root);
    return CLPK_SUCCESS;
}

static int32_t max_plus_one(const int32_t *idx, int64_t n) {
    int32_t m = -1;
    for (int64_t k = 0; k < n; k++)
        if (idx[k] > m) m = idx[k];
    return m + 1;
}

typedef struct loader {
    const char *dir;
    char path[4096];
    clpk_npy a;
} loader;

static clpk_status load_array(loader *L, const char *name, int required, int *present, clpk_error *err) {
    join_path(L->path, sizeof L->path, L->dir, name);
    memset(&L->a, 0, sizeof L->a);
    if (present) *present = 0;
    if (!required && !file_exists(L->path)) return CLPK_SUCCESS;
    CLPK_TRY(clpk_npy_read(L->path, &L->a, err));
    if (present) *present = 1;
    return CLPK_SUCCESS;
}

/* Optional voxel_ijk.npy: (n_voxels, 3) int32 or int64 grid coordinates in [0, 2^31) (the spatial processing orders
 * read them; absent: unknown). */
static clpk_status load_voxel_ijk(loader *L, clpk_life_dataset *d, clpk_error *err) {
    int present = 0;
    CLPK_TRY(load_array(L, "voxel_ijk.npy", 0, &present, err));
    if (!present) return CLPK_SUCCESS;
    clpk_status st = CLPK_SUCCESS;
    const int64_t n = (int64_t)d->n_voxels * 3;
    if (L->a.ndim != 2 || L->a.shape[0] != d->n_voxels || L->a.shape[1] != 3)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: expected shape (%d, 3) (voxels x i, j, k)", L->path,
                            (int)d->n_voxels);
    else if (L->a.dtype == CLPK_DTYPE_I32) {
        d->voxel_ijk = L->a.data;
        L->a.data = NULL;
    } else if (L->a.dtype == CLPK_DTYPE_I64) {
        const int64_t *src = L->a.data;
        d->voxel_ijk = malloc((size_t)n * sizeof *d->voxel_ijk);
        if (!d->voxel_ijk) st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", L->path);
        for (int64_t k = 0; st == CLPK_SUCCESS && k < n; k++) {
            if (src[k] < 0 || src[k] >= INT32_MAX)
                st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: coordinate %lld at position %lld out of "
                                    "[0, 2^31)", L->path, (long long)src[k], (long long)k);
            else d->voxel_ijk[k] = (int32_t)src[k];
        }
    } else
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: dtype %s, expected int32 or int64", L->path,
                            clpk_dtype_name(L->a.dtype));
    if (st == CLPK_SUCCESS && d->voxel_ijk)
        st = check_indices(d->voxel_ijk, n, INT32_MAX, L->path, "grid coordinates", err);
    clpk_npy_free(&L->a);
    return st;
}

static clpk_status load_inner(loader *L, clpk_life_dataset *d, clpk_error *err) {
    static const char *const index_names[3] = {"phi_atoms.npy", "phi_voxels.npy", "phi_fibers.npy"};
    int32_t **index_slots[3] = {&d->atoms, &d->voxels, &d->fibers};
    char first_index_path[4096] = "";
    for (int i = 0; i < 3; i++) {
        CLPK_TRY(load_array(L, index_names[i], 1, NULL, err));
        clpk_status st = take_indices(&L->a, L->path, index_slots[i], err);
        int64_t count = L->a.count;
        clpk_npy_free(&L->a);
        if (st != CLPK_SUCCESS) return st;
        if (i == 0) {
            d->n_coeffs = count;
            snprintf(first_index_path, sizeof first_index_path, "%s", L->path);
        } else if (count != d->n_coeffs) {
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: length %lld differs from %s (%lld)", L->path,
                                  (long long)count, first_index_path, (long long)d->n_coeffs);
        }
    }
    if (d->n_coeffs == 0)
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: no coefficients (empty arrays)", first_index_path);

    CLPK_TRY(load_array(L, "phi_values.npy", 1, NULL, err));
    {
        int64_t count = L->a.count;
        int ndim = L->a.ndim;
        clpk_status st = ndim == 1 ? take_values(&L->a, L->path, &d->phi, err)
                                   : core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                                    "%s: expected a 1-D array, got %d dimensions", L->path, ndim);
        clpk_npy_free(&L->a);
        if (st != CLPK_SUCCESS) return st;
        if (count != d->n_coeffs)
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: length %lld differs from %s (%lld)", L->path,
                                  (long long)count, first_index_path, (long long)d->n_coeffs);
    }

    CLPK_TRY(load_array(L, "dictionary.npy", 1, NULL, err));
    {
        clpk_status st = CLPK_SUCCESS;
        if (L->a.ndim != 2 || L->a.shape[0] < 1 || L->a.shape[1] < 1 || L->a.shape[0] >= INT32_MAX ||
            L->a.shape[1] >= INT32_MAX)
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                "%s: expected a non-empty 2-D array (atoms x directions), got %d dimensions", L->path,
                                L->a.ndim);
        else {
            d->n_atoms = (int32_t)L->a.shape[0];
            d->n_theta = (int32_t)L->a.shape[1];
            st = take_values(&L->a, L->path, &d->dictionary, err);
        }
        clpk_npy_free(&L->a);
        if (st != CLPK_SUCCESS) return st;
    }
    join_path(L->path, sizeof L->path, L->dir, "phi_atoms.npy");
    CLPK_TRY(check_indices(d->atoms, d->n_coeffs, d->n_atoms, L->path, "rows of dictionary.npy", err));

    char meta_path[4096];
    join_path(meta_path, sizeof meta_path, L->dir, "meta.json");
    meta_info meta;
    CLPK_TRY(read_meta(meta_path, &meta, err));

    int has_signal = 0;
    CLPK_TRY(load_array(L, "signal.npy", 0, &has_signal, err));
    if (has_signal) {
        clpk_status st = CLPK_SUCCESS;
        if (L->a.ndim != 2 || L->a.shape[0] < 1 || L->a.shape[0] >= INT32_MAX)
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                "%s: expected a non-empty 2-D array (voxels x directions), got %d dimensions", L->path,
                                L->a.ndim);
        else if (L->a.shape[1] != d->n_theta)
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                "%s: %lld directions per voxel, but dictionary.npy has %d", L->path,
                                (long long)L->a.shape[1], (int)d->n_theta);
        else if (meta.n_voxels > 0 && meta.n_voxels != L->a.shape[0])
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: %lld voxels, but %s says n_voxels = %lld", L->path,
                                (long long)L->a.shape[0], meta_path, meta.n_voxels);
        else {
            d->n_voxels = (int32_t)L->a.shape[0];
            st = take_values(&L->a, L->path, &d->signal, err);
        }
        clpk_npy_free(&L->a);
        if (st != CLPK_SUCCESS) return st;
    } else {
        d->n_voxels = meta.n_voxels > 0 ? (int32_t)meta.n_voxels : max_plus_one(d->voxels, d->n_coeffs);
    }
    join_path(L->path, sizeof L->path, L->dir, "phi_voxels.npy");
    CLPK_TRY(check_indices(d->voxels, d->n_coeffs, d->n_voxels, L->path,
                           has_signal ? "rows of signal.npy" : "n_voxels of meta.json", err));

    int32_t fibers = max_plus_one(d->fibers, d->n_coeffs);
    if (meta.n_fibers > 0 && meta.n_fibers < fibers)
        return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                              "%s: n_fibers = %lld, but phi_fibers.npy has fibre index %d", meta_path, meta.n_fibers,
                              (int)(fibers - 1));
    d->n_fibers = meta.n_fibers > 0 ? (int32_t)meta.n_fibers : fibers;
    CLPK_TRY(load_voxel_ijk(L, d, err));
    return clpk_life_dataset_validate(d, err);
}

clpk_status clpk_life_dataset_load(const char *dir, clpk_life_dataset *out, clpk_error *err) {
    if (!dir || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_life_dataset_load: NULL argument");
    memset(out, 0, sizeof *out);
    loader *L = calloc(1, sizeof *L);
    if (!L) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", dir);
    L->dir = dir;
    clpk_status st = load_inner(L, out, err);
    clpk_npy_free(&L->a);
    free(L);
    if (st != CLPK_SUCCESS) clpk_life_dataset_free(out);
    return st;
}

/* ---- Saving ------------------------------------------------------------------------------------------------- */

static clpk_status make_dirs(const char *dir, clpk_error *err) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: path too long", dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return core_error_set(err, CLPK_ERROR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
            *p = c;
            if (c == '\0') break;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return core_error_set(err, CLPK_ERROR_IO, "%s: not a directory", dir);
    return CLPK_SUCCESS;
}

clpk_status clpk_life_dataset_save(const char *dir, const clpk_life_dataset *d, clpk_error *err) {
    if (!dir || !d) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_life_dataset_save: NULL argument");
    CLPK_TRY(clpk_life_dataset_validate(d, err));
    CLPK_TRY(make_dirs(dir, err));
    char path[4096];
    int64_t nc = d->n_coeffs;
    const struct {
        const char *name;
        clpk_dtype dtype;
        int ndim;
        int64_t shape[2];
        const void *data;
    } files[] = {
        {"phi_atoms.npy", CLPK_DTYPE_I32, 1, {nc, 0}, d->atoms},
        {"phi_voxels.npy", CLPK_DTYPE_I32, 1, {nc, 0}, d->voxels},
        {"phi_fibers.npy", CLPK_DTYPE_I32, 1, {nc, 0}, d->fibers},
        {"phi_values.npy", CLPK_DTYPE_F64, 1, {nc, 0}, d->phi},
        {"dictionary.npy", CLPK_DTYPE_F64, 2, {d->n_atoms, d->n_theta}, d->dictionary},
        {"signal.npy", CLPK_DTYPE_F64, 2, {d->n_voxels, d->n_theta}, d->signal},
        {"voxel_ijk.npy", CLPK_DTYPE_I32, 2, {d->n_voxels, 3}, d->voxel_ijk},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (!files[i].data) continue;
        join_path(path, sizeof path, dir, files[i].name);
        CLPK_TRY(clpk_npy_write_raw(path, files[i].dtype, files[i].ndim, files[i].shape, files[i].data, err));
    }
    join_path(path, sizeof path, dir, "meta.json");
    FILE *f = fopen(path, "w");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    fprintf(f, "{\"n_fibers\": %d, \"n_voxels\": %d, \"n_atoms\": %d, \"n_theta\": %d, \"n_coeffs\": %lld}\n",
            (int)d->n_fibers, (int)d->n_voxels, (int)d->n_atoms, (int)d->n_theta, (long long)d->n_coeffs);
    if (fclose(f) != 0) return core_error_set(err, CLPK_ERROR_IO, "%s: write error", path);
    return CLPK_SUCCESS;
}
