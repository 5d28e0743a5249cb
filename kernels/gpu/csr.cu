/* csr.cu - GPU SpMV in CSR. Default: the nnz-split kernel - y is zeroed, then each warp takes
 * an equal contiguous run of entries (load balance whatever the row lengths), finds the row of
 * its first entry by a 32-way warp search of rowptr, and walks the run 32 entries at a time
 * (lane l takes entry l: coalesced). A batch inside one row is accumulated per lane; a batch
 * with row ends finds each lane's row from a window of 32 rowptr entries (a 6-step shuffle
 * search) and gets a segmented scan (gpu_parts.cuh). Rows inside a run are stored, the first
 * and last row of a run (which the neighbouring warps may share) are added atomically.
 * Also: scalar kernel (a thread per row) and vector kernel (T lanes per row, T a power of two
 * up to 32, reduced with warp shuffles), chosen by threads_per_row. */
#include <stdlib.h>
#include "gpu_parts.cuh"

/* The row of entry e (< nnz): the largest r with rp[r] <= e, by a 32-way search (whole warp). */
__device__ static int64_t warp_row_of(const int64_t *__restrict__ rp, int64_t rows, int64_t e, int lane)
{
    const unsigned full = 0xffffffffu;
    int64_t lo = 0, hi = rows - 1; /* rp[lo] <= e; the answer is in [lo, hi] */
    while (hi - lo >= 32) {
        int64_t step = (hi - lo) / 32 + 1, q = lo + (lane + 1) * step;
        int c = __popc(__ballot_sync(full, q <= hi && __ldg(rp + q) <= e));
        int64_t nlo = lo + c * step;
        hi = nlo + step - 1 < hi ? nlo + step - 1 : hi;
        lo = nlo;
    }
    int64_t q = lo + lane;
    return lo + __popc(__ballot_sync(full, q <= hi && __ldg(rp + q) <= e)) - 1;
}

/* y += A*x over runs of per_warp entries (a multiple of 32); y zeroed before. */
template <typename T>
__global__ void __launch_bounds__(256) csr_split(int64_t rows, int64_t nnz, int64_t per_warp,
                                                 const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                                                 const T *__restrict__ va, const T *__restrict__ x,
                                                 T *__restrict__ y)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const int64_t begin = ((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5) * per_warp;
    if (begin >= nnz)
        return; /* whole warps leave together */
    const int64_t end = begin + per_warp < nnz ? begin + per_warp : nnz;
    const int64_t first_row = warp_row_of(rp, rows, begin, lane);
    const bool head_shared = __ldg(rp + first_row) < begin;
    int64_t crow = first_row, cend = __ldg(rp + first_row + 1);
    /* window: wrp = rp[wbase + 1 + lane] (end of row wbase + lane), wmax its last */
    int64_t wbase = -1, wrp = 0, wmax = -1;
    T carry = 0, acc = 0;
    bool live = false;
    int64_t p = begin + lane;
    int cn = p < end ? __ldg(ci + p) : 0;
    T an = p < end ? __ldg(va + p) : T(0);
    for (int64_t b = begin; b < end; b += 32, p += 32) {
        T v = p < end ? an * __ldg(x + cn) : T(0);
        if (b + 32 < end) { /* the next batch's entries, in flight while this one is reduced */
            int64_t q = p + 32;
            cn = q < end ? __ldg(ci + q) : 0;
            an = q < end ? __ldg(va + q) : T(0);
        }
        if (cend >= b + 32) { /* the whole batch lies in row crow */
            acc += v;
            live = true;
            continue;
        }
        if (wmax <= b + 31 && wbase != crow) { /* window misses the batch: rebase at crow */
            wbase = crow;
            wrp = wbase + 1 + lane <= rows ? __ldg(rp + wbase + 1 + lane) : INT64_MAX;
            wmax = __shfl_sync(full, wrp, 31);
        }
        const int me = (int)((p < end ? p : end - 1) - b); /* past the end: the last entry's row */
        int64_t myrow = -1;
        {
            /* fast count: no empty rows among the window's rows that end inside the batch */
            int64_t dd = wrp - b;
            int d = dd < 0 ? 0 : dd > 32 ? 32 : (int)dd;
            unsigned ends = __reduce_or_sync(full, d > 0 && d < 32 ? 1u << d : 0u); /* new rows start here */
            int before = __popc(__ballot_sync(full, dd <= 0)), inside = __popc(ends);
            /* distinct ends inside, and the window reaches past the batch */
            int dprev = __shfl_up_sync(full, d, 1);
            if (__all_sync(full, lane == 0 || d != dprev || d == 0 || d == 32) && before + inside < 32)
                myrow = wbase + before + __popc(ends & ((2u << me) - 1u));
        }
        while (!__all_sync(full, myrow >= 0)) {
            /* rows wbase + k end at wrp_k; my row is wbase + #{k : wrp_k <= my entry} */
            int64_t dd = wrp - b;
            int d = dd < -1 ? -1 : dd > 64 ? 64 : (int)dd, pos = 0;
#pragma unroll
            for (int st = 16; st > 0; st >>= 1)
                if (__shfl_sync(full, d, pos + st - 1) <= me)
                    pos += st;
            if (__shfl_sync(full, d, pos) <= me)
                pos++;
            if (myrow < 0 && pos < 32)
                myrow = wbase + pos;
            if (__all_sync(full, myrow >= 0))
                break;
            wbase += 32; /* only empty rows can put more than 32 row ends in a batch */
            wrp = wbase + 1 + lane <= rows ? __ldg(rp + wbase + 1 + lane) : INT64_MAX;
            wmax = __shfl_sync(full, wrp, 31);
        }
        rvs_seg::batch<T, false>(crow, (int)(myrow - crow), v, lane, crow, carry, acc, live, first_row,
                                 head_shared, y);
        cend = __shfl_sync(full, wrp, (int)(crow - wbase));
    }
    rvs_seg::finish<T, false>(lane, crow, carry, acc, live, first_row, head_shared, cend > end, y);
}

/* y = A*x with one thread per row (grid-stride over rows). */
template <typename T>
__global__ void csr_scalar(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                           const T *__restrict__ va, const T *__restrict__ x, T *__restrict__ y)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride) {
        T s = 0;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            s += va[p] * __ldg(&x[ci[p]]);
        y[i] = s;
    }
}

/* y = A*x with LANES threads per row. Whole warps walk the grid-stride loop together so that
 * every lane reaches the full-mask shuffles. */
template <typename T, int LANES>
__global__ void csr_vector(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                           const T *__restrict__ va, const T *__restrict__ x, T *__restrict__ y)
{
    const int lane = threadIdx.x % LANES;
    const int64_t groups = (int64_t)gridDim.x * blockDim.x / LANES;
    const int64_t warp_first = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * (32 / LANES);
    const int64_t group_in_warp = (threadIdx.x % 32) / LANES;
    for (int64_t base = warp_first; base < rows; base += groups) {
        int64_t i = base + group_in_warp;
        T s = 0;
        if (i < rows)
            for (int64_t p = rp[i] + lane; p < rp[i + 1]; p += LANES)
                s += va[p] * __ldg(&x[ci[p]]);
        for (int off = LANES / 2; off > 0; off /= 2)
            s += __shfl_down_sync(0xffffffffu, s, off, LANES);
        if (lane == 0 && i < rows)
            y[i] = s;
    }
}

/* Lanes per row for a mean row length: the power of two at or above it, in 2..32. */
static int default_lanes(const rvs_gpu_fmt *G)
{
    double mean = G->rows > 0 ? (double)G->nnz / (double)G->rows : 0;
    int t = 2;
    while (t < 32 && t < mean)
        t *= 2;
    return t;
}

/* Launch the vector kernel with a compile-time lane count. */
template <typename T>
static void launch_vector(int lanes, unsigned grid, int block, cudaStream_t s, int64_t rows,
                          const int64_t *rp, const int32_t *ci, const T *va, const T *x, T *y)
{
    switch (lanes) {
    case 2: csr_vector<T, 2><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    case 4: csr_vector<T, 4><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    case 8: csr_vector<T, 8><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    case 16: csr_vector<T, 16><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    default: csr_vector<T, 32><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    }
}

/* Launch for one value type: threads_per_row 0 selects the split kernel, 1 the scalar one. */
template <typename T>
static rvs_status launch(const rvs_gpu_fmt *G, int lanes, int block, cudaStream_t s, const T *x, T *y,
                         rvs_error *err)
{
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "colind");
    const T *va = (const T *)rvs_gpu_data(G, "values");
    if (lanes == 0) {
        RVS_CUDA_TRY(cudaMemsetAsync(y, 0, (size_t)G->rows * sizeof(T), s), err);
        if (G->nnz == 0)
            return RVS_OK;
        int64_t per_warp = 256;
        while ((G->nnz + per_warp - 1) / per_warp * 32 / 256 > 2147483647LL / 2)
            per_warp *= 2;
        int64_t warps = (G->nnz + per_warp - 1) / per_warp;
        csr_split<T><<<rvs_gpu_blocks(warps * 32, 256), 256, 0, s>>>(G->rows, G->nnz, per_warp, rp, ci, va, x, y);
        return RVS_OK;
    }
    if (lanes == 1) {
        csr_scalar<T><<<rvs_gpu_blocks(G->rows, block), block, 0, s>>>(G->rows, rp, ci, va, x, y);
        return RVS_OK;
    }
    /* a group of lanes per row; cap the grid so that the loop strides (blocks stay resident) */
    int64_t threads = G->rows * lanes;
    unsigned grid = rvs_gpu_blocks(threads, block);
    if (grid > 65535u * 32u)
        grid = 65535u * 32u;
    launch_vector<T>(lanes, grid, block, s, G->rows, rp, ci, va, x, y);
    return RVS_OK;
}

/* Default kernel: the vector kernel (lanes from the mean row length) when the rows are
 * regular - the builder recorded the longest row (param[1] = 1) and it is at most four times
 * the mean plus 16 - and the nnz-split kernel otherwise. Measured on the H100: on a 7-point
 * stencil the vector kernel is 0.80x cuSPARSE against the split kernel's 0.62x; on R-MAT the
 * split kernel is 0.74-0.91x against 0.16x (bench/notes-gpu-scalefree.md). */
static int choose_lanes(const rvs_gpu_fmt *G)
{
    double mean = G->rows > 0 ? (double)G->nnz / (double)G->rows : 0;
    if (G->param[1] == 1 && (double)G->param[0] <= 4.0 * mean + 16.0)
        return default_lanes(G);
    return 0;
}

/* y = A*x, A a CSR block on the device. Tunables: threads_per_row (default: choose_lanes;
 * 1 scalar, 2..32 vector), block (scalar and vector kernels; default 256, a multiple of 32). */
extern "C" rvs_status rvs_gpu_spmv_csr(const rvs_gpu_fmt *G, const void *dx, void *dy,
                                       const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    int lanes = t->threads_per_row;
    if (lanes == 0)
        lanes = choose_lanes(G);
    int block = t->block > 0 ? t->block : 256;
    if (lanes != 0 && lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
        return rvs_fail(err, RVS_ERR_ARG, "csr: threads-per-row %d is not 1, 2, 4, 8, 16 or 32", lanes);
    if (block % 32 != 0 || block > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "csr: block %d is not a multiple of 32 up to 1024", block);
    if (!rvs_gpu_data(G, "rowptr") || (G->nnz > 0 && (!rvs_gpu_data(G, "colind") || !rvs_gpu_data(G, "values"))))
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: device arrays missing");
    cudaStream_t s = rvs_gpu_stream(stream);
    rvs_status st = G->vtype == RVS_F64 ? launch<double>(G, lanes, block, s, (const double *)dx, (double *)dy, err)
                                        : launch<float>(G, lanes, block, s, (const float *)dx, (float *)dy, err);
    if (st != RVS_OK)
        return st;
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
