/* test_partition_metis.c - the METIS partition: every row once, each part's rows ascending,
 * balanced within METIS's tolerance, the same on every run, fewer x entries moved than
 * Algorithm 2 on a grid; the rule that picks a partition for spmv-mpi (partition_choose.c) */
#include <string.h>
#include "partition_choose.h"
#include "rvs_test.h"

/* METIS's default imbalance tolerance for k-way (ufactor 30: the heaviest part at most 1.03
 * times its target), plus one row: a part cannot take less than a whole row. */
#define METIS_TOLERANCE 1.03

/* The 5-point Laplacian of an n x n grid, rows by grid index. */
static void grid(rvs_csr *A, int64_t n)
{
    int64_t len[4096];
    for (int64_t i = 0; i < n * n; i++)
        len[i] = 1 + (i % n > 0) + (i % n < n - 1) + (i / n > 0) + (i / n < n - 1);
    CHECK(rvs_test_csr_from_lengths(A, len, n * n, n * n) == RVS_OK);
    for (int64_t i = 0; i < n * n; i++) { /* the positions the lengths stand for */
        int64_t p = A->rowptr[i];
        const int64_t r = i / n, c = i % n;
        if (r > 0)
            A->colind[p++] = (int32_t)(i - n);
        if (c > 0)
            A->colind[p++] = (int32_t)(i - 1);
        A->colind[p++] = (int32_t)i;
        if (c < n - 1)
            A->colind[p++] = (int32_t)(i + 1);
        if (r < n - 1)
            A->colind[p++] = (int32_t)(i + n);
    }
}

/* P is a partition of every row of A once, each part's rows ascending, entries counted right. */
static void check_valid(const rvs_partition *P, const rvs_csr *A)
{
    rvs_error err;
    CHECK_OK(rvs_partition_validate(P, A, &err), &err);
    CHECK(P->alg == RVS_ALG_METIS);
    int64_t nnz = 0;
    for (int i = 0; i < P->k; i++) {
        int64_t held = 0;
        for (int64_t j = 0; j < P->parts[i].nrows; j++) {
            const int64_t r = P->parts[i].rows[j];
            CHECK(j == 0 || P->parts[i].rows[j - 1] < r);
            held += A->rowptr[r + 1] - A->rowptr[r];
        }
        CHECK(held == P->parts[i].nnz);
        nnz += held;
    }
    CHECK(nnz == A->nnz);
}

/* Partition A into k parts of powers cp with METIS twice: valid and the same both times. */
static void check_metis(const rvs_csr *A, int k, const double *cp, rvs_partition *P)
{
    rvs_partition Q;
    rvs_error err;
    CHECK_OK(rvs_partition_compute(P, A, RVS_ALG_METIS, k, cp, NULL, 0, &err), &err);
    check_valid(P, A);
    CHECK_OK(rvs_partition_compute(&Q, A, RVS_ALG_METIS, k, cp, NULL, 0, &err), &err);
    int same = Q.k == P->k;
    for (int i = 0; same && i < P->k; i++)
        same = Q.parts[i].nrows == P->parts[i].nrows &&
               memcmp(Q.parts[i].rows, P->parts[i].rows, (size_t)Q.parts[i].nrows * sizeof *Q.parts[i].rows) == 0;
    CHECKF(same, "two runs of %d parts differ", k);
    rvs_partition_free(&Q);
}

/* The score of alg's partition of A into k equal parts. */
static rvs_partition_score score(const rvs_csr *A, rvs_alg alg, int k)
{
    double cp[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    rvs_partition_score s;
    rvs_error err;
    CHECK_OK(rvs_partition_score_one(&s, NULL, A, alg, k, cp, &err), &err);
    return s;
}

/* A grid: balanced within the tolerance and fewer x entries moved than Algorithm 2's slabs on
 * 4 and 8 parts (on 2 a slab is already a least cut, which METIS need not find: near it). */
static void grid_cases(void)
{
    rvs_csr A;
    const double cp[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    grid(&A, 64);
    for (int k = 2; k <= 8; k *= 2) {
        rvs_partition P;
        check_metis(&A, k, cp, &P);
        for (int i = 0; i < k; i++)
            CHECKF((double)P.parts[i].nnz <= METIS_TOLERANCE * (double)A.nnz / k + 5, "part %d of %d: %lld of %lld",
                   i + 1, k, (long long)P.parts[i].nnz, (long long)A.nnz);
        rvs_partition_free(&P);
        const rvs_partition_score m = score(&A, RVS_ALG_METIS, k), n = score(&A, RVS_ALG_NNZ, k);
        CHECKF(k == 2 ? m.cut.volume <= n.cut.volume * 5 / 4 : m.cut.volume < n.cut.volume,
               "%d parts: volume %lld, nnz's %lld", k, (long long)m.cut.volume, (long long)n.cut.volume);
        CHECK(m.cut.volume <= m.cut.edge_cut && m.imbalance <= METIS_TOLERANCE + 5.0 * k / (double)A.nnz);
    }
    /* unequal powers: part i aims at cp_i / sum(cp) of the entries */
    const double skew[3] = {1, 2, 5};
    rvs_partition P;
    check_metis(&A, 3, skew, &P);
    for (int i = 0; i < 3; i++)
        CHECKF((double)P.parts[i].nnz <= METIS_TOLERANCE * (double)A.nnz * skew[i] / 8 + 5, "part %d: %lld", i + 1,
               (long long)P.parts[i].nnz);
    rvs_partition_free(&P);
    rvs_csr_free(&A);
}

/* Square random matrices, more parts than rows, no rows; a rectangular one is refused. */
static void shapes(void)
{
    const double cp[7] = {1, 2, 6, 1, 1, 1, 1};
    rvs_partition P;
    rvs_error err;
    for (unsigned seed = 1; seed <= 4; seed++) {
        rvs_csr A;
        const int64_t n = 60 + seed * 41;
        CHECK(rvs_test_random_csr(&A, n, n, 0.02 * seed, seed & 1, seed) == RVS_OK);
        for (int k = 1; k <= 7; k += 2) {
            check_metis(&A, k, cp, &P);
            rvs_partition_free(&P);
        }
        rvs_csr_free(&A);
    }
    rvs_csr A;
    const int64_t len[3] = {2, 0, 1};
    CHECK(rvs_test_csr_from_lengths(&A, len, 3, 3) == RVS_OK);
    check_metis(&A, 7, cp, &P);
    rvs_partition_free(&P);
    rvs_csr_free(&A);
    CHECK(rvs_csr_alloc(&A, 0, 0, 0, RVS_F64, NULL) == RVS_OK);
    check_metis(&A, 3, cp, &P);
    rvs_partition_free(&P);
    rvs_csr_free(&A);
    CHECK(rvs_test_random_csr(&A, 40, 50, 0.1, 0, 3) == RVS_OK);
    CHECK(rvs_partition_compute(&P, &A, RVS_ALG_METIS, 2, cp, NULL, 0, &err) == RVS_ERR_DIM);
    CHECK(strstr(err.msg, "square") != NULL);
    rvs_csr_free(&A);
}

/* The rule: the least volume within RVS_PICK_BALANCE_SLACK of the best imbalance, ties to the
 * earlier, partitions not made left out. */
static void pick_rule(void)
{
    rvs_partition_score s[4];
    memset(s, 0, sizeof s);
    const double imb[4] = {1.0, 1.3, 1.0, 1.05};
    const int64_t vol[4] = {100, 10, 120, 50};
    for (int i = 0; i < 4; i++) {
        s[i].imbalance = imb[i];
        s[i].cut.volume = vol[i];
    }
    CHECK(rvs_partition_pick(s, 4) == 3); /* 1 is lighter still but 30% off balance */
    s[3].cut.volume = 100;
    CHECK(rvs_partition_pick(s, 4) == 0); /* a tie: the earlier */
    s[0].status = s[3].status = RVS_ERR_UNSUPPORTED;
    CHECK(rvs_partition_pick(s, 4) == 2);
    s[2].status = RVS_ERR_DIM;
    CHECK(rvs_partition_pick(s, 4) == 1); /* the best balance left is 1.3 */
    s[1].status = RVS_ERR_DIM;
    CHECK(rvs_partition_pick(s, 4) == -1);
}

/* rvs_partition_choose on a grid of 4 parts takes metis and says so, with every volume. */
static void choose_grid(void)
{
    rvs_csr A;
    rvs_partition P;
    rvs_error err;
    char why[1024];
    grid(&A, 64);
    CHECK_OK(rvs_partition_choose(&P, &A, 4, why, sizeof why, &err), &err);
    CHECK(P.alg == RVS_ALG_METIS && P.k == 4);
    CHECKF(strncmp(why, "partition metis: ", 17) == 0 && strstr(why, " nnz ") && strstr(why, " rows ") &&
               strstr(why, " pmf ") && strstr(why, " metis "),
           "%s", why);
    check_valid(&P, &A);
    rvs_partition_free(&P);
    rvs_csr_free(&A);
}

int main(void)
{
    pick_rule();
    if (!rvs_partition_have_metis()) { /* the stub says so, and the rest needs METIS */
        rvs_csr A;
        rvs_partition P;
        rvs_error err;
        const double cp[2] = {1, 1};
        CHECK(rvs_csr_alloc(&A, 2, 2, 0, RVS_F64, NULL) == RVS_OK);
        CHECK(rvs_partition_compute(&P, &A, RVS_ALG_METIS, 2, cp, NULL, 0, &err) == RVS_ERR_UNSUPPORTED);
        CHECK(strstr(err.msg, "built without METIS") != NULL);
        rvs_csr_free(&A);
        if (rvs_test_done() != 0)
            return 1;
        puts("built without METIS: skipped");
        return RVS_TEST_SKIP;
    }
    grid_cases();
    shapes();
    choose_grid();
    return rvs_test_done();
}
