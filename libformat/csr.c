/* csr.c - the CSR hub: allocation, validation, building from triplets, reference SpMV */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_csr.h"

/* Bytes per value of type t. */
size_t rvs_vtype_size(rvs_vtype t)
{
    return t == RVS_F32 ? 4 : 8;
}

/* n * size in *out, or 0 when it overflows (or n < 0). */
static int mul_size(int64_t n, size_t size, size_t *out)
{
    if (n < 0 || (size && (uint64_t)n > SIZE_MAX / size))
        return 0;
    *out = (size_t)n * size;
    return 1;
}

/* Allocate an uninitialised CSR with room for nnz entries. */
rvs_status rvs_csr_alloc(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, rvs_vtype vt,
                         rvs_error *err)
{
    size_t bp, bc, bv;
    memset(A, 0, sizeof *A);
    if (rows < 0 || cols < 0 || nnz < 0 || rows == INT64_MAX)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "negative or too large matrix size");
    int wide = cols > RVS_COL32_MAX;
    if (!mul_size(rows + 1, sizeof(int64_t), &bp) || !mul_size(nnz, wide ? 8 : 4, &bc) ||
        !mul_size(nnz, rvs_vtype_size(vt), &bv))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "matrix of %lld rows and %lld entries is too large",
                        (long long)rows, (long long)nnz);
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    A->vtype = vt;
    A->rowptr = calloc(1, bp);
    if (wide)
        A->colind64 = malloc(bc ? bc : 1);
    else
        A->colind = malloc(bc ? bc : 1);
    A->values = malloc(bv ? bv : 1);
    if (!A->rowptr || (!A->colind && !A->colind64) || !A->values) {
        rvs_csr_free(A);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a %lld x %lld matrix with %lld entries",
                        (long long)rows, (long long)cols, (long long)nnz);
    }
    return RVS_OK;
}

/* Free A's arrays and zero it. */
void rvs_csr_free(rvs_csr *A)
{
    if (!A)
        return;
    free(A->rowptr);
    free(A->colind);
    free(A->colind64);
    free(A->values);
    memset(A, 0, sizeof *A);
}

/* dst = deep copy of src. */
rvs_status rvs_csr_copy(rvs_csr *dst, const rvs_csr *src, rvs_error *err)
{
    rvs_status st = rvs_csr_alloc(dst, src->rows, src->cols, src->nnz, src->vtype, err);
    if (st != RVS_OK)
        return st;
    memcpy(dst->rowptr, src->rowptr, (size_t)(src->rows + 1) * sizeof(int64_t));
    if (src->colind)
        memcpy(dst->colind, src->colind, (size_t)src->nnz * sizeof(int32_t));
    else
        memcpy(dst->colind64, src->colind64, (size_t)src->nnz * sizeof(int64_t));
    memcpy(dst->values, src->values, (size_t)src->nnz * rvs_vtype_size(src->vtype));
    return RVS_OK;
}

/* Check rowptr monotone 0..nnz and columns in range, sorted and unique per row. */
rvs_status rvs_csr_validate(const rvs_csr *A, rvs_error *err)
{
    if (A->rows < 0 || A->cols < 0 || A->nnz < 0 || !A->rowptr)
        return rvs_fail(err, RVS_ERR_FORMAT, "negative matrix size");
    if ((A->cols > RVS_COL32_MAX) != (A->colind64 != NULL) || (!A->colind && !A->colind64))
        return rvs_fail(err, RVS_ERR_FORMAT, "column index width does not fit %lld columns",
                        (long long)A->cols);
    if (A->rowptr[0] != 0 || A->rowptr[A->rows] != A->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "row pointers run from %lld to %lld, want 0 to nnz %lld",
                        (long long)A->rowptr[0], (long long)A->rowptr[A->rows], (long long)A->nnz);
    int64_t bad_row = -1;
    rvs_status bad = RVS_OK;
#pragma omp parallel for schedule(static, 4096)
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
        rvs_status s = RVS_OK;
        if (hi < lo || lo < 0 || hi > A->nnz)
            s = RVS_ERR_FORMAT;
        else
            for (int64_t p = lo; p < hi && s == RVS_OK; p++) {
                int64_t c = rvs_csr_col(A, p);
                if (c < 0 || c >= A->cols)
                    s = RVS_ERR_RANGE;
                else if (p > lo && c <= rvs_csr_col(A, p - 1))
                    s = RVS_ERR_FORMAT;
            }
        if (s != RVS_OK) {
#pragma omp critical(rvs_csr_validate)
            if (bad_row < 0 || i < bad_row) {
                bad_row = i;
                bad = s;
            }
        }
    }
    if (bad_row >= 0)
        return rvs_fail(err, bad, bad == RVS_ERR_RANGE ? "row %lld: column index out of range 0..%lld"
                                                       : "row %lld: row pointers or column order invalid (cols %lld)",
                        (long long)bad_row, (long long)A->cols - 1);
    return RVS_OK;
}

/* Convert values to vt in place. */
rvs_status rvs_csr_convert_values(rvs_csr *A, rvs_vtype vt, rvs_error *err)
{
    if (A->vtype == vt)
        return RVS_OK;
    void *nv = malloc(A->nnz ? (size_t)A->nnz * rvs_vtype_size(vt) : 1);
    if (!nv)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory converting values");
    if (vt == RVS_F32) {
        const double *s = A->values;
        float *d = nv;
#pragma omp parallel for
        for (int64_t i = 0; i < A->nnz; i++)
            d[i] = (float)s[i];
    } else {
        const float *s = A->values;
        double *d = nv;
#pragma omp parallel for
        for (int64_t i = 0; i < A->nnz; i++)
            d[i] = s[i];
    }
    free(A->values);
    A->values = nv;
    A->vtype = vt;
    return RVS_OK;
}

/* Stable sort of (col, val) pairs by col: insertion sort for short runs, merge sort above. */
static void sort_row(int64_t *c, double *v, int64_t n, int64_t *tc, double *tv)
{
    if (n < 32) {
        for (int64_t i = 1; i < n; i++) {
            int64_t kc = c[i];
            double kv = v[i];
            int64_t j = i - 1;
            while (j >= 0 && c[j] > kc) {
                c[j + 1] = c[j];
                v[j + 1] = v[j];
                j--;
            }
            c[j + 1] = kc;
            v[j + 1] = kv;
        }
        return;
    }
    int64_t h = n / 2;
    sort_row(c, v, h, tc, tv);
    sort_row(c + h, v + h, n - h, tc, tv);
    if (c[h - 1] <= c[h])
        return;
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (c[j] < c[i]) { tc[k] = c[j]; tv[k++] = v[j++]; }
        else { tc[k] = c[i]; tv[k++] = v[i++]; }
    }
    while (i < h) { tc[k] = c[i]; tv[k++] = v[i++]; }
    while (j < n) { tc[k] = c[j]; tv[k++] = v[j++]; }
    memcpy(c, tc, (size_t)n * sizeof *c);
    memcpy(v, tv, (size_t)n * sizeof *v);
}

/* Scatter triplets into row order (stable: input order kept within a row). cnt gets the
 * row starts. Parallel over input chunks with per-thread row offsets when memory allows. */
static rvs_status scatter_rows(int64_t rows, int64_t nnz, const int64_t *ri, const int64_t *ci,
                               const double *vals, int64_t *start, int64_t *sc, double *sv)
{
    int T = omp_get_max_threads();
    if (T > 1 && nnz > 1000000 && (uint64_t)rows * (uint64_t)T < (uint64_t)nnz) {
        int64_t *off = calloc((size_t)T * (size_t)(rows + 1), sizeof *off);
        if (off) {
#pragma omp parallel num_threads(T)
            {
                int t = omp_get_thread_num();
                int64_t lo = nnz * t / T, hi = nnz * (t + 1) / T;
                int64_t *my = off + (size_t)t * (size_t)(rows + 1);
                for (int64_t p = lo; p < hi; p++)
                    my[ri[p]]++;
#pragma omp barrier
#pragma omp single
                {
                    int64_t run = 0;
                    for (int64_t r = 0; r < rows; r++) {
                        start[r] = run;
                        for (int u = 0; u < T; u++) {
                            int64_t c = off[(size_t)u * (size_t)(rows + 1) + r];
                            off[(size_t)u * (size_t)(rows + 1) + r] = run;
                            run += c;
                        }
                    }
                    start[rows] = run;
                }
                for (int64_t p = lo; p < hi; p++) {
                    int64_t q = my[ri[p]]++;
                    sc[q] = ci[p];
                    sv[q] = vals ? vals[p] : 1.0;
                }
            }
            free(off);
            return RVS_OK;
        }
    }
    memset(start, 0, (size_t)(rows + 1) * sizeof *start);
    for (int64_t p = 0; p < nnz; p++)
        start[ri[p] + 1]++;
    for (int64_t r = 0; r < rows; r++)
        start[r + 1] += start[r];
    int64_t *pos = malloc((size_t)(rows + 1) * sizeof *pos);
    if (!pos)
        return RVS_ERR_NOMEM;
    memcpy(pos, start, (size_t)(rows + 1) * sizeof *pos);
    for (int64_t p = 0; p < nnz; p++) {
        int64_t q = pos[ri[p]]++;
        sc[q] = ci[p];
        sv[q] = vals ? vals[p] : 1.0;
    }
    free(pos);
    return RVS_OK;
}

/* Build CSR from 0-based triplets: stable row scatter, per-row sort, duplicates summed. */
rvs_status rvs_csr_from_coo(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz,
                            const int64_t *ri, const int64_t *ci, const double *vals,
                            rvs_vtype vt, rvs_error *err)
{
    rvs_status st = RVS_OK;
    int64_t *start = NULL, *sc = NULL, *uniq = NULL;
    double *sv = NULL;
    int64_t bad = -1;
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
    start = malloc((size_t)(rows + 1) * sizeof *start);
    uniq = malloc((size_t)(rows + 1) * sizeof *uniq);
    sc = malloc((size_t)(nnz ? nnz : 1) * sizeof *sc);
    sv = malloc((size_t)(nnz ? nnz : 1) * sizeof *sv);
    if (!start || !uniq || !sc || !sv) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory building CSR of %lld entries", (long long)nnz);
        goto done;
    }
    if (scatter_rows(rows, nnz, ri, ci, vals, start, sc, sv) != RVS_OK) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory building CSR");
        goto done;
    }
    /* sort each row, count unique columns; a thread's buffers fit its longest row (all of them
     * together at most 16 bytes an entry, as the memory claim of mm_read.c counts) */
    int nomem = 0;
#pragma omp parallel
    {
        int64_t cap = 0, *tc = NULL;
        double *tv = NULL;
#pragma omp for schedule(dynamic, 1024)
        for (int64_t r = 0; r < rows; r++) {
            int64_t lo = start[r], n = start[r + 1] - lo;
            if (n > cap && n > 1) {
                free(tc);
                free(tv);
                cap = n;
                tc = malloc((size_t)cap * sizeof *tc);
                tv = malloc((size_t)cap * sizeof *tv);
                if (!tc || !tv) {
#pragma omp atomic write
                    nomem = 1;
                    cap = 0;
                }
            }
            if (n > 1 && tc && tv && n <= cap)
                sort_row(sc + lo, sv + lo, n, tc, tv);
            int64_t u = 0;
            for (int64_t p = lo; p < lo + n; p++)
                if (p == lo || sc[p] != sc[p - 1])
                    u++;
            uniq[r] = u;
        }
        free(tc);
        free(tv);
    }
    if (nomem) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory sorting the rows of the CSR");
        goto done;
    }
    int64_t total = 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t u = uniq[r];
        uniq[r] = total;
        total += u;
    }
    st = rvs_csr_alloc(A, rows, cols, total, vt, err);
    if (st != RVS_OK)
        goto done;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t r = 0; r < rows; r++) {
        int64_t q = uniq[r] - 1;
        for (int64_t p = start[r]; p < start[r + 1]; p++) {
            if (p == start[r] || sc[p] != sc[p - 1]) {
                q++;
                if (A->colind)
                    A->colind[q] = (int32_t)sc[p];
                else
                    A->colind64[q] = sc[p];
                if (vt == RVS_F64)
                    ((double *)A->values)[q] = sv[p];
                else
                    ((float *)A->values)[q] = (float)sv[p];
            } else if (vt == RVS_F64) {
                ((double *)A->values)[q] += sv[p];
            } else {
                ((float *)A->values)[q] = (float)((double)((float *)A->values)[q] + sv[p]);
            }
        }
    }
    for (int64_t r = 0; r < rows; r++)
        A->rowptr[r] = uniq[r];
    A->rowptr[rows] = total;
done:
    free(start);
    free(uniq);
    free(sc);
    free(sv);
    return st;
}

/* y = A*x + beta*y in double precision, serial. */
void rvs_csr_spmv_ref(const rvs_csr *A, const double *x, double beta, double *y)
{
    for (int64_t i = 0; i < A->rows; i++) {
        double s = 0.0;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            s += rvs_csr_value(A, p) * x[rvs_csr_col(A, p)];
        y[i] = (beta == 0.0 ? 0.0 : beta * y[i]) + s;
    }
}

/* At = A^T with sorted rows (counting sort over columns). */
rvs_status rvs_csr_transpose(rvs_csr *At, const rvs_csr *A, rvs_error *err)
{
    rvs_status st = rvs_csr_alloc(At, A->cols, A->rows, A->nnz, A->vtype, err);
    if (st != RVS_OK)
        return st;
    int64_t *pos = calloc((size_t)A->cols + 1, sizeof *pos);
    if (!pos) {
        rvs_csr_free(At);
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory transposing");
    }
    for (int64_t p = 0; p < A->nnz; p++)
        At->rowptr[rvs_csr_col(A, p) + 1]++;
    for (int64_t c = 0; c < A->cols; c++)
        At->rowptr[c + 1] += At->rowptr[c];
    memcpy(pos, At->rowptr, (size_t)A->cols * sizeof *pos);
    size_t vs = rvs_vtype_size(A->vtype);
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            int64_t q = pos[rvs_csr_col(A, p)]++;
            if (At->colind)
                At->colind[q] = (int32_t)i;
            else
                At->colind64[q] = i;
            memcpy((char *)At->values + (size_t)q * vs, (const char *)A->values + (size_t)p * vs, vs);
        }
    free(pos);
    return RVS_OK;
}

/* Whether entry (row r, col c) passes the block filter. */
static int keep_entry(int filter, int64_t block, int64_t r, int64_t c)
{
    if (filter == 0)
        return 1;
    int inside = (r / block) == (c / block);
    return filter == 1 ? inside : !inside;
}

/* S = the listed rows of A, in that order, entries filtered by diagonal blocks. */
rvs_status rvs_csr_extract_rows(rvs_csr *S, const rvs_csr *A, const int64_t *rows, int64_t nrows,
                                int filter, int64_t block, rvs_error *err)
{
    int64_t *len = malloc((size_t)(nrows + 1) * sizeof *len);
    if (!len)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory extracting rows");
    if (block <= 0)
        block = 32;
    for (int64_t i = 0; i < nrows; i++)
        if (rows[i] < 0 || rows[i] >= A->rows) {
            free(len);
            memset(S, 0, sizeof *S);
            return rvs_fail(err, RVS_ERR_RANGE, "row %lld out of range", (long long)rows[i]);
        }
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < nrows; i++) {
        int64_t r = rows[i], n = 0;
        for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
            n += keep_entry(filter, block, r, rvs_csr_col(A, p));
        len[i] = n;
    }
    int64_t total = 0;
    for (int64_t i = 0; i < nrows; i++) {
        int64_t n = len[i];
        len[i] = total;
        total += n;
    }
    len[nrows] = total;
    rvs_status st = rvs_csr_alloc(S, nrows, A->cols, total, A->vtype, err);
    if (st != RVS_OK) {
        free(len);
        return st;
    }
    memcpy(S->rowptr, len, (size_t)(nrows + 1) * sizeof *len);
    size_t vs = rvs_vtype_size(A->vtype);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < nrows; i++) {
        int64_t r = rows[i], q = len[i];
        for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++) {
            int64_t c = rvs_csr_col(A, p);
            if (!keep_entry(filter, block, r, c))
                continue;
            if (S->colind)
                S->colind[q] = (int32_t)c;
            else
                S->colind64[q] = c;
            memcpy((char *)S->values + (size_t)q * vs, (const char *)A->values + (size_t)p * vs, vs);
            q++;
        }
    }
    free(len);
    return RVS_OK;
}
