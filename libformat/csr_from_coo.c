/* csr_from_coo.c - CSR built from coordinate triplets in place: scatter into the final arrays,
 * sort and merge each row where it lies, shrink once */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_csr.h"

/* Stable sort of (col, val) pairs by col: insertion for short runs, merge sort above, with
 * scratch tc/tv of n entries. One copy per column width. */
#define DEFINE_SORT_ROW(NAME, COL)                                                             \
    static void NAME(COL *c, double *v, int64_t n, COL *tc, double *tv)                        \
    {                                                                                          \
        if (n < 32) {                                                                          \
            for (int64_t i = 1; i < n; i++) {                                                  \
                COL kc = c[i];                                                                 \
                double kv = v[i];                                                              \
                int64_t j = i - 1;                                                             \
                for (; j >= 0 && c[j] > kc; j--) {                                             \
                    c[j + 1] = c[j];                                                           \
                    v[j + 1] = v[j];                                                           \
                }                                                                              \
                c[j + 1] = kc;                                                                 \
                v[j + 1] = kv;                                                                 \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        int64_t h = n / 2, i = 0, j = h, k = 0;                                                \
        NAME(c, v, h, tc, tv);                                                                 \
        NAME(c + h, v + h, n - h, tc, tv);                                                     \
        if (c[h - 1] <= c[h])                                                                  \
            return;                                                                            \
        while (i < h && j < n) {                                                               \
            int from_right = c[j] < c[i];                                                      \
            tc[k] = from_right ? c[j] : c[i];                                                  \
            tv[k++] = from_right ? v[j++] : v[i++];                                            \
        }                                                                                      \
        for (; i < h; k++, i++) {                                                              \
            tc[k] = c[i];                                                                      \
            tv[k] = v[i];                                                                      \
        }                                                                                      \
        for (; j < n; k++, j++) {                                                              \
            tc[k] = c[j];                                                                      \
            tv[k] = v[j];                                                                      \
        }                                                                                      \
        memcpy(c, tc, (size_t)n * sizeof *c);                                                  \
        memcpy(v, tv, (size_t)n * sizeof *v);                                                  \
    }
DEFINE_SORT_ROW(sort_row32, int32_t)
DEFINE_SORT_ROW(sort_row64, int64_t)

/* Sort row [lo, lo + n) of A (columns 32 or 64 bit, values as double in v) and sum equal
 * columns into the first of them; returns the entries left, packed at lo, or -1 when the
 * scratch (grown to the longest row seen) cannot be had. */
static int64_t sort_merge_row(rvs_csr *A, double *v, int64_t lo, int64_t n, void **tc, double **tv,
                              int64_t *cap)
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
#define MERGE_ROW(COL, FIRST, SORT)                                                             \
    do {                                                                                       \
        COL *C = FIRST;                                                                        \
        if (n > 1)                                                                             \
            SORT(C, v + lo, n, *tc, *tv);                                                      \
        for (int64_t p = 0; p < n; p++)                                                        \
            if (u > 0 && C[u - 1] == C[p]) {                                                   \
                v[lo + u - 1] += v[lo + p];                                                    \
            } else {                                                                           \
                C[u] = C[p];                                                                   \
                v[lo + u++] = v[lo + p];                                                       \
            }                                                                                  \
    } while (0)
    if (A->colind)
        MERGE_ROW(int32_t, A->colind + lo, sort_row32);
    else
        MERGE_ROW(int64_t, A->colind64 + lo, sort_row64);
#undef MERGE_ROW
    return u;
}

/* rowptr = row starts of the triplets, then each triplet placed at its row's next free slot
 * (input order kept within a row). Per-thread cursors when that costs less than the entries. */
static void scatter(rvs_csr *A, double *v, int64_t nnz, const int64_t *ri, const int64_t *ci,
                    const double *vals)
{
    const int64_t rows = A->rows;
    int64_t *rp = A->rowptr;
    int T = omp_get_max_threads();
    int64_t *cur = NULL;
    if (T > 1 && nnz > 1000000 && (uint64_t)rows * (uint64_t)T < (uint64_t)nnz / 4)
        cur = calloc((size_t)T * (size_t)(rows + 1), sizeof *cur);
    if (!cur) {
        memset(rp, 0, (size_t)(rows + 1) * sizeof *rp);
        for (int64_t p = 0; p < nnz; p++)
            rp[ri[p] + 1]++;
        for (int64_t r = 0; r < rows; r++)
            rp[r + 1] += rp[r];
        for (int64_t p = 0; p < nnz; p++) {   /* rp[r] walks to the start of row r + 1 */
            int64_t q = rp[ri[p]]++;
            if (A->colind)
                A->colind[q] = (int32_t)ci[p];
            else
                A->colind64[q] = ci[p];
            v[q] = vals ? vals[p] : 1.0;
        }
        memmove(rp + 1, rp, (size_t)rows * sizeof *rp);
        rp[0] = 0;
        return;
    }
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num();
        const int64_t lo = nnz * t / T, hi = nnz * (t + 1) / T;
        int64_t *my = cur + (size_t)t * (size_t)(rows + 1);
        for (int64_t p = lo; p < hi; p++)
            my[ri[p]]++;
#pragma omp barrier
#pragma omp single
        {
            int64_t run = 0;
            for (int64_t r = 0; r < rows; r++) {
                rp[r] = run;
                for (int u = 0; u < T; u++) {
                    int64_t c = cur[(size_t)u * (size_t)(rows + 1) + r];
                    cur[(size_t)u * (size_t)(rows + 1) + r] = run;
                    run += c;
                }
            }
            rp[rows] = run;
        }
        for (int64_t p = lo; p < hi; p++) {
            int64_t q = my[ri[p]]++;
            if (A->colind)
                A->colind[q] = (int32_t)ci[p];
            else
                A->colind64[q] = ci[p];
            v[q] = vals ? vals[p] : 1.0;
        }
    }
    free(cur);
}

/* Sort and merge every row in place; then close the gaps duplicates left (rare: only then
 * does anything move) and set nnz. uniq is scratch of rows + 1 entries. */
static rvs_status sort_merge_rows(rvs_csr *A, double *v, int64_t *uniq, rvs_error *err)
{
    const int64_t rows = A->rows;
    int64_t *rp = A->rowptr, moved = 0, failed = 0;
#pragma omp parallel
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

/* Build CSR from 0-based triplets in place (see rvs_csr.h). */
rvs_status rvs_csr_from_coo(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz,
                            const int64_t *ri, const int64_t *ci, const double *vals,
                            rvs_vtype vt, rvs_error *err)
{
    int64_t bad = -1, *uniq = NULL;
    double *v = NULL;
    memset(A, 0, sizeof *A);
    if (rows < 0 || cols < 0 || nnz < 0 || rows == INT64_MAX)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "negative or too large matrix size");
#pragma omp parallel for reduction(max : bad)
    for (int64_t p = 0; p < nnz; p++)
        if (ri[p] < 0 || ri[p] >= rows || ci[p] < 0 || ci[p] >= cols)
            bad = bad > p ? bad : p;
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE, "entry %lld: (%lld, %lld) outside a %lld x %lld matrix",
                        (long long)bad + 1, (long long)ri[bad] + 1, (long long)ci[bad] + 1,
                        (long long)rows, (long long)cols);
    /* Entries go straight into A's arrays; f32 values are summed in double in a scratch
     * array first, so duplicates round once. */
    rvs_status st = rvs_csr_alloc(A, rows, cols, nnz, RVS_F64, err);
    if (st != RVS_OK)
        return st;
    uniq = malloc((size_t)(rows + 1) * sizeof *uniq);
    if (!uniq) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory building CSR of %lld rows", (long long)rows);
        goto done;
    }
    v = A->values;
    scatter(A, v, nnz, ri, ci, vals);
    if ((st = sort_merge_rows(A, v, uniq, err)) != RVS_OK)
        goto done;
    if (vt == RVS_F32) {
        float *f = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *f);
        if (!f) {
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld values", (long long)A->nnz);
            goto done;
        }
#pragma omp parallel for schedule(static)
        for (int64_t p = 0; p < A->nnz; p++)
            f[p] = (float)v[p];
        free(A->values);
        A->values = f;
        A->vtype = RVS_F32;
    } else if (A->nnz < nnz) {   /* shrink to what the duplicates left (keeps the old block if not) */
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
    free(uniq);
    if (st != RVS_OK)
        rvs_csr_free(A);
    return st;
}
