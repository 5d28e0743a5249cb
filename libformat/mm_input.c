/* mm_input.c - Matrix Market input: mapped files, stdin and pipes, gzip, dense vectors */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "mm_private.h"
#include "rvs_mem.h"

#define MM_READ_BLOCK ((size_t)4 << 20)
#define MM_HEAD_BLOCK ((size_t)64 << 10)
#define MM_PROGRESS_STEP ((uint64_t)64 << 20)
/* Text parsed as it arrives, this much at a time (in parallel): the whole text is never held. */
#define MM_PARSE_BLOCK ((size_t)64 << 20)

/* A growing byte buffer. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} mm_buffer;

/* Make room for at least extra more bytes: capacity doubles, or grows just enough when the
 * doubled block cannot be had or would pass the memory available (a line that never ends
 * grows the text without bound: the claim stops it). */
static rvs_status buffer_reserve(mm_buffer *b, size_t extra, rvs_error *err)
{
    if (b->cap - b->len >= extra)
        return RVS_OK;
    if (extra > SIZE_MAX / 2 - b->len)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "input is too large for this machine");
    size_t cap = b->cap ? b->cap : MM_HEAD_BLOCK;
    while (cap - b->len < extra)
        cap *= 2;
    rvs_status st = rvs_mem_claim((double)b->len + (double)extra, "the input held unparsed and its next block", err);
    if (st != RVS_OK)
        return st;
    unsigned char *d = rvs_mem_claim((double)cap, "", NULL) == RVS_OK ? realloc(b->data, cap) : NULL;
    if (!d && b->len + extra < cap)
        d = realloc(b->data, cap = b->len + extra);
    if (!d)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory reading %zu bytes of input", b->len);
    b->data = d;
    b->cap = cap;
    return RVS_OK;
}

/* Room to ask for next: as much as is held, from 64 kB to MM_READ_BLOCK (small inputs stay
 * small; large ones read and inflate in large pieces). */
static size_t grow_step(size_t held)
{
    return held < MM_HEAD_BLOCK ? MM_HEAD_BLOCK : held < MM_READ_BLOCK ? held : MM_READ_BLOCK;
}

/* 1 if the bytes start with the gzip magic 0x1f 0x8b. */
static int is_gzip(const unsigned char *p, size_t n)
{
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* Text arriving from an input, judged as it comes: the text not parsed yet, the inflater when
 * the input is gzip, the header check, the data section parsed block by block once the header
 * is whole, and progress in input bytes. */
typedef struct {
    mm_buffer text;
    z_stream z;
    int z_open, member_done;
    mm_head_state head;
    mm_blocks *blocks;   /* the data section's parser, from when the header is whole */
    rvs_mm_info *info;   /* what the header said goes here (may be NULL) */
    size_t parse_pos;    /* text before it is parsed (or the header) */
    rvs_progress_fn progress;
    void *ctx;
    uint64_t in_bytes, in_total, next_report, text_total;
} mm_sink;

/* Parse the whole lines of text[parse_pos, upto) and keep only what follows them. */
static rvs_status sink_parse(mm_sink *s, size_t upto, int final, rvs_error *err)
{
    rvs_status st = mm_blocks_parse(s->blocks, (const char *)s->text.data + s->parse_pos, upto - s->parse_pos,
                                    final, err);
    memmove(s->text.data, s->text.data + upto, s->text.len - upto);
    s->text_total += upto;
    s->text.len -= upto;
    s->parse_pos = 0;
    return st;
}

/* After new text arrived: report progress, judge the header while it is incomplete, and once
 * a block of whole data lines is there, parse it. */
static rvs_status sink_arrived(mm_sink *s, rvs_error *err)
{
    rvs_status st = RVS_OK;
    if (s->progress && s->text_total + s->text.len >= s->next_report) {
        s->progress(s->ctx, s->in_bytes, s->in_total);
        s->next_report = s->text_total + s->text.len + MM_PROGRESS_STEP;
    }
    if (s->head.stage < 2 && (st = mm_head_feed(&s->head, (const char *)s->text.data, s->text.len, err)) != RVS_OK)
        return st;
    if (s->head.stage < 2)
        return RVS_OK;
    if (!s->blocks) {   /* the header is whole and valid: where the data starts, what it said */
        mm_header h;
        if ((st = mm_parse_header((const char *)s->text.data, s->text.len, &h, s->info, err)) != RVS_OK ||
            (st = mm_blocks_begin(&s->blocks, &h, MM_TEXT_KEEP, NULL, NULL, 0, err)) != RVS_OK)
            return st;
        s->parse_pos = h.data;
    }
    if (s->text.len - s->parse_pos < MM_PARSE_BLOCK)
        return RVS_OK;
    const unsigned char *nl = memrchr(s->text.data + s->parse_pos, '\n', s->text.len - s->parse_pos);
    return nl ? sink_parse(s, (size_t)(nl + 1 - s->text.data), 0, err) : RVS_OK;
}

/* At the end of the input: the last block and the CSR, or, when the header never became
 * whole, the error a parse of the whole (short) text gives. */
static rvs_status sink_finish(mm_sink *s, rvs_csr *A, rvs_mm_info *info, rvs_error *err)
{
    if (!s->blocks)
        return mm_parse_text(A, info, (const char *)s->text.data, s->text.len, MM_TEXT_DROP, s->progress,
                             s->ctx, err);
    (void)info;   /* filled when the header became whole */
    rvs_status st = sink_parse(s, s->text.len, 1, err);
    if (st == RVS_OK) {
        st = mm_blocks_finish(s->blocks, A, info, err);
        s->blocks = NULL;
    }
    return st;
}

/* Inflate in[0..n) onto the text: gzip members may be concatenated, and the data may arrive
 * in any pieces (final: none follows). */
static rvs_status sink_inflate(mm_sink *s, const unsigned char *in, size_t n, int final, rvs_error *err)
{
    rvs_status st = RVS_OK;
    if (!s->z_open) {
        memset(&s->z, 0, sizeof s->z);
        if (inflateInit2(&s->z, 15 + 16) != Z_OK)
            return rvs_fail(err, RVS_ERR_NOMEM, "gzip: cannot start the decompressor");
        s->z_open = 1;
    }
    while (n > 0 || s->z.avail_out == 0) {
        size_t piece = n > ((size_t)1 << 30) ? (size_t)1 << 30 : n;
        s->z.next_in = (unsigned char *)in;
        s->z.avail_in = (uInt)piece;
        for (;;) {
            if (s->member_done) {
                if (s->z.avail_in == 0)
                    break;
                if (s->z.next_in[0] != 0x1f)
                    return rvs_fail(err, RVS_ERR_FORMAT, "gzip: trailing garbage after the compressed data");
                inflateReset(&s->z);
                s->member_done = 0;
            }
            if ((st = buffer_reserve(&s->text, grow_step(s->text.len), err)) != RVS_OK)
                return st;
            size_t room = s->text.cap - s->text.len;
            s->z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
            s->z.next_out = s->text.data + s->text.len;
            uInt had_in = s->z.avail_in;
            int r = inflate(&s->z, Z_NO_FLUSH);
            s->text.len = (size_t)(s->z.next_out - s->text.data);
            s->in_bytes += had_in - s->z.avail_in;
            if ((st = sink_arrived(s, err)) != RVS_OK)
                return st;
            if (r == Z_STREAM_END)
                s->member_done = 1;
            else if (r == Z_MEM_ERROR)
                return rvs_fail(err, RVS_ERR_NOMEM, "gzip: out of memory");
            else if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_STREAM_ERROR)
                return rvs_fail(err, RVS_ERR_FORMAT, "gzip: %s", s->z.msg ? s->z.msg : "corrupt data");
            else if (r == Z_BUF_ERROR || (s->z.avail_in == 0 && s->z.avail_out != 0))
                break; /* all of this piece is in; the rest needs more input */
        }
        in += piece;
        n -= piece;
        if (n == 0)
            break;
    }
    if (final && !s->member_done)
        return rvs_fail(err, RVS_ERR_TRUNCATED, "gzip: compressed data ends early");
    return RVS_OK;
}

/* Free what the sink holds. */
static void sink_free(mm_sink *s)
{
    if (s->z_open)
        inflateEnd(&s->z);
    mm_blocks_free(s->blocks);
    free(s->text.data);
}

/* Parse a whole mapped file: text in place (its pages dropped as they are parsed), gzip
 * through the sink, parsed block by block as it is inflated. */
static rvs_status parse_mapped(rvs_csr *A, rvs_mm_info *info, const unsigned char *p, size_t n,
                               rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_sink s;
    rvs_status st;
    if (!is_gzip(p, n))
        return mm_parse_text(A, info, (const char *)p, n, MM_TEXT_DROP, progress, ctx, err);
    memset(&s, 0, sizeof s);
    s.progress = progress;
    s.ctx = ctx;
    s.info = info;
    s.in_total = n;
    s.next_report = MM_PROGRESS_STEP;
    if (info)
        memset(info, 0, sizeof *info);
    st = sink_inflate(&s, p, n, 1, err);
    if (st == RVS_OK)
        st = sink_finish(&s, A, info, err);
    sink_free(&s);
    return st;
}

/* Read the rest of f (after prefix) in one forward pass, judging the header as soon as it has
 * arrived, then parse it; gzip is inflated as it arrives. */
rvs_status rvs_mm_read_stream(rvs_csr *A, rvs_mm_info *info, FILE *f, const void *prefix,
                              size_t prefix_len, rvs_progress_fn progress, void *ctx,
                              rvs_error *err)
{
    mm_sink s;
    unsigned char *block = NULL;
    rvs_status st;
    int gz = -1; /* not known until two bytes have come */
    memset(A, 0, sizeof *A);
    memset(&s, 0, sizeof s);
    s.progress = progress;
    s.ctx = ctx;
    s.info = info;
    s.next_report = MM_PROGRESS_STEP;
    if (info)
        memset(info, 0, sizeof *info);
    if ((st = buffer_reserve(&s.text, prefix_len + MM_HEAD_BLOCK, err)) != RVS_OK)
        goto done;
    if (prefix_len)
        memcpy(s.text.data, prefix, prefix_len);
    s.text.len = prefix_len;
    s.in_bytes = prefix_len;
    for (;;) {
        /* small reads until the header is judged (fread waits for a whole block), then pieces
         * that grow with the input */
        size_t got, want = s.head.stage < 2 ? MM_HEAD_BLOCK : grow_step(s.text_total + s.text.len);
        if (gz == 1) {
            got = fread(block, 1, want, f);
            st = sink_inflate(&s, block, got, got == 0, err);
        } else {
            if ((st = buffer_reserve(&s.text, want, err)) != RVS_OK)
                goto done;
            if (s.head.stage == 2)
                want = s.text.cap - s.text.len;
            got = fread(s.text.data + s.text.len, 1, want, f);
            s.text.len += got;
            s.in_bytes += got;
            if (gz < 0 && (s.text.len >= 2 || got == 0))
                gz = is_gzip(s.text.data, s.text.len);
            if (gz == 1) {
                /* what came so far is compressed: it goes through the inflater */
                block = malloc(s.text.len > MM_READ_BLOCK ? s.text.len : MM_READ_BLOCK);
                if (!block) {
                    st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory reading input");
                    goto done;
                }
                memcpy(block, s.text.data, s.text.len);
                size_t n = s.text.len;
                s.text.len = 0;
                s.in_bytes = 0; /* from here, compressed bytes taken in */
                st = sink_inflate(&s, block, n, got == 0, err);
            } else {
                st = sink_arrived(&s, err);
            }
        }
        if (st != RVS_OK || got == 0)
            break;
    }
    if (st == RVS_OK && ferror(f))
        st = rvs_fail(err, RVS_ERR_IO, "read failed: %s", strerror(errno));
    if (st == RVS_OK)
        st = sink_finish(&s, A, info, err);
done:
    free(block);
    sink_free(&s);
    return st;
}

/* Map a regular file and parse it in place; other files (pipes, ttys) are streamed. */
rvs_status rvs_mm_read_file(rvs_csr *A, rvs_mm_info *info, const char *path,
                            rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    struct stat sb;
    void *map = MAP_FAILED;
    FILE *f = NULL;
    rvs_status st;
    memset(A, 0, sizeof *A);
    if (!path || strcmp(path, "-") == 0)
        return rvs_mm_read_stream(A, info, stdin, NULL, 0, progress, ctx, err);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rvs_fail(err, RVS_ERR_NOFILE, "cannot open: %s", strerror(errno));
    if (fstat(fd, &sb) != 0) {
        st = rvs_fail(err, RVS_ERR_NOFILE, "cannot stat: %s", strerror(errno));
        goto done;
    }
    if (S_ISDIR(sb.st_mode)) {
        st = rvs_fail(err, RVS_ERR_NOFILE, "is a directory");
        goto done;
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > 0 && (uint64_t)sb.st_size <= SIZE_MAX) {
        size_t n = (size_t)sb.st_size;
        map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            madvise(map, n, MADV_WILLNEED);
            st = parse_mapped(A, info, map, n, progress, ctx, err);
            munmap(map, n);
            goto done;
        }
    }
    f = fdopen(fd, "rb");
    if (!f) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "cannot open a stream: %s", strerror(errno));
        goto done;
    }
    fd = -1;
    st = rvs_mm_read_stream(A, info, f, NULL, 0, progress, ctx, err);
done:
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    return st;
}

/* Read a matrix or vector file into a malloc'd dense column-major array. */
rvs_status rvs_mm_read_dense(double **a, int64_t *rows, int64_t *cols, const char *path,
                             rvs_error *err)
{
    rvs_csr A;
    size_t n;
    *a = NULL;
    *rows = *cols = 0;
    rvs_status st = rvs_mm_read_file(&A, NULL, path, NULL, NULL, err);
    if (st != RVS_OK)
        return st;
    if (A.rows > 0 && A.cols > (int64_t)(SIZE_MAX / sizeof(double)) / A.rows) {
        st = rvs_fail(err, RVS_ERR_OVERFLOW, "a dense %lld x %lld array is too large",
                      (long long)A.rows, (long long)A.cols);
        goto done;
    }
    n = (size_t)A.rows * (size_t)A.cols;
    char what[96];
    snprintf(what, sizeof what, "the values of a dense %lld x %lld array", (long long)A.rows, (long long)A.cols);
    if ((st = rvs_mem_claim((double)n * sizeof **a, what, err)) != RVS_OK)
        goto done;
    *a = calloc(n ? n : 1, sizeof **a);
    if (!*a) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a dense %lld x %lld array",
                      (long long)A.rows, (long long)A.cols);
        goto done;
    }
    for (int64_t r = 0; r < A.rows; r++)
        for (int64_t k = A.rowptr[r]; k < A.rowptr[r + 1]; k++)
            (*a)[r + rvs_csr_col(&A, k) * A.rows] = rvs_csr_value(&A, k);
    *rows = A.rows;
    *cols = A.cols;
done:
    rvs_csr_free(&A);
    return st;
}
