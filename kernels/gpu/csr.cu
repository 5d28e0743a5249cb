/* csr.cu - GPU SpMV in CSR: scalar kernel (a thread per row) and vector kernel (T lanes per
 * row, T a power of two up to 32, reduced with warp shuffles) */
#include "gpu_internal.cuh"

/* y = A*x with one thread per row (grid-stride over rows). */
template <typename T>
__global__ void csr_scalar(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                           const T *__restrict__ va, const T *__restrict__ x, T *__restrict__ y)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride) {
        T s = 0;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            s += va[p] * __ldg(&x[ci[p]]);
        y[i] = s;
    }
}

/* y = A*x with LANES threads per row. Whole warps walk the grid-stride loop together so that
 * every lane reaches the full-mask shuffles. */
template <typename T, int LANES>
__global__ void csr_vector(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                           const T *__restrict__ va, const T *__restrict__ x, T *__restrict__ y)
{
    const int lane = threadIdx.x % LANES;
    const int64_t groups = (int64_t)gridDim.x * blockDim.x / LANES;
    const int64_t warp_first = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32 * (32 / LANES);
    const int64_t group_in_warp = (threadIdx.x % 32) / LANES;
    for (int64_t base = warp_first; base < rows; base += groups) {
        int64_t i = base + group_in_warp;
        T s = 0;
        if (i < rows)
            for (int64_t p = rp[i] + lane; p < rp[i + 1]; p += LANES)
                s += va[p] * __ldg(&x[ci[p]]);
        for (int off = LANES / 2; off > 0; off /= 2)
            s += __shfl_down_sync(0xffffffffu, s, off, LANES);
        if (lane == 0 && i < rows)
            y[i] = s;
    }
}

/* Lanes per row for a mean row length: the power of two at or above it, in 2..32. */
static int default_lanes(const rvs_gpu_fmt *G)
{
    double mean = G->rows > 0 ? (double)G->nnz / (double)G->rows : 0;
    int t = 2;
    while (t < 32 && t < mean)
        t *= 2;
    return t;
}

/* Launch the vector kernel with a compile-time lane count. */
template <typename T>
static void launch_vector(int lanes, unsigned grid, int block, cudaStream_t s, int64_t rows,
                          const int64_t *rp, const int32_t *ci, const T *va, const T *x, T *y)
{
    switch (lanes) {
    case 2: csr_vector<T, 2><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    case 4: csr_vector<T, 4><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    case 8: csr_vector<T, 8><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    case 16: csr_vector<T, 16><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    default: csr_vector<T, 32><<<grid, block, 0, s>>>(rows, rp, ci, va, x, y); break;
    }
}

/* Launch for one value type: threads_per_row 1 selects the scalar kernel. */
template <typename T>
static void launch(const rvs_gpu_fmt *G, int lanes, int block, cudaStream_t s, const T *x, T *y)
{
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "colind");
    const T *va = (const T *)rvs_gpu_data(G, "values");
    if (lanes == 1) {
        csr_scalar<T><<<rvs_gpu_blocks(G->rows, block), block, 0, s>>>(G->rows, rp, ci, va, x, y);
        return;
    }
    /* a group of lanes per row; cap the grid so that the loop strides (blocks stay resident) */
    int64_t threads = G->rows * lanes;
    unsigned grid = rvs_gpu_blocks(threads, block);
    if (grid > 65535u * 32u)
        grid = 65535u * 32u;
    launch_vector<T>(lanes, grid, block, s, G->rows, rp, ci, va, x, y);
}

/* y = A*x, A a CSR block on the device. Tunables: threads_per_row (1 scalar, 2..32 vector;
 * default from the mean row length), block (default 256, a multiple of 32). */
extern "C" rvs_status rvs_gpu_spmv_csr(const rvs_gpu_fmt *G, const void *dx, void *dy,
                                       const rvs_gpu_tune *t, void *stream, rvs_error *err)
{
    int lanes = t->threads_per_row > 0 ? t->threads_per_row : default_lanes(G);
    int block = t->block > 0 ? t->block : 256;
    if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
        return rvs_fail(err, RVS_ERR_ARG, "csr: threads-per-row %d is not 1, 2, 4, 8, 16 or 32", lanes);
    if (block % 32 != 0 || block > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "csr: block %d is not a multiple of 32 up to 1024", block);
    if (!rvs_gpu_data(G, "rowptr") || (G->nnz > 0 && (!rvs_gpu_data(G, "colind") || !rvs_gpu_data(G, "values"))))
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: device arrays missing");
    cudaStream_t s = rvs_gpu_stream(stream);
    if (G->vtype == RVS_F64)
        launch<double>(G, lanes, block, s, (const double *)dx, (double *)dy);
    else
        launch<float>(G, lanes, block, s, (const float *)dx, (float *)dy);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
