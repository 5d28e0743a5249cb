/* mpi_check.c - spmv-mpi's check, on every rank from its own rows, so that no rank keeps a copy
 * of the matrix for it and none holds all of x: y against A*x of the rank's rows summed in double
 * (with the row scales sum |a_ij x_j|) by spmv's rule, and the job's worst row on rank 0. When
 * every rank runs its rows in place (f64 CSR on the CPU), the reference is summed after the run,
 * row block by row block, from those rows and the x of the call; otherwise before the run, which
 * may give the rows back, from x exchanged once in double, and kept (16 bytes a row). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

#define CHECK_ROWS 65536 /* rows of y compared per block */

/* 1 when this rank's run reads its rows where they are: f64 CSR on the CPU for its parts (their
 * stream blocks too) and its received-column entries (whose CSR block takes H's arrays). */
static int runs_in_place(const rvs_mpi_spmv *M, const rvs_plan_options *po, rvs_format_id halo)
{
    int ok = po->mode == RVS_MODE_CPU && po->vtype == RVS_F64 && M->info.vtype == RVS_F64 &&
             po->fallback == RVS_FMT_CSR && (halo == RVS_FMT_CSR || halo == 0);
    for (int j = 0; ok && j < M->nparts; j++)
        ok = M->part_fmt[j] == 0 || M->part_fmt[j] == RVS_FMT_CSR;
    return ok;
}

/* The reference of the rank's rows before the run, from x (rounded to vt) exchanged in double. */
static rvs_status reference_now(rvs_mpi_spmv *M, const double *xd, uint64_t seed, rvs_vtype vt, rvs_error *err)
{
    const rvs_csr *A = &M->L.A, *H = &M->H;
    const int64_t rows = M->info.rows, cols = A->cols > M->info.owned_cols ? A->cols : M->info.owned_cols;
    double *x = malloc((size_t)cols * sizeof *x + 8), *hy = NULL;
    free(M->ref);
    free(M->scale);
    M->ref = malloc((size_t)rows * sizeof *M->ref + 8);
    M->scale = malloc((size_t)rows * sizeof *M->scale + 8);
    rvs_status st = x && M->ref && M->scale
                        ? RVS_OK
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the check's reference");
    if (st == RVS_OK)
        st = rvs_mpi_scatter_owned(M, xd, seed, vt, x, RVS_F64, err);
    if (st == RVS_OK)
        st = rvs_mpi_halo_exchange(M, x, err);
    if (st == RVS_OK && rows > 0) {
        rvs_spmv_reference(A, x, M->ref, M->scale);
        if (H->rows > 0 && !(hy = malloc(2 * (size_t)H->rows * sizeof *hy)))
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the check's reference");
    }
    if (st == RVS_OK && hy) { /* the received-column entries' sums added to their rows' */
        rvs_spmv_reference(H, x, hy, hy + H->rows);
        for (int64_t k = 0; k < H->rows; k++) {
            M->ref[M->far[k]] += hy[k];
            M->scale[M->far[k]] += hy[H->rows + k];
        }
    }
    free(hy);
    free(x);
    return st;
}

rvs_status rvs_mpi_check_prepare(rvs_mpi_spmv *M, rvs_plan_options *po, rvs_format_id halo, const double *xd,
                                 uint64_t seed, rvs_error *err)
{
    int all = 0, mine = runs_in_place(M, po, halo);
    const int rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, M->comm);
    if (rc != MPI_SUCCESS)
        return rvs_mpi_fail(err, rc, "MPI_Allreduce");
    if (all) { /* summed after the run: the runner must leave the rows where they are */
        po->consume = 0;
        return RVS_OK;
    }
    return reference_now(M, xd, seed, po->vtype, err);
}

/* rows [lo, lo + n) of A without a copy (row pointers not rebased: the reference reads them as
 * offsets into A's arrays). */
static rvs_csr rows_of(const rvs_csr *A, int64_t lo, int64_t n)
{
    rvs_csr V = *A;
    V.rows = n;
    V.rowptr = A->rowptr + lo;
    return V;
}

/* The received-column part i's block as a CSR (it takes H's arrays: rvs_mpi_halo_parts). */
static rvs_csr halo_csr(const rvs_stream *L, int i)
{
    const rvs_fmt *F = rvs_stream_block(L, i);
    rvs_csr C = {0};
    C.rows = F->rows;
    C.cols = F->cols;
    C.nnz = F->nnz;
    C.vtype = F->vtype;
    C.rowptr = rvs_fmt_array(F, "rowptr")->data;
    C.colind = rvs_fmt_array(F, "colind")->data;
    C.values = rvs_fmt_array(F, "values")->data;
    return C;
}

/* Reference of rows [lo, lo + n) after the run into ref, scale: the local matrix's rows, plus
 * the received-column parts' rows among them (parts' rows ascending). */
static void reference_block(const rvs_mpi_spmv *M, int64_t lo, int64_t n, double *ref, double *scale, double *tmp)
{
    const rvs_partition *P = &M->L.partition;
    const double *x = rvs_mpi_x((rvs_mpi_spmv *)M);
    const rvs_csr V = rows_of(&M->L.A, lo, n);
    rvs_spmv_reference(&V, x, ref, scale);
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        if (q->entries != RVS_ENTRIES_OFFDIAG)
            continue;
        const int64_t a = rvs_lower_bound_i64(q->rows, q->nrows, lo),
                      b = rvs_lower_bound_i64(q->rows, q->nrows, lo + n);
        const rvs_csr H = halo_csr(&M->L, i), W = rows_of(&H, a, b - a);
        rvs_spmv_reference(&W, x, tmp, tmp + n);
        for (int64_t k = a; k < b; k++) {
            ref[q->rows[k] - lo] += tmp[k - a];
            scale[q->rows[k] - lo] += tmp[n + k - a];
        }
    }
}

/* The rank's largest error of y against the reference, and its first local row (-1: no row). */
static rvs_status rank_worst(rvs_mpi_spmv *M, double tol, double *worst, int64_t *row, int *overflowed,
                             rvs_error *err)
{
    const rvs_vtype vt = rvs_mpi_vtype(M);
    const int64_t rows = M->info.rows;
    const void *y = rvs_mpi_y(M);
    *worst = 0;
    *row = -1;
    *overflowed = 0;
    if (rows == 0)
        return RVS_OK;
    if (!y || (!M->ref && (vt != RVS_F64 || M->L.A.vtype != RVS_F64)))
        return rvs_fail(err, RVS_ERR_ARG, "check: no y, or no reference (rvs_mpi_check_prepare)");
    /* per block: y as double (f32), and without a kept reference the block's own (and room for
     * the received-column rows' sums) */
    double *tmp = malloc(5 * (size_t)CHECK_ROWS * sizeof *tmp);
    if (!tmp)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int64_t lo = 0; lo < rows; lo += CHECK_ROWS) {
        const int64_t n = rows - lo < CHECK_ROWS ? rows - lo : CHECK_ROWS;
        const double *ref = M->ref ? M->ref + lo : tmp, *scale = M->ref ? M->scale + lo : tmp + n;
        const double *yd = (const double *)y + lo;
        double e = 0;
        int64_t at = -1;
        if (!M->ref)
            reference_block(M, lo, n, tmp, tmp + n, tmp + 2 * n);
        if (vt != RVS_F64) {
            rvs_y_to_double(tmp + 4 * n, (const float *)y + lo, n, vt);
            yd = tmp + 4 * n;
        }
        rvs_error ignored; /* past tol is told by e */
        rvs_spmv_check_ref(ref, scale, yd, n, vt, tol, &e, &at, &ignored);
        if (*row < 0 || e > *worst) {
            *worst = e;
            *row = lo + at;
            *overflowed = at >= 0 && isinf(scale[at]); /* no tolerance bounds it: said so */
        }
    }
    free(tmp);
    return RVS_OK;
}

rvs_status rvs_mpi_job_worst(MPI_Comm comm, const rvs_mpi_worst *mine,
                             int64_t (*global)(const void *, int, int64_t), const void *ctx, double tol,
                             double *max_err, int64_t *row, rvs_error *err)
{
    int rank = 0, nranks = 1, overflowed = 0;
    rvs_mpi_worst *all = NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    *max_err = 0;
    *row = -1;
    if (rank == 0 && !(all = malloc((size_t)nranks * sizeof *all)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    const int rc = MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rvs_mpi_fail(err, rc, "MPI_Gather");
    }
    for (int r = 0; rank == 0 && r < nranks; r++) { /* the largest error; ties: the first row */
        if (all[r].row < 0)
            continue;
        const int64_t g = global ? global(ctx, r, all[r].row) : all[r].row;
        if (*row < 0 || all[r].e > *max_err || (all[r].e == *max_err && all[r].e > 0 && g < *row)) {
            *max_err = all[r].e;
            *row = g;
            overflowed = all[r].overflowed;
        }
    }
    free(all);
    if (rank == 0 && *max_err > tol && overflowed)
        return rvs_fail(err, RVS_ERR_CHECK,
                        "check failed: row %lld: sum |a_ij x_j| overflows a double, so no "
                        "tolerance bounds y's error",
                        (long long)*row + 1);
    if (rank == 0 && *max_err > tol)
        return rvs_fail(err, RVS_ERR_CHECK, "check failed: row %lld: error %.3g > tolerance %.3g",
                        (long long)*row + 1, *max_err, tol);
    return RVS_OK;
}

/* Rank 0: the global row of rank r's local row i (rvs_mpi_job_worst). */
static int64_t global_row(const void *ctx, int r, int64_t i)
{
    return rvs_mpi_row(ctx, r, i);
}

rvs_status rvs_mpi_check(rvs_mpi_spmv *M, double tol, double *max_err, int64_t *row, rvs_error *err)
{
    rvs_mpi_worst mine;
    memset(&mine, 0, sizeof mine);
    rvs_status st = rank_worst(M, tol, &mine.e, &mine.row, &mine.overflowed, err);
    *max_err = 0;
    *row = -1;
    if (st != RVS_OK)
        return st;
    return rvs_mpi_job_worst(M->comm, &mine, global_row, M, tol, max_err, row, err);
}
