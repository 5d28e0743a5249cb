/* mpi_setup.c - handing out the parts: rank 0 tells every rank the matrix's shape and its parts,
 * works out which rank owns each column (the owner of the row of the same index; columns past
 * the last row in equal blocks over the ranks) and where it lies in the owner's x, and sends each
 * rank its rows with their columns already numbered for it (mpi_rows.c); every rank then learns
 * its exchange lists and builds its local stream. No rank but 0 holds anything of the size of
 * the matrix's columns. */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"
#include "rvs_omp.h"

enum { H_ROWS, H_COLS, H_NNZ, H_VT, H_K, H_LEN };
enum { P_RANK, P_DEV, P_FMT, P_ROWS, P_CP, P_LEN }; /* per part; P_CP holds the double's bits */

/* Rank 0: the header (shape, and per part its rank, device, block format, rows and power). */
static rvs_status make_header(int64_t **H, const rvs_stream *S, const int *rank_of, rvs_error *err)
{
    const rvs_partition *P = &S->partition;
    int64_t *h = malloc((size_t)(H_LEN + P_LEN * P->k) * sizeof *h);
    if (!h)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    h[H_ROWS] = S->A.rows;
    h[H_COLS] = S->A.cols;
    h[H_NNZ] = S->A.nnz;
    h[H_VT] = S->A.vtype;
    h[H_K] = P->k;
    for (int i = 0; i < P->k; i++) {
        int64_t *q = h + H_LEN + P_LEN * i;
        const rvs_fmt *B = rvs_stream_block(S, i);
        q[P_RANK] = rank_of[i];
        q[P_DEV] = P->parts[i].device;
        q[P_FMT] = B ? B->id : 0;
        q[P_ROWS] = P->parts[i].nrows;
        memcpy(&q[P_CP], &P->parts[i].cp, sizeof(double));
    }
    *H = h;
    return RVS_OK;
}

/* This rank's parts and sizes from the header. */
static rvs_status take_header(rvs_mpi_spmv *M, const int64_t *h, rvs_error *err)
{
    const int k = (int)h[H_K];
    rvs_mpi_info *I = &M->info;
    I->global_rows = h[H_ROWS];
    I->global_cols = h[H_COLS];
    I->global_nnz = h[H_NNZ];
    I->vtype = (rvs_vtype)h[H_VT];
    for (int i = 0; i < k; i++)
        M->nparts += h[H_LEN + P_LEN * i + P_RANK] == M->rank;
    const size_t n = (size_t)(M->nparts ? M->nparts : 1);
    M->part = malloc(n * sizeof *M->part);
    M->part_dev = malloc(n * sizeof *M->part_dev);
    M->part_fmt = malloc(n * sizeof *M->part_fmt);
    M->part_cp = malloc(n * sizeof *M->part_cp);
    M->part_rows = malloc(n * sizeof *M->part_rows);
    if (!M->part || !M->part_dev || !M->part_fmt || !M->part_cp || !M->part_rows)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    int j = 0;
    for (int i = 0; i < k; i++) {
        const int64_t *q = h + H_LEN + P_LEN * i;
        if (q[P_RANK] != M->rank)
            continue;
        M->part[j] = i;
        M->part_dev[j] = (rvs_device)q[P_DEV];
        M->part_fmt[j] = (rvs_format_id)q[P_FMT];
        memcpy(&M->part_cp[j], &q[P_CP], sizeof(double));
        M->part_rows[j] = q[P_ROWS];
        I->rows += q[P_ROWS];
        j++;
    }
    int64_t first, count;
    rvs_mpi_extra_cols(I->global_rows, I->global_cols, M->nranks, M->rank, &first, &count);
    I->owned_cols = I->rows + count;
    I->parts = M->nparts;
    if (I->rows > RVS_COL32_MAX || I->global_cols > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "%lld rows on one rank, %lld columns: the kernels index x "
                        "with 32 bits",
                        (long long)I->rows, (long long)I->global_cols);
    return RVS_OK;
}

/* Rank 0: rank r's rows, the rows of its parts in partition order: nothing for a run, a part's
 * own list for a rank of one part, else a list of its own. */
static rvs_status rank_rows(rvs_mpi_spmv *M, const rvs_partition *P, const int *rank_of, int r, rvs_error *err)
{
    const int64_t n = M->rank_off[r + 1] - M->rank_off[r];
    int64_t *rows = NULL, at = 0, lo = 0;
    int parts = 0, last = -1;
    for (int i = 0; i < P->k; i++)
        if (rank_of[i] == r)
            parts++, last = i;
    if (parts == 1) {
        rows = P->parts[last].rows;
    } else if (!(rows = malloc((size_t)(n ? n : 1) * sizeof *rows))) {
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)n);
    } else {
        for (int i = 0; i < P->k; i++)
            if (rank_of[i] == r) {
                memcpy(rows + at, P->parts[i].rows, (size_t)P->parts[i].nrows * sizeof *rows);
                at += P->parts[i].nrows;
            }
        M->rank_rows_mine[r] = 1;
    }
    if (rvs_rows_consecutive(rows, n, &lo)) {
        if (M->rank_rows_mine[r])
            free(rows);
        M->rank_rows_mine[r] = 0;
        rows = NULL;
    }
    M->rank_rows[r] = rows;
    M->rank_first[r] = lo;
    return RVS_OK;
}

/* Rank 0: every rank's rows in its order, and over max(rows, cols) indices the owner and the
 * place there of each row and of each column: a row and the column of the same index go
 * together, and a matrix has either rows past its last column or columns past its last row. */
static rvs_status owners(rvs_mpi_spmv *M, const rvs_stream *S, const int *rank_of, int32_t *owner, int32_t *pos,
                         rvs_error *err)
{
    const rvs_partition *P = &S->partition;
    const int64_t rows = S->A.rows, cols = S->A.cols;
    const int K = M->nranks;
    M->rank_off = calloc((size_t)K + 1, sizeof *M->rank_off);
    M->rank_first = calloc((size_t)K, sizeof *M->rank_first);
    M->rank_rows = calloc((size_t)K, sizeof *M->rank_rows);
    M->rank_rows_mine = calloc((size_t)K, 1);
    rvs_status st = M->rank_off && M->rank_first && M->rank_rows && M->rank_rows_mine
                        ? RVS_OK
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < P->k && st == RVS_OK; i++)
        M->rank_off[rank_of[i] + 1] += P->parts[i].nrows;
    for (int r = 0; r < K && st == RVS_OK; r++)
        M->rank_off[r + 1] += M->rank_off[r];
    for (int r = 0; r < K && st == RVS_OK; r++)
        st = rank_rows(M, P, rank_of, r, err);
    for (int r = 0; r < K && st == RVS_OK; r++) {
        const int64_t n = M->rank_off[r + 1] - M->rank_off[r];
#pragma omp parallel for schedule(static) if (n > RVS_OMP_MIN_WORK)
        for (int64_t i = 0; i < n; i++) {
            const int64_t g = rvs_mpi_row(M, r, i);
            owner[g] = r;
            pos[g] = (int32_t)i;
        }
        int64_t first, count;
        rvs_mpi_extra_cols(rows, cols, K, r, &first, &count);
        for (int64_t j = first; j < first + count; j++) {
            owner[j] = r;
            pos[j] = (int32_t)(n + j - first);
        }
    }
    return st;
}

/* Every rank: the entries of C in received columns (local index >= owned_cols). */
static int64_t received_entries(const rvs_csr *C, int64_t own)
{
    int64_t n = 0;
#pragma omp parallel for schedule(static) reduction(+ : n)
    for (int64_t p = 0; p < C->nnz; p++)
        n += C->colind[p] >= own;
    return n;
}

/* Rank 0: the owners, the cut, and every rank's rows sent (its own into C, pos, per_owner). */
static rvs_status hand_out(rvs_mpi_spmv *M, rvs_stream *S, const int *rank_of, int release, rvs_mpi_cut *cut,
                           rvs_csr *C, int32_t **gpos, int64_t *per_owner, rvs_error *err)
{
    const int64_t n = S->A.rows > S->A.cols ? S->A.rows : S->A.cols;
    int32_t *owner = malloc((size_t)(n ? n : 1) * sizeof *owner), *pos = malloc((size_t)(n ? n : 1) * sizeof *pos);
    rvs_status st = owner && pos
                        ? RVS_OK
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the owners of %lld rows", (long long)n);
    if (st == RVS_OK)
        st = owners(M, S, rank_of, owner, pos, err);
    for (int i = 0; st == RVS_OK && release && i < S->partition.k; i++)
        if (M->rank_rows[rank_of[i]] != S->partition.parts[i].rows) { /* a run, or in a list of M's */
            free(S->partition.parts[i].rows);
            S->partition.parts[i].rows = NULL;
        }
    if (st == RVS_OK && cut)
        st = rvs_mpi_cut_count(&S->A, owner, owner, M->nranks, 0, cut, err);
    if (st == RVS_OK)
        st = rvs_mpi_send_rows(M, &S->A, owner, pos, release, C, gpos, per_owner, err);
    free(owner);
    free(pos);
    return st;
}

rvs_status rvs_mpi_setup(rvs_mpi_spmv **out, rvs_stream *S, const int *rank_of, MPI_Comm comm, int release,
                         rvs_mpi_cut *cut, rvs_error *err)
{
    rvs_mpi_spmv *M = calloc(1, sizeof *M);
    int64_t hlen = 0, *h = NULL, *per_owner = NULL;
    int32_t *pos = NULL;
    rvs_csr C = {0};
    rvs_status st = M ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    *out = NULL;
    if (st != RVS_OK)
        return st;
    M->comm = comm;
    MPI_Comm_rank(comm, &M->rank);
    MPI_Comm_size(comm, &M->nranks);
    M->info.rank = M->rank;
    M->info.nranks = M->nranks;
    if (M->rank == 0) {
        if (!S->has_partition || S->partition.k < 1)
            st = rvs_fail(err, RVS_ERR_ARG, "the stream has no partition");
        if (st == RVS_OK)
            st = make_header(&h, S, rank_of, err);
        hlen = st == RVS_OK ? H_LEN + P_LEN * S->partition.k : 0;
    }
    if (st == RVS_OK)
        st = rvs_mpi_bcast_header(&h, &hlen, comm, err);
    if (st == RVS_OK)
        st = take_header(M, h, err);
    free(h);
    if (st == RVS_OK && !(per_owner = calloc((size_t)M->nranks + 1, sizeof *per_owner)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st == RVS_OK)
        st = M->rank == 0 ? hand_out(M, S, rank_of, release, cut, &C, &pos, per_owner, err)
                          : rvs_mpi_recv_rows(M, &C, &pos, per_owner, err);
    if (st == RVS_OK) {
        M->info.nnz = C.nnz;
        M->info.recv_cols = per_owner[M->nranks];
        M->info.recv_nnz = received_entries(&C, M->info.owned_cols);
        st = rvs_mpi_halo_lists(M, pos, per_owner, err);
    }
    free(pos);
    free(per_owner);
    if (st == RVS_OK)
        st = rvs_mpi_local_stream(M, &C, err);
    rvs_csr_free(&C);
    if (st != RVS_OK)
        rvs_mpi_free(M);
    else
        *out = M;
    return st;
}
