/* cpu_parts.h - CPU kernels of the parts shared by DIA, HYB and HYB-DIA (private to kernels/cpu) */
#ifndef RVS_CPU_PARTS_H
#define RVS_CPU_PARTS_H

#include "rvs_cpu.h"

/* y = the DIA part of F (arrays offsets, dia_val; ndiag diagonals, leading dimension ld) times
 * x; every element of y is written. Implemented in dia.c. */
void rvs_cpu_dia_part(const rvs_fmt *F, int64_t ndiag, int64_t ld, const void *x, void *y);
/* y += the COO tail of F (coo_row, coo_col, coo_val; ncoo entries sorted by row) times x.
 * Implemented in hyb.c. */
void rvs_cpu_coo_part_add(const rvs_fmt *F, int64_t ncoo, const void *x, void *y);

#endif
