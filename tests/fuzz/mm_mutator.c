/* mm_mutator.c - libFuzzer's custom mutator for Matrix Market text (fuzz_mm's input: a mode byte,
 * then the text): the text is cut into lines of tokens, blanks and line ends, and tokens change as
 * tokens (banner words, sizes, indices, values, entry counts, comments, blank lines, blanks, line
 * ends), so that most mutations stay text the reader reads far into. After lines come or go, the
 * entry count follows them most of the time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_rng.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#define MAXTOK 6 /* tokens a line keeps apart; the rest of a longer line stays in its last blank */

typedef struct {
    uint32_t off, len; /* into the pool */
} span;

typedef struct {
    int ntok;
    span tok[MAXTOK];
    span sep[MAXTOK + 1]; /* sep[0] leads, sep[i] follows token i - 1 */
    span eol;
} line;

typedef struct {
    char *pool;
    size_t used, cap;
    line *l;
    int n, cap_lines;
    fuzz_rng rng;
} doc;

static uint64_t next(doc *d)
{
    return fuzz_next(&d->rng);
}

static size_t below(doc *d, size_t n)
{
    return fuzz_below(&d->rng, n);
}

#define PICK(d, list) ((list)[below(d, sizeof(list) / sizeof *(list))])

/* A copy of s[0..n) in the pool (an empty span when out of memory). */
static span add(doc *d, const char *s, size_t n)
{
    span sp = {0, 0};
    if (d->used + n > d->cap) {
        size_t cap = 2 * (d->used + n) + 64;
        char *grown = realloc(d->pool, cap);
        if (!grown)
            return sp;
        d->pool = grown;
        d->cap = cap;
    }
    if (n)
        memcpy(d->pool + d->used, s, n);
    sp.off = (uint32_t)d->used;
    sp.len = (uint32_t)n;
    d->used += n;
    return sp;
}

static span add_str(doc *d, const char *s)
{
    return add(d, s, strlen(s));
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

/* Insert an empty line before at; its address, or NULL. */
static line *insert_line(doc *d, int at)
{
    if (d->n == d->cap_lines) {
        int cap = d->cap_lines ? 2 * d->cap_lines : 64;
        line *grown = realloc(d->l, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        d->l = grown;
        d->cap_lines = cap;
    }
    memmove(&d->l[at + 1], &d->l[at], (size_t)(d->n - at) * sizeof *d->l);
    memset(&d->l[at], 0, sizeof *d->l);
    d->n++;
    return &d->l[at];
}

/* Cut text into lines of tokens; 0, or -1 when out of memory. */
static int parse(doc *d, const char *t, size_t n)
{
    size_t i = 0;
    if (!add(d, t, n).len && n)
        return -1;
    while (i < n) {
        line *L = insert_line(d, d->n);
        if (!L)
            return -1;
        size_t end = i;
        while (end < n && t[end] != '\n' && t[end] != '\r')
            end++;
        size_t j = i;
        for (;;) {
            size_t s = j;
            while (j < end && is_blank(t[j]))
                j++;
            if (L->ntok == MAXTOK || j == end) { /* the rest is the last blank */
                L->sep[L->ntok] = (span){(uint32_t)s, (uint32_t)(end - s)};
                break;
            }
            L->sep[L->ntok] = (span){(uint32_t)s, (uint32_t)(j - s)};
            s = j;
            while (j < end && !is_blank(t[j]))
                j++;
            L->tok[L->ntok++] = (span){(uint32_t)s, (uint32_t)(j - s)};
        }
        size_t e = end;
        if (e < n && t[e] == '\r')
            e++;
        if (e < n && t[e] == '\n')
            e++;
        L->eol = (span){(uint32_t)end, (uint32_t)(e - end)};
        i = e;
    }
    return 0;
}

/* The text of d into out; its length, or 0 when more than max. */
static size_t print(const doc *d, uint8_t *out, size_t max)
{
    size_t n = 0;
#define PUT(sp)                                            \
    do {                                                   \
        if (n + (sp).len > max)                            \
            return 0;                                      \
        if ((sp).len)                                      \
            memcpy(out + n, d->pool + (sp).off, (sp).len); \
        n += (sp).len;                                     \
    } while (0)
    for (int i = 0; i < d->n; i++) {
        const line *L = &d->l[i];
        for (int k = 0; k < L->ntok; k++) {
            PUT(L->sep[k]);
            PUT(L->tok[k]);
        }
        PUT(L->sep[L->ntok]);
        PUT(L->eol);
    }
#undef PUT
    return n;
}

static int starts(const doc *d, span sp, const char *s)
{
    const size_t n = strlen(s);
    return sp.len >= n && memcmp(d->pool + sp.off, s, n) == 0;
}

/* What a line is: 0 banner, 1 comment, 2 blank, 3 data (the size line or an entry). */
static int kind(const doc *d, int i)
{
    const line *L = &d->l[i];
    if (L->ntok == 0)
        return 2;
    if (starts(d, L->tok[0], "%%") && i == 0)
        return 0;
    return starts(d, L->tok[0], "%") ? 1 : 3;
}

/* The size line (the first data line), or -1. */
static int size_line(const doc *d)
{
    for (int i = 0; i < d->n; i++)
        if (kind(d, i) == 3)
            return i;
    return -1;
}

/* Token k of line i as a number (0 when it is none). */
static long long number(const doc *d, int i, int k)
{
    char buf[32];
    if (i < 0 || k >= d->l[i].ntok)
        return 0;
    const span sp = d->l[i].tok[k];
    const size_t n = sp.len < sizeof buf - 1 ? sp.len : sizeof buf - 1;
    memcpy(buf, d->pool + sp.off, n);
    buf[n] = 0;
    return strtoll(buf, NULL, 10);
}

/* An integer token near an edge: of the types, or of the sizes the file declares. */
static span some_int(doc *d)
{
    static const char *odd[] = {"0",
                                "1",
                                "-1",
                                "2",
                                "+1",
                                "01",
                                "2147483647",
                                "2147483648",
                                "4294967296",
                                "9223372036854775807",
                                "9223372036854775808",
                                "18446744073709551616",
                                "1e3",
                                "0x10",
                                "3.0",
                                "1 ",
                                "00000000000000000000001",
                                "-0"};
    const int s = size_line(d);
    char buf[32];
    if (s >= 0 && below(d, 2)) {
        const unsigned long long v = (unsigned long long)number(d, s, (int)below(d, 3)) + below(d, 3) - 1;
        snprintf(buf, sizeof buf, "%lld", (long long)v); /* wraps at the ends: no overflow here */
        return add_str(d, buf);
    }
    if (below(d, 4) == 0) {
        snprintf(buf, sizeof buf, "%u", (unsigned)below(d, 20));
        return add_str(d, buf);
    }
    return add_str(d, PICK(d, odd));
}

static span some_value(doc *d)
{
    static const char *odd[] = {"1",
                                "-0",
                                "0.5",
                                "1e308",
                                "1e309",
                                "-1e309",
                                "4.9e-324",
                                "2.4e-324",
                                "2.2250738585072011e-308",
                                "nan",
                                "-nan",
                                "inf",
                                "-Infinity",
                                "NaN(123)",
                                "0x1p-3",
                                "0x1.8p3",
                                "1.",
                                ".5",
                                "0.1e",
                                "e5",
                                "1e+",
                                "--1",
                                "1,5",
                                "9007199254740993",
                                "123456789012345678901234567890",
                                "0.000000000000000000000000000001",
                                "1d5",
                                "INF",
                                "+.e1",
                                "1e-400",
                                "18446744073709551617",
                                "-9223372036854775809",
                                "7"};
    return add_str(d, PICK(d, odd));
}

static span some_banner_word(doc *d, int k)
{
    static const char *words[5][7] = {
        {"%%MatrixMarket", "%%matrixmarket", "%MatrixMarket", "%%MatrixMarketx", "%%", "%%MatrixMarket",
         "MatrixMarket"},
        {"matrix", "Matrix", "vector", "MATRIX", "matrix", "tensor", "matrix"},
        {"coordinate", "array", "Coordinate", "ARRAY", "dense", "coordinate", "array"},
        {"real", "integer", "pattern", "complex", "unsigned-integer", "double", "Real"},
        {"general", "symmetric", "skew-symmetric", "hermitian", "Hermitian", "SYMMETRIC", "upper"}};
    return add_str(d, words[k < 5 ? k : 4][below(d, 7)]);
}

static span some_blank(doc *d)
{
    static const char *blanks[] = {" ", "\t", "  ", " \t ", "\f", "\v", "", "\r", "   "};
    return add_str(d, PICK(d, blanks));
}

static span some_eol(doc *d)
{
    static const char *eols[] = {"\n", "\r\n", "\r", "", "\n\n", "\n"};
    return add_str(d, PICK(d, eols));
}

/* A data line of the file's shape: an entry in range, or one just outside. */
static void some_entry(doc *d, line *L)
{
    const int s = size_line(d);
    const long long rows = number(d, s, 0), cols = number(d, s, 1);
    char buf[64];
    const unsigned long long i = rows > 0 ? 1 + below(d, (size_t)rows + 1) : 1;
    const unsigned long long j = cols > 0 ? 1 + below(d, (size_t)cols + 1) : 1;
    snprintf(buf, sizeof buf, "%llu", i);
    L->tok[0] = add_str(d, buf);
    snprintf(buf, sizeof buf, "%llu", j);
    L->tok[1] = add_str(d, buf);
    L->tok[2] = some_value(d);
    L->ntok = 2 + (int)below(d, 3); /* pattern (2), real (3), complex (4) */
    if (L->ntok == 4)
        L->tok[3] = some_value(d);
    L->sep[0] = add_str(d, "");
    for (int k = 1; k < L->ntok; k++)
        L->sep[k] = add_str(d, " ");
    L->sep[L->ntok] = add_str(d, "");
    L->eol = add_str(d, "\n");
}

/* The entry count of a coordinate file: the data lines after the size line. */
static void fix_count(doc *d)
{
    const int s = size_line(d);
    int entries = 0;
    char buf[24];
    if (s < 0 || d->l[s].ntok < 3 || (d->n && d->l[0].ntok > 2 && starts(d, d->l[0].tok[2], "array")))
        return;
    for (int i = s + 1; i < d->n; i++)
        entries += kind(d, i) == 3;
    snprintf(buf, sizeof buf, "%d", entries);
    d->l[s].tok[2] = add_str(d, buf);
}

/* One mutation; 1 when lines came or went (the count may follow). */
static int mutate_once(doc *d)
{
    const int i = (int)below(d, (size_t)d->n), j = (int)below(d, (size_t)d->n + 1);
    line *L = d->n ? &d->l[i] : NULL;
    const int s = size_line(d);
    switch (below(d, 14)) {
    case 0: /* a banner word */
        if (d->n && kind(d, 0) == 0) {
            const int k = (int)below(d, (size_t)d->l[0].ntok);
            d->l[0].tok[k] = some_banner_word(d, k);
        } else if ((L = insert_line(d, 0))) {
            L->ntok = 5;
            for (int k = 0; k < 5; k++) {
                L->tok[k] = some_banner_word(d, k);
                L->sep[k] = add_str(d, k ? " " : "");
            }
            L->sep[5] = add_str(d, "");
            L->eol = add_str(d, "\n");
        }
        return 0;
    case 1: /* a size */
        if (s >= 0 && d->l[s].ntok)
            d->l[s].tok[below(d, (size_t)d->l[s].ntok)] = some_int(d);
        return 0;
    case 2: /* an index */
    case 3: /* a value */
        if (L && kind(d, i) == 3 && i != s && L->ntok) {
            const int k = (int)below(d, (size_t)L->ntok);
            L->tok[k] = k < 2 && below(d, 3) ? some_int(d) : some_value(d);
        }
        return 0;
    case 4: /* a line twice */
        if (L) {
            const line copy = *L;
            line *n = insert_line(d, j);
            if (n)
                *n = copy;
        }
        return 1;
    case 5: /* a line less */
        if (L) {
            memmove(&d->l[i], &d->l[i + 1], (size_t)(d->n - i - 1) * sizeof *d->l);
            d->n--;
        }
        return 1;
    case 6: /* two lines swap */
        if (d->n > 1) {
            const int k = (int)below(d, (size_t)d->n);
            const line t = d->l[i];
            d->l[i] = d->l[k];
            d->l[k] = t;
        }
        return 0;
    case 7: /* a new entry */
        if ((L = insert_line(d, j > s ? j : d->n)))
            some_entry(d, L);
        return 1;
    case 8: { /* a comment or a blank line */
        static const char *texts[] = {"%",
                                      "% a comment",
                                      "%%MatrixMarket matrix array real general",
                                      "%\t%",
                                      "",
                                      " ",
                                      "\t",
                                      "%xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
        const char *t = PICK(d, texts);
        if ((L = insert_line(d, j))) {
            L->ntok = t[0] == '%';
            if (L->ntok)
                L->tok[0] = add_str(d, t);
            L->sep[0] = add_str(d, L->ntok ? "" : t);
            L->sep[L->ntok] = add_str(d, "");
            L->eol = some_eol(d);
        }
        return 1;
    }
    case 9: /* a line end, or all of them */
        if (below(d, 3) == 0) {
            const span e = some_eol(d);
            for (int k = 0; k < d->n; k++)
                if (d->l[k].eol.len)
                    d->l[k].eol = e;
        } else if (L) {
            L->eol = some_eol(d);
        }
        return 0;
    case 10: /* a blank, or all of them */
        if (below(d, 4) == 0) {
            const span b = some_blank(d);
            for (int k = 0; k < d->n; k++)
                for (int t = 1; t < d->l[k].ntok; t++)
                    d->l[k].sep[t] = b;
        } else if (L) {
            L->sep[below(d, (size_t)L->ntok + 1)] = some_blank(d);
        }
        return 0;
    case 11: /* a token less, or one more */
        if (L && L->ntok && below(d, 2)) {
            const int k = (int)below(d, (size_t)L->ntok);
            memmove(&L->tok[k], &L->tok[k + 1], (size_t)(L->ntok - k - 1) * sizeof(span));
            memmove(&L->sep[k + 1], &L->sep[k + 2], (size_t)(L->ntok - k - 1) * sizeof(span));
            L->ntok--;
        } else if (L && L->ntok < MAXTOK) {
            L->tok[L->ntok] = below(d, 2) ? some_int(d) : some_value(d);
            L->sep[L->ntok + 1] = L->sep[L->ntok];
            L->sep[L->ntok] = add_str(d, " ");
            L->ntok++;
        }
        return 0;
    case 12: /* a token from another line */
        if (L && L->ntok) {
            const line *o = &d->l[below(d, (size_t)d->n)];
            if (o->ntok)
                L->tok[below(d, (size_t)L->ntok)] = o->tok[below(d, (size_t)o->ntok)];
        }
        return 0;
    default: /* the last line without its end, or with one */
        if (d->n)
            d->l[d->n - 1].eol = add_str(d, d->l[d->n - 1].eol.len ? "" : "\n");
        return 0;
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    doc d;
    memset(&d, 0, sizeof d);
    d.rng.s = seed;
    if (size < 1 || max_size < 2 || below(&d, 32) == 0) /* plain bytes now and then */
        return LLVMFuzzerMutate(data, size, max_size);
    if (below(&d, 16) == 0) /* another path or cut: fuzz_mm's first byte */
        data[0] = (uint8_t)next(&d);
    size_t n = 0;
    if (parse(&d, (const char *)data + 1, size - 1) == 0) {
        int moved = 0;
        for (size_t steps = 1 + below(&d, 3); steps > 0; steps--)
            moved |= mutate_once(&d);
        if (moved && below(&d, 4) != 0)
            fix_count(&d);
        n = print(&d, data + 1, max_size - 1);
    }
    free(d.pool);
    free(d.l);
    return n ? n + 1 : LLVMFuzzerMutate(data, size, max_size);
}
