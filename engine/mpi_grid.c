/* mpi_grid.c - the 2-D layout's set-up (mpi_grid.h): rank 0 cuts rows and columns by non-zeros,
 * tells every rank the cuts, and sends each rank its block, row block by row block, the block's
 * columns numbered from its column block's first; the process row and column communicators; x
 * handed out in pieces and y collected by global row. */
#include <stdlib.h>
#include <string.h>
#include "mpi_grid_internal.h"

void rvs_mpi_grid_piece(int64_t n, int k, int p, int64_t *first, int64_t *count)
{
    const int64_t a = (int64_t)((__int128)n * p / k), b = (int64_t)((__int128)n * (p + 1) / k);
    *first = a;
    *count = b - a;
}

void rvs_mpi_grid_cut(const int64_t *prefix, int64_t n, int k, int64_t *cut)
{
    const int64_t nnz = prefix[n];
    cut[0] = 0;
    for (int b = 1; b < k; b++) {
        if (nnz == 0) { /* no entries: equal rows */
            cut[b] = (int64_t)((__int128)n * b / k);
            continue;
        }
        const int64_t t = (int64_t)((__int128)nnz * b / k);
        int64_t lo = cut[b - 1], hi = n; /* the first boundary with at least t entries before it */
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (prefix[mid] < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        cut[b] = lo;
    }
    cut[k] = n;
}

enum { H_ROWS, H_COLS, H_NNZ, H_VT, H_R, H_C, H_LEN }; /* then row_cut[R + 1], col_cut[C + 1] */

/* Rank 0: the header with the cuts of the (permuted) matrix: rows and columns by their entries,
 * counted in one pass. */
static rvs_status make_header(const rvs_mpi_grid *G, int64_t **H, int64_t *len, const rvs_csr *A, int R, int C,
                              rvs_error *err)
{
    const int64_t cols = A->cols, rows = A->rows;
    int64_t *h = malloc((size_t)(H_LEN + R + C + 2) * sizeof *h), *count = calloc((size_t)cols + 1, sizeof *count);
    int64_t *prefix = G->row_old ? malloc((size_t)(rows + 1) * sizeof *prefix) : A->rowptr;
    if (!h || !count || !prefix) {
        free(h);
        free(count);
        if (G->row_old)
            free(prefix);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld column counts", (long long)cols);
    }
    for (int64_t p = 0; p < A->nnz; p++)
        count[(G->col_new ? G->col_new[A->colind[p]] : A->colind[p]) + 1]++;
    for (int64_t j = 0; j < cols; j++)
        count[j + 1] += count[j];
    for (int64_t r = 0; G->row_old && r <= rows; r++) /* the permuted rows' lengths, summed */
        prefix[r] = r ? prefix[r - 1] + A->rowptr[G->row_old[r - 1] + 1] - A->rowptr[G->row_old[r - 1]] : 0;
    h[H_ROWS] = A->rows;
    h[H_COLS] = cols;
    h[H_NNZ] = A->nnz;
    h[H_VT] = A->vtype;
    h[H_R] = R;
    h[H_C] = C;
    rvs_mpi_grid_cut(prefix, rows, R, h + H_LEN);
    rvs_mpi_grid_cut(count, cols, C, h + H_LEN + R + 1);
    free(count);
    if (G->row_old)
        free(prefix);
    *H = h;
    *len = H_LEN + R + C + 2;
    return RVS_OK;
}

/* Every rank: its place, its block's bounds and its pieces of x and y from the header. */
static rvs_status take_header(rvs_mpi_grid *G, const int64_t *h, rvs_error *err)
{
    rvs_mpi_info *I = &G->info;
    G->R = (int)h[H_R];
    G->C = (int)h[H_C];
    G->i = G->rank / G->C;
    G->j = G->rank % G->C;
    I->global_rows = h[H_ROWS];
    I->global_cols = h[H_COLS];
    I->global_nnz = h[H_NNZ];
    I->vtype = (rvs_vtype)h[H_VT];
    G->row_cut = malloc((size_t)(G->R + 1) * sizeof *G->row_cut);
    G->col_cut = malloc((size_t)(G->C + 1) * sizeof *G->col_cut);
    G->xcount = malloc((size_t)G->R * sizeof *G->xcount);
    G->xdispl = malloc((size_t)G->R * sizeof *G->xdispl);
    G->ycount = malloc((size_t)G->C * sizeof *G->ycount);
    if (!G->row_cut || !G->col_cut || !G->xcount || !G->xdispl || !G->ycount)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    memcpy(G->row_cut, h + H_LEN, (size_t)(G->R + 1) * sizeof *G->row_cut);
    memcpy(G->col_cut, h + H_LEN + G->R + 1, (size_t)(G->C + 1) * sizeof *G->col_cut);
    /* MPI counts and displacements are ints: the vectors' lengths must fit one */
    if (I->global_rows > RVS_COL32_MAX || I->global_cols > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "--grid: %lld x %lld: more than 2^31 - 1 rows or columns",
                        (long long)I->global_rows, (long long)I->global_cols);
    G->row0 = G->row_cut[G->i];
    G->rows = G->row_cut[G->i + 1] - G->row0;
    G->col0 = G->col_cut[G->j];
    G->cols = G->col_cut[G->j + 1] - G->col0;
    int64_t f, n;
    for (int p = 0; p < G->R; p++) { /* column block j's x: piece p on the rank of process row p */
        rvs_mpi_grid_piece(G->cols, G->R, p, &f, &n);
        G->xdispl[p] = (int)f;
        G->xcount[p] = (int)n;
    }
    for (int q = 0; q < G->C; q++) { /* row block i's y: piece q on the rank of process column q */
        rvs_mpi_grid_piece(G->rows, G->C, q, &f, &n);
        G->ycount[q] = (int)n;
    }
    rvs_mpi_grid_piece(G->cols, G->R, G->i, &G->x_first, &G->x_n);
    rvs_mpi_grid_piece(G->rows, G->C, G->j, &G->y_first, &G->y_n);
    G->x_first += G->col0;
    G->y_first += G->row0;
    I->rows = G->rows;
    I->owned_cols = G->x_n;
    I->recv_cols = (G->cols - G->x_n) + G->y_n * (G->C - 1); /* expand in, fold in */
    I->send_cols = G->x_n * (G->R - 1) + (G->rows - G->y_n); /* expand out, fold out */
    I->recv_ranks = I->send_ranks = G->R - 1 + G->C - 1;
    return RVS_OK;
}

/* Rank 0: the blocks of row block i of the (permuted) A, one per column block, into B[0..C)
 * (columns local, each row sorted). */
static rvs_status split_row_block(const rvs_mpi_grid *G, const rvs_csr *A, int i, rvs_csr *B, rvs_error *err)
{
    const int64_t r0 = G->row_cut[i], rows = G->row_cut[i + 1] - r0;
    const size_t vs = rvs_vtype_size(A->vtype);
    int64_t *nnz = calloc((size_t)G->C, sizeof *nnz);
    rvs_status st = nnz ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    int *blk = NULL; /* column block of each column */
    if (st == RVS_OK && !(blk = malloc((size_t)(A->cols ? A->cols : 1) * sizeof *blk)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld columns", (long long)A->cols);
    for (int b = 0; st == RVS_OK && b < G->C; b++)
        for (int64_t c = G->col_cut[b]; c < G->col_cut[b + 1]; c++)
            blk[G->col_old ? G->col_old[c] : c] = b; /* by A's column */
    for (int64_t r = 0; st == RVS_OK && r < rows; r++) {
        const int64_t a = rvs_mpi_grid_row_old(G, r0 + r);
        for (int64_t p = A->rowptr[a]; p < A->rowptr[a + 1]; p++)
            nnz[blk[A->colind[p]]]++;
    }
    for (int b = 0; b < G->C && st == RVS_OK; b++)
        st = rvs_csr_alloc(&B[b], rows, G->col_cut[b + 1] - G->col_cut[b], nnz[b], A->vtype, err);
    for (int64_t r = 0; r < rows && st == RVS_OK; r++) {
        const int64_t a = rvs_mpi_grid_row_old(G, r0 + r);
        for (int64_t p = A->rowptr[a]; p < A->rowptr[a + 1]; p++) {
            const int32_t c = A->colind[p];
            rvs_csr *D = &B[blk[c]];
            const int64_t k = D->rowptr[r + 1]++;
            D->colind[k] = (int32_t)((G->col_new ? G->col_new[c] : c) - G->col_cut[blk[c]]);
            memcpy((char *)D->values + (size_t)k * vs, (const char *)A->values + (size_t)p * vs, vs);
        }
        for (int b = 0; b < G->C && r + 1 < rows; b++) /* the next row starts where this one ends */
            B[b].rowptr[r + 2] = B[b].rowptr[r + 1];
    }
    for (int b = 0; b < G->C && st == RVS_OK; b++) /* permuted columns come unsorted; sorted rows pass fast */
        st = rvs_mpi_sort_rows(&B[b], err);
    free(blk);
    free(nnz);
    return st;
}

/* A block's entries to rank r (its shape the header tells). */
static rvs_status send_block(const rvs_csr *B, int r, MPI_Comm comm, rvs_error *err)
{
    rvs_status st = rvs_mpi_send_bytes(&B->nnz, sizeof B->nnz, r, RVS_MPI_TAG_SETUP, comm, err);
    if (st == RVS_OK)
        st = rvs_mpi_send_bytes(B->rowptr, (size_t)(B->rows + 1) * sizeof *B->rowptr, r, RVS_MPI_TAG_SETUP, comm,
                                err);
    if (st == RVS_OK)
        st = rvs_mpi_send_bytes(B->colind, (size_t)B->nnz * sizeof *B->colind, r, RVS_MPI_TAG_SETUP, comm, err);
    if (st == RVS_OK)
        st = rvs_mpi_send_bytes(B->values, (size_t)B->nnz * rvs_vtype_size(B->vtype), r, RVS_MPI_TAG_SETUP, comm,
                                err);
    return st;
}

static rvs_status recv_block(rvs_mpi_grid *G, rvs_csr *B, rvs_error *err)
{
    int64_t nnz = 0;
    rvs_status st = rvs_mpi_recv_bytes(&nnz, sizeof nnz, 0, RVS_MPI_TAG_SETUP, G->comm, err);
    if (st == RVS_OK)
        st = rvs_csr_alloc(B, G->rows, G->cols, nnz, G->info.vtype, err);
    if (st == RVS_OK)
        st = rvs_mpi_recv_bytes(B->rowptr, (size_t)(B->rows + 1) * sizeof *B->rowptr, 0, RVS_MPI_TAG_SETUP, G->comm,
                                err);
    if (st == RVS_OK)
        st = rvs_mpi_recv_bytes(B->colind, (size_t)nnz * sizeof *B->colind, 0, RVS_MPI_TAG_SETUP, G->comm, err);
    if (st == RVS_OK)
        st = rvs_mpi_recv_bytes(B->values, (size_t)nnz * rvs_vtype_size(B->vtype), 0, RVS_MPI_TAG_SETUP, G->comm,
                                err);
    return st;
}

/* Rank 0: every rank's block sent, its own kept in *mine; with release, each row block of A given
 * back once its blocks are out (with a permutation, A's rows of a block lie all over it: A goes
 * back at the end). */
static rvs_status hand_out(rvs_mpi_grid *G, rvs_csr *A, int release, rvs_csr *mine, rvs_error *err)
{
    rvs_csr *B = calloc((size_t)G->C, sizeof *B);
    rvs_status st = B ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < G->R && st == RVS_OK; i++) {
        st = split_row_block(G, A, i, B, err);
        for (int b = 0; b < G->C && st == RVS_OK; b++) {
            const int r = i * G->C + b;
            if (r == 0) { /* rank 0's own: kept */
                *mine = B[b];
                memset(&B[b], 0, sizeof B[b]);
            } else {
                st = send_block(&B[b], r, G->comm, err);
            }
        }
        for (int b = 0; b < G->C; b++)
            rvs_csr_free(&B[b]);
        if (st == RVS_OK && release && !G->row_old)
            rvs_csr_release_entries(A, A->rowptr[G->row_cut[i]], A->rowptr[G->row_cut[i + 1]]);
    }
    if (st == RVS_OK && release && G->row_old)
        rvs_csr_release_entries(A, 0, A->nnz);
    free(B);
    return st;
}

/* The block as the local stream: one part of all its rows (the engine plans a stream's parts). */
static rvs_status local_stream(rvs_mpi_grid *G, rvs_csr *B, rvs_error *err)
{
    rvs_stream *L = &G->L;
    rvs_partition *P = &L->partition;
    memset(L, 0, sizeof *L);
    L->A = *B;
    memset(B, 0, sizeof *B);
    snprintf(L->name, sizeof L->name, "rank %d block %d,%d", G->rank, G->i, G->j);
    G->info.nnz = L->A.nnz;
    G->info.parts = L->A.nnz > 0; /* a block without entries runs nothing */
    if (L->A.nnz == 0)
        return RVS_OK;
    P->parts = calloc(1, sizeof *P->parts);
    int64_t *rows = malloc((size_t)L->A.rows * sizeof *rows);
    if (!P->parts || !rows) {
        free(rows);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)L->A.rows);
    }
    for (int64_t r = 0; r < L->A.rows; r++)
        rows[r] = r;
    P->alg = RVS_ALG_ROWS;
    P->k = 1;
    P->parts[0].device = RVS_DEV_CPU; /* the mode decides (rvs_mpi_grid_prepare) */
    P->parts[0].cp = 1;
    P->parts[0].entries = RVS_ENTRIES_ALL;
    P->parts[0].nrows = L->A.rows;
    P->parts[0].rows = rows;
    L->has_partition = 1;
    return rvs_partition_metrics(P, &L->A, err);
}

/* Every rank: the process row (split by i) and process column (split by j) communicators. */
static rvs_status split_comms(rvs_mpi_grid *G, rvs_error *err)
{
    int rc = MPI_Comm_split(G->comm, G->i, G->j, &G->row_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(G->comm, G->j, G->i, &G->col_comm);
    if (rc != MPI_SUCCESS)
        return rvs_mpi_fail(err, rc, "MPI_Comm_split");
    MPI_Comm_set_errhandler(G->row_comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(G->col_comm, MPI_ERRORS_RETURN);
    return RVS_OK;
}

rvs_status rvs_mpi_grid_setup(rvs_mpi_grid **out, rvs_csr *A, int R, int C, MPI_Comm comm, int release, int permute,
                              uint64_t seed, rvs_error *err)
{
    rvs_mpi_grid *G = calloc(1, sizeof *G);
    int64_t hlen = 0, *h = NULL;
    rvs_csr B = {0};
    *out = NULL;
    if (!G)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    G->comm = comm;
    G->row_comm = G->col_comm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &G->rank);
    MPI_Comm_size(comm, &G->nranks);
    G->info.rank = G->rank;
    G->info.nranks = G->nranks;
    rvs_status st = RVS_OK;
    if (G->rank == 0 && (R < 1 || C < 1 || (int64_t)R * C != G->nranks))
        st = rvs_fail(err, RVS_ERR_ARG, "a %d x %d grid for %d ranks", R, C, G->nranks);
    else if (G->rank == 0 && A->colind64)
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "64-bit column indices");
    if (G->rank == 0 && st == RVS_OK && permute)
        st = rvs_mpi_grid_permute(G, A, seed, err);
    if (G->rank == 0 && st == RVS_OK)
        st = make_header(G, &h, &hlen, A, R, C, err);
    if (st == RVS_OK)
        st = rvs_mpi_bcast_header(&h, &hlen, comm, err);
    if (st == RVS_OK)
        st = take_header(G, h, err);
    free(h);
    if (st == RVS_OK)
        st = split_comms(G, err);
    if (st == RVS_OK)
        st = G->rank == 0 ? hand_out(G, A, release, &B, err) : recv_block(G, &B, err);
    if (st == RVS_OK)
        st = local_stream(G, &B, err);
    rvs_csr_free(&B);
    if (st != RVS_OK)
        rvs_mpi_grid_free(G);
    else
        *out = G;
    return st;
}

rvs_status rvs_mpi_grid_scatter_x(rvs_mpi_grid *G, const double *xd, uint64_t seed, rvs_error *err)
{
    return rvs_mpi_grid_scatter_owned(G, xd, seed, G->vt, G->xmine, G->vt, err);
}

rvs_status rvs_mpi_grid_scatter_owned(rvs_mpi_grid *G, const double *xd, uint64_t seed, rvs_vtype round, void *dst,
                                      rvs_vtype vt, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(vt);
    const int64_t cols = G->info.global_cols;
    if (G->rank != 0)
        return rvs_mpi_recv_bytes(dst, (size_t)G->x_n * vs, 0, RVS_MPI_TAG_VEC, G->comm, err);
    int64_t most = 0, first, n;
    for (int j = 0; j < G->C; j++) { /* the longest piece: of the widest column block */
        rvs_mpi_grid_piece(G->col_cut[j + 1] - G->col_cut[j], G->R, G->R - 1, &first, &n);
        most = n + 1 > most ? n + 1 : most;
    }
    char *buf = malloc((size_t)(most + 1) * vs);
    rvs_status st = buf ? RVS_OK
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld x entries", (long long)most);
    for (int r = 0; r < G->nranks && st == RVS_OK; r++) {
        const int i = r / G->C, j = r % G->C;
        rvs_mpi_grid_piece(G->col_cut[j + 1] - G->col_cut[j], G->R, i, &first, &n);
        first += G->col_cut[j];
        char *to = r == 0 ? dst : buf;
        for (int64_t k = 0; k < n; k++) {
            const double v = rvs_mpi_x_value(xd, seed, cols, round, G->col_old ? G->col_old[first + k] : first + k);
            if (vt == RVS_F64)
                ((double *)to)[k] = v;
            else
                ((float *)to)[k] = (float)v;
        }
        if (r > 0)
            st = rvs_mpi_send_bytes(buf, (size_t)n * vs, r, RVS_MPI_TAG_VEC, G->comm, err);
    }
    free(buf);
    return st;
}

rvs_status rvs_mpi_grid_gather_y(rvs_mpi_grid *G, double *yd, rvs_error *err)
{
    int *count = NULL, *displ = NULL;
    double *mine = malloc((size_t)G->y_n * sizeof *mine + 8), *at = yd; /* permuted: by the permuted rows first */
    rvs_status st = mine ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st == RVS_OK && G->row_old && !(at = malloc((size_t)G->info.global_rows * sizeof *at + 8)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld y entries", (long long)G->info.global_rows);
    if (st == RVS_OK && G->rank == 0) {
        count = malloc((size_t)G->nranks * sizeof *count);
        displ = malloc((size_t)G->nranks * sizeof *displ);
        if (!count || !displ)
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        for (int r = 0; r < G->nranks && st == RVS_OK; r++) { /* pieces of y lie in rank order */
            int64_t f, n;
            const int i = r / G->C, j = r % G->C;
            rvs_mpi_grid_piece(G->row_cut[i + 1] - G->row_cut[i], G->C, j, &f, &n);
            displ[r] = (int)(G->row_cut[i] + f);
            count[r] = (int)n;
        }
    }
    if (st == RVS_OK) {
        rvs_y_to_double(mine, G->ymine, G->y_n, G->vt);
        const int rc = MPI_Gatherv(mine, (int)G->y_n, MPI_DOUBLE, at, count, displ, MPI_DOUBLE, 0, G->comm);
        if (rc != MPI_SUCCESS)
            st = rvs_mpi_fail(err, rc, "MPI_Gatherv");
    }
    for (int64_t r = 0; st == RVS_OK && G->row_old && r < G->info.global_rows; r++)
        yd[G->row_old[r]] = at[r];
    if (at != yd)
        free(at);
    free(mine);
    free(count);
    free(displ);
    return st;
}

void rvs_mpi_grid_get_info(const rvs_mpi_grid *G, rvs_mpi_info *info)
{
    *info = G->info;
}

void rvs_mpi_grid_block(const rvs_mpi_grid *G, int *i, int *j, int64_t *row0, int64_t *rows, int64_t *col0,
                        int64_t *cols)
{
    *i = G->i;
    *j = G->j;
    *row0 = G->row0;
    *rows = G->rows;
    *col0 = G->col0;
    *cols = G->cols;
}

void rvs_mpi_grid_cuts(const rvs_mpi_grid *G, const int64_t **row_cut, const int64_t **col_cut)
{
    *row_cut = G->row_cut;
    *col_cut = G->col_cut;
}
