/* mpi_cut.c - the cut of a partition over ranks, counted from the matrix: the entries whose row
 * and column belong to different ranks (edge cut), and the x entries a call must move (volume:
 * per column, the other ranks with an entry in it), per rank and in all, against which the bytes
 * measured per call are reported */
#include <stdlib.h>
#include <string.h>
#include "mpi_cut.h"

void rvs_mpi_owners(const rvs_partition *P, const int *rank_of, int nranks, int64_t rows, int64_t cols,
                    int32_t *row_owner, int32_t *col_owner)
{
    for (int i = 0; i < P->k; i++)
        for (int64_t j = 0; j < P->parts[i].nrows; j++) {
            const int64_t g = P->parts[i].rows[j];
            row_owner[g] = rank_of ? rank_of[i] : i;
            if (g < cols)
                col_owner[g] = row_owner[g];
        }
    const int64_t n = cols > rows ? cols - rows : 0;
    for (int r = 0; r < nranks; r++) /* as rvs_mpi_extra_cols */
        for (int64_t j = rows + (int64_t)((__int128)n * r / nranks);
             j < rows + (int64_t)((__int128)n * (r + 1) / nranks); j++)
            col_owner[j] = r;
}

/* The ranks of node n, as a mask. */
static uint64_t node_mask(int n, int node_size)
{
    const uint64_t ones = node_size >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << node_size) - 1;
    return n * node_size >= 64 ? 0 : ones << (n * node_size);
}

/* The volume and the rest past 64 ranks, where a mask per column no longer holds the ranks: rank
 * by rank over its rows, each column counted once a rank (last[j] == r: counted), and each rank
 * it receives from once (from[q] == r). */
static rvs_status count_by_rank(const rvs_csr *A, const int32_t *row_owner, const int32_t *col_owner, int nranks,
                                int node_size, rvs_mpi_cut *cut, rvs_error *err)
{
    const int nodes = node_size > 0 ? (nranks + node_size - 1) / node_size : 1;
    int64_t *first = calloc((size_t)nranks + 1, sizeof *first),
            *order = malloc((size_t)(A->rows ? A->rows : 1) * 8);
    int64_t *recv = calloc((size_t)nranks, sizeof *recv), *send = calloc((size_t)nranks, sizeof *send);
    int64_t *out = calloc((size_t)nodes, sizeof *out), *in = calloc((size_t)nodes, sizeof *in);
    int32_t *last = malloc((size_t)(A->cols ? A->cols : 1) * sizeof *last), *from = malloc((size_t)nranks * 4);
    rvs_status st = RVS_OK;
    if (!first || !order || !recv || !send || !out || !in || !last || !from) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory counting the cut over %d ranks", nranks);
        goto done;
    }
    for (int64_t i = 0; i < A->rows; i++) /* rows grouped by rank, a counting sort */
        first[row_owner[i] + 1]++;
    for (int r = 0; r < nranks; r++)
        first[r + 1] += first[r];
    for (int64_t i = 0; i < A->rows; i++)
        order[first[row_owner[i]]++] = i;
    for (int r = nranks; r > 0; r--)
        first[r] = first[r - 1];
    first[0] = 0;
    memset(last, 0xff, (size_t)(A->cols ? A->cols : 1) * sizeof *last);
    memset(from, 0xff, (size_t)nranks * sizeof *from);
    cut->volume = cut->pairs = 0;
    for (int r = 0; r < nranks; r++)
        for (int64_t t = first[r]; t < first[r + 1]; t++)
            for (int64_t p = A->rowptr[order[t]]; p < A->rowptr[order[t] + 1]; p++) {
                const int64_t j = rvs_csr_col(A, p);
                const int q = col_owner[j];
                if (q == r || last[j] == r)
                    continue;
                last[j] = r;
                recv[r]++;
                send[q]++;
                cut->volume++;
                cut->pairs += from[q] != r;
                from[q] = r;
                if (node_size > 0 && q / node_size != r / node_size)
                    out[q / node_size]++, in[r / node_size]++;
            }
    cut->max_recv = cut->max_send = cut->max_traffic = 0;
    for (int r = 0; r < nranks; r++) {
        cut->max_traffic = send[r] + recv[r] > cut->max_traffic ? send[r] + recv[r] : cut->max_traffic;
        cut->max_recv = recv[r] > cut->max_recv ? recv[r] : cut->max_recv;
        cut->max_send = send[r] > cut->max_send ? send[r] : cut->max_send;
    }
    cut->node_out = cut->node_in = node_size > 0 ? 0 : -1;
    for (int n = 0; node_size > 0 && n < nodes; n++) {
        cut->node_out = out[n] > cut->node_out ? out[n] : cut->node_out;
        cut->node_in = in[n] > cut->node_in ? in[n] : cut->node_in;
    }
done:
    free(first);
    free(order);
    free(recv);
    free(send);
    free(out);
    free(in);
    free(last);
    free(from);
    return st;
}

rvs_status rvs_mpi_cut_count(const rvs_csr *A, const int32_t *row_owner, const int32_t *col_owner, int nranks,
                             int node_size, rvs_mpi_cut *cut, rvs_error *err)
{
    int64_t edges = 0;
    uint64_t *seen = NULL;
    memset(cut, 0, sizeof *cut);
    if (nranks <= 64 && !(seen = calloc((size_t)(A->cols ? A->cols : 1), sizeof *seen)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory counting the cut of %lld columns", (long long)A->cols);
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : edges)
    for (int64_t i = 0; i < A->rows; i++) {
        const int32_t r = row_owner[i];
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            const int64_t j = rvs_csr_col(A, p);
            if (col_owner[j] == r)
                continue;
            edges++;
            if (seen) {
#pragma omp atomic update
                seen[j] |= (uint64_t)1 << r;
            }
        }
    }
    cut->edge_cut = edges;
    if (!seen)
        return count_by_rank(A, row_owner, col_owner, nranks, node_size, cut, err);
    int64_t recv[64] = {0}, send[64] = {0}, out[64] = {0}, in[64] = {0};
    uint64_t to[64] = {0}; /* to[q]: the ranks q sends to */
    for (int64_t j = 0; j < A->cols; j++) {
        const uint64_t m = seen[j];
        if (!m)
            continue;
        const int q = col_owner[j];
        send[q] += __builtin_popcountll(m);
        to[q] |= m;
        for (uint64_t b = m; b; b &= b - 1)
            recv[__builtin_ctzll(b)]++;
        if (node_size > 0) { /* every rank's copy crosses: messages go rank to rank */
            const uint64_t far = m & ~node_mask(q / node_size, node_size);
            out[q / node_size] += __builtin_popcountll(far);
            for (uint64_t b = far; b; b &= b - 1)
                in[__builtin_ctzll(b) / node_size]++;
        }
    }
    cut->node_out = cut->node_in = node_size > 0 ? 0 : -1;
    for (int n = 0; node_size > 0 && n < 64; n++) {
        cut->node_out = out[n] > cut->node_out ? out[n] : cut->node_out;
        cut->node_in = in[n] > cut->node_in ? in[n] : cut->node_in;
    }
    cut->volume = cut->max_recv = cut->max_send = cut->max_traffic = cut->pairs = 0;
    for (int r = 0; r < nranks; r++) {
        cut->volume += send[r];
        cut->max_traffic = send[r] + recv[r] > cut->max_traffic ? send[r] + recv[r] : cut->max_traffic;
        cut->max_recv = recv[r] > cut->max_recv ? recv[r] : cut->max_recv;
        cut->max_send = send[r] > cut->max_send ? send[r] : cut->max_send;
        cut->pairs += __builtin_popcountll(to[r]);
    }
    free(seen);
    return RVS_OK;
}

void rvs_mpi_grid_shape(int nranks, int *R, int *C)
{
    int r = 1;
    for (int k = 1; (int64_t)k * k <= nranks; k++)
        if (nranks % k == 0)
            r = k;
    *R = r;
    *C = nranks / r;
}

int64_t rvs_mpi_grid_volume(int64_t rows, int64_t cols, int R, int C)
{
    return (int64_t)(R - 1) * cols + (int64_t)(C - 1) * rows;
}
