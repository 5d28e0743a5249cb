/* rvs_spmv_report.h - spmv's report: the plan's timing table as text, or one JSON object */
#ifndef RVS_SPMV_REPORT_H
#define RVS_SPMV_REPORT_H

#include <stdio.h>
#include "rvs_engine.h"

/* What one spmv run was asked and what it measured. */
typedef struct {
    const char *input; /* display name of the input */
    rvs_run_mode mode;
    int threads, iters;
    double *item_ms; /* median ms of each plan item alone */
    double call_ms, gpu_ms, cpu_ms, kernel_ms, copy_gbs, check_err, bytes;
    double base_ms[3]; /* cuSPARSE CSR ALG1, CSR ALG2, COO ALG1 */
    int checked, nbase;
    double tol; /* the check's tolerance */
} rvs_spmv_results;

/* The timing table: a '#' header (matrix, mode, GPU and copy bandwidth, the plan), a row per
 * plan item, the GPU graph alone, each side of a hybrid call, the whole call, cuSPARSE. */
void rvs_spmv_report_text(FILE *f, const rvs_spmv_results *R, const rvs_stream *S, const rvs_plan *P,
                          const rvs_spmv_engine *E);
/* The same as one JSON object on one line. */
void rvs_spmv_report_json(FILE *f, const rvs_spmv_results *R, const rvs_stream *S, const rvs_plan *P,
                          const rvs_spmv_engine *E);

/* x into the engine's buffer x (of type vt) from the Matrix Market file xfile, or random from
 * seed when xfile is NULL; returns the values used as double ((re, im) pairs when complex).
 * Dies on error, as the next three do. */
double *rvs_spmv_make_x(const char *xfile, unsigned long long seed, const rvs_stream *S, rvs_vtype vt, void *x);
/* Median of t[0..n) (copied). */
double rvs_spmv_median(const double *t, int n);
/* Check y (double) against ref and scale (rvs_spmv_reference), else against A in double
 * precision; records the error in R, dies with status 1 beyond the tolerance of vt. */
void rvs_spmv_check_y(const rvs_csr *A, const double *xd, const double *ref, const double *scale, const double *yd,
                      rvs_vtype vt, rvs_spmv_results *R, const char *name);
/* Write y (double, complex pairs when cplx) to file as a Matrix Market array, no partial file. */
void rvs_spmv_write_y(const char *file, const double *yd, int64_t rows, int cplx);

/* The report of a mixed-precision run (spmv --precision mixed): text, or JSON when json. */
void rvs_spmv_report_mixed(FILE *f, int json, const rvs_spmv_results *R, const rvs_stream *S,
                           const rvs_mixed_result *M);

#endif
