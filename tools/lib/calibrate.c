/* calibrate.c - computing powers by benchmark (pmf-partitioning Section 5.3): SpMV throughput
 * of the GPU (ELLR) and of one CPU core (CSR) on a generated 3-D stencil, recorded in a small
 * text file for partition --cp auto */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rvs_calibrate.h"
#include "rvs_cpu.h"
#include "rvs_cusparse.h"
#include "rvs_tool.h"

#define STENCIL_N 96      /* 96^3 rows, about 6.1 million non-zeros */
#define CPU_RUNS 7
#define GPU_RUNS 25

/* Ascending doubles, for qsort. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n >= 1 values (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A = the 7-point Laplacian on an n x n x n grid (f64, columns sorted). */
static rvs_status stencil_3d(rvs_csr *A, int64_t n, rvs_error *err)
{
    int64_t rows = n * n * n, nnz = 0;
    rvs_status st = rvs_csr_alloc(A, rows, rows, 7 * rows, RVS_F64, err);
    if (st != RVS_OK)
        return st;
    double *va = A->values;
    for (int64_t r = 0; r < rows; r++) {
        int64_t i = r / (n * n), j = r / n % n, k = r % n;
        const int64_t nb[7] = {i > 0 ? r - n * n : -1, j > 0 ? r - n : -1, k > 0 ? r - 1 : -1, r,
                               k < n - 1 ? r + 1 : -1, j < n - 1 ? r + n : -1, i < n - 1 ? r + n * n : -1};
        for (int q = 0; q < 7; q++) {
            if (nb[q] < 0)
                continue;
            A->colind[nnz] = (int32_t)nb[q];
            va[nnz++] = nb[q] == r ? 6.0 : -1.0;
        }
        A->rowptr[r + 1] = nnz;
    }
    A->nnz = nnz;
    return RVS_OK;
}

/* GFLOP/s of CSR SpMV on one CPU thread: median of CPU_RUNS after a warm-up. */
static rvs_status measure_core(const rvs_csr *A, const double *x, double *y, double *gflops, rvs_error *err)
{
    rvs_status st = RVS_OK;
    rvs_fmt F = {0};
    double t[CPU_RUNS];
    int saved = omp_get_max_threads();
    if ((st = rvs_fmt_from_csr(&F, RVS_FMT_CSR, A, NULL, err)) != RVS_OK)
        goto done;
    omp_set_num_threads(1);
    for (int i = -1; i < CPU_RUNS && st == RVS_OK; i++) {
        double t0 = rvs_tool_now();
        st = rvs_cpu_spmv(&F, x, y, err);
        if (i >= 0)
            t[i] = rvs_tool_now() - t0;
    }
    omp_set_num_threads(saved);
    if (st == RVS_OK)
        *gflops = 2.0 * (double)A->nnz / median(t, CPU_RUNS) / 1e9;
done:
    rvs_fmt_free(&F);
    return st;
}

/* GFLOP/s of SpMV on the GPU in ELLR (CSR where this build has no ELLR builder): median of
 * GPU_RUNS event-timed runs after a warm-up. */
static rvs_status measure_gpu(const rvs_csr *A, const double *x, double *gflops, rvs_error *err)
{
    rvs_status st;
    rvs_fmt F = {0};
    rvs_gpu_fmt G = {0};
    void *dx = NULL, *dy = NULL;
    double t[GPU_RUNS], ms = 0;
    if (rvs_fmt_from_csr(&F, RVS_FMT_ELLR, A, NULL, err) != RVS_OK) {
        rvs_fmt_free(&F);
        if ((st = rvs_fmt_from_csr(&F, RVS_FMT_CSR, A, NULL, err)) != RVS_OK)
            goto done;
    }
    if ((st = rvs_gpu_upload(&G, &F, err)) != RVS_OK ||
        (st = rvs_gpu_malloc(&dx, (size_t)A->cols * sizeof(double), err)) != RVS_OK ||
        (st = rvs_gpu_malloc(&dy, (size_t)A->rows * sizeof(double), err)) != RVS_OK ||
        (st = rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * sizeof(double), err)) != RVS_OK)
        goto done;
    for (int i = -1; i < GPU_RUNS && st == RVS_OK; i++) {
        st = rvs_gpu_spmv_timed(&G, dx, dy, NULL, &ms, err);
        if (i >= 0)
            t[i] = ms * 1e-3;
    }
    if (st == RVS_OK)
        *gflops = 2.0 * (double)A->nnz / median(t, GPU_RUNS) / 1e9;
done:
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
    return st;
}

/* *cp_gpu, *cp_core = measured SpMV GFLOP/s of the GPU (0 without one) and of one core. */
rvs_status rvs_calibrate(double *cp_gpu, double *cp_core, rvs_error *err)
{
    rvs_status st;
    rvs_csr A = {0};
    double *x = NULL, *y = NULL;
    *cp_gpu = *cp_core = 0;
    if ((st = stencil_3d(&A, STENCIL_N, err)) != RVS_OK)
        goto done;
    x = malloc((size_t)A.cols * sizeof *x);
    y = malloc((size_t)A.rows * sizeof *y);
    if (!x || !y) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the benchmark vectors");
        goto done;
    }
    for (int64_t j = 0; j < A.cols; j++)
        x[j] = 1.0 - (double)(j % 17) / 8.0;
    if ((st = measure_core(&A, x, y, cp_core, err)) != RVS_OK)
        goto done;
    if (rvs_gpu_count() > 0)
        st = measure_gpu(&A, x, cp_gpu, err);
done:
    free(x);
    free(y);
    rvs_csr_free(&A);
    return st;
}

/* The calibration file's path into buf: $RVS_CALIBRATION, else the XDG config folder.
 * mkdirs != 0 creates the folders on the way. */
static rvs_status calibration_path(char *buf, size_t n, int mkdirs, rvs_error *err)
{
    const char *env = getenv("RVS_CALIBRATION"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int len;
    if (env && env[0]) {
        len = snprintf(buf, n, "%s", env);
        return len < 0 || (size_t)len >= n ? rvs_fail(err, RVS_ERR_ARG, "RVS_CALIBRATION is too long") : RVS_OK;
    }
    if (xdg && xdg[0])
        len = snprintf(buf, n, "%s/rvskit", xdg);
    else if (home && home[0])
        len = snprintf(buf, n, "%s/.config/rvskit", home);
    else
        return rvs_fail(err, RVS_ERR_NOFILE, "neither RVS_CALIBRATION, XDG_CONFIG_HOME nor HOME is set");
    if (len < 0 || (size_t)len + sizeof "/calibration" > n)
        return rvs_fail(err, RVS_ERR_ARG, "configuration path is too long");
    if (mkdirs) {
        /* the parent of rvskit/ may be ~/.config, which may not exist yet */
        char *slash = strrchr(buf, '/');
        *slash = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return rvs_fail(err, RVS_ERR_IO, "%s: %s", buf, strerror(errno));
        *slash = '/';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return rvs_fail(err, RVS_ERR_IO, "%s: %s", buf, strerror(errno));
    }
    strcat(buf, "/calibration");
    return RVS_OK;
}

/* Write "gpu R\ncpu 1\n" (R = cp_gpu / cp_core) through a temporary file renamed into place. */
rvs_status rvs_calibration_save(double cp_gpu, double cp_core, rvs_error *err)
{
    char path[4096], tmp[4200];
    rvs_status st;
    FILE *f;
    if (!(cp_core > 0) || !(cp_gpu >= 0))
        return rvs_fail(err, RVS_ERR_ARG, "calibration: bad computing powers gpu %g, core %g", cp_gpu, cp_core);
    if ((st = calibration_path(path, sizeof path, 1, err)) != RVS_OK)
        return st;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!(f = fopen(tmp, "w")))
        return rvs_fail(err, RVS_ERR_IO, "%s: %s", tmp, strerror(errno));
    int bad = fprintf(f, "gpu %.3f\ncpu 1\n", cp_gpu / cp_core) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        st = rvs_fail(err, RVS_ERR_IO, "%s: %s", path, strerror(errno));
        remove(tmp);
        return st;
    }
    return RVS_OK;
}

/* Read the recorded powers ("gpu R" and "cpu C" lines, '#' comments); one core is cp_core. */
rvs_status rvs_calibration_load(double *cp_gpu, double *cp_core, rvs_error *err)
{
    char path[4096], line[256], key[16];
    rvs_status st;
    int have_gpu = 0, have_cpu = 0, lineno = 0;
    double v;
    FILE *f;
    if ((st = calibration_path(path, sizeof path, 0, err)) != RVS_OK)
        return st;
    if (!(f = fopen(path, "r")))
        return rvs_fail(err, RVS_ERR_NOFILE, "%s: %s", path, strerror(errno));
    while (st == RVS_OK && fgets(line, sizeof line, f)) {
        char extra;
        lineno++;
        if (line[strspn(line, " \t\r\n")] == 0 || line[strspn(line, " \t")] == '#')
            continue;
        if (sscanf(line, "%15s %lf %c", key, &v, &extra) != 2 || !(v >= 0) || v > 1e12)
            st = rvs_fail(err, RVS_ERR_FORMAT, "%s: line %d: expected 'gpu NUMBER' or 'cpu NUMBER'", path, lineno);
        else if (strcmp(key, "gpu") == 0)
            *cp_gpu = v, have_gpu = 1;
        else if (strcmp(key, "cpu") == 0)
            *cp_core = v, have_cpu = 1;
        else
            st = rvs_fail(err, RVS_ERR_FORMAT, "%s: line %d: unknown key '%s'", path, lineno, key);
    }
    fclose(f);
    if (st == RVS_OK && (!have_gpu || !have_cpu || !(*cp_core > 0)))
        st = rvs_fail(err, RVS_ERR_FORMAT, "%s: needs a 'gpu' line and a positive 'cpu' line", path);
    return st;
}
