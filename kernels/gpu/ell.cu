/* ell.cu - GPU SpMV in ELL (fmt_ell.c): a thread per RVS_VN consecutive rows (2 for f64, 4 for
 * f32), so each slot is one aligned 16-byte streaming load of values and one 8- or 16-byte load
 * of columns, consecutive across the warp; every thread runs to the width (unrolled four slots
 * deep, so several loads are in flight) and skips padding by its column. */
#include "ell_family.cuh"

/* y[r..r+N-1] = rows r.. of A times x. */
template <typename T>
__global__ void ell_kernel(int64_t rows, int64_t ld, int64_t width, const int32_t *__restrict__ col,
                           const T *__restrict__ val, const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    const int N = rvs_vn<T>::N;
    int64_t r = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * N;
    if (r >= rows)
        return;
    T s[N];
#pragma unroll
    for (int j = 0; j < N; j++)
        s[j] = T(0);
#pragma unroll 4
    for (int64_t k = 0; k < width; k++) {
        T a[N];
        int32_t c[N];
        rvs_ldcol(col + k * ld + r, c);
        rvs_ld16(val + k * ld + r, a);
#pragma unroll
        for (int j = 0; j < N; j++)
            if (c[j] >= 0)
                s[j] += a[j] * __ldg(x + c[j]);
    }
    rvs_y_put16(ym, y, r, rows, s);
}

/* y = A*x, A an ELL block on the device. */
extern "C" rvs_status rvs_gpu_spmv_ell(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                       void *stream, rvs_error *err)
{
    static const char *const names[] = {"col", "values"};
    const void *a[2];
    int block;
    rvs_status st;
    if ((st = rvs_ell_block(t, "ell", &block, err)) || (st = rvs_ell_arrays(G, "ell", names, a, 2, err)))
        return st;
    if (G->rows == 0)
        return RVS_OK;
    const int64_t n = 16 / (int64_t)rvs_vtype_size(G->vtype); /* rows per thread: RVS_VN */
    unsigned grid = rvs_gpu_blocks((G->rows + n - 1) / n, block);
    cudaStream_t s = rvs_gpu_stream(stream);
    RVS_GPU_BY_VTYPE(G->vtype, T,
                     ell_kernel<T>
                     <<<grid, block, 0, s>>>(G->rows, G->param[1], G->param[0], (const int32_t *)a[0],
                                             (const T *)a[1], (const T *)dx, rvs_gpu_ymap_of(G), (T *)dy));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
