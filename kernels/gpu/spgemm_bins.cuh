/* spgemm_bins.cuh - between the row-wise GPU SpGEMM's driver (spgemm_device.cu) and its
 * kernels (spgemm_bins.cu): the device arrays of one product and the launchers.
 *
 * Rows are binned by their product count p (and the span of columns their rows of B reach):
 *   symbolic pass (nnz of each row of C)        numeric pass (the row itself, sorted)
 *   p = 0 or one entry in A's row: no kernel    one entry in A's row: a scaled row of B (copy)
 *   p <= 32: warp ESC (esc)                      p <= 32: warp ESC (esc)
 *   min(p, span) <= 256: warp hash, 512 slots    nnz <= 128: warp hash, 256 slots, rank sort
 *   min(p, span) <= 4096: block hash, 8192       nnz <= 2048: block hash, 4096 slots, rank sort
 *   else: dense bitmap over the span (global)   else: dense sums + bitmap over the span (global)
 * ESC: the row's products are gathered into the lanes of a warp, equal columns found by
 * __match_any_sync and summed in product order, ranked by column. Hash: shared-memory open
 * addressing; the numeric warp hash places each entry by its rank, the numeric block hash
 * keeps its sums in device memory (hsum) and sorts the compacted entries (bitonic). Dense:
 * one block per row over a block-private slice of a global scratch, walked in column order. */
#ifndef RVS_SPGEMM_BINS_CUH
#define RVS_SPGEMM_BINS_CUH

#include <cuda_runtime.h>
#include "rvs_csr.h"

enum { SG_ESC, SG_WARP, SG_BLOCK, SG_DENSE, SG_COPY, SG_BINS };
#define SG_NONE 255
#define SG_ESC_MAX 32          /* products a warp ESC takes */
#define SG_SYM_WARP_MAX 256    /* symbolic bound of the warp hash (table 512) */
#define SG_SYM_BLOCK_MAX 4096  /* symbolic bound of the block hash (table 8192) */
#define SG_NUM_WARP_MAX 128    /* numeric nnz of the warp hash (table 256) */
#define SG_NUM_BLOCK_MAX 2048  /* numeric nnz of the block hash (table 4096) */
#define SG_NUM_BLOCK_T 4096    /* slots of the numeric block hash */
#define SG_HSUM_PER_SM 4       /* numeric block-hash blocks per multiprocessor (slices of hsum) */

/* One product on the device. Every pointer is device memory. */
typedef struct {
    int64_t m, cols;                       /* rows of A, columns of B */
    rvs_vtype vt;
    const int64_t *arp, *brp;
    const int32_t *acol, *bcol;
    const void *aval, *bval;
    int64_t *prod;                         /* products per row */
    int32_t *lo, *hi;                      /* columns of B the row reaches: lo..hi */
    int64_t *cnt;                          /* nnz of each row of C (symbolic pass) */
    int64_t *crow;                         /* C's row offsets, m + 1 */
    const uint8_t *cpu;                    /* rows the host computes (NULL: none) */
    uint8_t *bin;                          /* bin of each row in the current pass */
    int64_t *list;                         /* rows grouped by bin */
    unsigned long long *bins;              /* [0, SG_BINS): rows per bin, [SG_BINS, 2 SG_BINS):
                                              fill counters, [2 SG_BINS, 3 SG_BINS): numeric
                                              rows per bin summed over blocks */
    void *dense;                           /* dense_blocks slices of dense_stride bytes, zero
                                              (and left zero by the kernels) */
    size_t dense_stride;
    int dense_blocks;                      /* 0: the dense kernels are not launched */
    void *hsum;                            /* hsum_blocks slices of SG_NUM_BLOCK_T sums for the
                                              numeric block hash, zero (and left zero) */
    int hsum_blocks;
    int sms;                               /* multiprocessors */
} sg_job;

/* Bytes of one dense slice for B with cols columns: bitmap, then the sums. */
size_t sg_dense_stride(int64_t cols, rvs_vtype vt);

/* prod, lo, hi of every row. */
cudaError_t sg_launch_products(const sg_job *j, cudaStream_t s);

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

/* The numeric kernels of a block of rows (after sg_launch_bins(j, 1, r0, r1); rows flagged in
 * cpu are skipped): the entries of row i go to out_col / out_val from offset crow[i] - base,
 * sorted; base = crow[r0]. n[b] as above. ev (NULL, or 6 events) as above. */
cudaError_t sg_launch_numeric(const sg_job *j, const int64_t *n, int64_t base, int32_t *out_col,
                              void *out_val, cudaEvent_t *ev, cudaStream_t s);

#endif
