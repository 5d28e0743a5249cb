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

/* Mixed precision (spmv --precision mixed): y = A*x with A's values stored in f32 (F->vtype
 * RVS_F32) and x, y and every sum in f64; the error is that of rounding A to f32 alone. CSR
 * and HCC have such kernels; RVS_ERR_UNSUPPORTED for other formats, RVS_ERR_ARG unless F
 * holds f32 values. */
rvs_status rvs_cpu_spmv_mixed(const rvs_fmt *F, const double *x, double *y, rvs_error *err);
void rvs_cpu_spmv_csr_mixed(const rvs_fmt *F, const double *x, double *y);
void rvs_cpu_spmv_hcc_mixed(const rvs_fmt *F, const double *x, double *y);

/* Bytes the default GPU kernel of F's format must move: the array elements it reads (padded
 * slot arrays only as far as the kernel visits them; details in spmv_cpu.c and rvskit-formats.7),
 * x read once and y written once. A lower bound of the real traffic, for GB/s figures. */
int64_t rvs_spmv_bytes(const rvs_fmt *F);

#ifdef __cplusplus
}
#endif
#endif
