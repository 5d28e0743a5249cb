/* spgemm_onepass.cu - the one-pass kernels of the row-wise GPU SpGEMM (spgemm_bins.cuh has the
 * rule): products, span, bound and bin of every row in one kernel, the shared-memory dense and
 * hash accumulators sized to the row, and the compaction of the scratch into C. The other
 * bins (copy, ESC, warp hash, global dense) run spgemm_bins.cu's kernels, told by boff to write
 * into the scratch and count. */
#include <climits>
#include "spgemm_bins.cuh"
#include "spgemm_rows.cuh"

#define SG1_WPB 8      /* warps per block of the front and compaction kernels */
#define SG1_DS1_NT 128 /* threads of the small shared dense accumulator */
#define SG1_DS2_NT 256
#define SG1_H1_NT 128 /* threads of the shared hashes */
#define SG1_H2_NT 256
#define SG1_H3_NT 512

/* Persistent grid: enough blocks for rows at per_block a block, at most per_sm a multiprocessor. */
static unsigned sg1_grid(const sg_job *j, int64_t rows, int per_block, int per_sm)
{
    int64_t g = (rows + per_block - 1) / per_block, cap = (int64_t)j->sms * per_sm;
    if (g > cap)
        g = cap;
    return g < 1 ? 1u : (unsigned)g;
}

/* ---- front: products, span, bound, bin ---------------------------------------------------- */

/* The bin of a row with p products, alen entries in A and columns lo..hi; *bound its most
 * entries; *cnt_known set when no kernel is needed (-1 otherwise). */
__device__ __forceinline__ int sg1_classify(long long p, int64_t alen, int lo, int hi, int64_t ds2,
                                            long long *bound, long long *cnt_known)
{
    *cnt_known = -1;
    if (p == 0) {
        *bound = 0;
        *cnt_known = 0;
        return SG_NONE;
    }
    if (alen == 1) { /* a scaled row of B: exactly p entries */
        *bound = p;
        *cnt_known = p;
        return SG_COPY;
    }
    const long long span = (long long)hi - lo + 1, b = p < span ? p : span;
    *bound = b;
    if (p <= SG_ESC_MAX)
        return SG_ESC;
    if (b <= SG_NUM_WARP_MAX)
        return SG_WARP;
    if (span <= SG_DS1_SPAN)
        return SG_DS1;
    if (span <= ds2 && span <= SG_DENSE_RATIO * p)
        return SG_DS2;
    return b <= SG_H1_MAX ? SG_H1 : b <= SG_H2_MAX ? SG_H2 : b <= SG_H3_MAX ? SG_H3 : SG_DENSE;
}

/* LANES lanes per row (a warp for long rows of A, 4 for short ones), over A's entries: prod,
 * lo, hi, bnd, bin (and cnt where known) of every row; rows per bin and the product total
 * added to bins. */
template <int LANES>
__global__ void __launch_bounds__(256) sg1_front_kernel(sg_job j, int64_t ds2)
{
    __shared__ unsigned per_bin[SG_BINS];
    const int lane = threadIdx.x & (LANES - 1);
    const int per_block = 256 / LANES;
    long long mine = 0;
    if (threadIdx.x < SG_BINS)
        per_bin[threadIdx.x] = 0;
    __syncthreads();
    /* every lane of a warp iterates alike (the shuffles need the whole warp): rows past m idle */
    const int64_t stride = (int64_t)gridDim.x * per_block;
    for (int64_t i0 = (int64_t)blockIdx.x * per_block + threadIdx.x / 32 * (32 / LANES); i0 < j.m; i0 += stride) {
        const int64_t i = i0 + threadIdx.x % 32 / LANES;
        const bool row = i < j.m;
        int lo, hi;
        const int64_t e0 = row ? j.arp[i] : 0, e1 = row ? j.arp[i + 1] : 0;
        const long long p = sg_row_span<LANES>(j.acol, j.brp, j.bcol, e0, e1, &lo, &hi);
        if (row && lane == 0) {
            long long bound, known;
            const int b = sg1_classify(p, e1 - e0, lo, hi, ds2, &bound, &known);
            j.prod[i] = p;
            j.lo[i] = lo;
            j.hi[i] = hi;
            j.bnd[i] = bound;
            j.bin[i] = (uint8_t)b;
            if (known >= 0)
                j.cnt[i] = known;
            if (b != SG_NONE)
                atomicAdd(&per_bin[b], 1u);
            mine += p;
        }
    }
    if (lane == 0 && mine)
        atomicAdd(&j.bins[SG_PRODUCTS], (unsigned long long)mine);
    __syncthreads();
    if (threadIdx.x < SG_BINS && per_bin[threadIdx.x])
        atomicAdd(&j.bins[threadIdx.x], (unsigned long long)per_bin[threadIdx.x]);
}

cudaError_t sg1_launch_front(const sg_job *j, int64_t nnz_a, cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(j->bins, 0, SG_BIN_WORDS * sizeof *j->bins, s);
    if (e != cudaSuccess || j->m == 0)
        return e;
    if (nnz_a <= SG_SHORT * j->m) /* short rows of A: 4 lanes a row, 8 rows a warp */
        sg1_front_kernel<4><<<sg1_grid(j, j->m, 64, 32), 256, 0, s>>>(*j, sg_ds2_span(j->vt));
    else
        sg1_front_kernel<32><<<sg1_grid(j, j->m, SG1_WPB, 32), 256, 0, s>>>(*j, sg_ds2_span(j->vt));
    if ((e = cudaGetLastError()) != cudaSuccess)
        return e;
    return sg_launch_scatter(j, 0, j->m, s);
}

/* ---- dense in shared memory ------------------------------------------------------------------ */

/* Bytes of dynamic shared memory of the dense accumulator over S columns. */
template <typename V, int S, int NT>
static size_t sg1_dense_smem(void)
{
    return sizeof(sg_walk<V, NT>) + (size_t)S * sizeof(V) + (size_t)S / 32 * sizeof(unsigned);
}

/* A block per row whose span fits S: a sum and a bit per column of the span in shared memory,
 * zero between rows (the walk clears what the row set); walking the bits in order gives the
 * row sorted. */
template <typename V, int S, int NT>
__global__ void __launch_bounds__(NT) sg1_dense_kernel(sg_job j, sg_in<V> in, int bin, int32_t *ocol, V *oval)
{
    typedef sg_block<NT> GR;
    extern __shared__ __align__(16) unsigned char sg1_smem[];
    sg_walk<V, NT> &walk = *reinterpret_cast<sg_walk<V, NT> *>(sg1_smem);
    V *acc = reinterpret_cast<V *>(sg1_smem + sizeof(sg_walk<V, NT>));
    unsigned *bm = reinterpret_cast<unsigned *>(acc + S);
    const sg_bin bn = sg_bin_of(j, bin);
    for (int x = threadIdx.x; x < S; x += NT)
        acc[x] = V(0);
    for (int x = threadIdx.x; x < S / 32; x += NT)
        bm[x] = 0;
    __syncthreads();
    for (long long r = blockIdx.x; r < bn.n; r += gridDim.x) {
        const int64_t i = bn.rows[r], o = j.boff[i];
        const int lo = j.lo[i], words = (j.hi[i] - lo + 32) / 32;
        sg_for_products<GR, true>(in, in.arp[i], in.arp[i + 1], walk, [&](long long, int c, V a, V b) {
            const int x = c - lo;
            atomicAdd(&acc[x], a * b);
            atomicOr(&bm[x >> 5], 1u << (x & 31));
        });
        long long done = 0;
        for (int wb = 0; wb < words; wb += NT) {
            const int q = wb + threadIdx.x;
            unsigned bits = 0;
            if (q < words) {
                bits = bm[q];
                bm[q] = 0;
            }
            const int pc = __popc(bits);
            long long tot;
            long long pos = done + GR::scan(pc, &tot, walk.scratch) - pc;
            while (bits) {
                const int x = q * 32 + __ffs(bits) - 1;
                bits &= bits - 1;
                ocol[o + pos] = lo + x;
                oval[o + pos] = acc[x];
                acc[x] = V(0);
                pos++;
            }
            done += tot;
        }
        if (threadIdx.x == 0)
            j.cnt[i] = done;
        __syncthreads(); /* the next row adds only into a cleared accumulator */
    }
}

/* ---- hash in shared memory -------------------------------------------------------------------- */

template <typename V, int LOGT, int NT>
static size_t sg1_hash_smem(void)
{
    return sizeof(sg_walk<V, NT>) + ((size_t)1 << LOGT) * (sizeof(V) + sizeof(int));
}

/* A block per row of at most 2^(LOGT-1) entries: keys and sums in a shared table of 2^LOGT
 * slots, then the entries compacted in slot order, sorted by column (bitonic) and written. */
template <typename V, int LOGT, int NT>
__global__ void __launch_bounds__(NT) sg1_hash_kernel(sg_job j, sg_in<V> in, int bin, int32_t *ocol, V *oval)
{
    typedef sg_block<NT> GR;
    enum { T = 1 << LOGT };
    extern __shared__ __align__(16) unsigned char sg1_smem[];
    sg_walk<V, NT> &walk = *reinterpret_cast<sg_walk<V, NT> *>(sg1_smem);
    V *vals = reinterpret_cast<V *>(sg1_smem + sizeof(sg_walk<V, NT>));
    int *keys = reinterpret_cast<int *>(vals + T);
    const int tid = threadIdx.x;
    const sg_bin bn = sg_bin_of(j, bin);
    for (long long r = blockIdx.x; r < bn.n; r += gridDim.x) {
        const int64_t i = bn.rows[r];
        for (int s = tid; s < T; s += NT) {
            keys[s] = SG_EMPTY;
            vals[s] = V(0);
        }
        __syncthreads();
        sg_for_products<GR, true>(in, in.arp[i], in.arp[i + 1], walk, [&](long long, int c, V a, V b) {
            int fresh = 0;
            atomicAdd(&vals[sg_hash_slot<LOGT>(keys, c, &fresh)], a * b);
        });
        const int n = sg_block_emit<NT, T>(
            keys, vals, walk.scratch, [&](int q) { return vals[q]; }, ocol, oval, j.boff[i]);
        if (tid == 0)
            j.cnt[i] = n;
        __syncthreads();
    }
}

/* ---- launching the one-pass bins ------------------------------------------------------------- */

/* Raise a kernel's dynamic shared-memory limit to bytes (once per kernel). */
template <typename K>
static cudaError_t sg1_smem_limit(K kernel, size_t bytes, int *done)
{
    if (*done)
        return cudaSuccess;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    *done = e == cudaSuccess;
    return e;
}

/* The kernels of one value type, with their shared memory. */
template <typename V>
struct sg1_kernels {
    static cudaError_t limits(void)
    {
        static int d[5];
        cudaError_t e = sg1_smem_limit(sg1_dense_kernel<V, SG_DS1_SPAN, SG1_DS1_NT>,
                                       sg1_dense_smem<V, SG_DS1_SPAN, SG1_DS1_NT>(), &d[0]);
        if (e == cudaSuccess)
            e = sg1_smem_limit(sg1_dense_kernel<V, ds2, SG1_DS2_NT>, sg1_dense_smem<V, ds2, SG1_DS2_NT>(), &d[1]);
        if (e == cudaSuccess)
            e = sg1_smem_limit(sg1_hash_kernel<V, 10, SG1_H1_NT>, sg1_hash_smem<V, 10, SG1_H1_NT>(), &d[2]);
        if (e == cudaSuccess)
            e = sg1_smem_limit(sg1_hash_kernel<V, 12, SG1_H2_NT>, sg1_hash_smem<V, 12, SG1_H2_NT>(), &d[3]);
        if (e == cudaSuccess)
            e = sg1_smem_limit(sg1_hash_kernel<V, 13, SG1_H3_NT>, sg1_hash_smem<V, 13, SG1_H3_NT>(), &d[4]);
        return e;
    }
    static constexpr int ds2 = sizeof(V) == 8 ? 12288 : 24576; /* sg_ds2_span */

    static cudaError_t launch(const sg_job *j, const int64_t *n, int32_t *col, V *val, cudaStream_t s)
    {
        const sg_in<V> in = {j->arp, j->acol, (const V *)j->aval, j->brp, j->bcol, (const V *)j->bval};
        cudaError_t e = limits();
        if (e != cudaSuccess)
            return e;
        if (n[SG_DS1])
            sg1_dense_kernel<V, SG_DS1_SPAN, SG1_DS1_NT>
                <<<sg1_grid(j, n[SG_DS1], 1, 8), SG1_DS1_NT, sg1_dense_smem<V, SG_DS1_SPAN, SG1_DS1_NT>(), s>>>(
                    *j, in, SG_DS1, col, val);
        if (n[SG_DS2])
            sg1_dense_kernel<V, ds2, SG1_DS2_NT>
                <<<sg1_grid(j, n[SG_DS2], 1, 2), SG1_DS2_NT, sg1_dense_smem<V, ds2, SG1_DS2_NT>(), s>>>(
                    *j, in, SG_DS2, col, val);
        if (n[SG_H1])
            sg1_hash_kernel<V, 10, SG1_H1_NT>
                <<<sg1_grid(j, n[SG_H1], 1, 8), SG1_H1_NT, sg1_hash_smem<V, 10, SG1_H1_NT>(), s>>>(*j, in, SG_H1,
                                                                                                   col, val);
        if (n[SG_H2])
            sg1_hash_kernel<V, 12, SG1_H2_NT>
                <<<sg1_grid(j, n[SG_H2], 1, 4), SG1_H2_NT, sg1_hash_smem<V, 12, SG1_H2_NT>(), s>>>(*j, in, SG_H2,
                                                                                                   col, val);
        if (n[SG_H3])
            sg1_hash_kernel<V, 13, SG1_H3_NT>
                <<<sg1_grid(j, n[SG_H3], 1, 2), SG1_H3_NT, sg1_hash_smem<V, 13, SG1_H3_NT>(), s>>>(*j, in, SG_H3,
                                                                                                   col, val);
        return cudaGetLastError();
    }
};

cudaError_t sg1_launch_numeric(const sg_job *j, const int64_t *n, int32_t *col, void *val, cudaEvent_t *ev,
                               cudaStream_t s)
{
    int64_t rest[SG_BINS];
    cudaError_t e;
    for (int b = 0; b < SG_BINS; b++)
        rest[b] = b == SG_BLOCK ? 0 : n[b];
    if ((e = sg_launch_numeric(j, rest, 0, col, val, ev, s)) != cudaSuccess)
        return e;
    e = j->vt == RVS_F64 ? sg1_kernels<double>::launch(j, n, col, (double *)val, s)
                         : sg1_kernels<float>::launch(j, n, col, (float *)val, s);
    if (ev && e == cudaSuccess)
        e = cudaEventRecord(ev[6], s);
    return e;
}

/* ---- compaction ------------------------------------------------------------------------------ */

/* LANES lanes per row (a warp for long rows of C, 4 for short ones): the row's cnt entries from
 * the scratch at boff to C at crow. */
template <typename V, int LANES>
__global__ void __launch_bounds__(256)
    sg1_compact_kernel(sg_job j, const int32_t *__restrict__ col, const V *__restrict__ val, int32_t *ccol, V *cval)
{
    const int lane = threadIdx.x & (LANES - 1);
    const int per_block = 256 / LANES;
    const int64_t stride = (int64_t)gridDim.x * per_block;
    for (int64_t i = (int64_t)blockIdx.x * per_block + threadIdx.x / LANES; i < j.m; i += stride) {
        const int64_t n = j.cnt[i], src = j.boff[i], dst = j.crow[i];
        for (int64_t t = lane; t < n; t += LANES) {
            ccol[dst + t] = col[src + t];
            cval[dst + t] = val[src + t];
        }
    }
}

template <typename V>
static void sg1_compact(const sg_job *j, int64_t bounds, const int32_t *col, const V *val, int32_t *ccol, V *cval,
                        cudaStream_t s)
{
    if (bounds <= SG_SHORT * j->m)
        sg1_compact_kernel<V, 4><<<sg1_grid(j, j->m, 64, 16), 256, 0, s>>>(*j, col, val, ccol, cval);
    else
        sg1_compact_kernel<V, 32><<<sg1_grid(j, j->m, SG1_WPB, 16), 256, 0, s>>>(*j, col, val, ccol, cval);
}

cudaError_t sg1_launch_compact(const sg_job *j, int64_t bounds, const int32_t *col, const void *val, int32_t *ccol,
                               void *cval, cudaStream_t s)
{
    if (j->m == 0)
        return cudaSuccess;
    if (j->vt == RVS_F64)
        sg1_compact<double>(j, bounds, col, (const double *)val, ccol, (double *)cval, s);
    else
        sg1_compact<float>(j, bounds, col, (const float *)val, ccol, (float *)cval, s);
    return cudaGetLastError();
}

/* ---- loading ---------------------------------------------------------------------------------- */

/* Every kernel of this file for one value type. */
template <typename V>
static cudaError_t sg1_preload_type(void)
{
    cudaFuncAttributes a;
    cudaError_t e = sg1_kernels<V>::limits();
    const void *k[] = {(const void *)sg1_compact_kernel<V, 4>,
                       (const void *)sg1_compact_kernel<V, 32>,
                       (const void *)sg1_dense_kernel<V, SG_DS1_SPAN, SG1_DS1_NT>,
                       (const void *)sg1_dense_kernel<V, sg1_kernels<V>::ds2, SG1_DS2_NT>,
                       (const void *)sg1_hash_kernel<V, 10, SG1_H1_NT>,
                       (const void *)sg1_hash_kernel<V, 12, SG1_H2_NT>,
                       (const void *)sg1_hash_kernel<V, 13, SG1_H3_NT>};
    for (size_t q = 0; e == cudaSuccess && q < sizeof k / sizeof *k; q++)
        e = cudaFuncGetAttributes(&a, k[q]);
    return e;
}

cudaError_t sg_preload(void)
{
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, (const void *)sg1_front_kernel<4>);
    if (e == cudaSuccess)
        e = cudaFuncGetAttributes(&a, (const void *)sg1_front_kernel<32>);
    if (e == cudaSuccess)
        e = sg1_preload_type<double>();
    if (e == cudaSuccess)
        e = sg1_preload_type<float>();
    if (e == cudaSuccess)
        e = sg_preload_bins();
    return e;
}
