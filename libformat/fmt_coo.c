/* fmt_coo.c - coordinate format.
 * Layout: row I32[nnz], col I32[nnz], values F32|F64[nnz], sorted by row then column. */
#include <string.h>
#include "rvs_format.h"

/* F = A as sorted triplets. */
static rvs_status coo_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    int32_t *ri, *ci;
    void *va;
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
    if ((st = rvs_fmt_add_array(F, "row", RVS_DT_I32, A->nnz, (void **)&ri, err)) ||
        (st = rvs_fmt_add_array(F, "col", RVS_DT_I32, A->nnz, (void **)&ci, err)) ||
        (st = rvs_fmt_add_array(F, "values", rvs_value_dtype(A->vtype), A->nnz, &va, err)))
        return st;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            ri[p] = (int32_t)i;
    memcpy(ci, A->colind, (size_t)A->nnz * 4);
    memcpy(va, A->values, (size_t)A->nnz * rvs_vtype_size(A->vtype));
    return RVS_OK;
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
        return rvs_fail(err, RVS_ERR_FORMAT, "coo: bad size %lld x %lld, nnz %lld",
                        (long long)F->rows, (long long)F->cols, (long long)F->nnz);
    if ((st = rvs_fmt_require(F, "row", RVS_DT_I32, F->nnz, &ra, err)) ||
        (st = rvs_fmt_require(F, "col", RVS_DT_I32, F->nnz, &ca, err)) ||
        (st = rvs_fmt_require(F, "values", rvs_value_dtype(F->vtype), F->nnz, NULL, err)))
        return st;
    const int32_t *r = ra->data, *c = ca->data;
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad)
    for (int64_t p = 0; p < F->nnz; p++) {
        int ok = r[p] >= 0 && r[p] < F->rows && c[p] >= 0 && c[p] < F->cols;
        if (ok && p > 0)
            ok = r[p] > r[p - 1] || (r[p] == r[p - 1] && c[p] > c[p - 1]);
        if (!ok && p > bad)
            bad = p;
    }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE, "coo: entry %lld (%d, %d) out of range or out of order",
                        (long long)bad, r[bad], c[bad]);
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

const rvs_format_ops rvs_format_coo = {RVS_FMT_COO, "coo", coo_from_csr, coo_to_csr, coo_validate, coo_stats};
