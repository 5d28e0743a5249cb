/* gpu_stub.c - the GPU interface in a build without CUDA: no devices, every call RVS_ERR_NODEV */
#include <stdio.h>
#include <string.h>
#include "rvs_gpu.h"

int rvs_gpu_count(void)
{
    return 0;
}
void rvs_gpu_describe(char *buf, size_t n)
{
    snprintf(buf, n, "none (built without CUDA)");
}
void rvs_gpu_memory_peak(double *bytes_per_s, double *l2_bytes)
{
    *bytes_per_s = 0;
    *l2_bytes = 0;
}

static rvs_status nodev(rvs_error *err)
{
    return rvs_fail(err, RVS_ERR_NODEV, "this rvskit was built without CUDA");
}

rvs_status rvs_gpu_upload(rvs_gpu_fmt *G, const rvs_fmt *F, rvs_error *err)
{
    (void)F;
    memset(G, 0, sizeof *G);
    return nodev(err);
}
void rvs_gpu_fmt_free(rvs_gpu_fmt *G)
{
    memset(G, 0, sizeof *G);
}
rvs_status rvs_gpu_set_rows(rvs_gpu_fmt *G, const int64_t *rows, int accumulate, rvs_error *err)
{
    (void)G;
    (void)rows;
    (void)accumulate;
    return nodev(err);
}
const rvs_array *rvs_gpu_array(const rvs_gpu_fmt *G, const char *name)
{
    (void)G;
    (void)name;
    return NULL;
}
int64_t rvs_gpu_bytes_saved(const rvs_gpu_fmt *G)
{
    (void)G;
    return 0;
}
rvs_status rvs_gpu_spmv(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t, void *stream,
                        rvs_error *err)
{
    (void)G;
    (void)dx;
    (void)dy;
    (void)t;
    (void)stream;
    return nodev(err);
}
rvs_status rvs_gpu_spmv_mixed(const rvs_gpu_fmt *G, const double *dx, double *dy, const rvs_gpu_tune *t,
                              void *stream, rvs_error *err)
{
    (void)G;
    (void)dx;
    (void)dy;
    (void)t;
    (void)stream;
    return nodev(err);
}
rvs_status rvs_gpu_spmv_mixed_timed(const rvs_gpu_fmt *G, const double *dx, double *dy, const rvs_gpu_tune *t,
                                    double *ms, rvs_error *err)
{
    (void)G;
    (void)dx;
    (void)dy;
    (void)t;
    *ms = 0;
    return nodev(err);
}
rvs_status rvs_gpu_malloc(void **p, size_t bytes, rvs_error *err)
{
    (void)bytes;
    *p = NULL;
    return nodev(err);
}
void rvs_gpu_free(void *p)
{
    (void)p;
}
rvs_status rvs_gpu_memcpy_h2d(void *d, const void *s, size_t b, rvs_error *err)
{
    (void)d;
    (void)s;
    (void)b;
    return nodev(err);
}
rvs_status rvs_gpu_h2d_staged(void *d, const void *s, size_t b, int t, size_t sb, rvs_error *err)
{
    (void)d;
    (void)s;
    (void)b;
    (void)t;
    (void)sb;
    return nodev(err);
}
void rvs_gpu_upload_rule_get(rvs_upload_rule *r)
{
    memset(r, 0, sizeof *r);
}
void rvs_gpu_upload_rule_set(const rvs_upload_rule *r)
{
    (void)r;
}
rvs_status rvs_gpu_memcpy_d2h(void *d, const void *s, size_t b, rvs_error *err)
{
    (void)d;
    (void)s;
    (void)b;
    return nodev(err);
}
rvs_status rvs_gpu_compare_rows(const rvs_gpu_fmt *G, int64_t rows, rvs_vtype vt, const void *a, const void *b,
                                double *diff, double *big, int *bad, rvs_error *err)
{
    (void)G;
    (void)rows;
    (void)vt;
    (void)a;
    (void)b;
    *diff = *big = 0;
    *bad = 1;
    return nodev(err);
}

rvs_status rvs_gpu_memset(void *p, int v, size_t b, rvs_error *err)
{
    (void)p;
    (void)v;
    (void)b;
    return nodev(err);
}
rvs_status rvs_gpu_sync(rvs_error *err)
{
    return nodev(err);
}
rvs_status rvs_gpu_fill_drawn(void *dx, int64_t n, rvs_vtype vt, uint64_t seed, rvs_error *err)
{
    (void)dx;
    (void)n;
    (void)vt;
    (void)seed;
    return nodev(err);
}
rvs_status rvs_gpu_host_register(void *p, size_t b, rvs_error *err)
{
    (void)p;
    (void)b;
    return nodev(err);
}
void rvs_gpu_host_unregister(void *p)
{
    (void)p;
}
