/* mm_input.c - text input (Matrix Market, edge lists): mapped files, stdin and pipes, gzip,
 * bzip2, xz and zstd decoded as they arrive; dense vectors */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mm_codec.h"
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
    rvs_status st = rvs_mem_claim((double)b->len + (double)extra, "the input held unparsed and its next block",
                                  err);
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

/* 1 when the first n bytes of an input say it is compressed (gzip, bzip2, xz, zstd). */
static int compressed(const unsigned char *p, size_t n)
{
    return mm_codec_sniff(p, n) != MM_CODEC_NONE;
}

/* Text arriving from an input, judged as it comes: the text not parsed yet, the decoder when
 * the input is compressed, the header check, the data section parsed block by block once the
 * header is whole (an edge list has no header), and progress in input bytes. */
typedef struct {
    mm_buffer text;
    mm_edges *edges; /* an edge list's parser (NULL: Matrix Market) */
    mm_head_state head;
    mm_blocks *blocks; /* the data section's parser, from when the header is whole */
    rvs_mm_info *info; /* what the header said goes here (may be NULL) */
    size_t parse_pos;  /* text before it is parsed (or the header) */
    rvs_progress_fn progress;
    void *ctx;
    uint64_t in_bytes, in_total, next_report, text_total;
} mm_sink;

/* Parse the whole lines of text[parse_pos, upto) and keep only what follows them. */
static rvs_status sink_parse(mm_sink *s, size_t upto, int final, rvs_error *err)
{
    const char *b = (const char *)s->text.data + s->parse_pos;
    rvs_status st = s->edges ? mm_edges_parse(s->edges, b, upto - s->parse_pos, final, err)
                             : mm_blocks_parse(s->blocks, b, upto - s->parse_pos, final, err);
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
    if (s->edges)
        goto parse;
    if (s->head.stage < 2 && (st = mm_head_feed(&s->head, (const char *)s->text.data, s->text.len, err)) != RVS_OK)
        return st;
    if (s->head.stage < 2)
        return RVS_OK;
    if (!s->blocks) { /* the header is whole and valid: where the data starts, what it said */
        mm_header h;
        if ((st = mm_parse_header((const char *)s->text.data, s->text.len, &h, s->info, err)) != RVS_OK ||
            (st = mm_blocks_begin(&s->blocks, &h, MM_TEXT_KEEP, NULL, NULL, 0, err)) != RVS_OK)
            return st;
        s->parse_pos = h.data;
    }
parse:
    if (s->text.len - s->parse_pos < MM_PARSE_BLOCK)
        return RVS_OK;
    const unsigned char *nl = memrchr(s->text.data + s->parse_pos, '\n', s->text.len - s->parse_pos);
    return nl ? sink_parse(s, (size_t)(nl + 1 - s->text.data), 0, err) : RVS_OK;
}

/* At the end of the input: the last block and the CSR, or, when the header never became
 * whole, the error a parse of the whole (short) text gives. */
static rvs_status sink_finish(mm_sink *s, rvs_csr *A, rvs_mm_info *info, rvs_error *err)
{
    if (s->edges) {
        rvs_status st = sink_parse(s, s->text.len, 1, err);
        if (st == RVS_OK)
            st = mm_edges_finish(s->edges, A, err); /* frees the parser */
        else
            mm_edges_free(s->edges);
        s->edges = NULL;
        return st;
    }
    if (!s->blocks)
        return mm_parse_text(A, info, (const char *)s->text.data, s->text.len, MM_TEXT_DROP, s->progress, s->ctx,
                             err);
    (void)info; /* filled when the header became whole */
    rvs_status st = sink_parse(s, s->text.len, 1, err);
    if (st == RVS_OK) {
        st = mm_blocks_finish(s->blocks, A, info, err);
        s->blocks = NULL;
    }
    return st;
}

/* The codecs check their data at the end of a block (bzip2's block CRC, xz's and zstd's
 * checks), after the block's text has come out: a parse error st in decoded text may be the
 * decoder's garbage. Let the decoder go on for up to MM_UNPACK_DRAIN bytes of text (more than
 * any bzip2 block yields); if it fails there, its error is the one to report, else st. */
#define MM_UNPACK_DRAIN ((uint64_t)64 << 20)
static rvs_status decoder_error_first(mm_unpack *U, rvs_status st, rvs_error *err)
{
    uint64_t seen = 0, in;
    while (seen < MM_UNPACK_DRAIN) {
        const unsigned char *p;
        size_t n;
        rvs_error derr;
        rvs_status d = mm_unpack_next(U, &p, &n, &in, &derr);
        if (d != RVS_OK) {
            if (err)
                *err = derr;
            return d;
        }
        if (n == 0)
            break;
        seen += n;
    }
    return st;
}

/* Parse the text U decodes as it comes (the decoder runs ahead on its own thread). */
static rvs_status sink_pump(mm_sink *s, mm_unpack *U, rvs_error *err)
{
    for (;;) {
        const unsigned char *p;
        size_t n;
        rvs_status st = mm_unpack_next(U, &p, &n, &s->in_bytes, err);
        if (st != RVS_OK || n == 0)
            return st;
        if ((st = buffer_reserve(&s->text, n, err)) != RVS_OK)
            return st;
        memcpy(s->text.data + s->text.len, p, n);
        s->text.len += n;
        if ((st = sink_arrived(s, err)) != RVS_OK)
            return st == RVS_ERR_NOMEM ? st : decoder_error_first(U, st, err);
    }
}

/* Free what the sink holds. */
static void sink_free(mm_sink *s)
{
    mm_edges_free(s->edges);
    mm_blocks_free(s->blocks);
    free(s->text.data);
}

/* A plain edge list in memory, parsed in blocks of whole lines (progress between them). */
static rvs_status edges_in_place(rvs_csr *A, mm_edges *E, const char *p, size_t n, rvs_progress_fn progress,
                                 void *ctx, rvs_error *err)
{
    rvs_status st = RVS_OK;
    size_t at = 0;
    while (st == RVS_OK && n - at > MM_PARSE_BLOCK) {
        const char *nl = memrchr(p + at, '\n', MM_PARSE_BLOCK);
        size_t upto = nl ? (size_t)(nl + 1 - p) : n; /* a 64 MB line: one block, judged whole */
        st = mm_edges_parse(E, p + at, upto - at, upto == n, err);
        mm_release_text(p + at, upto - at);
        at = upto;
        if (progress)
            progress(ctx, at, n);
    }
    if (st == RVS_OK && (at < n || n == 0))
        st = mm_edges_parse(E, p + at, n - at, 1, err);
    if (st == RVS_OK)
        return mm_edges_finish(E, A, err);
    mm_edges_free(E);
    return st;
}

/* Parse a whole mapped file: plain text in place (its pages dropped as they are parsed),
 * compressed text through the sink, parsed block by block as it is decoded. E (may be NULL:
 * Matrix Market) is an edge list's parser, freed here. */
static rvs_status parse_mapped(rvs_csr *A, rvs_mm_info *info, mm_edges *E, const unsigned char *p, size_t n,
                               rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_sink s;
    mm_unpack *U = NULL;
    rvs_status st;
    if (!compressed(p, n))
        return E ? edges_in_place(A, E, (const char *)p, n, progress, ctx, err)
                 : mm_parse_text(A, info, (const char *)p, n, MM_TEXT_DROP, progress, ctx, err);
    memset(&s, 0, sizeof s);
    s.edges = E;
    s.progress = progress;
    s.ctx = ctx;
    s.info = info;
    s.in_total = n;
    s.next_report = MM_PROGRESS_STEP;
    if (info)
        memset(info, 0, sizeof *info);
    st = mm_unpack_start(&U, p, n, 0, NULL, err);
    if (st == RVS_OK)
        st = sink_pump(&s, U, err);
    mm_unpack_free(U); /* the decoder stopped before the parse's last block and the CSR */
    if (st == RVS_OK)
        st = sink_finish(&s, A, info, err);
    sink_free(&s);
    return st;
}

/* Read the rest of f (after prefix) in one forward pass, judging the header as soon as it has
 * arrived, then parse it; compressed input is decoded as it arrives. E as for parse_mapped. */
rvs_status mm_input_stream(rvs_csr *A, rvs_mm_info *info, mm_edges *E, FILE *f, const void *prefix,
                           size_t prefix_len, rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_sink s;
    mm_unpack *U = NULL;
    rvs_status st;
    int packed = -1; /* 1 compressed, 0 plain, -1 not known until enough bytes to tell have come */
    memset(A, 0, sizeof *A);
    memset(&s, 0, sizeof s);
    s.edges = E;
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
        int headed = s.edges || s.head.stage == 2;
        size_t got, want = !headed ? MM_HEAD_BLOCK : grow_step(s.text_total + s.text.len);
        if ((st = buffer_reserve(&s.text, want, err)) != RVS_OK)
            goto done;
        if (headed)
            want = s.text.cap - s.text.len;
        got = fread(s.text.data + s.text.len, 1, want, f);
        s.text.len += got;
        s.in_bytes += got;
        if (packed < 0 && (s.text.len >= MM_CODEC_MAGIC_MAX || got == 0))
            packed = compressed(s.text.data, s.text.len);
        if (packed == 1) {
            /* what came so far is compressed: the decoder takes it, then the rest of f */
            size_t n = s.text.len;
            s.text.len = 0;
            s.in_bytes = 0; /* from here, compressed bytes taken in */
            if ((st = mm_unpack_start(&U, s.text.data, n, 1, f, err)) == RVS_OK)
                st = sink_pump(&s, U, err);
            break;
        }
        if (packed == 0)
            st = sink_arrived(&s, err);
        if (st != RVS_OK || got == 0)
            break;
    }
    mm_unpack_free(U); /* the decoder stopped before f is looked at again */
    if (st == RVS_OK && ferror(f))
        st = rvs_fail(err, RVS_ERR_IO, "read failed: %s", strerror(errno));
    if (st == RVS_OK)
        st = sink_finish(&s, A, info, err);
done:
    sink_free(&s);
    return st;
}

rvs_status rvs_mm_read_stream(rvs_csr *A, rvs_mm_info *info, FILE *f, const void *prefix, size_t prefix_len,
                              rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    return mm_input_stream(A, info, NULL, f, prefix, prefix_len, progress, ctx, err);
}

/* Map a regular file and parse it in place; other files (pipes, ttys) are streamed. */
rvs_status mm_input_file(rvs_csr *A, rvs_mm_info *info, mm_edges *E, const char *path, rvs_progress_fn progress,
                         void *ctx, rvs_error *err)
{
    struct stat sb;
    void *map = MAP_FAILED;
    FILE *f = NULL;
    rvs_status st;
    memset(A, 0, sizeof *A);
    if (!path || strcmp(path, "-") == 0)
        return mm_input_stream(A, info, E, stdin, NULL, 0, progress, ctx, err);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        st = rvs_fail(err, RVS_ERR_NOFILE, "cannot open: %s", strerror(errno));
        goto done;
    }
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
            st = parse_mapped(A, info, E, map, n, progress, ctx, err);
            E = NULL;
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
    st = mm_input_stream(A, info, E, f, NULL, 0, progress, ctx, err);
    E = NULL;
done:
    mm_edges_free(E);
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    return st;
}

rvs_status rvs_mm_read_file(rvs_csr *A, rvs_mm_info *info, const char *path, rvs_progress_fn progress, void *ctx,
                            rvs_error *err)
{
    return mm_input_file(A, info, NULL, path, progress, ctx, err);
}

/* Read a matrix or vector file into a malloc'd dense column-major array. */
rvs_status rvs_mm_read_dense(double **a, int64_t *rows, int64_t *cols, const char *path, rvs_error *err)
{
    rvs_csr A;
    size_t n;
    *a = NULL;
    *rows = *cols = 0;
    rvs_status st = rvs_mm_read_file(&A, NULL, path, NULL, NULL, err);
    if (st != RVS_OK)
        return st;
    if (A.rows > 0 && A.cols > (int64_t)(SIZE_MAX / sizeof(double)) / A.rows) {
        st = rvs_fail(err, RVS_ERR_OVERFLOW, "a dense %lld x %lld array is too large", (long long)A.rows,
                      (long long)A.cols);
        goto done;
    }
    n = (size_t)A.rows * (size_t)A.cols;
    char what[96];
    snprintf(what, sizeof what, "the values of a dense %lld x %lld array", (long long)A.rows, (long long)A.cols);
    if ((st = rvs_mem_claim((double)n * sizeof **a, what, err)) != RVS_OK)
        goto done;
    *a = calloc(n ? n : 1, sizeof **a);
    if (!*a) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a dense %lld x %lld array", (long long)A.rows,
                      (long long)A.cols);
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
