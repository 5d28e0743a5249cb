/* mpi_cut.c - the cut of a partition over ranks, counted from the matrix: the entries whose row
 * and column belong to different ranks (edge cut), and the x entries a call must move (volume:
 * per column, the other ranks with an entry in it), against which the bytes measured per call
 * are reported */
#include <stdlib.h>
#include "mpi_internal.h"

rvs_status rvs_mpi_cut_count(const rvs_csr *A, const int32_t *row_owner, const int32_t *col_owner, int nranks,
                             rvs_mpi_cut *cut, rvs_error *err)
{
    int64_t edges = 0;
    uint64_t *seen = NULL;
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
    int64_t volume = 0;
    for (int64_t j = 0; seen && j < A->cols; j++)
        volume += __builtin_popcountll(seen[j]);
    cut->edge_cut = edges;
    cut->volume = seen ? volume : -1;
    free(seen);
    return RVS_OK;
}
