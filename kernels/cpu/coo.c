/* coo.c - CPU SpMV in COO: entries split evenly between threads, rows cut at a thread
 * boundary finished serially from per-thread carries */
#include <omp.h>
#include "rvs_cpu.h"
#include "cpu_values.h"

#define COO_KERNEL(NAME, T)                                                                                    \
    static void NAME(int64_t rows, int64_t nnz, const int32_t *ri, const int32_t *ci, const T *va, const T *x, \
                     T *y)                                                                                     \
    {                                                                                                          \
        int nt = omp_get_max_threads() < 256 ? omp_get_max_threads() : 256, team = 1;                          \
        int64_t crow[512];                                                                                     \
        T csum[512];                                                                                           \
        _Pragma("omp parallel for schedule(static)") for (int64_t i = 0; i < rows; i++) y[i] = 0;              \
        _Pragma("omp parallel num_threads(nt)")                                                                \
        {                                                                                                      \
            int t = omp_get_thread_num(), n = omp_get_num_threads();                                           \
            if (t == 0) /* the team may be smaller than asked (OMP_DYNAMIC, a thread limit) */                 \
                team = n;                                                                                      \
            int64_t lo = nnz * t / n, hi = nnz * (t + 1) / n;                                                  \
            crow[2 * t] = crow[2 * t + 1] = -1;                                                                \
            csum[2 * t] = csum[2 * t + 1] = 0;                                                                 \
            int64_t p = lo;                                                                                    \
            int first = 1;                                                                                     \
            while (p < hi) {                                                                                   \
                int32_t r = ri[p];                                                                             \
                T s = 0;                                                                                       \
                for (; p < hi && ri[p] == r; p++)                                                              \
                    s += va[p] * x[ci[p]];                                                                     \
                if (first) {                                                                                   \
                    crow[2 * t] = r;                                                                           \
                    csum[2 * t] = s;                                                                           \
                    first = 0;                                                                                 \
                } else if (p == hi) {                                                                          \
                    crow[2 * t + 1] = r;                                                                       \
                    csum[2 * t + 1] = s;                                                                       \
                } else {                                                                                       \
                    y[r] = s;                                                                                  \
                }                                                                                              \
            }                                                                                                  \
        }                                                                                                      \
        for (int t = 0; t < 2 * team; t++)                                                                     \
            if (crow[t] >= 0)                                                                                  \
                y[crow[t]] += csum[t];                                                                         \
    }

COO_KERNEL(coo_f64, double)
COO_KERNEL(coo_f32, float)
COO_KERNEL(coo_c128, rvs_cd)
COO_KERNEL(coo_c64, rvs_cf)

/* y = A*x, A a COO block (sorted by row). */
void rvs_cpu_spmv_coo(const rvs_fmt *F, const void *x, void *y)
{
    const int32_t *ri = rvs_fmt_array(F, "row")->data, *ci = rvs_fmt_array(F, "col")->data;
    const void *va = rvs_fmt_array(F, "values")->data;
    RVS_CPU_BY_VTYPE(F->vtype, coo, F->rows, F->nnz, ri, ci, va, x, y);
}
