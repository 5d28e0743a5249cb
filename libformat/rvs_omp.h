/* rvs_omp.h - when the library's loops open a parallel region (private: not installed) */
#ifndef RVS_OMP_H
#define RVS_OMP_H

/* Loops over less work than this (rows plus entries, slots, bytes' elements) run on one thread:
 * starting a team and its barrier cost more than they save there, and far more when several
 * processes share the cores (each waits on threads the others hold). */
#define RVS_OMP_MIN_WORK 65536

#include <omp.h>

/* Threads for a short pass (a millisecond or so) in a set-up: half the cores. On a 16-core H200
 * host a region over every core waited 3-5 ms at times for a core held elsewhere (14 regions in
 * 200 after 50 ms idle; bench/run.sh omp_wake); 8 threads after 10 ms idle took at most 0.43 ms,
 * and such passes are bound by memory, which half the cores nearly fill. */
static inline int rvs_omp_short_threads(void)
{
    const int n = omp_get_max_threads() / 2;
    return n > 0 ? n : 1;
}

#endif
