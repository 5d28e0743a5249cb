/* mpi_engine.h - SpMV over MPI ranks (spmv-mpi(1)): the partition's parts become ranks. Rank 0
 * holds the stream and sends each rank the rows of its parts with their columns numbered for
 * it (the x entries it owns first, in the order of its rows, then those it needs from other
 * ranks, grouped by owner); every rank learns once which of its entries each other rank needs,
 * and runs its parts with the engine's plan and runner. A call sends only those entries, and
 * computes the entries of owned columns while they travel. y stays distributed in the ranks' row
 * order; the check compares it on every rank with a reference of the rank's own rows.
 *
 * Built only when MPI is found; not part of librvskit. Every function is collective over the
 * communicator unless it says otherwise. Like the rest of the engine these functions never
 * print and never exit; on an error the caller must abort the communicator (MPI_Abort), since
 * the other ranks may be waiting for a message from this one. */
#ifndef RVS_MPI_ENGINE_H
#define RVS_MPI_ENGINE_H

#include <mpi.h>
#include "rvs_engine.h"

typedef struct rvs_mpi_spmv rvs_mpi_spmv;

/* Parts to ranks (mpi_assign.c): part i goes to rank number[i] when number (the partition's
 * binding, rvs_placement_get) is not NULL and number[i] >= 0; the other parts go, in partition
 * order, to consecutive ranks in runs of about equal computing power. RVS_ERR_ARG for a number
 * past the last rank; RVS_ERR_UNSUPPORTED for Algorithm 4, whose parts share rows. Not collective. */
rvs_status rvs_mpi_assign(const rvs_partition *P, const int32_t *number, int nranks, int *rank_of, rvs_error *err);

/* What a rank holds and exchanges. */
typedef struct {
    int rank, nranks;
    int parts;          /* parts of the partition on this rank */
    int64_t rows, nnz;  /* its rows of A, and their entries */
    int64_t owned_cols; /* x entries it owns (its rows' columns, then columns past the last row) */
    int64_t recv_cols;  /* x entries it receives per call, from recv_ranks ranks */
    int64_t send_cols;  /* x entries it sends per call, to send_ranks ranks */
    int64_t recv_nnz;   /* entries of its rows in received columns */
    int recv_ranks, send_ranks;
    rvs_vtype vtype; /* the stream's value type */
    int64_t global_rows, global_cols, global_nnz;
} rvs_mpi_info;

#include "mpi_cut.h"

/* Hand out the parts: rank 0 passes S, its matrix and partition (with at least one part; Algorithms
 * 1-3), and rank_of (rvs_mpi_assign); the other ranks pass NULL for both. Every rank then holds
 * the rows of its parts with its columns numbered and its exchange lists, as a local stream of
 * its owned-column entries, one part per part, and its received-column entries beside it (they
 * become parts of their own in rvs_mpi_prepare). cut (rank 0, may be NULL) receives the
 * partition's cut. With release (rank 0), S's matrix is handed out in place when every rank's
 * rows are a run of it and rank 0's come first, else the ranks' rows are copied out in one pass
 * that gives its entries back, and the rows sent are given back as they leave, so that rank 0
 * never holds the matrix twice: S->A's arrays are then not to be read again (they may be NULL),
 * and the row lists of S's parts are freed (NULL), or M's until rvs_mpi_free. Only rank 0 holds
 * arrays over all the matrix's rows or columns. */
rvs_status rvs_mpi_setup(rvs_mpi_spmv **M, rvs_stream *S, const int *rank_of, MPI_Comm comm, int release,
                         rvs_mpi_cut *cut, rvs_error *err);

/* Plan this rank's parts with the engine (po->mode, po->vtype; formats: a part keeps the format
 * of its block in S, else po's rule; the received-column entries, one part per device, in
 * format halo, 0 for po's rule) and build its runner, which may give the rank's entries back as
 * it builds (po->consume); with GPU items also the gather of sent entries that a resident call
 * uses. A rank with no rows plans nothing. Not collective. */
rvs_status rvs_mpi_prepare(rvs_mpi_spmv *M, const rvs_engine_devices *dev, const rvs_plan_options *po,
                           rvs_format_id halo, rvs_error *err);

void rvs_mpi_get_info(const rvs_mpi_spmv *M, rvs_mpi_info *info);
/* The rank's plan (NULL before rvs_mpi_prepare or without rows), and its local stream (after
 * rvs_mpi_prepare its owned-column parts keep their row counts, not their row lists). */
const rvs_plan *rvs_mpi_plan(const rvs_mpi_spmv *M);
const rvs_stream *rvs_mpi_local(const rvs_mpi_spmv *M);

/* x from rank 0 into every rank's owned entries: from xd (cols values; NULL on other ranks), or,
 * when rank 0 passes NULL, entry j drawn from seed as rvs_fill_x draws it (no rank then holds an
 * array of all of x). */
rvs_status rvs_mpi_scatter_x(rvs_mpi_spmv *M, const double *xd, uint64_t seed, rvs_error *err);
/* y from every rank into rank 0's yd (rows values; NULL on other ranks), by global row. */
rvs_status rvs_mpi_gather_y(rvs_mpi_spmv *M, double *yd, rvs_error *err);

/* Times of one call on one rank, milliseconds. */
typedef struct {
    double call_ms;     /* host clock: the whole call, x in to y out */
    double exchange_ms; /* host clock: from posting the exchange to its end (pack, send, receive) */
    double wait_ms;     /* of exchange_ms, the time the host waited in MPI for it */
    double phase0_ms;   /* the owned-column entries: GPU graph (events), or CPU items (host clock) */
    double phase1_ms;   /* the received-column entries, likewise */
    double idle_ms;     /* GPU: time between the owned part's end and the received part's start,
                          * the exchange the computation did not hide (events) */
    double gpu_ms;      /* GPU: x in (resident: the gather of sent entries) to y out (events) */
} rvs_mpi_times;

/* y = A*x on every rank: the sent x entries packed and sent while the owned-column entries run,
 * then the received ones. resident 0: owned x is copied from rvs_mpi_x to the GPU and y back to
 * rvs_mpi_y (a call with host vectors), the exchange through host memory; resident 1: x and y
 * stay on the GPU, the sent entries gathered there and staged through the host, or copied GPU to
 * GPU by the pairs rvs_mpi_choose_exchange made peer (a solver's step between vector updates;
 * needs one call with resident 0 first); resident 2: as 1, then y copied to rvs_mpi_y (a resident
 * call checked). poison: y filled with NaN first (not timed). Point-to-point with this rank's
 * neighbours only; every rank must call. */
rvs_status rvs_mpi_call(rvs_mpi_spmv *M, int resident, int poison, rvs_mpi_times *t, rvs_error *err);

/* How the x entries of resident calls travel between two ranks (spmv-mpi --exchange). */
typedef enum { RVS_MPI_EXCHANGE_AUTO, RVS_MPI_EXCHANGE_HOST, RVS_MPI_EXCHANGE_PEER } rvs_mpi_exchange;

/* After rvs_mpi_prepare, how each pair of neighbours exchanges in resident calls: host, through
 * host memory, as calls with host vectors always do; peer, GPU to GPU, the pair's ranks driving
 * GPUs of one node (MPI_COMM_TYPE_SHARED; the same GPU too): the sender's packed entries
 * (M->dsend) are exported once as a CUDA IPC handle, and the receiver copies its entries out of
 * them into its x on the GPU; auto, peer for every pair that can, host for the others. A pair
 * that cannot with peer fails the job: the lowest rank that has one returns RVS_ERR_NODEV with
 * the reason and the others RVS_OK, every pair then on host. Without this call every pair
 * exchanges through host memory. */
rvs_status rvs_mpi_choose_exchange(rvs_mpi_spmv *M, rvs_mpi_exchange want, rvs_error *err);
/* The rank's exchange in resident calls, over its pairs both ways: "peer", "host", "peer+host",
 * or "-" without neighbours. Not collective. */
const char *rvs_mpi_exchange_name(const rvs_mpi_spmv *M);
/* The rank's receives in resident calls, "S peer" or "S host" for each sender S, into buf; why
 * one of its pairs stages through host memory ("" when none does). Not collective. */
void rvs_mpi_exchange_pairs(const rvs_mpi_spmv *M, char *buf, size_t n);
const char *rvs_mpi_exchange_why(const rvs_mpi_spmv *M);

/* Host x of the rank's columns (owned ones first: the caller may fill [0, owned_cols)) and its
 * rows of y, in the plan's value type; NULL before rvs_mpi_prepare or without rows. */
void *rvs_mpi_x(rvs_mpi_spmv *M);
void *rvs_mpi_y(rvs_mpi_spmv *M);
/* The value type calls run in (the plan's). */
rvs_vtype rvs_mpi_vtype(const rvs_mpi_spmv *M);

/* The check's reference, before rvs_mpi_prepare (which may give the rows back), by po (mode,
 * vtype, fallback) and halo as rvs_mpi_prepare will take them. When every rank will run its rows
 * where they are (f64 CSR on the CPU), nothing is made: po->consume is cleared and rvs_mpi_check
 * sums the reference from the rows. Otherwise x as rvs_mpi_scatter_x takes it, rounded to
 * po->vtype, goes into a double x of the rank's columns for the time of this call, is exchanged
 * once, and every rank keeps its reference y and row scales (16 bytes a row). Either way the
 * sums are rvs_spmv_reference's: a row's owned-column entries, then the others added. */
rvs_status rvs_mpi_check_prepare(rvs_mpi_spmv *M, rvs_plan_options *po, rvs_format_id halo, const double *xd,
                                 uint64_t seed, rvs_error *err);
/* y of the last call against the reference by rvs_spmv_check_ref's rule and tolerance tol, on
 * every rank; rank 0 receives the job's largest error and its global row (-1 without rows; ties:
 * the first row) and returns RVS_ERR_CHECK past tol, the other ranks RVS_OK. */
rvs_status rvs_mpi_check(rvs_mpi_spmv *M, double tol, double *max_err, int64_t *row, rvs_error *err);

void rvs_mpi_free(rvs_mpi_spmv *M);

/* ---- the node (mpi_node.c) ---- */

/* This rank's place on its node: local rank and ranks on the node; the CPU threads it may use
 * (the CPUs of its affinity mask, or the node's CPUs over its ranks when every rank may use them
 * all); and, when gpu is set and the node has GPUs, the GPU it drives (local rank modulo the
 * GPUs, made current) into *device, else -1. */
rvs_status rvs_mpi_node(MPI_Comm comm, int gpu, int *local_rank, int *local_size, int *threads, int *device,
                        rvs_error *err);

/* An MPI error code as an rvs_status with its text ("MPI_Isend: ..."). */
rvs_status rvs_mpi_fail(rvs_error *err, int code, const char *call);

#endif
