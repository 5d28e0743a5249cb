/* rvs_engine_spgemm.h - SpGEMM in the execution layer: the GPU with the CPU taking the rows the
 * device cannot hold, the hybrid, the automatic choice among CPU, GPU and hybrid with its
 * calibration, and C written to a file block by block as the GPU produces it. */
#ifndef RVS_ENGINE_SPGEMM_H
#define RVS_ENGINE_SPGEMM_H

#include <stdio.h>
#include "rvs_engine.h"
#include "rvs_spgemm.h"
#include "rvs_spgemm_run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same, row-wise, with C's entries handed to sink block by block (C gets its shape and
 * rowptr only), so that C need fit neither in device nor in host memory. */
rvs_status rvs_spgemm_gpu_to(rvs_spgemm_sink *sink, rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                             const rvs_spgemm_options *o, rvs_spgemm_stats *stats, rvs_error *err);

/* Rows the hybrid split gives the CPU: *rows malloc'd (ascending), *nrows set. */
rvs_status rvs_spgemm_hybrid_split(const rvs_csr *A, const int64_t *prodptr, const rvs_spgemm_options *o,
                                   int64_t **rows, int64_t *nrows, rvs_error *err);

/* ---- choosing where to run (engine/spgemm_choose.c) ---- */

/* Rates of the model, end to end (host CSR to host CSR) for P products:
 * t_cpu = cpu_fixed_s + P / (cpu_rate * threads / cpu_threads),
 * t_gpu = wait + gpu_fixed_s + P / gpu_rate, wait the device's start-up still to come (none
 * once the device is up; gpu_start_s when it has not begun). */
typedef struct {
    double cpu_rate; /* products per second of the CPU kernel on cpu_threads threads */
    int cpu_threads;
    double gpu_rate;    /* products per second of the GPU beyond its fixed cost */
    double gpu_fixed_s; /* seconds a warm GPU call costs whatever its size */
    double cpu_fixed_s; /* seconds a CPU call costs whatever its size */
    double gpu_start_s; /* seconds the device takes to start (context, kernels loaded) */
    int measured;       /* 1: loaded from the calibration file; 0: built-in defaults */
} rvs_spgemm_rates;

/* The built-in rates (measured by spgemm --calibrate on an H100 machine). */
void rvs_spgemm_rates_default(rvs_spgemm_rates *r);

/* The rates recorded by rvs_spgemm_rates_save, from $RVS_SPGEMM_CALIBRATION, else
 * ${XDG_CONFIG_HOME:-~/.config}/rvskit/spgemm-calibration (beside partition's calibration).
 * RVS_ERR_NOFILE when none were recorded (r keeps the defaults), RVS_ERR_FORMAT on a bad
 * file. cpu_fixed and gpu_start may be absent (built-in values then). */
rvs_status rvs_spgemm_rates_load(rvs_spgemm_rates *r, rvs_error *err);
rvs_status rvs_spgemm_rates_save(const rvs_spgemm_rates *r, rvs_error *err);

/* Measure the rates: the CPU kernel on all threads and the GPU end to end on a small and a
 * large generated 27-point stencil (medians of warm runs), and the device's start-up (when
 * the device was not started before). Without a GPU the GPU rates keep their defaults. */
rvs_status rvs_spgemm_calibrate(rvs_spgemm_rates *r, rvs_error *err);

/* Where C = A*B with `products` products runs best on d by the model, the device's start-up
 * still gpu_wait_s seconds away: the GPU when t_gpu < t_cpu, else the CPU; the hybrid when
 * splitting the products in proportion to the two rates beats both by 40% or more
 * (*cpu_share then gets the CPU's share). why gets the estimates in words. */
rvs_spgemm_where rvs_spgemm_choose(int64_t products, const rvs_engine_devices *d, const rvs_spgemm_rates *r,
                                   double gpu_wait_s, double *cpu_share, char *why, size_t whylen);

/* The choice for C = A*B on this machine (all OpenMP threads, the GPUs present, the device's
 * start-up left) with the recorded rates, else the built-in ones; *cpu_share as
 * rvs_spgemm_choose. Does not start the device. From 2^18 entries of A the products are
 * estimated from a sample of A's entries, and counted whole only where the choice differs at a
 * quarter or four times the estimate; why then begins "about" and ends "(sampled)". */
rvs_status rvs_spgemm_decide(const rvs_csr *A, const rvs_csr *B, rvs_spgemm_where *where, double *cpu_share,
                             char *why, size_t whylen, rvs_error *err);

/* The baselines a report sets beside the product (each ran or not). */
typedef struct {
    int cusparse_ran, csparse_ran, graphblas_ran;
    int cusparse_alg;
    double cusparse_kernel_s, cusparse_total_s, csparse_s, graphblas_s;
    size_t cusparse_peak_bytes;
} rvs_spgemm_baselines;

/* Time the baselines on A*B (cuSPARSE warm, median of 5; CSparse; GraphBLAS); a baseline that
 * cannot run (no GPU, no GraphBLAS, complex values) is recorded as not run. */
void rvs_spgemm_run_baselines(rvs_spgemm_baselines *b, const rvs_csr *A, const rvs_csr *B);

/* ---- C to a file as it comes (engine/spgemm_out.c) ---- */

/* A sink writing C as an RVS stream (identical to rvs_stream_write's) to f, which must be a
 * seekable regular file: columns and values are written at their final offsets as blocks
 * come, the CRCs are finished by rvs_spgemm_sink_finish. name: the stream's matrix name. */
rvs_status rvs_spgemm_stream_sink(rvs_spgemm_sink *s, FILE *f, const char *name, rvs_error *err);

/* A sink writing C as Matrix Market coordinate real general (complex general for complex
 * values), digits significant digits a value (1..17; 0: 9 for f32, 17 for f64: exact). */
rvs_status rvs_spgemm_mtx_sink(rvs_spgemm_sink *s, FILE *f, int digits, rvs_error *err);

/* Finish what the sink wrote (every row delivered): the stream's CRCs and end chunk, the
 * file flushed. Then free the sink's state (also after a failure: rvs_spgemm_sink_free). */
rvs_status rvs_spgemm_sink_finish(rvs_spgemm_sink *s, rvs_error *err);
void rvs_spgemm_sink_free(rvs_spgemm_sink *s);

/* Products of A*B (no per-row array). RVS_ERR_OVERFLOW beyond 2^63. */
rvs_status rvs_spgemm_count_products(const rvs_csr *A, const rvs_csr *B, int64_t *total, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
