/* fmt_jad.c - jagged diagonals (as Wang and Gu's PELLR paper, J. Computer and
 * Communications, 2020, Sec. 2.3.5, describes them): rows sorted by length, longest first, and
 * stored diagonal by diagonal, with no padding.
 *
 * Layout (shared by the CPU and GPU kernels). Positions are the matrix rows in stable
 * descending order of length. Jagged diagonal d holds entry d of every position whose row has
 * more than d entries; those are positions 0..n_d - 1, n_d = jdptr[d+1] - jdptr[d], and
 * n_0 >= n_1 >= ... >= n_{ndiag-1} >= 1:
 *   param[0] ndiag   entries of the longest row
 *   perm   I32[rows]          position -> original row; y[perm[p]] = row p
 *   jdptr  I64[ndiag + 1]     diagonal d starts at jdptr[d]; jdptr[0] = 0, jdptr[ndiag] = nnz
 *   col    I32[nnz]           entry d of position p at jdptr[d] + p
 *   values F32|F64[nnz]       same positions
 * Entries of a row come in ascending column order along the diagonals.
 *
 * Stats: nothing padded; N_iter, N_p from the lengths in storage order (a GPU thread per
 * position walks its row's diagonals, so a warp runs as long as its longest row). */
#include <stdlib.h>
#include "fmt_ell_common.h"
#include "fmt_values.h"
#include "rvs_omp.h"

/* Entries of position p: diagonals whose count exceeds p (n_d is non-increasing). */
static int64_t jad_len(const int64_t *jdptr, int64_t ndiag, int64_t p)
{
    int64_t lo = 0, hi = ndiag; /* first d with n_d <= p */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (jdptr[mid + 1] - jdptr[mid] > p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* F sized as JAD from A's lengths: perm and diagonals; entries left to fill. */
static rvs_status jad_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    int64_t ndiag = 0, *jdptr;
    int32_t *perm, *col;
    void *values;
    rvs_status st;
    if ((st = ellf_begin(F, A, "jad", err)) || (o && o->admit_only) || (st = ellf_positions_begin(state, err)))
        return st;
    if ((st = rvs_fmt_add_array(F, "perm", RVS_DT_I32, A->rows, (void **)&perm, err)) ||
        (st = ellf_sort_desc(A, 0, A->rows, perm, err)))
        return st;
    if (A->rows > 0)
        ndiag = A->rowptr[perm[0] + 1] - A->rowptr[perm[0]];
    /* col and values left unset: the fill writes each entry once, touching their pages then */
    if ((st = rvs_fmt_add_array(F, "jdptr", RVS_DT_I64, ndiag + 1, (void **)&jdptr, err)) ||
        (st = rvs_fmt_add_array_unset(F, "col", RVS_DT_I32, A->nnz, (void **)&col, err)) ||
        (st = rvs_fmt_add_array_unset(F, "values", ellf_value_dtype(A->vtype), A->nnz, &values, err)))
        return st;
    F->param[0] = ndiag;
    for (int64_t i = 0; i < A->rows; i++) /* jdptr[d+1] counts rows longer than d */
        if (A->rowptr[i + 1] > A->rowptr[i])
            jdptr[A->rowptr[i + 1] - A->rowptr[i]]++;
    for (int64_t d = ndiag - 1; d >= 1; d--)
        jdptr[d] += jdptr[d + 1];
    for (int64_t d = 0; d < ndiag; d++)
        jdptr[d + 1] += jdptr[d];
    return RVS_OK;
}

/* The window's rows along the diagonals: the whole matrix position by position, else each row
 * of the window at its position. */
static rvs_status jad_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    const int32_t *perm = rvs_fmt_array(F, "perm")->data, *pos = NULL;
    const int64_t *jdptr = rvs_fmt_array(F, "jdptr")->data;
    int32_t *col = rvs_fmt_array(F, "col")->data;
    void *values = rvs_fmt_array(F, "values")->data;
    const rvs_csr *A = w->W;
    const size_t vs = rvs_vtype_size(A->vtype);
    const int whole = rvs_window_whole(w);
    rvs_status st;
    if (!whole && (st = ellf_positions_of(F, w, &pos, err)))
        return st;
#pragma omp parallel for schedule(dynamic, 256) if (A->rows + A->nnz > RVS_OMP_MIN_WORK)
    for (int64_t j = 0; j < A->rows; j++) { /* row i of A at position p */
        const int64_t p = whole ? j : pos[w->first + j], i = whole ? perm[j] : j;
        const int64_t q0 = A->rowptr[i], n = A->rowptr[i + 1] - q0;
        for (int64_t d = 0; d < n; d++) {
            col[jdptr[d] + p] = A->colind[q0 + d];
            rvs_val_copy(values, jdptr[d] + p, A->values, q0 + d, vs);
        }
    }
    return RVS_OK;
}

const rvs_fmt_gather rvs_gather_jad = {RVS_FMT_JAD, 0,    NULL,     jad_shape,          NULL,
                                       0,           NULL, jad_fill, ellf_positions_done};

/* F = A in JAD. */
static rvs_status jad_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return rvs_gather_whole(&rvs_gather_jad, F, A, o, err);
}

/* A = F (JAD) in CSR. */
static rvs_status jad_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    const int32_t *perm = rvs_fmt_array(F, "perm")->data, *col = rvs_fmt_array(F, "col")->data;
    const int64_t *jdptr = rvs_fmt_array(F, "jdptr")->data, ndiag = F->param[0];
    const void *values = rvs_fmt_array(F, "values")->data;
    const size_t vs = rvs_vtype_size(F->vtype);
    rvs_status st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err);
    if (st != RVS_OK)
        return st;
    for (int64_t p = 0; p < F->rows; p++)
        A->rowptr[perm[p] + 1] = jad_len(jdptr, ndiag, p);
    for (int64_t i = 0; i < F->rows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(dynamic, 256) if (F->rows + F->nnz > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < F->rows; p++) {
        int64_t q0 = A->rowptr[perm[p]], n = A->rowptr[perm[p] + 1] - q0;
        for (int64_t d = 0; d < n; d++) {
            A->colind[q0 + d] = col[jdptr[d] + p];
            rvs_val_copy(A->values, q0 + d, values, jdptr[d] + p, vs);
        }
    }
    return RVS_OK;
}

/* Diagonal table: from 0 to nnz, counts within rows, non-increasing, the last non-empty. Each
 * value is checked to lie between the one before it and nnz before any difference is taken,
 * so hostile values cannot overflow. */
static rvs_status jad_check_diagonals(const rvs_fmt *F, const int64_t *jdptr, int64_t ndiag, rvs_error *err)
{
    if (jdptr[0] != 0 || jdptr[ndiag] != F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "jad: jdptr runs from %lld to %lld, want 0 to nnz %lld",
                        (long long)jdptr[0], (long long)jdptr[ndiag], (long long)F->nnz);
    for (int64_t d = 0; d < ndiag; d++) {
        if (jdptr[d + 1] < jdptr[d] || jdptr[d + 1] > F->nnz)
            return rvs_fail(err, RVS_ERR_FORMAT, "jad: jdptr[%lld] = %lld is outside %lld..%lld", (long long)d + 1,
                            (long long)jdptr[d + 1], (long long)jdptr[d], (long long)F->nnz);
        int64_t n = jdptr[d + 1] - jdptr[d];
        if (n < 1 || n > F->rows || (d > 0 && n > jdptr[d] - jdptr[d - 1]))
            return rvs_fail(err, RVS_ERR_FORMAT, "jad: diagonal %lld holds %lld entries", (long long)d,
                            (long long)n);
    }
    return RVS_OK;
}

/* Columns of each position in range and ascending; the first bad position, or -1. */
static int64_t jad_bad_row(const rvs_fmt *F, const int64_t *jdptr, const int32_t *col)
{
    int64_t bad = INT64_MAX, ndiag = F->param[0];
#pragma omp parallel for schedule(dynamic, 256) reduction(min : bad) if (F->rows + F->nnz > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < F->rows; p++) {
        int64_t n = jad_len(jdptr, ndiag, p), prev = -1;
        for (int64_t d = 0; d < n; d++) {
            int32_t c = col[jdptr[d] + p];
            if (c < 0 || c >= F->cols || c <= prev) {
                if (p < bad)
                    bad = p;
                break;
            }
            prev = c;
        }
    }
    return bad == INT64_MAX ? -1 : bad;
}

/* Params, arrays, diagonal table, perm, and every column index. */
static rvs_status jad_validate(const rvs_fmt *F, rvs_error *err)
{
    const rvs_array *pa, *ja, *ca;
    int64_t ndiag = F->param[0], bad;
    rvs_status st;
    if ((st = ellf_check_sizes(F, "jad", err)))
        return st;
    if (ndiag < 0 || ndiag > F->cols || ndiag > F->nnz || (ndiag == 0) != (F->nnz == 0))
        return rvs_fail(err, RVS_ERR_FORMAT, "jad: %lld diagonals for %lld entries, %lld columns", (long long)ndiag,
                        (long long)F->nnz, (long long)F->cols);
    if ((st = rvs_fmt_require(F, "perm", RVS_DT_I32, F->rows, &pa, err)) ||
        (st = rvs_fmt_require(F, "jdptr", RVS_DT_I64, ndiag + 1, &ja, err)) ||
        (st = rvs_fmt_require(F, "col", RVS_DT_I32, F->nnz, &ca, err)) ||
        (st = rvs_fmt_require(F, "values", ellf_value_dtype(F->vtype), F->nnz, NULL, err)) ||
        (st = jad_check_diagonals(F, ja->data, ndiag, err)) ||
        (st = ellf_check_perm(pa->data, F->rows, "jad", err)))
        return st;
    if ((bad = jad_bad_row(F, ja->data, ca->data)) >= 0)
        return rvs_fail(err, RVS_ERR_RANGE,
                        "jad: stored row %lld (row %d) has a column out of range "
                        "or out of order",
                        (long long)bad, ((const int32_t *)pa->data)[bad]);
    return RVS_OK;
}

/* Bytes, no padding, the warp model over the sorted lengths. */
static void jad_stats_warp(const rvs_fmt *F, int warp, rvs_fmt_stats *s)
{
    const int64_t *jdptr = rvs_fmt_array(F, "jdptr")->data;
    int64_t *len = malloc((size_t)(F->rows + 1) * sizeof *len);
    for (int64_t p = 0; len && p < F->rows; p++)
        len[p] = jad_len(jdptr, F->param[0], p);
    ellf_stats(F, F->nnz, len, F->rows, warp, s);
    free(len);
}

static void jad_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    jad_stats_warp(F, RVS_ELL_WARP, s);
}

const rvs_format_ops rvs_format_jad = {RVS_FMT_JAD,  "jad",     jad_from_csr,  jad_to_csr,
                                       jad_validate, jad_stats, jad_stats_warp};
