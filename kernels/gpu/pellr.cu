/* pellr.cu - GPU SpMV in PELLR (fmt_pellr.c): one thread per stored row, a warp per sorted
 * slice, running to the slice's width wl and writing y[perm[p]]. */
#include "ell_family.cuh"

/* y[perm[p]] = stored row p of A times x. */
template <typename T>
__global__ void pellr_kernel(int64_t rows, const int32_t *__restrict__ perm, const int32_t *__restrict__ wl,
                             const int64_t *__restrict__ sptr, const int32_t *__restrict__ col,
                             const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (p >= rows)
        return;
    int64_t w = p / 32, base = sptr[w] + p % 32, n = wl[w];
    T s = 0;
    for (int64_t k = 0; k < n; k++)
        s += rvs_ell_slot(col, val, x, base + 32 * k);
    y[perm[p]] = s;
}

/* y = A*x, A a PELLR block on the device. */
extern "C" rvs_status rvs_gpu_spmv_pellr(const rvs_gpu_fmt *G, const void *dx, void *dy,
                                        const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    static const char *const names[] = {"perm", "wl", "sptr", "col", "values"};
    const void *a[5];
    int block;
    rvs_status st;
    if ((st = rvs_ell_block(t, "pellr", &block, err)) || (st = rvs_ell_arrays(G, "pellr", names, a, 5, err)))
        return st;
    if (G->rows == 0)
        return RVS_OK;
    unsigned grid = rvs_gpu_blocks(G->rows, block);
    cudaStream_t s = rvs_gpu_stream(stream);
    if (G->vtype == RVS_F64)
        pellr_kernel<double><<<grid, block, 0, s>>>(G->rows, (const int32_t *)a[0], (const int32_t *)a[1],
                                                    (const int64_t *)a[2], (const int32_t *)a[3],
                                                    (const double *)a[4], (const double *)dx, (double *)dy);
    else
        pellr_kernel<float><<<grid, block, 0, s>>>(G->rows, (const int32_t *)a[0], (const int32_t *)a[1],
                                                   (const int64_t *)a[2], (const int32_t *)a[3],
                                                   (const float *)a[4], (const float *)dx, (float *)dy);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
