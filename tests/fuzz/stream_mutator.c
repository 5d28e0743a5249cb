/* stream_mutator.c - libFuzzer's custom mutator and cross-over for RVS streams (rvs.5): the input
 * is decoded into chunks, fields inside them change (sizes, parameters, array lengths and
 * contents, part lists, the auto and plac records, versions, the critical bit, the order and
 * number of chunks) and the result is encoded with every CRC right. Most of the time it then
 * repairs what would stop the reader before the change is seen: the end chunk's count, a block's
 * array count, auto's fingerprint (a hash no mutation finds) and plac's part rows. */
#include <stdlib.h>
#define FUZZ_REPLAY_MAIN /* a helper: the target defines the entry points */
#include "fuzz_checks.h"
#include "rvs_engine.h"
#include "stream_mutator.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
                                 size_t max_out, unsigned int seed);

/* ---- chunks: order, number, type ---- */

/* The end of the group that starts at chunk i: an FMTB or MHDR with the ARRY chunks after it. */
static int group_end(const fz_stream *s, int i)
{
    int e = i + 1;
    if (memcmp(s->c[i].type, "FMTB", 4) == 0 || memcmp(s->c[i].type, "MHDR", 4) == 0)
        while (e < s->n && memcmp(s->c[e].type, "ARRY", 4) == 0)
            e++;
    return e;
}

/* A place between groups, before the end chunk where there is one. */
static int group_boundary(const fz_stream *s, rng *r)
{
    int ends[64], n = 0, rend = fz_find(s, "REND", 0), last = rend >= 0 ? rend : s->n;
    for (int i = 0; i < last && n < 64; i = group_end(s, i))
        ends[n++] = group_end(s, i);
    return n ? ends[below(r, (size_t)n)] : 0;
}

/* Copy chunks [from, to) of src into s before at (src may be s: at is then not inside them). */
static void copy_chunks(fz_stream *s, int at, const fz_stream *src, int from, int to)
{
    for (int i = from; i < to; i++) {
        const int k = src == s && at <= from ? i + (i - from) : i; /* each copy before them moves them on */
        if (fz_insert(s, at + (i - from), src->c[k].type, src->c[k].data, src->c[k].len) < 0)
            return;
    }
}

static void mutate_chunks(fz_stream *s, rng *r, const context *x)
{
    static const char *types[] = {"MHDR", "ARRY", "pmfs", "PART", "FMTB", "REND", "auto",
                                  "plac", "mmhd", "zzzz", "Auto", "mHDR", "AR Y", "ARR\0"};
    const int i = (int)below(r, (size_t)s->n), j = (int)below(r, (size_t)s->n + 1);
    if (s->n == 0)
        return;
    switch (below(r, 10)) {
    case 0: fz_remove(s, i); break;
    case 1: copy_chunks(s, j, s, i, i + 1); break;
    case 2:
        if (i + 1 < s->n) {
            fz_chunk t = s->c[i];
            s->c[i] = s->c[i + 1];
            s->c[i + 1] = t;
        }
        break;
    case 3: { /* move chunk i before j */
        fz_chunk t = s->c[i];
        const int to = j > i ? j - 1 : j;
        memmove(&s->c[i], &s->c[i + 1], (size_t)(s->n - i - 1) * sizeof *s->c);
        memmove(&s->c[to + 1], &s->c[to], (size_t)(s->n - 1 - to) * sizeof *s->c);
        s->c[to] = t;
        break;
    }
    case 4: s->c[i].type[below(r, 4)] ^= 0x20; break; /* the critical bit, or a letter's case */
    case 5: memcpy(s->c[i].type, types[below(r, sizeof types / sizeof *types)], 4); break;
    case 6: /* a group dropped */
        for (int k = group_end(s, i); k > i; k--)
            fz_remove(s, i);
        break;
    case 7: /* a group doubled, or moved to another boundary */
        copy_chunks(s, group_boundary(s, r), s, i, group_end(s, i));
        break;
    case 8: { /* a new chunk of a kind the stream may lack */
        const int at = group_boundary(s, r);
        switch (below(r, 5)) {
        case 0: new_auto(s, at, r, x); break;
        case 1: new_plac(s, at, r); break;
        case 2: {
            uint8_t junk[16];
            for (size_t k = 0; k < sizeof junk; k++)
                junk[k] = (uint8_t)next(r);
            fz_insert(s, at, one_in(r, 2) ? "zzzz" : "Zzzz", junk, below(r, 17));
            break;
        }
        case 3: fz_insert(s, at, "mmhd", (const uint8_t *)"matrix coordinate integer general", 33); break;
        default: fz_insert(s, at, types[below(r, 6)], NULL, below(r, 2) ? 0 : 8); break;
        }
        break;
    }
    default: /* chunk i's payload as bytes */
        if (s->c[i].len && s->c[i].len < 4096) {
            uint8_t buf[4096 + 64];
            const size_t len = s->c[i].len;
            memcpy(buf, s->c[i].data, len);
            const size_t n = LLVMFuzzerMutate(buf, len, len + 64);
            fz_splice(&s->c[i], 0, len, buf, n);
        }
        break;
    }
}

/* ---- repairs, each skipped now and then so that the checks they satisfy are reached too ---- */

/* Every FMTB's array count from the ARRY chunks after it; REND's count from its position. */
static void fix_counts(fz_stream *s, rng *r)
{
    for (int i = 0; i < s->n; i++)
        if (memcmp(s->c[i].type, "FMTB", 4) == 0 && s->c[i].len >= 16 && !one_in(r, 16))
            rvs_put32(s->c[i].data + 12, (uint32_t)(group_end(s, i) - i - 1));
    int e = fz_find(s, "REND", 0);
    if (e < 0 && !one_in(r, 16))
        e = fz_insert(s, s->n, "REND", NULL, RVS_REND_LEN);
    if (e >= 0 && s->c[e].len == RVS_REND_LEN && !one_in(r, 16))
        rvs_put64(s->c[e].data, (uint64_t)e);
}

/* plac's K and row counts from the partition, so that readers do not take it for stale. */
static void fix_plac(fz_stream *s, rng *r)
{
    const int p = fz_find(s, "PART", 0), q = fz_find(s, "plac", 0);
    uint64_t n[256];
    if (p < 0 || q < 0 || s->c[p].len < RVS_PART_HEAD_LEN || one_in(r, 4))
        return;
    const size_t k = part_sizes(&s->c[p], n, 256);
    fz_chunk *c = &s->c[q];
    if (c->len < PLAC_HEAD || (c->len - PLAC_HEAD) / PLAC_REC < k)
        return;
    rvs_put32(c->data, (uint32_t)k);
    for (size_t i = 0; i < k; i++)
        rvs_put64(c->data + PLAC_HEAD + i * PLAC_REC, n[i]);
    c->len = PLAC_HEAD + k * PLAC_REC;
}

/* auto's fingerprint: that of the stream as the reader reads it, or the chunk is stale. */
static void fix_fingerprint(fz_stream *s, rng *r)
{
    const int a = fz_find(s, "auto", 0);
    rvs_stream S;
    rvs_error err;
    if (a < 0 || s->c[a].len < AUTO_HEAD || one_in(r, 8))
        return;
    const size_t n = fz_encoded_size(s);
    uint8_t *buf = malloc(n);
    if (buf && fz_encode(s, buf, n) == n && fuzz_read_stream(&S, buf, n, &err) == RVS_OK) {
        uint8_t fp[8];
        rvs_put64(fp, rvs_stream_fingerprint(&S));
        for (int i = a; i >= 0; i = fz_find(s, "auto", i + 1))
            if (s->c[i].len >= AUTO_HEAD)
                memcpy(s->c[i].data + 8, fp, 8);
        rvs_stream_free(&S);
    }
    free(buf);
}

/* ---- the entry points ---- */

/* The first chunk of type t, made when the stream has none. */
static fz_chunk *chunk_of(fz_stream *s, const char *t, rng *r, const context *x)
{
    int i = fz_find(s, t, 0);
    if (i < 0 && memcmp(t, "auto", 4) == 0)
        i = new_auto(s, group_boundary(s, r), r, x);
    if (i < 0 && memcmp(t, "plac", 4) == 0)
        i = new_plac(s, group_boundary(s, r), r);
    return i >= 0 ? &s->c[i] : NULL;
}

/* A chunk of type t picked at random, or NULL. */
static fz_chunk *any_of(fz_stream *s, const char *t, rng *r)
{
    int idx[512], n = 0;
    for (int i = 0; i < s->n && n < 512; i++)
        if (memcmp(s->c[i].type, t, 4) == 0)
            idx[n++] = i;
    return n ? &s->c[idx[below(r, (size_t)n)]] : NULL;
}

static void mutate_once(fz_stream *s, rng *r)
{
    context x;
    fz_chunk *c;
    read_context(s, &x);
    const size_t op = below(r, 100);
    if (op < 40 && s->n) { /* a field, half the time of a chunk that is not an array */
        c = &s->c[below(r, (size_t)s->n)];
        for (int tries = 0; tries < 4 && one_in(r, 2) && memcmp(c->type, "ARRY", 4) == 0; tries++)
            c = &s->c[below(r, (size_t)s->n)];
        mutate_field(c, pick_field(c, r), r, &x);
    } else if (op < 52) {
        if ((c = any_of(s, "ARRY", r)))
            mutate_array(c, r);
    } else if (op < 60) {
        if ((c = any_of(s, "PART", r)))
            mutate_partition(c, r);
    } else if (op < 68) {
        if ((c = chunk_of(s, "auto", r, &x)))
            mutate_auto(c, r, &x);
    } else if (op < 72) {
        if ((c = chunk_of(s, "plac", r, &x)))
            mutate_plac(c, r);
    } else if (op < 75) {
        if ((c = any_of(s, "pmfs", r)))
            mutate_pmf(c, r, &x);
    } else if (op < 78) {
        if (one_in(r, 2) && (c = any_of(s, "MHDR", r)))
            mutate_name(c, r);
        else if ((c = any_of(s, "mmhd", r)))
            mutate_mmhd(c, r);
    } else if (op < 92) {
        mutate_chunks(s, r, &x);
    } else if (op < 96) { /* the version: minor 1..3 are all valid, major 1 */
        static const uint16_t v[] = {0, 1, 2, 3, 4, 0xffff};
        if (one_in(r, 4))
            s->major = v[below(r, 6)];
        else
            s->minor = v[below(r, 6)];
    } else { /* bytes after the end chunk */
        uint8_t junk[32];
        const size_t n = below(r, sizeof junk + 1);
        for (size_t i = 0; i < n; i++)
            junk[i] = (uint8_t)next(r);
        free(s->tail);
        s->tail = n ? malloc(n) : NULL;
        s->tail_len = s->tail ? n : 0;
        if (s->tail)
            memcpy(s->tail, junk, n);
    }
}

/* Repair, encode into out; the size, or 0 when it does not fit max. */
static size_t finish(fz_stream *s, rng *r, uint8_t *out, size_t max)
{
    fix_counts(s, r);
    fix_plac(s, r);
    fix_fingerprint(s, r);
    size_t n = fz_encode(s, out, max);
    if (n && one_in(r, 64)) /* a stream cut short */
        n = 1 + below(r, n);
    fz_free(s);
    return n;
}

/* A 1 x 1 stream to start from when the input is not a stream. */
static size_t tiny_stream(uint8_t *out, size_t max)
{
    rvs_stream S;
    rvs_error err;
    char *mem = NULL;
    size_t len = 0, n = 0;
    memset(&S, 0, sizeof S);
    FILE *f = open_memstream(&mem, &len);
    if (f && rvs_csr_alloc(&S.A, 1, 1, 1, RVS_F64, &err) == RVS_OK) {
        S.A.rowptr[1] = 1;
        ((double *)S.A.values)[0] = 1.0;
        if (rvs_stream_write(f, &S, &err) == RVS_OK && fflush(f) == 0 && len <= max)
            memcpy(out, mem, n = len);
    }
    if (f)
        fclose(f);
    free(mem);
    rvs_stream_free(&S);
    return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    rng r = {seed};
    fz_stream s;
    if (one_in(&r, 32)) /* plain bytes now and then: the framing has its checks too */
        return LLVMFuzzerMutate(data, size, max_size);
    if (fz_decode(&s, data, size) != 0) {
        const size_t n = tiny_stream(data, max_size);
        return n ? n : LLVMFuzzerMutate(data, size, max_size);
    }
    for (size_t steps = 1 + below(&r, 3); steps > 0; steps--)
        mutate_once(&s, &r);
    const size_t n = finish(&s, &r, data, max_size);
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
                                 size_t max_out, unsigned int seed)
{
    rng r = {seed};
    fz_stream a, b;
    if (fz_decode(&a, d1, s1) != 0)
        return 0;
    if (fz_decode(&b, d2, s2) != 0 || b.n == 0) {
        fz_free(&a);
        fz_free(&b);
        return 0;
    }
    const int i = (int)below(&r, (size_t)b.n);
    switch (below(&r, 3)) {
    case 0: /* one group of b into a */ copy_chunks(&a, group_boundary(&a, &r), &b, i, group_end(&b, i)); break;
    case 1: { /* b's chunk in place of a's of the same type (a partition, a decision, a hub) */
        const int j = fz_find(&a, b.c[i].type, 0);
        if (j >= 0) {
            const int e = group_end(&a, j);
            for (int k = j; k < e; k++)
                fz_remove(&a, j);
            copy_chunks(&a, j, &b, i, group_end(&b, i));
        }
        break;
    }
    default: { /* a's head, b's rest */
        const int j = (int)below(&r, (size_t)a.n + 1);
        while (a.n > j)
            fz_remove(&a, j);
        copy_chunks(&a, j, &b, i, b.n);
        break;
    }
    }
    fz_free(&b);
    return finish(&a, &r, out, max_out);
}
