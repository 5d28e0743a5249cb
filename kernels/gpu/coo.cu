/* coo.cu - GPU SpMV in COO (entries sorted by row): each warp walks a contiguous run of
 * entries 32 at a time with a segmented inclusive scan over rows; a row's partial sum is
 * carried between batches and added to y atomically where its segment ends */
#include "gpu_internal.cuh"

#define COO_BATCHES_PER_WARP 8 /* 256 entries per warp */

/* Rows of the y accumulate into: y was zeroed, every finished segment adds its sum. */
template <typename T>
__global__ void coo_segmented(int64_t nnz, int64_t per_warp, const int32_t *__restrict__ ri,
                              const int32_t *__restrict__ ci, const T *__restrict__ va,
                              const T *__restrict__ x, T *__restrict__ y)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int64_t begin = warp * per_warp;
    if (begin >= nnz)
        return; /* whole warps leave together: per_warp is a multiple of 32 */
    const int64_t end = begin + per_warp < nnz ? begin + per_warp : nnz;
    int carry_row = -1;
    T carry = 0;
    for (int64_t b = begin; b < end; b += 32) {
        int64_t p = b + lane;
        int row = -1; /* past the end: a row no entry has, so the last real lane ends a segment */
        T v = 0;
        if (p < end) {
            row = ri[p];
            v = va[p] * __ldg(&x[ci[p]]);
        }
        if (lane == 0 && carry_row >= 0) {
            if (row == carry_row)
                v += carry;
            else
                atomicAdd(&y[carry_row], carry);
        }
        for (int off = 1; off < 32; off *= 2) {
            T up = __shfl_up_sync(full, v, off);
            int up_row = __shfl_up_sync(full, row, off);
            if (lane >= off && up_row == row)
                v += up;
        }
        int next_row = __shfl_down_sync(full, row, 1);
        if (lane < 31 && row >= 0 && next_row != row)
            atomicAdd(&y[row], v);
        carry = __shfl_sync(full, v, 31);
        carry_row = __shfl_sync(full, row, 31);
    }
    if (lane == 0 && carry_row >= 0)
        atomicAdd(&y[carry_row], carry);
}

/* Zero y, then launch the segmented kernel for one value type. */
template <typename T>
static rvs_status launch(const rvs_gpu_fmt *G, int block, cudaStream_t s, const T *x, T *y, rvs_error *err)
{
    const int32_t *ri = (const int32_t *)rvs_gpu_data(G, "row");
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "col");
    const T *va = (const T *)rvs_gpu_data(G, "values");
    RVS_CUDA_TRY(cudaMemsetAsync(y, 0, (size_t)G->rows * sizeof(T), s), err);
    if (G->nnz == 0)
        return RVS_OK;
    int64_t per_warp = 32 * COO_BATCHES_PER_WARP;
    int64_t warps = (G->nnz + per_warp - 1) / per_warp;
    /* keep the grid within its limit by giving each warp more entries */
    while (warps * 32 / block > 2147483647LL / 2) {
        per_warp *= 2;
        warps = (G->nnz + per_warp - 1) / per_warp;
    }
    coo_segmented<T><<<rvs_gpu_blocks(warps * 32, block), block, 0, s>>>(G->nnz, per_warp, ri, ci, va, x, y);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* y = A*x, A a COO block (sorted by row) on the device. Tunable: block (default 256). */
extern "C" rvs_status rvs_gpu_spmv_coo(const rvs_gpu_fmt *G, const void *dx, void *dy,
                                       const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    int block = t->block > 0 ? t->block : 256;
    if (block % 32 != 0 || block > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "coo: block %d is not a multiple of 32 up to 1024", block);
    if (G->nnz > 0 && (!rvs_gpu_data(G, "row") || !rvs_gpu_data(G, "col") || !rvs_gpu_data(G, "values")))
        return rvs_fail(err, RVS_ERR_FORMAT, "coo: device arrays missing");
    cudaStream_t s = rvs_gpu_stream(stream);
    if (G->vtype == RVS_F64)
        return launch<double>(G, block, s, (const double *)dx, (double *)dy, err);
    return launch<float>(G, block, s, (const float *)dx, (float *)dy, err);
}
