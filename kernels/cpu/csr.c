/* csr.c - CPU SpMV in CSR: rows split between threads by equal non-zero counts */
#include <omp.h>
#include "rvs_cpu.h"

#define CSR_KERNEL(NAME, T)                                                                  \
    static void NAME(int64_t rows, const int64_t *rp, const int32_t *ci, const T *va,        \
                     const T *x, T *y)                                                        \
    {                                                                                         \
        _Pragma("omp parallel")                                                               \
        {                                                                                     \
            int t = omp_get_thread_num(), nt = omp_get_num_threads();                         \
            int64_t nnz = rp[rows];                                                           \
            int64_t r0 = t == 0 ? 0 : rvs_lower_bound_i64(rp, rows, nnz / nt * t + (nnz % nt) * t / nt); \
            int64_t r1 = t == nt - 1 ? rows                                                   \
                                     : rvs_lower_bound_i64(rp, rows, nnz / nt * (t + 1) + (nnz % nt) * (t + 1) / nt); \
            for (int64_t i = r0; i < r1; i++) {                                               \
                T s = 0;                                                                      \
                for (int64_t p = rp[i]; p < rp[i + 1]; p++)                                   \
                    s += va[p] * x[ci[p]];                                                    \
                y[i] = s;                                                                     \
            }                                                                                 \
        }                                                                                     \
    }

CSR_KERNEL(csr_f64, double)
CSR_KERNEL(csr_f32, float)

/* y = A*x, A a CSR block. */
void rvs_cpu_spmv_csr(const rvs_fmt *F, const void *x, void *y)
{
    const int64_t *rp = rvs_fmt_array(F, "rowptr")->data;
    const int32_t *ci = rvs_fmt_array(F, "colind")->data;
    const void *va = rvs_fmt_array(F, "values")->data;
    if (F->vtype == RVS_F64)
        csr_f64(F->rows, rp, ci, va, x, y);
    else
        csr_f32(F->rows, rp, ci, va, x, y);
}
