/* mpi_grid.h - SpMV over MPI ranks in a 2-D layout (spmv-mpi --grid RxC), as in CombBLAS and
 * Boman et al. (SC'13): the rows are cut into R row blocks and the columns into C column blocks,
 * each balanced by non-zeros, and rank r = i * C + j holds block (i, j), its columns numbered
 * from the column block's first. x is spread over the ranks of process column j (each 1/R of
 * column block j's entries), y over those of process row i (each 1/C of row block i's). A call
 * gathers column block j's x within the process column (expand), runs the block with the
 * engine's plan and runner, and sums the partial y within the process row, each rank receiving
 * its piece (fold; both point to point, mpi_grid_coll.c): a rank exchanges with R + C - 2 others
 * at most, whatever the matrix. Collective over the communicator unless said otherwise; never prints,
 * never exits (on an error the caller aborts the communicator). */
#ifndef RVS_MPI_GRID_H
#define RVS_MPI_GRID_H

#include "mpi_engine.h"

typedef struct rvs_mpi_grid rvs_mpi_grid;

/* rvs_mpi_grid_shape and rvs_mpi_grid_volume, which need no MPI, are in mpi_cut.h. */

/* The bounds of piece p of k pieces of [0, n): [*first, *first + *count). Not collective. */
void rvs_mpi_grid_piece(int64_t n, int k, int p, int64_t *first, int64_t *count);

/* Cut n rows (or columns) whose entries prefix-sum to prefix[0..n] into k blocks of about equal
 * entries (by rows when there are none): block b is [cut[b], cut[b + 1]). Not collective. */
void rvs_mpi_grid_cut(const int64_t *prefix, int64_t n, int k, int64_t *cut);

/* Hand out the blocks of an R x C grid (R * C ranks in comm): rank 0 passes A, the others NULL.
 * With permute (rank 0's counts), the layout is that of A's rows and columns permuted at random
 * (from seed; symmetric when A is square): x, y and the check's rows stay A's, numbered as in A.
 * With release, A's entries are given back row block by row block as they are sent (at the end
 * with a permutation), so that rank 0 holds the matrix and one row block's copy at most; A is
 * then not to be read again. */
rvs_status rvs_mpi_grid_setup(rvs_mpi_grid **G, rvs_csr *A, int R, int C, MPI_Comm comm, int release, int permute,
                              uint64_t seed, rvs_error *err);

/* The check's reference before rvs_mpi_grid_prepare (which may give the block back): x as
 * rvs_mpi_grid_scatter_x takes it, rounded to vt, expanded once in double; each rank sums its
 * block's rows in double (rvs_spmv_reference), and the sums and row scales are folded in double
 * (16 bytes a row of the rank's piece of y kept). */
rvs_status rvs_mpi_grid_check_prepare(rvs_mpi_grid *G, rvs_vtype vt, const double *xd, uint64_t seed,
                                      rvs_error *err);

/* Plan the rank's block with the engine (po->mode CPU or GPU, po->vtype, po->fallback as the
 * format or 0 for the advisor's) and build its runner. A block without entries plans nothing:
 * its partial y is zero. Not collective. */
rvs_status rvs_mpi_grid_prepare(rvs_mpi_grid *G, const rvs_engine_devices *dev, const rvs_plan_options *po,
                                rvs_error *err);

/* x from rank 0 (xd, cols values, or drawn from seed when NULL) into every rank's piece. */
rvs_status rvs_mpi_grid_scatter_x(rvs_mpi_grid *G, const double *xd, uint64_t seed, rvs_error *err);

/* y = A*x: expand, the block's call, fold. poison: the rank's piece of y and the block's y
 * (resident: on the GPU too) filled with NaN first (not timed).
 *   resident 0: the host pieces of x and y (the block's GPU: x in, y out through host memory).
 *   resident 1: the rank's pieces of x and y live on the GPU (rvs_mpi_grid_upload, done by the
 *     first resident call): its x piece is copied to the host and gathered, the column block's x
 *     uploaded into the runner's, the block run on the GPU, its partial y downloaded and folded,
 *     and the rank's y piece uploaded; the host pieces are not read or written (a solver's step
 *     between vector updates on the GPU). Only the exchanged pieces cross PCIe.
 *   resident 2: as 1, then the y piece copied to the host piece (a resident call checked).
 * Ranks whose block runs on the CPU, or has no entries, make host calls whatever resident asks.
 * t: call_ms; phase0_ms the block (resident: x in, the graph, y out); exchange_ms the expand and
 * the fold (resident: with their copies of the rank's pieces), wait_ms the expand and fold alone;
 * gpu_ms the runner's GPU side (events). */
rvs_status rvs_mpi_grid_call(rvs_mpi_grid *G, int resident, int poison, rvs_mpi_times *t, rvs_error *err);

/* The host pieces of x and y onto the GPU for resident calls (device memory allocated the first
 * time); nothing on ranks that make host calls. Not collective. */
rvs_status rvs_mpi_grid_upload(rvs_mpi_grid *G, rvs_error *err);

/* y of the last call against the reference as rvs_mpi_check compares it (RVS_ERR_CHECK on rank
 * 0 past tol, with the job's largest error and its global row). */
rvs_status rvs_mpi_grid_check(rvs_mpi_grid *G, double tol, double *max_err, int64_t *row, rvs_error *err);

/* y into rank 0's yd (rows values; NULL on other ranks) in global row order. */
rvs_status rvs_mpi_grid_gather_y(rvs_mpi_grid *G, double *yd, rvs_error *err);

/* What the rank holds and moves: rows, nnz of its block; owned_cols its piece of x; recv_cols
 * and send_cols the x entries of the expand plus the partial y entries of the fold per call;
 * recv_ranks, send_ranks R - 1 + C - 1. Not collective. */
void rvs_mpi_grid_get_info(const rvs_mpi_grid *G, rvs_mpi_info *info);
/* The block's place (row block, column block) and its bounds in the matrix. Not collective. */
void rvs_mpi_grid_block(const rvs_mpi_grid *G, int *i, int *j, int64_t *row0, int64_t *rows, int64_t *col0,
                        int64_t *cols);
/* The bounds of the row blocks (R + 1) and column blocks (C + 1), of the permuted matrix with
 * a permutation. Not collective. */
void rvs_mpi_grid_cuts(const rvs_mpi_grid *G, const int64_t **row_cut, const int64_t **col_cut);
/* The block's plan (NULL without one). Not collective. */
const rvs_plan *rvs_mpi_grid_plan(const rvs_mpi_grid *G);
rvs_vtype rvs_mpi_grid_vtype(const rvs_mpi_grid *G);

void rvs_mpi_grid_free(rvs_mpi_grid *G);

#endif
