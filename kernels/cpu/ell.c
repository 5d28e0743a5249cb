/* ell.c - CPU SpMV in ELL: blocks of rows, every block running to the matrix's width */
#include "rvs_cpu.h"
#include "ell_gather.h"

RVS_ELL_COLUMN_KERNEL(ell_f64, double, rvs_ell_gather_f64)
RVS_ELL_COLUMN_KERNEL(ell_f32, float, rvs_ell_gather_f32)
RVS_ELL_COLUMN_KERNEL(ell_c128, rvs_cd, rvs_ell_gather_c128)
RVS_ELL_COLUMN_KERNEL(ell_c64, rvs_cf, rvs_ell_gather_c64)

/* y = A*x, A an ELL block (fmt_ell.c). */
void rvs_cpu_spmv_ell(const rvs_fmt *F, const void *x, void *y)
{
    const int32_t *col = rvs_fmt_array(F, "col")->data;
    const void *val = rvs_fmt_array(F, "values")->data;
    RVS_CPU_BY_VTYPE(F->vtype, ell, F->rows, F->param[1], F->param[0], col, val, NULL, x, y);
}
