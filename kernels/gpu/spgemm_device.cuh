/* spgemm_device.cuh - what the row-wise GPU SpGEMM's driver (spgemm_device.cu: context, memory,
 * upload, the one pass, the symbolic pass, rows for the host, the call) shares with its copying
 * back and numeric pipeline (spgemm_pipeline.cu): the state of a call and the helpers both use */
#ifndef RVS_SPGEMM_DEVICE_CUH
#define RVS_SPGEMM_DEVICE_CUH

#include <stdint.h>
#include "gpu_internal.cuh"
#include "spgemm_bins.cuh"
#include "../cpu/rvs_spgemm.h"

#define DEV_SLOTS 2                   /* device buffers of a block of C */
#define DEV_STAGES 3                  /* pinned host buffers of a block of C */
#define BLOCKS_WANTED 8               /* blocks a large C is cut into, for the overlap */
#define BLOCK_MIN_ENTRIES (1LL << 20) /* smaller blocks cost more in launches than they save */
#define BLOCK_MAX_ENTRIES (1LL << 25) /* bounds the pinned staging */
#define MAX_ALLOCS 28
#define ONEPASS_MAX_BYTES (8ULL << 30) /* beyond, C is made in overlapping blocks (two passes) */

/* What stays between calls. */
typedef struct {
    int ready, sms;
    cudaStream_t comp, copy;
    cudaEvent_t up0, up1, sym0, sym1, n0[DEV_STAGES], n1[DEV_STAGES], d0[DEV_STAGES], d1[DEV_STAGES];
    cudaEvent_t tev[7]; /* trace: kernel boundaries */
    void *stage;
    size_t stage_bytes;
    void *dense; /* the dense scratch: zero outside a dense kernel */
    size_t dense_bytes;
    void *hsum;                /* sums of the numeric block hash: zero outside its kernel */
    unsigned long long *hbins; /* pinned: bins and the product total, read back */
    rvs_status start_status;   /* of the start-up (rvs_spgemm_gpu_start) */
    rvs_error start_err;
} dev_ctx;

extern dev_ctx g_ctx;

/* Device allocations of one call, from the pool, freed together. */
typedef struct {
    void *p[MAX_ALLOCS];
    int n;
    size_t bytes;
} dev_mem;

/* One call's state. */
typedef struct {
    const rvs_csr *A, *B;
    rvs_csr *C;
    const rvs_spgemm_options *o;
    rvs_spgemm_sink *sink;
    rvs_spgemm_rows_fn fallback;
    rvs_spgemm_stats *stats;
    rvs_error *err;
    dev_mem dm;
    sg_job j;
    size_t vs, work;
    void *cub_temp;
    size_t cub_bytes;
    unsigned long long *hbins; /* g_ctx.hbins */
    double t_dev0;             /* kernel_only: when A and B were on the device */
    double t_mark;             /* trace: end of the last step */
    double t_last;             /* stages: end of the last lap (sgd_lap) */
    double setup_pending;      /* one-time set-up inside the current lap (pinned
                                       staging, scratch): counted as set-up */
    double dev_s;              /* device compute, from events */
    int onepass;               /* 1: C made in one pass (no symbolic pass, no blocks) */
    int64_t one_n[SG_BINS];    /* one pass: rows per bin */
    int64_t bound_total;       /* one pass: entries reserved in the scratch */
    int64_t *boff_dev;         /* one pass: j.boff while it is used */
    int64_t sym_n[SG_BINS];    /* rows per bin, symbolic pass */
    int64_t num_n[SG_BINS];    /* rows per bin of the numeric pass over all rows (the
                                       launch bound of every block's kernels) */
    int trace;
    cudaEvent_t *tev;  /* g_ctx.tev */
    uint8_t *cpu_flag; /* host: rows computed by the fallback (NULL: none) */
    int64_t *cpu_rows, ncpu, cpu_next;
    rvs_csr R; /* the fallback's rows of C, in cpu_rows order */
    rvs_spgemm_block *blocks;
    int64_t nblocks, cap;
    int32_t *slot_col[DEV_SLOTS];
    void *slot_val[DEV_SLOTS];
} run_t;

#define RUN_CUDA(call)                                                                                        \
    do {                                                                                                      \
        cudaError_t e_ = (call);                                                                              \
        if (e_ != cudaSuccess) {                                                                              \
            st = rvs_fail(r->err, e_ == cudaErrorMemoryAllocation ? RVS_ERR_NOMEM : RVS_ERR_DEVICE, "%s: %s", \
                          #call, cudaGetErrorString(e_));                                                     \
            goto done;                                                                                        \
        }                                                                                                     \
    } while (0)

/* Helpers of spgemm_device.cu: a pool array of bytes (freed with the call); the time since
 * the last lap added to a stage of the report (set-up inside it to t_setup); an array of
 * count elements, copied from src unless NULL; pinned staging of at least bytes; trace: wait
 * and time step q, or the kernels between the trace events into steps q0..; memcpy with all
 * threads; seconds between two completed events. */
rvs_status sgd_alloc(run_t *r, void *pp, size_t bytes);
void sgd_lap(run_t *r, double *stage);
rvs_status sgd_array(run_t *r, void *pp, const void *src, int64_t count, size_t each);
rvs_status sgd_stage_reserve(run_t *r, size_t bytes);
void sgd_trace_step(run_t *r, int q);
void sgd_trace_kernels(run_t *r, int q0, int n);
void sgd_copy_parallel(void *dst, const void *src, size_t n);
double sgd_event_s(cudaEvent_t a, cudaEvent_t b);

/* The numeric pass (spgemm_pipeline.cu): plan the blocks of C, size the buffers, run the
 * three stages; C's entries end in C or in the sink. */
rvs_status sgd_numeric(run_t *r);

/* C, whole on the device at col / val (one pass), back to C or the sink: copied in pieces of
 * rows into the pinned staging while the host hands the previous piece over. */
rvs_status sgd_copy_back(run_t *r, const int32_t *col, const void *val);

#endif
