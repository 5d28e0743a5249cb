/* decision.c - the ancillary chunk 'auto' (man/man5/rvs.5): the advisor's decisions, with the
 * candidates' times, recorded in the stream so that later programs reuse them. Programs that do
 * not know the chunk pass it on untouched; the fingerprint says whether it still describes the
 * stream's matrix and partition (a changed partition makes it stale, and it is then ignored).
 * Layout, little-endian:
 *   0 u32 version (1) | 4 u32 R records | 8 u64 fingerprint | 16 char[64] device, NUL-padded
 *   80: R records: 0 i32 part | 4 u32 device | 8 u32 value type | 12 u32 C candidates (1..64)
 *                  | 16 u32 chosen (< C) | 20 u32 flags (1 sampled, 2 from the trial cache,
 *                  bits 2-4 how it was chosen: rvs_how)
 *       24: C candidates of 96 bytes: 0 u32 format id | 4 u32 status | 8 f64 ms | 16 f64 model
 *                  bytes | 24 char[64] tunables "KEY=VALUE,..." or "default", NUL-padded | 88 f64
 *                  the fitted model's ms (0: none; a reader of the 72-byte tunables of rvskit 0.1
 *                  finds its NUL before it) */
#include <math.h>
#include <string.h>
#include "engine_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the decision chunk is written as it lies in memory: little-endian hosts only"
#endif

#define HEAD 80
#define REC 24
#define CAND 96
#define KNOBS_LEN 64
static const char chunk_type[4] = {'a', 'u', 't', 'o'};

uint64_t rvs_stream_fingerprint(const rvs_stream *S)
{
    uint64_t h = rvs_hash_structure(RVS_HASH_SEED, &S->A);
    h = rvs_hash_i64(h, S->A.vtype);
    if (!S->has_partition)
        return rvs_hash_i64(h, -1);
    const rvs_partition *P = &S->partition;
    h = rvs_hash_i64(rvs_hash_i64(rvs_hash_i64(h, P->alg), P->k), P->block_size);
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        h = rvs_hash_i64(rvs_hash_i64(rvs_hash_i64(h, q->device), q->entries), q->nrows);
        for (int64_t r = 0; r < q->nrows; r++) /* a word at a time: cheap next to the matrix */
            h = (h ^ (uint64_t)q->rows[r]) * 0x100000001b3ULL;
    }
    return h;
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static double getf(const uint8_t *p)
{
    double v;
    memcpy(&v, p, 8);
    return v;
}

/* Candidate c from its 96 bytes; 0 when its fields are out of range. */
static int read_candidate(rvs_candidate *c, const uint8_t *p)
{
    char knobs[KNOBS_LEN];
    c->format = (rvs_format_id)get32(p);
    c->status = (rvs_cand_status)get32(p + 4);
    c->ms = getf(p + 8);
    c->model_bytes = getf(p + 16);
    memcpy(knobs, p + 24, KNOBS_LEN);
    c->pred_ms = getf(p + 88) > 0 ? getf(p + 88) : -1;
    c->pred_sigma = 0;
    rvs_knobs_default(&c->knobs);
    if (memchr(knobs, 0, KNOBS_LEN) == NULL || get32(p + 4) > RVS_CAND_FAILED || !isfinite(c->ms) ||
        !isfinite(c->model_bytes))
        return 0;
    /* a format or tunable of a newer rvskit: the candidate stays, unusable as a choice */
    if (strcmp(knobs, "default") != 0 && rvs_knobs_parse(&c->knobs, knobs, NULL) != RVS_OK)
        c->format = (rvs_format_id)0;
    return 1;
}

rvs_status rvs_decisions_read(rvs_decisions *D, const rvs_stream *S, int *current, rvs_error *err)
{
    const rvs_raw_chunk *c = NULL;
    memset(D, 0, sizeof *D);
    *current = 0;
    for (int i = 0; i < S->nextra; i++)
        if (memcmp(S->extra[i].type, chunk_type, 4) == 0)
            c = &S->extra[i];
    if (!c)
        return RVS_OK;
    const uint8_t *p = c->data;
    if (c->len < HEAD)
        return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'auto': %llu bytes, at least %d expected",
                        (unsigned long long)c->len, HEAD);
    if (get32(p) != 1)
        return RVS_OK; /* a newer layout: ancillary, so ignored */
    /* part indices are checked against the partition they were made on (at most 65536 parts),
     * not against S's: a stale chunk is read, then ignored */
    uint32_t n = get32(p + 4);
    if (n > 2 * 65536 + 2)
        return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'auto': %u records", n);
    if (n > (c->len - HEAD) / (REC + CAND)) /* a record holds a candidate: checked before allocated */
        return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'auto': %llu bytes cannot hold %u records",
                        (unsigned long long)c->len, n);
    memcpy(&D->fingerprint, p + 8, 8);
    memcpy(D->device, p + 16, sizeof D->device);
    if (!memchr(D->device, 0, sizeof D->device))
        return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'auto': device name not terminated");
    D->d = calloc(n ? n : 1, sizeof *D->d);
    if (!D->d)
        return rvs_fail(err, RVS_ERR_NOMEM, "chunk 'auto': out of memory");
    uint64_t off = HEAD;
    for (uint32_t r = 0; r < n; r++, D->n++) {
        rvs_decision *d = &D->d[r];
        if (c->len - off < REC)
            goto bad;
        const uint8_t *q = p + off;
        int32_t part;
        memcpy(&part, q, 4);
        uint32_t dev = get32(q + 4), vt = get32(q + 8), nc = get32(q + 12), chosen = get32(q + 16);
        if (part < -1 || part >= 65536 || dev > 1 || !rvs_vtype_valid(vt) || nc < 1 || nc > RVS_MAX_CAND ||
            chosen >= nc || (c->len - off - REC) / CAND < nc)
            goto bad;
        d->part = part;
        d->device = (rvs_device)dev;
        d->vtype = (rvs_vtype)vt;
        d->ncand = (int)nc;
        d->chosen = (int)chosen;
        d->sampled = get32(q + 20) & 1;
        d->from_cache = (get32(q + 20) >> 1) & 1;
        d->how = (rvs_how)((get32(q + 20) >> 2) & 7);
        if (d->how > RVS_HOW_DEFAULT)
            d->how = d->from_cache ? RVS_HOW_CACHE : RVS_HOW_TRIAL;
        for (uint32_t k = 0; k < nc; k++)
            if (!read_candidate(&d->cand[k], q + REC + (size_t)k * CAND))
                goto bad;
        off += REC + (uint64_t)nc * CAND;
    }
    *current = D->fingerprint == rvs_stream_fingerprint(S);
    const int k = S->has_partition ? S->partition.k : 0;
    for (int r = 0; r < D->n && *current; r++) /* a matching fingerprint with parts it lacks */
        if (D->d[r].part >= k) {
            const int part = D->d[r].part; /* the message is made before D is freed */
            rvs_decisions_free(D);
            if (k == 0)
                return rvs_fail(err, RVS_ERR_FORMAT,
                                "chunk 'auto': a decision for part %d, and the stream has no "
                                "partition",
                                part + 1);
            return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'auto': a decision for part %d of a %d-part partition",
                            part + 1, k);
        }
    if (off == c->len)
        return RVS_OK;
    rvs_decisions_free(D);
    return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'auto': %llu bytes, its records hold %llu",
                    (unsigned long long)c->len, (unsigned long long)off);
bad:;
    const int record = D->n + 1;
    rvs_decisions_free(D);
    return rvs_fail(err, RVS_ERR_FORMAT, "chunk 'auto': record %d is malformed", record);
}

rvs_status rvs_decisions_write(rvs_stream *S, const rvs_decisions *D, rvs_error *err)
{
    uint64_t len = HEAD;
    for (int r = 0; r < D->n; r++)
        len += REC + (uint64_t)D->d[r].ncand * CAND;
    uint8_t *p = calloc(1, (size_t)len), *q = p + HEAD;
    if (!p)
        return rvs_fail(err, RVS_ERR_NOMEM, "chunk 'auto': out of memory");
    const uint32_t head[2] = {1, (uint32_t)D->n};
    const uint64_t fp = rvs_stream_fingerprint(S);
    char device[64] = "";
    for (int r = 0; r < D->n; r++)
        if (D->d[r].device == RVS_DEV_GPU)
            rvs_device_name(RVS_DEV_GPU, device, sizeof device);
    memcpy(p, head, 8);
    memcpy(p + 8, &fp, 8);
    memcpy(p + 16, device, strnlen(device, 63)); /* NUL-padded: p is zeroed */
    for (int r = 0; r < D->n; r++) {
        const rvs_decision *d = &D->d[r];
        const uint32_t f[5] = {(uint32_t)d->device, (uint32_t)d->vtype, (uint32_t)d->ncand, (uint32_t)d->chosen,
                               (uint32_t)(d->sampled | d->from_cache << 1 | (unsigned)d->how << 2)};
        memcpy(q, &d->part, 4);
        memcpy(q + 4, f, sizeof f);
        q += REC;
        for (int k = 0; k < d->ncand; k++, q += CAND) {
            const rvs_candidate *c = &d->cand[k];
            const uint32_t g[2] = {(uint32_t)c->format, (uint32_t)c->status};
            memcpy(q, g, 8);
            memcpy(q + 8, &c->ms, 8);
            memcpy(q + 16, &c->model_bytes, 8);
            rvs_knobs_format(&c->knobs, (char *)q + 24, KNOBS_LEN);
            const double pred = c->pred_ms > 0 ? c->pred_ms : 0;
            memcpy(q + 88, &pred, 8);
        }
    }
    int slot = S->nextra;
    for (int i = 0; i < S->nextra; i++)
        if (memcmp(S->extra[i].type, chunk_type, 4) == 0)
            slot = i;
    if (slot == S->nextra) {
        rvs_raw_chunk *grown = realloc(S->extra, ((size_t)S->nextra + 1) * sizeof *grown);
        if (!grown) {
            free(p);
            return rvs_fail(err, RVS_ERR_NOMEM, "chunk 'auto': out of memory");
        }
        S->extra = grown;
        S->nextra++;
    } else {
        free(S->extra[slot].data);
    }
    memcpy(S->extra[slot].type, chunk_type, 4);
    S->extra[slot].len = len;
    S->extra[slot].data = p;
    return RVS_OK;
}

void rvs_decisions_drop(rvs_stream *S)
{
    int n = 0;
    for (int i = 0; i < S->nextra; i++) {
        if (memcmp(S->extra[i].type, chunk_type, 4) == 0)
            free(S->extra[i].data);
        else
            S->extra[n++] = S->extra[i];
    }
    S->nextra = n;
}

const rvs_decision *rvs_decisions_find(const rvs_decisions *D, int part, rvs_device dev)
{
    for (int i = 0; i < D->n; i++) {
        const rvs_decision *d = &D->d[i];
        if (d->part == part && d->device == dev && d->cand[d->chosen].format != 0 &&
            d->cand[d->chosen].status == RVS_CAND_RAN && rvs_format_lookup(d->cand[d->chosen].format))
            return d;
    }
    return NULL;
}

void rvs_decisions_free(rvs_decisions *D)
{
    free(D->d);
    memset(D, 0, sizeof *D);
}

rvs_status rvs_advise_part(rvs_decisions *D, const rvs_csr *A, int part, rvs_device dev,
                           const rvs_advisor_options *o, rvs_format_id *id, rvs_fmt_options *fo, rvs_error *err)
{
    rvs_decision *grown = realloc(D->d, ((size_t)D->n + 1) * sizeof *grown);
    if (!grown)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    D->d = grown;
    rvs_decision *d = &D->d[D->n];
    rvs_status st = rvs_advise(d, A, part, dev, A->vtype, o, err);
    if (st != RVS_OK)
        return st;
    D->n++;
    const int64_t dia = fo->dia_max_ratio, ell = fo->ell_max_ratio;
    *id = d->cand[d->chosen].format;
    *fo = d->cand[d->chosen].knobs.fo;
    fo->dia_max_ratio = dia; /* the caller's limits stay */
    fo->ell_max_ratio = ell;
    return RVS_OK;
}
