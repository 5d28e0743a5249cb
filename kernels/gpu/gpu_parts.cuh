/* gpu_parts.cuh - GPU launchers of the parts shared by DIA, HYB and HYB-DIA, and the warp-level
 * segmented sum shared by CSR, COO and the COO tails (private) */
#ifndef RVS_GPU_PARTS_CUH
#define RVS_GPU_PARTS_CUH

#include "gpu_internal.cuh"

/* dy = DIA part of G (offsets, dia_val; ndiag diagonals, leading dimension ld) times dx; every
 * row written through G's row map. rpt: rows per thread (0: 16 bytes of values; or twice that). In
 * dia.cu. */
rvs_status rvs_gpu_dia_part(const rvs_gpu_fmt *G, int64_t ndiag, int64_t ld, const void *dx, void *dy, int block,
                            int rpt, cudaStream_t s, rvs_error *err);
/* dy += COO tail of G (coo_row, coo_col, coo_val; ncoo entries sorted by row) times dx: each
 * warp takes a contiguous run of entries (rvs_seg below); rows wholly inside a run are added
 * with a plain read-modify-write, the first and last row of a run atomically. In hyb.cu. */
rvs_status rvs_gpu_coo_part_add(const rvs_gpu_fmt *G, int64_t ncoo, const void *dx, void *dy, int block,
                                cudaStream_t s, rvs_error *err);
/* dy = COO entries of G (row, col, val; n sorted by row) times dx; G's rows of dy are zeroed
 * first. In hyb.cu. */
rvs_status rvs_gpu_coo_entries(const rvs_gpu_fmt *G, int64_t n, const int32_t *ri, const int32_t *ci,
                               const void *va, const void *dx, void *dy, int block, cudaStream_t s, rvs_error *err);

/* Warp-level segmented sums over a run of entries sorted by row, 32 entries (one per lane) per
 * batch. State, warp-uniform except acc: crow, the row of the last entry seen; carry, its
 * partial sum from earlier batches; acc, per-lane partial sums of crow from batches that lay
 * wholly inside it (live: some lane's acc may be non-zero). A finished row is put into y: with
 * atomicAdd where another warp may add to the same row (shared), else stored (ADD false) or
 * added with a plain read-modify-write (ADD true: y already holds another part of the row). */
namespace rvs_seg
{

template <typename T>
__device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

template <typename T, bool ADD>
__device__ __forceinline__ void put(const rvs_ymap &ym, T *y, int64_t r, T s, bool shared)
{
    if (shared)
        rvs_y_atomic(ym, y, r, s);
    else if (ADD)
        rvs_y_add(ym, y, r, s);
    else
        rvs_y_put(ym, y, r, s);
}

/* A batch with a row boundary (or a new row): lane's row is rbase + rel (rel non-decreasing over
 * the lanes, >= 0), its product v. Rows that end inside the batch are put; the last one is
 * carried. first_row/head_shared: the run's first row, and whether it began in an earlier run. */
template <typename T, bool ADD>
__device__ __forceinline__ void batch(int64_t rbase, int rel, T v, int lane, int64_t &crow, T &carry, T &acc,
                                      bool &live, int64_t first_row, bool head_shared, const rvs_ymap &ym, T *y)
{
    const unsigned full = 0xffffffffu;
    if (live) {
        carry += warp_sum(acc);
        acc = 0;
        live = false;
    }
    int64_t r0 = rbase + __shfl_sync(full, rel, 0);
    if (r0 == crow) {
        if (lane == 0)
            v += carry;
    } else if (lane == 0) {
        put<T, ADD>(ym, y, crow, carry, head_shared && crow == first_row);
    }
    int up = __shfl_up_sync(full, rel, 1);
    unsigned heads = __ballot_sync(full, lane == 0 || up != rel);
    int start = 31 - __clz(heads & (0xffffffffu >> (31 - lane))); /* first lane of my segment */
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T o = __shfl_up_sync(full, v, d);
        if (lane - d >= start)
            v += o;
    }
    int rel31 = __shfl_sync(full, rel, 31);
    bool last = lane == 31 || ((heads >> (lane + 1)) & 1u);
    if (last && rel != rel31)
        put<T, ADD>(ym, y, rbase + rel, v, head_shared && rbase + rel == first_row);
    carry = __shfl_sync(full, v, 31);
    crow = rbase + rel31;
}

/* The end of a run: put crow (tail_shared: the row goes on in the next run). */
template <typename T, bool ADD>
__device__ __forceinline__ void finish(int lane, int64_t crow, T carry, T acc, bool live, int64_t first_row,
                                       bool head_shared, bool tail_shared, const rvs_ymap &ym, T *y)
{
    if (live)
        carry += warp_sum(acc);
    if (lane == 0)
        put<T, ADD>(ym, y, crow, carry, tail_shared || (head_shared && crow == first_row));
}

} /* namespace rvs_seg */

#endif
