/* mm_write.c - Matrix Market writer: threads format (and gzip) blocks of lines, one thread writes them */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "rvs_mm.h"

#define MM_LINES_PER_BLOCK ((int64_t)1 << 17)
#define MM_LINE_MAX 112 /* two 20-digit indices, two 24-char values, blanks and newline */
#define MM_TWO53 9007199254740992.0
#define MM_TWO63 9223372036854775808.0

typedef enum { MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX, MM_UNSIGNED } mm_field;
typedef enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN } mm_symmetry;
static const char *const field_name[] = {"real", "integer", "pattern", "complex", "unsigned-integer"};
static const char *const symmetry_name[] = {"general", "symmetric", "skew-symmetric", "hermitian"};

/* What to format: entries of a CSR or values of a dense array, and how. */
typedef struct {
    const rvs_csr *A;
    const double *a;
    mm_field field;
    mm_symmetry sym;
    int digits; /* significant digits; 0: the fewest that read back to the same value */
    int is_f32; /* values are floats: "read back" means strtof */
    int cplx;   /* the dense array a holds (re, im) pairs */
} mm_source;

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

/* Write the integral value v (|v| < 2^63) in decimal at p; returns the end. */
static char *put_integer(char *p, double v)
{
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    return put_uint(p, (uint64_t)v);
}

/* 1 when the text at s reads back to exactly v (as a float when is_f32). */
static int reads_back(const char *s, double v, int is_f32)
{
    if (is_f32) {
        float x = strtof(s, NULL), y = (float)v;
        return memcmp(&x, &y, sizeof x) == 0;
    }
    double x = strtod(s, NULL);
    return memcmp(&x, &v, sizeof x) == 0;
}

/* Write v at p with `digits` significant digits, or with the fewest that read back exactly
 * (digits 0); returns the end. Integers that the digits hold print as integers, which is the
 * text %g would give. */
static char *put_value(char *p, double v, int digits, int is_f32)
{
    double limit = digits == 0 ? MM_TWO53 : digits >= 16 ? MM_TWO53 : pow(10.0, digits) - 1;
    if (v == floor(v) && fabs(v) <= limit && !(v == 0.0 && signbit(v)))
        return put_integer(p, v);
    if (digits)
        return p + snprintf(p, 32, "%.*g", digits, v);
    int d = is_f32 ? 6 : 15, most = is_f32 ? 9 : 17;
    int n = snprintf(p, 32, "%.*g", d, v);
    while (d < most && !reads_back(p, v, is_f32))
        n = snprintf(p, 32, "%.*g", ++d, v);
    return p + n;
}

/* Row r with rowptr[r] <= k < rowptr[r + 1] (k < nnz). */
static int64_t row_of(const rvs_csr *A, int64_t k)
{
    return rvs_lower_bound_i64(A->rowptr, A->rows + 1, k + 1) - 1;
}

/* 1 when entry (r, c) is written: symmetric and hermitian files hold the lower triangle, skew
 * ones below it. */
static int written(mm_symmetry sym, int64_t r, int64_t c)
{
    return sym == MM_GENERAL || c < r || ((sym == MM_SYMMETRIC || sym == MM_HERMITIAN) && c == r);
}

/* Format the written entries among [k0, k1) of A as coordinate lines into out; returns bytes. */
static size_t format_entries(char *out, const mm_source *src, int64_t k0, int64_t k1)
{
    const rvs_csr *A = src->A;
    char *p = out;
    int64_t r = k0 < k1 ? row_of(A, k0) : 0;
    for (int64_t k = k0; k < k1; k++) {
        while (k >= A->rowptr[r + 1])
            r++;
        int64_t c = rvs_csr_col(A, k);
        if (!written(src->sym, r, c))
            continue;
        p = put_uint(p, (uint64_t)r + 1);
        *p++ = ' ';
        p = put_uint(p, (uint64_t)c + 1);
        if (src->field == MM_INTEGER) {
            *p++ = ' ';
            p = put_integer(p, rvs_csr_value(A, k));
        } else if (src->field == MM_UNSIGNED) {
            *p++ = ' ';
            p = put_uint(p, (uint64_t)rvs_csr_value(A, k));
        } else if (src->field == MM_REAL) {
            *p++ = ' ';
            p = put_value(p, rvs_csr_value(A, k), src->digits, src->is_f32);
        } else if (src->field == MM_COMPLEX) {
            *p++ = ' ';
            p = put_value(p, rvs_csr_value(A, k), src->digits, src->is_f32);
            *p++ = ' ';
            p = put_value(p, rvs_csr_value_im(A, k), src->digits, src->is_f32);
        }
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

/* Format values [k0, k1) of a dense array, one per line, into out; returns the byte count. */
static size_t format_values(char *out, const mm_source *src, int64_t k0, int64_t k1)
{
    char *p = out;
    for (int64_t k = k0; k < k1; k++) {
        p = put_value(p, src->a[src->cplx ? 2 * k : k], src->digits, 0);
        if (src->cplx) {
            *p++ = ' ';
            p = put_value(p, src->a[2 * k + 1], src->digits, 0);
        }
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

/* Compress in[0..n) as one gzip member into out (room for cap bytes); returns its length, or 0
 * when zlib fails. Concatenated members are one valid gzip file (RFC 1952), read by gzip, zlib
 * and this library alike, so every thread can compress its own block. */
static size_t gzip_member(unsigned char *out, size_t cap, const char *in, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    z.next_in = (unsigned char *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    size_t len = r == Z_STREAM_END ? cap - z.avail_out : 0;
    deflateEnd(&z);
    return len;
}

/* Write text[0..n) to f, as a gzip member when gz. */
static rvs_status put_text(FILE *f, const char *text, size_t n, int gz, rvs_error *err)
{
    unsigned char zbuf[1024];
    const void *out = text;
    if (gz) {
        n = gzip_member(zbuf, sizeof zbuf, text, n);
        if (n == 0)
            return rvs_fail(err, RVS_ERR_INTERNAL, "gzip: the compressor failed");
        out = zbuf;
    }
    if (fwrite(out, 1, n, f) != n)
        return rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
    return RVS_OK;
}

/* Format n items in rounds: every thread fills (and compresses) its block, then the blocks go
 * out in order. */
static rvs_status write_blocks(FILE *f, const mm_source *src, int64_t n, int gz, rvs_error *err)
{
    int64_t per_block = n < MM_LINES_PER_BLOCK ? (n > 0 ? n : 1) : MM_LINES_PER_BLOCK;
    int64_t blocks = (n + per_block - 1) / per_block;
    int nt = blocks < omp_get_max_threads() ? (int)(blocks > 0 ? blocks : 1) : omp_get_max_threads();
    size_t block_bytes = (size_t)per_block * MM_LINE_MAX;
    size_t zcap = gz ? (size_t)compressBound((uLong)block_bytes) + 64 : 0;
    char *buf = malloc((size_t)nt * block_bytes);
    unsigned char *zbuf = gz ? malloc((size_t)nt * zcap) : NULL;
    size_t *len = calloc((size_t)nt, sizeof *len);
    int zfail = 0;
    rvs_status st = RVS_OK;
    if (!buf || !len || (gz && !zbuf)) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for write buffers");
        goto done;
    }
    for (int64_t start = 0; start < n; start += (int64_t)nt * per_block) {
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1) reduction(| : zfail)
        for (int t = 0; t < nt; t++) {
            int64_t k0 = start + (int64_t)t * per_block;
            int64_t k1 = k0 + per_block < n ? k0 + per_block : n;
            char *out = buf + (size_t)t * block_bytes;
            len[t] = k0 >= n ? 0 : src->A ? format_entries(out, src, k0, k1) : format_values(out, src, k0, k1);
            if (gz && len[t]) {
                len[t] = gzip_member(zbuf + (size_t)t * zcap, zcap, out, len[t]);
                zfail |= len[t] == 0;
            }
        }
        if (zfail) {
            st = rvs_fail(err, RVS_ERR_INTERNAL, "gzip: the compressor failed");
            goto done;
        }
        for (int t = 0; t < nt; t++) {
            const void *out = gz ? (const void *)(zbuf + (size_t)t * zcap) : buf + (size_t)t * block_bytes;
            if (len[t] && fwrite(out, 1, len[t], f) != len[t]) {
                st = rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
                goto done;
            }
        }
    }
    if (fflush(f) != 0 || ferror(f))
        st = rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
done:
    free(buf);
    free(zbuf);
    free(len);
    return st;
}

/* The widest field the values of A need, starting from the one asked for: pattern needs every
 * value 1, integer every value integral and below 2^63 in magnitude and no -0 (an integer
 * token cannot hold its sign), unsigned-integer every value integral in 0 .. 2^64 - 1 (else
 * integer, when that holds). */
static mm_field field_of(const rvs_csr *A, const char *wish)
{
    if (rvs_vtype_is_complex(A->vtype))
        return MM_COMPLEX;
    if (wish && strcmp(wish, "unsigned-integer") == 0) {
        int ok = 1;
#pragma omp parallel for reduction(&& : ok) schedule(static)
        for (int64_t k = 0; k < A->nnz; k++) {
            double v = rvs_csr_value(A, k);
            ok = ok && v == floor(v) && v >= 0 && v < 2 * MM_TWO63 && !signbit(v);
        }
        if (ok)
            return MM_UNSIGNED;
        wish = "integer";
    }
    int pattern = wish && strcmp(wish, "pattern") == 0;
    int integer = pattern || (wish && strcmp(wish, "integer") == 0);
    if (!integer)
        return MM_REAL;
#pragma omp parallel for reduction(&& : pattern, integer) schedule(static)
    for (int64_t k = 0; k < A->nnz; k++) {
        double v = rvs_csr_value(A, k);
        pattern = pattern && v == 1.0;
        integer = integer && v == floor(v) && fabs(v) < MM_TWO63 && !(v == 0.0 && signbit(v));
    }
    return pattern ? MM_PATTERN : integer ? MM_INTEGER : MM_REAL;
}

/* Bits of component part (0 real, 1 imaginary) of value k (f64 or f32 bits) and the mask of
 * its sign bit; the imaginary part of a real value is 0. */
static uint64_t value_bits(const rvs_csr *A, int64_t k, int part, uint64_t *sign)
{
    const int n = rvs_vtype_is_complex(A->vtype) ? 2 : 1;
    if (part >= n) {
        *sign = 0;
        return 0;
    }
    if (rvs_vtype_real(A->vtype) == RVS_F64) {
        uint64_t b;
        memcpy(&b, (const double *)A->values + n * k + part, sizeof b);
        *sign = (uint64_t)1 << 63;
        return b;
    }
    uint32_t b;
    memcpy(&b, (const float *)A->values + n * k + part, sizeof b);
    *sign = (uint64_t)1 << 31;
    return b;
}

/* Symmetric when A equals its transpose bit for bit, skew-symmetric when it equals its negated
 * transpose and stores no diagonal entry (skew files cannot hold one), hermitian (complex only)
 * when it equals its conjugate transpose and its diagonal is real: only then does the shorter
 * file read back to the same matrix. */
static mm_symmetry symmetry_of(const rvs_csr *A, mm_field field)
{
    int sym = 1, skew = field != MM_PATTERN && field != MM_UNSIGNED, herm = field == MM_COMPLEX;
    if (A->rows != A->cols)
        return MM_GENERAL;
#pragma omp parallel for reduction(&& : sym, skew, herm) schedule(dynamic, 4096)
    for (int64_t r = 0; r < A->rows; r++) {
        for (int64_t k = A->rowptr[r]; (sym || skew || herm) && k < A->rowptr[r + 1]; k++) {
            int64_t c = rvs_csr_col(A, k), lo = A->rowptr[c], hi = A->rowptr[c + 1];
            if (c == r) {
                skew = 0;
                herm = herm && rvs_csr_value_im(A, k) == 0.0;
                continue;
            }
            while (lo < hi) { /* entry (c, r) */
                int64_t mid = lo + (hi - lo) / 2;
                if (rvs_csr_col(A, mid) < r)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == A->rowptr[c + 1] || rvs_csr_col(A, lo) != r) {
                sym = skew = herm = 0;
                break;
            }
            uint64_t sign, isign, v = value_bits(A, k, 0, &sign), w = value_bits(A, lo, 0, &sign);
            uint64_t vi = value_bits(A, k, 1, &isign), wi = value_bits(A, lo, 1, &isign);
            sym = sym && v == w && vi == wi;
            skew = skew && v == (w ^ sign) && vi == (wi ^ isign);
            herm = herm && v == w && vi == (wi ^ isign);
        }
    }
    return sym ? MM_SYMMETRIC : herm ? MM_HERMITIAN : skew ? MM_SKEW : MM_GENERAL;
}

/* Entries of A a file of symmetry sym holds. */
static int64_t count_written(const rvs_csr *A, mm_symmetry sym)
{
    int64_t n = 0;
    if (sym == MM_GENERAL)
        return A->nnz;
#pragma omp parallel for reduction(+ : n) schedule(static)
    for (int64_t r = 0; r < A->rows; r++)
        for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++)
            n += written(sym, r, rvs_csr_col(A, k));
    return n;
}

/* Banner, size line and entries of src's matrix. */
static rvs_status write_coordinate(FILE *f, const mm_source *src, int gz, rvs_mm_info *wrote, rvs_error *err)
{
    const rvs_csr *A = src->A;
    char head[160];
    int64_t entries = count_written(A, src->sym);
    int n = snprintf(head, sizeof head, "%%%%MatrixMarket matrix coordinate %s %s\n%lld %lld %lld\n",
                     field_name[src->field], symmetry_name[src->sym], (long long)A->rows, (long long)A->cols,
                     (long long)entries);
    if (wrote) {
        memset(wrote, 0, sizeof *wrote);
        snprintf(wrote->format, sizeof wrote->format, "coordinate");
        snprintf(wrote->field, sizeof wrote->field, "%s", field_name[src->field]);
        snprintf(wrote->symmetry, sizeof wrote->symmetry, "%s", symmetry_name[src->sym]);
        wrote->rows = A->rows;
        wrote->cols = A->cols;
        wrote->entries = entries;
    }
    rvs_status st = put_text(f, head, (size_t)n, gz, err);
    return st == RVS_OK ? write_blocks(f, src, A->nnz, gz, err) : st;
}

/* Write A keeping what it is: field as asked when the values allow, symmetry when exact. */
rvs_status rvs_mm_write(FILE *f, const rvs_csr *A, const rvs_mm_write_options *o, rvs_mm_info *wrote,
                        rvs_error *err)
{
    static const rvs_mm_write_options none;
    if (!o)
        o = &none;
    if (o->digits < 0 || o->digits > 17)
        return rvs_fail(err, RVS_ERR_ARG, "digits %d is not in 0..17", o->digits);
    mm_source src = {A, NULL, field_of(A, o->field), MM_GENERAL, o->digits, rvs_vtype_real(A->vtype) == RVS_F32, 0};
    if (!o->general)
        src.sym = symmetry_of(A, src.field);
    return write_coordinate(f, &src, o->gzip != 0, wrote, err);
}

/* Write A as coordinate real (or pattern) general, 1-based, round-trip exact. */
rvs_status rvs_mm_write_coordinate(FILE *f, const rvs_csr *A, int pattern, rvs_error *err)
{
    int is_f32 = rvs_vtype_real(A->vtype) == RVS_F32;
    mm_source src = {A,
                     NULL,
                     pattern                          ? MM_PATTERN
                     : rvs_vtype_is_complex(A->vtype) ? MM_COMPLEX
                                                      : MM_REAL,
                     MM_GENERAL,
                     is_f32 ? 9 : 17,
                     is_f32,
                     0};
    return write_coordinate(f, &src, 0, NULL, err);
}

/* Write a dense column-major rows x cols array as array real general, or complex general
 * (cplx: a holds (re, im) pairs). */
static rvs_status write_array(FILE *f, const double *a, int64_t rows, int64_t cols, int cplx, rvs_error *err)
{
    mm_source src = {NULL, a, cplx ? MM_COMPLEX : MM_REAL, MM_GENERAL, 17, 0, cplx};
    int64_t n;
    if (rows < 0 || cols < 0 || __builtin_mul_overflow(rows, cols, &n))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "array of %lld x %lld values is too large", (long long)rows,
                        (long long)cols);
    if (fprintf(f, "%%%%MatrixMarket matrix array %s general\n%lld %lld\n", cplx ? "complex" : "real",
                (long long)rows, (long long)cols) < 0)
        return rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
    return write_blocks(f, &src, n, 0, err);
}

rvs_status rvs_mm_write_array(FILE *f, const double *a, int64_t rows, int64_t cols, rvs_error *err)
{
    return write_array(f, a, rows, cols, 0, err);
}

rvs_status rvs_mm_write_array_complex(FILE *f, const double *a, int64_t rows, int64_t cols, rvs_error *err)
{
    return write_array(f, a, rows, cols, 1, err);
}
