/* spgemm_stub.c - the GPU SpGEMM in a build without CUDA: every call RVS_ERR_NODEV */
#include <string.h>
#include "../../cpu/rvs_spgemm.h"

/* No device pipeline without CUDA. */
rvs_status rvs_spgemm_gpu_pipeline(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                   const rvs_spgemm_options *o, rvs_spgemm_rows_fn fallback,
                                   rvs_spgemm_stats *stats, rvs_error *err)
{
    (void)A; (void)B; (void)o; (void)fallback;
    memset(C, 0, sizeof *C);
    if (stats)
        memset(stats, 0, sizeof *stats);
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}

/* No cuSPARSE baseline without CUDA. */
rvs_status rvs_spgemm_cusparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *kernel_s,
                               double *total_s, int *alg, size_t *peak_bytes, rvs_error *err)
{
    (void)A; (void)B; (void)kernel_s; (void)total_s; (void)alg; (void)peak_bytes;
    if (C)
        memset(C, 0, sizeof *C);
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}
