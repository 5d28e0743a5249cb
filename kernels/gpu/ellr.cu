/* ellr.cu - GPU SpMV in ELLR (fmt_ellr.c), as ELLR-T: TPR adjacent lanes share a row, lane t
 * taking slots t, t + TPR, ... up to rl[r], and their partial sums meet by warp shuffles. For a
 * fixed slot, the lanes of 32 / TPR consecutive rows read consecutive addresses. TPR comes from
 * rvs_gpu_tune.threads_per_row (1, 2, 4, 8, 16, 32), or by default from the mean row length
 * (the largest power of two up to 32 that leaves each lane at least 8 entries on average),
 * doubled further while the longest row (param[0]) would leave a lane more than 256 slots, so a
 * few long rows do not serialise a warp for thousands of steps. With TPR = 1 a thread takes
 * RVS_VN consecutive rows (16-byte value loads, as in ELL) up to the longer of their rl.
 * ELLR stores every row padded to the longest, so a skewed matrix (R-MAT) costs memory and
 * bandwidth here whatever TPR is: PELLR, BiELL, JAD or HYB suit those. */
#include "ell_family.cuh"

/* y[r] = row r of A times x, TPR lanes per row. */
template <typename T, int TPR>
__global__ void ellr_kernel(int64_t rows, int64_t ld, const int32_t *__restrict__ col, const T *__restrict__ val,
                            const int32_t *__restrict__ rl, const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    int64_t gid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t r = gid / TPR;
    int sub = (int)(gid % TPR);
    T s = 0;
    if (r < rows) /* no early return: every lane of the warp takes part in the shuffles */
#pragma unroll 4
        for (int64_t k = sub, n = rl[r]; k < n; k += TPR) {
            int64_t i = k * ld + r;
            s += val[i] * __ldg(x + col[i]);
        }
    for (int off = TPR / 2; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off, TPR);
    if (r < rows && sub == 0)
        rvs_y_put(ym, y, r, s);
}

/* TPR = 1: y[r..r+N-1], a thread per RVS_VN rows, slots up to the longest of them; padding
 * (column -1) inside that range is skipped. */
template <typename T>
__global__ void ellr_vec_kernel(int64_t rows, int64_t ld, const int32_t *__restrict__ col,
                                const T *__restrict__ val, const int32_t *__restrict__ rl, const T *__restrict__ x,
                                rvs_ymap ym, T *__restrict__ y)
{
    const int N = rvs_vn<T>::N;
    int64_t r = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * N;
    if (r >= rows)
        return;
    int n = 0;
#pragma unroll
    for (int j = 0; j < N; j++)
        if (r + j < rows)
            n = max(n, __ldg(rl + r + j));
    T s[N];
#pragma unroll
    for (int j = 0; j < N; j++)
        s[j] = T(0);
#pragma unroll 4
    for (int k = 0; k < n; k++) {
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

/* Launch with TPR lanes per row. */
template <typename T, int TPR>
static void ellr_launch(const rvs_gpu_fmt *G, const void *const *a, const void *dx, void *dy, int block,
                        cudaStream_t s)
{
    if (TPR == 1) {
        const int N = rvs_vn<T>::N;
        ellr_vec_kernel<T><<<rvs_gpu_blocks((G->rows + N - 1) / N, block), block, 0, s>>>(
            G->rows, G->param[1], (const int32_t *)a[0], (const T *)a[1], (const int32_t *)a[2], (const T *)dx,
            rvs_gpu_ymap_of(G), (T *)dy);
        return;
    }
    unsigned grid = rvs_gpu_blocks(G->rows * TPR, block);
    ellr_kernel<T, TPR><<<grid, block, 0, s>>>(G->rows, G->param[1], (const int32_t *)a[0], (const T *)a[1],
                                               (const int32_t *)a[2], (const T *)dx, rvs_gpu_ymap_of(G), (T *)dy);
}

/* Launch for the value type T, TPR chosen at run time. */
template <typename T>
static void ellr_dispatch(const rvs_gpu_fmt *G, const void *const *a, const void *dx, void *dy, int block, int tpr,
                          cudaStream_t s)
{
    switch (tpr) {
    case 1: ellr_launch<T, 1>(G, a, dx, dy, block, s); break;
    case 2: ellr_launch<T, 2>(G, a, dx, dy, block, s); break;
    case 4: ellr_launch<T, 4>(G, a, dx, dy, block, s); break;
    case 8: ellr_launch<T, 8>(G, a, dx, dy, block, s); break;
    case 16: ellr_launch<T, 16>(G, a, dx, dy, block, s); break;
    default: ellr_launch<T, 32>(G, a, dx, dy, block, s); break;
    }
}

/* Lanes per row: the tunable, or from the mean row length and the longest row. */
static int ellr_tpr(const rvs_gpu_fmt *G, const rvs_gpu_tune *t)
{
    int tpr = 1;
    if (t && t->threads_per_row)
        return t->threads_per_row;
    while (tpr < 32 && G->rows > 0 && G->nnz / G->rows >= 16 * tpr)
        tpr *= 2;
    while (tpr < 32 && G->param[0] > 256 * (int64_t)tpr)
        tpr *= 2;
    return tpr;
}

/* y = A*x, A an ELLR block on the device. */
extern "C" rvs_status rvs_gpu_spmv_ellr(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                        void *stream, rvs_error *err)
{
    static const char *const names[] = {"col", "values", "rl"};
    const void *a[3];
    int block, tpr = ellr_tpr(G, t);
    rvs_status st;
    if ((st = rvs_ell_block(t, "ellr", &block, err)) || (st = rvs_ell_arrays(G, "ellr", names, a, 3, err)))
        return st;
    if (tpr < 1 || tpr > 32 || (tpr & (tpr - 1)))
        return rvs_fail(err, RVS_ERR_ARG, "ellr: %d threads per row, want 1, 2, 4, 8, 16 or 32", tpr);
    if (G->rows == 0)
        return RVS_OK;
    RVS_GPU_BY_VTYPE(G->vtype, T, ellr_dispatch<T>(G, a, dx, dy, block, tpr, rvs_gpu_stream(stream)));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
