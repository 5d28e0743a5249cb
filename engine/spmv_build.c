/* spmv_build.c - the blocks and row lists of a plan's items: a part's own block from the stream
 * when it fits, otherwise the item's rows taken from the hub (fused parts concatenated, in the
 * plan's order) and built in the item's format with its build options */
#include <string.h>
#include "spmv_internal.h"

rvs_status rvs_item_rows(rvs_eitem *e, const rvs_stream *S, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    int64_t n = 0;
    e->rows = NULL;
    e->base = 0;
    if (it->parts[0] < 0)
        return RVS_OK;
    for (int k = 0; k < it->nparts; k++)
        n += S->partition.parts[it->parts[k]].nrows;
    int64_t *rows = malloc((size_t)(n ? n : 1) * sizeof *rows);
    if (!rows)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)n);
    n = 0;
    for (int k = 0; k < it->nparts; k++) {
        const rvs_part *q = &S->partition.parts[it->parts[k]];
        memcpy(rows + n, q->rows, (size_t)q->nrows * sizeof *rows);
        n += q->nrows;
    }
    int consecutive = 1;
    for (int64_t i = 1; i < n && consecutive; i++)
        consecutive = rows[i] == rows[0] + i;
    if (consecutive) {
        e->base = n ? rows[0] : 0;
        free(rows);
    } else {
        e->rows = rows;
    }
    return RVS_OK;
}

rvs_status rvs_item_block(rvs_eitem *e, const rvs_stream *S, rvs_vtype vt, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    const rvs_partition *P = &S->partition;
    rvs_csr C = {0};
    const rvs_csr *src = &C;
    rvs_status st = RVS_OK;
    if (it->nparts == 1) {
        const rvs_fmt *B = rvs_stream_block(S, it->parts[0]);
        if (B && B->id == it->format && B->vtype == vt) {
            e->F = B;
            return RVS_OK;
        }
    }
    if (it->parts[0] < 0 && S->A.vtype == vt) {
        src = &S->A; /* the hub as it is: no copy */
    } else if (it->parts[0] < 0) {
        st = rvs_csr_copy(&C, &S->A, err);
    } else if (it->nparts == 1) {
        st = rvs_partition_extract(&C, P, it->parts[0], &S->A, err);
    } else {
        int64_t n = 0;
        for (int k = 0; k < it->nparts; k++)
            n += P->parts[it->parts[k]].nrows;
        int64_t *rows = e->rows;
        if (!rows && !(rows = malloc((size_t)(n ? n : 1) * sizeof *rows)))
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)n);
        for (int64_t i = 0; i < n && !e->rows; i++)
            rows[i] = e->base + i;
        st = rvs_csr_extract_rows(&C, &S->A, rows, n, (int)P->parts[it->parts[0]].entries,
                                  P->block_size > 0 ? P->block_size : 32, err);
        if (rows != e->rows)
            free(rows);
    }
    if (st == RVS_OK && src->vtype != vt)
        st = rvs_csr_convert_values(&C, vt, err);
    if (st == RVS_OK)
        st = rvs_fmt_from_csr(&e->own, it->format, src, &it->knobs.fo, err);
    if (st == RVS_OK)
        e->F = &e->own;
    rvs_csr_free(&C);
    return st;
}
