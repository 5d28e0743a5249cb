/* fmt_pellr.c - PELLR (Wang and Gu, "PELLR: A Permutated ELLPACK-R Format for SpMV on GPUs", J.
 * Computer and Communications, 2020, Sec. 3): ELLR over rows sorted by length, longest first, so
 * that the 32 rows of a warp have near-equal lengths; lengths kept per warp, as the paper proposes.
 *
 * Layout (shared by the CPU and GPU kernels). Stored rows ("positions") are the matrix rows in
 * stable descending order of length; they are cut into slices of 32 (one warp each), the last
 * slice padded with empty positions up to 32. Each slice is its own column-major ELL block
 * as wide as its longest (first) row, so padding stays within a slice:
 *   param[0] 32         positions per slice
 *   param[1] nslices    ceil(rows / 32)
 *   param[2] width      the longest row (wl[0]; 0 without rows): lets a GPU launcher size its
 *                       work for long rows without reading the device arrays
 *   perm   I32[rows]            position -> original row (a permutation); y[perm[p]] = row p
 *   wl     I32[nslices]         slice width: the length of the slice's first (longest) row
 *   sptr   I64[nslices + 1]     slice w's slots start at sptr[w]; sptr[w+1] - sptr[w] = 32 wl[w]
 *   col    I32[sptr[nslices]]   entry k of position p (slice w = p / 32, lane l = p % 32) at
 *                               sptr[w] + 32 k + l; padding col = -1
 *   values F32|F64[sptr[nslices]]  same positions; padding value 0
 * A row's entries fill its first slots in ascending column order; the kernels loop to wl[w]
 * and skip padding by col = -1, so no per-row rl array is stored (the paper's N_w option).
 *
 * Stats: padded = sptr[nslices] - nnz; N_iter, N_p from the lengths in storage order. */
#include <stdlib.h>
#include "fmt_ell_common.h"

typedef struct {
    int64_t rows;
    const int32_t *perm, *wl;
    const int64_t *sptr;
} pellr_ctx;

/* Slots of position p. */
static void pellr_row(const void *ctx, int64_t p, ellf_row *r)
{
    const pellr_ctx *c = ctx;
    int64_t w = p / RVS_ELL_WARP;
    r->orig = p < c->rows ? c->perm[p] : -1;
    r->base = c->sptr[w] + p % RVS_ELL_WARP;
    r->step = RVS_ELL_WARP;
    r->nslots = c->wl[w];
    r->T = 1;
}

/* Arrays of F as a context (F holds them). */
static pellr_ctx pellr_context(const rvs_fmt *F)
{
    pellr_ctx c = {F->rows, rvs_fmt_array(F, "perm")->data, rvs_fmt_array(F, "wl")->data,
                   rvs_fmt_array(F, "sptr")->data};
    return c;
}

/* F sized as PELLR from A's lengths: perm, slices, slots left to fill. */
static rvs_status pellr_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    int64_t ns = (A->rows + RVS_ELL_WARP - 1) / RVS_ELL_WARP, *sptr;
    int32_t *perm, *wl, *col;
    void *values;
    rvs_status st;
    if ((st = ellf_begin(F, A, "pellr", err)) || (o && o->admit_only) || (st = ellf_positions_begin(state, err)))
        return st;
    if ((st = rvs_fmt_add_array(F, "perm", RVS_DT_I32, A->rows, (void **)&perm, err)) ||
        (st = rvs_fmt_add_array(F, "wl", RVS_DT_I32, ns, (void **)&wl, err)) ||
        (st = rvs_fmt_add_array(F, "sptr", RVS_DT_I64, ns + 1, (void **)&sptr, err)) ||
        (st = ellf_sort_desc(A, 0, A->rows, perm, err)))
        return st;
    for (int64_t w = 0; w < ns; w++) {
        int32_t r = perm[w * RVS_ELL_WARP];
        wl[w] = (int32_t)(A->rowptr[r + 1] - A->rowptr[r]);
        sptr[w + 1] = sptr[w] + (int64_t)RVS_ELL_WARP * wl[w];
    }
    F->param[0] = RVS_ELL_WARP;
    F->param[1] = ns;
    F->param[2] = ns ? wl[0] : 0;
    return ellf_add_slots(F, sptr[ns], &col, &values, err);
}

/* The window's rows into the slots of their positions. */
static rvs_status pellr_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    const pellr_ctx c = pellr_context(F);
    const int64_t npos = F->param[1] * RVS_ELL_WARP;
    const int32_t *pos;
    rvs_status st;
    if (rvs_window_whole(w)) { /* position by position */
        ellf_fill_window(F, w, &c, pellr_row, npos);
        return RVS_OK;
    }
    if ((st = ellf_positions_of(F, w, &pos, err)))
        return st;
    ellf_fill_moved(F, w, &c, pellr_row, pos, npos);
    return RVS_OK;
}

const rvs_fmt_gather rvs_gather_pellr = {RVS_FMT_PELLR,      0, NULL, pellr_shape, NULL, 0, NULL, pellr_fill,
                                         ellf_positions_done};

/* F = A in PELLR. */
static rvs_status pellr_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return rvs_gather_whole(&rvs_gather_pellr, F, A, o, err);
}

/* A = F (PELLR) in CSR. */
static rvs_status pellr_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    pellr_ctx c = pellr_context(F);
    return ellf_to_csr(A, F, &c, pellr_row, F->param[1] * RVS_ELL_WARP, err);
}

/* Slice table: sptr from 0 in steps of 32 wl[w], within limits. */
static rvs_status pellr_check_slices(const rvs_fmt *F, const int32_t *wl, const int64_t *sptr, int64_t ns,
                                     rvs_error *err)
{
    if (sptr[0] != 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "pellr: sptr[0] = %lld, want 0", (long long)sptr[0]);
    for (int64_t w = 0; w < ns; w++) {
        if (wl[w] < 0 || wl[w] > F->cols || sptr[w] > INT64_MAX / 16 - (int64_t)RVS_ELL_WARP * wl[w])
            return rvs_fail(err, RVS_ERR_FORMAT, "pellr: slice %lld width %d out of range", (long long)w, wl[w]);
        if (sptr[w + 1] != sptr[w] + (int64_t)RVS_ELL_WARP * wl[w])
            return rvs_fail(err, RVS_ERR_FORMAT, "pellr: sptr[%lld] = %lld does not follow wl", (long long)(w + 1),
                            (long long)sptr[w + 1]);
    }
    return RVS_OK;
}

/* param[2] = the first slice's width (the longest row), 0 without slices. */
static rvs_status pellr_check_width(const rvs_fmt *F, const int32_t *wl, int64_t ns, rvs_error *err)
{
    int64_t want = ns ? wl[0] : 0;
    if (F->param[2] != want)
        return rvs_fail(err, RVS_ERR_FORMAT, "pellr: param[2] = %lld, want the longest row %lld",
                        (long long)F->param[2], (long long)want);
    return RVS_OK;
}

/* Lengths in storage order descending, and each slice as wide as its first row. */
static rvs_status pellr_check_order(const int32_t *wl, const int64_t *len, int64_t rows, int64_t ns, rvs_error *err)
{
    for (int64_t p = 1; p < rows; p++)
        if (len[p] > len[p - 1])
            return rvs_fail(err, RVS_ERR_FORMAT, "pellr: stored row %lld is longer than the one before",
                            (long long)p);
    for (int64_t w = 0; w < ns; w++)
        if (wl[w] != len[w * RVS_ELL_WARP])
            return rvs_fail(err, RVS_ERR_FORMAT, "pellr: wl[%lld] = %d, its longest row has %lld", (long long)w,
                            wl[w], (long long)len[w * RVS_ELL_WARP]);
    return RVS_OK;
}

/* Params, slice table, perm, every slot, and the sorted order. */
static rvs_status pellr_validate(const rvs_fmt *F, rvs_error *err)
{
    const rvs_array *pa, *wa, *sa;
    const int32_t *col;
    int64_t *len = NULL, ns = (F->rows + RVS_ELL_WARP - 1) / RVS_ELL_WARP;
    rvs_status st;
    if ((st = ellf_check_sizes(F, "pellr", err)))
        return st;
    if (F->param[0] != RVS_ELL_WARP || F->param[1] != ns)
        return rvs_fail(err, RVS_ERR_FORMAT, "pellr: params %lld, %lld; want 32, %lld", (long long)F->param[0],
                        (long long)F->param[1], (long long)ns);
    if ((st = rvs_fmt_require(F, "perm", RVS_DT_I32, F->rows, &pa, err)) ||
        (st = rvs_fmt_require(F, "wl", RVS_DT_I32, ns, &wa, err)) ||
        (st = rvs_fmt_require(F, "sptr", RVS_DT_I64, ns + 1, &sa, err)) ||
        (st = pellr_check_slices(F, wa->data, sa->data, ns, err)) ||
        (st = pellr_check_width(F, wa->data, ns, err)) ||
        (st = ellf_require_slots(F, ((const int64_t *)sa->data)[ns], &col, err)) ||
        (st = ellf_check_perm(pa->data, F->rows, "pellr", err)))
        return st;
    if (!(len = malloc((size_t)(ns * RVS_ELL_WARP + 1) * sizeof *len)))
        return rvs_fail(err, RVS_ERR_NOMEM, "pellr: out of memory");
    pellr_ctx c = pellr_context(F);
    if ((st = ellf_scan(F, col, &c, pellr_row, ns * RVS_ELL_WARP, len, "pellr", err)) == RVS_OK)
        st = pellr_check_order(wa->data, len, F->rows, ns, err);
    free(len);
    return st;
}

/* Bytes, padding, and the warp model over the sorted lengths. */
static void pellr_stats_warp(const rvs_fmt *F, int warp, rvs_fmt_stats *s)
{
    int64_t ns = F->param[1], *len = malloc((size_t)(ns * RVS_ELL_WARP + 1) * sizeof *len);
    const int32_t *col = rvs_fmt_array(F, "col")->data;
    pellr_ctx c = pellr_context(F);
    if (len && ellf_scan(F, col, &c, pellr_row, ns * RVS_ELL_WARP, len, "pellr", NULL) != RVS_OK) {
        free(len);
        len = NULL;
    }
    ellf_stats(F, ((const int64_t *)rvs_fmt_array(F, "sptr")->data)[ns], len, F->rows, warp, s);
    free(len);
}

static void pellr_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    pellr_stats_warp(F, RVS_ELL_WARP, s);
}

const rvs_format_ops rvs_format_pellr = {RVS_FMT_PELLR,  "pellr",     pellr_from_csr,  pellr_to_csr,
                                         pellr_validate, pellr_stats, pellr_stats_warp};
