/* fmt_biell.c - BiELL, bisection ELLPACK (Wang and Gu, "PELLR: A Permutated ELLPACK-R Format for
 * SpMV on GPUs", J. Computer and Communications, 2020, Sec. 2.3.3, after Zheng et al. 2014). The
 * paper leaves the details to its reference; this is rvskit's definition.
 *
 * Rows are cut into slices of 32 consecutive rows (the last padded with empty positions); within
 * a slice, rows are sorted by length, longest first (stable), so perm only moves a row inside
 * its own slice. Each slice is then split by bisection into groups that one warp each computes
 * with all 32 lanes: a group of s positions (s = 32, 16, ..., 1) gives T = 32 / s lanes to each
 * row. Starting from the whole slice with T = 1, the slice's short half (positions s/2..s-1)
 * becomes a group with 2T lanes per row and the long half is bisected again, as long as that
 * lowers the slice's iterations: cost(s) = min(ceil(b0 / T), cost(s/2) + ceil(b[s/2] / 2T) + 1)
 * (b the sorted lengths, +1 for a group's setup and lane reduction). A slice of equal rows stays
 * one ELL group; a slice with one long row gives it 32 lanes. Groups are stored in position
 * order, so a slice's groups cover, e.g., {0}{1}{2,3}{4..7}{8..15}{16..31} or just {0..31}.
 *
 * Layout (shared by the CPU and GPU kernels):
 *   param[0] 32         positions per slice
 *   param[1] nslices    ceil(rows / 32)
 *   param[2] ngroups    groups of all slices
 *   perm   I32[rows]             position -> original row; perm[p] / 32 == p / 32
 *   grow   I32[ngroups]          first position of group g; groups tile 0..32 nslices - 1 in
 *                                order, group g holds 32 / gtpr[g] positions, aligned to that
 *   gtpr   I32[ngroups]          lanes per row T of group g: 1, 2, 4, 8, 16 or 32
 *   gptr   I64[ngroups + 1]      group g's slots start at gptr[g]; gptr[g+1] - gptr[g] = 32 gw,
 *                                gw = ceil(longest row of the group / T) = the group's iterations
 *   col    I32[gptr[ngroups]]    entry k of position p = grow[g] + q at
 *                                gptr[g] + 32 (k / T) + q T + k % T: in iteration j lane
 *                                l = q T + t reads slot j T + t of row q, coalesced; padding -1
 *   values F32|F64[gptr[ngroups]]  same positions; padding value 0
 * A row's entries fill its first slots in ascending column order; kernels skip col = -1, sum
 * each row's T lane partials (a shuffle reduction on the GPU), and write y[perm[p]].
 *
 * Stats: padded = gptr[ngroups] - nnz; N_iter = sum of gw over groups (one warp per group, all
 * lanes iterate gw times: the PELLR paper's Eq. (1) with the bisection applied); N_p from Eq. (2)
 * over the row lengths in storage order (sharing a row does not change the arithmetic). */
#include <stdlib.h>
#include "fmt_ell_common.h"

#define BIELL_GROUP_COST 1

typedef struct {
    int64_t rows, ngroups;
    const int32_t *perm, *grow, *gtpr;
    const int64_t *gptr;
} biell_ctx;

/* Slots of position p: found by binary search for its group. */
static void biell_row(const void *ctx, int64_t p, ellf_row *r)
{
    const biell_ctx *c = ctx;
    int64_t lo = 0, hi = c->ngroups - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (c->grow[mid] <= p)
            lo = mid;
        else
            hi = mid - 1;
    }
    r->orig = p < c->rows ? c->perm[p] : -1;
    r->T = c->gtpr[lo];
    r->base = c->gptr[lo] + (p - c->grow[lo]) * r->T;
    r->step = RVS_ELL_WARP;
    r->nslots = (c->gptr[lo + 1] - c->gptr[lo]) / RVS_ELL_WARP * r->T;
}

/* Arrays of F as a context. */
static biell_ctx biell_context(const rvs_fmt *F)
{
    biell_ctx c = {F->rows,
                   F->param[2],
                   rvs_fmt_array(F, "perm")->data,
                   rvs_fmt_array(F, "grow")->data,
                   rvs_fmt_array(F, "gtpr")->data,
                   rvs_fmt_array(F, "gptr")->data};
    return c;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Bisect one sorted slice of lengths b[0..31]: groups as (first position, lanes per row) in
 * position order into first[], lanes[]; returns their count (1..6). */
static int biell_bisect(const int64_t *b, int32_t *first, int32_t *lanes)
{
    int64_t best[RVS_ELL_WARP + 1];
    int split[RVS_ELL_WARP + 1], n = 0, s;
    best[1] = ceil_div(b[0], RVS_ELL_WARP);
    split[1] = 0;
    for (s = 2; s <= RVS_ELL_WARP; s *= 2) {
        int64_t whole = ceil_div(b[0], RVS_ELL_WARP / s);
        int64_t halves = best[s / 2] + ceil_div(b[s / 2], 2 * RVS_ELL_WARP / s) + BIELL_GROUP_COST;
        split[s] = halves < whole;
        best[s] = split[s] ? halves : whole;
    }
    int32_t f[8], l[8];
    for (s = RVS_ELL_WARP; s > 1 && split[s]; s /= 2, n++) {
        f[n] = s / 2;
        l[n] = 2 * RVS_ELL_WARP / s;
    }
    f[n] = 0;
    l[n++] = RVS_ELL_WARP / s;
    for (int g = 0; g < n; g++) {
        first[g] = f[n - 1 - g];
        lanes[g] = l[n - 1 - g];
    }
    return n;
}

/* Sort every slice into perm and bisect it into groups (first positions, lanes, slot counts). */
static rvs_status biell_plan(const rvs_csr *A, int32_t *perm, int64_t ns, int32_t *grow, int32_t *gtpr,
                             int64_t *gslots, int64_t *ngroups, rvs_error *err)
{
    int64_t ng = 0;
    rvs_status st;
    for (int64_t w = 0; w < ns; w++) {
        int64_t lo = w * RVS_ELL_WARP, hi = lo + RVS_ELL_WARP < A->rows ? lo + RVS_ELL_WARP : A->rows;
        int64_t b[RVS_ELL_WARP] = {0};
        if ((st = ellf_sort_desc(A, lo, hi, perm + lo, err)))
            return st;
        for (int64_t p = lo; p < hi; p++)
            b[p - lo] = A->rowptr[perm[p] + 1] - A->rowptr[perm[p]];
        int n = biell_bisect(b, grow + ng, gtpr + ng);
        for (int g = 0; g < n; g++) {
            gslots[ng + g] = RVS_ELL_WARP * ceil_div(b[grow[ng + g]], gtpr[ng + g]);
            grow[ng + g] += (int32_t)lo;
        }
        ng += n;
    }
    *ngroups = ng;
    return RVS_OK;
}

/* F sized as BiELL from A's lengths: perm, groups, slots left to fill. */
static rvs_status biell_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    int64_t ns = (A->rows + RVS_ELL_WARP - 1) / RVS_ELL_WARP, ng = 0, *gslots = NULL, *gptr;
    int32_t *perm, *grow = NULL, *gtpr = NULL, *g_row, *g_tpr, *col;
    void *values;
    rvs_status st;
    (void)state;
    if ((st = ellf_begin(F, A, "biell", err)) || (o && o->admit_only))
        return st;
    if ((st = rvs_fmt_add_array(F, "perm", RVS_DT_I32, A->rows, (void **)&perm, err)))
        return st;
    grow = malloc((size_t)(6 * ns + 1) * sizeof *grow);
    gtpr = malloc((size_t)(6 * ns + 1) * sizeof *gtpr);
    gslots = malloc((size_t)(6 * ns + 1) * sizeof *gslots);
    if (!grow || !gtpr || !gslots)
        st = rvs_fail(err, RVS_ERR_NOMEM, "biell: out of memory for %lld slices", (long long)ns);
    if (st || (st = biell_plan(A, perm, ns, grow, gtpr, gslots, &ng, err)) ||
        (st = rvs_fmt_add_array(F, "grow", RVS_DT_I32, ng, (void **)&g_row, err)) ||
        (st = rvs_fmt_add_array(F, "gtpr", RVS_DT_I32, ng, (void **)&g_tpr, err)) ||
        (st = rvs_fmt_add_array(F, "gptr", RVS_DT_I64, ng + 1, (void **)&gptr, err)))
        goto done;
    for (int64_t g = 0; g < ng; g++) {
        g_row[g] = grow[g];
        g_tpr[g] = gtpr[g];
        gptr[g + 1] = gptr[g] + gslots[g];
    }
    F->param[0] = RVS_ELL_WARP;
    F->param[1] = ns;
    F->param[2] = ng;
    st = ellf_add_slots(F, gptr[ng], &col, &values, err);
done:
    free(grow);
    free(gtpr);
    free(gslots);
    return st;
}

/* The window's rows (whole slices) into their slots. */
static rvs_status biell_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    const biell_ctx c = biell_context(F);
    (void)err;
    ellf_fill_window(F, w, &c, biell_row, F->param[1] * RVS_ELL_WARP);
    return RVS_OK;
}

const rvs_fmt_gather rvs_gather_biell = {RVS_FMT_BIELL, RVS_ELL_WARP, NULL, biell_shape, NULL, 0,
                                         NULL,          biell_fill,   NULL};

/* F = A in BiELL (with o->consume, A given back as its slices are filled). */
static rvs_status biell_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    rvs_status st = biell_shape(F, A, o, NULL, err);
    if (st || (o && o->admit_only))
        return st;
    const biell_ctx c = biell_context(F);
    ellf_fill_rows(A, rvs_fmt_array(F, "col")->data, rvs_fmt_array(F, "values")->data, &c, biell_row,
                   F->param[1] * RVS_ELL_WARP, RVS_ELL_WARP, o);
    return RVS_OK;
}

/* A = F (BiELL) in CSR. */
static rvs_status biell_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    biell_ctx c = biell_context(F);
    return ellf_to_csr(A, F, &c, biell_row, F->param[1] * RVS_ELL_WARP, err);
}

/* Groups tile the positions in order, aligned, with sane lanes and slot ranges. */
static rvs_status biell_check_groups(const rvs_fmt *F, const biell_ctx *c, int64_t npos, rvs_error *err)
{
    int64_t next = 0;
    if (c->gptr[0] != 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "biell: gptr[0] = %lld, want 0", (long long)c->gptr[0]);
    for (int64_t g = 0; g < c->ngroups; g++) {
        int32_t T = c->gtpr[g];
        if (T < 1 || T > RVS_ELL_WARP || (T & (T - 1)) || c->grow[g] != next || next % (RVS_ELL_WARP / T) ||
            next >= npos)
            return rvs_fail(err, RVS_ERR_FORMAT,
                            "biell: group %lld (first row %d, %d lanes per row) "
                            "does not tile the rows",
                            (long long)g, c->grow[g], T);
        /* gptr[g] is in 0..INT64_MAX / 16 here; gptr[g + 1] is compared before it is subtracted */
        int64_t d = c->gptr[g + 1] >= c->gptr[g] ? c->gptr[g + 1] - c->gptr[g] : -1;
        if (d < 0 || d % RVS_ELL_WARP || d / RVS_ELL_WARP > F->cols || c->gptr[g] > INT64_MAX / 16 - d)
            return rvs_fail(err, RVS_ERR_FORMAT, "biell: gptr[%lld] = %lld out of range", (long long)(g + 1),
                            (long long)c->gptr[g + 1]);
        next += RVS_ELL_WARP / T;
    }
    if (next != npos)
        return rvs_fail(err, RVS_ERR_FORMAT, "biell: groups cover %lld of %lld stored rows", (long long)next,
                        (long long)npos);
    return RVS_OK;
}

/* perm inside slices, lengths descending inside slices, gw tight. */
static rvs_status biell_check_order(const biell_ctx *c, const int64_t *len, rvs_error *err)
{
    for (int64_t p = 0; p < c->rows; p++)
        if (c->perm[p] / RVS_ELL_WARP != p / RVS_ELL_WARP || (p % RVS_ELL_WARP && len[p] > len[p - 1]))
            return rvs_fail(err, RVS_ERR_FORMAT, "biell: stored row %lld (row %d) out of its slice's order",
                            (long long)p, c->perm[p]);
    for (int64_t g = 0; g < c->ngroups; g++)
        if ((c->gptr[g + 1] - c->gptr[g]) / RVS_ELL_WARP != ceil_div(len[c->grow[g]], c->gtpr[g]))
            return rvs_fail(err, RVS_ERR_FORMAT, "biell: group %lld is wider than its rows", (long long)g);
    return RVS_OK;
}

/* Params, group table, perm, every slot, and the order. */
static rvs_status biell_validate(const rvs_fmt *F, rvs_error *err)
{
    const rvs_array *gp;
    const int32_t *col;
    int64_t ns = (F->rows + RVS_ELL_WARP - 1) / RVS_ELL_WARP, npos = ns * RVS_ELL_WARP, ng = F->param[2];
    int64_t *len = NULL;
    rvs_status st;
    if ((st = ellf_check_sizes(F, "biell", err)))
        return st;
    if (F->param[0] != RVS_ELL_WARP || F->param[1] != ns || ng < ns || ng > npos)
        return rvs_fail(err, RVS_ERR_FORMAT, "biell: params %lld, %lld, %lld; want 32, %lld, groups",
                        (long long)F->param[0], (long long)F->param[1], (long long)ng, (long long)ns);
    if ((st = rvs_fmt_require(F, "perm", RVS_DT_I32, F->rows, NULL, err)) ||
        (st = rvs_fmt_require(F, "grow", RVS_DT_I32, ng, NULL, err)) ||
        (st = rvs_fmt_require(F, "gtpr", RVS_DT_I32, ng, NULL, err)) ||
        (st = rvs_fmt_require(F, "gptr", RVS_DT_I64, ng + 1, &gp, err)))
        return st;
    biell_ctx c = biell_context(F);
    if ((st = biell_check_groups(F, &c, npos, err)) || (st = ellf_require_slots(F, c.gptr[ng], &col, err)) ||
        (st = ellf_check_perm(c.perm, F->rows, "biell", err)))
        return st;
    if (!(len = malloc((size_t)(npos + 1) * sizeof *len)))
        return rvs_fail(err, RVS_ERR_NOMEM, "biell: out of memory");
    if ((st = ellf_scan(F, col, &c, biell_row, npos, len, "biell", err)) == RVS_OK)
        st = biell_check_order(&c, len, err);
    free(len);
    return st;
}

/* Bytes, padding, iterations of all groups, and Eq. (2) over the lengths. The groups are cut
 * for warps of 32 lanes: for another width N_iter is -1. */
static void biell_stats_warp(const rvs_fmt *F, int warp, rvs_fmt_stats *s)
{
    int64_t npos = F->param[1] * RVS_ELL_WARP, *len = malloc((size_t)(npos + 1) * sizeof *len);
    const int32_t *col = rvs_fmt_array(F, "col")->data;
    biell_ctx c = biell_context(F);
    if (len && ellf_scan(F, col, &c, biell_row, npos, len, "biell", NULL) != RVS_OK) {
        free(len);
        len = NULL;
    }
    ellf_stats(F, c.gptr[c.ngroups], len, F->rows, RVS_ELL_WARP, s);
    if (len) {
        s->n_iter = warp == RVS_ELL_WARP ? c.gptr[c.ngroups] / RVS_ELL_WARP : -1;
    }
    free(len);
}

static void biell_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    biell_stats_warp(F, RVS_ELL_WARP, s);
}

const rvs_format_ops rvs_format_biell = {RVS_FMT_BIELL,  "biell",     biell_from_csr,  biell_to_csr,
                                         biell_validate, biell_stats, biell_stats_warp};
