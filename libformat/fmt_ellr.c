/* fmt_ellr.c - ELLPACK-R (Wang and Gu, "PELLR: A Permutated ELLPACK-R Format for SpMV on GPUs",
 * J. Computer and Communications, 2020, Sec. 2.3.2): ELL plus the length of every row, so that a
 * thread stops at the end of its own row instead of at the widest one.
 *
 * Layout (shared by the CPU and GPU kernels), exactly ELL's (fmt_ell.c) plus rl:
 *   param[0] width  entries of the longest row
 *   param[1] ld     rows rounded up to a multiple of 32
 *   col    I32[ld * width]       column-major: entry k of row r at k * ld + r; padding col = -1
 *   values F32|F64[ld * width]   same positions; padding value 0
 *   rl     I32[rows]             entries of row r (its slots 0..rl[r]-1 hold them)
 * The padding convention of ELL holds, so a kernel may loop to rl[r] or to width.
 * The GPU kernel is ELLR-T: rvs_gpu_tune.threads_per_row T (1, 2, 4, 8, 16, 32) threads share a
 * row, thread t taking slots t, t + T, ...; 0 picks T from the mean row length.
 *
 * Stats: padded = ld * width - nnz; N_iter and N_p from the row lengths rl (a warp of 32 rows
 * runs as long as its longest row). */
#include <stdlib.h>
#include "fmt_ell_common.h"
#include "rvs_omp.h"

/* F's "rl": A's row lengths. */
static rvs_status ellr_add_lengths(rvs_fmt *F, const rvs_csr *A, rvs_error *err)
{
    int32_t *rl;
    rvs_status st = rvs_fmt_add_array(F, "rl", RVS_DT_I32, A->rows, (void **)&rl, err);
    if (st)
        return st;
#pragma omp parallel for schedule(static) if (A->rows > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < A->rows; i++)
        rl[i] = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
    return RVS_OK;
}

/* F = A in ELLR. */
static rvs_status ellr_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    rvs_status st;
    if ((st = ellf_ell_build(F, A, o, "ellr", err)) || (o && o->admit_only))
        return st;
    return ellr_add_lengths(F, A, err);
}

/* F sized from L's lengths, rl set (rvs_fmt_from_rows). */
static rvs_status ellr_shape(rvs_fmt *F, const rvs_csr *L, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    rvs_status st;
    (void)state;
    if ((st = ellf_ell_shape(F, L, o, "ellr", err)) || (o && o->admit_only))
        return st;
    return ellr_add_lengths(F, L, err);
}

/* A = F (ELLR) in CSR. */
static rvs_status ellr_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    return ellf_ell_to_csr(A, F, err);
}

/* ELL's checks, then rl against the stored rows. */
static rvs_status ellr_validate(const rvs_fmt *F, rvs_error *err)
{
    const rvs_array *a;
    int64_t *len = NULL;
    rvs_status st;
    if ((st = ellf_check_sizes(F, "ellr", err)) || (st = rvs_fmt_require(F, "rl", RVS_DT_I32, F->rows, &a, err)))
        return st;
    if (!(len = malloc((size_t)(F->rows + RVS_ELL_WARP) * sizeof *len)))
        return rvs_fail(err, RVS_ERR_NOMEM, "ellr: out of memory");
    const int32_t *rl = a->data;
    st = ellf_ell_check(F, len, "ellr", err);
    for (int64_t i = 0; st == RVS_OK && i < F->rows; i++)
        if (rl[i] != len[i])
            st = rvs_fail(err, RVS_ERR_FORMAT, "ellr: rl[%lld] = %d but the row holds %lld entries", (long long)i,
                          rl[i], (long long)len[i]);
    free(len);
    return st;
}

/* Bytes, padding, and the warp model over rl. */
static void ellr_stats_warp(const rvs_fmt *F, int warp, rvs_fmt_stats *s)
{
    const int32_t *rl = rvs_fmt_array(F, "rl")->data;
    int64_t *len = malloc((size_t)(F->rows + 1) * sizeof *len);
    for (int64_t i = 0; len && i < F->rows; i++)
        len[i] = rl[i];
    ellf_stats(F, F->param[1] * F->param[0], len, F->rows, warp, s);
    free(len);
}

static void ellr_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    ellr_stats_warp(F, RVS_ELL_WARP, s);
}

const rvs_format_ops rvs_format_ellr = {RVS_FMT_ELLR,  "ellr",     ellr_from_csr,  ellr_to_csr,
                                        ellr_validate, ellr_stats, ellr_stats_warp};
const rvs_fmt_gather rvs_gather_ellr = {RVS_FMT_ELLR, 0, NULL, ellr_shape, NULL, 0, NULL, ellf_ell_fill, NULL};
