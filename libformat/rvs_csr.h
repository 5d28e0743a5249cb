/* rvs_csr.h - the CSR hub every format converts from and back to */
#ifndef RVS_CSR_H
#define RVS_CSR_H

#include <stddef.h>
#include <stdint.h>
#include "rvs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Value types. The numbers are written to the stream: never renumber. A complex value is
 * its real part then its imaginary part (C99 float complex / double complex, CUDA's
 * cuFloatComplex / cuDoubleComplex). */
typedef enum { RVS_F32 = 1, RVS_F64 = 2, RVS_C64 = 3, RVS_C128 = 4 } rvs_vtype;

/* Bytes per value of a type (4, 8, 8 or 16); 0 for a number that is no type. */
size_t rvs_vtype_size(rvs_vtype t);

/* "f32", "f64", "c64" or "c128" ("?" for a number that is no type). */
const char *rvs_vtype_name(rvs_vtype t);

/* 1 for the complex types. */
static inline int rvs_vtype_is_complex(rvs_vtype t)
{
    return t == RVS_C64 || t == RVS_C128;
}
/* The type of one component: f32 for f32 and c64, f64 for f64 and c128. */
static inline rvs_vtype rvs_vtype_real(rvs_vtype t)
{
    return t == RVS_F32 || t == RVS_C64 ? RVS_F32 : RVS_F64;
}
/* t with the precision of p (f32 or f64) and t's complexness: what --precision asks of t. */
static inline rvs_vtype rvs_vtype_with_precision(rvs_vtype t, rvs_vtype p)
{
    const int single = rvs_vtype_real(p) == RVS_F32;
    return rvs_vtype_is_complex(t) ? (single ? RVS_C64 : RVS_C128) : (single ? RVS_F32 : RVS_F64);
}
/* 1 for a number that is one of the types above. */
static inline int rvs_vtype_valid(uint32_t t)
{
    return t >= RVS_F32 && t <= RVS_C128;
}

/* Largest column count that still uses 32-bit column indices. */
#define RVS_COL32_MAX INT32_MAX

/* Compressed sparse rows. Row pointers and counts are 64-bit. Column indices are 32-bit
 * (colind) while cols <= RVS_COL32_MAX; beyond that colind is NULL and colind64 holds them.
 * Column indices within a row are sorted ascending and unique (readers sum duplicates);
 * explicit zeros are kept. values is double * for RVS_F64 and float * for RVS_F32. */
typedef struct {
    int64_t rows, cols, nnz;
    rvs_vtype vtype;
    int64_t *rowptr;   /* rows + 1 entries, rowptr[0] = 0, rowptr[rows] = nnz */
    int32_t *colind;   /* nnz entries, or NULL when colind64 is used */
    int64_t *colind64; /* nnz entries, only when cols > RVS_COL32_MAX */
    void *values;      /* nnz values of vtype */
} rvs_csr;

/* Allocate an uninitialised rows x cols CSR with room for nnz entries (rowptr zeroed).
 * Checks every size multiplication; RVS_ERR_OVERFLOW when sizes cannot be represented,
 * RVS_ERR_NOMEM when allocation fails. On failure *A is left zeroed. */
rvs_status rvs_csr_alloc(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, rvs_vtype vt, rvs_error *err);

/* Free the arrays of A and zero it. Safe on a zeroed struct. */
void rvs_csr_free(rvs_csr *A);

/* Deep copy src into dst (dst must not hold arrays). */
rvs_status rvs_csr_copy(rvs_csr *dst, const rvs_csr *src, rvs_error *err);

/* Validate structure: rowptr monotone from 0 to nnz, columns in range, sorted and unique
 * per row. Returns RVS_ERR_FORMAT / RVS_ERR_RANGE with the offending row in err. */
rvs_status rvs_csr_validate(const rvs_csr *A, rvs_error *err);

/* Convert A's values to vtype in place (f64 <-> f32). */
rvs_status rvs_csr_convert_values(rvs_csr *A, rvs_vtype vt, rvs_error *err);

/* Value i of A as double, whatever the vtype (the real part of a complex value). */
static inline double rvs_csr_value(const rvs_csr *A, int64_t i)
{
    switch (A->vtype) {
    case RVS_F64: return ((const double *)A->values)[i];
    case RVS_F32: return (double)((const float *)A->values)[i];
    case RVS_C128: return ((const double *)A->values)[2 * i];
    default: return (double)((const float *)A->values)[2 * i];
    }
}

/* The imaginary part of value i of A as double (0 for a real vtype). */
static inline double rvs_csr_value_im(const rvs_csr *A, int64_t i)
{
    switch (A->vtype) {
    case RVS_C128: return ((const double *)A->values)[2 * i + 1];
    case RVS_C64: return (double)((const float *)A->values)[2 * i + 1];
    default: return 0.0;
    }
}

/* Column index i of A, whatever the index width. */
static inline int64_t rvs_csr_col(const rvs_csr *A, int64_t i)
{
    return A->colind ? (int64_t)A->colind[i] : A->colind64[i];
}

/* First k in a[0..n) with a[k] >= key (a ascending): e.g. the row where an entry range starts. */
static inline int64_t rvs_lower_bound_i64(const int64_t *a, int64_t n, int64_t key)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Build CSR from coordinate triplets (0-based). Entries may come in any order; duplicates
 * are summed (in double, in input order); indices must already be in range (checked,
 * RVS_ERR_RANGE names the first entry outside). vals is double (NULL means all ones:
 * pattern). The result has vtype vt. The caller's arrays are not changed. */
rvs_status rvs_csr_from_coo(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                            const int64_t *ci, const double *vals, rvs_vtype vt, rvs_error *err);

/* Coordinate triplets a builder may take over: row indices in ri32 or ri64, columns in ci32
 * or ci64 (the other NULL), values in v (NULL: all ones), malloc'd. */
typedef struct {
    int32_t *ri32;
    int64_t *ri64;
    int32_t *ci32;
    int64_t *ci64;
    double *v;
    int owned;    /* 1: the builder frees the arrays or makes them A's own */
    int in_range; /* 1: the caller has checked every index against the sizes already */
    int mirror;   /* 1: each off-diagonal (r, c, v) stands for (c, r, v) too (symmetric); -1: for
                       (c, r, -v) (skew); owned triplets of a square matrix only */
} rvs_triplets;

/* rvs_csr_from_coo for triplets of either index width, consuming them when T->owned: when
 * the rows never decrease, the column and value arrays become A's (no copy) and the row
 * pointers are read off the rows; otherwise entries are placed in parallel, stably (within a
 * row, input order; a mirrored entry right after the one it mirrors). Either way each row is
 * then sorted and merged where it lies. nnz counts the triplets given (without mirrors). T is
 * cleared. Peak memory: the triplets and A's row pointers, when the rows are in order or the
 * triplets are owned (out of order, they are copied grouped by row range while their pages go
 * back to the system, with their mirrors and 16-bit row offsets, then each range is ordered in
 * place); the triplets and A otherwise. */
rvs_status rvs_csr_from_triplets(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, rvs_triplets *T, rvs_vtype vt,
                                 rvs_error *err);

/* rvs_csr_from_coo with complex values: vals holds (re, im) pairs (NULL: all 1 + 0i), vt is
 * RVS_C64 or RVS_C128; duplicates are summed in double, part by part, in input order. */
rvs_status rvs_csr_from_coo_complex(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                                    const int64_t *ci, const double *vals, rvs_vtype vt, rvs_error *err);

/* y = A*x + beta*y in double precision (reference loop, serial). x has cols entries, y rows. */
void rvs_csr_spmv_ref(const rvs_csr *A, const double *x, double beta, double *y);

/* Check y against y_ref = A*x computed in double precision, row block by row block in parallel
 * (each row summed in column order, as CSparse's cs_dl_gaxpy does; no copy of A is made): for
 * each row, err_i = |y_i - ref_i| / (sum_j |a_ij x_j| + tiny). Fills *max_err and *worst_row
 * (the first row with the largest error); returns RVS_ERR_CHECK when max_err > tol (message
 * names the row), RVS_OK otherwise. A NaN in y always fails. tol: 1e-10 for f64 results, 1e-4
 * for f32 (see spmv.1). The rule has no infinite tolerance: a row whose sum_j |a_ij x_j|
 * overflows a double (its terms finite) fails, its error infinite, the message saying so; a row
 * with a term that is not finite (Inf or NaN in A or x) needs y of the reference's class (NaN,
 * or the same Inf). y is taken to be computed in A's precision: for f32 A a reference beyond
 * FLT_MAX is f32's infinity. For complex A, x and y hold (re, im) pairs and the check is
 * rvs_spmv_check_complex. */
rvs_status rvs_spmv_check(const rvs_csr *A, const double *x, const double *y, double tol, double *max_err,
                          int64_t *worst_row, rvs_error *err);
/* rvs_spmv_check with x drawn from seed as rvs_fill_x draws it (rvs_draw.h), in A's precision,
 * instead of read from an array: for a caller whose x lives only on the GPU. Real A only. */
rvs_status rvs_spmv_check_drawn(const rvs_csr *A, uint64_t seed, const double *y, double tol, double *max_err,
                                int64_t *worst_row, rvs_error *err);

/* The advisor's check of a trial run (x NULL: drawn from seed, real A): rvs_spmv_check's rule,
 * except that a row whose sum_j |a_ij x_j| overflows is passed over instead of failed - it
 * says nothing about the format, and the user's own check fails it. RVS_OK when y passes. */
rvs_status rvs_spmv_check_trial(const rvs_csr *A, const double *x, uint64_t seed, const double *y, double tol,
                                rvs_error *err);

/* The check in two steps, for a caller that gives A away before y exists: ref = A*x in double
 * and scale per row (sum_j |a_ij x_j|; +Inf when that sum overflowed, NaN when a term is not
 * finite; rows entries each, row blocks in parallel; the scales of a row's pieces add up), then
 * y, computed in precision yt, compared with them exactly as rvs_spmv_check compares it with
 * A*x. Real A (complex: rvs_spmv_check). */
void rvs_spmv_reference(const rvs_csr *A, const double *x, double *ref, double *scale);
rvs_status rvs_spmv_check_ref(const double *ref, const double *scale, const double *y, int64_t rows, rvs_vtype yt,
                              double tol, double *max_err, int64_t *worst_row, rvs_error *err);
/* rvs_spmv_check for a complex A: x and y hold (re, im) pairs of doubles, the reference is
 * CXSparse's cs_cl_gaxpy in double complex and err_i = |y_i - ref_i| / (sum_j |a_ij| |x_j|).
 * rvs_spmv_check calls it for complex A. */
rvs_status rvs_spmv_check_complex(const rvs_csr *A, const double *x, const double *y, double tol, double *max_err,
                                  int64_t *worst_row, rvs_error *err);

/* Transpose: At = A^T (sorted). */
rvs_status rvs_csr_transpose(rvs_csr *At, const rvs_csr *A, rvs_error *err);

/* V = rows [lo, hi) of A without copying its entries: V owns only its row pointers (rebased to
 * start at 0) and points into A's column indices and values. A must stay unchanged and outlive
 * V; free V with rvs_csr_view_free, never rvs_csr_free. */
rvs_status rvs_csr_view_rows(rvs_csr *V, const rvs_csr *A, int64_t lo, int64_t hi, rvs_error *err);

/* Free what a view owns (its row pointers) and zero it. Safe on a zeroed struct. */
void rvs_csr_view_free(rvs_csr *V);

/* 1 when rows[0..n) are consecutive ascending rows; *lo gets the first (0 for n == 0). */
int rvs_rows_consecutive(const int64_t *rows, int64_t n, int64_t *lo);

/* 1 when entry (row r, column c) passes filter: 0 every entry, 1 only those inside the diagonal
 * blocks of size block (row/block == col/block), 2 only those outside them. */
static inline int rvs_csr_keeps(int filter, int64_t block, int64_t r, int64_t c)
{
    return filter == 0 || ((r / block == c / block) == (filter == 1));
}

/* Extract rows rows[0..nrows-1] of A (in that order) into S (nrows x A->cols). A without
 * values (NULL) gives the structure alone: S's values are allocated but left unset.
 * filter selects entries: 0 all, 1 only those inside the diagonal blocks of size block
 * (row/block == col/block), 2 only those outside them. */
rvs_status rvs_csr_extract_rows(rvs_csr *S, const rvs_csr *A, const int64_t *rows, int64_t nrows, int filter,
                                int64_t block, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
