/* dia.cu - GPU SpMV in DIA: one thread per row; diagonal k reads dia_val[k*ld + i] and
 * x[i + offset], both consecutive across a warp */
#include "gpu_parts.cuh"

template <typename T>
__global__ void dia_kernel(int64_t rows, int64_t cols, int64_t ndiag, int64_t ld, const int32_t *__restrict__ off,
                           const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x) {
        T sum = 0;
        for (int64_t k = 0; k < ndiag; k++) {
            int64_t c = i + __ldg(off + k);
            if (c >= 0 && c < cols)
                sum += val[k * ld + i] * __ldg(x + c);
        }
        y[i] = sum;
    }
}

/* dy = DIA part of G times dx. */
rvs_status rvs_gpu_dia_part(const rvs_gpu_fmt *G, int64_t ndiag, int64_t ld, const void *dx, void *dy,
                            int block, cudaStream_t s, rvs_error *err)
{
    if (G->rows == 0)
        return RVS_OK;
    const int32_t *off = (const int32_t *)rvs_gpu_data(G, "offsets");
    const void *val = rvs_gpu_data(G, "dia_val");
    unsigned grid = rvs_gpu_blocks(G->rows, block);
    if (G->vtype == RVS_F64)
        dia_kernel<double><<<grid, block, 0, s>>>(G->rows, G->cols, ndiag, ld, off, (const double *)val,
                                                  (const double *)dx, (double *)dy);
    else
        dia_kernel<float><<<grid, block, 0, s>>>(G->rows, G->cols, ndiag, ld, off, (const float *)val,
                                                 (const float *)dx, (float *)dy);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* y = A*x, A in DIA. */
extern "C" rvs_status rvs_gpu_spmv_dia(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                      void *stream, rvs_error *err)
{
    int block = t && t->block > 0 ? t->block : 256;
    return rvs_gpu_dia_part(G, G->param[0], G->param[1], dx, dy, block, rvs_gpu_stream(stream), err);
}
