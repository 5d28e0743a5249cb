/* gpu_complex.cuh - complex values for the GPU kernels: rvs_cf (c64) and rvs_cd (c128), laid
 * out as the stream stores them (real part, then imaginary), with the arithmetic the kernels
 * use (+, +=, *, *=), their loads (__ldg, __ldcs as one 8- or 16-byte load), warp shuffles (both
 * parts) and atomicAdd as two real atomics. A kernel written for a real T runs on these types
 * unchanged: complex SpMV is a template instantiation of the real kernels. Included by
 * gpu_internal.cuh. */
#ifndef RVS_GPU_COMPLEX_CUH
#define RVS_GPU_COMPLEX_CUH

#include <cuda_runtime.h>

/* A complex value of two R; default construction leaves it uninitialised (so it may live in
 * shared memory), construction from a real gives an imaginary part of 0. */
template <typename R>
struct rvs_complex_base {
    R re, im;
    rvs_complex_base() = default;
    __host__ __device__ constexpr rvs_complex_base(R r) : re(r), im(0) {}
    __host__ __device__ constexpr rvs_complex_base(R r, R i) : re(r), im(i) {}
};

struct __align__(8) rvs_cf : rvs_complex_base<float>
{
    rvs_cf() = default;
    __host__ __device__ constexpr rvs_cf(float r) : rvs_complex_base<float>(r) {}
    __host__ __device__ constexpr rvs_cf(float r, float i) : rvs_complex_base<float>(r, i) {}
};

struct __align__(16) rvs_cd : rvs_complex_base<double>
{
    rvs_cd() = default;
    __host__ __device__ constexpr rvs_cd(double r) : rvs_complex_base<double>(r) {}
    __host__ __device__ constexpr rvs_cd(double r, double i) : rvs_complex_base<double>(r, i) {}
};

static_assert(sizeof(rvs_cf) == 8 && sizeof(rvs_cd) == 16, "complex values are two reals, unpadded");

/* Arithmetic: the textbook product, with fused multiply-adds as the real kernels get them. */
#define RVS_COMPLEX_OPS(C, R)                                                  \
    __device__ __forceinline__ C operator+(C a, C b)                           \
    {                                                                          \
        return C(a.re + b.re, a.im + b.im);                                    \
    }                                                                          \
    __device__ __forceinline__ C operator*(C a, C b)                           \
    {                                                                          \
        return C(fma(a.re, b.re, -a.im * b.im), fma(a.re, b.im, a.im * b.re)); \
    }                                                                          \
    __device__ __forceinline__ C &operator+=(C &a, C b)                        \
    {                                                                          \
        a.re += b.re;                                                          \
        a.im += b.im;                                                          \
        return a;                                                              \
    }                                                                          \
    __device__ __forceinline__ C &operator*=(C &a, C b)                        \
    {                                                                          \
        return a = a * b;                                                      \
    }

RVS_COMPLEX_OPS(rvs_cf, float)
RVS_COMPLEX_OPS(rvs_cd, double)
#undef RVS_COMPLEX_OPS

/* Loads: one 8-byte (c64) or 16-byte (c128) load through the read-only cache (__ldg) or
 * streaming (__ldcs), as the real kernels load one real. */
__device__ __forceinline__ rvs_cf __ldg(const rvs_cf *p)
{
    const float2 v = __ldg(reinterpret_cast<const float2 *>(p));
    return rvs_cf(v.x, v.y);
}
__device__ __forceinline__ rvs_cd __ldg(const rvs_cd *p)
{
    const double2 v = __ldg(reinterpret_cast<const double2 *>(p));
    return rvs_cd(v.x, v.y);
}
__device__ __forceinline__ rvs_cf __ldcs(const rvs_cf *p)
{
    const float2 v = __ldcs(reinterpret_cast<const float2 *>(p));
    return rvs_cf(v.x, v.y);
}
__device__ __forceinline__ rvs_cd __ldcs(const rvs_cd *p)
{
    const double2 v = __ldcs(reinterpret_cast<const double2 *>(p));
    return rvs_cd(v.x, v.y);
}

/* Warp shuffles of both parts. */
#define RVS_COMPLEX_SHFL(C, NAME, T)                                                 \
    __device__ __forceinline__ C NAME(unsigned mask, C v, T d, int width = warpSize) \
    {                                                                                \
        return C(NAME(mask, v.re, d, width), NAME(mask, v.im, d, width));            \
    }
RVS_COMPLEX_SHFL(rvs_cf, __shfl_sync, int)
RVS_COMPLEX_SHFL(rvs_cd, __shfl_sync, int)
RVS_COMPLEX_SHFL(rvs_cf, __shfl_xor_sync, int)
RVS_COMPLEX_SHFL(rvs_cd, __shfl_xor_sync, int)
RVS_COMPLEX_SHFL(rvs_cf, __shfl_up_sync, unsigned int)
RVS_COMPLEX_SHFL(rvs_cd, __shfl_up_sync, unsigned int)
RVS_COMPLEX_SHFL(rvs_cf, __shfl_down_sync, unsigned int)
RVS_COMPLEX_SHFL(rvs_cd, __shfl_down_sync, unsigned int)
#undef RVS_COMPLEX_SHFL

/* atomicAdd of a complex value: each part atomically (global or shared memory); another
 * thread's addition may fall between the two, which reorders additions as real atomics do. */
__device__ __forceinline__ rvs_cf atomicAdd(rvs_cf *p, rvs_cf v)
{
    float *q = reinterpret_cast<float *>(p);
    return rvs_cf(atomicAdd(q, v.re), atomicAdd(q + 1, v.im));
}
__device__ __forceinline__ rvs_cd atomicAdd(rvs_cd *p, rvs_cd v)
{
    double *q = reinterpret_cast<double *>(p);
    return rvs_cd(atomicAdd(q, v.re), atomicAdd(q + 1, v.im));
}

/* Run BODY with T the device type of value type vt (double, float, rvs_cd, rvs_cf). */
#define RVS_GPU_BY_VTYPE(vt, T, ...) \
    do {                             \
        switch (vt) {                \
        case RVS_F64: {              \
            typedef double T;        \
            __VA_ARGS__;             \
        } break;                     \
        case RVS_F32: {              \
            typedef float T;         \
            __VA_ARGS__;             \
        } break;                     \
        case RVS_C128: {             \
            typedef rvs_cd T;        \
            __VA_ARGS__;             \
        } break;                     \
        case RVS_C64: {              \
            typedef rvs_cf T;        \
            __VA_ARGS__;             \
        } break;                     \
        }                            \
    } while (0)

#endif
