/* fuzz_chunks.c - an RVS stream as a list of chunks: decoded without judging fields, encoded
 * with every CRC right, so that a mutated field reaches the checks behind the CRC in every build */
#include <stdlib.h>
#include <string.h>
#include "fuzz_chunks.h"
#include "rvs_stream.h"
#include "stream_layout.h"

int fz_decode(fz_stream *s, const uint8_t *data, size_t size)
{
    size_t pos = RVS_PRELUDE_LEN;
    memset(s, 0, sizeof *s);
    if (size < RVS_PRELUDE_LEN || memcmp(data, rvs_magic, RVS_MAGIC_LEN) != 0)
        return -1;
    s->major = (uint16_t)(data[8] | data[9] << 8);
    s->minor = (uint16_t)(data[10] | data[11] << 8);
    while (pos + RVS_CHUNK_HEAD_LEN <= size) {
        const uint8_t *head = data + pos;
        const uint64_t len = rvs_le64(head + 4);
        const size_t have = size - pos - RVS_CHUNK_HEAD_LEN;
        const size_t take = len < have ? (size_t)len : have;
        if (fz_insert(s, s->n, (const char *)head, head + RVS_CHUNK_HEAD_LEN, take) < 0) {
            fz_free(s);
            return -1;
        }
        pos += RVS_CHUNK_HEAD_LEN + take;
        pos += size - pos < RVS_CHUNK_CRC_LEN ? size - pos : RVS_CHUNK_CRC_LEN;
        if (memcmp(head, "REND", 4) == 0)
            break; /* what follows is not read: another stream, or garbage */
    }
    if (pos < size) {
        s->tail = malloc(size - pos);
        if (!s->tail) {
            fz_free(s);
            return -1;
        }
        memcpy(s->tail, data + pos, size - pos);
        s->tail_len = size - pos;
    }
    return 0;
}

size_t fz_encoded_size(const fz_stream *s)
{
    size_t n = RVS_PRELUDE_LEN + s->tail_len;
    for (int i = 0; i < s->n; i++)
        n += RVS_CHUNK_HEAD_LEN + s->c[i].len + RVS_CHUNK_CRC_LEN;
    return n;
}

size_t fz_encode(const fz_stream *s, uint8_t *out, size_t max)
{
    const size_t n = fz_encoded_size(s);
    if (n > max)
        return 0;
    uint8_t *p = out;
    memcpy(p, rvs_magic, RVS_MAGIC_LEN);
    p[8] = (uint8_t)s->major, p[9] = (uint8_t)(s->major >> 8);
    p[10] = (uint8_t)s->minor, p[11] = (uint8_t)(s->minor >> 8);
    rvs_put32(p + 12, rvs_crc32c(0, p, 12));
    p += RVS_PRELUDE_LEN;
    for (int i = 0; i < s->n; i++) {
        const fz_chunk *c = &s->c[i];
        memcpy(p, c->type, 4);
        rvs_put64(p + 4, c->len);
        if (c->len)
            memcpy(p + RVS_CHUNK_HEAD_LEN, c->data, c->len);
        rvs_put32(p + RVS_CHUNK_HEAD_LEN + c->len, rvs_crc32c(0, p, RVS_CHUNK_HEAD_LEN + c->len));
        p += RVS_CHUNK_HEAD_LEN + c->len + RVS_CHUNK_CRC_LEN;
    }
    if (s->tail_len)
        memcpy(p, s->tail, s->tail_len);
    return n;
}

void fz_free(fz_stream *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->c[i].data);
    free(s->c);
    free(s->tail);
    memset(s, 0, sizeof *s);
}

int fz_insert(fz_stream *s, int at, const char *type, const uint8_t *data, size_t len)
{
    fz_chunk c = {{0}, NULL, len};
    memcpy(c.type, type, 4); /* type may be that of a chunk of s, which moves */
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        fz_chunk *grown = realloc(s->c, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        s->c = grown;
        s->cap = cap;
    }
    if (len && !(c.data = malloc(len)))
        return -1;
    if (len)
        data ? memcpy(c.data, data, len) : memset(c.data, 0, len);
    memmove(&s->c[at + 1], &s->c[at], (size_t)(s->n - at) * sizeof *s->c);
    s->c[at] = c;
    s->n++;
    return at;
}

void fz_remove(fz_stream *s, int at)
{
    free(s->c[at].data);
    memmove(&s->c[at], &s->c[at + 1], (size_t)(s->n - at - 1) * sizeof *s->c);
    s->n--;
}

int fz_splice(fz_chunk *c, size_t at, size_t del, const void *ins, size_t ins_len)
{
    const size_t len = c->len - del + ins_len;
    uint8_t *p = malloc(len ? len : 1);
    if (!p)
        return -1;
    if (at)
        memcpy(p, c->data, at);
    if (ins_len)
        ins ? memcpy(p + at, ins, ins_len) : memset(p + at, 0, ins_len);
    if (c->len - at - del)
        memcpy(p + at + ins_len, c->data + at + del, c->len - at - del);
    free(c->data);
    c->data = p;
    c->len = len;
    return 0;
}

int fz_find(const fz_stream *s, const char *type, int from)
{
    for (int i = from < 0 ? 0 : from; i < s->n; i++)
        if (memcmp(s->c[i].type, type, 4) == 0)
            return i;
    return -1;
}
