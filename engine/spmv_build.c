/* spmv_build.c - the blocks and row lists of a plan's items: a part's own block from the stream
 * when it fits; for CSR of a run of hub rows in the hub's type, the hub's own arrays borrowed;
 * otherwise the item's rows - a view of a run of hub rows, or a copy of scattered or filtered
 * rows (fused parts concatenated, in the plan's order) - built in the item's format with its
 * build options, and with consume the hub's entries of a run given back once built */
#include <string.h>
#include "spmv_internal.h"

rvs_status rvs_item_rows(rvs_eitem *e, const rvs_stream *S, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    int64_t n = 0;
    e->rows = NULL;
    e->base = 0;
    if (it->row_hi > it->row_lo) { /* a row block: a run of rows */
        e->base = it->row_lo;
        return RVS_OK;
    }
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
    int64_t lo;
    if (rvs_rows_consecutive(rows, n, &lo)) {
        e->base = lo;
        free(rows);
    } else {
        e->rows = rows;
    }
    return RVS_OK;
}

rvs_status rvs_item_csr(rvs_csr *C, const rvs_csr **use, int *view, const rvs_eitem *e, const rvs_stream *S,
                        rvs_vtype vt, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    const rvs_partition *P = &S->partition;
    int64_t lo, hi;
    rvs_status st = RVS_OK;
    memset(C, 0, sizeof *C);
    *view = 0;
    *use = C;
    if (rvs_item_run(S, it, &lo, &hi)) {
        if (lo == 0 && hi == S->A.rows && S->A.vtype == vt) {
            *use = &S->A; /* the hub as it is */
            return RVS_OK;
        }
        rvs_csr V = S->A;
        if (!(lo == 0 && hi == S->A.rows) && (st = rvs_csr_view_rows(&V, &S->A, lo, hi, err)) != RVS_OK)
            return st;
        if (V.vtype == vt) {
            *C = V;
            *view = 1;
            return RVS_OK;
        }
        st = rvs_csr_copy(C, &V, err); /* another value type: a copy to convert */
        if (V.rowptr != S->A.rowptr)
            rvs_csr_view_free(&V);
    } else if (it->nparts == 1) {
        st = rvs_partition_extract(C, P, it->parts[0], &S->A, err);
    } else {
        int64_t n = 0;
        for (int k = 0; k < it->nparts; k++)
            n += P->parts[it->parts[k]].nrows;
        int64_t *rows = e->rows;
        if (!rows && !(rows = malloc((size_t)(n ? n : 1) * sizeof *rows)))
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row indices", (long long)n);
        for (int64_t i = 0; i < n && !e->rows; i++)
            rows[i] = e->base + i;
        st = rvs_csr_extract_rows(C, &S->A, rows, n, (int)P->parts[it->parts[0]].entries,
                                  P->block_size > 0 ? P->block_size : 32, err);
        if (rows != e->rows)
            free(rows);
    }
    if (st == RVS_OK && C->vtype != vt)
        st = rvs_csr_convert_values(C, vt, err);
    if (st != RVS_OK)
        rvs_csr_free(C);
    return st;
}

void rvs_item_csr_free(rvs_csr *C, int view)
{
    if (view)
        rvs_csr_view_free(C);
    else
        rvs_csr_free(C);
}

rvs_status rvs_item_block(rvs_eitem *e, const rvs_stream *S, rvs_vtype vt, int consume, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    int64_t lo, hi;
    switch (rvs_item_source(S, it, vt)) {
    case RVS_SRC_BLOCK:
        e->F = rvs_stream_block(S, it->parts[0]);
        return RVS_OK;
    case RVS_SRC_BORROWED:
        rvs_item_run(S, it, &lo, &hi);
        e->F = &e->own;
        return rvs_fmt_csr_borrow(&e->own, &S->A, lo, hi, err);
    case RVS_SRC_BUILT:
        break;
    }
    rvs_csr C;
    const rvs_csr *src;
    int view;
    rvs_status st = rvs_item_csr(&C, &src, &view, e, S, vt, err);
    if (st == RVS_OK && it->format == RVS_FMT_CSR && !view && src == &C && C.colind) {
        /* a CSR block of a copy made for it takes the copy's arrays (no second copy) */
        if ((st = rvs_fmt_csr_borrow(&e->own, &C, 0, C.rows, err)) == RVS_OK) {
            e->own.borrowed = 0;
            memset(&C, 0, sizeof C);
        }
    } else if (st == RVS_OK) {
        /* a copy made for this block may be given back as the block is built (ELL, ELLR, BiELL) */
        rvs_fmt_options fo = it->knobs.fo;
        fo.consume = src == &C && !view;
        st = rvs_fmt_from_csr(&e->own, it->format, src, &fo, err);
    }
    if (st == RVS_OK)
        e->F = &e->own;
    rvs_item_csr_free(&C, view);
    /* the rows are built: nothing else reads their entries (runs hold all their rows' entries,
     * and no other item holds those rows) */
    if (st == RVS_OK && consume && rvs_item_run(S, it, &lo, &hi))
        rvs_csr_release_entries((rvs_csr *)&S->A, S->A.rowptr[lo], S->A.rowptr[hi]);
    return st;
}
