/* mpi_rows.c - rank 0 hands out the rows: rank by rank, the rows' columns numbered for the rank
 * (owned ones at their place in its x, the others after them grouped by owner, ascending) and
 * sent with the places of those columns at their owners; the ranks receive them. When every
 * rank's rows are a run of the matrix's (Algorithms 1 and 2), the matrix's own arrays are
 * numbered and sent in place, each run given back once sent, and rank 0 keeps the first run in
 * them: no copy. Otherwise every rank's rows are first copied out in one pass that gives the
 * matrix's entries back as it goes. Only rank 0 holds arrays over all the matrix's columns. */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"
#include "rvs_mem.h"
#include "rvs_omp.h"

enum { R_NNZ, R_RECV, R_LEN }; /* message head: entries, received columns, then per_owner[K + 1] */

/* Number C's columns for rank r, which owns own of them (mark: -1 for every column on entry and
 * on return); the received columns' places at their owners into *pos, grouped by owner. */
static rvs_status number_columns(rvs_csr *C, int r, int nranks, int64_t own, const int32_t *col_owner,
                                 const int32_t *col_pos, int32_t *mark, int32_t **pos, int64_t *per_owner,
                                 rvs_error *err)
{
    const int64_t cols = C->cols;
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < C->nnz; p++) {
        const int32_t j = C->colind[p];
        if (col_owner[j] != r) {
#pragma omp atomic write
            mark[j] = -2;
        }
    }
    memset(per_owner, 0, ((size_t)nranks + 1) * sizeof *per_owner);
    for (int64_t j = 0; j < cols; j++)
        per_owner[col_owner[j] + 1] += mark[j] == -2;
    for (int q = 0; q < nranks; q++)
        per_owner[q + 1] += per_owner[q];
    const int64_t n = per_owner[nranks];
    int64_t *at = malloc(((size_t)nranks + 1) * sizeof *at);
    rvs_status st = RVS_OK;
    if (own + n > RVS_COL32_MAX)
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "%lld columns on rank %d: the kernels index x with 32 bits",
                      (long long)(own + n), r);
    else if (!at || !(*pos = malloc((size_t)(n ? n : 1) * sizeof **pos)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld received columns", (long long)n);
    if (st != RVS_OK) {
        for (int64_t j = 0; j < cols; j++)
            mark[j] = -1;
        free(at);
        return st;
    }
    memcpy(at, per_owner, ((size_t)nranks + 1) * sizeof *at);
    for (int64_t j = 0; j < cols; j++) /* ascending within each owner's run */
        if (mark[j] == -2) {
            const int64_t k = at[col_owner[j]]++;
            (*pos)[k] = (int32_t)j;
            mark[j] = (int32_t)(own + k);
        }
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < C->nnz; p++) {
        const int32_t j = C->colind[p];
        C->colind[p] = col_owner[j] == r ? col_pos[j] : mark[j];
    }
    for (int64_t k = 0; k < n; k++) { /* global index -> place at the owner; marks restored */
        mark[(*pos)[k]] = -1;
        (*pos)[k] = col_pos[(*pos)[k]];
    }
    C->cols = own + n;
    free(at);
    return RVS_OK;
}

#define PIECE_BYTES ((size_t)16 << 20) /* entries go in messages of this size at most */

/* n bytes at p to rank r in pieces, each given back once sent: the receiver fills its copy as
 * the sender's shrinks, and the job never holds the rows twice. */
static rvs_status send_pieces(void *p, size_t n, int r, MPI_Comm comm, rvs_error *err)
{
    rvs_status st = RVS_OK;
    for (size_t at = 0; at < n && st == RVS_OK; at += PIECE_BYTES) {
        const size_t k = n - at < PIECE_BYTES ? n - at : PIECE_BYTES;
        if ((st = rvs_mpi_send_bytes((char *)p + at, k, r, RVS_MPI_TAG_SETUP, comm, err)) == RVS_OK)
            rvs_mem_give_back((char *)p + at, k);
    }
    return st;
}

/* n bytes into p from rank 0, in send_pieces' pieces. */
static rvs_status recv_pieces(void *p, size_t n, MPI_Comm comm, rvs_error *err)
{
    rvs_status st = RVS_OK;
    for (size_t at = 0; at < n && st == RVS_OK; at += PIECE_BYTES)
        st = rvs_mpi_recv_bytes((char *)p + at, n - at < PIECE_BYTES ? n - at : PIECE_BYTES, 0, RVS_MPI_TAG_SETUP,
                                comm, err);
    return st;
}

/* Rank 0: C, its received columns' places and counts to rank r; C's entries are given back as
 * they go. */
static rvs_status send_to(rvs_csr *C, const int32_t *pos, const int64_t *per_owner, int r, int nranks,
                          MPI_Comm comm, rvs_error *err)
{
    const int tag = RVS_MPI_TAG_SETUP;
    const int64_t n = per_owner[nranks];
    int64_t *head = malloc(((size_t)R_LEN + nranks + 1) * sizeof *head);
    if (!head)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    head[R_NNZ] = C->nnz;
    head[R_RECV] = n;
    memcpy(head + R_LEN, per_owner, ((size_t)nranks + 1) * sizeof *head);
    rvs_status st = rvs_mpi_send_bytes(head, ((size_t)R_LEN + nranks + 1) * sizeof *head, r, tag, comm, err);
    free(head);
    if (st == RVS_OK)
        st = rvs_mpi_send_bytes(C->rowptr, (size_t)(C->rows + 1) * 8, r, tag, comm, err);
    if (st == RVS_OK)
        st = send_pieces(C->colind, (size_t)C->nnz * 4, r, comm, err);
    if (st == RVS_OK)
        st = send_pieces(C->values, (size_t)C->nnz * rvs_vtype_size(C->vtype), r, comm, err);
    if (st == RVS_OK)
        st = rvs_mpi_send_bytes(pos, (size_t)n * 4, r, tag, comm, err);
    return st;
}

/* Rows [lo, lo + n) of A as a CSR over A's arrays (row pointers not rebased: the receiver
 * rebases them). */
static rvs_csr run_of(const rvs_csr *A, int64_t lo, int64_t n)
{
    rvs_csr V = *A;
    V.rows = n;
    V.rowptr = A->rowptr + lo;
    V.colind = A->colind + A->rowptr[lo];
    V.values = (char *)A->values + (size_t)A->rowptr[lo] * rvs_vtype_size(A->vtype);
    V.nnz = A->rowptr[lo + n] - A->rowptr[lo];
    return V;
}

/* 1 when every rank's rows are a run and rank 0's starts the matrix: A is handed out in place. */
static int in_place(const rvs_mpi_spmv *M)
{
    int ok = M->rank_off[1] == 0 || M->rank_first[0] == 0;
    for (int r = 0; ok && r < M->nranks; r++)
        ok = !M->rank_rows[r];
    return ok;
}

/* A's arrays freed, its shape kept. */
static void free_arrays(rvs_csr *A)
{
    free(A->rowptr);
    free(A->colind);
    free(A->values);
    A->rowptr = NULL;
    A->colind = NULL;
    A->values = NULL;
}

/* Every rank's rows copied out of A into copies[r], by the rows' owner and place (rows in rank
 * order), in one pass over A's rows in blocks of about 256K entries; with release each block's
 * entries go back once copied (A and the copies hold about one matrix together) and A's arrays
 * are freed at the end. */
static rvs_status copy_out(rvs_mpi_spmv *M, rvs_csr *A, const int32_t *owner, const int32_t *pos, int release,
                           rvs_csr *copies, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(A->vtype);
    rvs_status st = RVS_OK;
    for (int r = 0; r < M->nranks && st == RVS_OK; r++) {
        const int64_t n = M->rank_off[r + 1] - M->rank_off[r];
        int64_t nnz = 0;
        for (int64_t i = 0; i < n; i++) {
            const int64_t g = rvs_mpi_row(M, r, i);
            nnz += A->rowptr[g + 1] - A->rowptr[g];
        }
        if ((st = rvs_csr_alloc(&copies[r], n, A->cols, nnz, A->vtype, err)) != RVS_OK)
            break;
        copies[r].rowptr[0] = 0;
        for (int64_t i = 0; i < n; i++) {
            const int64_t g = rvs_mpi_row(M, r, i);
            copies[r].rowptr[i + 1] = copies[r].rowptr[i] + A->rowptr[g + 1] - A->rowptr[g];
        }
    }
    for (int64_t a = 0, b; a < A->rows && st == RVS_OK; a = b) {
        b = rvs_rows_within(A, a, A->rows, (int64_t)1 << 18);
#pragma omp parallel for schedule(dynamic, 4096)
        for (int64_t g = a; g < b; g++) {
            rvs_csr *C = &copies[owner[g]];
            const int64_t at = C->rowptr[pos[g]], p = A->rowptr[g], len = A->rowptr[g + 1] - p;
            memcpy(C->colind + at, A->colind + p, (size_t)len * sizeof *A->colind);
            memcpy((char *)C->values + (size_t)at * vs, (const char *)A->values + (size_t)p * vs, (size_t)len * vs);
        }
        if (release)
            rvs_csr_release_entries(A, A->rowptr[a], A->rowptr[b]);
    }
    if (st == RVS_OK && release)
        free_arrays(A);
    return st;
}

/* Rank 0: the rows of every rank, each copied out of A or (in place) a run of A, numbered for it
 * and sent, rank 0's kept (see rvs_mpi_send_rows). */
static rvs_status hand_out(rvs_mpi_spmv *M, rvs_csr *A, const int32_t *owner, const int32_t *pos, rvs_csr *copies,
                           int32_t *mark, rvs_csr *C0, int32_t **pos0, int64_t *per_owner0, rvs_error *err)
{
    const int K = M->nranks;
    const int64_t rows = A->rows, cols = A->cols;
    rvs_status st = RVS_OK;
    for (int i = 1; i <= K && st == RVS_OK; i++) { /* rank 0 last: its rows stay */
        const int r = i % K;
        const int64_t n = M->rank_off[r + 1] - M->rank_off[r];
        int64_t first, count;
        int32_t *gpos = NULL;
        rvs_csr C = copies ? copies[r] : run_of(A, n ? M->rank_first[r] : 0, n);
        if (copies)
            memset(&copies[r], 0, sizeof copies[r]);
        rvs_mpi_extra_cols(rows, cols, K, r, &first, &count);
        st = number_columns(&C, r, K, n + count, owner, pos, mark, &gpos, per_owner0, err);
        if (st == RVS_OK && r == 0) {
            if (!copies) { /* rank 0 keeps A's arrays (the runs past its own given back) */
                int64_t *rowptr = realloc(A->rowptr, ((size_t)n + 1) * sizeof *rowptr);
                C.rowptr = rowptr ? rowptr : A->rowptr;
                C.colind = A->colind;
                C.values = A->values;
                A->rowptr = NULL;
                A->colind = NULL;
                A->values = NULL;
            }
            *C0 = C;
            *pos0 = gpos;
            break;
        }
        if (st == RVS_OK)
            st = send_to(&C, gpos, per_owner0, r, K, M->comm, err);
        if (copies)
            rvs_csr_free(&C);
        free(gpos);
    }
    return st;
}

rvs_status rvs_mpi_send_rows(rvs_mpi_spmv *M, rvs_csr *A, const int32_t *owner, const int32_t *pos, int release,
                             rvs_csr *C0, int32_t **pos0, int64_t *per_owner0, rvs_error *err)
{
    const int K = M->nranks;
    const int run = release && in_place(M);
    rvs_csr *copies = run ? NULL : calloc((size_t)K, sizeof *copies);
    rvs_status st = run || copies ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st == RVS_OK && !A->colind)
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "64-bit column indices");
    if (st == RVS_OK && copies)
        st = copy_out(M, A, owner, pos, release, copies, err);
    int32_t *mark = st == RVS_OK ? malloc((size_t)(A->cols ? A->cols : 1) * sizeof *mark) : NULL;
    if (st == RVS_OK && !mark)
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld column marks", (long long)A->cols);
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < (mark ? A->cols : 0); j++)
        mark[j] = -1;
    if (st == RVS_OK)
        st = hand_out(M, A, owner, pos, copies, mark, C0, pos0, per_owner0, err);
    for (int r = 0; copies && r < K; r++)
        rvs_csr_free(&copies[r]);
    free(copies);
    free(mark);
    return st;
}

rvs_status rvs_mpi_recv_rows(rvs_mpi_spmv *M, rvs_csr *C, int32_t **pos, int64_t *per_owner, rvs_error *err)
{
    const int K = M->nranks, tag = RVS_MPI_TAG_SETUP;
    const int64_t own = M->info.owned_cols;
    int64_t *head = malloc(((size_t)R_LEN + K + 1) * sizeof *head);
    if (!head)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    rvs_status st = rvs_mpi_recv_bytes(head, ((size_t)R_LEN + K + 1) * sizeof *head, 0, tag, M->comm, err);
    const int64_t nnz = head[R_NNZ], n = head[R_RECV];
    if (st == RVS_OK &&
        (nnz < 0 || nnz > M->info.global_nnz || n < 0 || own + n > RVS_COL32_MAX || head[R_LEN + K] != n))
        st = rvs_fail(err, RVS_ERR_INTERNAL, "rows of %lld entries and %lld received columns", (long long)nnz,
                      (long long)n);
    if (st == RVS_OK)
        memcpy(per_owner, head + R_LEN, ((size_t)K + 1) * sizeof *per_owner);
    free(head);
    if (st == RVS_OK)
        st = rvs_csr_alloc(C, M->info.rows, own + n, nnz, M->info.vtype, err);
    if (st == RVS_OK && !(*pos = malloc((size_t)(n ? n : 1) * sizeof **pos)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld received columns", (long long)n);
    if (st == RVS_OK)
        st = rvs_mpi_recv_bytes(C->rowptr, (size_t)(C->rows + 1) * 8, 0, tag, M->comm, err);
    const int64_t first = st == RVS_OK ? C->rowptr[0] : 0; /* a run sent in place: A's offsets */
    if (st == RVS_OK && C->rowptr[C->rows] - first != nnz)
        st = rvs_fail(err, RVS_ERR_INTERNAL, "rows of %lld entries with row pointers over %lld", (long long)nnz,
                      (long long)(C->rowptr[C->rows] - first));
#pragma omp parallel for schedule(static) if (C->rows > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i <= (st == RVS_OK && first ? C->rows : -1); i++)
        C->rowptr[i] -= first;
    if (st == RVS_OK)
        st = recv_pieces(C->colind, (size_t)nnz * 4, M->comm, err);
    if (st == RVS_OK)
        st = recv_pieces(C->values, (size_t)nnz * rvs_vtype_size(C->vtype), M->comm, err);
    if (st == RVS_OK)
        st = rvs_mpi_recv_bytes(*pos, (size_t)n * 4, 0, tag, M->comm, err);
    return st;
}
