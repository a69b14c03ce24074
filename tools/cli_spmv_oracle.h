/* The search space of clpk-bench-spmv's clpk-oracle: the explicit SpMV plans it measures for one matrix and
 * precision, in an order that lets a cap on the number of points drop the least plausible ones: CSR, then each BCCOO
 * group (format, block shape, slices) at its first tile, smallest footprint first, then the other tiles (the bench
 * orders those by their group's measured time). */
#ifndef CLPK_TOOLS_CLI_SPMV_ORACLE_H
#define CLPK_TOOLS_CLI_SPMV_ORACLE_H

#include <clpk.h>
#include <stdint.h>

/* A BCCOO group whose footprint exceeds this times the smallest BCCOO footprint is not measured: more bytes per
 * multiply than that does not win a bandwidth-bound product, and each point costs a conversion. */
#define CLI_ORACLE_FOOTPRINT_RATIO 2.0

typedef struct cli_oracle_point {
    char format[8];     /* csr, bccoo or bccoo+ */
    char params[96];    /* explicit parameters besides the format; the rest are the device's defaults */
    uint64_t footprint; /* bytes of the point's format and block shape (and slices) with col=auto; CSR's own */
    int group;          /* BCCOO: the index of its format and block shape (and slices) in the space; CSR: -1 */
    int later;          /* BCCOO at a tile after the first: worth measuring only where its group is fast */
} cli_oracle_point;

typedef struct cli_oracle_space {
    cli_oracle_point *points; /* CSR first (cheap to build), then BCCOO groups by footprint, smallest first */
    int count, groups;
    int pruned; /* BCCOO points left out for footprint > CLI_ORACLE_FOOTPRINT_RATIO x the smallest */
    uint64_t min_bccoo_footprint;
} cli_oracle_space;

/* The space for A in `precision`: CSR with every csr_vec the tuner searches (and every other CSR kernel); BCCOO with
 * every block shape the tuner searches, col auto|delta and tile 16|8|32; BCCOO+ with slices 2|4|8 the same way when A
 * is wider than tall. The value lists come from clpk_family_parameters (tile and slices: the part of the tuner's range
 * listed here). Footprints are counted without building anything (clpk_spmv_footprint). The caller frees with
 * cli_oracle_space_free. */
clpk_status cli_oracle_space_build(const clpk_csr *A, clpk_precision precision, cli_oracle_space *space,
                                   clpk_error *err);
void cli_oracle_space_free(cli_oracle_space *space);

#endif
