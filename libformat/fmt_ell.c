/* fmt_ell.c - ELLPACK (Wang and Gu, "PELLR: A Permutated ELLPACK-R Format for SpMV on GPUs",
 * J. Computer and Communications, 2020, Sec. 2.3.1): every row padded to the longest one.
 *
 * Layout (shared by the CPU and GPU kernels):
 *   param[0] width  entries of the longest row (0 when the matrix has no entries)
 *   param[1] ld     leading dimension: rows rounded up to a multiple of 32
 *   col    I32[ld * width]       column-major: entry k of row r at k * ld + r
 *   values F32|F64[ld * width]   same positions as col
 * A row's entries fill its first slots in ascending column order. Every other slot, including
 * all of rows rows..ld-1, is padding: col = -1, value 0. Kernels skip a slot by col = -1 (never
 * by its value), so Inf or NaN in x cannot reach y through padding; explicit zeros of the matrix
 * have a real column and are kept. Rows and columns fit 32-bit indices.
 *
 * Stats: padded = ld * width - nnz (padding rows included: they are stored and read). An ELL
 * kernel gives every row width iterations whatever its length (the loop runs to width and only
 * masks padding), so N_iter and N_p (the paper's Eq. (1)-(2)) are computed as if every row had
 * width entries: N_iter = ceil(rows / 32) * width, N_p = rows * (2 width - 1). */
#include <stdlib.h>
#include "fmt_ell_common.h"

/* F = A in ELL. */
static rvs_status ell_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return ellf_ell_build(F, A, o, "ell", err);
}

/* A = F (ELL) in CSR. */
static rvs_status ell_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    return ellf_ell_to_csr(A, F, err);
}

/* Params, arrays and every slot. */
static rvs_status ell_validate(const rvs_fmt *F, rvs_error *err)
{
    return ellf_ell_check(F, NULL, "ell", err);
}

/* Bytes, padding, and the warp model with every row costing width. */
static void ell_stats_warp(const rvs_fmt *F, int warp, rvs_fmt_stats *s)
{
    int64_t *len = malloc((size_t)(F->rows + 1) * sizeof *len);
    for (int64_t i = 0; len && i < F->rows; i++)
        len[i] = F->param[0];
    ellf_stats(F, F->param[1] * F->param[0], len, F->rows, warp, s);
    free(len);
}

static void ell_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    ell_stats_warp(F, RVS_ELL_WARP, s);
}

const rvs_format_ops rvs_format_ell = {RVS_FMT_ELL,  "ell",     ell_from_csr,  ell_to_csr,
                                       ell_validate, ell_stats, ell_stats_warp};

/* In steps (rvs_fmt_from_rows). */
static rvs_status ell_shape(rvs_fmt *F, const rvs_csr *L, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    (void)state;
    return ellf_ell_shape(F, L, o, "ell", err);
}

const rvs_fmt_gather rvs_gather_ell = {RVS_FMT_ELL, 0, NULL, ell_shape, NULL, 0, NULL, ellf_ell_fill, NULL};
