/* mm_dense.c - a Matrix Market vector or matrix read as dense complex values */
#include <stdlib.h>
#include "rvs_mm.h"

/* Read path into a malloc'd column-major array of (re, im) pairs; a real file gives imaginary
 * parts 0, missing coordinate entries are 0. */
rvs_status rvs_mm_read_dense_complex(double **a, int64_t *rows, int64_t *cols, const char *path, rvs_error *err)
{
    rvs_csr A;
    *a = NULL;
    *rows = *cols = 0;
    rvs_status st = rvs_mm_read_file(&A, NULL, path, NULL, NULL, err);
    if (st != RVS_OK)
        return st;
    if (A.rows > 0 && A.cols > (int64_t)(SIZE_MAX / (2 * sizeof(double))) / A.rows) {
        st = rvs_fail(err, RVS_ERR_OVERFLOW, "a dense %lld x %lld array is too large", (long long)A.rows,
                      (long long)A.cols);
        goto done;
    }
    const size_t n = (size_t)A.rows * (size_t)A.cols;
    if (!(*a = calloc(n ? 2 * n : 2, sizeof **a))) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a dense %lld x %lld array", (long long)A.rows,
                      (long long)A.cols);
        goto done;
    }
    for (int64_t r = 0; r < A.rows; r++)
        for (int64_t k = A.rowptr[r]; k < A.rowptr[r + 1]; k++) {
            const size_t at = (size_t)(r + rvs_csr_col(&A, k) * A.rows);
            (*a)[2 * at] = rvs_csr_value(&A, k);
            (*a)[2 * at + 1] = rvs_csr_value_im(&A, k);
        }
    *rows = A.rows;
    *cols = A.cols;
done:
    rvs_csr_free(&A);
    return st;
}
