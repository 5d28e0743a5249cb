/* util.c - the engine's small shared helpers: structure hashing, device names, x and y
 * handling, clock and median */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "engine_internal.h"
#include "rvs_draw.h"

uint64_t rvs_hash_structure(uint64_t h, const rvs_csr *A)
{
    h = rvs_hash_i64(rvs_hash_i64(rvs_hash_i64(h, A->rows), A->cols), A->nnz);
    int64_t rs = A->rows / 4096 + 1, es = A->nnz / 4096 + 1;
    for (int64_t i = 0; i <= A->rows; i += rs)
        h = rvs_hash_i64(h, A->rowptr[i]);
    for (int64_t p = 0; p < A->nnz; p += es)
        h = rvs_hash_i64(h, rvs_csr_col(A, p));
    return h;
}

void rvs_device_name(rvs_device dev, char *buf, size_t n)
{
    if (dev == RVS_DEV_GPU)
        rvs_gpu_describe(buf, n);
    else
        snprintf(buf, n, "cpu/%dt", omp_get_max_threads());
}

/* Components of n values of vt: 2 per complex value. */
static int64_t components(int64_t n, rvs_vtype vt)
{
    return rvs_vtype_is_complex(vt) ? 2 * n : n;
}

void rvs_fill_x(void *x, double *xd, int64_t n, rvs_vtype vt, uint64_t seed)
{
    const int single = rvs_vtype_real(vt) == RVS_F32;
    for (int64_t j = 0; j < components(n, vt); j++) {
        const double v = rvs_draw(seed, j, single);
        if (x && !single)
            ((double *)x)[j] = v;
        else if (x)
            ((float *)x)[j] = (float)v;
        if (xd)
            xd[j] = v;
    }
}

void rvs_y_to_double(double *yd, const void *y, int64_t n, rvs_vtype vt)
{
    const int64_t m = components(n, vt);
    const int single = rvs_vtype_real(vt) == RVS_F32;
    if (!single && (const void *)yd == y)
        return; /* y is its own double copy */
#pragma omp parallel for schedule(static) if (m > 100000)
    for (int64_t i = 0; i < m; i++)
        yd[i] = single ? (double)((const float *)y)[i] : ((const double *)y)[i];
}

void rvs_fill_nan(void *y, int64_t n, rvs_vtype vt)
{
    const int64_t m = components(n, vt);
    const int single = rvs_vtype_real(vt) == RVS_F32;
#pragma omp parallel for schedule(static) if (m > 100000)
    for (int64_t i = 0; i < m; i++) {
        if (!single)
            ((double *)y)[i] = NAN;
        else
            ((float *)y)[i] = NAN;
    }
}

double rvs_engine_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Ascending doubles, for qsort. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rvs_engine_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
