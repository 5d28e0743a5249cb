/* rvs_plot_tables.h - the tables plots/ draws its pictures from (rvsinfo --spy, --ranges,
 * --candidates): whitespace-separated columns under '#' header lines, '-' for no value */
#ifndef RVS_PLOT_TABLES_H
#define RVS_PLOT_TABLES_H

#include <stdio.h>
#include "rvs.h"
#include "rvs_engine.h"

/* Largest spy grid side: 4096 x 4096 cells print 16 million lines, far past any picture. */
#define RVS_SPY_MAX 4096

/* Parse "WxH" (each 1..RVS_SPY_MAX) into *w, *h; 0 when malformed or out of range. */
int rvs_spy_parse(const char *s, int *w, int *h);

/* The sparsity pattern of S's matrix as a density grid of at most w x h cells, each a block of
 * ceil(rows / h) rows by ceil(cols / w) columns: a header, then one line per cell, row blocks
 * top to bottom (a blank line after each), "x y nnz part" with x and y the cell's centre in
 * 1-based column and row numbers, nnz its entries and part the part holding most of them
 * (1-based, the lower on a tie; 0 for an empty cell or a stream without a partition).
 * RVS_ERR_NOMEM. */
rvs_status rvs_table_spy(FILE *f, const rvs_stream *S, int w, int h, rvs_error *err);

/* Per part (or "all" without a partition) its device, its format (its format block's, else the
 * current decision's in D, else '-'), and the shortest and longest of its rows, counted whole
 * as the PMF counts them: "part device format kmin kmax rows nnz". RVS_ERR_NOMEM. */
rvs_status rvs_table_ranges(FILE *f, const rvs_stream *S, const rvs_decisions *D, int current, rvs_error *err);

/* Every candidate of D that has a predicted or a measured time, or was chosen:
 * "part device vtype how candidate pred_ms trial_ms status chosen". */
void rvs_table_candidates(FILE *f, const rvs_stream *S, const rvs_decisions *D, int current);

/* Which table, and the spy grid's size. */
typedef enum { RVS_PLOT_NONE = 0, RVS_PLOT_SPY, RVS_PLOT_RANGES, RVS_PLOT_CANDIDATES } rvs_plot_kind;
typedef struct {
    rvs_plot_kind kind;
    int w, h;
} rvs_plot_request;

/* The table t asks for, of S and its decisions D (current: D describes S), on f; RVS_ERR_NOMEM. */
rvs_status rvs_plot_table(FILE *f, const rvs_plot_request *t, const rvs_stream *S, const rvs_decisions *D,
                          int current, rvs_error *err);

#endif
