/* mm_read.c - Matrix Market parser: the header (mm_head.c), then a parallel two-pass data section */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "mm_private.h"
#include "rvs_mem.h"

/* One piece of the data section, cut at line boundaries, handled by one thread at a time. */
typedef struct {
    size_t begin, end;
    int64_t lines;       /* newlines in [begin, end) */
    int64_t entries;     /* data lines in [begin, end) */
    int64_t first_line;  /* line number of begin */
    int64_t first_entry; /* index of its first data line among all data lines */
    int64_t kept;        /* triplets it stored (array zeros are dropped) */
    int64_t first_kept;  /* where its triplets sit after compaction */
    int64_t mirrored;    /* off-diagonal triplets to mirror (symmetric, skew) */
    rvs_error err;       /* first error in this piece */
} mm_chunk;

/* Triplet arrays the data lines are parsed into. */
typedef struct {
    int64_t *ri, *ci;
    double *v; /* NULL for pattern general/symmetric: all ones */
} mm_triplets;

#define MM_PROGRESS_BYTES ((size_t)64 << 20)

/* Exact powers of ten representable in a double. */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
/* Exact powers of ten in x87 extended precision (5^27 < 2^64). */
static const long double pow10_ext[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* m * 10^ex for up to 19 digits and |ex| <= 27: one exact-operand operation in extended
 * precision is within half an extended ulp of the true value, so rounding it to double is
 * correct unless it lies within one extended ulp of a halfway point between doubles (low
 * 11 of its 64 mantissa bits 0x3ff..0x401): then 0, and strtod decides. */
static int scale_extended(uint64_t m, int64_t ex, double *out)
{
    if (ex < -27 || ex > 27)
        return 0;
    long double x = (long double)m;
    x = ex < 0 ? x / pow10_ext[-ex] : x * pow10_ext[ex];
    uint64_t bits; /* x87 layout: the 64-bit significand comes first */
    memcpy(&bits, &x, sizeof bits);
    unsigned low = (unsigned)(bits & 0x7ff);
    if (low >= 0x3ff && low <= 0x401)
        return 0;
    *out = (double)x;
    return 1;
}
#else
/* Without x87 extended precision only Clinger's path is used. */
static int scale_extended(uint64_t m, int64_t ex, double *out)
{
    (void)m;
    (void)ex;
    (void)out;
    return 0;
}
#endif

/* Decimal [p, e) to double without strtod when that is provably correctly rounded:
 * significant digits count from the first non-zero one (counting non-zero partial mantissas
 * missed a 20-digit mantissa that wraps to exactly 0 modulo 2^64), then Clinger's path (digits fit in 2^53, |exponent| <= 22: one exact multiply or divide), else
 * the extended-precision check above. 1 when it applied; 0 leaves the token to strtod. */
static int parse_double_fast(const char *p, const char *e, double *out)
{
    int neg = 0, digits = 0, seen = 0;
    int64_t frac = 0;
    uint64_t m = 0;
    if (p < e && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    for (; p < e && (unsigned)(*p - '0') <= 9; p++, seen = 1) {
        m = m * 10 + (unsigned)(*p - '0');
        digits += m != 0 || digits != 0;
        if (digits > 19)
            return 0;
    }
    if (p < e && *p == '.')
        for (p++; p < e && (unsigned)(*p - '0') <= 9; p++, frac++, seen = 1) {
            m = m * 10 + (unsigned)(*p - '0');
            digits += m != 0 || digits != 0;
            if (digits > 19)
                return 0;
        }
    if (!seen)
        return 0;
    int64_t ex = 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        int eneg = 0, edigits = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        for (; p < e && (unsigned)(*p - '0') <= 9 && edigits < 6; p++, edigits++)
            ex = ex * 10 + (*p - '0');
        if (edigits == 0 || edigits == 6)
            return 0;
        if (eneg)
            ex = -ex;
    }
    if (p != e)
        return 0;
    ex -= frac;
    double v;
    if (m == 0)
        v = 0.0;
    else if (m <= ((uint64_t)1 << 53) && ex >= -22 && ex <= 22)
        v = ex < 0 ? (double)m / pow10_exact[-ex] : (double)m * pow10_exact[ex];
    else if (!scale_extended(m, ex, &v))
        return 0;
    *out = neg ? -v : v;
    return 1;
}

/* Parse the whole token [p, e) as a double: fast path, else strtod on a terminated copy (the
 * buffer may be a mapping with no terminator), on the heap when the token is long. The value
 * is strtod's: nan, inf and infinity in any case and with a sign are numbers, and a decimal
 * beyond the range of double is +-Inf. 0 ok, 1 not a number (a NUL inside is not one), 2 out
 * of memory. */
static int parse_double(const char *p, const char *e, double *out)
{
    char small[128], *tmp = small, *end;
    size_t n = (size_t)(e - p);
    if (parse_double_fast(p, e, out))
        return 0;
    if (n >= sizeof small && !(tmp = malloc(n + 1)))
        return 2;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    *out = strtod(tmp, &end);
    int bad = n == 0 || end != tmp + n;
    if (tmp != small)
        free(tmp);
    return bad;
}

/* Count newlines and data lines (neither blank nor comment) in [p, e). */
static void count_lines(const char *p, const char *e, int64_t *lines, int64_t *entries)
{
    int64_t nl = 0, n = 0;
    while (p < e) {
        const char *q = memchr(p, '\n', (size_t)(e - p));
        const char *le = q ? q : e;
        const char *s = skip_blanks(p, le);
        if (s < le && *s != '%')
            n++;
        if (!q)
            break;
        nl++;
        p = q + 1;
    }
    *lines = nl;
    *entries = n;
}

/* Parse an index token into 0-based *out, checking 1..limit. */
static rvs_status parse_index(const char *p, const char *e, const char *what, int64_t limit,
                              int64_t line, int64_t *out, rvs_error *err)
{
    char s[48];
    int64_t v = 0;
    if (p == e)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: missing %s index", (long long)line, what);
    int r = parse_int64(p, e, &v);
    if (r == 1)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: %s index '%s' is not an integer",
                        (long long)line, what, snip(s, p, e));
    if (r == 2 || v < 1 || v > limit)
        return rvs_fail(err, RVS_ERR_RANGE, "line %lld: %s index %s out of range 1..%lld",
                        (long long)line, what, snip(s, p, e), (long long)limit);
    *out = v - 1;
    return RVS_OK;
}

/* Parse a value token by field (integer fields must hold integers; real ones as strtod reads them). */
static rvs_status parse_value(const char *p, const char *e, mm_field field, int64_t line,
                              double *out, rvs_error *err)
{
    char s[48];
    if (p == e)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: missing value", (long long)line);
    if (field == MM_INTEGER) {
        int64_t v;
        int r = parse_int64(p, e, &v);
        if (r == 1)
            return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: value '%s' is not an integer",
                            (long long)line, snip(s, p, e));
        if (r == 2)
            return rvs_fail(err, RVS_ERR_OVERFLOW, "line %lld: value '%s' overflows 64 bits",
                            (long long)line, snip(s, p, e));
        *out = (double)v;
        return RVS_OK;
    }
    int r = parse_double(p, e, out);
    if (r == 2)
        return rvs_fail(err, RVS_ERR_NOMEM, "line %lld: out of memory for a value of %zu characters",
                        (long long)line, (size_t)(e - p));
    if (r)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: value '%s' is not a number",
                        (long long)line, snip(s, p, e));
    return RVS_OK;
}

/* Fail unless only blanks remain on the line. */
static rvs_status expect_line_end(const char *p, const char *e, int64_t line, rvs_error *err)
{
    char s[48];
    p = skip_blanks(p, e);
    if (p == e)
        return RVS_OK;
    return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: unexpected text '%s' after the entry",
                    (long long)line, snip(s, p, token_end(p, e)));
}

/* Parse one coordinate data line [p, e) into (*r, *c, *v). */
static rvs_status parse_coordinate_line(const char *p, const char *e, const mm_header *h,
                                        int64_t line, int64_t *r, int64_t *c, double *v,
                                        rvs_error *err)
{
    rvs_status st;
    const char *t;
    p = skip_blanks(p, e);
    t = token_end(p, e);
    if ((st = parse_index(p, t, "row", h->rows, line, r, err)) != RVS_OK)
        return st;
    p = skip_blanks(t, e);
    t = token_end(p, e);
    if ((st = parse_index(p, t, "column", h->cols, line, c, err)) != RVS_OK)
        return st;
    *v = 1.0;
    if (h->field != MM_PATTERN) {
        p = skip_blanks(t, e);
        t = token_end(p, e);
        if ((st = parse_value(p, t, h->field, line, v, err)) != RVS_OK)
            return st;
    }
    if (h->symmetry == MM_SKEW && *r == *c)
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "line %lld: skew-symmetric matrix has a diagonal entry (%lld, %lld)",
                        (long long)line, (long long)*r + 1, (long long)*c + 1);
    return expect_line_end(t, e, line, err);
}

/* Position (row, col) of array value k: column-major, lower triangle only when symmetric
 * (from the diagonal) or skew (below it). */
static void array_position(const mm_header *h, int64_t k, int64_t *r, int64_t *c)
{
    if (h->symmetry == MM_GENERAL) {
        *c = k / h->rows;
        *r = k % h->rows;
        return;
    }
    /* column j starts at S(j) = j*n - j*(j-1)/2 (symmetric) or j*(n-1) - j*(j-1)/2 (skew) */
    int64_t n = h->symmetry == MM_SYMMETRIC ? h->rows : h->rows - 1;
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        int64_t start = mid * n - mid * (mid - 1) / 2;
        if (start <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    *c = lo;
    *r = k - (lo * n - lo * (lo - 1) / 2) + lo + (h->symmetry == MM_SKEW);
}

/* Step (r, c) to the next array position. */
static void array_next(const mm_header *h, int64_t *r, int64_t *c)
{
    if (++*r < h->rows)
        return;
    ++*c;
    *r = h->symmetry == MM_GENERAL ? 0 : *c + (h->symmetry == MM_SKEW);
}

/* Digits at *pp as a 1-based index within 1..limit, ending at a blank, the line end or
 * the buffer end; skips the blanks after it. 0 when the text is anything else (the careful
 * path then says what is wrong). */
static inline int fast_index(const char **pp, const char *e, int64_t limit, int64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    int n = 0;
    for (; p < e && (unsigned)(*p - '0') <= 9 && n < 19; p++, n++)
        v = v * 10 + (unsigned)(*p - '0');
    if (n == 0 || n == 19 || (p < e && !is_blank(*p) && *p != '\n') || v < 1 ||
        v > (uint64_t)limit)
        return 0;
    while (p < e && is_blank(*p))
        p++;
    *pp = p;
    *out = (int64_t)v - 1;
    return 1;
}

/* Fast path for an ordinary coordinate line at p: fills the entry and returns the start of
 * the next line, or NULL when the line needs the careful path. */
static const char *fast_coordinate_line(const char *p, const char *e, const mm_header *h,
                                        int64_t *r, int64_t *c, double *v)
{
    if (!fast_index(&p, e, h->rows, r))
        return NULL;
    if (h->field == MM_PATTERN) {
        if (!fast_index(&p, e, h->cols, c))
            return NULL;
        *v = 1.0;
    } else {
        const char *t;
        if (!fast_index(&p, e, h->cols, c))
            return NULL;
        for (t = p; t < e && !is_blank(*t) && *t != '\n'; t++)
            ;
        if (!parse_double_fast(p, t, v))
            return NULL;
        p = t;
    }
    while (p < e && is_blank(*p))
        p++;
    if (p < e && *p != '\n')
        return NULL;
    if (h->symmetry == MM_SKEW && *r == *c)
        return NULL;
    return p < e ? p + 1 : e;
}

/* Pass 2 over one chunk: parse its data lines into the triplets at first_entry. */
static void parse_chunk(const char *buf, mm_chunk *ch, const mm_header *h, mm_triplets *t)
{
    const char *p = buf + ch->begin, *end = buf + ch->end;
    int64_t line = ch->first_line, k = ch->first_entry, ar = 0, ac = 0, mirrored = 0;
    int mirror = h->symmetry != MM_GENERAL;
    if (h->format == MM_ARRAY && ch->entries > 0)
        array_position(h, ch->first_entry, &ar, &ac);
    while (p < end) {
        if (h->format == MM_COORDINATE && h->field != MM_INTEGER && (unsigned)(*p - '0') <= 9) {
            int64_t r, c;
            double v;
            const char *next = fast_coordinate_line(p, end, h, &r, &c, &v);
            if (next) {
                t->ri[k] = r;
                t->ci[k] = c;
                if (t->v)
                    t->v[k] = v;
                k++;
                mirrored += mirror && r != c;
                line++;
                p = next;
                continue;
            }
        }
        const char *q = memchr(p, '\n', (size_t)(end - p));
        const char *le = q ? q : end;
        const char *s = skip_blanks(p, le);
        if (s < le && *s != '%') {
            int64_t r, c;
            double v;
            if (h->format == MM_COORDINATE) {
                if (parse_coordinate_line(s, le, h, line, &r, &c, &v, &ch->err) != RVS_OK)
                    break;
            } else {
                const char *te = token_end(s, le);
                if (parse_value(s, te, h->field, line, &v, &ch->err) != RVS_OK ||
                    expect_line_end(te, le, line, &ch->err) != RVS_OK)
                    break;
                r = ar;
                c = ac;
                array_next(h, &ar, &ac);
            }
            /* Dense storage has no explicit entries: array zeros are not stored. Coordinate
             * zeros are explicit entries and are kept. */
            if (h->format == MM_COORDINATE || v != 0.0) {
                t->ri[k] = r;
                t->ci[k] = c;
                if (t->v)
                    t->v[k] = v;
                k++;
                mirrored += mirror && r != c;
            }
        }
        if (!q)
            break;
        line++;
        p = q + 1;
    }
    ch->kept = k - ch->first_entry;
    ch->mirrored = mirrored;
}

/* Cut [h->data, len) into n chunks that end just after a newline (or at len). Targets are
 * fixed fractions of the data, not offsets from the previous chunk's end: a chunk stretched to
 * a far line end must not push the later ones past the buffer. */
static void cut_chunks(const char *buf, size_t len, const mm_header *h, mm_chunk *ch, int n)
{
    size_t start = h->data, data = len - h->data;
    for (int i = 0; i < n; i++) {
        size_t end = i == n - 1 ? len : h->data + (size_t)((unsigned __int128)data * (unsigned)(i + 1) / (unsigned)n);
        if (end <= start) {
            end = start;
        } else if (end < len) {
            const char *q = memchr(buf + end, '\n', len - end);
            end = q ? (size_t)(q + 1 - buf) : len;
        }
        memset(&ch[i], 0, sizeof ch[i]);
        ch[i].begin = start;
        ch[i].end = end;
        start = end;
    }
}

/* malloc that asks for transparent huge pages on large blocks: filling hundreds of MB of
 * fresh memory otherwise costs more in page faults than in parsing. */
static void *alloc_large(size_t bytes)
{
    void *p = malloc(bytes);
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (p && bytes >= 4 * huge) {
        uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
        uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);
        if (b > a)
            madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
    return p;
}

/* Allocate triplet arrays for cap entries. */
static rvs_status triplets_alloc(mm_triplets *t, int64_t cap, int values, rvs_error *err)
{
    size_t n = (size_t)(cap > 0 ? cap : 1);
    if ((uint64_t)cap > SIZE_MAX / sizeof(int64_t))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "%lld entries are too many for this machine",
                        (long long)cap);
    t->ri = alloc_large(n * sizeof *t->ri);
    t->ci = alloc_large(n * sizeof *t->ci);
    t->v = values ? alloc_large(n * sizeof *t->v) : NULL;
    if (!t->ri || !t->ci || (values && !t->v))
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld entries", (long long)cap);
    return RVS_OK;
}

/* Move each chunk's kept triplets down so they are contiguous; returns their count. */
static int64_t compact(mm_chunk *ch, int n, mm_triplets *t)
{
    int64_t dst = 0;
    for (int i = 0; i < n; i++) {
        int64_t src = ch[i].first_entry, k = ch[i].kept;
        if (dst != src && k > 0) {
            memmove(t->ri + dst, t->ri + src, (size_t)k * sizeof *t->ri);
            memmove(t->ci + dst, t->ci + src, (size_t)k * sizeof *t->ci);
            if (t->v)
                memmove(t->v + dst, t->v + src, (size_t)k * sizeof *t->v);
        }
        ch[i].first_kept = dst;
        dst += k;
    }
    return dst;
}

/* Append the transpose of every off-diagonal triplet after the first kept ones (negated for
 * skew); returns the new count. */
static int64_t mirror(mm_chunk *ch, int n, mm_triplets *t, int64_t kept, int negate)
{
    int64_t *base = malloc((size_t)n * sizeof *base), total = kept;
    if (!base)
        return -1;
    for (int i = 0; i < n; i++) {
        base[i] = total;
        total += ch[i].mirrored;
    }
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int i = 0; i < n; i++) {
        int64_t o = base[i];
        for (int64_t k = ch[i].first_kept; k < ch[i].first_kept + ch[i].kept; k++) {
            if (t->ri[k] == t->ci[k])
                continue;
            t->ri[o] = t->ci[k];
            t->ci[o] = t->ri[k];
            if (t->v)
                t->v[o] = negate ? -t->v[k] : t->v[k];
            o++;
        }
    }
    free(base);
    return total;
}

/* Pass 1 (counts per chunk), prefix sums, declared-count check. */
static rvs_status count_chunks(const char *buf, const mm_header *h, mm_chunk *ch, int n,
                               rvs_error *err)
{
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int i = 0; i < n; i++)
        count_lines(buf + ch[i].begin, buf + ch[i].end, &ch[i].lines, &ch[i].entries);
    int64_t line = h->data_line, entries = 0;
    for (int i = 0; i < n; i++) {
        ch[i].first_line = line;
        ch[i].first_entry = entries;
        line += ch[i].lines;
        entries += ch[i].entries;
    }
    if (entries != h->entries)
        return rvs_fail(err, RVS_ERR_FORMAT, "declares %lld entries, file has %lld",
                        (long long)h->entries, (long long)entries);
    return RVS_OK;
}

/* Pass 2 (parse every chunk), reporting progress from the master thread; the first error
 * in file order wins, so line numbers do not depend on scheduling. */
static rvs_status parse_chunks(const char *buf, size_t len, const mm_header *h, mm_chunk *ch,
                               int n, mm_triplets *t, rvs_progress_fn progress, void *ctx,
                               rvs_error *err)
{
    size_t done = h->data, last = 0;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int i = 0; i < n; i++) {
        size_t now;
        parse_chunk(buf, &ch[i], h, t);
#pragma omp atomic capture
        now = done += ch[i].end - ch[i].begin;
        if (progress && omp_get_thread_num() == 0 && now - last >= MM_PROGRESS_BYTES) {
            last = now;
            progress(ctx, now, len);
        }
    }
    for (int i = 0; i < n; i++)
        if (ch[i].err.code != RVS_OK) {
            if (err)
                *err = ch[i].err;
            return ch[i].err.code;
        }
    if (progress)
        progress(ctx, len, len);
    return RVS_OK;
}

/* Fail unless reading cap triplets into h's CSR fits the memory available, counting what is
 * alive at the peak: the text the caller holds (held), the triplets (row, column, value), and
 * rvs_csr_from_coo's row starts, unique counts and sorted copies (24 bytes a row, 16 an entry)
 * beside the larger of its row-sort buffers (at most 16 an entry over all threads) and the
 * CSR itself (row pointers, column indices, f64 values). */
static rvs_status claim_peak(const mm_header *h, int64_t cap, int values, size_t held, rvs_error *err)
{
    char what[96];
    double rows1 = (double)h->rows + 1.0, e = (double)cap, idx = h->cols > RVS_COL32_MAX ? 8.0 : 4.0;
    double csr = 8.0 * rows1 + e * (idx + 8.0), sort = 16.0 * e;
    double peak = (double)held + e * (16.0 + (values ? 8.0 : 0.0)) + 24.0 * rows1 + 16.0 * e +
                  (csr > sort ? csr : sort);
    snprintf(what, sizeof what, "%lld entries of a %lld x %lld matrix", (long long)h->entries,
             (long long)h->rows, (long long)h->cols);
    return rvs_mem_claim(peak, what, err);
}

/* Parse a whole Matrix Market text into A in a given number of chunks (see mm_private.h). */
rvs_status mm_parse_chunked(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, int n,
                            size_t held, rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_header h;
    mm_chunk *ch = NULL;
    mm_triplets t = {NULL, NULL, NULL};
    memset(A, 0, sizeof *A);
    memset(&h, 0, sizeof h);
    if (info)
        memset(info, 0, sizeof *info);
    rvs_status st = mm_parse_header(buf, len, &h, info, err);
    if (st != RVS_OK)
        goto done;
    if (n < 1) {
        /* several chunks per thread balance the load; none above 64 MB keeps progress flowing */
        size_t data_bytes = len - h.data;
        n = data_bytes > ((size_t)1 << 16) ? 4 * omp_get_max_threads() : 1;
        if ((size_t)n < data_bytes / MM_PROGRESS_BYTES + 1)
            n = (int)(data_bytes / MM_PROGRESS_BYTES + 1);
    }
    ch = calloc((size_t)n, sizeof *ch);
    if (!ch) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        goto done;
    }
    cut_chunks(buf, len, &h, ch, n);
    if ((st = count_chunks(buf, &h, ch, n, err)) != RVS_OK)
        goto done;
    int symmetric = h.symmetry != MM_GENERAL, values = h.field != MM_PATTERN || h.symmetry == MM_SKEW;
    int64_t cap = h.entries;
    if (symmetric && __builtin_mul_overflow(cap, 2, &cap)) {
        st = rvs_fail(err, RVS_ERR_OVERFLOW, "%lld entries are too many", (long long)h.entries);
        goto done;
    }
    if ((st = claim_peak(&h, cap, values, held, err)) != RVS_OK ||
        (st = triplets_alloc(&t, cap, values, err)) != RVS_OK)
        goto done;
    if ((st = parse_chunks(buf, len, &h, ch, n, &t, progress, ctx, err)) != RVS_OK)
        goto done;
    int64_t nnz = compact(ch, n, &t);
    if (symmetric && (nnz = mirror(ch, n, &t, nnz, h.symmetry == MM_SKEW)) < 0) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        goto done;
    }
    st = rvs_csr_from_coo(A, h.rows, h.cols, nnz, t.ri, t.ci, t.v, RVS_F64, err);
done:
    free(t.ri);
    free(t.ci);
    free(t.v);
    free(ch);
    return st;
}

/* Parse a whole Matrix Market text into A, reporting progress. */
rvs_status rvs_mm_parse_progress(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len,
                                 rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    return mm_parse_chunked(A, info, buf, len, 0, 0, progress, ctx, err);
}

/* Parse a whole Matrix Market text into A. */
rvs_status rvs_mm_parse(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len,
                        rvs_error *err)
{
    return rvs_mm_parse_progress(A, info, buf, len, NULL, NULL, err);
}
