/* fmt_ell_common.c - slots of stored rows for the ELL family: fill, check, unpack, sort, stats;
 * and plain column-major ELL, which ELL and ELLR share. See fmt_ell_common.h. */
#include <stdlib.h>
#include <string.h>
#include "fmt_ell_common.h"
#include "fmt_values.h"
#include "rvs_omp.h"

/* Index of slot k of r. */
static inline int64_t slot(const ellf_row *r, int64_t k)
{
    return r->T == 1 ? r->base + k * r->step : r->base + (k / r->T) * r->step + k % r->T;
}

rvs_dtype ellf_value_dtype(rvs_vtype vt)
{
    return rvs_value_dtype(vt);
}

/* Sizes of A checked and copied to F. */
rvs_status ellf_begin(rvs_fmt *F, const rvs_csr *A, const char *name, rvs_error *err)
{
    if (A->rows > INT32_MAX - RVS_ELL_WARP || A->cols > RVS_COL32_MAX || A->colind64)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "%s: %lld x %lld needs more than 32-bit indices", name,
                        (long long)A->rows, (long long)A->cols);
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    return RVS_OK;
}

/* Sizes of F in the ranges the family supports. */
rvs_status ellf_check_sizes(const rvs_fmt *F, const char *name, rvs_error *err)
{
    if (F->rows < 0 || F->rows > INT32_MAX - RVS_ELL_WARP || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0 ||
        !rvs_vtype_valid(F->vtype))
        return rvs_fail(err, RVS_ERR_FORMAT, "%s: bad size %lld x %lld, nnz %lld, value type %d", name,
                        (long long)F->rows, (long long)F->cols, (long long)F->nnz, (int)F->vtype);
    return RVS_OK;
}

/* a * b + nothing, bounded so that byte counts of the product still fit. */
rvs_status ellf_mul(int64_t a, int64_t b, int64_t *out, const char *what, rvs_error *err)
{
    const int64_t lim = INT64_MAX / 16;
    if (a < 0 || b < 0 || (a > 0 && b > lim / a))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "%s: %lld x %lld slots is too large", what, (long long)a,
                        (long long)b);
    *out = a * b;
    return RVS_OK;
}

/* The "col" and "values" arrays of nslots slots, left unset: every layout here (ELL, ELLR, PELLR,
 * BiELL) gives each slot to exactly one position, and ellf_fill writes all of a position's slots,
 * padding included, so nothing need be filled first (a zero fill touched every page of the block
 * before the first row was copied). */
rvs_status ellf_add_slots(rvs_fmt *F, int64_t nslots, int32_t **col, void **values, rvs_error *err)
{
    rvs_status st;
    if ((st = rvs_fmt_add_array_unset(F, "col", RVS_DT_I32, nslots, (void **)col, err)))
        return st;
    return rvs_fmt_add_array_unset(F, "values", ellf_value_dtype(F->vtype), nslots, values, err);
}

/* "col" and "values" present with nslots elements. */
rvs_status ellf_require_slots(const rvs_fmt *F, int64_t nslots, const int32_t **col, rvs_error *err)
{
    const rvs_array *c;
    rvs_status st;
    if ((st = rvs_fmt_require(F, "col", RVS_DT_I32, nslots, &c, err)) ||
        (st = rvs_fmt_require(F, "values", ellf_value_dtype(F->vtype), nslots, NULL, err)))
        return st;
    *col = c->data;
    return RVS_OK;
}

/* Stable descending order by row length: insertion for short spans, counting sort otherwise. */
rvs_status ellf_sort_desc(const rvs_csr *A, int64_t lo, int64_t hi, int32_t *order, rvs_error *err)
{
    const int64_t *rp = A->rowptr;
    int64_t n = hi - lo, maxlen = 0;
    if (n <= 64) {
        for (int64_t i = 0; i < n; i++) {
            int64_t r = lo + i, len = rp[r + 1] - rp[r], j = i;
            for (; j > 0 && rp[order[j - 1] + 1] - rp[order[j - 1]] < len; j--)
                order[j] = order[j - 1];
            order[j] = (int32_t)r;
        }
        return RVS_OK;
    }
    for (int64_t r = lo; r < hi; r++)
        if (rp[r + 1] - rp[r] > maxlen)
            maxlen = rp[r + 1] - rp[r];
    int64_t *start = calloc((size_t)maxlen + 2, sizeof *start);
    if (!start)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory sorting %lld rows", (long long)n);
    for (int64_t r = lo; r < hi; r++)
        start[rp[r + 1] - rp[r]]++;
    int64_t acc = 0; /* start[L] = rows longer than L */
    for (int64_t L = maxlen; L >= 0; L--) {
        int64_t c = start[L];
        start[L] = acc;
        acc += c;
    }
    for (int64_t r = lo; r < hi; r++)
        order[start[rp[r + 1] - rp[r]]++] = (int32_t)r;
    free(start);
    return RVS_OK;
}

/* Each of 0..n-1 exactly once. */
rvs_status ellf_check_perm(const int32_t *perm, int64_t n, const char *name, rvs_error *err)
{
    rvs_status st = RVS_OK;
    unsigned char *seen = calloc((size_t)n + 1, 1);
    if (!seen)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory checking perm of %lld rows", (long long)n);
    for (int64_t i = 0; i < n && st == RVS_OK; i++) {
        if (perm[i] < 0 || perm[i] >= n)
            st = rvs_fail(err, RVS_ERR_RANGE, "%s: perm[%lld] = %d out of range", name, (long long)i, perm[i]);
        else if (seen[perm[i]]++)
            st = rvs_fail(err, RVS_ERR_FORMAT, "%s: perm[%lld] = %d repeats a row", name, (long long)i, perm[i]);
    }
    free(seen);
    return st;
}

/* The slots of position r: row i of W's entries (i < 0: none), then padding. */
static void fill_slots(const rvs_csr *W, int64_t i, const ellf_row *r, int32_t *col, void *values, size_t vs)
{
    int64_t q0 = i < 0 ? 0 : W->rowptr[i], n = i < 0 ? 0 : W->rowptr[i + 1] - q0;
    for (int64_t k = 0; k < n; k++) {
        int64_t s = slot(r, k);
        col[s] = W->colind[q0 + k];
        rvs_val_copy(values, s, W->values, q0 + k, vs);
    }
    for (int64_t k = n; k < r->nslots; k++) { /* padding: column RVS_ELL_PAD, value 0 */
        int64_t s = slot(r, k);
        col[s] = RVS_ELL_PAD;
        memset((char *)values + (size_t)s * vs, 0, vs);
    }
}

/* Copy each row of the window into the slots of its position. */
void ellf_fill(const rvs_window *w, int32_t *col, void *values, const void *ctx, ellf_row_fn fn, int64_t from,
               int64_t to)
{
    const size_t vs = rvs_vtype_size(w->W->vtype);
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t p = from; p < to; p++) {
        ellf_row r;
        fn(ctx, p, &r);
        fill_slots(w->W, r.orig < 0 ? -1 : r.orig - w->first, &r, col, values, vs);
    }
}

void ellf_fill_moved(rvs_fmt *F, const rvs_window *w, const void *ctx, ellf_row_fn fn, const int32_t *pos,
                     int64_t npos)
{
    int32_t *col = rvs_fmt_array(F, "col")->data;
    void *values = rvs_fmt_array(F, "values")->data;
    const size_t vs = rvs_vtype_size(w->W->vtype);
#pragma omp parallel for schedule(dynamic, 256) if (w->W->rows + w->W->nnz > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < w->W->rows; i++) {
        ellf_row r;
        fn(ctx, pos[w->first + i], &r);
        fill_slots(w->W, i, &r, col, values, vs);
    }
    if (w->first + w->W->rows >= w->L->rows) /* the positions past the last row */
        ellf_fill(w, col, values, ctx, fn, w->L->rows, npos);
}

rvs_status ellf_positions_begin(void **state, rvs_error *err)
{
    if (!(*state = calloc(1, sizeof(ellf_positions))))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    return RVS_OK;
}

void ellf_positions_done(void *state)
{
    if (state)
        free(((ellf_positions *)state)->pos);
    free(state);
}

rvs_status ellf_positions_of(const rvs_fmt *F, const rvs_window *w, const int32_t **pos, rvs_error *err)
{
    ellf_positions *s = w->state;
    if (!s->pos) {
        const int32_t *perm = rvs_fmt_array(F, "perm")->data;
        if (!(s->pos = malloc((size_t)(F->rows > 0 ? F->rows : 1) * sizeof *s->pos)))
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the positions of %lld rows", (long long)F->rows);
#pragma omp parallel for schedule(static) if (F->rows > RVS_OMP_MIN_WORK)
        for (int64_t p = 0; p < F->rows; p++)
            s->pos[perm[p]] = (int32_t)p;
    }
    *pos = s->pos;
    return RVS_OK;
}

enum { ROW_OK, ROW_RANGE, ROW_AFTER_PAD, ROW_ORDER, ROW_PAD_POSITION, ROW_PAD_VALUE };

/* Check the slots of one position (values of type vt); *len = its entries. */
static int scan_row(const int32_t *col, const void *values, rvs_vtype vt, const ellf_row *r, int64_t cols,
                    int64_t *len, int64_t *at)
{
    int64_t n = 0, prev = -1;
    int pad = 0;
    for (int64_t k = 0; k < r->nslots; k++) {
        int32_t c = col[slot(r, k)];
        *at = k;
        if (c == RVS_ELL_PAD) { /* padding is zero (rvskit-formats(7)), as DIA's is */
            if (!rvs_val_is_zero(values, slot(r, k), vt))
                return ROW_PAD_VALUE;
            pad = 1;
            continue;
        }
        if (c < 0 || c >= cols)
            return ROW_RANGE;
        if (pad)
            return ROW_AFTER_PAD;
        if (c <= prev)
            return ROW_ORDER;
        prev = c;
        n++;
    }
    *len = n;
    return r->orig < 0 && n > 0 ? ROW_PAD_POSITION : ROW_OK;
}

/* Every position's slots checked in parallel; the first bad one is reported. */
rvs_status ellf_scan(const rvs_fmt *F, const int32_t *col, const void *ctx, ellf_row_fn fn, int64_t npos,
                     int64_t *len, const char *name, rvs_error *err)
{
    static const char *const what[] = {"",
                                       "column index out of range",
                                       "entry after padding",
                                       "columns not ascending",
                                       "entry in a padding row",
                                       "padding holds a non-zero value"};
    const void *values = rvs_fmt_array(F, "values")->data; /* ellf_require_slots found it */
    int64_t bad = INT64_MAX, total = 0;
    const int64_t work = rvs_fmt_array(F, "col")->count + npos; /* slots: a small scan stays on one thread */
#pragma omp parallel for schedule(dynamic, 256) reduction(min : bad) reduction(+ : total) if (work > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < npos; p++) {
        ellf_row r;
        int64_t n = 0, at = 0;
        fn(ctx, p, &r);
        if (scan_row(col, values, F->vtype, &r, F->cols, &n, &at) != ROW_OK && p < bad)
            bad = p;
        total += n;
        if (len)
            len[p] = n;
    }
    if (bad != INT64_MAX) {
        ellf_row r;
        int64_t n = 0, at = 0;
        fn(ctx, bad, &r);
        int why = scan_row(col, values, F->vtype, &r, F->cols, &n, &at);
        return rvs_fail(err, why == ROW_RANGE ? RVS_ERR_RANGE : RVS_ERR_FORMAT,
                        "%s: stored row %lld, slot %lld (col %d): %s", name, (long long)bad + 1, (long long)at + 1,
                        col[slot(&r, at)], what[why]);
    }
    if (total != F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "%s: %lld stored entries, nnz says %lld", name, (long long)total,
                        (long long)F->nnz);
    return RVS_OK;
}

/* Entries of position r: slots before the first padding one. */
static int64_t row_entries(const int32_t *col, const ellf_row *r)
{
    int64_t n = 0;
    while (n < r->nslots && col[slot(r, n)] != RVS_ELL_PAD)
        n++;
    return n;
}

/* Rows gathered back from their slots. */
rvs_status ellf_to_csr(rvs_csr *A, const rvs_fmt *F, const void *ctx, ellf_row_fn fn, int64_t npos, rvs_error *err)
{
    const int32_t *col = rvs_fmt_array(F, "col")->data;
    const void *values = rvs_fmt_array(F, "values")->data;
    const size_t vs = rvs_vtype_size(F->vtype);
    rvs_status st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err);
    if (st != RVS_OK)
        return st;
    const int64_t work = rvs_fmt_array(F, "col")->count + npos;
#pragma omp parallel for schedule(dynamic, 256) if (work > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < npos; p++) {
        ellf_row r;
        fn(ctx, p, &r);
        if (r.orig >= 0)
            A->rowptr[r.orig + 1] = row_entries(col, &r);
    }
    for (int64_t i = 0; i < F->rows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(dynamic, 256) if (work > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < npos; p++) {
        ellf_row r;
        fn(ctx, p, &r);
        if (r.orig < 0)
            continue;
        int64_t q0 = A->rowptr[r.orig], n = A->rowptr[r.orig + 1] - q0;
        for (int64_t k = 0; k < n; k++) {
            int64_t s = slot(&r, k);
            A->colind[q0 + k] = col[s];
            rvs_val_copy(A->values, q0 + k, values, s, vs);
        }
    }
    return RVS_OK;
}

/* Sum of count * element size over F's arrays. */
int64_t ellf_bytes(const rvs_fmt *F)
{
    int64_t b = 0;
    for (int i = 0; i < F->narrays; i++)
        b += F->array[i].count * (int64_t)rvs_dtype_size(F->array[i].dtype);
    return b;
}

/* Bytes, padding and the warp model of Wang and Gu's PELLR paper (J. Computer and
 * Communications, 2020). */
void ellf_stats(const rvs_fmt *F, int64_t slots, const int64_t *len, int64_t n, int warp, rvs_fmt_stats *s)
{
    s->bytes = ellf_bytes(F);
    s->padded = slots - F->nnz;
    s->n_iter = s->n_p = -1;
    if (len)
        rvs_warp_work(len, n, warp, &s->n_iter, &s->n_p);
}

/* --- plain ELL: position p = row p, slot k at k * ld + p --- */

typedef struct {
    int64_t rows, ld, width;
} ell_ctx;

/* Slots of row p of a column-major ELL block. */
static void ell_row(const void *ctx, int64_t p, ellf_row *r)
{
    const ell_ctx *c = ctx;
    r->orig = p < c->rows ? p : -1;
    r->base = p;
    r->step = c->ld;
    r->nslots = c->width;
    r->T = 1;
}

/* ld: rows rounded up to a warp. */
static int64_t ell_ld(int64_t rows)
{
    return (rows + RVS_ELL_WARP - 1) / RVS_ELL_WARP * RVS_ELL_WARP;
}

/* F sized as column-major ELL of A padded to the longest row (A's lengths alone); its slots
 * are left to fill. */
rvs_status ellf_ell_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, const char *name, rvs_error *err)
{
    ell_ctx c = {A->rows, ell_ld(A->rows), 0};
    int64_t slots = 0;
    int32_t *col;
    void *values;
    rvs_status st;
    if ((st = ellf_begin(F, A, name, err)))
        return st;
    for (int64_t i = 0; i < A->rows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > c.width)
            c.width = A->rowptr[i + 1] - A->rowptr[i];
    if ((st = ellf_mul(c.ld, c.width, &slots, name, err)))
        return st;
    /* Padding every row to the longest one is hopeless on skewed matrices (one row of 30000 in
     * a million rows of 15); refuse before allocating, as DIA does, and point at the formats
     * that suit them. */
    int64_t ratio = o && o->ell_max_ratio > 0 ? o->ell_max_ratio : RVS_ELL_DEFAULT_RATIO;
    if (slots > RVS_ELL_FREE_SLOTS && (double)slots > (double)ratio * (double)A->nnz) {
        rvs_fmt_free(F);
        return rvs_fail(err, RVS_ERR_OVERFLOW,
                        "%s: the longest row (%lld) pads %lld rows to %.3g slots for %.3g non-zeros "
                        "(limit %lldx): use pellr, hyb or csr",
                        name, (long long)c.width, (long long)A->rows, (double)slots, (double)A->nnz,
                        (long long)ratio);
    }
    if (o && o->admit_only)
        return RVS_OK;
    if ((st = ellf_add_slots(F, slots, &col, &values, err)))
        return st;
    F->param[0] = c.width;
    F->param[1] = c.ld;
    return RVS_OK;
}

/* The ELL context of F. */
static ell_ctx ell_context(const rvs_fmt *F)
{
    ell_ctx c = {F->rows, F->param[1], F->param[0]};
    return c;
}

rvs_status ellf_ell_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    const ell_ctx c = ell_context(F);
    (void)err;
    ellf_fill_window(F, w, &c, ell_row, c.ld);
    return RVS_OK;
}

/* F = A as column-major ELL padded to the longest row. */
rvs_status ellf_ell_build(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, const char *name, rvs_error *err)
{
    rvs_status st = ellf_ell_shape(F, A, o, name, err);
    if (st || (o && o->admit_only))
        return st;
    const ell_ctx c = ell_context(F);
    ellf_fill_rows(A, rvs_fmt_array(F, "col")->data, rvs_fmt_array(F, "values")->data, &c, ell_row, c.ld, 1, o);
    return RVS_OK;
}

void ellf_fill_window(rvs_fmt *F, const rvs_window *w, const void *ctx, ellf_row_fn fn, int64_t npos)
{
    ellf_fill(w, rvs_fmt_array(F, "col")->data, rvs_fmt_array(F, "values")->data, ctx, fn, w->first,
              rvs_window_end(w, npos));
}

void ellf_fill_rows(const rvs_csr *A, int32_t *col, void *values, const void *ctx, ellf_row_fn fn, int64_t npos,
                    int64_t align, const rvs_fmt_options *o)
{
    const rvs_window w = {A, A, 0, NULL};
    if (!o || !o->consume) {
        ellf_fill(&w, col, values, ctx, fn, 0, npos);
        return;
    }
    /* consume: row blocks in order, each block's entries given back once copied (the caller
     * allows it: A is only fit to be freed after), so A and F are never both whole */
    for (int64_t r = 0; r < A->rows;) {
        int64_t e = rvs_lower_bound_i64(A->rowptr, A->rows + 1, A->rowptr[r] + ELLF_CONSUME_STEP);
        e = e > r ? e : r + 1;
        e = (e + align - 1) / align * align;
        e = e < A->rows ? e : A->rows;
        ellf_fill(&w, col, values, ctx, fn, r, e);
        rvs_csr_release_entries((rvs_csr *)A, A->rowptr[r], A->rowptr[e]);
        r = e;
    }
    ellf_fill(&w, col, values, ctx, fn, A->rows, npos); /* the positions past the last row */
}

/* Params, arrays and every slot of an ELL block; width must be the longest row. */
rvs_status ellf_ell_check(const rvs_fmt *F, int64_t *len, const char *name, rvs_error *err)
{
    ell_ctx c = {F->rows, ell_ld(F->rows), F->param[0]};
    int64_t slots = 0, *own = NULL, maxlen = 0;
    const int32_t *col;
    rvs_status st;
    if ((st = ellf_check_sizes(F, name, err)))
        return st;
    if (F->param[0] < 0 || F->param[0] > F->cols || F->param[1] != c.ld)
        return rvs_fail(err, RVS_ERR_FORMAT, "%s: width %lld / ld %lld do not fit %lld x %lld", name,
                        (long long)F->param[0], (long long)F->param[1], (long long)F->rows, (long long)F->cols);
    if ((st = ellf_mul(c.ld, c.width, &slots, name, err)) || (st = ellf_require_slots(F, slots, &col, err)))
        return st;
    if (!len && !(len = own = malloc((size_t)(c.ld + 1) * sizeof *len)))
        return rvs_fail(err, RVS_ERR_NOMEM, "%s: out of memory", name);
    st = ellf_scan(F, col, &c, ell_row, c.ld, len, name, err);
    for (int64_t i = 0; st == RVS_OK && i < c.ld; i++)
        if (len[i] > maxlen)
            maxlen = len[i];
    if (st == RVS_OK && maxlen != c.width)
        st = rvs_fail(err, RVS_ERR_FORMAT, "%s: width %lld but the longest row has %lld entries", name,
                      (long long)c.width, (long long)maxlen);
    free(own);
    return st;
}

/* A = a validated ELL block. */
rvs_status ellf_ell_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    ell_ctx c = ell_context(F);
    return ellf_to_csr(A, F, &c, ell_row, c.ld, err);
}
