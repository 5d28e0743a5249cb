/* fmt_ell_common.h - what the ELL-family builders (ELL, ELLR, PELLR, BiELL) share: the slots of
 * one stored row, and building, checking and unpacking rows through them. Private to libformat.
 *
 * Every format of the family stores "positions" (stored rows, possibly padding rows beyond the
 * matrix) whose entries sit in "slots" of the arrays col I32 and values. Entry k of position p is
 * at base + (k / T) * step + k % T. The entries of a row fill its first slots in ascending column
 * order; the remaining slots are padding: col = -1 (RVS_ELL_PAD) and value 0. Kernels skip
 * padding by its column, so an Inf or NaN in x never meets a padding slot. */
#ifndef RVS_FMT_ELL_COMMON_H
#define RVS_FMT_ELL_COMMON_H

#include "fmt_gather.h"

#define RVS_ELL_PAD (-1)
#define RVS_ELL_WARP 32

/* Where the slots of one position are. */
typedef struct {
    int64_t orig;   /* row of the matrix stored here, -1 for a padding position */
    int64_t base;   /* index of slot 0 */
    int64_t step;   /* distance from slot k to slot k + T */
    int64_t nslots; /* slots reserved for this position */
    int64_t T;      /* consecutive slots per step (threads sharing the row) */
} ellf_row;

/* The slots of position p of a format, from that format's context (its arrays). */
typedef void (*ellf_row_fn)(const void *ctx, int64_t p, ellf_row *r);

/* Set F's sizes from A; RVS_ERR_UNSUPPORTED when rows or columns exceed 32-bit indices. */
rvs_status ellf_begin(rvs_fmt *F, const rvs_csr *A, const char *name, rvs_error *err);
/* RVS_ERR_FORMAT unless F's sizes are sane for a family member called name. */
rvs_status ellf_check_sizes(const rvs_fmt *F, const char *name, rvs_error *err);
/* The values dtype of F. */
rvs_dtype ellf_value_dtype(rvs_vtype vt);
/* Add "col" and "values" of nslots each to F, left unset: each slot belongs to one position and
 * ellf_fill writes every slot of every position, padding (col RVS_ELL_PAD, value 0) included. */
rvs_status ellf_add_slots(rvs_fmt *F, int64_t nslots, int32_t **col, void **values, rvs_error *err);
/* Require "col" and "values" of nslots each in F. */
rvs_status ellf_require_slots(const rvs_fmt *F, int64_t nslots, const int32_t **col, rvs_error *err);
/* *out = a * b (+ c), RVS_ERR_OVERFLOW (naming what) when it exceeds INT64_MAX / 16. */
rvs_status ellf_mul(int64_t a, int64_t b, int64_t *out, const char *what, rvs_error *err);

/* Stable order of rows lo..hi-1 of A by length, longest first, as original row numbers. */
rvs_status ellf_sort_desc(const rvs_csr *A, int64_t lo, int64_t hi, int32_t *order, rvs_error *err);
/* RVS_ERR_FORMAT unless perm[0..n-1] is a permutation of 0..n-1. */
rvs_status ellf_check_perm(const int32_t *perm, int64_t n, const char *name, rvs_error *err);

/* Copy the rows at positions from..to-1 from window w (which holds them) into their slots, and
 * pad the slots after. */
void ellf_fill(const rvs_window *w, int32_t *col, void *values, const void *ctx, ellf_row_fn fn, int64_t from,
               int64_t to);
/* ellf_fill of window w's positions into F's "col" and "values" (after the last row, the
 * positions up to npos too), for a layout whose positions [first, first + n) hold the window's
 * rows (ELL, ELLR; BiELL, its windows whole slices; any layout for the whole block). */
void ellf_fill_window(rvs_fmt *F, const rvs_window *w, const void *ctx, ellf_row_fn fn, int64_t npos);
/* The same for a layout that moves rows anywhere (PELLR): row r at position pos[r]. */
void ellf_fill_moved(rvs_fmt *F, const rvs_window *w, const void *ctx, ellf_row_fn fn, const int32_t *pos,
                     int64_t npos);
/* The state of PELLR's and JAD's steps: each row's position (the inverse of F's "perm"), made
 * when a window first needs it (one holding only some rows). */
typedef struct {
    int32_t *pos;
} ellf_positions;
rvs_status ellf_positions_begin(void **state, rvs_error *err);
void ellf_positions_done(void *state);
/* *pos = the position of every row of F, from w->state. */
rvs_status ellf_positions_of(const rvs_fmt *F, const rvs_window *w, const int32_t **pos, rvs_error *err);
/* ellf_fill of positions 0..npos-1 of a layout whose positions in every aligned run [r, r + align)
 * hold exactly the rows [r, r + align) (ELL: align 1; BiELL, whose perm stays within a slice:
 * 32), the positions past the last row last. With o->consume, in
 * row blocks of about ELLF_CONSUME_STEP entries cut at multiples of align, each block's entries
 * given back (rvs_csr_release_entries) once copied: A is then fit only to be freed. */
void ellf_fill_rows(const rvs_csr *A, int32_t *col, void *values, const void *ctx, ellf_row_fn fn, int64_t npos,
                    int64_t align, const rvs_fmt_options *o);
/* Entries a consuming build (rvs_fmt_options.consume) copies before it gives them back. */
#define ELLF_CONSUME_STEP ((int64_t)1 << 22)
/* Check the slots of positions 0..npos-1: entries packed first, columns ascending and in range,
 * padding positions empty, nnz entries in all. len (npos entries, may be NULL) gets the row
 * lengths in storage order. */
rvs_status ellf_scan(const rvs_fmt *F, const int32_t *col, const void *ctx, ellf_row_fn fn, int64_t npos,
                     int64_t *len, const char *name, rvs_error *err);
/* A = the rows held in positions 0..npos-1 of F (F validated). */
rvs_status ellf_to_csr(rvs_csr *A, const rvs_fmt *F, const void *ctx, ellf_row_fn fn, int64_t npos, rvs_error *err);

/* Bytes of all arrays of F. */
int64_t ellf_bytes(const rvs_fmt *F);
/* s = bytes, padding (slots - nnz) and Eq. (1)-(2) of Wang and Gu's PELLR paper (2020) of lengths
 * len[0..n-1] in storage order, warps of warp rows (len NULL: n_iter = n_p = -1). */
void ellf_stats(const rvs_fmt *F, int64_t slots, const int64_t *len, int64_t n, int warp, rvs_fmt_stats *s);

/* Plain column-major ELL, shared by ELL and ELLR: param[0] width, param[1] ld. Built whole, or
 * in steps: sized from A's lengths (its slots left unset; o->admit_only: the refusals alone),
 * then filled window by window. */
rvs_status ellf_ell_build(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, const char *name, rvs_error *err);
rvs_status ellf_ell_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, const char *name, rvs_error *err);
rvs_status ellf_ell_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err);
/* Check an ELL block; len (ld entries, may be NULL) gets the row lengths. */
rvs_status ellf_ell_check(const rvs_fmt *F, int64_t *len, const char *name, rvs_error *err);
/* A = an ELL block (validated). */
rvs_status ellf_ell_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err);

#endif
