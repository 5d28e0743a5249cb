/* hyb.cu - GPU SpMV in HYB: an ELL kernel (one thread per row, column-major slots: coalesced)
 * writes y, then a COO kernel adds the tail: one thread per entry, a segmented inclusive scan
 * by row inside each warp (__shfl_up_sync, full mask), and one atomicAdd per row run of a warp.
 * Atomics make the last bits of rows split across warps order-dependent: well inside the check
 * tolerance. */
#include "gpu_parts.cuh"

template <typename T>
__global__ void hyb_ell_kernel(int64_t rows, int64_t K, int64_t ld, const int32_t *__restrict__ ec,
                               const T *__restrict__ ev, const T *__restrict__ x, T *__restrict__ y)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x) {
        T sum = 0;
        for (int64_t j = 0; j < K; j++) {
            int32_t c = ec[j * ld + i];
            if (c < 0)
                break; /* padding ends a row */
            sum += ev[j * ld + i] * __ldg(x + c);
        }
        y[i] = sum;
    }
}

template <typename T>
__global__ void hyb_coo_kernel(int64_t ncoo, const int32_t *__restrict__ ri, const int32_t *__restrict__ ci,
                               const T *__restrict__ va, const T *__restrict__ x, T *__restrict__ y)
{
    const unsigned full = 0xffffffffu;
    int lane = threadIdx.x & 31;
    /* Whole warps iterate together so every lane takes part in every shuffle. */
    int64_t first = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) - lane;
    for (int64_t base = first; base < ncoo; base += (int64_t)gridDim.x * blockDim.x) {
        int64_t p = base + lane;
        int32_t r = p < ncoo ? ri[p] : -1;
        T v = p < ncoo ? va[p] * __ldg(x + ci[p]) : T(0);
        for (int d = 1; d < 32; d *= 2) {
            T o = __shfl_up_sync(full, v, d);
            int32_t orow = __shfl_up_sync(full, r, d);
            if (lane >= d && orow == r)
                v += o;
        }
        int32_t next = __shfl_down_sync(full, r, 1);
        if (r >= 0 && (lane == 31 || next != r))
            atomicAdd(y + r, v);
    }
}

/* dy += COO tail of G times dx. */
rvs_status rvs_gpu_coo_part_add(const rvs_gpu_fmt *G, int64_t ncoo, const void *dx, void *dy, int block,
                                cudaStream_t s, rvs_error *err)
{
    if (ncoo == 0)
        return RVS_OK;
    const int32_t *ri = (const int32_t *)rvs_gpu_data(G, "coo_row"), *ci = (const int32_t *)rvs_gpu_data(G, "coo_col");
    const void *va = rvs_gpu_data(G, "coo_val");
    block = (block + 31) / 32 * 32;
    unsigned grid = rvs_gpu_blocks(ncoo, block);
    if (G->vtype == RVS_F64)
        hyb_coo_kernel<double><<<grid, block, 0, s>>>(ncoo, ri, ci, (const double *)va, (const double *)dx,
                                                      (double *)dy);
    else
        hyb_coo_kernel<float><<<grid, block, 0, s>>>(ncoo, ri, ci, (const float *)va, (const float *)dx,
                                                     (float *)dy);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* y = A*x, A in HYB. */
extern "C" rvs_status rvs_gpu_spmv_hyb(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                      void *stream, rvs_error *err)
{
    int block = t && t->block > 0 ? t->block : 256;
    cudaStream_t s = rvs_gpu_stream(stream);
    if (G->rows > 0) {
        const int32_t *ec = (const int32_t *)rvs_gpu_data(G, "ell_col");
        const void *ev = rvs_gpu_data(G, "ell_val");
        unsigned grid = rvs_gpu_blocks(G->rows, block);
        if (G->vtype == RVS_F64)
            hyb_ell_kernel<double><<<grid, block, 0, s>>>(G->rows, G->param[0], G->param[1], ec, (const double *)ev,
                                                          (const double *)dx, (double *)dy);
        else
            hyb_ell_kernel<float><<<grid, block, 0, s>>>(G->rows, G->param[0], G->param[1], ec, (const float *)ev,
                                                         (const float *)dx, (float *)dy);
        RVS_CUDA_LAUNCHED(err);
    }
    return rvs_gpu_coo_part_add(G, G->param[2], dx, dy, block, s, err);
}
