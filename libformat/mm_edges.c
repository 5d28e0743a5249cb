/* mm_edges.c - edge-list reader: SNAP-style "src dst [weight]" lines, 0-based, '#' comments */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mm_private.h"
#include "mm_scan.h"

struct mm_edges {
    int64_t size; /* given size, or 0: the largest index + 1 */
    rvs_edges_info *info;
    int64_t line;       /* lines parsed so far */
    int columns;        /* 2 or 3 from the first edge line on; 0 before it */
    int64_t first_line; /* the line that set columns */
    int64_t n, cap;     /* edges held, room */
    int wide;           /* 0: indices in s32/d32 (all below 2^31 so far); 1: in src/dst */
    int borrowed;       /* a piece of a parallel parse, writing into room in the whole's arrays
                            that holds all its lines: it never grows, and never widens */
    int need_wide;      /* such a piece met an index of 2^31 or more */
    int32_t *s32, *d32;
    int64_t *src, *dst;
    double *w;        /* weights (columns == 3) */
    int64_t top;      /* largest index seen, -1 before the first */
    int64_t top_line; /* its line */
    int64_t comments;
};

rvs_status mm_edges_begin(mm_edges **E, const rvs_edges_options *o, rvs_edges_info *info, rvs_error *err)
{
    *E = calloc(1, sizeof **E);
    if (!*E)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the edge-list reader");
    if (o && o->size < 0) {
        free(*E);
        *E = NULL;
        return rvs_fail(err, RVS_ERR_ARG, "size %lld is negative", (long long)o->size);
    }
    rvs_status st = o && o->size > 0 ? mm_check_rows_fit(o->size, err) : RVS_OK;
    if (st != RVS_OK) {
        free(*E);
        *E = NULL;
        return st;
    }
    (*E)->size = o ? o->size : 0;
    (*E)->info = info;
    (*E)->top = -1;
    return RVS_OK;
}

void mm_edges_free(mm_edges *E)
{
    if (!E)
        return;
    free(E->s32);
    free(E->d32);
    free(E->src);
    free(E->dst);
    free(E->w);
    free(E);
}

/* realloc *p to n elements of size bytes each (the product checked); 0 when it failed. */
static int resize(void **p, int64_t n, size_t size)
{
    size_t bytes;
    void *q = __builtin_mul_overflow((size_t)n, size, &bytes) ? NULL : realloc(*p, bytes ? bytes : 1);
    if (q)
        *p = q;
    return q != NULL;
}

/* Room for cap edges in the arrays in use (32- or 64-bit indices, weights when there are). */
static rvs_status reserve(mm_edges *E, int64_t cap, rvs_error *err)
{
    int64_t n = E->size ? E->size : E->top + 1;
    rvs_error why;
    if (mm_claim_peak(cap, n > 0 ? n : 1, n > 0 ? n : 1, &why) != RVS_OK)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "line %lld: %s", (long long)E->line, why.msg);
    const size_t isz = E->wide ? sizeof(int64_t) : sizeof(int32_t);
    int ok = E->wide ? resize((void **)&E->src, cap, isz) && resize((void **)&E->dst, cap, isz)
                     : resize((void **)&E->s32, cap, isz) && resize((void **)&E->d32, cap, isz);
    if (!ok || (E->columns == 3 && !resize((void **)&E->w, cap, sizeof(double))))
        return rvs_fail(err, RVS_ERR_NOMEM, "line %lld: out of memory for %lld edges", (long long)E->line,
                        (long long)cap);
    E->cap = cap;
    return RVS_OK;
}

/* Room for one more edge: the arrays grow by half (a SNAP graph's list can be most of memory). */
static rvs_status grow(mm_edges *E, rvs_error *err)
{
    if (E->n < E->cap)
        return RVS_OK;
    if (E->cap > INT64_MAX / 2)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "line %lld: too many edges", (long long)E->line);
    return reserve(E, E->cap < 4096 ? 4096 : E->cap + E->cap / 2, err);
}

/* Move the indices held to 64-bit arrays: an index of 2^31 or more has come. */
static rvs_status widen(mm_edges *E, rvs_error *err)
{
    int64_t cap = E->cap < 4096 ? 4096 : E->cap;
    int64_t *s = NULL, *d = NULL;
    if (!resize((void **)&s, cap, sizeof *s) || !resize((void **)&d, cap, sizeof *d)) {
        free(s);
        return rvs_fail(err, RVS_ERR_NOMEM, "line %lld: out of memory for %lld edges", (long long)E->line,
                        (long long)cap);
    }
    for (int64_t k = 0; k < E->n; k++) {
        s[k] = E->s32[k];
        d[k] = E->d32[k];
    }
    free(E->s32);
    free(E->d32);
    E->s32 = E->d32 = NULL;
    E->src = s;
    E->dst = d;
    E->wide = 1;
    return reserve(E, cap, err); /* the weights too, when there are */
}

/* The index token [p, q) of column `what` ("source", "destination") into *v. */
static rvs_status index_of(const mm_edges *E, const char *what, const char *p, const char *q, int64_t *v,
                           rvs_error *err)
{
    char s[48];
    int r = parse_int64(p, q, v);
    if (r == 2)
        return rvs_fail(err, RVS_ERR_RANGE, "line %lld: %s index %s is too large", (long long)E->line, what,
                        snip(s, p, q));
    if (r != 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: %s index '%s' is not an integer", (long long)E->line, what,
                        snip(s, p, q));
    if (*v < 0)
        return rvs_fail(err, RVS_ERR_RANGE, "line %lld: %s index %lld is negative (edge lists are 0-based)",
                        (long long)E->line, what, (long long)*v);
    if (E->size > 0 && *v >= E->size)
        return rvs_fail(err, RVS_ERR_RANGE, "line %lld: %s index %lld out of range 0..%lld (size %lld)",
                        (long long)E->line, what, (long long)*v, (long long)(E->size - 1), (long long)E->size);
    return RVS_OK;
}

/* The weight token [p, q) as strtod reads it, the whole token. */
static rvs_status weight_of(const mm_edges *E, const char *p, const char *q, double *v, rvs_error *err)
{
    char s[48], tok[128];
    size_t n = (size_t)(q - p);
    char *end = tok;
    const char *t = p;
    if (mm_scan_double(&t, q, v) && t == q) /* the usual decimal, without strtod */
        return RVS_OK;
    if (n < sizeof tok) {
        memcpy(tok, p, n);
        tok[n] = '\0';
        *v = strtod(tok, &end);
    }
    if (n >= sizeof tok || memchr(tok, '\0', n) || end != tok + n)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: weight '%s' is not a number", (long long)E->line,
                        snip(s, p, q));
    return RVS_OK;
}

/* One line [p, e) (no newline): a comment, a blank line or an edge. */
static rvs_status edge_line(mm_edges *E, const char *p, const char *e, rvs_error *err)
{
    const char *b[3], *q[3];
    int k = 0;
    char s[48];
    rvs_status st;
    p = skip_blanks(p, e);
    if (p == e)
        return RVS_OK;
    if (E->line == 1 && e - p >= 14 && strncasecmp(p, "%%MatrixMarket", 14) == 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "line 1: a Matrix Market banner: this is not an edge list");
    if (*p == '#' || *p == '%') {
        E->comments++;
        return RVS_OK;
    }
    for (; p < e && k < 3; k++) {
        b[k] = p;
        q[k] = token_end(p, e);
        p = skip_blanks(q[k], e);
    }
    if (p < e)
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "line %lld: unexpected text '%s' after the edge (an edge is 'src dst' or 'src dst weight')",
                        (long long)E->line, snip(s, p, token_end(p, e)));
    if (k == 1)
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: an edge needs two indices, 'src dst'", (long long)E->line);
    if (E->columns == 0) {
        E->columns = k;
        E->first_line = E->line;
    } else if (k != E->columns) {
        return rvs_fail(err, RVS_ERR_FORMAT, "line %lld: %s, but line %lld %s", (long long)E->line,
                        k == 3 ? "an edge with a weight" : "an edge without a weight", (long long)E->first_line,
                        E->columns == 3 ? "has one" : "has none");
    }
    int64_t i, j;
    double w = 1.0;
    if ((st = index_of(E, "source", b[0], q[0], &i, err)) != RVS_OK ||
        (st = index_of(E, "destination", b[1], q[1], &j, err)) != RVS_OK ||
        (k == 3 && (st = weight_of(E, b[2], q[2], &w, err)) != RVS_OK) ||
        (!E->wide && (i > INT32_MAX || j > INT32_MAX) &&
         (E->borrowed ? (E->need_wide = 1, st = RVS_ERR_OVERFLOW) : (st = widen(E, err))) != RVS_OK) ||
        (st = grow(E, err)) != RVS_OK)
        return st;
    if (E->wide) {
        E->src[E->n] = i;
        E->dst[E->n] = j;
    } else {
        E->s32[E->n] = (int32_t)i;
        E->d32[E->n] = (int32_t)j;
    }
    if (k == 3)
        E->w[E->n] = w;
    E->n++;
    if (i > E->top || j > E->top) {
        E->top = i > j ? i : j;
        E->top_line = E->line;
    }
    return RVS_OK;
}

/* Parse the lines from *p to e one by one into E (only up to the first edge when until_edge),
 * *p left after the last line parsed. */
static rvs_status parse_lines(mm_edges *E, const char **p, const char *e, int until_edge, rvs_error *err)
{
    while (*p < e && !(until_edge && E->columns)) {
        const char *nl = memchr(*p, '\n', (size_t)(e - *p)), *le = nl ? nl : e;
        E->line++;
        rvs_status st = edge_line(E, *p, le, err);
        if (st != RVS_OK)
            return st;
        *p = nl ? nl + 1 : e;
    }
    return RVS_OK;
}

#define EDGES_PAR_MIN ((size_t)1 << 20) /* a block this large is parsed by all threads */
#define EDGES_PAR_MAX 64

/* Move n edges of E's arrays from index `from` down to `to`. */
static void move_edges(mm_edges *E, int64_t to, int64_t from, int64_t n)
{
    const size_t isz = E->wide ? sizeof(int64_t) : sizeof(int32_t);
    char *s = E->wide ? (char *)E->src : (char *)E->s32, *d = E->wide ? (char *)E->dst : (char *)E->d32;
    memmove(s + (size_t)to * isz, s + (size_t)from * isz, (size_t)n * isz);
    memmove(d + (size_t)to * isz, d + (size_t)from * isz, (size_t)n * isz);
    if (E->columns == 3)
        memmove(E->w + to, E->w + from, (size_t)n * sizeof *E->w);
}

/* Parse buf[0..len) in nt pieces cut at newlines, each by a thread that knows its first line
 * number (newlines counted first) and whether edges have weights (E->columns: mm_edges_parse
 * reads up to the first edge alone), writing straight into E's arrays, where each piece has
 * room for all its lines; then the pieces' edges are moved together, in order. The error of
 * the earliest line wins, as it would reading line by line. */
static rvs_status parse_parallel(mm_edges *E, const char *buf, size_t len, int nt, rvs_error *err)
{
    size_t cut[EDGES_PAR_MAX + 1];
    int64_t room[EDGES_PAR_MAX], lines[EDGES_PAR_MAX];
    mm_edges part[EDGES_PAR_MAX];
    rvs_status st[EDGES_PAR_MAX], bad = RVS_OK;
    rvs_error perr[EDGES_PAR_MAX];
    cut[0] = 0;
    for (int t = 1; t < nt; t++) {
        size_t at = len / (size_t)nt * (size_t)t;
        at = at < cut[t - 1] ? cut[t - 1] : at;
        const char *nl = at < len ? memchr(buf + at, '\n', len - at) : NULL;
        cut[t] = nl ? (size_t)(nl + 1 - buf) : len;
    }
    cut[nt] = len;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; t++) {
        int64_t c = 0;
        for (const char *p = buf + cut[t], *e = buf + cut[t + 1]; (p = memchr(p, '\n', (size_t)(e - p))); p++)
            c++;
        lines[t] = c;
    }
    int64_t need = E->n;
    for (int t = 0; t < nt; t++) {
        room[t] = lines[t] + 1; /* a last line may lack its newline */
        need += room[t];
    }
    if (need > E->cap && (bad = reserve(E, need > E->cap + E->cap / 2 ? need : E->cap + E->cap / 2, err)) != RVS_OK)
        return bad;
    int64_t at = E->n, line = E->line;
    for (int t = 0; t < nt; t++) {
        memset(&part[t], 0, sizeof part[t]);
        part[t].size = E->size;
        part[t].line = line;
        part[t].columns = E->columns;
        part[t].first_line = E->first_line;
        part[t].wide = E->wide;
        part[t].borrowed = 1;
        part[t].top = -1;
        part[t].cap = room[t];
        if (E->wide) {
            part[t].src = E->src + at;
            part[t].dst = E->dst + at;
        } else {
            part[t].s32 = E->s32 + at;
            part[t].d32 = E->d32 + at;
        }
        part[t].w = E->columns == 3 ? E->w + at : NULL;
        at += room[t];
        line += lines[t];
    }
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; t++) {
        const char *p = buf + cut[t];
        st[t] = parse_lines(&part[t], &p, buf + cut[t + 1], 0, &perr[t]);
    }
    for (int t = 0; t < nt; t++) { /* the pieces are in order, each stopped at its first error */
        if (st[t] == RVS_OK)
            continue;
        if (!part[t].need_wide) {
            if (err)
                *err = perr[t];
            return st[t];
        }
        /* an index past 2^31: this block again, into 64-bit arrays */
        return (bad = widen(E, err)) != RVS_OK ? bad : parse_parallel(E, buf, len, nt, err);
    }
    at = E->n;
    int64_t from = E->n;
    for (int t = 0; t < nt; t++) {
        move_edges(E, at, from, part[t].n);
        at += part[t].n;
        from += room[t];
        E->comments += part[t].comments;
        if (part[t].top > E->top) {
            E->top = part[t].top;
            E->top_line = part[t].top_line;
        }
    }
    E->n = at;
    E->line = part[nt - 1].line;
    return RVS_OK;
}

rvs_status mm_edges_parse(mm_edges *E, const char *buf, size_t len, int final, rvs_error *err)
{
    int nt = omp_get_max_threads();
    const char *p = buf, *e = buf + len;
    (void) final; /* a last line without its newline is a line like any other */
    /* up to the first edge alone: it says whether weights come */
    rvs_status st = parse_lines(E, &p, e, 1, err);
    if (st != RVS_OK || (size_t)(e - p) < EDGES_PAR_MIN || nt < 2)
        return st != RVS_OK ? st : parse_lines(E, &p, e, 0, err);
    return parse_parallel(E, p, (size_t)(e - p), nt > EDGES_PAR_MAX ? EDGES_PAR_MAX : nt, err);
}

rvs_status mm_edges_finish(mm_edges *E, rvs_csr *A, rvs_error *err)
{
    rvs_status st;
    int64_t size = E->size ? E->size : E->top + 1;
    memset(A, 0, sizeof *A);
    if (E->n == 0 && E->size == 0) {
        st = rvs_fail(err, RVS_ERR_EMPTY, "no edges in %lld line%s, and no size given", (long long)E->line,
                      E->line == 1 ? "" : "s");
        goto done;
    }
    if (E->size == 0 && (st = mm_check_rows_fit(size, err)) != RVS_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", err ? err->msg : "");
        st = rvs_fail(err, st, "line %lld: index %lld: %s", (long long)E->top_line, (long long)E->top, why);
        goto done;
    }
    if (E->size && (st = mm_check_rows_fit(size, err)) != RVS_OK)
        goto done;
    if (E->n == 0) {
        st = rvs_csr_from_coo(A, size, size, 0, NULL, NULL, NULL, RVS_F64, err);
    } else {
        rvs_triplets T = {
            .ri32 = E->s32, .ci32 = E->d32, .ri64 = E->src, .ci64 = E->dst, .v = E->w, .owned = 1, .in_range = 1};
        E->s32 = E->d32 = NULL;
        E->src = E->dst = NULL;
        E->w = NULL;
        st = rvs_csr_from_triplets(A, size, size, E->n, &T, RVS_F64, err);
    }
    if (st == RVS_OK && E->info) {
        E->info->edges = E->n;
        E->info->comments = E->comments;
        E->info->weighted = E->columns == 3;
        E->info->size = size;
    }
done:
    mm_edges_free(E);
    return st;
}

rvs_status rvs_edges_parse(rvs_csr *A, rvs_edges_info *info, const char *buf, size_t len,
                           const rvs_edges_options *o, rvs_error *err)
{
    mm_edges *E;
    memset(A, 0, sizeof *A);
    rvs_status st = mm_edges_begin(&E, o, info, err);
    if (st != RVS_OK)
        return st;
    if ((st = mm_edges_parse(E, buf, len, 1, err)) != RVS_OK) {
        mm_edges_free(E);
        return st;
    }
    return mm_edges_finish(E, A, err);
}

rvs_status rvs_edges_read_file(rvs_csr *A, rvs_edges_info *info, const char *path, const rvs_edges_options *o,
                               rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_edges *E;
    memset(A, 0, sizeof *A);
    rvs_status st = mm_edges_begin(&E, o, info, err);
    return st != RVS_OK ? st : mm_input_file(A, NULL, E, path, progress, ctx, err);
}

rvs_status rvs_edges_read_stream(rvs_csr *A, rvs_edges_info *info, FILE *f, const void *prefix, size_t prefix_len,
                                 const rvs_edges_options *o, rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_edges *E;
    memset(A, 0, sizeof *A);
    rvs_status st = mm_edges_begin(&E, o, info, err);
    return st != RVS_OK ? st : mm_input_stream(A, NULL, E, f, prefix, prefix_len, progress, ctx, err);
}
