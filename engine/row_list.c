/* row_list.c - a part as the list of its rows in the hub: what the advisor reads in place of
 * the part's copy, and the structure hash that copy would have */
#include <string.h>
#include "engine_internal.h"

void rvs_row_list_all(rvs_row_list *R, const rvs_csr *A)
{
    R->A = A;
    R->rows = NULL;
    R->nrows = A->rows;
    R->nnz = A->nnz;
}

rvs_status rvs_row_list_part(rvs_row_list *R, rvs_csr *C, int *view, const rvs_partition *P, int part,
                             const rvs_csr *A, rvs_error *err)
{
    int64_t lo;
    memset(C, 0, sizeof *C);
    *view = 0;
    if (part < 0 || part >= P->k)
        return rvs_fail(err, RVS_ERR_ARG, "no part %d", part + 1);
    const rvs_part *q = &P->parts[part];
    /* a run costs nothing as a view; Algorithm 4's parts hold only the entries inside (or
     * outside) the diagonal blocks, which a list of rows cannot say: they are still copied */
    if (q->entries != RVS_ENTRIES_ALL || rvs_partition_part_is_run(P, part, A, &lo)) {
        rvs_status st = rvs_partition_part_csr(C, view, P, part, A, err);
        if (st == RVS_OK)
            rvs_row_list_all(R, C);
        return st;
    }
    R->A = A;
    R->rows = q->rows;
    R->nrows = q->nrows;
    R->nnz = 0;
    for (int64_t i = 0; i < q->nrows; i++) {
        if (q->rows[i] < 0 || q->rows[i] >= A->rows)
            return rvs_fail(err, RVS_ERR_RANGE, "row index %lld out of range 0..%lld", (long long)q->rows[i],
                            (long long)A->rows - 1);
        R->nnz += rvs_row_list_len(R, i);
    }
    return RVS_OK;
}

/* rvs_hash_structure of R's copy, read from the hub: the copy's row pointers are the lengths
 * summed in R's order, its entry p the (p - start)-th of the row it falls in. */
uint64_t rvs_hash_row_list(uint64_t h, const rvs_row_list *R)
{
    const rvs_csr *A = R->A;
    if (!R->rows)
        return rvs_hash_structure(h, A);
    h = rvs_hash_i64(rvs_hash_i64(rvs_hash_i64(h, R->nrows), A->cols), R->nnz);
    const int64_t rs = R->nrows / 4096 + 1, es = R->nnz / 4096 + 1;
    int64_t at = 0; /* the copy's row pointer of row i */
    for (int64_t i = 0; i <= R->nrows; i++) {
        if (i % rs == 0)
            h = rvs_hash_i64(h, at);
        at += i < R->nrows ? rvs_row_list_len(R, i) : 0;
    }
    at = 0;
    for (int64_t i = 0, p = 0; i < R->nrows; i++) {
        const int64_t a = A->rowptr[R->rows[i]], n = rvs_row_list_len(R, i);
        for (; p < at + n; p += es)
            h = rvs_hash_i64(h, rvs_csr_col(A, a + p - at));
        at += n;
    }
    return h;
}
