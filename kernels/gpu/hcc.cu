/* hcc.cu - GPU SpMV in HCC (libformat/fmt_hcc.c; Liang et al., "Scale-Free Sparse Matrix-Vector
 * Multiplication on Many-Core Architectures", IEEE TCAD, 2017, Sec. III-IV). One CUDA block per
 * HCC block: its rows' sums live in shared memory (at most 4095 of them), so the partial sums of
 * a row never touch y until the block stores them, once, through the row map. The light part
 * (column order) is spread over the warps in groups of U segments: lane l reads slot l of each
 * (4-byte words and values, coalesced), all loads of a group are issued before the first use,
 * x is gathered through the read-only cache (column order makes neighbouring lanes share
 * sectors), and products are added into shared memory atomically. The heavy part (whole rows in
 * column order) is cut into one contiguous range per warp; a lane keeps a running sum while its
 * row stays the same and flushes it on a change, a whole warp on the same row reduces by
 * shuffles first. The pieces of a split row add into y atomically after a small kernel zeroed
 * those rows. Mixed precision: values f32, x, y and sums f64 (rvs_gpu_spmv_hcc_mixed).
 * Tunables: hcc_wi threads per block (64 .. 256, a multiple of 32; default 256), hcc_wg segments
 * per warp step U (1, 2 or 4; default 4). */
#include "gpu_internal.cuh"

#define HCC_CB 20
#define HCC_CMASK ((1u << HCC_CB) - 1u)
#define HCC_PAD 0xFFFFFFFFu
#define HCC_RMAX 4095
#define HCC_THREADS 256

struct hcc_args {
    const int64_t *brow, *bseg, *lseg;
    const int32_t *bnr, *sbase;
    const uint32_t *word;
    int G;
};

template <typename TX>
__device__ __forceinline__ TX hcc_warp_sum(TX v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

/* Load U segments g .. g+U-1 (those below end) of lane: words (padding beyond end), values, bases. */
template <typename TV, int U>
__device__ __forceinline__ void hcc_load(const hcc_args &a, const TV *__restrict__ val, int64_t g, int64_t end,
                                         int lane, uint32_t (&w)[U], TV (&v)[U], int32_t (&base)[U])
{
#pragma unroll
    for (int j = 0; j < U; j++) {
        const bool in = g + j < end;
        const int64_t slot = (g + j) * 32 + lane;
        w[j] = in ? __ldcs(a.word + slot) : HCC_PAD;
        v[j] = in ? __ldcs(val + slot) : TV(0);
        base[j] = in ? __ldg(a.sbase + g + j) : 0;
    }
}

/* Shared bytes of a block's row sums beyond 48 KiB of static shared memory (c128: 64 KiB) are
 * taken as dynamic shared memory instead. */
template <typename TX>
struct hcc_sums {
    static const bool dynamic = sizeof(TX) * HCC_RMAX > 48 * 1024;
    static const size_t bytes = dynamic ? sizeof(TX) * HCC_RMAX : 0;
};

template <typename TV, typename TX, int U>
__global__ void __launch_bounds__(HCC_THREADS, 6)
    hcc_kernel(hcc_args a, const TV *__restrict__ val, const TX *__restrict__ x, rvs_ymap ym, TX *__restrict__ y)
{
    __shared__ TX ys_static[hcc_sums<TX>::dynamic ? 1 : HCC_RMAX];
    extern __shared__ __align__(16) unsigned char hcc_dyn[];
    TX *const ys = hcc_sums<TX>::dynamic ? reinterpret_cast<TX *>(hcc_dyn) : ys_static;
    const unsigned full = 0xffffffffu;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nw = blockDim.x >> 5;
    const int64_t b = blockIdx.x, r0 = __ldg(a.brow + b);
    const int nrb = __ldg(a.bnr + b), nr = nrb < 0 ? 1 : nrb;
    const int64_t *ls = a.lseg + b * (a.G + 1);
    const int64_t sh = __ldg(ls + a.G), s1 = __ldg(a.bseg + b + 1);
    for (int i = tid; i < nr; i += blockDim.x)
        ys[i] = TX(0);
    __syncthreads();
    if (a.G == 1) {
        /* light part in column order, groups of U segments round robin over the warps; rows may
         * repeat within a segment: shared-memory atomics (native for f32) */
        for (int64_t g = __ldg(ls) + (int64_t)warp * U; g < sh; g += (int64_t)nw * U) {
            uint32_t w[U];
            TV v[U];
            int32_t base[U];
            hcc_load<TV, U>(a, val, g, sh, lane, w, v, base);
            TX p[U];
#pragma unroll
            for (int j = 0; j < U; j++)
                p[j] = w[j] != HCC_PAD ? (TX)v[j] * __ldg(x + (int64_t)base[j] + (w[j] & HCC_CMASK)) : TX(0);
#pragma unroll
            for (int j = 0; j < U; j++)
                if (w[j] != HCC_PAD)
                    atomicAdd(&ys[w[j] >> HCC_CB], p[j]);
        }
    } else {
        /* owner groups: warp w takes groups w, w + nw, ...; a group's rows are its own and a
         * segment holds each row once, so plain adds in segment order are race-free */
        for (int grp = warp; grp < a.G; grp += nw) {
            const int64_t end = __ldg(ls + grp + 1);
            for (int64_t g = __ldg(ls + grp); g < end; g += U) {
                uint32_t w[U];
                TV v[U];
                int32_t base[U];
                hcc_load<TV, U>(a, val, g, end, lane, w, v, base);
                TX p[U];
#pragma unroll
                for (int j = 0; j < U; j++)
                    p[j] = w[j] != HCC_PAD ? (TX)v[j] * __ldg(x + (int64_t)base[j] + (w[j] & HCC_CMASK)) : TX(0);
#pragma unroll
                for (int j = 0; j < U; j++) {
                    if (w[j] != HCC_PAD)
                        ys[w[j] >> HCC_CB] += p[j];
                    __syncwarp();
                }
            }
        }
    }
    /* heavy part: a contiguous range of segments per warp. A single-row segment (base < 0) adds
     * to a running sum kept while the row stays; a multi-row segment (rows non-decreasing,
     * padding last) gets a segmented scan and one shared add per row run. */
    if (s1 > sh) {
        const int64_t n = s1 - sh, lo = sh + n * warp / nw, hi = sh + n * (warp + 1) / nw;
        int cur = -1;
        TX acc = 0;
        for (int64_t g = lo; g < hi; g += U) {
            uint32_t w[U];
            TV v[U];
            int32_t base[U];
            hcc_load<TV, U>(a, val, g, hi, lane, w, v, base);
            TX p[U];
#pragma unroll
            for (int j = 0; j < U; j++) {
                const int64_t c = base[j] < 0 ? (int64_t)w[j] : (int64_t)base[j] + (w[j] & HCC_CMASK);
                p[j] = w[j] != HCC_PAD ? (TX)v[j] * __ldg(x + c) : TX(0);
            }
#pragma unroll
            for (int j = 0; j < U; j++) {
                if (g + j >= hi)
                    break; /* warp-uniform */
                if (base[j] < 0) {
                    const int r = -1 - base[j];
                    if (r != cur) {
                        const TX t = hcc_warp_sum(acc);
                        if (lane == 0 && cur >= 0)
                            atomicAdd(&ys[cur], t);
                        cur = r;
                        acc = TX(0);
                    }
                    acc += p[j];
                    continue;
                }
                const int r = w[j] != HCC_PAD ? (int)(w[j] >> HCC_CB) : -1;
                TX t = p[j];
#pragma unroll
                for (int d = 1; d < 32; d <<= 1) {
                    const TX o = __shfl_up_sync(full, t, d);
                    const int ro = __shfl_up_sync(full, r, d);
                    if (lane >= d && ro == r)
                        t += o;
                }
                const int rn = __shfl_down_sync(full, r, 1);
                if (r >= 0 && (lane == 31 || rn != r))
                    atomicAdd(&ys[r], t);
            }
        }
        const TX t = hcc_warp_sum(acc);
        if (lane == 0 && cur >= 0)
            atomicAdd(&ys[cur], t);
    }
    __syncthreads();
    if (nrb < 0) {
        if (tid == 0)
            rvs_y_atomic(ym, y, r0, ys[0]);
        return;
    }
    for (int i = tid; i < nr; i += blockDim.x)
        rvs_y_put(ym, y, r0 + i, ys[i]);
}

/* The split rows (their pieces add up atomically) start at zero. */
template <typename TX>
__global__ void hcc_zero_split(int64_t n, const int64_t *__restrict__ srow, rvs_ymap ym, TX *__restrict__ y)
{
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (k < n)
        rvs_y_put(ym, y, __ldg(srow + k), TX(0));
}

/* Launch for value type TV and vector type TX. */
template <typename TV, typename TX>
static rvs_status hcc_launch(const rvs_gpu_fmt *G, const TX *x, TX *y, const rvs_gpu_tune *t, cudaStream_t s,
                             rvs_error *err)
{
    const int64_t nblk = G->param[1], nsplit = G->param[4];
    const int wi = t && t->hcc_wi > 0 ? t->hcc_wi : HCC_THREADS, u = t && t->hcc_wg > 0 ? t->hcc_wg : 4;
    if (wi % 32 || wi < 64 || wi > HCC_THREADS)
        return rvs_fail(err, RVS_ERR_ARG, "hcc: hcc-wi %d threads per block: want a multiple of 32 in 64..%d", wi,
                        HCC_THREADS);
    if (u != 1 && u != 2 && u != 4)
        return rvs_fail(err, RVS_ERR_ARG, "hcc: hcc-wg %d segments per warp step: want 1, 2 or 4", u);
    if (nblk > 2147483647LL)
        return rvs_fail(err, RVS_ERR_ARG, "hcc: %lld blocks exceed the grid", (long long)nblk);
    const hcc_args a = {(const int64_t *)rvs_gpu_data(G, "brow"),
                        (const int64_t *)rvs_gpu_data(G, "bseg"),
                        (const int64_t *)rvs_gpu_data(G, "lseg"),
                        (const int32_t *)rvs_gpu_data(G, "bnr"),
                        (const int32_t *)rvs_gpu_data(G, "sbase"),
                        (const uint32_t *)rvs_gpu_data(G, "word"),
                        (int)G->param[7]};
    const TV *val = (const TV *)rvs_gpu_data(G, "val");
    const int64_t *srow = (const int64_t *)rvs_gpu_data(G, "srow");
    if (!a.brow || !a.bseg || !a.lseg || !a.bnr || (a.G != 1 && a.G != 8) ||
        (G->param[3] > 0 && (!a.sbase || !a.word || !val)) || (nsplit > 0 && !srow))
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: device arrays missing");
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    if (nsplit > 0) {
        hcc_zero_split<TX><<<rvs_gpu_blocks(nsplit, 256), 256, 0, s>>>(nsplit, srow, ym, y);
        RVS_CUDA_LAUNCHED(err);
    }
    const unsigned grid = (unsigned)nblk;
    const size_t smem = hcc_sums<TX>::bytes;
    if (smem) {
        RVS_CUDA_TRY(
            cudaFuncSetAttribute(hcc_kernel<TV, TX, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
            err);
        RVS_CUDA_TRY(
            cudaFuncSetAttribute(hcc_kernel<TV, TX, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
            err);
        RVS_CUDA_TRY(
            cudaFuncSetAttribute(hcc_kernel<TV, TX, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
            err);
    }
    switch (u) {
    case 1: hcc_kernel<TV, TX, 1><<<grid, wi, smem, s>>>(a, val, x, ym, y); break;
    case 2: hcc_kernel<TV, TX, 2><<<grid, wi, smem, s>>>(a, val, x, ym, y); break;
    default: hcc_kernel<TV, TX, 4><<<grid, wi, smem, s>>>(a, val, x, ym, y); break;
    }
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* y = A*x, A in HCC. */
extern "C" rvs_status rvs_gpu_spmv_hcc(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                       void *stream, rvs_error *err)
{
    cudaStream_t s = rvs_gpu_stream(stream);
    rvs_status st = RVS_OK;
    RVS_GPU_BY_VTYPE(G->vtype, T, st = hcc_launch<T, T>(G, (const T *)dx, (T *)dy, t, s, err));
    return st;
}

/* y = A*x with A's f32 values, f64 x and y (G->vtype RVS_F32). */
extern "C" rvs_status rvs_gpu_spmv_hcc_mixed(const rvs_gpu_fmt *G, const double *dx, double *dy,
                                             const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    return hcc_launch<float, double>(G, dx, dy, t, rvs_gpu_stream(stream), err);
}
