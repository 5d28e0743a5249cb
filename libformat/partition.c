/* partition.c - Algorithms 1-4 of pmf-partitioning: row vector sets for K processors */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rvs_partition.h"

/* Name of an algorithm. */
const char *rvs_alg_name(rvs_alg a)
{
    switch (a) {
    case RVS_ALG_ROWS: return "rows";
    case RVS_ALG_NNZ: return "nnz";
    case RVS_ALG_PMF: return "pmf";
    case RVS_ALG_DIAG: return "diag";
    }
    return "unknown";
}

/* Algorithm called s, or 0. */
rvs_alg rvs_alg_from_name(const char *s)
{
    for (int a = RVS_ALG_ROWS; a <= RVS_ALG_DIAG; a++)
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

/* Give part i the rows order[from..to). */
static rvs_status take_rows(rvs_part *part, const int64_t *order, int64_t from, int64_t to,
                            rvs_error *err)
{
    part->nrows = to - from;
    part->rows = malloc((size_t)(part->nrows ? part->nrows : 1) * sizeof *part->rows);
    if (!part->rows)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a part of %lld rows",
                        (long long)part->nrows);
    memcpy(part->rows, order + from, (size_t)part->nrows * sizeof *order);
    return RVS_OK;
}

/* Split order[0..n) (row lengths len[]) into parts[0..k) by the nnz rule: each part but the
 * last takes rows while that brings its NNZ nearer to cp_i / sum(cp) * total (ties: stop). */
static rvs_status split_by_nnz(rvs_part *parts, int k, const double *cp, const int64_t *order,
                               const int64_t *len, int64_t n, rvs_error *err)
{
    long double total = 0, cpsum = 0;
    for (int64_t j = 0; j < n; j++)
        total += (long double)len[order[j]];
    for (int i = 0; i < k; i++)
        cpsum += cp[i];
    int64_t j = 0;
    for (int i = 0; i < k; i++) {
        int64_t from = j;
        if (i == k - 1) {
            j = n;
        } else {
            long double target2 = 2.0L * (long double)cp[i] / cpsum * total, t = 0;
            while (j < n && 2.0L * t + (long double)len[order[j]] < target2)
                t += (long double)len[order[j++]];
        }
        rvs_status st = take_rows(&parts[i], order, from, j, err);
        if (st != RVS_OK)
            return st;
    }
    return RVS_OK;
}

/* Split rows 0..n-1 in order: part i ends at floor(n * (cp_1 + .. + cp_i) / sum cp). */
static rvs_status split_by_rows(rvs_part *parts, int k, const double *cp, const int64_t *order,
                                int64_t n, rvs_error *err)
{
    long double cpsum = 0, cum = 0;
    for (int i = 0; i < k; i++)
        cpsum += cp[i];
    int64_t from = 0;
    for (int i = 0; i < k; i++) {
        cum += cp[i];
        int64_t to = i == k - 1 ? n : (int64_t)floorl((long double)n * cum / cpsum);
        if (to < from)
            to = from;
        if (to > n)
            to = n;
        rvs_status st = take_rows(&parts[i], order, from, to, err);
        if (st != RVS_OK)
            return st;
        from = to;
    }
    return RVS_OK;
}

/* Rows ordered by length (stable counting sort: b_0 first, then b_1, ...), Algorithm 3's order. */
static rvs_status order_by_length(int64_t *order, const int64_t *len, int64_t n, int64_t maxlen,
                                  rvs_error *err)
{
    int64_t *start = calloc((size_t)maxlen + 2, sizeof *start);
    if (!start)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory ordering rows");
    for (int64_t i = 0; i < n; i++)
        start[len[i] + 1]++;
    for (int64_t k = 0; k <= maxlen; k++)
        start[k + 1] += start[k];
    for (int64_t i = 0; i < n; i++)
        order[start[len[i]]++] = i;
    free(start);
    return RVS_OK;
}

/* Split A into k parts with algorithm alg; fills metrics. */
rvs_status rvs_partition_compute(rvs_partition *P, const rvs_csr *A, rvs_alg alg, int k,
                                 const double *cp, const rvs_device *dev, int64_t block_size,
                                 rvs_error *err)
{
    rvs_status st = RVS_OK;
    int64_t n = A->rows, maxlen = 0;
    int64_t *len = NULL, *order = NULL;
    memset(P, 0, sizeof *P);
    if (k < 1 || (alg == RVS_ALG_DIAG && k < 2))
        return rvs_fail(err, RVS_ERR_ARG, alg == RVS_ALG_DIAG
                                              ? "diag needs at least two computing powers (R1, then R2's parts)"
                                              : "need at least one computing power");
    for (int i = 0; i < k; i++)
        if (!(cp[i] > 0) || !isfinite(cp[i]))
            return rvs_fail(err, RVS_ERR_ARG, "computing power %d is not a positive number", i + 1);
    if (alg < RVS_ALG_ROWS || alg > RVS_ALG_DIAG)
        return rvs_fail(err, RVS_ERR_ARG, "unknown partition algorithm %d", (int)alg);
    if (block_size <= 0)
        block_size = 32;
    P->alg = alg;
    P->block_size = alg == RVS_ALG_DIAG ? block_size : 0;
    P->k = k;
    P->parts = calloc((size_t)k, sizeof *P->parts);
    len = malloc((size_t)(n ? n : 1) * sizeof *len);
    order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!P->parts || !len || !order) {
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
        len[i] = held(A, i, alg == RVS_ALG_DIAG ? RVS_ENTRIES_OFFDIAG : RVS_ENTRIES_ALL, block_size);
        maxlen = len[i] > maxlen ? len[i] : maxlen;
        order[i] = i;
    }
    switch (alg) {
    case RVS_ALG_ROWS:
        st = split_by_rows(P->parts, k, cp, order, n, err);
        break;
    case RVS_ALG_NNZ:
        st = split_by_nnz(P->parts, k, cp, order, len, n, err);
        break;
    case RVS_ALG_PMF:
        st = order_by_length(order, len, n, maxlen, err);
        if (st == RVS_OK)
            st = split_by_nnz(P->parts, k, cp, order, len, n, err);
        break;
    case RVS_ALG_DIAG:
        st = take_rows(&P->parts[0], order, 0, n, err);
        if (st == RVS_OK)
            st = split_by_nnz(P->parts + 1, k - 1, cp + 1, order, len, n, err);
        break;
    }
    if (st == RVS_OK)
        st = rvs_partition_metrics(P, A, err);
done:
    free(len);
    free(order);
    if (st != RVS_OK)
        rvs_partition_free(P);
    return st;
}

/* Per-part N, W, NNZ, E, padding, density; mean density, zero fill, relative difference. */
rvs_status rvs_partition_metrics(rvs_partition *P, const rvs_csr *A, rvs_error *err)
{
    long double cpsum = 0, rel = 0;
    (void)err;
    P->nnz = 0;
    P->e_total = 0;
    P->padded_total = 0;
    for (int i = 0; i < P->k; i++)
        cpsum += P->parts[i].cp;
    for (int i = 0; i < P->k; i++) {
        rvs_part *q = &P->parts[i];
        int64_t nnz = 0, w = 0;
        int64_t bs = P->block_size > 0 ? P->block_size : 32;
#pragma omp parallel for reduction(+ : nnz) reduction(max : w) schedule(dynamic, 4096)
        for (int64_t j = 0; j < q->nrows; j++) {
            int64_t l = held(A, q->rows[j], q->entries, bs);
            nnz += l;
            w = l > w ? l : w;
        }
        q->nnz = nnz;
        q->width = w;
        q->e = q->nrows * w;
        q->padded = q->e - nnz;
        q->density = q->e ? (double)nnz / (double)q->e : 0.0;
        P->nnz += nnz;
        P->e_total += q->e;
        P->padded_total += q->padded;
    }
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
static rvs_status mark_rows(const rvs_partition *P, int from, int to, const rvs_csr *A,
                            unsigned char *seen, rvs_error *err)
{
    int64_t count = 0;
    memset(seen, 0, (size_t)A->rows);
    for (int i = from; i < to; i++)
        for (int64_t j = 0; j < P->parts[i].nrows; j++) {
            int64_t r = P->parts[i].rows[j];
            if (r < 0 || r >= A->rows) /* 1-based in the message, without overflowing at INT64_MAX */
                return rvs_fail(err, RVS_ERR_RANGE, "partition: part %d lists row %s%llu of a %lld-row matrix",
                                i + 1, r < -1 ? "-" : "", r < 0 ? 0 - ((unsigned long long)r + 1) : (unsigned long long)r + 1,
                                (long long)A->rows);
            if (seen[r])
                return rvs_fail(err, RVS_ERR_FORMAT, "partition: row %lld is in two parts (or twice in part %d)",
                                (long long)r + 1, i + 1);
            seen[r] = 1;
            count++;
        }
    if (count != A->rows)
        return rvs_fail(err, RVS_ERR_FORMAT, "partition: parts %d..%d cover %lld of %lld rows",
                        from + 1, to, (long long)count, (long long)A->rows);
    return RVS_OK;
}

/* Check P against A: sizes, devices, entry classes, disjoint and complete row sets. */
rvs_status rvs_partition_validate(const rvs_partition *P, const rvs_csr *A, rvs_error *err)
{
    if (P->k < 1 || !P->parts)
        return rvs_fail(err, RVS_ERR_FORMAT, "partition has no parts");
    if (P->alg < RVS_ALG_ROWS || P->alg > RVS_ALG_DIAG)
        return rvs_fail(err, RVS_ERR_FORMAT, "partition: unknown algorithm %d", (int)P->alg);
    if (P->alg == RVS_ALG_DIAG && (P->k < 2 || P->block_size < 1))
        return rvs_fail(err, RVS_ERR_FORMAT, "partition: diag needs two parts and a block size");
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        rvs_entries want = P->alg != RVS_ALG_DIAG ? RVS_ENTRIES_ALL : i == 0 ? RVS_ENTRIES_DIAG : RVS_ENTRIES_OFFDIAG;
        if (q->entries != want)
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d has entry class %d, want %d",
                            i + 1, (int)q->entries, (int)want);
        if (q->device != RVS_DEV_CPU && q->device != RVS_DEV_GPU)
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d has unknown device %d", i + 1, (int)q->device);
        if (!(q->cp > 0) || !isfinite(q->cp))
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d has computing power %g", i + 1, q->cp);
        if (q->nrows < 0 || q->nrows > A->rows || (q->nrows && !q->rows))
            return rvs_fail(err, RVS_ERR_FORMAT, "partition: part %d claims %lld rows of %lld",
                            i + 1, (long long)q->nrows, (long long)A->rows);
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
rvs_status rvs_partition_extract(rvs_csr *S, const rvs_partition *P, int part, const rvs_csr *A,
                                 rvs_error *err)
{
    if (part < 0 || part >= P->k)
        return rvs_fail(err, RVS_ERR_ARG, "no part %d", part + 1);
    const rvs_part *q = &P->parts[part];
    return rvs_csr_extract_rows(S, A, q->rows, q->nrows, (int)q->entries,
                                P->block_size > 0 ? P->block_size : 32, err);
}
