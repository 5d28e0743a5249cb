/* plan.c - the planner: which part runs where, in which format with which tunables, in which
 * phase and on which GPU stream; parts of one format are fused into one block; when every format
 * came from the advisor, the whole matrix in its own best format is timed against the parts and
 * the faster plan is kept */
#include <string.h>
#include "engine_internal.h"
#include "rvs_mem.h"

void rvs_plan_options_default(rvs_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = RVS_MODE_GPU;
    o->vtype = RVS_F64;
    o->fuse = 1;
    o->allow_whole = 1;
    o->use_decisions = 1;
    rvs_advisor_options_default(&o->advisor);
}

void rvs_plan_free(rvs_plan *P)
{
    rvs_spmv_engine_free(P->prepared);
    for (int i = 0; i < P->nitems; i++)
        free(P->items[i].parts);
    free(P->items);
    rvs_decisions_free(&P->decisions);
    memset(P, 0, sizeof *P);
}

/* Append decision d to P's decisions. */
static rvs_status keep_decision(rvs_plan *P, const rvs_decision *d, rvs_error *err)
{
    rvs_decision *grown = realloc(P->decisions.d, ((size_t)P->decisions.n + 1) * sizeof *grown);
    if (!grown)
        return rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
    P->decisions.d = grown;
    P->decisions.d[P->decisions.n++] = *d;
    return RVS_OK;
}

/* A format the model chose without building it may refuse the part (padding or storage past its
 * limit: rvs_fmt_admit): then the next the model could not separate from it, else CSR. Only a
 * part that is a CSR of its own (the hub, a run of it, or a copy) is asked; a part of scattered
 * rows is built as chosen, its refusal an error as for --format. */
static void admit_choice(rvs_decision *d, const rvs_row_list *R, rvs_vtype vt)
{
    if (R->rows || R->A->vtype != vt)
        return;
    for (;;) {
        const rvs_candidate *c = &d->cand[d->chosen];
        if (c->format == RVS_FMT_CSR || c->format == RVS_FMT_COO ||
            rvs_fmt_admit(c->format, R->A, &c->knobs.fo, NULL) == RVS_OK)
            return;
        d->cand[d->chosen].status = RVS_CAND_REFUSED;
        if (d->npending > 0) {
            d->chosen = d->pending[0];
            memmove(d->pending, d->pending + 1, (size_t)--d->npending * sizeof *d->pending);
            continue;
        }
        for (int i = 0; i < d->ncand; i++) /* CSR with the rule's kernel takes every part */
            if (d->cand[i].format == RVS_FMT_CSR && d->cand[i].knobs.tune.csr_kernel == RVS_CSR_AUTO &&
                d->cand[i].knobs.fo.csr_order == 0) {
                d->chosen = i;
                return;
            }
        return;
    }
}

/* Run the advisor on part for dev; the choice into it, the decision kept in P. */
static rvs_status advise_part(rvs_plan *P, rvs_plan_item *it, const rvs_stream *S, int part, rvs_device dev,
                              const rvs_plan_options *o, rvs_error *err)
{
    rvs_csr C = {0}; /* the part when its row list does not serve: a view of a run, or a copy */
    rvs_row_list R;  /* the part's rows in the hub; every row of the hub for -1 */
    int view = 0;
    rvs_decision *d = malloc(sizeof *d);
    rvs_status st = d ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
    rvs_row_list_all(&R, &S->A);
    if (st == RVS_OK && part >= 0)
        st = rvs_row_list_part(&R, &C, &view, &S->partition, part, &S->A, err);
    rvs_advisor_options ao = o->advisor;
    ao.defer = o->tune_between_calls; /* the runner tries the model's doubts between calls */
    if (st == RVS_OK)
        st = rvs_advise_rows(d, &R, part, dev, o->vtype, &ao, err);
    if (st == RVS_OK && d->how == RVS_HOW_MODEL)
        admit_choice(d, &R, o->vtype);
    if (st == RVS_OK) {
        it->format = d->cand[d->chosen].format;
        it->knobs = d->cand[d->chosen].knobs;
        it->trial_ms = d->sampled ? -1 : d->cand[d->chosen].ms;
        it->source = d->from_cache ? "cache" : "auto";
        it->how = d->how;
        it->pred_ms = d->cand[d->chosen].pred_ms;
        it->decide_ms = d->decide_ms;
        it->decision = P->decisions.n;
        P->decide_ms += d->decide_ms;
        st = keep_decision(P, d, err);
    }
    if (st != RVS_OK)
        rvs_error_name_part(err, part);
    rvs_part_csr_free(&C, view);
    free(d);
    return st;
}

/* Device of part in this mode. */
static rvs_device part_device(const rvs_stream *S, int part, rvs_run_mode mode)
{
    if (mode == RVS_MODE_CPU)
        return RVS_DEV_CPU;
    if (mode == RVS_MODE_GPU || part < 0)
        return RVS_DEV_GPU;
    return S->partition.parts[part].device;
}

/* Phase of part: Algorithm 4's off-diagonal parts add to the rows part 1 stores when both run
 * on the same device; everything else stores. */
static int part_phase(const rvs_stream *S, int part, rvs_run_mode mode)
{
    if (part <= 0 || S->partition.parts[part].entries != RVS_ENTRIES_OFFDIAG)
        return 0;
    return part_device(S, 0, mode) == part_device(S, part, mode);
}

/* One item per part with its device, phase and format. */
static rvs_status plan_parts(rvs_plan *P, const rvs_stream *S, const rvs_decisions *D, int current,
                             const rvs_plan_options *o, rvs_error *err)
{
    const int k = S->has_partition ? S->partition.k : 1;
    char gpu_name[256];
    rvs_device_name(RVS_DEV_GPU, gpu_name, sizeof gpu_name);
    P->items = calloc((size_t)k, sizeof *P->items);
    if (!P->items)
        return rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
    for (int i = 0; i < k; i++) {
        rvs_plan_item *it = &P->items[P->nitems++];
        const int part = S->has_partition ? i : -1;
        it->nparts = 1;
        if (!(it->parts = malloc(sizeof *it->parts)))
            return rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
        it->parts[0] = part;
        it->device = part_device(S, part, P->mode);
        it->phase = S->has_partition ? part_phase(S, part, P->mode) : 0;
        it->rows = part < 0 ? S->A.rows : S->partition.parts[part].nrows;
        it->nnz = part < 0 ? S->A.nnz : S->partition.parts[part].nnz;
        it->trial_ms = -1;
        it->pred_ms = -1;
        it->how = RVS_HOW_FIXED;
        it->decision = -1;
        rvs_knobs_default(&it->knobs);
        const rvs_fmt *B = rvs_stream_block(S, part);
        const rvs_decision *d = current && (it->device == RVS_DEV_CPU || strcmp(D->device, gpu_name) == 0)
                                    ? rvs_decisions_find(D, part, it->device)
                                    : NULL;
        if (d && d->vtype != P->vtype)
            d = NULL;
        if (B) {
            it->format = B->id;
            it->source = "block";
            if (d && d->cand[d->chosen].format == B->id) /* the tunables the advisor chose with it */
                it->knobs = d->cand[d->chosen].knobs;
        } else if (d) {
            it->format = d->cand[d->chosen].format;
            it->knobs = d->cand[d->chosen].knobs;
            it->source = "decision";
        } else if (o->fallback) {
            it->format = o->fallback;
            it->source = "fixed";
        } else {
            rvs_status st = advise_part(P, it, S, part, it->device, o, err);
            if (st != RVS_OK)
                return st;
        }
        if (o->tune && it->device == RVS_DEV_GPU) {
            rvs_status st = rvs_knobs_parse(&it->knobs, o->tune, err);
            if (st != RVS_OK)
                return st;
        }
    }
    return RVS_OK;
}

/* 1 when the format stores a union of parts in about the bytes of the parts apart: row-wise
 * formats, and formats sorting rows by length in slices; ELL and ELLR only for parts of one
 * width; DIA, HYB-DIA (diagonals of renumbered rows) and formats unknown here never. */
static int additive(rvs_format_id id, const rvs_part *x, const rvs_part *y)
{
    switch (id) {
    case RVS_FMT_CSR:
    case RVS_FMT_COO:
    case RVS_FMT_JAD:
    case RVS_FMT_HCC:
    case RVS_FMT_PELLR:
    case RVS_FMT_BIELL:
    case RVS_FMT_HYB: return 1;
    case RVS_FMT_ELL:
    case RVS_FMT_ELLR: return x->width == y->width;
    default: return 0;
    }
}

/* 1 when b can join a's block: same device, format, tunables, phase and entries, and a format
 * that allows it. */
static int fusible(const rvs_stream *S, const rvs_plan_item *a, const rvs_plan_item *b)
{
    const rvs_partition *Q = &S->partition;
    const rvs_part *x = &Q->parts[a->parts[0]], *y = &Q->parts[b->parts[0]];
    return a->device == b->device && a->format == b->format && a->phase == b->phase &&
           memcmp(&a->knobs, &b->knobs, sizeof a->knobs) == 0 && x->entries == y->entries &&
           additive(a->format, x, y);
}

/* An item in CSR whose parts hold every row of the hub, with all their entries, and that no
 * stream block serves runs the hub's rows in place, as the row block [0, rows) (its block borrows
 * the hub's arrays: no copy of the matrix in the parts' order; a GPU item uploads them and, with
 * consume, the hub's entries go). Its rows land in y by their own index either way: on the CPU
 * the order of the rows changes no row's sum; on the GPU the CSR kernels take rows in any order
 * and write y through the row map (here the identity), and only a row that a kernel splits
 * between warps or chunks (nnz-split, row-block) may have its pieces added in another grouping,
 * within rounding. Parts of all entries are disjoint (rvs_partition_validate), so parts whose
 * rows add up to the hub's hold every row once. */
static void in_place(rvs_plan *P, const rvs_stream *S)
{
    for (int i = 0; S->has_partition && i < P->nitems; i++) {
        rvs_plan_item *it = &P->items[i];
        int64_t n = 0, bad = 0;
        if (it->format != RVS_FMT_CSR || it->row_hi > it->row_lo || it->parts[0] < 0 || S->A.vtype != P->vtype ||
            !S->A.colind || rvs_item_source(S, it, P->vtype) != RVS_SRC_BUILT)
            continue;
        for (int k = 0; k < it->nparts; k++) {
            const rvs_part *q = &S->partition.parts[it->parts[k]];
            bad |= q->entries != RVS_ENTRIES_ALL;
            n += q->nrows;
        }
        if (!bad && n == S->A.rows) {
            it->row_lo = 0;
            it->row_hi = S->A.rows;
        }
    }
}

/* Fuse items of one format and tunables (parts kept in partition order). */
static rvs_status fuse(rvs_plan *P, const rvs_stream *S, rvs_error *err)
{
    int n = 0;
    for (int i = 0; i < P->nitems; i++) {
        rvs_plan_item *it = &P->items[i];
        int into = -1;
        for (int j = 0; j < n && into < 0; j++)
            if (fusible(S, &P->items[j], it))
                into = j;
        if (into < 0) {
            P->items[n++] = *it;
            continue;
        }
        rvs_plan_item *t = &P->items[into];
        int *grown = realloc(t->parts, ((size_t)t->nparts + 1) * sizeof *grown);
        if (!grown)
            return rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
        t->parts = grown;
        t->parts[t->nparts++] = it->parts[0];
        t->rows += it->rows;
        t->nnz += it->nnz;
        t->trial_ms = -1;
        if (strcmp(t->source, it->source) != 0)
            t->source = "mixed";
        free(it->parts);
    }
    P->nitems = n;
    return RVS_OK;
}

/* GPU streams: one per GPU item, up to 8, items spread round robin. */
static void assign_streams(rvs_plan *P)
{
    int g = 0;
    for (int i = 0; i < P->nitems; i++)
        g += P->items[i].device == RVS_DEV_GPU;
    P->nstreams = g < 8 ? g : 8;
    for (int i = 0, j = 0; i < P->nitems; i++)
        P->items[i].stream = P->items[i].device == RVS_DEV_GPU ? j++ % P->nstreams : 0;
}

/* Median kernel time (graph replay) of plan Q over iters runs; the runner built for it into *E. */
static rvs_status time_plan(const rvs_plan *Q, const rvs_stream *S, int iters, double *ms, rvs_spmv_engine **E,
                            rvs_error *err)
{
    double *t = malloc((size_t)(iters + 1) * sizeof *t);
    rvs_status st = t ? rvs_spmv_engine_create(E, S, Q, err) : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; i <= iters && st == RVS_OK; i++) /* run 0 warms up */
        st = rvs_spmv_engine_kernels(*E, &t[i], err);
    if (st == RVS_OK)
        *ms = rvs_engine_median(t + 1, iters);
    free(t);
    return st;
}

/* 1 when item it runs every row of the matrix in the hub's order (nothing to compare with). */
static int in_order(const rvs_stream *S, const rvs_plan_item *it)
{
    int64_t r = 0;
    if (it->parts[0] < 0)
        return 1;
    for (int k = 0; k < it->nparts; k++) {
        const rvs_part *q = &S->partition.parts[it->parts[k]];
        for (int64_t i = 0; i < q->nrows; i++, r++)
            if (q->rows[i] != r)
                return 0;
    }
    return r == S->A.rows;
}

/* Device bytes plan P holds: x, y and its GPU items. */
static double device_bytes(const rvs_plan *P, const rvs_stream *S)
{
    double b = ((double)S->A.rows + (double)S->A.cols) * (double)rvs_vtype_size(P->vtype);
    for (int i = 0; i < P->nitems; i++)
        b += P->items[i].device == RVS_DEV_GPU ? P->items[i].dev_bytes : 0;
    return b;
}

/* 1 when the device budget holds the blocks twice over (the timing holds both plans at once). */
static int room_for_two(const rvs_plan *P, const rvs_stream *S)
{
    return P->gpu_budget == SIZE_MAX || 2 * device_bytes(P, S) <= (double)P->gpu_budget;
}

/* P takes W's items, the whole matrix in one block, in place of its parts. */
static void take_whole(rvs_plan *P, rvs_plan *W)
{
    for (int i = 0; i < P->nitems; i++)
        free(P->items[i].parts);
    free(P->items);
    P->items = W->items;
    P->nitems = W->nitems;
    P->nstreams = W->nstreams;
    P->nsplit = W->nsplit;
    W->items = NULL;
}

/* When every GPU item came from the advisor and the parts hold whole rows (and are not simply
 * the matrix in its own order): time the whole matrix in its own best format against the
 * parts, and keep the faster. Not when the memory pass changed the items, nor when the device
 * budget does not hold both plans. The whole matrix is planned as a run would plan it (row
 * blocks when the hub may go) and built first, from the hub, which it leaves whole; then the
 * parts, which in a GPU run that may give the hub back (o->consume) give it back as they are
 * built (o->plan_consume): both plans end on the device, so the host holds the hub and one
 * block at a time, not the hub beside a whole block of scattered rows. (In hybrid mode the hub
 * stays: the GPU-only plan is weighed after this one.) */
static rvs_status consider_whole(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev,
                                 const rvs_plan_options *o, rvs_error *err)
{
    if (!o->allow_whole || !S->has_partition || (P->nitems == 1 && in_order(S, &P->items[0])) || P->nsplit ||
        P->nstreamed || P->nmoved || !room_for_two(P, S))
        return RVS_OK;
    for (int i = 0; i < P->nitems; i++) {
        const char *src = P->items[i].source;
        if (P->items[i].device != RVS_DEV_GPU ||
            !(strcmp(src, "auto") == 0 || strcmp(src, "cache") == 0 || strcmp(src, "decision") == 0))
            return RVS_OK;
    }
    for (int i = 0; i < S->partition.k; i++)
        if (S->partition.parts[i].entries != RVS_ENTRIES_ALL)
            return RVS_OK;
    rvs_plan W;
    memset(&W, 0, sizeof W);
    W.mode = P->mode;
    W.vtype = P->vtype;
    W.items = calloc(1, sizeof *W.items);
    rvs_status st = W.items ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
    if (st == RVS_OK && !(W.items[0].parts = malloc(sizeof(int))))
        st = rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
    if (st == RVS_OK) {
        rvs_plan_item *w = &W.items[0];
        W.nitems = 1;
        w->nparts = 1;
        w->parts[0] = -1;
        w->device = RVS_DEV_GPU;
        w->rows = S->A.rows;
        w->nnz = S->A.nnz;
        st = advise_part(P, w, S, -1, RVS_DEV_GPU, o, err);
        if (st == RVS_OK && o->tune)
            st = rvs_knobs_parse(&w->knobs, o->tune, err);
    }
    if (st == RVS_OK)
        st = rvs_plan_memory(&W, S, dev, o, err);
    if (st == RVS_OK)
        assign_streams(&W);
    /* the model weighs both plans where it knows every item's time: nothing built twice */
    double parts_pred = 0;
    for (int i = 0; i < P->nitems && parts_pred >= 0; i++)
        parts_pred = P->items[i].pred_ms > 0 ? parts_pred + P->items[i].pred_ms : -1;
    if (st == RVS_OK && o->advisor.mode == RVS_ADVISE_MODEL && parts_pred > 0 && W.nitems == 1 &&
        W.items[0].pred_ms > 0) {
        P->parts_ms = parts_pred;
        P->whole_ms = W.items[0].pred_ms;
        P->whole = P->whole_ms < 0.9 * P->parts_ms; /* the parts run side by side: the sum overstates them */
        snprintf(
            P->note, sizeof P->note, "%s by the model: %.4f ms predicted for the whole matrix, %.4f for %d blocks",
            P->whole ? "parts fused into the whole matrix" : "parts kept", P->whole_ms, P->parts_ms, P->nitems);
        if (P->whole)
            take_whole(P, &W);
        for (int i = 0; W.items && i < W.nitems; i++)
            free(W.items[i].parts);
        free(W.items);
        return RVS_OK;
    }
    rvs_spmv_engine *Ep = NULL, *Ew = NULL;
    const int give_back = o->consume && o->plan_consume && o->mode == RVS_MODE_GPU && !o->tune_between_calls;
    if (st == RVS_OK && !W.nstreamed && !W.nmoved) {
        st = time_plan(&W, S, 10, &P->whole_ms, &Ew, err);
        rvs_mem_trace("plan: whole matrix timed");
        P->consume = give_back;
        P->vectors = Ew; /* one host x and y for both runners (2 x 61 MiB pinned on a 200^3 stencil) */
        if (st == RVS_OK)
            st = time_plan(P, S, 10, &P->parts_ms, &Ep, err);
        P->vectors = NULL;
        P->consume = 0;
        rvs_mem_trace("plan: parts timed");
    }
    if (st == RVS_OK && Ew && P->whole_ms < P->parts_ms) {
        P->prepared = Ew; /* its items are W's, which P takes over below */
        Ew = NULL;
        snprintf(P->note, sizeof P->note,
                 "parts fused into the whole matrix: %.4f ms against %.4f ms for %d blocks", P->whole_ms,
                 P->parts_ms, P->nitems);
        take_whole(P, &W);
        P->whole = 1;
    } else if (st == RVS_OK && Ep) {
        if (Ew)
            rvs_spmv_engine_take_vectors(Ep, Ew);
        snprintf(P->note, sizeof P->note, "parts kept: %.4f ms against %.4f ms for the whole matrix", P->parts_ms,
                 P->whole_ms);
        P->prepared = Ep;
        Ep = NULL;
    }
    rvs_spmv_engine_free(Ep);
    rvs_spmv_engine_free(Ew);
    for (int i = 0; W.items && i < W.nitems; i++)
        free(W.items[i].parts);
    free(W.items);
    return st;
}

/* The plan of S in mode: parts, fusion, streams, and (GPU) the whole matrix weighed. */
static rvs_status plan_mode(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev, const rvs_decisions *D,
                            int current, const rvs_plan_options *o, rvs_run_mode mode, rvs_error *err)
{
    memset(P, 0, sizeof *P);
    P->mode = mode;
    P->vtype = o->vtype;
    P->parts_ms = P->whole_ms = -1;
    P->decisions.fingerprint = rvs_stream_fingerprint(S);
    if (mode != RVS_MODE_CPU)
        rvs_device_name(RVS_DEV_GPU, P->decisions.device, sizeof P->decisions.device);
    rvs_status st = plan_parts(P, S, D, current, o, err);
    if (st == RVS_OK && o->fuse && S->has_partition)
        st = fuse(P, S, err);
    if (st == RVS_OK)
        in_place(P, S);
    if (st == RVS_OK)
        st = rvs_plan_memory(P, S, dev, o, err);
    if (st == RVS_OK)
        assign_streams(P);
    if (st == RVS_OK && mode != RVS_MODE_CPU) {
        const double t0 = rvs_engine_now(), advised = P->decide_ms;
        st = consider_whole(P, S, dev, o, err);
        P->decide_ms = advised + (rvs_engine_now() - t0) * 1e3; /* its advice is inside its wall time */
    }
    return st;
}

/* Median call time (x in, SpMV, y out) of plan Q over iters calls; its runner into Q->prepared. */
static rvs_status time_calls(rvs_plan *Q, const rvs_stream *S, int iters, double *ms, rvs_error *err)
{
    rvs_spmv_engine *E = NULL;
    rvs_spmv_times t;
    double *v = malloc((size_t)(iters + 1) * sizeof *v);
    rvs_status st = v ? rvs_spmv_engine_create(&E, S, Q, err) : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; i <= iters && st == RVS_OK; i++) { /* call 0 warms up */
        st = rvs_spmv_engine_call(E, 0, &t, err);
        v[i] = t.call_ms;
    }
    if (st == RVS_OK)
        *ms = rvs_engine_median(v + 1, iters);
    Q->prepared = E;
    free(v);
    return st;
}

/* Hybrid with CPU parts: time a call against the same partition all on the GPU, and keep the
 * faster (where the CPU cannot help, it gets nothing). */
static rvs_status consider_gpu_only(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev,
                                    const rvs_decisions *D, int current, const rvs_plan_options *o, rvs_error *err)
{
    int cpu = 0;
    for (int i = 0; i < P->nitems; i++)
        cpu |= P->items[i].device == RVS_DEV_CPU;
    /* not where the device budget made the plan stream or move items (both plans are built at
     * once); row blocks are no reason to skip: the calibration rates the CPU on one kernel, and
     * on R-MAT 22 the CPU's row blocks of an nnz part ran at 2-3 GFLOP/s where it promised 20,
     * a call 12.9 ms against 1.85 on the GPU alone */
    if (!cpu || !o->allow_whole || P->nstreamed || P->nmoved)
        return RVS_OK;
    rvs_plan G;
    double th = 0, tg = 0;
    rvs_status st = plan_mode(&G, S, dev, D, current, o, RVS_MODE_GPU, err);
    const size_t budget = P->gpu_budget ? P->gpu_budget : G.gpu_budget;
    if (st == RVS_OK && (G.nstreamed || G.nmoved ||
                         (budget != SIZE_MAX && device_bytes(P, S) + device_bytes(&G, S) > (double)budget))) {
        rvs_plan_free(&G); /* the GPU does not hold both */
        return RVS_OK;
    }
    if (st == RVS_OK)
        st = time_calls(P, S, 10, &th, err);
    if (st == RVS_OK)
        st = time_calls(&G, S, 10, &tg, err);
    if (st == RVS_OK && tg < th) {
        char note[sizeof P->note];
        snprintf(note, sizeof note,
                 "CPU parts moved to the GPU: a call took %.4f ms against %.4f ms with them%s%.120s", tg, th,
                 G.note[0] ? "; " : "", G.note);
        for (int i = 0; i < P->decisions.n; i++) /* the CPU trials stay on record */
            if (keep_decision(&G, &P->decisions.d[i], err) != RVS_OK)
                break;
        rvs_plan_free(P);
        *P = G;
        P->mode = RVS_MODE_HYBRID;
        memcpy(P->note, note, sizeof note);
    } else {
        if (st == RVS_OK)
            snprintf(P->note + strlen(P->note), sizeof P->note - strlen(P->note),
                     "%sCPU parts kept: a call took %.4f ms against %.4f ms all on the GPU", P->note[0] ? "; " : "",
                     th, tg);
        rvs_plan_free(&G);
    }
    return st;
}

rvs_status rvs_plan_make(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev, const rvs_plan_options *o,
                         rvs_error *err)
{
    rvs_decisions D;
    int current = 0;
    rvs_status st;
    memset(P, 0, sizeof *P);
    memset(&D, 0, sizeof D);
    if (o->mode != RVS_MODE_CPU && dev->gpus == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable GPU: %s", dev->gpu_desc);
    if (o->use_decisions && (st = rvs_decisions_read(&D, S, &current, err)) != RVS_OK)
        return st;
    st = plan_mode(P, S, dev, &D, current, o, o->mode, err);
    if (st == RVS_OK && o->mode == RVS_MODE_HYBRID)
        st = consider_gpu_only(P, S, dev, &D, current, o, err);
    rvs_decisions_free(&D);
    if (st != RVS_OK) {
        rvs_plan_free(P);
        return st;
    }
    P->consume = o->consume;
    P->advisor = o->advisor;
    for (int i = 0; o->tune_between_calls && i < P->nitems; i++) {
        const rvs_plan_item *it = &P->items[i];
        if (it->decision >= 0 && (P->decisions.d[it->decision].npending > 0 || P->decisions.d[it->decision].late))
            P->tune_between_calls = 1;
    }
    if (P->tune_between_calls)
        P->consume = 0; /* the candidates are built from the hub between calls */
    return st;
}
