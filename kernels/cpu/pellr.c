/* pellr.c - CPU SpMV in PELLR: one sorted slice of 32 rows at a time, as wide as its first row */
#include "rvs_cpu.h"
#include "ell_gather.h"

#define PELLR_KERNEL(NAME, T, GATHER)                                                                       \
    static void NAME(int64_t rows, int64_t ns, const int32_t *perm, const int32_t *wl, const int64_t *sptr, \
                     const int32_t *col, const T *val, const T *x, T *y)                                    \
    {                                                                                                       \
        _Pragma("omp parallel for schedule(dynamic, 64)") for (int64_t w = 0; w < ns; w++)                  \
        {                                                                                                   \
            int64_t p0 = w * 32, n = rows - p0 < 32 ? rows - p0 : 32;                                       \
            T acc[32] = {0};                                                                                \
            for (int64_t k = 0; k < wl[w]; k++)                                                             \
                GATHER(acc, col + sptr[w] + 32 * k, val + sptr[w] + 32 * k, x, 32);                         \
            for (int64_t l = 0; l < n; l++)                                                                 \
                y[perm[p0 + l]] = acc[l];                                                                   \
        }                                                                                                   \
    }

PELLR_KERNEL(pellr_f64, double, rvs_ell_gather_f64)
PELLR_KERNEL(pellr_f32, float, rvs_ell_gather_f32)
PELLR_KERNEL(pellr_c128, rvs_cd, rvs_ell_gather_c128)
PELLR_KERNEL(pellr_c64, rvs_cf, rvs_ell_gather_c64)

/* y = A*x, A a PELLR block (fmt_pellr.c). */
void rvs_cpu_spmv_pellr(const rvs_fmt *F, const void *x, void *y)
{
    const int32_t *perm = rvs_fmt_array(F, "perm")->data, *wl = rvs_fmt_array(F, "wl")->data;
    const int32_t *col = rvs_fmt_array(F, "col")->data;
    const int64_t *sptr = rvs_fmt_array(F, "sptr")->data;
    const void *val = rvs_fmt_array(F, "values")->data;
    RVS_CPU_BY_VTYPE(F->vtype, pellr, F->rows, F->param[1], perm, wl, sptr, col, val, x, y);
}
