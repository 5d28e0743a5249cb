/* test_spgemm_gpu_short.c - the row-wise GPU method on rows of 1-3 entries (the ESC bin's rows of
 * few products, several to a warp; the copy bin's short rows of B, several to a warp): random
 * A and B of 200k rows, a diagonal, and rows of few and of many products side by side, in f64
 * and f32, in one pass, in two and in two under 1 MiB (many blocks); C against CSparse, and every
 * row of at most 32 products (ESC and copy) bit for bit equal to its sums in product order */
#include <string.h>
#include "rvs_test.h"
#include "rvs_engine_spgemm.h"
#include "rvs_gpu.h"

#define ROWS 200000
#define ESC_MAX 32 /* rows of this many products are summed in product order on the device */

/* The passes and budgets of the row-wise method. */
static const struct {
    const char *name;
    int passes;
    size_t mem;
} configs[] = {{"one pass", 1, 0}, {"two passes", 2, 0}, {"two passes 1 MiB", 2, 1u << 20}};

/* The next number of a 64-bit linear congruential sequence. */
static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s;
}

/* A value in [-1, 1) that is neither zero nor a short binary fraction (sums round). */
static double random_value(uint64_t *s)
{
    const double v = (double)((next_random(s) >> 11) % 2001) / 1000.0 - 1.0;
    return v != 0 ? v : 0.001;
}

/* rows x cols with 1-3 entries a row at random columns; every long_every-th row (0: none) has
 * long_len entries instead, and every empty_every-th (0: none) none. */
static rvs_status short_rows(rvs_csr *A, int64_t rows, int64_t cols, int64_t long_every, int64_t long_len,
                             int64_t empty_every, uint64_t seed)
{
    uint64_t s = seed;
    int64_t nnz = 0, *ri = NULL, *ci = NULL;
    double *v = NULL;
    rvs_error err;
    rvs_status st = RVS_ERR_NOMEM;
    const int64_t cap = rows * 3 + (long_every ? rows / long_every + 1 : 0) * long_len;
    ri = malloc((size_t)cap * sizeof *ri);
    ci = malloc((size_t)cap * sizeof *ci);
    v = malloc((size_t)cap * sizeof *v);
    if (!ri || !ci || !v)
        goto done;
    for (int64_t i = 0; i < rows; i++) {
        int64_t len = 1 + (int64_t)((next_random(&s) >> 33) % 3);
        if (long_every && i % long_every == long_every - 1)
            len = long_len;
        if (empty_every && i % empty_every == 0)
            len = 0;
        for (int64_t t = 0; t < len; t++, nnz++) {
            ri[nnz] = i;
            ci[nnz] = (int64_t)((next_random(&s) >> 33) % (uint64_t)cols);
            v[nnz] = random_value(&s);
        }
    }
    st = rvs_csr_from_coo(A, rows, cols, nnz, ri, ci, v, RVS_F64, &err);
done:
    free(ri);
    free(ci);
    free(v);
    return st;
}

/* The n x n diagonal with random values at the rows that are multiples of every, the others
 * empty. */
static rvs_status diagonal(rvs_csr *D, int64_t n, int64_t every, uint64_t seed)
{
    uint64_t s = seed;
    int64_t *ij = malloc((size_t)n * sizeof *ij), nnz = 0;
    double *v = malloc((size_t)n * sizeof *v);
    rvs_error err;
    rvs_status st = RVS_ERR_NOMEM;
    if (ij && v) {
        for (int64_t i = 0; i < n; i += every, nnz++) {
            ij[nnz] = i;
            v[nnz] = random_value(&s);
        }
        st = rvs_csr_from_coo(D, n, n, nnz, ij, ij, v, RVS_F64, &err);
    }
    free(ij);
    free(v);
    return st;
}

/* Whether row i of C holds the sums of A*B's row i in product order, bit for bit: each sum
 * started at zero, each product rounded before it is added (acc, at: scratch over B's columns,
 * zero). V is double or float. */
#define ROW_IN_PRODUCT_ORDER(NAME, V)                                                                  \
    static int NAME(const rvs_csr *C, const rvs_csr *A, const rvs_csr *B, int64_t i, V *acc, char *at) \
    {                                                                                                  \
        const V *av = A->values, *bv = B->values, *cv = C->values;                                     \
        int ok = 1;                                                                                    \
        for (int64_t e = C->rowptr[i]; e < C->rowptr[i + 1]; e++) {                                    \
            acc[C->colind[e]] = 0;                                                                     \
            at[C->colind[e]] = 1;                                                                      \
        }                                                                                              \
        for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)                                      \
            for (int64_t f = B->rowptr[A->colind[e]]; f < B->rowptr[A->colind[e] + 1]; f++) {          \
                volatile V p = av[e] * bv[f]; /* no fused multiply-add */                              \
                ok &= at[B->colind[f]];                                                                \
                acc[B->colind[f]] += p;                                                                \
            }                                                                                          \
        for (int64_t e = C->rowptr[i]; e < C->rowptr[i + 1]; e++) {                                    \
            ok &= memcmp(&cv[e], &acc[C->colind[e]], sizeof(V)) == 0;                                  \
            at[C->colind[e]] = 0;                                                                      \
        }                                                                                              \
        return ok;                                                                                     \
    }
ROW_IN_PRODUCT_ORDER(row_in_order_f64, double)
ROW_IN_PRODUCT_ORDER(row_in_order_f32, float)

/* Rows of C of at most ESC_MAX products that differ from their sums in product order. */
static int64_t rows_not_in_product_order(const rvs_csr *C, const rvs_csr *A, const rvs_csr *B)
{
    double *acc = calloc((size_t)B->cols + 1, sizeof(double));
    char *at = calloc((size_t)B->cols + 1, 1);
    int64_t bad = 0;
    CHECK(acc && at);
    for (int64_t i = 0; acc && at && i < A->rows; i++) {
        int64_t p = 0;
        for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)
            p += B->rowptr[A->colind[e] + 1] - B->rowptr[A->colind[e]];
        if (p <= ESC_MAX)
            bad += !(A->vtype == RVS_F64 ? row_in_order_f64(C, A, B, i, acc, at)
                                         : row_in_order_f32(C, A, B, i, (float *)acc, at));
    }
    free(acc);
    free(at);
    return bad;
}

/* C = A*B by the row-wise method in every configuration, f64 then f32 (A and B are left in
 * f32): C checked against CSparse, its short rows bit for bit, rows in the ESC bins (rows_esc
 * counts ESC and copy), and blocks where C is twice the budget. */
static void check_product(const char *what, rvs_csr *A, rvs_csr *B)
{
    rvs_error err;
    for (int prec = 0; prec < 2; prec++) {
        if (prec == 1) {
            CHECK_OK(rvs_csr_convert_values(A, RVS_F32, &err), &err);
            if (B != A)
                CHECK_OK(rvs_csr_convert_values(B, RVS_F32, &err), &err);
        }
        for (size_t q = 0; q < sizeof configs / sizeof *configs; q++) {
            rvs_spgemm_options o;
            rvs_spgemm_stats s;
            rvs_csr C;
            double maxerr = 0;
            memset(&o, 0, sizeof o);
            o.poison = 1;
            o.passes = configs[q].passes;
            o.gpu_mem_bytes = configs[q].mem;
            rvs_status st = rvs_spgemm_gpu(&C, A, B, &o, &s, &err);
            CHECKF(st == RVS_OK, "%s %s, %s: %s", what, prec ? "f32" : "f64", configs[q].name, err.msg);
            if (st != RVS_OK)
                continue;
            st = rvs_spgemm_check(&C, A, B, rvs_spgemm_tolerance(A->vtype), &maxerr, &err);
            CHECKF(st == RVS_OK, "%s %s, %s: %s", what, prec ? "f32" : "f64", configs[q].name, err.msg);
            CHECKF(rvs_csr_validate(&C, &err) == RVS_OK, "%s, %s: C invalid: %s", what, configs[q].name, err.msg);
            const int64_t bad = rows_not_in_product_order(&C, A, B);
            CHECKF(bad == 0, "%s %s, %s: %lld rows differ from their sums in product order", what,
                   prec ? "f32" : "f64", configs[q].name, (long long)bad);
            const size_t c_bytes = (size_t)C.nnz * (sizeof(int32_t) + rvs_vtype_size(C.vtype));
            CHECKF(s.rows_esc > 0 && s.cpu_rows == 0 && (configs[q].passes == 2 || s.blocks == 1) &&
                       (configs[q].mem == 0 || c_bytes <= 2 * configs[q].mem || s.blocks > 1),
                   "%s, %s: esc %lld, cpu %lld, %lld blocks", what, configs[q].name, (long long)s.rows_esc,
                   (long long)s.cpu_rows, (long long)s.blocks);
            rvs_csr_free(&C);
        }
    }
}

/* Random A and B of 1-3 entries a row: 1-9 products, in the ESC bin's segments of lanes, and
 * rows of one entry in the copy bin with B's rows short; A*A too. */
static void check_short_random(void)
{
    rvs_csr A, B;
    CHECK(short_rows(&A, ROWS, ROWS, 0, 0, 0, 1) == RVS_OK);
    CHECK(short_rows(&B, ROWS, ROWS, 0, 0, 0, 2) == RVS_OK);
    check_product("random 1-3 a row", &A, &B);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    CHECK(short_rows(&A, ROWS, ROWS, 0, 0, 0, 1) == RVS_OK); /* f64 again */
    check_product("random 1-3 a row, A*A", &A, &A);
    rvs_csr_free(&A);
}

/* A diagonal (every row a copy of one entry of B), times itself and times short rows either
 * side (D*A: copies of rows of 1-3; A*D: ESC rows of 1-3 products). */
static void check_diagonal(void)
{
    rvs_csr D, A;
    CHECK(diagonal(&D, ROWS, 1, 3) == RVS_OK);
    check_product("diagonal", &D, &D);
    rvs_csr_free(&D);
    CHECK(diagonal(&D, ROWS, 1, 3) == RVS_OK);
    CHECK(short_rows(&A, ROWS, ROWS, 0, 0, 0, 4) == RVS_OK);
    check_product("diagonal times 1-3 a row", &D, &A);
    rvs_csr_free(&D);
    rvs_csr_free(&A);
    CHECK(diagonal(&D, ROWS, 1, 3) == RVS_OK);
    CHECK(short_rows(&A, ROWS, ROWS, 0, 0, 0, 4) == RVS_OK);
    check_product("1-3 a row times diagonal", &A, &D);
    rvs_csr_free(&D);
    rvs_csr_free(&A);
}

/* Rows of few and of many products in the same warps: A of 1-3 entries a row, every 97th of
 * 24, times B whose rows are empty at multiples of 4 and every 50th has 15 entries: products
 * from 0 to hundreds, so the ESC bin holds rows of at most 8 products and rows of 9-32 side by
 * side, next to the hash bins. Then A times a diagonal with every 8th entry: A's rows of 24
 * entries give about 3 products, and their segments of lanes walk A's row in several turns. */
static void check_mixed(void)
{
    rvs_csr A, B;
    CHECK(short_rows(&A, ROWS, ROWS / 4, 97, 24, 0, 5) == RVS_OK);
    CHECK(short_rows(&B, ROWS / 4, ROWS, 50, 15, 4, 6) == RVS_OK);
    check_product("few and many products", &A, &B);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    CHECK(short_rows(&A, ROWS, ROWS / 4, 97, 24, 0, 5) == RVS_OK);
    CHECK(diagonal(&B, ROWS / 4, 8, 7) == RVS_OK);
    check_product("long rows of A, few products", &A, &B);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
}

int main(void)
{
    if (rvs_gpu_count() == 0) {
        fprintf(stderr, "no GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    check_short_random();
    check_diagonal();
    check_mixed();
    rvs_spgemm_gpu_release();
    return rvs_test_done();
}
