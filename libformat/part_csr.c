/* part_csr.c - one part of a partition as CSR: a view of the hub when its rows are a run, else a
 * copy; every part's copy in one pass that gives the hub back as it goes */
#include <string.h>
#include <stdlib.h>
#include "rvs_format.h"
#include "rvs_partition.h"

int rvs_partition_part_is_run(const rvs_partition *P, int part, const rvs_csr *A, int64_t *lo)
{
    const rvs_part *q = &P->parts[part];
    return q->entries == RVS_ENTRIES_ALL && rvs_rows_consecutive(q->rows, q->nrows, lo) && *lo >= 0 &&
           q->nrows <= A->rows - *lo;
}

/* S = part's submatrix, viewed in place when its rows are consecutive and hold every entry. */
rvs_status rvs_partition_part_csr(rvs_csr *S, int *view, const rvs_partition *P, int part, const rvs_csr *A,
                                  rvs_error *err)
{
    int64_t lo;
    *view = 0;
    memset(S, 0, sizeof *S);
    if (part < 0 || part >= P->k)
        return rvs_fail(err, RVS_ERR_ARG, "no part %d", part + 1);
    if (rvs_partition_part_is_run(P, part, A, &lo)) {
        *view = 1;
        return rvs_csr_view_rows(S, A, lo, lo + P->parts[part].nrows, err);
    }
    return rvs_partition_extract(S, P, part, A, err);
}

rvs_status rvs_part_or_whole(rvs_csr *S, int *view, const rvs_partition *P, int part, const rvs_csr *A,
                             const rvs_csr **out, rvs_error *err)
{
    *view = 0;
    memset(S, 0, sizeof *S);
    *out = part < 0 ? A : S;
    return part < 0 ? RVS_OK : rvs_partition_part_csr(S, view, P, part, A, err);
}

void rvs_part_csr_free(rvs_csr *S, int view)
{
    if (view)
        rvs_csr_view_free(S);
    else
        rvs_csr_free(S);
}

/* The split walks each named part's rows in ascending order beside the hub's row blocks. A
 * part's list is a few ascending runs as a rule (Algorithm 3's parts list their rows by length,
 * then by index: one run a length), walked with a cursor each; a list of many runs (more than
 * one a 64 rows, or 4096: each row block looks at every cursor) is walked through its positions
 * sorted by row (ord, 8 bytes a row of the part). No array as long as the hub: where a tag of 8 bytes a row stood beside the copies, the
 * 200^3 stencil in four pmf parts peaked 61 MiB higher. */
typedef struct {
    const int64_t *rows; /* the part's rows */
    int64_t *ord;        /* NULL, or positions in rows sorted by row (then one run) */
    int64_t n, nruns;
    int64_t *run; /* nruns + 1 run bounds in the sequence, then a cursor a run */
} walk;

typedef struct {
    int64_t row, pos;
} row_pos;

static int by_row(const void *a, const void *b)
{
    const int64_t x = ((const row_pos *)a)->row, y = ((const row_pos *)b)->row;
    return (x > y) - (x < y);
}

static int64_t walk_row(const walk *w, int64_t i)
{
    return w->rows[w->ord ? w->ord[i] : i];
}

/* w's runs, or its positions in row order where it has too many. */
static rvs_status walk_order(walk *w, rvs_error *err)
{
    int64_t runs = 1, i;
    for (i = 1; i < w->n; i++)
        runs += w->rows[i] < w->rows[i - 1];
    if (runs > 1 && (runs > w->n / 64 || runs > 4096)) {
        row_pos *t = malloc((size_t)w->n * sizeof *t);
        w->ord = malloc((size_t)w->n * sizeof *w->ord);
        if (!t || !w->ord) {
            free(t);
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory ordering %lld rows", (long long)w->n);
        }
        for (i = 0; i < w->n; i++)
            t[i] = (row_pos){w->rows[i], i};
        qsort(t, (size_t)w->n, sizeof *t, by_row);
        for (i = 0; i < w->n; i++)
            w->ord[i] = t[i].pos;
        free(t);
        runs = 1;
    }
    if (!(w->run = malloc((size_t)(2 * runs + 1) * sizeof *w->run)))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory ordering %lld rows", (long long)w->n);
    w->nruns = 0;
    w->run[0] = 0;
    for (i = 1; i < w->n && !w->ord; i++)
        if (w->rows[i] < w->rows[i - 1])
            w->run[++w->nruns] = i;
    w->run[++w->nruns] = w->n;
    memcpy(w->run + w->nruns + 1, w->run, (size_t)w->nruns * sizeof *w->run);
    return RVS_OK;
}

/* Mark every row of the named parts in seen (a bit a row) and fill their copies' row pointers.
 * 0 when a part named holds only some of its rows' entries, a row is out of range or in two
 * named parts, or a part left out shares a row with a named one (which would read it after it
 * is given back). */
static int mark_rows(uint64_t *seen, rvs_csr *out, const int *need, const rvs_partition *P, const rvs_csr *A)
{
    for (int pass = 0; pass < 2; pass++)
        for (int p = 0; p < P->k; p++) {
            const rvs_part *q = &P->parts[p];
            const int named = !need || need[p];
            if (named != !pass)
                continue;
            if (named && q->entries != RVS_ENTRIES_ALL)
                return 0;
            int64_t at = 0;
            for (int64_t i = 0; i < q->nrows; i++) {
                const int64_t r = q->rows[i];
                if (r < 0 || r >= A->rows) {
                    if (named)
                        return 0;
                    continue;
                }
                const uint64_t bit = (uint64_t)1 << (r & 63);
                if (seen[r >> 6] & bit)
                    return 0;
                if (!named)
                    continue;
                seen[r >> 6] |= bit;
                at += A->rowptr[r + 1] - A->rowptr[r];
                out[p].rowptr[i + 1] = at;
            }
        }
    return 1;
}

/* Copy the rows of the named parts below e (each run from its cursor on) to their copies; the
 * number of rows copied. */
static int64_t copy_rows(rvs_csr *out, walk *W, int k, const rvs_csr *A, int64_t e)
{
    const size_t vs = rvs_vtype_size(A->vtype);
    int64_t copied = 0;
    for (int p = 0; p < k; p++) {
        walk *w = &W[p];
        rvs_csr *S = &out[p];
        for (int64_t j = 0; j < w->nruns; j++) {
            int64_t *at = &w->run[w->nruns + 1 + j], b = *at;
            while (b < w->run[j + 1] && walk_row(w, b) < e)
                b++;
#pragma omp parallel for schedule(dynamic, 4096) if (b - *at > 4096)
            for (int64_t c = *at; c < b; c++) {
                const int64_t i = w->ord ? w->ord[c] : c, r = w->rows[i], to = S->rowptr[i], from = A->rowptr[r],
                              n = A->rowptr[r + 1] - from;
                if (A->colind)
                    memcpy(S->colind + to, A->colind + from, (size_t)n * sizeof *A->colind);
                else
                    memcpy(S->colind64 + to, A->colind64 + from, (size_t)n * sizeof *A->colind64);
                if (A->values)
                    memcpy((char *)S->values + (size_t)to * vs, (const char *)A->values + (size_t)from * vs,
                           (size_t)n * vs);
            }
            copied += b - *at;
            *at = b;
        }
    }
    return copied;
}

rvs_status rvs_partition_split(rvs_csr **copies, const int *need, const rvs_partition *P, rvs_csr *A,
                               int64_t block_nnz, rvs_error *err)
{
    int split = 0;
    *copies = NULL;
    if (P->k >= 65535 || A->nnz >= ((int64_t)1 << 48))
        return RVS_OK;
    uint64_t *seen = calloc((size_t)A->rows / 64 + 1, sizeof *seen);
    rvs_csr *out = calloc((size_t)P->k, sizeof *out);
    walk *W = calloc((size_t)P->k, sizeof *W);
    rvs_status st = seen && out && W ? RVS_OK
                                     : rvs_fail(err, RVS_ERR_NOMEM, "out of memory splitting %lld rows into parts",
                                                (long long)A->rows);
    for (int p = 0; st == RVS_OK && p < P->k; p++) {
        int64_t nnz = 0;
        if (need && !need[p])
            continue;
        for (int64_t i = 0; i < P->parts[p].nrows; i++) {
            int64_t r = P->parts[p].rows[i];
            nnz += r >= 0 && r < A->rows ? A->rowptr[r + 1] - A->rowptr[r] : 0;
        }
        st = rvs_csr_alloc(&out[p], P->parts[p].nrows, A->cols, nnz, A->vtype, err);
        W[p] = (walk){P->parts[p].rows, NULL, P->parts[p].nrows, 0, NULL};
    }
    if (st == RVS_OK && (split = mark_rows(seen, out, need, P, A)))
        for (int p = 0; st == RVS_OK && p < P->k; p++)
            if (!need || need[p])
                st = walk_order(&W[p], err);
    free(seen);
    if (st == RVS_OK && split)
        for (int64_t r = 0; r < A->rows;) { /* row blocks of about block_nnz entries */
            int64_t e = rvs_lower_bound_i64(A->rowptr, A->rows + 1, A->rowptr[r] + block_nnz + 1) - 1;
            e = e > r ? e : r + 1;
            if (copy_rows(out, W, P->k, A, e) == e - r) /* every row of the block went to a copy */
                rvs_csr_release_entries(A, A->rowptr[r], A->rowptr[e]);
            r = e;
        }
    for (int p = 0; W && p < P->k; p++) {
        free(W[p].ord);
        free(W[p].run);
    }
    free(W);
    if (st == RVS_OK && split)
        *copies = out;
    else
        rvs_partition_split_free(out, out ? P->k : 0);
    return st;
}

void rvs_partition_split_free(rvs_csr *copies, int k)
{
    for (int p = 0; copies && p < k; p++)
        rvs_csr_free(&copies[p]);
    free(copies);
}
