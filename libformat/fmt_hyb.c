/* fmt_hyb.c - hybrid ELL + COO (HYB), and the COO tail shared with HYB-DIA.
 *
 * Layout (rows x cols, nnz stored entries, vt = F32 or F64 values):
 *   param[0] = K      ELL width: the first K entries of each row (in column order) are in ELL
 *   param[1] = ld     leading dimension: rows rounded up to a multiple of 32
 *   param[2] = ncoo   entries in the COO tail (sum over rows of max(0, len - K))
 *   ell_col  I32[ld * K]  column-major: slot j*ld + i holds the column of entry j of row i;
 *                         padding is -1 (a row's padding follows its entries; rows >= rows are
 *                         all padding); columns of a row strictly increase
 *   ell_val  vt[ld * K]   the values, +0 in padding slots
 *   coo_row  I32[ncoo], coo_col I32[ncoo], coo_val vt[ncoo]: entries K+1.. of each row, sorted
 *                         by row then column; a row appears here only if its ELL row is full and
 *                         its COO columns follow its ELL columns.
 * Choice of K (rvs_fmt_options.hyb_k, len_i = entries of row i):
 *   K >= 0            fixed: K = min(hyb_k, longest row).
 *   RVS_HYB_K_THIRD   cuSPARSE's old rule: the largest k >= 0 such that at least one third of
 *                     the rows have >= k entries, i.e. 3 * #{i : len_i >= k} >= rows.
 *   RVS_HYB_K_AUTO    the K minimising the modelled traffic  ld * K + c * sum_i max(0, len_i - K)
 *                     (ties: the smaller K), computed from the row-length distribution. An ELL
 *                     slot moves a column and a value (4 + vs bytes, vs = value size); a COO entry
 *                     moves row, column and value plus its share of the cross-row merge (a
 *                     partial sum written and read back: 2 vs), so c = (8 + 3 vs) / (4 + vs):
 *                     2.67 for f64, 2.5 for f32. The marginal column k pays off while
 *                     c * #{len_i >= k} > ld, so AUTO is the one-third rule with the threshold
 *                     set by the byte model (rows / 2.5..2.67 instead of rows / 3) and the real
 *                     padded height ld instead of rows.
 * Stats: padded = ld * K - (entries in ELL); n_iter = n_p = -1. */
#include <stdlib.h>
#include <string.h>
#include "fmt_parts.h"
#include "fmt_values.h"
#include "rvs_omp.h"

/* The COO tail's arrays, ncoo entries each, unset (rvs_coo_part_fill writes every entry). */
rvs_status rvs_coo_part_add(rvs_fmt *F, int64_t ncoo, rvs_error *err)
{
    rvs_status st;
    if ((st = rvs_fmt_add_array_unset(F, "coo_row", RVS_DT_I32, ncoo, NULL, err)) ||
        (st = rvs_fmt_add_array_unset(F, "coo_col", RVS_DT_I32, ncoo, NULL, err)))
        return st;
    return rvs_fmt_add_array_unset(F, "coo_val", rvs_part_vdtype(F->vtype), ncoo, NULL, err);
}

/* The window's entries from the K-th of each row on that in_other does not flag, in order. */
void rvs_coo_part_fill(rvs_fmt *F, const rvs_window *w, int64_t K, const uint8_t *in_other, int64_t *next)
{
    const rvs_csr *W = w->W;
    int32_t *ri = rvs_fmt_array(F, "coo_row")->data, *ci = rvs_fmt_array(F, "coo_col")->data;
    char *va = rvs_fmt_array(F, "coo_val")->data;
    const size_t vs = rvs_vtype_size(W->vtype);
    int64_t q = *next;
    for (int64_t i = 0; i < W->rows; i++)
        for (int64_t p = W->rowptr[i] + K; p < W->rowptr[i + 1]; p++)
            if (!in_other || !in_other[p]) {
                ri[q] = (int32_t)(w->first + i);
                ci[q] = W->colind[p];
                memcpy(va + (size_t)q * vs, (const char *)W->values + (size_t)p * vs, vs);
                q++;
            }
    *next = q;
}

/* Check the COO tail: arrays, range, strict (row, col) order. */
rvs_status rvs_coo_part_validate(const rvs_fmt *F, int64_t ncoo, const char *name, rvs_error *err)
{
    const rvs_array *ra, *ca;
    rvs_status st;
    if (ncoo < 0 || ncoo > F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "%s: %lld COO entries for nnz %lld", name, (long long)ncoo,
                        (long long)F->nnz);
    if ((st = rvs_fmt_require(F, "coo_row", RVS_DT_I32, ncoo, &ra, err)) ||
        (st = rvs_fmt_require(F, "coo_col", RVS_DT_I32, ncoo, &ca, err)) ||
        (st = rvs_fmt_require(F, "coo_val", rvs_part_vdtype(F->vtype), ncoo, NULL, err)))
        return st;
    const int32_t *r = ra->data, *c = ca->data;
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) if (ncoo > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < ncoo; p++) {
        int ok = r[p] >= 0 && r[p] < F->rows && c[p] >= 0 && c[p] < F->cols;
        if (ok && p > 0)
            ok = r[p] > r[p - 1] || (r[p] == r[p - 1] && c[p] > c[p - 1]);
        if (!ok && p > bad)
            bad = p;
    }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE, "%s: COO entry %lld (%d, %d) out of range or out of order", name,
                        (long long)bad, r[bad], c[bad]);
    return RVS_OK;
}

/* Row starts of a validated COO tail. */
void rvs_coo_part_row_starts(const rvs_fmt *F, int64_t ncoo, int64_t *first)
{
    const int32_t *r = rvs_fmt_array(F, "coo_row")->data;
    memset(first, 0, (size_t)(F->rows + 1) * sizeof *first);
    for (int64_t p = 0; p < ncoo; p++)
        first[r[p] + 1]++;
    for (int64_t i = 0; i < F->rows; i++)
        first[i + 1] += first[i];
}

/* K for A under option k (see the layout comment); fails only on allocation. */
static rvs_status hyb_choose_k(const rvs_csr *A, int64_t k, int64_t *K, rvs_error *err)
{
    int64_t maxlen = 0, ld = rvs_part_ld(A->rows);
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        maxlen = len > maxlen ? len : maxlen;
    }
    if (k >= 0) {
        *K = k < maxlen ? k : maxlen;
        return RVS_OK;
    }
    /* Both rules need #{len >= k} >= rows / 3 > 0, so k <= 3 nnz / rows + 1: a short histogram. */
    int64_t cap = 3 * A->nnz / (A->rows > 0 ? A->rows : 1) + 2;
    cap = cap < maxlen ? cap : maxlen;
    int64_t *atleast = calloc((size_t)cap + 2, sizeof *atleast);
    if (!atleast)
        return rvs_fail(err, RVS_ERR_NOMEM, "hyb: no memory for the row-length distribution");
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        atleast[len < cap ? len : cap]++;
    }
    for (int64_t j = cap - 1; j >= 0; j--)
        atleast[j] += atleast[j + 1]; /* now atleast[j] = #{len >= j} */
    *K = 0;
    if (k == RVS_HYB_K_THIRD) {
        for (int64_t j = 1; j <= cap; j++)
            if (3 * atleast[j] >= A->rows)
                *K = j;
    } else {
        double vs = (double)rvs_vtype_size(A->vtype), c = (8 + 3 * vs) / (4 + vs);
        double cost = 0, best = 0; /* relative to cost(0) = c * nnz */
        for (int64_t j = 1; j <= cap; j++) {
            cost += (double)ld - c * (double)atleast[j];
            if (cost < best) {
                best = cost;
                *K = j;
            }
        }
    }
    free(atleast);
    return RVS_OK;
}

/* F sized as A split at K into ELL and COO (A's lengths alone), both parts left to fill; *state
 * counts the COO entries placed. */
static rvs_status hyb_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    int64_t K = 0, ld = rvs_part_ld(A->rows), ncoo = 0;
    rvs_status st;
    if (A->colind64 || A->rows > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "hyb: %lld x %lld does not fit 32-bit indices",
                        (long long)A->rows, (long long)A->cols);
    if ((st = hyb_choose_k(A, o ? o->hyb_k : RVS_HYB_K_AUTO, &K, err)))
        return st;
    if (K > 0 && ld > INT64_MAX / 16 / K)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "hyb: ELL part of %lld x %lld overflows", (long long)ld,
                        (long long)K);
    if (o && o->admit_only)
        return RVS_OK;
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        ncoo += len > K ? len - K : 0;
    }
    F->id = RVS_FMT_HYB;
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    F->param[0] = K;
    F->param[1] = ld;
    F->param[2] = ncoo;
    if (!(*state = calloc(1, sizeof(int64_t))))
        return rvs_fail(err, RVS_ERR_NOMEM, "hyb: out of memory");
    /* unset: the fill writes every slot (padding too), touching their pages only then */
    if ((st = rvs_fmt_add_array_unset(F, "ell_col", RVS_DT_I32, ld * K, NULL, err)) ||
        (st = rvs_fmt_add_array_unset(F, "ell_val", rvs_part_vdtype(A->vtype), ld * K, NULL, err)))
        return st;
    return rvs_coo_part_add(F, ncoo, err);
}

/* The window's rows: their first K entries into the ELL part, padded (column -1, value 0; after
 * the last row, the padding rows), the rest appended to the COO tail. */
static rvs_status hyb_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    const int64_t K = F->param[0], ld = F->param[1], end = rvs_window_end(w, ld);
    const rvs_csr *A = w->W;
    int32_t *ec = rvs_fmt_array(F, "ell_col")->data;
    char *ev = rvs_fmt_array(F, "ell_val")->data;
    const size_t vs = rvs_vtype_size(A->vtype);
    (void)err;
#pragma omp parallel for schedule(static) if ((end - w->first) * (K + 1) > RVS_OMP_MIN_WORK)
    for (int64_t i = w->first; i < end; i++) {
        const int64_t r = i - w->first, held = i < F->rows;
        const int64_t p0 = held ? A->rowptr[r] : 0, len = held ? A->rowptr[r + 1] - p0 : 0;
        for (int64_t j = 0; j < K; j++) {
            if (j < len) {
                ec[j * ld + i] = A->colind[p0 + j];
                memcpy(ev + (size_t)(j * ld + i) * vs, (const char *)A->values + (size_t)(p0 + j) * vs, vs);
            } else {
                ec[j * ld + i] = -1;
                memset(ev + (size_t)(j * ld + i) * vs, 0, vs);
            }
        }
    }
    rvs_coo_part_fill(F, w, K, NULL, w->state);
    return RVS_OK;
}

const rvs_fmt_gather rvs_gather_hyb = {RVS_FMT_HYB, 0, NULL, hyb_shape, NULL, 0, NULL, hyb_fill, free};

/* F = A split at K into ELL and COO. */
static rvs_status hyb_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return rvs_gather_whole(&rvs_gather_hyb, F, A, o, err);
}

/* Entries of ELL row i (its padding starts at the first -1). */
static int64_t hyb_ell_len(const int32_t *ec, int64_t K, int64_t ld, int64_t i)
{
    int64_t n = 0;
    while (n < K && ec[n * ld + i] >= 0)
        n++;
    return n;
}

/* A = F as CSR: each row's ELL entries, then its COO entries. */
static rvs_status hyb_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    int64_t K = F->param[0], ld = F->param[1], ncoo = F->param[2];
    const int32_t *ec = rvs_fmt_array(F, "ell_col")->data, *cc = rvs_fmt_array(F, "coo_col")->data;
    const char *ev = rvs_fmt_array(F, "ell_val")->data, *cv = rvs_fmt_array(F, "coo_val")->data;
    size_t vs = rvs_vtype_size(F->vtype);
    int64_t *first = malloc((size_t)(F->rows + 1) * sizeof *first);
    rvs_status st;
    if (!first)
        return rvs_fail(err, RVS_ERR_NOMEM, "hyb: no memory for row starts");
    if ((st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err)))
        goto done;
    rvs_coo_part_row_starts(F, ncoo, first);
    for (int64_t i = 0; i < F->rows; i++)
        A->rowptr[i + 1] = A->rowptr[i] + hyb_ell_len(ec, K, ld, i) + first[i + 1] - first[i];
#pragma omp parallel for schedule(static) if (F->rows + F->nnz > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < F->rows; i++) {
        int64_t q = A->rowptr[i], n = hyb_ell_len(ec, K, ld, i);
        for (int64_t j = 0; j < n; j++, q++) {
            A->colind[q] = ec[j * ld + i];
            memcpy((char *)A->values + (size_t)q * vs, ev + (size_t)(j * ld + i) * vs, vs);
        }
        for (int64_t p = first[i]; p < first[i + 1]; p++, q++) {
            A->colind[q] = cc[p];
            memcpy((char *)A->values + (size_t)q * vs, cv + (size_t)p * vs, vs);
        }
    }
done:
    free(first);
    return st;
}

/* Check the ELL part: range, padding at the end of rows and zero, increasing columns. */
static rvs_status hyb_ell_validate(const rvs_fmt *F, int64_t K, int64_t ld, int64_t *in_ell, rvs_error *err)
{
    const rvs_array *ca, *va;
    rvs_status st;
    if ((st = rvs_fmt_require(F, "ell_col", RVS_DT_I32, ld * K, &ca, err)) ||
        (st = rvs_fmt_require(F, "ell_val", rvs_part_vdtype(F->vtype), ld * K, &va, err)))
        return st;
    const int32_t *ec = ca->data;
    int64_t bad = -1, count = 0;
#pragma omp parallel for reduction(max : bad) reduction(+ : count) if (ld * K > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < ld; i++) {
        int64_t n = i < F->rows ? hyb_ell_len(ec, K, ld, i) : 0;
        count += n;
        for (int64_t j = 0; j < K; j++) {
            int64_t s = j * ld + i;
            int ok = j < n ? ec[s] < F->cols && (j == 0 || ec[s] > ec[s - ld])
                           : ec[s] == -1 && rvs_val_is_zero(va->data, s, F->vtype);
            if (!ok)
                bad = s > bad ? s : bad;
        }
    }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE,
                        "hyb: ELL slot %lld (row %lld, column %d) out of range, out of "
                        "order or bad padding",
                        (long long)bad, (long long)(bad % ld) + 1, ec[bad]);
    *in_ell = count;
    return RVS_OK;
}

/* Check sizes, both parts, the entry count and that COO rows continue full ELL rows. */
static rvs_status hyb_validate(const rvs_fmt *F, rvs_error *err)
{
    int64_t K = F->param[0], ld = F->param[1], ncoo = F->param[2], in_ell = 0;
    rvs_status st;
    if (F->rows < 0 || F->rows > RVS_COL32_MAX || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0 ||
        !rvs_vtype_valid(F->vtype) || K < 0 || K > F->cols || ld != rvs_part_ld(F->rows))
        return rvs_fail(err, RVS_ERR_FORMAT, "hyb: bad size %lld x %lld, nnz %lld, K %lld, ld %lld",
                        (long long)F->rows, (long long)F->cols, (long long)F->nnz, (long long)K, (long long)ld);
    if ((st = hyb_ell_validate(F, K, ld, &in_ell, err)) || (st = rvs_coo_part_validate(F, ncoo, "hyb", err)))
        return st;
    if (in_ell + ncoo != F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "hyb: %lld ELL + %lld COO entries, nnz says %lld", (long long)in_ell,
                        (long long)ncoo, (long long)F->nnz);
    const int32_t *ec = rvs_fmt_array(F, "ell_col")->data, *r = rvs_fmt_array(F, "coo_row")->data,
                  *c = rvs_fmt_array(F, "coo_col")->data;
    for (int64_t p = 0; p < ncoo; p++)
        if (K > 0 && (ec[(K - 1) * ld + r[p]] < 0 || ec[(K - 1) * ld + r[p]] >= c[p]))
            return rvs_fail(err, RVS_ERR_FORMAT, "hyb: COO entry %lld (%d, %d) does not follow a full ELL row",
                            (long long)p, r[p], c[p]);
    return RVS_OK;
}

/* Bytes, ELL padding and the ELL part's warp work. */
static void hyb_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    int64_t K = F->param[0], ld = F->param[1], ncoo = F->param[2], vs = (int64_t)rvs_vtype_size(F->vtype);
    s->bytes = ld * K * (4 + vs) + ncoo * (8 + vs);
    s->padded = ld * K - (F->nnz - ncoo);
    s->n_iter = -1;
    s->n_p = -1;
}

const rvs_format_ops rvs_format_hyb = {RVS_FMT_HYB, "hyb", hyb_from_csr, hyb_to_csr, hyb_validate, hyb_stats, NULL};
