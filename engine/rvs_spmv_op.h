/* rvs_spmv_op.h - the engine's public side: the SpMV operator for solvers (made once from a CSR
 * matrix, applied many times, on the GPU or the CPU), the format advisor it and the programs
 * use, the processors at hand, and the default computing powers of a partition. The rest of the
 * engine (plans, the runner, MPI) is internal to librvskit. Documented in rvs_spmv_op(3). */
#ifndef RVS_SPMV_OP_H
#define RVS_SPMV_OP_H

#include <stddef.h>
#include <stdio.h>
#include "rvs_format.h"
#include "rvs_gpu_tune.h"
#include "rvs_partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- devices (devices.c) ---- */

/* The processors at hand. */
typedef struct {
    int cpu_threads;       /* OpenMP threads the engine may use */
    int gpus;              /* usable CUDA devices (0 without CUDA or without a device) */
    char gpu_desc[256];    /* name and memory of device 0, or why there is none */
    size_t gpu_free_bytes; /* free memory of device 0 when probed (0: unknown) */
} rvs_engine_devices;

/* Fill d from the machine: threads > 0 caps the CPU threads (else OpenMP's maximum);
 * probe_gpu 0 leaves CUDA untouched (gpus = 0), so --cpu never starts the CUDA runtime. */
void rvs_engine_devices_probe(rvs_engine_devices *d, int threads, int probe_gpu);

/* The GPUs for a report or a choice of device: how many are usable (0 without CUDA or without
 * a device); with desc (n bytes), device 0's name and memory, or why there is none. desc NULL
 * asks the count alone, which starts no more of the CUDA runtime than counting does. */
int rvs_engine_gpus(char *desc, size_t n);

/* ---- tunables (tune.c) ---- */

/* Everything that can be tuned for one block: the GPU kernel settings and the build options. */
typedef struct {
    rvs_gpu_tune tune;
    rvs_fmt_options fo;
} rvs_knobs;

/* Defaults: zero tunables (each kernel's own choice), rvs_fmt_options_default. */
void rvs_knobs_default(rvs_knobs *k);
/* Parse "KEY=INT,..." (hyb-k also takes auto and third) into k; keys not named keep their
 * value (spmv --tune sets what it names over the plan's knobs); RVS_ERR_ARG names a bad item. */
rvs_status rvs_knobs_parse(rvs_knobs *k, const char *s, rvs_error *err);
/* The keys that differ from the defaults as "KEY=VALUE,..." ("default" when none). */
void rvs_knobs_format(const rvs_knobs *k, char *buf, size_t n);

/* ---- the format advisor: "auto" (advisor.c) ---- */

#define RVS_MAX_CAND 64
#define RVS_MAX_PENDING 4

typedef enum {
    RVS_CAND_RAN = 0,     /* built, ran on the device, result verified against CSparse */
    RVS_CAND_REFUSED = 1, /* the builder refused the part (padding limits, index widths) */
    RVS_CAND_PRUNED = 2,  /* the byte model ruled it out before building */
    RVS_CAND_FAILED = 3   /* launch error or a result that failed the check */
} rvs_cand_status;

/* One candidate: a format with its tunables, and what became of it. */
typedef struct {
    rvs_format_id format;
    rvs_knobs knobs;
    rvs_cand_status status;
    double ms;          /* median trial time in milliseconds, -1 when it did not run */
    double model_bytes; /* bytes one SpMV moves by the model, -1 when the model has no rule */
    double pred_ms;     /* the fitted model's time, -1 when it has none for this candidate */
    double pred_sigma;  /* the fit's residual (log2 ms) for it */
} rvs_candidate;

/* How a part's format was chosen. */
typedef enum {
    RVS_HOW_MODEL = 0,  /* the fitted model alone, nothing built to decide */
    RVS_HOW_TRIAL = 1,  /* trials of the candidates the model could not separate */
    RVS_HOW_CACHE = 2,  /* the trial cache */
    RVS_HOW_FIXED = 3,  /* given: --format, a format block, a recorded decision */
    RVS_HOW_TUNED = 4,  /* switched while running: a trial between calls found it faster */
    RVS_HOW_DEFAULT = 5 /* the rule's CSR, run at once while the model decides between calls */
} rvs_how;
const char *rvs_how_name(rvs_how h);

/* The advisor's decision for one part (or the whole matrix, part -1). */
typedef struct {
    int part;
    rvs_device device;
    rvs_vtype vtype;
    int chosen; /* index into cand of the fastest verified candidate */
    int ncand;
    int from_cache;   /* 1: taken from the trial cache, no trial ran */
    int sampled;      /* 1: trials ran on a sample of the part's rows */
    rvs_how how;      /* how the choice was made */
    double decide_ms; /* wall time the decision took (features, model, trials, cache) */
    char fit[32];     /* the fitted model's device class, "" where none applied */
    int npending;     /* candidates the model could not tell from the chosen one, left for
                              the runner to try between calls (rvs_advisor_options.defer) */
    int pending[RVS_MAX_PENDING];
    int late; /* RVS_HOW_DEFAULT: the model has not yet run (rvs_advisor_options.late) */
    rvs_candidate cand[RVS_MAX_CAND];
} rvs_decision;

/* How the advisor decides. */
typedef enum {
    RVS_ADVISE_MODEL = 0, /* the fitted model; trials only for the candidates it cannot separate */
    RVS_ADVISE_TRIALS = 1 /* every candidate the byte model keeps is built and timed */
} rvs_advise_mode;

/* Advisor settings. */
typedef struct {
    int iters;            /* timed trial runs per candidate (median) [7] */
    int use_cache;        /* read and write $XDG_CACHE_HOME/rvskit/trials [1] */
    double keep_ratio;    /* byte model: keep formats moving at most this times the fewest bytes [1.6] */
    int64_t sample_nnz;   /* trial on a row sample when a part holds more entries [24M] */
    rvs_advise_mode mode; /* [RVS_ADVISE_MODEL] */
    int max_trials;       /* model mode: candidates tried at most when the model is unsure [3] */
    int defer;            /* model mode: take the model's choice and leave the candidates it could
                              not separate from it pending, for the runner to try between calls
                              (spmv_tune.c), instead of trying them now [0] */
    int late;             /* with defer: not even the model runs now; the rule's CSR is chosen
                              (RVS_HOW_DEFAULT) and the runner computes the model's choice on a
                              helper thread between calls, its doubts then tried as defer's [0] */
} rvs_advisor_options;

void rvs_advisor_options_default(rvs_advisor_options *o);

/* Choose the format and tunables of S (a part, or the whole matrix) for device dev in value
 * type vt: enumerate every format of the format table with its tunable variants, prune by the
 * byte model over S's row lengths and diagonals, build and time the survivors on dev (y
 * poisoned, each result checked against CSparse) and take the fastest verified one; a cached
 * decision for this device and shape skips the trial. d->part is set to part. RVS_ERR_NODEV
 * for a GPU without one; RVS_ERR_INTERNAL if no candidate ran. */
rvs_status rvs_advise(rvs_decision *d, const rvs_csr *S, int part, rvs_device dev, rvs_vtype vt,
                      const rvs_advisor_options *o, rvs_error *err);

/* ---- the SpMV operator (spmv_op.c) ---- */

/* A plan: what runs where (internal; rvs_spmv_op_plan gives the operator's). */
typedef struct rvs_plan rvs_plan;
/* The advisor's candidates of each item it chose for: the model's and the trials' times. */
void rvs_plan_print_candidates(FILE *f, const rvs_plan *P, const char *prefix);

/* Made once from a CSR matrix, applied many times: the fitted model chooses the format (on the
 * GPU while the first calls run in the rule's CSR, RVS_HOW_DEFAULT), the candidates it could not
 * tell apart are tried between calls (a tenth of the calls' time at most) and the faster takes
 * over, cuSPARSE's CSR SpMV among them, so that the operator is never slower than it for long. */
typedef struct rvs_spmv_op rvs_spmv_op;

typedef struct {
    int device;             /* RVS_DEV_GPU, RVS_DEV_CPU, -1: the GPU when there is one [-1] */
    rvs_vtype vtype;        /* value type of x, y and the sums; 0: the matrix's [0] */
    int threads;            /* CPU threads, 0: OpenMP's [0] */
    int tune;               /* try the model's doubts between calls [1] */
    int use_cache;          /* read and write the trial cache [1] */
    rvs_format_id format;   /* a fixed format, 0: the advisor's [0] */
    const char *tune_knobs; /* "KEY=VALUE,..." set over the chosen tunables, NULL: none [NULL] */
} rvs_spmv_op_options;

typedef struct {
    rvs_device device;
    rvs_vtype vtype;
    rvs_format_id format; /* the format running now (the first item's) */
    rvs_knobs knobs;
    rvs_how how;      /* how it was chosen (RVS_HOW_TUNED: switched between calls) */
    double pred_ms;   /* the model's time of it, -1 when none */
    double decide_ms; /* what choosing it cost at creation */
    double tune_ms;   /* what tuning between calls has cost the calls so far */
    int switches;     /* times it switched to a faster candidate */
    int64_t calls;
    int items; /* the plan's items (1 unless the matrix is split in row blocks) */
} rvs_spmv_op_stats;

void rvs_spmv_op_options_default(rvs_spmv_op_options *o);
/* *op for A (host arrays, which op reads and never changes: A must outlive op); o NULL for the
 * defaults. RVS_ERR_NODEV when a GPU is asked for and there is none. */
rvs_status rvs_spmv_op_create(rvs_spmv_op **op, const rvs_csr *A, const rvs_spmv_op_options *o, rvs_error *err);
/* *op for a CSR in device memory (64-bit row pointers, 32-bit columns, values of vt), copied to
 * the host once to plan and build from (the caller's arrays are not kept). */
rvs_status rvs_spmv_op_create_device(rvs_spmv_op **op, int64_t rows, int64_t cols, int64_t nnz,
                                     const int64_t *d_rowptr, const int32_t *d_colind, const void *d_values,
                                     rvs_vtype vt, const rvs_spmv_op_options *o, rvs_error *err);
/* y = A*x: host vectors (rows and cols values of the op's vtype), or device ones (GPU ops). */
rvs_status rvs_spmv_op_apply(rvs_spmv_op *op, const void *x, void *y, rvs_error *err);
rvs_status rvs_spmv_op_apply_device(rvs_spmv_op *op, const void *dx, void *dy, rvs_error *err);
/* What runs, how it was chosen, what choosing and tuning cost. */
void rvs_spmv_op_info(const rvs_spmv_op *op, rvs_spmv_op_stats *s);
/* Its plan (rvs_plan_print shows it with the candidates' times). */
const rvs_plan *rvs_spmv_op_plan(const rvs_spmv_op *op);
void rvs_spmv_op_free(rvs_spmv_op *op);

/* ---- default computing powers of a partition (calibrate.c, partition_default.c) ---- */

/* What a machine measured: SpMV rates, PCIe and launch costs. 0 where not measured. */
typedef struct {
    double gpu_gflops;  /* GPU SpMV on a 3-D stencil */
    double core_gflops; /* one CPU core, same matrix */
    double cpu_gflops;  /* all CPU threads */
    int threads;        /* threads of cpu_gflops */
    double h2d_gbs;     /* pinned host to device */
    double d2h_gbs;     /* device to pinned host */
    double launch_us;   /* a small copy's round trip: the fixed cost of a call */
} rvs_calibration;

/* The computing powers a partition gets without --cp (partition(1) documents the rule): the
 * parts are buckets of similar row length from A's PMF (at most 4: rows up to 8, 32, 256
 * entries and longer, a bucket under 5% of the entries joins its neighbour) on the GPU when
 * gpus > 0, else on the CPU; when cal holds PCIe and rate figures and the model says a CPU
 * part shortens a call by 5% or more, a CPU part of the share that balances both sides is
 * added last. diag gets two parts. note says what was decided. */
rvs_status rvs_default_cp(const rvs_csr *A, rvs_alg alg, int gpus, const rvs_calibration *cal, double **cp,
                          rvs_device **dev, int *k, char *note, size_t notelen, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
