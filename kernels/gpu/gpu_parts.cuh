/* gpu_parts.cuh - GPU launchers of the parts shared by DIA, HYB and HYB-DIA (private) */
#ifndef RVS_GPU_PARTS_CUH
#define RVS_GPU_PARTS_CUH

#include "gpu_internal.cuh"

/* dy = DIA part of G (offsets, dia_val; ndiag diagonals, leading dimension ld) times dx; every
 * row written. One thread per row, diagonal by diagonal: coalesced. In dia.cu. */
rvs_status rvs_gpu_dia_part(const rvs_gpu_fmt *G, int64_t ndiag, int64_t ld, const void *dx, void *dy,
                            int block, cudaStream_t s, rvs_error *err);
/* dy += COO tail of G (coo_row, coo_col, coo_val; ncoo entries sorted by row) times dx: one
 * thread per entry, a warp segmented scan by row, one atomic add per row run of a warp. In hyb.cu. */
rvs_status rvs_gpu_coo_part_add(const rvs_gpu_fmt *G, int64_t ncoo, const void *dx, void *dy, int block,
                                cudaStream_t s, rvs_error *err);

#endif
