/* calibrate.c - computing powers by benchmark (pmf-partitioning Section 5.3): SpMV throughput
 * of the GPU (ELLR), of one CPU core and of every thread (CSR) on a generated 3-D stencil, and
 * what a call pays besides: PCIe bandwidth of pinned copies each way and the round trip of a
 * tiny copy; recorded in a small text file for partition --cp auto and the default partition */
#include <errno.h>
#include <stddef.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine_internal.h"
#include "rvs_cpu.h"
#include "rvs_cusparse.h"

#define STENCIL_N 96 /* 96^3 rows, about 6.1 million non-zeros */
#define CPU_RUNS 7
#define GPU_RUNS 25
#define PCIE_RUNS 7
#define PCIE_BYTES ((size_t)64 << 20)

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
        const int64_t nb[7] = {i > 0 ? r - n * n : -1, j > 0 ? r - n : -1,     k > 0 ? r - 1 : -1,        r,
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

/* GFLOP/s of CSR SpMV on threads CPU threads: median of CPU_RUNS after a warm-up. */
static rvs_status measure_cpu(const rvs_csr *A, const double *x, double *y, int threads, double *gflops,
                              rvs_error *err)
{
    rvs_status st = RVS_OK;
    rvs_fmt F = {0};
    double t[CPU_RUNS];
    int saved = omp_get_max_threads();
    if ((st = rvs_fmt_from_csr(&F, RVS_FMT_CSR, A, NULL, err)) != RVS_OK)
        goto done;
    omp_set_num_threads(threads);
    for (int i = -1; i < CPU_RUNS && st == RVS_OK; i++) {
        double t0 = rvs_engine_now();
        st = rvs_cpu_spmv(&F, x, y, err);
        if (i >= 0)
            t[i] = rvs_engine_now() - t0;
    }
    omp_set_num_threads(saved);
    if (st == RVS_OK)
        *gflops = 2.0 * (double)A->nnz / rvs_engine_median(t, CPU_RUNS) / 1e9;
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
        *gflops = 2.0 * (double)A->nnz / rvs_engine_median(t, GPU_RUNS) / 1e9;
done:
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
    return st;
}

/* PCIe: GB/s of pinned copies of PCIE_BYTES each way (median of PCIE_RUNS, events), and the
 * host-clock round trip of an 8-byte copy there and back (the fixed cost of a call). */
static rvs_status measure_pcie(rvs_calibration *c, rvs_error *err)
{
    rvs_status st = RVS_OK;
    void *h = NULL, *d = NULL, *s = NULL, *e0 = NULL, *e1 = NULL;
    double t[2][PCIE_RUNS], lat[PCIE_RUNS];
    if ((st = rvs_gpu_host_alloc(&h, PCIE_BYTES, err)) || (st = rvs_gpu_malloc(&d, PCIE_BYTES, err)) ||
        (st = rvs_gpu_stream_create(&s, err)) || (st = rvs_gpu_event_create(&e0, err)) ||
        (st = rvs_gpu_event_create(&e1, err)))
        goto done;
    memset(h, 1, PCIE_BYTES);
    for (int i = -1; i < PCIE_RUNS && st == RVS_OK; i++)
        for (int dir = 0; dir < 2 && st == RVS_OK; dir++) {
            double ms = 0;
            if ((st = rvs_gpu_event_record(e0, s, err)) ||
                (st = dir ? rvs_gpu_memcpy_d2h_async(h, d, PCIE_BYTES, s, err)
                          : rvs_gpu_memcpy_h2d_async(d, h, PCIE_BYTES, s, err)) ||
                (st = rvs_gpu_event_record(e1, s, err)) || (st = rvs_gpu_event_elapsed(e0, e1, &ms, err)))
                break;
            if (i >= 0)
                t[dir][i] = ms;
        }
    for (int i = -1; i < PCIE_RUNS && st == RVS_OK; i++) {
        double t0 = rvs_engine_now();
        if ((st = rvs_gpu_memcpy_h2d_async(d, h, 8, s, err)) || (st = rvs_gpu_memcpy_d2h_async(h, d, 8, s, err)) ||
            (st = rvs_gpu_stream_sync(s, err)))
            break;
        if (i >= 0)
            lat[i] = (rvs_engine_now() - t0) * 1e6;
    }
    if (st == RVS_OK) {
        c->h2d_gbs = (double)PCIE_BYTES / (rvs_engine_median(t[0], PCIE_RUNS) * 1e-3) / 1e9;
        c->d2h_gbs = (double)PCIE_BYTES / (rvs_engine_median(t[1], PCIE_RUNS) * 1e-3) / 1e9;
        c->launch_us = rvs_engine_median(lat, PCIE_RUNS);
    }
done:
    rvs_gpu_event_destroy(e0);
    rvs_gpu_event_destroy(e1);
    rvs_gpu_stream_destroy(s);
    rvs_gpu_free(d);
    rvs_gpu_host_free(h);
    return st;
}

rvs_status rvs_calibrate(rvs_calibration *c, rvs_error *err)
{
    rvs_status st;
    rvs_csr A = {0};
    double *x = NULL, *y = NULL;
    memset(c, 0, sizeof *c);
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
    c->threads = omp_get_max_threads();
    if ((st = measure_cpu(&A, x, y, 1, &c->core_gflops, err)) != RVS_OK ||
        (st = measure_cpu(&A, x, y, c->threads, &c->cpu_gflops, err)) != RVS_OK)
        goto done;
    if (rvs_gpu_count() > 0 && (st = measure_gpu(&A, x, &c->gpu_gflops, err)) == RVS_OK)
        st = measure_pcie(c, err);
done:
    free(x);
    free(y);
    rvs_csr_free(&A);
    return st;
}

rvs_status rvs_config_path(char *buf, size_t n, const char *var, const char *file, int mkdirs, rvs_error *err)
{
    const char *env = getenv(var), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int len;
    if (env && env[0]) {
        len = snprintf(buf, n, "%s", env);
        return len < 0 || (size_t)len >= n ? rvs_fail(err, RVS_ERR_ARG, "%s is too long", var) : RVS_OK;
    }
    if (xdg && xdg[0])
        len = snprintf(buf, n, "%s/rvskit", xdg);
    else if (home && home[0])
        len = snprintf(buf, n, "%s/.config/rvskit", home);
    else
        return rvs_fail(err, RVS_ERR_NOFILE, "neither %s, XDG_CONFIG_HOME nor HOME is set", var);
    if (len < 0 || (size_t)len + strlen(file) + 2 > n)
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
    strcat(buf, "/");
    strcat(buf, file);
    return RVS_OK;
}

/* The calibration file's path into buf: $RVS_CALIBRATION, else the XDG config folder. */
static rvs_status calibration_path(char *buf, size_t n, int mkdirs, rvs_error *err)
{
    return rvs_config_path(buf, n, "RVS_CALIBRATION", "calibration", mkdirs, err);
}

/* The keys of the file after "gpu" (the GPU's rate over one core's) and "cpu" (1), and where
 * their values go. */
static const struct {
    const char *key;
    size_t offset;
} extra_keys[] = {
    {"gpu_gflops", offsetof(rvs_calibration, gpu_gflops)}, {"core_gflops", offsetof(rvs_calibration, core_gflops)},
    {"cpu_gflops", offsetof(rvs_calibration, cpu_gflops)}, {"h2d_gbs", offsetof(rvs_calibration, h2d_gbs)},
    {"d2h_gbs", offsetof(rvs_calibration, d2h_gbs)},       {"launch_us", offsetof(rvs_calibration, launch_us)},
};
#define NEXTRA ((int)(sizeof extra_keys / sizeof extra_keys[0]))

/* Write "gpu R\ncpu 1\n" (R = gpu / core rate) and the measured figures through a temporary
 * file renamed into place. */
rvs_status rvs_calibration_save(const rvs_calibration *c, rvs_error *err)
{
    char path[4096], tmp[4200];
    rvs_status st;
    FILE *f;
    if (!(c->core_gflops > 0) || !(c->gpu_gflops >= 0))
        return rvs_fail(err, RVS_ERR_ARG, "calibration: bad computing powers gpu %g, core %g", c->gpu_gflops,
                        c->core_gflops);
    /* a calibration weighs the GPU against a core: a GPU rate of 0 would make every GPU part
     * worthless to --cp auto and the default partition, so none is recorded */
    if (c->gpu_gflops == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no GPU rate was measured (no GPU): nothing recorded");
    if ((st = calibration_path(path, sizeof path, 1, err)) != RVS_OK)
        return st;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!(f = fopen(tmp, "w")))
        return rvs_fail(err, RVS_ERR_IO, "%s: %s", tmp, strerror(errno));
    int bad = fprintf(f, "gpu %.3f\ncpu 1\n", c->gpu_gflops / c->core_gflops) < 0;
    for (int i = 0; i < NEXTRA; i++) {
        double v = *(const double *)((const char *)c + extra_keys[i].offset);
        if (v > 0)
            bad |= fprintf(f, "%s %.6g\n", extra_keys[i].key, v) < 0;
    }
    if (c->threads > 0)
        bad |= fprintf(f, "threads %d\n", c->threads) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        st = rvs_fail(err, RVS_ERR_IO, "%s: %s", path, strerror(errno));
        remove(tmp);
        return st;
    }
    return RVS_OK;
}

/* Read the recorded figures ('#' comments, blank lines); "gpu" and "cpu" are required, the
 * rest optional. Without gpu_gflops/core_gflops the ratio is kept as gpu_gflops over a core
 * of 1. */
rvs_status rvs_calibration_load(rvs_calibration *c, rvs_error *err)
{
    char path[4096], line[256], key[16];
    rvs_status st;
    int have_gpu = 0, have_cpu = 0, lineno = 0;
    double v, ratio = 0, cpu = 0;
    FILE *f;
    memset(c, 0, sizeof *c);
    if ((st = calibration_path(path, sizeof path, 0, err)) != RVS_OK)
        return st;
    if (!(f = fopen(path, "r")))
        return rvs_fail(err, RVS_ERR_NOFILE, "%s: %s", path, strerror(errno));
    while (st == RVS_OK && fgets(line, sizeof line, f)) {
        char extra;
        int known = 0;
        lineno++;
        if (line[strspn(line, " \t\r\n")] == 0 || line[strspn(line, " \t")] == '#')
            continue;
        if (sscanf(line, "%15s %lf %c", key, &v, &extra) != 2 || !(v >= 0) || v > 1e12) {
            st = rvs_fail(err, RVS_ERR_FORMAT, "%s: line %d: expected 'KEY NUMBER'", path, lineno);
            break;
        }
        if (strcmp(key, "gpu") == 0)
            ratio = v, have_gpu = known = 1;
        else if (strcmp(key, "cpu") == 0)
            cpu = v, have_cpu = known = 1;
        else if (strcmp(key, "threads") == 0)
            c->threads = (int)v, known = 1;
        for (int i = 0; i < NEXTRA && !known; i++)
            if (strcmp(key, extra_keys[i].key) == 0) {
                *(double *)((char *)c + extra_keys[i].offset) = v;
                known = 1;
            }
        if (!known)
            st = rvs_fail(err, RVS_ERR_FORMAT, "%s: line %d: unknown key '%s'", path, lineno, key);
    }
    fclose(f);
    if (st == RVS_OK && (!have_gpu || !have_cpu || !(cpu > 0)))
        st = rvs_fail(err, RVS_ERR_FORMAT, "%s: needs a 'gpu' line and a positive 'cpu' line", path);
    if (st == RVS_OK && !(ratio > 0))
        st = rvs_fail(err, RVS_ERR_FORMAT, "%s: the GPU's computing power is 0 (recorded without a GPU?)", path);
    if (st == RVS_OK && !(c->core_gflops > 0 && c->gpu_gflops > 0)) {
        c->gpu_gflops = ratio / cpu; /* the ratio alone: rates in units of one core */
        c->core_gflops = 1;
    }
    return st;
}
