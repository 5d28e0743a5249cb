/* mm_head.c - Matrix Market banner and size line: what the file declares, judged before any data is read */
#include <stdio.h>
#include <strings.h>
#include "mm_private.h"
#include "rvs_mem.h"

/* Compare a token with a keyword, ignoring case. */
static int token_is(const char *p, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - p) == n && strncasecmp(p, word, n) == 0;
}

/* Parse the banner line [p, e) into h and info. */
static rvs_status parse_banner(const char *p, const char *e, mm_header *h, rvs_mm_info *info, rvs_error *err)
{
    const char *tok[6], *tend[6];
    char s[48];
    int n = 0;
    while (n < 6) {
        p = skip_blanks(p, e);
        if (p == e)
            break;
        tok[n] = p;
        tend[n] = p = token_end(p, e);
        n++;
    }
    if (n == 0 || !token_is(tok[0], tend[0], "%%MatrixMarket"))
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "line 1: missing banner '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY'");
    if (n != 5)
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "line 1: banner must be '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY'");
    if (!token_is(tok[1], tend[1], "matrix"))
        return rvs_fail(err, RVS_ERR_FORMAT, "line 1: unknown object '%s' (want matrix)", snip(s, tok[1], tend[1]));
    if (token_is(tok[2], tend[2], "coordinate"))
        h->format = MM_COORDINATE;
    else if (token_is(tok[2], tend[2], "array"))
        h->format = MM_ARRAY;
    else
        return rvs_fail(err, RVS_ERR_FORMAT, "line 1: unknown format '%s' (want coordinate or array)",
                        snip(s, tok[2], tend[2]));
    if (token_is(tok[3], tend[3], "real"))
        h->field = MM_REAL;
    else if (token_is(tok[3], tend[3], "integer"))
        h->field = MM_INTEGER;
    else if (token_is(tok[3], tend[3], "pattern"))
        h->field = MM_PATTERN;
    else if (token_is(tok[3], tend[3], "complex"))
        h->field = MM_COMPLEX;
    else if (token_is(tok[3], tend[3], "unsigned-integer"))
        h->field = MM_UNSIGNED;
    else
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "line 1: unknown field '%s' (want real, integer, pattern, complex or unsigned-integer)",
                        snip(s, tok[3], tend[3]));
    if (token_is(tok[4], tend[4], "general"))
        h->symmetry = MM_GENERAL;
    else if (token_is(tok[4], tend[4], "symmetric"))
        h->symmetry = MM_SYMMETRIC;
    else if (token_is(tok[4], tend[4], "skew-symmetric"))
        h->symmetry = MM_SKEW;
    else if (token_is(tok[4], tend[4], "hermitian"))
        h->symmetry = MM_HERMITIAN;
    else
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "line 1: unknown symmetry '%s' (want general, symmetric, skew-symmetric or hermitian)",
                        snip(s, tok[4], tend[4]));
    if (h->format == MM_ARRAY && h->field == MM_PATTERN)
        return rvs_fail(err, RVS_ERR_FORMAT, "line 1: an array cannot be a pattern");
    /* the conjugate transpose of a real matrix is its transpose: the specification (and NIST
     * mmio's mm_is_valid) allows hermitian with complex values only */
    if (h->symmetry == MM_HERMITIAN && h->field != MM_COMPLEX)
        return rvs_fail(err, RVS_ERR_FORMAT, "line 1: hermitian needs the complex field, not %s",
                        snip(s, tok[3], tend[3]));
    if (h->symmetry == MM_SKEW && h->field == MM_UNSIGNED)
        return rvs_fail(err, RVS_ERR_FORMAT, "line 1: a skew-symmetric matrix cannot be unsigned");
    if (info) {
        static const char *const fmt[] = {"coordinate", "array"};
        static const char *const fld[] = {"real", "integer", "pattern", "complex", "unsigned-integer"};
        static const char *const sym[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
        snprintf(info->format, sizeof info->format, "%s", fmt[h->format]);
        snprintf(info->field, sizeof info->field, "%s", fld[h->field]);
        snprintf(info->symmetry, sizeof info->symmetry, "%s", sym[h->symmetry]);
    }
    return RVS_OK;
}

/* Fail before any data is read when the rows alone cannot be built in the memory available:
 * building the CSR holds two arrays of rows + 1 (row pointers, row scratch; csr_from_coo.c). */
rvs_status mm_check_rows_fit(int64_t rows, rvs_error *err)
{
    char what[48];
    snprintf(what, sizeof what, "%lld rows", (long long)rows);
    return rvs_mem_claim(16.0 * ((double)rows + 1.0), what, err);
}

/* Values an array of h's shape and symmetry holds, into h->entries. */
static rvs_status array_entries(mm_header *h, rvs_error *err)
{
    int64_t n = h->rows, count = 0;
    int ovf;
    if (h->symmetry == MM_GENERAL)
        ovf = __builtin_mul_overflow(h->rows, h->cols, &count);
    else if (h->symmetry == MM_SYMMETRIC || h->symmetry == MM_HERMITIAN)
        ovf = __builtin_mul_overflow(n % 2 ? n : n / 2, n % 2 ? (n + 1) / 2 : n + 1, &count);
    else
        ovf = n > 0 && __builtin_mul_overflow(n % 2 ? n : n / 2, n % 2 ? (n - 1) / 2 : n - 1, &count);
    if (h->symmetry == MM_SKEW && n == 0)
        count = 0;
    if (ovf)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "array of %lld x %lld values overflows 64 bits", (long long)h->rows,
                        (long long)h->cols);
    h->entries = count;
    return RVS_OK;
}

/* Parse the size line [p, e) (line number line) into h. */
static rvs_status parse_size_line(const char *p, const char *e, int64_t line, mm_header *h, rvs_error *err)
{
    int want = h->format == MM_COORDINATE ? 3 : 2, n = 0;
    int64_t v[3] = {0, 0, 0};
    char s[48];
    for (;;) {
        p = skip_blanks(p, e);
        if (p == e)
            break;
        const char *t = token_end(p, e);
        if (n == want)
            return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: unexpected text '%s' after the size line",
                            (long long)line, snip(s, p, t));
        int r = parse_int64(p, t, &v[n]);
        if (r == 2)
            return rvs_fail(err, RVS_ERR_OVERFLOW, "line %lld: size '%s' overflows 64 bits", (long long)line,
                            snip(s, p, t));
        if (r == 1 || v[n] < 0)
            return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: bad size '%s' (want %s)", (long long)line,
                            snip(s, p, t), want == 3 ? "ROWS COLS ENTRIES" : "ROWS COLS");
        n++;
        p = t;
    }
    if (n != want)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: size line needs %s", (long long)line,
                        want == 3 ? "ROWS COLS ENTRIES" : "ROWS COLS");
    h->rows = v[0];
    h->cols = v[1];
    h->entries = v[2];
    static const char *const sym[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
    if (h->symmetry != MM_GENERAL && h->rows != h->cols)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: a %s matrix must be square, not %lld x %lld",
                        (long long)line, sym[h->symmetry], (long long)h->rows, (long long)h->cols);
    rvs_status st = mm_check_rows_fit(h->rows, err);
    if (st == RVS_OK && h->format == MM_ARRAY)
        st = array_entries(h, err);
    return st;
}

/* Parse banner, comments and size line; h->data is where the data section starts. */
rvs_status mm_parse_header(const char *buf, size_t len, mm_header *h, rvs_mm_info *info, rvs_error *err)
{
    const char *p = buf, *e = buf + len;
    int64_t line = 1;
    while (p < e && (is_blank(*p) || *p == '\n'))
        p++;
    if (p == e)
        return rvs_fail(err, RVS_ERR_EMPTY, "empty file");
    p = buf;
    const char *q = memchr(p, '\n', len);
    rvs_status st = parse_banner(p, q ? q : e, h, info, err);
    if (st != RVS_OK)
        return st;
    while (q) {
        p = q + 1;
        line++;
        q = memchr(p, '\n', (size_t)(e - p));
        const char *le = q ? q : e;
        const char *s = skip_blanks(p, le);
        if (s == le || *s == '%')
            continue;
        if ((st = parse_size_line(s, le, line, h, err)) != RVS_OK)
            return st;
        h->data = q ? (size_t)(q + 1 - buf) : len;
        h->data_line = line + 1;
        if (info) {
            info->rows = h->rows;
            info->cols = h->cols;
            info->entries = h->entries;
        }
        return RVS_OK;
    }
    return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: missing size line after the banner", (long long)line);
}

/* Line 1 while it is still arriving (no newline yet): fail as soon as its first token cannot
 * become "%%MatrixMarket", with parse_banner's message. */
static rvs_status judge_partial_banner(const char *buf, size_t len, rvs_error *err)
{
    static const char banner[] = "%%MatrixMarket";
    const char *s = skip_blanks(buf, buf + len), *t = token_end(s, buf + len);
    size_t n = (size_t)(t - s), want = sizeof banner - 1;
    if (s == t)
        return RVS_OK;
    if (n > want || strncasecmp(s, banner, n) != 0 || (t < buf + len && n != want)) {
        mm_header h;
        return parse_banner(buf, buf + len, &h, NULL, err);
    }
    return RVS_OK;
}

/* Judge the banner and size line of a text still arriving (see mm_private.h). */
rvs_status mm_head_feed(mm_head_state *hs, const char *buf, size_t len, rvs_error *err)
{
    rvs_status st = RVS_OK;
    if (hs->stage == 0) {
        const char *e = buf + len, *p = buf, *q = memchr(buf, '\n', len);
        while (p < e && (is_blank(*p) || *p == '\n'))
            p++;
        if (p == e)
            return RVS_OK; /* only blanks so far: empty, or not yet known */
        if (!q)
            return judge_partial_banner(buf, len, err);
        if ((st = parse_banner(buf, q, &hs->h, NULL, err)) != RVS_OK)
            return st;
        hs->stage = 1;
        hs->pos = (size_t)(q + 1 - buf);
        hs->line = 2;
    }
    while (hs->stage == 1) {
        const char *p = buf + hs->pos, *q = memchr(p, '\n', len - hs->pos);
        if (!q)
            return RVS_OK; /* the line is not complete yet */
        const char *s = skip_blanks(p, q);
        if (s < q && *s != '%') {
            if ((st = parse_size_line(s, q, hs->line, &hs->h, err)) != RVS_OK)
                return st;
            hs->stage = 2;
        } else {
            hs->pos = (size_t)(q + 1 - buf);
            hs->line++;
        }
    }
    return RVS_OK;
}
