/* mpi_peer.c - the device-to-device exchange of resident calls: once, each sender offers each
 * receiver on its node the CUDA IPC handle of its packed sent entries (M->dsend) and where the
 * receiver's entries start in them, and the receiver opens it; per call the receiver copies its
 * entries GPU to GPU straight into its x, while its owned-column graph runs.
 *
 * Synchronisation, by 0-byte MPI messages: the sender syncs its gather (it did already, to stage
 * through the host) and sends 'ready'; the receiver queues its copy when 'ready' arrives, and
 * sends 'done' once its call's stream finished; the sender waits for every 'done' before its
 * next gather. An interprocess CUDA event would order the GPU work alone, but the receiver could
 * not tell this call's record of it from the last one's without a message anyway. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

enum { TAG_OFFER = RVS_MPI_TAG_PEER, TAG_REPLY, TAG_DONE = RVS_MPI_TAG_READY + 1, TAG_CLOSED };

/* What a sender tells a receiver once: its handle, where the receiver's entries start, its node,
 * and why it offers none ("" when it offers). */
typedef struct {
    unsigned char handle[RVS_GPU_IPC_BYTES];
    int64_t first;
    int32_t node, can;
    char why[160];
} offer;

/* The receiver's answer: 1 when it will copy GPU to GPU, else why not. */
typedef struct {
    int32_t ok;
    char why[160];
} reply;

/* The node of this rank: the lowest rank of M->comm on it. */
static rvs_status node_of(const rvs_mpi_spmv *M, int *node, rvs_error *err)
{
    MPI_Comm c;
    int rc = MPI_Comm_split_type(M->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
    if (rc != MPI_SUCCESS)
        return rvs_mpi_fail(err, rc, "MPI_Comm_split_type");
    *node = M->rank;
    rc = MPI_Allreduce(MPI_IN_PLACE, node, 1, MPI_INT, MPI_MIN, c);
    MPI_Comm_free(&c);
    return rc == MPI_SUCCESS ? RVS_OK : rvs_mpi_fail(err, rc, "MPI_Allreduce");
}

/* 1 when every item of the rank runs on the GPU (a CPU item reads the received x on the host). */
static int gpu_only(const rvs_mpi_spmv *M)
{
    for (int i = 0; M->gpu && i < M->E->n; i++)
        if (M->E->items[i].it->device != RVS_DEV_GPU)
            return 0;
    return M->gpu;
}

/* The offers this rank makes: why it cannot ("" when it can), and its handle. */
static void make_offer(rvs_mpi_spmv *M, rvs_mpi_exchange want, offer *o)
{
    rvs_error e;
    memset(o, 0, sizeof *o);
    if (want == RVS_MPI_EXCHANGE_HOST)
        snprintf(o->why, sizeof o->why, "--exchange host");
    else if (!M->gpu)
        snprintf(o->why, sizeof o->why, "rank %d runs on the CPU", M->rank);
    else if (rvs_gpu_ipc_export(o->handle, M->dsend, &e) != RVS_OK)
        snprintf(o->why, sizeof o->why, "rank %d cannot export its GPU buffer: %.100s", M->rank, e.msg);
    o->can = !o->why[0];
}

/* Receive i's answer to o from rank node's sender: open the handle, or why not. */
static void answer(rvs_mpi_spmv *M, int i, const offer *o, int node, reply *r)
{
    rvs_mpi_peer *p = &M->recv[i];
    rvs_error e;
    memset(r, 0, sizeof *r);
    if (!o->can)
        snprintf(r->why, sizeof r->why, "%s", o->why);
    else if (!gpu_only(M))
        snprintf(r->why, sizeof r->why, "rank %d runs parts on the CPU", M->rank);
    else if (o->node != node)
        snprintf(r->why, sizeof r->why, "ranks %d and %d are on different nodes", p->rank, M->rank);
    else if (rvs_gpu_ipc_open(&p->mapped, o->handle, &e) != RVS_OK)
        snprintf(r->why, sizeof r->why, "rank %d cannot open rank %d's GPU buffer: %.100s", M->rank, p->rank,
                 e.msg);
    r->ok = !r->why[0];
    p->peer = r->ok;
    p->src_first = o->first;
}

/* Every pair back to host (a failed choice): handles closed. */
static void all_host(rvs_mpi_spmv *M)
{
    for (int i = 0; i < M->nrecv; i++) {
        rvs_gpu_ipc_close(M->recv[i].mapped);
        M->recv[i].mapped = NULL;
        M->recv[i].peer = 0;
    }
    for (int i = 0; i < M->nsend; i++)
        M->send[i].peer = 0;
    M->peer_recv = M->peer_send = 0;
}

/* Offers out and in, then replies back (nonblocking both ways: pairs go both ways). */
static rvs_status negotiate(rvs_mpi_spmv *M, rvs_mpi_exchange want, int node, rvs_error *err)
{
    const int n = M->nrecv + M->nsend;
    offer *in = calloc((size_t)M->nrecv + 1, sizeof *in), *out = calloc((size_t)M->nsend + 1, sizeof *out);
    reply *ans = calloc((size_t)M->nrecv + 1, sizeof *ans), *back = calloc((size_t)M->nsend + 1, sizeof *back);
    rvs_status st = in && out && ans && back ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    int rc = MPI_SUCCESS, k = 0;
    for (int i = 0; i < M->nrecv && st == RVS_OK && rc == MPI_SUCCESS; i++)
        rc = MPI_Irecv(&in[i], sizeof *in, MPI_BYTE, M->recv[i].rank, TAG_OFFER, M->comm, &M->req[k++]);
    for (int i = 0; i < M->nsend && st == RVS_OK && rc == MPI_SUCCESS; i++) {
        make_offer(M, want, &out[i]);
        out[i].first = M->send[i].first;
        out[i].node = node;
        rc = MPI_Isend(&out[i], sizeof *out, MPI_BYTE, M->send[i].rank, TAG_OFFER, M->comm, &M->req[k++]);
    }
    if (rc == MPI_SUCCESS && st == RVS_OK)
        rc = MPI_Waitall(n, M->req, MPI_STATUSES_IGNORE);
    k = 0;
    for (int i = 0; i < M->nsend && st == RVS_OK && rc == MPI_SUCCESS; i++)
        rc = MPI_Irecv(&back[i], sizeof *back, MPI_BYTE, M->send[i].rank, TAG_REPLY, M->comm, &M->req[k++]);
    for (int i = 0; i < M->nrecv && st == RVS_OK && rc == MPI_SUCCESS; i++) {
        answer(M, i, &in[i], node, &ans[i]);
        rc = MPI_Isend(&ans[i], sizeof *ans, MPI_BYTE, M->recv[i].rank, TAG_REPLY, M->comm, &M->req[k++]);
    }
    if (rc == MPI_SUCCESS && st == RVS_OK)
        rc = MPI_Waitall(n, M->req, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS && st == RVS_OK)
        st = rvs_mpi_fail(err, rc, "the exchange's set-up");
    for (int i = 0; i < M->nrecv && st == RVS_OK; i++) {
        M->peer_recv += ans[i].ok;
        if (!ans[i].ok && !M->why[0])
            snprintf(M->why, sizeof M->why, "%s", ans[i].why);
    }
    for (int i = 0; i < M->nsend && st == RVS_OK; i++) {
        M->send[i].peer = back[i].ok;
        M->peer_send += back[i].ok;
        if (!back[i].ok && !M->why[0])
            snprintf(M->why, sizeof M->why, "%s", back[i].why);
    }
    free(in);
    free(out);
    free(ans);
    free(back);
    return st;
}

rvs_status rvs_mpi_choose_exchange(rvs_mpi_spmv *M, rvs_mpi_exchange want, rvs_error *err)
{
    int node = 0;
    rvs_status st = rvs_mpi_peer_settle(M, err); /* the last resident call's copies */
    if (st != RVS_OK)
        return st;
    all_host(M);
    M->why[0] = 0;
    M->exchange = want;
    if (!M->pend && !(M->pend = malloc(((size_t)M->nrecv + M->nsend + 1) * sizeof *M->pend)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    st = node_of(M, &node, err);
    if (st == RVS_OK)
        st = negotiate(M, want, node, err);
    if (st != RVS_OK)
        return st;
    /* with peer, the lowest rank with a pair that cannot says why; its exit ends the job */
    int bad = want == RVS_MPI_EXCHANGE_PEER && (M->peer_recv < M->nrecv || M->peer_send < M->nsend) ? M->rank
                                                                                                    : INT_MAX;
    const int rc = MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, M->comm);
    if (rc != MPI_SUCCESS)
        return rvs_mpi_fail(err, rc, "MPI_Allreduce");
    if (bad == INT_MAX)
        return RVS_OK;
    all_host(M);
    return bad == M->rank ? rvs_fail(err, RVS_ERR_NODEV, "--exchange peer: %s", M->why) : RVS_OK;
}

rvs_status rvs_mpi_peer_copy(rvs_mpi_spmv *M, int i, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(M->vt);
    const rvs_mpi_peer *p = &M->recv[i];
    return rvs_gpu_memcpy_d2d_async((char *)M->E->dx + (size_t)p->first * vs,
                                    (const char *)p->mapped + (size_t)p->src_first * vs, (size_t)p->count * vs,
                                    M->s1, err);
}

rvs_status rvs_mpi_peer_done(rvs_mpi_spmv *M, rvs_error *err)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < M->nrecv && rc == MPI_SUCCESS; i++)
        if (M->recv[i].peer)
            rc = MPI_Isend(NULL, 0, MPI_BYTE, M->recv[i].rank, TAG_DONE, M->comm, &M->pend[M->npend++]);
    for (int i = 0; i < M->nsend && rc == MPI_SUCCESS; i++)
        if (M->send[i].peer)
            rc = MPI_Irecv(NULL, 0, MPI_BYTE, M->send[i].rank, TAG_DONE, M->comm, &M->pend[M->npend++]);
    return rc == MPI_SUCCESS ? RVS_OK : rvs_mpi_fail(err, rc, "'done' of the GPU-to-GPU exchange");
}

rvs_status rvs_mpi_peer_settle(rvs_mpi_spmv *M, rvs_error *err)
{
    const int n = M->npend;
    M->npend = 0;
    const int rc = n ? MPI_Waitall(n, M->pend, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? RVS_OK : rvs_mpi_fail(err, rc, "MPI_Waitall");
}

void rvs_mpi_peer_free(rvs_mpi_spmv *M)
{
    /* the sender frees dsend (rvs_mpi_free) once every receiver has closed its mapping */
    rvs_mpi_peer_settle(M, NULL);
    for (int i = 0; M->recv && i < M->nrecv; i++) {
        rvs_gpu_ipc_close(M->recv[i].mapped);
        M->recv[i].mapped = NULL;
        if (M->recv[i].peer)
            MPI_Isend(NULL, 0, MPI_BYTE, M->recv[i].rank, TAG_CLOSED, M->comm, &M->pend[M->npend++]);
    }
    for (int i = 0; M->send && i < M->nsend; i++)
        if (M->send[i].peer)
            MPI_Irecv(NULL, 0, MPI_BYTE, M->send[i].rank, TAG_CLOSED, M->comm, &M->pend[M->npend++]);
    rvs_mpi_peer_settle(M, NULL);
    free(M->pend);
}

const char *rvs_mpi_exchange_name(const rvs_mpi_spmv *M)
{
    const int pairs = M->nrecv + M->nsend, peer = M->peer_recv + M->peer_send;
    return !pairs ? "-" : peer == pairs ? "peer" : peer ? "peer+host" : "host";
}

void rvs_mpi_exchange_pairs(const rvs_mpi_spmv *M, char *buf, size_t n)
{
    size_t used = 0;
    snprintf(buf, n, "-");
    for (int i = 0; i < M->nrecv && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%d %s", i ? ", " : "", M->recv[i].rank,
                                 M->recv[i].peer ? "peer" : "host");
}

const char *rvs_mpi_exchange_why(const rvs_mpi_spmv *M)
{
    return M->why;
}
