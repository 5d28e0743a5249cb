/* mpi_halo.c - the exchange of x entries: once, each rank tells each owner which of its entries
 * it needs (all-to-all of counts, then of their places in the owner's x, which rank 0 worked
 * out), and the owner keeps them; per call, only those entries move, received straight into
 * their place in x (received columns are grouped by owner) and sent from one packed buffer, or,
 * between GPU-to-GPU pairs in resident calls, copied by the receiver once told (mpi_peer.c) */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"
#include "rvs_omp.h"

rvs_status rvs_mpi_halo_lists(rvs_mpi_spmv *M, const int32_t *pos, const int64_t *per_owner, rvs_error *err)
{
    const int K = M->nranks;
    int *want = calloc((size_t)K, sizeof *want), *give = calloc((size_t)K, sizeof *give);
    int *wdisp = calloc((size_t)K, sizeof *wdisp), *gdisp = calloc((size_t)K, sizeof *gdisp);
    rvs_status st = want && give && wdisp && gdisp ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st == RVS_OK && per_owner[K] > INT_MAX)
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "%lld received columns on rank %d (MPI counts are int)",
                      (long long)per_owner[K], M->rank);
    for (int q = 0; q < K && st == RVS_OK; q++) {
        want[q] = (int)(per_owner[q + 1] - per_owner[q]);
        wdisp[q] = (int)per_owner[q];
        M->nrecv += want[q] > 0;
    }
    int rc = st == RVS_OK ? MPI_Alltoall(want, 1, MPI_INT, give, 1, MPI_INT, M->comm) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        st = rvs_mpi_fail(err, rc, "MPI_Alltoall");
    int64_t total = 0;
    for (int q = 0; q < K && st == RVS_OK; q++) {
        if (total > INT_MAX - give[q])
            st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "rank %d sends more than %d x entries per call", M->rank,
                          INT_MAX);
        gdisp[q] = (int)total;
        total += give[q];
        M->nsend += give[q] > 0;
    }
    M->recv = calloc((size_t)M->nrecv + 1, sizeof *M->recv);
    M->send = calloc((size_t)M->nsend + 1, sizeof *M->send);
    M->send_idx = malloc((size_t)(total ? total : 1) * sizeof *M->send_idx);
    M->req = malloc(((size_t)M->nrecv + M->nsend + 1) * sizeof *M->req);
    if (st == RVS_OK && (!M->recv || !M->send || !M->send_idx || !M->req))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the exchange lists");
    rc = st == RVS_OK ? MPI_Alltoallv(pos, want, wdisp, MPI_INT32_T, M->send_idx, give, gdisp, MPI_INT32_T, M->comm)
                      : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        st = rvs_mpi_fail(err, rc, "MPI_Alltoallv");
    for (int64_t k = 0; k < total && st == RVS_OK; k++)
        if (M->send_idx[k] < 0 || M->send_idx[k] >= M->info.owned_cols)
            st = rvs_fail(err, RVS_ERR_INTERNAL, "rank %d was asked for entry %d of its x, which owns %lld",
                          M->rank, M->send_idx[k], (long long)M->info.owned_cols);
    for (int q = 0, a = 0, b = 0; q < K && st == RVS_OK; q++) {
        if (want[q] > 0)
            M->recv[a++] = (rvs_mpi_peer){.rank = q, .first = M->info.owned_cols + per_owner[q], .count = want[q]};
        if (give[q] > 0)
            M->send[b++] = (rvs_mpi_peer){.rank = q, .first = gdisp[q], .count = give[q]};
    }
    M->info.send_cols = total;
    M->info.recv_ranks = M->nrecv;
    M->info.send_ranks = M->nsend;
    free(want);
    free(give);
    free(wdisp);
    free(gdisp);
    return st;
}

/* Post the exchange on x (vt) with the sent entries in buf (packed there first unless packed);
 * with peer, the pairs rvs_mpi_choose_exchange made peer pass a 'ready' instead of their entries,
 * which are on the GPU (a resident call). */
static rvs_status post(rvs_mpi_spmv *M, char *x, char *buf, rvs_vtype vt, int packed, int peer, rvs_error *err)
{
    const MPI_Datatype T = rvs_mpi_type(vt);
    const size_t vs = rvs_vtype_size(vt);
    int n = 0, rc = MPI_SUCCESS;
    M->peer_posted = peer && (M->peer_recv > 0 || M->peer_send > 0);
    for (int i = 0; i < M->nrecv && rc == MPI_SUCCESS; i++) /* receives first: no unexpected messages */
        rc = peer && M->recv[i].peer
                 ? MPI_Irecv(NULL, 0, MPI_BYTE, M->recv[i].rank, RVS_MPI_TAG_READY, M->comm, &M->req[n++])
                 : MPI_Irecv(x + (size_t)M->recv[i].first * vs, (int)M->recv[i].count, T, M->recv[i].rank,
                             RVS_MPI_TAG_HALO, M->comm, &M->req[n++]);
    if (rc != MPI_SUCCESS)
        return rvs_mpi_fail(err, rc, "MPI_Irecv");
    if (!packed) {
        const int64_t total = M->info.send_cols;
        if (vt == RVS_F64) {
#pragma omp parallel for schedule(static) if (total > RVS_OMP_MIN_WORK)
            for (int64_t k = 0; k < total; k++)
                ((double *)buf)[k] = ((const double *)x)[M->send_idx[k]];
        } else {
#pragma omp parallel for schedule(static) if (total > RVS_OMP_MIN_WORK)
            for (int64_t k = 0; k < total; k++)
                ((float *)buf)[k] = ((const float *)x)[M->send_idx[k]];
        }
    }
    for (int i = 0; i < M->nsend && rc == MPI_SUCCESS; i++)
        rc = peer && M->send[i].peer
                 ? MPI_Isend(NULL, 0, MPI_BYTE, M->send[i].rank, RVS_MPI_TAG_READY, M->comm, &M->req[n++])
                 : MPI_Isend(buf + (size_t)M->send[i].first * vs, (int)M->send[i].count, T, M->send[i].rank,
                             RVS_MPI_TAG_HALO, M->comm, &M->req[n++]);
    return rc == MPI_SUCCESS ? RVS_OK : rvs_mpi_fail(err, rc, "MPI_Isend");
}

rvs_status rvs_mpi_halo_post(rvs_mpi_spmv *M, int packed, rvs_error *err)
{
    return post(M, rvs_mpi_x(M), M->sendbuf, rvs_mpi_vtype(M), packed, packed, err);
}

rvs_status rvs_mpi_halo_exchange(rvs_mpi_spmv *M, double *x, rvs_error *err)
{
    double *buf = malloc((size_t)M->info.send_cols * sizeof *buf + 8);
    rvs_status st = buf ? post(M, (char *)x, (char *)buf, RVS_F64, 0, 0, err)
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld x entries",
                                   (long long)M->info.send_cols);
    if (st == RVS_OK)
        st = rvs_mpi_halo_wait(M, err);
    free(buf);
    return st;
}

rvs_status rvs_mpi_halo_wait(rvs_mpi_spmv *M, rvs_error *err)
{
    rvs_status st = RVS_OK;
    int rc = MPI_SUCCESS;
    /* GPU-to-GPU receives: each copy queued as soon as its sender is ready */
    for (int i = 0; M->peer_posted && M->peer_recv > 0 && rc == MPI_SUCCESS && st == RVS_OK;) {
        rc = MPI_Waitany(M->nrecv, M->req, &i, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || i == MPI_UNDEFINED)
            break;
        if (M->recv[i].peer)
            st = rvs_mpi_peer_copy(M, i, err);
    }
    if (rc == MPI_SUCCESS && st == RVS_OK)
        rc = MPI_Waitall(M->nrecv + M->nsend, M->req, MPI_STATUSES_IGNORE);
    return st != RVS_OK || rc == MPI_SUCCESS ? st : rvs_mpi_fail(err, rc, "MPI_Waitall");
}
