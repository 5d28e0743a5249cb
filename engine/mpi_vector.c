/* mpi_vector.c - x handed out from rank 0 to the ranks that own its entries (their rows' columns
 * in their row order, then their columns past the last row), from an array or drawn from the
 * seed rank by rank (no array of all of x then), and y collected on rank 0 by global row */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"
#include "rvs_omp.h"

/* Rank 0: rank r's owned x entries from xd (or drawn from seed), rounded to round, into buf (vt). */
static void owned_of(const rvs_mpi_spmv *M, int r, const double *xd, uint64_t seed, rvs_vtype round, void *buf,
                     rvs_vtype vt)
{
    const int64_t rows = M->info.global_rows, cols = M->info.global_cols;
    const int64_t n = M->rank_off[r + 1] - M->rank_off[r];
    int64_t first, count;
    rvs_mpi_extra_cols(rows, cols, M->nranks, r, &first, &count);
#pragma omp parallel for schedule(static) if (n + count > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < n + count; i++) {
        const int64_t j = i < n ? rvs_mpi_row(M, r, i) : first + i - n;
        const double v = rvs_mpi_x_value(xd, seed, cols, round, j);
        if (vt == RVS_F64)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
    }
}

rvs_status rvs_mpi_scatter_owned(rvs_mpi_spmv *M, const double *xd, uint64_t seed, rvs_vtype round, void *dst,
                                 rvs_vtype vt, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(vt);
    rvs_status st = RVS_OK;
    if (M->rank != 0)
        return rvs_mpi_recv_bytes(dst, (size_t)M->info.owned_cols * vs, 0, RVS_MPI_TAG_VEC, M->comm, err);
    int64_t most = 0;
    for (int r = 1; r < M->nranks; r++) {
        int64_t first, count;
        rvs_mpi_extra_cols(M->info.global_rows, M->info.global_cols, M->nranks, r, &first, &count);
        const int64_t n = M->rank_off[r + 1] - M->rank_off[r] + count;
        most = n > most ? n : most;
    }
    void *buf = malloc((size_t)(most + 1) * vs);
    if (!buf)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld x entries", (long long)most);
    if (dst)
        owned_of(M, 0, xd, seed, round, dst, vt);
    for (int r = 1; r < M->nranks && st == RVS_OK; r++) {
        int64_t first, count;
        rvs_mpi_extra_cols(M->info.global_rows, M->info.global_cols, M->nranks, r, &first, &count);
        owned_of(M, r, xd, seed, round, buf, vt);
        st = rvs_mpi_send_bytes(buf, (size_t)(M->rank_off[r + 1] - M->rank_off[r] + count) * vs, r, RVS_MPI_TAG_VEC,
                                M->comm, err);
    }
    free(buf);
    return st;
}

rvs_status rvs_mpi_scatter_x(rvs_mpi_spmv *M, const double *xd, uint64_t seed, rvs_error *err)
{
    const rvs_vtype vt = rvs_mpi_vtype(M);
    return rvs_mpi_scatter_owned(M, xd, seed, vt, rvs_mpi_x(M), vt, err);
}

rvs_status rvs_mpi_gather_y(rvs_mpi_spmv *M, double *yd, rvs_error *err)
{
    const rvs_vtype vt = rvs_mpi_vtype(M);
    const size_t vs = rvs_vtype_size(vt);
    const int64_t mine = M->info.rows;
    if (M->rank != 0)
        return rvs_mpi_send_bytes(rvs_mpi_y(M), (size_t)mine * vs, 0, RVS_MPI_TAG_VEC, M->comm, err);
    int64_t most = 0;
    for (int r = 0; r < M->nranks; r++)
        most = M->rank_off[r + 1] - M->rank_off[r] > most ? M->rank_off[r + 1] - M->rank_off[r] : most;
    void *buf = malloc((size_t)(most + 1) * vs);
    rvs_status st = buf ? RVS_OK
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld y entries", (long long)most);
    for (int r = 0; r < M->nranks && st == RVS_OK; r++) {
        const int64_t n = M->rank_off[r + 1] - M->rank_off[r];
        const void *y = r == 0 ? rvs_mpi_y(M) : buf;
        if (r > 0)
            st = rvs_mpi_recv_bytes(buf, (size_t)n * vs, r, RVS_MPI_TAG_VEC, M->comm, err);
        for (int64_t i = 0; i < n && st == RVS_OK; i++)
            yd[rvs_mpi_row(M, r, i)] = vt == RVS_F64 ? ((const double *)y)[i] : ((const float *)y)[i];
    }
    free(buf);
    return st;
}
