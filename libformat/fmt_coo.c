/* fmt_coo.c - coordinate format.
 * Layout: row I32[nnz], col I32[nnz], values F32|F64[nnz], sorted by row then column. */
#include <stdlib.h>
#include <string.h>
#include "fmt_gather.h"
#include "rvs_omp.h"

/* F sized as triplets of A's entries, left to fill. */
static rvs_status coo_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    rvs_status st;
    if (A->rows > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "coo: %lld rows do not fit 32-bit row indices",
                        (long long)A->rows);
    if (o && o->admit_only)
        return RVS_OK;
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    if (!(*state = calloc(1, sizeof(int64_t)))) /* the entries placed */
        return rvs_fail(err, RVS_ERR_NOMEM, "coo: out of memory");
    /* left unset: the fill writes every element, and their pages are touched only then */
    if ((st = rvs_fmt_add_array_unset(F, "row", RVS_DT_I32, A->nnz, NULL, err)) ||
        (st = rvs_fmt_add_array_unset(F, "col", RVS_DT_I32, A->nnz, NULL, err)))
        return st;
    return rvs_fmt_add_array_unset(F, "values", rvs_value_dtype(A->vtype), A->nnz, NULL, err);
}

/* The window's rows (consecutive: their entries too) as triplets after those placed. */
static rvs_status coo_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    const rvs_csr *W = w->W;
    int64_t *placed = w->state, at = *placed;
    const size_t vs = rvs_vtype_size(W->vtype);
    int32_t *ri = (int32_t *)rvs_fmt_array(F, "row")->data + at;
    (void)err;
#pragma omp parallel for schedule(dynamic, 1024) if (W->rows + W->nnz > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < W->rows; i++)
        for (int64_t p = W->rowptr[i]; p < W->rowptr[i + 1]; p++)
            ri[p] = (int32_t)(w->first + i);
    memcpy((int32_t *)rvs_fmt_array(F, "col")->data + at, W->colind, (size_t)W->nnz * 4);
    memcpy((char *)rvs_fmt_array(F, "values")->data + (size_t)at * vs, W->values, (size_t)W->nnz * vs);
    *placed += W->nnz;
    return RVS_OK;
}

const rvs_fmt_gather rvs_gather_coo = {RVS_FMT_COO, 0, NULL, coo_shape, NULL, 0, NULL, coo_fill, free};

/* F = A as sorted triplets. */
static rvs_status coo_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return rvs_gather_whole(&rvs_gather_coo, F, A, o, err);
}

/* A = F (sorted triplets) as CSR. */
static rvs_status coo_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    const int32_t *ri = rvs_fmt_array(F, "row")->data;
    rvs_status st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err);
    if (st != RVS_OK)
        return st;
    for (int64_t p = 0; p < F->nnz; p++)
        A->rowptr[ri[p] + 1]++;
    for (int64_t i = 0; i < F->rows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
    memcpy(A->colind, rvs_fmt_array(F, "col")->data, (size_t)F->nnz * 4);
    memcpy(A->values, rvs_fmt_array(F, "values")->data, (size_t)F->nnz * rvs_vtype_size(F->vtype));
    return RVS_OK;
}

/* Check arrays, indices in range and (row, col) strictly increasing. */
static rvs_status coo_validate(const rvs_fmt *F, rvs_error *err)
{
    const rvs_array *ra, *ca;
    rvs_status st;
    if (F->rows < 0 || F->rows > RVS_COL32_MAX || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "coo: bad size %lld x %lld, nnz %lld", (long long)F->rows,
                        (long long)F->cols, (long long)F->nnz);
    if ((st = rvs_fmt_require(F, "row", RVS_DT_I32, F->nnz, &ra, err)) ||
        (st = rvs_fmt_require(F, "col", RVS_DT_I32, F->nnz, &ca, err)) ||
        (st = rvs_fmt_require(F, "values", rvs_value_dtype(F->vtype), F->nnz, NULL, err)))
        return st;
    const int32_t *r = ra->data, *c = ca->data;
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) if (F->nnz > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < F->nnz; p++) {
        int ok = r[p] >= 0 && r[p] < F->rows && c[p] >= 0 && c[p] < F->cols;
        if (ok && p > 0)
            ok = r[p] > r[p - 1] || (r[p] == r[p - 1] && c[p] > c[p - 1]);
        if (!ok && p > bad)
            bad = p;
    }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE, "coo: entry %lld (%d, %d) out of range or out of order", (long long)bad,
                        r[bad], c[bad]);
    return RVS_OK;
}

/* Bytes stored; COO pads nothing. */
static void coo_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    s->bytes = F->nnz * (8 + (int64_t)rvs_vtype_size(F->vtype));
    s->padded = 0;
    s->n_iter = -1;
    s->n_p = -1;
}

const rvs_format_ops rvs_format_coo = {RVS_FMT_COO, "coo", coo_from_csr, coo_to_csr, coo_validate, coo_stats, NULL};
