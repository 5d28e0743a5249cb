/* spgemm_bins.cu - the kernels of the row-wise GPU SpGEMM and their launchers: products per
 * row, binning, and the symbolic and numeric pass of each bin (spgemm_bins.cuh has the rule).
 * The bin kernels are persistent: a fixed grid walks the bin's row list, whose length the
 * binning kernels left in device memory, so no pass waits for the host. */
#include <climits>
#include "spgemm_bins.cuh"
#include "spgemm_rows.cuh"

#define SG_WPB 8        /* warps per block of the warp kernels */
#define SG_HASH_NT 256  /* threads of the block-hash kernels */
#define SG_DENSE_NT 512 /* threads of the dense kernels */

size_t sg_dense_stride(int64_t cols, rvs_vtype vt)
{
    return sg_bitmap_bytes(cols) + (((size_t)cols * rvs_vtype_size(vt) + 255) & ~(size_t)255);
}

/* ---- products, binning --------------------------------------------------------------- */

/* prod, lo, hi of every row: LANES lanes per row (a warp for long rows of A, 4 for short ones),
 * over A's entries. */
template <int LANES>
__global__ void __launch_bounds__(256) sg_products_kernel(sg_job j)
{
    const int lane = threadIdx.x & (LANES - 1);
    const int per_block = 256 / LANES;
    /* every lane of a warp iterates alike (the shuffles need the whole warp): rows past m idle */
    const int64_t stride = (int64_t)gridDim.x * per_block;
    for (int64_t i0 = (int64_t)blockIdx.x * per_block + threadIdx.x / 32 * (32 / LANES); i0 < j.m; i0 += stride) {
        const int64_t i = i0 + threadIdx.x % 32 / LANES;
        const bool row = i < j.m;
        int lo, hi;
        const long long p = sg_row_span<LANES>(j.acol, j.brp, j.bcol, row ? j.arp[i] : 0, row ? j.arp[i + 1] : 0,
                                               &lo, &hi);
        if (row && lane == 0) {
            j.prod[i] = p;
            j.lo[i] = lo;
            j.hi[i] = hi;
        }
    }
}

/* Bin of every row of [r0, r1) for the symbolic (numeric == 0) or numeric pass (1; 2: only
 * counted, not added to the totals), counted per bin. The symbolic pass settles rows that
 * need no kernel (cnt = p) here. */
__global__ void __launch_bounds__(256) sg_classify_kernel(sg_job j, int numeric, int64_t r0, int64_t r1)
{
    __shared__ unsigned long long local[SG_BINS];
    if (threadIdx.x < SG_BINS)
        local[threadIdx.x] = 0;
    __syncthreads();
    const int64_t i = r0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < r1) {
        const int64_t p = j.prod[i], alen = j.arp[i + 1] - j.arp[i];
        int b = SG_NONE;
        if (!numeric) {
            if (p <= 1 || alen == 1) {
                j.cnt[i] = p; /* nothing, one product, or a scaled row of B */
            } else if (p <= SG_ESC_MAX) {
                b = SG_ESC;
            } else {
                const int64_t span = (int64_t)j.hi[i] - j.lo[i] + 1, bound = p < span ? p : span;
                b = bound <= SG_SYM_WARP_MAX ? SG_WARP : bound <= SG_SYM_BLOCK_MAX ? SG_BLOCK : SG_DENSE;
            }
        } else {
            const int64_t c = j.cnt[i];
            if (c > 0 && !(j.cpu && j.cpu[i]))
                b = alen == 1               ? SG_COPY
                    : p <= SG_ESC_MAX       ? SG_ESC
                    : c <= SG_NUM_WARP_MAX  ? SG_WARP
                    : c <= SG_NUM_BLOCK_MAX ? SG_BLOCK
                                            : SG_DENSE;
        }
        j.bin[i] = (uint8_t)b;
        if (b != SG_NONE)
            atomicAdd(&local[b], 1ull);
    }
    __syncthreads();
    if (threadIdx.x < SG_BINS && local[threadIdx.x]) {
        atomicAdd(&j.bins[threadIdx.x], local[threadIdx.x]);
        if (numeric == 1)
            atomicAdd(&j.bins[2 * SG_BINS + threadIdx.x], local[threadIdx.x]);
    }
}

/* Rows of [r0, r1) into list, grouped by bin (bin b starts after the rows of bins < b);
 * warp-aggregated: one atomic per bin present in a warp. */
__global__ void __launch_bounds__(256) sg_scatter_kernel(sg_job j, int64_t r0, int64_t r1)
{
    const int64_t i = r0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const int b = i < r1 ? (int)j.bin[i] : SG_NONE;
    const unsigned same = __match_any_sync(SG_FULL, b);
    const int leader = __ffs(same) - 1;
    unsigned long long at = 0;
    if (b != SG_NONE && lane == leader)
        at = atomicAdd(&j.bins[SG_BINS + b], (unsigned long long)__popc(same));
    at = __shfl_sync(SG_FULL, at, leader);
    if (b != SG_NONE) {
        unsigned long long off = 0;
        for (int q = 0; q < b; q++)
            off += j.bins[q];
        j.list[off + at + __popc(same & ((1u << lane) - 1))] = i;
    }
}

/* ---- ESC: p <= 32 ----------------------------------------------------------------------- */

/* Gather row i's products into col / val (lane t: product t; SG_EMPTY beyond p). */
template <typename V, bool NUM>
__device__ __forceinline__ void sg_esc_gather(const sg_in<V> &in, int64_t i, sg_walk<V, 32> &walk, int *col, V *val)
{
    const int lane = threadIdx.x & 31;
    col[lane] = SG_EMPTY;
    if (NUM)
        val[lane] = V(0);
    __syncwarp();
    sg_for_products<sg_warp, NUM>(in, in.arp[i], in.arp[i + 1], walk, [&](long long t, int c, V a, V b) {
        col[t] = c;
        if (NUM)
            val[t] = a * b;
    });
}

/* The ESC of one row whose products lie in lanes [seg * L, seg * L + L) of col / val (lane
 * seg * L + t: product t, SG_EMPTY beyond p), L = 32 / segments, after a __syncwarp: equal
 * columns are found by __match_any_sync on the segment and the column, summed in product order
 * by their first lane, which places the sum by the number of distinct smaller columns of its
 * segment. Returns the row's distinct columns (to every lane of the segment). Symbolic (NUM
 * false): the count alone. */
template <typename V, bool NUM, int L>
__device__ __forceinline__ int sg_esc_merge(const int *col, const V *val, int32_t *ocol, V *oval, int64_t o)
{
    const int lane = threadIdx.x & 31, seg = lane / L;
    const unsigned mask = (unsigned)((1ull << L) - 1) << (seg * L);
    const int c = col[lane];
    const unsigned same = __match_any_sync(SG_FULL, ((unsigned long long)seg << 32) | (unsigned)c);
    const bool leader = c != SG_EMPTY && __ffs(same) - 1 == lane;
    const unsigned lead = __ballot_sync(SG_FULL, leader) & mask;
    if (NUM && leader) {
        V s = V(0);
        for (unsigned q = same; q; q &= q - 1)
            s += val[__ffs(q) - 1];
        int rank = 0;
        for (unsigned q = lead; q; q &= q - 1)
            rank += col[__ffs(q) - 1] < c;
        ocol[o + rank] = c;
        oval[o + rank] = s;
    }
    return __popc(lead);
}

/* Products of the row of A with entries [e0, e1) (p <= L of them) into *c and *v of lane t of
 * its segment of L lanes: product t, in the order of the warp's walk (sg_for_products), SG_EMPTY
 * beyond p. Every lane of the warp calls it (shuffles); idle segments pass e0 == e1. The
 * segment takes L of A's entries at a time, scans their lengths in B and finds by a binary
 * search over the scan the entry whose products hold t. */
template <typename V, bool NUM, int L>
__device__ __forceinline__ void sg_esc_gather_lanes(const sg_in<V> &in, int64_t e0, int64_t e1, int *c, V *v)
{
    const int t = threadIdx.x & (L - 1);
    long long chunks = (e1 - e0 + L - 1) / L, base = 0;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) /* the warp's most: the shuffles below need every lane */
        chunks = max(chunks, __shfl_xor_sync(SG_FULL, chunks, d));
    *c = SG_EMPTY;
    *v = V(0);
    for (long long q = 0; q < chunks; q++) {
        const int64_t e = e0 + q * L + t;
        long long len = 0, fb = 0;
        V a = V(0);
        if (e < e1) {
            const int32_t k = in.acol[e];
            fb = in.brp[k];
            len = in.brp[k + 1] - fb;
            a = in.aval[e];
        }
        long long incl = len;
#pragma unroll
        for (int d = 1; d < L; d <<= 1) {
            const long long y = __shfl_up_sync(SG_FULL, incl, d, L);
            if (t >= d)
                incl += y;
        }
        const long long excl = incl - len, total = __shfl_sync(SG_FULL, incl, L - 1, L), x = t - base;
        int at = 0; /* the last entry whose products start at or before x */
#pragma unroll
        for (int d = L / 2; d > 0; d >>= 1)
            if (__shfl_sync(SG_FULL, excl, at + d, L) <= x)
                at += d;
        const long long fbx = __shfl_sync(SG_FULL, fb, at, L) + (x - __shfl_sync(SG_FULL, excl, at, L));
        const V ax = __shfl_sync(SG_FULL, a, at, L);
        if (x >= 0 && x < total) {
            *c = in.bcol[fbx];
            if (NUM)
                *v = ax * in.bval[fbx];
        }
        base += total;
    }
}

/* The ESC of SG_ESC_ROWS rows of the bin from list entry r0 on, by one warp: rows of at most
 * SG_ESC_LANES products in segments of SG_ESC_LANES lanes side by side, then the others one
 * after another over the whole warp. Both give the same entries and the same sums (product
 * order). Symbolic (NUM false): cnt of each row; numeric: the row at sg_out_at, and cnt in the
 * one pass. col / val: the warp's 32 slots. */
template <typename V, bool NUM>
__device__ __forceinline__ void sg_esc_rows(const sg_job &j, const sg_in<V> &in, const sg_bin &bn, long long r0,
                                            sg_walk<V, 32> &walk, int *col, V *val, int64_t base, int32_t *ocol,
                                            V *oval)
{
    const int lane = threadIdx.x & 31, t = lane & (SG_ESC_LANES - 1);
    const long long r = r0 + lane / SG_ESC_LANES;
    const int64_t i = r < bn.n ? bn.rows[r] : -1;
    const bool few = i >= 0 && j.prod[i] <= SG_ESC_LANES;
    int c;
    V v;
    sg_esc_gather_lanes<V, NUM, SG_ESC_LANES>(in, few ? in.arp[i] : 0, few ? in.arp[i + 1] : 0, &c, &v);
    col[lane] = c;
    if (NUM)
        val[lane] = v;
    __syncwarp();
    const int64_t o = few && NUM ? sg_out_at(j, i, base) : 0;
    const int n = sg_esc_merge<V, NUM, SG_ESC_LANES>(col, val, ocol, oval, o);
    if (few && t == 0 && (!NUM || j.boff))
        j.cnt[i] = n;
    __syncwarp();
    for (unsigned many = __ballot_sync(SG_FULL, i >= 0 && !few && t == 0); many; many &= many - 1) {
        const int64_t k = __shfl_sync(SG_FULL, i, __ffs(many) - 1);
        sg_esc_gather<V, NUM>(in, k, walk, col, val);
        const int nk = sg_esc_merge<V, NUM, 32>(col, val, ocol, oval, NUM ? sg_out_at(j, k, base) : 0);
        if (lane == 0 && (!NUM || j.boff))
            j.cnt[k] = nk;
        __syncwarp();
    }
}

template <typename V>
__global__ void __launch_bounds__(256) sg_sym_esc(sg_job j, sg_in<V> in)
{
    __shared__ sg_walk<V, 32> walk[SG_WPB];
    __shared__ int col[SG_WPB][32];
    const int w = threadIdx.x >> 5;
    const sg_bin bn = sg_bin_of(j, SG_ESC);
    const long long step = (long long)gridDim.x * SG_WPB * SG_ESC_ROWS;
    for (long long r = ((long long)blockIdx.x * SG_WPB + w) * SG_ESC_ROWS; r < bn.n; r += step)
        sg_esc_rows<V, false>(j, in, bn, r, walk[w], col[w], (V *)0, 0, (int32_t *)0, (V *)0);
}

template <typename V>
__global__ void __launch_bounds__(256) sg_num_esc(sg_job j, sg_in<V> in, int64_t base, int32_t *ocol, V *oval)
{
    __shared__ sg_walk<V, 32> walk[SG_WPB];
    __shared__ int col[SG_WPB][32];
    __shared__ V val[SG_WPB][32];
    const int w = threadIdx.x >> 5;
    const sg_bin bn = sg_bin_of(j, SG_ESC);
    const long long step = (long long)gridDim.x * SG_WPB * SG_ESC_ROWS;
    for (long long r = ((long long)blockIdx.x * SG_WPB + w) * SG_ESC_ROWS; r < bn.n; r += step)
        sg_esc_rows<V, true>(j, in, bn, r, walk[w], col[w], val[w], base, ocol, oval);
}

/* A row with one entry a_ik: a_ik times row k of B, by LANES lanes (32 / LANES rows a warp). */
template <typename V, int LANES>
__global__ void __launch_bounds__(256) sg_num_copy(sg_job j, sg_in<V> in, int64_t base, int32_t *ocol, V *oval)
{
    const int lane = threadIdx.x & (LANES - 1), per_block = 256 / LANES;
    const sg_bin bn = sg_bin_of(j, SG_COPY);
    for (long long r = (long long)blockIdx.x * per_block + threadIdx.x / LANES; r < bn.n;
         r += (long long)gridDim.x * per_block) {
        const int64_t i = bn.rows[r], e = in.arp[i];
        const int32_t k = in.acol[e];
        const V a = in.aval[e];
        const int64_t f0 = in.brp[k], len = in.brp[k + 1] - f0, o = sg_out_at(j, i, base);
        for (int64_t t = lane; t < len; t += LANES) {
            ocol[o + t] = in.bcol[f0 + t];
            oval[o + t] = a * in.bval[f0 + t];
        }
    }
}

/* ---- shared-memory hash ------------------------------------------------------------------ */

/* Symbolic, warp per row, 512 keys per warp. */
template <typename V>
__global__ void __launch_bounds__(256) sg_sym_warp(sg_job j, sg_in<V> in)
{
    __shared__ sg_walk<V, 32> walk[SG_WPB];
    __shared__ int keys[SG_WPB][512];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const sg_bin bn = sg_bin_of(j, SG_WARP);
    for (long long r = (long long)blockIdx.x * SG_WPB + w; r < bn.n; r += (long long)gridDim.x * SG_WPB) {
        const int64_t i = bn.rows[r];
        int *kw = keys[w];
        for (int s = lane; s < 512; s += 32)
            kw[s] = SG_EMPTY;
        __syncwarp();
        long long mine = 0;
        sg_for_products<sg_warp, false>(in, in.arp[i], in.arp[i + 1], walk[w], [&](long long, int c, V, V) {
            int fresh = 0;
            sg_hash_slot<9>(kw, c, &fresh);
            mine += fresh;
        });
        const long long n = sg_warp_sum(mine);
        if (lane == 0)
            j.cnt[i] = n;
        __syncwarp();
    }
}

/* Symbolic, block per row, 8192 keys. */
template <typename V>
__global__ void __launch_bounds__(SG_HASH_NT) sg_sym_block(sg_job j, sg_in<V> in)
{
    typedef sg_block<SG_HASH_NT> GR;
    __shared__ sg_walk<V, SG_HASH_NT> walk;
    __shared__ int keys[8192];
    const sg_bin bn = sg_bin_of(j, SG_BLOCK);
    for (long long r = blockIdx.x; r < bn.n; r += gridDim.x) {
        const int64_t i = bn.rows[r];
        for (int s = threadIdx.x; s < 8192; s += SG_HASH_NT)
            keys[s] = SG_EMPTY;
        __syncthreads();
        long long mine = 0;
        sg_for_products<GR, false>(in, in.arp[i], in.arp[i + 1], walk, [&](long long, int c, V, V) {
            int fresh = 0;
            sg_hash_slot<13>(keys, c, &fresh);
            mine += fresh;
        });
        const long long n = GR::sum(mine, walk.scratch);
        if (threadIdx.x == 0)
            j.cnt[i] = n;
        __syncthreads();
    }
}

/* Numeric, warp per row, 256 slots: accumulate, compact (ballot order), then each entry is
 * written at its rank among the row's columns. */
template <typename V>
__global__ void __launch_bounds__(256) sg_num_warp(sg_job j, sg_in<V> in, int64_t base, int32_t *ocol, V *oval)
{
    __shared__ sg_walk<V, 32> walk[SG_WPB];
    __shared__ int keys[SG_WPB][256];
    __shared__ V vals[SG_WPB][256];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const unsigned below = (1u << lane) - 1;
    const sg_bin bn = sg_bin_of(j, SG_WARP);
    for (long long r = (long long)blockIdx.x * SG_WPB + w; r < bn.n; r += (long long)gridDim.x * SG_WPB) {
        const int64_t i = bn.rows[r];
        int *kw = keys[w];
        V *vw = vals[w];
        for (int s = lane; s < 256; s += 32) {
            kw[s] = SG_EMPTY;
            vw[s] = V(0);
        }
        __syncwarp();
        sg_for_products<sg_warp, true>(in, in.arp[i], in.arp[i + 1], walk[w], [&](long long, int c, V a, V b) {
            int fresh = 0;
            const unsigned h = sg_hash_slot<8>(kw, c, &fresh);
            atomicAdd(&vw[h], a * b);
        });
        int kr[8];
        V vr[8];
#pragma unroll
        for (int q = 0; q < 8; q++) {
            kr[q] = kw[lane + 32 * q];
            vr[q] = vw[lane + 32 * q];
        }
        __syncwarp();
        int n = 0;
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const bool ok = kr[q] != SG_EMPTY;
            const unsigned m = __ballot_sync(SG_FULL, ok);
            if (ok) {
                const int pos = n + __popc(m & below);
                kw[pos] = kr[q];
                vw[pos] = vr[q];
            }
            n += __popc(m);
        }
        __syncwarp();
        int mk[4], rk[4];
        V mv[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int e = lane + 32 * q;
            mk[q] = e < n ? kw[e] : INT_MAX;
            mv[q] = e < n ? vw[e] : V(0);
            rk[q] = 0;
        }
        for (int k = 0; k < n; k++) {
            const int kk = kw[k];
#pragma unroll
            for (int q = 0; q < 4; q++)
                rk[q] += kk < mk[q];
        }
        const int64_t o = sg_out_at(j, i, base);
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (lane + 32 * q < n) {
                ocol[o + rk[q]] = mk[q];
                oval[o + rk[q]] = mv[q];
            }
        if (j.boff && lane == 0)
            j.cnt[i] = n;
        __syncwarp();
    }
}

/* Bytes of dynamic shared memory of sg_num_block<V>. */
template <typename V>
static size_t sg_num_block_smem(void)
{
    return sizeof(sg_walk<V, SG_HASH_NT>) + (size_t)SG_NUM_BLOCK_T * (sizeof(V) + sizeof(int));
}

/* Numeric, block per row, 4096 slots: keys in shared memory, sums in the block's slice of
 * j.hsum in device memory (zero, and left zero: read with atomicExch), since a row's popular
 * columns make shared-memory floating-point atomics (compare-and-swap loops) spin while
 * device atomics queue at L2; then the entries are compacted in slot order into shared
 * memory, sorted by column (bitonic) and written out. */
template <typename V>
__global__ void __launch_bounds__(SG_HASH_NT)
    sg_num_block(sg_job j, sg_in<V> in, int64_t base, int32_t *ocol, V *oval)
{
    typedef sg_block<SG_HASH_NT> GR;
    extern __shared__ __align__(16) unsigned char sg_smem[];
    sg_walk<V, SG_HASH_NT> &walk = *reinterpret_cast<sg_walk<V, SG_HASH_NT> *>(sg_smem);
    V *vals = reinterpret_cast<V *>(sg_smem + sizeof(sg_walk<V, SG_HASH_NT>));
    int *keys = reinterpret_cast<int *>(vals + SG_NUM_BLOCK_T);
    V *gv = (V *)j.hsum + (size_t)blockIdx.x * SG_NUM_BLOCK_T; /* this block's sums */
    const int tid = threadIdx.x;
    const sg_bin bn = sg_bin_of(j, SG_BLOCK);
    for (long long r = blockIdx.x; r < bn.n; r += gridDim.x) {
        const int64_t i = bn.rows[r];
        for (int s = tid; s < SG_NUM_BLOCK_T; s += SG_HASH_NT)
            keys[s] = SG_EMPTY;
        __syncthreads();
        sg_for_products<GR, true>(in, in.arp[i], in.arp[i + 1], walk, [&](long long, int c, V a, V b) {
            int fresh = 0;
            const unsigned h = sg_hash_slot<12>(keys, c, &fresh);
            atomicAdd(&gv[h], a * b);
        });
        sg_block_emit<SG_HASH_NT, SG_NUM_BLOCK_T>(
            keys, vals, walk.scratch, [&](int q) { return sg_take(&gv[q]); }, ocol, oval, sg_out_at(j, i, base));
        __syncthreads();
    }
}

/* ---- dense: long rows ---------------------------------------------------------------------- */

/* Symbolic: bits over the row's span in the block's slice, counted and cleared. */
template <typename V>
__global__ void __launch_bounds__(SG_DENSE_NT) sg_sym_dense(sg_job j, sg_in<V> in)
{
    typedef sg_block<SG_DENSE_NT> GR;
    __shared__ sg_walk<V, SG_DENSE_NT> walk;
    unsigned *bm = (unsigned *)((char *)j.dense + (size_t)blockIdx.x * j.dense_stride);
    const sg_bin bn = sg_bin_of(j, SG_DENSE);
    for (long long r = blockIdx.x; r < bn.n; r += gridDim.x) {
        const int64_t i = bn.rows[r];
        const int lo = j.lo[i];
        const int64_t words = ((int64_t)j.hi[i] - lo + 32) / 32;
        sg_for_products<GR, false>(in, in.arp[i], in.arp[i + 1], walk, [&](long long, int c, V, V) {
            const unsigned x = (unsigned)(c - lo);
            atomicOr(&bm[x >> 5], 1u << (x & 31));
        });
        long long mine = 0;
        for (int64_t q = threadIdx.x; q < words; q += SG_DENSE_NT)
            mine += __popc(atomicExch(&bm[q], 0u));
        const long long n = GR::sum(mine, walk.scratch);
        if (threadIdx.x == 0)
            j.cnt[i] = n;
    }
}

/* Numeric: sums and bits over the span; the bitmap, walked in order, gives the sorted row. */
template <typename V>
__global__ void __launch_bounds__(SG_DENSE_NT)
    sg_num_dense(sg_job j, sg_in<V> in, int64_t base, int32_t *ocol, V *oval)
{
    typedef sg_block<SG_DENSE_NT> GR;
    __shared__ sg_walk<V, SG_DENSE_NT> walk;
    char *slice = (char *)j.dense + (size_t)blockIdx.x * j.dense_stride;
    unsigned *bm = (unsigned *)slice;
    V *dv = (V *)(slice + sg_bitmap_bytes(j.cols));
    const sg_bin bn = sg_bin_of(j, SG_DENSE);
    for (long long r = blockIdx.x; r < bn.n; r += gridDim.x) {
        const int64_t i = bn.rows[r];
        const int lo = j.lo[i];
        const int64_t words = ((int64_t)j.hi[i] - lo + 32) / 32, o = sg_out_at(j, i, base);
        sg_for_products<GR, true>(in, in.arp[i], in.arp[i + 1], walk, [&](long long, int c, V a, V b) {
            const unsigned x = (unsigned)(c - lo);
            atomicAdd(&dv[x], a * b);
            atomicOr(&bm[x >> 5], 1u << (x & 31));
        });
        long long done = 0;
        for (int64_t wb = 0; wb < words; wb += SG_DENSE_NT) {
            const int64_t q = wb + threadIdx.x;
            unsigned bits = q < words ? atomicExch(&bm[q], 0u) : 0u;
            const int pc = __popc(bits);
            long long tot;
            long long pos = done + GR::scan(pc, &tot, walk.scratch) - pc;
            while (bits) {
                const int b = __ffs(bits) - 1;
                bits &= bits - 1;
                const int64_t x = q * 32 + b;
                ocol[o + pos] = lo + (int)x;
                oval[o + pos] = sg_take(&dv[x]);
                pos++;
            }
            done += tot;
        }
        if (j.boff && threadIdx.x == 0)
            j.cnt[i] = done;
    }
}

/* ---- launchers ------------------------------------------------------------------------------ */

/* Blocks of a persistent grid: enough for `rows` rows at per_block rows a block, at most
 * per_sm blocks per multiprocessor. */
static unsigned sg_grid(const sg_job *j, int64_t rows, int per_block, int per_sm)
{
    int64_t g = (rows + per_block - 1) / per_block, cap = (int64_t)j->sms * per_sm;
    if (g > cap)
        g = cap;
    return g < 1 ? 1u : (unsigned)g;
}

template <typename V>
static sg_in<V> sg_inputs(const sg_job *j)
{
    sg_in<V> in = {j->arp, j->acol, (const V *)j->aval, j->brp, j->bcol, (const V *)j->bval};
    return in;
}

cudaError_t sg_launch_products(const sg_job *j, int64_t nnz_a, cudaStream_t s)
{
    if (j->m == 0)
        return cudaSuccess;
    if (nnz_a <= SG_SHORT * j->m) /* short rows of A: 4 lanes a row, 8 rows a warp */
        sg_products_kernel<4><<<sg_grid(j, j->m, 64, 32), 256, 0, s>>>(*j);
    else
        sg_products_kernel<32><<<sg_grid(j, j->m, SG_WPB, 32), 256, 0, s>>>(*j);
    return cudaGetLastError();
}

cudaError_t sg_launch_scatter(const sg_job *j, int64_t r0, int64_t r1, cudaStream_t s)
{
    if (r1 > r0)
        sg_scatter_kernel<<<(unsigned)((r1 - r0 + 255) / 256), 256, 0, s>>>(*j, r0, r1);
    return cudaGetLastError();
}

cudaError_t sg_launch_bins(const sg_job *j, int numeric, int64_t r0, int64_t r1, cudaStream_t s)
{
    const unsigned g = (unsigned)((r1 - r0 + 255) / 256);
    cudaError_t e = cudaMemsetAsync(j->bins, 0, 2 * SG_BINS * sizeof *j->bins, s);
    if (e != cudaSuccess || r1 <= r0)
        return e;
    sg_classify_kernel<<<g, 256, 0, s>>>(*j, numeric, r0, r1);
    if (numeric != 2)
        sg_scatter_kernel<<<g, 256, 0, s>>>(*j, r0, r1);
    return cudaGetLastError();
}

/* Record ev[q] when tracing. */
static void sg_mark(cudaEvent_t *ev, int q, cudaStream_t s)
{
    if (ev)
        cudaEventRecord(ev[q], s);
}

/* Grid of a dense kernel: its slices bound it. */
static unsigned sg_dense_grid(const sg_job *j, int64_t rows)
{
    const unsigned g = sg_grid(j, rows, 1, 2);
    return g < (unsigned)j->dense_blocks ? g : (unsigned)j->dense_blocks;
}

template <typename V>
static cudaError_t sg_symbolic(const sg_job *j, const int64_t *n, cudaEvent_t *ev, cudaStream_t s)
{
    const sg_in<V> in = sg_inputs<V>(j);
    sg_mark(ev, 0, s);
    if (n[SG_ESC])
        sg_sym_esc<V><<<sg_grid(j, n[SG_ESC], SG_WPB * SG_ESC_ROWS, 8), 256, 0, s>>>(*j, in);
    sg_mark(ev, 1, s);
    if (n[SG_WARP])
        sg_sym_warp<V><<<sg_grid(j, n[SG_WARP], SG_WPB, 8), 256, 0, s>>>(*j, in);
    sg_mark(ev, 2, s);
    if (n[SG_BLOCK])
        sg_sym_block<V><<<sg_grid(j, n[SG_BLOCK], 1, 4), SG_HASH_NT, 0, s>>>(*j, in);
    sg_mark(ev, 3, s);
    if (n[SG_DENSE] && j->dense_blocks > 0)
        sg_sym_dense<V><<<sg_dense_grid(j, n[SG_DENSE]), SG_DENSE_NT, 0, s>>>(*j, in);
    sg_mark(ev, 4, s);
    return cudaGetLastError();
}

cudaError_t sg_launch_symbolic(const sg_job *j, const int64_t *n, cudaEvent_t *ev, cudaStream_t s)
{
    if (j->m == 0)
        return cudaSuccess;
    return j->vt == RVS_F64 ? sg_symbolic<double>(j, n, ev, s) : sg_symbolic<float>(j, n, ev, s);
}

/* The block hash needs more than the default 48 KiB of shared memory (once per type). */
template <typename V>
static cudaError_t sg_block_smem_limit(void)
{
    static int done = 0;
    if (done)
        return cudaSuccess;
    cudaError_t e = cudaFuncSetAttribute(sg_num_block<V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)sg_num_block_smem<V>());
    done = e == cudaSuccess;
    return e;
}

/* Lanes of the copy kernel: the power of two (4 to 32) that covers B's average row, so that
 * short rows of B do not leave most of a warp idle. */
static int sg_copy_lanes(const sg_job *j)
{
    int lanes = 4;
    while (lanes < 32 && (int64_t)lanes * j->b_rows < j->b_nnz)
        lanes *= 2;
    return lanes;
}

template <typename V>
static cudaError_t sg_numeric(const sg_job *j, const int64_t *n, int64_t base, int32_t *ocol, V *oval,
                              cudaEvent_t *ev, cudaStream_t s)
{
    const sg_in<V> in = sg_inputs<V>(j);
    if (n[SG_BLOCK]) {
        cudaError_t e = sg_block_smem_limit<V>();
        if (e != cudaSuccess)
            return e;
    }
    sg_mark(ev, 0, s);
    if (n[SG_COPY]) {
        const int lanes = sg_copy_lanes(j);
        const unsigned g = sg_grid(j, n[SG_COPY], 256 / lanes, 8);
        if (lanes == 4)
            sg_num_copy<V, 4><<<g, 256, 0, s>>>(*j, in, base, ocol, oval);
        else if (lanes == 8)
            sg_num_copy<V, 8><<<g, 256, 0, s>>>(*j, in, base, ocol, oval);
        else if (lanes == 16)
            sg_num_copy<V, 16><<<g, 256, 0, s>>>(*j, in, base, ocol, oval);
        else
            sg_num_copy<V, 32><<<g, 256, 0, s>>>(*j, in, base, ocol, oval);
    }
    sg_mark(ev, 1, s);
    if (n[SG_ESC])
        sg_num_esc<V><<<sg_grid(j, n[SG_ESC], SG_WPB * SG_ESC_ROWS, 8), 256, 0, s>>>(*j, in, base, ocol, oval);
    sg_mark(ev, 2, s);
    if (n[SG_WARP])
        sg_num_warp<V><<<sg_grid(j, n[SG_WARP], SG_WPB, 8), 256, 0, s>>>(*j, in, base, ocol, oval);
    sg_mark(ev, 3, s);
    if (n[SG_BLOCK]) {
        unsigned g = sg_grid(j, n[SG_BLOCK], 1, SG_HSUM_PER_SM);
        g = g < (unsigned)j->hsum_blocks ? g : (unsigned)j->hsum_blocks;
        sg_num_block<V><<<g, SG_HASH_NT, sg_num_block_smem<V>(), s>>>(*j, in, base, ocol, oval);
    }
    sg_mark(ev, 4, s);
    if (n[SG_DENSE] && j->dense_blocks > 0)
        sg_num_dense<V><<<sg_dense_grid(j, n[SG_DENSE]), SG_DENSE_NT, 0, s>>>(*j, in, base, ocol, oval);
    sg_mark(ev, 5, s);
    return cudaGetLastError();
}

cudaError_t sg_launch_numeric(const sg_job *j, const int64_t *n, int64_t base, int32_t *out_col, void *out_val,
                              cudaEvent_t *ev, cudaStream_t s)
{
    return j->vt == RVS_F64 ? sg_numeric<double>(j, n, base, out_col, (double *)out_val, ev, s)
                            : sg_numeric<float>(j, n, base, out_col, (float *)out_val, ev, s);
}

/* Every kernel of this file for one value type. */
template <typename V>
static cudaError_t sg_preload_type(void)
{
    cudaFuncAttributes a;
    cudaError_t e = sg_block_smem_limit<V>();
    const void *k[] = {
        (const void *)sg_sym_esc<V>,     (const void *)sg_sym_warp<V>,     (const void *)sg_sym_block<V>,
        (const void *)sg_sym_dense<V>,   (const void *)sg_num_esc<V>,      (const void *)sg_num_copy<V, 4>,
        (const void *)sg_num_copy<V, 8>, (const void *)sg_num_copy<V, 16>, (const void *)sg_num_copy<V, 32>,
        (const void *)sg_num_warp<V>,    (const void *)sg_num_block<V>,    (const void *)sg_num_dense<V>};
    for (size_t q = 0; e == cudaSuccess && q < sizeof k / sizeof *k; q++)
        e = cudaFuncGetAttributes(&a, k[q]);
    return e;
}

cudaError_t sg_preload_bins(void)
{
    cudaFuncAttributes a;
    const void *k[] = {(const void *)sg_products_kernel<4>, (const void *)sg_products_kernel<32>,
                       (const void *)sg_classify_kernel, (const void *)sg_scatter_kernel};
    cudaError_t e = cudaSuccess;
    for (size_t q = 0; e == cudaSuccess && q < sizeof k / sizeof *k; q++)
        e = cudaFuncGetAttributes(&a, k[q]);
    if (e == cudaSuccess)
        e = sg_preload_type<double>();
    if (e == cudaSuccess)
        e = sg_preload_type<float>();
    return e;
}
