/* rvs_cpu.h - CPU (OpenMP) SpMV over the formats of libformat, one file per format */
#ifndef RVS_CPU_H
#define RVS_CPU_H

#include "rvs_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = A*x with OpenMP over the current thread count. x (cols) and y (rows) are arrays of
 * F->vtype; every element of y is written (y need not be initialised). F must have passed
 * its format's validator. RVS_ERR_ARG for an unknown format id. */
rvs_status rvs_cpu_spmv(const rvs_fmt *F, const void *x, void *y, rvs_error *err);

/* One kernel per format (kernels/cpu/<format>.c); rvs_cpu_spmv dispatches on F->id. */
void rvs_cpu_spmv_csr(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_coo(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_ell(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_ellr(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_pellr(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_biell(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_jad(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_hyb(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_hybdia(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_dia(const rvs_fmt *F, const void *x, void *y);
void rvs_cpu_spmv_hcc(const rvs_fmt *F, const void *x, void *y);

/* Bytes a format's SpMV really moves (arrays read once, x read once per stored entry's
 * column as an upper bound is NOT used: x counted once, y written once). For GB/s. */
int64_t rvs_spmv_bytes(const rvs_fmt *F);

#ifdef __cplusplus
}
#endif
#endif
