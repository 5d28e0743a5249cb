/* spmv_run.c - running a plan: every block built and uploaded once (a GPU item's host copy goes
 * as soon as it is on the device), the resident GPU items captured as one CUDA graph over the
 * plan's streams (phase-1 items wait for every phase-0 item), and one call = x uploaded once,
 * the graph replayed, the streamed items' chunks sent through (spmv_stream.c), the GPU's rows
 * of y copied back into pinned host memory while the CPU items run (spmv_host.c) */
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_mem.h"
#include "spmv_internal.h"

/* Host buffer of bytes: pinned when the plan uses a GPU. */
static rvs_status host_alloc(const rvs_spmv_engine *E, void **p, size_t bytes, rvs_error *err)
{
    if (E->gpu)
        return rvs_gpu_host_alloc(p, bytes + 16, err);
    *p = malloc(bytes + 16);
    return *p ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %zu bytes", bytes);
}

static void host_free(const rvs_spmv_engine *E, void *p)
{
    if (E->gpu)
        rvs_gpu_host_free(p);
    else
        free(p);
}

static int by_start(const void *a, const void *b)
{
    const int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return x < y ? -1 : x > y;
}

/* Run [a, b) of the GPU's rows into E->runs, lo..hi the span so far. */
static void add_run(rvs_spmv_engine *E, int64_t a, int64_t b, int64_t *lo, int64_t *hi)
{
    if (*lo < 0)
        *lo = a;
    *hi = b;
    if (E->nruns < RVS_MAX_RUNS)
        E->runs[E->nruns][0] = a, E->runs[E->nruns++][1] = b;
    else
        E->nruns = RVS_MAX_RUNS + 1;
}

/* find_runs where every item is a GPU one of consecutive rows: the items' ranges sorted and joined,
 * with no map of the rows (on 4M rows the map took 3 ms, most of it first touches of its pages). */
static int runs_of_ranges(rvs_spmv_engine *E)
{
    int64_t(*r)[2] = malloc((size_t)E->n * sizeof *r + 1), lo = -1, hi = -1;
    int n = 0;
    for (int i = 0; r && i < E->n; i++) {
        const rvs_eitem *e = &E->items[i];
        if (e->it->device != RVS_DEV_GPU || e->rows) {
            free(r);
            return 0;
        }
        if (e->it->rows > 0)
            r[n][0] = e->base, r[n++][1] = e->base + e->it->rows;
    }
    if (!r)
        return 0;
    qsort(r, (size_t)n, sizeof *r, by_start);
    E->nruns = 0;
    for (int i = 0; i < n;) {
        int64_t a = r[i][0], b = r[i][1];
        for (i++; i < n && r[i][0] <= b; i++) /* touching or overlapping ranges make one run */
            b = r[i][1] > b ? r[i][1] : b;
        add_run(E, a, b, &lo, &hi);
    }
    free(r);
    if (E->nruns > RVS_MAX_RUNS) {
        E->nruns = 1;
        E->runs[0][0] = lo;
        E->runs[0][1] = hi;
    }
    return 1;
}

/* The row ranges of y the GPU writes: its runs of rows, or one span when there are too many. */
static rvs_status find_runs(rvs_spmv_engine *E, rvs_error *err)
{
    const int64_t rows = E->S->A.rows;
    if (runs_of_ranges(E))
        return RVS_OK;
    uint8_t *g = E->gpu_rows = calloc((size_t)rows + 1, 1);
    if (!g)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the row map");
    for (int i = 0; i < E->n; i++) {
        const rvs_eitem *e = &E->items[i];
        if (e->it->device != RVS_DEV_GPU)
            continue;
        if (!e->rows) /* consecutive rows: a row at a time took a millisecond on 300K rows */
            memset(g + e->base, 1, (size_t)e->it->rows);
        else
            for (int64_t r = 0; r < e->it->rows; r++)
                g[e->rows[r]] = 1;
    }
    int64_t lo = -1, hi = -1, r = 0;
    E->nruns = 0;
    while (r < rows) { /* from row r: the next run of ones */
        const uint8_t *p = memchr(g + r, 1, (size_t)(rows - r)), *q;
        if (!p)
            break;
        const int64_t a = p - g, b = (q = memchr(p, 0, (size_t)(rows - a))) ? q - g : rows;
        add_run(E, a, b, &lo, &hi);
        r = b;
    }
    if (E->nruns > RVS_MAX_RUNS) { /* one copy of the span; CPU rows inside it are put after it */
        E->nruns = 1;
        E->runs[0][0] = lo;
        E->runs[0][1] = hi;
    }
    return RVS_OK;
}

/* Queue the GPU items of one phase on their streams. */
static rvs_status launch_phase(rvs_spmv_engine *E, int phase, rvs_error *err)
{
    rvs_status st = RVS_OK;
    for (int i = 0; i < E->n && st == RVS_OK; i++) {
        rvs_eitem *e = &E->items[i];
        if (e->it->device == RVS_DEV_GPU && !e->chunks && e->it->phase == phase && e->it->rows > 0)
            st = rvs_gpu_spmv(&e->G, E->dx, E->dy, &e->it->knobs.tune, E->streams[e->it->stream], err);
    }
    return st;
}

/* Capture every GPU item into one graph: forked from s0 over the streams, phase 1 after all of
 * phase 0, joined back into s0. */
static rvs_status capture(rvs_spmv_engine *E, rvs_error *err)
{
    return rvs_spmv_capture(E, 3, &E->graph, err);
}

rvs_status rvs_spmv_recapture(rvs_spmv_engine *E, rvs_error *err)
{
    rvs_status st = rvs_gpu_sync(err);
    if (st != RVS_OK || E->host_later) /* no graph yet: the first host call captures the blocks then */
        return st;
    rvs_gpu_graph_destroy(E->graph);
    E->graph = NULL;
    return capture(E, err);
}

rvs_status rvs_spmv_capture(rvs_spmv_engine *E, int mask, void **graph, rvs_error *err)
{
    if (E->streamed && mask != 3) /* a phase's graph alone would leave the streamed items out */
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "a part larger than the device budget is streamed, which "
                        "a run by phases does not do: give the device more memory or use more ranks");
    int phase1 = 0;
    for (int i = 0; i < E->n; i++)
        phase1 |= E->items[i].it->device == RVS_DEV_GPU && E->items[i].it->phase == 1;
    phase1 &= (mask & 2) != 0;
    const int both = phase1 && (mask & 1);
    rvs_status st = rvs_gpu_capture_begin(E->s0, err);
    if (st != RVS_OK)
        return st;
    st = rvs_gpu_event_record(E->fork, E->s0, err);
    for (int k = 0; k < E->nstreams && st == RVS_OK; k++)
        st = rvs_gpu_stream_wait(E->streams[k], E->fork, err);
    if (st == RVS_OK && (mask & 1))
        st = launch_phase(E, 0, err);
    for (int k = 0; both && k < E->nstreams && st == RVS_OK; k++)
        st = rvs_gpu_event_record(E->ph0[k], E->streams[k], err);
    for (int k = 0; both && k < E->nstreams && st == RVS_OK; k++)
        for (int j = 0; j < E->nstreams && st == RVS_OK; j++)
            st = rvs_gpu_stream_wait(E->streams[k], E->ph0[j], err);
    if (st == RVS_OK && phase1)
        st = launch_phase(E, 1, err);
    for (int k = 0; k < E->nstreams && st == RVS_OK; k++) {
        st = rvs_gpu_event_record(E->done[k], E->streams[k], err);
        if (st == RVS_OK)
            st = rvs_gpu_stream_wait(E->s0, E->done[k], err);
    }
    void *g = NULL;
    rvs_status st2 = rvs_gpu_capture_end(E->s0, &g, err); /* always ends the capture */
    *graph = g;
    return st != RVS_OK ? st : st2;
}

/* Device buffers, streams and events. */
static rvs_status prepare_gpu(rvs_spmv_engine *E, const rvs_plan *P, rvs_error *err)
{
    const rvs_csr *A = &E->S->A;
    rvs_status st;
    E->nstreams = P->nstreams > 0 ? (P->nstreams < RVS_MAX_STREAMS ? P->nstreams : RVS_MAX_STREAMS) : 1;
    if ((st = rvs_gpu_stream_create(&E->s0, err)) || (st = rvs_gpu_event_create(&E->fork, err)) ||
        (st = rvs_gpu_malloc(&E->dx, (size_t)A->cols * E->vs, err)) ||
        (st = rvs_gpu_malloc(&E->dy, (size_t)A->rows * E->vs, err)))
        return st;
    for (int k = 0; k < 4; k++)
        if ((st = rvs_gpu_event_create(&E->ev[k], err)))
            return st;
    for (int k = 0; k < E->nstreams; k++)
        if ((st = rvs_gpu_stream_create(&E->streams[k], err)) || (st = rvs_gpu_event_create(&E->ph0[k], err)) ||
            (st = rvs_gpu_event_create(&E->done[k], err)))
            return st;
    return RVS_OK;
}

/* Resident GPU item e onto the device with its row map; its host copy is not kept. A CSR block goes
 * up in the layout its kernel reads (rvs_csr_gpu_params_for: csr-kernel, csr-order and the value,
 * index and panel options); DIA and HYB-DIA with their values as they are for dia-values=1. */
rvs_status rvs_item_upload(rvs_spmv_engine *E, rvs_eitem *e, rvs_error *err)
{
    rvs_fmt V = *e->F; /* the same arrays; only the recorded layout may differ */
    const rvs_knobs *k = &e->it->knobs;
    if (V.id == RVS_FMT_CSR)
        rvs_csr_gpu_params_for(V.param, V.rows, V.nnz, V.vtype, (rvs_csr_kernel)k->tune.csr_kernel,
                               k->tune.threads_per_row, &k->fo);
    if (V.id == RVS_FMT_DIA && k->fo.dia_values == 1)
        V.param[2] = 1;
    if (V.id == RVS_FMT_HYBDIA && k->fo.dia_values == 1)
        V.param[3] = 1;
    rvs_status st = rvs_gpu_upload(&e->G, &V, err);
    if (st == RVS_OK && e->rows)
        st = rvs_gpu_set_rows(&e->G, e->rows, e->it->phase, err);
    else if (st == RVS_OK) {
        e->G.ymap.base = e->base;
        e->G.ymap.accumulate = e->it->phase;
    }
    if (st != RVS_OK)
        return st;
    if (e->F == &e->own)
        rvs_fmt_free(&e->own);
    else if (E->consume) /* the stream's block */
        rvs_fmt_release((rvs_fmt *)e->F);
    e->F = NULL;
    return RVS_OK;
}

/* What one SpMV of e's block moves; a row block reads its share of x (the blocks of an item
 * together read x once). */
static int64_t block_bytes(const rvs_spmv_engine *E, const rvs_eitem *e)
{
    const rvs_csr *A = &E->S->A;
    int64_t b = rvs_spmv_bytes(e->F);
    if (e->it->row_hi > e->it->row_lo && A->rows > 0) {
        const double x = (double)A->cols * (double)E->vs;
        b -= (int64_t)(x - x * (double)e->it->rows / (double)A->rows);
    }
    return b;
}

/* Item i (its rows known) ready to run: its block built (streamed: its chunks) and, on the GPU,
 * uploaded; with consume, the hub's entries of a run of rows no block borrows are given back. */
static rvs_status make_item(rvs_spmv_engine *E, int i, rvs_error *err)
{
    rvs_eitem *e = &E->items[i];
    const rvs_stream *S = E->S;
    int64_t lo, hi;
    rvs_status st;
    if (e->it->device == RVS_DEV_GPU && e->it->streamed) {
        E->streamed = 1;
        return rvs_chunks_build(e, S, E->vt, E->consume, E->taken.left ? &E->taken : NULL, err);
    }
    const rvs_item_src src = rvs_item_source(S, e->it, E->vt);
    if ((st = rvs_item_block(e, S, E->vt, E->consume, err)) != RVS_OK)
        return st;
    rvs_mem_trace("runner: item's block made");
    e->bytes = block_bytes(E, e);
    const double t0 = rvs_engine_now();
    if (e->it->device == RVS_DEV_GPU && (st = rvs_item_upload(E, e, err)) != RVS_OK)
        return st;
    if (e->it->device == RVS_DEV_GPU) {
        e->bytes -= rvs_gpu_bytes_saved(&e->G);        /* values coded at upload */
        E->upload_ms += (rvs_engine_now() - t0) * 1e3; /* the rate a trial will see (spmv_tune.c) */
        E->upload_bytes += (double)e->bytes;
    }
    if (E->consume && src != RVS_SRC_BUILT && (src == RVS_SRC_BLOCK || e->it->device == RVS_DEV_GPU) &&
        rvs_item_run(S, e->it, &lo, &hi))
        rvs_csr_release_entries((rvs_csr *)&S->A, S->A.rowptr[lo], S->A.rowptr[hi]);
    return RVS_OK;
}

/* With consume: the pages of the stream's blocks that no CPU item runs go back (the GPU's are
 * on the device already; fused or rebuilt parts never read theirs). */
static void release_blocks(rvs_spmv_engine *E)
{
    const rvs_stream *S = E->S;
    for (int p = 0; E->consume && S->has_partition && p < S->partition.k; p++) {
        const rvs_fmt *B = rvs_stream_block(S, p);
        int used = 0;
        for (int i = 0; B && i < E->n && !used; i++)
            used = E->items[i].F == B;
        if (B && !used)
            rvs_fmt_release((rvs_fmt *)B);
    }
}

/* With consume, once every item holds what it runs: the pages of the hub's entries that no CPU
 * item runs from (a run of rows whose CSR block borrows them) go back, so that the hub does not
 * stand beside the blocks built from its scattered rows while the calls run. */
static void release_hub(rvs_spmv_engine *E)
{
    const rvs_stream *S = E->S;
    int64_t r = 0, lo, hi;
    while (r < S->A.rows) { /* from row r: the next borrowed run, the entries before it given back */
        int64_t next_lo = S->A.rows, next_hi = S->A.rows;
        for (int i = 0; i < E->n; i++) {
            const rvs_plan_item *it = E->items[i].it;
            if (it->device == RVS_DEV_CPU && rvs_item_source(S, it, E->vt) == RVS_SRC_BORROWED &&
                rvs_item_run(S, it, &lo, &hi) && hi > lo && lo >= r && lo < next_lo) {
                next_lo = lo;
                next_hi = hi;
            }
        }
        rvs_csr_release_entries((rvs_csr *)&S->A, S->A.rowptr[r], S->A.rowptr[next_lo]);
        r = next_hi;
    }
}

rvs_status rvs_spmv_engine_create(rvs_spmv_engine **out, const rvs_stream *S, const rvs_plan *P, rvs_error *err)
{
    if (P->prepared && P->prepared->S == S) { /* built by the planner: hand it over */
        *out = P->prepared;
        /* it was built for the planner's own plan of the whole matrix (a local of the planner,
         * gone now: its items moved into P), and its tuning reads the plan it runs */
        (*out)->plan = (rvs_plan *)P;
        ((rvs_plan *)P)->prepared = NULL;
        return RVS_OK;
    }
    rvs_spmv_engine *E = calloc(1, sizeof *E);
    rvs_status st = RVS_OK;
    *out = NULL;
    if (!E || !(E->items = calloc((size_t)(P->nitems ? P->nitems : 1), sizeof *E->items))) {
        free(E);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    }
    E->S = S;
    E->plan = (rvs_plan *)P; /* tuning switches an item's block and says so in its plan */
    E->vt = P->vtype;
    E->vs = rvs_vtype_size(P->vtype);
    E->n = P->nitems;
    E->consume = P->consume;
    for (int i = 0; i < E->n; i++) {
        E->items[i].it = &P->items[i];
        E->gpu |= P->items[i].device == RVS_DEV_GPU;
    }
    for (int i = 0; S->has_partition && i < S->partition.k; i++)
        E->overlap |= S->partition.parts[i].entries != RVS_ENTRIES_ALL;
    const rvs_spmv_engine *V = P->vectors;
    E->host_later = P->device_vectors && E->gpu;
    for (int i = 0; i < E->n; i++)
        E->host_later &= P->items[i].device == RVS_DEV_GPU && !P->items[i].streamed;
    if (E->host_later) { /* pinning costs about 0.7 ms a MiB: only for a host call */
    } else if (V && V->S == S && V->vt == E->vt && V->gpu == E->gpu) { /* the same arrays, the same kind */
        E->x = V->x;
        E->y = V->y;
    } else if ((st = host_alloc(E, &E->x, (size_t)S->A.cols * E->vs, err)) ||
               (st = host_alloc(E, &E->y, (size_t)S->A.rows * E->vs, err))) {
        goto done;
    } else {
        E->vectors_owned = 1;
    }
    if (E->x)
        rvs_fill_x(E->x, NULL, S->A.cols, E->vt, 1);
    if (E->gpu && (st = prepare_gpu(E, P, err)) != RVS_OK)
        goto done;
    rvs_mem_trace("runner: vectors and streams made");
    for (int i = 0; i < E->n && st == RVS_OK; i++)
        st = rvs_item_rows(&E->items[i], S, err);
    rvs_mem_trace("runner: items' rows listed");
    if (st == RVS_OK && E->consume) {
        st = rvs_items_split(E, err);
        rvs_mem_trace("runner: scattered rows copied out of the hub");
    }
    for (int i = 0; i < E->n && st == RVS_OK && E->consume && !E->overlap && !E->taken.left; i++)
        if (E->items[i].it->device == RVS_DEV_GPU && E->items[i].it->streamed && E->items[i].rows)
            st = rvs_hub_count_init(&E->taken, (rvs_csr *)&S->A, err); /* scattered rows streamed */
    for (int i = 0; i < E->n && st == RVS_OK; i++) {
        st = make_item(E, i, err);
        rvs_mem_trace(E->items[i].it->device == RVS_DEV_GPU ? "runner: item built and uploaded"
                                                            : "runner: item built");
    }
    if (st == RVS_OK)
        release_blocks(E);
    if (st == RVS_OK && E->consume)
        release_hub(E);
    if (st == RVS_OK && E->gpu)
        st = find_runs(E, err);
    rvs_mem_trace("runner: the GPU's rows of y found");
    if (st == RVS_OK && E->streamed)
        st = rvs_chunks_prepare(E, err);
    if (st == RVS_OK && E->gpu && !E->host_later &&
        (st = rvs_gpu_memcpy_h2d(E->dx, E->x, (size_t)S->A.cols * E->vs, err)) == RVS_OK)
        st = capture(E, err);
    rvs_mem_trace("runner: calls captured");
    if (st == RVS_OK)
        st = rvs_host_prepare(E, err);
done:
    if (st != RVS_OK)
        rvs_spmv_engine_free(E);
    else
        *out = E;
    return st;
}

void rvs_spmv_engine_take_vectors(rvs_spmv_engine *to, rvs_spmv_engine *from)
{
    if (from->vectors_owned && to->x == from->x && to->y == from->y) {
        to->vectors_owned = 1;
        from->vectors_owned = 0;
    }
}

rvs_status rvs_spmv_engine_host_ready(rvs_spmv_engine *E, rvs_error *err)
{
    const rvs_csr *A = &E->S->A;
    rvs_status st;
    if (!E->host_later)
        return RVS_OK;
    if ((st = host_alloc(E, &E->x, (size_t)A->cols * E->vs, err)) != RVS_OK)
        return st;
    E->vectors_owned = 1; /* freed with the runner, y too once made */
    if ((st = host_alloc(E, &E->y, (size_t)A->rows * E->vs, err)) != RVS_OK)
        return st;
    E->host_later = 0;
    rvs_fill_x(E->x, NULL, A->cols, E->vt, 1);
    if ((st = rvs_gpu_sync(err)) == RVS_OK &&
        (st = rvs_gpu_memcpy_h2d(E->dx, E->x, (size_t)A->cols * E->vs, err)) == RVS_OK)
        st = capture(E, err);
    return st;
}

void *rvs_spmv_engine_x(rvs_spmv_engine *E)
{
    if (rvs_spmv_engine_host_ready(E, NULL) != RVS_OK)
        return NULL;
    return E->x;
}
void *rvs_spmv_engine_y(rvs_spmv_engine *E)
{
    if (rvs_spmv_engine_host_ready(E, NULL) != RVS_OK)
        return NULL;
    return E->y;
}

int64_t rvs_spmv_engine_item_bytes(const rvs_spmv_engine *E, int i)
{
    return E->items[i].bytes;
}

/* Queue the graph, then the streamed items, on s0. */
static rvs_status queue_kernels(rvs_spmv_engine *E, rvs_error *err)
{
    rvs_status st = rvs_gpu_graph_launch(E->graph, E->s0, err);
    if (st == RVS_OK && E->streamed && (st = rvs_gpu_event_record(E->after, E->s0, err)) == RVS_OK)
        st = rvs_chunks_run(E, -1, E->after, err);
    return st;
}

/* Queue x in, the kernels, y's GPU rows out on s0, with the four events. */
static rvs_status queue_gpu(rvs_spmv_engine *E, rvs_error *err)
{
    rvs_status st;
    if ((st = rvs_gpu_event_record(E->ev[0], E->s0, err)) ||
        (st = rvs_gpu_memcpy_h2d_async(E->dx, E->x, (size_t)E->S->A.cols * E->vs, E->s0, err)) ||
        (st = rvs_gpu_event_record(E->ev[1], E->s0, err)) || (st = queue_kernels(E, err)) ||
        (st = rvs_gpu_event_record(E->ev[2], E->s0, err)))
        return st;
    for (int k = 0; k < E->nruns && st == RVS_OK; k++)
        st = rvs_gpu_memcpy_d2h_async((char *)E->y + (size_t)E->runs[k][0] * E->vs,
                                      (const char *)E->dy + (size_t)E->runs[k][0] * E->vs,
                                      (size_t)(E->runs[k][1] - E->runs[k][0]) * E->vs, E->s0, err);
    return st == RVS_OK ? rvs_gpu_event_record(E->ev[3], E->s0, err) : st;
}

rvs_status rvs_spmv_engine_call(rvs_spmv_engine *E, int poison, rvs_spmv_times *t, rvs_error *err)
{
    rvs_status st = RVS_OK;
    memset(t, 0, sizeof *t);
    if ((st = rvs_spmv_engine_host_ready(E, err)) != RVS_OK)
        return st;
    if (poison) {
        rvs_fill_nan(E->y, E->S->A.rows, E->vt);
        if (E->gpu && (st = rvs_gpu_memset(E->dy, 0xff, (size_t)E->S->A.rows * E->vs, err)) == RVS_OK)
            st = rvs_gpu_sync(err);
        if (st != RVS_OK)
            return st;
    }
    const double t0 = rvs_engine_now();
    if (E->gpu && (st = queue_gpu(E, err)) != RVS_OK)
        return st;
    const double c0 = rvs_engine_now();
    st = rvs_host_run(E, err);
    double c1 = rvs_engine_now();
    if (st == RVS_OK && E->gpu)
        st = rvs_gpu_stream_sync(E->s0, err);
    if (st != RVS_OK)
        return st;
    const double c2 = rvs_engine_now();
    rvs_host_finish(E);
    const double t1 = rvs_engine_now();
    t->call_ms = (t1 - t0) * 1e3;
    t->cpu_ms = (c1 - c0 + t1 - c2) * 1e3;
    if (E->gpu && (st = rvs_gpu_event_elapsed(E->ev[0], E->ev[3], &t->gpu_ms, err)) == RVS_OK)
        st = rvs_gpu_event_elapsed(E->ev[1], E->ev[2], &t->kernel_ms, err);
    E->last_dx = E->dx;
    E->last_dy = E->dy;
    if (st == RVS_OK) /* after the call: its y is the caller's, whatever tuning does next */
        st = rvs_spmv_tune_step(E, t->call_ms, err);
    return st;
}

rvs_status rvs_spmv_engine_call_device(rvs_spmv_engine *E, const void *dx, void *dy, rvs_spmv_times *t,
                                       rvs_error *err)
{
    rvs_status st = RVS_OK;
    memset(t, 0, sizeof *t);
    for (int i = 0; i < E->n; i++)
        if (E->items[i].it->device != RVS_DEV_GPU || E->items[i].chunks)
            return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                            "device vectors: the plan runs items on the CPU or streams them");
    /* the items launched on the caller's vectors, phase 0 then phase 1, on the default stream, as
     * cuSPARSE called on it runs: after what the caller queued there (x written, y cleared) with
     * no event to record and wait for; no copy of x or y, no graph (a graph holds the addresses it
     * was captured with), no timing events (each weighs on calls of 40 us) */
    const double t0 = rvs_engine_now();
    for (int phase = 0; phase < 2 && st == RVS_OK; phase++)
        for (int i = 0; i < E->n && st == RVS_OK; i++) {
            const rvs_eitem *e = &E->items[i];
            if (e->it->phase == phase && e->it->rows > 0)
                st = rvs_gpu_spmv(&e->G, dx, dy, &e->it->knobs.tune, NULL, err);
        }
    if (st != RVS_OK || (st = rvs_gpu_stream_sync(NULL, err)))
        return st;
    t->call_ms = (rvs_engine_now() - t0) * 1e3;
    E->last_dx = dx;
    E->last_dy = dy;
    return rvs_spmv_tune_step(E, t->call_ms, err);
}

rvs_status rvs_spmv_engine_kernels(rvs_spmv_engine *E, double *ms, rvs_error *err)
{
    rvs_status st;
    *ms = 0;
    if (!E->gpu)
        return rvs_fail(err, RVS_ERR_ARG, "the plan has no GPU item");
    if ((st = rvs_spmv_engine_host_ready(E, err)) || (st = rvs_gpu_event_record(E->ev[1], E->s0, err)) ||
        (st = queue_kernels(E, err)) || (st = rvs_gpu_event_record(E->ev[2], E->s0, err)))
        return st;
    return rvs_gpu_event_elapsed(E->ev[1], E->ev[2], ms, err);
}

rvs_status rvs_spmv_engine_item(rvs_spmv_engine *E, int i, double *ms, rvs_error *err)
{
    rvs_eitem *e = &E->items[i];
    rvs_status st;
    *ms = 0;
    if (e->it->device == RVS_DEV_CPU) {
        void *y = e->direct ? (char *)E->y + (size_t)e->base * E->vs : e->buf;
        double t0 = rvs_engine_now();
        st = rvs_cpu_spmv(e->F, E->x, y, err);
        *ms = (rvs_engine_now() - t0) * 1e3;
        return st;
    }
    if ((st = rvs_gpu_event_record(E->ev[1], E->s0, err)) ||
        (st = e->chunks ? rvs_chunks_run(E, i, E->ev[1], err)
                        : rvs_gpu_spmv(&e->G, E->dx, E->dy, &e->it->knobs.tune, E->s0, err)) ||
        (st = rvs_gpu_event_record(E->ev[2], E->s0, err)))
        return st;
    return rvs_gpu_event_elapsed(E->ev[1], E->ev[2], ms, err);
}

void rvs_spmv_engine_free(rvs_spmv_engine *E)
{
    if (!E)
        return;
    rvs_spmv_tune_free(E);
    rvs_chunks_free(E);
    rvs_hub_count_free(&E->taken);
    for (int i = 0; i < E->n; i++) {
        rvs_eitem *e = &E->items[i];
        rvs_gpu_fmt_free(&e->G);
        rvs_fmt_free(&e->own);
        if (!e->rows_borrowed)
            free(e->rows);
        free(e->buf);
    }
    rvs_partition_split_free(E->copies, E->ncopies);
    free(E->items);
    rvs_gpu_graph_destroy(E->graph);
    for (int k = 0; k < RVS_MAX_STREAMS; k++) {
        rvs_gpu_stream_destroy(E->streams[k]);
        rvs_gpu_event_destroy(E->ph0[k]);
        rvs_gpu_event_destroy(E->done[k]);
    }
    for (int k = 0; k < 4; k++)
        rvs_gpu_event_destroy(E->ev[k]);
    rvs_gpu_event_destroy(E->fork);
    rvs_gpu_stream_destroy(E->s0);
    rvs_gpu_free(E->dx);
    rvs_gpu_free(E->dy);
    if (E->vectors_owned) {
        host_free(E, E->x);
        host_free(E, E->y);
    }
    free(E->gpu_rows);
    free(E->covered);
    free(E);
}
