/* hyb.c - CPU SpMV in HYB: the ELL part writes y (rows in blocks of 32, slot by slot so the
 * column-major ELL arrays stream), then the COO tail adds to it: entries split evenly between
 * threads, rows cut at a thread boundary added atomically */
#include <omp.h>
#include "cpu_parts.h"
#include "cpu_values.h"

#define ELL_KERNEL(NAME, T)                                                                                 \
    static void NAME(int64_t rows, int64_t K, int64_t ld, const int32_t *ec, const T *ev, const T *x, T *y) \
    {                                                                                                       \
        _Pragma("omp parallel for schedule(static)") for (int64_t lo = 0; lo < rows; lo += 32)              \
        {                                                                                                   \
            T acc[32] = {0};                                                                                \
            for (int64_t j = 0; j < K; j++) {                                                               \
                const int32_t *c = ec + j * ld + lo;                                                        \
                const T *v = ev + j * ld + lo;                                                              \
                _Pragma("omp simd") for (int t = 0; t < 32; t++)                                            \
                    acc[t] += c[t] >= 0 ? v[t] * x[c[t] >= 0 ? c[t] : 0] : 0;                               \
            }                                                                                               \
            int64_t n = rows - lo < 32 ? rows - lo : 32;                                                    \
            for (int64_t t = 0; t < n; t++)                                                                 \
                y[lo + t] = acc[t];                                                                         \
        }                                                                                                   \
    }

#define COO_ADD_KERNEL(NAME, T, ATOMIC_ADD)                                                             \
    static void NAME(int64_t ncoo, const int32_t *ri, const int32_t *ci, const T *va, const T *x, T *y) \
    {                                                                                                   \
        _Pragma("omp parallel")                                                                         \
        {                                                                                               \
            int t = omp_get_thread_num(), n = omp_get_num_threads();                                    \
            int64_t lo = ncoo * t / n, hi = ncoo * (t + 1) / n, p = lo;                                 \
            while (p < hi) {                                                                            \
                int32_t r = ri[p];                                                                      \
                int64_t start = p;                                                                      \
                T s = 0;                                                                                \
                for (; p < hi && ri[p] == r; p++)                                                       \
                    s += va[p] * x[ci[p]];                                                              \
                if (start == lo || p == hi) {                                                           \
                    ATOMIC_ADD(&y[r], s);                                                               \
                } else {                                                                                \
                    y[r] += s;                                                                          \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
    }

ELL_KERNEL(ell_f64, double)
ELL_KERNEL(ell_f32, float)
ELL_KERNEL(ell_c128, rvs_cd)
ELL_KERNEL(ell_c64, rvs_cf)
COO_ADD_KERNEL(coo_add_f64, double, rvs_atomic_add_f64)
COO_ADD_KERNEL(coo_add_f32, float, rvs_atomic_add_f32)
COO_ADD_KERNEL(coo_add_c128, rvs_cd, rvs_atomic_add_c128)
COO_ADD_KERNEL(coo_add_c64, rvs_cf, rvs_atomic_add_c64)

/* y += COO tail of F times x. */
void rvs_cpu_coo_part_add(const rvs_fmt *F, int64_t ncoo, const void *x, void *y)
{
    const int32_t *ri = rvs_fmt_array(F, "coo_row")->data, *ci = rvs_fmt_array(F, "coo_col")->data;
    const void *va = rvs_fmt_array(F, "coo_val")->data;
    RVS_CPU_BY_VTYPE(F->vtype, coo_add, ncoo, ri, ci, va, x, y);
}

/* y = A*x, A in HYB. */
void rvs_cpu_spmv_hyb(const rvs_fmt *F, const void *x, void *y)
{
    const int32_t *ec = rvs_fmt_array(F, "ell_col")->data;
    const void *ev = rvs_fmt_array(F, "ell_val")->data;
    RVS_CPU_BY_VTYPE(F->vtype, ell, F->rows, F->param[0], F->param[1], ec, ev, x, y);
    rvs_cpu_coo_part_add(F, F->param[2], x, y);
}
