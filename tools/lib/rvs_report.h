/* rvs_report.h - report pieces several programs print: PMF statistics, the matrix's source */
#ifndef RVS_REPORT_H
#define RVS_REPORT_H

#include <stdio.h>
#include "rvs.h"
#include "rvs_json.h"

/* The statistics of P as "name   value" lines (pmf's summary), starting with the matrix name
 * and, when S records it, the Matrix Market source. */
void rvs_report_pmf_text(FILE *f, const rvs_stream *S, const rvs_pmf *P);

/* The same as JSON members of the current object: matrix, source, rows ... ell_density,
 * distinct_lengths, and (with_bins) the arrays k and b. */
void rvs_report_pmf_json(rvs_json *j, const rvs_stream *S, const rvs_pmf *P, int with_bins);

#endif
