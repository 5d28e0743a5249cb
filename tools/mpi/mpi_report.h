/* mpi_report.h - spmv-mpi's report: what each rank tells rank 0, and the tables rank 0 prints */
#ifndef RVS_MPI_REPORT_H
#define RVS_MPI_REPORT_H

#include <stdio.h>
#include "mpi_engine.h"

#define REPORT_TIMES \
    7 /* times kept per call: call, phase0, phase1, exchange, wait, idle, and the job's (max over ranks) */

/* What every rank tells rank 0 for the report. */
typedef struct {
    rvs_mpi_info info;
    double med[2][REPORT_TIMES];
    int device;
    char formats[48];
    char exchange[12]; /* resident calls: peer, host, peer+host (its pairs both ways) or - */
    char pairs[160];   /* its receives in resident calls: "S peer, S host" */
    char why[200];     /* why a pair of it stages through host memory ("" when none does) */
} rank_report;

/* The rank's plan formats, owned-column items first, joined by '+' ("-" without a plan). */
void mpi_plan_formats(const rvs_mpi_spmv *M, char *buf, size_t n);
/* A plan's formats joined by '+' ("-" for NULL). */
void mpi_formats_of(const rvs_plan *P, char *buf, size_t n);
/* The rank's exchange into R (mpi_report_exchange). */
void mpi_exchange_of(const rvs_mpi_spmv *M, rank_report *R);
/* Rank 0: how the ranks exchanged, asked as asked (--exchange): the pairs of resident calls,
 * and why some stage through host memory. */
void mpi_report_exchange(FILE *f, const rank_report *R, int K, const char *asked);
/* Rank 0: the per-rank and per-job tables (spmv-mpi(1), OUTPUT) for R[0..K). */
void mpi_report(FILE *f, const char *name, const rvs_stream *S, const int *rank_of, const rank_report *R, int K,
                const rvs_mpi_cut *cut, rvs_vtype vt, const char *mode, int iters, int resident, int checked,
                double check_err);
/* Rank 0: the tables of a 2-D run (--grid R x C; cuts of the row and column blocks): the rank
 * rows as mpi_report's, per mode (resident: also the resident calls' rows) (recv_cols,
 * send_cols: x entries of the expand and partial y entries of the fold; phase0_ms the block's
 * call; exchange_ms the expand and the fold and, resident, the copies of the rank's pieces,
 * wait_ms the expand and fold alone; permuted: the cuts are of the randomly permuted matrix), the job's line per
 * mode with the grid's exchanged volume in place of the cut's. */
void mpi_report_grid(FILE *f, const char *name, const rvs_stream *S, int R, int C, const int64_t *row_cut,
                     const int64_t *col_cut, int had_partition, int permuted, const rank_report *Rk, int K,
                     rvs_vtype vt, const char *mode, int iters, int resident, int checked, double check_err);

#endif
