/* rvs_report.h - report pieces the programs print, each as text and as JSON members: PMF
 * statistics, a partition's metrics, format blocks, the advisor's decisions, a calibration */
#ifndef RVS_REPORT_H
#define RVS_REPORT_H

#include <stdio.h>
#include "rvs.h"
#include "rvs_engine.h"
#include "rvs_json.h"

/* s as a text report prints it, into buf ("-" when empty): a control character as a C escape
 * (\n, \t, \x1b), a backslash doubled, so that a name (a stream's, a file's) can neither split
 * the report's lines nor reach the terminal as an escape sequence; JSON escapes its own way. */
#define RVS_TEXT_NAME_MAX (4 * 256 + 1)
const char *rvs_report_text_name(const char *s, char *buf, size_t n);

/* The statistics of P as "name   value" lines (pmf's summary), starting with the matrix name
 * and, when S records it, the Matrix Market source. */
void rvs_report_pmf_text(FILE *f, const rvs_stream *S, const rvs_pmf *P);

/* The same as JSON members of the current object: matrix, source, rows ... ell_density,
 * distinct_lengths, and (with_bins) the arrays k and b. */
void rvs_report_pmf_json(rvs_json *j, const rvs_stream *S, const rvs_pmf *P, int with_bins);

/* S's partition per part and as a whole (partition --report): a '#' header line naming the
 * matrix, note (how default computing powers were made; "" for none), then one line per part
 * "part device cp N W NNZ E padded density nnz_share cp_share" and the totals. */
void rvs_report_partition_text(FILE *f, const rvs_stream *S, const char *note);
/* The same as JSON members: matrix, alg, parts, rows, nnz, default_cp, part[...], the means. */
void rvs_report_partition_json(rvs_json *j, const rvs_stream *S, const char *note);

/* S's format blocks per part (convert --report): bytes, padding, ratios to CSR and COO of the
 * same part (Table VI of Liang et al., IEEE TCAD 2017), N_iter for warps of warp rows and N_p;
 * a part without a block says none. */
void rvs_report_blocks_text(FILE *f, const rvs_stream *S, int warp);
/* The same as JSON members: matrix, rows, cols, nnz, parts, warp, blocks[...], total{...}. */
void rvs_report_blocks_json(rvs_json *j, const rvs_stream *S, int warp);

/* The processor numbers of S's parts from its 'plac' chunk (-1 each where none; malloc'd), or
 * NULL when out of memory. */
int32_t *rvs_report_placement(const rvs_stream *S);
/* A candidate's status as reports name it: ran, refused, pruned, failed. */
const char *rvs_report_cand_status(rvs_cand_status s);

/* The advisor's decisions (convert's and the 'auto' chunk's): per part the choice, the
 * runner-up and both trial times, as "# auto ..." lines; nothing when D is empty. */
void rvs_report_decisions_text(FILE *f, const rvs_decisions *D);
/* Every record of D with all its candidates (rvsinfo): a '#' header, then one line per
 * candidate "part device vtype from candidate format tunables status ms model_bytes chosen". */
void rvs_report_decisions_full_text(FILE *f, const rvs_decisions *D);
/* D as a JSON array (key) of records, each with its candidates (every field of rvs.5). */
void rvs_report_decisions_json(rvs_json *j, const char *key, const rvs_decisions *D);

/* A calibration as "gpu RATIO / cpu 1" lines and a '#' line of the rates (partition
 * --calibrate), or as JSON members. */
void rvs_report_calibration_text(FILE *f, const rvs_calibration *c);
void rvs_report_calibration_json(rvs_json *j, const rvs_calibration *c);

/* convert's report on f: S's blocks (N_iter for warps of warp rows) and the advisor's decisions D
 * as text, or with json as one JSON object (program "convert", input name); exits 74 when
 * writing fails. */
void rvs_report_convert(FILE *f, int json, const char *name, const rvs_stream *S, const rvs_decisions *D, int warp);

/* Begin a program's JSON report on f: program, rvskit_version and input. */
void rvs_report_json_begin(rvs_json *j, FILE *f, const char *program, const char *input);
/* Finish it, and exit 74 when writing failed (or stdout's reader went away). */
void rvs_report_json_finish(rvs_json *j);

#endif
