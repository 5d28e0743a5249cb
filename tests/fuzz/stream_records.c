/* stream_records.c - the stream mutator's changes of structure: array lengths, part lists, the
 * auto, plac and pmfs records, the matrix's name and the mmhd banner; counts follow */
#include <stdio.h>
#include <stdlib.h>
#include "stream_mutator.h"
#include "rvs_engine.h"

/* ARRY: elements inserted, deleted, copied, swapped or cut off; the count follows the payload. */
void mutate_array(fz_chunk *c, rng *r)
{
    int kind;
    if (c->len < RVS_ARRY_HEAD_LEN)
        return;
    size_t size = element(rvs_le32(c->data + 8), &kind);
    size = size ? size : 1;
    const size_t n = (c->len - RVS_ARRY_HEAD_LEN) / size, i = below(r, n + 1), j = below(r, n);
    uint8_t *e = c->data + RVS_ARRY_HEAD_LEN, a[16] = {0}, b[16];
    switch (below(r, 5)) {
    case 0:
        if (n && one_in(r, 2)) /* a copy of a neighbour keeps sorted arrays sorted */
            memcpy(a, e + (i < n ? i : n - 1) * size, size);
        for (size_t k = 1 + below(r, 4); k > 0; k--)
            fz_splice(c, RVS_ARRY_HEAD_LEN + i * size, 0, a, size);
        break;
    case 1:
        if (i < n)
            fz_splice(c, RVS_ARRY_HEAD_LEN + i * size, (1 + below(r, n - i)) * size, NULL, 0);
        break;
    case 2:
        if (n)
            memcpy(e + below(r, n) * size, e + j * size, size);
        break;
    case 3:
        if (n) {
            const size_t k = below(r, n);
            memcpy(b, e + k * size, size);
            memcpy(e + k * size, e + j * size, size);
            memcpy(e + j * size, b, size);
        }
        break;
    default: fz_splice(c, RVS_ARRY_HEAD_LEN + i * size, c->len - RVS_ARRY_HEAD_LEN - i * size, NULL, 0); break;
    }
    rvs_put64(c->data + 16, (c->len - RVS_ARRY_HEAD_LEN) / size);
}

/* A PART chunk as records with their rows; written back with K and every N as they are. */
typedef struct {
    uint8_t head[RVS_PART_ENTRY_LEN];
    size_t n;
    uint64_t *rows;
} part_rec;

typedef struct {
    uint8_t head[RVS_PART_HEAD_LEN];
    size_t k;
    part_rec *p;
} part_list;

static void part_free(part_list *L)
{
    for (size_t i = 0; i < L->k; i++)
        free(L->p[i].rows);
    free(L->p);
}

/* The whole records of c, at most K of them; 0, or -1 when out of memory. */
static int part_parse(const fz_chunk *c, part_list *L)
{
    memset(L, 0, sizeof *L);
    memcpy(L->head, c->data, RVS_PART_HEAD_LEN);
    /* no more records than the payload holds: K may be anything */
    L->p = calloc((c->len - RVS_PART_HEAD_LEN) / RVS_PART_ENTRY_LEN + 1, sizeof *L->p);
    if (!L->p)
        return -1;
    for (size_t off; (off = part_record(c, L->k)) != SIZE_MAX && L->k < rvs_le32(c->data + 4); L->k++) {
        part_rec *q = &L->p[L->k];
        memcpy(q->head, c->data + off, RVS_PART_ENTRY_LEN);
        q->n = (size_t)rvs_le64(c->data + off + 16);
        if (q->n > (c->len - off - RVS_PART_ENTRY_LEN) / 8)
            break;
        if (!(q->rows = malloc(q->n * 8 + 8)))
            return part_free(L), -1;
        for (size_t i = 0; i < q->n; i++)
            q->rows[i] = rvs_le64(c->data + off + RVS_PART_ENTRY_LEN + 8 * i);
    }
    return 0;
}

static int part_write(fz_chunk *c, const part_list *L)
{
    size_t len = RVS_PART_HEAD_LEN;
    for (size_t i = 0; i < L->k; i++)
        len += RVS_PART_ENTRY_LEN + 8 * L->p[i].n;
    uint8_t *p = malloc(len), *q = p + RVS_PART_HEAD_LEN;
    if (!p)
        return -1;
    memcpy(p, L->head, RVS_PART_HEAD_LEN);
    rvs_put32(p + 4, (uint32_t)L->k);
    for (size_t i = 0; i < L->k; i++) {
        memcpy(q, L->p[i].head, RVS_PART_ENTRY_LEN);
        rvs_put64(q + 16, L->p[i].n);
        for (size_t j = 0; j < L->p[i].n; j++)
            rvs_put64(q + RVS_PART_ENTRY_LEN + 8 * j, L->p[i].rows[j]);
        q += RVS_PART_ENTRY_LEN + 8 * L->p[i].n;
    }
    free(c->data);
    c->data = p;
    c->len = len;
    return 0;
}

/* Insert row v into part q at position at; 0, or -1 when out of memory. */
static int part_add_row(part_rec *q, size_t at, uint64_t v)
{
    uint64_t *grown = realloc(q->rows, (q->n + 2) * 8);
    if (!grown)
        return -1;
    memmove(grown + at + 1, grown + at, (q->n - at) * 8);
    grown[at] = v;
    q->rows = grown;
    q->n++;
    return 0;
}

/* Insert a record at position at, empty, with like's head or a power of 1. */
static int part_add_record(part_list *L, size_t at, const part_rec *like)
{
    uint8_t head[RVS_PART_ENTRY_LEN] = {0};
    if (like) /* like may be in L->p, which moves */
        memcpy(head, like->head, RVS_PART_ENTRY_LEN);
    else
        rvs_put_f64(head + 8, 1.0);
    part_rec *grown = realloc(L->p, (L->k + 2) * sizeof *grown);
    if (!grown)
        return -1;
    L->p = grown;
    memmove(&L->p[at + 1], &L->p[at], (L->k - at) * sizeof *L->p);
    memset(&L->p[at], 0, sizeof *L->p);
    memcpy(L->p[at].head, head, RVS_PART_ENTRY_LEN);
    L->k++;
    return 0;
}

/* PART: rows moved, dropped or doubled; parts split, merged, swapped or added. */
void mutate_partition(fz_chunk *c, rng *r)
{
    part_list L;
    if (c->len < RVS_PART_HEAD_LEN || part_parse(c, &L) != 0)
        return;
    const size_t k = L.k, a = below(r, k), b = below(r, k);
    part_rec *pa = k ? &L.p[a] : NULL, *pb = k ? &L.p[b] : NULL;
    switch (below(r, 7)) {
    case 0: /* move a row from a to b */
        if (pa && pa->n) {
            const size_t i = below(r, pa->n);
            const uint64_t v = pa->rows[i];
            memmove(pa->rows + i, pa->rows + i + 1, (pa->n - i - 1) * 8);
            pa->n--;
            part_add_row(pb, below(r, pb->n + 1), v);
        }
        break;
    case 1: /* drop a row */
        if (pa && pa->n) {
            const size_t i = below(r, pa->n);
            memmove(pa->rows + i, pa->rows + i + 1, (pa->n - i - 1) * 8);
            pa->n--;
        }
        break;
    case 2: /* a row twice, in b */
        if (pa && pa->n)
            part_add_row(pb, below(r, pb->n + 1), pa->rows[below(r, pa->n)]);
        break;
    case 3: /* split a: its rows from i on become a new part after it */
        if (pa && part_add_record(&L, a + 1, pa) == 0) {
            pa = &L.p[a];
            const size_t i = below(r, pa->n + 1);
            for (size_t j = i; j < pa->n; j++)
                part_add_row(&L.p[a + 1], L.p[a + 1].n, pa->rows[j]);
            pa->n = i;
        }
        break;
    case 4: /* merge a into b */
        if (k > 1 && a != b) {
            for (size_t j = 0; j < pa->n; j++)
                part_add_row(pb, pb->n, pa->rows[j]);
            free(pa->rows);
            memmove(&L.p[a], &L.p[a + 1], (k - a - 1) * sizeof *L.p);
            L.k--;
        }
        break;
    case 5: /* swap two parts */
        if (k > 1) {
            part_rec t = *pa;
            *pa = *pb;
            *pb = t;
        }
        break;
    default: /* a new empty part */ part_add_record(&L, below(r, k + 1), NULL); break;
    }
    part_write(c, &L);
    part_free(&L);
}

/* The rows of each part of the PART chunk p into n[0..k) (k <= max); the count. */
size_t part_sizes(const fz_chunk *p, uint64_t *n, size_t max)
{
    size_t k = 0;
    for (size_t off; k < max && k < rvs_le32(p->data + 4) && (off = part_record(p, k)) != SIZE_MAX; k++)
        n[k] = rvs_le64(p->data + off + 16);
    return k;
}

/* An auto candidate: mostly a format that ran, with tunables. */
static void some_candidate(rng *r, uint8_t *p)
{
    memset(p, 0, AUTO_CAND);
    rvs_put32(p, one_in(r, 8) ? (uint32_t)below(r, 100) : 1 + (uint32_t)below(r, 11));
    rvs_put32(p + 4, one_in(r, 4) ? (uint32_t)below(r, 5) : 0);
    rvs_put_f64(p + 8, one_in(r, 8) ? -1.0 : (double)below(r, 100) / 16);
    rvs_put_f64(p + 16, 1000.0);
    some_knobs(r, (char *)p + 24, 72);
}

/* An auto record for part (-1: the whole matrix) with 1 to 3 candidates into p (24 + 96 C bytes);
 * its size. */
static size_t some_record(rng *r, uint8_t *p, int64_t part, const context *x)
{
    const uint32_t nc = 1 + (uint32_t)below(r, 3);
    memset(p, 0, AUTO_REC);
    rvs_put32(p, (uint32_t)part);
    rvs_put32(p + 4, one_in(r, 4));
    rvs_put32(p + 8, one_in(r, 4) ? 1 + (uint32_t)below(r, 4) : x->vtype);
    rvs_put32(p + 12, nc);
    rvs_put32(p + 16, (uint32_t)below(r, nc));
    rvs_put32(p + 20, (uint32_t)below(r, 4));
    for (uint32_t i = 0; i < nc; i++)
        some_candidate(r, p + AUTO_REC + i * AUTO_CAND);
    return AUTO_REC + nc * AUTO_CAND;
}

/* A part number for an auto record: mostly one the stream has, else one at an edge. */
static int64_t some_part(rng *r, const context *x)
{
    static const int64_t odd[] = {-2, 65535, 65536, INT32_MAX};
    if (one_in(r, 6))
        return one_in(r, 2) ? (int64_t)x->k : odd[below(r, 4)];
    return (int64_t)below(r, x->k + 1) - 1;
}

/* An auto chunk: one record for the whole matrix or for each part. */
int new_auto(fz_stream *s, int at, rng *r, const context *x)
{
    const size_t records = x->k && x->k <= 64 ? x->k : 1;
    uint8_t *p = calloc(1, AUTO_HEAD + records * (AUTO_REC + 3 * AUTO_CAND));
    size_t len = AUTO_HEAD;
    if (!p)
        return -1;
    rvs_put32(p, 1);
    rvs_put32(p + 4, (uint32_t)records);
    for (size_t i = 0; i < records; i++)
        len += some_record(r, p + len, x->k && x->k <= 64 ? (int64_t)i : -1, x);
    at = fz_insert(s, at, "auto", p, len);
    free(p);
    return at;
}

/* auto: records added, dropped, doubled; candidates added or dropped; parts at their edges. R and
 * every C follow the records. */
void mutate_auto(fz_chunk *c, rng *r, const context *x)
{
    size_t n = 0, recs[256], ends[256];
    uint8_t buf[AUTO_REC + 3 * AUTO_CAND];
    if (c->len < AUTO_HEAD)
        return;
    for (size_t off; n < 256 && (off = auto_record(c, n)) != SIZE_MAX; n++) {
        const size_t nc = rvs_le32(c->data + off + 12);
        if (nc > (c->len - off - AUTO_REC) / AUTO_CAND)
            break;
        recs[n] = off;
        ends[n] = off + AUTO_REC + nc * AUTO_CAND;
    }
    c->len = n ? ends[n - 1] : AUTO_HEAD; /* what no record holds goes */
    const size_t i = below(r, n);
    switch (below(r, 6)) {
    case 0: /* a new record */
        fz_splice(c, n ? (one_in(r, 2) ? recs[i] : ends[i]) : AUTO_HEAD, 0, buf,
                  some_record(r, buf, some_part(r, x), x));
        n++;
        break;
    case 1:
        if (n) {
            fz_splice(c, recs[i], ends[i] - recs[i], NULL, 0);
            n--;
        }
        break;
    case 2:
        if (n) {
            fz_splice(c, ends[i], 0, c->data + recs[i], ends[i] - recs[i]);
            n++;
        }
        break;
    case 3: /* a candidate more */
        if (n && rvs_le32(c->data + recs[i] + 12) < RVS_MAX_CAND + 1) {
            some_candidate(r, buf);
            rvs_put32(c->data + recs[i] + 12, rvs_le32(c->data + recs[i] + 12) + 1);
            fz_splice(c, ends[i], 0, buf, AUTO_CAND);
        }
        break;
    case 4: /* a candidate less; the chosen one stays in range */
        if (n && rvs_le32(c->data + recs[i] + 12) > 0) {
            const uint32_t nc = rvs_le32(c->data + recs[i] + 12) - 1;
            rvs_put32(c->data + recs[i] + 12, nc);
            if (nc && rvs_le32(c->data + recs[i] + 16) >= nc)
                rvs_put32(c->data + recs[i] + 16, (uint32_t)below(r, nc));
            fz_splice(c, ends[i] - AUTO_CAND, AUTO_CAND, NULL, 0);
        }
        break;
    default:
        if (n)
            rvs_put32(c->data + recs[i], (uint32_t)some_part(r, x));
        break;
    }
    rvs_put32(c->data + 4, (uint32_t)n);
}

/* A plac chunk for the stream's partition, its parts bound to processors near the edges. */
int new_plac(fz_stream *s, int at, rng *r)
{
    static const int32_t procs[] = {-1, -1, 0, 1, 2, 65535, 65536, 70000, -2};
    const int p = fz_find(s, "PART", 0);
    uint64_t n[64];
    const size_t k = p >= 0 && s->c[p].len >= RVS_PART_HEAD_LEN ? part_sizes(&s->c[p], n, 64) : below(r, 3);
    uint8_t buf[PLAC_HEAD + 64 * PLAC_REC] = {0};
    rvs_put32(buf, (uint32_t)k);
    for (size_t i = 0; i < k; i++) {
        rvs_put64(buf + PLAC_HEAD + i * PLAC_REC, p >= 0 ? n[i] : below(r, 4));
        rvs_put32(buf + PLAC_HEAD + i * PLAC_REC + 8, (uint32_t)procs[below(r, sizeof procs / sizeof *procs)]);
    }
    return fz_insert(s, at, "plac", buf, PLAC_HEAD + k * PLAC_REC);
}

/* plac: records added, dropped or swapped; K follows. */
void mutate_plac(fz_chunk *c, rng *r)
{
    uint8_t rec[PLAC_REC] = {0};
    if (c->len < PLAC_HEAD)
        return;
    size_t n = (c->len - PLAC_HEAD) / PLAC_REC;
    c->len = PLAC_HEAD + n * PLAC_REC;
    const size_t i = below(r, n + 1);
    switch (below(r, 3)) {
    case 0:
        rvs_put64(rec, below(r, 8));
        rvs_put32(rec + 8, (uint32_t)below(r, 4) - 1);
        fz_splice(c, PLAC_HEAD + i * PLAC_REC, 0, rec, PLAC_REC);
        n++;
        break;
    case 1:
        if (i < n) {
            fz_splice(c, PLAC_HEAD + i * PLAC_REC, PLAC_REC, NULL, 0);
            n--;
        }
        break;
    default:
        if (i < n) {
            const size_t j = below(r, n);
            memcpy(rec, c->data + PLAC_HEAD + i * PLAC_REC, PLAC_REC);
            memcpy(c->data + PLAC_HEAD + i * PLAC_REC, c->data + PLAC_HEAD + j * PLAC_REC, PLAC_REC);
            memcpy(c->data + PLAC_HEAD + j * PLAC_REC, rec, PLAC_REC);
        }
        break;
    }
    rvs_put32(c->data, (uint32_t)n);
}

/* pmfs: a bin added or dropped (its length and its count together); B follows. */
void mutate_pmf(fz_chunk *c, rng *r, const context *x)
{
    if (c->len < RVS_PMFS_FIXED_LEN)
        return;
    const uint64_t stored = rvs_le64(c->data + 72);
    size_t bins = (c->len - RVS_PMFS_FIXED_LEN) / 16;
    bins = stored < bins ? (size_t)stored : bins;
    c->len = RVS_PMFS_FIXED_LEN + 16 * bins;
    const size_t i = below(r, bins + 1);
    if (one_in(r, 2) || bins == 0) {
        uint8_t v[8];
        rvs_put64(v, some_int(r, x, 0));
        fz_splice(c, RVS_PMFS_FIXED_LEN + bins * 8 + i * 8, 0, v, 8); /* its count, then its length */
        rvs_put64(v, one_in(r, 2) ? below(r, 20) : some_int(r, x, 0));
        fz_splice(c, RVS_PMFS_FIXED_LEN + i * 8, 0, v, 8);
        bins++;
    } else if (i < bins) {
        fz_splice(c, RVS_PMFS_FIXED_LEN + bins * 8 + i * 8, 8, NULL, 0);
        fz_splice(c, RVS_PMFS_FIXED_LEN + i * 8, 8, NULL, 0);
        bins--;
    }
    rvs_put64(c->data + 72, bins);
}

/* MHDR's name: newlines, escapes, the longest and one past it; its length follows (mostly). */
void mutate_name(fz_chunk *c, rng *r)
{
    static const char *names[] = {
        "A.mtx", "", "a\nb", "\x1b[31mred", "tab\there", "\xc3\xa9t\xc3\xa9", "x\x7f", "bad\xff\xfe", "nul\0in"};
    char buf[300];
    size_t n;
    if (c->len < RVS_MHDR_FIXED_LEN)
        return;
    if (one_in(r, 4)) {
        n = one_in(r, 2) ? 255 : 256;
        memset(buf, 'n', n);
    } else {
        const size_t i = below(r, sizeof names / sizeof *names);
        n = i == 8 ? 6 : strlen(names[i]);
        memcpy(buf, names[i], n);
    }
    fz_splice(c, RVS_MHDR_FIXED_LEN, c->len - RVS_MHDR_FIXED_LEN, buf, n);
    rvs_put32(c->data + 32, one_in(r, 8) ? (uint32_t)n + 1 : (uint32_t)n);
}

/* mmhd: four banner words (sometimes three, five, upper case or doubled blanks). */
void mutate_mmhd(fz_chunk *c, rng *r)
{
    static const char *w[4][6] = {{"matrix", "matrix", "Matrix", "vector", "", "matrix"},
                                  {"coordinate", "array", "Coordinate", "dense", "coordinate", "array"},
                                  {"real", "integer", "pattern", "complex", "unsigned-integer", "double"},
                                  {"general", "symmetric", "skew-symmetric", "hermitian", "General", "upper"}};
    char buf[128];
    size_t n = 0;
    const size_t words = one_in(r, 8) ? 3 + below(r, 3) : 4;
    for (size_t i = 0; i < words; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? (one_in(r, 16) ? "  " : " ") : "",
                              w[i % 4][below(r, 6)]);
    fz_splice(c, 0, c->len, buf, n);
}
