/* coo.cu - GPU SpMV in COO (entries sorted by row): y is zeroed, then each warp walks a
 * contiguous run of entries 32 at a time with a segmented scan over rows (the kernel of the
 * COO tails, hyb.cu); rows inside a run are stored, the first and last row of a run are added
 * atomically (y zeroed: only the part's own rows, through its row map) */
#include "gpu_parts.cuh"

/* y = A*x, A a COO block (sorted by row) on the device. Tunable: block (default 256). */
extern "C" rvs_status rvs_gpu_spmv_coo(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                       void *stream, rvs_error *err)
{
    int block = t->block > 0 ? t->block : 256;
    if (block % 32 != 0 || block > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "coo: block %d is not a multiple of 32 up to 1024", block);
    if (G->nnz > 0 && (!rvs_gpu_data(G, "row") || !rvs_gpu_data(G, "col") || !rvs_gpu_data(G, "values")))
        return rvs_fail(err, RVS_ERR_FORMAT, "coo: device arrays missing");
    return rvs_gpu_coo_entries(G, G->nnz, (const int32_t *)rvs_gpu_data(G, "row"),
                               (const int32_t *)rvs_gpu_data(G, "col"), rvs_gpu_data(G, "values"), dx, dy, block,
                               rvs_gpu_stream(stream), err);
}
