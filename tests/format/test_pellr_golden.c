/* test_pellr_golden.c - Fig. 5 of Wang and Gu, "PELLR: A Permutated ELLPACK-R Format for SpMV on
 * GPUs" (J. Computer and Communications, 2020): 26 rows, warp of 8. ELLR keeps the rows in order:
 * N_iter = 4 + 3 + 7 + 4 = 18. PELLR sorts them:
 * 7 4 4 4 4 4 3 3 | 3 3 3 3 3 3 3 3 | 3 2 2 2 2 2 2 2 | 2 2, N_iter = 7 + 3 + 3 + 2 = 15.
 * The paper prints 14: its sorted listing (b_pellr) has ten 3s and ten 2s, but its input has
 * eleven 3s and nine 2s, so its third warp wrongly starts with a 2. N_p (Eq. (2)) is the same for
 * both. Both numbers are computed from the built formats' own storage-order row lengths. */
#include <stdlib.h>
#include "rvs_test.h"

static const int64_t fig5_len[26] = {2, 3, 3, 4, 4, 4, 2, 4, 2, 3, 2, 3, 2, 3, 2, 2, 2, 2, 7, 3, 3, 3, 3, 3, 4, 3};

/* Lengths in ELLR storage order: its rl array. */
static void ellr_lengths(const rvs_fmt *F, int64_t *len)
{
    const int32_t *rl = rvs_fmt_array(F, "rl")->data;
    for (int64_t i = 0; i < F->rows; i++)
        len[i] = rl[i];
}

/* Lengths in PELLR storage order: each stored row's entries (non-padding slots). */
static void pellr_lengths(const rvs_fmt *F, int64_t *len)
{
    const int32_t *col = rvs_fmt_array(F, "col")->data, *wl = rvs_fmt_array(F, "wl")->data;
    const int64_t *sptr = rvs_fmt_array(F, "sptr")->data;
    for (int64_t p = 0; p < F->rows; p++) {
        int64_t w = p / 32, n = 0;
        for (int64_t k = 0; k < wl[w]; k++)
            n += col[sptr[w] + 32 * k + p % 32] >= 0;
        len[p] = n;
    }
}

int main(void)
{
    rvs_csr A = {0};
    rvs_fmt E = {0}, P = {0};
    rvs_error err = {0};
    int64_t le[26], lp[26], it_e, np_e, it_p, np_p;
    CHECK(rvs_test_csr_from_lengths(&A, fig5_len, 26, 10) == RVS_OK);
    CHECK_OK(rvs_fmt_from_csr(&E, RVS_FMT_ELLR, &A, NULL, &err), &err);
    CHECK_OK(rvs_fmt_from_csr(&P, RVS_FMT_PELLR, &A, NULL, &err), &err);
    if (rvs_test_failures)
        return rvs_test_done();

    ellr_lengths(&E, le);
    pellr_lengths(&P, lp);
    rvs_warp_work(le, 26, 8, &it_e, &np_e);
    rvs_warp_work(lp, 26, 8, &it_p, &np_p);
    CHECKF(it_e == 18, "ELLR N_iter %lld, want 18", (long long)it_e);
    CHECKF(it_p == 15, "PELLR N_iter %lld, want 15 (the paper's 14 is a miscount)", (long long)it_p);
    CHECKF(np_e == np_p, "N_p %lld vs %lld", (long long)np_e, (long long)np_p);
    CHECK(np_e == 2 * 78 - 26); /* 78 entries, 26 non-empty rows */

    /* PELLR's perm sends each stored row to an original row of the same length. */
    const int32_t *perm = rvs_fmt_array(&P, "perm")->data;
    for (int p = 0; p < 26; p++)
        CHECKF(lp[p] == fig5_len[perm[p]], "stored row %d", p);
    CHECK(perm[0] == 18); /* the 7 */

    /* The formats' own stats (warp of 32) agree with Eq. (1)-(2) over the same lengths. */
    rvs_fmt_stats se, sp;
    int64_t it32, np32;
    rvs_format_lookup(RVS_FMT_ELLR)->stats(&E, &se);
    rvs_format_lookup(RVS_FMT_PELLR)->stats(&P, &sp);
    rvs_warp_work(le, 26, 32, &it32, &np32);
    CHECK(se.n_iter == it32 && se.n_iter == 7 && se.n_p == np_e);
    CHECK(sp.n_iter == 7 && sp.n_p == np_p);
    CHECK(sp.padded == 32 * 7 - 78);

    rvs_fmt_free(&E);
    rvs_fmt_free(&P);
    rvs_csr_free(&A);
    return rvs_test_done();
}
