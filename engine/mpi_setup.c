/* mpi_setup.c - handing out the parts: rank 0 tells every rank the matrix's shape, which rank
 * owns each column (the owner of the row of the same index; columns past the last row in equal
 * blocks over the ranks) and where it lies in the owner's x, then sends each rank the rows of its
 * parts; every rank numbers its columns, owned ones first, then the received ones grouped by
 * owner, ascending */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

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
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "%lld rows on one rank, %lld columns: the kernels index x "
                        "with 32 bits", (long long)I->rows, (long long)I->global_cols);
    return RVS_OK;
}

/* Rank 0: every rank's rows in its order, and for every column its owner and place there. */
static rvs_status owners(rvs_mpi_spmv *M, const rvs_stream *S, const int *rank_of, int32_t *row_owner,
                         int32_t *col_owner, int32_t *col_pos, rvs_error *err)
{
    const rvs_partition *P = &S->partition;
    const int64_t rows = S->A.rows, cols = S->A.cols;
    M->rank_off = calloc((size_t)M->nranks + 1, sizeof *M->rank_off);
    M->rank_rows = malloc((size_t)(rows ? rows : 1) * sizeof *M->rank_rows);
    if (!M->rank_off || !M->rank_rows)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)rows);
    for (int i = 0; i < P->k; i++)
        M->rank_off[rank_of[i] + 1] += P->parts[i].nrows;
    for (int r = 0; r < M->nranks; r++)
        M->rank_off[r + 1] += M->rank_off[r];
    for (int r = 0; r < M->nranks; r++) {
        int64_t at = M->rank_off[r];
        for (int i = 0; i < P->k; i++)
            if (rank_of[i] == r)
                for (int64_t j = 0; j < P->parts[i].nrows; j++, at++) {
                    const int64_t g = P->parts[i].rows[j];
                    M->rank_rows[at] = g;
                    row_owner[g] = r;
                    if (g < cols) {
                        col_owner[g] = r;
                        col_pos[g] = (int32_t)(at - M->rank_off[r]);
                    }
                }
    }
    for (int r = 0; r < M->nranks; r++) {
        int64_t first, count;
        rvs_mpi_extra_cols(rows, cols, M->nranks, r, &first, &count);
        for (int64_t j = first; j < first + count; j++) {
            col_owner[j] = r;
            col_pos[j] = (int32_t)(M->rank_off[r + 1] - M->rank_off[r] + j - first);
        }
    }
    return RVS_OK;
}

/* Rank 0: send each part to its rank (rowptr, columns, values), keeping its own in C0[]; with
 * release, every part copied first in one pass that gives the hub back (when the parts allow). */
static rvs_status send_parts(rvs_stream *S, const int *rank_of, rvs_csr *C0, MPI_Comm comm, int release,
                             rvs_error *err)
{
    rvs_status st = RVS_OK;
    const size_t vs = rvs_vtype_size(S->A.vtype);
    rvs_csr *cp = NULL;
    if (release)
        st = rvs_partition_split(&cp, NULL, &S->partition, &S->A, (int64_t)1 << 20, err);
    for (int i = 0, own = 0; i < S->partition.k && st == RVS_OK; i++) {
        rvs_csr C = {0};
        if (cp) {
            C = cp[i];
            memset(&cp[i], 0, sizeof cp[i]);
        } else {
            st = rvs_partition_extract(&C, &S->partition, i, &S->A, err);
        }
        if (st == RVS_OK && !C.colind)
            st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "64-bit column indices");
        if (st == RVS_OK && rank_of[i] == 0) {
            C0[own++] = C;
            continue;
        }
        const int d = rank_of[i], tag = RVS_MPI_TAG_SETUP;
        if (st == RVS_OK)
            st = rvs_mpi_send_bytes(&C.nnz, sizeof C.nnz, d, tag, comm, err);
        if (st == RVS_OK)
            st = rvs_mpi_send_bytes(C.rowptr, (size_t)(C.rows + 1) * 8, d, tag, comm, err);
        if (st == RVS_OK)
            st = rvs_mpi_send_bytes(C.colind, (size_t)C.nnz * 4, d, tag, comm, err);
        if (st == RVS_OK)
            st = rvs_mpi_send_bytes(C.values, (size_t)C.nnz * vs, d, tag, comm, err);
        rvs_csr_free(&C);
    }
    rvs_partition_split_free(cp, S->partition.k);
    return st;
}

/* The rows of this rank's parts, in order, global columns: C0 (rank 0) or from rank 0. */
static rvs_status gather_rows(rvs_mpi_spmv *M, rvs_csr *C, rvs_csr *C0, rvs_error *err)
{
    const rvs_vtype vt = M->info.vtype;
    const size_t vs = rvs_vtype_size(vt);
    rvs_status st = RVS_OK;
    for (int j = 0; j < M->nparts && st == RVS_OK; j++) {
        if (M->rank == 0)
            continue;
        int64_t nnz = 0;
        st = rvs_mpi_recv_bytes(&nnz, sizeof nnz, 0, RVS_MPI_TAG_SETUP, M->comm, err);
        if (st == RVS_OK && (nnz < 0 || nnz > M->info.global_nnz))
            st = rvs_fail(err, RVS_ERR_INTERNAL, "a part of %lld entries", (long long)nnz);
        if (st == RVS_OK)
            st = rvs_csr_alloc(&C0[j], M->part_rows[j], M->info.global_cols, nnz, vt, err);
        if (st == RVS_OK)
            st = rvs_mpi_recv_bytes(C0[j].rowptr, (size_t)(C0[j].rows + 1) * 8, 0, RVS_MPI_TAG_SETUP, M->comm, err);
        if (st == RVS_OK)
            st = rvs_mpi_recv_bytes(C0[j].colind, (size_t)nnz * 4, 0, RVS_MPI_TAG_SETUP, M->comm, err);
        if (st == RVS_OK)
            st = rvs_mpi_recv_bytes(C0[j].values, (size_t)nnz * vs, 0, RVS_MPI_TAG_SETUP, M->comm, err);
    }
    int64_t nnz = 0;
    for (int j = 0; j < M->nparts && st == RVS_OK; j++)
        nnz += C0[j].nnz;
    if (st == RVS_OK && M->nparts == 1) { /* one part: its rows are the rank's, no copy */
        *C = C0[0];
        memset(&C0[0], 0, sizeof C0[0]);
        M->info.nnz = nnz;
        return RVS_OK;
    }
    if (st == RVS_OK)
        st = rvs_csr_alloc(C, M->info.rows, M->info.global_cols, nnz, vt, err);
    int64_t r = 0, at = 0;
    for (int j = 0; j < M->nparts && st == RVS_OK; j++) {
        for (int64_t i = 0; i < C0[j].rows; i++, r++)
            C->rowptr[r + 1] = at + C0[j].rowptr[i + 1];
        memcpy(C->colind + at, C0[j].colind, (size_t)C0[j].nnz * 4);
        memcpy((char *)C->values + (size_t)at * vs, C0[j].values, (size_t)C0[j].nnz * vs);
        at += C0[j].nnz;
        rvs_csr_free(&C0[j]);
    }
    M->info.nnz = nnz;
    return st;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sort the entries of every row of C by column (the renumbering mixes owned and received ones). */
static rvs_status sort_rows(rvs_csr *C, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(C->vtype);
    int64_t longest = 0;
    for (int64_t i = 0; i < C->rows; i++)
        longest = C->rowptr[i + 1] - C->rowptr[i] > longest ? C->rowptr[i + 1] - C->rowptr[i] : longest;
    int bad = 0;
    #pragma omp parallel reduction(| : bad)
    {
        uint64_t *key = malloc((size_t)(longest + 1) * sizeof *key);
        char *val = malloc((size_t)(longest + 1) * vs);
        bad = !key || !val;
        #pragma omp for schedule(dynamic, 4096)
        for (int64_t i = 0; i < C->rows; i++) {
            const int64_t a = C->rowptr[i], n = C->rowptr[i + 1] - a;
            int sorted = 1;
            for (int64_t k = 1; k < n && sorted; k++)
                sorted = C->colind[a + k - 1] < C->colind[a + k];
            if (sorted || bad)
                continue;
            for (int64_t k = 0; k < n; k++)
                key[k] = (uint64_t)(uint32_t)C->colind[a + k] << 32 | (uint64_t)k;
            if (n > 32) {
                qsort(key, (size_t)n, sizeof *key, cmp_u64);
            } else {
                for (int64_t k = 1; k < n; k++) { /* insertion sort for short rows */
                    const uint64_t v = key[k];
                    int64_t m = k;
                    for (; m > 0 && key[m - 1] > v; m--)
                        key[m] = key[m - 1];
                    key[m] = v;
                }
            }
            char *row = (char *)C->values + (size_t)a * vs;
            memcpy(val, row, (size_t)n * vs);
            for (int64_t k = 0; k < n; k++) {
                C->colind[a + k] = (int32_t)(key[k] >> 32);
                memcpy(row + (size_t)k * vs, val + (size_t)(key[k] & 0xffffffffu) * vs, vs);
            }
        }
        free(key);
        free(val);
    }
    return bad ? rvs_fail(err, RVS_ERR_NOMEM, "out of memory sorting rows") : RVS_OK;
}

/* Number C's columns locally: owned ones at their place in this rank's x, received ones after
 * them grouped by owner (rank order), ascending; then the exchange lists. */
static rvs_status renumber(rvs_mpi_spmv *M, rvs_csr *C, const int32_t *col_owner, const int32_t *col_pos,
                           rvs_error *err)
{
    const int64_t cols = M->info.global_cols, own = M->info.owned_cols;
    const int me = M->rank;
    int32_t *mark = malloc((size_t)(cols ? cols : 1) * sizeof *mark);
    int64_t *per_owner = calloc((size_t)M->nranks + 1, sizeof *per_owner);
    int32_t *ghost = NULL;
    if (!mark || !per_owner) {
        free(mark);
        free(per_owner);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory numbering %lld columns", (long long)cols);
    }
    #pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < cols; j++)
        mark[j] = -1;
    #pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < C->nnz; p++) {
        const int32_t j = C->colind[p];
        if (col_owner[j] != me) {
            #pragma omp atomic write
            mark[j] = -2;
        }
    }
    int64_t nghost = 0;
    for (int64_t j = 0; j < cols; j++)
        if (mark[j] == -2)
            per_owner[col_owner[j] + 1]++, nghost++;
    for (int r = 0; r < M->nranks; r++)
        per_owner[r + 1] += per_owner[r];
    rvs_status st = RVS_OK;
    if (own + nghost > RVS_COL32_MAX)
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "%lld columns on rank %d: the kernels index x with 32 bits",
                      (long long)(own + nghost), me);
    if (st == RVS_OK && !(ghost = malloc((size_t)(nghost ? nghost : 1) * sizeof *ghost)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld received columns", (long long)nghost);
    if (st == RVS_OK) {
        int64_t *cursor = per_owner; /* per_owner[r] walks rank r's run; restored below */
        for (int64_t j = 0; j < cols; j++)
            if (mark[j] == -2) {
                const int64_t at = cursor[col_owner[j]]++;
                ghost[at] = (int32_t)j;
                mark[j] = (int32_t)(own + at);
            }
        for (int r = M->nranks; r > 0; r--)
            per_owner[r] = per_owner[r - 1];
        per_owner[0] = 0;
        int64_t recv_nnz = 0;
        #pragma omp parallel for schedule(static) reduction(+ : recv_nnz)
        for (int64_t p = 0; p < C->nnz; p++) {
            const int32_t j = C->colind[p];
            const int mine = col_owner[j] == me;
            C->colind[p] = mine ? col_pos[j] : mark[j];
            recv_nnz += !mine;
        }
        C->cols = own + nghost;
        M->info.recv_cols = nghost;
        M->info.recv_nnz = recv_nnz;
        st = sort_rows(C, err);
    }
    free(mark);
    if (st == RVS_OK)
        st = rvs_mpi_halo_lists(M, ghost, per_owner, col_pos, err);
    free(ghost);
    free(per_owner);
    return st;
}

rvs_status rvs_mpi_setup(rvs_mpi_spmv **out, rvs_stream *S, const int *rank_of, MPI_Comm comm, int release,
                         rvs_mpi_cut *cut, rvs_error *err)
{
    rvs_mpi_spmv *M = calloc(1, sizeof *M);
    int64_t hlen = 0, *h = NULL;
    int32_t *row_owner = NULL, *col_owner = NULL, *col_pos = NULL;
    rvs_csr *C0 = NULL, C = {0};
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
        st = rvs_mpi_bcast_bytes(&hlen, sizeof hlen, 0, comm, err);
    if (st == RVS_OK && M->rank != 0 && !(h = malloc((size_t)hlen * sizeof *h)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st == RVS_OK)
        st = rvs_mpi_bcast_bytes(h, (size_t)hlen * sizeof *h, 0, comm, err);
    if (st == RVS_OK)
        st = take_header(M, h, err);
    const int64_t rows = M->info.global_rows, cols = M->info.global_cols;
    if (st == RVS_OK) {
        col_owner = malloc((size_t)(cols ? cols : 1) * sizeof *col_owner);
        col_pos = malloc((size_t)(cols ? cols : 1) * sizeof *col_pos);
        C0 = calloc((size_t)(M->nparts ? M->nparts : 1), sizeof *C0);
        if (M->rank == 0 && !(row_owner = malloc((size_t)(rows ? rows : 1) * sizeof *row_owner)))
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        if (!col_owner || !col_pos || !C0)
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the owners of %lld columns", (long long)cols);
    }
    if (st == RVS_OK && M->rank == 0)
        st = owners(M, S, rank_of, row_owner, col_owner, col_pos, err);
    if (st == RVS_OK && M->rank == 0 && cut)
        st = rvs_mpi_cut_count(&S->A, row_owner, col_owner, M->nranks, 0, cut, err);
    if (st == RVS_OK)
        st = rvs_mpi_bcast_bytes(col_owner, (size_t)cols * sizeof *col_owner, 0, comm, err);
    if (st == RVS_OK)
        st = rvs_mpi_bcast_bytes(col_pos, (size_t)cols * sizeof *col_pos, 0, comm, err);
    if (st == RVS_OK && M->rank == 0)
        st = send_parts(S, rank_of, C0, comm, release, err);
    if (st == RVS_OK)
        st = gather_rows(M, &C, C0, err);
    if (st == RVS_OK)
        st = renumber(M, &C, col_owner, col_pos, err);
    free(row_owner);
    free(col_owner);
    free(col_pos);
    free(h);
    if (st == RVS_OK)
        st = rvs_mpi_local_stream(M, &C, err);
    for (int j = 0; C0 && j < M->nparts; j++)
        rvs_csr_free(&C0[j]);
    free(C0);
    rvs_csr_free(&C);
    if (st != RVS_OK)
        rvs_mpi_free(M);
    else
        *out = M;
    return st;
}
