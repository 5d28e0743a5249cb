/* test_mpi_peer.c - the GPU-to-GPU exchange of resident calls (engine/mpi_peer.c), on any number
 * of ranks (tests/programs/spmv-mpi.sh runs it under mpirun; alone it is one rank, without pairs).
 * No argument: ranks on their CPUs refuse peer (the lowest rank with a pair says why, every pair
 * then on host) and auto falls back to host, calls still right. gpu: each rank on the GPU that
 * spmv-mpi gives it (local rank modulo the node's GPUs: one GPU may serve them all), peer and auto
 * make every pair peer, and resident calls run back to back without a barrier, x changed on the
 * GPU between them, give the y of host calls on the same x (a sender that overwrote its entries
 * before a receiver copied them, or a receiver that copied them before they were gathered, would
 * not); the same with host staging. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "mpi_test.h"
#include "mpi_internal.h"

static int rank, nranks;

/* Rank 0: the stream of a random rows x rows matrix in k parts by Algorithm 2. */
static void make_stream(rvs_stream *S, int **rank_of, int64_t rows, int k)
{
    rvs_error e;
    double cp[16];
    for (int i = 0; i < k; i++)
        cp[i] = 1;
    memset(S, 0, sizeof *S);
    CHECK_OK(rvs_test_random_csr(&S->A, rows, rows, 0.02, 1, 11), &e);
    CHECK_OK(rvs_partition_compute(&S->partition, &S->A, RVS_ALG_NNZ, k, cp, NULL, 0, &e), &e);
    S->has_partition = 1;
    *rank_of = malloc((size_t)k * sizeof **rank_of);
    CHECK_OK(rvs_mpi_assign(&S->partition, NULL, nranks, *rank_of, &e), &e);
}

/* y of this rank's rows (rows values of vt) as doubles into out. */
static void y_of(rvs_mpi_spmv *M, int64_t rows, double *out)
{
    for (int64_t i = 0; i < rows; i++)
        out[i] = rvs_mpi_vtype(M) == RVS_F64 ? ((double *)rvs_mpi_y(M))[i] : ((float *)rvs_mpi_y(M))[i];
}

/* 1 when a and b (n values) agree to tol of their largest entry. */
static int close_to(const double *a, const double *b, int64_t n, double tol)
{
    double m = 1, d = 0;
    for (int64_t i = 0; i < n; i++) {
        m = fmax(m, fabs(a[i]));
        d = fmax(d, fabs(a[i] - b[i]));
    }
    return d <= tol * m;
}

/* Resident calls back to back on x of seed a and seed b in turn, each compared with a host call's
 * y of the same x: the exchange want gives. */
static void resident_runs(rvs_mpi_spmv *M, const rvs_mpi_info *I, rvs_vtype vt)
{
    const size_t vs = rvs_vtype_size(vt), xb = (size_t)I->owned_cols * vs + 8;
    const int64_t rows = I->rows;
    void *x[2] = {malloc(xb), malloc(xb)};
    double *ref[2] = {malloc((size_t)rows * sizeof(double) + 8), malloc((size_t)rows * sizeof(double) + 8)};
    double *y = malloc((size_t)rows * sizeof(double) + 8);
    rvs_mpi_times t;
    rvs_error e;
    for (int k = 0; k < 2; k++) { /* host calls: the reference of each x */
        CHECK_OK(rvs_mpi_scatter_x(M, NULL, (uint64_t)(7 + k), &e), &e);
        memcpy(x[k], rvs_mpi_x(M), (size_t)I->owned_cols * vs);
        CHECK_OK(rvs_mpi_call(M, 0, 1, &t, &e), &e);
        y_of(M, rows, ref[k]);
    }
    for (int i = 0; i < 24; i++) { /* no barrier: the ranks run ahead of each other */
        const int k = (i / 3) % 2, checked = i % 3 == 2;
        if (M->gpu && i % 3 == 0) { /* a solver's vector update: owned x changed on the GPU */
            CHECK_OK(rvs_gpu_memcpy_h2d(M->E->dx, x[k], (size_t)I->owned_cols * vs, &e), &e);
            CHECK_OK(rvs_gpu_sync(&e), &e);
        } else if (!M->gpu && i % 3 == 0) {
            memcpy(rvs_mpi_x(M), x[k], (size_t)I->owned_cols * vs);
        }
        CHECK_OK(rvs_mpi_call(M, checked ? 2 : 1, checked, &t, &e), &e);
        if (checked && rows > 0) {
            y_of(M, rows, y);
            CHECKF(close_to(ref[k], y, rows, vt == RVS_F64 ? 1e-12 : 1e-5), "rank %d: resident call %d (x %d, %s)",
                   rank, i, k, rvs_mpi_exchange_name(M));
        }
    }
    free(x[0]);
    free(x[1]);
    free(ref[0]);
    free(ref[1]);
    free(y);
}

/* One case on ranks of mode (CPU or GPU) in value type vt. */
static void run_case(rvs_run_mode mode, rvs_vtype vt, int64_t rows, int k)
{
    rvs_stream S;
    rvs_mpi_spmv *M = NULL;
    rvs_engine_devices dev;
    rvs_plan_options po;
    rvs_mpi_info I;
    rvs_error e;
    int *rank_of = NULL;
    memset(&S, 0, sizeof S);
    if (rank == 0)
        make_stream(&S, &rank_of, rows, k);
    CHECK_OK(rvs_mpi_setup(&M, rank == 0 ? &S : NULL, rank_of, MPI_COMM_WORLD, 1, NULL, &e), &e);
    rvs_engine_devices_probe(&dev, 1, mode == RVS_MODE_GPU);
    rvs_plan_options_default(&po);
    po.mode = mode;
    po.vtype = vt;
    po.fallback = RVS_FMT_CSR;
    po.allow_whole = 0;
    po.advisor.use_cache = 0;
    CHECK_OK(rvs_mpi_prepare(M, &dev, &po, RVS_FMT_CSR, &e), &e);
    rvs_mpi_get_info(M, &I);
    const int pairs = I.recv_ranks + I.send_ranks > 0;
    int lowest = pairs ? rank : INT_MAX;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    rvs_status st = rvs_mpi_choose_exchange(M, RVS_MPI_EXCHANGE_PEER, &e);
    if (mode == RVS_MODE_CPU) {
        CHECKF(rank == lowest ? st == RVS_ERR_NODEV && strstr(e.msg, "--exchange peer: rank ") &&
                                    strstr(e.msg, " runs on the CPU")
                              : st == RVS_OK,
               "rank %d: peer on CPUs: status %d: %s", rank, (int)st, st ? e.msg : "");
        CHECK(strcmp(rvs_mpi_exchange_name(M), pairs ? "host" : "-") == 0);
        CHECK_OK(rvs_mpi_choose_exchange(M, RVS_MPI_EXCHANGE_AUTO, &e), &e);
        CHECK(strcmp(rvs_mpi_exchange_name(M), pairs ? "host" : "-") == 0);
        CHECK(!pairs || strstr(rvs_mpi_exchange_why(M), "runs on the CPU"));
        resident_runs(M, &I, vt);
    } else {
        CHECKF(st == RVS_OK, "rank %d: peer: %s", rank, e.msg);
        CHECKF(strcmp(rvs_mpi_exchange_name(M), pairs ? "peer" : "-") == 0, "rank %d: %s (%s)", rank,
               rvs_mpi_exchange_name(M), rvs_mpi_exchange_why(M));
        resident_runs(M, &I, vt);
        CHECK_OK(rvs_mpi_choose_exchange(M, RVS_MPI_EXCHANGE_HOST, &e), &e);
        CHECK(strcmp(rvs_mpi_exchange_name(M), pairs ? "host" : "-") == 0);
        resident_runs(M, &I, vt);
        CHECK_OK(rvs_mpi_choose_exchange(M, RVS_MPI_EXCHANGE_AUTO, &e), &e);
        CHECK(strcmp(rvs_mpi_exchange_name(M), pairs ? "peer" : "-") == 0);
        resident_runs(M, &I, vt);
    }
    rvs_mpi_free(M);
    rvs_stream_free(&S);
    free(rank_of);
}

int main(int argc, char **argv)
{
    rvs_test_mpi_init(&argc, &argv, &rank, &nranks);
    const int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    int have = rvs_gpu_count() > 0;
    MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (gpu && !have) {
        if (rank == 0)
            printf("no GPU: skipped\n");
        MPI_Finalize();
        return 77;
    }
    int local_rank, local_size, threads, device;
    rvs_error e;
    CHECK_OK(rvs_mpi_node(MPI_COMM_WORLD, gpu, &local_rank, &local_size, &threads, &device, &e), &e); /* its GPU */
    const rvs_run_mode mode = gpu ? RVS_MODE_GPU : RVS_MODE_CPU;
    run_case(mode, RVS_F64, 3000, nranks);     /* one part a rank */
    run_case(mode, RVS_F32, 2000, nranks + 1); /* a rank of two parts */
    return rvs_test_mpi_done(rank);
}
