/* rvs_cusparse.h - GPU measurement for the programs (C interface): cuSPARSE SpMV baselines,
 * device-to-device copy bandwidth, and CUDA-event timing of our own kernels */
#ifndef RVS_CUSPARSE_H
#define RVS_CUSPARSE_H

#include "rvs_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cuSPARSE SpMV algorithms we compare against (generic API). */
typedef enum {
    RVS_CUSPARSE_CSR_ALG1 = 1, /* CUSPARSE_SPMV_CSR_ALG1 */
    RVS_CUSPARSE_CSR_ALG2 = 2, /* CUSPARSE_SPMV_CSR_ALG2 */
    RVS_CUSPARSE_COO_ALG1 = 3  /* CUSPARSE_SPMV_COO_ALG1 */
} rvs_cusparse_alg;

/* Short name of an algorithm, as printed in tables: "csr-alg1", "csr-alg2", "coo-alg1". */
const char *rvs_cusparse_alg_name(rvs_cusparse_alg alg);

/* y = A*x with cuSPARSE in A's value type (x: A->cols, y: A->rows values of A->vtype, host
 * memory). Uploads A and x, runs once to warm up, then times iters runs (>= 1) one by one
 * with CUDA events; *ms is their median, y the result of the last run. Upload and set-up
 * are not timed. RVS_ERR_NODEV without a GPU. */
rvs_status rvs_cusparse_spmv(const rvs_csr *A, rvs_cusparse_alg alg, const void *x, void *y, int iters, double *ms,
                             rvs_error *err);

/* Device-to-device copy bandwidth in GB/s (10^9 bytes read plus written per second):
 * cudaMemcpy of bytes (0: 1 GiB, halved until it fits in free memory), one warm-up, median
 * of iters (>= 1) timed with CUDA events. */
rvs_status rvs_gpu_copy_bandwidth(size_t bytes, int iters, double *gbs, rvs_error *err);

/* Run rvs_gpu_spmv once on the default stream between two CUDA events, wait for it, and
 * return the elapsed time in *ms. Reports kernel faults. */
rvs_status rvs_gpu_spmv_timed(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t, double *ms,
                              rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
