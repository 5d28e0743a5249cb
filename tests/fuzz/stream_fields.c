/* stream_fields.c - the stream mutator's values and fields: where each chunk of rvs.5 keeps a
 * value of which kind, and values near the edges of their types and of the stream's own sizes */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "rvs_csr.h"
#include "stream_mutator.h"

void read_context(const fz_stream *s, context *x)
{
    memset(x, 0, sizeof *x);
    x->vtype = RVS_F64;
    int m = fz_find(s, "MHDR", 0), p = fz_find(s, "PART", 0);
    if (m >= 0 && s->c[m].len >= RVS_MHDR_FIXED_LEN) {
        x->rows = rvs_le64(s->c[m].data);
        x->cols = rvs_le64(s->c[m].data + 8);
        x->nnz = rvs_le64(s->c[m].data + 16);
        x->vtype = rvs_le32(s->c[m].data + 24);
    }
    if (p >= 0 && s->c[p].len >= RVS_PART_HEAD_LEN)
        x->k = rvs_le32(s->c[p].data + 4);
}

/* An integer near an edge: of its type, of the stream's sizes, or of its own value. */
uint64_t some_int(rng *r, const context *x, uint64_t cur)
{
    const uint64_t near = (uint64_t)below(r, 3) - 1; /* -1, 0, +1 */
    switch (below(r, 16)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return UINT64_MAX; /* -1 */
    case 3: return cur + 1;
    case 4: return cur - 1;
    case 5: return x->rows + near;
    case 6: return x->cols + near;
    case 7: return x->nnz + near;
    case 8: return x->k + near;
    case 9: return (uint64_t)INT32_MAX + near;
    case 10: return (uint64_t)UINT32_MAX + near;
    case 11: return one_in(r, 2) ? (uint64_t)INT64_MAX : (uint64_t)1 << 63;
    case 12: return (uint64_t)1 << below(r, 64);
    case 13: return cur * 2;
    case 14: return cur / 2;
    default: return below(r, 70);
    }
}

static const double doubles[] = {0.0,
                                 -0.0,
                                 1.0,
                                 -1.0,
                                 0.5,
                                 2.0,
                                 7.0,
                                 1e308,
                                 -1e308,
                                 DBL_MAX,
                                 DBL_MIN,
                                 4.9e-324,
                                 3e38,
                                 -3e38,
                                 1e39,
                                 1e-46,
                                 1e-300,
                                 1e16,
                                 9007199254740993.0,
                                 INFINITY,
                                 -INFINITY,
                                 NAN,
                                 -NAN};
static const float floats[] = {0.0f,    -0.0f,  1.0f,  -1.0f,       0.5f,     2.0f,      7.0f, FLT_MAX, -FLT_MAX,
                               FLT_MIN, 1e-45f, 3e38f, 16777217.0f, INFINITY, -INFINITY, NAN,  -NAN};

static double some_double(rng *r, double cur)
{
    switch (below(r, 5)) {
    case 0: return cur * 2;
    case 1: return -cur;
    case 2: return (double)below(r, 1000) / 8;
    default: return doubles[below(r, sizeof doubles / sizeof *doubles)];
    }
}

static float some_float(rng *r, float cur)
{
    switch (below(r, 5)) {
    case 0: return cur * 2;
    case 1: return -cur;
    case 2: return (float)below(r, 1000) / 8;
    default: return floats[below(r, sizeof floats / sizeof *floats)];
    }
}

static field make_field(size_t off, int kind)
{
    static const size_t width[] = {4, 4, 8, 8, 4, 1, 0};
    field f = {off, width[kind], kind};
    return f;
}

/* Element size and field kind of an ARRY element type (0: unknown). */
size_t element(uint32_t dtype, int *kind)
{
    static const size_t size[] = {0, 4, 8, 4, 8, 1, 4, 8, 16};
    static const int kinds[] = {F_U8, F_I32, F_I64, F_F32, F_F64, F_U8, F_I32, F_F32, F_F64};
    if (dtype > 8)
        return 0;
    *kind = kinds[dtype];
    return size[dtype];
}

/* The offset of record i of the auto chunk c, or SIZE_MAX past its end. */
size_t auto_record(const fz_chunk *c, size_t i)
{
    size_t off = AUTO_HEAD;
    for (size_t r = 0; r < i; r++) {
        if (off + AUTO_REC > c->len)
            return SIZE_MAX;
        off += AUTO_REC + (size_t)rvs_le32(c->data + off + 12) * AUTO_CAND;
    }
    return off + AUTO_REC <= c->len ? off : SIZE_MAX;
}

/* The offset of part record i of the PART chunk c, or SIZE_MAX. */
size_t part_record(const fz_chunk *c, size_t i)
{
    size_t off = RVS_PART_HEAD_LEN;
    for (size_t r = 0; r < i; r++) {
        if (off + RVS_PART_ENTRY_LEN > c->len)
            return SIZE_MAX;
        const uint64_t n = rvs_le64(c->data + off + 16);
        if (n > (c->len - off) / 8)
            return SIZE_MAX;
        off += RVS_PART_ENTRY_LEN + (size_t)n * 8;
    }
    return off + RVS_PART_ENTRY_LEN <= c->len ? off : SIZE_MAX;
}

/* A random field of chunk c; kind F_U8 at a random byte for chunks of no known layout. */
field pick_field(const fz_chunk *c, rng *r)
{
    const char *t = c->type;
    if (memcmp(t, "MHDR", 4) == 0 && c->len >= RVS_MHDR_FIXED_LEN) {
        static const int kinds[] = {F_I64, F_I64, F_I64, F_CODE, F_CODE, F_I32};
        static const size_t offs[] = {0, 8, 16, 24, 28, 32};
        size_t i = below(r, 6);
        return make_field(offs[i], kinds[i]);
    }
    if (memcmp(t, "ARRY", 4) == 0 && c->len >= RVS_ARRY_HEAD_LEN) {
        int kind;
        const size_t size = element(rvs_le32(c->data + 8), &kind),
                     n = size ? (c->len - RVS_ARRY_HEAD_LEN) / size : 0;
        if (n == 0 || one_in(r, 4)) {
            static const int kinds[] = {F_TEXT, F_CODE, F_I32, F_I64};
            static const size_t offs[] = {0, 8, 12, 16};
            size_t i = below(r, 4);
            field f = make_field(offs[i], kinds[i]);
            if (i == 0)
                f.len = 8;
            return f;
        }
        size_t at = RVS_ARRY_HEAD_LEN + below(r, n) * size;
        if (size == 2 * (kind == F_F32 ? 4 : 8)) /* complex: one of the two parts */
            at += below(r, 2) * (size / 2);
        return make_field(at, kind);
    }
    if (memcmp(t, "pmfs", 4) == 0 && c->len >= RVS_PMFS_FIXED_LEN) {
        size_t i = below(r, 10 + (c->len - RVS_PMFS_FIXED_LEN) / 8);
        if (i >= 10)
            return make_field(RVS_PMFS_FIXED_LEN + (i - 10) * 8, F_I64);
        return make_field(i * 8, i >= 6 && i <= 8 ? F_F64 : F_I64);
    }
    if (memcmp(t, "PART", 4) == 0 && c->len >= RVS_PART_HEAD_LEN) {
        size_t rec = one_in(r, 4) ? SIZE_MAX : part_record(c, below(r, rvs_le32(c->data + 4) + 1));
        if (rec == SIZE_MAX) {
            size_t i = below(r, 3);
            return make_field(i * 4, i < 2 ? F_CODE : F_I64);
        }
        const uint64_t n = rvs_le64(c->data + rec + 16);
        const size_t rows = n <= (c->len - rec - RVS_PART_ENTRY_LEN) / 8 ? (size_t)n : 0;
        size_t i = below(r, 4 + 2 * rows); /* rows twice as likely as the record's head */
        if (i >= 4)
            return make_field(rec + RVS_PART_ENTRY_LEN + (i - 4) / 2 * 8, F_I64);
        static const int kinds[] = {F_CODE, F_CODE, F_F64, F_I64};
        static const size_t offs[] = {0, 4, 8, 16};
        return make_field(rec + offs[i], kinds[i]);
    }
    if (memcmp(t, "FMTB", 4) == 0 && c->len >= RVS_FMTB_LEN) {
        size_t i = below(r, 15);
        if (i < 4)
            return make_field(i * 4, i == 0 ? F_I32 : F_CODE);
        return make_field(16 + (i - 4) * 8, F_I64);
    }
    if (memcmp(t, "REND", 4) == 0 && c->len >= RVS_REND_LEN)
        return make_field(0, F_I64);
    if (memcmp(t, "plac", 4) == 0 && c->len >= PLAC_HEAD) {
        const size_t n = (c->len - PLAC_HEAD) / PLAC_REC;
        if (n == 0 || one_in(r, 4))
            return make_field(below(r, 2) * 4, F_CODE);
        const size_t rec = PLAC_HEAD + below(r, n) * PLAC_REC, i = below(r, 3);
        return make_field(rec + (i == 0 ? 0 : i == 1 ? 8 : 12), i == 0 ? F_I64 : F_I32);
    }
    if (memcmp(t, "auto", 4) == 0 && c->len >= AUTO_HEAD) {
        const size_t rec = one_in(r, 5) ? SIZE_MAX : auto_record(c, below(r, rvs_le32(c->data + 4)));
        if (rec == SIZE_MAX) {
            size_t i = below(r, 4);
            field f = make_field(i == 3 ? 16 : i * 4, i == 2 ? F_I64 : i == 3 ? F_TEXT : F_CODE);
            if (i == 2)
                f.off = 8;
            if (i == 3)
                f.len = 64;
            return f;
        }
        const size_t nc = rvs_le32(c->data + rec + 12);
        if (nc && one_in(r, 2) && nc <= (c->len - rec - AUTO_REC) / AUTO_CAND) {
            const size_t cand = rec + AUTO_REC + below(r, nc) * AUTO_CAND, i = below(r, 5);
            static const int kinds[] = {F_CODE, F_CODE, F_F64, F_F64, F_TEXT};
            static const size_t offs[] = {0, 4, 8, 16, 24};
            field f = make_field(cand + offs[i], kinds[i]);
            if (i == 4)
                f.len = 72;
            return f;
        }
        size_t i = below(r, 6);
        return make_field(rec + i * 4, i == 0 ? F_I32 : F_CODE);
    }
    if (c->len == 0)
        return make_field(0, F_TEXT); /* nothing to change in place: text grows it */
    return make_field(below(r, c->len), F_U8);
}

/* Tunables as the auto chunk records them: known keys with values at their edges, or "default". */
void some_knobs(rng *r, char *buf, size_t n)
{
    static const char *keys[] = {"block",      "threads-per-row", "hcc-wg",          "hcc-wi",    "hyb-k",
                                 "hcc-np",     "hcc-nb",          "rows-per-thread", "hcc-g",     "csr-order",
                                 "csr-values", "dia-values",      "csr-panels",      "csr-index", "nokey"};
    static const char *values[] = {"0",       "1",  "2",  "3",    "4",     "7",     "8",
                                   "32",      "33", "64", "256",  "1024",  "65536", "1048576",
                                   "1048577", "-1", "-2", "auto", "third", "x",     ""};
    size_t used = 0;
    if (one_in(r, 4)) {
        snprintf(buf, n, "default");
        return;
    }
    for (size_t i = 0, items = 1 + below(r, 3); i < items && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", i ? "," : "",
                                 keys[below(r, sizeof keys / sizeof *keys)],
                                 values[below(r, sizeof values / sizeof *values)]);
}

/* Text for a text field of chunk type t, len bytes, NUL-padded (unterminated one time in 8). */
static void some_text(rng *r, const char *t, uint8_t *p, size_t len)
{
    static const char *devices[] = {"", "NVIDIA H100 80GB HBM3", "NVIDIA H200", "cpu"};
    static const char *names[] = {"rowptr",  "colind",  "values",  "col",     "val",     "ell_col", "ell_val",
                                  "coo_row", "coo_col", "coo_val", "offsets", "dia_val", "perm",    "rl",
                                  "jdptr",   "gptr",    "Rowptr",  "a-b",     "",        "toolong8"};
    char buf[80] = "";
    if (memcmp(t, "auto", 4) == 0 && len == 64)
        snprintf(buf, sizeof buf, "%s", devices[below(r, sizeof devices / sizeof *devices)]);
    else if (memcmp(t, "auto", 4) == 0)
        some_knobs(r, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%s", names[below(r, sizeof names / sizeof *names)]);
    memset(p, 0, len);
    memcpy(p, buf, strnlen(buf, len));
    if (one_in(r, 8))
        memset(p, 'x', len);
}

void mutate_field(fz_chunk *c, field f, rng *r, const context *x)
{
    uint8_t *p = c->len ? c->data + f.off : NULL; /* an empty chunk has no data: it grows (F_TEXT) */
    switch (f.kind) {
    case F_CODE: {
        static const uint32_t odd[] = {0xffffffffu, 0x80000000u, 65535, 65536, 64, 65, 131074, 131075};
        rvs_put32(p, one_in(r, 4) ? odd[below(r, 8)] : (uint32_t)below(r, 14));
        break;
    }
    case F_I32: rvs_put32(p, (uint32_t)some_int(r, x, (uint64_t)(int64_t)(int32_t)rvs_le32(p))); break;
    case F_I64: rvs_put64(p, some_int(r, x, rvs_le64(p))); break;
    case F_F64: rvs_put_f64(p, some_double(r, rvs_le_f64(p))); break;
    case F_F32: {
        uint32_t bits = rvs_le32(p);
        float v;
        memcpy(&v, &bits, 4);
        v = some_float(r, v);
        memcpy(&bits, &v, 4);
        rvs_put32(p, bits);
        break;
    }
    case F_U8: p[0] = one_in(r, 2) ? (uint8_t)(p[0] ^ (1u << below(r, 8))) : (uint8_t)next(r); break;
    default:
        if (f.len)
            some_text(r, c->type, p, f.len);
        else /* grow an empty chunk */
            fz_splice(c, 0, 0, NULL, 1 + below(r, 16));
        break;
    }
}
