/* mm_input.c - Matrix Market input: mapped files, stdin and pipes, gzip, dense vectors */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "rvs_mm.h"

#define MM_READ_BLOCK ((size_t)4 << 20)
#define MM_PROGRESS_STEP ((uint64_t)64 << 20)

/* A growing byte buffer. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} mm_buffer;

/* Make room for at least extra more bytes (capacity doubles). */
static rvs_status buffer_reserve(mm_buffer *b, size_t extra, rvs_error *err)
{
    if (b->cap - b->len >= extra)
        return RVS_OK;
    if (extra > SIZE_MAX / 2 - b->len)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "input is too large for this machine");
    size_t cap = b->cap ? b->cap : MM_READ_BLOCK;
    while (cap - b->len < extra)
        cap *= 2;
    unsigned char *d = realloc(b->data, cap);
    if (!d)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory reading %zu bytes of input", b->len);
    b->data = d;
    b->cap = cap;
    return RVS_OK;
}

/* 1 if the bytes start with the gzip magic 0x1f 0x8b. */
static int is_gzip(const unsigned char *p, size_t n)
{
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* Inflate the gzip data in[0..n) (members may be concatenated) into out. */
static rvs_status gunzip(const unsigned char *in, size_t n, mm_buffer *out, rvs_progress_fn progress,
                         void *ctx, rvs_error *err)
{
    z_stream z;
    rvs_status st = RVS_OK;
    uint64_t next_report = MM_PROGRESS_STEP;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return rvs_fail(err, RVS_ERR_NOMEM, "gzip: cannot start the decompressor");
    /* the trailer holds the size modulo 2^32 of the last member: a good first guess */
    size_t hint = n >= 18 ? (size_t)in[n - 4] | (size_t)in[n - 3] << 8 | (size_t)in[n - 2] << 16 |
                                (size_t)in[n - 1] << 24
                          : 0;
    if ((st = buffer_reserve(out, hint > n ? hint + 1 : 4 * n + 1, err)) != RVS_OK)
        goto done;
    z.next_in = (unsigned char *)in;
    for (;;) {
        size_t left = n - (size_t)((const unsigned char *)z.next_in - in);
        if ((st = buffer_reserve(out, 1 << 20, err)) != RVS_OK)
            goto done;
        z.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
        size_t room = out->cap - out->len;
        z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        z.next_out = out->data + out->len;
        int r = inflate(&z, Z_NO_FLUSH);
        out->len = (size_t)(z.next_out - out->data);
        left = n - (size_t)((const unsigned char *)z.next_in - in);
        if (progress && out->len >= next_report) {
            progress(ctx, n - left, n);
            next_report = out->len + MM_PROGRESS_STEP;
        }
        if (r == Z_STREAM_END) {
            if (left == 0)
                break;
            if (!is_gzip(z.next_in, left)) {
                st = rvs_fail(err, RVS_ERR_FORMAT, "gzip: trailing garbage after the compressed data");
                goto done;
            }
            inflateReset(&z);
        } else if (r == Z_MEM_ERROR) {
            st = rvs_fail(err, RVS_ERR_NOMEM, "gzip: out of memory");
            goto done;
        } else if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_STREAM_ERROR) {
            st = rvs_fail(err, RVS_ERR_FORMAT, "gzip: %s", z.msg ? z.msg : "corrupt data");
            goto done;
        } else if (r == Z_BUF_ERROR && left == 0) {
            st = rvs_fail(err, RVS_ERR_TRUNCATED, "gzip: compressed data ends early");
            goto done;
        }
    }
done:
    inflateEnd(&z);
    return st;
}

/* Parse text, or its decompression when it is gzip. */
static rvs_status parse_maybe_gzip(rvs_csr *A, rvs_mm_info *info, const unsigned char *p, size_t n,
                                   rvs_progress_fn progress, void *ctx, rvs_error *err)
{
    mm_buffer text = {NULL, 0, 0};
    rvs_status st;
    if (!is_gzip(p, n))
        return rvs_mm_parse_progress(A, info, (const char *)p, n, progress, ctx, err);
    memset(A, 0, sizeof *A);
    st = gunzip(p, n, &text, progress, ctx, err);
    if (st == RVS_OK)
        st = rvs_mm_parse_progress(A, info, (const char *)text.data, text.len, progress, ctx, err);
    free(text.data);
    return st;
}

/* Read the rest of f (after prefix) into one buffer in one forward pass, then parse it. */
rvs_status rvs_mm_read_stream(rvs_csr *A, rvs_mm_info *info, FILE *f, const void *prefix,
                              size_t prefix_len, rvs_progress_fn progress, void *ctx,
                              rvs_error *err)
{
    mm_buffer raw = {NULL, 0, 0};
    uint64_t next_report = MM_PROGRESS_STEP;
    rvs_status st;
    memset(A, 0, sizeof *A);
    if ((st = buffer_reserve(&raw, prefix_len + MM_READ_BLOCK, err)) != RVS_OK)
        goto done;
    if (prefix_len)
        memcpy(raw.data, prefix, prefix_len);
    raw.len = prefix_len;
    for (;;) {
        if ((st = buffer_reserve(&raw, MM_READ_BLOCK, err)) != RVS_OK)
            goto done;
        size_t got = fread(raw.data + raw.len, 1, raw.cap - raw.len, f);
        raw.len += got;
        if (progress && raw.len >= next_report) {
            progress(ctx, raw.len, 0);
            next_report = raw.len + MM_PROGRESS_STEP;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        st = rvs_fail(err, RVS_ERR_IO, "read failed: %s", strerror(errno));
        goto done;
    }
    st = parse_maybe_gzip(A, info, raw.data, raw.len, progress, ctx, err);
done:
    free(raw.data);
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
            st = parse_maybe_gzip(A, info, map, n, progress, ctx, err);
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
