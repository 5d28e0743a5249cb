/* mpi_comm.c - messages of any size (MPI counts in int: big arrays go in 1 GiB pieces) and MPI
 * error codes as rvs_status */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

#define PIECE ((size_t)1 << 30)

rvs_status rvs_mpi_fail(rvs_error *err, int code, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", code);
    return rvs_fail(err, RVS_ERR_IO, "%s: %s", call, text);
}

rvs_status rvs_mpi_send_bytes(const void *buf, size_t n, int dest, int tag, MPI_Comm comm, rvs_error *err)
{
    const char *p = buf;
    do {
        const size_t k = n < PIECE ? n : PIECE;
        const int rc = MPI_Send(p, (int)k, MPI_BYTE, dest, tag, comm);
        if (rc != MPI_SUCCESS)
            return rvs_mpi_fail(err, rc, "MPI_Send");
        p += k;
        n -= k;
    } while (n > 0);
    return RVS_OK;
}

rvs_status rvs_mpi_recv_bytes(void *buf, size_t n, int src, int tag, MPI_Comm comm, rvs_error *err)
{
    char *p = buf;
    do {
        const size_t k = n < PIECE ? n : PIECE;
        const int rc = MPI_Recv(p, (int)k, MPI_BYTE, src, tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rvs_mpi_fail(err, rc, "MPI_Recv");
        p += k;
        n -= k;
    } while (n > 0);
    return RVS_OK;
}

rvs_status rvs_mpi_bcast_bytes(void *buf, size_t n, int root, MPI_Comm comm, rvs_error *err)
{
    char *p = buf;
    do {
        const size_t k = n < PIECE ? n : PIECE;
        const int rc = MPI_Bcast(p, (int)k, MPI_BYTE, root, comm);
        if (rc != MPI_SUCCESS)
            return rvs_mpi_fail(err, rc, "MPI_Bcast");
        p += k;
        n -= k;
    } while (n > 0);
    return RVS_OK;
}

rvs_status rvs_mpi_bcast_header(int64_t **h, int64_t *n, MPI_Comm comm, rvs_error *err)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    rvs_status st = rvs_mpi_bcast_bytes(n, sizeof *n, 0, comm, err);
    if (st == RVS_OK && rank != 0 && !(*h = malloc((size_t)(*n ? *n : 1) * sizeof **h)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    if (st == RVS_OK)
        st = rvs_mpi_bcast_bytes(*h, (size_t)*n * sizeof **h, 0, comm, err);
    return st;
}
