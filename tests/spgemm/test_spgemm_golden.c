/* test_spgemm_golden.c - the worked example of hybrid-spgemm Fig. 3.1: product counts,
 * repeat_A, the duplicated B in multiplication order, block planning (row blocks from a budget,
 * and blocks of C's rows), and C */
#include <string.h>
#include "rvs_test.h"
#include "rvs_spgemm.h"

/* A and B of Fig. 3.1 (COO, 0-based). */
static const int64_t a_r[] = {0, 1, 1, 1, 2, 3}, a_c[] = {0, 1, 2, 3, 3, 1};
static const double a_v[] = {10, 20, 30, 40, 50, 60};
static const int64_t b_r[] = {0, 1, 1, 2, 2, 3, 3}, b_c[] = {0, 1, 3, 0, 1, 1, 3};
static const double b_v[] = {1, 2, 3, 4, 5, 6, 7};

/* C = A*B by hand, row by row:
 *   row 0: 10*B(0,:)                      = (0: 10)
 *   row 1: 20*B(1,:) + 30*B(2,:) + 40*B(3,:)
 *          = 20*(1:2, 3:3) + 30*(0:4, 1:5) + 40*(1:6, 3:7)
 *          = (0: 120) (1: 40+150+240 = 430) (3: 60+280 = 340)
 *   row 2: 50*B(3,:) = 50*(1:6, 3:7)      = (1: 300) (3: 350)
 *   row 3: 60*B(1,:) = 60*(1:2, 3:3)      = (1: 120) (3: 180) */
static const int64_t c_rowptr[] = {0, 1, 4, 6, 8};
static const int32_t c_col[] = {0, 0, 1, 3, 1, 3, 1, 3};
static const double c_val[] = {10, 120, 430, 340, 300, 350, 120, 180};

/* The pre-processing: exact size first, then repeat_A and the duplicated B. */
static void check_preprocessing(const rvs_csr *A, const rvs_csr *B)
{
    /* duplicated B as triples (row of B, column, value), in multiplication order */
    static const int dup_r[] = {0, 1, 1, 2, 2, 3, 3, 3, 3, 1, 1};
    static const int32_t dup_c[] = {0, 1, 3, 0, 1, 1, 3, 1, 3, 1, 3};
    static const double dup_v[] = {1, 2, 3, 4, 5, 6, 7, 6, 7, 2, 3};
    static const int32_t repeat_want[] = {1, 2, 2, 2, 2, 2};
    static const int64_t prod_want[] = {0, 1, 7, 9, 11};
    int64_t prodptr[5];
    int32_t repeat[6], col[11];
    double val[11];
    rvs_error err;
    rvs_status st = rvs_spgemm_row_products(prodptr, A, B, &err);
    CHECK_OK(st, &err);
    for (int i = 0; i < 5; i++)
        CHECKF(prodptr[i] == prod_want[i], "prodptr[%d] = %lld, want %lld", i, (long long)prodptr[i],
               (long long)prod_want[i]);
    CHECKF(prodptr[4] == 11, "expansion size %lld, want 11", (long long)prodptr[4]);
    rvs_spgemm_expand(A, B, prodptr, 0, 4, repeat, col, val);
    for (int e = 0; e < 6; e++)
        CHECKF(repeat[e] == repeat_want[e], "repeat_A[%d] = %d, want %d", e, repeat[e], repeat_want[e]);
    /* the B row of each duplicated triple is the column of the A entry it multiplies */
    for (int e = 0, k = 0; e < 6; e++)
        for (int t = 0; t < repeat[e]; t++, k++) {
            CHECKF(rvs_csr_col(A, e) == dup_r[k], "dup B %d: row %lld, want %d", k, (long long)rvs_csr_col(A, e),
                   dup_r[k]);
            CHECKF(col[k] == dup_c[k] && val[k] == dup_v[k], "dup B %d: (%d, %g), want (%d, %g)", k, col[k], val[k],
                   dup_c[k], dup_v[k]);
        }
    /* a block of rows 1..2 alone starts at A entry 1 and product 1 */
    rvs_spgemm_expand(A, B, prodptr, 1, 3, repeat, col, val);
    CHECK(repeat[0] == 2 && repeat[3] == 2 && col[0] == 1 && val[6] == 6 && col[7] == 3);
}

/* Row blocks from a budget: products are counted exactly; a row over budget stands alone. */
static void check_plan(const rvs_csr *A, const int64_t *prodptr)
{
    rvs_spgemm_budget b = {0, 1, 0, 6, 0}; /* 1 byte per product, 6 bytes: at most 6 products */
    rvs_spgemm_block *blk = NULL;
    int64_t n = 0;
    rvs_error err;
    CHECK_OK(rvs_spgemm_plan(A, prodptr, &b, &blk, &n, &err), &err);
    /* rows: 1, 6, 2, 2 products -> {0} {1} {2,3} */
    CHECKF(n == 3, "%lld blocks, want 3", (long long)n);
    if (n == 3) {
        CHECK(blk[0].r0 == 0 && blk[0].r1 == 1 && blk[0].products == 1 && !blk[0].too_big);
        CHECK(blk[1].r0 == 1 && blk[1].r1 == 2 && blk[1].products == 6 && blk[1].entries == 3);
        CHECK(blk[2].r0 == 2 && blk[2].r1 == 4 && blk[2].products == 4 && blk[2].entries == 2);
    }
    free(blk);
    b.budget_bytes = 5; /* row 1 (6 products) no longer fits anywhere */
    CHECK_OK(rvs_spgemm_plan(A, prodptr, &b, &blk, &n, &err), &err);
    CHECKF(n == 3 && blk[1].too_big && blk[1].r0 == 1 && blk[1].r1 == 2 && !blk[2].too_big, "%lld blocks",
           (long long)n);
    free(blk);
    b.budget_bytes = 100;
    b.max_products = 7; /* the product cap splits too */
    CHECK_OK(rvs_spgemm_plan(A, prodptr, &b, &blk, &n, &err), &err);
    CHECK(n == 2 && blk[0].r1 == 2 && blk[0].products == 7 && blk[1].products == 4);
    free(blk);
}

/* Blocks of C's rows (row-wise GPU method) on C of the example: 1, 3, 2, 2 entries. */
static void check_plan_c(void)
{
    rvs_spgemm_block *blk = NULL;
    int64_t n = 0;
    rvs_error err;
    CHECK_OK(rvs_spgemm_plan_c(c_rowptr, 4, 3, &blk, &n, &err), &err); /* {0} {1} {2} {3} */
    CHECKF(n == 4 && blk[0].entries == 1 && blk[1].entries == 3 && blk[3].r0 == 3 && !blk[1].too_big, "%lld blocks",
           (long long)n);
    free(blk);
    CHECK_OK(rvs_spgemm_plan_c(c_rowptr, 4, 4, &blk, &n, &err), &err); /* {0,1} {2,3} */
    CHECKF(n == 2 && blk[0].r1 == 2 && blk[0].entries == 4 && blk[1].r0 == 2 && blk[1].entries == 4, "%lld blocks",
           (long long)n);
    free(blk);
    CHECK_OK(rvs_spgemm_plan_c(c_rowptr, 4, 2, &blk, &n, &err), &err); /* row 1 stands alone */
    CHECKF(n == 4 && blk[1].too_big && blk[1].r0 == 1 && blk[1].r1 == 2 && !blk[0].too_big && !blk[2].too_big,
           "%lld blocks", (long long)n);
    free(blk);
    CHECK_OK(rvs_spgemm_plan_c(c_rowptr, 4, 100, &blk, &n, &err), &err);
    CHECK(n == 1 && blk[0].r0 == 0 && blk[0].r1 == 4 && blk[0].entries == 8);
    free(blk);
    CHECK(rvs_spgemm_plan_c(c_rowptr, 4, 0, &blk, &n, &err) == RVS_ERR_ARG);
}

/* C of the example, in both precisions, by the CPU kernel; the checker agrees. */
static void check_product(const rvs_csr *A0, const rvs_csr *B0, rvs_vtype vt)
{
    rvs_csr A, B, C;
    rvs_error err;
    rvs_spgemm_stats s;
    double maxerr = 1;
    CHECK_OK(rvs_csr_copy(&A, A0, &err), &err);
    CHECK_OK(rvs_csr_copy(&B, B0, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&A, vt, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&B, vt, &err), &err);
    rvs_status st = rvs_spgemm_cpu(&C, &A, &B, &s, &err);
    CHECK_OK(st, &err);
    if (st == RVS_OK) {
        CHECK(C.rows == 4 && C.cols == 4 && C.nnz == 8 && C.vtype == vt);
        CHECK(s.products == 11 && s.nnz_c == 8);
        for (int i = 0; i <= 4; i++)
            CHECK(C.rowptr[i] == c_rowptr[i]);
        for (int e = 0; e < 8 && C.nnz == 8; e++)
            CHECKF(C.colind[e] == c_col[e] && rvs_csr_value(&C, e) == c_val[e],
                   "C entry %d: (%d, %g), want (%d, %g)", e, C.colind[e], rvs_csr_value(&C, e), c_col[e], c_val[e]);
        CHECK_OK(rvs_spgemm_check(&C, &A, &B, 0, &maxerr, &err), &err);
        CHECK(maxerr == 0);
        /* one changed value is caught */
        if (vt == RVS_F64)
            ((double *)C.values)[2] += 1e-3;
        else
            ((float *)C.values)[2] += 1;
        CHECK(rvs_spgemm_check(&C, &A, &B, rvs_spgemm_tolerance(vt), &maxerr, &err) == RVS_ERR_CHECK);
        CHECKF(strstr(err.msg, "entry (2,2) = 43") && strstr(err.msg, "reference 430+0i"), "%s", err.msg);
        if (vt == RVS_F64)
            ((double *)C.values)[2] -= 1e-3;
        else
            ((float *)C.values)[2] -= 1;
        /* a wrong column: row 3 names 3 where the product has 2 (and row 4 a wrong value, not named:
         * the lowest row that differs is) */
        C.colind[4] = 2;
        if (vt == RVS_F64)
            ((double *)C.values)[7] = 1e9;
        CHECK(rvs_spgemm_check(&C, &A, &B, rvs_spgemm_tolerance(vt), &maxerr, &err) == RVS_ERR_CHECK);
        CHECKF(strstr(err.msg, "row 3: column 3, reference 2") != NULL, "%s", err.msg);
        C.colind[4] = 1;
        if (vt == RVS_F64)
            ((double *)C.values)[7] = 180;
        CHECK_OK(rvs_spgemm_check(&C, &A, &B, rvs_spgemm_tolerance(vt), &maxerr, &err), &err);
        /* an entry short in row 2, then one too many in row 4 (C's total unchanged) */
        C.rowptr[2] = 3;
        C.rowptr[3] = 5;
        CHECK(rvs_spgemm_check(&C, &A, &B, rvs_spgemm_tolerance(vt), &maxerr, &err) == RVS_ERR_CHECK);
        CHECKF(strstr(err.msg, "row 2 has 2 entries, reference 3") != NULL, "%s", err.msg);
        C.rowptr[2] = 4;
        C.rowptr[3] = 5;
        CHECK(rvs_spgemm_check(&C, &A, &B, rvs_spgemm_tolerance(vt), &maxerr, &err) == RVS_ERR_CHECK);
        CHECKF(strstr(err.msg, "row 3 has 1 entries, reference 2") != NULL, "%s", err.msg);
        C.rowptr[3] = 7;
        CHECK(rvs_spgemm_check(&C, &A, &B, rvs_spgemm_tolerance(vt), &maxerr, &err) == RVS_ERR_CHECK);
        CHECKF(strstr(err.msg, "row 3 has 3 entries, reference 2") != NULL, "%s", err.msg);
    }
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    rvs_csr_free(&C);
}

int main(void)
{
    rvs_csr A, B;
    rvs_error err;
    int64_t prodptr[5];
    CHECK_OK(rvs_csr_from_coo(&A, 4, 4, 6, a_r, a_c, a_v, RVS_F64, &err), &err);
    CHECK_OK(rvs_csr_from_coo(&B, 4, 4, 7, b_r, b_c, b_v, RVS_F64, &err), &err);
    check_preprocessing(&A, &B);
    CHECK_OK(rvs_spgemm_row_products(prodptr, &A, &B, &err), &err);
    check_plan(&A, prodptr);
    check_plan_c();
    check_product(&A, &B, RVS_F64);
    check_product(&A, &B, RVS_F32);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    return rvs_test_done();
}
