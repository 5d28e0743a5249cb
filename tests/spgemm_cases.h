/* spgemm_cases.h - the SpGEMM cases every kernel (CPU, GPU, hybrid) must pass; included by
 * test_spgemm_cpu.c and test_spgemm_gpu.c, which say which kernel runs them */
#ifndef SPGEMM_CASES_H
#define SPGEMM_CASES_H

#include <string.h>
#include "rvs_test.h"
#include "rvs_spgemm.h"

/* A kernel under test: C = A*B. */
typedef rvs_status (*spgemm_fn)(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                rvs_spgemm_stats *stats, rvs_error *err);

/* C = A*B by f, then checked against CSparse; stats checked against C. */
static void case_check(spgemm_fn f, const char *what, const rvs_csr *A, const rvs_csr *B)
{
    rvs_csr C;
    rvs_spgemm_stats s;
    rvs_error err;
    double maxerr = 0;
    int64_t *prodptr = malloc((size_t)(A->rows + 1) * sizeof *prodptr);
    rvs_status st = f(&C, A, B, &s, &err);
    CHECKF(st == RVS_OK, "%s: %s", what, err.msg);
    if (st == RVS_OK && prodptr) {
        st = rvs_spgemm_check(&C, A, B, rvs_spgemm_tolerance(A->vtype), &maxerr, &err);
        CHECKF(st == RVS_OK, "%s: %s", what, err.msg);
        CHECKF(rvs_csr_validate(&C, &err) == RVS_OK, "%s: C invalid: %s", what, err.msg);
        CHECK(C.vtype == A->vtype);
        CHECK(rvs_spgemm_row_products(prodptr, A, B, &err) == RVS_OK);
        CHECKF(s.products == prodptr[A->rows] && s.nnz_c == C.nnz, "%s: stats %lld products %lld nnz",
               what, (long long)s.products, (long long)s.nnz_c);
    }
    free(prodptr);
    rvs_csr_free(&C);
}

/* A*A (A*A^T when A is not square) for every shared matrix, f64, and f32 for the smaller ones. */
static void case_shared_matrices(spgemm_fn f, int64_t f32_max_products)
{
    rvs_test_matrix *list = NULL;
    int n = rvs_test_matrix_list(&list);
    for (int m = 0; m < n; m++) {
        rvs_csr A, B;
        rvs_error err;
        int64_t *pp;
        if (rvs_mm_read_file(&A, NULL, list[m].path, NULL, NULL, &err) != RVS_OK)
            continue;   /* complex: refused by the reader, not ours to test */
        if (A.rows == A.cols)
            CHECK_OK(rvs_csr_copy(&B, &A, &err), &err);
        else
            CHECK_OK(rvs_csr_transpose(&B, &A, &err), &err);
        case_check(f, list[m].name, &A, &B);
        pp = malloc((size_t)(A.rows + 1) * sizeof *pp);
        if (pp && rvs_spgemm_row_products(pp, &A, &B, &err) == RVS_OK &&
            pp[A.rows] <= f32_max_products) {
            CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
            CHECK_OK(rvs_csr_convert_values(&B, RVS_F32, &err), &err);
            case_check(f, list[m].name, &A, &B);
        }
        free(pp);
        rvs_csr_free(&A);
        rvs_csr_free(&B);
    }
    free(list);
}

/* Rectangular A*B with empty rows, and their f32 versions. */
static void case_rectangular(spgemm_fn f)
{
    static const int64_t dims[][3] = {{50, 30, 70}, {1, 40, 1}, {200, 3, 90}, {7, 300, 2}};
    for (int t = 0; t < 4; t++) {
        rvs_csr A, B;
        CHECK(rvs_test_random_csr(&A, dims[t][0], dims[t][1], 0.1, 1, 11u + t) == RVS_OK);
        CHECK(rvs_test_random_csr(&B, dims[t][1], dims[t][2], 0.2, 1, 101u + t) == RVS_OK);
        case_check(f, "rectangular", &A, &B);
        rvs_csr_free(&A);
        rvs_csr_free(&B);
    }
}

/* Empty rows and columns everywhere, matrices without entries, and zero-sized ones. */
static void case_empty(spgemm_fn f)
{
    /* A 4x5: rows 0 and 2 empty, column 1 and 4 empty; B 5x3: row 0 and 3 empty, column 2 empty */
    static const int64_t ar[] = {1, 1, 3}, ac[] = {0, 3, 2}, br[] = {1, 2, 4}, bc[] = {0, 1, 1};
    static const double av[] = {1, 2, 3}, bv[] = {4, 5, 6};
    static const int64_t sizes[][3] = {{0, 0, 0}, {5, 0, 4}, {0, 3, 2}, {3, 4, 0}, {6, 6, 6}};
    rvs_csr A, B, C;
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(&A, 4, 5, 3, ar, ac, av, RVS_F64, &err), &err);
    CHECK_OK(rvs_csr_from_coo(&B, 5, 3, 3, br, bc, bv, RVS_F64, &err), &err);
    case_check(f, "empty rows and columns", &A, &B);
    if (f(&C, &A, &B, NULL, &err) == RVS_OK) {
        /* A(1,0) and A(1,3) meet empty rows of B; only A(3,2)*B(2,1) = 15 remains */
        CHECK(C.nnz == 1 && C.rows == 4 && C.cols == 3 && C.rowptr[3] == 0 && C.colind[0] == 1 &&
              rvs_csr_value(&C, 0) == 15);
        rvs_csr_free(&C);
    }
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    for (int t = 0; t < 5; t++) {   /* no entries at all */
        CHECK_OK(rvs_csr_from_coo(&A, sizes[t][0], sizes[t][1], 0, NULL, NULL, NULL, RVS_F64, &err), &err);
        CHECK_OK(rvs_csr_from_coo(&B, sizes[t][1], sizes[t][2], 0, NULL, NULL, NULL, RVS_F64, &err), &err);
        case_check(f, "no entries", &A, &B);
        rvs_csr_free(&A);
        rvs_csr_free(&B);
    }
}

/* A dimension mismatch is refused with the sizes in the message; mixed precisions too. */
static void case_mismatch(spgemm_fn f)
{
    rvs_csr A, B, C;
    rvs_error err;
    CHECK(rvs_test_random_csr(&A, 5, 7, 0.5, 0, 1) == RVS_OK);
    CHECK(rvs_test_random_csr(&B, 6, 3, 0.5, 0, 2) == RVS_OK);
    CHECK(f(&C, &A, &B, NULL, &err) == RVS_ERR_DIM);
    CHECKF(strcmp(err.msg, "dimension mismatch: A is 5 x 7, B is 6 x 3") == 0, "message '%s'", err.msg);
    rvs_csr_free(&B);
    CHECK(rvs_test_random_csr(&B, 7, 3, 0.5, 0, 2) == RVS_OK);
    CHECK(rvs_csr_convert_values(&B, RVS_F32, &err) == RVS_OK);
    CHECK(f(&C, &A, &B, NULL, &err) == RVS_ERR_ARG);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
}

/* Every case above. */
static void spgemm_all_cases(spgemm_fn f, int64_t f32_max_products)
{
    case_rectangular(f);
    case_empty(f);
    case_mismatch(f);
    case_shared_matrices(f, f32_max_products);
}

#endif
