/* spgemm_check.c - SpGEMM against CSparse's cs_dl_multiply (cs_cl_multiply, double complex, for
 * complex values): the check and the CSparse baseline */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cs.h>
#include "rvs_spgemm.h"

/* CSparse's CSC of A^T (which is our CSR of A) in double, |values| when absval (the modulus
 * of a complex value; without absval A must be real). */
static cs_dl *csc_of_transpose(const rvs_csr *A, int absval)
{
    cs_dl *T = cs_dl_spalloc(A->cols, A->rows, A->nnz, 1, 0);
    if (!T)
        return NULL;
    memcpy(T->p, A->rowptr, (size_t)(A->rows + 1) * sizeof *T->p);
    for (int64_t e = 0; e < A->nnz; e++) {
        double v = rvs_csr_value(A, e);
        T->i[e] = rvs_csr_col(A, e);
        T->x[e] = absval ? hypot(v, rvs_csr_value_im(A, e)) : v;
    }
    return T;
}

/* The same in double complex (CXSparse's cs_cl). */
static cs_cl *csc_of_transpose_complex(const rvs_csr *A)
{
    cs_cl *T = cs_cl_spalloc(A->cols, A->rows, A->nnz, 1, 0);
    if (!T)
        return NULL;
    memcpy(T->p, A->rowptr, (size_t)(A->rows + 1) * sizeof *T->p);
    for (int64_t e = 0; e < A->nnz; e++) {
        T->i[e] = rvs_csr_col(A, e);
        T->x[e] = CMPLX(rvs_csr_value(A, e), rvs_csr_value_im(A, e));
    }
    return T;
}

/* (A*B)^T in CSC with sorted row indices in double complex; *seconds: multiply time. Two
 * transposes without conjugation (values < 0) sort each column. */
static cs_cl *csparse_product_complex(const rvs_csr *A, const rvs_csr *B, double *seconds)
{
    cs_cl *At = csc_of_transpose_complex(A), *Bt = csc_of_transpose_complex(B);
    cs_cl *X = NULL, *Y = NULL, *Z = NULL;
    if (At && Bt) {
        double t0 = omp_get_wtime();
        X = cs_cl_multiply(Bt, At);
        if (seconds)
            *seconds = omp_get_wtime() - t0;
    }
    if (X)
        Y = cs_cl_transpose(X, -1);
    if (Y)
        Z = cs_cl_transpose(Y, -1);
    cs_cl_spfree(At);
    cs_cl_spfree(Bt);
    cs_cl_spfree(X);
    cs_cl_spfree(Y);
    return Z;
}

/* (A*B)^T in CSC with sorted row indices, i.e. A*B in sorted CSR; *seconds: multiply time. */
static cs_dl *csparse_product(const rvs_csr *A, const rvs_csr *B, int absval, double *seconds)
{
    cs_dl *At = csc_of_transpose(A, absval), *Bt = csc_of_transpose(B, absval);
    cs_dl *X = NULL, *Y = NULL, *Z = NULL;
    if (At && Bt) {
        double t0 = omp_get_wtime();
        X = cs_dl_multiply(Bt, At);          /* B^T A^T = (A B)^T, columns unsorted */
        if (seconds)
            *seconds = omp_get_wtime() - t0;
    }
    if (X)
        Y = cs_dl_transpose(X, 1);
    if (Y)
        Z = cs_dl_transpose(Y, 1);           /* two transposes sort each column */
    cs_dl_spfree(At);
    cs_dl_spfree(Bt);
    cs_dl_spfree(X);
    cs_dl_spfree(Y);
    return Z;
}

/* Default check tolerance for a result type. */
double rvs_spgemm_tolerance(rvs_vtype vt)
{
    return rvs_vtype_real(vt) == RVS_F32 ? 1e-4 : 1e-10;
}

/* CSparse's A*B (R, or Rc for complex) and |A|*|B| (sorted CSR as CSC of the transpose), and
 * the shape. */
struct rvs_spgemm_ref {
    cs_dl *R, *S;
    cs_cl *Rc;
    int64_t rows, cols;
};

void rvs_spgemm_ref_free(rvs_spgemm_ref *ref)
{
    if (!ref)
        return;
    cs_dl_spfree(ref->R);
    cs_dl_spfree(ref->S);
    cs_cl_spfree(ref->Rc);
    free(ref);
}

rvs_status rvs_spgemm_ref_new(rvs_spgemm_ref **ref, const rvs_csr *A, const rvs_csr *B,
                              rvs_error *err)
{
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    rvs_spgemm_ref *r;
    *ref = NULL;
    if (st != RVS_OK)
        return st;
    if (!(r = calloc(1, sizeof *r)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the reference product");
    r->rows = A->rows;
    r->cols = B->cols;
    if (rvs_vtype_is_complex(A->vtype))
        r->Rc = csparse_product_complex(A, B, NULL);
    else
        r->R = csparse_product(A, B, 0, NULL);
    r->S = csparse_product(A, B, 1, NULL);
    if ((!r->R && !r->Rc) || !r->S) {
        rvs_spgemm_ref_free(r);
        return rvs_fail(err, RVS_ERR_NOMEM, "CSparse could not compute the reference product");
    }
    *ref = r;
    return RVS_OK;
}

/* Compare C with the reference: same pattern, values within tol of sum |a_ik b_kj|. */
rvs_status rvs_spgemm_check_ref(const rvs_csr *C, const rvs_spgemm_ref *ref, double tol,
                                double *max_err, rvs_error *err)
{
    const cs_dl *R = ref->R, *S = ref->S;
    const int64_t *Rp = R ? R->p : ref->Rc->p, *Ri = R ? R->i : ref->Rc->i, Rn = R ? R->n : ref->Rc->n;
    rvs_status st = RVS_OK;
    *max_err = 0;
    if (C->rows != ref->rows || C->cols != ref->cols || C->nnz != Rp[Rn] || (R == NULL) != rvs_vtype_is_complex(C->vtype))
        return rvs_fail(err, RVS_ERR_CHECK, "check failed: C is %lld x %lld (%s) with %lld entries, "
                        "reference %lld x %lld (%s) with %lld", (long long)C->rows, (long long)C->cols,
                        rvs_vtype_name(C->vtype), (long long)C->nnz, (long long)ref->rows, (long long)ref->cols,
                        R ? "real" : "complex", (long long)Rp[Rn]);
    /* below the smallest normal number of C's type, relative error means nothing (subnormals) */
    const double floor = rvs_vtype_real(C->vtype) == RVS_F32 ? FLT_MIN : DBL_MIN;
    for (int64_t i = 0; i < C->rows && st == RVS_OK; i++) {
        if (C->rowptr[i + 1] != Rp[i + 1]) {
            st = rvs_fail(err, RVS_ERR_CHECK, "check failed: row %lld has %lld entries, reference %lld",
                          (long long)i + 1, (long long)(C->rowptr[i + 1] - C->rowptr[i]),
                          (long long)(Rp[i + 1] - Rp[i]));
            break;
        }
        for (int64_t e = C->rowptr[i]; e < C->rowptr[i + 1]; e++) {
            double c = rvs_csr_value(C, e), ci = rvs_csr_value_im(C, e);
            double r = R ? R->x[e] : creal(ref->Rc->x[e]), ri = R ? 0.0 : cimag(ref->Rc->x[e]);
            double d = hypot(c - r, ci - ri) / (S->x[e] + floor / tol);
            if (!isfinite(r) || !isfinite(ri)) /* NaN or Inf (rvs.5): the same class whatever the order */
                d = ((isnan(r) && isnan(c)) || c == r) && ((isnan(ri) && isnan(ci)) || ci == ri) ? 0 : INFINITY;
            if (rvs_csr_col(C, e) != Ri[e]) {
                st = rvs_fail(err, RVS_ERR_CHECK, "check failed: row %lld: column %lld, reference %lld",
                              (long long)i + 1, (long long)rvs_csr_col(C, e) + 1, (long long)Ri[e] + 1);
                break;
            }
            if (!(d <= *max_err))
                *max_err = isnan(d) ? INFINITY : d;
            if (*max_err > tol) {
                st = rvs_fail(err, RVS_ERR_CHECK, "check failed: entry (%lld,%lld) = %.17g%+.17gi, reference "
                              "%.17g%+.17gi, error %.3g > tolerance %.3g", (long long)i + 1,
                              (long long)Ri[e] + 1, c, ci, r, ri, *max_err, tol);
                break;
            }
        }
    }
    return st;
}

/* Compare C with CSparse's A*B. */
rvs_status rvs_spgemm_check(const rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double tol,
                            double *max_err, rvs_error *err)
{
    rvs_spgemm_ref *ref = NULL;
    rvs_status st = rvs_spgemm_ref_new(&ref, A, B, err);
    *max_err = 0;
    if (st == RVS_OK)
        st = rvs_spgemm_check_ref(C, ref, tol, max_err, err);
    rvs_spgemm_ref_free(ref);
    return st;
}

/* C = A*B by CXSparse in double complex, as a c128 CSR. */
static rvs_status csparse_complex(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds, rvs_error *err)
{
    cs_cl *R = csparse_product_complex(A, B, seconds);
    if (!R)
        return rvs_fail(err, RVS_ERR_NOMEM, "CXSparse could not compute the product");
    rvs_status st = rvs_csr_alloc(C, A->rows, B->cols, R->p[R->n], RVS_C128, err);
    if (st == RVS_OK) {
        memcpy(C->rowptr, R->p, (size_t)(A->rows + 1) * sizeof *C->rowptr);
        memcpy(C->values, R->x, (size_t)C->nnz * 2 * sizeof(double)); /* C99 complex: re, im */
        for (int64_t e = 0; e < C->nnz; e++)
            C->colind[e] = (int32_t)R->i[e];
    }
    cs_cl_spfree(R);
    return st;
}

/* C = A*B by CSparse, as an f64 CSR (c128 for complex A and B, by cs_cl_multiply). */
rvs_status rvs_spgemm_csparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds,
                              rvs_error *err)
{
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    cs_dl *R = NULL;
    memset(C, 0, sizeof *C);
    if (st != RVS_OK)
        return st;
    if (rvs_vtype_is_complex(A->vtype))
        return csparse_complex(C, A, B, seconds, err);
    R = csparse_product(A, B, 0, seconds);
    if (!R)
        return rvs_fail(err, RVS_ERR_NOMEM, "CSparse could not compute the product");
    st = rvs_csr_alloc(C, A->rows, B->cols, R->p[R->n], RVS_F64, err);
    if (st == RVS_OK) {
        memcpy(C->rowptr, R->p, (size_t)(A->rows + 1) * sizeof *C->rowptr);
        memcpy(C->values, R->x, (size_t)C->nnz * sizeof(double));
        for (int64_t e = 0; e < C->nnz; e++)
            C->colind[e] = (int32_t)R->i[e];
    }
    cs_dl_spfree(R);
    return st;
}
