/* csr.cu - GPU SpMV in CSR. The nnz-split kernel (threads_per_row 128) - y is zeroed, then each warp takes
 * an equal contiguous run of entries (load balance whatever the row lengths), finds the row of
 * its first entry by a 32-way warp search of rowptr, and walks the run 32 entries at a time
 * (lane l takes entry l: coalesced). A batch inside one row is accumulated per lane; a batch
 * with row ends finds each lane's row from a window of 32 rowptr entries (a 6-step shuffle
 * search) and gets a segmented scan (gpu_parts.cuh). Rows inside a run are stored, the first
 * and last row of a run (which the neighbouring warps may share) are added atomically.
 * Also: scalar kernel (a thread per row), vector kernel (T lanes per row, T a power of two
 * up to 32, reduced with warp shuffles), the row-block kernel (csr_rowblock: rows staged
 * block-wise through shared memory; the default for irregular rows) and the warp-rows
 * kernel (csr_wrows: 32 rows a warp, products staged per warp; the default for regular rows),
 * chosen by name (rvs_csr_kernel; by default libformat/csr_gpu_rule.c). The row-block, warp-rows and vector kernels also serve
 * mixed precision (f32 values, f64 sums: rvs_gpu_csr_mixed, called from mixed.cu). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <cub/block/block_radix_sort.cuh>
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
__global__ void __launch_bounds__(256)
    csr_split(int64_t rows, int64_t nnz, int64_t per_warp, const int64_t *__restrict__ rp,
              const int32_t *__restrict__ ci, const T *__restrict__ va, const T *__restrict__ x, rvs_ymap ym,
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
        rvs_seg::batch<T, false>(crow, (int)(myrow - crow), v, lane, crow, carry, acc, live, first_row, head_shared,
                                 ym, y);
        cend = __shfl_sync(full, wrp, (int)(crow - wbase));
    }
    rvs_seg::finish<T, false>(lane, crow, carry, acc, live, first_row, head_shared, cend > end, ym, y);
}

/* Row-block kernel. The work of row r is its slot f(r) = r + rp[r] followed by its entries (entry
 * p of row r at position p + r + 1); f is strictly increasing, so the positions 0..rows+nnz-1 cut
 * into chunks of C = BT*ITEMS give every block at most C rows and at most C entries. Block b owns
 * the rows r with f(r) in [b*C, b*C + C): their first and last row come from the partition made
 * at upload (csr_rb_part, one load), or from two 32-way warp searches of f where a block has none.
 * The block stages the products va[p] * x[ci[p]] of a contiguous run of at most C entries in
 * shared memory with a fully coalesced, ITEMS-deep unrolled loop (all loads of a thread in flight
 * together; each thread's first row bounds are loaded with them). It then sums each row from
 * shared memory in a fixed order: a thread per row, or a warp per row for rows with more than
 * RB_LONG staged entries; in a block whose rows average RB_LONG staged entries or more, a group
 * of L lanes per row (L * rows <= threads, L up to 32), a warp for rows over RB_LONG * L. Two
 * modes:
 * - SPLIT false (every row at most 2*C long): the run is [rp[r0], rp[r1]) clipped to C entries; a
 *   last row that does not fit is finished by the whole block from global memory. Every row is
 *   stored once, no memset.
 * - SPLIT true (long or unknown rows): y is zeroed first and the run is exactly the entries with
 *   positions in the block's chunk, [start - r0, end - r1): entries are split over blocks whatever
 *   the row lengths. Rows wholly inside the run are stored; a row cut by the run's ends (the row
 *   before r0, the last owned row, or a row spanning the chunk) adds its part atomically.
 * A chunk sorted by column at upload (SB[b] >= 0, csr_rb_sort) stages each product at its slot.
 * Block shape (rb_shape): 512 threads x 8 entries in f64 and c64, 512 x 7 in f32, 256 x 8 in c128
 * (shared memory). Chunks bigger than 256 x 8 help because on scale-free graphs the gathers of x
 * hit L1 more often when a block spans more of the matrix (bench/notes-gpu-csr.md). */
#define RB_LONG 16

/* First r in [0, rows] with f(r) = r + rp[r] >= key, for 1 <= key <= rows + nnz (f(0) = 0 < key). */
template <typename RP>
__device__ static int64_t warp_lower_bound(const RP *__restrict__ rp, int64_t rows, int64_t key, int lane)
{
    const unsigned full = 0xffffffffu;
    int64_t lo = 0, hi = rows; /* f(lo) < key; the last r with f(r) < key is in [lo, hi] */
    while (hi - lo >= 32) {
        int64_t step = (hi - lo) / 32 + 1, q = lo + (lane + 1) * step;
        int c = __popc(__ballot_sync(full, q <= hi && q + __ldg(rp + q) < key));
        int64_t nlo = lo + c * step;
        hi = nlo + step - 1 < hi ? nlo + step - 1 : hi;
        lo = nlo;
    }
    int64_t q = lo + lane;
    return lo + __popc(__ballot_sync(full, q <= hi && q + __ldg(rp + q) < key));
}

/* The row-block partition of a CSR block, made once when it is uploaded: for b = 0..nb, P[2b] is
 * the first row r with f(r) >= min(b*C, rows + nnz) and P[2b+1] = rp[r]. With it a block starts
 * its loads at once instead of after two searches of rp (4-6 dependent trips to memory). */
__global__ void csr_rb_part(int64_t rows, int64_t nnz, int64_t C, int64_t nb, const int64_t *__restrict__ rp,
                            int64_t *__restrict__ P)
{
    const int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b > nb)
        return;
    const int64_t key = b * C < rows + nnz ? b * C : rows + nnz;
    int64_t lo = 0, hi = rows; /* f(rows) = rows + nnz >= key */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (mid + rp[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    P[2 * b] = lo;
    P[2 * b + 1] = rp[lo];
}

/* Column-sorted chunks (array "rbsort", made at upload by csr_rb_sort): the staged run of block b,
 * [S, S + n) as csr_rowblock computes it, is stored in column order; each column word becomes
 * (column - SB[b]) << 12 | k, k the entry's row-order position in the run (C <= 4096), and the
 * values move with their columns. SB[b] = -1: the run is left in row order (its columns span
 * 2^20 or more). The kernel gathers x in column order, so that the lanes of a warp share x's
 * sectors, and stores each product at its row-order slot, so that the row sums are unchanged. */
template <typename V, int BT, int ITEMS, bool SPLIT>
__global__ void __launch_bounds__(BT)
    csr_rb_sort(int64_t rows, int64_t nnz, const int64_t *__restrict__ P, int32_t *ci, V *va, int32_t *SB)
{
    constexpr int B = BT, C = BT * ITEMS;
    typedef cub::BlockRadixSort<unsigned, BT, ITEMS> Sort;
    __shared__ union {
        typename Sort::TempStorage sort;
        V val[C];
    } sm;
    __shared__ int smin, smax;
    const int tid = threadIdx.x;
    const int64_t b = blockIdx.x, total = rows + nnz, start = b * C, end = start + C < total ? start + C : total;
    const int64_t r0 = P[2 * b], p0 = P[2 * b + 1], r1 = P[2 * b + 2], p1 = P[2 * b + 3];
    int64_t S;
    int n;
    if (SPLIT) {
        S = start - r0;
        n = (int)((end - r1) - S);
    } else {
        S = p0;
        n = r0 >= r1 ? 0 : (int)(p1 - S < C ? p1 - S : C);
    }
    if (tid == 0) {
        smin = 2147483647;
        smax = -1;
    }
    __syncthreads();
    int c[ITEMS];
    V v[ITEMS];
    int lo = 2147483647, hi = -1;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const int k = tid + j * B;
        c[j] = k < n ? ci[S + k] : 0;
        v[j] = k < n && va ? va[S + k] : V(0);
        if (k < n) {
            lo = c[j] < lo ? c[j] : lo;
            hi = c[j] > hi ? c[j] : hi;
        }
    }
    atomicMin(&smin, lo);
    atomicMax(&smax, hi);
    __syncthreads();
    const int cmin = smin, cmax = smax;
    if (n < 2 || cmax - cmin >= (1 << 20)) { /* uniform */
        if (tid == 0)
            SB[b] = -1;
        return;
    }
    unsigned key[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const int k = tid + j * B;
        key[j] = k < n ? ((unsigned)(c[j] - cmin) << 12) | (unsigned)k : 0xFFFFFFFFu;
    }
    Sort(sm.sort).SortBlockedToStriped(key);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (tid + j * B < n && va)
            sm.val[tid + j * B] = v[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const int i = tid + j * B;
        if (i < n) {
            ci[S + i] = (int32_t)key[j];
            if (va) /* NULL: one value, nothing to move (a block coded into a table of one) */
                va[S + i] = sm.val[key[j] & 4095u];
        }
    }
    if (tid == 0)
        SB[b] = cmin;
}

/* Entry p's value: VC 0 va[p]; VC 1 the table (in shared memory) at code vq[p]; VC 2 the one value. */
template <int VC, typename V>
__device__ __forceinline__ V rb_value(const V *__restrict__ va, const uint8_t *__restrict__ vq, const V *sd, V one,
                                      int64_t p)
{
    if constexpr (VC == 0)
        return __ldcs(va + p);
    else if constexpr (VC == 1)
        return sd[__ldcs(vq + p)];
    else
        return one;
}

/* Blocks an SM: three of 512 threads (40 registers) in f64; four in f32 (32 registers, two of the
 * rarer instantiations spill 56 bytes), where the kernel is bound by instructions, not bytes, and
 * a fourth block makes it 5-10% faster (bench/notes-gpu-csr.md). */
template <typename T, typename V, int BT, int ITEMS, bool SPLIT, typename RP, int VC = 0>
__global__ void __launch_bounds__(BT, (sizeof(T) == 4 ? 2048 : 1536) / BT)
    csr_rowblock(int64_t rows, int64_t nnz, const RP *__restrict__ rp, const int32_t *__restrict__ ci,
                 const V *__restrict__ va, const T *__restrict__ x, const int64_t *__restrict__ P,
                 const int32_t *__restrict__ SB, rvs_ymap ym, T *__restrict__ y, const uint8_t *__restrict__ vq,
                 const V *__restrict__ vd, int nd)
{
    constexpr int B = BT, C = BT * ITEMS;
    const unsigned full = 0xffffffffu;
    __shared__ V sdict[VC == 1 ? RVS_DICT_MAX : 1];
    V one = V(0);
    if constexpr (VC == 1) { /* the table, before any block leaves: every thread reaches the barrier */
        for (int i = threadIdx.x; i < nd; i += BT)
            sdict[i] = __ldg(vd + i);
        __syncthreads();
    } else if constexpr (VC == 2) {
        one = __ldg(vd);
    }
    __shared__ T sv[C];
    __shared__ T sred[B / 32];
    __shared__ int64_t sbound[4];
    __shared__ int nlong;
    __shared__ int longlist[C / RB_LONG];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int64_t total = rows + nnz;
    const int64_t start = (int64_t)blockIdx.x * C, end = start + C < total ? start + C : total;
    int64_t r0, r1, p0, p1; /* the block's rows [r0, r1), p0 = rp[r0], p1 = rp[r1] */
    if (P) {
        r0 = __ldg(P + 2 * blockIdx.x);
        p0 = __ldg(P + 2 * blockIdx.x + 1);
        r1 = __ldg(P + 2 * blockIdx.x + 2);
        p1 = __ldg(P + 2 * blockIdx.x + 3);
        if (tid == 0)
            nlong = 0; /* read after the staging barrier */
    } else {
        if (warp < 2) {
            const int64_t key = warp == 0 ? start : end;
            const int64_t r = key == 0 ? 0 : warp_lower_bound(rp, rows, key, lane);
            if (lane == 0) {
                sbound[warp] = r;
                sbound[warp + 2] = __ldg(rp + r);
            }
        }
        if (tid == 0)
            nlong = 0;
        __syncthreads();
        r0 = sbound[0], r1 = sbound[1], p0 = sbound[2], p1 = sbound[3];
    }
    int64_t S, rlo;
    int n;
    if (SPLIT) {
        S = start - r0;
        n = (int)((end - r1) - S);
        rlo = r0 > 0 && p0 > S ? r0 - 1 : r0;
    } else {
        if (r0 >= r1)
            return; /* the whole block leaves */
        S = p0;
        n = (int)(p1 - S < C ? p1 - S : C);
        rlo = r0;
    }
    /* rows summed by groups of L lanes: 1 as a rule; where the block's staged rows average RB_LONG
     * entries or more (and rows are not split), the most lanes a row, up to a warp, that still
     * give every row its group in one round (L * rows <= B), so that such rows are not each
     * listed for a warp (bcsstk24 replica, 45 a row, f64: 0.81 -> 1.07-1.09x ALG1, L = 4) */
    int L = 1;
    if (!SPLIT && r1 > rlo && (int64_t)n >= RB_LONG * (r1 - rlo))
        for (L = 32; L > 1 && (int64_t)L * (r1 - rlo) > B;)
            L >>= 1;
    const int grp = tid / L, gl = tid % L, ngrp = B / L;
    /* the row bounds of this thread's first row, in flight with the staging loads */
    const int64_t rfirst = rlo + grp;
    int64_t pa0 = 0, pb0 = 0;
    if (rfirst < r1) {
        pa0 = __ldg(rp + rfirst);
        pb0 = __ldg(rp + rfirst + 1);
    }
    {
        /* stage: all of a thread's index and value loads first, then its gathers of x */
        const int32_t *cb = ci + S;
        const V *vb = VC == 0 ? va + S : nullptr;
        const uint8_t *qb = VC == 1 ? vq + S : nullptr;
        int c[ITEMS];
        V v[ITEMS];
        const int base = SB ? __ldg(SB + blockIdx.x) : -1;
        /* Three staging loops, not one with a branch inside: merged, the sorted run's gathers no
         * longer issued together and ran 30% slower (H100, wiki-Vote and memplus replicas). */
        if (base >= 0) { /* column-sorted run: word = column offset << 12 | row-order slot */
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                const int k = tid + j * B;
                c[j] = k < n ? __ldcs(cb + k) : -1;
                v[j] = k < n ? rb_value<VC>(vb, qb, sdict, one, k) : V(0);
            }
#pragma unroll
            for (int j = 0; j < ITEMS; j++)
                if (tid + j * B < n) {
                    const unsigned w = (unsigned)c[j];
                    sv[w & 4095u] = T(v[j]) * __ldg(x + base + (int)(w >> 12));
                }
        } else if (n == C) { /* full run (most blocks): no guards, so that the loads batch */
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                c[j] = __ldcs(cb + tid + j * B);
                v[j] = rb_value<VC>(vb, qb, sdict, one, tid + j * B);
            }
#pragma unroll
            for (int j = 0; j < ITEMS; j++)
                sv[tid + j * B] = T(v[j]) * __ldg(x + c[j]);
        } else {
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                const int k = tid + j * B;
                c[j] = k < n ? __ldcs(cb + k) : -1;
                v[j] = k < n ? rb_value<VC>(vb, qb, sdict, one, k) : V(0);
            }
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                const int k = tid + j * B;
                if (k < n)
                    sv[k] = T(v[j]) * __ldg(x + c[j]);
            }
        }
    }
    __syncthreads();
    const int64_t E = S + n;
    /* a group of L lanes per row (a thread when L = 1); rows over RB_LONG * L staged entries listed
     * for the warps. The rounds are block-uniform, so every lane reaches the group's shuffles. */
    for (int64_t base = rlo; base < r1; base += ngrp) {
        const int64_t r = base + grp;
        T s = 0;
        bool mine = false, whole = false;
        if (r < r1) {
            const int64_t pa = r == rfirst ? pa0 : __ldg(rp + r), pb = r == rfirst ? pb0 : __ldg(rp + r + 1);
            whole = pa >= S && pb <= E;
            if (SPLIT || whole) { /* else the last row, finished below */
                const int a = (int)((pa > S ? pa : S) - S), b = (int)((pb < E ? pb : E) - S);
                if (b - a > RB_LONG * L) {
                    if (gl == 0)
                        longlist[atomicAdd(&nlong, 1)] = (int)(r - rlo);
                } else {
                    mine = true;
                    for (int k = a + gl; k < b; k += L)
                        s += sv[k];
                }
            }
        }
        for (int off = L / 2; off > 0; off >>= 1)
            s += __shfl_xor_sync(full, s, off);
        if (mine && gl == 0) {
            if (whole)
                rvs_y_put(ym, y, r, s);
            else
                rvs_y_atomic(ym, y, r, s);
        }
    }
    __syncthreads();
    const int nl = nlong;
    for (int i = warp; i < nl; i += B / 32) {
        const int64_t r = rlo + longlist[i];
        const int64_t pa = __ldg(rp + r), pb = __ldg(rp + r + 1);
        const bool whole = pa >= S && pb <= E;
        const int a = (int)((pa > S ? pa : S) - S), b = (int)((pb < E ? pb : E) - S);
        T s = 0;
        for (int k = a + lane; k < b; k += 32)
            s += sv[k];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(full, s, off);
        if (lane == 0) {
            if (whole)
                rvs_y_put(ym, y, r, s);
            else
                rvs_y_atomic(ym, y, r, s);
        }
    }
    if (!SPLIT && p1 > E) {
        /* the last row r1 - 1 runs past the staged entries: the block finishes it (uniform branch) */
        const int64_t r = r1 - 1, top = p1;
        const int a = (int)(__ldg(rp + r) - S);
        T s = 0;
        for (int k = a + tid; k < n; k += B)
            s += sv[k];
        int64_t p = E + tid;
        for (; p + 3 * B < top; p += 4 * B) {
            const int c0 = __ldcs(ci + p), c1 = __ldcs(ci + p + B), c2 = __ldcs(ci + p + 2 * B),
                      c3 = __ldcs(ci + p + 3 * B);
            const T v0 = T(rb_value<VC>(va, vq, sdict, one, p)), v1 = T(rb_value<VC>(va, vq, sdict, one, p + B)),
                    v2 = T(rb_value<VC>(va, vq, sdict, one, p + 2 * B)),
                    v3 = T(rb_value<VC>(va, vq, sdict, one, p + 3 * B));
            s += v0 * __ldg(x + c0) + v1 * __ldg(x + c1) + v2 * __ldg(x + c2) + v3 * __ldg(x + c3);
        }
        for (; p < top; p += B)
            s += T(rb_value<VC>(va, vq, sdict, one, p)) * __ldg(x + __ldcs(ci + p));
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(full, s, off);
        if (lane == 0)
            sred[warp] = s;
        __syncthreads();
        if (tid == 0) {
            T t = 0;
            for (int w = 0; w < B / 32; w++)
                t += sred[w];
            rvs_y_put(ym, y, r, t);
        }
    }
}

/* Warp-rows kernel (threads_per_row 256): warp w owns rows 32w .. 32w+31, lane l row 32w + l (no
 * search: the row split is fixed, the work per warp follows the row lengths). The warp walks
 * its entries [rp[32w], rp[32w+32]) in chunks of WR_CH: every lane issues all its index and value
 * loads of the chunk first (coalesced), gathers x, and stages the products in shared memory;
 * then each lane sums its own row's part of the chunk serially, except parts longer than 32,
 * which the whole warp sums (strided, shuffle reduction). Each row is stored once, no memset,
 * no atomics. For rows of bounded length (the launcher picks it when the longest row is known
 * and short enough); a warp holding a very long row runs long. */
#define WR_ITEMS 8
#define WR_CH (32 * WR_ITEMS)
#define WR_BLOCK 256

/* A block's entries as the row kernels (warp-rows, vector) read them, in row order: columns as
 * they are (ci) or, NARROW, as 16-bit offsets (entry p of row i in column (i & ~31) + cbase +
 * c16[p]); values by rb_value (VC 0 va, 1 a table of nd values vd with a byte code vq, 2 one). */
template <typename V>
struct rows_src {
    const int32_t *ci;
    const uint16_t *c16;
    int64_t cbase;
    const V *va;
    const uint8_t *vq;
    const V *vd;
    int nd;
};

/* Column of entry p of a row in group g = (row & ~31) + cbase, and its value (as rb_value): loads
 * that stream (the warp-rows kernel reads each sector once, whole) or that may stay in L1 (the
 * vector kernel's lanes read part of a sector that the next step reads again). */
template <bool NARROW, bool STREAM, typename V>
__device__ __forceinline__ int rows_col(const rows_src<V> &s, int64_t p, int64_t g)
{
    if constexpr (NARROW)
        return (int)(g + (int64_t)(STREAM ? __ldcs(s.c16 + p) : s.c16[p]));
    else
        return STREAM ? __ldcs(s.ci + p) : s.ci[p];
}
template <int VC, bool STREAM, typename V>
__device__ __forceinline__ V rows_value(const rows_src<V> &s, const V *sd, V one, int64_t p)
{
    if constexpr (STREAM)
        return rb_value<VC>(s.va, s.vq, sd, one, p);
    else if constexpr (VC == 0)
        return s.va[p];
    else if constexpr (VC == 1)
        return sd[s.vq[p]];
    else
        return one;
}

/* The value table into sd (VC 1: every thread of the block must call it) or the one value (VC 2). */
template <int VC, typename V>
__device__ __forceinline__ V rows_table(const rows_src<V> &s, V *sd)
{
    if constexpr (VC == 1) {
        for (int i = threadIdx.x; i < s.nd; i += blockDim.x)
            sd[i] = __ldg(s.vd + i);
        __syncthreads();
    } else if constexpr (VC == 2) {
        return __ldg(s.vd);
    }
    return V(0);
}

/* The warp-rows kernel described above; values V, sums T (mixed precision: float, double). */
template <typename T, typename V, int VC, bool NARROW>
__global__ void __launch_bounds__(WR_BLOCK) csr_wrows(int64_t rows, const int64_t *__restrict__ rp, rows_src<V> src,
                                                      const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    const unsigned full = 0xffffffffu;
    __shared__ T sm[WR_BLOCK / 32][WR_CH];
    __shared__ V sd[VC == 1 ? RVS_DICT_MAX : 1];
    const V one = rows_table<VC>(src, sd);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int64_t r0 = ((int64_t)blockIdx.x * WR_BLOCK + threadIdx.x) / 32 * 32, r = r0 + lane;
    if (r0 >= rows)
        return; /* whole warps leave together */
    const int64_t a = __ldg(rp + (r < rows ? r : rows));
    const int64_t b = __ldg(rp + (r < rows ? r + 1 : rows));
    const int64_t e0 = __shfl_sync(full, a, 0), e1 = __shfl_sync(full, b, 31), g = r0 + src.cbase;
    T *ws = sm[w];
    T acc = T(0);
    for (int64_t c = e0; c < e1; c += WR_CH) {
        const int n = e1 - c < WR_CH ? (int)(e1 - c) : WR_CH;
        int col[WR_ITEMS];
        V v[WR_ITEMS];
        if (n == WR_CH) {
#pragma unroll
            for (int j = 0; j < WR_ITEMS; j++) {
                col[j] = rows_col<NARROW, true>(src, c + j * 32 + lane, g);
                v[j] = rows_value<VC, true>(src, sd, one, c + j * 32 + lane);
            }
#pragma unroll
            for (int j = 0; j < WR_ITEMS; j++)
                ws[j * 32 + lane] = T(v[j]) * __ldg(x + col[j]);
        } else {
#pragma unroll
            for (int j = 0; j < WR_ITEMS; j++) {
                const int k = j * 32 + lane;
                col[j] = k < n ? rows_col<NARROW, true>(src, c + k, g) : -1;
                v[j] = k < n ? rows_value<VC, true>(src, sd, one, c + k) : V(0);
            }
#pragma unroll
            for (int j = 0; j < WR_ITEMS; j++)
                if (col[j] >= 0)
                    ws[j * 32 + lane] = T(v[j]) * __ldg(x + col[j]);
        }
        __syncwarp();
        const int lo = (int)((a > c ? a : c) - c), hi = (int)((b < c + n ? b : c + n) - c);
        unsigned longs = __ballot_sync(full, hi - lo > 32);
        if (hi - lo <= 32)
            for (int k = lo; k < hi; k++)
                acc += ws[k];
        while (longs) {
            const int l = __ffs(longs) - 1;
            const int llo = __shfl_sync(full, lo, l), lhi = __shfl_sync(full, hi, l);
            T s = T(0);
            for (int k = llo + lane; k < lhi; k += 32)
                s += ws[k];
#pragma unroll
            for (int d = 16; d > 0; d >>= 1)
                s += __shfl_xor_sync(full, s, d);
            if (lane == l)
                acc += s;
            longs &= longs - 1;
        }
        __syncwarp();
    }
    if (r < rows)
        rvs_y_put(ym, y, r, acc);
}

/* y = A*x with one thread per row (grid-stride over rows). */
template <typename T>
__global__ void csr_scalar(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                           const T *__restrict__ va, const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride) {
        T s = 0;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            s += va[p] * __ldg(&x[ci[p]]);
        rvs_y_put(ym, y, i, s);
    }
}

/* y = A*x with LANES threads per row, entries read as the warp-rows kernel reads them. Whole warps
 * walk the grid-stride loop together so that every lane reaches the full-mask shuffles. */
template <typename T, typename V, int LANES, int VC, bool NARROW>
__global__ void csr_vector(int64_t rows, const int64_t *__restrict__ rp, rows_src<V> src, const T *__restrict__ x,
                           rvs_ymap ym, T *__restrict__ y)
{
    __shared__ V sd[VC == 1 ? RVS_DICT_MAX : 1];
    const V one = rows_table<VC>(src, sd);
    const int lane = threadIdx.x % LANES;
    const int64_t groups = (int64_t)gridDim.x * blockDim.x / LANES;
    const int64_t warp_first = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * (32 / LANES);
    const int64_t group_in_warp = (threadIdx.x % 32) / LANES;
    for (int64_t base = warp_first; base < rows; base += groups) {
        const int64_t i = base + group_in_warp, g = (i & ~(int64_t)31) + src.cbase;
        T s = T(0);
        if (i < rows)
            for (int64_t p = rp[i] + lane; p < rp[i + 1]; p += LANES)
                s += T(rows_value<VC, false>(src, sd, one, p)) * __ldg(&x[rows_col<NARROW, false>(src, p, g)]);
        for (int off = LANES / 2; off > 0; off /= 2)
            s += __shfl_down_sync(0xffffffffu, s, off, LANES);
        if (lane == 0 && i < rows)
            rvs_y_put(ym, y, i, s);
    }
}

/* G's entries for the row kernels; *vc and *narrow: how they are stored. */
template <typename V>
static rows_src<V> rows_src_of(const rvs_gpu_fmt *G, int *vc, bool *narrow)
{
    const rvs_array *qa = rvs_gpu_array(G, "vcode"), *da = rvs_gpu_array(G, "vdict");
    rows_src<V> s = {(const int32_t *)rvs_gpu_data(G, "colind"),
                     (const uint16_t *)rvs_gpu_data(G, "col16"),
                     G->cbase,
                     (const V *)rvs_gpu_data(G, "values"),
                     qa ? (const uint8_t *)qa->data : NULL,
                     da ? (const V *)da->data : NULL,
                     da ? (int)da->count : 0};
    *vc = da ? (qa ? 1 : 2) : 0;
    *narrow = s.c16 != NULL;
    return s;
}

/* f(VC, NARROW) with compile-time arguments for the run-time vc (0, 1, 2) and narrow. */
template <typename N, typename F>
static void by_codes(int vc, F &&f)
{
    if (vc == 1)
        f(std::integral_constant<int, 1>{}, N{});
    else if (vc == 2)
        f(std::integral_constant<int, 2>{}, N{});
    else
        f(std::integral_constant<int, 0>{}, N{});
}
template <typename F>
static void by_layout(int vc, bool narrow, F &&f)
{
    if (narrow)
        by_codes<std::true_type>(vc, f);
    else
        by_codes<std::false_type>(vc, f);
}

/* f(VC, NARROW, src, rp, ym) with G's entries (rows_src_of), row pointers and row map, VC and
 * NARROW compile-time; values other than real ones only as they are, the one layout the upload
 * makes for them. */
template <typename V, typename F>
static void with_layout(const rvs_gpu_fmt *G, F &&f)
{
    int vc;
    bool narrow;
    const rows_src<V> src = rows_src_of<V>(G, &vc, &narrow);
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    if constexpr (std::is_same<V, double>::value || std::is_same<V, float>::value)
        by_layout(vc, narrow, [&](auto VC, auto N) { f(VC, N, src, rp, ym); });
    else
        f(std::integral_constant<int, 0>{}, std::false_type{}, src, rp, ym);
}

/* The warp-rows kernel on G (values V; x, y and sums T). */
template <typename T, typename V>
static rvs_status launch_wrows(const rvs_gpu_fmt *G, cudaStream_t s, const T *x, T *y, rvs_error *err)
{
    const int64_t warps = (G->rows + 31) / 32;
    if (warps > 2147483647LL / 32)
        return rvs_fail(err, RVS_ERR_ARG, "csr: matrix too large for the warp-rows kernel");
    const unsigned grid = rvs_gpu_blocks(warps * 32, WR_BLOCK);
    with_layout<V>(G, [&](auto VC, auto N, const rows_src<V> &src, const int64_t *rp, const rvs_ymap &ym) {
        csr_wrows<T, V, decltype(VC)::value, decltype(N)::value>
            <<<grid, WR_BLOCK, 0, s>>>(G->rows, rp, src, x, ym, y);
    });
    return RVS_OK;
}

/* The vector kernel (values V; x, y and sums T) with a compile-time lane count. */
template <typename T, typename V, int LANES>
static void launch_vector_lanes(const rvs_gpu_fmt *G, unsigned grid, int block, cudaStream_t s, const T *x, T *y)
{
    with_layout<V>(G, [&](auto VC, auto N, const rows_src<V> &src, const int64_t *rp, const rvs_ymap &ym) {
        csr_vector<T, V, LANES, decltype(VC)::value, decltype(N)::value>
            <<<grid, block, 0, s>>>(G->rows, rp, src, x, ym, y);
    });
}

/* The vector kernel with lanes (2..32) a row, in blocks of block threads; the grid capped so that the
 * loop strides (blocks stay resident). */
template <typename T, typename V>
static void launch_vector(const rvs_gpu_fmt *G, int lanes, int block, cudaStream_t s, const T *x, T *y)
{
    unsigned grid = rvs_gpu_blocks(G->rows * lanes, block);
    if (grid > 65535u * 32u)
        grid = 65535u * 32u;
    switch (lanes) {
    case 2: launch_vector_lanes<T, V, 2>(G, grid, block, s, x, y); break;
    case 4: launch_vector_lanes<T, V, 4>(G, grid, block, s, x, y); break;
    case 8: launch_vector_lanes<T, V, 8>(G, grid, block, s, x, y); break;
    case 16: launch_vector_lanes<T, V, 16>(G, grid, block, s, x, y); break;
    default: launch_vector_lanes<T, V, 32>(G, grid, block, s, x, y); break;
    }
}

/* Row-block shape of a value type: 0 = 256 threads x 8 entries, 1 = 512 x 8, 2 = 512 x 7. */
static int rb_shape(rvs_vtype vt)
{
    return vt == RVS_F32 ? 2 : rvs_vtype_size(vt) <= 8 ? 1 : 0;
}
static int64_t rb_span(int shape)
{
    return shape == 1 ? 4096 : shape == 2 ? 3584 : 2048;
}

/* Split mode unless rows are known to be at most 2*C long (each row stored once by its block, no memset). */
static bool rb_split(const rvs_gpu_fmt *G, int64_t C)
{
    return !(G->param[1] == 1 && G->param[0] <= 2 * C);
}

/* The row-block kernel on G (values V; x, y and sums T): mixed precision (f32 values, f64 sums)
 * takes it with V = float, T = double and the f32 chunk shape, which G's partition was made for. */
template <typename T, typename V>
static rvs_status launch_rowblock(const rvs_gpu_fmt *G, cudaStream_t s, const T *x, T *y, rvs_error *err)
{
    const rvs_array *ra = rvs_gpu_array(G, "rowptr");
    const void *rp = ra ? ra->data : NULL;
    const bool rp32 = ra && ra->dtype == RVS_DT_I32; /* narrowed at upload (narrow_rowptr) */
    constexpr bool real = std::is_same<T, double>::value || std::is_same<T, float>::value;
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "colind");
    const V *va = (const V *)rvs_gpu_data(G, "values");
    /* values coded at upload (rvs_gpu_upload_codes): a table and a byte per entry, or one value */
    const rvs_array *qa = rvs_gpu_array(G, "vcode"), *da = rvs_gpu_array(G, "vdict");
    const int vc = da ? (qa ? 1 : 2) : 0, nd = da ? (int)da->count : 0;
    const uint8_t *vq = qa ? (const uint8_t *)qa->data : NULL;
    const V *vd = da ? (const V *)da->data : NULL;
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    const int shape = rb_shape(G->vtype);
    const int64_t C = rb_span(shape), total = G->rows + G->nnz;
    const rvs_array *pa = rvs_gpu_array(G, "rbpart");
    const int64_t *P = pa && pa->count == 2 * ((total + C - 1) / C + 1) ? (const int64_t *)pa->data : NULL;
    const rvs_array *sa = rvs_gpu_array(G, "rbsort");
    const int32_t *SB = P && sa && sa->count == (total + C - 1) / C ? (const int32_t *)sa->data : NULL;
    if (sa && !SB)
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: column-sorted chunks without their partition");
    if (vc && !(real && rp32 && nd >= 1 && nd <= RVS_DICT_MAX))
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: coded values without 32-bit row pointers or with a table of %d",
                        nd);
    if (G->rows == 0)
        return RVS_OK;
    const bool split = rb_split(G, C);
    const unsigned grid = rvs_gpu_blocks(total, (int)C);
    if ((total + C - 1) / C > 2147483647LL)
        return rvs_fail(err, RVS_ERR_ARG, "csr: matrix too large for the row-block kernel");
    if (split) { /* y in T: f64 for mixed precision, whose block is f32 */
        rvs_status st = rvs_gpu_y_zero_as(G, std::is_same<T, V>::value ? G->vtype : RVS_F64, y, s, err);
        if (st != RVS_OK)
            return st;
    }
#define RB_KERNEL(BT, IT, SP, RP, VC)      \
    csr_rowblock<T, V, BT, IT, SP, RP, VC> \
        <<<grid, BT, 0, s>>>(G->rows, G->nnz, (const RP *)rp, ci, va, x, P, SB, ym, y, vq, vd, nd)
#define RB_LAUNCH_RP(BT, IT, RP, VC) (split ? RB_KERNEL(BT, IT, true, RP, VC) : RB_KERNEL(BT, IT, false, RP, VC))
#define RB_LAUNCH(BT, IT)                             \
    do {                                              \
        if constexpr (real) {                         \
            if (rp32) {                               \
                if (vc == 1)                          \
                    RB_LAUNCH_RP(BT, IT, int32_t, 1); \
                else if (vc == 2)                     \
                    RB_LAUNCH_RP(BT, IT, int32_t, 2); \
                else                                  \
                    RB_LAUNCH_RP(BT, IT, int32_t, 0); \
                break;                                \
            }                                         \
        }                                             \
        RB_LAUNCH_RP(BT, IT, int64_t, 0);             \
    } while (0)
    if constexpr (!std::is_same<T, V>::value) {
        RB_LAUNCH(512, 7); /* f32 values: rb_shape(RVS_F32) */
    } else if constexpr (sizeof(T) <= 8) {
        switch (shape) {
        case 1: RB_LAUNCH(512, 8); break;
        case 2: RB_LAUNCH(512, 7); break;
        default: RB_LAUNCH(256, 8); break;
        }
    } else {
        RB_LAUNCH(256, 8);
    }
#undef RB_LAUNCH
#undef RB_LAUNCH_RP
#undef RB_KERNEL
    return RVS_OK;
}

/* Launch kernel k (lanes a row for the vector kernel, blocks of block threads for the scalar and
 * vector kernels) for one value type. */
template <typename T>
static rvs_status launch(const rvs_gpu_fmt *G, rvs_csr_kernel k, int lanes, int block, cudaStream_t s, const T *x,
                         T *y, rvs_error *err)
{
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "colind");
    const T *va = (const T *)rvs_gpu_data(G, "values");
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    switch (k) {
    case RVS_CSR_ROW_BLOCK: return launch_rowblock<T, T>(G, s, x, y, err);
    case RVS_CSR_WARP_ROWS: return launch_wrows<T, T>(G, s, x, y, err);
    case RVS_CSR_NNZ_SPLIT: {
        rvs_status st = rvs_gpu_y_zero(G, y, s, err);
        if (st != RVS_OK || G->nnz == 0)
            return st;
        int64_t per_warp = 256;
        while ((G->nnz + per_warp - 1) / per_warp * 32 / 256 > 2147483647LL / 2)
            per_warp *= 2;
        int64_t warps = (G->nnz + per_warp - 1) / per_warp;
        csr_split<T>
            <<<rvs_gpu_blocks(warps * 32, 256), 256, 0, s>>>(G->rows, G->nnz, per_warp, rp, ci, va, x, ym, y);
        return RVS_OK;
    }
    case RVS_CSR_SCALAR:
        csr_scalar<T><<<rvs_gpu_blocks(G->rows, block), block, 0, s>>>(G->rows, rp, ci, va, x, ym, y);
        return RVS_OK;
    default: launch_vector<T, T>(G, lanes, block, s, x, y); return RVS_OK;
    }
}

/* How G lies on the device, from what its upload made of it. */
static rvs_csr_layout layout_of(const rvs_gpu_fmt *G)
{
    if (G->param[RVS_CSR_ORDER] == RVS_CSR_ORDER_CUSPARSE)
        return RVS_CSR_FOR_CUSPARSE;
    if (rvs_gpu_array(G, "rbsort"))
        return RVS_CSR_SORTED;
    return rvs_gpu_csr_laid_out(G) ? RVS_CSR_ROWS : RVS_CSR_PLAIN;
}

/* The kernel t asks for on G (the rule's default where it asks for none: rvs_csr_gpu_rule). */
static rvs_csr_gpu_plan kernel_for(const rvs_gpu_fmt *G, const rvs_gpu_tune *t)
{
    const rvs_csr_layout l = layout_of(G);
    rvs_csr_gpu_plan p = rvs_csr_gpu_rule(G->rows, G->nnz, G->vtype, G->param,
                                          t ? (rvs_csr_kernel)t->csr_kernel : RVS_CSR_AUTO,
                                          t ? t->threads_per_row : 0, l == RVS_CSR_ROWS);
    if ((!t || (t->csr_kernel == 0 && t->threads_per_row == 0)) && !rvs_csr_kernel_reads(p.kernel, l))
        p = rvs_csr_gpu_rule(G->rows, G->nnz, G->vtype, G->param,
                             l == RVS_CSR_SORTED ? RVS_CSR_ROW_BLOCK : RVS_CSR_AUTO, 0, 0);
    p.layout = l;
    return p;
}

static const char *layout_name(rvs_csr_layout l)
{
    static const char *const n[] = {
        "with its rows and arrays as they are", "with its row-block chunks sorted by column",
        "for the warp-rows and vector kernels (16-bit columns or coded values)", "for cuSPARSE"};
    return n[l];
}

/* RVS_OK unless G lacks an array its kernels read, or kernel cannot read G as the upload laid it
 * out (rvs_csr_kernel_reads). */
extern "C" rvs_status rvs_gpu_csr_layout_check(const rvs_gpu_fmt *G, const rvs_gpu_tune *t, rvs_error *err)
{
    if (!rvs_gpu_data(G, "rowptr") || (G->nnz > 0 && ((!rvs_gpu_data(G, "colind") && !rvs_gpu_data(G, "col16")) ||
                                                      (!rvs_gpu_data(G, "values") && !rvs_gpu_data(G, "vdict")))))
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: device arrays missing");
    const rvs_csr_gpu_plan p = kernel_for(G, t);
    if (rvs_csr_kernel_reads(p.kernel, p.layout))
        return RVS_OK;
    /* what to build instead: values as they are where only they are in the way (sorted chunks'
     * codes for a kernel that would read them), else rows in order */
    const int codes = p.layout == RVS_CSR_SORTED && rvs_gpu_array(G, "vdict") && p.kernel != RVS_CSR_ROW_BLOCK &&
                      p.kernel != RVS_CSR_CUSPARSE && rvs_csr_kernel_reads(p.kernel, RVS_CSR_ROWS);
    return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                    "csr: the %s kernel cannot read this block, uploaded %s%s (build it with %s, or ask for the "
                    "kernel when it is built: --tune csr-kernel=%s)",
                    rvs_csr_kernel_name(p.kernel), layout_name(p.layout), codes ? " and its values coded" : "",
                    codes ? "csr-values=1" : "csr-order=1", rvs_csr_kernel_name(p.kernel));
}

/* y = A*x, A a CSR block on the device. Tunables: csr_kernel (rvs_csr_kernel; default the
 * rule's), threads_per_row (the vector kernel's lanes, 2..32; alone they ask for it, 1 for the
 * scalar kernel), block (scalar and vector kernels; default 256, a multiple of 32). */
extern "C" rvs_status rvs_gpu_spmv_csr(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                       void *stream, rvs_error *err)
{
    rvs_status st = RVS_OK;
    const int lanes = t->threads_per_row;
    if (t->csr_kernel < 0 || t->csr_kernel >= RVS_CSR_KERNELS)
        return rvs_fail(err, RVS_ERR_ARG, "csr: kernel %d is not one of the %d named", t->csr_kernel,
                        RVS_CSR_KERNELS - 1);
    if (lanes != 0 && lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
        return rvs_fail(err, RVS_ERR_ARG, "csr: threads-per-row %d is not 1, 2, 4, 8, 16 or 32", lanes);
    int block = t->block > 0 ? t->block : 256;
    if (block % 32 != 0 || block > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "csr: block %d is not a multiple of 32 up to 1024", block);
    if ((st = rvs_gpu_csr_layout_check(G, t, err)) != RVS_OK)
        return st;
    const rvs_csr_gpu_plan p = kernel_for(G, t);
    if (p.kernel == RVS_CSR_CUSPARSE)
        return rvs_gpu_csr_cusparse_spmv(G, dx, dy, stream, err);
    cudaStream_t s = rvs_gpu_stream(stream);
    RVS_GPU_BY_VTYPE(G->vtype, T, st = launch<T>(G, p.kernel, p.lanes, block, s, (const T *)dx, (T *)dy, err));
    if (st != RVS_OK)
        return st;
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

__global__ void csr_rp_narrow(int64_t n, const int64_t *__restrict__ rp, int32_t *__restrict__ out)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (int32_t)rp[i];
}

/* G's row pointers in 32 bits (nnz < 2^31): 4 bytes a row less to read, as cuSPARSE's. Only the
 * row-block kernel reads them, and only on a sorted block, which no other kernel takes. */
static rvs_status narrow_rowptr(rvs_gpu_fmt *G, rvs_error *err)
{
    rvs_array *a = (rvs_array *)rvs_gpu_array(G, "rowptr"); /* G's own: it may change it */
    void *d = NULL;
    rvs_status st = rvs_gpu_malloc(&d, (size_t)(G->rows + 1) * sizeof(int32_t), err);
    if (st != RVS_OK)
        return st;
    csr_rp_narrow<<<rvs_gpu_blocks(G->rows + 1, 256), 256>>>(G->rows + 1, (const int64_t *)a->data, (int32_t *)d);
    RVS_CUDA_LAUNCHED(err);
    rvs_gpu_free(a->data);
    a->data = d;
    a->dtype = RVS_DT_I32;
    return RVS_OK;
}

/* Sort every chunk of G by column (csr_rb_sort) and add the chunk bases ("rbsort"). */
static rvs_status sort_chunks(rvs_gpu_fmt *G, const int64_t *P, int64_t nb, rvs_error *err)
{
    const int64_t C = rb_span(rb_shape(G->vtype));
    const bool split = rb_split(G, C);
    int32_t *ci = (int32_t *)rvs_gpu_array(G, "colind")->data;
    const rvs_array *vs = rvs_gpu_array(G, "values"), *qs = rvs_gpu_array(G, "vcode");
    void *va = vs ? vs->data : NULL, *d = NULL;
    rvs_status st = rvs_gpu_add_array(G, "rbsort", RVS_DT_I32, nb, &d, err);
    if (st != RVS_OK)
        return st;
    int32_t *SB = (int32_t *)d;
    if (!vs) { /* coded: the codes move with their columns, or nothing moves (one value) */
        uint8_t *q = qs ? (uint8_t *)qs->data : NULL;
        if (G->vtype == RVS_F64 && split)
            csr_rb_sort<uint8_t, 512, 8, true><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, q, SB);
        else if (G->vtype == RVS_F64)
            csr_rb_sort<uint8_t, 512, 8, false><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, q, SB);
        else if (split)
            csr_rb_sort<uint8_t, 512, 7, true><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, q, SB);
        else
            csr_rb_sort<uint8_t, 512, 7, false><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, q, SB);
    } else if (G->vtype == RVS_F64) {
        if (split)
            csr_rb_sort<double, 512, 8, true><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, (double *)va, SB);
        else
            csr_rb_sort<double, 512, 8, false><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, (double *)va, SB);
    } else {
        if (split)
            csr_rb_sort<float, 512, 7, true><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, (float *)va, SB);
        else
            csr_rb_sort<float, 512, 7, false><<<(unsigned)nb, 512>>>(G->rows, G->nnz, P, ci, (float *)va, SB);
    }
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* mm[0], mm[1] = the least and the largest column - (row & ~31) of the entries (a thread a row). */
__global__ void csr_band(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                         long long *__restrict__ mm)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    long long lo = LLONG_MAX, hi = LLONG_MIN;
    if (i < rows)
        for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
            const long long d = (long long)ci[p] - (long long)(i & ~(int64_t)31);
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
    for (int k = 16; k > 0; k >>= 1) {
        const long long l = __shfl_xor_sync(0xffffffffu, lo, k), h = __shfl_xor_sync(0xffffffffu, hi, k);
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    if ((threadIdx.x & 31) == 0 && lo <= hi) {
        atomicMin(mm, lo);
        atomicMax(mm + 1, hi);
    }
}

/* out[p] = column - (row & ~31) - base of every entry p (a thread a row). */
__global__ void csr_narrow_cols(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                                int64_t base, uint16_t *__restrict__ out)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows)
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            out[p] = (uint16_t)((int64_t)ci[p] - (i & ~(int64_t)31) - base);
}

/* G's columns as 16-bit offsets ("col16" instead of "colind", G->cbase) where the entries' columns
 * less their row's group of 32 span at most 2^16 values: 2 bytes an entry instead of 4 for the row
 * kernels (banded matrices: stencils, finite elements in a good order). Otherwise G is unchanged. */
static rvs_status narrow_columns(rvs_gpu_fmt *G, rvs_error *err)
{
    rvs_array *a = (rvs_array *)rvs_gpu_array(G, "colind"); /* G's own: it may change it */
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    long long h[2] = {LLONG_MAX, LLONG_MIN}, *mm = NULL;
    void *d = NULL;
    if (!a || !rp)
        return RVS_OK;
    rvs_status st = rvs_gpu_malloc((void **)&mm, sizeof h, err);
    if (st == RVS_OK && (st = rvs_gpu_memcpy_h2d(mm, h, sizeof h, err)) == RVS_OK) {
        csr_band<<<rvs_gpu_blocks(G->rows, 256), 256>>>(G->rows, rp, (const int32_t *)a->data, mm);
        st = rvs_gpu_memcpy_d2h(h, mm, sizeof h, err);
    }
    rvs_gpu_free(mm);
    if (st != RVS_OK || h[0] > h[1] || h[1] - h[0] > 65535)
        return st;
    if ((st = rvs_gpu_malloc(&d, (size_t)G->nnz * sizeof(uint16_t), err)) != RVS_OK)
        return st;
    csr_narrow_cols<<<rvs_gpu_blocks(G->rows, 256), 256>>>(G->rows, rp, (const int32_t *)a->data, (int64_t)h[0],
                                                           (uint16_t *)d);
    RVS_CUDA_LAUNCHED(err);
    rvs_gpu_free(a->data);
    a->data = d;
    a->dtype = RVS_DT_U16;
    snprintf(a->name, sizeof a->name, "col16");
    G->cbase = (int64_t)h[0];
    return RVS_OK;
}

/* Add the row-block partition ("rbpart", see csr_rb_part) to a CSR block just uploaded. Small:
 * 16 bytes per 2048 rows and entries. A block without it (e.g. a streamed chunk) searches. */
extern "C" rvs_status rvs_gpu_csr_prepare(rvs_gpu_fmt *G, rvs_error *err)
{
    const int64_t C = rb_span(rb_shape(G->vtype)), total = G->rows + G->nnz, nb = (total + C - 1) / C;
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    if (G->id == RVS_FMT_CSR && G->param[RVS_CSR_ORDER] == RVS_CSR_ORDER_CUSPARSE)
        return rvs_gpu_csr_cusparse_prepare(G, err);
    if (G->id != RVS_FMT_CSR || G->rows == 0 || !rp || G->narrays >= RVS_FMT_MAX_ARRAYS ||
        rvs_gpu_array(G, "rbpart"))
        return RVS_OK;
    void *d = NULL;
    rvs_status st = rvs_gpu_add_array(G, "rbpart", RVS_DT_I64, 2 * (nb + 1), &d, err);
    if (st != RVS_OK)
        return st;
    csr_rb_part<<<rvs_gpu_blocks(nb + 1, 256), 256>>>(G->rows, G->nnz, C, nb, rp, (int64_t *)d);
    RVS_CUDA_LAUNCHED(err);
    /* the row-block kernel's chunks in column order where it is the default kernel (param[2] = 0) */
    if (rvs_csr_gpu_sorted(G->rows, G->nnz, G->vtype, G->param) && G->narrays < RVS_FMT_MAX_ARRAYS &&
        nb <= 2147483647LL) {
        st = sort_chunks(G, (const int64_t *)d, nb, err);
        return st == RVS_OK ? narrow_rowptr(G, err) : st;
    }
    /* a block the row kernels read (regular rows, rows in order): 16-bit columns where they fit */
    if (G->param[RVS_CSR_INDEX] == 0 && rvs_csr_gpu_in_rows(G->rows, G->nnz, G->vtype, G->param))
        return narrow_columns(G, err);
    return RVS_OK;
}

/* Mixed precision: y = A*x with A's values in f32, x, y and the sums in f64 (G->vtype RVS_F32, laid
 * out at upload as for f32), in the kernel t asks for (row-block, warp-rows or vector) or, where it
 * asks for none, on a block laid out for the row kernels the one f32 takes, else row-block. */
extern "C" rvs_status rvs_gpu_csr_mixed(const rvs_gpu_fmt *G, const rvs_gpu_tune *t, const double *dx, double *dy,
                                        void *stream, rvs_error *err)
{
    cudaStream_t s = rvs_gpu_stream(stream);
    rvs_status st = rvs_gpu_csr_layout_check(G, t, err);
    rvs_csr_gpu_plan p = kernel_for(G, t);
    const int block = t->block > 0 ? t->block : 256;
    if (st != RVS_OK)
        return st;
    if (t->csr_kernel == RVS_CSR_AUTO && t->threads_per_row == 0 && p.layout != RVS_CSR_ROWS)
        p.kernel = RVS_CSR_ROW_BLOCK; /* f32 values staged as f64 products: 8 bytes an entry */
    if (p.kernel == RVS_CSR_ROW_BLOCK)
        st = launch_rowblock<double, float>(G, s, dx, dy, err);
    else if (p.kernel == RVS_CSR_WARP_ROWS)
        st = launch_wrows<double, float>(G, s, dx, dy, err);
    else if (p.kernel == RVS_CSR_VECTOR)
        launch_vector<double, float>(G, p.lanes, block, s, dx, dy);
    else
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "csr mixed: no %s kernel in mixed precision (row-block, "
                        "warp-rows and vector have one)",
                        rvs_csr_kernel_name(p.kernel));
    if (st != RVS_OK)
        return st;
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
