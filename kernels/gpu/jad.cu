/* jad.cu - GPU SpMV in JAD (fmt_jad.c): one thread per stored row walking the jagged
 * diagonals that reach it; consecutive threads read consecutive entries of each diagonal. */
#include "ell_family.cuh"

/* y[perm[p]] = stored row p of A times x. */
template <typename T>
__global__ void jad_kernel(int64_t rows, int64_t ndiag, const int32_t *__restrict__ perm,
                           const int64_t *__restrict__ jdptr, const int32_t *__restrict__ col,
                           const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (p >= rows)
        return;
    T s = 0;
    for (int64_t d = 0; d < ndiag; d++) {
        int64_t a = jdptr[d];
        if (p >= jdptr[d + 1] - a)
            break;
        s += val[a + p] * __ldg(x + col[a + p]);
    }
    y[perm[p]] = s;
}

/* y = A*x, A a JAD block on the device. */
extern "C" rvs_status rvs_gpu_spmv_jad(const rvs_gpu_fmt *G, const void *dx, void *dy,
                                      const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    static const char *const names[] = {"perm", "jdptr", "col", "values"};
    const void *a[4];
    int block;
    rvs_status st;
    if ((st = rvs_ell_block(t, "jad", &block, err)) || (st = rvs_ell_arrays(G, "jad", names, a, 4, err)))
        return st;
    if (G->rows == 0)
        return RVS_OK;
    unsigned grid = rvs_gpu_blocks(G->rows, block);
    cudaStream_t s = rvs_gpu_stream(stream);
    if (G->vtype == RVS_F64)
        jad_kernel<double><<<grid, block, 0, s>>>(G->rows, G->param[0], (const int32_t *)a[0],
                                                  (const int64_t *)a[1], (const int32_t *)a[2],
                                                  (const double *)a[3], (const double *)dx, (double *)dy);
    else
        jad_kernel<float><<<grid, block, 0, s>>>(G->rows, G->param[0], (const int32_t *)a[0],
                                                 (const int64_t *)a[1], (const int32_t *)a[2],
                                                 (const float *)a[3], (const float *)dx, (float *)dy);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
