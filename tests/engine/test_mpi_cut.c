/* test_mpi_cut.c - the cut of a partition over ranks (engine/mpi_cut.c, no MPI): the count past
 * 64 ranks (rank by rank) against the one of masks up to 64 and against a count of every
 * (column, rank) pair here */
#include <string.h>
#include "mpi_cut.h"
#include "rvs_test.h"

/* A value in 0..n-1 from the state s. */
static int draw(uint64_t *s, int n)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((*s >> 33) % (uint64_t)n);
}

/* Every field of a and b alike. */
static int same(const rvs_mpi_cut *a, const rvs_mpi_cut *b)
{
    return a->edge_cut == b->edge_cut && a->volume == b->volume && a->max_recv == b->max_recv &&
           a->max_send == b->max_send && a->max_traffic == b->max_traffic && a->pairs == b->pairs &&
           a->node_out == b->node_out && a->node_in == b->node_in;
}

/* The volume, the most one rank receives and the ordered pairs, from a table of (column, rank). */
static void brute(const rvs_csr *A, const int32_t *row_owner, const int32_t *col_owner, int nranks, int64_t *volume,
                  int64_t *max_recv, int64_t *pairs)
{
    unsigned char *has = calloc((size_t)A->cols * nranks, 1), *pair = calloc((size_t)nranks * nranks, 1);
    int64_t *recv = calloc((size_t)nranks, sizeof *recv);
    *volume = *max_recv = *pairs = 0;
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            const int64_t j = A->colind[p];
            const int r = row_owner[i], q = col_owner[j];
            if (r != q && !has[j * nranks + r]) {
                has[j * nranks + r] = 1;
                ++*volume;
                recv[r]++;
                *pairs += !pair[q * nranks + r];
                pair[q * nranks + r] = 1;
            }
        }
    for (int r = 0; r < nranks; r++)
        *max_recv = recv[r] > *max_recv ? recv[r] : *max_recv;
    free(has);
    free(pair);
    free(recv);
}

int main(void)
{
    rvs_error err;
    for (unsigned seed = 1; seed <= 4; seed++) {
        rvs_csr A;
        const int64_t rows = 300 + 77 * seed, cols = seed & 1 ? rows : rows + 50;
        uint64_t s = seed;
        CHECK(rvs_test_random_csr(&A, rows, cols, 0.03, seed & 1, seed) == RVS_OK);
        int32_t *row_owner = malloc((size_t)rows * 4), *col_owner = malloc((size_t)cols * 4);
        for (int64_t i = 0; i < rows; i++)
            row_owner[i] = draw(&s, 64);
        for (int64_t j = 0; j < cols; j++)
            col_owner[j] = j < rows ? row_owner[j] : draw(&s, 64);
        for (int ns = 0; ns <= 8; ns += 8) { /* ranks 0..63 counted as 64 (masks) and as 65 ranks */
            rvs_mpi_cut masks, by_rank;
            CHECK_OK(rvs_mpi_cut_count(&A, row_owner, col_owner, 64, ns, &masks, &err), &err);
            CHECK_OK(rvs_mpi_cut_count(&A, row_owner, col_owner, 65, ns, &by_rank, &err), &err);
            CHECKF(same(&masks, &by_rank), "seed %u, nodes of %d: volume %lld against %lld", seed, ns,
                   (long long)masks.volume, (long long)by_rank.volume);
            CHECK(masks.volume > 0 && masks.volume <= masks.edge_cut);
        }
        for (int64_t i = 0; i < rows; i++) /* 100 ranks, against the table */
            row_owner[i] = draw(&s, 100);
        for (int64_t j = 0; j < cols; j++)
            col_owner[j] = j < rows ? row_owner[j] : draw(&s, 100);
        rvs_mpi_cut cut;
        int64_t volume, max_recv, pairs;
        CHECK_OK(rvs_mpi_cut_count(&A, row_owner, col_owner, 100, 0, &cut, &err), &err);
        brute(&A, row_owner, col_owner, 100, &volume, &max_recv, &pairs);
        CHECKF(cut.volume == volume && cut.max_recv == max_recv && cut.pairs == pairs,
               "seed %u: volume %lld max_recv %lld pairs %lld, want %lld %lld %lld", seed, (long long)cut.volume,
               (long long)cut.max_recv, (long long)cut.pairs, (long long)volume, (long long)max_recv,
               (long long)pairs);
        free(row_owner);
        free(col_owner);
        rvs_csr_free(&A);
    }
    return rvs_test_done();
}
