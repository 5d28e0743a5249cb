/* spmv_mixed.c - mixed-precision SpMV (spmv --precision mixed): the whole matrix with its values
 * rounded to f32, x, y and every sum in f64, in CSR or HCC (the formats with such kernels), on
 * the CPU or the GPU; the faster of the two formats by a short trial unless one is asked for */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_engine.h"
#include "rvs_gpu.h"

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of t[0..n) (sorted in place). */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* One format on one device, ready to run: F on the host, G, dx, dy on the GPU. */
typedef struct {
    rvs_fmt F;
    rvs_gpu_fmt G;
    double *dx, *dy;
    int gpu;
} runner;

static void runner_free(runner *r)
{
    if (r->gpu) {
        rvs_gpu_fmt_free(&r->G);
        rvs_gpu_free(r->dx);
        rvs_gpu_free(r->dy);
    }
    rvs_fmt_free(&r->F);
    memset(r, 0, sizeof *r);
}

/* Build fmt from the f32 hub A32 on the device; x goes up once (GPU). */
static rvs_status runner_make(runner *r, const rvs_csr *A32, rvs_format_id fmt, int gpu, const double *x,
                              rvs_error *err)
{
    rvs_fmt_options fo;
    rvs_fmt_options_default(&fo);
    memset(r, 0, sizeof *r);
    rvs_status st = rvs_fmt_from_csr(&r->F, fmt, A32, &fo, err);
    if (st != RVS_OK || !gpu)
        return st;
    r->gpu = 1;
    const size_t xb = (size_t)A32->cols * sizeof(double) + 8, yb = (size_t)A32->rows * sizeof(double) + 8;
    if ((st = rvs_gpu_upload(&r->G, &r->F, err)) == RVS_OK &&
        (st = rvs_gpu_malloc((void **)&r->dx, xb, err)) == RVS_OK &&
        (st = rvs_gpu_malloc((void **)&r->dy, yb, err)) == RVS_OK)
        st = rvs_gpu_memcpy_h2d(r->dx, x, (size_t)A32->cols * sizeof(double), err);
    return st;
}

/* One call's kernel time in ms (GPU: CUDA events; CPU: wall clock). */
static rvs_status runner_once(runner *r, const double *x, double *y, double *ms, rvs_error *err)
{
    if (r->gpu)
        return rvs_gpu_spmv_mixed_timed(&r->G, r->dx, r->dy, NULL, ms, err);
    const double t0 = omp_get_wtime();
    rvs_status st = rvs_cpu_spmv_mixed(&r->F, x, y, err);
    *ms = (omp_get_wtime() - t0) * 1e3;
    return st;
}

/* Median of one warm-up plus n timed calls. */
static rvs_status runner_time(runner *r, const double *x, double *y, int n, double *med, rvs_error *err)
{
    double *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    rvs_status st = RVS_OK;
    for (int i = -1; i < n && st == RVS_OK; i++)
        st = runner_once(r, x, y, i >= 0 ? &t[i] : med, err);
    if (st == RVS_OK)
        *med = median(t, n);
    free(t);
    return st;
}

/* A whole call on the GPU: x in, SpMV, y out, waited for; y of the call into y. */
static rvs_status runner_call(runner *r, const double *x, double *y, double *ms, rvs_error *err)
{
    const double t0 = omp_get_wtime();
    rvs_status st = rvs_gpu_memcpy_h2d(r->dx, x, (size_t)r->F.cols * sizeof(double), err);
    if (st == RVS_OK)
        st = rvs_gpu_spmv_mixed(&r->G, r->dx, r->dy, NULL, NULL, err);
    if (st == RVS_OK)
        st = rvs_gpu_memcpy_d2h(y, r->dy, (size_t)r->F.rows * sizeof(double), err);
    *ms = (omp_get_wtime() - t0) * 1e3;
    return st;
}

void rvs_mixed_options_default(rvs_mixed_options *o)
{
    memset(o, 0, sizeof *o);
    o->iters = 10;
    o->trial_iters = 5;
}

rvs_status rvs_spmv_mixed(const rvs_csr *A, const rvs_mixed_options *o, const double *x, double *y, rvs_csr *A32,
                          rvs_mixed_result *R, rvs_error *err)
{
    static const rvs_format_id cand[2] = {RVS_FMT_CSR, RVS_FMT_HCC};
    const int gpu = o->device == RVS_DEV_GPU;
    runner r;
    memset(&r, 0, sizeof r);
    memset(R, 0, sizeof *R);
    memset(A32, 0, sizeof *A32);
    R->trial_ms[0] = R->trial_ms[1] = -1;
    if (o->format && o->format != RVS_FMT_CSR && o->format != RVS_FMT_HCC)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "mixed precision has kernels for csr and hcc only, not %s",
                        rvs_format_lookup(o->format) ? rvs_format_lookup(o->format)->name : "that format");
    rvs_status st = rvs_csr_copy(A32, A, err);
    if (st == RVS_OK)
        st = rvs_csr_convert_values(A32, RVS_F32, err);
    R->format = o->format;
    for (int k = 0; k < 2 && st == RVS_OK && !o->format; k++) { /* the short trial */
        if ((st = runner_make(&r, A32, cand[k], gpu, x, err)) == RVS_OK)
            st = runner_time(&r, x, y, o->trial_iters > 0 ? o->trial_iters : 1, &R->trial_ms[k], err);
        runner_free(&r);
        if (st == RVS_OK && (!R->format || R->trial_ms[k] < R->trial_ms[k - 1]))
            R->format = cand[k];
    }
    if (st == RVS_OK && (st = runner_make(&r, A32, R->format, gpu, x, err)) == RVS_OK) {
        R->bytes = (double)rvs_spmv_bytes(&r.F) + 4.0 * (double)(A->rows + A->cols) /* x and y are f64 */
                   - (double)(r.gpu ? rvs_gpu_bytes_saved(&r.G) : 0);               /* values coded at upload */
        if ((st = runner_time(&r, x, y, o->iters, &R->kernel_ms, err)) == RVS_OK && gpu) {
            double *t = malloc((size_t)o->iters * sizeof *t);
            if (!t)
                st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
            for (int i = 0; st == RVS_OK && i < o->iters; i++)
                st = runner_call(&r, x, y, &t[i], err);
            if (st == RVS_OK)
                R->call_ms = median(t, o->iters);
            free(t);
        } else {
            R->call_ms = R->kernel_ms;
        }
        /* y of one more call into a poisoned y: a row the kernel leaves unwritten shows */
        double ms;
        if (st == RVS_OK && gpu &&
            (st = rvs_gpu_memset(r.dy, 0xff, (size_t)A->rows * sizeof(double), err)) == RVS_OK)
            st = runner_call(&r, x, y, &ms, err);
        else if (st == RVS_OK && !gpu) {
            memset(y, 0xff, (size_t)A->rows * sizeof(double));
            st = runner_once(&r, x, y, &ms, err);
        }
    }
    runner_free(&r);
    if (st != RVS_OK)
        rvs_csr_free(A32);
    return st;
}
