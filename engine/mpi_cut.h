/* mpi_cut.h - the cut of a partition of rows over ranks (mpi_cut.c): what one SpMV must move
 * between ranks when x is owned like y. Needs no MPI (bench_cut counts it for any rank count). */
#ifndef RVS_MPI_CUT_H
#define RVS_MPI_CUT_H

#include "rvs.h"

/* edge_cut: entries a_ij whose row i and column j belong to different ranks; volume: over the
 * columns, the ranks other than the column's owner with an entry in it (the x entries one call
 * moves); max_recv, max_send: the most x entries one rank receives, sends; pairs: ordered pairs of
 * ranks with something to send (messages per call). */
typedef struct {
    int64_t edge_cut, volume, max_recv, max_send;
    int64_t max_traffic; /* the most x entries one rank sends and receives together */
    int64_t pairs;
    int64_t node_out, node_in; /* with nodes: the most x entries one node sends to, receives from,
                                * other nodes (ranks node_size * n .. node_size * (n + 1) - 1 on node n) */
} rvs_mpi_cut;

/* The cut of A when rank row_owner[i] holds row i and rank col_owner[j] owns x_j; node_size > 0
 * also counts what crosses between nodes of that many consecutive ranks. */
rvs_status rvs_mpi_cut_count(const rvs_csr *A, const int32_t *row_owner, const int32_t *col_owner, int nranks,
                             int node_size, rvs_mpi_cut *cut, rvs_error *err);

/* The owners when part i of P goes to rank rank_of[i] (rank_of NULL: rank i): row_owner (A's rows)
 * and col_owner (A's columns: the owner of the row of the same index, columns past the last row
 * in equal blocks over the ranks), as rvs_mpi_setup hands them out. */
void rvs_mpi_owners(const rvs_partition *P, const int *rank_of, int nranks, int64_t rows, int64_t cols,
                    int32_t *row_owner, int32_t *col_owner);

/* The 2-D layout (mpi_grid.h, spmv-mpi --grid): R x C for nranks with R <= C, as square as
 * possible (6 -> 2 x 3, 7 -> 1 x 7). */
void rvs_mpi_grid_shape(int nranks, int *R, int *C);
/* What one call of the R x C layout moves, whatever the matrix: (R - 1) x entries of every column
 * (the expand) and (C - 1) partial y entries of every row (the fold). */
int64_t rvs_mpi_grid_volume(int64_t rows, int64_t cols, int R, int C);

#endif
