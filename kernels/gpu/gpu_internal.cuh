/* gpu_internal.cuh - what the CUDA files share: error checks, array access and the output row
 * map (every store to y goes through rvs_y_put / rvs_y_add / rvs_y_atomic / rvs_y_put16) */
#ifndef RVS_GPU_INTERNAL_CUH
#define RVS_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include "rvs_gpu.h"
#include "gpu_complex.cuh"

/* Return an rvs error from the enclosing function when a CUDA call fails. */
#define RVS_CUDA_TRY(call, err)                                                              \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess)                                                               \
            return rvs_fail((err), RVS_ERR_DEVICE, "%s: %s", #call, cudaGetErrorString(e_)); \
    } while (0)

/* After a launch: report a launch error (bad configuration, no kernel image). */
#define RVS_CUDA_LAUNCHED(err)                                                                   \
    do {                                                                                         \
        cudaError_t e_ = cudaGetLastError();                                                     \
        if (e_ != cudaSuccess)                                                                   \
            return rvs_fail((err), RVS_ERR_DEVICE, "kernel launch: %s", cudaGetErrorString(e_)); \
    } while (0)

/* In a function with `rvs_status st`, `rvs_error *err` and a `done:` cleanup label: on a
 * failed CUDA call record the error and jump to the cleanup. */
#define RVS_CUDA_GO(call)                                                                \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            st = rvs_fail(err, RVS_ERR_DEVICE, "%s: %s", #call, cudaGetErrorString(e_)); \
            goto done;                                                                   \
        }                                                                                \
    } while (0)

/* The same for a call that returns an rvs_status. */
#define RVS_GO(call)                 \
    do {                             \
        if ((st = (call)) != RVS_OK) \
            goto done;               \
    } while (0)

/* Device pointer of G's array called name (NULL if absent). */
static inline const void *rvs_gpu_data(const rvs_gpu_fmt *G, const char *name)
{
    const rvs_array *a = rvs_gpu_array(G, name);
    return a ? a->data : NULL;
}

/* csr.cu: add the row-block partition to a CSR block just uploaded (no-op for other formats). */
extern "C" rvs_status rvs_gpu_csr_prepare(rvs_gpu_fmt *G, rvs_error *err);
/* A new device array of count elements of dtype added to G as name (the caller checked that G
 * has room); its memory in *d, not initialised (gpu_common.cu). */
extern "C" rvs_status rvs_gpu_add_array(rvs_gpu_fmt *G, const char *name, rvs_dtype dtype, int64_t count, void **d,
                                        rvs_error *err);
/* G's values (va, host: CSR's "values" or DIA's "dia_val") as the table dict of nd distinct values
 * ("vdict") and, when nd > 1, a byte per value ("vcode", as many as va), instead of the array
 * itself (gpu_common.cu). */
extern "C" rvs_status rvs_gpu_upload_codes(rvs_gpu_fmt *G, const rvs_array *va, const void *dict, int nd,
                                           rvs_error *err);
/* CSR (csr.cu): RVS_OK unless G lacks an array or the kernel t asks for cannot read G as the
 * upload laid it out; and whether G is laid out for the row kernels (16-bit columns or coded
 * values, rows in order: not sorted). The cuSPARSE kernel (csr_cusparse.cu): its descriptor and
 * buffer made at upload, and its launch. */
extern "C" rvs_status rvs_gpu_csr_layout_check(const rvs_gpu_fmt *G, const rvs_gpu_tune *t, rvs_error *err);
extern "C" rvs_status rvs_gpu_csr_cusparse_prepare(rvs_gpu_fmt *G, rvs_error *err);
extern "C" rvs_status rvs_gpu_csr_cusparse_spmv(const rvs_gpu_fmt *G, const void *dx, void *dy, void *stream,
                                                rvs_error *err);
static inline bool rvs_gpu_csr_laid_out(const rvs_gpu_fmt *G)
{
    return !rvs_gpu_array(G, "rbsort") && (rvs_gpu_array(G, "col16") || rvs_gpu_array(G, "vdict"));
}

static inline cudaStream_t rvs_gpu_stream(void *s)
{
    return (cudaStream_t)s;
}

/* Blocks needed for n threads in blocks of b, capped to the grid limit. */
static inline unsigned rvs_gpu_blocks(int64_t n, int b)
{
    int64_t g = (n + b - 1) / b;
    if (g < 1)
        g = 1;
    if (g > 2147483647LL)
        g = 2147483647LL;
    return (unsigned)g;
}

/* G's row map as kernels take it (by value): y row of part row i is base + m32[j], base +
 * m64[j] or base + j, j = inner[i] (a column panel's rows) or i; acc: add instead of store. */
struct rvs_ymap {
    const int32_t *m32;
    const int64_t *m64;
    const int32_t *inner;
    int64_t base;
    int acc;
};

static inline rvs_ymap rvs_gpu_ymap_of(const rvs_gpu_fmt *G)
{
    rvs_ymap m;
    m.m32 = G->ymap.map && !G->ymap.map64 ? (const int32_t *)G->ymap.map : NULL;
    m.m64 = G->ymap.map && G->ymap.map64 ? (const int64_t *)G->ymap.map : NULL;
    m.inner = G->ymap.inner;
    m.base = G->ymap.base;
    m.acc = G->ymap.accumulate;
    return m;
}

/* The y row of part row i. */
__device__ __forceinline__ int64_t rvs_yrow(const rvs_ymap &m, int64_t i)
{
    if (m.inner)
        i = __ldg(m.inner + i);
    return m.base + (m.m32 ? (int64_t)__ldg(m.m32 + i) : m.m64 ? __ldg(m.m64 + i) : i);
}

/* Part row i's value is v: stored (or added in accumulate mode). The row is this thread's alone. */
template <typename T>
__device__ __forceinline__ void rvs_y_put(const rvs_ymap &m, T *y, int64_t i, T v)
{
    T *p = y + rvs_yrow(m, i);
    if (m.acc)
        *p += v;
    else
        *p = v;
}

/* Part row i gets v added by a plain read-modify-write (no other thread adds to it now). */
template <typename T>
__device__ __forceinline__ void rvs_y_add(const rvs_ymap &m, T *y, int64_t i, T v)
{
    y[rvs_yrow(m, i)] += v;
}

/* Part row i gets v added atomically (other threads add to the same row). */
template <typename T>
__device__ __forceinline__ void rvs_y_atomic(const rvs_ymap &m, T *y, int64_t i, T v)
{
    atomicAdd(y + rvs_yrow(m, i), v);
}

/* Zero the part's rows of dy (nothing in accumulate mode), on stream s: before kernels that
 * add their rows up atomically. In gpu_common.cu. */
rvs_status rvs_gpu_y_zero(const rvs_gpu_fmt *G, void *dy, cudaStream_t s, rvs_error *err);
/* The same for a y of value type vt (mixed precision: f64 y of a block with f32 values). */
rvs_status rvs_gpu_y_zero_as(const rvs_gpu_fmt *G, rvs_vtype vt, void *dy, cudaStream_t s, rvs_error *err);

/* Column panels of a CSR block (csr_panels.cu). rvs_gpu_csr_panel_count: how many panels G goes
 * up as (its param[4]: 1 none, P >= 2 that many, 0 the rule there); rvs_gpu_csr_panels: cut G,
 * uploaded whole with its values coded or not, into that many panels, each prepared as a CSR
 * block (rvs_gpu_csr_prepare), and free G's own arrays; rvs_gpu_panel_view: panel p as a launch
 * takes it, with G's row map (p > 0: through its rows, adding). */
extern "C" int rvs_gpu_csr_panel_count(const rvs_gpu_fmt *G);
extern "C" rvs_status rvs_gpu_csr_panels(rvs_gpu_fmt *G, int np, rvs_error *err);
extern "C" rvs_gpu_fmt rvs_gpu_panel_view(const rvs_gpu_fmt *G, int p);

/* Mixed precision in the CSR kernel t asks for (row-block, warp-rows or vector), or the default
 * one (f32 values, f64 x, y and sums). In csr.cu. */
extern "C" rvs_status rvs_gpu_csr_mixed(const rvs_gpu_fmt *G, const rvs_gpu_tune *t, const double *dx, double *dy,
                                        void *stream, rvs_error *err);

#endif
