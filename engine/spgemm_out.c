/* spgemm_out.c - sinks that write C to a file block by block as the GPU produces it: an RVS
 * stream (byte for byte what rvs_stream_write writes, man/man5/rvs.5) or Matrix Market text.
 *
 * The stream's layout is fixed once C's row offsets are known: prelude, MHDR, the rowptr
 * ARRY, the colind ARRY, the values ARRY, REND. Every offset follows from rows, nnz and the
 * name, so each block's columns and values go straight to their final place (pwrite) while
 * the two arrays' CRCs grow in row order; the CRCs are written last. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rvs_engine_spgemm.h"
#include "rvs_stream.h"
#include "stream_layout.h"

typedef struct {
    FILE *f;
    int fd, mtx, digits;
    char name[RVS_NAME_MAX + 1];
    size_t vs;
    int64_t nnz, done;
    uint64_t col_at, val_at, end_at; /* offsets of the first column, first value, REND */
    uint32_t col_crc, val_crc;
} sink_state;

/* Write n bytes at offset off. */
static rvs_status put_at(sink_state *s, const void *buf, size_t n, uint64_t off, rvs_error *err)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(s->fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return rvs_fail(err, RVS_ERR_IO, "write failed: %s", w < 0 ? strerror(errno) : "no space");
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return RVS_OK;
}

/* A chunk header (type, payload length) at h; returns its CRC so far. */
static uint32_t chunk_head(uint8_t *h, const char *type, uint64_t len)
{
    memcpy(h, type, 4);
    rvs_put64(h + 4, len);
    return rvs_crc32c(0, h, RVS_CHUNK_HEAD_LEN);
}

/* The 24-byte head of an ARRY payload. */
static void arry_head(uint8_t *h, const char *name, rvs_dtype dt, uint64_t count)
{
    memset(h, 0, RVS_ARRY_HEAD_LEN);
    memcpy(h, name, strlen(name));
    rvs_put32(h + 8, (uint32_t)dt);
    rvs_put64(h + 16, count);
}

/* Prelude, MHDR and rowptr written; the headers of colind and values placed. */
static rvs_status stream_begin(rvs_spgemm_sink *k, const rvs_csr *C, rvs_error *err)
{
    sink_state *s = k->ctx;
    const size_t namelen = strlen(s->name);
    const uint64_t rows = (uint64_t)C->rows, nnz = (uint64_t)C->nnz;
    uint8_t buf[RVS_PRELUDE_LEN + RVS_CHUNK_HEAD_LEN + RVS_MHDR_FIXED_LEN + RVS_NAME_MAX + RVS_CHUNK_CRC_LEN +
                RVS_CHUNK_HEAD_LEN + RVS_ARRY_HEAD_LEN];
    uint8_t *p = buf, crc4[4];
    uint32_t crc;
    uint64_t off, rp_len = RVS_ARRY_HEAD_LEN + (rows + 1) * 8;
    rvs_status st;
    s->nnz = C->nnz;
    s->vs = rvs_vtype_size(C->vtype);
    memcpy(p, rvs_magic, RVS_MAGIC_LEN);
    p[8] = RVS_STREAM_MAJOR & 0xff;
    p[9] = RVS_STREAM_MAJOR >> 8;
    p[10] = RVS_STREAM_MINOR_FOR(C->vtype) & 0xff;
    p[11] = RVS_STREAM_MINOR_FOR(C->vtype) >> 8;
    rvs_put32(p + 12, rvs_crc32c(0, p, 12));
    p += RVS_PRELUDE_LEN;
    crc = chunk_head(p, "MHDR", RVS_MHDR_FIXED_LEN + namelen);
    p += RVS_CHUNK_HEAD_LEN;
    rvs_put64(p, rows);
    rvs_put64(p + 8, (uint64_t)C->cols);
    rvs_put64(p + 16, nnz);
    rvs_put32(p + 24, (uint32_t)C->vtype);
    rvs_put32(p + 28, 4);
    rvs_put32(p + 32, (uint32_t)namelen);
    memcpy(p + RVS_MHDR_FIXED_LEN, s->name, namelen);
    crc = rvs_crc32c(crc, p, RVS_MHDR_FIXED_LEN + namelen);
    p += RVS_MHDR_FIXED_LEN + namelen;
    rvs_put32(p, crc);
    p += RVS_CHUNK_CRC_LEN;
    crc = chunk_head(p, "ARRY", rp_len);
    p += RVS_CHUNK_HEAD_LEN;
    arry_head(p, "rowptr", RVS_DT_I64, rows + 1);
    crc = rvs_crc32c(crc, p, RVS_ARRY_HEAD_LEN);
    p += RVS_ARRY_HEAD_LEN;
    off = (uint64_t)(p - buf);
    if ((st = put_at(s, buf, (size_t)off, 0, err)) != RVS_OK)
        return st;
    crc = rvs_crc32c(crc, C->rowptr, (size_t)(rows + 1) * 8);
    if ((st = put_at(s, C->rowptr, (size_t)(rows + 1) * 8, off, err)) != RVS_OK)
        return st;
    off += (rows + 1) * 8;
    rvs_put32(crc4, crc);
    if ((st = put_at(s, crc4, 4, off, err)) != RVS_OK)
        return st;
    off += 4;
    /* colind: header now, CRC continued by the blocks */
    s->col_crc = chunk_head(buf, "ARRY", RVS_ARRY_HEAD_LEN + nnz * 4);
    arry_head(buf + RVS_CHUNK_HEAD_LEN, "colind", RVS_DT_I32, nnz);
    s->col_crc = rvs_crc32c(s->col_crc, buf + RVS_CHUNK_HEAD_LEN, RVS_ARRY_HEAD_LEN);
    if ((st = put_at(s, buf, RVS_CHUNK_HEAD_LEN + RVS_ARRY_HEAD_LEN, off, err)) != RVS_OK)
        return st;
    s->col_at = off + RVS_CHUNK_HEAD_LEN + RVS_ARRY_HEAD_LEN;
    off = s->col_at + nnz * 4 + RVS_CHUNK_CRC_LEN;
    s->val_crc = chunk_head(buf, "ARRY", RVS_ARRY_HEAD_LEN + nnz * s->vs);
    arry_head(buf + RVS_CHUNK_HEAD_LEN, "values", rvs_value_dtype(C->vtype), nnz);
    s->val_crc = rvs_crc32c(s->val_crc, buf + RVS_CHUNK_HEAD_LEN, RVS_ARRY_HEAD_LEN);
    if ((st = put_at(s, buf, RVS_CHUNK_HEAD_LEN + RVS_ARRY_HEAD_LEN, off, err)) != RVS_OK)
        return st;
    s->val_at = off + RVS_CHUNK_HEAD_LEN + RVS_ARRY_HEAD_LEN;
    s->end_at = s->val_at + nnz * s->vs + RVS_CHUNK_CRC_LEN;
    return RVS_OK;
}

/* A block's columns and values at their offsets, CRCs continued. */
static rvs_status stream_rows(rvs_spgemm_sink *k, const rvs_csr *C, int64_t r0, int64_t r1, const int32_t *col,
                              const void *val, rvs_error *err)
{
    sink_state *s = k->ctx;
    const int64_t n = C->rowptr[r1] - C->rowptr[r0];
    rvs_status st;
    if (C->rowptr[r0] != s->done)
        return rvs_fail(err, RVS_ERR_INTERNAL, "rows %lld.. of C out of order", (long long)r0 + 1);
    if (n == 0)
        return RVS_OK;
    s->col_crc = rvs_crc32c(s->col_crc, col, (size_t)n * 4);
    s->val_crc = rvs_crc32c(s->val_crc, val, (size_t)n * s->vs);
    if ((st = put_at(s, col, (size_t)n * 4, s->col_at + (uint64_t)s->done * 4, err)) != RVS_OK ||
        (st = put_at(s, val, (size_t)n * s->vs, s->val_at + (uint64_t)s->done * s->vs, err)) != RVS_OK)
        return st;
    s->done += n;
    return RVS_OK;
}

/* The two CRCs and REND. */
static rvs_status stream_finish(sink_state *s, rvs_error *err)
{
    uint8_t c[4], end[RVS_CHUNK_HEAD_LEN + RVS_REND_LEN + RVS_CHUNK_CRC_LEN];
    rvs_status st;
    uint32_t crc;
    if (s->done != s->nnz)
        return rvs_fail(err, RVS_ERR_INTERNAL, "C has %lld entries, %lld were written", (long long)s->nnz,
                        (long long)s->done);
    rvs_put32(c, s->col_crc);
    if ((st = put_at(s, c, 4, s->col_at + (uint64_t)s->nnz * 4, err)) != RVS_OK)
        return st;
    rvs_put32(c, s->val_crc);
    if ((st = put_at(s, c, 4, s->val_at + (uint64_t)s->nnz * s->vs, err)) != RVS_OK)
        return st;
    crc = chunk_head(end, "REND", RVS_REND_LEN);
    rvs_put64(end + RVS_CHUNK_HEAD_LEN, 4); /* MHDR and three ARRY before it */
    crc = rvs_crc32c(crc, end + RVS_CHUNK_HEAD_LEN, RVS_REND_LEN);
    rvs_put32(end + RVS_CHUNK_HEAD_LEN + RVS_REND_LEN, crc);
    if ((st = put_at(s, end, sizeof end, s->end_at, err)) != RVS_OK)
        return st;
    /* the FILE's own position follows the descriptor's for whoever closes it */
    if (fseeko(s->f, (off_t)(s->end_at + sizeof end), SEEK_SET) != 0)
        return rvs_fail(err, RVS_ERR_IO, "seek failed: %s", strerror(errno));
    return RVS_OK;
}

/* ---- Matrix Market ------------------------------------------------------------------------ */

static rvs_status mtx_begin(rvs_spgemm_sink *k, const rvs_csr *C, rvs_error *err)
{
    sink_state *s = k->ctx;
    s->nnz = C->nnz;
    s->vs = rvs_vtype_size(C->vtype);
    if (fprintf(s->f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", (long long)C->rows,
                (long long)C->cols, (long long)C->nnz) < 0)
        return rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
    return RVS_OK;
}

/* Rows [r0, r1) as coordinate lines into buf (80 bytes an entry at most); returns the end. */
static char *mtx_format(char *buf, const rvs_csr *C, int64_t r0, int64_t r1, const int32_t *col, const void *val,
                        int64_t base, int s_digits)
{
    const int digits = s_digits ? s_digits : C->vtype == RVS_F32 ? 9 : 17;
    char *p = buf;
    for (int64_t i = r0; i < r1; i++)
        for (int64_t e = C->rowptr[i]; e < C->rowptr[i + 1]; e++) {
            const double v = C->vtype == RVS_F32 ? (double)((const float *)val)[e - base]
                                                 : ((const double *)val)[e - base];
            p += sprintf(p, "%lld %lld %.*g\n", (long long)i + 1, (long long)col[e - base] + 1, digits, v);
        }
    return p;
}

/* A block's lines, formatted by all threads in row pieces, written in order. */
static rvs_status mtx_rows(rvs_spgemm_sink *k, const rvs_csr *C, int64_t r0, int64_t r1, const int32_t *col,
                           const void *val, rvs_error *err)
{
    sink_state *s = k->ctx;
    const int64_t base = C->rowptr[r0], n = C->rowptr[r1] - base;
    enum { PIECE = 1 << 16 }; /* entries per formatting piece */
    const int64_t pieces = (n + PIECE - 1) / PIECE;
    rvs_status st = RVS_OK;
    if (n == 0)
        return RVS_OK;
    char **out = calloc((size_t)pieces, sizeof *out);
    size_t *len = calloc((size_t)pieces, sizeof *len);
    int64_t *cut = malloc((size_t)(pieces + 1) * sizeof *cut);
    if (!out || !len || !cut) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory formatting C");
        goto done;
    }
    for (int64_t q = 0, i = r0; q <= pieces; q++) { /* piece q: rows [cut[q], cut[q+1]) */
        while (i < r1 && C->rowptr[i] - base < q * PIECE)
            i++;
        cut[q] = q == pieces ? r1 : i;
    }
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t q = 0; q < pieces; q++) {
        const int64_t ents = C->rowptr[cut[q + 1]] - C->rowptr[cut[q]];
        out[q] = malloc((size_t)ents * 80 + 1);
        if (!out[q]) {
#pragma omp atomic write
            failed = 1;
            continue;
        }
        len[q] = (size_t)(mtx_format(out[q], C, cut[q], cut[q + 1], col, val, base, s->digits) - out[q]);
    }
    if (failed) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory formatting C");
        goto done;
    }
    for (int64_t q = 0; q < pieces; q++)
        if (len[q] && fwrite(out[q], 1, len[q], s->f) != len[q]) {
            st = rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
            goto done;
        }
    s->done += n;
done:
    for (int64_t q = 0; out && q < pieces; q++)
        free(out[q]);
    free(out);
    free(len);
    free(cut);
    return st;
}

/* ---- the sinks ------------------------------------------------------------------------------ */

static rvs_status sink_new(rvs_spgemm_sink *k, FILE *f, int mtx, rvs_error *err)
{
    sink_state *s = calloc(1, sizeof *s);
    memset(k, 0, sizeof *k);
    if (!s)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    s->f = f;
    s->fd = fileno(f);
    s->mtx = mtx;
    k->ctx = s;
    k->begin = mtx ? mtx_begin : stream_begin;
    k->rows = mtx ? mtx_rows : stream_rows;
    return RVS_OK;
}

rvs_status rvs_spgemm_stream_sink(rvs_spgemm_sink *k, FILE *f, const char *name, rvs_error *err)
{
    struct stat sb;
    rvs_status st;
    if (fflush(f) != 0 || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || lseek(fileno(f), 0, SEEK_CUR) != 0)
        return rvs_fail(err, RVS_ERR_ARG, "C is written block by block only to an empty regular file");
    if ((st = sink_new(k, f, 0, err)) == RVS_OK)
        snprintf(((sink_state *)k->ctx)->name, RVS_NAME_MAX + 1, "%s", name ? name : "");
    return st;
}

rvs_status rvs_spgemm_mtx_sink(rvs_spgemm_sink *k, FILE *f, int digits, rvs_error *err)
{
    if (digits < 0 || digits > 17)
        return rvs_fail(err, RVS_ERR_ARG, "digits %d is not in 0..17", digits);
    rvs_status st = sink_new(k, f, 1, err);
    if (st == RVS_OK)
        ((sink_state *)k->ctx)->digits = digits;
    return st;
}

rvs_status rvs_spgemm_sink_finish(rvs_spgemm_sink *k, rvs_error *err)
{
    sink_state *s = k->ctx;
    rvs_status st = s->mtx ? RVS_OK : stream_finish(s, err);
    if (st == RVS_OK && s->mtx && s->done != s->nnz)
        st = rvs_fail(err, RVS_ERR_INTERNAL, "C has %lld entries, %lld were written", (long long)s->nnz,
                      (long long)s->done);
    if (st == RVS_OK && (fflush(s->f) != 0 || ferror(s->f)))
        st = rvs_fail(err, RVS_ERR_IO, "write failed: %s", strerror(errno));
    return st;
}

void rvs_spgemm_sink_free(rvs_spgemm_sink *k)
{
    free(k->ctx);
    memset(k, 0, sizeof *k);
}
