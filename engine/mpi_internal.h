/* mpi_internal.h - the state of a rank's share of an MPI SpMV, shared by the mpi_*.c files
 * (mpi_setup.c: parts handed out, columns numbered; mpi_local.c: the local stream; mpi_halo.c:
 * the exchange lists and messages; mpi_call.c: planning and the call; mpi_vector.c: x and y) */
#ifndef RVS_MPI_INTERNAL_H
#define RVS_MPI_INTERNAL_H

#include "mpi_engine.h"
#include "spmv_internal.h"

#define RVS_MPI_TAG_SETUP 7100 /* messages of the set-up */
#define RVS_MPI_TAG_HALO 7200  /* x entries of a call */
#define RVS_MPI_TAG_VEC 7300   /* x scattered, y gathered */

/* One neighbour: the rank, and where its entries lie in the x of the call. */
typedef struct {
    int rank;
    int64_t first, count;   /* receive: local columns [first, first + count); send: send_idx[first..) */
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
    int64_t *part_rows;     /* rows of each part */
    /* rank 0: every rank's rows in its local order, rank r's at rank_rows[rank_off[r] ..) */
    int64_t *rank_rows, *rank_off;
    rvs_stream L;           /* local rows, local columns, its parts split by column class */
    /* the exchange */
    int nrecv, nsend;
    rvs_mpi_peer *recv, *send;
    int32_t *send_idx;      /* local x index of every sent entry, grouped by destination */
    void *sendbuf;          /* pinned with a GPU */
    MPI_Request *req;
    /* the run */
    rvs_plan P;
    int planned;
    rvs_spmv_engine *E;
    void *graph[2];         /* GPU items of owned columns, of received columns */
    void *s1;               /* GPU stream of the received entries' copy */
    void *ev[8];
    int gpu;
    rvs_vtype vt;           /* the plan's value type (the stream's before planning) */
    void *xbuf;             /* x of a rank without rows (it may own columns past the last row) */
    int pinned;             /* sendbuf is pinned host memory */
    rvs_fmt sel;            /* resident calls: the gather of sent entries as a 0/1 CSR */
    rvs_gpu_fmt sel_gpu;
    void *dsend;
    int resident_ready;     /* a call with host x has put owned x on the GPU */
};

/* Columns past the last row owned by rank r: [first, first + count), equal blocks over the ranks. */
static inline void rvs_mpi_extra_cols(int64_t rows, int64_t cols, int nranks, int r, int64_t *first, int64_t *count)
{
    const int64_t n = cols > rows ? cols - rows : 0;
    const int64_t a = (int64_t)((__int128)n * r / nranks), b = (int64_t)((__int128)n * (r + 1) / nranks);
    *first = rows + a;
    *count = b - a;
}

/* MPI datatype of a value type. */
static inline MPI_Datatype rvs_mpi_type(rvs_vtype vt) { return vt == RVS_F64 ? MPI_DOUBLE : MPI_FLOAT; }

/* Send or receive n bytes in messages MPI can count (at most 1 GiB each). */
rvs_status rvs_mpi_send_bytes(const void *buf, size_t n, int dest, int tag, MPI_Comm comm, rvs_error *err);
rvs_status rvs_mpi_recv_bytes(void *buf, size_t n, int src, int tag, MPI_Comm comm, rvs_error *err);
rvs_status rvs_mpi_bcast_bytes(void *buf, size_t n, int root, MPI_Comm comm, rvs_error *err);

/* Build M->L from this rank's rows (C, taken over: columns already local, owned ones first and
 * the first M->info.rows of them mirroring the rows): one owned-column part per part of the
 * rank and one received-column part for the rows that hold such entries (mpi_local.c). */
rvs_status rvs_mpi_local_stream(rvs_mpi_spmv *M, rvs_csr *C, rvs_error *err);
/* A format block of L's part i in format id, added to L (the planner takes it as the part's format). */
rvs_status rvs_mpi_local_block(rvs_stream *L, int i, rvs_format_id id, rvs_error *err);

/* Exchange lists from the received columns' owners and global indices (ghost[k] of owner
 * gowner[k], grouped by owner in rank order): every rank tells each owner what it needs; the
 * owners turn the global indices into their local ones through pos (mpi_halo.c). */
rvs_status rvs_mpi_halo_lists(rvs_mpi_spmv *M, const int32_t *ghost, const int64_t *per_owner,
                              const int32_t *pos, rvs_error *err);

/* Post the receives and the sends of one call (sent entries packed from host x, or, resident,
 * already in sendbuf); wait for them all. */
rvs_status rvs_mpi_halo_post(rvs_mpi_spmv *M, int packed, rvs_error *err);
rvs_status rvs_mpi_halo_wait(rvs_mpi_spmv *M, rvs_error *err);


#endif
