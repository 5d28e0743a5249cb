/* dia.cu - GPU SpMV in DIA (and the DIA part of HYB-DIA): a thread per RVS_VN consecutive rows
 * (2 for f64, 4 for f32), so each diagonal is one 16-byte streaming load of dia_val per thread,
 * consecutive across the warp (ld is a multiple of 32 and the thread's first row a multiple of
 * RVS_VN, so the load is aligned); x[i + offset] is read through the read-only cache, where the
 * neighbouring diagonals of a stencil find it again. Offsets ascend, so a block whose rows keep
 * every column of the first and last diagonal inside the matrix needs no bounds test at all
 * (the fast path, unrolled four diagonals deep); blocks at the top and bottom test each column.
 * Slots coded at upload into a table (dia-values 0, the default where they hold at most 256
 * distinct values) take dia_coded_kernel: a byte a slot instead of 8 or 4. */
#include "gpu_parts.cuh"
#include "ell_family.cuh"

/* The rows of a thread: M groups of N (16 bytes of values each), group m at rows
 * b0 + m * blockDim * N + threadIdx * N, so every group's loads are coalesced over the warp and
 * a thread has M loads of each diagonal in flight (rows_per_thread = M * N). */
template <typename T, int M>
__global__ void __launch_bounds__(1024)
    dia_kernel(int64_t rows, int64_t cols, int ndiag, int64_t ld, const int32_t *__restrict__ off,
               const T *__restrict__ val, const T *__restrict__ x, rvs_ymap ym, T *__restrict__ y)
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

/* DIA with its slots coded at upload (rvs_gpu_upload_codes): the table (nd <= RVS_DICT_MAX values)
 * in shared memory and a byte per slot, or no bytes when every slot holds the table's one value (q
 * NULL). A thread takes R (1, 2, 4 or 8) consecutive rows: one R-byte streaming load of codes per
 * diagonal, consecutive across the warp (ld and the thread's first row are multiples of R). */
template <typename T, int R>
__global__ void __launch_bounds__(1024)
    dia_coded_kernel(int64_t rows, int64_t cols, int ndiag, int64_t ld, const int32_t *__restrict__ off,
                     const uint8_t *__restrict__ q, const T *__restrict__ dict, int nd, const T *__restrict__ x,
                     rvs_ymap ym, T *__restrict__ y)
{
    const int N = rvs_vn<T>::N;
    __shared__ T tab[RVS_DICT_MAX];
    for (int i = threadIdx.x; i < nd; i += blockDim.x)
        tab[i] = dict[i];
    __syncthreads();
    const int64_t b0 = (int64_t)blockIdx.x * blockDim.x * R, i0 = b0 + (int64_t)threadIdx.x * R;
    const int64_t b1 = min(b0 + (int64_t)blockDim.x * R, rows);
    T s[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        s[r] = T(0);
    const bool inside = ndiag > 0 && b0 + __ldg(off) >= 0 && b1 - 1 + __ldg(off + ndiag - 1) < cols;
    if (i0 >= rows)
        return; /* after the barrier; none below */
    if (inside && i0 + R <= rows) {
#pragma unroll 4
        for (int k = 0; k < ndiag; k++) {
            const int64_t o = __ldg(off + k);
            unsigned w[2] = {0, 0}; /* the R codes, four to a word */
            if (q && R == 8) {
                const uint2 c = __ldcs(reinterpret_cast<const uint2 *>(q + k * ld + i0));
                w[0] = c.x, w[1] = c.y;
            } else if (q && R == 4)
                w[0] = __ldcs(reinterpret_cast<const unsigned *>(q + k * ld + i0));
            else if (q && R == 2)
                w[0] = __ldcs(reinterpret_cast<const unsigned short *>(q + k * ld + i0));
            else if (q)
                w[0] = __ldcs(q + k * ld + i0);
#pragma unroll
            for (int r = 0; r < R; r++)
                s[r] += tab[(w[r / 4] >> (8 * (r % 4))) & 255u] * __ldg(x + i0 + o + r);
        }
    } else {
        for (int k = 0; k < ndiag; k++) {
            const int64_t o = __ldg(off + k);
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int64_t c0 = i0 + r + o;
                if (i0 + r < rows && c0 >= 0 && c0 < cols)
                    s[r] += tab[q ? q[k * ld + i0 + r] : 0] * __ldg(x + c0);
            }
        }
    }
    if constexpr (R >= N) { /* 16-byte stores */
#pragma unroll
        for (int m = 0; m < R / N; m++) {
            T g[N];
#pragma unroll
            for (int j = 0; j < N; j++)
                g[j] = s[m * N + j];
            if (i0 + m * N < rows)
                rvs_y_put16(ym, y, i0 + m * N, rows, g);
        }
    } else {
#pragma unroll
        for (int r = 0; r < R; r++)
            if (i0 + r < rows)
                rvs_y_put(ym, y, i0 + r, s[r]);
    }
}

/* Launch the coded kernel, R rows a thread. */
template <typename T, int R>
static void dia_coded_launch(const rvs_gpu_fmt *G, int64_t ndiag, int64_t ld, const int32_t *off, const uint8_t *q,
                             const rvs_array *da, const void *dx, void *dy, int block, cudaStream_t s)
{
    dia_coded_kernel<T, R><<<rvs_gpu_blocks((G->rows + R - 1) / R, block), block, 0, s>>>(
        G->rows, G->cols, (int)ndiag, ld, off, q, (const T *)da->data, (int)da->count, (const T *)dx,
        rvs_gpu_ymap_of(G), (T *)dy);
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
rvs_status rvs_gpu_dia_part(const rvs_gpu_fmt *G, int64_t ndiag, int64_t ld, const void *dx, void *dy, int block,
                            int rpt, cudaStream_t s, rvs_error *err)
{
    if (G->rows == 0)
        return RVS_OK;
    if (ndiag > 2147483647LL)
        return rvs_fail(err, RVS_ERR_ARG, "dia: %lld diagonals", (long long)ndiag);
    const int32_t *off = (const int32_t *)rvs_gpu_data(G, "offsets");
    const void *val = rvs_gpu_data(G, "dia_val");
    const rvs_array *da = rvs_gpu_array(G, "vdict"), *qa = rvs_gpu_array(G, "vcode");
    if (da) { /* slots coded at upload */
        const uint8_t *q = qa ? (const uint8_t *)qa->data : NULL;
        if ((G->vtype != RVS_F64 && G->vtype != RVS_F32) || da->count < 1 || da->count > RVS_DICT_MAX ||
            (qa && qa->count != ndiag * ld) || ld % 8)
            return rvs_fail(err, RVS_ERR_FORMAT,
                            "dia: coded slots: a table of %lld values, %lld codes for %lld slots",
                            (long long)da->count, qa ? (long long)qa->count : 0LL, (long long)(ndiag * ld));
        /* rows a thread: rows-per-thread 1, 2, 4 or 8 (default 2) */
        const int r = rpt == 1 || rpt == 4 || rpt == 8 ? rpt : 2;
        if (G->vtype == RVS_F64)
            (r == 1   ? dia_coded_launch<double, 1>
             : r == 4 ? dia_coded_launch<double, 4>
             : r == 8 ? dia_coded_launch<double, 8>
                      : dia_coded_launch<double, 2>)(G, ndiag, ld, off, q, da, dx, dy, block, s);
        else
            (r == 1   ? dia_coded_launch<float, 1>
             : r == 4 ? dia_coded_launch<float, 4>
             : r == 8 ? dia_coded_launch<float, 8>
                      : dia_coded_launch<float, 2>)(G, ndiag, ld, off, q, da, dx, dy, block, s);
        RVS_CUDA_LAUNCHED(err);
        return RVS_OK;
    }
    const int n = 16 / (int)rvs_vtype_size(G->vtype), m = rpt ? rpt / n : 1;
    if (rpt && (rpt % n || (m != 1 && m != 2)))
        return rvs_fail(err, RVS_ERR_ARG, "dia: rows-per-thread %d: want %d or %d", rpt, n, 2 * n);
    RVS_GPU_BY_VTYPE(G->vtype, T,
                     (m == 2 ? dia_launch<T, 2> : dia_launch<T, 1>)(G, ndiag, ld, off, val, dx, dy, block, s));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* y = A*x, A in DIA. */
extern "C" rvs_status rvs_gpu_spmv_dia(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                       void *stream, rvs_error *err)
{
    int block = t && t->block > 0 ? t->block : 256;
    return rvs_gpu_dia_part(G, G->param[0], G->param[1], dx, dy, block, t ? t->rows_per_thread : 0,
                            rvs_gpu_stream(stream), err);
}
