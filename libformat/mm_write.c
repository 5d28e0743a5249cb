/* mm_write.c - Matrix Market writer: threads format blocks of lines, one thread writes them */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_mm.h"

#define MM_LINES_PER_BLOCK ((int64_t)1 << 17)
#define MM_LINE_MAX 80 /* two 20-digit indices, a 24-char value, blanks and newline */

/* Write v in decimal at p; returns the end. */
static char *put_uint(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Write v as printf("%.*g", digits) would, at p; returns the end. Integers print through a
 * fast path that gives the same text (they have fewer than `digits` digits). */
static char *put_value(char *p, double v, int digits)
{
    double limit = digits == 17 ? 9007199254740992.0 : 999999999.0;
    if (v == floor(v) && fabs(v) <= limit && !(v == 0.0 && signbit(v))) {
        if (v < 0) {
            *p++ = '-';
            v = -v;
        }
        return put_uint(p, (uint64_t)v);
    }
    return p + snprintf(p, 32, "%.*g", digits, v);
}

/* Row r with rowptr[r] <= k < rowptr[r + 1] (k < nnz). */
static int64_t row_of(const rvs_csr *A, int64_t k)
{
    int64_t lo = 0, hi = A->rows - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (A->rowptr[mid] <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Format entries [k0, k1) of A as coordinate lines into out; returns the byte count. */
static size_t format_entries(char *out, const rvs_csr *A, int64_t k0, int64_t k1, int pattern)
{
    char *p = out;
    int digits = A->vtype == RVS_F32 ? 9 : 17;
    int64_t r = k0 < k1 ? row_of(A, k0) : 0;
    for (int64_t k = k0; k < k1; k++) {
        while (k >= A->rowptr[r + 1])
            r++;
        p = put_uint(p, (uint64_t)r + 1);
        *p++ = ' ';
        p = put_uint(p, (uint64_t)rvs_csr_col(A, k) + 1);
        if (!pattern) {
            *p++ = ' ';
            p = put_value(p, rvs_csr_value(A, k), digits);
        }
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

/* Format values [k0, k1) of a dense array, one per line, into out; returns the byte count. */
static size_t format_values(char *out, const double *a, int64_t k0, int64_t k1)
{
    char *p = out;
    for (int64_t k = k0; k < k1; k++) {
        p = put_value(p, a[k], 17);
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

/* What to format: entries of a CSR or values of a dense array. */
typedef struct {
    const rvs_csr *A;
    const double *a;
    int pattern;
} mm_source;

/* Format n items in rounds: every thread fills its block, then the blocks go out in order. */
static rvs_status write_blocks(FILE *f, const mm_source *src, int64_t n, rvs_error *err)
{
    int64_t per_block = n < MM_LINES_PER_BLOCK ? (n > 0 ? n : 1) : MM_LINES_PER_BLOCK;
    int64_t blocks = (n + per_block - 1) / per_block;
    int nt = blocks < omp_get_max_threads() ? (int)(blocks > 0 ? blocks : 1) : omp_get_max_threads();
    char *buf = NULL;
    size_t *len = NULL;
    rvs_status st = RVS_OK;
    size_t block_bytes = (size_t)per_block * MM_LINE_MAX;
    buf = malloc((size_t)nt * block_bytes);
    len = calloc((size_t)nt, sizeof *len);
    if (!buf || !len) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for write buffers");
        goto done;
    }
    for (int64_t start = 0; start < n; start += (int64_t)nt * per_block) {
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
        for (int t = 0; t < nt; t++) {
            int64_t k0 = start + (int64_t)t * per_block;
            int64_t k1 = k0 + per_block < n ? k0 + per_block : n;
            char *out = buf + (size_t)t * block_bytes;
            len[t] = k0 >= n ? 0
                     : src->A ? format_entries(out, src->A, k0, k1, src->pattern)
                              : format_values(out, src->a, k0, k1);
        }
        for (int t = 0; t < nt; t++)
            if (len[t] && fwrite(buf + (size_t)t * block_bytes, 1, len[t], f) != len[t]) {
                st = rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
                goto done;
            }
    }
    if (fflush(f) != 0 || ferror(f))
        st = rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
done:
    free(buf);
    free(len);
    return st;
}

/* Write A as coordinate real (or pattern) general, 1-based, round-trip exact. */
rvs_status rvs_mm_write_coordinate(FILE *f, const rvs_csr *A, int pattern, rvs_error *err)
{
    mm_source src = {A, NULL, pattern};
    if (fprintf(f, "%%%%MatrixMarket matrix coordinate %s general\n%lld %lld %lld\n",
                pattern ? "pattern" : "real", (long long)A->rows, (long long)A->cols,
                (long long)A->nnz) < 0)
        return rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
    return write_blocks(f, &src, A->nnz, err);
}

/* Write a dense column-major rows x cols array as array real general. */
rvs_status rvs_mm_write_array(FILE *f, const double *a, int64_t rows, int64_t cols,
                              rvs_error *err)
{
    mm_source src = {NULL, a, 0};
    int64_t n;
    if (rows < 0 || cols < 0 || __builtin_mul_overflow(rows, cols, &n))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "array of %lld x %lld values is too large",
                        (long long)rows, (long long)cols);
    if (fprintf(f, "%%%%MatrixMarket matrix array real general\n%lld %lld\n", (long long)rows,
                (long long)cols) < 0)
        return rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
    return write_blocks(f, &src, n, err);
}
