/* csr_from_coo.c - CSR built from coordinate triplets: when the rows come in order the triplet
 * arrays become the CSR's, else entries are placed in parallel, row range by row range; then
 * each row is sorted and merged where it lies, and the arrays shrink once */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_csr.h"
#include "rvs_mem.h"
#include "rvs_omp.h"

/* Stable sort of (col, val) pairs by col: insertion for short runs, merge sort above, with
 * scratch tc/tv of n entries. One copy per column width. */
#define DEFINE_SORT_ROW(NAME, COL)                                      \
    static void NAME(COL *c, double *v, int64_t n, COL *tc, double *tv) \
    {                                                                   \
        if (n < 32) {                                                   \
            for (int64_t i = 1; i < n; i++) {                           \
                COL kc = c[i];                                          \
                double kv = v[i];                                       \
                int64_t j = i - 1;                                      \
                for (; j >= 0 && c[j] > kc; j--) {                      \
                    c[j + 1] = c[j];                                    \
                    v[j + 1] = v[j];                                    \
                }                                                       \
                c[j + 1] = kc;                                          \
                v[j + 1] = kv;                                          \
            }                                                           \
            return;                                                     \
        }                                                               \
        int64_t h = n / 2, i = 0, j = h, k = 0;                         \
        NAME(c, v, h, tc, tv);                                          \
        NAME(c + h, v + h, n - h, tc, tv);                              \
        if (c[h - 1] <= c[h])                                           \
            return;                                                     \
        while (i < h && j < n) {                                        \
            int from_right = c[j] < c[i];                               \
            tc[k] = from_right ? c[j] : c[i];                           \
            tv[k++] = from_right ? v[j++] : v[i++];                     \
        }                                                               \
        for (; i < h; k++, i++) {                                       \
            tc[k] = c[i];                                               \
            tv[k] = v[i];                                               \
        }                                                               \
        for (; j < n; k++, j++) {                                       \
            tc[k] = c[j];                                               \
            tv[k] = v[j];                                               \
        }                                                               \
        memcpy(c, tc, (size_t)n * sizeof *c);                           \
        memcpy(v, tv, (size_t)n * sizeof *v);                           \
    }
DEFINE_SORT_ROW(sort_row32, int32_t)
DEFINE_SORT_ROW(sort_row64, int64_t)

/* Sort row [lo, lo + n) of A (columns 32 or 64 bit, values as double in v) and sum equal
 * columns into the first of them; returns the entries left, packed at lo, or -1 when the
 * scratch (grown to the longest row seen) cannot be had. */
static int64_t sort_merge_row(rvs_csr *A, double *v, int64_t lo, int64_t n, void **tc, double **tv, int64_t *cap)
{
    if (n >= 32 && n > *cap) {
        free(*tc);
        free(*tv);
        *cap = 2 * n;
        *tc = malloc((size_t)*cap * 8);
        *tv = malloc((size_t)*cap * sizeof **tv);
        if (!*tc || !*tv) {
            *cap = 0;
            return -1;
        }
    }
    int64_t u = 0;
#define MERGE_ROW(COL, FIRST, SORT)          \
    do {                                     \
        COL *C = FIRST;                      \
        if (n > 1)                           \
            SORT(C, v + lo, n, *tc, *tv);    \
        for (int64_t p = 0; p < n; p++)      \
            if (u > 0 && C[u - 1] == C[p]) { \
                v[lo + u - 1] += v[lo + p];  \
            } else {                         \
                C[u] = C[p];                 \
                v[lo + u++] = v[lo + p];     \
            }                                \
    } while (0)
    if (A->colind)
        MERGE_ROW(int32_t, A->colind + lo, sort_row32);
    else
        MERGE_ROW(int64_t, A->colind64 + lo, sort_row64);
#undef MERGE_ROW
    return u;
}

/* Row and column of triplet p, whatever the index width. */
static inline int64_t trow(const rvs_triplets *T, int64_t p)
{
    return T->ri32 ? (int64_t)T->ri32[p] : T->ri64[p];
}

static inline int64_t tcol(const rvs_triplets *T, int64_t p)
{
    return T->ci32 ? (int64_t)T->ci32[p] : T->ci64[p];
}

/* Store entry q of A (column c, value v as double in vals). */
static inline void put(rvs_csr *A, double *vals, int64_t q, int64_t c, double v)
{
    if (A->colind)
        A->colind[q] = (int32_t)c;
    else
        A->colind64[q] = c;
    vals[q] = v;
}

/* Row pointers of triplets whose rows never decrease: row r starts at the first triplet of a
 * row >= r. Each boundary is written by the thread that sees it. */
static void rowptr_of_sorted(const rvs_triplets *T, int64_t rows, int64_t nnz, int64_t *rp)
{
    const int64_t first = nnz > 0 ? trow(T, 0) : rows;
    for (int64_t r = 0; r <= first; r++)
        rp[r] = 0;
#pragma omp parallel for schedule(static) if (nnz + rows > RVS_OMP_MIN_WORK)
    for (int64_t p = 1; p < nnz; p++)
        for (int64_t r = trow(T, p - 1) + 1; r <= trow(T, p); r++)
            rp[r] = p;
    for (int64_t r = nnz > 0 ? trow(T, nnz - 1) + 1 : rows + 1; r <= rows; r++)
        rp[r] = nnz;
}

/* Place unordered triplets into A (rows given, rowptr zeroed), stable: within a row, input
 * order. With few rows, each thread counts and places its own stretch of the input through
 * per-thread row cursors; with many, each thread scans the whole input for its own range of
 * rows (reading the indices T times costs less than T cursor arrays). pos: rows + 1 scratch. */
static rvs_status place(rvs_csr *A, double *vals, const rvs_triplets *T, int64_t nnz, int64_t *pos)
{
    const int64_t rows = A->rows;
    int64_t *rp = A->rowptr;
    const int nt = omp_get_max_threads();
    int64_t *cur = NULL;
    if (nt > 1 && (uint64_t)rows * (uint64_t)nt < (uint64_t)nnz / 4)
        cur = calloc((size_t)nt * (size_t)(rows + 1), sizeof *cur);
    if (cur) {
#pragma omp parallel num_threads(nt)
        { /* stretch t by thread t modulo the team: it may be smaller than asked (OMP_DYNAMIC) */
            for (int t = omp_get_thread_num(); t < nt; t += omp_get_num_threads()) {
                int64_t *my = cur + (size_t)t * (size_t)(rows + 1);
                for (int64_t p = nnz * t / nt; p < nnz * (t + 1) / nt; p++)
                    my[trow(T, p)]++;
            }
#pragma omp barrier
#pragma omp single
            {
                int64_t run = 0;
                for (int64_t r = 0; r < rows; r++) {
                    rp[r] = run;
                    for (int u = 0; u < nt; u++) {
                        int64_t c = cur[(size_t)u * (size_t)(rows + 1) + r];
                        cur[(size_t)u * (size_t)(rows + 1) + r] = run;
                        run += c;
                    }
                }
                rp[rows] = run;
            }
            for (int t = omp_get_thread_num(); t < nt; t += omp_get_num_threads()) {
                int64_t *my = cur + (size_t)t * (size_t)(rows + 1);
                for (int64_t p = nnz * t / nt; p < nnz * (t + 1) / nt; p++)
                    put(A, vals, my[trow(T, p)]++, tcol(T, p), T->v ? T->v[p] : 1.0);
            }
        }
        free(cur);
        return RVS_OK;
    }
    /* counts: thread t counts rows [rows t / nt, rows (t + 1) / nt) */
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const int64_t lo = rows * t / n, hi = rows * (t + 1) / n;
        for (int64_t p = 0; p < nnz; p++) {
            int64_t r = trow(T, p);
            if (r >= lo && r < hi)
                rp[r + 1]++;
        }
    }
    for (int64_t r = 0; r < rows; r++)
        rp[r + 1] += rp[r];
    memcpy(pos, rp, (size_t)(rows + 1) * sizeof *pos);
    /* placement: thread t takes the rows holding entries [nnz t / nt, nnz (t + 1) / nt) */
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const int64_t lo = t == 0 ? 0 : rvs_lower_bound_i64(rp, rows + 1, nnz / n * t + (nnz % n) * t / n);
        const int64_t hi = t == n - 1
                               ? rows
                               : rvs_lower_bound_i64(rp, rows + 1, nnz / n * (t + 1) + (nnz % n) * (t + 1) / n);
        for (int64_t p = 0; p < nnz && lo < hi; p++) {
            int64_t r = trow(T, p);
            if (r >= lo && r < hi)
                put(A, vals, pos[r]++, tcol(T, p), T->v ? T->v[p] : 1.0);
        }
    }
    return RVS_OK;
}

/* Free what the builder owns of T and clear it. */
static void triplets_release(rvs_triplets *T)
{
    if (T->owned) {
        free(T->ri32);
        free(T->ri64);
        free(T->ci32);
        free(T->ci64);
        free(T->v);
    }
    memset(T, 0, sizeof *T);
}

#define BINS_MAX 65536                    /* coarse row bins; a bin-to-range map of 16-bit entries */
#define RANGES_PER_THREAD 64              /* row ranges for each thread (at most BINS_MAX in all) */
#define GIVE_BACK_STEP ((int64_t)1 << 20) /* triplets a thread moves between two give-backs */

/* Where the owned-triplet placement puts things: rows (16-bit offsets from the first row of
 * their range when every range spans at most 2^16 rows, else T's width), columns (A's width),
 * values. */
typedef struct {
    void *r, *c;
    double *v;
    int r64, c64, r16;
} entries;

/* Entry q = (r, c, v), r0 the first row of r's range. */
static inline void entries_put(const entries *d, int64_t q, int64_t r, int64_t r0, int64_t c, double v)
{
    if (d->r16)
        ((uint16_t *)d->r)[q] = (uint16_t)(r - r0);
    else if (d->r64)
        ((int64_t *)d->r)[q] = r;
    else
        ((int32_t *)d->r)[q] = (int32_t)r;
    if (d->c64)
        ((int64_t *)d->c)[q] = c;
    else
        ((int32_t *)d->c)[q] = (int32_t)c;
    d->v[q] = v;
}

/* Row of entry q, r0 the first row of its range. */
static inline int64_t entries_row(const entries *d, int64_t q, int64_t r0)
{
    return d->r16   ? r0 + ((const uint16_t *)d->r)[q]
           : d->r64 ? ((const int64_t *)d->r)[q]
                    : ((const int32_t *)d->r)[q];
}

/* The plan of place_owned: rows grouped into bins of 2^shift rows, bins into K ranges of about
 * equal entries (mirrors counted), none spanning more than 2^16 rows when a bin spans at most
 * that (narrow: rows stored as 16-bit offsets); the input cut into nt stretches. */
#define RANGE_ROWS_MAX ((int64_t)1 << 16)
typedef struct {
    int shift, nbins, K, nt, narrow;
    uint16_t *range; /* nbins: the range of each bin */
    int64_t *first;  /* K + 1: range k holds rows [first[k], first[k + 1]) */
    int64_t *base;   /* K + 1: range k holds entries [base[k], base[k + 1]); base[K]: all */
    int64_t *off;    /* nt x K: where stretch t's entries of range k go next */
} ranges;

static void ranges_free(ranges *g)
{
    free(g->range);
    free(g->first);
    free(g->base);
    free(g->off);
}

/* Plan the ranges from one pass over the rows (and, mirroring, the columns of off-diagonal
 * triplets): each stretch's bin counts, bins gathered into ranges, then the cursors of every
 * stretch in every range (stretches in input order). */
static rvs_status ranges_plan(ranges *g, const rvs_triplets *T, int64_t rows, int64_t nnz)
{
    memset(g, 0, sizeof *g);
    g->nt = omp_get_max_threads();
    while (((rows - 1) >> g->shift) >= BINS_MAX)
        g->shift++;
    g->nbins = (int)((rows - 1) >> g->shift) + 1;
    g->narrow = ((int64_t)1 << g->shift) <= RANGE_ROWS_MAX;
    const int target = g->nt * RANGES_PER_THREAD < g->nbins ? g->nt * RANGES_PER_THREAD : g->nbins;
    const int nt = g->nt, nb = g->nbins, sh = g->shift, mirror = T->mirror != 0;
    int64_t *hist = calloc((size_t)nt * (size_t)nb, sizeof *hist);
    g->range = malloc((size_t)nb * sizeof *g->range);
    g->first = malloc(((size_t)nb + 1) * sizeof *g->first);
    g->base = malloc(((size_t)nb + 1) * sizeof *g->base);
    if (!hist || !g->range || !g->first || !g->base) {
        free(hist);
        return RVS_ERR_NOMEM;
    }
#pragma omp parallel num_threads(nt)
    for (int t = omp_get_thread_num(); t < nt; t += omp_get_num_threads()) {
        int64_t *h = hist + (size_t)t * (size_t)nb;
        for (int64_t p = nnz * t / nt; p < nnz * (t + 1) / nt; p++) {
            const int64_t r = trow(T, p);
            h[r >> sh]++;
            if (mirror) {
                const int64_t c = tcol(T, p);
                h[c >> sh] += c != r;
            }
        }
    }
    int64_t total = 0;
    for (size_t i = 0; i < (size_t)nt * (size_t)nb; i++)
        total += hist[i];
    /* bins into ranges: a range ends at the first bin that takes the running count past k/K, or
     * before a bin that would make it span more than 2^16 rows */
    int k = 0;
    int64_t run = 0;
    g->first[0] = g->base[0] = 0;
    for (int b = 0; b < nb; b++) {
        if (g->narrow && b > 0 && ((int64_t)(b + 1) << sh) - g->first[k] > RANGE_ROWS_MAX &&
            ((int64_t)b << sh) > g->first[k]) {
            g->first[++k] = (int64_t)b << sh;
            g->base[k] = run;
        }
        g->range[b] = (uint16_t)k;
        for (int t = 0; t < nt; t++)
            run += hist[(size_t)t * (size_t)nb + b];
        if (b + 1 < nb && run >= (int64_t)((double)total * (k + 1) / target)) {
            g->first[++k] = (int64_t)(b + 1) << sh;
            g->base[k] = run;
        }
    }
    g->K = k + 1;
    g->first[g->K] = rows;
    g->base[g->K] = total;
    g->off = calloc((size_t)nt * (size_t)g->K, sizeof *g->off);
    if (!g->off) {
        free(hist);
        return RVS_ERR_NOMEM;
    }
    for (int t = 0; t < nt; t++)
        for (int b = 0; b < nb; b++)
            g->off[(size_t)t * (size_t)g->K + g->range[b]] += hist[(size_t)t * (size_t)nb + b];
    for (k = 0; k < g->K; k++) {
        int64_t at = g->base[k];
        for (int t = 0; t < nt; t++) {
            int64_t c = g->off[(size_t)t * (size_t)g->K + k];
            g->off[(size_t)t * (size_t)g->K + k] = at;
            at += c;
        }
    }
    free(hist);
    return RVS_OK;
}

/* Stage 1 of place_owned: every triplet of T (and its mirror) into d, grouped by range, in
 * input order within each range. Each thread gives T's pages back as it moves on: the triplets
 * and their copy are never both whole. */
static void scatter_ranges(rvs_triplets *T, int64_t nnz, ranges *g, const entries *d)
{
    const int nt = g->nt;
#pragma omp parallel num_threads(nt)
    for (int t = omp_get_thread_num(); t < nt; t += omp_get_num_threads()) {
        const int64_t lo = nnz * t / nt, hi = nnz * (t + 1) / nt;
        int64_t *my = g->off + (size_t)t * (size_t)g->K;
        for (int64_t s = lo; s < hi; s += GIVE_BACK_STEP) {
            const int64_t e = hi - s > GIVE_BACK_STEP ? s + GIVE_BACK_STEP : hi;
            for (int64_t p = s; p < e; p++) {
                const int64_t r = trow(T, p), c = tcol(T, p);
                const double v = T->v ? T->v[p] : 1.0;
                int k = g->range[r >> g->shift];
                entries_put(d, my[k]++, r, g->first[k], c, v);
                if (T->mirror && c != r) {
                    k = g->range[c >> g->shift];
                    entries_put(d, my[k]++, c, g->first[k], r, T->v && T->mirror < 0 ? -v : v);
                }
            }
            const size_t k = (size_t)(e - s);
            rvs_mem_give_back(T->ri32 ? (void *)(T->ri32 + s) : (void *)(T->ri64 + s), k * (T->ri32 ? 4 : 8));
            rvs_mem_give_back(T->ci32 ? (void *)(T->ci32 + s) : (void *)(T->ci64 + s), k * (T->ci32 ? 4 : 8));
            if (T->v)
                rvs_mem_give_back(T->v + s, k * sizeof *T->v);
        }
    }
}

/* Stage 2 of place_owned: in each range, the rows counted (A's row pointers for its rows),
 * then its entries moved to their rows' places, in the order stage 1 left them, through
 * per-thread scratch. */
static rvs_status place_in_ranges(const entries *d, const ranges *g, int64_t *rp)
{
    int64_t widest = 0, most = 0, failed = 0;
    for (int k = 0; k < g->K; k++) {
        widest = g->base[k + 1] - g->base[k] > widest ? g->base[k + 1] - g->base[k] : widest;
        most = g->first[k + 1] - g->first[k] > most ? g->first[k + 1] - g->first[k] : most;
    }
    const size_t cw = d->c64 ? 8 : 4;
    rp[0] = 0;
#pragma omp parallel reduction(+ : failed)
    {
        char *tc = malloc((size_t)(widest ? widest : 1) * cw);
        double *tv = malloc((size_t)(widest ? widest : 1) * sizeof *tv);
        int64_t *at = malloc(((size_t)most + 1) * sizeof *at);
        failed += !tc || !tv || !at;
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < g->K; k++) {
            const int64_t r0 = g->first[k], nr = g->first[k + 1] - r0, s = g->base[k], n = g->base[k + 1] - s;
            if (!tc || !tv || !at)
                continue;
            memset(at, 0, ((size_t)nr + 1) * sizeof *at);
            for (int64_t i = 0; i < n; i++)
                at[entries_row(d, s + i, r0) - r0 + 1]++;
            at[0] = s;
            for (int64_t j = 0; j < nr; j++) {
                at[j + 1] += at[j];
                rp[r0 + j + 1] = at[j + 1];
            }
            if (nr < 2)
                continue; /* one row: already in place */
            memcpy(tc, (char *)d->c + (size_t)s * cw, (size_t)n * cw);
            memcpy(tv, d->v + s, (size_t)n * sizeof *tv);
            for (int64_t i = 0; i < n; i++) {
                const int64_t q = at[entries_row(d, s + i, r0) - r0]++;
                memcpy((char *)d->c + (size_t)q * cw, tc + (size_t)i * cw, cw);
                d->v[q] = tv[i];
            }
        }
        free(tc);
        free(tv);
        free(at);
    }
    return failed ? RVS_ERR_NOMEM : RVS_OK;
}

/* Place triplets out of row order that the builder owns into A, setting its row pointers,
 * stable (within a row, input order), in about the triplets' own memory: the rows are cut into
 * ranges of about equal entries; stage 1 copies the triplets (and their mirrors, T->mirror)
 * grouped by range into fresh arrays while giving the triplets' pages back; stage 2 orders
 * each range in place. The copy's columns and values become A's; T's arrays are freed.
 * *placed: the entries A got (nnz, or more with mirrors). */
static rvs_status place_owned(rvs_csr *A, double **vals, rvs_triplets *T, int64_t nnz, int64_t *placed,
                              rvs_error *err)
{
    ranges g;
    entries d = {NULL, NULL, NULL, T->ri64 != NULL, A->cols > RVS_COL32_MAX, 0};
    rvs_status st = ranges_plan(&g, T, A->rows, nnz);
    const int64_t n = st == RVS_OK ? g.base[g.K] : nnz;
    if (st == RVS_OK) {
        d.r16 = g.narrow;
        d.r = malloc((size_t)(n ? n : 1) * (d.r16 ? 2 : d.r64 ? 8 : 4));
        d.c = malloc((size_t)(n ? n : 1) * (d.c64 ? 8 : 4));
        d.v = malloc((size_t)(n ? n : 1) * sizeof *d.v);
        st = d.r && d.c && d.v ? RVS_OK : RVS_ERR_NOMEM;
    }
    if (st == RVS_OK) {
        scatter_ranges(T, nnz, &g, &d);
        triplets_release(T);
        st = place_in_ranges(&d, &g, A->rowptr);
    }
    ranges_free(&g);
    free(d.r);
    if (st != RVS_OK) {
        free(d.c);
        free(d.v);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory placing %lld entries", (long long)n);
    }
    *placed = n;
    if (d.c64)
        A->colind64 = d.c;
    else
        A->colind = d.c;
    A->values = *vals = d.v;
    return RVS_OK;
}

/* Column indices of A for triplets already in row order: the triplets' own array when the
 * builder may take it and its width is A's, else a converted copy. */
static rvs_status take_columns(rvs_csr *A, rvs_triplets *T, int64_t nnz, rvs_error *err)
{
    const int wide = A->cols > RVS_COL32_MAX;
    if (T->owned && !wide && T->ci32) {
        A->colind = T->ci32;
        T->ci32 = NULL;
        return RVS_OK;
    }
    if (T->owned && wide && T->ci64) {
        A->colind64 = T->ci64;
        T->ci64 = NULL;
        return RVS_OK;
    }
    void *c = malloc((size_t)(nnz ? nnz : 1) * (wide ? 8 : 4));
    if (!c)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld column indices", (long long)nnz);
    if (wide)
        A->colind64 = c;
    else
        A->colind = c;
#pragma omp parallel for schedule(static) if (nnz > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < nnz; p++) {
        if (wide)
            A->colind64[p] = tcol(T, p);
        else
            A->colind[p] = (int32_t)tcol(T, p);
    }
    return RVS_OK;
}

/* Sort and merge every row in place; then close the gaps duplicates left (rare: only then
 * does anything move) and set nnz. uniq is scratch of rows + 1 entries. */
static rvs_status sort_merge_rows(rvs_csr *A, double *v, int64_t *uniq, rvs_error *err)
{
    const int64_t rows = A->rows;
    int64_t *rp = A->rowptr, moved = 0, failed = 0;
#pragma omp parallel if (A->nnz + rows > RVS_OMP_MIN_WORK)
    {
        int64_t cap = 0;
        void *tc = NULL;
        double *tv = NULL;
#pragma omp for schedule(dynamic, 1024) reduction(+ : moved, failed)
        for (int64_t r = 0; r < rows; r++) {
            uniq[r] = sort_merge_row(A, v, rp[r], rp[r + 1] - rp[r], &tc, &tv, &cap);
            failed += uniq[r] < 0;
            moved += rp[r + 1] - rp[r] - uniq[r];
        }
        free(tc);
        free(tv);
    }
    if (failed)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory sorting the rows of a CSR");
    if (moved == 0)
        return RVS_OK;
    int64_t to = 0;
    for (int64_t r = 0; r < rows; r++) {
        const int64_t from = rp[r], n = uniq[r];
        rp[r] = to;
        if (to != from) {
            if (A->colind)
                memmove(A->colind + to, A->colind + from, (size_t)n * sizeof *A->colind);
            else
                memmove(A->colind64 + to, A->colind64 + from, (size_t)n * sizeof *A->colind64);
            memmove(v + to, v + from, (size_t)n * sizeof *v);
        }
        to += n;
    }
    rp[rows] = to;
    A->nnz = to;
    return RVS_OK;
}

/* Index of the first triplet outside rows x cols, or -1. */
static int64_t first_out_of_range(const rvs_triplets *T, int64_t rows, int64_t cols, int64_t nnz)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for reduction(min : bad) if (nnz > RVS_OMP_MIN_WORK)
    for (int64_t p = 0; p < nnz; p++) {
        int64_t r = trow(T, p), c = tcol(T, p);
        if ((r < 0 || r >= rows || c < 0 || c >= cols) && p < bad)
            bad = p;
    }
    return bad == INT64_MAX ? -1 : bad;
}

/* 1 when the rows of the triplets never decrease. */
static int rows_in_order(const rvs_triplets *T, int64_t nnz)
{
    int64_t down = 0;
#pragma omp parallel for reduction(+ : down) if (nnz > RVS_OMP_MIN_WORK)
    for (int64_t p = 1; p < nnz; p++)
        down += trow(T, p) < trow(T, p - 1);
    return down == 0;
}

/* Build A from triplets, consuming them when owned (see rvs_csr.h). */
rvs_status rvs_csr_from_triplets(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, rvs_triplets *T, rvs_vtype vt,
                                 rvs_error *err)
{
    rvs_status st = RVS_OK;
    int64_t *uniq = NULL, bad;
    double *v = NULL;
    memset(A, 0, sizeof *A);
    if (rows < 0 || cols < 0 || nnz < 0 || rows == INT64_MAX || (uint64_t)rows + 1 > SIZE_MAX / 8 ||
        (uint64_t)nnz > SIZE_MAX / 8) {
        st = rvs_fail(err, RVS_ERR_OVERFLOW, "negative or too large matrix size");
        goto done;
    }
    if ((!T->ri32 && !T->ri64) || (!T->ci32 && !T->ci64)) {
        if (nnz > 0) {
            st = rvs_fail(err, RVS_ERR_ARG, "triplets without row or column indices");
            goto done;
        }
    } else if (T->mirror && (!T->owned || rows != cols)) {
        st = rvs_fail(err, RVS_ERR_ARG, "mirrored triplets must be owned and the matrix square");
        goto done;
    } else if (!T->in_range && (bad = first_out_of_range(T, rows, cols, nnz)) >= 0) {
        st = rvs_fail(err, RVS_ERR_RANGE, "entry %lld: (%lld, %lld) outside a %lld x %lld matrix",
                      (long long)bad + 1, (long long)trow(T, bad) + 1, (long long)tcol(T, bad) + 1, (long long)rows,
                      (long long)cols);
        goto done;
    }
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    A->vtype = RVS_F64; /* values are summed in double; f32 is rounded once at the end */
    A->rowptr = calloc((size_t)rows + 1, sizeof *A->rowptr);
    if (!A->rowptr) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a CSR of %lld rows", (long long)rows);
        goto done;
    }
    if (nnz == 0 || (!T->mirror && rows_in_order(T, nnz))) {
        rowptr_of_sorted(T, rows, nnz, A->rowptr);
        if ((st = take_columns(A, T, nnz, err)) != RVS_OK)
            goto done;
        if (T->owned && T->v) {
            v = T->v;
            T->v = NULL;
        } else if ((v = malloc((size_t)(nnz ? nnz : 1) * sizeof *v))) {
#pragma omp parallel for schedule(static) if (nnz > RVS_OMP_MIN_WORK)
            for (int64_t p = 0; p < nnz; p++)
                v[p] = T->v ? T->v[p] : 1.0;
        }
        A->values = v;
    } else if (T->owned) {
        st = place_owned(A, &v, T, nnz, &nnz, err);
        A->nnz = nnz;
    } else {
        const int wide = cols > RVS_COL32_MAX;
        void *c = malloc((size_t)nnz * (wide ? 8 : 4));
        A->values = v = malloc((size_t)nnz * sizeof *v);
        if (wide)
            A->colind64 = c;
        else
            A->colind = c;
        uniq = malloc(((size_t)rows + 1) * sizeof *uniq);
        if (c && v && !uniq)
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a CSR of %lld rows", (long long)rows);
        else if (c && v)
            st = place(A, v, T, nnz, uniq);
    }
    if (!A->values || (!A->colind && !A->colind64)) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory building a CSR of %lld entries", (long long)nnz);
        goto done;
    }
    triplets_release(T); /* before the sort: the peak is the CSR, not the CSR and the input */
    if (st == RVS_OK && !uniq && !(uniq = malloc(((size_t)rows + 1) * sizeof *uniq)))
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a CSR of %lld rows", (long long)rows);
    if (st != RVS_OK || (st = sort_merge_rows(A, v, uniq, err)) != RVS_OK)
        goto done;
    if (vt == RVS_F32) {
        float *f = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *f);
        if (!f) {
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld values", (long long)A->nnz);
            goto done;
        }
#pragma omp parallel for schedule(static) if (A->nnz > RVS_OMP_MIN_WORK)
        for (int64_t p = 0; p < A->nnz; p++)
            f[p] = (float)v[p];
        free(A->values);
        A->values = f;
        A->vtype = RVS_F32;
    } else if (A->nnz < nnz) { /* shrink to what the duplicates left (keeps the old block if not) */
        void *s = realloc(A->values, (size_t)(A->nnz ? A->nnz : 1) * sizeof(double));
        A->values = s ? s : A->values;
    }
    if (A->nnz < nnz) {
        size_t w = A->colind ? sizeof *A->colind : sizeof *A->colind64;
        void *s = realloc(A->colind ? (void *)A->colind : (void *)A->colind64, (size_t)(A->nnz ? A->nnz : 1) * w);
        if (s && A->colind)
            A->colind = s;
        else if (s)
            A->colind64 = s;
    }
done:
    triplets_release(T);
    free(uniq);
    if (st != RVS_OK)
        rvs_csr_free(A);
    return st;
}

/* Build CSR from 0-based triplets (see rvs_csr.h): the caller keeps its arrays. */
rvs_status rvs_csr_from_coo(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                            const int64_t *ci, const double *vals, rvs_vtype vt, rvs_error *err)
{
    rvs_triplets T = {NULL, (int64_t *)ri, NULL, (int64_t *)ci, (double *)vals, 0, 0, 0};
    return rvs_csr_from_triplets(A, rows, cols, nnz, &T, vt, err);
}
