/* part_csr.c - one part of a partition as CSR: a view of the hub when its rows are a run, else a copy */
#include <string.h>
#include "rvs_partition.h"

/* S = part's submatrix, viewed in place when its rows are consecutive and hold every entry. */
rvs_status rvs_partition_part_csr(rvs_csr *S, int *view, const rvs_partition *P, int part,
                                  const rvs_csr *A, rvs_error *err)
{
    int64_t lo;
    *view = 0;
    memset(S, 0, sizeof *S);
    if (part < 0 || part >= P->k)
        return rvs_fail(err, RVS_ERR_ARG, "no part %d", part + 1);
    const rvs_part *q = &P->parts[part];
    if (q->entries == RVS_ENTRIES_ALL && rvs_rows_consecutive(q->rows, q->nrows, &lo)
        && lo >= 0 && q->nrows <= A->rows - lo) {
        *view = 1;
        return rvs_csr_view_rows(S, A, lo, lo + q->nrows, err);
    }
    return rvs_partition_extract(S, P, part, A, err);
}

rvs_status rvs_part_or_whole(rvs_csr *S, int *view, const rvs_partition *P, int part, const rvs_csr *A,
                             const rvs_csr **out, rvs_error *err)
{
    *view = 0;
    memset(S, 0, sizeof *S);
    *out = part < 0 ? A : S;
    return part < 0 ? RVS_OK : rvs_partition_part_csr(S, view, P, part, A, err);
}

void rvs_part_csr_free(rvs_csr *S, int view)
{
    if (view)
        rvs_csr_view_free(S);
    else
        rvs_csr_free(S);
}
