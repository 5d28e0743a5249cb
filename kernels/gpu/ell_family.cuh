/* ell_family.cuh - what the ELL-family CUDA kernels share (ELL, ELLR, PELLR, BiELL, JAD):
 * block size from the tunables, one slot of a padded layout, and 16-byte loads and stores of
 * every value type. */
#ifndef RVS_ELL_FAMILY_CUH
#define RVS_ELL_FAMILY_CUH

#include <stdint.h>
#include "gpu_internal.cuh"

/* Threads per block: t->block, or 256; RVS_ERR_ARG unless a multiple of 32 up to 1024 (the
 * kernels that share rows between lanes need whole warps). */
static inline rvs_status rvs_ell_block(const rvs_gpu_tune *t, const char *name, int *block, rvs_error *err)
{
    *block = t && t->block ? t->block : 256;
    if (*block < 32 || *block > 1024 || *block % 32)
        return rvs_fail(err, RVS_ERR_ARG, "%s: block of %d threads, want a multiple of 32 up to 1024", name,
                        *block);
    return RVS_OK;
}

/* Every named device array present, else RVS_ERR_ARG (G was not uploaded from a valid F). */
static inline rvs_status rvs_ell_arrays(const rvs_gpu_fmt *G, const char *name, const char *const *names,
                                        const void **ptr, int n, rvs_error *err)
{
    for (int i = 0; i < n; i++)
        if (!(ptr[i] = rvs_gpu_data(G, names[i])) && G->rows > 0)
            return rvs_fail(err, RVS_ERR_ARG, "%s: device array '%s' missing", name, names[i]);
    return RVS_OK;
}

/* Rows per thread in the vectorised column-major kernels (ELL, ELLR with one lane per row, DIA):
 * 16 bytes of values, 2 doubles or 4 floats. Column-major parts have ld a multiple of 32 and
 * device arrays are 256-byte aligned, so a thread's group of rows starting at a multiple of
 * RVS_VN is one aligned 16-byte load per slot. */
template <typename T>
struct rvs_vn {
    static const int N = 16 / (int)sizeof(T);
};

/* Streaming 16-byte loads (values and columns are read once: __ldcs keeps them from evicting x). */
__device__ __forceinline__ void rvs_ld16(const double *p, double (&o)[2])
{
    double2 v = __ldcs(reinterpret_cast<const double2 *>(p));
    o[0] = v.x, o[1] = v.y;
}
__device__ __forceinline__ void rvs_ld16(const float *p, float (&o)[4])
{
    float4 v = __ldcs(reinterpret_cast<const float4 *>(p));
    o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
}
/* Columns matching rvs_ld16's values: 8 bytes (2 columns) or 16 bytes (4 columns). */
__device__ __forceinline__ void rvs_ldcol(const int32_t *p, int32_t (&o)[2])
{
    int2 v = __ldcs(reinterpret_cast<const int2 *>(p));
    o[0] = v.x, o[1] = v.y;
}
__device__ __forceinline__ void rvs_ldcol(const int32_t *p, int32_t (&o)[4])
{
    int4 v = __ldcs(reinterpret_cast<const int4 *>(p));
    o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
}
/* Store the RVS_VN outputs of rows i.. (i a multiple of RVS_VN): one 16-byte store when all
 * rows exist and y is 16-byte aligned (callers may pass offset pointers), else one by one. */
__device__ __forceinline__ void rvs_st16(double *y, int64_t i, int64_t rows, const double (&s)[2])
{
    if (i + 2 <= rows && ((uintptr_t)y & 15) == 0) {
        *reinterpret_cast<double2 *>(y + i) = make_double2(s[0], s[1]);
    } else {
        y[i] = s[0];
        if (i + 1 < rows)
            y[i + 1] = s[1];
    }
}
__device__ __forceinline__ void rvs_st16(float *y, int64_t i, int64_t rows, const float (&s)[4])
{
    if (i + 4 <= rows && ((uintptr_t)y & 15) == 0) {
        *reinterpret_cast<float4 *>(y + i) = make_float4(s[0], s[1], s[2], s[3]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (i + j < rows)
                y[i + j] = s[j];
    }
}

/* The same for complex values: 16 bytes are one c128 or two c64 values. */
__device__ __forceinline__ void rvs_ld16(const rvs_cd *p, rvs_cd (&o)[1])
{
    o[0] = __ldcs(p);
}
__device__ __forceinline__ void rvs_ld16(const rvs_cf *p, rvs_cf (&o)[2])
{
    float4 v = __ldcs(reinterpret_cast<const float4 *>(p));
    o[0] = rvs_cf(v.x, v.y), o[1] = rvs_cf(v.z, v.w);
}
__device__ __forceinline__ void rvs_ldcol(const int32_t *p, int32_t (&o)[1])
{
    o[0] = __ldcs(p);
}
__device__ __forceinline__ void rvs_st16(rvs_cd *y, int64_t i, int64_t rows, const rvs_cd (&s)[1])
{
    if (i < rows)
        y[i] = s[0];
}
__device__ __forceinline__ void rvs_st16(rvs_cf *y, int64_t i, int64_t rows, const rvs_cf (&s)[2])
{
    if (i + 2 <= rows && ((uintptr_t)y & 15) == 0) {
        *reinterpret_cast<float4 *>(y + i) = make_float4(s[0].re, s[0].im, s[1].re, s[1].im);
    } else {
        y[i] = s[0];
        if (i + 1 < rows)
            y[i + 1] = s[1];
    }
}

/* Part rows i.. get s through the row map: one 16-byte store where rvs_st16 can (identity
 * map, stored), else row by row. */
template <typename T, int N>
__device__ __forceinline__ void rvs_y_put16(const rvs_ymap &m, T *y, int64_t i, int64_t rows, const T (&s)[N])
{
    if (!m.m32 && !m.m64 && !m.acc) {
        rvs_st16(y + m.base, i, rows, s);
        return;
    }
#pragma unroll
    for (int j = 0; j < N; j++)
        if (i + j < rows)
            rvs_y_put(m, y, i + j, s[j]);
}

/* Product of slot s, or 0 for padding (col -1): x is never read for padding. */
template <typename T>
__device__ __forceinline__ T rvs_ell_slot(const int32_t *__restrict__ col, const T *__restrict__ val,
                                          const T *__restrict__ x, int64_t s)
{
    int32_t c = col[s];
    return c >= 0 ? val[s] * __ldg(x + c) : T(0);
}

#endif
