/* spgemm_cases.h - the SpGEMM cases every method (CPU, GPU row-wise and hySpMM, hybrid) must
 * pass; included by test_spgemm_cpu.c and test_spgemm_gpu.c, which say which methods run */
#ifndef SPGEMM_CASES_H
#define SPGEMM_CASES_H

#include <math.h>
#include <string.h>
#include "rvs_test.h"
#include "rvs_engine_spgemm.h"

/* A method under test: C = A*B. */
typedef rvs_status (*spgemm_fn)(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *stats,
                                rvs_error *err);
typedef struct {
    const char *name;
    spgemm_fn f;
} spgemm_method;

/* C = A*B by every method, each checked (rvs_spgemm_check: A*B made row by row); stats against C.
 * stats_out (may be NULL) gets each method's stats. */
static void case_check_all(const spgemm_method *m, int nm, const char *what, const rvs_csr *A, const rvs_csr *B,
                           rvs_spgemm_stats *stats_out)
{
    rvs_error err;
    int64_t *prodptr = malloc((size_t)(A->rows + 1) * sizeof *prodptr);
    CHECK(prodptr != NULL);
    CHECK_OK(rvs_spgemm_row_products(prodptr, A, B, &err), &err);
    for (int k = 0; k < nm && prodptr; k++) {
        rvs_csr C;
        rvs_spgemm_stats s;
        double maxerr = 0;
        rvs_status st = m[k].f(&C, A, B, &s, &err);
        CHECKF(st == RVS_OK, "%s, %s: %s", what, m[k].name, err.msg);
        if (st != RVS_OK)
            continue;
        st = rvs_spgemm_check(&C, A, B, rvs_spgemm_tolerance(A->vtype), &maxerr, &err);
        CHECKF(st == RVS_OK, "%s, %s: %s", what, m[k].name, err.msg);
        CHECKF(rvs_csr_validate(&C, &err) == RVS_OK, "%s, %s: C invalid: %s", what, m[k].name, err.msg);
        CHECK(C.vtype == A->vtype);
        CHECKF(s.products == prodptr[A->rows] && s.nnz_c == C.nnz, "%s, %s: stats %lld products %lld nnz", what,
               m[k].name, (long long)s.products, (long long)s.nnz_c);
        /* the stages are laps of one stopwatch: they add up to the whole */
        CHECKF(fabs(rvs_spgemm_stage_sum(&s) - s.t_total) <= 1e-3 && s.t_setup >= 0 && s.t_pre >= 0 &&
                   s.t_transfer >= 0 && s.t_multiply >= 0 && s.t_compress >= 0,
               "%s, %s: stages %g %g %g %g %g add up to %g s, total %g s", what, m[k].name, s.t_setup, s.t_pre,
               s.t_transfer, s.t_multiply, s.t_compress, rvs_spgemm_stage_sum(&s), s.t_total);
        if (stats_out)
            stats_out[k] = s;
        rvs_csr_free(&C);
    }
    free(prodptr);
}

/* A*A (A*A^T when A is not square) for every shared matrix, f64, and f32 for the smaller ones. */
static void case_shared_matrices(const spgemm_method *m, int nm, int64_t f32_max_products)
{
    rvs_test_matrix *list = NULL;
    int n = rvs_test_matrix_list(&list);
    for (int q = 0; q < n; q++) {
        rvs_csr A, B;
        rvs_error err;
        int64_t products = 0;
        if (rvs_mm_read_file(&A, NULL, list[q].path, NULL, NULL, &err) != RVS_OK)
            continue; /* unreadable: the reader's tests say why */
        if (A.rows == A.cols)
            CHECK_OK(rvs_csr_copy(&B, &A, &err), &err);
        else
            CHECK_OK(rvs_csr_transpose(&B, &A, &err), &err);
        case_check_all(m, nm, list[q].name, &A, &B, NULL);
        if (rvs_spgemm_count_products(&A, &B, &products, &err) == RVS_OK && products <= f32_max_products) {
            /* f32, or c64 for a complex matrix */
            CHECK_OK(rvs_csr_convert_values(&A, rvs_vtype_with_precision(A.vtype, RVS_F32), &err), &err);
            CHECK_OK(rvs_csr_convert_values(&B, rvs_vtype_with_precision(B.vtype, RVS_F32), &err), &err);
            case_check_all(m, nm, list[q].name, &A, &B, NULL);
        }
        rvs_csr_free(&A);
        rvs_csr_free(&B);
    }
    free(list);
}

/* Rectangular A*B with empty rows, and their f32 versions. */
static void case_rectangular(const spgemm_method *m, int nm)
{
    static const int64_t dims[][3] = {{50, 30, 70}, {1, 40, 1}, {200, 3, 90}, {7, 300, 2}};
    for (int t = 0; t < 4; t++) {
        rvs_csr A, B;
        rvs_error err;
        CHECK(rvs_test_random_csr(&A, dims[t][0], dims[t][1], 0.1, 1, 11u + t) == RVS_OK);
        CHECK(rvs_test_random_csr(&B, dims[t][1], dims[t][2], 0.2, 1, 101u + t) == RVS_OK);
        case_check_all(m, nm, "rectangular", &A, &B, NULL);
        CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
        CHECK_OK(rvs_csr_convert_values(&B, RVS_F32, &err), &err);
        case_check_all(m, nm, "rectangular f32", &A, &B, NULL);
        rvs_csr_free(&A);
        rvs_csr_free(&B);
    }
}

/* The next number of a 64-bit linear congruential sequence. */
static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s;
}

/* A whose row lengths sweep 0..3000 (random columns, random values) times a random B with
 * 10 entries a row on average (a few rows 8 times more): products per row from 0 to about
 * 30000, so that
 * every bin of the row-wise GPU method (one entry, ESC, warp and block hash, dense) gets
 * rows. stats (may be NULL) gets each method's stats for the f64 product. */
static void case_bins(const spgemm_method *m, int nm, rvs_spgemm_stats *stats)
{
    static const int64_t lens[] = {0, 1, 2, 3, 4, 6, 10, 14, 20, 30, 45, 70, 100, 200, 300, 600, 1000, 3000};
    const int64_t nl = sizeof lens / sizeof *lens, cols = 6000, rows = 4 * nl;
    int64_t nnz = 0, *ri, *ci;
    double *v;
    uint64_t s = 12345;
    rvs_csr A, B;
    rvs_error err;
    for (int64_t i = 0; i < rows; i++)
        nnz += lens[i % nl];
    ri = malloc((size_t)nnz * sizeof *ri);
    ci = malloc((size_t)nnz * sizeof *ci);
    v = malloc((size_t)nnz * sizeof *v);
    CHECK(ri && ci && v);
    for (int64_t i = 0, e = 0; ri && ci && v && i < rows; i++)
        for (int64_t k = 0; k < lens[i % nl]; k++, e++) {
            next_random(&s);
            ri[e] = i;
            ci[e] = (int64_t)((s >> 33) % (uint64_t)cols);
            v[e] = (double)((s >> 11) % 2001) / 1000.0 - 1.0;
        }
    CHECK_OK(rvs_csr_from_coo(&A, rows, cols, nnz, ri, ci, v, RVS_F64, &err), &err);
    CHECK(rvs_test_random_csr(&B, cols, cols, 10.0 / 6000.0, 0, 77) == RVS_OK);
    case_check_all(m, nm, "bins", &A, &B, stats);
    CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&B, RVS_F32, &err), &err);
    case_check_all(m, nm, "bins f32", &A, &B, NULL);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    free(ri);
    free(ci);
    free(v);
}

/* Rows of C of 1 to about 10^4 entries: A's rows of L entries times a banded B (8 entries a
 * row, in columns k..k+56 of row k), L from 1 to 10^4, each taken twice: once over consecutive
 * rows of B (C's row spans about L columns and is nearly full), once over rows spread across
 * all of B (C's row spans everything and holds up to 8 L entries), in f64 and f32; rows for
 * every bin of the row-wise GPU method's one pass (copy, ESC, warp hash, both shared dense
 * accumulators, the three shared hashes, the global dense) and of its two passes. stats (may be
 * NULL) gets each method's stats for the f64 product. */
static void case_row_lengths(const spgemm_method *m, int nm, rvs_spgemm_stats *stats)
{
    static const int64_t lens[] = {1,   2,   3,   4,   6,    10,   16,   24,   40,   64,
                                   100, 200, 300, 500, 1000, 2000, 4000, 8000, 10000};
    const int64_t nl = sizeof lens / sizeof *lens, cols = 40000, rows = 2 * nl;
    int64_t na = 0, *ri, *ci, *bi, *bj, nb = 0;
    double *v, *bv;
    uint64_t s = 777;
    rvs_csr A, B;
    rvs_error err;
    for (int64_t q = 0; q < nl; q++)
        na += 2 * lens[q];
    ri = malloc((size_t)na * sizeof *ri);
    ci = malloc((size_t)na * sizeof *ci);
    v = malloc((size_t)na * sizeof *v);
    bi = malloc((size_t)cols * 8 * sizeof *bi);
    bj = malloc((size_t)cols * 8 * sizeof *bj);
    bv = malloc((size_t)cols * 8 * sizeof *bv);
    CHECK(ri && ci && v && bi && bj && bv);
    if (!ri || !ci || !v || !bi || !bj || !bv)
        goto done;
    for (int64_t i = 0, e = 0; i < rows; i++) {
        const int64_t len = lens[i / 2];
        const int64_t start = (int64_t)((next_random(&s) >> 33) % (uint64_t)(cols - len + 1));
        for (int64_t t = 0; t < len; t++, e++) { /* even rows: consecutive; odd: spread (7919 is prime to 40000) */
            ri[e] = i;
            ci[e] = i % 2 ? (start + t * 7919) % cols : start + t;
            v[e] = (double)((next_random(&s) >> 11) % 2001) / 1000.0 - 1.0;
        }
    }
    for (int64_t k = 0; k < cols; k++)
        for (int64_t t = 0; t < 8 && k + 8 * t < cols; t++, nb++) {
            bi[nb] = k;
            bj[nb] = k + 8 * t;
            bv[nb] = (double)((next_random(&s) >> 11) % 2001) / 1000.0 - 1.0;
        }
    CHECK_OK(rvs_csr_from_coo(&A, rows, cols, na, ri, ci, v, RVS_F64, &err), &err);
    CHECK_OK(rvs_csr_from_coo(&B, cols, cols, nb, bi, bj, bv, RVS_F64, &err), &err);
    case_check_all(m, nm, "row lengths", &A, &B, stats);
    CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&B, RVS_F32, &err), &err);
    case_check_all(m, nm, "row lengths f32", &A, &B, NULL);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
done:
    free(ri);
    free(ci);
    free(v);
    free(bi);
    free(bj);
    free(bv);
}

/* Empty rows and columns everywhere, matrices without entries, and zero-sized ones. */
static void case_empty(const spgemm_method *m, int nm)
{
    /* A 4x5: rows 0 and 2 empty, column 1 and 4 empty; B 5x3: row 0 and 3 empty, column 2 empty */
    static const int64_t ar[] = {1, 1, 3}, ac[] = {0, 3, 2}, br[] = {1, 2, 4}, bc[] = {0, 1, 1};
    static const double av[] = {1, 2, 3}, bv[] = {4, 5, 6};
    static const int64_t sizes[][3] = {{0, 0, 0}, {5, 0, 4}, {0, 3, 2}, {3, 4, 0}, {6, 6, 6}};
    rvs_csr A, B, C;
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(&A, 4, 5, 3, ar, ac, av, RVS_F64, &err), &err);
    CHECK_OK(rvs_csr_from_coo(&B, 5, 3, 3, br, bc, bv, RVS_F64, &err), &err);
    case_check_all(m, nm, "empty rows and columns", &A, &B, NULL);
    for (int k = 0; k < nm; k++)
        if (m[k].f(&C, &A, &B, NULL, &err) == RVS_OK) {
            /* A(1,0) and A(1,3) meet empty rows of B; only A(3,2)*B(2,1) = 15 remains */
            CHECKF(C.nnz == 1 && C.rows == 4 && C.cols == 3 && C.rowptr[3] == 0 && C.colind[0] == 1 &&
                       rvs_csr_value(&C, 0) == 15,
                   "%s", m[k].name);
            rvs_csr_free(&C);
        }
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    for (int t = 0; t < 5; t++) { /* no entries at all */
        CHECK_OK(rvs_csr_from_coo(&A, sizes[t][0], sizes[t][1], 0, NULL, NULL, NULL, RVS_F64, &err), &err);
        CHECK_OK(rvs_csr_from_coo(&B, sizes[t][1], sizes[t][2], 0, NULL, NULL, NULL, RVS_F64, &err), &err);
        case_check_all(m, nm, "no entries", &A, &B, NULL);
        rvs_csr_free(&A);
        rvs_csr_free(&B);
    }
}

/* A dimension mismatch is refused with the sizes in the message; mixed precisions too. */
static void case_mismatch(const spgemm_method *m, int nm)
{
    rvs_csr A, B, C;
    rvs_error err;
    CHECK(rvs_test_random_csr(&A, 5, 7, 0.5, 0, 1) == RVS_OK);
    CHECK(rvs_test_random_csr(&B, 6, 3, 0.5, 0, 2) == RVS_OK);
    for (int k = 0; k < nm; k++) {
        CHECKF(m[k].f(&C, &A, &B, NULL, &err) == RVS_ERR_DIM, "%s", m[k].name);
        CHECKF(strcmp(err.msg, "dimension mismatch: A is 5 x 7, B is 6 x 3") == 0, "%s: message '%s'", m[k].name,
               err.msg);
    }
    rvs_csr_free(&B);
    CHECK(rvs_test_random_csr(&B, 7, 3, 0.5, 0, 2) == RVS_OK);
    CHECK(rvs_csr_convert_values(&B, RVS_F32, &err) == RVS_OK);
    for (int k = 0; k < nm; k++)
        CHECKF(m[k].f(&C, &A, &B, NULL, &err) == RVS_ERR_ARG, "%s", m[k].name);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
}

/* Complex A*B (c128 and c64, through the stacked real product of spgemm_complex.c):
 * rectangular with empty rows, square with a few long rows, purely real and purely imaginary
 * values among them, each checked against CXSparse's cs_cl_multiply; a complex times a real
 * operand is refused (the programs promote the real one). */
static void case_complex(const spgemm_method *m, int nm)
{
    static const int64_t dims[][3] = {{50, 30, 70}, {200, 3, 90}, {7, 300, 2}, {400, 400, 400}};
    static const rvs_vtype vts[2] = {RVS_C128, RVS_C64};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 2; k++) {
            rvs_csr A, B, C;
            rvs_error err;
            char what[64];
            CHECK(rvs_test_random_csr(&A, dims[t][0], dims[t][1], t == 3 ? 0.02 : 0.1, 1, 31u + t) == RVS_OK);
            CHECK(rvs_test_random_csr(&B, dims[t][1], dims[t][2], t == 3 ? 0.02 : 0.2, 1, 131u + t) == RVS_OK);
            CHECK_OK(rvs_test_complexify(&A, vts[k], 7u + t), &err);
            CHECK_OK(rvs_test_complexify(&B, vts[k], 17u + t), &err);
            snprintf(what, sizeof what, "complex %s %lldx%lldx%lld", rvs_vtype_name(vts[k]), (long long)dims[t][0],
                     (long long)dims[t][1], (long long)dims[t][2]);
            case_check_all(m, nm, what, &A, &B, NULL);
            if (t == 0) {
                rvs_csr R;
                CHECK(rvs_test_random_csr(&R, dims[t][1], dims[t][2], 0.2, 1, 5) == RVS_OK);
                for (int j = 0; j < nm; j++)
                    CHECKF(m[j].f(&C, &A, &R, NULL, &err) == RVS_ERR_ARG, "%s: complex times real", m[j].name);
                rvs_csr_free(&R);
            }
            rvs_csr_free(&A);
            rvs_csr_free(&B);
        }
}

/* Every case above but the bins and the row lengths (whose stats the callers check). */
static void spgemm_all_cases(const spgemm_method *m, int nm, int64_t f32_max_products)
{
    case_complex(m, nm);
    case_rectangular(m, nm);
    case_empty(m, nm);
    case_mismatch(m, nm);
    case_shared_matrices(m, nm, f32_max_products);
}

#endif
