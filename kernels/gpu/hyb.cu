/* hyb.cu - GPU SpMV in HYB: an ELL kernel (one thread per row, column-major slots: coalesced,
 * four slots' columns loaded ahead) writes y, then a COO kernel adds the tail. The COO kernel
 * (also the COO format's, and HYB-DIA's tail) gives each warp a contiguous run of entries and
 * walks it 32 at a time (lane l takes entry l: coalesced); a batch inside one row is only
 * accumulated per lane, a batch with row boundaries gets a segmented inclusive scan
 * (__shfl_up_sync, full mask). Rows wholly inside a run are written without atomics; only the
 * first and last row of a run, which neighbouring warps may share, use atomicAdd, so the last
 * bits of such rows depend on the order of at most a few additions: well inside the check
 * tolerance. */
#include <stdlib.h>
#include "gpu_parts.cuh"

template <typename T>
__global__ void __launch_bounds__(256)
    hyb_ell_kernel(int64_t rows, int64_t K, int64_t ld, const int32_t *__restrict__ ec, const T *__restrict__ ev,
                   const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        T sum = 0;
        for (int64_t j = 0; j < K; j += 4) {
            int32_t c[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                c[u] = j + u < K ? __ldg(ec + (j + u) * ld + i) : -1;
#pragma unroll
            for (int u = 0; u < 4; u++)
                if (c[u] >= 0)
                    sum += __ldg(ev + (j + u) * ld + i) * __ldg(x + c[u]);
            if (c[3] < 0)
                break; /* padding ends a row */
        }
        rvs_y_put(ym, y, i, sum);
    }
}

/* y (ADD: +=) = entries [0, n) sorted by row, per_warp (a multiple of 32) to a warp. */
template <typename T, bool ADD>
__global__ void __launch_bounds__(256)
    coo_runs(int64_t n, int64_t per_warp, const int32_t *__restrict__ ri, const int32_t *__restrict__ ci,
             const T *__restrict__ va, const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int64_t begin = ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5) * per_warp;
    if (begin >= n)
        return; /* whole warps leave together */
    const int64_t end = begin + per_warp < n ? begin + per_warp : n;
    const int64_t first_row = __ldg(ri + begin);
    const bool head_shared = begin > 0 && __ldg(ri + begin - 1) == first_row;
    int64_t crow = first_row;
    T carry = 0, acc = 0;
    bool live = false;
    int64_t p = begin + lane;
    int rn = p < end ? __ldg(ri + p) : 0, cn = p < end ? __ldg(ci + p) : 0;
    T an = p < end ? __ldg(va + p) : T(0);
    for (int64_t b = begin; b < end; b += 32, p += 32) {
        int r = rn;
        T v = p < end ? an * __ldg(x + cn) : T(0);
        if (b + 32 < end) { /* the next batch's entries, in flight while this one is reduced */
            int64_t q = p + 32;
            rn = q < end ? __ldg(ri + q) : 0;
            cn = q < end ? __ldg(ci + q) : 0;
            an = q < end ? __ldg(va + q) : T(0);
        }
        if (end - b < 32) /* past the end: the last entry's row, so rows stay sorted */
            r = __shfl_sync(full, r, lane < end - b ? lane : (int)(end - b - 1));
        int r0 = __shfl_sync(full, r, 0), r31 = __shfl_sync(full, r, 31);
        if (r0 == r31 && r0 == crow) {
            acc += v;
            live = true;
        } else {
            rvs_seg::batch<T, ADD>(0, r, v, lane, crow, carry, acc, live, first_row, head_shared, ym, y);
        }
    }
    const bool tail_shared = end < n && __ldg(ri + end) == crow;
    rvs_seg::finish<T, ADD>(lane, crow, carry, acc, live, first_row, head_shared, tail_shared, ym, y);
}

/* Entries per warp: 256, or more when the grid would get too large. */
static int64_t coo_per_warp(int64_t n, int block)
{
    int64_t per_warp = 256;
    while ((n + per_warp - 1) / per_warp * 32 / block > 2147483647LL / 2)
        per_warp *= 2;
    return per_warp;
}

template <typename T, bool ADD>
static void launch_runs(int64_t n, const int32_t *ri, const int32_t *ci, const T *va, const T *x, rvs_ymap ym, T *y,
                        int block, cudaStream_t s)
{
    block = block < 32 ? 32 : block > 256 ? 256 : block / 32 * 32; /* the kernel's launch bound */
    int64_t per_warp = coo_per_warp(n, block);
    int64_t warps = (n + per_warp - 1) / per_warp;
    coo_runs<T, ADD><<<rvs_gpu_blocks(warps * 32, block), block, 0, s>>>(n, per_warp, ri, ci, va, x, ym, y);
}

/* dy += COO tail of G times dx. */
rvs_status rvs_gpu_coo_part_add(const rvs_gpu_fmt *G, int64_t ncoo, const void *dx, void *dy, int block,
                                cudaStream_t s, rvs_error *err)
{
    if (ncoo == 0)
        return RVS_OK;
    const int32_t *ri = (const int32_t *)rvs_gpu_data(G, "coo_row"),
                  *ci = (const int32_t *)rvs_gpu_data(G, "coo_col");
    const void *va = rvs_gpu_data(G, "coo_val");
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    RVS_GPU_BY_VTYPE(G->vtype, T,
                     launch_runs<T, true>(ncoo, ri, ci, (const T *)va, (const T *)dx, ym, (T *)dy, block, s));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* dy = COO entries of G times dx (G's rows zeroed first: empty rows, and rows put atomically). */
rvs_status rvs_gpu_coo_entries(const rvs_gpu_fmt *G, int64_t n, const int32_t *ri, const int32_t *ci,
                               const void *va, const void *dx, void *dy, int block, cudaStream_t s, rvs_error *err)
{
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    rvs_status st = rvs_gpu_y_zero(G, dy, s, err);
    if (st != RVS_OK || n == 0)
        return st;
    RVS_GPU_BY_VTYPE(G->vtype, T,
                     launch_runs<T, false>(n, ri, ci, (const T *)va, (const T *)dx, ym, (T *)dy, block, s));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* y = A*x, A in HYB. */
extern "C" rvs_status rvs_gpu_spmv_hyb(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                       void *stream, rvs_error *err)
{
    int block = t && t->block > 0 ? t->block : 256;
    block = block < 32 ? 32 : block > 256 ? 256 : block / 32 * 32; /* the kernels' launch bound */
    cudaStream_t s = rvs_gpu_stream(stream);
    if (G->rows > 0) {
        const int32_t *ec = (const int32_t *)rvs_gpu_data(G, "ell_col");
        const void *ev = rvs_gpu_data(G, "ell_val");
        unsigned grid = rvs_gpu_blocks(G->rows, block);
        const rvs_ymap ym = rvs_gpu_ymap_of(G);
        RVS_GPU_BY_VTYPE(G->vtype, T,
                         hyb_ell_kernel<T><<<grid, block, 0, s>>>(G->rows, G->param[0], G->param[1], ec,
                                                                  (const T *)ev, (const T *)dx, ym, (T *)dy));
        RVS_CUDA_LAUNCHED(err);
    }
    return rvs_gpu_coo_part_add(G, G->param[2], dx, dy, block, s, err);
}
