/* rvs_engine.h - the execution layer: between the programs and the kernels, it plans which part
 * of a matrix runs where (CPU cores, GPUs), in which format and with which kernel settings, on
 * which stream and in what order, and runs the plan. Programs call the engine; the engine calls
 * the kernels. Like libformat it never prints and never exits. Internal to librvskit (not
 * installed): its public side is rvs_spmv_op.h, included here, and rvs_spgemm_run.h. */
#ifndef RVS_ENGINE_H
#define RVS_ENGINE_H

#include <stdio.h>
#include "rvs.h"
#include "rvs_gpu.h"
#include "rvs_spmv_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- devices (devices.c; the processors at hand in rvs_spmv_op.h) ---- */

/* The device-to-device copy bandwidth of GPU 0 in GB/s, the bar reports set kernels against
 * (rvs_gpu_copy_bandwidth: bytes per copy, 0 for its default; the median of iters copies). */
rvs_status rvs_engine_copy_bandwidth(size_t bytes, int iters, double *gbs, rvs_error *err);

/* Seconds on a monotonic clock; the median of v[0..n-1], n >= 1 (sorts v). (util.c) */
double rvs_engine_now(void);
double rvs_engine_median(double *v, int n);

/* ---- tunables (tune.c; rvs_knobs in rvs_spmv_op.h) ---- */

void rvs_tune_format(const rvs_gpu_tune *t, char *buf, size_t n);
/* The key names, comma-separated, for --help. */
const char *rvs_tune_keys(void);
/* The variants of format id the advisor tries: the defaults first, then one per trial value
 * of each tunable that format's kernel or builder reads. Returns how many (<= max). */
int rvs_tune_variants(rvs_format_id id, rvs_knobs *out, int max);

/* ---- format blocks (blocks.c) ---- */

/* The stream's format block for part (-1: the whole matrix), or NULL. */
const rvs_fmt *rvs_stream_block(const rvs_stream *S, int part);
/* M = the whole matrix as S's format blocks hold it (what the kernels multiply): each part's
 * block back in CSR, placed through the partition's row sets; parts without a block come from
 * the hub; without blocks, a copy of the hub. Values become vt. */
rvs_status rvs_blocks_matrix(rvs_csr *M, const rvs_stream *S, rvs_vtype vt, rvs_error *err);

/* ---- the format advisor: "auto" (advisor.c, advisor_model.c, trial_cache.c, row_list.c) ---- */

/* A part as the advisor reads it from the hub, without a copy: rows rows[0..nrows) of A in
 * that order with all their entries, nnz in all (rows NULL: every row of A in order). Its row i
 * is row i of the part's copy (rvs_partition_extract): the byte model and the sample count
 * diagonals by i, as they would over the copy. (row_list.c) */
typedef struct {
    const rvs_csr *A;
    const int64_t *rows;
    int64_t nrows, nnz;
} rvs_row_list;

/* R = every row of A in order. */
void rvs_row_list_all(rvs_row_list *R, const rvs_csr *A);

/* R = part of P over A: its row list in the hub when it holds every entry of scattered rows;
 * else C holds the part as rvs_partition_part_csr gives it (*view 1: a run of rows, viewed;
 * 0: a copy, for Algorithm 4's parts of filtered entries) and R is all of C. Free C with
 * rvs_part_csr_free. RVS_ERR_RANGE for a row outside A. */
rvs_status rvs_row_list_part(rvs_row_list *R, rvs_csr *C, int *view, const rvs_partition *P, int part,
                             const rvs_csr *A, rvs_error *err);

/* The hub's row of R's row i, and its length. */
static inline int64_t rvs_row_list_row(const rvs_row_list *R, int64_t i)
{
    return R->rows ? R->rows[i] : i;
}
static inline int64_t rvs_row_list_len(const rvs_row_list *R, int64_t i)
{
    const int64_t r = rvs_row_list_row(R, i);
    return R->A->rowptr[r + 1] - R->A->rowptr[r];
}

/* What the model reads of a part: one pass over its row lengths and a sample of its entries
 * (advisor_features.c). f[] in the order rvs_feature_name gives. */
#define RVS_NFEAT 14
typedef struct {
    int64_t rows, cols, nnz, max_len;
    double f[RVS_NFEAT];
} rvs_features;
rvs_status rvs_features_rows(rvs_features *F, const rvs_row_list *R, rvs_error *err);
const char *rvs_feature_name(int i);

/* rvs_advise on the part R, read in its hub: the shape key, the model and the sample come out
 * as over R's copy, hence the same decision. Only a part tried whole (at most o->sample_nnz
 * entries, or one with 64-bit columns, which is never sampled) is copied for its trials; a
 * listed part of more than an eighth of its hub's entries and more than the sample's least
 * (8M entries on the GPU, 4M on the CPU) is sampled instead, where its copy would be tried
 * whole. */
rvs_status rvs_advise_rows(rvs_decision *d, const rvs_row_list *R, int part, rvs_device dev, rvs_vtype vt,
                           const rvs_advisor_options *o, rvs_error *err);

/* The fitted model (advisor_predict.c): pred_ms and pred_sigma of d's candidates from F for
 * device dev in vt, d->fit its device class; returns how many it has a fit for (0: none, the
 * byte model then ranks them). rvs_model_key: a candidate's name in the fit, "FORMAT@KNOBS". */
int rvs_model_predict(rvs_decision *d, const rvs_features *F, rvs_device dev, rvs_vtype vt);
int rvs_model_key(const rvs_candidate *c, char *buf, size_t n);
/* The least bytes one SpMV in c's format can move by the features: x and y once, each index at
 * its narrowest, no values where the sample's fit a table (they may be coded). A lower bound. */
double rvs_model_least_bytes(const rvs_candidate *c, const rvs_features *F, rvs_vtype vt);
/* No prediction faster than memory allows: each fitted pred_ms raised to least bytes /
 * bytes_per_ms where those bytes pass 2 * l2_bytes (below, repeated calls may run from the
 * cache). rvs_model_predict applies it with device 0's peak; returns how many it raised. */
int rvs_model_floor(rvs_decision *d, const rvs_features *F, rvs_vtype vt, double bytes_per_ms, double l2_bytes);
/* Bytes one SpMV in format id moves by the byte model, from the features alone (no pass over the
 * entries: diagonals and slices as the sample saw them), -1 when it has no rule. */
double rvs_model_bytes_features(rvs_format_id id, const rvs_features *F, int64_t cols, rvs_vtype vt);

/* The index of the runner-up (fastest verified candidate of another format), or -1. */
int rvs_decision_runner_up(const rvs_decision *d);

/* Bytes one SpMV in format id moves over S by the model (arrays once, x and y once), from the
 * row lengths and the diagonals of S; -1 when the model has no rule for id. _rows: over R, the
 * bytes of R's copy. */
double rvs_model_bytes(rvs_format_id id, const rvs_csr *S, rvs_vtype vt);
double rvs_model_bytes_rows(rvs_format_id id, const rvs_row_list *R, rvs_vtype vt);

/* The trial cache: decisions by device and matrix shape, one line each, in
 * $XDG_CACHE_HOME/rvskit/trials (else ~/.cache/rvskit/trials). Lookup fills format and
 * knobs of the chosen and the runner-up candidates; RVS_ERR_NOFILE when not cached. The shape
 * key of R (_rows) is that of R's copy, so that a part keeps its key however it is read. */
uint64_t rvs_shape_key(const rvs_csr *S, rvs_vtype vt);
uint64_t rvs_shape_key_rows(const rvs_row_list *R, rvs_vtype vt);
rvs_status rvs_trial_cache_lookup(rvs_decision *d, const char *device, uint64_t shape, rvs_error *err);
rvs_status rvs_trial_cache_store(const rvs_decision *d, const char *device, uint64_t shape, rvs_error *err);

/* ---- the decision chunk 'auto' (decision.c; man/man5/rvs.5) ---- */

/* Decisions recorded in a stream, for the partition they were made on (fingerprint). */
typedef struct {
    uint64_t fingerprint; /* rvs_stream_fingerprint of the stream they apply to */
    char device[64];      /* the GPU the trials ran on ("" for CPU only) */
    int n;
    rvs_decision *d;
} rvs_decisions;

/* A hash of what decisions depend on: the matrix's size, a sample of its structure, and the
 * partition (algorithm, parts, their devices, entry classes and rows). */
uint64_t rvs_stream_fingerprint(const rvs_stream *S);
/* Parse the 'auto' chunk of S into D (D->n 0 when there is none, or it is of a newer
 * version). RVS_ERR_FORMAT for a malformed chunk. *current: its fingerprint matches S. */
rvs_status rvs_decisions_read(rvs_decisions *D, const rvs_stream *S, int *current, rvs_error *err);
/* Record D's decisions in S as its 'auto' chunk (replacing an older one), with S's fingerprint
 * and, when a decision is for a GPU, this machine's GPU; drop the chunk (stale blocks). */
rvs_status rvs_decisions_write(rvs_stream *S, const rvs_decisions *D, rvs_error *err);
void rvs_decisions_drop(rvs_stream *S);
/* The decision for part in D on device dev, or NULL. */
const rvs_decision *rvs_decisions_find(const rvs_decisions *D, int part, rvs_device dev);
void rvs_decisions_free(rvs_decisions *D);
/* rvs_advise of part (its rows A, in A's value type) on dev with its decision appended to D:
 * the chosen format into *id and its build options into *fo, whose dia_max_ratio and
 * ell_max_ratio (the caller's limits) stay. */
rvs_status rvs_advise_part(rvs_decisions *D, const rvs_csr *A, int part, rvs_device dev,
                           const rvs_advisor_options *o, rvs_format_id *id, rvs_fmt_options *fo, rvs_error *err);

/* ---- a part's block, built as the SpMV runner builds an item's (spmv_build.c) ---- */

/* *B = part of S (-1: the whole matrix) in format id with build options fo (NULL: defaults),
 * always built afresh (the stream's own blocks are not reused): CSR of a run of the hub's rows
 * borrows the hub's arrays (and copy's, when given); a part with a copy (rvs_parts_split) is
 * built from it, which goes; other rows are gathered from the hub or viewed in place. With
 * consume (nothing reads the hub afterwards), a run's entries are given back once built.
 * On error err->msg names the part. Free with rvs_fmt_free(&B->fmt). */
rvs_status rvs_part_block(rvs_fmt_block *B, const rvs_stream *S, int part, rvs_format_id id,
                          const rvs_fmt_options *fo, rvs_csr *copy, int consume, rvs_error *err);
/* Before the blocks of a hub nothing reads afterwards: the scattered rows of the parts to be
 * built (formats[p] != 0, one per part of S) copied out of the hub in one pass that gives it
 * back. *copies: one per part (rowptr NULL: none), or NULL when nothing was copied; free with
 * rvs_partition_split_free(*copies, S->partition.k). */
rvs_status rvs_parts_split(rvs_csr **copies, const rvs_stream *S, const rvs_format_id *formats, rvs_error *err);
/* RVS_OK when every part to be built (formats[p] != 0; without a partition formats[0], the
 * whole matrix) would take its format with options fo (rvs_fmt_admit, on the structure alone):
 * asked before a stream's first byte, so that a refused part leaves no partial output. */
rvs_status rvs_parts_admit(const rvs_stream *S, const rvs_format_id *formats, const rvs_fmt_options *fo,
                           rvs_error *err);

/* ---- plans (plan.c, plan_print.c) ---- */

typedef struct rvs_spmv_engine rvs_spmv_engine;

typedef enum { RVS_MODE_CPU = 1, RVS_MODE_GPU = 2, RVS_MODE_HYBRID = 3 } rvs_run_mode;

/* One item of a plan: one block, built from one or more parts (fused), run by one launch
 * sequence on one device. */
typedef struct {
    int nparts;
    int *parts; /* the parts it runs (-1: the whole matrix), in row-map order */
    rvs_device device;
    rvs_format_id format;
    rvs_knobs knobs;
    int phase;  /* 0: stores its rows; 1: adds to rows a phase-0 item of its device stored */
    int stream; /* GPU stream (0 .. nstreams - 1) */
    int64_t rows, nnz;
    const char *source;     /* where the format came from: block, decision, auto, cache, csr, fused */
    double trial_ms;        /* the advisor's trial time of the choice, -1 when none */
    rvs_how how;            /* how its format was chosen (RVS_HOW_FIXED for blocks and --format) */
    double pred_ms;         /* the fitted model's time of the choice, -1 when none */
    double decide_ms;       /* what deciding its format cost, wall time */
    int decision;           /* its decision in rvs_plan.decisions, -1 when none was made */
    int64_t row_lo, row_hi; /* a row block: matrix rows [row_lo, row_hi), a run of its parts' rows,
                              built apart so that the hub can be given back as it goes (row_hi 0:
                              the parts whole) */
    double dev_bytes;       /* its block's arrays in bytes, by the byte model (exact for stream
                              blocks and CSR): what it takes on the device */
    int streamed;           /* GPU: the block does not stay on the device; each call streams it in
                              chunks of about chunk_nnz entries (nchunks), copies overlapped with
                              the kernels */
    int64_t chunk_nnz;
    int64_t nchunks;
} rvs_plan_item;

typedef struct rvs_plan {
    rvs_run_mode mode;
    rvs_vtype vtype;
    int nitems;
    rvs_plan_item *items;
    int nstreams;                     /* GPU streams the items are spread over (captured as one graph) */
    int whole;                        /* the parts were replaced by the whole matrix (it ran faster) */
    double parts_ms, whole_ms;        /* measured times that decided 'whole' (-1: not compared) */
    rvs_decisions decisions;          /* the advisor's decisions made for this plan */
    double decide_ms;                 /* wall time spent choosing formats (the advisor, and weighing the
                              whole matrix against the parts) */
    int tune_between_calls;           /* the runner tries the items' pending candidates between calls
                               (rvs_plan_options.tune_between_calls) */
    char note[256];                   /* one sentence on a choice the planner made, or "" */
    size_t gpu_budget;                /* device bytes the plan may use (0: no GPU item) */
    int nsplit, nstreamed, nmoved;    /* row blocks made, GPU items streamed, GPU items moved to the
                                      CPU because the device budget does not hold them */
    int consume;                      /* the runner may give back the hub (rvs_plan_options.consume) */
    rvs_advisor_options advisor;      /* how the advisor decided, for decisions made later */
    struct rvs_spmv_engine *prepared; /* the runner the planner built to time the plan (taken by
                                         rvs_spmv_engine_create, freed by rvs_plan_free) */
    struct rvs_spmv_engine *vectors;  /* a runner of the same stream and value type whose host x
                                         and y this plan's runner shares instead of its own (the
                                         planner timing two plans of one matrix), or NULL */
    int device_vectors;               /* the caller's x and y are on the device: a runner of GPU
                                         items alone makes its pinned host x and y and the host
                                         call's graph at its first host call, not before */
} rvs_plan;

/* Planner settings. */
typedef struct {
    rvs_run_mode mode;
    rvs_vtype vtype;        /* value type of the run */
    int fuse;               /* fuse GPU parts of one format and tunables into one block [1] */
    int allow_whole;        /* compare with the whole matrix when every format came from auto [1] */
    int use_decisions;      /* reuse the stream's 'auto' chunk when it matches [1] */
    rvs_format_id fallback; /* format of parts without a block: 0 = auto [0] */
    const char *tune;       /* --tune "KEY=INT,...": kernel settings and build options set over every
                                 GPU item's (rvs_knobs_parse; the program checked it), NULL: none */
    rvs_advisor_options advisor;
    size_t gpu_mem_bytes;       /* device budget in bytes: 0 = 90% of the free device memory
                                 (--gpu-mem); GPU items that do not fit are streamed or moved */
    double h2d_gbs, cpu_gflops; /* the calibration's rates for the residence model: an item that
                                   does not fit goes to the CPU when 2 nnz / cpu_gflops is shorter
                                   than its bytes / h2d_gbs; 0: unknown (it is streamed) */
    int64_t row_block_nnz;      /* entries per row block of large built items: 0 by size (blocks
                                 of at least RVS_ROW_BLOCK_NNZ; on the GPU, of items of twice
                                 RVS_GPU_ROW_BLOCK_NNZ or more, of at least half of it; at most
                                 RVS_ROW_BLOCKS of an item),
                                 < 0 never */
    int consume;                /* the runner may give back the pages of the hub's entries and of the
                                 stream's blocks once it holds what it runs: the caller needs
                                 neither again (no check against the hub, no baseline) [0] */
    int tune_between_calls;     /* GPU items the model chose without trying its doubts: the runner
                                 tries them between calls and switches to a faster one (the hub
                                 is then kept) [0] */
    int plan_consume;           /* with consume, the planner may give them back already (weighing
                                 the parts against the whole matrix on the GPU, it builds the
                                 parts last, giving the hub back): the caller reads nothing of
                                 the hub's entries after rvs_plan_make [0] */
} rvs_plan_options;

#define RVS_ROW_BLOCK_NNZ ((int64_t)4 << 20)
#define RVS_GPU_ROW_BLOCK_NNZ ((int64_t)16 << 20) /* a GPU item of twice this is split (blocks of half) */
#define RVS_ROW_BLOCKS 16

void rvs_plan_options_default(rvs_plan_options *o);

/* Make the plan for S on the devices: every part (or the whole matrix) gets a device by the
 * mode (hybrid: the partition's), a format (its block; else the stream's recorded decision;
 * else the advisor's, or o->fallback), a phase (Algorithm 4's off-diagonal parts add after the
 * part that stores their rows on the same device) and a stream; GPU parts of one format and
 * tunables are fused. Large items built from the hub become row blocks; GPU items that the
 * device budget does not hold are streamed, or moved to the CPU where the model says that is
 * faster (plan_memory.c). When all formats came from the advisor and the device holds both,
 * the planner also times the whole matrix in its best format and keeps the faster plan. */
rvs_status rvs_plan_make(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev, const rvs_plan_options *o,
                         rvs_error *err);
void rvs_plan_free(rvs_plan *P);
/* The plan as text: two '#'-led header lines, then a line per item led by prefix ("" for a
 * table, "# " inside another report). */
void rvs_plan_print(FILE *f, const rvs_plan *P, const rvs_stream *S, const char *prefix);
/* An item's parts as text: "1,2,5" (1-based), "all", and for a row block ":FIRST-LAST" rows
 * (1-based) after them. */
void rvs_plan_item_parts(const rvs_plan_item *it, char *buf, size_t n);

/* ---- running SpMV (spmv_run.c, spmv_build.c, spmv_host.c) ---- */

/* x of n values of vt, uniform in [-1, 1] from a splitmix64 sequence started at seed (complex:
 * real and imaginary parts are consecutive draws); the values as used (rounded to vt) also into
 * xd when it is not NULL (2 n doubles, (re, im) pairs, for complex). x may be NULL (xd alone:
 * the same seed fills x later with the same values). */
void rvs_fill_x(void *x, double *xd, int64_t n, rvs_vtype vt, uint64_t seed);
/* y (n values of vt; complex: (re, im) pairs) as double into yd. */
void rvs_y_to_double(double *yd, const void *y, int64_t n, rvs_vtype vt);

/* Tuning between calls so far: items switched to a faster candidate, and the wall time the
 * calls paid for it. */
void rvs_spmv_engine_tuning(const rvs_spmv_engine *E, int *switches, double *ms);

/* Times of one call, milliseconds. */
typedef struct {
    double call_ms;   /* host clock: x in, every part, y out (what a solver's call costs) */
    double gpu_ms;    /* GPU side: x upload, the graph, y download (events); 0 without GPU */
    double kernel_ms; /* the graph alone (events); 0 without GPU */
    double cpu_ms;    /* CPU side: the CPU items and the assembly of y (host clock) */
} rvs_spmv_times;

/* Build and upload every block of the plan, set the row maps, capture the GPU items as one CUDA
 * graph over the plan's streams; host x and y are pinned when a GPU is used. A runner the
 * planner already built for P (P->prepared) is handed over instead. */
rvs_status rvs_spmv_engine_create(rvs_spmv_engine **E, const rvs_stream *S, const rvs_plan *P, rvs_error *err);
/* Host buffers the caller fills (x: cols values of the plan's type) and reads (y: rows); NULL
 * when they could not be made (P->device_vectors puts them off until asked for). */
void *rvs_spmv_engine_x(rvs_spmv_engine *E);
void *rvs_spmv_engine_y(rvs_spmv_engine *E);
/* Make what P->device_vectors put off (host x and y, the graph), if not yet made. */
rvs_status rvs_spmv_engine_host_ready(rvs_spmv_engine *E, rvs_error *err);
/* y = A*x, one call: x uploaded once, the GPU graph launched, its rows of y copied back while
 * the CPU items run. poison: fill y (host and device) with NaN first (not timed). */
rvs_status rvs_spmv_engine_call(rvs_spmv_engine *E, int poison, rvs_spmv_times *t, rvs_error *err);
/* One replay of the GPU graph alone (x already on the device), event-timed. */
rvs_status rvs_spmv_engine_kernels(rvs_spmv_engine *E, double *ms, rvs_error *err);
/* Item i alone: its kernels (GPU, event-timed) or its CPU kernel (host clock). */
rvs_status rvs_spmv_engine_item(rvs_spmv_engine *E, int i, double *ms, rvs_error *err);
/* Bytes item i's format moves per SpMV (rvs_spmv_bytes of its block). */
int64_t rvs_spmv_engine_item_bytes(const rvs_spmv_engine *E, int i);
void rvs_spmv_engine_free(rvs_spmv_engine *E);

/* y = A*x with x and y in device memory (dx, dy: the plan's value type), for a plan whose items
 * all run on the GPU: the items launched on the caller's vectors, after what the caller queued
 * on the default stream; t->call_ms on the host clock (gpu_ms and kernel_ms 0: a solver's call
 * pays for no timing events). */
rvs_status rvs_spmv_engine_call_device(rvs_spmv_engine *E, const void *dx, void *dy, rvs_spmv_times *t,
                                       rvs_error *err);

/* ---- baselines (baseline.c) ---- */

/* Median ms of cuSPARSE CSR ALG1, CSR ALG2 and COO ALG1 on A in vt with x (host, vt); each
 * result checked against CSparse when check (max error into *check_err, RVS_ERR_CHECK past tol). */
rvs_status rvs_baseline_cusparse(const rvs_csr *A, rvs_vtype vt, const void *x, const double *xd, int iters,
                                 int check, double ms[3], double *check_err, char *what, size_t whatlen,
                                 rvs_error *err);

/* ---- calibration and default partitions (calibrate.c, partition_default.c) ---- */

/* Measure everything in c (GPU figures 0 without a GPU). */
rvs_status rvs_calibrate(rvs_calibration *c, rvs_error *err);
/* Record to $RVS_CALIBRATION, else ${XDG_CONFIG_HOME:-~/.config}/rvskit/calibration; load it
 * (RVS_ERR_NOFILE when none; files holding only the gpu/cpu ratio load with the rest 0). */
rvs_status rvs_calibration_save(const rvs_calibration *c, rvs_error *err);
rvs_status rvs_calibration_load(rvs_calibration *c, rvs_error *err);

/* ---- mixed precision (spmv_mixed.c) ---- */

/* spmv --precision mixed: the whole matrix (a partition and its blocks are not used) with its
 * values rounded to f32, x, y and every sum in f64, in CSR or HCC, the formats with such kernels. */
typedef struct {
    rvs_device device;    /* where it runs */
    rvs_format_id format; /* csr or hcc; 0: the faster of the two in a short trial */
    int iters;            /* timed calls, after one warm-up [10] */
    int trial_iters;      /* timed calls of each candidate in the trial [5] */
} rvs_mixed_options;

typedef struct {
    rvs_format_id format; /* what ran */
    double trial_ms[2];   /* the trial's medians of csr and hcc (-1: not tried) */
    double kernel_ms;     /* median kernel time (GPU: CUDA events; CPU: wall clock) */
    double call_ms;       /* median whole call: x in, SpMV, y out (GPU); kernel_ms on the CPU */
    double bytes;         /* what the kernel moves: the f32 block, f64 x and y */
} rvs_mixed_result;

void rvs_mixed_options_default(rvs_mixed_options *o);
/* y = A*x in mixed precision (x: A->cols doubles, y: A->rows), timed into R; y is the result of
 * a last call into a poisoned y. A32 receives A rounded to f32: the matrix y is exact for, which
 * a check compares against (the caller frees it). */
rvs_status rvs_spmv_mixed(const rvs_csr *A, const rvs_mixed_options *o, const double *x, double *y, rvs_csr *A32,
                          rvs_mixed_result *R, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
