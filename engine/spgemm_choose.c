/* spgemm_choose.c - where SpGEMM runs when the user does not say: a model of the end-to-end
 * time of the CPU kernel and of the GPU from the product count, its rates (built in, or
 * measured by spgemm --calibrate and recorded beside partition's calibration) and the rule. */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine_internal.h"
#include "rvs_engine_spgemm.h"

/* Built in: warm medians on an H100 machine with 16 CPU cores, fitted to the real shared
 * matrices, the stencils and R-MAT 16-17 in f64 and f32 (bench/notes-gpu-spgemm.md) */
#define DEFAULT_CPU_RATE 1.8e9 /* products/s, 16 threads */
#define DEFAULT_CPU_THREADS 16
#define DEFAULT_CPU_FIXED 0.45e-3 /* s: threads woken, per-thread accumulators, C allocated */
#define DEFAULT_GPU_RATE 3.5e9    /* products/s end to end, C copied back included */
#define DEFAULT_GPU_FIXED 0.25e-3 /* s */
#define DEFAULT_GPU_START 0.18    /* s: CUDA context and kernels loaded (spgemm's setup_s, cold) */
#define HYBRID_GAIN \
    0.6 /* the hybrid must beat the better side by 40%: its CPU rows are the longest and C is merged afterwards (bench/results) */
#define CAL_RUNS 5

void rvs_spgemm_rates_default(rvs_spgemm_rates *r)
{
    r->cpu_rate = DEFAULT_CPU_RATE;
    r->cpu_threads = DEFAULT_CPU_THREADS;
    r->cpu_fixed_s = DEFAULT_CPU_FIXED;
    r->gpu_rate = DEFAULT_GPU_RATE;
    r->gpu_fixed_s = DEFAULT_GPU_FIXED;
    r->gpu_start_s = DEFAULT_GPU_START;
    r->measured = 0;
}

/* Products of A*B without a per-row array. */
rvs_status rvs_spgemm_count_products(const rvs_csr *A, const rvs_csr *B, int64_t *total, rvs_error *err)
{
    int64_t s = 0;
    int bad = 0;
    if (A->cols != B->rows)
        return rvs_spgemm_check_args(A, B, err);
#pragma omp parallel for schedule(static) reduction(+ : s) reduction(| : bad)
    for (int64_t e = 0; e < A->nnz; e++) {
        const int64_t k = rvs_csr_col(A, e);
        if (__builtin_add_overflow(s, B->rowptr[k + 1] - B->rowptr[k], &s))
            bad = 1;
    }
    if (bad || s < 0)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "the number of products of A*B exceeds 2^63");
    *total = s;
    return RVS_OK;
}

/* The choice, with the estimates in why. */
rvs_spgemm_where rvs_spgemm_choose(int64_t products, const rvs_engine_devices *d, const rvs_spgemm_rates *r,
                                   double gpu_wait_s, double *cpu_share, char *why, size_t whylen)
{
    const double p = (double)products;
    const double cpu = r->cpu_rate * (double)d->cpu_threads / (double)(r->cpu_threads > 0 ? r->cpu_threads : 1);
    const double t_cpu = cpu > 0 ? r->cpu_fixed_s + p / cpu : 1e300;
    double t_gpu, t_hyb;
    if (cpu_share)
        *cpu_share = 0;
    if (d->gpus == 0) {
        snprintf(why, whylen, "%.3g products: no GPU (cpu %.3g s)", p, t_cpu);
        return RVS_SPGEMM_ON_CPU;
    }
    t_gpu = gpu_wait_s + r->gpu_fixed_s + p / r->gpu_rate;
    t_hyb = gpu_wait_s + r->gpu_fixed_s + p / (r->gpu_rate + cpu);
    if (gpu_wait_s > 0)
        snprintf(
            why, whylen,
            "%.3g products: cpu %.3g s, gpu %.3g s, hybrid %.3g s, %.3g s of them the device's start (%s rates)", p,
            t_cpu, t_gpu, t_hyb, gpu_wait_s, r->measured ? "calibrated" : "built-in");
    else
        snprintf(why, whylen, "%.3g products: cpu %.3g s, gpu %.3g s, hybrid %.3g s (%s rates)", p, t_cpu, t_gpu,
                 t_hyb, r->measured ? "calibrated" : "built-in");
    if (t_hyb < HYBRID_GAIN * (t_cpu < t_gpu ? t_cpu : t_gpu)) {
        if (cpu_share)
            *cpu_share = cpu / (r->gpu_rate + cpu);
        return RVS_SPGEMM_ON_HYBRID;
    }
    return t_gpu < t_cpu ? RVS_SPGEMM_ON_GPU : RVS_SPGEMM_ON_CPU;
}

#define SAMPLE_RUNS 64       /* runs of A's entries the estimate reads, spread over A */
#define SAMPLE_RUN 256       /* entries a run at most: 16K in all, read on one thread */
#define SAMPLE_SHARE 16      /* and at most 1/16 of A's entries */
#define SAMPLE_MARGIN 4.0    /* the estimate decides when the choice is the same 4x either side */
#define SAMPLE_MIN (1 << 18) /* fewer entries than this are counted whole: it costs less than the doubt */

/* An estimate of the products of A*B from SAMPLE_RUNS runs of A's entries spread over A, scaled
 * to all of A's entries. */
static double sample_products(const rvs_csr *A, const rvs_csr *B)
{
    const int64_t share = A->nnz / (SAMPLE_RUNS * SAMPLE_SHARE) + 1;
    const int64_t run = share < SAMPLE_RUN ? share : SAMPLE_RUN, step = A->nnz / SAMPLE_RUNS;
    int64_t s = 0, read = 0;
    for (int k = 0; k < SAMPLE_RUNS; k++)
        for (int64_t e = (int64_t)k * step; e < (int64_t)k * step + run && e < A->nnz; e++, read++) {
            const int64_t c = rvs_csr_col(A, e);
            s += B->rowptr[c + 1] - B->rowptr[c];
        }
    return read > 0 ? (double)s * (double)A->nnz / (double)read : 0;
}

/* The choice on this machine. The count of products costs a read of B's row lengths for every
 * entry of A (a third of a millisecond for 2M entries on 16 cores, 1.5 on 2: the GPU's whole
 * product takes 5): a sample of 16K entries decides where the choice is the same at a quarter
 * and at four times its estimate, and only a product near a change of choice is counted whole. */
rvs_status rvs_spgemm_decide(const rvs_csr *A, const rvs_csr *B, rvs_spgemm_where *where, double *cpu_share,
                             char *why, size_t whylen, rvs_error *err)
{
    rvs_engine_devices d;
    rvs_spgemm_rates r;
    rvs_error ignored;
    int64_t products = 0;
    if (A->cols != B->rows)
        return rvs_spgemm_check_args(A, B, err);
    rvs_engine_devices_probe(&d, 0, 0); /* the device's memory would start it: not needed */
    d.gpus = rvs_spgemm_gpu_present();
    if (rvs_spgemm_rates_load(&r, &ignored) != RVS_OK)
        rvs_spgemm_rates_default(&r);
    const double wait = rvs_spgemm_gpu_start_left(r.gpu_start_s);
    /* the sample only where no count can pass 2^63, so that the whole count's check is not lost */
    const int may_sample = A->nnz >= SAMPLE_MIN && (double)A->nnz * (double)B->cols < 0x1p62;
    const double est = may_sample ? sample_products(A, B) : -1;
    if (est >= 0) {
        char w[256];
        const rvs_spgemm_where lo = rvs_spgemm_choose((int64_t)(est / SAMPLE_MARGIN), &d, &r, wait, NULL, w,
                                                      sizeof w);
        const rvs_spgemm_where hi = rvs_spgemm_choose((int64_t)(est * SAMPLE_MARGIN), &d, &r, wait, NULL, w,
                                                      sizeof w);
        if (lo == hi) {
            *where = rvs_spgemm_choose((int64_t)est, &d, &r, wait, cpu_share, w, sizeof w);
            if (*where == lo) {
                if (why)
                    snprintf(why, whylen, "about %s (sampled)", w);
                return RVS_OK;
            }
        }
    }
    rvs_status st = rvs_spgemm_count_products(A, B, &products, err);
    if (st != RVS_OK)
        return st;
    *where = rvs_spgemm_choose(products, &d, &r, wait, cpu_share, why, whylen);
    return RVS_OK;
}

/* C = A*B where the model says. */
rvs_status rvs_spgemm_auto(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                           rvs_spgemm_stats *stats, rvs_spgemm_where *where, char *why, size_t whylen,
                           rvs_error *err)
{
    const double t0 = omp_get_wtime();
    rvs_spgemm_where w = RVS_SPGEMM_ON_CPU;
    rvs_spgemm_options oo;
    char buf[256];
    double share = 0, t_choice;
    rvs_status st;
    memset(C, 0, sizeof *C);
    if ((st = rvs_spgemm_decide(A, B, &w, &share, why ? why : buf, why ? whylen : sizeof buf, err)) != RVS_OK)
        return st;
    t_choice = omp_get_wtime() - t0;
    if (o)
        oo = *o;
    else
        memset(&oo, 0, sizeof oo);
    if (w == RVS_SPGEMM_ON_HYBRID && oo.hybrid_cpu_share == 0)
        oo.hybrid_cpu_share = share;
    st = w == RVS_SPGEMM_ON_GPU      ? rvs_spgemm_gpu(C, A, B, &oo, stats, err)
         : w == RVS_SPGEMM_ON_HYBRID ? rvs_spgemm_hybrid(C, A, B, &oo, stats, err)
                                     : rvs_spgemm_cpu(C, A, B, stats, err);
    if (st == RVS_ERR_NODEV && w != RVS_SPGEMM_ON_CPU) { /* presumed present, it was not */
        w = RVS_SPGEMM_ON_CPU;
        st = rvs_spgemm_cpu(C, A, B, stats, err);
    }
    if (where)
        *where = w;
    if (st == RVS_OK && stats) { /* the choice is part of the work before the product */
        stats->t_pre += t_choice;
        stats->t_total += t_choice;
    }
    return st;
}

/* ---- the calibration file ------------------------------------------------------------------- */

/* $RVS_SPGEMM_CALIBRATION, else ${XDG_CONFIG_HOME:-~/.config}/rvskit/spgemm-calibration
 * (folders made when mkdirs). */
static rvs_status rates_path(char *buf, size_t n, int mkdirs, rvs_error *err)
{
    return rvs_config_path(buf, n, "RVS_SPGEMM_CALIBRATION", "spgemm-calibration", mkdirs, err);
}

rvs_status rvs_spgemm_rates_save(const rvs_spgemm_rates *r, rvs_error *err)
{
    char path[4096], tmp[4200];
    rvs_status st;
    FILE *f;
    if ((st = rates_path(path, sizeof path, 1, err)) != RVS_OK)
        return st;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!(f = fopen(tmp, "w")))
        return rvs_fail(err, RVS_ERR_IO, "%s: %s", tmp, strerror(errno));
    int bad = fprintf(f,
                      "# spgemm --calibrate: products per second and seconds, end to end\n"
                      "cpu_rate %.6g\ncpu_threads %d\ncpu_fixed %.6g\ngpu_rate %.6g\ngpu_fixed %.6g\n"
                      "gpu_start %.6g\n",
                      r->cpu_rate, r->cpu_threads, r->cpu_fixed_s, r->gpu_rate, r->gpu_fixed_s, r->gpu_start_s) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        st = rvs_fail(err, RVS_ERR_IO, "%s: %s", path, strerror(errno));
        remove(tmp);
    }
    return st;
}

rvs_status rvs_spgemm_rates_load(rvs_spgemm_rates *r, rvs_error *err)
{
    char path[4096], line[256], key[32], extra;
    rvs_spgemm_rates v;
    rvs_status st;
    int seen = 0, lineno = 0;
    double x;
    FILE *f;
    if ((st = rates_path(path, sizeof path, 0, err)) != RVS_OK)
        return st;
    if (!(f = fopen(path, "r")))
        return rvs_fail(err, RVS_ERR_NOFILE, "%s: %s", path, strerror(errno));
    rvs_spgemm_rates_default(&v);
    while (st == RVS_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[strspn(line, " \t\r\n")] == 0 || line[strspn(line, " \t")] == '#')
            continue;
        if (sscanf(line, "%31s %lf %c", key, &x, &extra) != 2 || !(x >= 0) || x > 1e15)
            st = rvs_fail(err, RVS_ERR_FORMAT, "%s: line %d: expected 'KEY NUMBER'", path, lineno);
        else if (strcmp(key, "cpu_rate") == 0 && x > 0)
            v.cpu_rate = x, seen |= 1;
        else if (strcmp(key, "cpu_threads") == 0 && x >= 1)
            v.cpu_threads = (int)x, seen |= 2;
        else if (strcmp(key, "gpu_rate") == 0 && x > 0)
            v.gpu_rate = x, seen |= 4;
        else if (strcmp(key, "gpu_fixed") == 0)
            v.gpu_fixed_s = x, seen |= 8;
        else if (strcmp(key, "cpu_fixed") == 0)
            v.cpu_fixed_s = x;
        else if (strcmp(key, "gpu_start") == 0)
            v.gpu_start_s = x;
        else
            st = rvs_fail(err, RVS_ERR_FORMAT, "%s: line %d: unknown key or bad value '%s'", path, lineno, key);
    }
    fclose(f);
    if (st == RVS_OK && seen != 15)
        st = rvs_fail(err, RVS_ERR_FORMAT, "%s: needs cpu_rate, cpu_threads, gpu_rate and gpu_fixed", path);
    if (st == RVS_OK) {
        v.measured = 1;
        *r = v;
    }
    return st;
}

/* ---- measuring -------------------------------------------------------------------------------- */

/* The 27-point stencil on an n^3 grid (f64, diagonal 26, neighbours -1). */
static rvs_status stencil27(rvs_csr *A, int64_t n, rvs_error *err)
{
    const int64_t rows = n * n * n;
    rvs_status st = rvs_csr_alloc(A, rows, rows, 27 * rows, RVS_F64, err);
    int64_t e = 0;
    if (st != RVS_OK)
        return st;
    for (int64_t r = 0; r < rows; r++) {
        const int64_t x = r / (n * n), y = r / n % n, z = r % n;
        for (int64_t dx = -1; dx <= 1; dx++)
            for (int64_t dy = -1; dy <= 1; dy++)
                for (int64_t dz = -1; dz <= 1; dz++) {
                    if (x + dx < 0 || x + dx >= n || y + dy < 0 || y + dy >= n || z + dz < 0 || z + dz >= n)
                        continue;
                    const int64_t c = r + dx * n * n + dy * n + dz;
                    A->colind[e] = (int32_t)c;
                    ((double *)A->values)[e++] = c == r ? 26.0 : -1.0;
                }
        A->rowptr[r + 1] = e;
    }
    A->nnz = e;
    return RVS_OK;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median end-to-end seconds of CAL_RUNS warm runs of A*A on the GPU (gpu) or the CPU. */
static rvs_status time_runs(const rvs_csr *A, int gpu, double *seconds, rvs_error *err)
{
    double t[CAL_RUNS];
    for (int q = -1; q < CAL_RUNS; q++) {
        rvs_csr C;
        rvs_spgemm_stats s;
        rvs_status st = gpu ? rvs_spgemm_gpu(&C, A, A, NULL, &s, err) : rvs_spgemm_cpu(&C, A, A, &s, err);
        if (st != RVS_OK)
            return st;
        rvs_csr_free(&C);
        if (q >= 0)
            t[q] = s.t_total;
    }
    qsort(t, CAL_RUNS, sizeof *t, cmp_double);
    *seconds = t[CAL_RUNS / 2];
    return RVS_OK;
}

/* rate and fixed cost of a side from a small (ps products, ts s) and a large (pl, tl) run */
static void fit(int64_t ps, double ts, int64_t pl, double tl, double *rate, double *fixed)
{
    *rate = tl > ts ? (double)(pl - ps) / (tl - ts) : (double)pl / tl;
    *fixed = ts - (double)ps / *rate > 0 ? ts - (double)ps / *rate : 0;
}

rvs_status rvs_spgemm_calibrate(rvs_spgemm_rates *r, rvs_error *err)
{
    rvs_csr small = {0}, large = {0};
    int64_t ps = 0, pl = 0;
    double ts = 0, tl = 0, cs = 0, cl = 0;
    rvs_status st;
    rvs_spgemm_rates_default(r);
    if (rvs_spgemm_gpu_present()) { /* a cold start first, while nothing else runs */
        rvs_spgemm_gpu_start();
        const double took = rvs_spgemm_gpu_start_wait();
        if (took > 0)
            r->gpu_start_s = took;
    }
    if ((st = stencil27(&small, 12, err)) != RVS_OK || (st = stencil27(&large, 48, err)) != RVS_OK ||
        (st = rvs_spgemm_count_products(&small, &small, &ps, err)) != RVS_OK ||
        (st = rvs_spgemm_count_products(&large, &large, &pl, err)) != RVS_OK ||
        (st = time_runs(&small, 0, &cs, err)) != RVS_OK || (st = time_runs(&large, 0, &cl, err)) != RVS_OK)
        goto done;
    fit(ps, cs, pl, cl, &r->cpu_rate, &r->cpu_fixed_s);
    r->cpu_threads = omp_get_max_threads();
    if (rvs_gpu_count() > 0) {
        if ((st = time_runs(&small, 1, &ts, err)) != RVS_OK || (st = time_runs(&large, 1, &tl, err)) != RVS_OK)
            goto done;
        fit(ps, ts, pl, tl, &r->gpu_rate, &r->gpu_fixed_s);
    }
    r->measured = 1;
done:
    rvs_csr_free(&small);
    rvs_csr_free(&large);
    return st;
}
