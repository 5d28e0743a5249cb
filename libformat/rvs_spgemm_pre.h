/* rvs_spgemm_pre.h - SpGEMM planning shared by the CPU and GPU kernels: exact product counts, the
 * hySpMM pre-processing (repeat_A and the duplicated B of Fig. 3.1 of Wu, "Optimizing Sparse
 * Matrix-Matrix Multiplication on a Heterogeneous CPU-GPU Platform", thesis, Georgia State
 * University, 2015) and row blocks sized from a memory budget (Eq. 3-5 with exact counts), blocks
 * of C's rows, and the allocation of C's entries */
#ifndef RVS_SPGEMM_PRE_H
#define RVS_SPGEMM_PRE_H

#include "rvs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Argument checks every SpGEMM kernel makes: A and B share a vtype (RVS_ERR_ARG),
 * A->cols == B->rows (RVS_ERR_DIM: "dimension mismatch: A is 5 x 7, B is 6 x 3"), B has
 * 32-bit columns (RVS_ERR_UNSUPPORTED). */
rvs_status rvs_spgemm_check_args(const rvs_csr *A, const rvs_csr *B, rvs_error *err);

/* prodptr[i+1] - prodptr[i] = number of products a_ik * b_kj of row i of C = A*B, that is
 * sum over the entries (i,k) of A of nnz(B row k); prodptr has A->rows + 1 entries,
 * prodptr[0] = 0, and prodptr[A->rows] is the exact expansion size. Computed from B's row
 * lengths alone, before any multiplication. RVS_ERR_DIM when A->cols != B->rows,
 * RVS_ERR_OVERFLOW when the total does not fit int64. Parallel (OpenMP). */
rvs_status rvs_spgemm_row_products(int64_t *prodptr, const rvs_csr *A, const rvs_csr *B, rvs_error *err);

/* Pre-process rows [r0, r1) of A for C = A*B (Alg. 2): for each entry e of these rows, in CSR
 * order, repeat[e - rowptr[r0]] = nnz(B row col(e)), and that row of B is copied to
 * dup_col / dup_val (B's vtype) at the entry's running offset, so that product k of the block
 * is a(owner(k)) * dup_val[k] with column dup_col[k]. repeat holds rowptr[r1] - rowptr[r0]
 * entries; dup_* hold prodptr[r1] - prodptr[r0]. B must use 32-bit columns. Parallel. */
void rvs_spgemm_expand(const rvs_csr *A, const rvs_csr *B, const int64_t *prodptr, int64_t r0, int64_t r1,
                       int32_t *repeat, int32_t *dup_col, void *dup_val);

/* A block of consecutive rows [r0, r1). too_big: one row whose products alone exceed the
 * budget (the GPU driver computes it on the CPU). */
typedef struct {
    int64_t r0, r1;
    int64_t entries;  /* nnz of A in the block */
    int64_t products; /* exact products of the block */
    int too_big;
} rvs_spgemm_block;

/* Device bytes a block costs: bytes_per_entry * entries + bytes_per_product * products +
 * bytes_per_row * (rows + 1) (the left side of Eq. 3 with exact counts). */
typedef struct {
    size_t bytes_per_entry, bytes_per_product, bytes_per_row;
    size_t budget_bytes;  /* what one block may use (Eq. 5: 0.9 M / slots, minus scratch) */
    int64_t max_products; /* cap on products per block (0: none) */
} rvs_spgemm_budget;

/* Split the rows of A into blocks, greedily from row 0, each as large as the budget allows
 * (empty rows ride along). *blocks is malloc'd, *nblocks set. RVS_ERR_ARG for a budget that
 * cannot hold even an empty row. */
rvs_status rvs_spgemm_plan(const rvs_csr *A, const int64_t *prodptr, const rvs_spgemm_budget *b,
                           rvs_spgemm_block **blocks, int64_t *nblocks, rvs_error *err);

/* Split rows [0, rows) into blocks of consecutive rows with at most cap entries of C each
 * (crowptr: C's row offsets); blk.entries is the block's entries of C. A row with more than
 * cap entries is a block of its own with too_big set. *blocks malloc'd. RVS_ERR_ARG when
 * cap < 1. */
rvs_status rvs_spgemm_plan_c(const int64_t *crowptr, int64_t rows, int64_t cap, rvs_spgemm_block **blocks,
                             int64_t *nblocks, rvs_error *err);

/* Replace C's column and value arrays by uninitialised ones for nnz entries (C's vtype,
 * 32-bit columns; large arrays 2 MiB aligned with transparent huge pages advised, since page
 * faults otherwise dominate filling them) and set C->nnz. C->rowptr is left alone. On
 * failure C's arrays may be NULL: rvs_csr_free(C) still works. */
rvs_status rvs_spgemm_alloc_entries(rvs_csr *C, int64_t nnz, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
