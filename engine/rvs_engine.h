/* rvs_engine.h - the execution layer: between the programs and the kernels, it plans which part
 * of a matrix runs where (CPU cores, GPUs), in which format and with which kernel settings, and
 * runs the plan. Programs call the engine; the engine calls the kernels. */
#ifndef RVS_ENGINE_H
#define RVS_ENGINE_H

#include "rvs.h"
#include "rvs_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The processors at hand. */
typedef struct {
    int cpu_threads;       /* OpenMP threads the engine may use */
    int gpus;              /* usable CUDA devices (0 without CUDA or without a device) */
    char gpu_desc[256];    /* name and memory of device 0, or why there is none */
} rvs_engine_devices;

/* Fill d from the machine: threads > 0 caps the CPU threads (else OpenMP's maximum);
 * probe_gpu 0 leaves CUDA untouched (gpus = 0), so --cpu never starts the CUDA runtime. */
void rvs_engine_devices_probe(rvs_engine_devices *d, int threads, int probe_gpu);

/* GPU kernel tunables by name (engine/tune.c). Parse "KEY=INT,..." into t (fields not named
 * keep their value; RVS_ERR_ARG names the bad item); format the non-zero fields of t as
 * "KEY=INT,..." ("default" when none); the comma-separated key names, for --help. */
rvs_status rvs_tune_parse(rvs_gpu_tune *t, const char *s, rvs_error *err);
void rvs_tune_format(const rvs_gpu_tune *t, char *buf, size_t n);
const char *rvs_tune_keys(void);

#ifdef __cplusplus
}
#endif
#endif
