/* test_mpi_check.c - spmv-mpi's check on every rank from its own rows (engine/mpi_check.c), on
 * any number of ranks (tests/programs/spmv-mpi.sh runs it under mpirun; alone it is one rank): the reference
 * summed after the run from the rows (f64 CSR on the CPU) and the one kept from before the run
 * (ELLR, f32) pass where the serial check passes, on square, wide and tall matrices handed out in
 * place (Algorithm 2) and copied out (Algorithm 3, more parts than ranks); y gathered agrees with
 * the serial product of the x drawn from the seed; a wrong or NaN entry of y on any rank fails
 * the check on rank 0 with its global row. */
#include <math.h>
#include <string.h>
#include "mpi_test.h"
#include "mpi_engine.h"

static int rank, nranks;

/* Rank 0: the stream of a random rows x cols matrix partitioned by alg into k parts, and a copy
 * of its matrix. */
static void make_stream(rvs_stream *S, rvs_csr *copy, int **rank_of, int64_t rows, int64_t cols, rvs_alg alg, int k)
{
    rvs_error e;
    double cp[16];
    for (int i = 0; i < k; i++)
        cp[i] = 1 + i % 2;
    memset(S, 0, sizeof *S);
    CHECK_OK(rvs_test_random_csr(&S->A, rows, cols, 0.03, 1, (unsigned)(rows * 7 + cols)), &e);
    CHECK_OK(rvs_csr_copy(copy, &S->A, &e), &e);
    CHECK_OK(rvs_partition_compute(&S->partition, &S->A, alg, k, cp, NULL, 0, &e), &e);
    S->has_partition = 1;
    *rank_of = malloc((size_t)k * sizeof **rank_of);
    CHECK_OK(rvs_mpi_assign(&S->partition, NULL, nranks, *rank_of, &e), &e);
}

/* Rank 0: y gathered (rows values). */
static double *gather(rvs_mpi_spmv *M, int64_t rows)
{
    rvs_error e;
    double *y = rank == 0 ? malloc((size_t)rows * sizeof *y + 8) : NULL;
    CHECK_OK(rvs_mpi_gather_y(M, y, &e), &e);
    return y;
}

/* y of this rank at its local row i set to v (as the plan's type). */
static void set_y(rvs_mpi_spmv *M, int64_t i, double v)
{
    if (rvs_mpi_vtype(M) == RVS_F64)
        ((double *)rvs_mpi_y(M))[i] = v;
    else
        ((float *)rvs_mpi_y(M))[i] = (float)v;
}

/* The check after y of the last rank with rows is spoiled at its middle row (by v); rank 0: the
 * row the check names is the one the gathered y shows changed. */
static void spoiled(rvs_mpi_spmv *M, const double *before, int64_t rows, double v, double tol)
{
    rvs_mpi_info I;
    rvs_error e;
    double err = 0;
    int64_t row = -1, want = -1;
    rvs_mpi_get_info(M, &I);
    int last = I.rows > 0 ? rank : -1;
    MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (last < 0)
        return;
    const double keep = rank == last ? (rvs_mpi_vtype(M) == RVS_F64 ? ((double *)rvs_mpi_y(M))[I.rows / 2]
                                                                    : ((float *)rvs_mpi_y(M))[I.rows / 2])
                                     : 0;
    if (rank == last)
        set_y(M, I.rows / 2, isnan(v) ? v : keep + v);
    double *y = gather(M, rows);
    for (int64_t i = 0; rank == 0 && i < rows && want < 0; i++)
        if (!(y[i] == before[i]))
            want = i;
    const rvs_status st = rvs_mpi_check(M, tol, &err, &row, &e);
    if (rank == 0) {
        CHECKF(st == RVS_ERR_CHECK, "status %d after y spoiled by %g on rank %d", (int)st, v, last);
        CHECKF(row == want && want >= 0, "check names row %lld, y changed at %lld", (long long)row,
               (long long)want);
        CHECKF(err > tol && (!isnan(v) || isinf(err)), "error %g", err);
        CHECKF(strstr(e.msg, "check failed: row") != NULL, "message: %s", e.msg);
    } else {
        CHECK(st == RVS_OK);
    }
    if (rank == last)
        set_y(M, I.rows / 2, keep);
    free(y);
}

/* One case: the matrix handed out, checked both ways, spoiled. */
static void run_case(int64_t rows, int64_t cols, rvs_alg alg, int k, rvs_format_id fmt, rvs_vtype vt)
{
    const uint64_t seed = 5;
    const double tol = vt == RVS_F64 ? 1e-10 : 1e-4;
    rvs_stream S;
    rvs_csr A = {0};
    rvs_mpi_spmv *M = NULL;
    rvs_engine_devices dev;
    rvs_plan_options po;
    rvs_error e;
    int *rank_of = NULL;
    double err = 0;
    int64_t row = -1;
    memset(&S, 0, sizeof S);
    if (rank == 0)
        make_stream(&S, &A, &rank_of, rows, cols, alg, k);
    CHECK_OK(rvs_mpi_setup(&M, rank == 0 ? &S : NULL, rank_of, MPI_COMM_WORLD, 1, NULL, &e), &e);
    rvs_test_mpi_cpu(&dev, &po, vt, fmt);
    CHECK_OK(rvs_mpi_check_prepare(M, &po, RVS_FMT_CSR, NULL, seed, &e), &e);
    CHECK(po.consume == !(fmt == RVS_FMT_CSR && vt == RVS_F64)); /* the rows stay for a check after */
    CHECK_OK(rvs_mpi_prepare(M, &dev, &po, RVS_FMT_CSR, &e), &e);
    CHECK_OK(rvs_mpi_scatter_x(M, NULL, seed, &e), &e);
    rvs_mpi_times t;
    CHECK_OK(rvs_mpi_call(M, 0, 1, &t, &e), &e);
    const rvs_status st = rvs_mpi_check(M, tol, &err, &row, &e);
    CHECKF(st == RVS_OK, "rank %d: %s", rank, e.msg);
    double *y = gather(M, rows);
    if (rank == 0) { /* the serial check of the same x, drawn whole */
        double *xd = malloc((size_t)cols * sizeof *xd + 8), serr = 0;
        int64_t srow = -1;
        rvs_fill_x(NULL, xd, cols, vt, seed);
        CHECK_OK(rvs_spmv_check(&A, xd, y, tol, &serr, &srow, &e), &e);
        CHECKF(err <= tol && fabs(err - serr) <= tol, "job error %g, serial %g", err, serr);
        free(xd);
    }
    spoiled(M, y, rows, 1.0, tol);
    spoiled(M, y, rows, NAN, tol);
    free(y);
    rvs_mpi_free(M);
    rvs_stream_free(&S);
    rvs_csr_free(&A);
    free(rank_of);
}

int main(int argc, char **argv)
{
    rvs_test_mpi_init(&argc, &argv, &rank, &nranks);
    static const rvs_format_id fmts[] = {RVS_FMT_CSR, RVS_FMT_ELLR, RVS_FMT_CSR};
    static const rvs_vtype vts[] = {RVS_F64, RVS_F64, RVS_F32};
    for (int v = 0; v < 3; v++) {
        run_case(600, 600, RVS_ALG_NNZ, nranks, fmts[v], vts[v]);     /* in place */
        run_case(600, 600, RVS_ALG_PMF, nranks + 1, fmts[v], vts[v]); /* copied out */
        run_case(300, 457, RVS_ALG_PMF, nranks + 1, fmts[v], vts[v]); /* wide */
        run_case(457, 300, RVS_ALG_NNZ, nranks, fmts[v], vts[v]);     /* tall */
    }
    return rvs_test_mpi_done(rank);
}
