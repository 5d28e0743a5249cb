/* hybdia.cu - GPU SpMV in HYB-DIA: the DIA kernel writes y, then the COO kernel adds the tail */
#include "gpu_parts.cuh"

/* y = A*x, A in HYB-DIA. */
extern "C" rvs_status rvs_gpu_spmv_hybdia(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                          void *stream, rvs_error *err)
{
    int block = t && t->block > 0 ? t->block : 256;
    cudaStream_t s = rvs_gpu_stream(stream);
    rvs_status st = rvs_gpu_dia_part(G, G->param[0], G->param[1], dx, dy, block, t ? t->rows_per_thread : 0, s,
                                     err);
    return st != RVS_OK ? st : rvs_gpu_coo_part_add(G, G->param[2], dx, dy, block, s, err);
}
