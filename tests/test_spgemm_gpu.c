/* test_spgemm_gpu.c - the GPU pipeline and the hybrid on every case, plus budgets far smaller
 * than the product (many blocks, rows computed on the CPU) and the cuSPARSE baseline */
#include "spgemm_cases.h"
#include "rvs_gpu.h"

static rvs_spgemm_options opts;   /* what the kernels below run with */

static rvs_status gpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s,
                      rvs_error *err)
{
    return rvs_spgemm_gpu(C, A, B, &opts, s, err);
}

static rvs_status hybrid(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s,
                         rvs_error *err)
{
    return rvs_spgemm_hybrid(C, A, B, &opts, s, err);
}

/* Fig. 3.1 on the device: C exact. */
static void check_golden(void)
{
    static const int64_t ar[] = {0, 1, 1, 1, 2, 3}, ac[] = {0, 1, 2, 3, 3, 1};
    static const double av[] = {10, 20, 30, 40, 50, 60};
    static const int64_t br[] = {0, 1, 1, 2, 2, 3, 3}, bc[] = {0, 1, 3, 0, 1, 1, 3};
    static const double bv[] = {1, 2, 3, 4, 5, 6, 7};
    static const double cv[] = {10, 120, 430, 340, 300, 350, 120, 180};
    rvs_csr A, B, C;
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(&A, 4, 4, 6, ar, ac, av, RVS_F64, &err), &err);
    CHECK_OK(rvs_csr_from_coo(&B, 4, 4, 7, br, bc, bv, RVS_F64, &err), &err);
    rvs_status st = gpu(&C, &A, &B, NULL, &err);
    CHECK_OK(st, &err);
    for (int e = 0; st == RVS_OK && e < 8 && C.nnz == 8; e++)
        CHECKF(rvs_csr_value(&C, e) == cv[e], "C value %d: %g, want %g", e, rvs_csr_value(&C, e), cv[e]);
    CHECK(st != RVS_OK || C.nnz == 8);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    rvs_csr_free(&C);
}

/* A product many times the budget: many blocks, and rows too big for a block on the CPU. */
static void check_small_budgets(void)
{
    rvs_csr A, C;
    rvs_spgemm_stats s;
    rvs_error err;
    double maxerr;
    CHECK(rvs_test_random_csr(&A, 3000, 3000, 0.01, 1, 7) == RVS_OK);   /* ~2.7M products */
    memset(&opts, 0, sizeof opts);
    opts.gpu_mem_bytes = 4u << 20;             /* 4 MiB: about 40 blocks */
    CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &opts, &s, &err), &err);
    CHECKF(s.blocks >= 10, "%lld blocks", (long long)s.blocks);
    CHECKF(s.products * 28 > 10 * (int64_t)(4u << 20), "product of %lld is not many times the budget",
           (long long)s.products);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    rvs_csr_free(&C);
    opts.max_block_products = 1000;           /* rows of ~900 products: a few alone, some too big */
    opts.gpu_mem_bytes = 0;
    CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &opts, &s, &err), &err);
    CHECKF(s.blocks > 1000, "%lld blocks", (long long)s.blocks);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    rvs_csr_free(&C);
    opts.max_block_products = 200;            /* every row too big: all on the CPU */
    CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &opts, &s, &err), &err);
    CHECKF(s.cpu_rows > 0, "%lld CPU rows", (long long)s.cpu_rows);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    rvs_csr_free(&C);
    memset(&opts, 0, sizeof opts);
    rvs_csr_free(&A);
}

/* cuSPARSE agrees on nnz(C) and reports times. */
static void check_cusparse(void)
{
    rvs_csr A, C, R;
    rvs_error err;
    double ks = 0, ts = 0;
    int alg = 0;
    size_t peak = 0;
    CHECK(rvs_test_random_csr(&A, 500, 500, 0.02, 1, 9) == RVS_OK);
    CHECK_OK(rvs_spgemm_cusparse(&C, &A, &A, &ks, &ts, &alg, &peak, &err), &err);
    CHECK_OK(rvs_spgemm_cpu(&R, &A, &A, NULL, &err), &err);
    CHECK(C.nnz == R.nnz && alg >= 1 && alg <= 3 && ts >= ks && ks > 0);
    rvs_csr_free(&A);
    rvs_csr_free(&C);
    rvs_csr_free(&R);
}

int main(void)
{
    if (rvs_gpu_count() == 0) {
        fprintf(stderr, "no GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    check_golden();
    spgemm_all_cases(gpu, 20000000);
    opts.gpu_mem_bytes = 1u << 20;            /* everything again through a 1 MiB budget */
    spgemm_all_cases(gpu, 0);
    memset(&opts, 0, sizeof opts);
    spgemm_all_cases(hybrid, 0);
    opts.hybrid_cpu_share = 0.5;
    opts.hybrid_long_factor = 1.5;            /* a split that really gives the CPU rows */
    spgemm_all_cases(hybrid, 0);
    memset(&opts, 0, sizeof opts);
    check_small_budgets();
    check_cusparse();
    return rvs_test_done();
}
