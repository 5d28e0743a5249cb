/* spmv_host.c - the CPU side of a call: CPU items run with every thread, one after another
 * (phase 0 first), while the GPU works; row blocks, when there are at least twice as many as
 * threads, side by side with a thread each. An item whose rows are consecutive and outside the rows
 * copied back from the GPU writes y in place; one with scattered rows computes into its own
 * buffer and puts its rows into y; one whose rows the GPU copy covers (or, for Algorithm 4, that
 * shares rows with other items) waits for the copy and is then added or stored row by row. */
#include <omp.h>
#include <string.h>
#include "rvs_cpu.h"
#include "spmv_internal.h"
#include "rvs_omp.h"

rvs_status rvs_host_prepare(rvs_spmv_engine *E, rvs_error *err)
{
    const int64_t rows = E->S->A.rows;
    uint8_t *inrun = NULL;
    int any = 0;
    if (E->gpu && !(inrun = calloc((size_t)rows + 1, 1)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the row map");
    for (int k = 0; inrun && k < E->nruns; k++)
        memset(inrun + E->runs[k][0], 1, (size_t)(E->runs[k][1] - E->runs[k][0]));
    for (int i = 0; i < E->n; i++) {
        rvs_eitem *e = &E->items[i];
        if (e->it->device != RVS_DEV_CPU)
            continue;
        any = 1;
        e->deferred = E->overlap;
        for (int64_t r = 0; inrun && r < e->F->rows && !e->deferred; r++)
            e->deferred = inrun[rvs_item_row(e, r)];
        e->direct = !e->deferred && !e->rows;
        if (!e->direct && !(e->buf = malloc((size_t)e->F->rows * E->vs + 8))) {
            free(inrun);
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a part's y");
        }
    }
    free(inrun);
    if (any && E->overlap && !(E->covered = malloc((size_t)rows + 1)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the row map");
    return RVS_OK;
}

/* y[row(i)] = buf[i] (add 0) or += (add 1) over the item's rows; with covered, row by row:
 * added where a row was already written, stored where not. */
static void put_rows(rvs_spmv_engine *E, const rvs_eitem *e, int add, uint8_t *covered)
{
    const int64_t n = e->F->rows;
#pragma omp parallel for schedule(static) if (n > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = rvs_item_row(e, i);
        const int a = covered ? covered[r] : add;
        if (E->vt == RVS_F64) {
            double *y = (double *)E->y, v = ((const double *)e->buf)[i];
            y[r] = a ? y[r] + v : v;
        } else if (E->vt == RVS_F32) {
            float *y = (float *)E->y, v = ((const float *)e->buf)[i];
            y[r] = a ? y[r] + v : v;
        } else if (E->vt == RVS_C128) { /* a complex value: its two parts */
            double *y = (double *)E->y;
            const double *v = (const double *)e->buf + 2 * i;
            y[2 * r] = a ? y[2 * r] + v[0] : v[0];
            y[2 * r + 1] = a ? y[2 * r + 1] + v[1] : v[1];
        } else {
            float *y = (float *)E->y;
            const float *v = (const float *)e->buf + 2 * i;
            y[2 * r] = a ? y[2 * r] + v[0] : v[0];
            y[2 * r + 1] = a ? y[2 * r + 1] + v[1] : v[1];
        }
        if (covered)
            covered[r] = 1;
    }
}

rvs_status rvs_host_run(rvs_spmv_engine *E, rvs_error *err)
{
    return rvs_host_run_some(E, NULL, NULL, err);
}

/* 1 when e is a CPU row block of phase that writes its own rows of y in place (picked). */
static int lone_block(const rvs_eitem *e, int phase, int (*pick)(const rvs_eitem *e, void *ctx), void *ctx)
{
    return e->it->device == RVS_DEV_CPU && e->it->phase == phase && e->direct && e->it->row_hi > e->it->row_lo &&
           (!pick || pick(e, ctx));
}

/* The row blocks of phase side by side, a thread each, when there are at least twice as many as
 * threads (they share no row of y): one after another, each block's parallel loop costs a fork and
 * a join of every thread, which a busy machine makes long. 1 when they ran (*st their status). */
static int blocks_side_by_side(rvs_spmv_engine *E, int phase, int (*pick)(const rvs_eitem *e, void *ctx), void *ctx,
                               rvs_status *st, rvs_error *err)
{
    int n = 0;
    for (int i = 0; i < E->n; i++)
        n += lone_block(&E->items[i], phase, pick, ctx);
    if (n < 2 * omp_get_max_threads())
        return 0;
    rvs_status first = RVS_OK;
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < E->n; i++) {
        const rvs_eitem *e = &E->items[i];
        rvs_error mine;
        if (!lone_block(e, phase, pick, ctx))
            continue;
        const rvs_status s = rvs_cpu_spmv(e->F, E->x, (char *)E->y + (size_t)e->base * E->vs, &mine);
        if (s != RVS_OK)
#pragma omp critical(rvs_host_blocks)
            if (first == RVS_OK) {
                first = s;
                if (err)
                    *err = mine;
            }
    }
    *st = first;
    return 1;
}

rvs_status rvs_host_run_some(rvs_spmv_engine *E, int (*pick)(const rvs_eitem *e, void *ctx), void *ctx,
                             rvs_error *err)
{
    for (int phase = 0; phase < 2; phase++) {
        rvs_status st = RVS_OK;
        const int side = blocks_side_by_side(E, phase, pick, ctx, &st, err);
        if (st != RVS_OK)
            return st;
        for (int i = 0; i < E->n; i++) {
            rvs_eitem *e = &E->items[i];
            if (e->it->device != RVS_DEV_CPU || e->it->phase != phase || (pick && !pick(e, ctx)) ||
                (side && lone_block(e, phase, pick, ctx)))
                continue;
            void *y = e->direct ? (char *)E->y + (size_t)e->base * E->vs : e->buf;
            rvs_status st = rvs_cpu_spmv(e->F, E->x, y, err);
            if (st != RVS_OK)
                return st;
            if (!e->direct && !e->deferred)
                put_rows(E, e, phase, NULL);
        }
    }
    return RVS_OK;
}

void rvs_host_finish(rvs_spmv_engine *E)
{
    int any = 0;
    for (int i = 0; i < E->n; i++)
        any |= E->items[i].it->device == RVS_DEV_CPU && E->items[i].deferred;
    if (!any)
        return;
    if (E->covered) { /* rows already in y: the GPU's */
        if (E->gpu_rows)
            memcpy(E->covered, E->gpu_rows, (size_t)E->S->A.rows);
        else
            memset(E->covered, 0, (size_t)E->S->A.rows);
    }
    for (int phase = 0; phase < 2; phase++)
        for (int i = 0; i < E->n; i++) {
            const rvs_eitem *e = &E->items[i];
            if (e->it->device == RVS_DEV_CPU && e->it->phase == phase && e->deferred)
                put_rows(E, e, 0, E->covered);
        }
}
