/* stream_write.c - write an RVS stream: prelude, matrix, PMF, partition, format blocks, kept chunks, end */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_stream.h"
#include "stream_layout.h"

/* Where the writer stands: the file, the chunk being written, its running CRC. */
typedef struct {
    FILE *f;
    char type[5];
    uint64_t left; /* payload bytes promised by the header and not yet written */
    uint32_t crc;
    uint64_t nchunks; /* chunks written completely */
    rvs_error *err;
} writer;

/* Write n bytes to the file in pieces fwrite can take. */
static rvs_status raw_write(writer *w, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n > 0) {
        size_t piece = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        if (fwrite(p, 1, piece, w->f) != piece)
            return rvs_fail(w->err, RVS_ERR_IO, "write failed: %s", strerror(errno));
        p += piece;
        n -= piece;
    }
    return RVS_OK;
}

/* Write the header of a chunk of type t (4 letters) with a payload of len bytes. */
static rvs_status chunk_open(writer *w, const char *t, uint64_t len)
{
    uint8_t h[RVS_CHUNK_HEAD_LEN];
    memcpy(h, t, 4);
    rvs_put64(h + 4, len);
    memcpy(w->type, t, 4);
    w->type[4] = '\0';
    w->left = len;
    w->crc = rvs_crc32c(0, h, sizeof h);
    return raw_write(w, h, sizeof h);
}

/* Write n payload bytes, CRC'd piece by piece while each piece is still in cache. */
static rvs_status chunk_put(writer *w, const void *buf, uint64_t n)
{
    const uint8_t *p = buf;
    rvs_status st = RVS_OK;
    if (n > w->left)
        return rvs_fail(w->err, RVS_ERR_INTERNAL, "chunk '%s': payload longer than its header says", w->type);
    w->left -= n;
    while (n > 0 && st == RVS_OK) {
        size_t piece = n < RVS_IO_PIECE ? (size_t)n : RVS_IO_PIECE;
        w->crc = rvs_crc32c(w->crc, p, piece);
        st = raw_write(w, p, piece);
        p += piece;
        n -= piece;
    }
    return st;
}

/* Write the CRC that closes the current chunk. */
static rvs_status chunk_close(writer *w)
{
    uint8_t c[RVS_CHUNK_CRC_LEN];
    if (w->left != 0)
        return rvs_fail(w->err, RVS_ERR_INTERNAL, "chunk '%s': payload shorter than its header says", w->type);
    rvs_put32(c, w->crc);
    w->nchunks++;
    return raw_write(w, c, sizeof c);
}

/* A whole chunk whose payload is one buffer. */
static rvs_status write_chunk(writer *w, const char *t, const void *payload, uint64_t len)
{
    rvs_status st = chunk_open(w, t, len);
    if (st == RVS_OK)
        st = chunk_put(w, payload, len);
    if (st == RVS_OK)
        st = chunk_close(w);
    return st;
}

/* An ARRY chunk: 24-byte head (name, dtype, reserved 0, count), then the elements. */
static rvs_status write_array(writer *w, const char *name, rvs_dtype dt, int64_t count, const void *data)
{
    uint8_t h[RVS_ARRY_HEAD_LEN] = {0};
    uint64_t size = rvs_dtype_size(dt);
    size_t n = strnlen(name, 8);
    if (n < 1 || n > 7 || count < 0 || size == 0 || (uint64_t)count > (UINT64_MAX - sizeof h) / size ||
        (count > 0 && !data))
        return rvs_fail(w->err, RVS_ERR_ARG, "array '%.8s': bad name, type, count or data", name);
    memcpy(h, name, n);
    rvs_put32(h + 8, (uint32_t)dt);
    rvs_put64(h + 16, (uint64_t)count);
    rvs_status st = chunk_open(w, "ARRY", sizeof h + (uint64_t)count * size);
    if (st == RVS_OK)
        st = chunk_put(w, h, sizeof h);
    if (st == RVS_OK)
        st = chunk_put(w, data, (uint64_t)count * size);
    if (st == RVS_OK)
        st = chunk_close(w);
    return st;
}

/* The 16-byte prelude: magic, version, CRC of the first 12 bytes. */
static rvs_status write_prelude(writer *w, unsigned minor)
{
    uint8_t h[RVS_PRELUDE_LEN];
    memcpy(h, rvs_magic, RVS_MAGIC_LEN);
    h[8] = RVS_STREAM_MAJOR & 0xff;
    h[9] = RVS_STREAM_MAJOR >> 8;
    h[10] = minor & 0xff;
    h[11] = minor >> 8;
    rvs_put32(h + 12, rvs_crc32c(0, h, 12));
    return raw_write(w, h, sizeof h);
}

/* MHDR and the three hub arrays. */
static rvs_status write_matrix(writer *w, const rvs_stream *S)
{
    const rvs_csr *A = &S->A;
    uint8_t p[RVS_MHDR_FIXED_LEN + RVS_NAME_MAX];
    size_t namelen = strnlen(S->name, sizeof S->name);
    int wide = A->cols > RVS_COL32_MAX;
    if (A->rows < 0 || A->cols < 0 || A->nnz < 0 || !rvs_vtype_valid(A->vtype) || !A->rowptr ||
        (wide ? !A->colind64 : !A->colind) || namelen > RVS_NAME_MAX)
        return rvs_fail(w->err, RVS_ERR_ARG, "stream to write has no valid matrix");
    rvs_put64(p, (uint64_t)A->rows);
    rvs_put64(p + 8, (uint64_t)A->cols);
    rvs_put64(p + 16, (uint64_t)A->nnz);
    rvs_put32(p + 24, (uint32_t)A->vtype);
    rvs_put32(p + 28, wide ? 8 : 4);
    rvs_put32(p + 32, (uint32_t)namelen);
    memcpy(p + RVS_MHDR_FIXED_LEN, S->name, namelen);
    rvs_status st = write_chunk(w, "MHDR", p, RVS_MHDR_FIXED_LEN + namelen);
    if (st == RVS_OK)
        st = write_array(w, "rowptr", RVS_DT_I64, A->rows + 1, A->rowptr);
    if (st == RVS_OK)
        st = wide ? write_array(w, "colind", RVS_DT_I64, A->nnz, A->colind64)
                  : write_array(w, "colind", RVS_DT_I32, A->nnz, A->colind);
    if (st == RVS_OK)
        st = write_array(w, "values", rvs_value_dtype(A->vtype), A->nnz, A->values);
    return st;
}

/* The pmfs chunk: fixed fields, then k[nbins] and b[nbins]. */
static rvs_status write_pmf(writer *w, const rvs_pmf *P)
{
    uint8_t h[RVS_PMFS_FIXED_LEN], bin[8];
    const int64_t fixed[6] = {P->rows, P->cols, P->nnz, P->empty_rows, P->min, P->max};
    if (P->nbins < 0 || (uint64_t)P->nbins > (UINT64_MAX - sizeof h) / 16 || (P->nbins > 0 && (!P->k || !P->b)))
        return rvs_fail(w->err, RVS_ERR_ARG, "PMF to write has bad bins");
    for (int i = 0; i < 6; i++)
        rvs_put64(h + 8 * i, (uint64_t)fixed[i]);
    rvs_put_f64(h + 48, P->mean);
    rvs_put_f64(h + 56, P->stddev);
    rvs_put_f64(h + 64, P->ell_density);
    rvs_put64(h + 72, (uint64_t)P->nbins);
    rvs_status st = chunk_open(w, "pmfs", sizeof h + 16 * (uint64_t)P->nbins);
    if (st == RVS_OK)
        st = chunk_put(w, h, sizeof h);
    for (int64_t i = 0; i < 2 * P->nbins && st == RVS_OK; i++) {
        rvs_put64(bin, (uint64_t)(i < P->nbins ? P->k[i] : P->b[i - P->nbins]));
        st = chunk_put(w, bin, sizeof bin);
    }
    if (st == RVS_OK)
        st = chunk_close(w);
    return st;
}

/* The PART chunk: algorithm, k, block size, then per part its head and row list. */
static rvs_status write_partition(writer *w, const rvs_partition *P)
{
    uint8_t h[RVS_PART_HEAD_LEN], e[RVS_PART_ENTRY_LEN];
    uint64_t len = sizeof h;
    if (P->k < 1 || P->k > RVS_PART_MAX || !P->parts)
        return rvs_fail(w->err, RVS_ERR_ARG, "partition to write has %d parts", P->k);
    for (int i = 0; i < P->k; i++) {
        /* k <= 2^16 parts of at most 2^44 rows each cannot overflow len */
        if (P->parts[i].nrows < 0 || P->parts[i].nrows > ((int64_t)1 << 44) ||
            (P->parts[i].nrows > 0 && !P->parts[i].rows))
            return rvs_fail(w->err, RVS_ERR_ARG, "partition to write: part %d has a bad row list", i);
        len += sizeof e + 8 * (uint64_t)P->parts[i].nrows;
    }
    rvs_put32(h, (uint32_t)P->alg);
    rvs_put32(h + 4, (uint32_t)P->k);
    rvs_put64(h + 8, (uint64_t)P->block_size);
    rvs_status st = chunk_open(w, "PART", len);
    if (st == RVS_OK)
        st = chunk_put(w, h, sizeof h);
    for (int i = 0; i < P->k && st == RVS_OK; i++) {
        const rvs_part *part = &P->parts[i];
        rvs_put32(e, (uint32_t)part->device);
        rvs_put32(e + 4, (uint32_t)part->entries);
        rvs_put_f64(e + 8, part->cp);
        rvs_put64(e + 16, (uint64_t)part->nrows);
        st = chunk_put(w, e, sizeof e);
        if (st == RVS_OK)
            st = chunk_put(w, part->rows, 8 * (uint64_t)part->nrows);
    }
    if (st == RVS_OK)
        st = chunk_close(w);
    return st;
}

/* An FMTB chunk followed by one ARRY chunk per array of the format. */
static rvs_status write_format_block(writer *w, const rvs_fmt_block *B)
{
    const rvs_fmt *F = &B->fmt;
    uint8_t p[RVS_FMTB_LEN];
    if (F->narrays < 0 || F->narrays > RVS_FMT_MAX_ARRAYS)
        return rvs_fail(w->err, RVS_ERR_ARG, "format block to write has %d arrays", F->narrays);
    rvs_put32(p, (uint32_t)B->part);
    rvs_put32(p + 4, (uint32_t)F->id);
    rvs_put32(p + 8, (uint32_t)F->vtype);
    rvs_put32(p + 12, (uint32_t)F->narrays);
    rvs_put64(p + 16, (uint64_t)F->rows);
    rvs_put64(p + 24, (uint64_t)F->cols);
    rvs_put64(p + 32, (uint64_t)F->nnz);
    for (int i = 0; i < RVS_FMT_MAX_PARAMS; i++)
        rvs_put64(p + 40 + 8 * i, (uint64_t)F->param[i]);
    rvs_status st = write_chunk(w, "FMTB", p, sizeof p);
    for (int i = 0; i < F->narrays && st == RVS_OK; i++)
        st = write_array(w, F->array[i].name, F->array[i].dtype, F->array[i].count, F->array[i].data);
    return st;
}

struct rvs_stream_writer {
    writer w;
    unsigned minor;
};

rvs_status rvs_stream_write_head(rvs_stream_writer **W, FILE *f, const rvs_stream *S, rvs_error *err)
{
    rvs_stream_writer *o = *W = calloc(1, sizeof *o);
    if (!o)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    o->w.f = f;
    o->w.err = err;
    rvs_widen_pipe(f);
    o->minor = rvs_placement_present(S) ? RVS_STREAM_MINOR_PLACE : RVS_STREAM_MINOR;
    if (rvs_vtype_is_complex(S->A.vtype))
        o->minor = RVS_STREAM_MINOR_COMPLEX;
    for (int i = 0; i < S->nfmt; i++)
        if (rvs_vtype_is_complex(S->fmt[i].fmt.vtype))
            o->minor = RVS_STREAM_MINOR_COMPLEX;
    rvs_status st = write_prelude(&o->w, o->minor);
    if (st == RVS_OK)
        st = write_matrix(&o->w, S);
    if (st == RVS_OK && S->has_pmf)
        st = write_pmf(&o->w, &S->pmf);
    if (st == RVS_OK && S->has_partition)
        st = write_partition(&o->w, &S->partition);
    return st;
}

rvs_status rvs_stream_write_block(rvs_stream_writer *W, const rvs_fmt_block *B)
{
    if (rvs_vtype_is_complex(B->fmt.vtype) && W->minor != RVS_STREAM_MINOR_COMPLEX)
        return rvs_fail(W->w.err, RVS_ERR_INTERNAL, "a complex block after a real stream's head");
    return write_format_block(&W->w, B);
}

rvs_status rvs_stream_write_tail(rvs_stream_writer *W, const rvs_stream *S)
{
    uint8_t end[RVS_REND_LEN];
    rvs_status st = RVS_OK;
    for (int i = 0; i < S->nextra && st == RVS_OK; i++)
        st = write_chunk(&W->w, S->extra[i].type, S->extra[i].data, S->extra[i].len);
    if (st == RVS_OK) {
        rvs_put64(end, W->w.nchunks);
        st = write_chunk(&W->w, "REND", end, sizeof end);
    }
    if (st == RVS_OK && fflush(W->w.f) != 0)
        st = rvs_fail(W->w.err, RVS_ERR_IO, "write failed: %s", strerror(errno));
    free(W);
    return st;
}

/* Write S to f (the whole stream, end chunk last). */
rvs_status rvs_stream_write(FILE *f, const rvs_stream *S, rvs_error *err)
{
    rvs_stream_writer *W = NULL;
    rvs_status st = rvs_stream_write_head(&W, f, S, err);
    for (int i = 0; i < S->nfmt && st == RVS_OK; i++)
        st = rvs_stream_write_block(W, &S->fmt[i]);
    if (st == RVS_OK)
        return rvs_stream_write_tail(W, S);
    free(W);
    return st;
}
