/* fmt_gather.c - a block built from picked rows of a matrix without a copy of them: sized from
 * their lengths, filled from windows of them gathered one at a time (rvs_fmt_from_rows); and a
 * format's steps run over a whole matrix (rvs_gather_whole) */
#include <stdlib.h>
#include <string.h>
#include "fmt_gather.h"
#include "rvs_omp.h"

extern const rvs_fmt_gather rvs_gather_coo, rvs_gather_ell, rvs_gather_ellr, rvs_gather_pellr, rvs_gather_biell,
    rvs_gather_jad, rvs_gather_hyb, rvs_gather_hybdia, rvs_gather_dia, rvs_gather_hcc;

/* CSR is not here: its block built from a copy of the rows is that copy. */
static const rvs_fmt_gather *const gathers[] = {
    &rvs_gather_coo, &rvs_gather_ell, &rvs_gather_ellr,   &rvs_gather_pellr, &rvs_gather_biell,
    &rvs_gather_jad, &rvs_gather_hyb, &rvs_gather_hybdia, &rvs_gather_dia,   &rvs_gather_hcc,
};

static const rvs_fmt_gather *gather_lookup(rvs_format_id id)
{
    for (size_t i = 0; i < sizeof gathers / sizeof gathers[0]; i++)
        if (gathers[i]->id == id)
            return gathers[i];
    return NULL;
}

int rvs_fmt_gathers(rvs_format_id id)
{
    return gather_lookup(id) != NULL;
}

/* Shape, then (unless only admitting) the look at every entry, sized, fill: over the windows
 * that next() gives (0 when there are no more), each freed by put(). */
typedef struct {
    rvs_status (*next)(void *ctx, const void *state, rvs_window *w, int entries, rvs_error *err);
    void (*put)(void *ctx, rvs_window *w);
    void (*rewind)(void *ctx);
    void *ctx;
} window_source;

/* Every window of src through step (scan or fill). */
static rvs_status each_window(const window_source *src, rvs_fmt *F, const rvs_fmt_gather *g, void *state,
                              int entries, rvs_error *err)
{
    rvs_status st = RVS_OK;
    rvs_window w;
    src->rewind(src->ctx);
    for (;;) {
        memset(&w, 0, sizeof w);
        if ((st = src->next(src->ctx, state, &w, entries, err)) != RVS_OK || !w.W)
            break;
        w.state = state;
        st = entries ? g->fill(F, &w, err) : g->scan(F, &w, err);
        src->put(src->ctx, &w);
        if (st != RVS_OK)
            break;
    }
    return st;
}

/* F built by g's steps from L and src's windows, then (validate) validated as rvs_fmt_from_csr
 * does. With drop, L's row pointers are freed once F is shaped (no later step reads them). */
static rvs_status run_steps(const rvs_fmt_gather *g, rvs_fmt *F, rvs_csr *L, int drop, const window_source *src,
                            const rvs_fmt_options *o, int validate, rvs_error *err)
{
    void *state = NULL;
    memset(F, 0, sizeof *F);
    F->id = g->id; /* shape may name the format by it */
    rvs_status st = g->shape(F, L, o, &state, err);
    if (drop) {
        free(L->rowptr);
        L->rowptr = NULL;
    }
    int stop = st != RVS_OK || (o->admit_only && !g->admit_scans);
    if (!stop && g->scan && (st = each_window(src, F, g, state, 0, err)) == RVS_OK)
        st = g->sized(F, L, o, state, err);
    stop = stop || st != RVS_OK || o->admit_only;
    if (!stop)
        st = each_window(src, F, g, state, 1, err);
    if (g->done)
        g->done(state);
    if (st == RVS_OK && !o->admit_only && validate) {
        F->id = g->id;
        st = rvs_format_lookup(g->id)->validate(F, err);
    }
    if (st != RVS_OK || o->admit_only)
        rvs_fmt_free(F);
    return st;
}

/* --- the whole matrix as one window --- */

typedef struct {
    const rvs_csr *A;
    int given;
} whole_src;

static rvs_status whole_next(void *ctx, const void *state, rvs_window *w, int entries, rvs_error *err)
{
    whole_src *s = ctx;
    (void)state;
    (void)entries;
    (void)err;
    if (s->given++)
        return RVS_OK;
    w->L = w->W = s->A;
    return RVS_OK;
}

static void whole_put(void *ctx, rvs_window *w)
{
    (void)ctx, (void)w;
}
static void whole_rewind(void *ctx)
{
    ((whole_src *)ctx)->given = 0;
}

rvs_status rvs_gather_whole(const rvs_fmt_gather *g, rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o,
                            rvs_error *err)
{
    whole_src s = {A, 0};
    const window_source src = {whole_next, whole_put, whole_rewind, &s};
    const rvs_fmt_options a = rvs_fmt_options_unconsumed(o);
    return run_steps(g, F, (rvs_csr *)A, 0, &src, &a, 0, err);
}

/* --- picked rows gathered window by window --- */

typedef struct {
    const rvs_row_pick *R;
    const rvs_fmt_gather *g;
    const rvs_csr *L;
    int64_t window_nnz, at; /* entries per window; the next window's first row or position */
    int empty_given;
    rvs_csr W;
    int view, give_back; /* W is a view of A; A's rows up to at go once W is put (R->release) */
} pick_src;

static int64_t pick_row(const rvs_row_pick *R, int64_t i)
{
    return R->rows ? R->rows[i] : R->first + i;
}

/* Entries of picked row i (its row of A in range). */
static int64_t pick_length(const rvs_row_pick *R, int64_t i)
{
    const rvs_csr *A = R->A;
    const int64_t r = pick_row(R, i);
    int64_t len = 0;
    if (R->filter == 0)
        return A->rowptr[r + 1] - A->rowptr[r];
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
        len += rvs_csr_keeps(R->filter, R->block > 0 ? R->block : 32, r, rvs_csr_col(A, p));
    return len;
}

/* End of the window from at: about window_nnz entries of whole rows (one at least), then to the
 * next place the format lets a window end. */
static int64_t window_end(const pick_src *s, const void *state)
{
    const int64_t n = s->L->rows, r = s->at;
    int64_t e = r, sum = 0;
    while (e < n) {
        const int64_t len = pick_length(s->R, e);
        if (e > r && sum + len > s->window_nnz)
            break;
        sum += len;
        e++;
    }
    if (s->g->cut)
        e = s->g->cut(state, e);
    else if (s->g->align > 1)
        e = (e + s->g->align - 1) / s->g->align * s->g->align;
    return e < n ? e : n;
}

static rvs_status pick_next(void *ctx, const void *state, rvs_window *w, int entries, rvs_error *err)
{
    pick_src *s = ctx;
    const rvs_row_pick *R = s->R;
    if (s->at >= s->L->rows && (s->L->rows > 0 || s->empty_given++))
        return RVS_OK;
    const int64_t e = window_end(s, state), n = e - s->at;
    rvs_status st = RVS_OK;
    if (!R->rows && R->filter == 0 && (R->vt == R->A->vtype || !entries)) {
        st = rvs_csr_view_rows(&s->W, R->A, R->first + s->at, R->first + e, err); /* a run: no copy */
        s->view = 1;
    } else {
        int64_t *list = malloc((size_t)(n > 0 ? n : 1) * sizeof *list);
        rvs_csr A = *R->A;
        if (!entries) /* the look at the entries reads their columns alone */
            A.values = NULL;
        if (!list)
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a window of %lld rows", (long long)n);
        for (int64_t j = 0; j < n; j++)
            list[j] = pick_row(R, s->at + j);
        st = rvs_csr_extract_rows(&s->W, &A, list, n, R->filter, R->block, err);
        free(list);
        s->view = 0;
        if (st == RVS_OK && entries && (st = rvs_csr_convert_values(&s->W, R->vt, err)) != RVS_OK)
            rvs_csr_free(&s->W);
    }
    if (st != RVS_OK)
        return st;
    w->L = s->L;
    w->W = &s->W;
    w->first = s->at;
    s->give_back = R->release && !R->rows && entries;
    s->at = e;
    return RVS_OK;
}

static void pick_put(void *ctx, rvs_window *w)
{
    pick_src *s = ctx;
    const rvs_csr *A = s->R->A;
    (void)w;
    if (s->view)
        rvs_csr_view_free(&s->W);
    else
        rvs_csr_free(&s->W);
    if (s->give_back) /* from the first row: a page across two windows goes with the second */
        rvs_csr_release_entries((rvs_csr *)A, A->rowptr[s->R->first], A->rowptr[s->R->first + s->at]);
}

static void pick_rewind(void *ctx)
{
    pick_src *s = ctx;
    s->at = 0;
    s->empty_given = 0;
}

/* L = the picked rows' lengths (row pointers alone), checking each row is in A. */
static rvs_status pick_lengths(rvs_csr *L, const rvs_row_pick *R, rvs_error *err)
{
    const rvs_csr *A = R->A;
    const int64_t n = R->n;
    int64_t bad = -1;
    memset(L, 0, sizeof *L);
    if (n < 0 || (!R->rows && (R->first < 0 || R->first > A->rows - n)))
        return rvs_fail(err, RVS_ERR_RANGE, "rows %lld..%lld of a matrix of %lld rows", (long long)R->first,
                        (long long)(R->first + n), (long long)A->rows);
    if (!(L->rowptr = malloc(((size_t)n + 1) * sizeof *L->rowptr)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row pointers", (long long)n + 1);
    L->rowptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : bad) if (n > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = pick_row(R, i);
        if (r < 0 || r >= A->rows)
            bad = i > bad ? i : bad;
        L->rowptr[i + 1] = r < 0 || r >= A->rows ? 0 : pick_length(R, i);
    }
    if (bad >= 0) {
        const int64_t r = pick_row(R, bad);
        free(L->rowptr);
        L->rowptr = NULL;
        return rvs_fail(err, RVS_ERR_RANGE, "row index %lld out of range 0..%lld", (long long)r,
                        (long long)A->rows - 1);
    }
    for (int64_t i = 0; i < n; i++)
        L->rowptr[i + 1] += L->rowptr[i];
    L->rows = n;
    L->cols = A->cols;
    L->nnz = L->rowptr[n];
    L->vtype = R->vt;
    return RVS_OK;
}

rvs_status rvs_fmt_from_rows(rvs_fmt *F, rvs_format_id id, const rvs_row_pick *R, const rvs_fmt_options *o,
                             int64_t window_nnz, rvs_error *err)
{
    const rvs_fmt_gather *g = gather_lookup(id);
    const rvs_format_ops *ops = rvs_format_lookup(id);
    memset(F, 0, sizeof *F);
    if (!ops)
        return rvs_fail(err, RVS_ERR_ARG, "unknown format id %d", (int)id);
    if (!g)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "format %s is not built from rows in windows", ops->name);
    if (R->A->colind64)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "%lld columns need 64-bit column indices, which format %s does not hold",
                        (long long)R->A->cols, ops->name);
    if (!rvs_vtype_valid(R->vt) || (rvs_vtype_is_complex(R->A->vtype) && !rvs_vtype_is_complex(R->vt)))
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "values of %s cannot become %s", rvs_vtype_name(R->A->vtype),
                        rvs_vtype_name(R->vt));
    rvs_csr L;
    rvs_status st = pick_lengths(&L, R, err);
    if (st != RVS_OK)
        return st;
    rvs_fmt_options a = rvs_fmt_options_unconsumed(o);
    pick_src s = {R, g, &L, window_nnz > 0 ? window_nnz : 1, 0, 0, {0}, 0, 0};
    const window_source src = {pick_next, pick_put, pick_rewind, &s};
    st = run_steps(g, F, &L, 1, &src, &a, 1, err);
    free(L.rowptr);
    return st;
}
