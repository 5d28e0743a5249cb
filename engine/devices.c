/* devices.c - what processors the engine can plan for */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include "rvs_engine.h"
#include "rvs_cusparse.h"
#include "rvs_gpu.h"

/* Processors at hand: CPU threads (capped by threads > 0) and, when asked, the GPUs. */
void rvs_engine_devices_probe(rvs_engine_devices *d, int threads, int probe_gpu)
{
    memset(d, 0, sizeof *d);
    d->cpu_threads = threads > 0 ? threads : omp_get_max_threads();
    if (probe_gpu) {
        size_t total = 0;
        d->gpus = rvs_gpu_count();
        rvs_gpu_describe(d->gpu_desc, sizeof d->gpu_desc);
        if (d->gpus > 0 && rvs_gpu_mem_info(&d->gpu_free_bytes, &total, NULL) != RVS_OK)
            d->gpu_free_bytes = 0;
    } else {
        snprintf(d->gpu_desc, sizeof d->gpu_desc, "not probed (CPU only)");
    }
}

int rvs_engine_gpus(char *desc, size_t n)
{
    if (desc)
        rvs_gpu_describe(desc, n);
    return rvs_gpu_count();
}

rvs_status rvs_engine_copy_bandwidth(size_t bytes, int iters, double *gbs, rvs_error *err)
{
    return rvs_gpu_copy_bandwidth(bytes, iters, gbs, err);
}
