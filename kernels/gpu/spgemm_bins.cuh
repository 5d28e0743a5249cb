/* spgemm_bins.cuh - between the row-wise GPU SpGEMM's driver (spgemm_device.cu) and its
 * kernels (spgemm_bins.cu, spgemm_onepass.cu): the device arrays of one product and the
 * launchers.
 *
 * One pass (C fits the device): each row's entries are bounded by b = min(p, span), p its
 * products and span the columns its rows of B reach; rows are binned by p, b and span, each
 * numeric kernel writes its row into a scratch at the exclusive scan of the bounds and
 * counts it, and a compaction copies the rows into C. No symbolic pass:
 *   p = 0: nothing                    one entry in A's row: a scaled row of B (copy)
 *   p <= 32: warp ESC (esc)           b <= 128: warp hash, 256 slots, rank placement (warp)
 *   span <= 2048: dense in shared memory, 128 threads (ds1)
 *   span <= SG_DS2_SPAN and span <= 4 p: dense in shared memory, 256 threads (ds2)
 *   b <= 512, 2048, 4096: hash in shared memory of 1024, 4096, 8192 slots, 128, 256, 512
 *   threads, bitonic sort (h1, h2, h3)
 *   else: dense bitmap and sums over the span in a slice of global scratch (dense)
 * Two passes (the bounds do not fit): a symbolic pass sizes C exactly, then blocks of rows:
 *   symbolic pass (nnz of each row of C)        numeric pass (the row itself, sorted)
 *   p = 0 or one entry in A's row: no kernel    one entry in A's row: a scaled row of B (copy)
 *   p <= 32: warp ESC (esc)                      p <= 32: warp ESC (esc)
 *   min(p, span) <= 256: warp hash, 512 slots    nnz <= 128: warp hash, 256 slots, rank sort
 *   min(p, span) <= 4096: block hash, 8192       nnz <= 2048: block hash, 4096 slots, rank sort
 *   else: dense bitmap over the span (global)   else: dense sums + bitmap over the span (global)
 * ESC: the row's products are gathered into the lanes of a warp, equal columns found by
 * __match_any_sync and summed in product order, ranked by column; a warp takes SG_ESC_ROWS
 * rows of the bin at a time, those of at most SG_ESC_LANES products side by side in segments
 * of SG_ESC_LANES lanes (the segment is part of the match), the others one by one over the
 * whole warp: the same sums either way. Copy: 4 to 32 lanes a row, the power of two that covers
 * B's average row. Hash: shared-memory open addressing; the numeric warp hash places each entry
 * by its rank, the block hashes sort the compacted entries (bitonic; the two-pass block hash
 * keeps its sums in device memory, hsum).
 * Dense in shared memory: a sum and a bit per column of the span, walked in column order. */
#ifndef RVS_SPGEMM_BINS_CUH
#define RVS_SPGEMM_BINS_CUH

#include <cuda_runtime.h>
#include "rvs_csr.h"

enum {
    SG_ESC,
    SG_WARP,
    SG_BLOCK,
    SG_DENSE,
    SG_COPY, /* both passes (SG_BLOCK: two only) */
    SG_DS1,
    SG_DS2,
    SG_H1,
    SG_H2,
    SG_H3, /* one pass only */
    SG_BINS
};
/* Words of the bin counters: [0, SG_BINS) rows per bin, [SG_BINS, 2 SG_BINS) fill counters,
 * [2 SG_BINS, 3 SG_BINS) numeric rows per bin summed over blocks, then the product total and
 * (one pass) the total of the bounds. */
#define SG_PRODUCTS (3 * SG_BINS)
#define SG_BOUNDS (3 * SG_BINS + 1)
#define SG_BIN_WORDS (3 * SG_BINS + 2)
#define SG_NONE 255
#define SG_ESC_MAX 32         /* products a warp ESC takes */
#define SG_SYM_WARP_MAX 256   /* symbolic bound of the warp hash (table 512) */
#define SG_SYM_BLOCK_MAX 4096 /* symbolic bound of the block hash (table 8192) */
#define SG_NUM_WARP_MAX 128   /* numeric nnz of the warp hash (table 256) */
#define SG_NUM_BLOCK_MAX 2048 /* numeric nnz of the block hash (table 4096) */
#define SG_NUM_BLOCK_T 4096   /* slots of the numeric block hash */
#define SG_HSUM_PER_SM 4      /* numeric block-hash blocks per multiprocessor (slices of hsum) */
#define SG_DS1_SPAN 2048      /* one pass: span of the small shared dense accumulator */
#define SG_DENSE_RATIO 4      /* one pass: dense over the span when span <= 4 p */
#define SG_H1_MAX 512         /* one pass: bounds of the shared hashes (tables twice as large) */
#define SG_H2_MAX 2048
#define SG_H3_MAX 4096

#define SG_SHORT 8 /* rows of A or C this long on average take 4 lanes, not a warp */

/* Lanes of the ESC for rows of few products: rows of A and B of 1-3 entries give 1-9, most <= 8. */
#define SG_ESC_LANES 8
#define SG_ESC_ROWS (32 / SG_ESC_LANES) /* rows of the ESC bin a warp takes at a time */

/* One pass: span of the large shared dense accumulator (96 KiB of sums for either type). */
static inline int64_t sg_ds2_span(rvs_vtype vt)
{
    return vt == RVS_F64 ? 12288 : 24576;
}

/* One product on the device. Every pointer is device memory. */
typedef struct {
    int64_t m, cols;       /* rows of A, columns of B */
    int64_t b_rows, b_nnz; /* rows and entries of B (the copy kernel's lanes) */
    rvs_vtype vt;
    const int64_t *arp, *brp;
    const int32_t *acol, *bcol;
    const void *aval, *bval;
    int64_t *prod;            /* products per row */
    int32_t *lo, *hi;         /* columns of B the row reaches: lo..hi */
    int64_t *cnt;             /* nnz of each row of C (symbolic pass; one pass:
                                              written by the numeric kernels) */
    int64_t *bnd;             /* one pass: the bound of each row, m + 1 */
    int64_t *boff;            /* one pass: each row's offset in the scratch (scan
                                              of bnd); NULL in the two-pass method */
    int64_t *crow;            /* C's row offsets, m + 1 */
    const uint8_t *cpu;       /* rows the host computes (NULL: none) */
    uint8_t *bin;             /* bin of each row in the current pass */
    int64_t *list;            /* rows grouped by bin */
    unsigned long long *bins; /* SG_BIN_WORDS counters (above) */
    void *dense;              /* dense_blocks slices of dense_stride bytes, zero
                                              (and left zero by the kernels) */
    size_t dense_stride;
    int dense_blocks; /* 0: the dense kernels are not launched */
    void *hsum;       /* hsum_blocks slices of SG_NUM_BLOCK_T sums for the
                                              numeric block hash, zero (and left zero) */
    int hsum_blocks;
    int sms; /* multiprocessors */
} sg_job;

/* Bytes of one dense slice for B with cols columns: bitmap, then the sums. */
size_t sg_dense_stride(int64_t cols, rvs_vtype vt);

/* prod, lo, hi of every row; nnz_a: entries of A (short rows of A take fewer lanes). */
cudaError_t sg_launch_products(const sg_job *j, int64_t nnz_a, cudaStream_t s);

/* Bins of rows [r0, r1) for the symbolic (numeric == 0) or the numeric pass (1; 2: count
 * only, list untouched, nothing added to the totals): bins[0, 2 SG_BINS) zeroed, then
 * counted, and list filled. The symbolic binning sets cnt of the rows that need no kernel
 * (p <= 1, one entry in A's row). */
cudaError_t sg_launch_bins(const sg_job *j, int numeric, int64_t r0, int64_t r1, cudaStream_t s);

/* The symbolic kernels (after sg_launch_bins(j, 0, 0, m)): cnt of every row in a bin (the
 * dense bin only when dense_blocks > 0). n[b]: an upper bound of the rows in bin b (sizes
 * the grid; 0: the kernel is not launched). ev (NULL, or 5 events): recorded before each
 * kernel and after the last, for tracing. */
cudaError_t sg_launch_symbolic(const sg_job *j, const int64_t *n, cudaEvent_t *ev, cudaStream_t s);

/* One pass, before the scan of the bounds: bin counters zeroed, products, span, bound, bin
 * and the counts of every row (cnt of rows that need no kernel), the product total, rows
 * grouped by bin into list. bnd[m] must be zero; nnz_a: entries of A (short rows of A take
 * fewer lanes). */
cudaError_t sg1_launch_front(const sg_job *j, int64_t nnz_a, cudaStream_t s);

/* One pass, after the scan of the bounds into boff: the numeric kernels of every bin (n[b]
 * rows in bin b) write each row into col / val at boff[i] and its length into cnt[i]. ev
 * (NULL, or 7 events) as sg_launch_numeric's, the shared-memory bins timed between ev[5]
 * and ev[6]. */
cudaError_t sg1_launch_numeric(const sg_job *j, const int64_t *n, int32_t *col, void *val, cudaEvent_t *ev,
                               cudaStream_t s);

/* One pass: rows of the scratch (boff, cnt) into C's arrays at crow; bounds: the bounds'
 * total (short rows take fewer lanes). */
cudaError_t sg1_launch_compact(const sg_job *j, int64_t bounds, const int32_t *col, const void *val, int32_t *ccol,
                               void *cval, cudaStream_t s);

/* Load every SpGEMM kernel now (lazy module loading would otherwise load each at its first
 * launch) and raise the shared-memory limits of those that need more than 48 KiB. */
cudaError_t sg_preload(void);
cudaError_t sg_preload_bins(void); /* spgemm_bins.cu's part of it */

/* The numeric kernels of a block of rows (after sg_launch_bins(j, 1, r0, r1); rows flagged in
 * cpu are skipped): the entries of row i go to out_col / out_val from offset crow[i] - base,
 * sorted; base = crow[r0]. n[b] as above. ev (NULL, or 6 events) as above. */
cudaError_t sg_launch_numeric(const sg_job *j, const int64_t *n, int64_t base, int32_t *out_col, void *out_val,
                              cudaEvent_t *ev, cudaStream_t s);

/* Rows [r0, r1) into list, grouped by bin (after their bins and counts are set). */
cudaError_t sg_launch_scatter(const sg_job *j, int64_t r0, int64_t r1, cudaStream_t s);

#ifdef __CUDACC__
/* The rows of one bin in the current pass. */
struct sg_bin {
    const int64_t *rows;
    long long n;
};

__device__ __forceinline__ sg_bin sg_bin_of(const sg_job &j, int b)
{
    long long off = 0;
    for (int q = 0; q < b; q++)
        off += (long long)j.bins[q];
    sg_bin r = {j.list + off, (long long)j.bins[b]};
    return r;
}

/* Where row i's entries go: the scratch at boff[i] (one pass), or C's block at crow[i] - base. */
__device__ __forceinline__ int64_t sg_out_at(const sg_job &j, int64_t i, int64_t base)
{
    return j.boff ? j.boff[i] : j.crow[i] - base;
}

/* Bytes of the bitmap over cols columns (256-aligned). */
static __host__ __device__ __forceinline__ size_t sg_bitmap_bytes(int64_t cols)
{
    return ((size_t)((cols + 31) / 32) * 4 + 255) & ~(size_t)255;
}
#endif

#endif
