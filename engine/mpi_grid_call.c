/* mpi_grid_call.c - the 2-D layout's run (mpi_grid.h): the block planned by the engine like a
 * stream of one part, and a call of three steps, each waiting for the one before:
 *   expand: the pieces of x over the process column into the block's x (mpi_grid_coll.c)
 *   block:  the runner's call (GPU: x in, the graph, y out; CPU: its items)
 *   fold:   the block's y over the process row, each rank's piece summed in the plan's type
 * and the check, from a reference folded in double. Resident calls: mpi_grid_resident.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_grid_internal.h"

rvs_status rvs_mpi_grid_prepare(rvs_mpi_grid *G, const rvs_engine_devices *dev, const rvs_plan_options *po,
                                rvs_error *err)
{
    rvs_plan_options o = *po;
    const size_t vs = rvs_vtype_size(po->vtype);
    rvs_status st = RVS_OK;
    G->vt = po->vtype;
    G->xmine = malloc((size_t)G->x_n * vs + 16);
    G->ymine = malloc((size_t)G->y_n * vs + 16);
    if (!G->xmine || !G->ymine)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (G->L.A.nnz == 0) { /* nothing to run: the block's y stays zero */
        G->xblock = calloc((size_t)G->cols + 1, vs);
        G->yblock = calloc((size_t)G->rows + 1, vs);
        return G->xblock && G->yblock ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    }
    /* one device per block: the part goes where the mode says (hybrid: where a GPU is) */
    G->L.partition.parts[0].device = o.mode == RVS_MODE_CPU || dev->gpus == 0 ? RVS_DEV_CPU : RVS_DEV_GPU;
    if (o.mode == RVS_MODE_HYBRID)
        o.mode = G->L.partition.parts[0].device == RVS_DEV_GPU ? RVS_MODE_GPU : RVS_MODE_CPU;
    if ((st = rvs_plan_make(&G->P, &G->L, dev, &o, err)) != RVS_OK)
        return st;
    G->planned = 1;
    if ((st = rvs_spmv_engine_create(&G->E, &G->L, &G->P, err)) != RVS_OK)
        return st;
    G->gpu = G->E->gpu; /* resident calls run the GPU's graph alone: every item on the GPU */
    for (int i = 0; i < G->E->n; i++)
        G->gpu &= G->E->items[i].it->device == RVS_DEV_GPU;
    return RVS_OK;
}

rvs_status rvs_mpi_grid_call(rvs_mpi_grid *G, int resident, int poison, rvs_mpi_times *t, rvs_error *err)
{
    if (resident < 0 || resident > 2)
        return rvs_fail(err, RVS_ERR_ARG, "resident %d: not 0, 1 or 2", resident);
    if (resident && G->gpu)
        return rvs_mpi_grid_call_resident(G, resident, poison, t, err);
    void *x = G->E ? rvs_spmv_engine_x(G->E) : G->xblock, *y = G->E ? rvs_spmv_engine_y(G->E) : G->yblock;
    rvs_spmv_times bt;
    memset(t, 0, sizeof *t);
    memset(&bt, 0, sizeof bt);
    if (poison)
        rvs_fill_nan(G->ymine, G->y_n, G->vt);
    const double t0 = rvs_engine_now();
    rvs_status st = rvs_mpi_grid_expand(G, G->xmine, x, err);
    if (st != RVS_OK)
        return st;
    const double t1 = rvs_engine_now();
    st = G->E ? rvs_spmv_engine_call(G->E, poison, &bt, err) : RVS_OK;
    if (st != RVS_OK)
        return st;
    const double t2 = rvs_engine_now();
    if ((st = rvs_mpi_grid_fold(G, y, G->ymine, err)) != RVS_OK)
        return st;
    const double t3 = rvs_engine_now();
    t->call_ms = (t3 - t0) * 1e3;
    t->phase0_ms = (t2 - t1) * 1e3;
    t->exchange_ms = t->wait_ms = (t1 - t0 + t3 - t2) * 1e3; /* the expand and fold: all waiting in MPI */
    t->gpu_ms = bt.gpu_ms;
    return RVS_OK;
}

rvs_status rvs_mpi_grid_check_prepare(rvs_mpi_grid *G, rvs_vtype vt, const double *xd, uint64_t seed,
                                      rvs_error *err)
{
    double *xp = malloc((size_t)G->x_n * sizeof *xp + 8), *xb = malloc((size_t)G->cols * sizeof *xb + 8),
           *part = calloc(2 * (size_t)G->rows + 1, sizeof *part);
    free(G->ref);
    free(G->scale);
    G->ref = malloc((size_t)G->y_n * sizeof *G->ref + 8);
    G->scale = malloc((size_t)G->y_n * sizeof *G->scale + 8);
    rvs_status st = xp && xb && part && G->ref && G->scale
                        ? RVS_OK
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the check's reference");
    if (st == RVS_OK)
        st = rvs_mpi_grid_scatter_owned(G, xd, seed, vt, xp, RVS_F64, err);
    int rc = MPI_SUCCESS;
    const char *call = "MPI_Allgatherv";
    if (st == RVS_OK)
        rc = MPI_Allgatherv(xp, (int)G->x_n, MPI_DOUBLE, xb, G->xcount, G->xdispl, MPI_DOUBLE, G->col_comm);
    if (st == RVS_OK && rc == MPI_SUCCESS && G->L.A.nnz > 0)
        rvs_spmv_reference(&G->L.A, xb, part, part + G->rows);
    if (st == RVS_OK && rc == MPI_SUCCESS) { /* the blocks' sums of each row added in double */
        call = "MPI_Reduce_scatter";
        rc = MPI_Reduce_scatter(part, G->ref, G->ycount, MPI_DOUBLE, MPI_SUM, G->row_comm);
        if (rc == MPI_SUCCESS)
            rc = MPI_Reduce_scatter(part + G->rows, G->scale, G->ycount, MPI_DOUBLE, MPI_SUM, G->row_comm);
    }
    if (rc != MPI_SUCCESS)
        st = rvs_mpi_fail(err, rc, call);
    free(xp);
    free(xb);
    free(part);
    return st;
}

/* Rank 0: A's row of a row of the permuted matrix (rvs_mpi_job_worst). */
static int64_t old_row(const void *G, int r, int64_t i)
{
    (void)r;
    return rvs_mpi_grid_row_old(G, i);
}

rvs_status rvs_mpi_grid_check(rvs_mpi_grid *G, double tol, double *max_err, int64_t *row, rvs_error *err)
{
    rvs_mpi_worst mine = {0, -1, 0};
    *max_err = 0;
    *row = -1;
    if (!G->ref)
        return rvs_fail(err, RVS_ERR_ARG, "check: no reference (rvs_mpi_grid_check_prepare)");
    if (G->y_n > 0) {
        double *yd = malloc((size_t)G->y_n * sizeof *yd);
        int64_t at = -1;
        rvs_error ignored; /* past tol is told by the error */
        if (!yd)
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        rvs_y_to_double(yd, G->ymine, G->y_n, G->vt);
        rvs_spmv_check_ref(G->ref, G->scale, yd, G->y_n, G->vt, tol, &mine.e, &at, &ignored);
        free(yd);
        mine.row = at >= 0 ? G->y_first + at : G->y_first;
        mine.overflowed = at >= 0 && isinf(G->scale[at]); /* no tolerance bounds it: said so */
    }
    return rvs_mpi_job_worst(G->comm, &mine, G->row_old ? old_row : NULL, G, tol, max_err, row, err);
}

const rvs_plan *rvs_mpi_grid_plan(const rvs_mpi_grid *G)
{
    return G->planned ? &G->P : NULL;
}

rvs_vtype rvs_mpi_grid_vtype(const rvs_mpi_grid *G)
{
    return G->vt ? G->vt : G->info.vtype;
}

void rvs_mpi_grid_free(rvs_mpi_grid *G)
{
    if (!G)
        return;
    rvs_mpi_grid_resident_free(G);
    free(G->fold);
    rvs_spmv_engine_free(G->E);
    if (G->planned)
        rvs_plan_free(&G->P);
    rvs_stream_free(&G->L);
    if (G->row_comm != MPI_COMM_NULL)
        MPI_Comm_free(&G->row_comm);
    if (G->col_comm != MPI_COMM_NULL)
        MPI_Comm_free(&G->col_comm);
    free(G->row_cut);
    free(G->col_cut);
    free(G->xcount);
    free(G->xdispl);
    free(G->ycount);
    free(G->xmine);
    free(G->ymine);
    free(G->xblock);
    free(G->yblock);
    free(G->ref);
    free(G->scale);
    if (G->col_old != G->row_old)
        free(G->col_old);
    free(G->row_old);
    free(G->col_new);
    free(G);
}
