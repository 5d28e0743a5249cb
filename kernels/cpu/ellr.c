/* ellr.c - CPU SpMV in ELLR: blocks of rows, each running only to its own longest row */
#include "rvs_cpu.h"
#include "ell_gather.h"

RVS_ELL_COLUMN_KERNEL(ellr_f64, double, rvs_ell_gather_f64)
RVS_ELL_COLUMN_KERNEL(ellr_f32, float, rvs_ell_gather_f32)
RVS_ELL_COLUMN_KERNEL(ellr_c128, rvs_cd, rvs_ell_gather_c128)
RVS_ELL_COLUMN_KERNEL(ellr_c64, rvs_cf, rvs_ell_gather_c64)

/* y = A*x, A an ELLR block (fmt_ellr.c). */
void rvs_cpu_spmv_ellr(const rvs_fmt *F, const void *x, void *y)
{
    const int32_t *col = rvs_fmt_array(F, "col")->data, *rl = rvs_fmt_array(F, "rl")->data;
    const void *val = rvs_fmt_array(F, "values")->data;
    RVS_CPU_BY_VTYPE(F->vtype, ellr, F->rows, F->param[1], F->param[0], col, val, rl, x, y);
}
