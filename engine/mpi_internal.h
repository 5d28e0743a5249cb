/* mpi_internal.h - the state of a rank's share of an MPI SpMV, shared by the mpi_*.c files
 * (mpi_setup.c: parts handed out; mpi_rows.c: rank 0 numbers each rank's columns and sends its
 * rows; mpi_local.c: the local stream; mpi_halo.c: the exchange lists and messages; mpi_call.c:
 * planning and the call; mpi_peer.c: the GPU-to-GPU pairs; mpi_vector.c: x and y; mpi_check.c:
 * the check's reference) */
#ifndef RVS_MPI_INTERNAL_H
#define RVS_MPI_INTERNAL_H

#include "mpi_engine.h"
#include "rvs_draw.h"
#include "spmv_internal.h"

#define RVS_MPI_TAG_SETUP 7100 /* messages of the set-up */
#define RVS_MPI_TAG_HALO 7200  /* x entries of a call */
#define RVS_MPI_TAG_VEC 7300   /* x scattered, y gathered */
#define RVS_MPI_TAG_PEER 7400  /* device-to-device pairs: offer, reply (set-up), ready, done (a call), closed */
#define RVS_MPI_TAG_READY (RVS_MPI_TAG_PEER + 2) /* a sender's entries are gathered on its GPU */

/* One neighbour: the rank, and where its entries lie in the x of the call. */
typedef struct {
    int rank;
    int64_t first, count; /* receive: local columns [first, first + count); send: send_idx[first..) */
    int peer;             /* resident calls: GPU to GPU (mpi_peer.c), else through host memory */
    void *mapped;         /* receive, peer: the sender's packed entries (M->dsend) mapped here */
    int64_t src_first;    /* receive, peer: where this rank's entries start there */
} rvs_mpi_peer;

struct rvs_mpi_spmv {
    MPI_Comm comm;
    int rank, nranks;
    rvs_mpi_info info;
    /* the parts of this rank, in partition order: global index, device, format of its block */
    int nparts;
    int *part;
    rvs_device *part_dev;
    rvs_format_id *part_fmt;
    double *part_cp;
    int64_t *part_rows; /* rows of each part */
    /* rank 0: every rank's rows in its local order: rank r's rank_off[r + 1] - rank_off[r] rows
     * are rank_rows[r][i], or rank_first[r] + i when rank_rows[r] is NULL (a run); an array is
     * a part's row list of the stream (a rank of one part) or, when rank_rows_mine[r], its own */
    int64_t **rank_rows, *rank_first, *rank_off;
    char *rank_rows_mine;
    rvs_stream L;        /* local rows, local columns: the entries in columns < rows (the
                             * owned ones), one part per part of the rank; rvs_mpi_prepare adds
                             * the received-column parts, which run from their blocks */
    rvs_csr H;           /* the entries in columns >= rows (received ones, and owned columns
                             * past the last row) of the rows that have any, until rvs_mpi_prepare
                             * makes them blocks */
    int64_t *far;        /* local row of each row of H */
    double *ref, *scale; /* the check's reference y and row scales (rvs_mpi_check_prepare) */
    /* the exchange */
    int nrecv, nsend;
    rvs_mpi_peer *recv, *send;
    int32_t *send_idx; /* local x index of every sent entry, grouped by destination */
    void *sendbuf;     /* pinned with a GPU */
    MPI_Request *req;
    /* the run */
    rvs_plan P;
    int planned;
    rvs_spmv_engine *E;
    void *graph[2]; /* GPU items of owned columns, of received columns */
    void *s1;       /* GPU stream of the received entries' copy */
    void *ev[8];
    int gpu;
    rvs_vtype vt; /* the plan's value type (the stream's before planning) */
    void *xbuf;   /* x of a rank without rows (it may own columns past the last row) */
    int pinned;   /* sendbuf is pinned host memory */
    rvs_fmt sel;  /* resident calls: the gather of sent entries as a 0/1 CSR */
    rvs_gpu_fmt sel_gpu;
    void *dsend;
    int resident_ready; /* a call with host x has put owned x on the GPU */
    /* device-to-device pairs (mpi_peer.c) */
    rvs_mpi_exchange exchange; /* as asked (rvs_mpi_choose_exchange) */
    int peer_recv, peer_send;  /* pairs that exchange GPU to GPU in resident calls */
    int peer_posted;           /* this call's receives from them wait for 'ready' */
    MPI_Request *pend;         /* 'done' messages of the last resident call, sent and awaited */
    int npend;
    char why[200]; /* why a pair of this rank stages through host memory ("" when none does) */
};

/* Columns past the last row owned by rank r: [first, first + count), equal blocks over the ranks. */
static inline void rvs_mpi_extra_cols(int64_t rows, int64_t cols, int nranks, int r, int64_t *first, int64_t *count)
{
    const int64_t n = cols > rows ? cols - rows : 0;
    const int64_t a = (int64_t)((__int128)n * r / nranks), b = (int64_t)((__int128)n * (r + 1) / nranks);
    *first = rows + a;
    *count = b - a;
}

/* Rank 0: the global row of rank r's local row i. */
static inline int64_t rvs_mpi_row(const rvs_mpi_spmv *M, int r, int64_t i)
{
    return M->rank_rows[r] ? M->rank_rows[r][i] : M->rank_first[r] + i;
}

/* MPI datatype of a value type. */
static inline MPI_Datatype rvs_mpi_type(rvs_vtype vt)
{
    return vt == RVS_F64 ? MPI_DOUBLE : MPI_FLOAT;
}

/* Send or receive n bytes in messages MPI can count (at most 1 GiB each). */
rvs_status rvs_mpi_send_bytes(const void *buf, size_t n, int dest, int tag, MPI_Comm comm, rvs_error *err);
rvs_status rvs_mpi_recv_bytes(void *buf, size_t n, int src, int tag, MPI_Comm comm, rvs_error *err);
rvs_status rvs_mpi_bcast_bytes(void *buf, size_t n, int root, MPI_Comm comm, rvs_error *err);
/* Rank 0's header h of *n values to every rank: the others learn *n and allocate *h. */
rvs_status rvs_mpi_bcast_header(int64_t **h, int64_t *n, MPI_Comm comm, rvs_error *err);

/* Rank 0: every rank r's rows of A (rvs_mpi_row), columns numbered for r (owned ones at their
 * place, received ones after them grouped by owner, ascending), sent to r, or into *C0 with the
 * received columns' places at their owners (*pos0, counts per owner in per_owner0[K + 1]) for
 * rank 0 itself. owner and pos: over max(rows, cols) indices, the rank and the place there of
 * each row and column (rvs_mpi_setup). With release, A's entries are given back as they go and
 * A's arrays are freed or taken (NULL then): when every rank's rows are a run and rank 0's starts
 * the matrix, A's arrays are numbered and sent in place and rank 0 keeps its run in them, else
 * every rank's rows are first copied out in one pass over A (mpi_rows.c). */
rvs_status rvs_mpi_send_rows(rvs_mpi_spmv *M, rvs_csr *A, const int32_t *owner, const int32_t *pos, int release,
                             rvs_csr *C0, int32_t **pos0, int64_t *per_owner0, rvs_error *err);
/* Ranks but 0: their rows as rank 0 sent them, into C, with *pos and per_owner as above. */
rvs_status rvs_mpi_recv_rows(rvs_mpi_spmv *M, rvs_csr *C, int32_t **pos, int64_t *per_owner, rvs_error *err);

/* Build M->L from this rank's rows (C, taken over: columns local, owned ones first and the first
 * M->info.rows of them mirroring the rows, every row sorted): the entries in columns >= rows
 * move to M->H (C's pages given back as they go), the rest is L's matrix, with one part per
 * part of the rank (mpi_local.c). */
rvs_status rvs_mpi_local_stream(rvs_mpi_spmv *M, rvs_csr *C, rvs_error *err);
/* Sort the entries of every row of C (32-bit columns) by column (mpi_local.c). */
rvs_status rvs_mpi_sort_rows(rvs_csr *C, rvs_error *err);
/* A format block of L's part i in format id, added to L (the planner takes it as the part's format). */
rvs_status rvs_mpi_local_block(rvs_stream *L, int i, rvs_format_id id, rvs_error *err);
/* The received-column parts, one per device the rank's parts run on in mode (GPU first), each
 * with a block of its rows of M->H in format halo (0: po's rule), H's values in po->vtype; H and
 * M->far are taken over (mpi_local.c). */
rvs_status rvs_mpi_halo_parts(rvs_mpi_spmv *M, rvs_run_mode mode, const rvs_plan_options *po, rvs_format_id halo,
                              rvs_error *err);

/* Exchange lists from the received columns' places at their owners (pos, grouped by owner in
 * rank order, per_owner[q] .. per_owner[q + 1] from rank q): every rank tells each owner which
 * of its entries it needs (mpi_halo.c). */
rvs_status rvs_mpi_halo_lists(rvs_mpi_spmv *M, const int32_t *pos, const int64_t *per_owner, rvs_error *err);

/* Post the receives and the sends of one call (sent entries packed from host x, or, resident,
 * already in sendbuf, and GPU-to-GPU pairs passing 'ready'); wait for them all, queueing each
 * GPU-to-GPU copy as its 'ready' arrives. */
rvs_status rvs_mpi_halo_post(rvs_mpi_spmv *M, int packed, rvs_error *err);
rvs_status rvs_mpi_halo_wait(rvs_mpi_spmv *M, rvs_error *err);
/* The exchange of one call on x, a double array of the rank's columns (its owned entries set):
 * the received entries arrive in their places (mpi_halo.c). */
rvs_status rvs_mpi_halo_exchange(rvs_mpi_spmv *M, double *x, rvs_error *err);

/* Device-to-device pairs (mpi_peer.c). Before a resident call reuses M->dsend: wait until the
 * receivers of the last one copied out of it (and this rank's 'done' messages left). */
rvs_status rvs_mpi_peer_settle(rvs_mpi_spmv *M, rvs_error *err);
/* Queue on M->s1 the copy of receive i's entries from the sender's GPU into this rank's x (its
 * 'ready' arrived). */
rvs_status rvs_mpi_peer_copy(rvs_mpi_spmv *M, int i, rvs_error *err);
/* After a resident call's copies ran: tell each sender (and post the wait for this call's
 * receivers' word: rvs_mpi_peer_settle). */
rvs_status rvs_mpi_peer_done(rvs_mpi_spmv *M, rvs_error *err);
void rvs_mpi_peer_free(rvs_mpi_spmv *M);

/* Rank 0: x from xd, or drawn from seed, rounded to round, into every rank's owned entries of
 * dst (dst_vt; dst NULL on rank 0 when it has no columns) (mpi_vector.c). */
rvs_status rvs_mpi_scatter_owned(rvs_mpi_spmv *M, const double *xd, uint64_t seed, rvs_vtype round, void *dst,
                                 rvs_vtype dst_vt, rvs_error *err);

/* A rank's largest error of y against its reference: the error, its row (-1: no row), and
 * whether the row's scale overflowed (no tolerance bounds it). */
typedef struct {
    double e;
    int64_t row;
    int overflowed;
} rvs_mpi_worst;
/* Every rank's worst row gathered on rank 0, which takes the largest error (ties: the first global
 * row; global(ctx, r, i): rank r's row i as a global row, NULL when the rows are global already)
 * and returns RVS_ERR_CHECK past tol; the other ranks RVS_OK (mpi_check.c). */
rvs_status rvs_mpi_job_worst(MPI_Comm comm, const rvs_mpi_worst *mine,
                             int64_t (*global)(const void *, int, int64_t), const void *ctx, double tol,
                             double *max_err, int64_t *row, rvs_error *err);

/* x_j as rank 0 hands it out: from xd, or drawn from seed, rounded to round; 0 past the last
 * column (the ranks' x may be longer than the matrix's). */
static inline double rvs_mpi_x_value(const double *xd, uint64_t seed, int64_t cols, rvs_vtype round, int64_t j)
{
    double v = j >= cols ? 0.0 : xd ? xd[j] : rvs_draw(seed, j, rvs_vtype_real(round) == RVS_F32);
    return rvs_vtype_real(round) == RVS_F32 ? (double)(float)v : v;
}

#endif
