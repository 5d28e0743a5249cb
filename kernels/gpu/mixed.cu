/* mixed.cu - mixed-precision SpMV (spmv --precision mixed): f32 values of A, f64 x, y and sums.
 * The dispatcher. CSR's kernels are csr.cu's, products and sums in f64: by default the row-block
 * kernel with f32 values staged as f64 products, 8 bytes an entry where f64 CSR reads 12, and on a
 * block the upload laid out for the row kernels (16-bit columns, coded values) the kernel f32
 * would take (the rule of libformat/csr_gpu_rule.c). HCC's is in hcc.cu. */
#include "gpu_internal.cuh"

/* y = A*x, A a CSR block with f32 values; f64 x and y. */
extern "C" rvs_status rvs_gpu_spmv_csr_mixed(const rvs_gpu_fmt *G, const double *dx, double *dy,
                                             const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    const int lanes = t->threads_per_row, block = t->block > 0 ? t->block : 256;
    if (lanes != 0 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
        return rvs_fail(err, RVS_ERR_ARG, "csr mixed: threads-per-row %d is not 2, 4, 8, 16 or 32", lanes);
    if (block % 32 || block > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "csr mixed: block %d is not a multiple of 32 up to 1024", block);
    return rvs_gpu_csr_mixed(G, t, dx, dy, stream, err);
}

/* Mixed-precision SpMV in G's format. */
extern "C" rvs_status rvs_gpu_spmv_mixed(const rvs_gpu_fmt *G, const double *dx, double *dy, const rvs_gpu_tune *t,
                                         void *stream, rvs_error *err)
{
    static const rvs_gpu_tune defaults = {0, 0, 0, 0, 0, 0};
    if (G->vtype != RVS_F32)
        return rvs_fail(err, RVS_ERR_ARG, "mixed precision needs a block with f32 values");
    if (G->rows == 0)
        return RVS_OK;
    t = t ? t : &defaults;
    for (int p = 0; p < G->npanel; p++) { /* column panels, in order: 0 stores, the rest add */
        const rvs_gpu_fmt Q = rvs_gpu_panel_view(G, p);
        rvs_status st = Q.nnz > 0 ? rvs_gpu_spmv_mixed(&Q, dx, dy, t, stream, err)
                                  : rvs_gpu_y_zero_as(&Q, RVS_F64, dy, rvs_gpu_stream(stream), err);
        if (st != RVS_OK)
            return st;
    }
    if (G->npanel > 0)
        return RVS_OK;
    switch (G->id) {
    case RVS_FMT_CSR: return rvs_gpu_spmv_csr_mixed(G, dx, dy, t, stream, err);
    case RVS_FMT_HCC: return rvs_gpu_spmv_hcc_mixed(G, dx, dy, t, stream, err);
    default:
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "no mixed-precision GPU kernel for format %s (csr and hcc have one)",
                        rvs_format_lookup(G->id) ? rvs_format_lookup(G->id)->name : "?");
    }
}

/* One rvs_gpu_spmv_mixed on the default stream between two CUDA events, waited for: *ms. */
extern "C" rvs_status rvs_gpu_spmv_mixed_timed(const rvs_gpu_fmt *G, const double *dx, double *dy,
                                               const rvs_gpu_tune *t, double *ms, rvs_error *err)
{
    rvs_status st = RVS_OK;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float f = 0;
    *ms = 0;
    RVS_CUDA_GO(cudaEventCreate(&e0));
    RVS_CUDA_GO(cudaEventCreate(&e1));
    RVS_CUDA_GO(cudaEventRecord(e0, 0));
    RVS_GO(rvs_gpu_spmv_mixed(G, dx, dy, t, NULL, err));
    RVS_CUDA_GO(cudaEventRecord(e1, 0));
    RVS_CUDA_GO(cudaEventSynchronize(e1));
    RVS_CUDA_GO(cudaEventElapsedTime(&f, e0, e1));
    *ms = f;
done:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    return st;
}
