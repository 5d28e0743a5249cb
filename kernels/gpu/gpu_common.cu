/* gpu_common.cu - device discovery, format upload, the SpMV dispatcher and memory helpers */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_internal.cuh"
#include "rvs_draw.h"
#include "rvs_mem.h"

/* Number of usable devices; 0 when the runtime or driver reports none or fails. */
extern "C" int rvs_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n > 0 ? n : 0;
}

/* "NAME, MEM GiB, sm_XY" of device 0, or why there is none. */
extern "C" void rvs_gpu_describe(char *buf, size_t n)
{
    cudaDeviceProp p;
    if (n == 0)
        return;
    if (rvs_gpu_count() == 0 || cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        snprintf(buf, n, "none (no usable CUDA device)");
        return;
    }
    snprintf(buf, n, "%s, %.1f GiB, sm_%d%d", p.name, (double)p.totalGlobalMem / (1 << 30), p.major, p.minor);
}

struct memory_peak {
    double bytes_per_s, l2_bytes;
};

static memory_peak query_memory_peak()
{
    int clock_khz = 0, bus_bits = 0, cache = 0;
    memory_peak p = {0, 0};
    if (rvs_gpu_count() > 0 && cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&cache, cudaDevAttrL2CacheSize, 0) == cudaSuccess) {
        p.bytes_per_s = 2.0 * clock_khz * 1e3 * bus_bits / 8; /* two transfers a clock */
        p.l2_bytes = cache;
    }
    cudaGetLastError();
    return p;
}

extern "C" void rvs_gpu_memory_peak(double *bytes_per_s, double *l2_bytes)
{
    static const memory_peak p = query_memory_peak(); /* asked once, by whichever thread is first */
    *bytes_per_s = p.bytes_per_s;
    *l2_bytes = p.l2_bytes;
}

/* Free the device arrays of G, its row map, and zero it. */
extern "C" void rvs_gpu_fmt_free(rvs_gpu_fmt *G)
{
    for (int p = 0; p < G->npanel && G->panel; p++)
        rvs_gpu_fmt_free(&G->panel[p]);
    free(G->panel);
    for (int i = 0; i < G->narrays && i < RVS_FMT_MAX_ARRAYS; i++)
        cudaFree(G->array[i].data);
    cudaFree((void *)G->ymap.map);
    if (G->aux && G->aux_free)
        G->aux_free(G->aux);
    memset(G, 0, sizeof *G);
}

/* G's row map from the host list rows (NULL: identity); see rvs_gpu.h. */
extern "C" rvs_status rvs_gpu_set_rows(rvs_gpu_fmt *G, const int64_t *rows, int accumulate, rvs_error *err)
{
    rvs_status st = RVS_OK;
    int64_t lo = 0, hi = 0, n = G->rows;
    int contiguous = 1;
    void *host = NULL, *dev = NULL;
    cudaFree((void *)G->ymap.map);
    memset(&G->ymap, 0, sizeof G->ymap);
    G->ymap.accumulate = accumulate != 0;
    if (!rows || n == 0)
        return RVS_OK;
    lo = hi = rows[0];
    for (int64_t i = 1; i < n; i++) {
        contiguous &= rows[i] == rows[0] + i;
        lo = rows[i] < lo ? rows[i] : lo;
        hi = rows[i] > hi ? rows[i] : hi;
    }
    if (lo < 0)
        return rvs_fail(err, RVS_ERR_RANGE, "row map: row %lld", (long long)lo);
    G->ymap.base = contiguous ? rows[0] : lo;
    if (contiguous)
        return RVS_OK;
    const int wide = hi - lo > INT32_MAX;
    const size_t es = wide ? sizeof(int64_t) : sizeof(int32_t);
    if ((uint64_t)n > SIZE_MAX / es)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "row map of %lld rows", (long long)n);
    if (!(host = malloc((size_t)n * es)))
        return rvs_fail(err, RVS_ERR_NOMEM, "row map of %lld rows", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        if (wide)
            ((int64_t *)host)[i] = rows[i] - lo;
        else
            ((int32_t *)host)[i] = (int32_t)(rows[i] - lo);
    }
    RVS_GO(rvs_gpu_malloc(&dev, (size_t)n * es, err));
    RVS_GO(rvs_gpu_memcpy_h2d(dev, host, (size_t)n * es, err));
    G->ymap.map = dev;
    G->ymap.map64 = wide;
    dev = NULL;
done:
    rvs_gpu_free(dev);
    free(host);
    return st;
}

/* y[row(i)] = 0 for every part row i. */
template <typename T>
__global__ void y_zero_mapped(int64_t rows, rvs_ymap m, T *__restrict__ y)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows; i += stride)
        y[rvs_yrow(m, i)] = T(0);
}

/* The largest |a - b| and |a| over the part's rows (k values a row), as the bits of doubles
 * (nonnegative doubles order as their bits do), and bad = 1 where b is not finite and a is. */
template <typename T>
__global__ void y_compare(int64_t rows, int k, rvs_ymap m, const T *__restrict__ a, const T *__restrict__ b,
                          unsigned long long *out)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    double diff = 0, big = 0;
    int bad = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows; i += stride)
        for (int c = 0; c < k; c++) {
            const int64_t at = rvs_yrow(m, i) * k + c;
            const double av = (double)a[at], bv = (double)b[at];
            bad |= !isfinite(bv) && isfinite(av);
            big = fmax(big, fabs(av));
            diff = fmax(diff, fabs(av - bv)); /* fmax drops a NaN, as the host check did */
        }
    for (int o = 16; o > 0; o >>= 1) {
        diff = fmax(diff, __shfl_xor_sync(0xffffffffu, diff, o));
        big = fmax(big, __shfl_xor_sync(0xffffffffu, big, o));
        bad |= __shfl_xor_sync(0xffffffffu, bad, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(out, (unsigned long long)__double_as_longlong(diff));
        atomicMax(out + 1, (unsigned long long)__double_as_longlong(big));
        if (bad)
            atomicOr(out + 2, 1ull);
    }
}

extern "C" rvs_status rvs_gpu_compare_rows(const rvs_gpu_fmt *G, int64_t rows, rvs_vtype vt, const void *a,
                                           const void *b, double *diff, double *big, int *bad, rvs_error *err)
{
    rvs_ymap m = rvs_gpu_ymap_of(G);
    m.inner = NULL; /* the block's own rows, not a panel's */
    unsigned long long h[3] = {0, 0, 0}, *d = NULL;
    const int k = rvs_vtype_is_complex(vt) ? 2 : 1;
    rvs_status st = rvs_gpu_malloc((void **)&d, sizeof h, err);
    if (st == RVS_OK)
        st = rvs_gpu_memset(d, 0, sizeof h, err);
    if (st == RVS_OK && rows > 0) {
        unsigned grid = rvs_gpu_blocks(rows, 256);
        grid = grid > 4096 ? 4096 : grid;
        if (rvs_vtype_real(vt) == RVS_F64)
            y_compare<double><<<grid, 256>>>(rows, k, m, (const double *)a, (const double *)b, d);
        else
            y_compare<float><<<grid, 256>>>(rows, k, m, (const float *)a, (const float *)b, d);
        RVS_CUDA_LAUNCHED(err);
    }
    if (st == RVS_OK)
        st = rvs_gpu_memcpy_d2h(h, d, sizeof h, err);
    rvs_gpu_free(d);
    memcpy(diff, &h[0], sizeof *diff);
    memcpy(big, &h[1], sizeof *big);
    *bad = h[2] != 0;
    return st;
}

/* Zero the part's rows of dy (none in accumulate mode). */
rvs_status rvs_gpu_y_zero(const rvs_gpu_fmt *G, void *dy, cudaStream_t s, rvs_error *err)
{
    return rvs_gpu_y_zero_as(G, G->vtype, dy, s, err);
}

rvs_status rvs_gpu_y_zero_as(const rvs_gpu_fmt *G, rvs_vtype vt, void *dy, cudaStream_t s, rvs_error *err)
{
    const rvs_ymap m = rvs_gpu_ymap_of(G);
    const size_t vs = rvs_vtype_size(vt);
    if (m.acc || G->rows == 0)
        return RVS_OK;
    if (!m.m32 && !m.m64) {
        RVS_CUDA_TRY(cudaMemsetAsync((char *)dy + (size_t)m.base * vs, 0, (size_t)G->rows * vs, s), err);
        return RVS_OK;
    }
    unsigned grid = rvs_gpu_blocks(G->rows, 256);
    if (grid > 65535u * 16u)
        grid = 65535u * 16u;
    RVS_GPU_BY_VTYPE(vt, T, y_zero_mapped<T><<<grid, 256, 0, s>>>(G->rows, m, (T *)dy));
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

extern "C" rvs_status rvs_gpu_add_array(rvs_gpu_fmt *G, const char *name, rvs_dtype dtype, int64_t count, void **d,
                                        rvs_error *err)
{
    rvs_status st = rvs_gpu_malloc(d, (size_t)count * rvs_dtype_size(dtype), err);
    if (st != RVS_OK)
        return st;
    rvs_array *a = &G->array[G->narrays++];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->dtype = dtype;
    a->count = count;
    a->data = *d;
    return RVS_OK;
}

extern "C" rvs_status rvs_gpu_upload_codes(rvs_gpu_fmt *G, const rvs_array *va, const void *dict, int nd,
                                           rvs_error *err)
{
    const size_t vs = rvs_dtype_size(va->dtype);
    const int64_t piece = (int64_t)16 << 20; /* codes made and sent 16 MB at a time */
    void *d = NULL;
    if (G->narrays + 2 > RVS_FMT_MAX_ARRAYS)
        return rvs_fail(err, RVS_ERR_INTERNAL, "no room for the value table");
    rvs_status st = rvs_gpu_add_array(G, "vdict", va->dtype, nd, &d, err);
    if (st == RVS_OK)
        st = rvs_gpu_memcpy_h2d(d, dict, (size_t)nd * vs, err);
    if (st != RVS_OK || nd == 1)
        return st;
    uint8_t *h = (uint8_t *)malloc((size_t)(va->count < piece ? va->count : piece));
    if (!h)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the value codes");
    if ((st = rvs_gpu_add_array(G, "vcode", RVS_DT_U8, va->count, &d, err)) == RVS_OK)
        for (int64_t p = 0; p < va->count && st == RVS_OK; p += piece) {
            const int64_t n = va->count - p < piece ? va->count - p : piece;
            if (rvs_value_encode((const char *)va->data + (size_t)p * vs, vs, n, dict, nd, h) != 0)
                st = rvs_fail(err, RVS_ERR_INTERNAL, "a value outside its table");
            else
                st = rvs_gpu_memcpy_h2d((uint8_t *)d + p, h, (size_t)n, err);
        }
    free(h);
    return st;
}

extern "C" int64_t rvs_gpu_bytes_saved(const rvs_gpu_fmt *G)
{
    if (G->npanel > 0) {
        /* each panel's codes; against the whole block's row pointers (rvs_spmv_bytes: 4 or 8 bytes
         * a row, y written once), the panels' own, their row lists, and y read and written again
         * for each row of panels 1.. */
        const int64_t vs = (int64_t)rvs_vtype_size(G->vtype);
        int64_t saved = (G->rows + 1) * (rvs_csr_gpu_sorted(G->rows, G->nnz, G->vtype, G->param) ? 4 : 8);
        for (int p = 0; p < G->npanel; p++) {
            const rvs_gpu_fmt *Q = &G->panel[p];
            const rvs_array *rp = rvs_gpu_array(Q, "rowptr");
            saved += rvs_gpu_bytes_saved(Q) - (rp ? rp->count * (int64_t)rvs_dtype_size(rp->dtype) : 0);
            if (p > 0)
                saved -= Q->rows * (4 + 2 * vs);
        }
        return saved;
    }
    /* CSR's columns as 16-bit offsets: 2 bytes an entry */
    const int64_t narrow = rvs_gpu_array(G, "col16") ? 2 * G->nnz : 0;
    const rvs_array *da = rvs_gpu_array(G, "vdict");
    if (!da)
        return narrow;
    /* the coded array's length: CSR's entries, or DIA's slots (diagonals times ld) */
    const int64_t n = G->id == RVS_FMT_CSR ? G->nnz : G->param[0] * G->param[1];
    const int64_t vs = (int64_t)rvs_dtype_size(da->dtype), coded = rvs_gpu_array(G, "vcode") ? n : 0;
    return narrow + n * vs - coded - da->count * vs;
}

/* G = F with every array copied to device memory; on failure G is freed and zeroed. */
extern "C" rvs_status rvs_gpu_upload(rvs_gpu_fmt *G, const rvs_fmt *F, rvs_error *err)
{
    rvs_status st = RVS_OK;
    memset(G, 0, sizeof *G);
    G->id = F->id;
    G->rows = F->rows;
    G->cols = F->cols;
    G->nnz = F->nnz;
    G->vtype = F->vtype;
    memcpy(G->param, F->param, sizeof G->param);
    /* CSR's values or DIA's slots coded into a table instead of copied, where they fit one */
    rvs_mem_trace("upload: begun");
    const char *coded = rvs_fmt_gpu_coded(F->id, F->rows, F->nnz, F->vtype, F->param);
    const rvs_array *va = coded ? rvs_fmt_array(F, coded) : NULL;
    char dict[RVS_DICT_MAX * 8];
    const int nd = va ? rvs_value_dict(va->data, rvs_dtype_size(va->dtype), va->count, dict) : -1;
    rvs_mem_trace(nd > 0 ? "upload: values counted, a table fits" : "upload: values counted");
    for (int i = 0; i < F->narrays && st == RVS_OK; i++) {
        const rvs_array *a = &F->array[i];
        size_t bytes = (size_t)a->count * rvs_dtype_size(a->dtype);
        if (a == va && nd > 0)
            continue;
        rvs_array *d = &G->array[G->narrays++];
        *d = *a;
        d->data = NULL;
        if (bytes == 0)
            continue;
        st = rvs_gpu_malloc(&d->data, bytes, err);
        if (st == RVS_OK)
            st = rvs_gpu_memcpy_h2d(d->data, a->data, bytes, err);
    }
    if (st == RVS_OK && nd > 0)
        st = rvs_gpu_upload_codes(G, va, dict, nd, err);
    rvs_mem_trace("upload: arrays copied");
    const int np = st == RVS_OK ? rvs_gpu_csr_panel_count(G) : 1;
    if (st == RVS_OK && np > 1)
        st = rvs_gpu_csr_panels(G, np, err);
    else if (st == RVS_OK && G->id == RVS_FMT_CSR)
        st = rvs_gpu_csr_prepare(G, err);
    rvs_mem_trace("upload: laid out");
    if (st != RVS_OK)
        rvs_gpu_fmt_free(G);
    return st;
}

/* The device array of G called name, or NULL. */
extern "C" const rvs_array *rvs_gpu_array(const rvs_gpu_fmt *G, const char *name)
{
    for (int i = 0; i < G->narrays; i++)
        if (strncmp(G->array[i].name, name, sizeof G->array[i].name) == 0)
            return &G->array[i];
    return NULL;
}

/* The launcher of a format id, or NULL. */
static rvs_gpu_spmv_fn launcher(rvs_format_id id)
{
    switch (id) {
    case RVS_FMT_CSR: return rvs_gpu_spmv_csr;
    case RVS_FMT_COO: return rvs_gpu_spmv_coo;
    case RVS_FMT_ELL: return rvs_gpu_spmv_ell;
    case RVS_FMT_ELLR: return rvs_gpu_spmv_ellr;
    case RVS_FMT_PELLR: return rvs_gpu_spmv_pellr;
    case RVS_FMT_BIELL: return rvs_gpu_spmv_biell;
    case RVS_FMT_JAD: return rvs_gpu_spmv_jad;
    case RVS_FMT_HYB: return rvs_gpu_spmv_hyb;
    case RVS_FMT_HYBDIA: return rvs_gpu_spmv_hybdia;
    case RVS_FMT_DIA: return rvs_gpu_spmv_dia;
    case RVS_FMT_HCC: return rvs_gpu_spmv_hcc;
    default: return NULL;
    }
}

/* y = A*x on the device in G's format (asynchronous on stream). */
extern "C" rvs_status rvs_gpu_spmv(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                   void *stream, rvs_error *err)
{
    static const rvs_gpu_tune defaults = {0, 0, 0, 0};
    rvs_gpu_spmv_fn f = launcher(G->id);
    if (!f)
        return rvs_fail(err, RVS_ERR_ARG, "no GPU kernel for format id %d", (int)G->id);
    if (G->rows == 0)
        return RVS_OK;
    if (G->nnz == 0) /* a part with no entries (an empty off-diagonal part): its rows are 0 */
        return rvs_gpu_y_zero(G, dy, rvs_gpu_stream(stream), err);
    for (int p = 0; p < G->npanel; p++) { /* column panels, in order: 0 stores, the rest add */
        const rvs_gpu_fmt Q = rvs_gpu_panel_view(G, p);
        rvs_status st = rvs_gpu_spmv(&Q, dx, dy, t, stream, err);
        if (st != RVS_OK)
            return st;
    }
    if (G->npanel > 0)
        return RVS_OK;
    return f(G, dx, dy, t ? t : &defaults, stream, err);
}

/* *p = bytes of device memory (NULL for 0 bytes). */
extern "C" rvs_status rvs_gpu_malloc(void **p, size_t bytes, rvs_error *err)
{
    *p = NULL;
    if (bytes == 0)
        return RVS_OK;
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        cudaGetLastError();
        return rvs_fail(err, e == cudaErrorMemoryAllocation ? RVS_ERR_NOMEM : RVS_ERR_DEVICE,
                        "cannot allocate %zu bytes on the GPU: %s", bytes, cudaGetErrorString(e));
    }
    return RVS_OK;
}

/* Free device memory (NULL is fine). */
extern "C" void rvs_gpu_free(void *p)
{
    if (p)
        cudaFree(p);
}

/* Copy bytes device -> host. */
extern "C" rvs_status rvs_gpu_memcpy_d2h(void *dst, const void *src, size_t bytes, rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    RVS_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), err);
    return RVS_OK;
}

/* Set bytes of device memory to byte. */
extern "C" rvs_status rvs_gpu_memset(void *p, int byte, size_t bytes, rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    RVS_CUDA_TRY(cudaMemset(p, byte, bytes), err);
    return RVS_OK;
}

/* Components [0, n) of the x drawn from seed, as float or double (grid-stride). */
template <typename T>
__global__ void draw_x(T *x, int64_t n, uint64_t seed)
{
    const int single = sizeof(T) == sizeof(float);
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
        x[k] = (T)rvs_draw(seed, k, single);
}

extern "C" rvs_status rvs_gpu_fill_drawn(void *dx, int64_t n, rvs_vtype vt, uint64_t seed, rvs_error *err)
{
    const int64_t m = rvs_vtype_is_complex(vt) ? 2 * n : n;
    if (m <= 0)
        return RVS_OK;
    unsigned grid = rvs_gpu_blocks(m, 256);
    if (grid > 65535u * 16u)
        grid = 65535u * 16u;
    if (rvs_vtype_real(vt) == RVS_F32)
        draw_x<float><<<grid, 256>>>((float *)dx, m, seed);
    else
        draw_x<double><<<grid, 256>>>((double *)dx, m, seed);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}

/* Wait for all device work; reports asynchronous kernel faults. */
extern "C" rvs_status rvs_gpu_sync(rvs_error *err)
{
    RVS_CUDA_TRY(cudaDeviceSynchronize(), err);
    return RVS_OK;
}

/* Page-lock host memory so device-to-host copies into it run at full speed. */
extern "C" rvs_status rvs_gpu_host_register(void *p, size_t bytes, rvs_error *err)
{
    RVS_CUDA_TRY(cudaHostRegister(p, bytes, cudaHostRegisterDefault), err);
    return RVS_OK;
}

/* Undo rvs_gpu_host_register. */
extern "C" void rvs_gpu_host_unregister(void *p)
{
    if (p)
        cudaHostUnregister(p);
}
