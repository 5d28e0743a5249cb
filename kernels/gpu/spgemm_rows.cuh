/* spgemm_rows.cuh - device building blocks of the row-wise GPU SpGEMM: groups of threads that
 * share one row of C, the walk over a row's products, and the shared-memory hash table.
 *
 * A group is a warp (sg_warp) or a whole thread block (sg_block<NT>). Every member of a group
 * calls the group functions with the same arguments (they contain barriers or shuffles). */
#ifndef RVS_SPGEMM_ROWS_CUH
#define RVS_SPGEMM_ROWS_CUH

#include <climits>
#include <stdint.h>
#include <cuda_runtime.h>

#define SG_FULL 0xffffffffu
#define SG_EMPTY (-1)

/* The operands as the kernels see them (B's columns are 32-bit, so are A's: A->cols ==
 * B->rows fits). */
template <typename V>
struct sg_in {
    const int64_t *__restrict__ arp;
    const int32_t *__restrict__ acol;
    const V *__restrict__ aval;
    const int64_t *__restrict__ brp;
    const int32_t *__restrict__ bcol;
    const V *__restrict__ bval;
};

__device__ __forceinline__ long long sg_warp_incl_scan(long long x)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const long long y = __shfl_up_sync(SG_FULL, x, d);
        if (lane >= d)
            x += y;
    }
    return x;
}

__device__ __forceinline__ long long sg_warp_sum(long long x)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        x += __shfl_xor_sync(SG_FULL, x, d);
    return x;
}

/* Products of the row of A with entries [e0, e1), and the columns lo..hi its rows of B reach
 * (INT_MAX and -1 when there are none): LANES aligned lanes of a warp (a power of 2 up to 32)
 * over the entries, every lane of the warp taking part; each of the LANES gets them. */
template <int LANES = 32>
__device__ __forceinline__ long long sg_row_span(const int32_t *acol, const int64_t *brp, const int32_t *bcol,
                                                 int64_t e0, int64_t e1, int *lo_out, int *hi_out)
{
    long long p = 0;
    int lo = INT_MAX, hi = -1;
    for (int64_t e = e0 + (threadIdx.x & (LANES - 1)); e < e1; e += LANES) {
        const int32_t k = acol[e];
        const int64_t f0 = brp[k], f1 = brp[k + 1];
        if (f1 > f0) {
            p += f1 - f0;
            lo = min(lo, bcol[f0]);
            hi = max(hi, bcol[f1 - 1]);
        }
    }
#pragma unroll
    for (int d = LANES / 2; d > 0; d >>= 1) {
        p += __shfl_xor_sync(SG_FULL, p, d);
        lo = min(lo, __shfl_xor_sync(SG_FULL, lo, d));
        hi = max(hi, __shfl_xor_sync(SG_FULL, hi, d));
    }
    *lo_out = lo;
    *hi_out = hi;
    return p;
}

/* One warp per row. */
struct sg_warp {
    static constexpr int G = 32;
    __device__ static int rank() { return threadIdx.x & 31; }
    __device__ static void sync() { __syncwarp(); }
    /* Inclusive scan of x over the group; *total gets the group's sum. */
    __device__ static long long scan(long long x, long long *total, long long *)
    {
        x = sg_warp_incl_scan(x);
        *total = __shfl_sync(SG_FULL, x, 31);
        return x;
    }
    __device__ static long long sum(long long x, long long *) { return sg_warp_sum(x); }
};

/* One block of NT threads (a multiple of 32, at most 1024) per row. scratch: 32 long longs
 * of shared memory. */
template <int NT>
struct sg_block {
    static constexpr int G = NT;
    __device__ static int rank() { return threadIdx.x; }
    __device__ static void sync() { __syncthreads(); }
    __device__ static long long scan(long long x, long long *total, long long *scratch)
    {
        const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
        x = sg_warp_incl_scan(x);
        if (lane == 31)
            scratch[w] = x;
        __syncthreads();
        if (w == 0) {
            long long s = lane < NT / 32 ? scratch[lane] : 0;
            s = sg_warp_incl_scan(s);
            if (lane < NT / 32)
                scratch[lane] = s;
        }
        __syncthreads();
        if (w > 0)
            x += scratch[w - 1];
        *total = scratch[NT / 32 - 1];
        __syncthreads(); /* scratch is reused by the next call */
        return x;
    }
    __device__ static long long sum(long long x, long long *scratch)
    {
        long long t;
        scan(x, &t, scratch);
        return t;
    }
};

/* Shared state of one group's walk over products: a chunk of G entries of A's row, the
 * offsets of their products, their first entries in B and their values. */
template <typename V, int G>
struct sg_walk {
    long long off[G];
    long long fb[G];
    V a[G];
    long long scratch[32];
};

/* Call f(t, col, a, b) for every product t = 0.. of row [e0, e1) of A: a_ik * b_kj, col = j
 * (b = 0 unless VALS). The products of a chunk of G entries of A are spread evenly over the
 * group (a binary search over the chunk's offsets finds each product's entry), so rows of A
 * and B of any lengths keep every thread busy; each thread looks up SG_ILP products before
 * using them, so that their loads are in flight together. */
#define SG_ILP 4
template <class GR, bool VALS, typename V, class F>
__device__ __forceinline__ void sg_for_products(const sg_in<V> &in, int64_t e0, int64_t e1, sg_walk<V, GR::G> &w,
                                                F f)
{
    const int g = GR::rank();
    long long base = 0;
    for (int64_t eb = e0; eb < e1; eb += GR::G) {
        const int64_t e = eb + g;
        long long len = 0, fb = 0;
        V a = V(0);
        if (e < e1) {
            const int32_t k = in.acol[e];
            fb = in.brp[k];
            len = in.brp[k + 1] - fb;
            a = in.aval[e];
        }
        long long total;
        const long long incl = GR::scan(len, &total, w.scratch);
        w.off[g] = incl - len;
        w.fb[g] = fb;
        w.a[g] = a;
        GR::sync();
        const int n = (int)(e1 - eb < GR::G ? e1 - eb : GR::G);
        for (long long t0 = g; t0 < total; t0 += SG_ILP * GR::G) {
            int col[SG_ILP];
            V av[SG_ILP], bv[SG_ILP];
#pragma unroll
            for (int u = 0; u < SG_ILP; u++) {
                const long long t = t0 + (long long)u * GR::G;
                col[u] = 0;
                av[u] = bv[u] = V(0);
                if (t < total) {
                    int lo = 0, hi = n - 1; /* the last entry whose products start at or before t */
                    while (lo < hi) {
                        const int mid = (lo + hi + 1) >> 1;
                        if (w.off[mid] <= t)
                            lo = mid;
                        else
                            hi = mid - 1;
                    }
                    const long long fbj = w.fb[lo] + (t - w.off[lo]);
                    col[u] = in.bcol[fbj];
                    av[u] = w.a[lo];
                    if (VALS)
                        bv[u] = in.bval[fbj];
                }
            }
#pragma unroll
            for (int u = 0; u < SG_ILP; u++)
                if (t0 + (long long)u * GR::G < total)
                    f(base + t0 + (long long)u * GR::G, col[u], av[u], bv[u]);
        }
        base += total;
        GR::sync();
    }
}

/* Fibonacci hashing of a column into a table of 2^LOGT slots. */
template <int LOGT>
__device__ __forceinline__ unsigned sg_hash(int c)
{
    return ((unsigned)c * 2654435769u) >> (32 - LOGT);
}

/* Slot of column c in a shared table of 2^LOGT keys (SG_EMPTY = free), inserting it when
 * absent; *fresh = 1 when this call inserted it. The table never fills: the callers size it
 * to at least twice the row's distinct columns. */
template <int LOGT>
__device__ __forceinline__ unsigned sg_hash_slot(int *keys, int c, int *fresh)
{
    const unsigned mask = (1u << LOGT) - 1;
    unsigned h = sg_hash<LOGT>(c);
    for (;;) {
        const int k = ((volatile int *)keys)[h];
        if (k == c)
            return h;
        if (k == SG_EMPTY) {
            const int old = atomicCAS(&keys[h], SG_EMPTY, c);
            if (old == SG_EMPTY) {
                *fresh = 1;
                return h;
            }
            if (old == c)
                return h;
        }
        h = (h + 1) & mask;
    }
}

/* A block's hash table of T slots (keys, SG_EMPTY = free; take(s) the sum of slot s) out to
 * ocol / oval at o, sorted: the slots read into registers, the entries compacted in slot order
 * to keys[0..n) and vals[0..n), sorted by column (bitonic over the next power of two, padded
 * with INT_MAX) and written. Returns n. Every thread of the block calls it. */
template <int NT, int T, typename V, class Take>
__device__ __forceinline__ int sg_block_emit(int *keys, V *vals, long long *scratch, Take take, int32_t *ocol,
                                             V *oval, int64_t o)
{
    enum { K = T / NT };
    const int tid = threadIdx.x;
    int kr[K];
    V vr[K];
    int mine = 0;
#pragma unroll
    for (int q = 0; q < K; q++) {
        kr[q] = keys[tid + NT * q];
        vr[q] = kr[q] != SG_EMPTY ? take(tid + NT * q) : V(0);
        mine += kr[q] != SG_EMPTY;
    }
    long long total;
    const long long incl = sg_block<NT>::scan(mine, &total, scratch); /* barriers: reads done */
    int pos = (int)(incl - mine);
#pragma unroll
    for (int q = 0; q < K; q++)
        if (kr[q] != SG_EMPTY) {
            keys[pos] = kr[q];
            vals[pos] = vr[q];
            pos++;
        }
    __syncthreads();
    const int n = (int)total;
    int npow = 1;
    while (npow < n)
        npow <<= 1;
    for (int e = n + tid; e < npow; e += NT)
        keys[e] = INT_MAX;
    __syncthreads();
    for (int k = 2; k <= npow; k <<= 1)
        for (int h = k >> 1; h > 0; h >>= 1) {
            for (int e = tid; e < npow; e += NT) {
                const int x = e ^ h;
                if (x > e) { /* the pair (e, x), ascending where e & k == 0 */
                    const int ke = keys[e], kx = keys[x];
                    if ((ke > kx) == ((e & k) == 0)) {
                        keys[e] = kx;
                        keys[x] = ke;
                        const V t = vals[e];
                        vals[e] = vals[x];
                        vals[x] = t;
                    }
                }
            }
            __syncthreads();
        }
    for (int e = tid; e < n; e += NT) {
        ocol[o + e] = keys[e];
        oval[o + e] = vals[e];
    }
    return n;
}

/* Read a global value and leave zero behind (the dense accumulators stay zeroed). */
__device__ __forceinline__ double sg_take(double *p)
{
    return __longlong_as_double((long long)atomicExch((unsigned long long *)p, 0ull));
}
__device__ __forceinline__ float sg_take(float *p)
{
    return atomicExch(p, 0.0f);
}

#endif
