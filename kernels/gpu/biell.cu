/* biell.cu - GPU SpMV in BiELL (fmt_biell.c): one warp per group; all 32 lanes iterate the
 * group's gw steps over coalesced slots (unrolled 8 deep: several loads in flight), then the tpr lanes of each row sum by shuffles (tpr is
 * the same for the whole warp) and the first writes y[perm[p]]. */
#include "ell_family.cuh"

/* y for the rows of group (global thread / 32). */
template <typename T>
__global__ void biell_kernel(int64_t rows, int64_t ngroups, const int32_t *__restrict__ perm,
                             const int32_t *__restrict__ grow, const int32_t *__restrict__ gtpr,
                             const int64_t *__restrict__ gptr, const int32_t *__restrict__ col,
                             const T *__restrict__ val, const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    int64_t g = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (g >= ngroups) /* the whole warp leaves together: blockDim is a multiple of 32 */
        return;
    int tpr = gtpr[g];
    int64_t base = gptr[g] + lane, gw = (gptr[g + 1] - gptr[g]) / 32;
    T s = 0;
#pragma unroll 8
    for (int64_t j = 0; j < gw; j++) {
        int32_t c = __ldcs(col + base + 32 * j);
        if (c >= 0)
            s += __ldcs(val + base + 32 * j) * __ldg(x + c);
    }
    for (int off = tpr / 2; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off, tpr);
    int64_t p = grow[g] + lane / tpr;
    if (lane % tpr == 0 && p < rows)
        rvs_y_put(ym, y, perm[p], s);
}

/* y = A*x, A a BiELL block on the device. */
extern "C" rvs_status rvs_gpu_spmv_biell(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                         void *stream, rvs_error *err)
{
    static const char *const names[] = {"perm", "grow", "gtpr", "gptr", "col", "values"};
    const void *a[6];
    int block;
    rvs_status st;
    if ((st = rvs_ell_block(t, "biell", &block, err)) || (st = rvs_ell_arrays(G, "biell", names, a, 6, err)))
        return st;
    if (G->rows == 0)
        return RVS_OK;
    unsigned grid = rvs_gpu_blocks(G->param[2] * 32, block);
    cudaStream_t s = rvs_gpu_stream(stream);
    RVS_GPU_BY_VTYPE(G->vtype, T,
                     biell_kernel<T>
                     <<<grid, block, 0, s>>>(G->rows, G->param[2], (const int32_t *)a[0], (const int32_t *)a[1],
                                             (const int32_t *)a[2], (const int64_t *)a[3], (const int32_t *)a[4],
                                             (const T *)a[5], (const T *)dx, rvs_gpu_ymap_of(G), (T *)dy));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
