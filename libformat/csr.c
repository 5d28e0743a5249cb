/* csr.c - the CSR hub: allocation, copies, validation, transpose, row extraction, reference SpMV */
#include <stdlib.h>
#include <string.h>
#include "rvs_csr.h"
#include "rvs_omp.h"

/* Bytes per value of type t. */
size_t rvs_vtype_size(rvs_vtype t)
{
    switch (t) {
    case RVS_F32: return 4;
    case RVS_F64:
    case RVS_C64: return 8;
    case RVS_C128: return 16;
    }
    return 0;
}

/* Name of value type t. */
const char *rvs_vtype_name(rvs_vtype t)
{
    switch (t) {
    case RVS_F32: return "f32";
    case RVS_F64: return "f64";
    case RVS_C64: return "c64";
    case RVS_C128: return "c128";
    }
    return "?";
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
rvs_status rvs_csr_alloc(rvs_csr *A, int64_t rows, int64_t cols, int64_t nnz, rvs_vtype vt, rvs_error *err)
{
    size_t bp, bc, bv;
    memset(A, 0, sizeof *A);
    if (rows < 0 || cols < 0 || nnz < 0 || rows == INT64_MAX)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "negative or too large matrix size");
    int wide = cols > RVS_COL32_MAX;
    if (!mul_size(rows + 1, sizeof(int64_t), &bp) || !mul_size(nnz, wide ? 8 : 4, &bc) ||
        !mul_size(nnz, rvs_vtype_size(vt), &bv))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "matrix of %lld rows and %lld entries is too large", (long long)rows,
                        (long long)nnz);
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
        return rvs_fail(err, RVS_ERR_FORMAT, "column index width does not fit %lld columns", (long long)A->cols);
    if (A->rowptr[0] != 0 || A->rowptr[A->rows] != A->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "row pointers run from %lld to %lld, want 0 to nnz %lld",
                        (long long)A->rowptr[0], (long long)A->rowptr[A->rows], (long long)A->nnz);
    int64_t bad_row = -1;
    rvs_status bad = RVS_OK;
#pragma omp parallel for schedule(static, 4096) if (A->rows + A->nnz > RVS_OMP_MIN_WORK)
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
    if (bad_row >= 0 && bad == RVS_ERR_RANGE) { /* rows from 1, the stored column as stored (0-based) */
        int64_t c = 0;
        for (int64_t p = A->rowptr[bad_row]; p < A->rowptr[bad_row + 1] && c >= 0 && c < A->cols; p++)
            c = rvs_csr_col(A, p);
        return rvs_fail(err, bad, "row %lld: column index %lld out of range 0..%lld", (long long)bad_row + 1,
                        (long long)c, (long long)A->cols - 1);
    }
    if (bad_row >= 0)
        return rvs_fail(err, bad, "row %lld: row pointers or column order invalid (cols %lld)",
                        (long long)bad_row + 1, (long long)A->cols);
    return RVS_OK;
}

/* Component k of value i of a vtype-typed array, as double. */
static inline double component(const void *v, rvs_vtype vt, int64_t i, int k)
{
    const int n = rvs_vtype_is_complex(vt) ? 2 : 1;
    return rvs_vtype_real(vt) == RVS_F64 ? ((const double *)v)[n * i + k] : ((const float *)v)[n * i + k];
}

/* Values [lo, hi) of from as vt, into out (value lo at out[0]). */
static void convert_range(void *out, const void *in, rvs_vtype from, rvs_vtype vt, int64_t lo, int64_t hi)
{
    const int nin = rvs_vtype_is_complex(from) ? 2 : 1, nout = rvs_vtype_is_complex(vt) ? 2 : 1;
    const int single = rvs_vtype_real(vt) == RVS_F32;
#pragma omp parallel for if (hi - lo > RVS_OMP_MIN_WORK)
    for (int64_t i = lo; i < hi; i++)
        for (int k = 0; k < nout; k++) {
            const double v = k < nin ? component(in, from, i, k) : 0.0;
            if (single)
                ((float *)out)[nout * (i - lo) + k] = (float)v;
            else
                ((double *)out)[nout * (i - lo) + k] = v;
        }
}

#define CONVERT_CHUNK ((int64_t)1 << 22) /* values a narrowing pass converts through its buffer */

/* Convert values to vt in place: precision either way, real to complex (imaginary parts 0);
 * complex to real is refused, since it would drop the imaginary parts. A conversion to values
 * no wider (f64 to f32, c128 to c64, f64 to c64) overwrites the array itself, chunk by chunk
 * in order through a buffer of CONVERT_CHUNK values, and shrinks it: a chunk's values land at
 * or before where they were read, over values already converted or in the chunk itself, so
 * no second array of all the values stands beside the first (8.8 GB on the 2.2e9-entry
 * stencil in f32). */
rvs_status rvs_csr_convert_values(rvs_csr *A, rvs_vtype vt, rvs_error *err)
{
    if (A->vtype == vt)
        return RVS_OK;
    if (!rvs_vtype_valid(vt))
        return rvs_fail(err, RVS_ERR_ARG, "value type %d does not exist", (int)vt);
    if (rvs_vtype_is_complex(A->vtype) && !rvs_vtype_is_complex(vt))
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "complex values cannot become %s (the imaginary parts would be lost)", rvs_vtype_name(vt));
    const size_t ws = rvs_vtype_size(vt), rs = rvs_vtype_size(A->vtype);
    if (ws > rs || A->nnz <= CONVERT_CHUNK || !A->values) {
        void *nv = malloc(A->nnz ? (size_t)A->nnz * ws : 1);
        if (!nv)
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory converting values");
        convert_range(nv, A->values, A->vtype, vt, 0, A->nnz);
        free(A->values);
        A->values = nv;
        A->vtype = vt;
        return RVS_OK;
    }
    char *buf = malloc((size_t)CONVERT_CHUNK * ws);
    if (!buf)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory converting values");
    for (int64_t lo = 0; lo < A->nnz; lo += CONVERT_CHUNK) {
        const int64_t hi = A->nnz - lo < CONVERT_CHUNK ? A->nnz : lo + CONVERT_CHUNK;
        convert_range(buf, A->values, A->vtype, vt, lo, hi);
        memcpy((char *)A->values + (size_t)lo * ws, buf, (size_t)(hi - lo) * ws);
    }
    free(buf);
    void *shrunk = realloc(A->values, (size_t)A->nnz * ws); /* the tail goes back */
    if (shrunk)
        A->values = shrunk;
    A->vtype = vt;
    return RVS_OK;
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

/* V = rows [lo, hi) of A, entries borrowed. */
rvs_status rvs_csr_view_rows(rvs_csr *V, const rvs_csr *A, int64_t lo, int64_t hi, rvs_error *err)
{
    memset(V, 0, sizeof *V);
    if (lo < 0 || hi < lo || hi > A->rows)
        return rvs_fail(err, RVS_ERR_ARG, "rows %lld..%lld outside a matrix of %lld rows", (long long)lo,
                        (long long)hi, (long long)A->rows);
    const int64_t first = A->rowptr[lo], n = hi - lo;
    V->rowptr = malloc((size_t)(n + 1) * sizeof *V->rowptr);
    if (!V->rowptr)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld row pointers", (long long)n + 1);
#pragma omp parallel for schedule(static) if (n > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i <= n; i++)
        V->rowptr[i] = A->rowptr[lo + i] - first;
    V->rows = n;
    V->cols = A->cols;
    V->nnz = A->rowptr[hi] - first;
    V->vtype = A->vtype;
    V->colind = A->colind ? A->colind + first : NULL;
    V->colind64 = A->colind64 ? A->colind64 + first : NULL;
    V->values = (char *)A->values + (size_t)first * rvs_vtype_size(A->vtype);
    return RVS_OK;
}

/* Free a view's row pointers. */
void rvs_csr_view_free(rvs_csr *V)
{
    if (!V)
        return;
    free(V->rowptr);
    memset(V, 0, sizeof *V);
}

/* rows[0..n) == lo, lo + 1, ... ? */
int rvs_rows_consecutive(const int64_t *rows, int64_t n, int64_t *lo)
{
    *lo = n > 0 ? rows[0] : 0;
    for (int64_t i = 1; i < n; i++)
        if (rows[i] != rows[0] + i)
            return 0;
    return 1;
}

/* S = the listed rows of A, in that order, entries filtered by diagonal blocks. */
rvs_status rvs_csr_extract_rows(rvs_csr *S, const rvs_csr *A, const int64_t *rows, int64_t nrows, int filter,
                                int64_t block, rvs_error *err)
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
            return rvs_fail(err, RVS_ERR_RANGE, "row index %lld out of range 0..%lld", (long long)rows[i],
                            (long long)A->rows - 1);
        }
#pragma omp parallel for schedule(dynamic, 1024) if (nrows + A->nnz / 4 > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < nrows; i++) {
        int64_t r = rows[i], n = 0;
        for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
            n += rvs_csr_keeps(filter, block, r, rvs_csr_col(A, p));
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
#pragma omp parallel for schedule(dynamic, 1024) if (nrows + total > RVS_OMP_MIN_WORK)
    for (int64_t i = 0; i < nrows; i++) {
        int64_t r = rows[i], q = len[i];
        for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++) {
            int64_t c = rvs_csr_col(A, p);
            if (!rvs_csr_keeps(filter, block, r, c))
                continue;
            if (S->colind)
                S->colind[q] = (int32_t)c;
            else
                S->colind64[q] = c;
            if (A->values) /* else the structure alone: S's values stay unset (and untouched) */
                memcpy((char *)S->values + (size_t)q * vs, (const char *)A->values + (size_t)p * vs, vs);
            q++;
        }
    }
    free(len);
    return RVS_OK;
}
