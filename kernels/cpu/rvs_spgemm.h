/* rvs_spgemm.h - C = A*B kernels: CPU (OpenMP), GPU row-wise (binned ESC / hash / dense) and GPU
 * hySpMM (Wu, "Optimizing Sparse Matrix-Matrix Multiplication on a Heterogeneous CPU-GPU Platform",
 * thesis, Georgia State University, 2015); the CSparse check and the baselines (CSparse, GraphBLAS,
 * cuSPARSE). The drivers that combine them (GPU with CPU fallback, hybrid, the automatic choice)
 * are in the engine (engine/rvs_engine_spgemm.h). */
#ifndef RVS_SPGEMM_H
#define RVS_SPGEMM_H

#include "rvs_csr.h"
#include "rvs_spgemm_pre.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every kernel: A and B share one vtype (the result has it too), A->cols == B->rows
 * (RVS_ERR_DIM otherwise), B has 32-bit columns. C's rows are sorted, duplicates merged,
 * every structural product kept (numerical zeros included, as CSparse does). C must not
 * hold arrays. */

/* Steps of the row-wise GPU method timed with rvs_spgemm_options.trace (the device waited
 * for after each, so they add up to the whole): set-up, upload of A and B, products and
 * binning, the symbolic kernels (ESC, warp hash, block hash, dense), scan and row offsets
 * back (one pass: also the compaction), rows for the host, C's allocation, the numeric
 * binning (one pass: the scratch) and kernels (one entry, ESC, warp hash, block hash and the
 * one pass's shared-memory bins, dense) summed over blocks, copies back and hand-over to C
 * or the sink summed over blocks, clean-up. */
#define RVS_SPGEMM_TRACE 19
#define RVS_SPGEMM_TRACE_NAMES                                                                           \
    "setup", "upload", "products_bins", "sym_esc", "sym_warp", "sym_block", "sym_dense", "scan_rowptr",  \
        "host_rows", "alloc_c", "num_bins", "num_copy", "num_esc", "num_warp", "num_block", "num_dense", \
        "copy_back", "deliver", "finish"

/* What one SpGEMM did. Times in seconds. The stages are disjoint stretches of wall clock that
 * add up to t_total: every method ends each stage where the next begins. */
typedef struct {
    int64_t products; /* multiplications a_ik * b_kj: flops = 2 * products */
    int64_t nnz_c;
    double t_setup;    /* GPU: starting the device (CUDA context, streams, loading the
                               kernels) and growing what is kept between calls (pinned staging,
                               scratch); 0 on the CPU */
    double t_pre;      /* counting products, binning, the symbolic pass (CPU, two-pass
                               GPU), the choice of device; hySpMM: repeat_A and duplicated B */
    double t_transfer; /* GPU: A and B packed and uploaded; one pass: C copied back and
                               handed to its arrays or the file too */
    double t_multiply; /* the numeric pass: CPU rows written sorted into C; GPU one pass:
                               every row into the scratch, C's row offsets, the compaction;
                               GPU blocks: computing, copying back and handing over, overlapped;
                               hySpMM: waiting for the device's blocks; hybrid: both halves */
    double t_compress; /* allocating C (CPU: after the prefix sum of row counts; GPU: rows
                               left to the host, planning); hySpMM: appending blocks to C;
                               hybrid: merging the halves */
    double t_total;    /* wall clock, host CSR in to host CSR out */
    double t_kernel;   /* GPU: device compute alone, A and B on the device to C on the
                               device (not a stage: it runs inside the stages) */
    int64_t blocks;    /* GPU row blocks of the numeric pass (1: one pass) */
    int64_t cpu_rows;  /* rows computed on the CPU (hybrid split, or too big for a block) */
    int64_t gpu_rows;
    int64_t rows_esc, rows_dense, rows_hash; /* accumulator chosen per row */
    size_t gpu_budget_bytes;                 /* budget per pipeline slot (Eq. 5) */
    size_t gpu_peak_bytes;                   /* device memory this call allocated at its peak */
    double t_trace[RVS_SPGEMM_TRACE];        /* row-wise GPU with o->trace: seconds of each step,
                                         named by RVS_SPGEMM_TRACE_NAMES */
} rvs_spgemm_stats;

/* Sum of the stages of s (equal to t_total within rounding). */
double rvs_spgemm_stage_sum(const rvs_spgemm_stats *s);

/* GPU methods. */
enum { RVS_SPGEMM_ROWWISE = 0, RVS_SPGEMM_HYSPMM = 1 };

/* Knobs; zero means default. */
typedef struct {
    int method;                 /* RVS_SPGEMM_ROWWISE (default) or RVS_SPGEMM_HYSPMM */
    size_t gpu_mem_bytes;       /* row-wise: device memory for the blocks of C and the dense
                               scratch (0: 90% of what A, B and the per-row arrays leave free);
                               hySpMM: the memory M of Eq. 3 (0: free device memory) */
    int trace;                  /* row-wise: time each step into stats->t_trace (slower: the
                               steps no longer overlap) */
    int passes;                 /* row-wise: 1 one pass wherever its scratch fits the budget, 2
                               always a symbolic pass and blocks (0: one pass up to 8 GiB of
                               scratch) */
    int poison;                 /* row-wise, for tests: fill C's buffers (device and host) with
                               column -1 and NaN before they are written */
    int kernel_only;            /* row-wise, for benchmarks: every block of C is computed and none
                               copied back; C gets its row offsets only (no entry arrays) and
                               stats->t_kernel is the wall time from A and B on the device to
                               the last block done */
    int slots;                  /* pipeline depth: blocks in flight (0: 3) */
    int64_t max_block_products; /* cap on products per GPU block (0: 2^25) */
    double hybrid_cpu_share;    /* most products the hybrid split gives the CPU (0: 0.1) */
    double hybrid_long_factor;  /* a row is long when products > factor * mean (0: 8) */
} rvs_spgemm_options;

/* A real C = A*B of some method (CPU, GPU, hybrid) with its settings in ctx; stats may be NULL
 * and is set (not added to). */
typedef rvs_status (*rvs_spgemm_real_fn)(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, void *ctx,
                                         rvs_spgemm_stats *stats, rvs_error *err);

/* C = A*B for complex A and B (c64 or c128, both the same) through one real product by fn of
 * the stacked parts [Ar; Ai] * [Br Bi] (spgemm_complex.c), merged into C. stats: products and
 * nnz_c of the complex product; times of the real product plus the stacking (t_pre) and the
 * merge (t_compress); t_total from start to end. */
rvs_status rvs_spgemm_complex(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_real_fn fn, void *ctx,
                              rvs_spgemm_stats *stats, rvs_error *err);

/* C = A*B on the CPU, OpenMP over rows (complex values through rvs_spgemm_complex). stats may
 * be NULL. */
rvs_status rvs_spgemm_cpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *stats, rvs_error *err);

/* C = A(rows,:)*B on the CPU: C has nrows rows, row j is row rows[j] of A*B. rows NULL means
 * all rows of A in order (nrows ignored). stats may be NULL (its counters are added to). */
rvs_status rvs_spgemm_cpu_rows(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const int64_t *rows, int64_t nrows,
                               rvs_spgemm_stats *stats, rvs_error *err);

/* Computes rows rows[0..nrows) of A*B into C (the signature of rvs_spgemm_cpu_rows). */
typedef rvs_status (*rvs_spgemm_rows_fn)(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const int64_t *rows,
                                         int64_t nrows, rvs_spgemm_stats *stats, rvs_error *err);

/* The device pipeline behind rvs_spgemm_gpu (kernels/gpu/spgemm_gpu.cu): rows too big for
 * one block are handed to fallback (rvs_spgemm_gpu passes rvs_spgemm_cpu_rows). */
rvs_status rvs_spgemm_gpu_pipeline(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                                   rvs_spgemm_rows_fn fallback, rvs_spgemm_stats *stats, rvs_error *err);

/* Where the row-wise GPU SpGEMM delivers C block by block instead of filling C's arrays,
 * so that C need not fit in host memory. */
typedef struct rvs_spgemm_sink {
    /* Once C's row offsets are known: C has rows, cols, nnz, vtype and its final rowptr;
     * colind and values are NULL. */
    rvs_status (*begin)(struct rvs_spgemm_sink *s, const rvs_csr *C, rvs_error *err);
    /* Then, in row order, the entries of rows [r0, r1): C->rowptr[r1] - C->rowptr[r0]
     * columns and values (C's vtype), rows sorted. */
    rvs_status (*rows)(struct rvs_spgemm_sink *s, const rvs_csr *C, int64_t r0, int64_t r1, const int32_t *col,
                       const void *val, rvs_error *err);
    void *ctx;
} rvs_spgemm_sink;

/* C = A*B on the GPU, row-wise (kernels/gpu/spgemm_device.cu): A and B uploaded once, product
 * counts and bins on the device, a symbolic pass sizing C exactly, then the numeric pass in
 * blocks of rows sized to the work and to o->gpu_mem_bytes, each block copied back while the
 * next one runs. Rows the device cannot hold go to fallback (computed on the host). With a
 * sink, C gets its shape and rowptr only and the entries go to the sink. A must have 32-bit
 * columns (RVS_ERR_UNSUPPORTED). RVS_ERR_NODEV without a GPU, RVS_ERR_NOMEM when A, B and
 * the per-row arrays do not fit on the device. o, sink and stats may be NULL. */
rvs_status rvs_spgemm_gpu_rowwise(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                                  rvs_spgemm_sink *sink, rvs_spgemm_rows_fn fallback, rvs_spgemm_stats *stats,
                                  rvs_error *err);

/* Give back what the row-wise GPU SpGEMM keeps between calls (pinned staging, cached device
 * memory, streams), after the start-up if one is under way. Optional: at exit the driver
 * frees it anyway. */
void rvs_spgemm_gpu_release(void);

/* Start the device on a thread of its own (CUDA context, streams, the SpGEMM kernels loaded),
 * so that it overlaps whatever the caller does next (reading the operands); the first GPU
 * SpGEMM waits for it and counts the wait as t_setup. Does nothing when started already or
 * without a GPU. */
void rvs_spgemm_gpu_start(void);

/* Seconds the device start-up still needs by the estimate expected_s of a whole one: 0 once
 * the device is ready, expected_s when it was never started. */
double rvs_spgemm_gpu_start_left(double expected_s);

/* Wait for a start-up under way (rvs_spgemm_gpu_start); the seconds it took, 0 when none ran. */
double rvs_spgemm_gpu_start_wait(void);

/* 1 when a GPU is there or presumed so (a start-up under way that has not yet said
 * otherwise), without waiting for the start-up. */
int rvs_spgemm_gpu_present(void);

/* Check C against A*B made row by row in double (double complex) precision, a k-way merge of the
 * rows of B that each row of A names, never whole: same pattern (rows, columns, entries; the
 * pattern is structural, as CSparse's cs_dl_multiply gives it), and
 * |c_ij - ref_ij| <= tol * (sum_k |a_ik b_kj| + m / tol) for every entry, m the
 * smallest normal number of C's type (FLT_MIN, DBL_MIN: subnormal results are not judged by
 * relative error). *max_err receives the largest |c_ij - ref_ij| / (that sum + m / tol). tol: 1e-10 for f64, 1e-4 for f32 (spgemm.1).
 * An entry whose products are finite but whose sum_k |a_ik b_kj| overflows a double fails (no
 * tolerance bounds it). RVS_ERR_CHECK with the first offending entry named. */
rvs_status rvs_spgemm_check(const rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double tol, double *max_err,
                            rvs_error *err);

/* Default tolerance of rvs_spgemm_check for a vtype. */
double rvs_spgemm_tolerance(rvs_vtype vt);

/* Baseline: C = A*B with CSparse cs_dl_multiply (f64 result, rows sorted by two
 * transposes). *seconds (may be NULL) gets the multiply time alone. */
rvs_status rvs_spgemm_csparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds, rvs_error *err);

/* Baseline: C = A*B with SuiteSparse:GraphBLAS GrB_mxm (PLUS_TIMES over A's vtype) on the
 * current OpenMP thread count. *seconds gets GrB_mxm plus GrB_wait. C may be NULL (timing
 * only). RVS_ERR_UNSUPPORTED when built without GraphBLAS. */
rvs_status rvs_spgemm_graphblas(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds, rvs_error *err);

/* Baseline: cuSPARSE SpGEMM (ALG1; ALG3 when ALG1 runs out of resources), one handle for the
 * call. warm != 0: one untimed run, then `runs` timed runs and the medians; warm == 0: a single
 * timed run (inputs too large to repeat). *kernel_s: A and B on the device to C on the device
 * (buffers from the pool, work estimation, compute, copy); *total_s: host CSR to host CSR
 * (uploads, the above, C copied back, frees). *alg: the algorithm used (1 or 3; 0 when both
 * failed). *peak_bytes (may be NULL): the most device memory its arrays and buffers held
 * (workspace inside the handle not counted). C (may be NULL) gets the product. A*A with B == A
 * uploads A once. RVS_ERR_NODEV without a GPU. */
rvs_status rvs_spgemm_cusparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, int runs, int warm, double *kernel_s,
                               double *total_s, int *alg, size_t *peak_bytes, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
