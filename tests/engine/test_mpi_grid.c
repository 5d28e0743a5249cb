/* test_mpi_grid.c - SpMV in the 2-D layout (engine/mpi_grid*.c) on any number of ranks
 * (tests/programs/spmv-mpi.sh runs it under mpirun on 2, 4 and 6; alone it is one rank): for
 * every grid R x C of the job (R * C = ranks), square, wide and tall random matrices, a diagonal
 * one (off-diagonal blocks empty), one with fewer rows than R or columns than C (ranks without
 * rows or x), and one without entries, in f64 and f32, CSR, ELLR and the advisor's choice: y
 * gathered from a y poisoned with NaN agrees with CSparse's product, the check passes, the volume
 * the ranks say they move is the grid's, and a wrong or NaN entry of y fails the check on rank 0
 * with its global row; the same with rows and columns permuted at random (--grid-permute). Also
 * the grid's shape and cut rules alone. Resident calls on CPU ranks are host calls (nothing
 * goes to a GPU), and resident 3 is refused. Where every rank has a GPU (each on the one spmv-mpi
 * gives it), resident calls on every grid: the first one puts the host pieces on the GPU, one
 * with resident 1 leaves the host's y piece alone, x changed on the GPU between calls, and y of
 * resident 2 from a poisoned y agrees with CSparse's and passes the check; without GPUs that
 * part is skipped, not the test. */
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

/* A matrix of kind made on rank 0 (its copy into *copy there) handed out on an R x C grid. */
static rvs_mpi_grid *hand_out(int R, int kind, int64_t rows, int64_t cols, int permute, rvs_csr *copy)
{
    rvs_csr A = {0};
    rvs_mpi_grid *G = NULL;
    rvs_error e;
    if (rank == 0) {
        make_matrix(&A, kind, rows, cols, (unsigned)(rows * 7 + cols));
        CHECK_OK(rvs_csr_copy(copy, &A, &e), &e);
    }
    CHECK_OK(rvs_mpi_grid_setup(&G, rank == 0 ? &A : NULL, R, nranks / R, MPI_COMM_WORLD, 1, permute, 11, &e), &e);
    rvs_csr_free(&A);
    return G;
}

/* One case on an R x C grid: handed out, run from a poisoned y, checked, gathered, spoiled. */
static void run_case(int R, int kind, int64_t rows, int64_t cols, rvs_format_id fmt, rvs_vtype vt, int permute)
{
    const int C = nranks / R;
    const uint64_t seed = 3;
    const double tol = vt == RVS_F64 ? 1e-10 : 1e-4;
    char what[96];
    rvs_csr copy = {0};
    rvs_engine_devices dev;
    rvs_plan_options po;
    rvs_mpi_times t;
    rvs_mpi_info I;
    rvs_error e;
    double err = 0;
    int64_t row = -1;
    snprintf(what, sizeof what, "%dx%d, kind %d, %lldx%lld, format %d, %s%s", R, C, kind, (long long)rows,
             (long long)cols, (int)fmt, vt == RVS_F64 ? "f64" : "f32", permute ? ", permuted" : "");
    rvs_mpi_grid *G = hand_out(R, kind, rows, cols, permute, &copy);
    rvs_test_mpi_cpu(&dev, &po, vt, fmt);
    CHECK_OK(rvs_mpi_grid_check_prepare(G, vt, NULL, seed, &e), &e);
    CHECK_OK(rvs_mpi_grid_prepare(G, &dev, &po, &e), &e);
    CHECK_OK(rvs_mpi_grid_scatter_x(G, NULL, seed, &e), &e);
    CHECK_OK(rvs_mpi_grid_call(G, 0, 0, &t, &e), &e);
    CHECK_OK(rvs_mpi_grid_call(G, 0, 1, &t, &e), &e); /* from NaN: every entry of y is written */
    rvs_status st = rvs_mpi_grid_check(G, tol, &err, &row, &e);
    CHECKF(st == RVS_OK, "%s: rank %d: %s", what, rank, e.msg);
    /* resident calls on CPU ranks are host calls (nothing goes up); resident 3 is no such call */
    CHECK_OK(rvs_mpi_grid_upload(G, &e), &e);
    CHECK_OK(rvs_mpi_grid_call(G, 2, 1, &t, &e), &e);
    st = rvs_mpi_grid_check(G, tol, &err, &row, &e);
    CHECKF(st == RVS_OK && !G->dxmine && !G->stage, "%s: rank %d: resident on the CPU: %s", what, rank, e.msg);
    st = rvs_mpi_grid_call(G, 3, 0, &t, &e);
    CHECKF(st == RVS_ERR_ARG && strcmp(e.msg, "resident 3: not 0, 1 or 2") == 0, "%s: resident 3: %d %s", what,
           (int)st, e.msg);
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
    rvs_csr_free(&copy);
}

/* x from seed written into the rank's piece on the GPU, as a solver's update there would. */
static void x_on_gpu(rvs_mpi_grid *G, uint64_t seed)
{
    rvs_error e;
    CHECK_OK(rvs_mpi_grid_scatter_x(G, NULL, seed, &e), &e); /* the host piece, then up */
    if (G->gpu) {
        CHECK_OK(rvs_gpu_memcpy_h2d(G->dxmine, G->xmine, (size_t)G->x_n * rvs_vtype_size(G->vt), &e), &e);
        CHECK_OK(rvs_gpu_sync(&e), &e);
    }
}

/* Resident calls on an R x C grid of GPU ranks: the y of resident 2 (from NaN) against CSparse's
 * for x drawn on the host and for x changed on the GPU, the check, and resident 1's host y. */
static void run_resident(int R, int kind, int64_t rows, int64_t cols, rvs_format_id fmt, rvs_vtype vt)
{
    const int C = nranks / R;
    const double tol = vt == RVS_F64 ? 1e-10 : 1e-4;
    char what[96];
    rvs_csr copy = {0};
    rvs_engine_devices dev;
    rvs_plan_options po;
    rvs_mpi_times t;
    rvs_error e;
    double err = 0;
    int64_t row = -1;
    snprintf(what, sizeof what, "resident, %dx%d, kind %d, %lldx%lld, format %d, %s", R, C, kind, (long long)rows,
             (long long)cols, (int)fmt, vt == RVS_F64 ? "f64" : "f32");
    rvs_mpi_grid *G = hand_out(R, kind, rows, cols, 0, &copy);
    rvs_test_mpi_cpu(&dev, &po, vt, fmt);
    rvs_engine_devices_probe(&dev, 1, 1);
    po.mode = RVS_MODE_GPU;
    CHECK_OK(rvs_mpi_grid_check_prepare(G, vt, NULL, 5, &e), &e);
    CHECK_OK(rvs_mpi_grid_prepare(G, &dev, &po, &e), &e);
    CHECKF(G->gpu == (G->E != NULL), "%s: rank %d: a runner %d, on the GPU %d", what, rank, G->E != NULL, G->gpu);
    CHECK_OK(rvs_mpi_grid_scatter_x(G, NULL, 5, &e), &e);
    CHECK_OK(rvs_mpi_grid_call(G, 1, 0, &t, &e), &e); /* the first: the host pieces go up */
    CHECK_OK(rvs_mpi_grid_call(G, 2, 1, &t, &e), &e); /* from NaN: every entry written on the GPU */
    const rvs_status st = rvs_mpi_grid_check(G, tol, &err, &row, &e);
    CHECKF(st == RVS_OK, "%s: rank %d: %s", what, rank, e.msg);
    CHECKF(!G->gpu || t.gpu_ms > 0, "%s: rank %d: gpu_ms %g", what, rank, t.gpu_ms);
    double *y = rank == 0 ? malloc((size_t)rows * sizeof *y + 8) : NULL;
    CHECK_OK(rvs_mpi_grid_gather_y(G, y, &e), &e);
    if (rank == 0)
        against_csparse(&copy, y, vt, 5, what);
    /* a solver's steps: x changed on the GPU, resident 1 from NaN leaves the host's y piece alone */
    x_on_gpu(G, 9);
    CHECK_OK(rvs_mpi_grid_call(G, 1, 1, &t, &e), &e);
    if (G->gpu && G->y_n > 0)
        CHECKF(G->vt == RVS_F64 ? isnan(((double *)G->ymine)[0]) : isnan(((float *)G->ymine)[0]),
               "%s: rank %d: resident 1 wrote the host's y", what, rank);
    CHECK_OK(rvs_mpi_grid_call(G, 2, 1, &t, &e), &e);
    CHECK_OK(rvs_mpi_grid_gather_y(G, y, &e), &e);
    if (rank == 0)
        against_csparse(&copy, y, vt, 9, what);
    CHECK_OK(rvs_mpi_grid_call(G, 0, 1, &t, &e), &e); /* a host call after: the host pieces (x from 9) */
    CHECK_OK(rvs_mpi_grid_gather_y(G, y, &e), &e);
    if (rank == 0)
        against_csparse(&copy, y, vt, 9, what);
    free(y);
    rvs_mpi_grid_free(G);
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
    int gpus = rvs_gpu_count() > 0;
    MPI_Allreduce(MPI_IN_PLACE, &gpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!gpus) {
        if (rank == 0)
            printf("resident calls: no GPU on every rank: skipped\n");
        return rvs_test_mpi_done(rank);
    }
    int local_rank, local_size, threads, device;
    rvs_error e;
    CHECK_OK(rvs_mpi_node(MPI_COMM_WORLD, 1, &local_rank, &local_size, &threads, &device, &e), &e); /* its GPU */
    for (int R = 1; R <= nranks; R++) {
        if (nranks % R)
            continue;
        run_resident(R, 0, 600, 600, RVS_FMT_CSR, RVS_F64);
        run_resident(R, 0, 600, 600, 0, RVS_F32);            /* the advisor's formats */
        run_resident(R, 0, 300, 457, RVS_FMT_ELLR, RVS_F64); /* wide */
        run_resident(R, 1, 40, 40, RVS_FMT_CSR, RVS_F32);    /* diagonal: ranks without a block call on the host */
        run_resident(R, 1, 2, 3, RVS_FMT_CSR, RVS_F64);      /* ranks without rows or x */
    }
    return rvs_test_mpi_done(rank);
}
