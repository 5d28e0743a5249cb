/* async_stub.c - streams, events, graphs, async copies, pinned memory and IPC handles in a build
 * without CUDA: every call RVS_ERR_NODEV, the destroy/free/close calls do nothing */
#include <stddef.h>
#include "rvs_gpu.h"

static rvs_status nodev(rvs_error *err)
{
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}

rvs_status rvs_gpu_stream_create(void **s, rvs_error *err)
{
    *s = NULL;
    return nodev(err);
}
void rvs_gpu_stream_destroy(void *s)
{
    (void)s;
}
rvs_status rvs_gpu_stream_sync(void *s, rvs_error *err)
{
    (void)s;
    return nodev(err);
}
rvs_status rvs_gpu_event_create(void **e, rvs_error *err)
{
    *e = NULL;
    return nodev(err);
}
void rvs_gpu_event_destroy(void *e)
{
    (void)e;
}
rvs_status rvs_gpu_event_record(void *e, void *s, rvs_error *err)
{
    (void)e;
    (void)s;
    return nodev(err);
}
rvs_status rvs_gpu_stream_wait(void *s, void *e, rvs_error *err)
{
    (void)s;
    (void)e;
    return nodev(err);
}
rvs_status rvs_gpu_event_elapsed(void *e0, void *e1, double *ms, rvs_error *err)
{
    (void)e0;
    (void)e1;
    *ms = 0;
    return nodev(err);
}
rvs_status rvs_gpu_mem_info(size_t *f, size_t *t, rvs_error *err)
{
    *f = *t = 0;
    return nodev(err);
}
rvs_status rvs_gpu_capture_begin(void *s, rvs_error *err)
{
    (void)s;
    return nodev(err);
}
rvs_status rvs_gpu_capture_end(void *s, void **exec, rvs_error *err)
{
    (void)s;
    *exec = NULL;
    return nodev(err);
}
rvs_status rvs_gpu_graph_launch(void *exec, void *s, rvs_error *err)
{
    (void)exec;
    (void)s;
    return nodev(err);
}
void rvs_gpu_graph_destroy(void *exec)
{
    (void)exec;
}
rvs_status rvs_gpu_memcpy_h2d_async(void *d, const void *s, size_t b, void *st, rvs_error *err)
{
    (void)d;
    (void)s;
    (void)b;
    (void)st;
    return nodev(err);
}
rvs_status rvs_gpu_memcpy_d2h_async(void *d, const void *s, size_t b, void *st, rvs_error *err)
{
    (void)d;
    (void)s;
    (void)b;
    (void)st;
    return nodev(err);
}
rvs_status rvs_gpu_memcpy_d2d_async(void *d, const void *s, size_t b, void *st, rvs_error *err)
{
    (void)d;
    (void)s;
    (void)b;
    (void)st;
    return nodev(err);
}
rvs_status rvs_gpu_memset_async(void *p, int v, size_t b, void *s, rvs_error *err)
{
    (void)p;
    (void)v;
    (void)b;
    (void)s;
    return nodev(err);
}
rvs_status rvs_gpu_host_alloc(void **p, size_t bytes, rvs_error *err)
{
    (void)bytes;
    *p = NULL;
    return nodev(err);
}
void rvs_gpu_host_free(void *p)
{
    (void)p;
}
rvs_status rvs_gpu_ipc_export(void *handle, const void *p, rvs_error *err)
{
    (void)handle;
    (void)p;
    return nodev(err);
}
rvs_status rvs_gpu_ipc_open(void **p, const void *handle, rvs_error *err)
{
    (void)handle;
    *p = NULL;
    return nodev(err);
}
void rvs_gpu_ipc_close(void *p)
{
    (void)p;
}
