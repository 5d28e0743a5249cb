/* hybdia.c - CPU SpMV in HYB-DIA: the DIA part writes y, the COO tail adds to it */
#include "cpu_parts.h"

/* y = A*x, A in HYB-DIA. */
void rvs_cpu_spmv_hybdia(const rvs_fmt *F, const void *x, void *y)
{
    rvs_cpu_dia_part(F, F->param[0], F->param[1], x, y);
    rvs_cpu_coo_part_add(F, F->param[2], x, y);
}
