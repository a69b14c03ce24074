/* libFuzzer target for the Matrix Market reader: any input must either parse into a consistent matrix or be refused
 * with a message naming the file, and a parsed matrix must convert to a well-formed CSR. The input also goes through
 * a scratch file to clpk_mtx_read (which must agree with clpk_mtx_parse) and clpk_mtx_read_vector.
 * Crashes, leaks, undefined behaviour and broken invariants (abort) are the findings. */
#include "clpk.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[64]; /* one scratch file per fuzzing process */

static void remove_scratch(void) { unlink(scratch); }

/* tmpfs when there is one: a file round trip per input on a disk would slow fuzzing fifty-fold. */
static const char *scratch_dir(void) { return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"; }

static const char *write_scratch(const uint8_t *data, size_t size) {
    if (!scratch[0]) {
        snprintf(scratch, sizeof scratch, "%s/clpk-fuzz-mtx-%ld.mtx", scratch_dir(), (long)getpid());
        atexit(remove_scratch);
    }
    FILE *f = fopen(scratch, "wb");
    if (!f) return NULL;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? scratch : NULL;
}

/* Invariants the parser promises; a violation aborts so the fuzzer records the input. */
static void check_coo(const clpk_coo *m) {
    if (m->rows < 0 || m->cols < 0 || m->nnz < 0) abort();
    for (int64_t k = 0; k < m->nnz; ++k)
        if (m->row[k] < 0 || m->row[k] >= m->rows || m->col[k] < 0 || m->col[k] >= m->cols || !isfinite(m->val[k]))
            abort();
}

static void check_csr(const clpk_csr *c, int64_t coo_nnz) {
    if (c->row_ptr[0] != 0 || c->row_ptr[c->rows] != c->nnz || c->nnz > coo_nnz) abort();
    for (int32_t r = 0; r < c->rows; ++r)
        for (int64_t k = c->row_ptr[r]; k < c->row_ptr[r + 1]; ++k)
            if (c->col[k] < 0 || c->col[k] >= c->cols || (k > c->row_ptr[r] && c->col[k] <= c->col[k - 1])) abort();
}

static int same_coo(const clpk_coo *a, const clpk_coo *b) {
    size_t n = (size_t)a->nnz;
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz && a->field == b->field &&
           a->symmetry == b->symmetry &&
           (n == 0 ||
            (memcmp(a->row, b->row, n * sizeof *a->row) == 0 && memcmp(a->col, b->col, n * sizeof *a->col) == 0 &&
             memcmp(a->val, b->val, n * sizeof *a->val) == 0));
}

/* The file readers: clpk_mtx_read must agree with the parse; the vector reader keeps its own invariants. */
static void fuzz_files(const uint8_t *data, size_t size, clpk_status parsed, const clpk_coo *m) {
    const char *path = write_scratch(data, size);
    if (!path) return;
    clpk_coo again;
    clpk_error err;
    clpk_status st = clpk_mtx_read(path, &again, &err);
    if (st != parsed || (st == CLPK_SUCCESS && !same_coo(m, &again))) abort();
    clpk_coo_free(&again);
    double *v = NULL;
    int64_t n = -1;
    err.message[0] = '\0';
    if (clpk_mtx_read_vector(path, &v, &n, &err) == CLPK_SUCCESS) {
        if (n < 0 || !v) abort();
        for (int64_t k = 0; k < n; ++k)
            if (!isfinite(v[k])) abort();
    } else if (strncmp(err.message, path, strlen(path)) != 0 || v != NULL) {
        abort();
    }
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // Copy into an exact-size buffer so ASan catches any read past the end (the parser must not need a NUL).
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    if (size) memcpy(text, data, size);
    clpk_coo m;
    clpk_error err;
    err.message[0] = '\0';
    clpk_status st = clpk_mtx_parse(text, size, "fuzz.mtx", &m, &err);
    if (st == CLPK_SUCCESS) {
        check_coo(&m);
        // CSR needs rows + 1 row pointers by design; a valid 4 KB file may declare 2^31 rows, which is a legitimate
        // 16 GB request rather than a bug, so only modest row counts are converted here.
        clpk_csr c;
        if (m.rows <= (1 << 20) && clpk_coo_to_csr(&m, &c, &err) == CLPK_SUCCESS) {
            check_csr(&c, m.nnz);
            clpk_csr_free(&c);
        }
    } else if (strncmp(err.message, "fuzz.mtx:", 9) != 0) {
        abort(); // every refusal must name the file
    }
    fuzz_files(data, size, st, &m);
    clpk_coo_free(&m);
    free(text);
    return 0;
}
