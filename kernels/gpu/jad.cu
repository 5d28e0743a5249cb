/* jad.cu - GPU SpMV in JAD (fmt_jad.c), with long rows shared out. Jagged diagonal d holds entry
 * d of positions 0..n_d-1 contiguously (n_d = jdptr[d+1] - jdptr[d], non-increasing), so lanes
 * taking consecutive positions read consecutive addresses of a diagonal.
 *  - head: a thread per position walks diagonals 0 .. min(len, JAD_L) - 1 (its length found by
 *    binary search on n_d, so the loop is unrolled 8 deep without a per-step exit test) and
 *    writes y[perm[p]]: all of y is written here;
 *  - tail: only when ndiag (the longest row) > JAD_L. Diagonals from JAD_L on are cut into
 *    bands [JAD_L 2^b, JAD_L 2^(b+1)) (blockIdx.y = b); a band's work is at most nnz, since
 *    every position reaching diagonal JAD_L 2^b has that many entries. A band is cut into
 *    tiles of 32 positions by 32 diagonals, which the band's warps take in turn; lane l takes
 *    position 32t + l and adds its tile sum to y[perm[p]] with one atomicAdd (after the head,
 *    on the same stream). No warp walks more than JAD_L + 32 diagonals per unit. */
#include "ell_family.cuh"

#define JAD_L 32 /* diagonals per position in the head kernel */

/* Diagonals among d0..d1-1 that reach position p: n_d > p, n non-increasing. */
__device__ __forceinline__ int64_t jad_reach(const int64_t *__restrict__ jdptr, int64_t d0, int64_t d1, int64_t p)
{
    while (d0 < d1) { /* first d in [d0, d1) with n_d <= p */
        int64_t m = (d0 + d1) / 2;
        if (__ldg(jdptr + m + 1) - __ldg(jdptr + m) > p)
            d0 = m + 1;
        else
            d1 = m;
    }
    return d0;
}

/* Head: y[perm[p]] = diagonals 0 .. min(len, JAD_L) - 1 of position p. */
template <typename T>
__global__ void jad_head(int64_t rows, int64_t ndiag, const int32_t *__restrict__ perm,
                         const int64_t *__restrict__ jdptr, const int32_t *__restrict__ col,
                         const T *__restrict__ val, const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (p >= rows)
        return;
    int n = (int)jad_reach(jdptr, 0, min(ndiag, (int64_t)JAD_L), p);
    T s = 0;
#pragma unroll 8
    for (int d = 0; d < n; d++) {
        int64_t e = __ldg(jdptr + d) + p;
        s += __ldcs(val + e) * __ldg(x + __ldcs(col + e));
    }
    rvs_y_put(ym, y, __ldg(perm + p), s);
}

/* Tail: band blockIdx.y, tiles of 32 positions x 32 diagonals, y[perm[p]] += tile sum. */
template <typename T>
__global__ void jad_tail(int64_t ndiag, const int32_t *__restrict__ perm, const int64_t *__restrict__ jdptr,
                         const int32_t *__restrict__ col, const T *__restrict__ val, const T *__restrict__ x,
                         rvs_ymap ym, T *__restrict__ y)
{
    int lane = threadIdx.x % 32;
    int64_t b0 = (int64_t)JAD_L << blockIdx.y, b1 = min(2 * b0, ndiag);
    if (b0 >= ndiag)
        return;
    int64_t npos = __ldg(jdptr + b0 + 1) - __ldg(jdptr + b0); /* positions reaching the band */
    int64_t ntile = (npos + 31) / 32, nsub = (b1 - b0 + 31) / 32;
    int64_t gw = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
    int64_t nw = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t u = gw; u < ntile * nsub; u += nw) {
        int64_t sub = u / ntile, t = u % ntile; /* neighbouring warps: neighbouring positions */
        int64_t d0 = b0 + 32 * sub, d1 = min(d0 + 32, b1), p = 32 * t + lane;
        if (32 * t >= __ldg(jdptr + d0 + 1) - __ldg(jdptr + d0))
            continue; /* the whole tile is past diagonal d0 (uniform over the warp) */
        int n = (int)(jad_reach(jdptr, d0, d1, p) - d0);
        T s = 0;
#pragma unroll 8
        for (int k = 0; k < n; k++) {
            int64_t e = __ldg(jdptr + d0 + k) + p;
            s += __ldcs(val + e) * __ldg(x + __ldcs(col + e));
        }
        if (n > 0)
            rvs_y_atomic(ym, y, __ldg(perm + p), s);
    }
}

/* y = A*x, A a JAD block on the device. */
extern "C" rvs_status rvs_gpu_spmv_jad(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                       void *stream, rvs_error *err)
{
    static const char *const names[] = {"perm", "jdptr", "col", "values"};
    const void *a[4];
    int block;
    rvs_status st;
    if ((st = rvs_ell_block(t, "jad", &block, err)) || (st = rvs_ell_arrays(G, "jad", names, a, 4, err)))
        return st;
    if (G->rows == 0)
        return RVS_OK;
    int64_t ndiag = G->param[0];
    unsigned grid = rvs_gpu_blocks(G->rows, block), nband = 0;
    while (ndiag > ((int64_t)JAD_L << nband))
        nband++;
    /* blocks of 256 per band: a band holds at most nnz entries, about two 1024-entry tiles a warp */
    int64_t bx = G->nnz / (1024 * 8 * 2) + 1;
    dim3 tgrid((unsigned)(bx > 1024 ? 1024 : bx), nband);
    cudaStream_t s = rvs_gpu_stream(stream);
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    const int32_t *perm = (const int32_t *)a[0], *col = (const int32_t *)a[2];
    const int64_t *jdptr = (const int64_t *)a[1];
    RVS_GPU_BY_VTYPE(G->vtype, T,
                     jad_head<T><<<grid, block, 0, s>>>(G->rows, ndiag, perm, jdptr, col, (const T *)a[3],
                                                        (const T *)dx, ym, (T *)dy);
                     if (nband) jad_tail<T>
                     <<<tgrid, 256, 0, s>>>(ndiag, perm, jdptr, col, (const T *)a[3], (const T *)dx, ym, (T *)dy));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
