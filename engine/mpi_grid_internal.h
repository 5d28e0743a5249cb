/* mpi_grid_internal.h - a rank's share of a 2-D SpMV, shared by mpi_grid.c (set-up, x and y) and
 * mpi_grid_call.c (the plan, the call, the check) */
#ifndef RVS_MPI_GRID_INTERNAL_H
#define RVS_MPI_GRID_INTERNAL_H

#include "mpi_grid.h"
#include "mpi_internal.h"

struct rvs_mpi_grid {
    MPI_Comm comm, row_comm, col_comm; /* all ranks; process row i (by j); process column j (by i) */
    int rank, nranks, R, C, i, j;
    rvs_mpi_info info;
    int64_t *row_cut, *col_cut;     /* R + 1 and C + 1 bounds of the row and column blocks */
    int64_t row0, rows, col0, cols; /* this rank's block */
    int *xcount, *xdispl;           /* column block j's x: the R pieces of the process column */
    int *ycount;                    /* row block i's y: the C pieces of the process row */
    int64_t x_first, x_n;           /* this rank's piece of x, global columns */
    int64_t y_first, y_n;           /* its piece of y, global rows */
    rvs_stream L;                   /* the block, columns local, one part of all its rows */
    rvs_plan P;
    int planned;
    rvs_spmv_engine *E;
    rvs_vtype vt;          /* the plan's value type */
    void *xmine, *ymine;   /* the rank's pieces of x and y (vt) */
    void *xblock, *yblock; /* without a runner: column block j's x, the partial y (zero) */
    double *ref, *scale;   /* the check's reference of the rank's piece of y */
    /* resident calls (mpi_grid_resident.c), on ranks whose block runs all on the GPU */
    int gpu;               /* such a rank */
    int resident_ready;    /* dxmine and dymine hold the pieces */
    void *dxmine, *dymine; /* the rank's pieces of x and y on the GPU (vt) */
    void *stage;           /* pinned: the x piece sent, then the y piece received */
    void *fold;            /* the fold's C - 1 partial y pieces received (mpi_grid_coll.c) */
    /* rank 0, with the random permutation: the matrix's row and column of each row and column of
     * the permuted one, and the permuted column of each of the matrix's columns */
    int64_t *row_old, *col_old, *col_new;
};

/* Rank 0: x from xd, or drawn from seed, rounded to round, into every rank's piece of x in dst
 * (vt; rank 0's own into dst). */
rvs_status rvs_mpi_grid_scatter_owned(rvs_mpi_grid *G, const double *xd, uint64_t seed, rvs_vtype round, void *dst,
                                      rvs_vtype vt, rvs_error *err);

/* The expand: the process column's pieces of x (this rank's: mine) into x, the column block's x.
 * The fold: the process row's partial y of the row block (this rank's: y) summed into out, the
 * rank's piece of y. Point-to-point, each piece whole (mpi_grid_coll.c). */
rvs_status rvs_mpi_grid_expand(rvs_mpi_grid *G, const void *mine, void *x, rvs_error *err);
rvs_status rvs_mpi_grid_fold(rvs_mpi_grid *G, const void *y, void *out, rvs_error *err);

/* The resident call (mpi_grid_resident.c): resident 1 or 2 on a rank with G->gpu. */
rvs_status rvs_mpi_grid_call_resident(rvs_mpi_grid *G, int resident, int poison, rvs_mpi_times *t, rvs_error *err);
/* Its buffers given back (rvs_mpi_grid_free). */
void rvs_mpi_grid_resident_free(rvs_mpi_grid *G);

/* Rank 0: the permutation of A's rows and columns drawn from seed into G (row_old, col_old,
 * col_new): one for both when A is square (symmetric), one each otherwise (mpi_grid_permute.c). */
rvs_status rvs_mpi_grid_permute(rvs_mpi_grid *G, const rvs_csr *A, uint64_t seed, rvs_error *err);
/* Rank 0: A's row of the permuted matrix's row r (r itself without a permutation). */
static inline int64_t rvs_mpi_grid_row_old(const rvs_mpi_grid *G, int64_t r)
{
    return G->row_old ? G->row_old[r] : r;
}

#endif
