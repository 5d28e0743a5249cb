/* rvs_info_report.h - rvsinfo's report: what the inspection of a stream or a Matrix Market file
 * found, written as text or as one JSON object */
#ifndef RVS_INFO_REPORT_H
#define RVS_INFO_REPORT_H

#include <stdio.h>
#include "rvs_chunks.h"
#include "rvs_engine.h"

/* What the inspection found. */
typedef struct {
    const char *input; /* display name */
    int is_stream;
    rvs_chunk_walk walk; /* streams only */
    int valid;
    rvs_error err; /* why not valid */
    rvs_stream S;  /* valid only */
    int pmf_stored;
    rvs_decisions D; /* the 'auto' chunk, decoded (D.n 0 when none) */
    int has_auto, auto_current;
    rvs_error auto_err; /* a malformed 'auto' chunk (code RVS_OK when none is) */
    int has_plac;
    rvs_error plac_err; /* a malformed 'plac' chunk, as spmv-mpi refuses it (code RVS_OK when none is) */
} rvs_inspection;

/* The report of I as text (every chunk, the matrix, PMF, partition, blocks, other chunks). */
void rvs_info_report_text(FILE *f, const rvs_inspection *I);
/* The same as one JSON object. */
void rvs_info_report_json(FILE *f, const rvs_inspection *I);

#endif
