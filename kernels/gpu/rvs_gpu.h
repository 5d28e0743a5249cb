/* rvs_gpu.h - GPU SpMV over the formats of libformat (C interface; CUDA stays inside .cu) */
#ifndef RVS_GPU_H
#define RVS_GPU_H

#include "rvs_format.h"
#include "rvs_gpu_tune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a part's rows land in y (the output row map). Row i of the part (0 <= i < rows) is
 * y[base + i] when map is NULL (identity: a contiguous part of Algorithms 1, 2 or 4 costs
 * nothing), else y[base + map[i]], map a device array of rows int32_t (map64 0) or int64_t
 * (map64 1) offsets. accumulate 0: every row of the part is stored (y's old value is never
 * read); accumulate 1: every row is added to y, nothing is zeroed (another part stored these
 * rows first: the off-diagonal parts of Algorithm 4). Rows outside the part are never touched,
 * so parts with disjoint rows may run at the same time into one y. */
typedef struct {
    const void *map;
    int map64;
    int accumulate;
    int64_t base;
    const int32_t *inner; /* a column panel's rows (rvs_gpu_fmt.panel): part row of panel row i is
                           * inner[i], then mapped as above; NULL: i. Set by the launch, never owned. */
} rvs_gpu_ymap;

/* A format's arrays copied to the device, same names and layout as rvs_fmt, and its row map
 * (zero after rvs_gpu_upload: identity, stored). A CSR block whose x is too big for the L2 cache
 * may go up as column panels instead (csr_panels.cu): then G holds no arrays, panel[0 ..
 * npanel) are CSR blocks of G's columns [p * pwidth, (p + 1) * pwidth), panel 0 with all of G's
 * rows, the others with only the rows holding entries there (array "prow": their part rows,
 * int32), and a SpMV runs them in order, each adding into y what the ones before stored. */
typedef struct rvs_gpu_fmt {
    rvs_format_id id;
    int64_t rows, cols, nnz;
    rvs_vtype vtype;
    int64_t param[RVS_FMT_MAX_PARAMS];
    int narrays;
    rvs_array array[RVS_FMT_MAX_ARRAYS]; /* data points to device memory */
    rvs_gpu_ymap ymap;                   /* ymap.map belongs to G */
    struct rvs_gpu_fmt *panel;           /* host array of npanel blocks, owned; NULL: none */
    int npanel;
    int64_t pwidth; /* columns a panel */
    int64_t cbase;  /* CSR with "col16" (csr.cu): entry p of row i is in column
                                          * (i & ~31) + cbase + col16[p] */
    void *aux;      /* a library's state for the block (cuSPARSE's descriptor and
                                          * buffer: csr_cusparse.cu), owned, freed with G */
    void (*aux_free)(void *aux);
} rvs_gpu_fmt;

/* Number of usable GPUs (0 when none, or when built without CUDA). Never fails. */
int rvs_gpu_count(void);
/* Name and memory of device 0 into buf ("NVIDIA H100 80GB HBM3, 79.1 GiB"). */
void rvs_gpu_describe(char *buf, size_t n);
/* Device 0's peak memory bandwidth (bytes/s, from its memory clock and bus width) and L2 size
 * (bytes); both 0 when there is no device. */
void rvs_gpu_memory_peak(double *bytes_per_s, double *l2_bytes);

/* Copy every array of F to the device. */
rvs_status rvs_gpu_upload(rvs_gpu_fmt *G, const rvs_fmt *F, rvs_error *err);
/* Free the device arrays of G (its row map too) and zero it. */
void rvs_gpu_fmt_free(rvs_gpu_fmt *G);
/* Set G's row map: part row i goes to y[rows[i]] (rows: G->rows host entries; NULL: y[i]),
 * accumulate as in rvs_gpu_ymap. Ascending consecutive rows give base only; other lists are
 * uploaded as int32 offsets from their smallest row when they span less than 2^31 rows, else
 * as int64. Replaces (and frees) an earlier map. */
rvs_status rvs_gpu_set_rows(rvs_gpu_fmt *G, const int64_t *rows, int accumulate, rvs_error *err);
/* Device array of G by name, or NULL. */
const rvs_array *rvs_gpu_array(const rvs_gpu_fmt *G, const char *name);
/* Bytes one SpMV of G reads fewer than rvs_spmv_bytes counts for the block it was uploaded from:
 * a CSR block whose values, or a DIA or HYB-DIA block whose diagonals' slots, went up coded into a
 * table ("vdict": RVS_DICT_MAX distinct values at most, a byte per value in "vcode", none when the
 * table holds one value) saves those values less the codes and the table; a CSR block whose columns
 * went up as 16-bit offsets ("col16") 2 bytes an entry; both add up; 0 for every other block. */
int64_t rvs_gpu_bytes_saved(const rvs_gpu_fmt *G);

/* y = A*x on the device: dx (cols) and dy are device pointers of G->vtype; dy is the whole
 * y, and every row of the part is written at G->ymap's row (stored, or added in accumulate
 * mode), no other element of dy is touched. The rule for every kernel: every store to y goes
 * through the row-map helpers of gpu_internal.cuh (rvs_y_put, rvs_y_add, rvs_y_atomic,
 * rvs_y_put16) and y is zeroed only by rvs_gpu_y_zero, which clears the part's own rows.
 * stream is a cudaStream_t (NULL: default stream). Asynchronous: returns after the launch
 * (launch errors are checked). */
rvs_status rvs_gpu_spmv(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t, void *stream,
                        rvs_error *err);

/* One launcher per format (kernels/gpu/<format>.cu); rvs_gpu_spmv dispatches on G->id. */
typedef rvs_status (*rvs_gpu_spmv_fn)(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                      void *stream, rvs_error *err);
rvs_status rvs_gpu_spmv_csr(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_coo(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_ell(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_ellr(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_pellr(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_biell(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_jad(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_hyb(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_hybdia(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *,
                               rvs_error *);
rvs_status rvs_gpu_spmv_dia(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);
rvs_status rvs_gpu_spmv_hcc(const rvs_gpu_fmt *, const void *, void *, const rvs_gpu_tune *, void *, rvs_error *);

/* Mixed precision (spmv --precision mixed): y = A*x with A's values stored in f32 (G->vtype
 * RVS_F32) and dx, dy and every sum in f64, so only the rounding of A to f32 remains. Same
 * contract as rvs_gpu_spmv (row map, asynchronous, every row of the part written). CSR and
 * HCC have such kernels; RVS_ERR_UNSUPPORTED for other formats, RVS_ERR_ARG unless G holds
 * f32 values. */
rvs_status rvs_gpu_spmv_mixed(const rvs_gpu_fmt *G, const double *dx, double *dy, const rvs_gpu_tune *t,
                              void *stream, rvs_error *err);
/* rvs_gpu_spmv_mixed on the default stream between two CUDA events, waited for: *ms. */
rvs_status rvs_gpu_spmv_mixed_timed(const rvs_gpu_fmt *G, const double *dx, double *dy, const rvs_gpu_tune *t,
                                    double *ms, rvs_error *err);
rvs_status rvs_gpu_spmv_csr_mixed(const rvs_gpu_fmt *, const double *, double *, const rvs_gpu_tune *, void *,
                                  rvs_error *);
rvs_status rvs_gpu_spmv_hcc_mixed(const rvs_gpu_fmt *, const double *, double *, const rvs_gpu_tune *, void *,
                                  rvs_error *);

/* Device memory helpers for callers that keep CUDA out of their own files. */
rvs_status rvs_gpu_malloc(void **p, size_t bytes, rvs_error *err);
void rvs_gpu_free(void *p);
rvs_status rvs_gpu_memcpy_h2d(void *dst, const void *src, size_t bytes, rvs_error *err);
rvs_status rvs_gpu_memcpy_d2h(void *dst, const void *src, size_t bytes, rvs_error *err);
rvs_status rvs_gpu_memset(void *p, int byte, size_t bytes, rvs_error *err);
/* Two y of value type vt on the device compared over the rows G's row map sends its first rows
 * rows to (base + map[i], or base + i): *diff the largest |a - b|, *big the largest |a| (each
 * real and imaginary part apart), *bad 1 where b is not finite and a is. After the work queued
 * on the default stream; waits for the result. */
rvs_status rvs_gpu_compare_rows(const rvs_gpu_fmt *G, int64_t rows, rvs_vtype vt, const void *a, const void *b,
                                double *diff, double *big, int *bad, rvs_error *err);
rvs_status rvs_gpu_sync(rvs_error *err);
/* dx = the x of n values of vt that rvs_fill_x draws from seed (rvs_draw.h), drawn on the
 * device: no copy of it on the host. */
rvs_status rvs_gpu_fill_drawn(void *dx, int64_t n, rvs_vtype vt, uint64_t seed, rvs_error *err);
/* Large host -> device copies (gpu_upload.cu): rvs_gpu_memcpy_h2d sends copies of at least
 * min_bytes (0: none) through a ring of pinned slots of slot_bytes, filled by up to threads
 * threads while the copy engine moves the slots filled before. rvs_gpu_h2d_staged copies so with
 * the given threads and slot size, whatever the rule (for the upload benchmark). */
typedef struct {
    size_t min_bytes, slot_bytes;
    int threads;
} rvs_upload_rule;
void rvs_gpu_upload_rule_get(rvs_upload_rule *r);
void rvs_gpu_upload_rule_set(const rvs_upload_rule *r);
rvs_status rvs_gpu_h2d_staged(void *dst, const void *src, size_t bytes, int threads, size_t slot_bytes,
                              rvs_error *err);
/* Page-lock (pin) host memory for fast copies, and undo it. */
rvs_status rvs_gpu_host_register(void *p, size_t bytes, rvs_error *err);
void rvs_gpu_host_unregister(void *p);

/* Streams, events, graphs, asynchronous copies and pinned memory (gpu_async.cu). Handles
 * are opaque: a stream (cudaStream_t, created non-blocking), an event, an instantiated graph.
 * Without CUDA every call returns RVS_ERR_NODEV and the destroy/free calls do nothing. */
rvs_status rvs_gpu_stream_create(void **s, rvs_error *err);
void rvs_gpu_stream_destroy(void *s);
rvs_status rvs_gpu_stream_sync(void *s, rvs_error *err);
rvs_status rvs_gpu_event_create(void **e, rvs_error *err);
void rvs_gpu_event_destroy(void *e);
/* Record e on s; make s wait for e; milliseconds from e0 to e1 (waits for e1). */
rvs_status rvs_gpu_event_record(void *e, void *s, rvs_error *err);
rvs_status rvs_gpu_stream_wait(void *s, void *e, rvs_error *err);
rvs_status rvs_gpu_event_elapsed(void *e0, void *e1, double *ms, rvs_error *err);
/* Record what is queued on s (and on streams forked from it by events) between begin and end
 * as a CUDA graph, instantiated into *exec; replay it with rvs_gpu_graph_launch. */
rvs_status rvs_gpu_capture_begin(void *s, rvs_error *err);
rvs_status rvs_gpu_capture_end(void *s, void **exec, rvs_error *err);
rvs_status rvs_gpu_graph_launch(void *exec, void *s, rvs_error *err);
void rvs_gpu_graph_destroy(void *exec);
rvs_status rvs_gpu_memcpy_h2d_async(void *dst, const void *src, size_t bytes, void *s, rvs_error *err);
rvs_status rvs_gpu_memcpy_d2h_async(void *dst, const void *src, size_t bytes, void *s, rvs_error *err);
rvs_status rvs_gpu_memcpy_d2d_async(void *dst, const void *src, size_t bytes, void *s, rvs_error *err);
rvs_status rvs_gpu_memset_async(void *p, int byte, size_t bytes, void *s, rvs_error *err);
/* Free and total memory of the current device, bytes. */
rvs_status rvs_gpu_mem_info(size_t *free_bytes, size_t *total_bytes, rvs_error *err);
/* Pinned host memory: copies from and to it run at full PCIe speed and asynchronously. */
rvs_status rvs_gpu_host_alloc(void **p, size_t bytes, rvs_error *err);
void rvs_gpu_host_free(void *p);
/* CUDA IPC between processes of one node (gpu_async.cu): the handle of the device allocation
 * that p starts (from rvs_gpu_malloc), RVS_GPU_IPC_BYTES bytes another process may open to read
 * and write it from its current device (the same device, or a peer over NVLink or PCIe; peer
 * access is enabled as the open needs it); close it before the exporter frees it. */
#define RVS_GPU_IPC_BYTES 64
rvs_status rvs_gpu_ipc_export(void *handle, const void *p, rvs_error *err);
rvs_status rvs_gpu_ipc_open(void **p, const void *handle, rvs_error *err);
void rvs_gpu_ipc_close(void *p);

#ifdef __cplusplus
}
#endif
#endif
