/* gpu_internal.cuh - what the CUDA files share: error checks and array access */
#ifndef RVS_GPU_INTERNAL_CUH
#define RVS_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include "rvs_gpu.h"

/* Return an rvs error from the enclosing function when a CUDA call fails. */
#define RVS_CUDA_TRY(call, err)                                                               \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return rvs_fail((err), RVS_ERR_DEVICE, "%s: %s", #call, cudaGetErrorString(e_));  \
    } while (0)

/* After a launch: report a launch error (bad configuration, no kernel image). */
#define RVS_CUDA_LAUNCHED(err)                                                                \
    do {                                                                                      \
        cudaError_t e_ = cudaGetLastError();                                                  \
        if (e_ != cudaSuccess)                                                                \
            return rvs_fail((err), RVS_ERR_DEVICE, "kernel launch: %s", cudaGetErrorString(e_)); \
    } while (0)

/* In a function with `rvs_status st`, `rvs_error *err` and a `done:` cleanup label: on a
 * failed CUDA call record the error and jump to the cleanup. */
#define RVS_CUDA_GO(call)                                                                     \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            st = rvs_fail(err, RVS_ERR_DEVICE, "%s: %s", #call, cudaGetErrorString(e_));      \
            goto done;                                                                        \
        }                                                                                     \
    } while (0)

/* The same for a call that returns an rvs_status. */
#define RVS_GO(call)                                                                          \
    do {                                                                                      \
        if ((st = (call)) != RVS_OK)                                                          \
            goto done;                                                                        \
    } while (0)

/* Device pointer of G's array called name (NULL if absent). */
static inline const void *rvs_gpu_data(const rvs_gpu_fmt *G, const char *name)
{
    const rvs_array *a = rvs_gpu_array(G, name);
    return a ? a->data : NULL;
}

static inline cudaStream_t rvs_gpu_stream(void *s) { return (cudaStream_t)s; }

/* Blocks needed for n threads in blocks of b, capped to the grid limit. */
static inline unsigned rvs_gpu_blocks(int64_t n, int b)
{
    int64_t g = (n + b - 1) / b;
    if (g < 1) g = 1;
    if (g > 2147483647LL) g = 2147483647LL;
    return (unsigned)g;
}

#endif
