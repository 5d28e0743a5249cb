/* mpi_assign.c - which rank runs which part: a part bound to processor N (partition's "gpuN",
 * "cpuN") runs on rank N; the free parts go in partition order to consecutive ranks, each rank
 * taking parts while that brings its computing power nearer to an equal share (Algorithm 2's rule
 * over parts), so that neighbouring row blocks of Algorithms 1 and 2 stay on one rank */
#include "mpi_engine.h"

rvs_status rvs_mpi_assign(const rvs_partition *P, const int32_t *number, int nranks, int *rank_of, rvs_error *err)
{
    if (nranks < 1)
        return rvs_fail(err, RVS_ERR_ARG, "%d ranks", nranks);
    if (P->alg == RVS_ALG_DIAG)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "the parts of Algorithm 4 (diag) share rows, which spmv-mpi does "
                        "not split over ranks: partition with rows, nnz or pmf");
    long double free_cp = 0;
    for (int i = 0; i < P->k; i++) {
        const int n = number ? number[i] : -1;
        if (n >= nranks)
            return rvs_fail(err, RVS_ERR_ARG, "part %d is bound to processor %d, and the job has %d rank%s (0..%d)",
                            i + 1, n, nranks, nranks == 1 ? "" : "s", nranks - 1);
        rank_of[i] = n;
        if (n < 0)
            free_cp += P->parts[i].cp;
    }
    /* free parts: rank r stops taking parts when the next would not bring the running power
     * nearer to (r + 1) / nranks of the free power (ties stop); it takes at least one */
    long double run = 0;
    int r = 0, taken = 0;
    for (int i = 0; i < P->k; i++) {
        if (rank_of[i] >= 0)
            continue;
        const long double cp = P->parts[i].cp, target = free_cp * (long double)(r + 1) / (long double)nranks;
        if (taken > 0 && r < nranks - 1 && 2 * run + cp >= 2 * target) {
            r++;
            taken = 0;
        }
        rank_of[i] = r;
        run += cp;
        taken++;
    }
    return RVS_OK;
}
