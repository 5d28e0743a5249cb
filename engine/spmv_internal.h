/* spmv_internal.h - the SpMV runner's state, shared by its files (spmv_build.c: blocks and row
 * lists; spmv_run.c: the GPU graph and the call; spmv_host.c: the CPU items and y's assembly) */
#ifndef RVS_SPMV_INTERNAL_H
#define RVS_SPMV_INTERNAL_H

#include "engine_internal.h"

#define RVS_MAX_STREAMS 8
#define RVS_MAX_RUNS 64 /* row ranges of y copied back one by one; more become one span */

/* One plan item made ready to run. */
typedef struct {
    const rvs_plan_item *it;
    rvs_fmt own;          /* a block built here */
    const rvs_fmt *F;     /* the block run: a stream block or &own */
    int64_t *rows;        /* y row of each of the block's rows; NULL: base + i */
    int64_t base;         /* the first row when the rows are consecutive */
    rvs_gpu_fmt G;        /* GPU items: the block on the device, with its row map */
    int direct;           /* CPU: writes y + base itself */
    int deferred;         /* CPU: put into y after the GPU's rows of y have arrived */
    void *buf;            /* CPU: the item's own y when not direct */
} rvs_eitem;

struct rvs_spmv_engine {
    const rvs_stream *S;
    rvs_vtype vt;
    size_t vs;
    int n;
    rvs_eitem *items;
    int gpu;              /* some item runs on the GPU */
    int overlap;          /* items share rows (Algorithm 4): CPU items assemble row by row */
    void *x, *y;          /* host x and y (pinned with a GPU) */
    void *dx, *dy;
    void *s0, *streams[RVS_MAX_STREAMS];
    int nstreams;
    void *fork, *ph0[RVS_MAX_STREAMS], *done[RVS_MAX_STREAMS];
    void *ev[4];          /* call: start, x arrived, graph done, y arrived */
    void *graph;
    int nruns;
    int64_t runs[RVS_MAX_RUNS][2]; /* [first, end) rows of y copied back */
    uint8_t *gpu_rows;    /* 1 for rows a GPU item writes (kept when overlap) */
    uint8_t *covered;     /* scratch of the row-by-row assembly */
};

/* The y rows of item it (concatenated rows of its parts) into e->rows/base; NULL rows when
 * they are consecutive. */
rvs_status rvs_item_rows(rvs_eitem *e, const rvs_stream *S, rvs_error *err);
/* e->F: the stream's block when it fits as is, else e->own built from the hub. */
rvs_status rvs_item_block(rvs_eitem *e, const rvs_stream *S, rvs_vtype vt, rvs_error *err);
/* y row of block row i. */
static inline int64_t rvs_item_row(const rvs_eitem *e, int64_t i) { return e->rows ? e->rows[i] : e->base + i; }

/* Decide how each CPU item puts its rows into y (after the GPU's rows are known). */
rvs_status rvs_host_prepare(rvs_spmv_engine *E, rvs_error *err);
/* Run the CPU items that need not wait for the GPU; deferred ones compute into their buffers. */
rvs_status rvs_host_run(rvs_spmv_engine *E, rvs_error *err);
/* The same for the CPU items pick(e, ctx) selects (NULL: all); a caller that runs x in pieces
 * (spmv-mpi: owned entries of x first) runs each item once, in any split. */
rvs_status rvs_host_run_some(rvs_spmv_engine *E, int (*pick)(const rvs_eitem *e, void *ctx), void *ctx,
                             rvs_error *err);
/* Capture the GPU items of the phases in mask (1: phase 0, 2: phase 1, 3: both, phase 1 after
 * phase 0) into *graph, forked from and joined into s0 (spmv_run.c). */
rvs_status rvs_spmv_capture(rvs_spmv_engine *E, int mask, void **graph, rvs_error *err);
/* Put the deferred CPU items into y (after the GPU's rows of y arrived). */
void rvs_host_finish(rvs_spmv_engine *E);

#endif
