/* mpi_call.c - a rank's plan and its call: the engine plans and builds the rank's local stream;
 * its GPU items are captured as two graphs, the owned-column entries and the received-column
 * ones, so that a call runs the first while the exchange travels and the second after it:
 *   s1: [resident: gather sent entries, copy them to the host]       ... received x in
 *   s0: owned x in (host call), graph 0 ............................. wait, graph 1, y out
 *   host: [resident: wait s1] post the exchange, CPU items of owned columns, wait for it, CPU
 *         items of received columns, wait for s0, assemble
 * Resident calls between GPU-to-GPU pairs (mpi_peer.c) copy only the host pairs' entries through
 * the host; the others' entries are copied on s1 from the sender's GPU as its 'ready' arrives. */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

enum { EV_START, EV_XIN, EV_PH0, EV_RECV, EV_PH1START, EV_PH1, EV_YOUT, EV_N };

/* The rank's mode: in hybrid mode a rank whose parts all want one device runs on it alone. */
static rvs_run_mode rank_mode(const rvs_mpi_spmv *M, rvs_run_mode mode)
{
    int gpu = 0, cpu = 0;
    if (mode != RVS_MODE_HYBRID)
        return mode;
    for (int j = 0; j < M->nparts; j++) {
        gpu |= M->part_dev[j] == RVS_DEV_GPU;
        cpu |= M->part_dev[j] == RVS_DEV_CPU;
    }
    return gpu && cpu ? RVS_MODE_HYBRID : gpu ? RVS_MODE_GPU : RVS_MODE_CPU;
}

/* Resident calls: the sent entries as rows of a 0/1 matrix over x, on the GPU. */
static rvs_status prepare_gather(rvs_mpi_spmv *M, rvs_error *err)
{
    const int64_t n = M->info.send_cols;
    rvs_csr S = {0};
    rvs_fmt_options fo;
    rvs_fmt_options_default(&fo);
    rvs_status st = rvs_csr_alloc(&S, n, M->L.A.cols, n, M->vt, err);
    for (int64_t k = 0; k < n && st == RVS_OK; k++) {
        S.rowptr[k + 1] = k + 1;
        S.colind[k] = M->send_idx[k];
        if (M->vt == RVS_F64)
            ((double *)S.values)[k] = 1;
        else
            ((float *)S.values)[k] = 1;
    }
    if (st == RVS_OK)
        st = rvs_fmt_from_csr(&M->sel, RVS_FMT_CSR, &S, &fo, err);
    if (st == RVS_OK)
        st = rvs_gpu_upload(&M->sel_gpu, &M->sel, err);
    if (st == RVS_OK)
        st = rvs_gpu_malloc(&M->dsend, (size_t)n * rvs_vtype_size(M->vt), err);
    rvs_csr_free(&S);
    return st;
}

/* Graphs, stream and events of the GPU side. */
static rvs_status prepare_gpu(rvs_mpi_spmv *M, rvs_error *err)
{
    int phase1 = 0;
    rvs_status st = rvs_gpu_stream_create(&M->s1, err);
    for (int k = 0; k < EV_N && st == RVS_OK; k++)
        st = rvs_gpu_event_create(&M->ev[k], err);
    for (int i = 0; i < M->E->n; i++)
        phase1 |= M->E->items[i].it->device == RVS_DEV_GPU && M->E->items[i].it->phase == 1;
    if (st == RVS_OK)
        st = rvs_spmv_capture(M->E, 1, &M->graph[0], err);
    if (st == RVS_OK && phase1)
        st = rvs_spmv_capture(M->E, 2, &M->graph[1], err);
    if (st == RVS_OK && M->info.send_cols > 0)
        st = prepare_gather(M, err);
    return st;
}

/* The received-column entries are in their parts' blocks alone: a plan that would build such a
 * part from the local matrix (fused with another, or streamed through the GPU) is refused. */
static rvs_status halo_from_blocks(const rvs_mpi_spmv *M, rvs_error *err)
{
    for (int i = 0; i < M->P.nitems; i++) {
        const rvs_plan_item *it = &M->P.items[i];
        for (int k = 0; k < it->nparts; k++)
            if (it->parts[k] >= 0 && M->L.partition.parts[it->parts[k]].entries == RVS_ENTRIES_OFFDIAG &&
                (it->nparts != 1 || it->streamed || rvs_item_source(&M->L, it, M->P.vtype) != RVS_SRC_BLOCK))
                return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                                "rank %d: its received-column entries would run from "
                                "another block than their own (the device holds too little?)",
                                M->rank);
    }
    return RVS_OK;
}

/* A rank without GPU items: its owned parts store their rows of y and its received-column part
 * adds to them after (the two halves of a call), so no CPU item needs the engine's row-by-row
 * assembly, which it applies to every partition with entry classes (for Algorithm 4's parts,
 * which may share rows across devices): the owned items of runs of rows write y in place,
 * without a y of their own, and the received-column item adds its y to theirs. */
static rvs_status direct_items(rvs_spmv_engine *E, rvs_error *err)
{
    if (E->gpu || !E->overlap)
        return RVS_OK;
    free(E->covered);
    E->covered = NULL;
    E->overlap = 0;
    for (int i = 0; i < E->n; i++) {
        rvs_eitem *e = &E->items[i];
        free(e->buf);
        e->buf = NULL;
        e->deferred = 0;
        e->direct = !e->rows && e->it->phase == 0;
        if (!e->direct && !(e->buf = malloc((size_t)e->F->rows * E->vs + 8)))
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a part's y");
    }
    return RVS_OK;
}

/* Once the runner holds what it runs, the owned parts' row lists (runs of rows, which the
 * planner and the builder read) go, unless an item reads them: nothing else does. */
static void drop_run_lists(rvs_mpi_spmv *M)
{
    rvs_partition *P = &M->L.partition;
    for (int p = 0; p < P->k; p++) {
        rvs_part *q = &P->parts[p];
        int used = q->entries != RVS_ENTRIES_ALL;
        for (int i = 0; i < M->E->n && !used; i++)
            used = M->E->items[i].rows == q->rows;
        if (!used) {
            free(q->rows);
            q->rows = NULL;
        }
    }
}

rvs_status rvs_mpi_prepare(rvs_mpi_spmv *M, const rvs_engine_devices *dev, const rvs_plan_options *po,
                           rvs_format_id halo, rvs_error *err)
{
    rvs_plan_options o = *po;
    const size_t vs = rvs_vtype_size(po->vtype);
    o.mode = rank_mode(M, po->mode);
    M->vt = po->vtype;
    rvs_status st = rvs_mpi_halo_parts(M, o.mode, &o, halo, err);
    if (st != RVS_OK)
        return st;
    if (M->nparts > 0) {
        if ((st = rvs_plan_make(&M->P, &M->L, dev, &o, err)) != RVS_OK)
            return st;
        M->planned = 1;
        if ((st = halo_from_blocks(M, err)) != RVS_OK)
            return st;
        if ((st = rvs_spmv_engine_create(&M->E, &M->L, &M->P, err)) != RVS_OK ||
            (st = direct_items(M->E, err)) != RVS_OK)
            return st;
        drop_run_lists(M);
        M->gpu = M->E->gpu;
        memset(rvs_spmv_engine_x(M->E), 0, (size_t)M->L.A.cols * vs); /* received entries arrive per call */
    } else if (!(M->xbuf = calloc((size_t)M->info.owned_cols + 1, vs))) {
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    }
    const size_t bytes = (size_t)M->info.send_cols * vs + 16;
    if (M->gpu) {
        st = rvs_gpu_host_alloc(&M->sendbuf, bytes, err);
        M->pinned = st == RVS_OK;
    } else if (!(M->sendbuf = malloc(bytes))) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %zu bytes", bytes);
    }
    if (st == RVS_OK && M->gpu)
        st = prepare_gpu(M, err);
    return st;
}

/* CPU items by the class of their parts (owned or received columns). */
static int items_of_class(const rvs_eitem *e, void *ctx)
{
    const rvs_mpi_spmv *M = ctx;
    return M->L.partition.parts[e->it->parts[0]].entries == M->L.partition.parts[0].entries;
}
static int items_not_of_class(const rvs_eitem *e, void *ctx)
{
    return !items_of_class(e, ctx);
}

/* Queue the GPU's first half: owned x in (host call) or the gather of sent entries on s1
 * (resident), and graph 0. */
static rvs_status gpu_first(rvs_mpi_spmv *M, int resident, rvs_error *err)
{
    rvs_spmv_engine *E = M->E;
    const size_t vs = rvs_vtype_size(M->vt);
    rvs_status st = rvs_gpu_event_record(M->ev[EV_START], E->s0, err);
    if (st == RVS_OK && !resident)
        st = rvs_gpu_memcpy_h2d_async(E->dx, E->x, (size_t)M->info.owned_cols * vs, E->s0, err);
    if (st == RVS_OK && resident && M->info.send_cols > 0) {
        rvs_gpu_tune t0;
        memset(&t0, 0, sizeof t0);
        if ((st = rvs_gpu_stream_wait(M->s1, M->ev[EV_START], err)) == RVS_OK &&
            (st = rvs_gpu_spmv(&M->sel_gpu, E->dx, M->dsend, &t0, M->s1, err)) == RVS_OK && !M->peer_send)
            st = rvs_gpu_memcpy_d2h_async(M->sendbuf, M->dsend, (size_t)M->info.send_cols * vs, M->s1, err);
        for (int i = 0; M->peer_send && i < M->nsend && st == RVS_OK; i++) /* the host pairs' entries */
            if (!M->send[i].peer)
                st = rvs_gpu_memcpy_d2h_async((char *)M->sendbuf + (size_t)M->send[i].first * vs,
                                              (const char *)M->dsend + (size_t)M->send[i].first * vs,
                                              (size_t)M->send[i].count * vs, M->s1, err);
    }
    if (st == RVS_OK)
        st = rvs_gpu_event_record(M->ev[EV_XIN], E->s0, err);
    if (st == RVS_OK)
        st = rvs_gpu_graph_launch(M->graph[0], E->s0, err);
    if (st == RVS_OK)
        st = rvs_gpu_event_record(M->ev[EV_PH0], E->s0, err);
    if (st == RVS_OK && resident && M->info.send_cols > 0)
        st = rvs_gpu_stream_sync(M->s1, err); /* the sent entries are on the host, or ready on the GPU */
    return st;
}

/* Queue the second half: received x in on s1 (after the GPU-to-GPU copies queued there), graph 1
 * after it, y out (host call, or a resident call checked). */
static rvs_status gpu_second(rvs_mpi_spmv *M, int resident, rvs_error *err)
{
    rvs_spmv_engine *E = M->E;
    const size_t vs = rvs_vtype_size(M->vt);
    const int64_t own = M->info.owned_cols, n = M->info.recv_cols;
    const int split = M->peer_posted && M->peer_recv > 0; /* some received entries came GPU to GPU */
    rvs_status st = RVS_OK;
    if (n > 0 && !split)
        st = rvs_gpu_memcpy_h2d_async((char *)E->dx + (size_t)own * vs, (const char *)E->x + (size_t)own * vs,
                                      (size_t)n * vs, M->s1, err);
    for (int i = 0; split && i < M->nrecv && st == RVS_OK; i++) /* the host pairs' entries */
        if (!M->recv[i].peer)
            st = rvs_gpu_memcpy_h2d_async((char *)E->dx + (size_t)M->recv[i].first * vs,
                                          (const char *)E->x + (size_t)M->recv[i].first * vs,
                                          (size_t)M->recv[i].count * vs, M->s1, err);
    if (st == RVS_OK && n > 0)
        st = rvs_gpu_event_record(M->ev[EV_RECV], M->s1, err);
    if (st == RVS_OK && n > 0)
        st = rvs_gpu_stream_wait(E->s0, M->ev[EV_RECV], err);
    if (st == RVS_OK)
        st = rvs_gpu_event_record(M->ev[EV_PH1START], E->s0, err);
    if (st == RVS_OK && M->graph[1])
        st = rvs_gpu_graph_launch(M->graph[1], E->s0, err);
    if (st == RVS_OK)
        st = rvs_gpu_event_record(M->ev[EV_PH1], E->s0, err);
    for (int k = 0; resident != 1 && k < E->nruns && st == RVS_OK; k++)
        st = rvs_gpu_memcpy_d2h_async((char *)E->y + (size_t)E->runs[k][0] * vs,
                                      (const char *)E->dy + (size_t)E->runs[k][0] * vs,
                                      (size_t)(E->runs[k][1] - E->runs[k][0]) * vs, E->s0, err);
    if (st == RVS_OK)
        st = rvs_gpu_event_record(M->ev[EV_YOUT], E->s0, err);
    return st;
}

/* y poisoned with NaN on the host and on the GPU. */
static rvs_status poison_y(rvs_mpi_spmv *M, rvs_error *err)
{
    rvs_spmv_engine *E = M->E;
    rvs_fill_nan(E->y, M->L.A.rows, M->vt);
    rvs_status st = RVS_OK;
    if (M->gpu && (st = rvs_gpu_memset(E->dy, 0xff, (size_t)M->L.A.rows * rvs_vtype_size(M->vt), err)) == RVS_OK)
        st = rvs_gpu_sync(err);
    return st;
}

/* The GPU's times of the call from its events. */
static rvs_status gpu_times(rvs_mpi_spmv *M, rvs_mpi_times *t, rvs_error *err)
{
    rvs_status st = rvs_gpu_event_elapsed(M->ev[EV_XIN], M->ev[EV_PH0], &t->phase0_ms, err);
    if (st == RVS_OK)
        st = rvs_gpu_event_elapsed(M->ev[EV_PH1START], M->ev[EV_PH1], &t->phase1_ms, err);
    if (st == RVS_OK)
        st = rvs_gpu_event_elapsed(M->ev[EV_PH0], M->ev[EV_PH1START], &t->idle_ms, err);
    if (st == RVS_OK)
        st = rvs_gpu_event_elapsed(M->ev[EV_START], M->ev[EV_YOUT], &t->gpu_ms, err);
    return st;
}

rvs_status rvs_mpi_call(rvs_mpi_spmv *M, int resident, int poison, rvs_mpi_times *t, rvs_error *err)
{
    rvs_spmv_engine *E = M->E;
    rvs_status st = RVS_OK;
    memset(t, 0, sizeof *t);
    resident = M->gpu ? resident : 0;
    if (resident && !M->resident_ready)
        return rvs_fail(err, RVS_ERR_ARG, "a resident call needs x on the GPU: make a host call first");
    if (poison && E && (st = poison_y(M, err)) != RVS_OK)
        return st;
    const double t0 = rvs_engine_now();
    st = rvs_mpi_peer_settle(M, err); /* the last call's receivers copied out of dsend */
    if (st == RVS_OK && M->gpu)
        st = gpu_first(M, resident, err);
    const double tp = rvs_engine_now();
    if (st == RVS_OK)
        st = rvs_mpi_halo_post(M, resident, err);
    const double c0 = rvs_engine_now();
    if (st == RVS_OK && E)
        st = rvs_host_run_some(E, items_of_class, M, err);
    const double tw = rvs_engine_now();
    if (st == RVS_OK)
        st = rvs_mpi_halo_wait(M, err);
    const double te = rvs_engine_now();
    if (st == RVS_OK && M->gpu)
        st = gpu_second(M, resident, err);
    const double c1 = rvs_engine_now();
    if (st == RVS_OK && E)
        st = rvs_host_run_some(E, items_not_of_class, M, err);
    const double c2 = rvs_engine_now();
    if (st == RVS_OK && M->gpu)
        st = rvs_gpu_stream_sync(E->s0, err);
    if (st == RVS_OK && M->peer_posted)
        st = rvs_mpi_peer_done(M, err); /* s0 waited for the copies */
    if (st != RVS_OK)
        return st;
    if (E && resident != 1)
        rvs_host_finish(E);
    const double t1 = rvs_engine_now();
    t->call_ms = (t1 - t0) * 1e3;
    t->exchange_ms = (te - tp) * 1e3;
    t->wait_ms = (te - tw) * 1e3;
    if (M->gpu) {
        M->resident_ready = 1;
        return gpu_times(M, t, err);
    }
    t->phase0_ms = (tw - c0) * 1e3;
    t->phase1_ms = (c2 - c1) * 1e3;
    return RVS_OK;
}

void *rvs_mpi_x(rvs_mpi_spmv *M)
{
    return M->E ? rvs_spmv_engine_x(M->E) : M->xbuf;
}
void *rvs_mpi_y(rvs_mpi_spmv *M)
{
    return M->E ? rvs_spmv_engine_y(M->E) : NULL;
}
rvs_vtype rvs_mpi_vtype(const rvs_mpi_spmv *M)
{
    return M->vt ? M->vt : M->info.vtype;
}
void rvs_mpi_get_info(const rvs_mpi_spmv *M, rvs_mpi_info *info)
{
    *info = M->info;
}
const rvs_plan *rvs_mpi_plan(const rvs_mpi_spmv *M)
{
    return M->planned ? &M->P : NULL;
}
const rvs_stream *rvs_mpi_local(const rvs_mpi_spmv *M)
{
    return &M->L;
}

void rvs_mpi_free(rvs_mpi_spmv *M)
{
    if (!M)
        return;
    rvs_gpu_graph_destroy(M->graph[0]);
    rvs_gpu_graph_destroy(M->graph[1]);
    for (int k = 0; k < EV_N; k++)
        rvs_gpu_event_destroy(M->ev[k]);
    rvs_gpu_stream_destroy(M->s1);
    rvs_gpu_fmt_free(&M->sel_gpu);
    rvs_fmt_free(&M->sel);
    rvs_mpi_peer_free(M); /* the receivers copied out of dsend */
    rvs_gpu_free(M->dsend);
    rvs_spmv_engine_free(M->E);
    if (M->planned)
        rvs_plan_free(&M->P);
    if (M->pinned)
        rvs_gpu_host_free(M->sendbuf);
    else
        free(M->sendbuf);
    free(M->xbuf);
    rvs_stream_free(&M->L);
    rvs_csr_free(&M->H);
    free(M->far);
    free(M->ref);
    free(M->scale);
    free(M->recv);
    free(M->send);
    free(M->send_idx);
    free(M->req);
    free(M->part);
    free(M->part_dev);
    free(M->part_fmt);
    free(M->part_cp);
    free(M->part_rows);
    for (int r = 0; M->rank_rows && r < M->nranks; r++)
        if (M->rank_rows_mine[r])
            free(M->rank_rows[r]);
    free(M->rank_rows);
    free(M->rank_rows_mine);
    free(M->rank_first);
    free(M->rank_off);
    free(M);
}
