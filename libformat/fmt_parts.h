/* fmt_parts.h - pieces shared by DIA, HYB (ELL + COO) and HYB-DIA (DIA + COO): a diagonal part
 * (fmt_dia.c) and a row-sorted COO tail (fmt_hyb.c). Private to libformat; layouts are in
 * fmt_dia.c and fmt_hyb.c. */
#ifndef RVS_FMT_PARTS_H
#define RVS_FMT_PARTS_H

#include "fmt_gather.h"

/* Absolute cap on the bytes of a DIA part (values + mask), whatever the ratio: 16 GiB. */
#define RVS_DIA_MAX_BYTES ((int64_t)1 << 34)
/* Default of rvs_fmt_options.dia_max_ratio. */
#define RVS_DIA_DEFAULT_RATIO 10

/* Rows rounded up to 32, the leading dimension of column-major ELL and DIA parts. */
int64_t rvs_part_ld(int64_t rows);
/* Value dtype of a vtype. */
rvs_dtype rvs_part_vdtype(rvs_vtype vt);

/* What DIA and HYB-DIA keep between their steps (rvs_window.state). */
typedef struct {
    int64_t *cnt;     /* entries per diagonal, at offset + rows - 1 */
    int32_t *slot_of; /* the stored diagonal of offset + rows - 1, or -1 */
    int64_t coo_next; /* HYB-DIA: COO entries placed so far */
} rvs_dia_state;
/* The shape step of DIA and HYB-DIA (F->id names them in messages): A's sizes checked against
 * 32-bit offsets, *state (an rvs_dia_state) started with zero counts of its rows + cols - 1
 * diagonals. Free with rvs_dia_done. */
rvs_status rvs_dia_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err);
/* Add the window's entries to the counts of their diagonals. */
rvs_status rvs_dia_scan(rvs_fmt *F, const rvs_window *w, rvs_error *err);
void rvs_dia_done(void *state);
/* Add arrays "offsets" (off[0..ndiag-1], sorted), "dia_val" and "dia_msk" (zeroed) to F (rows,
 * cols and vtype set) and make s->slot_of for them. */
rvs_status rvs_dia_part_add(rvs_fmt *F, rvs_dia_state *s, const int32_t *off, int64_t ndiag, rvs_error *err);
/* Put window w's entries on the stored diagonals into F's DIA part (param[1] = ld set; the window
 * starts at a multiple of 32 rows). in_dia (indexed like W's entries, may be NULL) gets 1 for
 * those placed. */
void rvs_dia_part_fill(rvs_fmt *F, const rvs_window *w, uint8_t *in_dia);
/* Check the DIA part of F (ndiag diagonals, leading dimension ld): arrays, offsets sorted and
 * in range, mask bits only on slots inside the matrix, values zero where the mask is clear.
 * *stored gets the number of mask bits set. name prefixes messages. */
rvs_status rvs_dia_part_validate(const rvs_fmt *F, int64_t ndiag, int64_t ld, int64_t *stored, const char *name,
                                 rvs_error *err);
/* 1 if slot (row i, diagonal k) of F's DIA part holds an entry. */
static inline int rvs_dia_present(const uint32_t *msk, int64_t ld, int64_t k, int64_t i)
{
    int64_t s = k * ld + i;
    return (int)((msk[s >> 5] >> (s & 31)) & 1u);
}

/* Add arrays "coo_row", "coo_col", "coo_val" (ncoo entries each, zeroed) to F (vtype set). */
rvs_status rvs_coo_part_add(rvs_fmt *F, int64_t ncoo, rvs_error *err);
/* Append to them, from entry *next on (moved past the last), the entries of window w's rows (in
 * row order) from each row's K-th on whose in_other flag (indexed like W's entries; NULL: none)
 * is 0, in CSR order (so sorted by row, then column). */
void rvs_coo_part_fill(rvs_fmt *F, const rvs_window *w, int64_t K, const uint8_t *in_other, int64_t *next);
/* Check F's COO part of ncoo entries: arrays, indices in range, (row, col) strictly increasing. */
rvs_status rvs_coo_part_validate(const rvs_fmt *F, int64_t ncoo, const char *name, rvs_error *err);
/* first[i] = index of the first COO entry of row i, i = 0..rows (first has rows + 1 entries). */
void rvs_coo_part_row_starts(const rvs_fmt *F, int64_t ncoo, int64_t *first);

#endif
