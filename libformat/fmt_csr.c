/* fmt_csr.c - CSR as a format block.
 * Layout: rowptr I64[rows+1], colind I32[nnz], values F32|F64[nnz].
 * Params (named RVS_CSR_LONGEST .. RVS_CSR_INDEX in rvs_format.h): the longest row and whether it
 * is recorded (the GPU picks its kernel by it), then how the block goes up to the GPU - the
 * order of its entries, its values, column panels and column index width (csr_gpu_rule.c). */
#include <string.h>
#include "rvs_format.h"
#include "rvs_omp.h"

/* The longest row of a row-pointer array (in parallel: on 4M rows one thread took 5 ms). */
static int64_t longest_row(const int64_t *rp, int64_t rows)
{
    int64_t m = 0;
    const int wide = rows > 8 * RVS_OMP_MIN_WORK;
#pragma omp parallel for num_threads(rvs_omp_short_threads()) schedule(static) reduction(max : m) if (wide)
    for (int64_t i = 0; i < rows; i++)
        m = rp[i + 1] - rp[i] > m ? rp[i + 1] - rp[i] : m;
    return m;
}

/* F = A in CSR layout (a copy with 32-bit columns). */
static rvs_status csr_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    void *rp, *ci, *va;
    rvs_status st;
    if (o && o->admit_only)
        return RVS_OK; /* CSR takes every matrix it is given */
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    if ((st = rvs_fmt_add_array(F, "rowptr", RVS_DT_I64, A->rows + 1, &rp, err)) ||
        (st = rvs_fmt_add_array(F, "colind", RVS_DT_I32, A->nnz, &ci, err)) ||
        (st = rvs_fmt_add_array(F, "values", rvs_value_dtype(A->vtype), A->nnz, &va, err)))
        return st;
    memcpy(rp, A->rowptr, (size_t)(A->rows + 1) * 8);
    memcpy(ci, A->colind, (size_t)A->nnz * 4);
    memcpy(va, A->values, (size_t)A->nnz * rvs_vtype_size(A->vtype));
    F->param[RVS_CSR_LONGEST] = longest_row(A->rowptr, A->rows);
    F->param[RVS_CSR_HAS_LONGEST] = 1;
    rvs_fmt_csr_gpu_options(F, o);
    return RVS_OK;
}

void rvs_fmt_csr_gpu_options(rvs_fmt *F, const rvs_fmt_options *o)
{
    F->param[RVS_CSR_ORDER] = o ? o->csr_order : 0;
    F->param[RVS_CSR_VALUES] = o ? o->csr_values : 0;
    F->param[RVS_CSR_PANELS] = o ? o->csr_panels : 0;
    F->param[RVS_CSR_INDEX] = o ? o->csr_index : 0;
}

/* A = F (CSR block) as a CSR hub. */
static rvs_status csr_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    const rvs_array *rp = rvs_fmt_array(F, "rowptr"), *ci = rvs_fmt_array(F, "colind"),
                    *va = rvs_fmt_array(F, "values");
    rvs_status st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err);
    if (st != RVS_OK)
        return st;
    memcpy(A->rowptr, rp->data, (size_t)(F->rows + 1) * 8);
    memcpy(A->colind, ci->data, (size_t)F->nnz * 4);
    memcpy(A->values, va->data, (size_t)F->nnz * rvs_vtype_size(F->vtype));
    return RVS_OK;
}

/* Check arrays, row pointers and column indices. */
static rvs_status csr_validate(const rvs_fmt *F, rvs_error *err)
{
    const rvs_array *rp, *ci;
    rvs_status st;
    if (F->rows < 0 || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: bad size %lld x %lld, nnz %lld", (long long)F->rows,
                        (long long)F->cols, (long long)F->nnz);
    if ((st = rvs_fmt_require(F, "rowptr", RVS_DT_I64, F->rows + 1, &rp, err)) ||
        (st = rvs_fmt_require(F, "colind", RVS_DT_I32, F->nnz, &ci, err)) ||
        (st = rvs_fmt_require(F, "values", rvs_value_dtype(F->vtype), F->nnz, NULL, err)))
        return st;
    rvs_csr view = {F->rows, F->cols, F->nnz, F->vtype, rp->data, ci->data, NULL, NULL};
    if ((st = rvs_csr_validate(&view, err)) != RVS_OK)
        return st;
    const int64_t *pa = F->param;
    if (pa[RVS_CSR_HAS_LONGEST] != 0 &&
        (pa[RVS_CSR_HAS_LONGEST] != 1 || pa[RVS_CSR_LONGEST] != longest_row(rp->data, F->rows)))
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: recorded longest row %lld does not match the data",
                        (long long)pa[RVS_CSR_LONGEST]);
    if (pa[RVS_CSR_ORDER] != 0 && pa[RVS_CSR_ORDER] != 1)
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: entry order %lld is not 0 (column-sorted chunks) or 1 (rows)",
                        (long long)pa[RVS_CSR_ORDER]);
    if (pa[RVS_CSR_VALUES] != 0 && pa[RVS_CSR_VALUES] != 1)
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: value coding %lld is not 0 (a table where it fits) or 1 (none)",
                        (long long)pa[RVS_CSR_VALUES]);
    if (pa[RVS_CSR_PANELS] < 0 || pa[RVS_CSR_PANELS] > RVS_CSR_MAX_PANELS)
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: %lld column panels: want 0 (by rule), 1 (none) to %d",
                        (long long)pa[RVS_CSR_PANELS], RVS_CSR_MAX_PANELS);
    if (pa[RVS_CSR_INDEX] != 0 && pa[RVS_CSR_INDEX] != 1)
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "csr: column index width %lld is not 0 (16 bits where they fit) or 1 (32)",
                        (long long)pa[RVS_CSR_INDEX]);
    return RVS_OK;
}

/* Bytes stored; CSR pads nothing and has no warp model. */
static void csr_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    s->bytes = (F->rows + 1) * 8 + F->nnz * (4 + (int64_t)rvs_vtype_size(F->vtype));
    s->padded = 0;
    s->n_iter = -1;
    s->n_p = -1;
}

/* F = rows [lo, hi) of A in CSR, borrowing A's entries (see rvs_format.h). */
rvs_status rvs_fmt_csr_borrow(rvs_fmt *F, const rvs_csr *A, int64_t lo, int64_t hi, rvs_error *err)
{
    memset(F, 0, sizeof *F);
    if (lo < 0 || hi < lo || hi > A->rows)
        return rvs_fail(err, RVS_ERR_ARG, "csr: rows %lld..%lld outside a matrix of %lld rows", (long long)lo,
                        (long long)hi, (long long)A->rows);
    if (!A->colind)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "%lld columns need 64-bit column indices, which format csr does not hold",
                        (long long)A->cols);
    const int64_t first = A->rowptr[lo], nnz = A->rowptr[hi] - first;
    const size_t vs = rvs_vtype_size(A->vtype);
    F->id = RVS_FMT_CSR;
    F->rows = hi - lo;
    F->cols = A->cols;
    F->nnz = nnz;
    F->vtype = A->vtype;
    if (lo == 0) {
        (void)rvs_fmt_add_borrowed(F, "rowptr", RVS_DT_I64, F->rows + 1, A->rowptr, err);
    } else {
        int64_t *rp;
        rvs_status st = rvs_fmt_add_array(F, "rowptr", RVS_DT_I64, F->rows + 1, (void **)&rp, err);
        if (st != RVS_OK)
            return st;
#pragma omp parallel for schedule(static) if (F->rows > RVS_OMP_MIN_WORK)
        for (int64_t i = 0; i <= F->rows; i++)
            rp[i] = A->rowptr[lo + i] - first;
    }
    /* three arrays in an empty block: adding them cannot fail */
    (void)rvs_fmt_add_borrowed(F, "colind", RVS_DT_I32, nnz, A->colind + first, err);
    (void)rvs_fmt_add_borrowed(F, "values", rvs_value_dtype(A->vtype), nnz, (char *)A->values + (size_t)first * vs,
                               err);
    F->param[RVS_CSR_LONGEST] = longest_row(rvs_fmt_array(F, "rowptr")->data, F->rows);
    F->param[RVS_CSR_HAS_LONGEST] = 1;
    return RVS_OK;
}

const rvs_format_ops rvs_format_csr = {RVS_FMT_CSR, "csr", csr_from_csr, csr_to_csr, csr_validate, csr_stats, NULL};
