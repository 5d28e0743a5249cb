/* spgemm_cpu.c - C = A*B on the CPU: Gustavson row-wise, OpenMP, two passes straight into C.
 *
 * 1. Products per row p_i, counted exactly from B's row lengths (rvs_spgemm_row_products).
 * 2. Rows are cut into 32 chunks per thread of about equal work (sum of p_i + 1), handed out
 *    dynamically (schedule(dynamic, 1)) in both passes.
 * 3. Symbolic pass: nnz of every row of C, counted with the row's accumulator (below) without
 *    any multiplication; a prefix sum gives C's rowptr and C is allocated exactly once (arrays
 *    of 32 MiB or more 2 MiB-aligned and madvise(MADV_HUGEPAGE)'d: page faults on filling C
 *    otherwise dominate).
 * 4. Numeric pass: every row is formed by its accumulator and written, sorted and merged,
 *    straight into its final place in C (no intermediate buffers, no copy afterwards).
 *
 * Accumulator rule, per row i of A with p products whose contributing rows of B span the
 * columns lo..hi (span = hi - lo + 1; B's rows are sorted, so lo and hi come from the first
 * and last entry of each selected row):
 *   one entry a_ik in row i          C's row is a_ik times row k of B (sorted and unique);
 *   p <= 32                          ESC: the products are insertion-sorted by column on the
 *                                    stack (stable) and equal columns merged; the symbolic
 *                                    pass sorts the columns alone and counts distinct ones;
 *   span <= 2^16 or span <= 16 p     dense: per-thread bitmap over B's columns plus a double
 *                                    sum per column (kept at -0.0 between rows, so every
 *                                    product is simply added: -0.0 + x == x for every x). The
 *                                    symbolic pass sets bits and pop-counts the words lo..hi;
 *                                    the numeric pass walks the set bits of lo..hi in order
 *                                    (sorted columns, no sort), writes them and their sums to
 *                                    C, and clears bits and sums;
 *   otherwise                        hash: open addressing, linear probing, a per-thread
 *                                    table of 2^k >= 2 n slots (n = min(p, span) in the
 *                                    symbolic pass, the exact nnz in the numeric one); the
 *                                    distinct columns are written to C as first seen, sorted
 *                                    (insertion sort up to 32, else quicksort) and their sums
 *                                    looked up.
 * Sums are formed in double for both precisions, in the order of A's row, then B's row, and
 * rounded once to C's type. Every structural product is kept (numerical zeros included). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_spgemm.h"

#define ESC_MAX_PRODUCTS 32
#define DENSE_SPAN_ALWAYS (1LL << 16)
#define DENSE_SPAN_FACTOR 16
#define CHUNKS_PER_THREAD 32

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Per-thread scratch. */
typedef struct {
    uint64_t *bits; /* dense accumulator: one bit per column of B, all clear between rows */
    double *dense;  /* B->cols sums, valid where the bit is set */
    int32_t *hkey;  /* hash table: column, -1 = free */
    double *hval;
    int64_t hcap;
    int64_t n_esc, n_dense, n_hash;
} row_work;

typedef struct {
    int32_t col;
    double val;
} col_val;

/* Inputs shared by every row. */
typedef struct {
    const int64_t *arp, *brp;
    const int32_t *acol32;
    const int64_t *acol64;
    const void *aval, *bval;
    const int32_t *bcol;
    int64_t bcols;
    const int64_t *prodptr;
    const int64_t *rows; /* output row j is row rows[j] of A (NULL: j) */
} spgemm_in;

static ALWAYS_INLINE int64_t a_col(const spgemm_in *in, int64_t e)
{
    return in->acol32 ? (int64_t)in->acol32[e] : in->acol64[e];
}

static ALWAYS_INLINE double val_at(const void *v, int64_t e, int f64)
{
    return f64 ? ((const double *)v)[e] : (double)((const float *)v)[e];
}

/* Sort int32 keys: insertion sort for short runs, quicksort otherwise. */
static void sort_i32(int32_t *p, int64_t n)
{
    while (n > 32) {
        int32_t a = p[0], b = p[n / 2], c = p[n - 1];
        int32_t piv = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int64_t i = 0, j = n - 1;
        while (i <= j) {
            while (p[i] < piv)
                i++;
            while (p[j] > piv)
                j--;
            if (i <= j) {
                int32_t t = p[i];
                p[i++] = p[j];
                p[j--] = t;
            }
        }
        if (j + 1 < n - i) { /* recurse on the smaller side */
            sort_i32(p, j + 1);
            p += i;
            n -= i;
        } else {
            sort_i32(p + i, n - i);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        int32_t t = p[i];
        int64_t j = i;
        while (j > 0 && p[j - 1] > t) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = t;
    }
}

/* A hash table of at least 2 n slots, cleared; its mask, or 0 when out of memory. */
static uint64_t hash_table(row_work *w, int64_t n)
{
    int64_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    if (cap > w->hcap) {
        free(w->hkey);
        free(w->hval);
        w->hkey = malloc((size_t)cap * sizeof *w->hkey);
        w->hval = malloc((size_t)cap * sizeof *w->hval);
        w->hcap = (w->hkey && w->hval) ? cap : 0;
        if (!w->hcap)
            return 0;
    }
    memset(w->hkey, 0xff, (size_t)cap * sizeof *w->hkey);
    return (uint64_t)cap - 1;
}

static ALWAYS_INLINE uint64_t hash_of(int32_t c, uint64_t mask)
{
    return ((uint64_t)(uint32_t)c * 0x9E3779B97F4A7C15ULL) >> 20 & mask;
}

/* Column span lo..hi of the rows of B that row i of A selects. */
static ALWAYS_INLINE int64_t row_span(const spgemm_in *in, int64_t i, int32_t *lo_out)
{
    int32_t lo = INT32_MAX, hi = -1;
    for (int64_t e = in->arp[i]; e < in->arp[i + 1]; e++) {
        int64_t k = a_col(in, e), f0 = in->brp[k], f1 = in->brp[k + 1];
        if (f1 > f0) {
            if (in->bcol[f0] < lo)
                lo = in->bcol[f0];
            if (in->bcol[f1 - 1] > hi)
                hi = in->bcol[f1 - 1];
        }
    }
    *lo_out = lo;
    return (int64_t)hi - lo + 1;
}

static ALWAYS_INLINE int use_dense(int64_t span, int64_t p)
{
    return span <= DENSE_SPAN_ALWAYS || span <= DENSE_SPAN_FACTOR * p;
}

/* Set the bits of the n sorted columns c[0..n) in bits; runs of columns that share a word
 * are gathered in a register (no read-modify-write chain through memory) when the columns
 * average two or more per word; otherwise each bit is set directly. */
static ALWAYS_INLINE void set_bits(uint64_t *restrict bits, const int32_t *restrict c, int64_t n)
{
    if (n <= 0)
        return;
    int64_t cw = c[0] >> 6;
    if (2 * ((c[n - 1] >> 6) - cw + 1) > n) { /* sparse run: most columns in words of their own */
        for (int64_t t = 0; t < n; t++)
            bits[c[t] >> 6] |= 1ULL << (c[t] & 63);
        return;
    }
    uint64_t acc = 0;
    for (int64_t t = 0; t < n; t++) {
        int64_t q = c[t] >> 6;
        if (q != cw) {
            bits[cw] |= acc;
            acc = 0;
            cw = q;
        }
        acc |= 1ULL << (c[t] & 63);
    }
    bits[cw] |= acc;
}

/* Symbolic: nnz of row i of A*B (p products), or -1 when out of memory. */
static int64_t row_count(row_work *w, const spgemm_in *in, int64_t i, int64_t p)
{
    const int64_t e0 = in->arp[i], e1 = in->arp[i + 1];
    if (p == 0)
        return 0;
    if (e1 - e0 == 1)
        return p;
    if (p <= ESC_MAX_PRODUCTS) {
        int32_t c[ESC_MAX_PRODUCTS];
        int64_t n = 0, u = 1;
        for (int64_t e = e0; e < e1; e++) {
            int64_t k = a_col(in, e);
            for (int64_t f = in->brp[k]; f < in->brp[k + 1]; f++)
                c[n++] = in->bcol[f];
        }
        sort_i32(c, n);
        for (int64_t j = 1; j < n; j++)
            u += c[j] != c[j - 1];
        return u;
    }
    int32_t lo;
    int64_t span = row_span(in, i, &lo), u = 0;
    if (use_dense(span, p)) {
        uint64_t *restrict bits = w->bits;
        for (int64_t e = e0; e < e1; e++) {
            int64_t k = a_col(in, e);
            set_bits(bits, in->bcol + in->brp[k], in->brp[k + 1] - in->brp[k]);
        }
        for (int64_t q = lo >> 6; q <= (lo + span - 1) >> 6; q++) {
            u += __builtin_popcountll(bits[q]);
            bits[q] = 0;
        }
        return u;
    }
    uint64_t mask = hash_table(w, p < span ? p : span);
    if (!mask)
        return -1;
    int32_t *restrict key = w->hkey;
    for (int64_t e = e0; e < e1; e++) {
        int64_t k = a_col(in, e);
        for (int64_t f = in->brp[k]; f < in->brp[k + 1]; f++) {
            int32_t c = in->bcol[f];
            uint64_t h = hash_of(c, mask);
            while (key[h] != c && key[h] != -1)
                h = (h + 1) & mask;
            if (key[h] == -1) {
                key[h] = c;
                u++;
            }
        }
    }
    return u;
}

/* Store one value of C. */
static ALWAYS_INLINE void put(void *cv, int64_t t, double v, int f64)
{
    if (f64)
        ((double *)cv)[t] = v;
    else
        ((float *)cv)[t] = (float)v;
}

/* Numeric: row i of A*B (p products) into ccol/cval, sorted and merged; nnz is at least
 * the row's count (it sizes the hash table). Returns the count, or -1 when out of memory. */
static ALWAYS_INLINE int64_t row_fill(row_work *w, const spgemm_in *in, int64_t i, int64_t p, int64_t nnz,
                                      int32_t *restrict ccol, void *restrict cval, int f64)
{
    const int64_t e0 = in->arp[i], e1 = in->arp[i + 1];
    const int32_t *restrict bcol = in->bcol;
    if (p == 0)
        return 0;
    if (e1 - e0 == 1) { /* a scaled row of B */
        int64_t k = a_col(in, e0), f0 = in->brp[k];
        double a = val_at(in->aval, e0, f64);
        for (int64_t t = 0; t < p; t++) {
            ccol[t] = bcol[f0 + t];
            put(cval, t, a * val_at(in->bval, f0 + t, f64), f64);
        }
        w->n_esc++;
        return p;
    }
    if (p <= ESC_MAX_PRODUCTS) {
        col_val r[ESC_MAX_PRODUCTS];
        int64_t n = 0;
        for (int64_t e = e0; e < e1; e++) {
            int64_t k = a_col(in, e);
            double a = val_at(in->aval, e, f64);
            for (int64_t f = in->brp[k]; f < in->brp[k + 1]; f++) {
                /* insertion by column, stable: equal columns keep the order of the products */
                col_val x = {bcol[f], a * val_at(in->bval, f, f64)};
                int64_t j = n++;
                while (j > 0 && r[j - 1].col > x.col) {
                    r[j] = r[j - 1];
                    j--;
                }
                r[j] = x;
            }
        }
        int64_t u = 0;
        double acc = r[0].val;
        for (int64_t j = 1; j < n; j++) {
            if (r[j].col == r[j - 1].col) {
                acc += r[j].val;
            } else {
                ccol[u] = r[j - 1].col;
                put(cval, u++, acc, f64);
                acc = r[j].val;
            }
        }
        ccol[u] = r[n - 1].col;
        put(cval, u, acc, f64);
        w->n_esc++;
        return u + 1;
    }
    int32_t lo;
    int64_t span = row_span(in, i, &lo);
    if (use_dense(span, p)) {
        uint64_t *restrict bits = w->bits;
        double *restrict dense = w->dense;
        int64_t u = 0;
        for (int64_t e = e0; e < e1; e++) {
            int64_t k = a_col(in, e);
            double a = val_at(in->aval, e, f64);
            const int64_t f0 = in->brp[k], f1 = in->brp[k + 1];
            for (int64_t f = f0; f < f1; f++)
                dense[bcol[f]] += a * val_at(in->bval, f, f64); /* -0.0 + x == x exactly */
            set_bits(bits, bcol + f0, f1 - f0);
        }
        /* the set bits over lo..hi, in order, are the row's sorted columns; clear them */
        for (int64_t q = lo >> 6; q <= (lo + span - 1) >> 6; q++) {
            uint64_t x = bits[q];
            if (!x)
                continue;
            bits[q] = 0;
            do {
                int32_t c = (int32_t)(q * 64 + __builtin_ctzll(x));
                ccol[u] = c;
                put(cval, u++, dense[c], f64);
                dense[c] = -0.0;
                x &= x - 1;
            } while (x);
        }
        w->n_dense++;
        return u;
    }
    uint64_t mask = hash_table(w, nnz);
    if (!mask)
        return -1;
    int32_t *restrict key = w->hkey;
    double *restrict hv = w->hval;
    int64_t u = 0;
    for (int64_t e = e0; e < e1; e++) {
        int64_t k = a_col(in, e);
        double a = val_at(in->aval, e, f64);
        for (int64_t f = in->brp[k]; f < in->brp[k + 1]; f++) {
            int32_t c = bcol[f];
            double v = a * val_at(in->bval, f, f64);
            uint64_t h = hash_of(c, mask);
            while (key[h] != c && key[h] != -1)
                h = (h + 1) & mask;
            if (key[h] == -1) {
                key[h] = c;
                hv[h] = v;
                ccol[u++] = c;
            } else {
                hv[h] += v;
            }
        }
    }
    sort_i32(ccol, u);
    for (int64_t t = 0; t < u; t++) {
        int32_t c = ccol[t];
        uint64_t h = hash_of(c, mask);
        while (key[h] != c)
            h = (h + 1) & mask;
        put(cval, t, hv[h], f64);
    }
    w->n_hash++;
    return u;
}

static ALWAYS_INLINE int64_t out_row(const spgemm_in *in, int64_t j)
{
    return in->rows ? in->rows[j] : j;
}

/* Split output rows into chunks of about equal work; chunk c is rows [cut[c], cut[c+1]).
 * Returns the chunk count. */
static int64_t make_chunks(int64_t *cut, int64_t want, const spgemm_in *in, int64_t nrows, int64_t total)
{
    int64_t n = 0, acc = 0, all = total + nrows;
    cut[0] = 0;
    for (int64_t j = 0; j < nrows; j++) {
        int64_t i = out_row(in, j);
        acc += in->prodptr[i + 1] - in->prodptr[i] + 1; /* + 1: empty rows cost too */
        if ((double)acc * (double)want >= (double)(n + 1) * (double)all || j == nrows - 1)
            cut[++n] = j + 1;
    }
    return n;
}

/* First pass over chunk c (symbolic): rowptr[j + 1] = nnz of output row j. 0, or -1 when
 * out of memory. */
static int first_pass(row_work *w, const spgemm_in *in, const int64_t *cut, int64_t c, int64_t *rowptr)
{
    for (int64_t j = cut[c]; j < cut[c + 1]; j++) {
        int64_t i = out_row(in, j);
        int64_t u = row_count(w, in, i, in->prodptr[i + 1] - in->prodptr[i]);
        if (u < 0)
            return -1;
        rowptr[j + 1] = u;
    }
    return 0;
}

/* Second pass over chunk c (numeric): its rows straight into C. 0, or -1 when out of
 * memory. */
static ALWAYS_INLINE int second_pass(row_work *w, const spgemm_in *in, const int64_t *cut, int64_t c, rvs_csr *C,
                                     int f64)
{
    size_t vs = f64 ? sizeof(double) : sizeof(float);
    for (int64_t j = cut[c]; j < cut[c + 1]; j++) {
        int64_t i = out_row(in, j), base = C->rowptr[j];
        if (row_fill(w, in, i, in->prodptr[i + 1] - in->prodptr[i], C->rowptr[j + 1] - base, C->colind + base,
                     (char *)C->values + base * vs, f64) < 0)
            return -1;
    }
    return 0;
}

/* C (nrows x cols, nnz entries of vt) with rowptr set from rowptr. */
static rvs_status alloc_c(rvs_csr *C, int64_t nrows, int64_t cols, int64_t nnz, rvs_vtype vt, const int64_t *rowptr,
                          rvs_error *err)
{
    rvs_status st = rvs_csr_alloc(C, nrows, cols, 0, vt, err);
    if (st == RVS_OK)
        st = rvs_spgemm_alloc_entries(C, nnz, err);
    if (st != RVS_OK) {
        rvs_csr_free(C);
        return st;
    }
    memcpy(C->rowptr, rowptr, (size_t)(nrows + 1) * sizeof *rowptr);
    return RVS_OK;
}

/* C = A(rows,:)*B on the CPU. */
rvs_status rvs_spgemm_cpu_rows(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const int64_t *rows, int64_t nrows,
                               rvs_spgemm_stats *stats, rvs_error *err)
{
    int64_t *prodptr = NULL, *rowptr = NULL, *cut = NULL, nch = 0, total = 0, nnz = 0;
    int nthreads = omp_get_max_threads(), failed = 0;
    int64_t n_esc = 0, n_dense = 0, n_hash = 0;
    double t0 = omp_get_wtime(), t1 = t0, t2 = t0, t3 = t0;
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    memset(C, 0, sizeof *C);
    if (st != RVS_OK)
        return st;
    if (!rows)
        nrows = A->rows;
    prodptr = malloc((size_t)(A->rows + 1) * sizeof *prodptr);
    rowptr = malloc((size_t)(nrows + 1) * sizeof *rowptr);
    cut = malloc((size_t)(CHUNKS_PER_THREAD * nthreads + 2) * sizeof *cut);
    if (!prodptr || !rowptr || !cut) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory in the CPU SpGEMM");
        goto done;
    }
    if ((st = rvs_spgemm_row_products(prodptr, A, B, err)) != RVS_OK)
        goto done;
    spgemm_in in = {A->rowptr, B->rowptr, A->colind, A->colind64, A->values,
                    B->values, B->colind, B->cols,   prodptr,     rows};
    for (int64_t j = 0; j < nrows; j++) {
        int64_t i = out_row(&in, j);
        total += prodptr[i + 1] - prodptr[i];
    }
    nch = nrows ? make_chunks(cut, CHUNKS_PER_THREAD * nthreads, &in, nrows, total) : 0;
    const int f64 = A->vtype == RVS_F64;

#pragma omp parallel reduction(+ : n_esc, n_dense, n_hash)
    {
        row_work w;
        memset(&w, 0, sizeof w);
        if (total > 0 && B->cols > 0) {
            w.bits = calloc((size_t)(B->cols + 63) / 64, sizeof *w.bits);
            w.dense = malloc((size_t)B->cols * sizeof *w.dense);
            if (w.dense)
                for (int64_t c = 0; c < B->cols; c++)
                    w.dense[c] = -0.0; /* the sums' neutral start (IEEE: -0.0 + x == x) */
            if (!w.bits || !w.dense) {
#pragma omp atomic write
                failed = 1;
            }
        }
#pragma omp barrier
        /* first pass: rowptr[j + 1] = nnz of output row j */
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < nch; c++) {
            int bad;
#pragma omp atomic read
            bad = failed;
            if (!bad && first_pass(&w, &in, cut, c, rowptr) < 0) {
#pragma omp atomic write
                failed = 1;
            }
        }
#pragma omp single
        {
            t1 = omp_get_wtime();
            if (!failed) {
                rowptr[0] = 0;
                for (int64_t j = 0; j < nrows; j++)
                    rowptr[j + 1] += rowptr[j];
                nnz = rowptr[nrows];
                if ((st = alloc_c(C, nrows, B->cols, nnz, A->vtype, rowptr, err)) != RVS_OK)
                    failed = 2;
            }
            t2 = omp_get_wtime();
        }
        /* second pass: every row straight into C */
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < nch; c++) {
            int bad;
#pragma omp atomic read
            bad = failed;
            if (!bad && (f64 ? second_pass(&w, &in, cut, c, C, 1) : second_pass(&w, &in, cut, c, C, 0)) < 0) {
#pragma omp atomic write
                failed = 1;
            }
        }
        n_esc += w.n_esc;
        n_dense += w.n_dense;
        n_hash += w.n_hash;
        free(w.bits);
        free(w.dense);
        free(w.hkey);
        free(w.hval);
    }
    t3 = omp_get_wtime();
    if (failed) {
        rvs_csr_free(C);
        if (failed == 1)
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory in the CPU SpGEMM");
        goto done;
    }
    if (stats) {
        stats->products += total;
        stats->nnz_c += nnz;
        stats->cpu_rows += nrows;
        stats->rows_esc += n_esc;
        stats->rows_dense += n_dense;
        stats->rows_hash += n_hash;
        stats->t_pre += t1 - t0;
        stats->t_compress += t2 - t1;
        stats->t_multiply += t3 - t2;
    }
done:
    free(cut);
    free(prodptr);
    free(rowptr);
    return st;
}

/* rvs_spgemm_cpu for rvs_spgemm_complex. */
static rvs_status cpu_real(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, void *ctx, rvs_spgemm_stats *stats,
                           rvs_error *err)
{
    (void)ctx;
    return rvs_spgemm_cpu(C, A, B, stats, err);
}

double rvs_spgemm_stage_sum(const rvs_spgemm_stats *s)
{
    return s->t_setup + s->t_pre + s->t_transfer + s->t_multiply + s->t_compress;
}

/* C = A*B on the CPU. */
rvs_status rvs_spgemm_cpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *stats, rvs_error *err)
{
    if (rvs_vtype_is_complex(A->vtype) && A->vtype == B->vtype)
        return rvs_spgemm_complex(C, A, B, cpu_real, NULL, stats, err);
    double t0 = omp_get_wtime();
    if (stats)
        memset(stats, 0, sizeof *stats);
    rvs_status st = rvs_spgemm_cpu_rows(C, A, B, NULL, 0, stats, err);
    if (stats) { /* the numeric pass's arrays freed close its stage */
        stats->t_total = omp_get_wtime() - t0;
        stats->t_multiply += stats->t_total - rvs_spgemm_stage_sum(stats);
    }
    return st;
}
