/* test_mpi_assign.c - the ranks spmv-mpi gives the parts (engine/mpi_assign.c): bound parts on
 * their rank, free parts in runs of about equal computing power (ties stop, at least one part a
 * rank), ranks without parts when there are fewer parts than ranks, errors for a number past the
 * last rank and for Algorithm 4 */
#include <string.h>
#include "rvs_test.h"
#include "mpi_engine.h"

/* rank_of for parts of powers cp[0..k) (numbers: NULL or per part) over n ranks, as a string. */
static const char *assign(const double *cp, const int32_t *number, int k, int n, rvs_alg alg)
{
    static char out[512];
    rvs_partition P;
    rvs_part parts[16];
    int rank_of[16];
    rvs_error e;
    memset(&P, 0, sizeof P);
    memset(parts, 0, sizeof parts);
    P.alg = alg;
    P.k = k;
    P.parts = parts;
    for (int i = 0; i < k; i++)
        parts[i].cp = cp[i];
    if (rvs_mpi_assign(&P, number, n, rank_of, &e) != RVS_OK) {
        snprintf(out, sizeof out, "error %d: %s", (int)e.code, e.msg);
        return out;
    }
    out[0] = 0;
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", i ? " " : "", rank_of[i]);
    return out;
}

int main(void)
{
    const double one[6] = {1, 1, 1, 1, 1, 1}, skew[3] = {10, 1, 1}, pmf[3] = {1, 2, 6};
    const int32_t bound[6] = {1, 1, 0, -1, -1, -1}, far[2] = {-1, 2};
    CHECK(strcmp(assign(one, NULL, 4, 2, RVS_ALG_NNZ), "0 0 1 1") == 0);
    CHECK(strcmp(assign(one, NULL, 3, 2, RVS_ALG_NNZ), "0 1 1") == 0);  /* tie: rank 0 stops at one */
    CHECK(strcmp(assign(one, NULL, 2, 4, RVS_ALG_ROWS), "0 1") == 0);   /* ranks 2, 3 without parts */
    CHECK(strcmp(assign(skew, NULL, 3, 4, RVS_ALG_NNZ), "0 1 2") == 0); /* at least one part a rank */
    CHECK(strcmp(assign(pmf, NULL, 3, 2, RVS_ALG_PMF), "0 0 1") == 0);
    CHECK(strcmp(assign(one, bound, 6, 2, RVS_ALG_NNZ), "1 1 0 0 1 1") == 0); /* free parts share out the rest */
    CHECK(strcmp(assign(one, NULL, 1, 1, RVS_ALG_NNZ), "0") == 0);
    CHECKF(strstr(assign(one, far, 2, 2, RVS_ALG_NNZ),
                  "error -13: part 2 is bound to processor 2, and the job has 2 ranks"),
           "%s", assign(one, far, 2, 2, RVS_ALG_NNZ));
    CHECK(strstr(assign(one, NULL, 2, 1, RVS_ALG_DIAG), "error -8: the parts of Algorithm 4"));
    return rvs_test_done();
}
