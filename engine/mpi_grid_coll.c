/* mpi_grid_coll.c - the 2-D layout's expand and fold as point-to-point messages: each piece goes
 * whole, once, to each rank that needs it. Open MPI's MPI_Allgatherv and MPI_Reduce_scatter move
 * such pieces (megabytes to gigabytes) in segments and reduce each as it lands: 0.5-1.8 GB/s on
 * the 4x H200 host (bench/results/mpi_spmv-h200x4.txt), where the row layout's messages reach
 * 6.4 GB/s. The fold adds the pieces in rank order of the process row, in the plan's type. */
#include <stdlib.h>
#include <string.h>
#include "mpi_grid_internal.h"
#include "rvs_omp.h"

#define TAG_EXPAND (RVS_MPI_TAG_VEC + 11)
#define TAG_FOLD (RVS_MPI_TAG_VEC + 12)

/* Wait for n requests; on an error, cancel what is left. */
static rvs_status wait_all(MPI_Request *req, int n, const char *what, rvs_error *err)
{
    int rc = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS)
        return RVS_OK;
    for (int k = 0; k < n; k++)
        if (req[k] != MPI_REQUEST_NULL) {
            MPI_Cancel(&req[k]);
            MPI_Request_free(&req[k]);
        }
    return rvs_mpi_fail(err, rc, what);
}

rvs_status rvs_mpi_grid_expand(rvs_mpi_grid *G, const void *mine, void *x, rvs_error *err)
{
    const MPI_Datatype type = rvs_mpi_type(G->vt);
    const size_t vs = rvs_vtype_size(G->vt);
    MPI_Request *req = malloc(2 * (size_t)G->R * sizeof *req);
    int n = 0, rc = MPI_SUCCESS;
    if (!req)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < G->R && rc == MPI_SUCCESS; k++) /* the process column, by its row i */
        if (k != G->i && G->xcount[k] > 0)
            rc = MPI_Irecv((char *)x + (size_t)G->xdispl[k] * vs, G->xcount[k], type, k, TAG_EXPAND, G->col_comm,
                           &req[n++]);
    for (int k = 0; k < G->R && rc == MPI_SUCCESS; k++)
        if (k != G->i && G->x_n > 0)
            rc = MPI_Isend(mine, (int)G->x_n, type, k, TAG_EXPAND, G->col_comm, &req[n++]);
    if (G->x_n > 0)
        memcpy((char *)x + (size_t)G->xdispl[G->i] * vs, mine, (size_t)G->x_n * vs);
    rvs_status st = rc == MPI_SUCCESS ? RVS_OK : rvs_mpi_fail(err, rc, "MPI_Isend (expand)");
    if (rc != MPI_SUCCESS)
        n = n > 0 ? n - 1 : 0; /* the failed call's request was not made */
    rvs_status w = wait_all(req, n, "MPI_Waitall (expand)", err);
    free(req);
    return st != RVS_OK ? st : w;
}

/* out = the sum of the C pieces (rank order), own from y, the others from recv (C - 1 of n). */
static void fold_sum(rvs_vtype vt, void *out, const void *own, const void *recv, int me, int C, int64_t n)
{
    if (vt == RVS_F64) {
        double *o = out;
        const double *a = own, *b = recv;
#pragma omp parallel for schedule(static) if (n > RVS_OMP_MIN_WORK)
        for (int64_t r = 0; r < n; r++) {
            double s = 0;
            for (int k = 0, m = 0; k < C; k++)
                s += k == me ? a[r] : b[(size_t)(m++) * (size_t)n + (size_t)r];
            o[r] = s;
        }
    } else {
        float *o = out;
        const float *a = own, *b = recv;
#pragma omp parallel for schedule(static) if (n > RVS_OMP_MIN_WORK)
        for (int64_t r = 0; r < n; r++) {
            float s = 0;
            for (int k = 0, m = 0; k < C; k++)
                s += k == me ? a[r] : b[(size_t)(m++) * (size_t)n + (size_t)r];
            o[r] = s;
        }
    }
}

rvs_status rvs_mpi_grid_fold(rvs_mpi_grid *G, const void *y, void *out, rvs_error *err)
{
    const MPI_Datatype type = rvs_mpi_type(G->vt);
    const size_t vs = rvs_vtype_size(G->vt);
    const int64_t n = G->ycount[G->j];
    if (G->C == 1) { /* the block's y is the piece */
        if (n > 0)
            memcpy(out, y, (size_t)n * vs);
        return RVS_OK;
    }
    if (!G->fold && !(G->fold = malloc((size_t)(G->C - 1) * (size_t)n * vs + 16)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld partial y entries",
                        (long long)((G->C - 1) * n));
    MPI_Request *req = malloc(2 * (size_t)G->C * sizeof *req);
    int nr = 0, rc = MPI_SUCCESS;
    if (!req)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int k = 0, m = 0; k < G->C && rc == MPI_SUCCESS; k++) /* the process row, by its column j */
        if (k != G->j) {
            if (n > 0)
                rc = MPI_Irecv((char *)G->fold + (size_t)m * (size_t)n * vs, (int)n, type, k, TAG_FOLD, G->row_comm,
                               &req[nr++]);
            m++;
        }
    int64_t at = 0;
    for (int k = 0; k < G->C && rc == MPI_SUCCESS; k++) {
        if (k != G->j && G->ycount[k] > 0)
            rc = MPI_Isend((const char *)y + (size_t)at * vs, G->ycount[k], type, k, TAG_FOLD, G->row_comm,
                           &req[nr++]);
        at += G->ycount[k];
    }
    rvs_status st = rc == MPI_SUCCESS ? RVS_OK : rvs_mpi_fail(err, rc, "MPI_Isend (fold)");
    if (rc != MPI_SUCCESS)
        nr = nr > 0 ? nr - 1 : 0;
    rvs_status w = wait_all(req, nr, "MPI_Waitall (fold)", err);
    free(req);
    if (st != RVS_OK || w != RVS_OK)
        return st != RVS_OK ? st : w;
    int64_t mine = 0;
    for (int k = 0; k < G->j; k++)
        mine += G->ycount[k];
    if (n > 0)
        fold_sum(G->vt, out, (const char *)y + (size_t)mine * vs, G->fold, G->j, G->C, n);
    return RVS_OK;
}
