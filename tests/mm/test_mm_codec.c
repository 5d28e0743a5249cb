/* test_mm_codec.c - gzip, bzip2, xz and zstd input: magic bytes, decoding in any pieces, concatenated
 * streams, truncated, corrupt and trailing bytes, through the decoder and the Matrix Market
 * reader (file and stream); the data compressed here by the libraries themselves. Built twice:
 * with the codecs this build found, and (test_mm_codec_none) as a build without any, where
 * each must say "unsupported compression". */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "mm_codec.h"
#include "rvs_mem.h"
#include "rvs_test.h"
#ifdef RVS_HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef RVS_HAVE_LZMA
#include <lzma.h>
#endif
#ifdef RVS_HAVE_ZSTD
#include <zstd.h>
#endif

typedef struct {
    unsigned char *p;
    size_t n;
} bytes;

/* A Matrix Market text of about n_lines entries (a 1000 x 1000 matrix), deterministic. */
static bytes mm_text(int n_lines)
{
    bytes b = {malloc((size_t)n_lines * 40 + 100), 0};
    b.n = (size_t)sprintf((char *)b.p, "%%%%MatrixMarket matrix coordinate real general\n1000 1000 %d\n", n_lines);
    for (int k = 0; k < n_lines; k++)
        b.n += (size_t)sprintf((char *)b.p + b.n, "%d %d %.6g\n", (int)(1 + (k * 7919LL) % 1000),
                               (int)(1 + (k * 104729LL) % 1000), (k % 97) * 0.25 - 3.0);
    return b;
}

/* Compress p[0..n) with kind's library into a fresh buffer (n 0 when not built). */
static bytes pack(mm_codec_kind kind, const unsigned char *p, size_t n)
{
    bytes b = {malloc(n + n / 2 + 1024), 0};
    size_t cap = n + n / 2 + 1024;
    (void)p;
    (void)cap;
    switch (kind) {
    case MM_CODEC_GZIP: {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
            z.next_in = (unsigned char *)(uintptr_t)p;
            z.avail_in = (uInt)n;
            z.next_out = b.p;
            z.avail_out = (uInt)cap;
            if (deflate(&z, Z_FINISH) == Z_STREAM_END)
                b.n = cap - z.avail_out;
            deflateEnd(&z);
        }
        break;
    }
#ifdef RVS_HAVE_BZIP2
    case MM_CODEC_BZIP2: {
        unsigned out = (unsigned)cap;
        if (BZ2_bzBuffToBuffCompress((char *)b.p, &out, (char *)(uintptr_t)p, (unsigned)n, 1, 0, 0) == BZ_OK)
            b.n = out;
        break;
    }
#endif
#ifdef RVS_HAVE_LZMA
    case MM_CODEC_XZ: {
        size_t pos = 0;
        if (lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, p, n, b.p, &pos, cap) == LZMA_OK)
            b.n = pos;
        break;
    }
#endif
#ifdef RVS_HAVE_ZSTD
    case MM_CODEC_ZSTD: {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1); /* as the zstd command writes */
        size_t r = ZSTD_compress2(c, b.p, cap, p, n);
        if (!ZSTD_isError(r))
            b.n = r;
        ZSTD_freeCCtx(c);
        break;
    }
#endif
    default: break;
    }
    return b;
}

/* Two compressed streams back to back: the text cut at `cut`, each half compressed alone. */
static bytes concatenated(mm_codec_kind kind, const bytes *text, size_t cut)
{
    bytes a = pack(kind, text->p, cut), b = pack(kind, text->p + cut, text->n - cut), c;
    c.n = a.n + b.n;
    c.p = malloc(c.n + 1);
    memcpy(c.p, a.p, a.n);
    memcpy(c.p + a.n, b.p, b.n);
    free(a.p);
    free(b.p);
    return c;
}

/* Decode z through the codec, `piece` input bytes and `room` output bytes at a time; the
 * status of the first failure, or RVS_ERR_TRUNCATED when the input ends inside a stream. */
static rvs_status decode(mm_codec_kind kind, const bytes *z, size_t piece, size_t room, bytes *out, rvs_error *err)
{
    mm_codec *c;
    rvs_status st = mm_codec_open(&c, kind, err);
    out->n = 0;
    out->p = NULL;
    if (st != RVS_OK)
        return st;
    size_t cap = 1 << 16;
    out->p = malloc(cap);
    const unsigned char *in = z->p;
    size_t left = z->n;
    for (int spins = 0; st == RVS_OK && spins < 100000000; spins++) {
        size_t n = left < piece ? left : piece, had = n, wrote;
        int ended;
        if (out->n + room > cap)
            out->p = realloc(out->p, cap = 2 * cap + room);
        st = mm_codec_step(c, &in, &n, out->p + out->n, room, &wrote, &ended, err);
        out->n += wrote;
        left -= had - n;
        if (left == 0 && wrote < room && n == 0)
            break;
    }
    if (st == RVS_OK && mm_codec_midstream(c))
        st = rvs_fail(err, RVS_ERR_TRUNCATED, "ends early");
    mm_codec_free(c);
    return st;
}

/* Read z as a Matrix Market input through a temporary file (mapped) and through a stream
 * (fmemopen, the stdin path), expecting status want (and, for RVS_OK, the matrix plain text
 * gives; else a message containing needle). */
static void read_both_ways(const char *what, const bytes *z, const bytes *text, rvs_status want, const char *needle)
{
    rvs_csr R, A;
    rvs_error err;
    CHECK_OK(rvs_mm_parse(&R, NULL, (const char *)text->p, text->n, &err), &err);
    char path[] = "/tmp/rvs_codec_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, z->p, z->n) == (ssize_t)z->n);
    close(fd);
    for (int way = 0; way < 2; way++) {
        FILE *f = way ? fmemopen(z->p, z->n, "rb") : NULL;
        rvs_error_clear(&err);
        rvs_status st = way ? rvs_mm_read_stream(&A, NULL, f, NULL, 0, NULL, NULL, &err)
                            : rvs_mm_read_file(&A, NULL, path, NULL, NULL, &err);
        CHECKF(st == want, "%s (%s): status %d, want %d: %s", what, way ? "stream" : "file", (int)st, (int)want,
               err.msg);
        if (st == RVS_OK && want == RVS_OK) {
            int same = A.rows == R.rows && A.nnz == R.nnz &&
                       memcmp(A.rowptr, R.rowptr, (size_t)(R.rows + 1) * sizeof *R.rowptr) == 0;
            for (int64_t k = 0; same && k < R.nnz; k++)
                same = rvs_csr_col(&A, k) == rvs_csr_col(&R, k) && rvs_csr_value(&A, k) == rvs_csr_value(&R, k);
            CHECKF(same, "%s (%s): the matrix differs from the plain text's", what, way ? "stream" : "file");
        }
        if (st != RVS_OK && needle)
            CHECKF(strstr(err.msg, needle) != NULL, "%s (%s): message '%s' lacks '%s'", what,
                   way ? "stream" : "file", err.msg, needle);
        if (st == RVS_OK)
            rvs_csr_free(&A);
        if (f)
            fclose(f);
    }
    unlink(path);
    rvs_csr_free(&R);
}

/* Every check of one codec this build decodes. */
static void built_codec(mm_codec_kind kind, const bytes *text)
{
    const char *name = mm_codec_name(kind);
    char want[64];
    rvs_error err;
    bytes z = pack(kind, text->p, text->n), out;
    CHECKF(z.n > 16, "%s: compressing failed", name);
    CHECKF(mm_codec_sniff(z.p, z.n) == kind, "%s: its own output not told by its magic", name);
    /* in any pieces: one byte in, a few out; whole blocks */
    static const size_t piece[][2] = {{1, 7}, {13, 1}, {4096, 100}, {(size_t)1 << 20, (size_t)1 << 20}};
    for (int i = 0; i < 4; i++) {
        if (piece[i][0] == 1 && z.n > 200000)
            continue;
        rvs_status st = decode(kind, &z, piece[i][0], piece[i][1], &out, &err);
        CHECKF(st == RVS_OK && out.n == text->n && memcmp(out.p, text->p, text->n) == 0,
               "%s: pieces of %zu in, %zu out: status %d (%s), %zu bytes", name, piece[i][0], piece[i][1], (int)st,
               err.msg, out.n);
        free(out.p);
    }
    /* concatenated streams are one input, cut anywhere (inside a line too) */
    bytes cc = concatenated(kind, text, text->n / 3 + 5);
    rvs_status st = decode(kind, &cc, 4096, 4096, &out, &err);
    CHECKF(st == RVS_OK && out.n == text->n && memcmp(out.p, text->p, text->n) == 0, "%s: concatenated", name);
    free(out.p);
    read_both_ways(name, &z, text, RVS_OK, NULL);
    read_both_ways("concatenated", &cc, text, RVS_OK, NULL);
    /* truncated: the stream does not end */
    bytes t = {z.p, z.n - 9};
    snprintf(want, sizeof want, "%s: compressed data ends early", name);
    read_both_ways("truncated", &t, text, RVS_ERR_TRUNCATED, want);
    /* trailing bytes that start no stream */
    bytes g = {malloc(z.n + 8), z.n + 8};
    memcpy(g.p, z.p, z.n);
    memcpy(g.p + z.n, "garbage\n", 8);
    snprintf(want, sizeof want, "%s: trailing garbage after the compressed data", name);
    read_both_ways("trailing garbage", &g, text, RVS_ERR_FORMAT, want);
    /* corrupt: bytes flipped in the middle (the checksums of all three formats catch it) */
    for (size_t k = z.n / 2; k < z.n / 2 + 4; k++)
        z.p[k] ^= 0x5a;
    snprintf(want, sizeof want, "%s: ", name);
    read_both_ways("corrupt", &z, text, RVS_ERR_FORMAT, want);
    free(g.p);
    free(cc.p);
    free(z.p);
}

/* A codec this build lacks: one clear message, from the decoder and from the reader. */
static void missing_codec(mm_codec_kind kind, const bytes *text)
{
    static const unsigned char head[][8] = {{0},
                                            {'B', 'Z', 'h', '9', '1', 'A', 'Y', '&'},
                                            {0xFD, '7', 'z', 'X', 'Z', 0, 0, 4},
                                            {0x28, 0xB5, 0x2F, 0xFD, 4, 0x58, 0, 0}};
    static const char *const lib[] = {"", "libbz2", "liblzma", "libzstd"};
    char want[160];
    mm_codec *c;
    rvs_error err;
    snprintf(want, sizeof want,
             "unsupported compression: %s (rvskit was built without %s; decompress the input first)",
             mm_codec_name(kind), lib[kind]);
    rvs_status st = mm_codec_open(&c, kind, &err);
    CHECKF(st == RVS_ERR_UNSUPPORTED && strcmp(err.msg, want) == 0, "%s: status %d, '%s'", mm_codec_name(kind),
           (int)st, err.msg);
    CHECK(mm_codec_sniff(head[kind], 8) == kind);
    bytes z = {(unsigned char *)head[kind], 8};
    read_both_ways(mm_codec_name(kind), &z, text, RVS_ERR_UNSUPPORTED, want);
    CHECK(rvs_status_exit_code(RVS_ERR_UNSUPPORTED) == 65);
}

/* A window or dictionary (a size in the input's header) past the memory the process may hold
 * fails at the header, with the sizes, instead of being allocated (the long fuzz run found a
 * 10-byte zstd frame that asked for 128 MB); with the memory there, the same input decodes. */
static void window_past_limit(const bytes *text)
{
#ifdef RVS_HAVE_ZSTD
    { /* a frame of one raw block, its window 2^27 (descriptor 0x88) and no content size */
        bytes z = {malloc(text->n + 9), text->n + 9};
        static const unsigned char head[] = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x88};
        uint32_t block = (uint32_t)text->n << 3 | 1; /* raw, last */
        memcpy(z.p, head, 6);
        z.p[6] = (unsigned char)block, z.p[7] = (unsigned char)(block >> 8), z.p[8] = (unsigned char)(block >> 16);
        memcpy(z.p + 9, text->p, text->n);
        rvs_mem_set_limit((size_t)16 << 20);
        read_both_ways("zstd window 2^27, 16 MiB limit", &z, text, RVS_ERR_OVERFLOW,
                       "zstd: the frame's window needs more than the 16.8 MB of memory available");
        rvs_mem_set_limit(0);
        read_both_ways("zstd window 2^27", &z, text, RVS_OK, NULL);
        free(z.p);
    }
#endif
#ifdef RVS_HAVE_LZMA
    { /* preset 9: a 64 MiB dictionary */
        bytes z = {malloc(text->n + 1024), 0};
        CHECK(lzma_easy_buffer_encode(9, LZMA_CHECK_CRC64, NULL, text->p, text->n, z.p, &z.n, text->n + 1024) ==
              LZMA_OK);
        rvs_mem_set_limit((size_t)16 << 20);
        read_both_ways("xz preset 9, 16 MiB limit", &z, text, RVS_ERR_OVERFLOW, "xz: the decompressor needs 67.");
        rvs_mem_set_limit(0);
        read_both_ways("xz preset 9", &z, text, RVS_OK, NULL);
        free(z.p);
    }
#endif
    (void)text;
}

int main(int argc, char **argv)
{
    int none = argc > 1 && strcmp(argv[1], "none") == 0;
    /* magic bytes: each kind, and what is none of them */
    static const unsigned char gz[] = {0x1f, 0x8b, 8, 0, 0, 0}, mm[] = "%%MatrixMarket", bz_short[] = "BZh";
    CHECK(mm_codec_sniff(gz, sizeof gz) == MM_CODEC_GZIP);
    CHECK(mm_codec_sniff(mm, sizeof mm - 1) == MM_CODEC_NONE);
    CHECK(mm_codec_sniff(bz_short, 3) == MM_CODEC_NONE);
    CHECK(mm_codec_sniff((const unsigned char *)"BZh0xxxx", 8) == MM_CODEC_NONE); /* no such block size */
    CHECK(mm_codec_sniff((const unsigned char *)"\xFD"
                                                "7zXZ",
                         5) == MM_CODEC_NONE);                /* 5 of 6 bytes */
    CHECK(none == (mm_codec_built() == 1u << MM_CODEC_GZIP)); /* gzip (zlib) is always there */
    bytes small = mm_text(2000), big = mm_text(400000);       /* big: several of the reader's 4 MB blocks */
    for (mm_codec_kind k = MM_CODEC_BZIP2; k <= MM_CODEC_GZIP; k++) {
        if (mm_codec_built() & (1u << k)) {
            built_codec(k, &small);
            built_codec(k, &big);
        } else {
            missing_codec(k, &small);
        }
        printf("%s: %s\n", mm_codec_name(k), mm_codec_built() & (1u << k) ? "decoded" : "unsupported (not built)");
    }
    window_past_limit(&small);
    free(small.p);
    free(big.p);
    return rvs_test_done();
}
