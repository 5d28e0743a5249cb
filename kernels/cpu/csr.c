/* csr.c - CPU SpMV in CSR: rows split between threads by equal non-zero counts */
#include <omp.h>
#include "rvs_cpu.h"
#include "cpu_values.h"

/* NAME: y = A*x with values of type TV, x, y and sums of type TX. */
#define CSR_KERNEL(NAME, TV, T)                                                                               \
    static void NAME(int64_t rows, const int64_t *rp, const int32_t *ci, const TV *va, const T *x, T *y)      \
    {                                                                                                         \
        _Pragma("omp parallel")                                                                               \
        {                                                                                                     \
            int t = omp_get_thread_num(), nt = omp_get_num_threads();                                         \
            int64_t nnz = rp[rows];                                                                           \
            int64_t r0 = t == 0 ? 0 : rvs_lower_bound_i64(rp, rows, nnz / nt * t + (nnz % nt) * t / nt);      \
            int64_t r1 = t == nt - 1                                                                          \
                             ? rows                                                                           \
                             : rvs_lower_bound_i64(rp, rows, nnz / nt * (t + 1) + (nnz % nt) * (t + 1) / nt); \
            for (int64_t i = r0; i < r1; i++) {                                                               \
                T s = 0;                                                                                      \
                for (int64_t p = rp[i]; p < rp[i + 1]; p++)                                                   \
                    s += (T)va[p] * x[ci[p]];                                                                 \
                y[i] = s;                                                                                     \
            }                                                                                                 \
        }                                                                                                     \
    }

CSR_KERNEL(csr_f64, double, double)
CSR_KERNEL(csr_f32, float, float)
CSR_KERNEL(csr_c128, rvs_cd, rvs_cd)
CSR_KERNEL(csr_c64, rvs_cf, rvs_cf)
CSR_KERNEL(csr_mixed, float, double)

/* y = A*x, A a CSR block. */
void rvs_cpu_spmv_csr(const rvs_fmt *F, const void *x, void *y)
{
    const int64_t *rp = rvs_fmt_array(F, "rowptr")->data;
    const int32_t *ci = rvs_fmt_array(F, "colind")->data;
    const void *va = rvs_fmt_array(F, "values")->data;
    RVS_CPU_BY_VTYPE(F->vtype, csr, F->rows, rp, ci, va, x, y);
}

/* y = A*x with A's f32 values and f64 x, y and sums. */
void rvs_cpu_spmv_csr_mixed(const rvs_fmt *F, const double *x, double *y)
{
    csr_mixed(F->rows, rvs_fmt_array(F, "rowptr")->data, rvs_fmt_array(F, "colind")->data,
              rvs_fmt_array(F, "values")->data, x, y);
}
