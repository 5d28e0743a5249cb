/* pellr.cu - GPU SpMV in PELLR (fmt_pellr.c) with long rows shared out (PELLR-T).
 *
 * The layout fixes which addresses are consecutive: slot k of the 32 rows of a slice. So a warp
 * always reads a slice 32 rows wide, and the parallelism for long rows comes from splitting a
 * slice's slots among warps instead of among the lanes of one warp:
 *  - head: a warp per slice runs its slots 0 .. min(wl, PELLR_L) - 1 (unrolled 8 deep) and
 *    writes y[perm[p]] for every position: all of y is written here;
 *  - tail: only when the longest row (param[2]) exceeds PELLR_L. The slots k >= PELLR_L of the
 *    wide slices (a prefix of the slices, widths being non-increasing) form one sequence of
 *    "heavy steps" (a step = one slot of the 32 rows of a slice); slice w's steps start at
 *    H(w) = sptr[w]/32 - PELLR_L*w. Warps of a fixed grid take PELLR_D steps at a time (a run
 *    may span slices: binary search in H, then walk), sum per lane, and add each lane's sum to
 *    y[perm[p]] with one atomicAdd per run and row; the head kernel ran first on the stream.
 * So no warp runs more than PELLR_L + PELLR_D-step units serially, whatever the row lengths. */
#include "ell_family.cuh"

#define PELLR_L 16 /* slots per row in the head kernel */
#define PELLR_D 16 /* heavy steps per unit of the tail kernel */

/* Head: slice w = global warp, slots 0 .. min(wl[w], PELLR_L) - 1; writes y[perm[p]]. */
template <typename T>
__global__ void pellr_head(int64_t rows, int64_t ns, const int32_t *__restrict__ perm,
                           const int32_t *__restrict__ wl, const int64_t *__restrict__ sptr,
                           const int32_t *__restrict__ col, const T *__restrict__ val, const T *__restrict__ x,
                           rvs_ymap ym, T *__restrict__ y)
{
    int64_t w = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= ns)
        return;
    int n = min(__ldg(wl + w), PELLR_L);
    const int32_t *c = col + __ldg(sptr + w) + lane;
    const T *v = val + __ldg(sptr + w) + lane;
    T s = 0;
#pragma unroll 8
    for (int k = 0; k < n; k++) {
        int32_t j = __ldcs(c + 32 * k);
        if (j >= 0)
            s += __ldcs(v + 32 * k) * __ldg(x + j);
    }
    int64_t p = w * 32 + lane;
    if (p < rows)
        rvs_y_put(ym, y, __ldg(perm + p), s);
}

/* Heavy steps before slice w (w <= number of wide slices). */
__device__ __forceinline__ int64_t pellr_H(const int64_t *sptr, int64_t w)
{
    return __ldg(sptr + w) / 32 - (int64_t)PELLR_L * w;
}

/* Tail: y[perm[p]] += slots k >= PELLR_L of the wide slices, PELLR_D steps per warp and unit. */
template <typename T>
__global__ void pellr_tail(int64_t rows, int64_t ns, const int32_t *__restrict__ perm,
                           const int32_t *__restrict__ wl, const int64_t *__restrict__ sptr,
                           const int32_t *__restrict__ col, const T *__restrict__ val, const T *__restrict__ x,
                           rvs_ymap ym, T *__restrict__ y)
{
    int lane = threadIdx.x % 32;
    int64_t gw = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
    int64_t nw = (int64_t)gridDim.x * blockDim.x / 32;
    /* h = wide slices (wl > PELLR_L): a prefix, widths being non-increasing */
    int64_t lo = 0, hi = ns;
    while (lo < hi) {
        int64_t m = (lo + hi) / 2;
        if (__ldg(wl + m) > PELLR_L)
            lo = m + 1;
        else
            hi = m;
    }
    int64_t h = lo, total = h ? pellr_H(sptr, h) : 0;
    for (int64_t g = gw * PELLR_D; g < total; g += nw * PELLR_D) {
        int64_t gend = min(g + (int64_t)PELLR_D, total), a = 0, b = h - 1;
        while (a < b) { /* the last wide slice w with H(w) <= g */
            int64_t m = (a + b + 1) / 2;
            if (pellr_H(sptr, m) <= g)
                a = m;
            else
                b = m - 1;
        }
        for (int64_t w = a, q = g; q < gend; w++) {
            int64_t hs = pellr_H(sptr, w), he = hs + __ldg(wl + w) - PELLR_L;
            int64_t k0 = PELLR_L + (q - hs), k1 = PELLR_L + (min(gend, he) - hs);
            const int32_t *c = col + __ldg(sptr + w) + lane;
            const T *v = val + __ldg(sptr + w) + lane;
            T s = 0;
            bool any = false;
#pragma unroll 8
            for (int64_t k = k0; k < k1; k++) {
                int32_t j = __ldcs(c + 32 * k);
                if (j >= 0) {
                    s += __ldcs(v + 32 * k) * __ldg(x + j);
                    any = true;
                }
            }
            if (any) /* the row has entries in this run (so p < rows) */
                rvs_y_atomic(ym, y, __ldg(perm + w * 32 + lane), s);
            q = min(gend, he);
        }
    }
}

/* y = A*x, A a PELLR block on the device. */
extern "C" rvs_status rvs_gpu_spmv_pellr(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                         void *stream, rvs_error *err)
{
    static const char *const names[] = {"perm", "wl", "sptr", "col", "values"};
    const void *a[5];
    int block;
    rvs_status st;
    if ((st = rvs_ell_block(t, "pellr", &block, err)) || (st = rvs_ell_arrays(G, "pellr", names, a, 5, err)))
        return st;
    if (G->rows == 0)
        return RVS_OK;
    int64_t ns = G->param[1];
    unsigned grid = rvs_gpu_blocks(ns * 32, block);
    /* tail: enough warps for the heavy steps (at most the stored slots / 32, unknown here:
     * bounded by the entries), each taking a few units, capped at 16 blocks of 256 per SM */
    bool tail = G->param[2] > PELLR_L;
    int64_t tw = G->nnz / (32 * PELLR_D) + 1;
    unsigned tgrid = rvs_gpu_blocks(tw * 32 < 256 ? 256 : (tw * 32 > 132 * 16 * 256 ? 132 * 16 * 256 : tw * 32),
                                    256);
    cudaStream_t s = rvs_gpu_stream(stream);
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    const int32_t *perm = (const int32_t *)a[0], *wl = (const int32_t *)a[1], *col = (const int32_t *)a[3];
    const int64_t *sptr = (const int64_t *)a[2];
    RVS_GPU_BY_VTYPE(G->vtype, T,
                     pellr_head<T><<<grid, block, 0, s>>>(G->rows, ns, perm, wl, sptr, col, (const T *)a[4],
                                                          (const T *)dx, ym, (T *)dy);
                     if (tail) pellr_tail<T><<<tgrid, 256, 0, s>>>(G->rows, ns, perm, wl, sptr, col,
                                                                   (const T *)a[4], (const T *)dx, ym, (T *)dy));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
