/* mixed.cu - mixed-precision SpMV (spmv --precision mixed): f32 values of A, f64 x, y and sums.
 * The dispatcher, and CSR's vector kernel (threads_per_row 2..32 lanes per row), products and sums
 * in f64. CSR's default is the row-block kernel (threads_per_row 64, csr.cu) with f32 values
 * staged as f64 products: 8 bytes an entry where f64 CSR reads 12; on a block the upload laid out
 * for the row kernels (16-bit columns, coded values) the warp-rows kernel (256, csr.cu). HCC's is
 * in hcc.cu. */
#include "gpu_internal.cuh"

template <int LANES>
__global__ void csr_mixed_vector(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                                 const float *__restrict__ va, const double *__restrict__ x, rvs_ymap ym,
                                 double *__restrict__ y)
{
    const int lane = threadIdx.x % LANES;
    const int64_t groups = (int64_t)gridDim.x * blockDim.x / LANES;
    /* whole warps walk the grid-stride loop together, so every lane reaches the shuffles */
    for (int64_t base = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * (32 / LANES); base < rows;
         base += groups) {
        const int64_t i = base + (threadIdx.x % 32) / LANES;
        double s = 0;
        if (i < rows)
            for (int64_t p = __ldg(rp + i) + lane; p < __ldg(rp + i + 1); p += LANES)
                s += (double)__ldcs(va + p) * __ldg(x + __ldcs(ci + p));
#pragma unroll
        for (int off = LANES / 2; off > 0; off /= 2)
            s += __shfl_down_sync(0xffffffffu, s, off, LANES);
        if (lane == 0 && i < rows)
            rvs_y_put(ym, y, i, s);
    }
}

/* y = A*x, A a CSR block with f32 values; f64 x and y. */
extern "C" rvs_status rvs_gpu_spmv_csr_mixed(const rvs_gpu_fmt *G, const double *dx, double *dy,
                                            const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "colind");
    const float *va = (const float *)rvs_gpu_data(G, "values");
    /* a block laid out for the row kernels (16-bit columns or coded values, rows in order) takes the
     * warp-rows kernel; any other the row-block kernel */
    const bool in_rows = rvs_gpu_csr_laid_out(G);
    const int lanes = t && t->threads_per_row > 0 ? t->threads_per_row : in_rows ? 256 : 64;
    const int block = t && t->block > 0 ? t->block : 256;
    if (lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32 && lanes != 64 && lanes != 256)
        return rvs_fail(err, RVS_ERR_ARG,
                        "csr mixed: threads-per-row %d is not 2, 4, 8, 16, 32, 64 (row-block) or 256 (warp-rows)", lanes);
    if (block % 32 || block > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "csr mixed: block %d is not a multiple of 32 up to 1024", block);
    if (!rp || (G->nnz > 0 && ((!ci && !rvs_gpu_array(G, "col16")) || (!va && !rvs_gpu_array(G, "vdict")))))
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: device arrays missing");
    rvs_status st = rvs_gpu_csr_layout_check(G, lanes, err);
    if (st != RVS_OK)
        return st;
    if (lanes == 64 || lanes == 256)
        return rvs_gpu_csr_mixed(G, lanes, dx, dy, stream, err);
    if (in_rows) /* the mixed vector kernel reads 32-bit columns and values as they are */
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "csr mixed: threads-per-row %d reads 32-bit columns and values as they are; this block was "
                        "uploaded for the warp-rows kernel (build it with csr-order=1)",
                        lanes);
    unsigned grid = rvs_gpu_blocks(G->rows * lanes, block);
    grid = grid > 65535u * 32u ? 65535u * 32u : grid;
    cudaStream_t s = rvs_gpu_stream(stream);
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    switch (lanes) {
    case 2: csr_mixed_vector<2><<<grid, block, 0, s>>>(G->rows, rp, ci, va, dx, ym, dy); break;
    case 4: csr_mixed_vector<4><<<grid, block, 0, s>>>(G->rows, rp, ci, va, dx, ym, dy); break;
    case 8: csr_mixed_vector<8><<<grid, block, 0, s>>>(G->rows, rp, ci, va, dx, ym, dy); break;
    case 16: csr_mixed_vector<16><<<grid, block, 0, s>>>(G->rows, rp, ci, va, dx, ym, dy); break;
    default: csr_mixed_vector<32><<<grid, block, 0, s>>>(G->rows, rp, ci, va, dx, ym, dy); break;
    }
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* Mixed-precision SpMV in G's format. */
extern "C" rvs_status rvs_gpu_spmv_mixed(const rvs_gpu_fmt *G, const double *dx, double *dy, const rvs_gpu_tune *t,
                                        void *stream, rvs_error *err)
{
    static const rvs_gpu_tune defaults = {0, 0, 0, 0, 0};
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
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "no mixed-precision GPU kernel for format %s (csr and hcc have one)",
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
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return st;
}
