/* spgemm_run.c - C = A*B where the caller or the choice says, checked when asked, and the
 * baselines a report compares it with */
#include <string.h>
#include "rvs_engine_spgemm.h"

rvs_status rvs_spgemm_run(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_where *where, int fallback,
                          const rvs_spgemm_options *o, rvs_spgemm_stats *stats, double tol, double *max_err,
                          rvs_error *err)
{
    rvs_status st;
    if (*where == RVS_SPGEMM_ON_CPU) {
        st = rvs_spgemm_cpu(C, A, B, stats, err);
    } else {
        st = *where == RVS_SPGEMM_ON_GPU ? rvs_spgemm_gpu(C, A, B, o, stats, err)
                                         : rvs_spgemm_hybrid(C, A, B, o, stats, err);
        if (st == RVS_ERR_NODEV && fallback) {
            *where = RVS_SPGEMM_ON_CPU;
            st = rvs_spgemm_cpu(C, A, B, stats, err);
        }
    }
    if (st == RVS_OK && tol > 0)
        st = rvs_spgemm_check(C, A, B, tol, max_err, err);
    return st;
}

void rvs_spgemm_run_baselines(rvs_spgemm_baselines *b, const rvs_csr *A, const rvs_csr *B)
{
    rvs_csr C;
    rvs_error err;
    memset(b, 0, sizeof b[0]);
    b->cusparse_ran = rvs_spgemm_cusparse(NULL, A, B, 5, 1, &b->cusparse_kernel_s, &b->cusparse_total_s,
                                          &b->cusparse_alg, &b->cusparse_peak_bytes, &err) == RVS_OK;
    memset(&C, 0, sizeof C);
    b->csparse_ran = rvs_spgemm_csparse(&C, A, B, &b->csparse_s, &err) == RVS_OK;
    rvs_csr_free(&C);
    b->graphblas_ran = rvs_spgemm_graphblas(NULL, A, B, &b->graphblas_s, &err) == RVS_OK;
}
