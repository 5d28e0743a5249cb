/* mpi_grid_resident.c - the 2-D layout's resident calls (mpi_grid.h): the rank's pieces of x and
 * y stay on the GPU, and a call stages only what the expand and fold move through host memory:
 *   expand: the x piece to the host, the process column's pieces (mpi_grid_coll.c) into the
 *           runner's host x, the column block's x up into the runner's device x
 *   block:  the runner's graph on its device x and y (rvs_spmv_engine_kernels)
 *   fold:   the block's partial y down, summed over the process row (mpi_grid_coll.c), the y
 *           piece up
 * The copies run on the runner's stream s0, in its events. Host-staged: a GPU-to-GPU expand and
 * fold (CUDA-aware MPI or NCCL, or mpi_peer.c's IPC copies) is a later step. */
#include <string.h>
#include "mpi_grid_internal.h"

rvs_status rvs_mpi_grid_upload(rvs_mpi_grid *G, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(G->vt), xb = (size_t)G->x_n * vs, yb = (size_t)G->y_n * vs;
    rvs_status st = RVS_OK;
    if (!G->gpu)
        return RVS_OK;
    if (!G->dxmine && (st = rvs_gpu_malloc(&G->dxmine, xb + 16, err)) != RVS_OK)
        return st;
    if (!G->dymine && (st = rvs_gpu_malloc(&G->dymine, yb + 16, err)) != RVS_OK)
        return st;
    if (!G->stage && (st = rvs_gpu_host_alloc(&G->stage, (xb > yb ? xb : yb) + 16, err)) != RVS_OK)
        return st;
    if ((st = rvs_gpu_memcpy_h2d_async(G->dxmine, G->xmine, xb, G->E->s0, err)) != RVS_OK ||
        (st = rvs_gpu_memcpy_h2d_async(G->dymine, G->ymine, yb, G->E->s0, err)) != RVS_OK ||
        (st = rvs_gpu_stream_sync(G->E->s0, err)) != RVS_OK)
        return st;
    G->resident_ready = 1;
    return RVS_OK;
}

/* y poisoned with NaN: the host piece, the block's host y, the device piece and device y. */
static rvs_status poison_y(rvs_mpi_grid *G, rvs_error *err)
{
    rvs_spmv_engine *E = G->E;
    const size_t vs = rvs_vtype_size(G->vt);
    rvs_status st;
    rvs_fill_nan(G->ymine, G->y_n, G->vt);
    rvs_fill_nan(E->y, G->rows, G->vt);
    if ((st = rvs_gpu_memset(G->dymine, 0xff, (size_t)G->y_n * vs, err)) != RVS_OK ||
        (st = rvs_gpu_memset(E->dy, 0xff, (size_t)G->rows * vs, err)) != RVS_OK)
        return st;
    return rvs_gpu_sync(err);
}

/* The x piece to the host (after what the caller queued on the default stream: x written). */
static rvs_status x_piece_out(rvs_mpi_grid *G, rvs_error *err)
{
    rvs_spmv_engine *E = G->E;
    rvs_status st;
    if ((st = rvs_gpu_event_record(E->ev[3], NULL, err)) != RVS_OK ||
        (st = rvs_gpu_stream_wait(E->s0, E->ev[3], err)) != RVS_OK ||
        (st = rvs_gpu_memcpy_d2h_async(G->stage, G->dxmine, (size_t)G->x_n * rvs_vtype_size(G->vt), E->s0, err)) !=
            RVS_OK)
        return st;
    return rvs_gpu_stream_sync(E->s0, err);
}

/* The block: the column block's x in, the graph, the partial y's rows out (the runner's runs),
 * between its events 0 and 3 as a host call's (*gpu_ms). */
static rvs_status block_on_gpu(rvs_mpi_grid *G, double *gpu_ms, rvs_error *err)
{
    rvs_spmv_engine *E = G->E;
    double kernel_ms;
    rvs_status st;
    if ((st = rvs_gpu_event_record(E->ev[0], E->s0, err)) != RVS_OK ||
        (st = rvs_gpu_memcpy_h2d_async(E->dx, E->x, (size_t)G->cols * E->vs, E->s0, err)) != RVS_OK ||
        (st = rvs_spmv_engine_kernels(E, &kernel_ms, err)) != RVS_OK)
        return st;
    for (int k = 0; k < E->nruns && st == RVS_OK; k++)
        st = rvs_gpu_memcpy_d2h_async((char *)E->y + (size_t)E->runs[k][0] * E->vs,
                                      (const char *)E->dy + (size_t)E->runs[k][0] * E->vs,
                                      (size_t)(E->runs[k][1] - E->runs[k][0]) * E->vs, E->s0, err);
    if (st != RVS_OK || (st = rvs_gpu_event_record(E->ev[3], E->s0, err)) != RVS_OK ||
        (st = rvs_gpu_stream_sync(E->s0, err)) != RVS_OK)
        return st;
    return rvs_gpu_event_elapsed(E->ev[0], E->ev[3], gpu_ms, err);
}

/* The y piece up from the stage; resident 2: and down into the host piece. */
static rvs_status y_piece_in(rvs_mpi_grid *G, int resident, rvs_error *err)
{
    rvs_spmv_engine *E = G->E;
    const size_t bytes = (size_t)G->y_n * rvs_vtype_size(G->vt);
    rvs_status st = rvs_gpu_memcpy_h2d_async(G->dymine, G->stage, bytes, E->s0, err);
    if (st == RVS_OK && resident == 2)
        st = rvs_gpu_memcpy_d2h_async(G->ymine, G->dymine, bytes, E->s0, err);
    return st == RVS_OK ? rvs_gpu_stream_sync(E->s0, err) : st;
}

rvs_status rvs_mpi_grid_call_resident(rvs_mpi_grid *G, int resident, int poison, rvs_mpi_times *t, rvs_error *err)
{
    rvs_status st = RVS_OK;
    memset(t, 0, sizeof *t);
    if (!G->resident_ready && (st = rvs_mpi_grid_upload(G, err)) != RVS_OK)
        return st;
    if (poison && (st = poison_y(G, err)) != RVS_OK)
        return st;
    const double t0 = rvs_engine_now();
    if ((st = x_piece_out(G, err)) != RVS_OK)
        return st;
    const double w0 = rvs_engine_now();
    if ((st = rvs_mpi_grid_expand(G, G->stage, G->E->x, err)) != RVS_OK)
        return st;
    const double t1 = rvs_engine_now();
    if ((st = block_on_gpu(G, &t->gpu_ms, err)) != RVS_OK)
        return st;
    const double t2 = rvs_engine_now();
    if ((st = rvs_mpi_grid_fold(G, G->E->y, G->stage, err)) != RVS_OK)
        return st;
    const double w1 = rvs_engine_now();
    if ((st = y_piece_in(G, resident, err)) != RVS_OK)
        return st;
    const double t3 = rvs_engine_now();
    t->call_ms = (t3 - t0) * 1e3;
    t->phase0_ms = (t2 - t1) * 1e3;
    t->exchange_ms = (t1 - t0 + t3 - t2) * 1e3;
    t->wait_ms = (t1 - w0 + w1 - t2) * 1e3; /* the expand and fold alone: the rest is the pieces' copies */
    return RVS_OK;
}

void rvs_mpi_grid_resident_free(rvs_mpi_grid *G)
{
    rvs_gpu_free(G->dxmine);
    rvs_gpu_free(G->dymine);
    if (G->stage)
        rvs_gpu_host_free(G->stage);
}
