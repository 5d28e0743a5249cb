/* baseline.c - the vendor baselines spmv compares against: cuSPARSE CSR ALG1, CSR ALG2 and COO
 * ALG1 on the whole matrix in the run's value type, each checked against CSparse */
#include <string.h>
#include "engine_internal.h"
#include "rvs_cusparse.h"

rvs_status rvs_baseline_cusparse(const rvs_csr *A, rvs_vtype vt, const void *x, const double *xd, int iters,
                                 int check, double ms[3], double *check_err, char *what, size_t whatlen,
                                 rvs_error *err)
{
    static const rvs_cusparse_alg algs[3] = {RVS_CUSPARSE_CSR_ALG1, RVS_CUSPARSE_CSR_ALG2, RVS_CUSPARSE_COO_ALG1};
    rvs_csr C = {0};
    void *y = malloc((size_t)A->rows * rvs_vtype_size(vt) + 8);
    double *yd = malloc((size_t)A->rows * sizeof *yd + 8);
    rvs_status st = y && yd ? rvs_csr_copy(&C, A, err) : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st == RVS_OK && rvs_vtype_is_complex(vt))
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "the cuSPARSE baseline is real-valued; the matrix is complex");
    if (what && whatlen)
        what[0] = 0;
    if (st == RVS_OK)
        st = rvs_csr_convert_values(&C, vt, err);
    for (int a = 0; a < 3 && st == RVS_OK; a++) {
        double max_err = 0;
        int64_t row = -1;
        st = rvs_cusparse_spmv(&C, algs[a], x, y, iters, &ms[a], err);
        if (st != RVS_OK || !check)
            continue;
        rvs_y_to_double(yd, y, A->rows, vt);
        if (what)
            snprintf(what, whatlen, "cuSPARSE %s", rvs_cusparse_alg_name(algs[a]));
        st = rvs_spmv_check(A, xd, yd, rvs_check_tol(vt), &max_err, &row, err);
        if (max_err > *check_err)
            *check_err = max_err;
    }
    rvs_csr_free(&C);
    free(y);
    free(yd);
    return st;
}
