/* dia.cu - GPU SpMV in DIA (and the DIA part of HYB-DIA): a thread per RVS_VN consecutive rows
 * (2 for f64, 4 for f32), so each diagonal is one 16-byte streaming load of dia_val per thread,
 * consecutive across the warp (ld is a multiple of 32 and the thread's first row a multiple of
 * RVS_VN, so the load is aligned); x[i + offset] is read through the read-only cache, where the
 * neighbouring diagonals of a stencil find it again. Offsets ascend, so a block whose rows keep
 * every column of the first and last diagonal inside the matrix needs no bounds test at all
 * (the fast path, unrolled four diagonals deep); blocks at the top and bottom test each column. */
#include "gpu_parts.cuh"
#include "ell_family.cuh"

/* The rows of a thread: M groups of N (16 bytes of values each), group m at rows
 * b0 + m * blockDim * N + threadIdx * N, so every group's loads are coalesced over the warp and
 * a thread has M loads of each diagonal in flight (rows_per_thread = M * N). */
template <typename T, int M>
__global__ void __launch_bounds__(1024) dia_kernel(int64_t rows, int64_t cols, int ndiag, int64_t ld,
                                                  const int32_t *__restrict__ off, const T *__restrict__ val,
                                                  const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
{
    const int N = rvs_vn<T>::N;
    const int64_t span = (int64_t)blockDim.x * N;
    int64_t b0 = blockIdx.x * span * M, i0 = b0 + (int64_t)threadIdx.x * N;
    int64_t rpad = (rows + N - 1) / N * N, b1 = min(b0 + span * M, rpad);
    T s[M][N];
#pragma unroll
    for (int m = 0; m < M; m++)
#pragma unroll
        for (int j = 0; j < N; j++)
            s[m][j] = T(0);
    /* uniform over the block: every column of every row b0..b1-1 inside the matrix */
    bool inside = ndiag > 0 && b0 + __ldg(off) >= 0 && b1 - 1 + __ldg(off + ndiag - 1) < cols;
    if (i0 >= rows)
        return; /* no barrier or shuffle below */
    if (inside && i0 + (M - 1) * span < rows) {
#pragma unroll 4
        for (int k = 0; k < ndiag; k++) {
            const int64_t o = __ldg(off + k);
            T a[M][N];
#pragma unroll
            for (int m = 0; m < M; m++)
                rvs_ld16(val + k * ld + i0 + m * span, a[m]);
#pragma unroll
            for (int m = 0; m < M; m++)
#pragma unroll
                for (int j = 0; j < N; j++)
                    s[m][j] += a[m][j] * __ldg(x + i0 + m * span + o + j);
        }
    } else {
#pragma unroll
        for (int m = 0; m < M; m++) {
            const int64_t im = i0 + m * span;
            if (im >= rows)
                break;
            const T *v = val + im;
            for (int k = 0; k < ndiag; k++) {
                int64_t c0 = im + __ldg(off + k);
                if (c0 >= 0 && c0 + N <= cols) {
                    T a[N];
                    rvs_ld16(v + k * ld, a);
#pragma unroll
                    for (int j = 0; j < N; j++)
                        s[m][j] += a[j] * __ldg(x + c0 + j);
                } else {
#pragma unroll
                    for (int j = 0; j < N; j++)
                        if (c0 + j >= 0 && c0 + j < cols)
                            s[m][j] += v[k * ld + j] * __ldg(x + c0 + j);
                }
            }
        }
    }
#pragma unroll
    for (int m = 0; m < M; m++)
        if (i0 + m * span < rows)
            rvs_y_put16(ym, y, i0 + m * span, rows, s[m]);
}

/* Launch with M groups of rows per thread. */
template <typename T, int M>
static void dia_launch(const rvs_gpu_fmt *G, int64_t ndiag, int64_t ld, const int32_t *off, const void *val,
                       const void *dx, void *dy, int block, cudaStream_t s)
{
    const int64_t per = (int64_t)rvs_vn<T>::N * M;
    dia_kernel<T, M><<<rvs_gpu_blocks((G->rows + per - 1) / per, block), block, 0, s>>>(
        G->rows, G->cols, (int)ndiag, ld, off, (const T *)val, (const T *)dx, rvs_gpu_ymap_of(G), (T *)dy);
}

/* dy = DIA part of G times dx. */
rvs_status rvs_gpu_dia_part(const rvs_gpu_fmt *G, int64_t ndiag, int64_t ld, const void *dx, void *dy,
                            int block, int rpt, cudaStream_t s, rvs_error *err)
{
    if (G->rows == 0)
        return RVS_OK;
    if (ndiag > 2147483647LL)
        return rvs_fail(err, RVS_ERR_ARG, "dia: %lld diagonals", (long long)ndiag);
    const int32_t *off = (const int32_t *)rvs_gpu_data(G, "offsets");
    const void *val = rvs_gpu_data(G, "dia_val");
    const int n = 16 / (int)rvs_vtype_size(G->vtype), m = rpt ? rpt / n : 1;
    if (rpt && (rpt % n || (m != 1 && m != 2)))
        return rvs_fail(err, RVS_ERR_ARG, "dia: rows-per-thread %d: want %d or %d", rpt, n, 2 * n);
    RVS_GPU_BY_VTYPE(G->vtype, T, (m == 2 ? dia_launch<T, 2> : dia_launch<T, 1>)(G, ndiag, ld, off, val, dx, dy, block, s));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* y = A*x, A in DIA. */
extern "C" rvs_status rvs_gpu_spmv_dia(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                      void *stream, rvs_error *err)
{
    int block = t && t->block > 0 ? t->block : 256;
    return rvs_gpu_dia_part(G, G->param[0], G->param[1], dx, dy, block, t ? t->rows_per_thread : 0, rvs_gpu_stream(stream), err);
}
