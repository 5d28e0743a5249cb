/* rvs_spgemm_run.h - SpGEMM's public side: C = A*B on the CPU (rvs_spgemm.h), the GPU, both at
 * once, or where the engine's model says, optionally checked. Documented in rvskit(3). */
#ifndef RVS_SPGEMM_RUN_H
#define RVS_SPGEMM_RUN_H

#include "rvs_spgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a product runs. */
typedef enum { RVS_SPGEMM_ON_CPU = 1, RVS_SPGEMM_ON_GPU, RVS_SPGEMM_ON_HYBRID } rvs_spgemm_where;

/* C = A*B on the GPU by o->method (row-wise, or hySpMM); rows the device cannot hold are
 * computed by the CPU kernel. RVS_ERR_NODEV without a GPU. o and stats may be NULL. */
rvs_status rvs_spgemm_gpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                          rvs_spgemm_stats *stats, rvs_error *err);

/* C = A*B with long rows on the CPU and the rest on the GPU at the same time. Split rule:
 * rows whose products exceed hybrid_long_factor times the mean products of non-empty rows
 * (and at least 1024) go to the CPU, longest first, while the CPU's share of all products
 * stays within hybrid_cpu_share. */
rvs_status rvs_spgemm_hybrid(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                             rvs_spgemm_stats *stats, rvs_error *err);

/* C = A*B where the engine's model says from the products and the rates spgemm --calibrate
 * recorded, else built-in ones (on the CPU when the GPU turns out absent); the choice
 * is counted in stats->t_pre and t_total. where and why (may be NULL) get it. */
rvs_status rvs_spgemm_auto(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                           rvs_spgemm_stats *stats, rvs_spgemm_where *where, char *why, size_t whylen,
                           rvs_error *err);

/* C = A*B on *where (RVS_SPGEMM_ON_CPU, _GPU or _HYBRID: rvs_spgemm_cpu, rvs_spgemm_gpu or
 * rvs_spgemm_hybrid); with fallback, a GPU that is absent (RVS_ERR_NODEV) leaves the product
 * to the CPU and *where says so. tol > 0 then checks C (rvs_spgemm_check, its largest error
 * into *max_err); a failed check returns RVS_ERR_CHECK with C kept, for the caller to free.
 * o and stats may be NULL. */
rvs_status rvs_spgemm_run(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_where *where, int fallback,
                          const rvs_spgemm_options *o, rvs_spgemm_stats *stats, double tol, double *max_err,
                          rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
