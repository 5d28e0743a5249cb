/* rvs_spmv_report.h - spmv's report: the plan's timing table as text, or one JSON object */
#ifndef RVS_SPMV_REPORT_H
#define RVS_SPMV_REPORT_H

#include <stdio.h>
#include "rvs_engine.h"

/* What one spmv run was asked and what it measured. */
typedef struct {
    const char *input;        /* display name of the input */
    rvs_run_mode mode;
    int threads, iters;
    double *item_ms;          /* median ms of each plan item alone */
    double call_ms, gpu_ms, cpu_ms, kernel_ms, copy_gbs, check_err, bytes;
    double base_ms[3];        /* cuSPARSE CSR ALG1, CSR ALG2, COO ALG1 */
    int checked, nbase;
    double tol;               /* the check's tolerance */
} rvs_spmv_results;

/* The timing table: a '#' header (matrix, mode, GPU and copy bandwidth, the plan), a row per
 * plan item, the GPU graph alone, each side of a hybrid call, the whole call, cuSPARSE. */
void rvs_spmv_report_text(FILE *f, const rvs_spmv_results *R, const rvs_stream *S, const rvs_plan *P,
                          const rvs_spmv_engine *E);
/* The same as one JSON object on one line. */
void rvs_spmv_report_json(FILE *f, const rvs_spmv_results *R, const rvs_stream *S, const rvs_plan *P,
                          const rvs_spmv_engine *E);

/* The report of a mixed-precision run (spmv --precision mixed): text, or JSON when json. */
void rvs_spmv_report_mixed(FILE *f, int json, const rvs_spmv_results *R, const rvs_stream *S,
                           const rvs_mixed_result *M);

#endif
