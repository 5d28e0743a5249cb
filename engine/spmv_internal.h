/* spmv_internal.h - the SpMV runner's state, shared by its files (spmv_build.c: blocks and row
 * lists; spmv_run.c: the GPU graph and the call; spmv_host.c: the CPU items and y's assembly) */
#ifndef RVS_SPMV_INTERNAL_H
#define RVS_SPMV_INTERNAL_H

#include "engine_internal.h"

#define RVS_MAX_STREAMS 8
#define RVS_MAX_RUNS 64 /* row ranges of y copied back one by one; more become one span */

/* A chunk of a streamed item: its block on the host, streamed to a device slot on every call. */
typedef struct {
    rvs_fmt F;     /* the block's shape (its arrays' data are in host) */
    void *host;    /* its arrays packed one after another, each at a 256-byte boundary, in
                             page-locked memory */
    int64_t first; /* its first row within the item */
    size_t bytes;  /* the packed bytes */
} rvs_chunk;

/* One plan item made ready to run. */
typedef struct {
    const rvs_plan_item *it;
    rvs_fmt own;       /* a block built here (or borrowing the hub's arrays) */
    const rvs_fmt *F;  /* the block run: a stream block or &own; NULL for a GPU item once
                             uploaded (its host copy is gone) and for a streamed item */
    int64_t bytes;     /* what one SpMV of its block moves (rvs_spmv_bytes), x counted by its
                             share of the rows when the item is a row block or streamed */
    rvs_chunk *chunks; /* streamed: its chunks (spmv_stream.c) */
    int nchunks;
    int64_t *rows;     /* y row of each of the block's rows; NULL: base + i */
    int rows_borrowed; /* rows is the part's own list in the stream (not freed here) */
    rvs_csr *copy;     /* its rows copied out of the hub (rvs_items_split): built from, then freed */
    int64_t base;      /* the first row when the rows are consecutive */
    rvs_gpu_fmt G;     /* GPU items: the block on the device, with its row map */
    int direct;        /* CPU: writes y + base itself */
    int deferred;      /* CPU: put into y after the GPU's rows of y have arrived */
    void *buf;         /* CPU: the item's own y when not direct */
} rvs_eitem;

struct rvs_spmv_engine {
    const rvs_stream *S;
    rvs_vtype vt;
    size_t vs;
    int n;
    rvs_eitem *items;
    int gpu;           /* some item runs on the GPU */
    int overlap;       /* items share rows (Algorithm 4): CPU items assemble row by row */
    void *x, *y;       /* host x and y (pinned with a GPU) */
    int vectors_owned; /* x and y are this runner's (else another's: rvs_plan.vectors) */
    int host_later;    /* x, y and the graph not made yet (rvs_plan.device_vectors) */
    void *dx, *dy;
    void *s0, *streams[RVS_MAX_STREAMS];
    int nstreams;
    void *fork, *ph0[RVS_MAX_STREAMS], *done[RVS_MAX_STREAMS];
    void *ev[4]; /* call: start, x arrived, graph done, y arrived */
    void *graph;
    int nruns;
    int64_t runs[RVS_MAX_RUNS][2]; /* [first, end) rows of y copied back */
    uint8_t *gpu_rows;             /* 1 for rows a GPU item writes (kept when overlap) */
    uint8_t *covered;              /* scratch of the row-by-row assembly */
    int consume;                   /* the plan lets the runner give the hub back */
    rvs_hub_count taken;           /* with consume: the hub's entries streamed items have not yet gathered */
    rvs_csr *copies;               /* the items' copies of rvs_items_split (ncopies), each freed once built */
    int ncopies;
    int streamed;      /* some GPU item is streamed (spmv_stream.c) */
    size_t slot_bytes; /* the largest chunk: each device slot */
    void *slot[2];
    void *copy_s, *comp_s;          /* streams of the copies and of the streamed kernels */
    rvs_plan *plan;                 /* the plan it runs (its items change when tuning switches one) */
    struct rvs_tuner *tuner;        /* trials between calls (spmv_tune.c), NULL until the first call */
    int tune_switches;              /* items that took a faster candidate's block */
    const void *last_dx;            /* the device x and y of the last call (the runner's, or the caller's */
    void *last_dy;                  /* on rvs_spmv_engine_call_device): what tuning checks against */
    double tune_ms;                 /* wall time the calls paid for tuning */
    double upload_ms, upload_bytes; /* what the GPU items' uploads took at creation */
    void *copied[2], *freed[2], *after, *sdone; /* chunk in slot s arrived; slot s free again;
                                                   the graph ran; the streamed work ran */
};

/* The y rows of item it (concatenated rows of its parts) into e->rows/base; NULL rows when
 * they are consecutive; a one-part item's rows are the part's list (e->rows_borrowed). */
rvs_status rvs_item_rows(rvs_eitem *e, const rvs_stream *S, rvs_error *err);
/* With consume (every item's rows known): the rows of the items built from scattered rows with
 * all their entries (not streamed) copied out of the hub in one pass over it, each row block
 * of the hub given back once all its rows are copied (rvs_partition_split), so that the hub and
 * the copies hold the matrix about once; each such item then builds its block from its copy
 * (e->copy), which it gives back as it fills. Nothing is copied where the split does not apply. */
rvs_status rvs_items_split(rvs_spmv_engine *E, rvs_error *err);
/* e->F: the stream's block when it fits as is, the hub's arrays borrowed for CSR of a run of
 * rows, else e->own built: from its copy (rvs_items_split: CSR takes the copy's arrays, other
 * formats give it back as they fill), else from the hub - a view of a run of rows, or its rows
 * gathered in windows (CSR: a copy of them, which the block takes); with consume, the hub's
 * entries of a run are given back once built. */
rvs_status rvs_item_block(rvs_eitem *e, const rvs_stream *S, rvs_vtype vt, int consume, rvs_error *err);
/* 1 when item e's block (or streamed chunks) is built from its rows gathered from the hub in
 * windows (no copy of them): a format that allows it, of rows that are not a run of the hub's
 * in its value type (a view of those costs nothing); *R picks the rows. */
int rvs_item_gathered(rvs_row_pick *R, const rvs_eitem *e, const rvs_stream *S, rvs_vtype vt);
/* The item's rows as CSR in vt: *C is a view of a run of hub rows (*view 1), the hub itself
 * (*C zeroed, *use = &S->A), or a copy (*view 0). Free with rvs_item_csr_free. */
rvs_status rvs_item_csr(rvs_csr *C, const rvs_csr **use, int *view, const rvs_eitem *e, const rvs_stream *S,
                        rvs_vtype vt, rvs_error *err);
void rvs_item_csr_free(rvs_csr *C, int view);

/* Streamed items (spmv_stream.c): e's chunks built from the hub, each at most about the plan's
 * chunk_nnz entries, split until it fits the slot the plan's model allows and packed into
 * page-locked memory (with consume, the hub's rows of each go once it is packed: a run's at once,
 * scattered rows' through taken, a page once every row through it is packed; taken NULL: only
 * runs); the device slots, streams and events of E; queueing every streamed item (only < 0) or
 * item only, after event after on E->s0, joined back into s0. */
rvs_status rvs_chunks_build(rvs_eitem *e, const rvs_stream *S, rvs_vtype vt, int consume, rvs_hub_count *taken,
                            rvs_error *err);
rvs_status rvs_chunks_prepare(rvs_spmv_engine *E, rvs_error *err);
rvs_status rvs_chunks_run(rvs_spmv_engine *E, int only, void *after, rvs_error *err);
void rvs_chunks_free(rvs_spmv_engine *E);
/* y row of block row i. */
static inline int64_t rvs_item_row(const rvs_eitem *e, int64_t i)
{
    return e->rows ? e->rows[i] : e->base + i;
}

/* Decide how each CPU item puts its rows into y (after the GPU's rows are known). */
rvs_status rvs_host_prepare(rvs_spmv_engine *E, rvs_error *err);
/* Run the CPU items that need not wait for the GPU; deferred ones compute into their buffers. */
rvs_status rvs_host_run(rvs_spmv_engine *E, rvs_error *err);
/* The same for the CPU items pick(e, ctx) selects (NULL: all); a caller that runs x in pieces
 * (spmv-mpi: owned entries of x first) runs each item once, in any split. */
rvs_status rvs_host_run_some(rvs_spmv_engine *E, int (*pick)(const rvs_eitem *e, void *ctx), void *ctx,
                             rvs_error *err);
/* Capture the GPU items of the phases in mask (1: phase 0, 2: phase 1, 3: both, phase 1 after
 * phase 0) into *graph, forked from and joined into s0 (spmv_run.c); streamed items run after
 * the graph (rvs_chunks_run), so with any of them a mask other than 3 is refused. */
rvs_status rvs_spmv_capture(rvs_spmv_engine *E, int mask, void **graph, rvs_error *err);
/* Item e's block onto the device with its row map (its host copy given up) (spmv_run.c); the
 * graph captured again after an item's block changed. */
rvs_status rvs_item_upload(rvs_spmv_engine *E, rvs_eitem *e, rvs_error *err);
rvs_status rvs_spmv_recapture(rvs_spmv_engine *E, rvs_error *err);
/* Trials between calls (spmv_tune.c): after a call of call_ms, one step of trying the plan's
 * pending candidates when the calls have earned it; and the tuner's end. */
typedef struct rvs_tuner rvs_tuner;
rvs_status rvs_spmv_tune_step(rvs_spmv_engine *E, double call_ms, rvs_error *err);
void rvs_spmv_tune_free(rvs_spmv_engine *E);

/* Put the deferred CPU items into y (after the GPU's rows of y arrived). */
void rvs_host_finish(rvs_spmv_engine *E);

#endif
