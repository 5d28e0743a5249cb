/* partition.c - Algorithms 1-4 of pmf-partitioning (and METIS, partition_metis.c): row vector
 * sets for K processors */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "partition_metis.h"

/* Name of an algorithm. */
const char *rvs_alg_name(rvs_alg a)
{
    switch (a) {
    case RVS_ALG_ROWS: return "rows";
    case RVS_ALG_NNZ: return "nnz";
    case RVS_ALG_PMF: return "pmf";
    case RVS_ALG_DIAG: return "diag";
    case RVS_ALG_METIS: return "metis";
    }
    return "unknown";
}

/* Algorithm called s, or 0. */
rvs_alg rvs_alg_from_name(const char *s)
{
    for (int a = RVS_ALG_ROWS; a <= RVS_ALG_METIS; a++)
        if (strcasecmp(s, rvs_alg_name((rvs_alg)a)) == 0)
            return (rvs_alg)a;
    return (rvs_alg)0;
}

/* Free P's arrays and zero it. */
void rvs_partition_free(rvs_partition *P)
{
    if (!P)
        return;
    for (int i = 0; P->parts && i < P->k; i++)
        free(P->parts[i].rows);
    free(P->parts);
    memset(P, 0, sizeof *P);
}

/* Number of entries of row r that a part of entry class cls holds. */
static int64_t held(const rvs_csr *A, int64_t r, rvs_entries cls, int64_t block)
{
    if (cls == RVS_ENTRIES_ALL)
        return A->rowptr[r + 1] - A->rowptr[r];
    int64_t n = 0;
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++) {
        int inside = rvs_csr_col(A, p) / block == r / block;
        n += cls == RVS_ENTRIES_DIAG ? inside : !inside;
    }
    return n;
}

/* Row lengths in the order an algorithm walks the rows, by position: rows in index order
 * (lengths from A's row pointers, or from len when set) or, with start, Algorithm 3's order by
 * length (a counting sort: positions start[L] .. start[L+1]-1 hold the rows of length L, each
 * length's rows by index), without an array of n positions. */
typedef struct {
    const rvs_csr *A;
    const int64_t *len;   /* held entries per row (diag); NULL: A's row lengths */
    const int64_t *start; /* by length: first position of each length, maxlen + 2 entries */
} row_order;

/* Length of row r as the algorithm counts it. */
static int64_t order_len(const row_order *o, int64_t r)
{
    return o->len ? o->len[r] : o->A->rowptr[r + 1] - o->A->rowptr[r];
}

/* Cursor over the positions of o, lengths read in ascending position order. */
typedef struct {
    const row_order *o;
    int64_t bucket; /* by length: the length of the current position */
} order_walk;

/* Length at position j; j never decreases between calls. */
static int64_t walk_len(order_walk *w, int64_t j)
{
    if (!w->o->start)
        return order_len(w->o, j);
    while (w->o->start[w->bucket + 1] <= j)
        w->bucket++;
    return w->bucket;
}

/* Cut positions [0, n) into k parts by the nnz rule: each part but the last takes rows while
 * that brings its NNZ nearer to cp_i / sum(cp) * total (ties: stop). Part i: cut[i]..cut[i+1]. */
static void cut_by_nnz(int64_t *cut, int k, const double *cp, const row_order *o, int64_t n)
{
    long double total = 0, cpsum = 0;
    order_walk w = {o, 0};
    for (int64_t r = 0; r < n; r++) /* integers: exact in long double, in any order */
        total += (long double)order_len(o, r);
    for (int i = 0; i < k; i++)
        cpsum += cp[i];
    int64_t j = 0;
    cut[0] = 0;
    for (int i = 0; i < k; i++) {
        if (i == k - 1) {
            j = n;
        } else {
            long double target2 = 2.0L * (long double)cp[i] / cpsum * total, t = 0;
            while (j < n && 2.0L * t + (long double)walk_len(&w, j) < target2)
                t += (long double)walk_len(&w, j++);
        }
        cut[i + 1] = j;
    }
}

/* Cut rows 0..n-1 in order: part i ends at floor(n * (cp_1 + .. + cp_i) / sum cp). */
static void cut_by_rows(int64_t *cut, int k, const double *cp, int64_t n)
{
    long double cpsum = 0, cum = 0;
    for (int i = 0; i < k; i++)
        cpsum += cp[i];
    cut[0] = 0;
    for (int i = 0; i < k; i++) {
        cum += cp[i];
        int64_t to = i == k - 1 ? n : (int64_t)floorl((long double)n * cum / cpsum);
        cut[i + 1] = to < cut[i] ? cut[i] : to > n ? n : to;
    }
}

/* Give each of parts[0..k) its rows: positions cut[i]..cut[i+1] of o's order. */
static rvs_status fill_parts(rvs_part *parts, int k, const int64_t *cut, const row_order *o, int64_t n,
                             int64_t maxlen, rvs_error *err)
{
    for (int i = 0; i < k; i++) {
        parts[i].nrows = cut[i + 1] - cut[i];
        parts[i].rows = malloc((size_t)(parts[i].nrows ? parts[i].nrows : 1) * sizeof *parts[i].rows);
        if (!parts[i].rows)
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a part of %lld rows", (long long)parts[i].nrows);
    }
    if (!o->start) {
        for (int i = 0; i < k; i++)
            for (int64_t j = 0; j < parts[i].nrows; j++)
                parts[i].rows[j] = cut[i] + j;
        return RVS_OK;
    }
    int64_t *next = malloc(((size_t)maxlen + 2) * sizeof *next);
    if (!next)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory ordering rows");
    memcpy(next, o->start, ((size_t)maxlen + 2) * sizeof *next);
    for (int64_t r = 0; r < n; r++) { /* rows by index: within a length, in index order */
        const int64_t pos = next[order_len(o, r)]++;
        int p = 0;
        while (p + 1 < k && cut[p + 1] <= pos)
            p++;
        parts[p].rows[pos - cut[p]] = r;
    }
    free(next);
    return RVS_OK;
}

/* start[L] = rows shorter than L (L = 0..maxlen+1): Algorithm 3's order by length. */
static rvs_status count_lengths(int64_t **start, const row_order *o, int64_t n, int64_t maxlen, rvs_error *err)
{
    int64_t *s = calloc((size_t)maxlen + 2, sizeof *s);
    if (!(*start = s))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory ordering rows");
    for (int64_t r = 0; r < n; r++)
        s[order_len(o, r) + 1]++;
    for (int64_t L = 0; L <= maxlen; L++)
        s[L + 1] += s[L];
    return RVS_OK;
}

/* Split A into k parts with algorithm alg; fills metrics. Beyond the hub it holds the parts'
 * row lists and, for diag alone, the held length of every row. */
rvs_status rvs_partition_compute(rvs_partition *P, const rvs_csr *A, rvs_alg alg, int k, const double *cp,
                                 const rvs_device *dev, int64_t block_size, rvs_error *err)
{
    rvs_status st = RVS_OK;
    int64_t n = A->rows, maxlen = 0;
    int64_t *len = NULL, *start = NULL, *cut = NULL;
    row_order o = {A, NULL, NULL};
    memset(P, 0, sizeof *P);
    if (k < 1 || (alg == RVS_ALG_DIAG && k < 2))
        return rvs_fail(err, RVS_ERR_ARG,
                        alg == RVS_ALG_DIAG ? "diag needs at least two computing powers (R1, then R2's parts)"
                                            : "need at least one computing power");
    for (int i = 0; i < k; i++)
        if (!(cp[i] > 0) || !isfinite(cp[i]))
            return rvs_fail(err, RVS_ERR_ARG, "computing power %d is not a positive number", i + 1);
    if (alg < RVS_ALG_ROWS || alg > RVS_ALG_METIS)
        return rvs_fail(err, RVS_ERR_ARG, "unknown partition algorithm %d", (int)alg);
    if (block_size <= 0)
        block_size = 32;
    P->alg = alg;
    P->block_size = alg == RVS_ALG_DIAG ? block_size : 0;
    P->k = k;
    P->parts = calloc((size_t)k, sizeof *P->parts);
    cut = malloc(((size_t)k + 1) * sizeof *cut);
    if (alg == RVS_ALG_DIAG)
        o.len = len = malloc((size_t)(n ? n : 1) * sizeof *len);
    if (!P->parts || !cut || (alg == RVS_ALG_DIAG && !len)) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory partitioning %lld rows", (long long)n);
        goto done;
    }
    for (int i = 0; i < k; i++) {
        P->parts[i].cp = cp[i];
        P->parts[i].device = dev ? dev[i] : RVS_DEV_CPU;
        P->parts[i].entries = alg != RVS_ALG_DIAG ? RVS_ENTRIES_ALL
                              : i == 0            ? RVS_ENTRIES_DIAG
                                                  : RVS_ENTRIES_OFFDIAG;
    }
#pragma omp parallel for reduction(max : maxlen) schedule(dynamic, 4096)
    for (int64_t i = 0; i < n; i++) {
        const int64_t l = len ? (len[i] = held(A, i, RVS_ENTRIES_OFFDIAG, block_size))
                              : A->rowptr[i + 1] - A->rowptr[i];
        maxlen = l > maxlen ? l : maxlen;
    }
    switch (alg) {
    case RVS_ALG_ROWS:
        cut_by_rows(cut, k, cp, n);
        st = fill_parts(P->parts, k, cut, &o, n, maxlen, err);
        break;
    case RVS_ALG_NNZ:
        cut_by_nnz(cut, k, cp, &o, n);
        st = fill_parts(P->parts, k, cut, &o, n, maxlen, err);
        break;
    case RVS_ALG_PMF:
        if ((st = count_lengths(&start, &o, n, maxlen, err)) != RVS_OK)
            break;
        o.start = start;
        cut_by_nnz(cut, k, cp, &o, n);
        st = fill_parts(P->parts, k, cut, &o, n, maxlen, err);
        break;
    case RVS_ALG_DIAG: /* part 1 every row, parts 2..K the rows by the nnz rule over held lengths */
        cut[0] = 0;
        cut[1] = n;
        if ((st = fill_parts(P->parts, 1, cut, &o, n, maxlen, err)) != RVS_OK)
            break;
        cut_by_nnz(cut, k - 1, cp + 1, &o, n);
        st = fill_parts(P->parts + 1, k - 1, cut, &o, n, maxlen, err);
        break;
    case RVS_ALG_METIS: st = rvs_metis_fill_parts(P->parts, k, cp, A, err); break;
    }
    if (st == RVS_OK)
        st = rvs_partition_metrics(P, A, err);
done:
    free(len);
    free(start);
    free(cut);
    if (st != RVS_OK)
        rvs_partition_free(P);
    return st;
}

/* Rows per piece of the metrics' one parallel loop: a part is cut into pieces of at most this
 * many rows, so that many small parts cost one OpenMP region, not one each. */
#define METRICS_PIECE 4096

/* Per-part N, W, NNZ, E, padding, density; mean density, zero fill, relative difference. */
rvs_status rvs_partition_metrics(rvs_partition *P, const rvs_csr *A, rvs_error *err)
{
    long double cpsum = 0, rel = 0;
    const int64_t bs = P->block_size > 0 ? P->block_size : 32;
    int64_t npieces = 0;
    for (int i = 0; i < P->k; i++)
        npieces += (P->parts[i].nrows + METRICS_PIECE - 1) / METRICS_PIECE;
    /* piece q: part of[q], its rows from lo[q]; its entries and longest row into nnz[q], w[q] */
    int *of = malloc((size_t)(npieces + 1) * sizeof *of);
    int64_t *lo = malloc((size_t)(npieces + 1) * sizeof *lo), *nnz = malloc((size_t)(npieces + 1) * sizeof *nnz),
            *w = malloc((size_t)(npieces + 1) * sizeof *w);
    if (!of || !lo || !nnz || !w) {
        free(of);
        free(lo);
        free(nnz);
        free(w);
        return rvs_fail(err, RVS_ERR_NOMEM, "partition metrics: out of memory for %lld pieces", (long long)npieces);
    }
    for (int i = 0, q = 0; i < P->k; i++)
        for (int64_t r = 0; r < P->parts[i].nrows; r += METRICS_PIECE, q++) {
            of[q] = i;
            lo[q] = r;
        }
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t q = 0; q < npieces; q++) {
        const rvs_part *part = &P->parts[of[q]];
        const int64_t hi = lo[q] + METRICS_PIECE < part->nrows ? lo[q] + METRICS_PIECE : part->nrows;
        int64_t sum = 0, longest = 0;
        for (int64_t j = lo[q]; j < hi; j++) {
            int64_t l = held(A, part->rows[j], part->entries, bs);
            sum += l;
            longest = l > longest ? l : longest;
        }
        nnz[q] = sum;
        w[q] = longest;
    }
    P->nnz = 0;
    P->e_total = 0;
    P->padded_total = 0;
    for (int i = 0, q = 0; i < P->k; i++) {
        rvs_part *part = &P->parts[i];
        part->nnz = part->width = 0;
        for (; q < npieces && of[q] == i; q++) {
            part->nnz += nnz[q];
            part->width = w[q] > part->width ? w[q] : part->width;
        }
        part->e = part->nrows * part->width;
        part->padded = part->e - part->nnz;
        part->density = part->e ? (double)part->nnz / (double)part->e : 0.0;
        P->nnz += part->nnz;
        P->e_total += part->e;
        P->padded_total += part->padded;
        cpsum += part->cp;
    }
    free(of);
    free(lo);
    free(nnz);
    free(w);
    for (int i = 0; i < P->k; i++) {
        long double want = (long double)P->parts[i].cp / cpsum * (long double)P->nnz;
        if (want > 0)
            rel += fabsl((long double)P->parts[i].nnz - want) / want;
    }
    P->mean_density = P->e_total ? (double)P->nnz / (double)P->e_total : 0.0;
    P->mean_zero_fill = P->e_total ? 1.0 - P->mean_density : 0.0;
    P->rel_diff_pct = (double)(rel * 100.0L);
    return RVS_OK;
}

/* Mark rows of parts[from..to) in seen[]; fails on a repeat or an out-of-range row. */
static rvs_status mark_rows(const rvs_partition *P, int from, int to, const rvs_csr *A, unsigned char *seen,
                            rvs_error *err)
{
    int64_t count = 0;
    memset(seen, 0, (size_t)A->rows);
    for (int i = from; i < to; i++)
        for (int64_t j = 0; j < P->parts[i].nrows; j++) {
            int64_t r = P->parts[i].rows[j];
            if (r < 0 || r >= A->rows) /* an index out of range is shown as stored, 0-based */
                return rvs_fail(err, RVS_ERR_RANGE, "partition: part %d: row index %lld out of range 0..%lld",
                                i + 1, (long long)r, (long long)A->rows - 1);
            if (seen[r])
                return rvs_fail(err, RVS_ERR_FORMAT, "partition: row %lld is in two parts (or twice in part %d)",
                                (long long)r + 1, i + 1);
            seen[r] = 1;
            count++;
        }
    if (count != A->rows)
        return rvs_fail(err, RVS_ERR_FORMAT, "partition: parts %d..%d cover %lld of %lld rows", from + 1, to,
                        (long long)count, (long long)A->rows);
    return RVS_OK;
}

/* Check P against A: sizes, devices, entry classes, disjoint and complete row sets. */
rvs_status rvs_partition_validate(const rvs_partition *P, const rvs_csr *A, rvs_error *err)
{
    if (P->k < 1 || !P->parts)
        return rvs_fail(err, RVS_ERR_FORMAT, "partition has no parts");
    if (P->alg < RVS_ALG_ROWS || P->alg > RVS_ALG_METIS)
        return rvs_fail(err, RVS_ERR_FORMAT, "partition: unknown algorithm %d", (int)P->alg);
    if (P->alg == RVS_ALG_DIAG && (P->k < 2 || P->block_size < 1))
        return rvs_fail(err, RVS_ERR_FORMAT, "partition: diag needs two parts and a block size");
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        rvs_entries want = P->alg != RVS_ALG_DIAG ? RVS_ENTRIES_ALL
                           : i == 0               ? RVS_ENTRIES_DIAG
                                                  : RVS_ENTRIES_OFFDIAG;
        if (q->entries != want)
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d has entry class %d, want %d", i + 1,
                            (int)q->entries, (int)want);
        if (q->device != RVS_DEV_CPU && q->device != RVS_DEV_GPU)
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d has unknown device %d", i + 1, (int)q->device);
        if (!(q->cp > 0) || !isfinite(q->cp))
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d has computing power %g", i + 1, q->cp);
        if (q->nrows < 0 || q->nrows > A->rows || (q->nrows && !q->rows))
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d claims %lld rows of %lld", i + 1,
                            (long long)q->nrows, (long long)A->rows);
    }
    unsigned char *seen = malloc((size_t)(A->rows ? A->rows : 1));
    if (!seen)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory validating the partition");
    rvs_status st = P->alg == RVS_ALG_DIAG ? mark_rows(P, 0, 1, A, seen, err) : RVS_OK;
    if (st == RVS_OK)
        st = mark_rows(P, P->alg == RVS_ALG_DIAG ? 1 : 0, P->k, A, seen, err);
    free(seen);
    return st;
}

/* The submatrix of part `part`: its rows in order, entries filtered by its class. */
rvs_status rvs_partition_extract(rvs_csr *S, const rvs_partition *P, int part, const rvs_csr *A, rvs_error *err)
{
    if (part < 0 || part >= P->k)
        return rvs_fail(err, RVS_ERR_ARG, "no part %d", part + 1);
    const rvs_part *q = &P->parts[part];
    return rvs_csr_extract_rows(S, A, q->rows, q->nrows, (int)q->entries, P->block_size > 0 ? P->block_size : 32,
                                err);
}
