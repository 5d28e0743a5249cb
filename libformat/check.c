/* check.c - SpMV results checked against CSparse's cs_dl_gaxpy in double precision */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cs.h>
#include "rvs_csr.h"

/* Compare y with A*x computed by CSparse; error relative to sum |a_ij x_j| per row. */
rvs_status rvs_spmv_check(const rvs_csr *A, const double *x, const double *y, double tol,
                          double *max_err, int64_t *worst_row, rvs_error *err)
{
    if (rvs_vtype_is_complex(A->vtype))
        return rvs_spmv_check_complex(A, x, y, tol, max_err, worst_row, err);
    rvs_status st = RVS_OK;
    cs_dl At = {0}, *Ac = NULL;
    double *ref = calloc((size_t)A->rows + 1, sizeof *ref);
    double *scale = calloc((size_t)A->rows + 1, sizeof *scale);
    double *vals = malloc((size_t)A->nnz * sizeof *vals + 1);
    int64_t *cols = malloc((size_t)A->nnz * sizeof *cols + 1);
    *max_err = 0;
    *worst_row = A->rows > 0 ? 0 : -1;
    if (!ref || !scale || !vals || !cols) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the reference");
        goto done;
    }
    for (int64_t p = 0; p < A->nnz; p++) {
        vals[p] = rvs_csr_value(A, p);
        cols[p] = rvs_csr_col(A, p);
    }
    /* Our CSR of A is CSparse's CSC of A^T; transpose it to get CSC of A for gaxpy. */
    At.nzmax = A->nnz;
    At.m = A->cols;
    At.n = A->rows;
    At.p = (int64_t *)A->rowptr;
    At.i = cols;
    At.x = vals;
    At.nz = -1;
    Ac = cs_dl_transpose(&At, 1);
    if (!Ac || !cs_dl_gaxpy(Ac, x, ref)) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "CSparse could not compute the reference");
        goto done;
    }
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            scale[i] += fabs(vals[p] * x[cols[p]]);
    for (int64_t i = 0; i < A->rows; i++) {
        double e = fabs(y[i] - ref[i]) / (scale[i] + DBL_MIN);
        if (!isfinite(ref[i]))
            /* NaN or Inf in the row (values may hold them, rvs.5): IEEE gives the same class
             * whatever the order of the sums, so y must be NaN too, or the same Inf */
            e = (isnan(ref[i]) && isnan(y[i])) || y[i] == ref[i] ? 0 : INFINITY;
        else if (isnan(y[i]) || isnan(e))
            e = INFINITY;
        if (e > *max_err) {
            *max_err = e;
            *worst_row = i;
        }
    }
    if (*max_err > tol)
        st = rvs_fail(err, RVS_ERR_CHECK, "check failed: row %lld: y = %.17g, reference %.17g, error %.3g > tolerance %.3g",
                      (long long)*worst_row + 1, y[*worst_row], ref[*worst_row], *max_err, tol);
done:
    cs_dl_spfree(Ac);
    free(ref);
    free(scale);
    free(vals);
    free(cols);
    return st;
}
