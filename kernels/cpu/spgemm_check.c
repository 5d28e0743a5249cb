/* spgemm_check.c - the SpGEMM check (A*B made row by row in double precision as it goes) and the
 * CSparse baseline (cs_dl_multiply; cs_cl_multiply, double complex, for complex values) */
#include "rvs_complex.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cs.h>
#include "rvs_spgemm.h"

/* CSparse's CSC of A^T (which is our CSR of A) in double (A real). */
static cs_dl *csc_of_transpose(const rvs_csr *A)
{
    cs_dl *T = cs_dl_spalloc(A->cols, A->rows, A->nnz, 1, 0);
    if (!T)
        return NULL;
    memcpy(T->p, A->rowptr, (size_t)(A->rows + 1) * sizeof *T->p);
    for (int64_t e = 0; e < A->nnz; e++) {
        T->i[e] = rvs_csr_col(A, e);
        T->x[e] = rvs_csr_value(A, e);
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
static cs_dl *csparse_product(const rvs_csr *A, const rvs_csr *B, double *seconds)
{
    cs_dl *At = csc_of_transpose(A), *Bt = csc_of_transpose(B);
    cs_dl *X = NULL, *Y = NULL, *Z = NULL;
    if (At && Bt) {
        double t0 = omp_get_wtime();
        X = cs_dl_multiply(Bt, At); /* B^T A^T = (A B)^T, columns unsorted */
        if (seconds)
            *seconds = omp_get_wtime() - t0;
    }
    if (X)
        Y = cs_dl_transpose(X, 1);
    if (Y)
        Z = cs_dl_transpose(Y, 1); /* two transposes sort each column */
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

/* The reference is made row by row as the check goes, never whole: row i of A*B is the merge of
 * the rows k of B (sorted by column) that row i of A names, a heap of their cursors ordered by
 * column, then by position in row i; each column's products a_ik b_kj are summed in double
 * (double complex) precision beside sum |a_ik| |b_kj|, the scale of the tolerance, and compared
 * with C's next entry at once. A thread holds one heap, as long as A's longest row: where
 * CSparse's whole A*B and |A|*|B| with 64-bit indices stood, `spgemm --cpu --check` of the
 * 27-point stencil 80^3 (a 738 MB C) peaked at 5318 MB; it now peaks at 960. The pattern is
 * structural, as CSparse's: a column reached by any product is an entry, whatever the sum. */

/* A cursor of the merge: the next entry p of row k of B (to end), times a = A's entry. */
typedef struct {
    int64_t col, p, end;
    double ar, ai, am; /* a_ik and |a_ik| */
} cursor;

/* Heap order: column, then the position in row i (ties summed in the order row i lists them). */
static int before(const cursor *x, int64_t xi, const cursor *y, int64_t yi)
{
    return x->col < y->col || (x->col == y->col && xi < yi);
}

typedef struct {
    cursor *c;
    int64_t *h; /* heap of indices into c */
    int64_t n, cap;
} merge;

static void sift_down(merge *m, int64_t at)
{
    for (;;) {
        int64_t l = 2 * at + 1, r = l + 1, best = at;
        if (l < m->n && before(&m->c[m->h[l]], m->h[l], &m->c[m->h[best]], m->h[best]))
            best = l;
        if (r < m->n && before(&m->c[m->h[r]], m->h[r], &m->c[m->h[best]], m->h[best]))
            best = r;
        if (best == at)
            return;
        int64_t t = m->h[at];
        m->h[at] = m->h[best];
        m->h[best] = t;
        at = best;
    }
}

/* Move the heap's top cursor to its next entry (or drop it) and restore the heap. */
static void advance_top(merge *m, const rvs_csr *B)
{
    cursor *u = &m->c[m->h[0]];
    if (++u->p < u->end)
        u->col = rvs_csr_col(B, u->p);
    else
        m->h[0] = m->h[--m->n];
    sift_down(m, 0);
}

/* What a row's check found: 0 agreed, else the first difference (the message is made later, by
 * the lowest row that failed, so that it does not depend on the threads). */
enum { ROW_OK, ROW_COUNT, ROW_COLUMN, ROW_VALUE, ROW_OVERFLOW };
typedef struct {
    int what;
    int64_t got, want; /* entries, or columns */
    double c, ci, r, ri, d;
} row_diff;

/* Compare row i of C with row i of A*B; *max_err raised to its largest error. */
static row_diff check_row(merge *m, const rvs_csr *C, const rvs_csr *A, const rvs_csr *B, int64_t i, double tol,
                          double floor, double *max_err)
{
    row_diff f = {ROW_OK, 0, 0, 0, 0, 0, 0, 0};
    const int cplx = rvs_vtype_is_complex(A->vtype);
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i], c0 = C->rowptr[i], c1 = C->rowptr[i + 1];
    if (len > m->cap) {
        free(m->c);
        free(m->h);
        m->c = malloc((size_t)len * sizeof *m->c);
        m->h = malloc((size_t)len * sizeof *m->h);
        m->cap = m->c && m->h ? len : 0;
        if (!m->cap) {
            f.what = -1; /* out of memory */
            return f;
        }
    }
    m->n = 0;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        const int64_t k = rvs_csr_col(A, e), q = e - A->rowptr[i];
        cursor *u = &m->c[q];
        u->p = B->rowptr[k];
        u->end = B->rowptr[k + 1];
        u->ar = rvs_csr_value(A, e);
        u->ai = cplx ? rvs_csr_value_im(A, e) : 0;
        u->am = cplx ? hypot(u->ar, u->ai) : fabs(u->ar);
        if (u->p < u->end) {
            u->col = rvs_csr_col(B, u->p);
            m->h[m->n++] = q;
        }
    }
    for (int64_t at = m->n / 2 - 1; at >= 0; at--)
        sift_down(m, at);
    int64_t q = c0;
    while (m->n > 0) {
        const int64_t j = m->c[m->h[0]].col;
        double r = 0, ri = 0, scale = 0;
        int finite = 1; /* every product finite: then a scale of Inf is a sum that overflowed */
        while (m->n > 0 && m->c[m->h[0]].col == j) {
            cursor *u = &m->c[m->h[0]];
            const double br = rvs_csr_value(B, u->p), bi = cplx ? rvs_csr_value_im(B, u->p) : 0;
            double t;
            if (cplx) { /* real: no imaginary part at all (0 * NaN would make one) */
                r += u->ar * br - u->ai * bi;
                ri += u->ar * bi + u->ai * br;
                t = u->am * hypot(br, bi);
            } else {
                r += u->ar * br;
                t = u->am * fabs(br);
            }
            scale += t;
            finite &= t <= DBL_MAX;
            advance_top(m, B);
        }
        if (q >= c1) { /* C's row ends early: count the reference's entries */
            int64_t want = q - c0 + 1;
            while (m->n > 0) {
                const int64_t jj = m->c[m->h[0]].col;
                while (m->n > 0 && m->c[m->h[0]].col == jj)
                    advance_top(m, B);
                want++;
            }
            return (row_diff){ROW_COUNT, c1 - c0, want, 0, 0, 0, 0, 0};
        }
        if (rvs_csr_col(C, q) != j)
            return (row_diff){ROW_COLUMN, rvs_csr_col(C, q), j, 0, 0, 0, 0, 0};
        const double c = rvs_csr_value(C, q), ci = rvs_csr_value_im(C, q);
        if (finite && isinf(scale)) /* sum |a_ik b_kj| overflowed: no tolerance bounds the entry */
            return (row_diff){ROW_OVERFLOW, j, 0, c, ci, r, ri, *max_err = INFINITY};
        double d = hypot(c - r, ci - ri) / (scale + floor / tol);
        if (!isfinite(r) || !isfinite(ri)) /* NaN or Inf (rvs.5): the same class whatever the order */
            d = ((isnan(r) && isnan(c)) || c == r) && ((isnan(ri) && isnan(ci)) || ci == ri) ? 0 : INFINITY;
        if (!(d <= *max_err))
            *max_err = isnan(d) ? INFINITY : d;
        if (*max_err > tol)
            return (row_diff){ROW_VALUE, j, 0, c, ci, r, ri, *max_err};
        q++;
    }
    if (q != c1)
        return (row_diff){ROW_COUNT, c1 - c0, q - c0, 0, 0, 0, 0, 0};
    return f;
}

/* Compare C with A*B row by row (rows in parallel): same pattern, values within tol of sum
 * |a_ik b_kj|; an entry whose sum |a_ik b_kj| overflows (its products finite) fails, since no
 * tolerance bounds it; the lowest row that differs is named. */
rvs_status rvs_spgemm_check(const rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double tol, double *max_err,
                            rvs_error *err)
{
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    *max_err = 0;
    if (st != RVS_OK)
        return st;
    if (C->rows != A->rows || C->cols != B->cols ||
        rvs_vtype_is_complex(C->vtype) != rvs_vtype_is_complex(A->vtype))
        return rvs_fail(err, RVS_ERR_CHECK, "check failed: C is %lld x %lld (%s), the product %lld x %lld (%s)",
                        (long long)C->rows, (long long)C->cols, rvs_vtype_name(C->vtype), (long long)A->rows,
                        (long long)B->cols, rvs_vtype_is_complex(A->vtype) ? "complex" : "real");
    /* below the smallest normal number of C's type, relative error means nothing (subnormals) */
    const double floor = rvs_vtype_real(C->vtype) == RVS_F32 ? FLT_MIN : DBL_MIN;
    int64_t bad = C->rows, nomem = 0;
    double worst = 0;
#pragma omp parallel reduction(max : worst) reduction(+ : nomem)
    {
        merge m = {NULL, NULL, 0, 0};
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < C->rows; i++) {
            int64_t first;
#pragma omp atomic read
            first = bad;
            if (i > first || nomem)
                continue; /* a lower row failed already */
            double e = 0;
            row_diff f = check_row(&m, C, A, B, i, tol, floor, &e);
            worst = e > worst ? e : worst;
            nomem += f.what < 0;
            if (f.what > 0) {
#pragma omp critical(rvs_spgemm_check_bad)
                bad = i < bad ? i : bad;
            }
        }
        free(m.c);
        free(m.h);
    }
    *max_err = worst;
    if (nomem)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory checking the product");
    if (bad == C->rows)
        return RVS_OK;
    merge m = {NULL, NULL, 0, 0};
    double e = 0;
    row_diff f = check_row(&m, C, A, B, bad, tol, floor, &e);
    free(m.c);
    free(m.h);
    const long long row = (long long)bad + 1;
    switch (f.what) {
    case ROW_COUNT:
        return rvs_fail(err, RVS_ERR_CHECK, "check failed: row %lld has %lld entries, reference %lld", row,
                        (long long)f.got, (long long)f.want);
    case ROW_COLUMN:
        return rvs_fail(err, RVS_ERR_CHECK, "check failed: row %lld: column %lld, reference %lld", row,
                        (long long)f.got + 1, (long long)f.want + 1);
    case ROW_OVERFLOW:
        return rvs_fail(err, RVS_ERR_CHECK,
                        "check failed: entry (%lld,%lld): sum |a_ik b_kj| overflows a double, "
                        "so no tolerance bounds C's error",
                        row, (long long)f.got + 1);
    case ROW_VALUE:
        return rvs_fail(err, RVS_ERR_CHECK,
                        "check failed: entry (%lld,%lld) = %.17g%+.17gi, reference %.17g%+.17gi, error %.3g > "
                        "tolerance %.3g",
                        row, (long long)f.got + 1, f.c, f.ci, f.r, f.ri, f.d, tol);
    default: return rvs_fail(err, RVS_ERR_NOMEM, "out of memory checking the product");
    }
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
rvs_status rvs_spgemm_csparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds, rvs_error *err)
{
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    cs_dl *R = NULL;
    memset(C, 0, sizeof *C);
    if (st != RVS_OK)
        return st;
    if (rvs_vtype_is_complex(A->vtype))
        return csparse_complex(C, A, B, seconds, err);
    R = csparse_product(A, B, seconds);
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
