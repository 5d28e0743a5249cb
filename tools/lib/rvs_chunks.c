/* rvs_chunks.c - walk the chunks of a stream held in memory, for the inspector */
#include <stdlib.h>
#include <string.h>
#include "rvs_chunks.h"
#include "rvs_report.h"
#include "stream_layout.h"

/* Names of element types, value types and formats for descriptions. */
static const char *dtype_name(uint32_t d)
{
    static const char *const n[] = {"?", "i32", "i64", "f32", "f64", "u8", "u32", "c64", "c128"};
    return d <= RVS_DT_C128 ? n[d] : "?";
}

static const char *vtype_name(uint32_t v)
{
    return rvs_vtype_valid(v) ? rvs_vtype_name((rvs_vtype)v) : "?";
}

/* Describe the head of a chunk whose payload p has n bytes (n may be short of L when cut). */
static void describe(rvs_chunk_info *c, const uint8_t *p, uint64_t n)
{
    const char *t = c->type;
    c->known = 1;
    if (strcmp(t, "MHDR") == 0 && n >= RVS_MHDR_FIXED_LEN) {
        uint32_t nl = rvs_le32(p + 32);
        int show = nl <= n - RVS_MHDR_FIXED_LEN && nl <= 100 ? (int)nl : 0;
        char raw[101], name[RVS_TEXT_NAME_MAX];
        snprintf(raw, sizeof raw, "%.*s", show, (const char *)p + RVS_MHDR_FIXED_LEN);
        snprintf(c->what, sizeof c->what, "%lld x %lld, nnz %lld, %s, %u-byte columns, name '%.100s'",
                 (long long)rvs_le64(p), (long long)rvs_le64(p + 8), (long long)rvs_le64(p + 16),
                 vtype_name(rvs_le32(p + 24)), rvs_le32(p + 28),
                 show ? rvs_report_text_name(raw, name, sizeof name) : "");
    } else if (strcmp(t, "ARRY") == 0 && n >= RVS_ARRY_HEAD_LEN) {
        char raw[8], name[RVS_TEXT_NAME_MAX];
        snprintf(raw, sizeof raw, "%.7s", (const char *)p);
        snprintf(c->what, sizeof c->what, "%.28s %s x %llu", rvs_report_text_name(raw, name, sizeof name),
                 dtype_name(rvs_le32(p + 8)), (unsigned long long)rvs_le64(p + 16));
    } else if (strcmp(t, "pmfs") == 0 && n >= RVS_PMFS_FIXED_LEN) {
        snprintf(c->what, sizeof c->what, "PMF of row lengths, %lld distinct, longest %lld",
                 (long long)rvs_le64(p + 72), (long long)rvs_le64(p + 40));
    } else if (strcmp(t, "PART") == 0 && n >= RVS_PART_HEAD_LEN) {
        const char *alg = rvs_alg_name((rvs_alg)rvs_le32(p));
        snprintf(c->what, sizeof c->what, "partition: %s, %u parts, block size %lld", alg ? alg : "?",
                 rvs_le32(p + 4), (long long)rvs_le64(p + 8));
    } else if (strcmp(t, "FMTB") == 0 && n >= RVS_FMTB_LEN) {
        const rvs_format_ops *ops = rvs_format_lookup((rvs_format_id)rvs_le32(p + 4));
        int32_t part = (int32_t)rvs_le32(p);
        char who[24];
        snprintf(who, sizeof who, part < 0 ? "whole matrix" : "part %d", part + 1);
        snprintf(c->what, sizeof c->what, "format block: %s, %s %s, %lld rows, nnz %lld, %u arrays", who,
                 ops ? ops->name : "?", vtype_name(rvs_le32(p + 8)), (long long)rvs_le64(p + 16),
                 (long long)rvs_le64(p + 32), rvs_le32(p + 12));
    } else if (strcmp(t, "REND") == 0 && n >= RVS_REND_LEN) {
        snprintf(c->what, sizeof c->what, "end, %llu chunks before it", (unsigned long long)rvs_le64(p));
    } else if (strcmp(t, RVS_CHUNK_MM_SOURCE) == 0 && n <= RVS_MM_SOURCE_MAX) {
        snprintf(c->what, sizeof c->what, "Matrix Market source: %.*s", (int)n, (const char *)p);
    } else {
        c->known = 0;
        int text = n > 0;
        for (uint64_t i = 0; i < n && i < 120 && text; i++)
            text = (p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\n' || p[i] == '\t';
        snprintf(c->what, sizeof c->what, "%s, not known to this reader%s%.*s%s",
                 c->critical ? "critical" : "ancillary", text ? ": \"" : "", text ? (int)(n < 60 ? n : 60) : 0,
                 (const char *)p, text ? (n > 60 ? "...\"" : "\"") : "");
        for (char *s = c->what; *s; s++) /* one line */
            if (*s == '\n' || *s == '\t')
                *s = ' ';
    }
}

/* Append a chunk record. */
static rvs_chunk_info *add_chunk(rvs_chunk_walk *W, rvs_error *err)
{
    rvs_chunk_info *grown = realloc(W->chunk, ((size_t)W->n + 1) * sizeof *grown);
    if (!grown) {
        rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    W->chunk = grown;
    memset(&grown[W->n], 0, sizeof grown[W->n]);
    return &grown[W->n++];
}

/* Walk the chunks of buf. */
rvs_status rvs_chunks_walk(rvs_chunk_walk *W, const uint8_t *buf, size_t len, rvs_error *err)
{
    memset(W, 0, sizeof *W);
    W->bytes = len;
    if (len < RVS_PRELUDE_LEN) {
        snprintf(W->problem, sizeof W->problem, "stream ends inside the prelude (%zu bytes)", len);
        return RVS_OK;
    }
    W->major = buf[8] | (unsigned)buf[9] << 8;
    W->minor = buf[10] | (unsigned)buf[11] << 8;
    W->prelude_crc_ok = rvs_crc32c(0, buf, 12) == rvs_le32(buf + 12);
    uint64_t at = RVS_PRELUDE_LEN;
    while (!W->ended && at < len) {
        rvs_chunk_info *c = add_chunk(W, err);
        if (!c)
            return RVS_ERR_NOMEM;
        c->offset = at;
        if (len - at < RVS_CHUNK_HEAD_LEN) {
            snprintf(c->type, sizeof c->type, "----");
            c->crc_ok = -1;
            snprintf(W->problem, sizeof W->problem, "stream ends inside a chunk head at byte %llu",
                     (unsigned long long)at);
            return RVS_OK;
        }
        for (int i = 0; i < 4; i++) {
            uint8_t b = buf[at + i];
            int letter = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
            c->type[i] = letter ? (char)b : '?';
        }
        c->critical = buf[at] >= 'A' && buf[at] <= 'Z';
        c->length = rvs_le64(buf + at + 4);
        uint64_t room = len - at - RVS_CHUNK_HEAD_LEN;
        const uint8_t *payload = buf + at + RVS_CHUNK_HEAD_LEN;
        if (c->length > room || room - c->length < RVS_CHUNK_CRC_LEN) {
            c->crc_ok = -1;
            describe(c, payload, c->length < room ? c->length : room);
            snprintf(W->problem, sizeof W->problem, "stream ends inside chunk '%s' at byte %llu", c->type,
                     (unsigned long long)at);
            return RVS_OK;
        }
        uint64_t body = RVS_CHUNK_HEAD_LEN + c->length;
        c->crc_ok = rvs_crc32c(0, buf + at, (size_t)body) == rvs_le32(buf + at + body);
        describe(c, payload, c->length);
        if (!c->crc_ok && !W->problem[0])
            snprintf(W->problem, sizeof W->problem, "chunk '%s' at byte %llu: CRC mismatch", c->type,
                     (unsigned long long)at);
        W->ended = strcmp(c->type, "REND") == 0;
        at += body + RVS_CHUNK_CRC_LEN;
    }
    W->trailing = len - at;
    if (!W->ended && !W->problem[0])
        snprintf(W->problem, sizeof W->problem, "stream ends without an end chunk (truncated)");
    return RVS_OK;
}

/* Free the walk. */
void rvs_chunks_free(rvs_chunk_walk *W)
{
    free(W->chunk);
    memset(W, 0, sizeof *W);
}
