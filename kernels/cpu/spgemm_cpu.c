/* spgemm_cpu.c - C = A*B on the CPU: OpenMP over rows, each row by ESC, a dense or a hash
 * accumulator.
 *
 * Rule, per row i with p products (known exactly from B's row lengths beforehand) whose
 * contributing rows of B span the columns lo..hi:
 *   p <= 32                                   ESC: gather the products, insertion-sort them by
 *                                             column, merge equal columns (tiny rows: no table
 *                                             to clear, everything in L1);
 *   hi - lo + 1 <= 16 p and <= 2^26           dense accumulator: a per-thread array indexed
 *                                             by column - lo, stamped per row, scanned over
 *                                             lo..hi (output comes out sorted; scanning costs
 *                                             at most 16 steps per product);
 *   otherwise                                 hash accumulator (open addressing, 2x the
 *                                             products, at most 2x the columns), then the
 *                                             distinct columns are sorted.
 * Sums are formed in double for both precisions. Rows are grouped into chunks of about equal
 * products; each chunk collects its rows in its own buffer, then C is assembled. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_spgemm.h"

#define ESC_MAX_PRODUCTS 32
#define DENSE_SPAN_FACTOR 16
#define DENSE_MAX_SPAN (1LL << 26)

typedef struct {
    int32_t col;
    double val;
} col_val;

/* Per-thread scratch: one row's result and the accumulators. */
typedef struct {
    col_val *row;          /* the current row, sorted */
    int64_t row_cap;
    double *dense;         /* dense accumulator over a column span, grown on demand */
    int32_t *stamp;        /* row stamp per slot of the dense accumulator */
    int64_t dense_cap;
    int32_t cur_stamp;
    int32_t *hkey;         /* hash table: column + 1, 0 = free */
    double *hval;
    int64_t hcap;
    int64_t n_esc, n_dense, n_hash;
} row_work;

/* Output of a chunk of consecutive output rows. */
typedef struct {
    int64_t lo, hi;        /* output rows [lo, hi) */
    col_val *out;
    int64_t n, cap;
} chunk_out;

/* Grow a col_val buffer to hold at least need entries; 0 when out of memory. */
static int reserve(col_val **p, int64_t *cap, int64_t need)
{
    if (need <= *cap)
        return 1;
    int64_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    col_val *q = realloc(*p, (size_t)nc * sizeof *q);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

/* Sort pairs by column: insertion sort for short runs, quicksort otherwise. */
static void sort_col_val(col_val *p, int64_t n)
{
    while (n > 24) {
        int32_t a = p[0].col, b = p[n / 2].col, c = p[n - 1].col;
        int32_t piv = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int64_t i = 0, j = n - 1;
        while (i <= j) {
            while (p[i].col < piv) i++;
            while (p[j].col > piv) j--;
            if (i <= j) {
                col_val t = p[i];
                p[i++] = p[j];
                p[j--] = t;
            }
        }
        if (j + 1 < n - i) {          /* recurse on the smaller side */
            sort_col_val(p, j + 1);
            p += i;
            n -= i;
        } else {
            sort_col_val(p + i, n - i);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        col_val t = p[i];
        int64_t j = i;
        while (j > 0 && p[j - 1].col > t.col) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = t;
    }
}

/* ESC for one row: expand, sort, compress. Returns the row's nnz. */
static int64_t row_esc(row_work *w, const rvs_csr *A, const rvs_csr *B, int64_t i)
{
    int64_t n = 0, u = 0;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        int64_t k = rvs_csr_col(A, e);
        double a = rvs_csr_value(A, e);
        for (int64_t f = B->rowptr[k]; f < B->rowptr[k + 1]; f++)
            w->row[n++] = (col_val){B->colind[f], a * rvs_csr_value(B, f)};
    }
    sort_col_val(w->row, n);
    for (int64_t j = 0; j < n; j++) {
        if (u > 0 && w->row[u - 1].col == w->row[j].col)
            w->row[u - 1].val += w->row[j].val;
        else
            w->row[u++] = w->row[j];
    }
    w->n_esc++;
    return u;
}

/* Dense accumulator for one row over columns lo..hi. Returns the row's nnz. */
static int64_t row_dense(row_work *w, const rvs_csr *A, const rvs_csr *B, int64_t i,
                         int32_t lo, int32_t hi)
{
    int64_t u = 0;
    if (++w->cur_stamp == INT32_MAX) {   /* stamps wrapped: start over */
        memset(w->stamp, 0, (size_t)w->dense_cap * sizeof *w->stamp);
        w->cur_stamp = 1;
    }
    const int32_t s = w->cur_stamp;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        int64_t k = rvs_csr_col(A, e);
        double a = rvs_csr_value(A, e);
        for (int64_t f = B->rowptr[k]; f < B->rowptr[k + 1]; f++) {
            int32_t c = B->colind[f] - lo;
            double v = a * rvs_csr_value(B, f);
            if (w->stamp[c] != s) {
                w->stamp[c] = s;
                w->dense[c] = v;
            } else {
                w->dense[c] += v;
            }
        }
    }
    for (int32_t c = 0; c <= hi - lo; c++)
        if (w->stamp[c] == s)
            w->row[u++] = (col_val){c + lo, w->dense[c]};
    w->n_dense++;
    return u;
}

/* Hash accumulator for one row with p products. Returns the row's nnz, or -1 (no memory). */
static int64_t row_hash(row_work *w, const rvs_csr *A, const rvs_csr *B, int64_t i, int64_t p)
{
    int64_t want = p < B->cols ? p : B->cols, cap = 16, u = 0;
    while (cap < 2 * want)
        cap *= 2;
    if (cap > w->hcap) {
        free(w->hkey);
        free(w->hval);
        w->hkey = malloc((size_t)cap * sizeof *w->hkey);
        w->hval = malloc((size_t)cap * sizeof *w->hval);
        w->hcap = (w->hkey && w->hval) ? cap : 0;
        if (!w->hcap)
            return -1;
    }
    memset(w->hkey, 0, (size_t)cap * sizeof *w->hkey);
    const uint64_t mask = (uint64_t)cap - 1;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        int64_t k = rvs_csr_col(A, e);
        double a = rvs_csr_value(A, e);
        for (int64_t f = B->rowptr[k]; f < B->rowptr[k + 1]; f++) {
            int32_t c = B->colind[f];
            uint64_t h = ((uint64_t)(uint32_t)c * 0x9E3779B97F4A7C15ULL) >> 17 & mask;
            while (w->hkey[h] != 0 && w->hkey[h] != c + 1)
                h = (h + 1) & mask;
            if (w->hkey[h] == 0) {
                w->hkey[h] = c + 1;
                w->hval[h] = a * rvs_csr_value(B, f);
            } else {
                w->hval[h] += a * rvs_csr_value(B, f);
            }
        }
    }
    for (int64_t h = 0; h < cap; h++)
        if (w->hkey[h])
            w->row[u++] = (col_val){w->hkey[h] - 1, w->hval[h]};
    sort_col_val(w->row, u);
    w->n_hash++;
    return u;
}

/* Row i of A*B (p products) into w->row, sorted; returns its nnz or -1 (no memory). */
static int64_t compute_row(row_work *w, const rvs_csr *A, const rvs_csr *B, int64_t i, int64_t p)
{
    if (p == 0)
        return 0;
    /* ESC holds every product; the accumulators at most one entry per column */
    if (!reserve(&w->row, &w->row_cap, p <= ESC_MAX_PRODUCTS || p < B->cols ? p : B->cols))
        return -1;
    if (p <= ESC_MAX_PRODUCTS)
        return row_esc(w, A, B, i);
    int32_t lo = INT32_MAX, hi = -1;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        int64_t k = rvs_csr_col(A, e);
        if (B->rowptr[k + 1] > B->rowptr[k]) {
            if (B->colind[B->rowptr[k]] < lo) lo = B->colind[B->rowptr[k]];
            if (B->colind[B->rowptr[k + 1] - 1] > hi) hi = B->colind[B->rowptr[k + 1] - 1];
        }
    }
    int64_t span = (int64_t)hi - lo + 1;
    if (span <= DENSE_SPAN_FACTOR * p && span <= DENSE_MAX_SPAN) {
        if (span > w->dense_cap) {
            free(w->dense);
            free(w->stamp);
            w->dense = malloc((size_t)span * sizeof *w->dense);
            w->stamp = calloc((size_t)span, sizeof *w->stamp);
            w->dense_cap = (w->dense && w->stamp) ? span : 0;
            w->cur_stamp = 0;
            if (!w->dense_cap)
                return -1;
        }
        return row_dense(w, A, B, i, lo, hi);
    }
    return row_hash(w, A, B, i, p);
}

/* Products of output row j (row rows[j] of A, or j). */
static int64_t out_products(const int64_t *prodptr, const int64_t *rows, int64_t j)
{
    int64_t i = rows ? rows[j] : j;
    return prodptr[i + 1] - prodptr[i];
}

/* Split output rows into chunks of about equal products. Returns the chunk count. */
static int64_t make_chunks(chunk_out *ch, int64_t want, const int64_t *prodptr,
                           const int64_t *rows, int64_t nrows, int64_t total)
{
    int64_t n = 0, acc = 0, lo = 0;
    for (int64_t j = 0; j < nrows; j++) {
        acc += out_products(prodptr, rows, j) + 1;   /* + 1: empty rows cost something too */
        if (acc * want >= (n + 1) * (total + nrows) || j == nrows - 1) {
            ch[n++] = (chunk_out){lo, j + 1, NULL, 0, 0};
            lo = j + 1;
        }
    }
    return n;
}

/* Compute every chunk's rows into its buffer; rownnz[j] gets each row's count. */
static rvs_status run_chunks(chunk_out *ch, int64_t nch, const rvs_csr *A, const rvs_csr *B,
                             const int64_t *prodptr, const int64_t *rows, int64_t *rownnz,
                             rvs_spgemm_stats *stats, rvs_error *err)
{
    int failed = 0;
    int64_t n_esc = 0, n_dense = 0, n_hash = 0;
#pragma omp parallel reduction(| : failed) reduction(+ : n_esc, n_dense, n_hash)
    {
        row_work w;
        memset(&w, 0, sizeof w);
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < nch; c++) {
            chunk_out *o = &ch[c];
            for (int64_t j = o->lo; j < o->hi && !failed; j++) {
                int64_t i = rows ? rows[j] : j;
                int64_t u = compute_row(&w, A, B, i, prodptr[i + 1] - prodptr[i]);
                if (u < 0 || !reserve(&o->out, &o->cap, o->n + u)) {
                    failed = 1;
                    break;
                }
                memcpy(o->out + o->n, w.row, (size_t)u * sizeof *w.row);
                o->n += u;
                rownnz[j] = u;
            }
        }
        n_esc += w.n_esc;
        n_dense += w.n_dense;
        n_hash += w.n_hash;
        free(w.row);
        free(w.dense);
        free(w.stamp);
        free(w.hkey);
        free(w.hval);
    }
    if (stats) {
        stats->rows_esc += n_esc;
        stats->rows_dense += n_dense;
        stats->rows_hash += n_hash;
    }
    return failed ? rvs_fail(err, RVS_ERR_NOMEM, "out of memory in the CPU SpGEMM") : RVS_OK;
}

/* Copy the chunks into C (rowptr already set), converting values to C's vtype. */
static void gather_chunks(rvs_csr *C, const chunk_out *ch, int64_t nch)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < nch; c++) {
        int64_t base = C->rowptr[ch[c].lo];
        for (int64_t t = 0; t < ch[c].n; t++) {
            C->colind[base + t] = ch[c].out[t].col;
            if (C->vtype == RVS_F64)
                ((double *)C->values)[base + t] = ch[c].out[t].val;
            else
                ((float *)C->values)[base + t] = (float)ch[c].out[t].val;
        }
    }
}

/* C = A(rows,:)*B on the CPU. */
rvs_status rvs_spgemm_cpu_rows(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                               const int64_t *rows, int64_t nrows, rvs_spgemm_stats *stats,
                               rvs_error *err)
{
    int64_t *prodptr = NULL, *rownnz = NULL, nch = 0, total = 0;
    chunk_out *ch = NULL;
    double t0 = omp_get_wtime(), t1, t2;
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    memset(C, 0, sizeof *C);
    if (st != RVS_OK)
        return st;
    if (!rows)
        nrows = A->rows;
    prodptr = malloc((size_t)(A->rows + 1) * sizeof *prodptr);
    rownnz = calloc((size_t)nrows + 1, sizeof *rownnz);
    ch = malloc((size_t)(8 * omp_get_max_threads() + 1) * sizeof *ch);
    if (!prodptr || !rownnz || !ch) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory in the CPU SpGEMM");
        goto done;
    }
    if ((st = rvs_spgemm_row_products(prodptr, A, B, err)) != RVS_OK)
        goto done;
    for (int64_t j = 0; j < nrows; j++)
        total += out_products(prodptr, rows, j);
    nch = make_chunks(ch, 8 * omp_get_max_threads(), prodptr, rows, nrows, total);
    t1 = omp_get_wtime();
    st = run_chunks(ch, nch, A, B, prodptr, rows, rownnz, stats, err);
    t2 = omp_get_wtime();
    if (st != RVS_OK)
        goto done;
    int64_t nnz = 0;
    for (int64_t j = 0; j < nrows; j++) {
        int64_t u = rownnz[j];
        rownnz[j] = nnz;
        nnz += u;
    }
    rownnz[nrows] = nnz;
    if ((st = rvs_csr_alloc(C, nrows, B->cols, nnz, A->vtype, err)) != RVS_OK)
        goto done;
    memcpy(C->rowptr, rownnz, (size_t)(nrows + 1) * sizeof *rownnz);
    gather_chunks(C, ch, nch);
    if (stats) {
        stats->products += total;
        stats->nnz_c += nnz;
        stats->cpu_rows += nrows;
        stats->t_pre += t1 - t0;
        stats->t_multiply += t2 - t1;
        stats->t_compress += omp_get_wtime() - t2;
    }
done:
    for (int64_t c = 0; c < nch; c++)
        free(ch[c].out);
    free(ch);
    free(prodptr);
    free(rownnz);
    return st;
}

/* C = A*B on the CPU. */
rvs_status rvs_spgemm_cpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                          rvs_spgemm_stats *stats, rvs_error *err)
{
    double t0 = omp_get_wtime();
    if (stats)
        memset(stats, 0, sizeof *stats);
    rvs_status st = rvs_spgemm_cpu_rows(C, A, B, NULL, 0, stats, err);
    if (stats)
        stats->t_total = omp_get_wtime() - t0;
    return st;
}
