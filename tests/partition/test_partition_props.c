/* test_partition_props.c - every algorithm on random and real matrices: row sets disjoint and
 * complete, metrics consistent, Algorithm 4's entry split exact, bad arguments refused */
#include <math.h>
#include <string.h>
#include "rvs_test.h"

/* Check one partition of A against its definition. */
static void check_partition(const rvs_csr *A, rvs_alg alg, int k, const double *cp)
{
    rvs_partition P;
    rvs_error err;
    rvs_status st = rvs_partition_compute(&P, A, alg, k, cp, NULL, 16, &err);
    CHECK_OK(st, &err);
    if (st != RVS_OK)
        return;
    CHECK_OK(rvs_partition_validate(&P, A, &err), &err);
    int64_t nnz = 0, e = 0;
    for (int i = 0; i < P.k; i++) {
        rvs_csr S;
        CHECK_OK(rvs_partition_extract(&S, &P, i, A, &err), &err);
        int64_t w = 0;
        for (int64_t r = 0; r < S.rows; r++) {
            int64_t l = S.rowptr[r + 1] - S.rowptr[r];
            w = l > w ? l : w;
            for (int64_t p = S.rowptr[r]; p < S.rowptr[r + 1]; p++) {
                int inside = S.colind[p] / 16 == P.parts[i].rows[r] / 16;
                if (P.parts[i].entries == RVS_ENTRIES_DIAG)
                    CHECK(inside);
                if (P.parts[i].entries == RVS_ENTRIES_OFFDIAG)
                    CHECK(!inside);
            }
        }
        CHECK(S.nnz == P.parts[i].nnz);
        CHECK(w == P.parts[i].width);
        nnz += S.nnz;
        e += P.parts[i].e;
        rvs_csr_free(&S);
    }
    CHECKF(nnz == A->nnz, "%s: parts hold %lld of %lld entries", rvs_alg_name(alg), (long long)nnz,
           (long long)A->nnz);
    CHECK(e == P.e_total);
    if (alg == RVS_ALG_PMF) /* rows within a part come ordered by length */
        for (int i = 0; i < P.k; i++)
            for (int64_t j = 1; j < P.parts[i].nrows; j++) {
                int64_t a = P.parts[i].rows[j - 1], b = P.parts[i].rows[j];
                int64_t la = A->rowptr[a + 1] - A->rowptr[a], lb = A->rowptr[b + 1] - A->rowptr[b];
                CHECK(la < lb || (la == lb && a < b));
            }
    /* a corrupted partition is refused */
    if (P.parts[P.k - 1].nrows > 0) {
        int64_t keep = P.parts[P.k - 1].rows[0];
        P.parts[P.k - 1].rows[0] = A->rows;
        CHECK(rvs_partition_validate(&P, A, &err) == RVS_ERR_RANGE);
        P.parts[P.k - 1].rows[0] = keep;
        if (P.parts[P.k - 1].nrows > 1) {
            P.parts[P.k - 1].rows[0] = P.parts[P.k - 1].rows[1];
            CHECK(rvs_partition_validate(&P, A, &err) == RVS_ERR_FORMAT);
            P.parts[P.k - 1].rows[0] = keep;
        }
    }
    rvs_partition_free(&P);
}

int main(void)
{
    const double cps[][7] = {{1, 2, 6}, {75, 75, 1, 1, 1, 1, 1}, {1}, {3, 1}};
    const int ks[] = {3, 7, 1, 2};
    rvs_error err;
    for (unsigned seed = 1; seed <= 6; seed++) {
        rvs_csr A;
        int64_t rows = 50 + seed * 37, cols = 40 + seed * 29;
        CHECK(rvs_test_random_csr(&A, rows, cols, 0.05 * seed, seed & 1, seed) == RVS_OK);
        for (int alg = RVS_ALG_ROWS; alg <= RVS_ALG_DIAG; alg++)
            for (int c = 0; c < 4; c++)
                if (alg != RVS_ALG_DIAG || ks[c] >= 2)
                    check_partition(&A, (rvs_alg)alg, ks[c], cps[c]);
        rvs_csr_free(&A);
    }
    /* more parts than rows, an empty matrix */
    rvs_csr A;
    const int64_t len[2] = {3, 0};
    CHECK(rvs_test_csr_from_lengths(&A, len, 2, 5) == RVS_OK);
    for (int alg = RVS_ALG_ROWS; alg <= RVS_ALG_DIAG; alg++)
        check_partition(&A, (rvs_alg)alg, 7, cps[1]);
    rvs_csr_free(&A);
    CHECK(rvs_csr_alloc(&A, 0, 0, 0, RVS_F64, NULL) == RVS_OK);
    for (int alg = RVS_ALG_ROWS; alg <= RVS_ALG_DIAG; alg++)
        check_partition(&A, (rvs_alg)alg, 3, cps[0]);
    /* bad arguments */
    rvs_partition P;
    const double bad[2] = {1, -1}, nan2[2] = {1, NAN};
    CHECK(rvs_partition_compute(&P, &A, RVS_ALG_NNZ, 2, bad, NULL, 0, &err) == RVS_ERR_ARG);
    CHECK(rvs_partition_compute(&P, &A, RVS_ALG_NNZ, 2, nan2, NULL, 0, &err) == RVS_ERR_ARG);
    CHECK(rvs_partition_compute(&P, &A, RVS_ALG_DIAG, 1, cps[2], NULL, 0, &err) == RVS_ERR_ARG);
    CHECK(rvs_partition_compute(&P, &A, RVS_ALG_NNZ, 0, cps[0], NULL, 0, &err) == RVS_ERR_ARG);
    rvs_csr_free(&A);
    /* real matrices: every algorithm on a sample */
    rvs_test_matrix *list;
    int n = rvs_test_matrix_list(&list);
    for (int i = 0; i < n; i += 9) {
        if (strcmp(list[i].field, "complex") == 0)
            continue;
        if (rvs_mm_read_file(&A, NULL, list[i].path, NULL, NULL, &err) != RVS_OK)
            continue;
        for (int alg = RVS_ALG_ROWS; alg <= RVS_ALG_DIAG; alg++)
            check_partition(&A, (rvs_alg)alg, 7, cps[1]);
        rvs_csr_free(&A);
    }
    free(list);
    return rvs_test_done();
}
