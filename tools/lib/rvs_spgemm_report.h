/* rvs_spgemm_report.h - spgemm's report: one "name value" line per figure, or one JSON object */
#ifndef RVS_SPGEMM_REPORT_H
#define RVS_SPGEMM_REPORT_H

#include <stdio.h>
#include "rvs_engine_spgemm.h"

/* What spgemm was asked, what it chose and what it measured. */
typedef struct {
    const char *a_input, *b_input; /* display names of the operands */
    const char *device;            /* cpu, gpu or hybrid */
    const char *choice;            /* why, when chosen automatically; NULL when asked */
    int method;                    /* RVS_SPGEMM_ROWWISE or RVS_SPGEMM_HYSPMM */
    rvs_vtype vt;
    const rvs_csr *A, *B;
    const rvs_spgemm_stats *stats;
    int checked;
    double max_err, tol;
    const rvs_spgemm_baselines *base; /* NULL: no --baseline */
} rvs_spgemm_report;

/* The report as text lines "name value" (json 0) or as one JSON object (json 1) on f. */
void rvs_spgemm_report_print(FILE *f, const rvs_spgemm_report *r, int json);

#endif
