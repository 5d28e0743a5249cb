/* csr_complex.c - the CSR hub from triplets with complex values */
#include <stdlib.h>
#include <string.h>
#include "rvs_csr.h"
#include "rvs_omp.h"

/* A = triplets (ri, ci, vals[2k] + i vals[2k+1]) of complex type vt. The real and imaginary
 * parts go through rvs_csr_from_coo separately: its placement depends on the indices alone
 * and it sums duplicates in input order, so both give one structure, and each part is the sum
 * the complex sum would give. */
rvs_status rvs_csr_from_coo_complex(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                                    const int64_t *ci, const double *vals, rvs_vtype vt, rvs_error *err)
{
    rvs_csr R = {0}, I = {0};
    rvs_status st = RVS_OK;
    double *re = NULL, *im = NULL;
    memset(A, 0, sizeof *A);
    if (!rvs_vtype_is_complex(vt))
        return rvs_fail(err, RVS_ERR_ARG, "complex triplets into a %s matrix", rvs_vtype_name(vt));
    if (nnz < 0 || (uint64_t)nnz > SIZE_MAX / sizeof(double))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "%lld entries are too many", (long long)nnz);
    re = malloc((size_t)(nnz ? nnz : 1) * sizeof *re);
    im = malloc((size_t)(nnz ? nnz : 1) * sizeof *im);
    if (!re || !im) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld complex entries", (long long)nnz);
        goto done;
    }
#pragma omp parallel for schedule(static) if (nnz > RVS_OMP_MIN_WORK)
    for (int64_t k = 0; k < nnz; k++) {
        re[k] = vals ? vals[2 * k] : 1.0;
        im[k] = vals ? vals[2 * k + 1] : 0.0;
    }
    if ((st = rvs_csr_from_coo(&R, rows, cols, nnz, ri, ci, re, RVS_F64, err)) != RVS_OK ||
        (st = rvs_csr_from_coo(&I, rows, cols, nnz, ri, ci, im, RVS_F64, err)) != RVS_OK ||
        (st = rvs_csr_alloc(A, R.rows, R.cols, R.nnz, vt, err)) != RVS_OK)
        goto done;
    memcpy(A->rowptr, R.rowptr, (size_t)(R.rows + 1) * sizeof *A->rowptr);
    if (R.colind)
        memcpy(A->colind, R.colind, (size_t)R.nnz * sizeof *A->colind);
    else
        memcpy(A->colind64, R.colind64, (size_t)R.nnz * sizeof *A->colind64);
    const double *rv = R.values, *iv = I.values;
#pragma omp parallel for schedule(static) if (R.nnz > RVS_OMP_MIN_WORK)
    for (int64_t k = 0; k < R.nnz; k++) {
        if (vt == RVS_C128) {
            ((double *)A->values)[2 * k] = rv[k];
            ((double *)A->values)[2 * k + 1] = iv[k];
        } else {
            ((float *)A->values)[2 * k] = (float)rv[k];
            ((float *)A->values)[2 * k + 1] = (float)iv[k];
        }
    }
done:
    rvs_csr_free(&R);
    rvs_csr_free(&I);
    free(re);
    free(im);
    return st;
}
