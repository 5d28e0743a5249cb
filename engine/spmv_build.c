/* spmv_build.c - the blocks and row lists of a plan's items: a part's own block from the stream
 * when it fits; for CSR of a run of hub rows in the hub's type, the hub's own arrays borrowed;
 * otherwise the item's rows - a view of a run of hub rows, or scattered or filtered rows (fused
 * parts concatenated, in the plan's order) - built in the item's format with its build options:
 * with consume, scattered rows are first copied out of the hub in one pass that gives the hub
 * back (rvs_items_split) and each block built from its copy, giving that back as it fills;
 * otherwise gathered from the hub in windows straight into the format (CSR: copied, the copy
 * being the block); with consume the hub's entries of a run given back once built */
#include <string.h>
#include "spmv_internal.h"

rvs_status rvs_item_rows(rvs_eitem *e, const rvs_stream *S, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    int64_t n = 0;
    e->rows = NULL;
    e->rows_borrowed = 0;
    e->base = 0;
    if (it->row_hi > it->row_lo) { /* a row block: a run of rows */
        e->base = it->row_lo;
        return RVS_OK;
    }
    if (it->parts[0] < 0)
        return RVS_OK;
    if (it->nparts == 1) { /* the part's own list (S outlives the runner): no copy of it */
        const rvs_part *q = &S->partition.parts[it->parts[0]];
        int64_t lo;
        if (rvs_rows_consecutive(q->rows, q->nrows, &lo)) {
            e->base = lo;
        } else {
            e->rows = q->rows;
            e->rows_borrowed = 1;
        }
        return RVS_OK;
    }
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

/* 1 when item e's rows are copied out of the hub by rvs_items_split: scattered rows (a list)
 * with all their entries, built here (not streamed) in CSR or a format that gathers. */
static int splits(const rvs_eitem *e, const rvs_stream *S, rvs_vtype vt)
{
    const rvs_plan_item *it = e->it;
    for (int k = 0; e->rows && k < it->nparts; k++)
        if (S->partition.parts[it->parts[k]].entries != RVS_ENTRIES_ALL)
            return 0;
    return e->rows && !it->streamed && S->A.colind && rvs_item_source(S, it, vt) == RVS_SRC_BUILT &&
           (it->format == RVS_FMT_CSR || rvs_fmt_gathers(it->format));
}

/* The rows of the items of items[0..n-1] that splits() picks copied out of S's hub in one pass
 * that gives it back (rvs_partition_split): each such item's copy set, the copies into *copies
 * (*ncopies; NULL when none). */
static rvs_status split_items(rvs_eitem *items, int n, const rvs_stream *S, rvs_vtype vt, rvs_csr **copies,
                              int *ncopies, rvs_error *err)
{
    rvs_partition Q;
    int *of = malloc((size_t)(n ? n : 1) * sizeof *of);
    memset(&Q, 0, sizeof Q);
    *copies = NULL;
    *ncopies = 0;
    Q.parts = calloc((size_t)(n ? n : 1), sizeof *Q.parts);
    rvs_status st = of && Q.parts ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; st == RVS_OK && i < n; i++) /* each item a part of Q: its rows, in order */
        if (splits(&items[i], S, vt)) {
            const rvs_plan_item *it = items[i].it;
            for (int k = 0; k < it->nparts; k++)
                Q.parts[Q.k].nrows += S->partition.parts[it->parts[k]].nrows;
            Q.parts[Q.k].rows = items[i].rows;
            of[Q.k++] = i;
        }
    if (st == RVS_OK && Q.k > 0)
        st = rvs_partition_split(copies, NULL, &Q, (rvs_csr *)&S->A, RVS_ROW_BLOCK_NNZ, err);
    if (st == RVS_OK && *copies) {
        *ncopies = Q.k;
        for (int j = 0; j < Q.k; j++)
            items[of[j]].copy = &(*copies)[j];
    }
    free(Q.parts);
    free(of);
    return st;
}

rvs_status rvs_items_split(rvs_spmv_engine *E, rvs_error *err)
{
    return split_items(E->items, E->n, E->S, E->vt, &E->copies, &E->ncopies, err);
}

/* S as a part's block sees it: without its format blocks, so that the block is built afresh. */
static rvs_stream without_blocks(const rvs_stream *S)
{
    rvs_stream V = *S;
    V.fmt = NULL;
    V.nfmt = 0;
    return V;
}

/* The plan item of one part (-1: the whole matrix) in format id, options fo. */
static rvs_plan_item part_item(int *part, rvs_format_id id, const rvs_fmt_options *fo)
{
    rvs_plan_item it;
    memset(&it, 0, sizeof it);
    it.nparts = 1;
    it.parts = part;
    it.format = id;
    if (fo)
        it.knobs.fo = *fo;
    it.knobs.fo.consume = 0; /* the build decides (rvs_item_block) */
    return it;
}

rvs_status rvs_parts_split(rvs_csr **copies, const rvs_stream *S, const rvs_format_id *formats, rvs_error *err)
{
    const int k = S->partition.k;
    const rvs_stream V = without_blocks(S);
    rvs_plan_item *its = calloc((size_t)(k ? k : 1), sizeof *its);
    rvs_eitem *e = calloc((size_t)(k ? k : 1), sizeof *e);
    int *parts = malloc((size_t)(k ? k : 1) * sizeof *parts), n = 0;
    rvs_csr *c = NULL;
    rvs_status st = its && e && parts ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    *copies = NULL;
    for (int p = 0; st == RVS_OK && p < k; p++) {
        parts[p] = p;
        its[p] = part_item(&parts[p], formats[p], NULL);
        e[p].it = &its[p];
        if (formats[p] != 0)
            st = rvs_item_rows(&e[p], &V, err); /* a part's own list: nothing to free */
    }
    if (st == RVS_OK)
        st = split_items(e, k, &V, S->A.vtype, &c, &n, err);
    if (st == RVS_OK && c && !(*copies = calloc((size_t)k, sizeof **copies)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int p = 0; st == RVS_OK && c && p < k; p++)
        if (e[p].copy)
            (*copies)[p] = *e[p].copy; /* the copy moves to its part's place */
    if (st != RVS_OK)
        rvs_partition_split_free(c, n);
    else
        free(c);
    free(parts);
    free(e);
    free(its);
    return st;
}

rvs_status rvs_parts_admit(const rvs_stream *S, const rvs_format_id *formats, const rvs_fmt_options *fo,
                           rvs_error *err)
{
    rvs_status st = RVS_OK;
    rvs_csr shape = S->A; /* the structure alone: no refusal looks at values, parts copy none */
    shape.values = NULL;
    for (int i = 0; st == RVS_OK && i < (S->has_partition ? S->partition.k : 1); i++) {
        int part = S->has_partition ? i : -1, view;
        const rvs_csr *A;
        rvs_csr sub;
        if (formats[i] == 0)
            continue;
        if ((st = rvs_part_or_whole(&sub, &view, &S->partition, part, &shape, &A, err)) == RVS_OK)
            st = rvs_fmt_admit(formats[i], A, fo, err);
        if (st != RVS_OK)
            rvs_error_name_part(err, part);
        rvs_part_csr_free(&sub, view);
    }
    return st;
}

rvs_status rvs_part_block(rvs_fmt_block *B, const rvs_stream *S, int part, rvs_format_id id,
                          const rvs_fmt_options *fo, rvs_csr *copy, int consume, rvs_error *err)
{
    const rvs_stream V = without_blocks(S);
    rvs_plan_item it = part_item(&part, id, fo);
    rvs_eitem e;
    memset(&e, 0, sizeof e);
    memset(B, 0, sizeof *B);
    e.it = &it;
    e.copy = copy;
    rvs_status st = rvs_item_rows(&e, &V, err);
    if (st == RVS_OK)
        st = rvs_item_block(&e, &V, S->A.vtype, consume, err);
    if (st == RVS_OK) {
        B->fmt = e.own;
        B->part = part;
        if (id == RVS_FMT_CSR) /* a borrowed or taken CSR block gets the GPU options too */
            rvs_fmt_csr_gpu_options(&B->fmt, fo);
    } else {
        rvs_fmt_free(&e.own);
        rvs_error_name_part(err, part);
    }
    return st;
}

/* e->own built from the item's rows as CSR (src: C, a copy or view of them, or the hub). */
static rvs_status block_from_csr(rvs_eitem *e, rvs_csr *C, const rvs_csr *src, int view, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    rvs_status st;
    if (it->format == RVS_FMT_CSR && !view && src == C && C->colind) {
        /* a CSR block of a copy made for it takes the copy's arrays (no second copy) */
        if ((st = rvs_fmt_csr_borrow(&e->own, C, 0, C->rows, err)) == RVS_OK) {
            e->own.borrowed = 0;
            memset(C, 0, sizeof *C);
        }
    } else {
        /* a copy made for this block may be given back as the block is built (ELL, ELLR, BiELL) */
        rvs_fmt_options fo = it->knobs.fo;
        fo.consume = src == C && !view;
        st = rvs_fmt_from_csr(&e->own, it->format, src, &fo, err);
    }
    if (st == RVS_OK)
        e->F = &e->own;
    return st;
}

/* e->own built from the item's copy (rvs_items_split), which goes: CSR takes its arrays (values
 * converted to vt first, block_from_csr), other formats give its entries back as they fill (each
 * window converted). */
static rvs_status block_from_copy(rvs_eitem *e, rvs_vtype vt, rvs_error *err)
{
    rvs_csr *C = e->copy;
    rvs_status st;
    if (e->it->format == RVS_FMT_CSR) {
        if ((st = rvs_csr_convert_values(C, vt, err)) == RVS_OK)
            st = block_from_csr(e, C, C, 0, err);
    } else {
        const rvs_row_pick R = {C, NULL, 0, C->rows, 0, 0, vt, 1};
        if ((st = rvs_fmt_from_rows(&e->own, e->it->format, &R, &e->it->knobs.fo, RVS_ROW_BLOCK_NNZ, err)) ==
            RVS_OK)
            e->F = &e->own;
    }
    rvs_csr_free(C);
    return st;
}

int rvs_item_gathered(rvs_row_pick *R, const rvs_eitem *e, const rvs_stream *S, rvs_vtype vt)
{
    const rvs_plan_item *it = e->it;
    const rvs_partition *P = &S->partition;
    int64_t lo, hi;
    const int run = rvs_item_run(S, it, &lo, &hi);
    if (!rvs_fmt_gathers(it->format) || (run && S->A.vtype == vt))
        return 0;
    memset(R, 0, sizeof *R);
    R->A = &S->A;
    R->vt = vt;
    if (run) {
        R->first = lo;
        R->n = hi - lo;
        return 1;
    }
    for (int k = 0; k < it->nparts; k++)
        R->n += P->parts[it->parts[k]].nrows;
    R->rows = e->rows; /* NULL: they are consecutive from e->base */
    R->first = e->base;
    R->filter = (int)P->parts[it->parts[0]].entries;
    R->block = P->block_size > 0 ? P->block_size : 32;
    return 1;
}

rvs_status rvs_item_block(rvs_eitem *e, const rvs_stream *S, rvs_vtype vt, int consume, rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    int64_t lo, hi;
    rvs_row_pick R;
    switch (rvs_item_source(S, it, vt)) {
    case RVS_SRC_BLOCK: e->F = rvs_stream_block(S, it->parts[0]); return RVS_OK;
    case RVS_SRC_BORROWED:
        rvs_item_run(S, it, &lo, &hi);
        e->F = &e->own;
        return rvs_fmt_csr_borrow(&e->own, &S->A, lo, hi, err);
    case RVS_SRC_BUILT: break;
    }
    rvs_csr C;
    const rvs_csr *src;
    int view = 0;
    rvs_status st;
    if (e->copy) {
        memset(&C, 0, sizeof C);
        st = block_from_copy(e, vt, err);
    } else if (rvs_item_gathered(&R, e, S, vt)) {
        memset(&C, 0, sizeof C);
        st = rvs_fmt_from_rows(&e->own, it->format, &R, &it->knobs.fo, RVS_ROW_BLOCK_NNZ, err);
        if (st == RVS_OK)
            e->F = &e->own;
    } else {
        st = rvs_item_csr(&C, &src, &view, e, S, vt, err);
        if (st == RVS_OK)
            st = block_from_csr(e, &C, src, view, err);
    }
    rvs_item_csr_free(&C, view);
    /* the rows are built: nothing else reads their entries (runs hold all their rows' entries,
     * and no other item holds those rows) */
    if (st == RVS_OK && consume && rvs_item_run(S, it, &lo, &hi))
        rvs_csr_release_entries((rvs_csr *)&S->A, S->A.rowptr[lo], S->A.rowptr[hi]);
    return st;
}
