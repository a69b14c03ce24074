#include "cli_spmv_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUES 24

typedef struct value_list {
    int count;
    char v[MAX_VALUES][16];
} value_list;

/* The values the tuner searches for `name`, from clpk_family_parameters' line "  NAME ... tuned over A|B|C; ...". */
static int searched(const char *table, const char *name, value_list *out) {
    out->count = 0;
    size_t len = strlen(name);
    for (const char *line = table; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "  ", 2) || strncmp(line + 2, name, len) || line[2 + len] != ' ') continue;
        const char *end = strchr(line, '\n'), *s = strstr(line, "tuned over ");
        if (!s || (end && s > end)) return 0;
        s += strlen("tuned over ");
        while (*s && *s != ';' && *s != '\n' && out->count < MAX_VALUES) {
            size_t n = strcspn(s, "|;\n");
            if (n >= sizeof out->v[0]) return 0;
            memcpy(out->v[out->count], s, n);
            out->v[out->count++][n] = 0;
            s += n + (s[n] == '|');
        }
        return out->count;
    }
    return 0;
}

/* `wanted` in the given order, where the tuner searches them too (so a value the table drops is not measured). */
static void keep_searched(const value_list *all, const char *const *wanted, int n, value_list *out) {
    out->count = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < all->count; ++j)
            if (!strcmp(all->v[j], wanted[i])) snprintf(out->v[out->count++], sizeof out->v[0], "%s", wanted[i]);
}

typedef struct shape_group {
    const char *format;
    char params[48]; /* block=HxW[,slices=S] */
    uint64_t footprint;
    int order;
} shape_group;

static int by_footprint(const void *a, const void *b) {
    const shape_group *x = a, *y = b;
    if (x->footprint != y->footprint) return x->footprint < y->footprint ? -1 : 1;
    return x->order - y->order;
}

static clpk_status add_point(cli_oracle_space *s, int cap, const char *format, uint64_t footprint, int group, int later,
                             const char *fmt, const char *a, const char *b, clpk_error *err) {
    if (s->count == cap) {
        snprintf(err->message, sizeof err->message, "oracle space: more than %d points", cap);
        return err->status = CLPK_ERROR_INTERNAL;
    }
    cli_oracle_point *p = &s->points[s->count++];
    snprintf(p->format, sizeof p->format, "%s", format);
    snprintf(p->params, sizeof p->params, fmt, a, b);
    p->footprint = footprint;
    p->group = group;
    p->later = later;
    return CLPK_SUCCESS;
}

clpk_status cli_oracle_space_build(const clpk_csr *A, clpk_precision precision, cli_oracle_space *space,
                                   clpk_error *err) {
    memset(space, 0, sizeof *space);
    static char table[32768];
    clpk_status st = clpk_family_parameters("spmv", table, sizeof table, err);
    if (st != CLPK_SUCCESS) return st;
    /* tile and slices: the affordable part of the tuner's range, the GPU default tile first */
    static const char *const tiles[] = {"16", "8", "32"}, *const slice_counts[] = {"2", "4", "8"};
    value_list blocks, cols, csr_vecs, csr_kernels, all_tiles, all_slices, tile, slices;
    if (!searched(table, "block", &blocks) || !searched(table, "col", &cols) ||
        !searched(table, "csr_vec", &csr_vecs) || !searched(table, "tile", &all_tiles) ||
        !searched(table, "slices", &all_slices)) {
        snprintf(err->message, sizeof err->message,
                 "oracle space: clpk_family_parameters(\"spmv\") lacks a searched list of block, col, csr_vec, tile "
                 "or slices");
        return err->status = CLPK_ERROR_INTERNAL;
    }
    searched(table, "csr_kernel", &csr_kernels); /* optional */
    keep_searched(&all_tiles, tiles, 3, &tile);
    keep_searched(&all_slices, slice_counts, 3, &slices);
    int wide = A->cols > A->rows;
    int n_groups = blocks.count * (1 + (wide ? slices.count : 0));
    shape_group *groups = calloc((size_t)n_groups, sizeof *groups);
    int cap = csr_vecs.count + csr_kernels.count + n_groups * cols.count * tile.count;
    space->points = calloc((size_t)cap, sizeof *space->points);
    if (!groups || !space->points) {
        free(groups);
        cli_oracle_space_free(space);
        snprintf(err->message, sizeof err->message, "oracle space: out of memory");
        return err->status = CLPK_ERROR_OUT_OF_MEMORY;
    }
    uint64_t csr_bytes = 0;
    st = clpk_spmv_footprint(A, precision, "csr", NULL, &csr_bytes, err);
    /* CSR kernels, where the table has a choice of them: "rows" takes csr_vec work-items per row, the others no
     * further parameter; without the choice, the rows kernel alone */
    for (int i = 0; st == CLPK_SUCCESS && i < csr_vecs.count; ++i)
        st = add_point(space, cap, "csr", csr_bytes, -1, 0, "%scsr_vec=%s", csr_kernels.count ? "csr_kernel=rows," : "",
                       csr_vecs.v[i], err);
    for (int i = 0; st == CLPK_SUCCESS && i < csr_kernels.count; ++i)
        if (strcmp(csr_kernels.v[i], "rows"))
            st = add_point(space, cap, "csr", csr_bytes, -1, 0, "csr_kernel=%s%s", csr_kernels.v[i], "", err);
    int g = 0;
    for (int k = -1; st == CLPK_SUCCESS && k < (wide ? slices.count : 0); ++k)
        for (int i = 0; st == CLPK_SUCCESS && i < blocks.count; ++i) {
            shape_group *gr = &groups[g];
            gr->format = k < 0 ? "bccoo" : "bccoo+";
            gr->order = g;
            if (k < 0)
                snprintf(gr->params, sizeof gr->params, "block=%s", blocks.v[i]);
            else
                snprintf(gr->params, sizeof gr->params, "block=%s,slices=%s", blocks.v[i], slices.v[k]);
            st = clpk_spmv_footprint(A, precision, gr->format, gr->params, &gr->footprint, err);
            if (st != CLPK_SUCCESS) break;
            if (!g || gr->footprint < space->min_bccoo_footprint) space->min_bccoo_footprint = gr->footprint;
            ++g;
        }
    if (st == CLPK_SUCCESS) {
        qsort(groups, (size_t)g, sizeof *groups, by_footprint);
        for (int i = 0; st == CLPK_SUCCESS && i < g; ++i) {
            if ((double)groups[i].footprint > CLI_ORACLE_FOOTPRINT_RATIO * (double)space->min_bccoo_footprint) {
                space->pruned += cols.count * tile.count;
                continue;
            }
            int group = space->groups++;
            for (int c = 0; st == CLPK_SUCCESS && c < cols.count; ++c)
                for (int t = 0; st == CLPK_SUCCESS && t < tile.count; ++t) {
                    char rest[48];
                    snprintf(rest, sizeof rest, "col=%s,tile=%s", cols.v[c], tile.v[t]);
                    st = add_point(space, cap, groups[i].format, groups[i].footprint, group, t > 0, "%s,%s",
                                   groups[i].params, rest, err);
                }
        }
    }
    free(groups);
    if (st != CLPK_SUCCESS) cli_oracle_space_free(space);
    return st;
}

void cli_oracle_space_free(cli_oracle_space *space) {
    free(space->points);
    memset(space, 0, sizeof *space);
}
