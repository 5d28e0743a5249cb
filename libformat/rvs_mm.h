/* rvs_mm.h - Matrix Market reader and writer */
#ifndef RVS_MM_H
#define RVS_MM_H

#include <stdio.h>
#include "rvs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the banner and size line said, for summaries, and what the reader accepted that a
 * program should warn about (rvs_mm_warning words it). */
typedef struct {
    char format[16];                 /* "coordinate" or "array" */
    char field[24];                  /* "real", "integer", "pattern", "complex", "unsigned-integer" */
    char symmetry[16];               /* "general", "symmetric", "skew-symmetric", "hermitian" */
    int64_t rows, cols, entries;     /* as declared (entries: stored lines for coordinate) */
    int64_t skew_diagonal;           /* diagonal entries of a skew-symmetric file, kept as read */
    int64_t skew_diagonal_line;      /* line of the first of them */
    int64_t big_integers;            /* integer values beyond 2^53 in magnitude (rounded to double) */
    int64_t big_integer_line;        /* line of the first of them */
    int64_t hermitian_diagonal;      /* diagonal entries of a hermitian file that are not real, kept as read */
    int64_t hermitian_diagonal_line; /* line of the first of them */
} rvs_mm_info;

/* Warning `which` (0: diagonal entries in a skew-symmetric file, 1: integers beyond 2^53, 2:
 * diagonal entries of a hermitian file that are not real) as one line without a newline into
 * buf; 0 when info has no such warning. */
#define RVS_MM_WARNINGS 3
int rvs_mm_warning(const rvs_mm_info *info, int which, char *buf, size_t n);

/* Progress callback: called now and then with bytes consumed so far and the total (0 if
 * unknown). May be NULL. */
typedef void (*rvs_progress_fn)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);

/* Read a Matrix Market matrix from an in-memory buffer (the whole file, already
 * decompressed). Coordinate and array; real, integer, unsigned-integer, pattern (f64) and
 * complex (c128); general, symmetric, skew-symmetric, hermitian (expanded to general; the
 * diagonal entries of a skew-symmetric file, and those of a hermitian file that are not real,
 * are kept as read, as scipy and fast_matrix_market do, and counted in info). Duplicates are summed, explicit zeros kept. Values are strtod's, bit
 * for bit: NaN and Inf are values (rvs.5), a decimal beyond double's range is +-Inf.
 * Parses in parallel (OpenMP). Errors name the line: "line 7: row index 0 out of range 1..5".
 * info may be NULL. The result is f64. */
rvs_status rvs_mm_parse(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, rvs_error *err);

/* rvs_mm_parse with a progress callback (may be NULL), called now and then (every 64 MB
 * parsed) with bytes of buf parsed so far and len. */
rvs_status rvs_mm_parse_progress(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len,
                                 rvs_progress_fn progress, void *ctx, rvs_error *err);

/* Read a Matrix Market file (path; "-" for stdin; .gz read transparently, detected by its
 * magic bytes, not its name). Files are mapped, stdin read in one forward pass. */
rvs_status rvs_mm_read_file(rvs_csr *A, rvs_mm_info *info, const char *path, rvs_progress_fn progress, void *ctx,
                            rvs_error *err);

/* Same, from a FILE * already open (reads to EOF in one forward pass). If prefix/prefix_len
 * is non-empty, those bytes were already consumed from f (used for format sniffing) and come
 * first. */
rvs_status rvs_mm_read_stream(rvs_csr *A, rvs_mm_info *info, FILE *f, const void *prefix, size_t prefix_len,
                              rvs_progress_fn progress, void *ctx, rvs_error *err);

/* How rvs_mm_write writes a matrix; all zero (or a NULL pointer) is the default. */
typedef struct {
    const char *field; /* what the matrix was ("pattern", "integer", "real"), e.g. its source
                          file's field: kept when every value allows it (pattern: all 1;
                          integer: integral, below 2^63 in magnitude), else the next wider
                          field; NULL: real */
    int general;       /* 1: always "general"; 0: "symmetric" or "skew-symmetric" when A is
                          exactly that (bit for bit, skew with no diagonal entry) */
    int digits;        /* significant digits of real values, 1..17; 0: the fewest digits that
                          read back to the same value */
    int gzip;          /* 1: gzip-compressed output (one member per block of lines) */
} rvs_mm_write_options;

/* Write A as a coordinate Matrix Market file to f, 1-based, keeping what it knows: field and
 * symmetry as above (complex values: field complex, and hermitian when A equals its conjugate
 * transpose bit for bit with a real diagonal), so that reading the file back gives A again
 * (to `digits` when given).
 * wrote (may be NULL) receives the banner and size line written. Formats blocks of lines in
 * parallel (OpenMP). */
rvs_status rvs_mm_write(FILE *f, const rvs_csr *A, const rvs_mm_write_options *o, rvs_mm_info *wrote,
                        rvs_error *err);

/* Write A as "coordinate real general" (or "pattern" when pattern != 0) to f, 1-based,
 * values printed with enough digits to round-trip exactly (%.17g for f64, %.9g for f32). */
rvs_status rvs_mm_write_coordinate(FILE *f, const rvs_csr *A, int pattern, rvs_error *err);

/* Write a dense column-major array of rows x cols doubles as "array real general". */
rvs_status rvs_mm_write_array(FILE *f, const double *a, int64_t rows, int64_t cols, rvs_error *err);

/* The same as "array complex general": a holds rows x cols (re, im) pairs, column-major. */
rvs_status rvs_mm_write_array_complex(FILE *f, const double *a, int64_t rows, int64_t cols, rvs_error *err);

/* Read a dense "array real general" vector/matrix file (used for -x FILE): returns a
 * malloc'd column-major array and its size. Also accepts coordinate input (zeros filled). */
rvs_status rvs_mm_read_dense(double **a, int64_t *rows, int64_t *cols, const char *path, rvs_error *err);

/* The same as (re, im) pairs: a complex file, or a real one with imaginary parts 0. */
rvs_status rvs_mm_read_dense_complex(double **a, int64_t *rows, int64_t *cols, const char *path, rvs_error *err);

#ifdef __cplusplus
}
#endif
#endif
