/* check.c - SpMV results checked against a double-precision reference, row block by row block */
#include <float.h>
#include <math.h>
#include "rvs_csr.h"

/* Rows per block: each block's reference lives in registers, so the check holds no copy of A
 * and no vector beyond x and y (a whole CSparse copy with 64-bit indices took 1.8x the
 * matrix's bytes on top of it). */
#define CHECK_BLOCK 4096

/* Reference (A*x)_i in double, summed in column order as cs_dl_gaxpy does, and sum |a_ij x_j|. */
static double row_reference(const rvs_csr *A, const double *x, int64_t i, double *scale)
{
    double s = 0.0, m = 0.0;
    const int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
    if (A->vtype == RVS_F64 && A->colind) {
        const double *v = A->values;
        for (int64_t p = lo; p < hi; p++) {
            double t = v[p] * x[A->colind[p]];
            s += t;
            m += fabs(t);
        }
    } else {
        for (int64_t p = lo; p < hi; p++) {
            double t = rvs_csr_value(A, p) * x[rvs_csr_col(A, p)];
            s += t;
            m += fabs(t);
        }
    }
    *scale = m;
    return s;
}

/* Error of y_i relative to its row's scale; a NaN in y where the reference is finite is an
 * infinite error. */
static double row_error(const rvs_csr *A, const double *x, const double *y, int64_t i)
{
    double scale, ref = row_reference(A, x, i, &scale);
    if (!isfinite(ref))
        /* NaN or Inf in the row (values may hold them, rvs.5): IEEE gives the same class
         * whatever the order of the sums, so y must be NaN too, or the same Inf */
        return (isnan(ref) && isnan(y[i])) || y[i] == ref ? 0 : INFINITY;
    double e = fabs(y[i] - ref) / (scale + DBL_MIN);
    return isnan(y[i]) || isnan(e) ? INFINITY : e;
}

/* Compare y with A*x in double, row block by row block; error relative to sum |a_ij x_j|. */
rvs_status rvs_spmv_check(const rvs_csr *A, const double *x, const double *y, double tol,
                          double *max_err, int64_t *worst_row, rvs_error *err)
{
    if (rvs_vtype_is_complex(A->vtype))
        return rvs_spmv_check_complex(A, x, y, tol, max_err, worst_row, err);
    const int64_t nblocks = (A->rows + CHECK_BLOCK - 1) / CHECK_BLOCK;
    double worst = 0.0;
    int64_t where = A->rows > 0 ? 0 : -1;
    *max_err = 0.0;
    *worst_row = where;
    if (A->rows > 0 && (!A->rowptr || (!A->colind && !A->colind64) || !A->values || !x || !y))
        return rvs_fail(err, RVS_ERR_ARG, "check: matrix, x or y missing");
#pragma omp parallel
    {
        double my = 0.0;
        int64_t my_row = INT64_MAX;
#pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < nblocks; b++) {
            const int64_t hi = (b + 1) * CHECK_BLOCK < A->rows ? (b + 1) * CHECK_BLOCK : A->rows;
            for (int64_t i = b * CHECK_BLOCK; i < hi; i++) {
                double e = row_error(A, x, y, i);
                if (e > my || (e == my && e > 0.0 && i < my_row)) {
                    my = e;
                    my_row = i;
                }
            }
        }
#pragma omp critical(rvs_spmv_check)
        if (my > worst || (my == worst && my > 0.0 && my_row < where)) {
            worst = my;
            where = my_row;
        }
    }
    *max_err = worst;
    *worst_row = where;
    if (worst > tol) {
        double scale, ref = row_reference(A, x, where, &scale);
        return rvs_fail(err, RVS_ERR_CHECK,
                        "check failed: row %lld: y = %.17g, reference %.17g, error %.3g > tolerance %.3g",
                        (long long)where + 1, y[where], ref, worst, tol);
    }
    return RVS_OK;
}
