/* spmv_tune.c - the advisor's doubts settled between calls. An item the model chose without
 * trying (rvs_advisor_options.defer) may carry pending candidates: once the calls so far have
 * run as long as a candidate's trial takes, the runner builds it on a helper thread from the hub;
 * once it is built and the calls have earned its trial (the time spent tuning stays under
 * RVS_TUNE_SHARE of the calls' time, so a short run tries nothing), it is uploaded
 * with the item's row map, run on the last call's x, checked against the item's y of that call
 * (on the device), and both are timed; a candidate faster by 3% or more takes the item's place
 * and the graph is captured again. The plan's item and its decision say what happened (RVS_HOW_TUNED), and the
 * trial cache keeps the outcome for the next run of the same matrix. On the CPU the candidate is
 * run and timed on the host the same way. Only items that run a part whole (not a row block of it,
 * not streamed, rows stored by no other item) are tuned. An item planned late (RVS_HOW_DEFAULT)
 * starts in the rule's CSR with no decision made: its decision, the model's features and
 * ranking, is computed on the helper first, while the calls run, and its doubts then queue up
 * as any other's: cuSPARSE's CSR (the floor) first, then the model's choices in its order. */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include "rvs_mem.h"
#include "rvs_cpu.h"
#include "rvs_cusparse.h"
#include "spmv_internal.h"

#define RVS_TUNE_SHARE 0.10 /* tuning's share of the calls' time, at most */
#define TUNE_ITERS 5        /* timed runs of each side, the median compared */

struct rvs_tuner {
    int item;         /* the item tuned now, -1 when none is left */
    int next;         /* its decision's next pending candidate */
    rvs_plan_item it; /* the item with the candidate's format and tunables */
    rvs_eitem cand;   /* the candidate's block: built on the helper, uploaded here */
    pthread_t thread;
    int thread_live;
    int built; /* the helper is done (under lock) */
    rvs_status build_st;
    pthread_mutex_t lock;
    double calls_ms, spent_ms;
    void *dscratch, *hscratch; /* y of a candidate's run, on the device or on the host (CPU items) */
    int late;                  /* the item whose decision the helper is making, -1 when none */
    double cost_scale;         /* a trial's cost over its guess so far, at least 1 (0: none ran) */
    rvs_decision made;         /* the helper's decision for it */
};

/* 1 when item e runs a part whole and may be tuned between calls (with doubts, or decided late). */
static int whole(const rvs_spmv_engine *E, const rvs_eitem *e, const rvs_plan *P)
{
    const rvs_plan_item *it = e->it;
    return !it->streamed && it->phase == 0 && !(it->row_hi > it->row_lo) && (it->device == RVS_DEV_CPU || E->gpu) &&
           !E->overlap && it->decision >= 0 && it->decision < P->decisions.n && it->nparts == 1;
}

static int tunable(const rvs_spmv_engine *E, const rvs_eitem *e, const rvs_plan *P)
{
    return whole(E, e, P) && P->decisions.d[e->it->decision].npending > 0;
}

/* The rows of item e's part as the advisor reads them (C: a copy where the list does not serve). */
static rvs_status item_rows(const rvs_spmv_engine *E, const rvs_eitem *e, rvs_row_list *R, rvs_csr *C, int *view,
                            rvs_error *err)
{
    const int part = e->it->parts[0];
    rvs_row_list_all(R, &E->S->A);
    return part >= 0 ? rvs_row_list_part(R, C, view, &E->S->partition, part, &E->S->A, err) : RVS_OK;
}

/* The helper: the model's decision for the late item, as planning would have made it. */
static void *decide(void *arg)
{
    rvs_spmv_engine *E = arg;
    rvs_tuner *T = E->tuner;
    const rvs_eitem *e = &E->items[T->late];
    rvs_advisor_options ao;
    rvs_row_list R;
    rvs_csr C = {0};
    rvs_error err;
    int view = 0;
    ao = E->plan->advisor; /* the plan's settings, but for what only the plan may do */
    ao.defer = 1;
    ao.late = 0;
    ao.use_cache = 0; /* planning looked there already */
    rvs_status st = item_rows(E, e, &R, &C, &view, &err);
    if (st == RVS_OK)
        st = rvs_advise_rows(&T->made, &R, e->it->parts[0], e->it->device, E->vt, &ao, &err);
    rvs_part_csr_free(&C, view);
    pthread_mutex_lock(&T->lock);
    T->build_st = st;
    T->built = 1;
    pthread_mutex_unlock(&T->lock);
    return NULL;
}

/* The helper's decision takes the late item's place: the item keeps running the rule's CSR,
 * and the model's choice, then its doubts, become the candidates tried between calls. */
static void merge_late(rvs_spmv_engine *E, rvs_plan *P)
{
    rvs_tuner *T = E->tuner;
    rvs_eitem *e = &E->items[T->late];
    rvs_decision *d = &P->decisions.d[e->it->decision], *m = &T->made;
    int cur = -1, list[RVS_MAX_PENDING], n = 0;
    for (int i = 0; i < m->ncand && cur < 0; i++)
        if (m->cand[i].format == e->it->format &&
            memcmp(&m->cand[i].knobs, &e->it->knobs, sizeof e->it->knobs) == 0)
            cur = i;
    if (cur < 0) /* the candidates are listed the same way: not reached */
        return;
    if (m->chosen != cur)
        list[n++] = m->chosen;
    for (int k = 0; k < m->npending && n < RVS_MAX_PENDING; k++)
        if (m->pending[k] != cur && m->pending[k] != m->chosen)
            list[n++] = m->pending[k];
    m->chosen = cur;
    m->npending = n;
    memcpy(m->pending, list, (size_t)n * sizeof *list);
    m->how = RVS_HOW_DEFAULT;
    m->late = 0;
    *d = *m;
    ((rvs_plan_item *)e->it)->pred_ms = m->cand[cur].pred_ms;
}

static void *build(void *arg)
{
    rvs_spmv_engine *E = arg;
    rvs_tuner *T = E->tuner;
    rvs_error err;
    rvs_status st = rvs_item_block(&T->cand, E->S, E->vt, 0, &err);
    pthread_mutex_lock(&T->lock);
    T->build_st = st;
    T->built = 1;
    pthread_mutex_unlock(&T->lock);
    return NULL;
}

/* Move to the next pending candidate of a tunable item (T->item, T->next); 0 when none is left. */
static int find_next(rvs_spmv_engine *E, const rvs_plan *P)
{
    rvs_tuner *T = E->tuner;
    for (; T->item < E->n; T->item++, T->next = 0) {
        const rvs_eitem *e = &E->items[T->item];
        if (tunable(E, e, P) && T->next < P->decisions.d[e->it->decision].npending)
            return 1;
    }
    return 0;
}

/* Start building the candidate find_next found, on the helper thread; 0 when it cannot start. */
static int start_build(rvs_spmv_engine *E, const rvs_plan *P)
{
    rvs_tuner *T = E->tuner;
    const rvs_eitem *e = &E->items[T->item];
    const rvs_decision *d = &P->decisions.d[e->it->decision];
    const rvs_candidate *c = &d->cand[d->pending[T->next]];
    T->it = *e->it;
    T->it.format = c->format;
    T->it.knobs = c->knobs;
    memset(&T->cand, 0, sizeof T->cand);
    T->cand.it = &T->it;
    T->cand.rows = e->rows;
    T->cand.rows_borrowed = 1;
    T->cand.base = e->base;
    T->built = 0;
    if (pthread_create(&T->thread, NULL, build, E) != 0)
        return 0;
    T->thread_live = 1;
    return 1;
}

/* What trying a candidate of item e costs the calls: its upload, a run checked on the device and
 * the timed runs of both sides (a guess from its bytes, at the rate the engine's own uploads ran,
 * bytes as the block moves them: the driver's copy from pageable memory ran at 5-20 GB/s on
 * different hosts), plus a millisecond of allocations and frees, times what the trials so far
 * cost over their guesses, at first 1.5 (the check and the frees are not in the upload's). */
static double foreground_ms(const rvs_spmv_engine *E, const rvs_eitem *e)
{
    const double scale = E->tuner && E->tuner->cost_scale > 0 ? E->tuner->cost_scale : 1.5;
    if (e->it->device == RVS_DEV_CPU) /* the timed runs of both sides, at some 10 GB/s */
        return scale * 2.5 * TUNE_ITERS * (double)e->bytes / 10e6;
    const double rate = E->upload_ms > 0 && E->upload_bytes > 0 ? E->upload_bytes / E->upload_ms : 20e6;
    return scale * (1.0 + (double)e->bytes / rate + 3.0 * TUNE_ITERS * (double)e->it->nnz * 1e-8);
}

/* Median event time of G (or the item's own block) on the last x into the scratch y. */
static rvs_status time_block(rvs_spmv_engine *E, const rvs_gpu_fmt *G, const rvs_gpu_tune *t, double *ms,
                             rvs_error *err)
{
    double v[TUNE_ITERS];
    rvs_status st = RVS_OK;
    for (int i = 0; i < TUNE_ITERS && st == RVS_OK; i++)
        st = rvs_gpu_spmv_timed(G, E->last_dx, E->tuner->dscratch, t, &v[i], err);
    if (st == RVS_OK)
        *ms = rvs_engine_median(v, TUNE_ITERS);
    return st;
}

/* 1 when a candidate's y is the item's: the largest difference of their rows within a bound of
 * the rounding of either, relative to the largest of the item's rows. */
static int close_enough(double diff, double big, rvs_vtype vt)
{
    return diff <= (rvs_vtype_real(vt) == RVS_F64 ? 1e-9 : 1e-3) * (big > 0 ? big : 1);
}

/* 1 when the candidate's rows of y (the scratch, on the host, block row i at i) match the item's
 * of the last call (ref, at the item's rows). */
static int same_rows(const rvs_spmv_engine *E, const void *ref, const rvs_eitem *e)
{
    const rvs_tuner *T = E->tuner;
    const int cplx = rvs_vtype_is_complex(E->vt), k = cplx ? 2 : 1;
    const int f64 = rvs_vtype_real(E->vt) == RVS_F64;
    double big = 0, diff = 0;
    for (int64_t i = 0; i < e->it->rows; i++)
        for (int c = 0; c < k; c++) {
            const int64_t at = rvs_item_row(e, i) * k + c, bt = i * k + c;
            const double a = f64 ? ((const double *)ref)[at] : ((const float *)ref)[at];
            const double b = f64 ? ((const double *)T->hscratch)[bt] : ((const float *)T->hscratch)[bt];
            if (!isfinite(b) && isfinite(a))
                return 0;
            big = fmax(big, fabs(a));
            diff = fmax(diff, fabs(a - b));
        }
    return close_enough(diff, big, E->vt);
}

/* Median host time of F on the last x into the scratch rows. */
static rvs_status time_cpu(rvs_spmv_engine *E, const rvs_fmt *F, double *ms, rvs_error *err)
{
    double v[TUNE_ITERS];
    rvs_status st = RVS_OK;
    for (int i = 0; i < TUNE_ITERS && st == RVS_OK; i++) {
        const double t0 = rvs_engine_now();
        st = rvs_cpu_spmv(F, E->x, E->tuner->hscratch, err);
        v[i] = (rvs_engine_now() - t0) * 1e3;
    }
    if (st == RVS_OK)
        *ms = rvs_engine_median(v, TUNE_ITERS);
    return st;
}

/* The candidate's place taken in the plan's item and its decision. */
static void record_switch(rvs_spmv_engine *E, rvs_decision *d, rvs_eitem *e, double ms)
{
    rvs_tuner *T = E->tuner;
    rvs_plan_item *pi = (rvs_plan_item *)e->it;
    pi->format = T->it.format;
    pi->knobs = T->it.knobs;
    pi->how = RVS_HOW_TUNED;
    pi->pred_ms = d->cand[d->pending[T->next]].pred_ms;
    pi->trial_ms = ms;
    d->chosen = d->pending[T->next];
    d->how = RVS_HOW_TUNED;
    E->tune_switches++;
}

/* On the CPU: the built candidate run on the last x, checked against the item's rows of the last
 * y, both timed; it takes the item's block when faster. */
static rvs_status try_cpu(rvs_spmv_engine *E, rvs_plan *P, rvs_eitem *e, rvs_error *err)
{
    rvs_tuner *T = E->tuner;
    rvs_decision *d = &P->decisions.d[e->it->decision];
    rvs_candidate *c = &d->cand[d->pending[T->next]];
    double mine = 0, theirs = 0;
    const rvs_fmt *F = T->cand.F;
    rvs_fill_nan(T->hscratch, e->it->rows, E->vt);
    rvs_status st = rvs_cpu_spmv(F, E->x, T->hscratch, err);
    if (st != RVS_OK || !same_rows(E, E->y, e)) {
        c->status = RVS_CAND_FAILED;
        return RVS_OK; /* a candidate that does not verify is passed over */
    }
    if ((st = time_cpu(E, F, &theirs, err)) != RVS_OK || (st = time_cpu(E, e->F, &mine, err)) != RVS_OK)
        return st;
    c->status = RVS_CAND_RAN;
    c->ms = theirs;
    if (d->cand[d->chosen].ms < 0)
        d->cand[d->chosen].ms = mine;
    if (theirs >= 0.97 * mine)
        return RVS_OK;
    if (e->F == &e->own)
        rvs_fmt_free(&e->own);
    e->own = T->cand.own; /* the block (own, or the hub's arrays borrowed) moves to the item */
    e->F = &e->own;
    memset(&T->cand.own, 0, sizeof T->cand.own);
    e->bytes = rvs_spmv_bytes(e->F);
    record_switch(E, d, e, theirs);
    return RVS_OK;
}

/* The built candidate tried against item e; it takes e's place when faster. It runs on the last
 * call's x, and its rows of y are checked against the last call's y on the device (nothing copied
 * back: a trial's copies and host check took 13 of its 25 ms on 800K rows). */
static rvs_status try_candidate(rvs_spmv_engine *E, rvs_plan *P, rvs_eitem *e, rvs_error *err)
{
    if (e->it->device == RVS_DEV_CPU)
        return try_cpu(E, P, e, err);
    rvs_tuner *T = E->tuner;
    rvs_decision *d = &P->decisions.d[e->it->decision];
    rvs_candidate *c = &d->cand[d->pending[T->next]];
    const size_t ybytes = (size_t)E->S->A.rows * E->vs;
    double mine = 0, theirs = 0, diff = 0, big = 0;
    int bad = 1;
    /* the device's scratch y at the first trial, not at the first call (which it would delay) */
    rvs_status st = T->dscratch ? RVS_OK : rvs_gpu_malloc(&T->dscratch, ybytes + 16, err);
    if (st != RVS_OK) {
        c->status = RVS_CAND_FAILED;
        return st == RVS_ERR_NOMEM ? RVS_OK : st; /* no room to try it: passed over */
    }
    st = rvs_item_upload(E, &T->cand, err);
    if (st == RVS_OK)
        st = rvs_gpu_memset(T->dscratch, 0xff, ybytes, err);
    if (st == RVS_OK)
        st = rvs_gpu_spmv(&T->cand.G, E->last_dx, T->dscratch, &T->it.knobs.tune, NULL, err);
    if (st == RVS_OK)
        st = rvs_gpu_compare_rows(&T->cand.G, e->it->rows, E->vt, E->last_dy, T->dscratch, &diff, &big, &bad, err);
    rvs_mem_trace("tune: candidate run and checked");
    if (st != RVS_OK || bad || !close_enough(diff, big, E->vt)) {
        c->status = RVS_CAND_FAILED;
        rvs_gpu_fmt_free(&T->cand.G);
        return st == RVS_ERR_NOMEM ? RVS_OK : st; /* a candidate that does not fit or verify is passed over */
    }
    if ((st = time_block(E, &T->cand.G, &T->it.knobs.tune, &theirs, err)) == RVS_OK) {
        rvs_mem_trace("tune: candidate timed");
        st = time_block(E, &e->G, &e->it->knobs.tune, &mine, err);
    }
    rvs_mem_trace("tune: running block timed");
    if (st != RVS_OK) {
        rvs_gpu_fmt_free(&T->cand.G);
        return st;
    }
    c->status = RVS_CAND_RAN;
    c->ms = theirs;
    if (d->cand[d->chosen].ms < 0)
        d->cand[d->chosen].ms = mine;
    if (theirs >= 0.97 * mine) {
        rvs_gpu_fmt_free(&T->cand.G);
        return RVS_OK;
    }
    /* the candidate takes the item's place: its block, the plan's item, the decision, the graph */
    rvs_gpu_fmt_free(&e->G);
    e->G = T->cand.G;
    memset(&T->cand.G, 0, sizeof T->cand.G);
    record_switch(E, d, e, theirs);
    return rvs_spmv_recapture(E, err);
}

/* The decision of a tuned item into the trial cache, once its candidates are all tried. */
static void remember(const rvs_spmv_engine *E, const rvs_plan *P, const rvs_eitem *e)
{
    char device[256];
    rvs_row_list R;
    rvs_csr C = {0};
    int view = 0;
    if (e->it->nparts != 1 || item_rows(E, e, &R, &C, &view, NULL) != RVS_OK)
        return;
    rvs_device_name(e->it->device, device, sizeof device);
    rvs_trial_cache_store(&P->decisions.d[e->it->decision], device, rvs_shape_key_rows(&R, E->vt), NULL);
    rvs_part_csr_free(&C, view);
}

rvs_status rvs_spmv_tune_step(rvs_spmv_engine *E, double call_ms, rvs_error *err)
{
    rvs_plan *P = E->plan;
    rvs_tuner *T = E->tuner;
    if (!P || !P->tune_between_calls)
        return RVS_OK;
    if (!T) {
        if (!(T = E->tuner = calloc(1, sizeof *T)))
            return RVS_OK; /* no tuning: the calls go on as planned */
        pthread_mutex_init(&T->lock, NULL);
        T->late = -1;
        for (int i = 0; i < E->n && T->late < 0; i++)
            if (whole(E, &E->items[i], P) && P->decisions.d[E->items[i].it->decision].late)
                T->late = i;
        if (T->late >= 0 && pthread_create(&T->thread, NULL, decide, E) == 0)
            T->thread_live = 1;
        else
            T->late = -1;
        int cpu = 0;
        for (int i = 0; i < E->n; i++)
            cpu |= E->items[i].it->device == RVS_DEV_CPU;
        if (!(T->late >= 0 || find_next(E, P)) ||
            (cpu && !(T->hscratch = malloc((size_t)E->S->A.rows * E->vs + 16)))) {
            T->item = E->n; /* nothing to tune, or no room to: done */
            return RVS_OK;
        }
        rvs_mem_trace("tune: tuner made");
    }
    T->calls_ms += call_ms;
    if (T->late >= 0) { /* the helper is deciding: its choice and doubts, once it is done */
        pthread_mutex_lock(&T->lock);
        const int done = T->built;
        pthread_mutex_unlock(&T->lock);
        if (!done)
            return RVS_OK;
        pthread_join(T->thread, NULL);
        T->thread_live = 0;
        T->built = 0;
        if (T->build_st == RVS_OK)
            merge_late(E, P);
        T->late = -1;
        T->item = 0;
        T->next = 0;
        if (!find_next(E, P))
            T->item = E->n;
        return RVS_OK;
    }
    if (T->item >= E->n)
        return RVS_OK;
    /* a candidate is built (on the helper, costing the calls nothing) once the calls have run as
     * long as its trial will take them, so that a short run builds none; it is tried once the
     * calls have earned its trial ten times over */
    const double budget = RVS_TUNE_SHARE * T->calls_ms - T->spent_ms;
    if (!T->thread_live) {
        if (T->calls_ms - T->spent_ms >= foreground_ms(E, &E->items[T->item]) && !start_build(E, P))
            T->item = E->n;
        return RVS_OK;
    }
    pthread_mutex_lock(&T->lock);
    const int built = T->built;
    pthread_mutex_unlock(&T->lock);
    if (!built || budget < foreground_ms(E, &E->items[T->item]))
        return RVS_OK;
    pthread_join(T->thread, NULL);
    T->thread_live = 0;
    const double t0 = rvs_engine_now();
    rvs_eitem *e = &E->items[T->item];
    rvs_decision *d = &P->decisions.d[e->it->decision];
    const double guess = foreground_ms(E, e);
    char what[224], knobs[160];
    rvs_knobs_format(&T->it.knobs, knobs, sizeof knobs);
    snprintf(what, sizeof what, "tune: trying %s@%s", rvs_format_lookup(T->it.format)->name, knobs);
    rvs_mem_trace(what);
    rvs_status st = RVS_OK;
    if (T->build_st == RVS_OK)
        st = try_candidate(E, P, e, err);
    else
        d->cand[d->pending[T->next]].status = RVS_CAND_REFUSED;
    rvs_fmt_free(&T->cand.own);
    const double spent = (rvs_engine_now() - t0) * 1e3;
    T->spent_ms += spent;
    if (T->build_st == RVS_OK && guess > 0) /* the next guess: as far off as this one was */
        T->cost_scale = fmax(1.0, (T->cost_scale > 0 ? T->cost_scale : 1.5) * spent / guess);
    E->tune_ms = T->spent_ms;
    if (st != RVS_OK)
        return st;
    if (++T->next >= d->npending)
        remember(E, P, e);
    rvs_mem_trace("runner: a candidate tried between calls");
    if (!find_next(E, P))
        T->item = E->n;
    return RVS_OK;
}

void rvs_spmv_tune_free(rvs_spmv_engine *E)
{
    rvs_tuner *T = E->tuner;
    if (!T)
        return;
    if (T->thread_live)
        pthread_join(T->thread, NULL);
    rvs_fmt_free(&T->cand.own);
    rvs_gpu_fmt_free(&T->cand.G);
    rvs_gpu_free(T->dscratch);
    free(T->hscratch);
    pthread_mutex_destroy(&T->lock);
    free(T);
    E->tuner = NULL;
}

void rvs_spmv_engine_tuning(const rvs_spmv_engine *E, int *switches, double *ms)
{
    *switches = E->tune_switches;
    *ms = E->tune_ms;
}
