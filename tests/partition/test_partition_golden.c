/* test_partition_golden.c - the 20x20 worked example of pmf-partitioning (Figs. 1-3), CP = 1,2,6 */
#include <string.h>
#include "rvs_test.h"

static const int64_t lengths[20] = {2, 5, 3, 7, 1, 5, 2, 6, 13, 5, 7, 9, 3, 10, 7, 1, 6, 13, 2, 10};

/* Expected part: 1-based rows in storage order, then the metrics. */
typedef struct {
    int nrows;
    int rows[20];
    int64_t nnz, width, padded;
} want_part;

/* Compare one partition with the paper's answer. */
static void check_alg(const rvs_csr *A, rvs_alg alg, const want_part *want, int64_t e_total, int64_t padded_total)
{
    const double cp[3] = {1, 2, 6};
    rvs_partition P;
    rvs_error err;
    rvs_status st = rvs_partition_compute(&P, A, alg, 3, cp, NULL, 0, &err);
    CHECK_OK(st, &err);
    if (st != RVS_OK)
        return;
    CHECK(rvs_partition_validate(&P, A, &err) == RVS_OK);
    for (int i = 0; i < 3; i++) {
        const rvs_part *q = &P.parts[i];
        CHECKF(q->nrows == want[i].nrows, "%s part %d: %lld rows, want %d", rvs_alg_name(alg), i + 1,
               (long long)q->nrows, want[i].nrows);
        for (int j = 0; j < want[i].nrows && j < q->nrows; j++)
            CHECKF(q->rows[j] + 1 == want[i].rows[j], "%s part %d row %d: %lld, want %d", rvs_alg_name(alg), i + 1,
                   j, (long long)q->rows[j] + 1, want[i].rows[j]);
        CHECKF(q->nnz == want[i].nnz, "%s part %d nnz %lld want %lld", rvs_alg_name(alg), i + 1, (long long)q->nnz,
               (long long)want[i].nnz);
        CHECKF(q->width == want[i].width, "%s part %d width %lld want %lld", rvs_alg_name(alg), i + 1,
               (long long)q->width, (long long)want[i].width);
        CHECKF(q->padded == want[i].padded, "%s part %d padded %lld want %lld", rvs_alg_name(alg), i + 1,
               (long long)q->padded, (long long)want[i].padded);
        CHECK(q->e == q->nrows * q->width);
    }
    CHECKF(P.nnz == 117, "nnz %lld", (long long)P.nnz);
    CHECKF(P.e_total == e_total, "%s E %lld want %lld", rvs_alg_name(alg), (long long)P.e_total,
           (long long)e_total);
    CHECKF(P.padded_total == padded_total, "%s padded %lld want %lld", rvs_alg_name(alg), (long long)P.padded_total,
           (long long)padded_total);
    CHECK(P.mean_density == 117.0 / (double)e_total);
    CHECK(P.mean_zero_fill == 1.0 - 117.0 / (double)e_total);
    rvs_partition_free(&P);
}

/* The three algorithms on one matrix with the paper's row lengths. */
static void check_matrix(const rvs_csr *A)
{
    const want_part alg1[3] = {{2, {1, 2}, 7, 5, 3},
                               {4, {3, 4, 5, 6}, 16, 7, 12},
                               {14, {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 94, 13, 88}};
    const want_part alg2[3] = {{3, {1, 2, 3}, 10, 5, 5},
                               {5, {4, 5, 6, 7, 8}, 21, 7, 14},
                               {12, {9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 86, 13, 70}};
    /* Algorithm 3 stores rows by length, then index: {5,16 | 1,7,19 | 3,13} and so on. */
    const want_part alg3[3] = {{7, {5, 16, 1, 7, 19, 3, 13}, 14, 3, 7},
                               {5, {2, 6, 10, 8, 17}, 27, 6, 3},
                               {8, {4, 11, 15, 12, 14, 20, 9, 18}, 76, 13, 28}};
    check_alg(A, RVS_ALG_ROWS, alg1, 220, 103);
    check_alg(A, RVS_ALG_NNZ, alg2, 206, 89);
    check_alg(A, RVS_ALG_PMF, alg3, 155, 38);
    rvs_pmf P;
    rvs_error err;
    CHECK_OK(rvs_pmf_compute(&P, A, &err), &err);
    CHECK(P.ell_density == 117.0 / 260.0);
    CHECK(P.max == 13 && P.min == 1 && P.nnz == 117 && P.empty_rows == 0);
    CHECK(P.nbins == 9);
    rvs_pmf_free(&P);
}

/* Same lengths, columns chosen at random by a seed: positions must not matter. */
static void scatter_columns(rvs_csr *A, unsigned seed)
{
    unsigned s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < A->rows; i++) {
        int perm[20], used[20] = {0};
        for (int c = 0; c < 20; c++)
            perm[c] = c;
        for (int c = 19; c > 0; c--) {
            s = s * 1103515245u + 12345u;
            int j = (int)((s >> 8) % (unsigned)(c + 1)), t = perm[c];
            perm[c] = perm[j];
            perm[j] = t;
        }
        int64_t n = A->rowptr[i + 1] - A->rowptr[i], p = A->rowptr[i];
        for (int64_t k = 0; k < n; k++)
            used[perm[k]] = 1;
        for (int c = 0; c < 20; c++)
            if (used[c])
                A->colind[p++] = c;
    }
}

int main(void)
{
    rvs_csr A;
    CHECK(rvs_test_csr_from_lengths(&A, lengths, 20, 20) == RVS_OK);
    CHECK(A.nnz == 117);
    rvs_error err;
    CHECK_OK(rvs_csr_validate(&A, &err), &err);
    check_matrix(&A);
    for (unsigned seed = 1; seed < 4; seed++) {
        scatter_columns(&A, seed);
        CHECK_OK(rvs_csr_validate(&A, &err), &err);
        check_matrix(&A);
    }
    rvs_csr_free(&A);
    return rvs_test_done();
}
