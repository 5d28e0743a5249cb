/* biell.c - CPU SpMV in BiELL: each group as 32 lanes over its slots, then every row's T lane
 * partials summed, as the GPU's warp does */
#include "rvs_cpu.h"
#include "ell_gather.h"

#define BIELL_KERNEL(NAME, T, GATHER)                                                                         \
    static void NAME(int64_t rows, int64_t ng, const int32_t *perm, const int32_t *grow, const int32_t *gtpr, \
                     const int64_t *gptr, const int32_t *col, const T *val, const T *x, T *y)                 \
    {                                                                                                         \
        _Pragma("omp parallel for schedule(dynamic, 64)") for (int64_t g = 0; g < ng; g++)                    \
        {                                                                                                     \
            T acc[32] = {0};                                                                                  \
            int64_t lanes = gtpr[g], gw = (gptr[g + 1] - gptr[g]) / 32;                                       \
            for (int64_t j = 0; j < gw; j++)                                                                  \
                GATHER(acc, col + gptr[g] + 32 * j, val + gptr[g] + 32 * j, x, 32);                           \
            for (int64_t q = 0; q < 32 / lanes && grow[g] + q < rows; q++) {                                  \
                T s = 0;                                                                                      \
                for (int64_t t = 0; t < lanes; t++)                                                           \
                    s += acc[q * lanes + t];                                                                  \
                y[perm[grow[g] + q]] = s;                                                                     \
            }                                                                                                 \
        }                                                                                                     \
    }

BIELL_KERNEL(biell_f64, double, rvs_ell_gather_f64)
BIELL_KERNEL(biell_f32, float, rvs_ell_gather_f32)
BIELL_KERNEL(biell_c128, rvs_cd, rvs_ell_gather_c128)
BIELL_KERNEL(biell_c64, rvs_cf, rvs_ell_gather_c64)

/* y = A*x, A a BiELL block (fmt_biell.c). */
void rvs_cpu_spmv_biell(const rvs_fmt *F, const void *x, void *y)
{
    const int32_t *perm = rvs_fmt_array(F, "perm")->data, *grow = rvs_fmt_array(F, "grow")->data;
    const int32_t *gtpr = rvs_fmt_array(F, "gtpr")->data, *col = rvs_fmt_array(F, "col")->data;
    const int64_t *gptr = rvs_fmt_array(F, "gptr")->data;
    const void *val = rvs_fmt_array(F, "values")->data;
    RVS_CPU_BY_VTYPE(F->vtype, biell, F->rows, F->param[2], perm, grow, gtpr, gptr, col, val, x, y);
}
