/* partition_default.c - the partition a machine gets without --cp (partition(1) documents the
 * rule): for one device the parts are buckets of similar row length, counted from the PMF
 * (kernels switch regime at about 8, 32 and 256 entries a row), and a CPU part is added only
 * when the calibrated model says it shortens a whole call (x in, SpMV, y out) by 5% or more */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"

#define NCLASS 4
static const int64_t class_top[NCLASS - 1] = {8, 32, 256}; /* the last class is unbounded */
#define MIN_SHARE 0.05 /* a bucket under this share of the entries joins its neighbour */
#define MIN_GAIN 0.05  /* a CPU part must shorten a call by this much */
#define MAX_SHARE 0.9  /* the GPU keeps a part: --gpu runs the same partition */

/* Entries of each row-length class of A, then merged: share[c] of the entries, 0 for merged. */
static int buckets(const rvs_csr *A, double share[NCLASS])
{
    int64_t nnz[NCLASS] = {0}, rows[NCLASS] = {0};
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        int c = 0;
        while (c < NCLASS - 1 && len > class_top[c])
            c++;
        nnz[c] += len;
        rows[c]++;
    }
    int alive = 0;
    for (int c = 0; c < NCLASS; c++) {
        share[c] = A->nnz ? (double)nnz[c] / (double)A->nnz : (rows[c] ? 1.0 : 0.0);
        alive += share[c] > 0;
    }
    while (alive > 1) { /* merge the smallest bucket under MIN_SHARE into its nearest live neighbour */
        int s = -1;
        for (int c = 0; c < NCLASS; c++)
            if (share[c] > 0 && share[c] < MIN_SHARE && (s < 0 || share[c] < share[s]))
                s = c;
        if (s < 0)
            break;
        int to = -1;
        for (int c = s + 1; c < NCLASS && to < 0; c++)
            if (share[c] > 0)
                to = c;
        for (int c = s - 1; c >= 0 && to < 0; c--)
            if (share[c] > 0)
                to = c;
        share[to] += share[s];
        share[s] = 0;
        alive--;
    }
    return alive > 0 ? alive : 1;
}

/* The CPU's share of the entries that balances a call, and the call's time with it over the
 * time without (model over the calibrated figures); 1 when the model has no figures. */
static double cpu_share(const rvs_csr *A, rvs_alg alg, const rvs_calibration *cal, double *f)
{
    *f = 0;
    if (!(cal->gpu_gflops > 0 && cal->cpu_gflops > 0 && cal->h2d_gbs > 0 && cal->d2h_gbs > 0) ||
        (alg != RVS_ALG_ROWS && alg != RVS_ALG_NNZ && alg != RVS_ALG_PMF))
        return 1;
    const double vs = (double)rvs_vtype_size(A->vtype), flops = 2.0 * (double)A->nnz;
    const double in = cal->launch_us * 1e-6 + (double)A->cols * vs / (cal->h2d_gbs * 1e9);
    const double kg = flops / (cal->gpu_gflops * 1e9), kc = flops / (cal->cpu_gflops * 1e9);
    const double out = (double)A->rows * vs / (cal->d2h_gbs * 1e9);
    const double t0 = in + kg + out;
    /* rows and nnz: the CPU's rows are a block whose y never crosses PCIe; pmf: its rows are
     * scattered, so all of y comes back and only kernel time is shared */
    const double moved = alg == RVS_ALG_PMF ? kg : kg + out, fixed = alg == RVS_ALG_PMF ? out : 0;
    *f = (in + moved + fixed) / (moved + kc); /* both sides finish together */
    if (*f > MAX_SHARE)
        *f = MAX_SHARE;
    const double gpu_side = in + (1 - *f) * moved + fixed, cpu_side = *f * kc;
    /* pmf: the CPU's scattered rows go into y after it arrived (read and write, ~10 GB/s) */
    const double put = alg == RVS_ALG_PMF ? *f * (double)A->rows * vs * 2 / 10e9 : 0;
    return ((gpu_side > cpu_side ? gpu_side : cpu_side) + put) / t0;
}

rvs_status rvs_default_cp(const rvs_csr *A, rvs_alg alg, int gpus, const rvs_calibration *cal, double **cp,
                          rvs_device **dev, int *k, char *note, size_t notelen, rvs_error *err)
{
    double share[NCLASS], f = 0, ratio = 1;
    int nb = alg == RVS_ALG_DIAG ? 2 : buckets(A, share);
    if (gpus > 0 && cal && alg != RVS_ALG_DIAG)
        ratio = cpu_share(A, alg, cal, &f);
    int cpu = gpus > 0 && ratio <= 1 - MIN_GAIN && f > 0;
    *k = nb + cpu;
    *cp = malloc((size_t)*k * sizeof **cp);
    *dev = malloc((size_t)*k * sizeof **dev);
    if (!*cp || !*dev) {
        free(*cp);
        free(*dev);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    }
    int i = 0;
    for (int c = 0; alg != RVS_ALG_DIAG && c < NCLASS; c++)
        if (share[c] > 0 && i < nb)
            (*cp)[i++] = share[c] * (1 - (cpu ? f : 0));
    for (; i < nb; i++)
        (*cp)[i] = 1.0;
    for (i = 0; i < nb; i++)
        (*dev)[i] = gpus > 0 ? RVS_DEV_GPU : RVS_DEV_CPU;
    if (cpu) {
        (*cp)[nb] = f;
        (*dev)[nb] = RVS_DEV_CPU;
    }
    if (note)
        snprintf(note, notelen, "%d part%s of similar row length on the %s%s", nb, nb == 1 ? "" : "s",
                 gpus > 0 ? "GPU" : "CPU", cpu ? ", and a CPU part: the calibrated model shortens a call" : "");
    if (note && cpu)
        snprintf(note + strlen(note), notelen - strlen(note), " to %.0f%%", 100 * ratio);
    return RVS_OK;
}
