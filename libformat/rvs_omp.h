/* rvs_omp.h - when the library's loops open a parallel region (private: not installed) */
#ifndef RVS_OMP_H
#define RVS_OMP_H

/* Loops over less work than this (rows plus entries, slots, bytes' elements) run on one thread:
 * starting a team and its barrier cost more than they save there, and far more when several
 * processes share the cores (each waits on threads the others hold). */
#define RVS_OMP_MIN_WORK 65536

#endif
