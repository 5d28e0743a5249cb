/* mm_read.c - Matrix Market parser: the header (mm_head.c), then a parallel two-pass data section */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "mm_private.h"
#include "mm_scan.h"
#include "rvs_mem.h"
#include "rvs_omp.h"

/* One piece of the data section, cut at line boundaries, handled by one thread at a time. */
typedef struct {
    size_t begin, end;
    int64_t lines;                   /* newlines in [begin, end) */
    int64_t entries;                 /* data lines in [begin, end) */
    int64_t first_line;              /* line number of begin */
    int64_t first_entry;             /* index of its first data line among all data lines */
    int64_t store;                   /* where its triplets are written */
    int64_t kept;                    /* triplets it stored (array zeros are dropped) */
    rvs_error err;                   /* first error in this piece */
    int64_t odd_diag, odd_diag_line; /* diagonal entries the symmetry forbids (skew: any, hermitian:
                                          not real), the first one's line */
    int64_t big_int, big_int_line;   /* integers beyond 2^53, the first one's line */
} mm_chunk;

/* The data lines are parsed into rvs_triplets: 32-bit indices where rows or columns fit (16
 * bytes an entry instead of 24), values NULL for pattern general/symmetric (all ones). A
 * complex field keeps the imaginary parts beside them, in an array of their own (vi). */
typedef rvs_triplets mm_triplets;

/* Triplet k = (r, c, v). */
static inline void put_triplet(mm_triplets *t, int64_t k, int64_t r, int64_t c, double v)
{
    if (t->ri32)
        t->ri32[k] = (int32_t)r;
    else
        t->ri64[k] = r;
    if (t->ci32)
        t->ci32[k] = (int32_t)c;
    else
        t->ci64[k] = c;
    if (t->v)
        t->v[k] = v;
}

/* Row and column of triplet k. */
static inline int64_t triplet_row(const mm_triplets *t, int64_t k)
{
    return t->ri32 ? (int64_t)t->ri32[k] : t->ri64[k];
}

static inline int64_t triplet_col(const mm_triplets *t, int64_t k)
{
    return t->ci32 ? (int64_t)t->ci32[k] : t->ci64[k];
}

#define MM_PROGRESS_BYTES ((size_t)64 << 20)
#define MM_TEXT_BLOCK ((size_t)64 << 20) /* text counted, then parsed (then dropped), at a time */

/* Decimal [p, e) to double without strtod when that is provably correctly rounded (mm_scan.h):
 * the whole token must be the number. 1 when it applied; 0 leaves the token to strtod. */
static int parse_double_fast(const char *p, const char *e, double *out)
{
    return mm_scan_double(&p, e, out) && p == e;
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

/* Count newlines and data lines (neither blank nor comment) in [p, e), line by line. */
static void count_lines_careful(const char *p, const char *e, int64_t *lines, int64_t *entries)
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

/* 1 for the bytes a data line of numbers can start with: a digit, a sign or a point. */
static inline int starts_number(char c)
{
    return (unsigned)(c - '0') <= 9 || c == '+' || c == '-' || c == '.';
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* count_lines for the usual text, 64 bytes at a time: when every line starts with a digit, a
 * sign or a point, every line is a data line (a '%' later in a line does not make it a
 * comment). Line starts are few, so they are looked at one by one from the newline mask. 0 when
 * the text is not like that (then the careful count is used). */
static int count_lines_fast(const char *p, const char *e, int64_t *lines)
{
    const __m128i nlc = _mm_set1_epi8('\n');
    uint64_t carry = 1; /* the first byte starts a line */
    int64_t nl = 0;
    for (; e - p >= 64; p += 64) {
        uint64_t m = 0;
        for (int i = 0; i < 4; i++)
            m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p + i), nlc))
                 << (16 * i);
        for (uint64_t starts = m << 1 | carry; starts; starts &= starts - 1)
            if (!starts_number(p[__builtin_ctzll(starts)]))
                return 0;
        carry = m >> 63;
        nl += __builtin_popcountll(m);
    }
    for (; p < e; p++) {
        if (carry && !starts_number(*p))
            return 0;
        carry = *p == '\n';
        nl += carry;
    }
    *lines = nl;
    return 1;
}
#else
static int count_lines_fast(const char *p, const char *e, int64_t *lines)
{
    (void)p;
    (void)e;
    (void)lines;
    return 0;
}
#endif

/* Count newlines and data lines (neither blank nor comment) in [p, e). */
static void count_lines(const char *p, const char *e, int64_t *lines, int64_t *entries)
{
    int64_t nl;
    if (count_lines_fast(p, e, &nl)) { /* a last line without its newline is a line too */
        *lines = nl;
        *entries = nl + (e > p && e[-1] != '\n');
        return;
    }
    count_lines_careful(p, e, lines, entries);
}

/* Parse an index token into 0-based *out, checking 1..limit. */
static rvs_status parse_index(const char *p, const char *e, const char *what, int64_t limit, int64_t line,
                              int64_t *out, rvs_error *err)
{
    char s[48];
    int64_t v = 0;
    if (p == e)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: missing %s index", (long long)line, what);
    int r = parse_int64(p, e, &v);
    if (r == 1)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: %s index '%s' is not an integer", (long long)line, what,
                        snip(s, p, e));
    if (r == 2 || v < 1 || v > limit)
        return rvs_fail(err, RVS_ERR_RANGE, "line %lld: %s index %s out of range 1..%lld", (long long)line, what,
                        snip(s, p, e), (long long)limit);
    *out = v - 1;
    return RVS_OK;
}

/* Count an integer value beyond 2^53 in magnitude (a double cannot hold every such integer:
 * it is rounded) for the reader's warning. */
static void note_big_integer(mm_chunk *ch, int64_t line, uint64_t magnitude)
{
    if (magnitude <= ((uint64_t)1 << 53))
        return;
    if (ch->big_int++ == 0)
        ch->big_int_line = line;
}

/* Parse the whole token [p, e) as an unsigned decimal (an optional '+'). 0 ok, 1 not an
 * integer, 2 overflow, 3 negative. */
static int parse_uint64(const char *p, const char *e, uint64_t *out)
{
    if (p < e && *p == '-')
        return parse_int64(p, e, &(int64_t){0}) == 1 ? 1 : 3;
    if (p < e && *p == '+')
        p++;
    return parse_digits(p, e, out);
}

/* The error of an integer value token [p, e) that parse_int64 or parse_uint64 refused with r. */
static rvs_status integer_error(int r, const char *p, const char *e, int64_t line, rvs_error *err)
{
    char s[48];
    if (r == 2)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "line %lld: value '%s' overflows 64 bits", (long long)line,
                        snip(s, p, e));
    if (r == 3)
        return rvs_fail(err, RVS_ERR_RANGE, "line %lld: value '%s' is negative in an unsigned-integer matrix",
                        (long long)line, snip(s, p, e));
    return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: value '%s' is not an integer", (long long)line, snip(s, p, e));
}

/* Parse a value token by field (integer fields must hold integers, unsigned-integer ones
 * non-negative integers below 2^64; real ones as strtod reads them). */
static rvs_status parse_value(const char *p, const char *e, mm_field field, int64_t line, double *out, mm_chunk *ch,
                              rvs_error *err)
{
    char s[48];
    if (p == e)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: missing value", (long long)line);
    if (field == MM_INTEGER) {
        int64_t v;
        int r = parse_int64(p, e, &v);
        if (r)
            return integer_error(r, p, e, line, err);
        note_big_integer(ch, line, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
        *out = (double)v;
        return RVS_OK;
    }
    if (field == MM_UNSIGNED) {
        uint64_t v;
        int r = parse_uint64(p, e, &v);
        if (r)
            return integer_error(r, p, e, line, err);
        note_big_integer(ch, line, v);
        *out = (double)v;
        return RVS_OK;
    }
    int r = parse_double(p, e, out);
    if (r == 2)
        return rvs_fail(err, RVS_ERR_NOMEM, "line %lld: out of memory for a value of %zu characters",
                        (long long)line, (size_t)(e - p));
    if (r)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: value '%s' is not a number", (long long)line,
                        snip(s, p, e));
    return RVS_OK;
}

/* Fail unless only blanks remain on the line. */
static rvs_status expect_line_end(const char *p, const char *e, int64_t line, rvs_error *err)
{
    char s[48];
    p = skip_blanks(p, e);
    if (p == e)
        return RVS_OK;
    return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: unexpected text '%s' after the entry", (long long)line,
                    snip(s, p, token_end(p, e)));
}

/* Parse the value of a data line at p (two tokens, real and imaginary part, for the complex
 * field) into v[0] (and v[1]); *tp gets the end of the last token. */
static rvs_status parse_values(const char *p, const char *e, const mm_header *h, int64_t line, double v[2],
                               const char **tp, mm_chunk *ch, rvs_error *err)
{
    rvs_status st;
    const char *t = token_end(p, e);
    if ((st = parse_value(p, t, h->field, line, &v[0], ch, err)) != RVS_OK)
        return st;
    if (h->field == MM_COMPLEX) {
        p = skip_blanks(t, e);
        t = token_end(p, e);
        if (p == t)
            return rvs_fail(err, RVS_ERR_FORMAT,
                            "line %lld: missing imaginary part (a complex value is two numbers)", (long long)line);
        if ((st = parse_value(p, t, h->field, line, &v[1], ch, err)) != RVS_OK)
            return st;
    }
    *tp = t;
    return RVS_OK;
}

/* Count a diagonal entry (r, c, v) that the symmetry forbids for the warning: any in a
 * skew-symmetric file, one with an imaginary part in a hermitian file. It is kept as read
 * (scipy and fast_matrix_market keep it; the specification has none). */
static void count_odd_diagonal(const mm_header *h, int64_t r, int64_t c, const double v[2], int64_t line,
                               mm_chunk *ch)
{
    if (r == c && (h->symmetry == MM_SKEW || (h->symmetry == MM_HERMITIAN && v[1] != 0.0)) && ch->odd_diag++ == 0)
        ch->odd_diag_line = line;
}

/* Parse one coordinate data line [p, e) into (*r, *c, v[0] (+ i v[1] when complex)). */
static rvs_status parse_coordinate_line(const char *p, const char *e, const mm_header *h, int64_t line, int64_t *r,
                                        int64_t *c, double v[2], mm_chunk *ch, rvs_error *err)
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
    v[0] = 1.0;
    v[1] = 0.0;
    if (h->field != MM_PATTERN && (st = parse_values(skip_blanks(t, e), e, h, line, v, &t, ch, err)) != RVS_OK)
        return st;
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
    /* column j starts at S(j) = j*n - j*(j-1)/2 (symmetric, hermitian) or j*(n-1) - j*(j-1)/2 (skew) */
    int64_t n = h->symmetry == MM_SKEW ? h->rows - 1 : h->rows; /* hermitian: as symmetric */
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

/* Fast path for an ordinary coordinate line at p: fills the entry (v[1]: the imaginary part
 * of a complex one) and returns the start of the next line, or NULL when the line needs the
 * careful path. */
static const char *fast_coordinate_line(const char *p, const char *e, const mm_header *h, int64_t *r, int64_t *c,
                                        double *v)
{
    if (!mm_scan_index(&p, e, h->rows, r) || !mm_scan_index(&p, e, h->cols, c))
        return NULL;
    if (h->field == MM_PATTERN) {
        *v = 1.0;
    } else {
        if (!mm_scan_double(&p, e, v))
            return NULL;
        if (h->field == MM_COMPLEX) {
            if (p == e || !is_blank(*p))
                return NULL;
            while (p < e && is_blank(*p))
                p++;
            if (!mm_scan_double(&p, e, v + 1))
                return NULL;
        }
    }
    while (p < e && is_blank(*p))
        p++;
    if (p < e && *p != '\n')
        return NULL;
    if (*r == *c && (h->symmetry == MM_SKEW || (h->symmetry == MM_HERMITIAN && v[1] != 0.0)))
        return NULL; /* counted for a warning, by the careful path */
    return p < e ? p + 1 : e;
}

/* Pass 2 over one chunk: parse its data lines into the triplets at ch->store (imaginary
 * parts into vi for a complex field). */
static void parse_chunk(const char *buf, mm_chunk *ch, const mm_header *h, mm_triplets *t, double *vi)
{
    const char *p = buf + ch->begin, *end = buf + ch->end;
    int64_t line = ch->first_line, k = ch->store, ar = 0, ac = 0;
    /* the fast path reads decimals as doubles: not for the integer fields, whose values it
     * would not check */
    const int fast = h->format == MM_COORDINATE &&
                     (h->field == MM_REAL || h->field == MM_PATTERN || h->field == MM_COMPLEX);
    if (h->format == MM_ARRAY && ch->entries > 0)
        array_position(h, ch->first_entry, &ar, &ac);
    while (p < end) {
        if (fast && (unsigned)(*p - '0') <= 9) {
            int64_t r, c;
            double v[2];
            const char *next = fast_coordinate_line(p, end, h, &r, &c, v);
            if (next) {
                if (vi)
                    vi[k] = v[1];
                put_triplet(t, k++, r, c, v[0]);
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
            double v[2] = {0.0, 0.0};
            if (h->format == MM_COORDINATE) {
                if (parse_coordinate_line(s, le, h, line, &r, &c, v, ch, &ch->err) != RVS_OK)
                    break;
            } else {
                const char *te;
                if (parse_values(s, le, h, line, v, &te, ch, &ch->err) != RVS_OK ||
                    expect_line_end(te, le, line, &ch->err) != RVS_OK)
                    break;
                r = ar;
                c = ac;
                array_next(h, &ar, &ac);
            }
            count_odd_diagonal(h, r, c, v, line, ch);
            /* Dense storage has no explicit entries: array zeros are not stored. Coordinate
             * zeros are explicit entries and are kept. */
            if (h->format == MM_COORDINATE || v[0] != 0.0 || v[1] != 0.0) {
                if (vi)
                    vi[k] = v[1];
                put_triplet(t, k++, r, c, v[0]);
            }
        }
        if (!q)
            break;
        line++;
        p = q + 1;
    }
    ch->kept = k - ch->store;
}

/* Cut [begin, len) into n chunks that end just after a newline (or at len). Targets are fixed
 * fractions of the span, not offsets from the previous chunk's end: a chunk stretched to a far
 * line end must not push the later ones past the buffer. */
static void cut_chunks(const char *buf, size_t begin, size_t len, mm_chunk *ch, int n)
{
    size_t start = begin, data = len - begin;
    for (int i = 0; i < n; i++) {
        size_t end = i == n - 1 ? len : begin + (size_t)((unsigned __int128)data * (unsigned)(i + 1) / (unsigned)n);
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

/* Drop the pages wholly inside [p, p + n) from this process: text already parsed, whose
 * mapping (a file's, or a buffer of our own) stays valid but need not stay resident. */
void mm_release_text(const char *p, size_t n)
{
    rvs_mem_give_back(p, n);
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

/* Fail unless cap triplets of a rows x cols matrix can be read and built into a CSR within
 * the memory available (rvs_mem.h). Alive together at the peak: the triplets (row and column
 * indices of 4 or 8 bytes, an f64 value, which a pattern file gets when they become the CSR's)
 * and the CSR's row pointers; when the rows came out of order, the placement's copy replaces the
 * triplets page by page (rvs_csr_from_triplets) and its per-thread scratch is about 1/64 of an
 * entry's bytes. The row-sort scratch (twice a thread's longest row) comes after the row indices
 * are freed and fits in what they held unless one row holds most of the entries. The claims
 * grow with the data: a declared count that lies costs nothing. */
rvs_status mm_claim_peak(int64_t cap, int64_t rows, int64_t cols, rvs_error *err)
{
    char what[96];
    double e = (double)cap, ci = cols > INT32_MAX ? 8.0 : 4.0, ri = rows > INT32_MAX ? 8.0 : 4.0;
    double peak = e * (ri + ci + 8.0) * (1.0 + 1.0 / 64.0) + 16.0 * ((double)rows + 1.0);
    snprintf(what, sizeof what, "%lld entries of a %lld x %lld matrix", (long long)cap, (long long)rows,
             (long long)cols);
    return rvs_mem_claim(peak, what, err);
}

/* Room for cap triplets (owned: the CSR builder takes them); t grows by realloc, which moves
 * large blocks by remapping them. */
static rvs_status triplets_reserve(mm_triplets *t, int64_t cap, int64_t rows, int64_t cols, int values,
                                   rvs_error *err)
{
    size_t n = (size_t)(cap > 0 ? cap : 1);
    rvs_status st;
    t->owned = 1;
    t->in_range = 1; /* every index is checked against the size line as it is parsed */
    if ((uint64_t)cap > SIZE_MAX / sizeof(int64_t))
        return rvs_fail(err, RVS_ERR_OVERFLOW, "%lld entries are too many for this machine", (long long)cap);
    if ((st = mm_claim_peak(cap, rows, cols, err)) != RVS_OK)
        return st;
#define GROW(a, wanted)                                                                            \
    if (wanted) {                                                                                  \
        void *g = t->a ? realloc(t->a, n * sizeof *t->a) : alloc_large(n * sizeof *t->a);          \
        if (!g)                                                                                    \
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld entries", (long long)cap); \
        t->a = g;                                                                                  \
    }
    GROW(ri32, rows <= INT32_MAX)
    GROW(ri64, rows > INT32_MAX)
    GROW(ci32, cols <= INT32_MAX)
    GROW(ci64, cols > INT32_MAX)
    GROW(v, values)
#undef GROW
    return RVS_OK;
}

/* Free what t holds. */
static void triplets_free(mm_triplets *t)
{
    free(t->ri32);
    free(t->ri64);
    free(t->ci32);
    free(t->ci64);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* Move k triplets from src down to dst (dst < src). */
static void move_triplets(mm_triplets *t, int64_t dst, int64_t src, int64_t k)
{
#define MOVE(a) \
    if (t->a)   \
    memmove(t->a + dst, t->a + src, (size_t)k * sizeof *t->a)
    MOVE(ri32);
    MOVE(ri64);
    MOVE(ci32);
    MOVE(ci64);
    MOVE(v);
#undef MOVE
}

/* Parsing state of a data section that may arrive in blocks (mm_private.h). */
struct mm_blocks {
    mm_header h;
    mm_triplets t;
    double *vi;      /* imaginary parts beside t (complex field), else NULL */
    int64_t cap;     /* triplets t has room for */
    int64_t entries; /* data lines in the blocks so far */
    int64_t kept;    /* triplets stored */
    int64_t line;    /* line number of the next block's first byte */
    int counting;    /* more data lines than declared: later blocks are only counted */
    int release;     /* MM_TEXT_* */
    int chunks;      /* chunks a block is cut into (0: as suit the threads and the size) */
    rvs_error first; /* the first bad data line, held back until the count is known */
    rvs_progress_fn progress;
    void *ctx;
    uint64_t done, total, last;
    int64_t odd_diag, odd_diag_line, big_int, big_int_line; /* for the warnings */
};

/* Room for cap imaginary parts beside the triplets (complex field only). */
static rvs_status imag_reserve(mm_blocks *B, int64_t cap, rvs_error *err)
{
    if (B->h.field != MM_COMPLEX)
        return RVS_OK;
    double *g = realloc(B->vi, (size_t)(cap > 0 ? cap : 1) * sizeof *g);
    if (!g)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld complex entries", (long long)cap);
    B->vi = g;
    return RVS_OK;
}

/* Start parsing the data section after header h. */
rvs_status mm_blocks_begin(mm_blocks **B, const mm_header *h, int release, rvs_progress_fn progress, void *ctx,
                           uint64_t total, rvs_error *err)
{
    *B = calloc(1, sizeof **B);
    if (!*B)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    (*B)->h = *h;
    (*B)->line = h->data_line;
    (*B)->release = release;
    (*B)->progress = progress;
    (*B)->ctx = ctx;
    (*B)->total = total;
    return RVS_OK;
}

/* Pass 1 over a block's chunks (counts), numbering their lines and entries after what came
 * before; returns the block's data lines. */
static int64_t count_chunks(mm_blocks *B, const char *buf, mm_chunk *ch, int n)
{
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int i = 0; i < n; i++) {
        count_lines(buf + ch[i].begin, buf + ch[i].end, &ch[i].lines, &ch[i].entries);
    }
    int64_t line = B->line, entries = B->entries;
    for (int i = 0; i < n; i++) {
        ch[i].first_line = line;
        ch[i].first_entry = entries;
        ch[i].store = B->kept + (entries - B->entries);
        line += ch[i].lines;
        entries += ch[i].entries;
    }
    B->line = line;
    return entries - B->entries;
}

/* Pass 2 (parse every chunk), reporting progress from the master thread; the first error
 * in file order wins, so line numbers do not depend on scheduling. */
static rvs_status parse_chunks(mm_blocks *B, const char *buf, mm_chunk *ch, int n, rvs_error *err)
{
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int i = 0; i < n; i++) {
        uint64_t now;
        parse_chunk(buf, &ch[i], &B->h, &B->t, B->vi);
#pragma omp atomic capture
        now = B->done += ch[i].end - ch[i].begin;
        if (B->progress && omp_get_thread_num() == 0 && now - B->last >= MM_PROGRESS_BYTES) {
            B->last = now;
            B->progress(B->ctx, now, B->total);
        }
    }
    for (int i = 0; i < n; i++)
        if (ch[i].err.code != RVS_OK) {
            if (err)
                *err = ch[i].err;
            return ch[i].err.code;
        }
    for (int i = 0; i < n; i++) { /* the warnings' counts and first lines, in file order */
        if (ch[i].odd_diag && B->odd_diag == 0)
            B->odd_diag_line = ch[i].odd_diag_line;
        if (ch[i].big_int && B->big_int == 0)
            B->big_int_line = ch[i].big_int_line;
        B->odd_diag += ch[i].odd_diag;
        B->big_int += ch[i].big_int;
    }
    /* close the gaps array zeros left: the block's triplets follow the earlier ones */
    for (int i = 0; i < n; i++) {
        if (ch[i].store != B->kept && ch[i].kept > 0) {
            move_triplets(&B->t, B->kept, ch[i].store, ch[i].kept);
            if (B->vi)
                memmove(B->vi + B->kept, B->vi + ch[i].store, (size_t)ch[i].kept * sizeof *B->vi);
        }
        B->kept += ch[i].kept;
    }
    return RVS_OK;
}

/* Parse the data lines of buf[0..len) (whole lines; the last may lack its newline only in
 * the last block, final = 1). A wrong count is known before the last block is parsed and
 * is reported first, as a whole-text parse reports it. */
rvs_status mm_blocks_parse(mm_blocks *B, const char *buf, size_t len, int final, rvs_error *err)
{
    const mm_header *h = &B->h;
    int n = 1;
    /* several chunks per thread balance the load; none above 64 MB keeps progress flowing */
    if (len > ((size_t)1 << 16))
        n = 4 * omp_get_max_threads();
    if ((size_t)n < len / MM_PROGRESS_BYTES + 1)
        n = (int)(len / MM_PROGRESS_BYTES + 1);
    if (B->chunks > 0)
        n = B->chunks;
    mm_chunk *ch = calloc((size_t)n, sizeof *ch);
    if (!ch)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    cut_chunks(buf, 0, len, ch, n);
    int64_t more = count_chunks(B, buf, ch, n);
    rvs_status st = RVS_OK;
    if (final && B->entries + more != h->entries) {
        B->counting = 1; /* mm_blocks_finish says so */
    } else if (B->counting || B->entries + more > h->entries) {
        B->counting = 1; /* the count is wrong: finish counting for the message, store nothing */
    } else {
        int64_t need = B->kept + more, cap = B->cap;
        if (need > cap) { /* grow by doubling, but never past what the header declares */
            cap = cap * 2 > need ? cap * 2 : need;
            cap = cap < h->entries ? cap : h->entries;
            st = triplets_reserve(&B->t, cap, h->rows, h->cols, h->field != MM_PATTERN || h->symmetry == MM_SKEW,
                                  err);
            if (st == RVS_OK)
                st = imag_reserve(B, cap, err);
            if (st == RVS_OK)
                B->cap = cap;
        }
        if (st == RVS_OK) {
            st = parse_chunks(B, buf, ch, n, &B->first);
            if (st == RVS_ERR_NOMEM) {
                if (err)
                    *err = B->first;
            } else if (st != RVS_OK) {
                /* a whole-text parse counts every line before it parses one, so a wrong
                 * count comes before a bad line: the later blocks are only counted, and
                 * mm_blocks_finish reports whichever is first by that rule, whatever the cut */
                B->counting = 1;
                st = RVS_OK;
            }
        }
    }
    if (B->release) /* once a block, not once a chunk: each call stops every thread's TLB */
        mm_release_text(buf, len);
    B->entries += more;
    free(ch);
    return st;
}

/* Append the transpose of every off-diagonal triplet (negated for skew, conjugated for
 * hermitian): each thread counts its stretch, then writes its mirrors after those of the
 * stretches before it. Complex files only: real ones are mirrored by the CSR builder as it
 * places the entries (rvs_triplets.mirror), so the mirrors never stand as triplets. */
static rvs_status mirror(mm_blocks *B, rvs_error *err)
{
    mm_triplets *t = &B->t;
    const int nt = omp_get_max_threads(), negate = B->h.symmetry == MM_SKEW,
              conjugate = B->h.symmetry == MM_HERMITIAN;
    const int64_t kept = B->kept;
    /* nt stretches, each counted and then placed by whichever thread takes it: a team may be
     * smaller than asked, and differ between the two regions (OMP_DYNAMIC) */
    int64_t *off = calloc((size_t)nt + 1, sizeof *off);
    if (!off)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
#pragma omp parallel num_threads(nt)
    for (int u = omp_get_thread_num(); u < nt; u += omp_get_num_threads()) {
        int64_t m = 0;
        for (int64_t k = kept * u / nt; k < kept * (u + 1) / nt; k++)
            m += triplet_row(t, k) != triplet_col(t, k);
        off[u + 1] = m;
    }
    for (int u = 0; u < nt; u++)
        off[u + 1] += off[u];
    int64_t total = kept + off[nt];
    rvs_status st = RVS_OK;
    if (total > B->cap && (st = triplets_reserve(t, total, B->h.rows, B->h.cols, t->v != NULL, err)) == RVS_OK &&
        (st = imag_reserve(B, total, err)) == RVS_OK)
        B->cap = total;
    if (st == RVS_OK) {
#pragma omp parallel num_threads(nt)
        for (int u = omp_get_thread_num(); u < nt; u += omp_get_num_threads()) {
            int64_t o = kept + off[u];
            for (int64_t k = kept * u / nt; k < kept * (u + 1) / nt; k++) {
                int64_t r = triplet_row(t, k), c = triplet_col(t, k);
                if (r == c)
                    continue;
                if (B->vi)
                    B->vi[o] = negate || conjugate ? -B->vi[k] : B->vi[k];
                put_triplet(t, o++, c, r, t->v ? (negate ? -t->v[k] : t->v[k]) : 1.0);
            }
        }
        B->kept = total;
    }
    free(off);
    return st;
}

/* A (c128) from the triplets and their imaginary parts: both parts go through the complex
 * builder with 64-bit indices (rvs_csr_from_coo_complex). */
static rvs_status complex_csr(mm_blocks *B, rvs_csr *A, rvs_error *err)
{
    const mm_triplets *t = &B->t;
    const int64_t n = B->kept;
    int64_t *ri = malloc((size_t)(n ? n : 1) * sizeof *ri), *ci = malloc((size_t)(n ? n : 1) * sizeof *ci);
    double *v = malloc((size_t)(n ? n : 1) * 2 * sizeof *v);
    rvs_status st = ri && ci && v
                        ? RVS_OK
                        : rvs_fail(err, RVS_ERR_NOMEM, "out of memory for %lld complex entries", (long long)n);
    if (st == RVS_OK) {
#pragma omp parallel for schedule(static) if (n > RVS_OMP_MIN_WORK)
        for (int64_t k = 0; k < n; k++) {
            ri[k] = triplet_row(t, k);
            ci[k] = triplet_col(t, k);
            v[2 * k] = t->v[k];
            v[2 * k + 1] = B->vi[k];
        }
        st = rvs_csr_from_coo_complex(A, B->h.rows, B->h.cols, n, ri, ci, v, RVS_C128, err);
    }
    free(ri);
    free(ci);
    free(v);
    return st;
}

/* The declared count checked, symmetric entries mirrored, the CSR built; frees B. */
rvs_status mm_blocks_finish(mm_blocks *B, rvs_csr *A, rvs_mm_info *info, rvs_error *err)
{
    rvs_status st = RVS_OK;
    memset(A, 0, sizeof *A);
    if (B->entries != B->h.entries)
        st = rvs_fail(err, RVS_ERR_FORMAT, "declares %lld entries, file has %lld", (long long)B->h.entries,
                      (long long)B->entries);
    else if (B->first.code != RVS_OK) {
        st = B->first.code;
        if (err)
            *err = B->first;
    }
    if (st == RVS_OK && B->h.symmetry != MM_GENERAL && B->h.field == MM_COMPLEX)
        st = mirror(B, err);
    else if (st == RVS_OK && B->h.symmetry != MM_GENERAL) /* mirrored as the CSR is placed */
        B->t.mirror = B->h.symmetry == MM_SKEW ? -1 : 1;
    if (st == RVS_OK) {
        if (B->progress)
            B->progress(B->ctx, B->total, B->total);
        if (B->h.field == MM_COMPLEX && (B->kept == 0 || B->vi))
            st = B->kept == 0
                     ? rvs_csr_from_coo_complex(A, B->h.rows, B->h.cols, 0, NULL, NULL, NULL, RVS_C128, err)
                     : complex_csr(B, A, err);
        else
            st = rvs_csr_from_triplets(A, B->h.rows, B->h.cols, B->kept, &B->t, RVS_F64, err);
    }
    if (st == RVS_OK && info) {
        const int skew = B->h.symmetry == MM_SKEW;
        info->skew_diagonal = skew ? B->odd_diag : 0;
        info->skew_diagonal_line = skew ? B->odd_diag_line : 0;
        info->hermitian_diagonal = skew ? 0 : B->odd_diag;
        info->hermitian_diagonal_line = skew ? 0 : B->odd_diag_line;
        info->big_integers = B->big_int;
        info->big_integer_line = B->big_int_line;
    }
    mm_blocks_free(B);
    return st;
}

/* Free B and what it holds (NULL is fine). */
void mm_blocks_free(mm_blocks *B)
{
    if (!B)
        return;
    triplets_free(&B->t);
    free(B->vi);
    free(B);
}

/* The reader's warnings, one line each. */
int rvs_mm_warning(const rvs_mm_info *info, int which, char *buf, size_t n)
{
    if (which == 0 && info->skew_diagonal > 0) {
        snprintf(buf, n,
                 "warning: line %lld: skew-symmetric file with %lld diagonal entr%s: kept as read, "
                 "as scipy and fast_matrix_market do",
                 (long long)info->skew_diagonal_line, (long long)info->skew_diagonal,
                 info->skew_diagonal == 1 ? "y" : "ies");
        return 1;
    }
    if (which == 1 && info->big_integers > 0) {
        snprintf(buf, n,
                 "warning: line %lld: %lld integer value%s beyond 2^53 in magnitude, rounded to the "
                 "nearest double",
                 (long long)info->big_integer_line, (long long)info->big_integers,
                 info->big_integers == 1 ? "" : "s");
        return 1;
    }
    if (which == 2 && info->hermitian_diagonal > 0) {
        snprintf(buf, n,
                 "warning: line %lld: hermitian file with %lld diagonal entr%s not real: kept as read, "
                 "as scipy and fast_matrix_market do",
                 (long long)info->hermitian_diagonal_line, (long long)info->hermitian_diagonal,
                 info->hermitian_diagonal == 1 ? "y" : "ies");
        return 1;
    }
    return 0;
}

/* Parse a whole text with the data section in blocks of about block bytes (whole lines), each
 * cut into chunks (0: as suit the threads and the size). */
static rvs_status parse_in_blocks(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, int release,
                                  size_t block, int chunks, rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_header h;
    mm_blocks *B = NULL;
    memset(A, 0, sizeof *A);
    memset(&h, 0, sizeof h);
    if (info)
        memset(info, 0, sizeof *info);
    rvs_status st = mm_parse_header(buf, len, &h, info, err);
    if (st == RVS_OK)
        st = mm_blocks_begin(&B, &h, release, progress, ctx, len, err);
    if (st == RVS_OK) {
        B->done = h.data;
        B->chunks = chunks;
    }
    for (size_t at = h.data; st == RVS_OK && at < len;) {
        size_t end = len - at > block ? at + block : len;
        const char *nl = end < len ? memchr(buf + end, '\n', len - end) : NULL;
        end = nl ? (size_t)(nl + 1 - buf) : len;
        st = mm_blocks_parse(B, buf + at, end - at, end == len, err);
        at = end;
    }
    if (st == RVS_OK && len == h.data)
        st = mm_blocks_parse(B, buf + len, 0, 1, err);
    if (st == RVS_OK) {
        st = mm_blocks_finish(B, A, info, err);
        B = NULL;
    }
    mm_blocks_free(B);
    return st;
}

/* Parse a whole Matrix Market text; the data section in blocks of MM_TEXT_BLOCK bytes (whole
 * lines), so that text being dropped as it is parsed never holds more than a block. */
rvs_status mm_parse_text(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, int release,
                         rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    return parse_in_blocks(A, info, buf, len, release, MM_TEXT_BLOCK, 0, progress, ctx, err);
}

/* mm_parse_text with a given cut (see mm_private.h). */
rvs_status mm_parse_cut(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, size_t block_bytes, int chunks,
                        rvs_error *err)
{
    return parse_in_blocks(A, info, buf, len, MM_TEXT_KEEP, block_bytes ? block_bytes : MM_TEXT_BLOCK, chunks, NULL,
                           NULL, err);
}

/* Parse a whole Matrix Market text into A, reporting progress. */
rvs_status rvs_mm_parse_progress(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len,
                                 rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    return mm_parse_text(A, info, buf, len, MM_TEXT_KEEP, progress, ctx, err);
}

/* Parse a whole Matrix Market text into A. */
rvs_status rvs_mm_parse(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, rvs_error *err)
{
    return mm_parse_text(A, info, buf, len, MM_TEXT_KEEP, NULL, NULL, err);
}
