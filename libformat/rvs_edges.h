/* rvs_edges.h - edge-list reader: SNAP-style "src dst [weight]" text, 0-based */
#ifndef RVS_EDGES_H
#define RVS_EDGES_H

#include <stdio.h>
#include "rvs_mm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an edge list is read; all zero (or a NULL pointer) is the default. */
typedef struct {
    int64_t size; /* rows and columns; 0: the largest index + 1 */
} rvs_edges_options;

/* What an edge list held. */
typedef struct {
    int64_t edges;    /* edge lines read (duplicates counted each time) */
    int64_t comments; /* comment lines ('#' or '%' first) */
    int weighted;     /* 1: a third column gave each edge its value; 0: pattern (all 1.0) */
    int64_t size;     /* rows = columns of the matrix */
} rvs_edges_info;

/* Parse an edge list in buf[0..len) into an f64 size x size CSR: one edge a line as "src dst"
 * or "src dst weight" (every edge line the same), 0-based non-negative decimal indices,
 * separated by blanks or tabs; lines starting with '#' or '%' (after blanks) are comments,
 * blank lines and CRLF line ends are fine. Duplicates are summed (as in Matrix Market). An edge
 * list without edges needs o->size. Errors name the line: "line 7: ...". info may be NULL. */
rvs_status rvs_edges_parse(rvs_csr *A, rvs_edges_info *info, const char *buf, size_t len,
                           const rvs_edges_options *o, rvs_error *err);

/* The same from a file (path; "-" for stdin), compressed (gzip, bzip2, xz, zstd: by magic
 * bytes) or not, as rvs_mm_read_file reads. */
rvs_status rvs_edges_read_file(rvs_csr *A, rvs_edges_info *info, const char *path, const rvs_edges_options *o,
                               rvs_progress_fn progress, void *ctx, rvs_error *err);

/* The same from f, to EOF; prefix (prefix_len bytes, may be 0) was already read from f. */
rvs_status rvs_edges_read_stream(rvs_csr *A, rvs_edges_info *info, FILE *f, const void *prefix, size_t prefix_len,
                                 const rvs_edges_options *o, rvs_progress_fn progress, void *ctx, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
