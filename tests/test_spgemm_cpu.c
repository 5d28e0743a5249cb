/* test_spgemm_cpu.c - the CPU SpGEMM (and its row-list form) on every case, against CSparse */
#include "spgemm_cases.h"

/* The CPU kernel on a reversed row list, reassembled: the same C as the plain kernel. */
static void check_row_list(void)
{
    rvs_csr A, C, R;
    rvs_error err;
    int64_t rows[40];
    CHECK(rvs_test_random_csr(&A, 40, 40, 0.2, 1, 5) == RVS_OK);
    for (int i = 0; i < 40; i++)
        rows[i] = 39 - i;
    CHECK_OK(rvs_spgemm_cpu(&C, &A, &A, NULL, &err), &err);
    CHECK_OK(rvs_spgemm_cpu_rows(&R, &A, &A, rows, 40, NULL, &err), &err);
    for (int j = 0; j < 40 && R.rows == 40; j++) {
        int64_t i = rows[j], n = C.rowptr[i + 1] - C.rowptr[i];
        CHECK(R.rowptr[j + 1] - R.rowptr[j] == n);
        for (int64_t t = 0; t < n && R.rowptr[j + 1] - R.rowptr[j] == n; t++)
            CHECK(R.colind[R.rowptr[j] + t] == C.colind[C.rowptr[i] + t] &&
                  rvs_csr_value(&R, R.rowptr[j] + t) == rvs_csr_value(&C, C.rowptr[i] + t));
    }
    rvs_csr_free(&A);
    rvs_csr_free(&C);
    rvs_csr_free(&R);
}

/* The hybrid split: long rows only (> 8 x mean, >= 1024 products), largest first, within the
 * CPU share. Products per row are given directly: 10 each, row 10: 5000, row 50: 3000. */
static void check_split(void)
{
    int64_t *rows = NULL, n = 0, prodptr[101];
    rvs_csr A;
    rvs_error err;
    rvs_spgemm_options o;
    memset(&o, 0, sizeof o);
    memset(&A, 0, sizeof A);
    A.rows = 100;
    prodptr[0] = 0;
    for (int i = 0; i < 100; i++)
        prodptr[i + 1] = prodptr[i] + (i == 10 ? 5000 : i == 50 ? 3000 : 10);
    o.hybrid_cpu_share = 1;
    CHECK_OK(rvs_spgemm_hybrid_split(&A, prodptr, &o, &rows, &n, &err), &err);
    CHECKF(n == 2 && rows[0] == 10 && rows[1] == 50, "%lld rows", (long long)n);
    free(rows);
    o.hybrid_cpu_share = 0.4;                     /* 3592 products: row 10 does not fit, 50 does */
    CHECK_OK(rvs_spgemm_hybrid_split(&A, prodptr, &o, &rows, &n, &err), &err);
    CHECKF(n == 1 && rows[0] == 50, "%lld rows", (long long)n);
    free(rows);
    o.hybrid_cpu_share = 1e-9;                    /* nothing fits */
    CHECK_OK(rvs_spgemm_hybrid_split(&A, prodptr, &o, &rows, &n, &err), &err);
    CHECK(n == 0);
    free(rows);
}

int main(void)
{
    spgemm_all_cases(rvs_spgemm_cpu, 2000000);
    check_row_list();
    check_split();
    if (!rvs_test_matrices_dir()) {
        fprintf(stderr, "RVS_MATRICES not set or INDEX.tsv missing: shared matrices skipped\n");
        return rvs_test_done() ? 1 : RVS_TEST_SKIP;
    }
    return rvs_test_done();
}
