/* fmt_parts.h - pieces shared by DIA, HYB (ELL + COO) and HYB-DIA (DIA + COO): a diagonal part
 * (fmt_dia.c) and a row-sorted COO tail (fmt_hyb.c). Private to libformat; layouts are in
 * fmt_dia.c and fmt_hyb.c. */
#ifndef RVS_FMT_PARTS_H
#define RVS_FMT_PARTS_H

#include "rvs_format.h"

/* Absolute cap on the bytes of a DIA part (values + mask), whatever the ratio: 16 GiB. */
#define RVS_DIA_MAX_BYTES ((int64_t)1 << 34)
/* Default of rvs_fmt_options.dia_max_ratio. */
#define RVS_DIA_DEFAULT_RATIO 10

/* Rows rounded up to 32, the leading dimension of column-major ELL and DIA parts. */
int64_t rvs_part_ld(int64_t rows);
/* Value dtype of a vtype. */
rvs_dtype rvs_part_vdtype(rvs_vtype vt);

/* Count A's entries per diagonal: *cnt (malloc'd, rows + cols - 1 entries) gets at
 * [c - r + rows - 1] the entries of offset c - r. A must have 32-bit columns. */
rvs_status rvs_dia_count(const rvs_csr *A, int64_t **cnt, rvs_error *err);
/* Add arrays "offsets" (off[0..ndiag-1], sorted), "dia_val" and "dia_msk" to F and fill them
 * with A's entries on those diagonals; F->rows must be set. in_dia (nnz bytes, may be NULL)
 * gets 1 for the entries placed in the DIA part. */
rvs_status rvs_dia_part_build(rvs_fmt *F, const rvs_csr *A, const int32_t *off, int64_t ndiag,
                              uint8_t *in_dia, rvs_error *err);
/* Check the DIA part of F (ndiag diagonals, leading dimension ld): arrays, offsets sorted and
 * in range, mask bits only on slots inside the matrix, values zero where the mask is clear.
 * *stored gets the number of mask bits set. name prefixes messages. */
rvs_status rvs_dia_part_validate(const rvs_fmt *F, int64_t ndiag, int64_t ld, int64_t *stored,
                                 const char *name, rvs_error *err);
/* 1 if slot (row i, diagonal k) of F's DIA part holds an entry. */
static inline int rvs_dia_present(const uint32_t *msk, int64_t ld, int64_t k, int64_t i)
{
    int64_t s = k * ld + i;
    return (int)((msk[s >> 5] >> (s & 31)) & 1u);
}

/* Add arrays "coo_row", "coo_col", "coo_val" (ncoo entries) holding the entries of A whose
 * in_other flag is 0, in CSR order (so sorted by row, then column). */
rvs_status rvs_coo_part_build(rvs_fmt *F, const rvs_csr *A, const uint8_t *in_other, int64_t ncoo,
                              rvs_error *err);
/* Check F's COO part of ncoo entries: arrays, indices in range, (row, col) strictly increasing. */
rvs_status rvs_coo_part_validate(const rvs_fmt *F, int64_t ncoo, const char *name, rvs_error *err);
/* first[i] = index of the first COO entry of row i, i = 0..rows (first has rows + 1 entries). */
void rvs_coo_part_row_starts(const rvs_fmt *F, int64_t ncoo, int64_t *first);

#endif
