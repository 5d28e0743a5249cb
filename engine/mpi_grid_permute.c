/* mpi_grid_permute.c - the random permutation of the 2-D layout (spmv-mpi --grid-permute), as
 * CombBLAS applies to graphs: rows and columns numbered by degree (R-MAT, or a crawl's order) put
 * the heavy ones in a few blocks, and a random numbering spreads them over all. Symmetric for a
 * square matrix, so that the permuted matrix is the same graph. */
#include <stdlib.h>
#include "mpi_grid_internal.h"

/* splitmix64's step: the stream of the shuffle. */
static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* old[0..n): a random permutation of 0..n-1 (Fisher-Yates) drawn from seed. */
static rvs_status shuffle(int64_t **old, int64_t n, uint64_t seed, rvs_error *err)
{
    uint64_t state = seed;
    int64_t *p = malloc((size_t)(n ? n : 1) * sizeof *p);
    if (!p)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a permutation of %lld", (long long)n);
    for (int64_t i = 0; i < n; i++)
        p[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t k = (int64_t)(next(&state) % (uint64_t)(i + 1)); /* bias below 2^-32 for n < 2^31 */
        const int64_t t = p[i];
        p[i] = p[k];
        p[k] = t;
    }
    *old = p;
    return RVS_OK;
}

rvs_status rvs_mpi_grid_permute(rvs_mpi_grid *G, const rvs_csr *A, uint64_t seed, rvs_error *err)
{
    rvs_status st = shuffle(&G->row_old, A->rows, seed, err);
    if (st == RVS_OK && A->rows == A->cols) {
        G->col_old = G->row_old; /* symmetric: the same graph */
    } else if (st == RVS_OK) {
        st = shuffle(&G->col_old, A->cols, seed ^ 0x2545f4914f6cdd1dULL, err);
    }
    if (st == RVS_OK && !(G->col_new = malloc((size_t)(A->cols ? A->cols : 1) * sizeof *G->col_new)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a permutation of %lld", (long long)A->cols);
    for (int64_t j = 0; st == RVS_OK && j < A->cols; j++)
        G->col_new[G->col_old[j]] = j;
    return st;
}
