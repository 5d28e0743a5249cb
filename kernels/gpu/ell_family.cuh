/* ell_family.cuh - what the ELL-family CUDA kernels share (ELL, ELLR, PELLR, BiELL, JAD):
 * block size from the tunables, one slot of a padded layout, and the f32/f64 dispatch. */
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
        return rvs_fail(err, RVS_ERR_ARG, "%s: block of %d threads, want a multiple of 32 up to 1024",
                        name, *block);
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

/* Product of slot s, or 0 for padding (col -1): x is never read for padding. */
template <typename T>
__device__ __forceinline__ T rvs_ell_slot(const int32_t *__restrict__ col, const T *__restrict__ val,
                                          const T *__restrict__ x, int64_t s)
{
    int32_t c = col[s];
    return c >= 0 ? val[s] * __ldg(x + c) : T(0);
}

#endif
