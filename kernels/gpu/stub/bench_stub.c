/* bench_stub.c - the GPU measurement interface in a build without CUDA: RVS_ERR_NODEV */
#include "rvs_cusparse.h"

/* Names as in the CUDA build. */
const char *rvs_cusparse_alg_name(rvs_cusparse_alg alg)
{
    return alg == RVS_CUSPARSE_CSR_ALG1 ? "csr-alg1" : alg == RVS_CUSPARSE_CSR_ALG2 ? "csr-alg2" : "coo-alg1";
}

/* No cuSPARSE here. */
rvs_status rvs_cusparse_spmv(const rvs_csr *A, rvs_cusparse_alg alg, const void *x, void *y, int iters, double *ms,
                             rvs_error *err)
{
    (void)A;
    (void)alg;
    (void)x;
    (void)y;
    (void)iters;
    *ms = 0;
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}

/* No device to copy on. */
rvs_status rvs_gpu_copy_bandwidth(size_t bytes, int iters, double *gbs, rvs_error *err)
{
    (void)bytes;
    (void)iters;
    *gbs = 0;
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}

/* No kernel to time. */
rvs_status rvs_gpu_spmv_timed(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t, double *ms,
                              rvs_error *err)
{
    (void)G;
    (void)dx;
    (void)dy;
    (void)t;
    *ms = 0;
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}
