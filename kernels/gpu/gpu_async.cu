/* gpu_async.cu - streams, events, CUDA graphs, asynchronous copies, pinned host memory and IPC
 * handles, behind the C interface of rvs_gpu.h (handles are void *: cudaStream_t, cudaEvent_t,
 * cudaGraphExec_t), so that the engine runs parts concurrently, and MPI ranks share GPU memory,
 * without touching CUDA */
#include <string.h>
#include "gpu_internal.cuh"

/* A new non-blocking stream (does not wait for the legacy default stream). */
extern "C" rvs_status rvs_gpu_stream_create(void **s, rvs_error *err)
{
    cudaStream_t t = NULL;
    *s = NULL;
    RVS_CUDA_TRY(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking), err);
    *s = t;
    return RVS_OK;
}

extern "C" void rvs_gpu_stream_destroy(void *s)
{
    if (s)
        cudaStreamDestroy((cudaStream_t)s);
}

/* Wait until everything queued on s ran; reports asynchronous kernel faults. */
extern "C" rvs_status rvs_gpu_stream_sync(void *s, rvs_error *err)
{
    RVS_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)s), err);
    return RVS_OK;
}

/* A new event that can be timed. */
extern "C" rvs_status rvs_gpu_event_create(void **e, rvs_error *err)
{
    cudaEvent_t t = NULL;
    *e = NULL;
    RVS_CUDA_TRY(cudaEventCreate(&t), err);
    *e = t;
    return RVS_OK;
}

extern "C" void rvs_gpu_event_destroy(void *e)
{
    if (e)
        cudaEventDestroy((cudaEvent_t)e);
}

/* Record e on s (after everything queued on s so far). */
extern "C" rvs_status rvs_gpu_event_record(void *e, void *s, rvs_error *err)
{
    RVS_CUDA_TRY(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s), err);
    return RVS_OK;
}

/* Work queued on s after this call waits for e. */
extern "C" rvs_status rvs_gpu_stream_wait(void *s, void *e, rvs_error *err)
{
    RVS_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0), err);
    return RVS_OK;
}

/* Milliseconds between e0 and e1, waiting for e1. */
extern "C" rvs_status rvs_gpu_event_elapsed(void *e0, void *e1, double *ms, rvs_error *err)
{
    float f = 0;
    *ms = 0;
    RVS_CUDA_TRY(cudaEventSynchronize((cudaEvent_t)e1), err);
    RVS_CUDA_TRY(cudaEventElapsedTime(&f, (cudaEvent_t)e0, (cudaEvent_t)e1), err);
    *ms = f;
    return RVS_OK;
}

/* Start recording the work queued on s (and on streams that wait for s's events) as a graph. */
extern "C" rvs_status rvs_gpu_capture_begin(void *s, rvs_error *err)
{
    RVS_CUDA_TRY(cudaStreamBeginCapture((cudaStream_t)s, cudaStreamCaptureModeThreadLocal), err);
    return RVS_OK;
}

/* Stop recording on s and instantiate the graph into *exec. */
extern "C" rvs_status rvs_gpu_capture_end(void *s, void **exec, rvs_error *err)
{
    rvs_status st = RVS_OK;
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    *exec = NULL;
    RVS_CUDA_GO(cudaStreamEndCapture((cudaStream_t)s, &g));
    RVS_CUDA_GO(cudaGraphInstantiate(&x, g, 0));
    *exec = x;
done:
    if (g)
        cudaGraphDestroy(g);
    if (st != RVS_OK)
        cudaGetLastError(); /* a failed capture leaves a sticky launch error */
    return st;
}

/* Queue one replay of exec on s. */
extern "C" rvs_status rvs_gpu_graph_launch(void *exec, void *s, rvs_error *err)
{
    RVS_CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)exec, (cudaStream_t)s), err);
    return RVS_OK;
}

extern "C" void rvs_gpu_graph_destroy(void *exec)
{
    if (exec)
        cudaGraphExecDestroy((cudaGraphExec_t)exec);
}

/* Queue a copy of bytes host -> device on s (full speed when src is pinned). */
extern "C" rvs_status rvs_gpu_memcpy_h2d_async(void *dst, const void *src, size_t bytes, void *s, rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    RVS_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)s), err);
    return RVS_OK;
}

/* Queue a copy of bytes device -> host on s (asynchronous only when dst is pinned). */
extern "C" rvs_status rvs_gpu_memcpy_d2h_async(void *dst, const void *src, size_t bytes, void *s, rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    RVS_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)s), err);
    return RVS_OK;
}

/* Queue a copy of bytes device -> device on s. */
extern "C" rvs_status rvs_gpu_memcpy_d2d_async(void *dst, const void *src, size_t bytes, void *s, rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    RVS_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)s), err);
    return RVS_OK;
}

/* Queue a fill of bytes of device memory with byte on s. */
extern "C" rvs_status rvs_gpu_memset_async(void *p, int byte, size_t bytes, void *s, rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    RVS_CUDA_TRY(cudaMemsetAsync(p, byte, bytes, (cudaStream_t)s), err);
    return RVS_OK;
}

/* Free and total bytes of the current device. */
extern "C" rvs_status rvs_gpu_mem_info(size_t *free_bytes, size_t *total_bytes, rvs_error *err)
{
    *free_bytes = *total_bytes = 0;
    RVS_CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes), err);
    return RVS_OK;
}

/* *p = bytes of pinned (page-locked) host memory (NULL for 0 bytes). */
extern "C" rvs_status rvs_gpu_host_alloc(void **p, size_t bytes, rvs_error *err)
{
    *p = NULL;
    if (bytes == 0)
        return RVS_OK;
    cudaError_t e = cudaMallocHost(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        cudaGetLastError();
        return rvs_fail(err, e == cudaErrorMemoryAllocation ? RVS_ERR_NOMEM : RVS_ERR_DEVICE,
                        "cannot pin %zu bytes of host memory: %s", bytes, cudaGetErrorString(e));
    }
    return RVS_OK;
}

extern "C" void rvs_gpu_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
}

/* The IPC handle of the allocation p starts, as RVS_GPU_IPC_BYTES opaque bytes. */
extern "C" rvs_status rvs_gpu_ipc_export(void *handle, const void *p, rvs_error *err)
{
    static_assert(sizeof(cudaIpcMemHandle_t) == RVS_GPU_IPC_BYTES, "cudaIpcMemHandle_t is not 64 bytes");
    cudaIpcMemHandle_t h;
    memset(handle, 0, RVS_GPU_IPC_BYTES);
    cudaError_t e = cudaIpcGetMemHandle(&h, (void *)p);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not sticky, but a later launch check would see it */
        return rvs_fail(err, RVS_ERR_DEVICE, "cudaIpcGetMemHandle: %s", cudaGetErrorString(e));
    }
    memcpy(handle, &h, sizeof h);
    return RVS_OK;
}

/* *p = another process's allocation from its handle, mapped on the current device. */
extern "C" rvs_status rvs_gpu_ipc_open(void **p, const void *handle, rvs_error *err)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    *p = NULL;
    cudaError_t e = cudaIpcOpenMemHandle(p, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
        *p = NULL;
        cudaGetLastError();
        return rvs_fail(err, RVS_ERR_DEVICE, "cudaIpcOpenMemHandle: %s", cudaGetErrorString(e));
    }
    return RVS_OK;
}

extern "C" void rvs_gpu_ipc_close(void *p)
{
    if (p)
        cudaIpcCloseMemHandle(p);
}
