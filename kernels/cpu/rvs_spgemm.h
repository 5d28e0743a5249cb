/* rvs_spgemm.h - C = A*B: CPU (OpenMP), GPU (hySpMM of hybrid-spgemm.txt, CUDA), hybrid;
 * the CSparse check and the baselines (CSparse, GraphBLAS, cuSPARSE) */
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

/* What one SpGEMM did. Times in seconds. GPU stage times are summed over blocks (stages of
 * different blocks overlap, so they can add up to more than t_total). */
typedef struct {
    int64_t products;       /* multiplications a_ik * b_kj: flops = 2 * products */
    int64_t nnz_c;
    double t_pre;           /* counting products and pre-processing: GPU repeat_A and duplicated B; CPU the symbolic (counting) pass */
    double t_transfer;      /* host <-> device copies */
    double t_multiply;      /* element-wise multiplication (CPU: the numeric pass, rows written sorted into C) */
    double t_sort;          /* per-row (partial) sort */
    double t_compress;      /* GPU: merging duplicates; CPU: prefix sum of row counts and allocating C */
    double t_total;         /* wall clock, host CSR in to host CSR out */
    int64_t blocks;         /* GPU row blocks */
    int64_t cpu_rows;       /* rows computed on the CPU (hybrid split, or too big for a block) */
    int64_t gpu_rows;
    int64_t rows_esc, rows_dense, rows_hash; /* CPU accumulator chosen per row */
    size_t gpu_budget_bytes; /* budget per pipeline slot (Eq. 5) */
    size_t gpu_peak_bytes;   /* device memory this call allocated at its peak */
} rvs_spgemm_stats;

/* Knobs; zero means default. */
typedef struct {
    size_t gpu_mem_bytes;   /* GPU memory M of Eq. 3 (0: free device memory) */
    int slots;              /* pipeline depth: blocks in flight (0: 3) */
    int64_t max_block_products; /* cap on products per GPU block (0: 2^25) */
    double hybrid_cpu_share;    /* most products the hybrid split gives the CPU (0: 0.1) */
    double hybrid_long_factor;  /* a row is long when products > factor * mean (0: 8) */
} rvs_spgemm_options;

/* C = A*B on the CPU, OpenMP over rows. stats may be NULL. */
rvs_status rvs_spgemm_cpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                          rvs_spgemm_stats *stats, rvs_error *err);

/* C = A(rows,:)*B on the CPU: C has nrows rows, row j is row rows[j] of A*B. rows NULL means
 * all rows of A in order (nrows ignored). stats may be NULL (its counters are added to). */
rvs_status rvs_spgemm_cpu_rows(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                               const int64_t *rows, int64_t nrows, rvs_spgemm_stats *stats,
                               rvs_error *err);

/* C = A*B on the GPU, hySpMM: CPU pre-processing into pinned buffers, transfer, element-wise
 * multiplication, per-row sort, compression, in row blocks sized from the memory budget and
 * pipelined over CUDA streams. Rows too big for one block are computed on the CPU.
 * RVS_ERR_NODEV without a GPU. o and stats may be NULL. */
rvs_status rvs_spgemm_gpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                          const rvs_spgemm_options *o, rvs_spgemm_stats *stats, rvs_error *err);

/* Computes rows rows[0..nrows) of A*B into C (the signature of rvs_spgemm_cpu_rows). */
typedef rvs_status (*rvs_spgemm_rows_fn)(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                         const int64_t *rows, int64_t nrows,
                                         rvs_spgemm_stats *stats, rvs_error *err);

/* The device pipeline behind rvs_spgemm_gpu (kernels/gpu/spgemm_gpu.cu): rows too big for
 * one block are handed to fallback (rvs_spgemm_gpu passes rvs_spgemm_cpu_rows). */
rvs_status rvs_spgemm_gpu_pipeline(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                   const rvs_spgemm_options *o, rvs_spgemm_rows_fn fallback,
                                   rvs_spgemm_stats *stats, rvs_error *err);

/* C = A*B with long rows on the CPU and the rest on the GPU at the same time. Split rule:
 * rows whose products exceed hybrid_long_factor times the mean products of non-empty rows
 * (and at least 1024) go to the CPU, longest first, while the CPU's share of all products
 * stays within hybrid_cpu_share. */
rvs_status rvs_spgemm_hybrid(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                             const rvs_spgemm_options *o, rvs_spgemm_stats *stats,
                             rvs_error *err);

/* Rows the hybrid split gives the CPU: *rows malloc'd (ascending), *nrows set. */
rvs_status rvs_spgemm_hybrid_split(const rvs_csr *A, const int64_t *prodptr,
                                   const rvs_spgemm_options *o, int64_t **rows,
                                   int64_t *nrows, rvs_error *err);

/* Check C against CSparse's cs_dl_multiply in double precision: same pattern (rows, columns,
 * entries), and |c_ij - ref_ij| <= tol * (sum_k |a_ik b_kj| + m / tol) for every entry, m the
 * smallest normal number of C's type (FLT_MIN, DBL_MIN: subnormal results are not judged by
 * relative error). *max_err receives the largest |c_ij - ref_ij| / (that sum + m / tol). tol: 1e-10 for f64, 1e-4 for f32 (spgemm.1).
 * RVS_ERR_CHECK with the first offending entry named. */
rvs_status rvs_spgemm_check(const rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double tol,
                            double *max_err, rvs_error *err);

/* Default tolerance of rvs_spgemm_check for a vtype. */
double rvs_spgemm_tolerance(rvs_vtype vt);

/* Baseline: C = A*B with CSparse cs_dl_multiply (f64 result, rows sorted by two
 * transposes). *seconds (may be NULL) gets the multiply time alone. */
rvs_status rvs_spgemm_csparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds,
                              rvs_error *err);

/* Baseline: C = A*B with SuiteSparse:GraphBLAS GrB_mxm (PLUS_TIMES over A's vtype) on the
 * current OpenMP thread count. *seconds gets GrB_mxm plus GrB_wait. C may be NULL (timing
 * only). RVS_ERR_UNSUPPORTED when built without GraphBLAS. */
rvs_status rvs_spgemm_graphblas(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds,
                                rvs_error *err);

/* Baseline: cuSPARSE SpGEMM (ALG1; ALG2 then ALG3 when ALG1 runs out of resources).
 * *kernel_s: work estimation to copy, data on the device; *total_s: host CSR to host CSR
 * (allocations, pageable copies both ways, frees). *alg gets the algorithm used (1..3).
 * C may be NULL. RVS_ERR_NODEV without a GPU. */
rvs_status rvs_spgemm_cusparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *kernel_s,
                               double *total_s, int *alg, size_t *peak_bytes, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
