/* check_complex.c - complex SpMV results checked against CXSparse's cs_cl_gaxpy in double
 * complex (the reference of the real check, cs_dl_gaxpy, for complex values) */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cs.h>
#include "check_complex.h"
#include "rvs_complex.h"

/* Error of y_i (re, im) against ref relative to scale (as check.c's: +Inf when the sum of
 * magnitudes overflowed, NaN when a term is not finite itself): a row whose magnitude overflowed
 * cannot be judged (an infinite error, 0 when lenient); each part that is not finite in the
 * reference must be the same class in y (NaN where NaN, the same Inf); a NaN in y where the
 * reference is finite is an infinite error. Single: y was computed in c64, whose infinity a
 * reference part beyond FLT_MAX is. */
static double complex_error(double complex ref, double yr, double yi, double scale, int single, int lenient)
{
    double rr = creal(ref), ri = cimag(ref);
    if (isinf(scale))
        return lenient ? 0 : INFINITY;
    if (single && isfinite(rr) && isinf((float)rr))
        rr = (float)rr;
    if (single && isfinite(ri) && isinf((float)ri))
        ri = (float)ri;
    if (!isfinite(rr) || !isfinite(ri) || isnan(scale)) {
        int same = ((isnan(rr) && isnan(yr)) || yr == rr) && ((isnan(ri) && isnan(yi)) || yi == ri);
        return same ? 0 : INFINITY;
    }
    double e = hypot(yr - rr, yi - ri) / (scale + DBL_MIN);
    return isnan(yr) || isnan(yi) || isnan(e) ? INFINITY : e;
}

rvs_status rvs_spmv_check_complex(const rvs_csr *A, const double *x, const double *y, double tol, double *max_err,
                                  int64_t *worst_row, rvs_error *err)
{
    return rvs_spmv_check_complex_rule(A, x, y, tol, 0, max_err, worst_row, err);
}

/* Compare complex y with A*x computed by CXSparse; x and y hold (re, im) pairs; the error of
 * row i is |y_i - ref_i| / sum_j |a_ij| |x_j|. */
rvs_status rvs_spmv_check_complex_rule(const rvs_csr *A, const double *x, const double *y, double tol, int lenient,
                                       double *max_err, int64_t *worst_row, rvs_error *err)
{
    rvs_status st = RVS_OK;
    cs_cl At = {0}, *Ac = NULL;
    double complex *ref = calloc((size_t)A->rows + 1, sizeof *ref);
    double complex *vals = malloc((size_t)A->nnz * sizeof *vals + 1);
    double complex *xc = malloc((size_t)A->cols * sizeof *xc + 1);
    double *scale = calloc((size_t)A->rows + 1, sizeof *scale);
    int64_t *cols = malloc((size_t)A->nnz * sizeof *cols + 1);
    *max_err = 0;
    *worst_row = A->rows > 0 ? 0 : -1;
    if (!ref || !vals || !xc || !scale || !cols) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the reference");
        goto done;
    }
    for (int64_t p = 0; p < A->nnz; p++) {
        vals[p] = CMPLX(rvs_csr_value(A, p), rvs_csr_value_im(A, p));
        cols[p] = rvs_csr_col(A, p);
    }
    for (int64_t j = 0; j < A->cols; j++)
        xc[j] = CMPLX(x[2 * j], x[2 * j + 1]);
    /* Our CSR of A is CXSparse's CSC of A^T (not conjugated): transpose it, again without
     * conjugation (values < 0), to get the CSC of A for gaxpy. */
    At.nzmax = A->nnz;
    At.m = A->cols;
    At.n = A->rows;
    At.p = (int64_t *)A->rowptr;
    At.i = cols;
    At.x = vals;
    At.nz = -1;
    Ac = cs_cl_transpose(&At, -1);
    if (!Ac || !cs_cl_gaxpy(Ac, xc, ref)) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "CXSparse could not compute the reference");
        goto done;
    }
    for (int64_t i = 0; i < A->rows; i++) {
        int finite = 1;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            const double t = cabs(vals[p]) * cabs(xc[cols[p]]);
            scale[i] += t;
            finite &= t <= DBL_MAX;
        }
        if (!finite)
            scale[i] = NAN;
    }
    const int single = rvs_vtype_real(A->vtype) == RVS_F32;
    for (int64_t i = 0; i < A->rows; i++) {
        double e = complex_error(ref[i], y[2 * i], y[2 * i + 1], scale[i], single, lenient);
        if (e > *max_err) {
            *max_err = e;
            *worst_row = i;
        }
    }
    if (*max_err > tol && isinf(scale[*worst_row])) {
        st = rvs_fail(err, RVS_ERR_CHECK,
                      "check failed: row %lld: sum |a_ij x_j| overflows a double, so no "
                      "tolerance bounds y's error",
                      (long long)*worst_row + 1);
    } else if (*max_err > tol) {
        const int64_t w = *worst_row;
        st = rvs_fail(
            err, RVS_ERR_CHECK,
            "check failed: row %lld: y = %.17g%+.17gi, reference %.17g%+.17gi, error %.3g > tolerance %.3g",
            (long long)w + 1, y[2 * w], y[2 * w + 1], creal(ref[w]), cimag(ref[w]), *max_err, tol);
    }
done:
    cs_cl_spfree(Ac);
    free(ref);
    free(vals);
    free(xc);
    free(scale);
    free(cols);
    return st;
}
