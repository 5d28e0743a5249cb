/* test_mpi_grid.c - SpMV in the 2-D layout (engine/mpi_grid*.c) on any number of ranks
 * (tests/programs/spmv-mpi.sh runs it under mpirun on 2, 4 and 6; alone it is one rank): for
 * every grid R x C of the job (R * C = ranks), square, wide and tall random matrices, a diagonal
 * one (off-diagonal blocks empty), one with fewer rows than R or columns than C (ranks without
 * rows or x), and one without entries, in f64 and f32, CSR, ELLR and the advisor's choice: y
 * gathered from a y poisoned with NaN agrees with CSparse's product, the check passes, the volume
 * the ranks say they move is the grid's, and a wrong or NaN entry of y fails the check on rank 0
 * with its global row; the same with rows and columns permuted at random (--grid-permute). Also
 * the grid's shape and cut rules alone. */
#include <math.h>
#include <string.h>
#include "mpi_grid_internal.h"
#include "mpi_test.h"

static int rank, nranks;

/* The rules that need no MPI: shapes, pieces, cuts. */
static void test_rules(void)
{
    static const int k[] = {1, 2, 4, 6, 7, 9, 12, 16, 30}, want_r[] = {1, 1, 2, 2, 1, 3, 3, 4, 5};
    for (int i = 0; i < 9; i++) {
        int R, C;
        rvs_mpi_grid_shape(k[i], &R, &C);
        CHECKF(R == want_r[i] && R * C == k[i] && R <= C, "%d ranks: %d x %d", k[i], R, C);
    }
    int64_t f, n, at = 0;
    for (int p = 0; p < 4; p++) { /* 10 in 4 pieces: 2 3 2 3, contiguous */
        rvs_mpi_grid_piece(10, 4, p, &f, &n);
        CHECK(f == at && n == (p % 2 ? 3 : 2));
        at += n;
    }
    /* rows of 1, 1, 1, 9, 0, 4 entries: two blocks cut where 8 entries are reached */
    const int64_t prefix[] = {0, 1, 2, 3, 12, 12, 16}, none[] = {0, 0, 0, 0, 0};
    int64_t cut[4];
    rvs_mpi_grid_cut(prefix, 6, 2, cut);
    CHECKF(cut[0] == 0 && cut[1] == 4 && cut[2] == 6, "cut %lld %lld %lld", (long long)cut[0], (long long)cut[1],
           (long long)cut[2]);
    rvs_mpi_grid_cut(prefix, 6, 3, cut); /* targets 5 and 10: both after row 4's 9 entries */
    CHECK(cut[1] == 4 && cut[2] == 4 && cut[3] == 6);
    rvs_mpi_grid_cut(none, 4, 2, cut); /* no entries: equal rows */
    CHECK(cut[1] == 2 && cut[2] == 4);
}

/* A rows x cols matrix of kind 0 random, 1 diagonal, 2 without entries. */
static void make_matrix(rvs_csr *A, int kind, int64_t rows, int64_t cols, unsigned seed)
{
    rvs_error e;
    if (kind == 0) {
        CHECK_OK(rvs_test_random_csr(A, rows, cols, 0.03, 1, seed), &e);
        return;
    }
    const int64_t d = kind == 1 ? (rows < cols ? rows : cols) : 0;
    CHECK_OK(rvs_csr_alloc(A, rows, cols, d, RVS_F64, &e), &e);
    for (int64_t i = 0; i < rows; i++) {
        A->rowptr[i + 1] = A->rowptr[i] + (i < d);
        if (i < d) {
            A->colind[i] = (int32_t)i;
            ((double *)A->values)[i] = 1.0 + (double)i / 8;
        }
    }
}

/* The check fails on rank 0 at the global row of the entry of y spoiled by v on the last rank
 * that holds a piece of y. */
static void spoiled(rvs_mpi_grid *G, double v, double tol)
{
    rvs_error e;
    double err = 0;
    int64_t row = -1, want;
    int last = G->y_n > 0 ? rank : -1;
    MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (last < 0)
        return;
    want = G->y_first + G->y_n / 2;
    MPI_Bcast(&want, 1, MPI_INT64_T, last, MPI_COMM_WORLD);
    if (rank == 0) /* a row of the permuted matrix: the check names A's */
        want = rvs_mpi_grid_row_old(G, want);
    double keep = 0;
    if (rank == last) {
        const int64_t i = G->y_n / 2;
        keep = G->vt == RVS_F64 ? ((double *)G->ymine)[i] : ((float *)G->ymine)[i];
        if (G->vt == RVS_F64)
            ((double *)G->ymine)[i] = isnan(v) ? v : keep + v;
        else
            ((float *)G->ymine)[i] = (float)(isnan(v) ? v : keep + v);
    }
    const rvs_status st = rvs_mpi_grid_check(G, tol, &err, &row, &e);
    if (rank == 0) {
        CHECKF(st == RVS_ERR_CHECK, "status %d after y spoiled by %g on rank %d", (int)st, v, last);
        CHECKF(row == want, "check names row %lld, y spoiled at %lld", (long long)row, (long long)want);
        CHECKF(strstr(e.msg, "check failed: row") != NULL, "message: %s", e.msg);
    } else {
        CHECK(st == RVS_OK);
    }
    if (rank == last) {
        if (G->vt == RVS_F64)
            ((double *)G->ymine)[G->y_n / 2] = keep;
        else
            ((float *)G->ymine)[G->y_n / 2] = (float)keep;
    }
}

/* Rank 0: y against CSparse's product of the x drawn from seed (rounded to vt), to tol of the
 * largest |entry| (sums run in another order). */
static void against_csparse(const rvs_csr *A, const double *y, rvs_vtype vt, uint64_t seed, const char *what)
{
    double *x = malloc((size_t)A->cols * sizeof *x + 8), *ref = malloc((size_t)A->rows * sizeof *ref + 8);
    const double tol = vt == RVS_F64 ? 1e-12 : 1e-5;
    double most = 1, diff = 0;
    rvs_fill_x(NULL, x, A->cols, vt, seed);
    rvs_test_csparse_product(A, x, ref);
    for (int64_t i = 0; i < A->rows; i++) {
        most = fabs(ref[i]) > most ? fabs(ref[i]) : most;
        diff = fabs(y[i] - ref[i]) > diff || isnan(y[i]) ? (isnan(y[i]) ? INFINITY : fabs(y[i] - ref[i])) : diff;
    }
    CHECKF(diff <= tol * most, "%s: y differs from CSparse's by %g", what, diff);
    free(x);
    free(ref);
}

/* One case on an R x C grid: handed out, run from a poisoned y, checked, gathered, spoiled. */
static void run_case(int R, int kind, int64_t rows, int64_t cols, rvs_format_id fmt, rvs_vtype vt, int permute)
{
    const int C = nranks / R;
    const uint64_t seed = 3;
    const double tol = vt == RVS_F64 ? 1e-10 : 1e-4;
    char what[96];
    rvs_csr A = {0}, copy = {0};
    rvs_mpi_grid *G = NULL;
    rvs_engine_devices dev;
    rvs_plan_options po;
    rvs_mpi_times t;
    rvs_mpi_info I;
    rvs_error e;
    double err = 0;
    int64_t row = -1;
    snprintf(what, sizeof what, "%dx%d, kind %d, %lldx%lld, format %d, %s%s", R, C, kind, (long long)rows,
             (long long)cols, (int)fmt, vt == RVS_F64 ? "f64" : "f32", permute ? ", permuted" : "");
    if (rank == 0) {
        make_matrix(&A, kind, rows, cols, (unsigned)(rows * 7 + cols));
        CHECK_OK(rvs_csr_copy(&copy, &A, &e), &e);
    }
    CHECK_OK(rvs_mpi_grid_setup(&G, rank == 0 ? &A : NULL, R, C, MPI_COMM_WORLD, 1, permute, 11, &e), &e);
    rvs_test_mpi_cpu(&dev, &po, vt, fmt);
    CHECK_OK(rvs_mpi_grid_check_prepare(G, vt, NULL, seed, &e), &e);
    CHECK_OK(rvs_mpi_grid_prepare(G, &dev, &po, &e), &e);
    CHECK_OK(rvs_mpi_grid_scatter_x(G, NULL, seed, &e), &e);
    CHECK_OK(rvs_mpi_grid_call(G, 0, 0, &t, &e), &e);
    CHECK_OK(rvs_mpi_grid_call(G, 0, 1, &t, &e), &e); /* from NaN: every entry of y is written */
    const rvs_status st = rvs_mpi_grid_check(G, tol, &err, &row, &e);
    CHECKF(st == RVS_OK, "%s: rank %d: %s", what, rank, e.msg);
    rvs_mpi_grid_get_info(G, &I);
    int64_t moved[2] = {I.send_cols, I.recv_cols};
    MPI_Allreduce(MPI_IN_PLACE, moved, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECKF(moved[0] == moved[1] && moved[0] == (R - 1) * cols + (C - 1) * rows, "%s: moved %lld, received %lld",
           what, (long long)moved[0], (long long)moved[1]);
    CHECK(I.recv_ranks == R + C - 2);
    double *y = rank == 0 ? malloc((size_t)rows * sizeof *y + 8) : NULL;
    CHECK_OK(rvs_mpi_grid_gather_y(G, y, &e), &e);
    if (rank == 0)
        against_csparse(&copy, y, vt, seed, what);
    spoiled(G, 1.0, tol);
    spoiled(G, NAN, tol);
    free(y);
    rvs_mpi_grid_free(G);
    rvs_csr_free(&A);
    rvs_csr_free(&copy);
}

int main(int argc, char **argv)
{
    rvs_test_mpi_init(&argc, &argv, &rank, &nranks);
    if (rank == 0)
        test_rules();
    for (int R = 1; R <= nranks; R++) { /* every grid of the job */
        if (nranks % R)
            continue;
        run_case(R, 0, 600, 600, RVS_FMT_CSR, RVS_F64, 0);
        run_case(R, 0, 600, 600, RVS_FMT_ELLR, RVS_F64, 0);
        run_case(R, 0, 600, 600, RVS_FMT_CSR, RVS_F32, 0);
        run_case(R, 0, 300, 457, 0, RVS_F64, 0);            /* wide, the advisor's formats */
        run_case(R, 0, 457, 300, RVS_FMT_CSR, RVS_F32, 0);  /* tall */
        run_case(R, 1, 40, 40, RVS_FMT_CSR, RVS_F64, 0);    /* diagonal: blocks off it empty */
        run_case(R, 1, 2, 3, RVS_FMT_CSR, RVS_F64, 0);      /* fewer rows than R, columns than C */
        run_case(R, 2, 7, 5, RVS_FMT_CSR, RVS_F32, 0);      /* no entries */
        run_case(R, 0, 600, 600, RVS_FMT_CSR, RVS_F64, 1);  /* permuted: symmetric */
        run_case(R, 0, 300, 457, RVS_FMT_ELLR, RVS_F32, 1); /* permuted: rows and columns apart */
        run_case(R, 1, 40, 40, RVS_FMT_CSR, RVS_F64, 1);
    }
    return rvs_test_mpi_done(rank);
}
