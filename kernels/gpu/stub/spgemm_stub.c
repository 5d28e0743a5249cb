/* spgemm_stub.c - the GPU SpGEMM in a build without CUDA: every call RVS_ERR_NODEV */
#include <string.h>
#include "../../cpu/rvs_spgemm.h"

static rvs_status nodev(rvs_csr *C, rvs_spgemm_stats *stats, rvs_error *err)
{
    if (C)
        memset(C, 0, sizeof *C);
    if (stats)
        memset(stats, 0, sizeof *stats);
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}

/* No hySpMM pipeline without CUDA. */
rvs_status rvs_spgemm_gpu_pipeline(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                                   rvs_spgemm_rows_fn fallback, rvs_spgemm_stats *stats, rvs_error *err)
{
    (void)A;
    (void)B;
    (void)o;
    (void)fallback;
    return nodev(C, stats, err);
}

/* No row-wise GPU SpGEMM without CUDA. */
rvs_status rvs_spgemm_gpu_rowwise(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                                  rvs_spgemm_sink *sink, rvs_spgemm_rows_fn fallback, rvs_spgemm_stats *stats,
                                  rvs_error *err)
{
    (void)A;
    (void)B;
    (void)o;
    (void)sink;
    (void)fallback;
    return nodev(C, stats, err);
}

void rvs_spgemm_gpu_release(void) {}
void rvs_spgemm_gpu_start(void) {}
double rvs_spgemm_gpu_start_left(double expected_s)
{
    return expected_s;
}
double rvs_spgemm_gpu_start_wait(void)
{
    return 0;
}
int rvs_spgemm_gpu_present(void)
{
    return 0;
}

/* No cuSPARSE baseline without CUDA. */
rvs_status rvs_spgemm_cusparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, int runs, int warm, double *kernel_s,
                               double *total_s, int *alg, size_t *peak_bytes, rvs_error *err)
{
    (void)A;
    (void)B;
    (void)runs;
    (void)warm;
    (void)kernel_s;
    (void)total_s;
    (void)peak_bytes;
    if (alg)
        *alg = 0;
    return nodev(C, NULL, err);
}
