/* check.c - SpMV results checked against a double-precision reference, row block by row block */
#include <float.h>
#include <math.h>
#include "rvs_csr.h"
#include "rvs_draw.h"
#include "check_complex.h"
#include "rvs_omp.h"

/* Rows per block: each block's reference lives in registers, so the check holds no copy of A
 * and no vector beyond x and y (a whole CSparse copy with 64-bit indices took 1.8x the
 * matrix's bytes on top of it). */
#define CHECK_BLOCK 4096

/* How a row is judged: y computed in single precision (a reference beyond FLT_MAX is f32's
 * infinity), and lenient (a row whose magnitude overflowed is passed over, not failed). */
typedef struct {
    int single, lenient;
} rule;

/* Reference (A*x)_i in double, summed in column order as cs_dl_gaxpy does, and its scale: sum
 * |a_ij x_j|, +Inf when that sum overflowed, NaN when a term is not finite itself; x NULL: x
 * drawn from seed in A's precision (rvs_draw.h). */
static double row_reference(const rvs_csr *A, const double *x, uint64_t seed, int64_t i, double *scale)
{
    double s = 0.0, m = 0.0;
    int finite = 1;
    const int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
    if (!x) {
        const int single = rvs_vtype_real(A->vtype) == RVS_F32;
        for (int64_t p = lo; p < hi; p++) {
            double t = rvs_csr_value(A, p) * rvs_draw(seed, rvs_csr_col(A, p), single);
            s += t;
            m += fabs(t);
            finite &= fabs(t) <= DBL_MAX;
        }
    } else if (A->vtype == RVS_F64 && A->colind) {
        const double *v = A->values;
        for (int64_t p = lo; p < hi; p++) {
            double t = v[p] * x[A->colind[p]];
            s += t;
            m += fabs(t);
            finite &= fabs(t) <= DBL_MAX;
        }
    } else {
        for (int64_t p = lo; p < hi; p++) {
            double t = rvs_csr_value(A, p) * x[rvs_csr_col(A, p)];
            s += t;
            m += fabs(t);
            finite &= fabs(t) <= DBL_MAX;
        }
    }
    *scale = finite ? m : NAN;
    return s;
}

/* Error of y_i against its reference ref with the row's scale: the class of a row with a term
 * that is not finite must match; a row whose magnitude overflowed cannot be judged by any
 * tolerance (an infinite error, or 0 when lenient); else |y - ref| / scale, a NaN in y where
 * the reference is finite an infinite error. */
static double ref_error(double ref, double scale, double y, rule how)
{
    if (isinf(scale))
        return how.lenient ? 0 : INFINITY;
    if (how.single && isfinite(ref) && isinf((float)ref))
        ref = (float)ref; /* beyond f32's range: the f32 result is that infinity */
    if (!isfinite(ref) || isnan(scale))
        /* NaN or Inf in the row (values may hold them, rvs.5): IEEE gives the same class
         * whatever the order of the sums, so y must be NaN too, or the same Inf */
        return (isnan(ref) && isnan(y)) || y == ref ? 0 : INFINITY;
    double e = fabs(y - ref) / (scale + DBL_MIN);
    return isnan(y) || isnan(e) ? INFINITY : e;
}

/* Error of y_i relative to its row's scale. */
static double row_error(const rvs_csr *A, const double *x, uint64_t seed, const double *y, int64_t i, rule how)
{
    double scale, ref = row_reference(A, x, seed, i, &scale);
    return ref_error(ref, scale, y[i], how);
}

/* The largest error of y over rows, its first row into *where: against A*x when A is given
 * (x NULL: drawn from seed), else against ref and scale; row blocks in parallel. */
static double worst_error(const rvs_csr *A, const double *x, uint64_t seed, const double *ref, const double *scale,
                          const double *y, int64_t rows, rule how, int64_t *where)
{
    const int64_t nblocks = (rows + CHECK_BLOCK - 1) / CHECK_BLOCK;
    double worst = 0.0;
    *where = rows > 0 ? 0 : -1;
#pragma omp parallel
    {
        double my = 0.0;
        int64_t my_row = INT64_MAX;
#pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < nblocks; b++) {
            const int64_t hi = (b + 1) * CHECK_BLOCK < rows ? (b + 1) * CHECK_BLOCK : rows;
            for (int64_t i = b * CHECK_BLOCK; i < hi; i++) {
                double e = A ? row_error(A, x, seed, y, i, how) : ref_error(ref[i], scale[i], y[i], how);
                if (e > my || (e == my && e > 0.0 && i < my_row)) {
                    my = e;
                    my_row = i;
                }
            }
        }
#pragma omp critical(rvs_spmv_check)
        if (my > worst || (my == worst && my > 0.0 && my_row < *where)) {
            worst = my;
            *where = my_row;
        }
    }
    return worst;
}

/* The verdict's message for row i (0-based) whose error is worst. */
static rvs_status verdict(double ref, double scale, double y, int64_t i, double worst, double tol, rvs_error *err)
{
    if (isinf(scale))
        return rvs_fail(err, RVS_ERR_CHECK,
                        "check failed: row %lld: sum |a_ij x_j| overflows a double, so no "
                        "tolerance bounds y's error",
                        (long long)i + 1);
    return rvs_fail(err, RVS_ERR_CHECK,
                    "check failed: row %lld: y = %.17g, reference %.17g, error %.3g > tolerance %.3g",
                    (long long)i + 1, y, ref, worst, tol);
}

/* The verdict on y against A*x (x NULL: drawn from seed), as rvs_spmv_check gives it. */
static rvs_status check_real(const rvs_csr *A, const double *x, uint64_t seed, const double *y, double tol,
                             rule how, double *max_err, int64_t *worst_row, rvs_error *err)
{
    const double worst = *max_err = worst_error(A, x, seed, NULL, NULL, y, A->rows, how, worst_row);
    if (worst > tol) {
        double scale, ref = row_reference(A, x, seed, *worst_row, &scale);
        return verdict(ref, scale, y[*worst_row], *worst_row, worst, tol, err);
    }
    return RVS_OK;
}

/* A's arrays, x and y present. */
static rvs_status check_args(const rvs_csr *A, const double *x, const double *y, double *max_err,
                             int64_t *worst_row, rvs_error *err)
{
    *max_err = 0.0;
    *worst_row = A->rows > 0 ? 0 : -1;
    if (A->rows > 0 && (!A->rowptr || (!A->colind && !A->colind64) || !A->values || !x || !y))
        return rvs_fail(err, RVS_ERR_ARG, "check: matrix, x or y missing");
    return RVS_OK;
}

/* Compare y with A*x in double, row block by row block; error relative to sum |a_ij x_j|. */
rvs_status rvs_spmv_check(const rvs_csr *A, const double *x, const double *y, double tol, double *max_err,
                          int64_t *worst_row, rvs_error *err)
{
    rvs_status st = check_args(A, x, y, max_err, worst_row, err);
    if (st != RVS_OK)
        return st;
    if (rvs_vtype_is_complex(A->vtype))
        return rvs_spmv_check_complex(A, x, y, tol, max_err, worst_row, err);
    const rule how = {rvs_vtype_real(A->vtype) == RVS_F32, 0};
    return check_real(A, x, 0, y, tol, how, max_err, worst_row, err);
}

rvs_status rvs_spmv_check_drawn(const rvs_csr *A, uint64_t seed, const double *y, double tol, double *max_err,
                                int64_t *worst_row, rvs_error *err)
{
    const double none = 0;
    rvs_status st = check_args(A, &none, y, max_err, worst_row, err);
    if (st != RVS_OK)
        return st;
    if (rvs_vtype_is_complex(A->vtype))
        return rvs_fail(err, RVS_ERR_ARG, "check: a drawn x is for real matrices");
    const rule how = {rvs_vtype_real(A->vtype) == RVS_F32, 0};
    return check_real(A, NULL, seed, y, tol, how, max_err, worst_row, err);
}

rvs_status rvs_spmv_check_trial(const rvs_csr *A, const double *x, uint64_t seed, const double *y, double tol,
                                rvs_error *err)
{
    double max_err;
    int64_t row;
    const double none = 0;
    rvs_status st = check_args(A, x ? x : &none, y, &max_err, &row, err);
    if (st != RVS_OK)
        return st;
    if (rvs_vtype_is_complex(A->vtype))
        return x ? rvs_spmv_check_complex_rule(A, x, y, tol, 1, &max_err, &row, err)
                 : rvs_fail(err, RVS_ERR_ARG, "check: a drawn x is for real matrices");
    const rule how = {rvs_vtype_real(A->vtype) == RVS_F32, 1};
    return check_real(A, x, seed, y, tol, how, &max_err, &row, err);
}

/* ref = A*x in double and its scale (row_reference) per row, row blocks in parallel. */
void rvs_spmv_reference(const rvs_csr *A, const double *x, double *ref, double *scale)
{
#pragma omp parallel for schedule(dynamic, CHECK_BLOCK) if (A->rows + A->nnz > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < A->rows; i++)
        ref[i] = row_reference(A, x, 0, i, &scale[i]);
}

/* Compare y with a reference made by rvs_spmv_reference, as rvs_spmv_check does. */
rvs_status rvs_spmv_check_ref(const double *ref, const double *scale, const double *y, int64_t rows, rvs_vtype yt,
                              double tol, double *max_err, int64_t *worst_row, rvs_error *err)
{
    const rule how = {rvs_vtype_real(yt) == RVS_F32, 0};
    const double worst = *max_err = worst_error(NULL, NULL, 0, ref, scale, y, rows, how, worst_row);
    if (worst > tol)
        return verdict(ref[*worst_row], scale[*worst_row], y[*worst_row], *worst_row, worst, tol, err);
    return RVS_OK;
}
