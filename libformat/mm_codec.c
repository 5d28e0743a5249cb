/* mm_codec.c - compressed text input: magic bytes, and decoding through zlib (gzip) and
 * libbz2, liblzma and libzstd when the build found them (RVS_HAVE_BZIP2, RVS_HAVE_LZMA,
 * RVS_HAVE_ZSTD); without one, a clear "unsupported compression" error */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "mm_codec.h"
#include "rvs_mem.h"
#ifdef RVS_HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef RVS_HAVE_LZMA
#include <lzma.h>
#endif
#ifdef RVS_HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>
#endif

struct mm_codec {
    mm_codec_kind kind;
    int fresh; /* no stream begun yet, or the last one ended: a new one may start */
    z_stream z;
    int z_open;
#ifdef RVS_HAVE_BZIP2
    bz_stream bz;
    int bz_open;
#endif
#ifdef RVS_HAVE_LZMA
    lzma_stream xz;
#endif
#ifdef RVS_HAVE_ZSTD
    ZSTD_DStream *zs;
#endif
};

static const unsigned char magic_bzip2[3] = {'B', 'Z', 'h'};
static const unsigned char magic_xz[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
static const unsigned char magic_zstd[4] = {0x28, 0xB5, 0x2F, 0xFD};
static const unsigned char magic_gzip[2] = {0x1F, 0x8B};

mm_codec_kind mm_codec_sniff(const unsigned char *p, size_t n)
{
    if (n >= 4 && memcmp(p, magic_bzip2, 3) == 0 && p[3] >= '1' && p[3] <= '9')
        return MM_CODEC_BZIP2;
    if (n >= sizeof magic_xz && memcmp(p, magic_xz, sizeof magic_xz) == 0)
        return MM_CODEC_XZ;
    if (n >= sizeof magic_zstd && memcmp(p, magic_zstd, sizeof magic_zstd) == 0)
        return MM_CODEC_ZSTD;
    if (n >= sizeof magic_gzip && memcmp(p, magic_gzip, sizeof magic_gzip) == 0)
        return MM_CODEC_GZIP;
    return MM_CODEC_NONE;
}

const char *mm_codec_name(mm_codec_kind k)
{
    static const char *const name[] = {"none", "bzip2", "xz", "zstd", "gzip"};
    return k >= MM_CODEC_NONE && k <= MM_CODEC_GZIP ? name[k] : "none";
}

unsigned mm_codec_built(void)
{
    unsigned m = 1u << MM_CODEC_GZIP;
#ifdef RVS_HAVE_BZIP2
    m |= 1u << MM_CODEC_BZIP2;
#endif
#ifdef RVS_HAVE_LZMA
    m |= 1u << MM_CODEC_XZ;
#endif
#ifdef RVS_HAVE_ZSTD
    m |= 1u << MM_CODEC_ZSTD;
#endif
    return m;
}

rvs_status mm_codec_open(mm_codec **c, mm_codec_kind kind, rvs_error *err)
{
    static const char *const library[] = {"", "libbz2", "liblzma", "libzstd", "zlib"};
    *c = NULL;
    if (kind <= MM_CODEC_NONE || kind > MM_CODEC_GZIP)
        return rvs_fail(err, RVS_ERR_INTERNAL, "no codec %d", (int)kind);
    if (!(mm_codec_built() & (1u << kind)))
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "unsupported compression: %s (rvskit was built without %s; decompress the input first)",
                        mm_codec_name(kind), library[kind]);
    mm_codec *d = calloc(1, sizeof *d);
    if (!d)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the %s decoder", mm_codec_name(kind));
    d->kind = kind;
    d->fresh = 1;
    *c = d;
    return RVS_OK;
}

void mm_codec_free(mm_codec *c)
{
    if (!c)
        return;
    if (c->z_open)
        inflateEnd(&c->z);
#ifdef RVS_HAVE_BZIP2
    if (c->bz_open)
        BZ2_bzDecompressEnd(&c->bz);
#endif
#ifdef RVS_HAVE_LZMA
    if (c->kind == MM_CODEC_XZ)
        lzma_end(&c->xz);
#endif
#ifdef RVS_HAVE_ZSTD
    ZSTD_freeDStream(c->zs);
#endif
    free(c);
}

mm_codec_kind mm_codec_kind_of(const mm_codec *c)
{
    return c->kind;
}

int mm_codec_midstream(const mm_codec *c)
{
    return !c->fresh;
}

/* Before a new stream of a concatenation: only the codec's magic may start it (for zstd also
 * a skippable frame, 0x184D2A5? little-endian, which the zstd tool reads past). */
static rvs_status check_next_start(mm_codec *c, const unsigned char *in, size_t n, rvs_error *err)
{
    if (n == 0 || !c->fresh)
        return RVS_OK;
    if (c->kind == MM_CODEC_ZSTD && (in[0] & 0xF0) == 0x50 && (n < 2 || in[1] == 0x2A) &&
        (n < 3 || in[2] == 0x4D) && (n < 4 || in[3] == 0x18))
        return RVS_OK;
    const unsigned char *m = c->kind == MM_CODEC_BZIP2  ? magic_bzip2
                             : c->kind == MM_CODEC_XZ   ? magic_xz
                             : c->kind == MM_CODEC_GZIP ? magic_gzip
                                                        : magic_zstd;
    size_t k = c->kind == MM_CODEC_BZIP2  ? 3
               : c->kind == MM_CODEC_XZ   ? sizeof magic_xz
               : c->kind == MM_CODEC_GZIP ? sizeof magic_gzip
                                          : sizeof magic_zstd;
    if (memcmp(in, m, n < k ? n : k) != 0)
        return rvs_fail(err, RVS_ERR_FORMAT, "%s: trailing garbage after the compressed data",
                        mm_codec_name(c->kind));
    return RVS_OK;
}

static rvs_status step_gzip(mm_codec *c, const unsigned char **in, size_t *n, unsigned char *out, size_t cap,
                            size_t *wrote, int *ended, rvs_error *err)
{
    if (!c->z_open) {
        memset(&c->z, 0, sizeof c->z);
        if (inflateInit2(&c->z, 15 + 16) != Z_OK)
            return rvs_fail(err, RVS_ERR_NOMEM, "gzip: cannot start the decompressor");
        c->z_open = 1;
    } else if (c->fresh) {
        inflateReset(&c->z);
    }
    c->fresh = 0;
    uInt ai = *n > 0x40000000u ? 0x40000000u : (uInt)*n, ao = cap > 0x40000000u ? 0x40000000u : (uInt)cap;
    c->z.next_in = (unsigned char *)(uintptr_t)*in;
    c->z.avail_in = ai;
    c->z.next_out = out;
    c->z.avail_out = ao;
    int r = inflate(&c->z, Z_NO_FLUSH);
    *in += ai - c->z.avail_in;
    *n -= ai - c->z.avail_in;
    *wrote = ao - c->z.avail_out;
    if (r == Z_STREAM_END) { /* a member ended; another may follow */
        *ended = 1;
        c->fresh = 1;
        return RVS_OK;
    }
    if (r == Z_MEM_ERROR)
        return rvs_fail(err, RVS_ERR_NOMEM, "gzip: out of memory");
    if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_STREAM_ERROR)
        return rvs_fail(err, RVS_ERR_FORMAT, "gzip: %s", c->z.msg ? c->z.msg : "corrupt data");
    return RVS_OK; /* Z_OK, or Z_BUF_ERROR: no progress without more input */
}

#ifdef RVS_HAVE_BZIP2
static rvs_status step_bzip2(mm_codec *c, const unsigned char **in, size_t *n, unsigned char *out, size_t cap,
                             size_t *wrote, int *ended, rvs_error *err)
{
    if (c->fresh) {
        if (c->bz_open)
            BZ2_bzDecompressEnd(&c->bz);
        memset(&c->bz, 0, sizeof c->bz);
        if (BZ2_bzDecompressInit(&c->bz, 0, 0) != BZ_OK)
            return rvs_fail(err, RVS_ERR_NOMEM, "bzip2: cannot start the decompressor");
        c->bz_open = 1;
        c->fresh = 0;
    }
    unsigned ai = *n > 0x40000000u ? 0x40000000u : (unsigned)*n,
             ao = cap > 0x40000000u ? 0x40000000u : (unsigned)cap;
    c->bz.next_in = (char *)(uintptr_t)*in;
    c->bz.avail_in = ai;
    c->bz.next_out = (char *)out;
    c->bz.avail_out = ao;
    int r = BZ2_bzDecompress(&c->bz);
    *in += ai - c->bz.avail_in;
    *n -= ai - c->bz.avail_in;
    *wrote = ao - c->bz.avail_out;
    if (r == BZ_STREAM_END) {
        *ended = 1;
        c->fresh = 1;
        return RVS_OK;
    }
    if (r == BZ_MEM_ERROR)
        return rvs_fail(err, RVS_ERR_NOMEM, "bzip2: out of memory");
    if (r != BZ_OK)
        return rvs_fail(err, RVS_ERR_FORMAT, "bzip2: %s",
                        r == BZ_DATA_ERROR_MAGIC ? "not bzip2 data" : "corrupt data");
    return RVS_OK;
}
#endif

#ifdef RVS_HAVE_LZMA
static rvs_status step_xz(mm_codec *c, const unsigned char **in, size_t *n, unsigned char *out, size_t cap,
                          size_t *wrote, int *ended, rvs_error *err)
{
    if (c->fresh) {
        lzma_end(&c->xz);
        memset(&c->xz, 0, sizeof c->xz);
        uint64_t lim = rvs_mem_limit(); /* a dictionary past the memory there is fails at its header */
        if (lzma_stream_decoder(&c->xz, lim ? lim : UINT64_MAX, 0) != LZMA_OK)
            return rvs_fail(err, RVS_ERR_NOMEM, "xz: cannot start the decompressor");
        c->fresh = 0;
    }
    c->xz.next_in = *in;
    c->xz.avail_in = *n;
    c->xz.next_out = out;
    c->xz.avail_out = cap;
    lzma_ret r = lzma_code(&c->xz, LZMA_RUN);
    *wrote = cap - c->xz.avail_out;
    *n = c->xz.avail_in;
    *in = c->xz.next_in;
    if (r == LZMA_STREAM_END) {
        *ended = 1;
        c->fresh = 1;
        /* stream padding (zero bytes in fours) may follow an xz stream */
        while (*n >= 4 && memcmp(*in, "\0\0\0\0", 4) == 0)
            *in += 4, *n -= 4;
        return RVS_OK;
    }
    if (r == LZMA_MEM_ERROR)
        return rvs_fail(err, RVS_ERR_NOMEM, "xz: out of memory");
    if (r == LZMA_MEMLIMIT_ERROR) {
        char need[32], have[32];
        rvs_mem_format(need, sizeof need, (double)lzma_memusage(&c->xz));
        rvs_mem_format(have, sizeof have, (double)lzma_memlimit_get(&c->xz));
        return rvs_fail(err, RVS_ERR_OVERFLOW,
                        "xz: the decompressor needs %s, more than the %s of memory available", need, have);
    }
    if (r != LZMA_OK && r != LZMA_BUF_ERROR)
        return rvs_fail(err, RVS_ERR_FORMAT, "xz: %s",
                        r == LZMA_FORMAT_ERROR    ? "not xz data"
                        : r == LZMA_OPTIONS_ERROR ? "unsupported options (a newer xz wrote it?)"
                                                  : "corrupt data");
    return RVS_OK;
}
#endif

#ifdef RVS_HAVE_ZSTD
static rvs_status step_zstd(mm_codec *c, const unsigned char **in, size_t *n, unsigned char *out, size_t cap,
                            size_t *wrote, int *ended, rvs_error *err)
{
    if (!c->zs && !(c->zs = ZSTD_createDStream()))
        return rvs_fail(err, RVS_ERR_NOMEM, "zstd: out of memory");
    if (c->fresh) {
        ZSTD_initDStream(c->zs);
        /* a frame's window (up to zstd's default limit, 2^27 bytes) past the memory there is
         * fails at its header instead of allocating */
        uint64_t lim = rvs_mem_limit();
        int log = 27;
        while (lim && log > 10 && ((uint64_t)1 << log) > lim)
            log--;
        ZSTD_DCtx_setParameter(c->zs, ZSTD_d_windowLogMax, log);
        c->fresh = 0;
    }
    ZSTD_inBuffer ib = {*in, *n, 0};
    ZSTD_outBuffer ob = {out, cap, 0};
    size_t r = ZSTD_decompressStream(c->zs, &ob, &ib);
    *in += ib.pos;
    *n -= ib.pos;
    *wrote = ob.pos;
    if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge) {
        char have[32];
        rvs_mem_format(have, sizeof have, (double)rvs_mem_limit());
        return rvs_fail(err, RVS_ERR_OVERFLOW,
                        "zstd: the frame's window needs more than the %s of memory available", have);
    }
    if (ZSTD_isError(r))
        return rvs_fail(err, RVS_ERR_FORMAT, "zstd: %s", ZSTD_getErrorName(r));
    if (r == 0) { /* a frame is complete */
        *ended = 1;
        c->fresh = 1;
    }
    return RVS_OK;
}
#endif

rvs_status mm_codec_step(mm_codec *c, const unsigned char **in, size_t *n, unsigned char *out, size_t cap,
                         size_t *wrote, int *ended, rvs_error *err)
{
    rvs_status st = check_next_start(c, *in, *n, err);
    *wrote = 0;
    *ended = 0;
    if (st != RVS_OK || (*n == 0 && c->fresh)) /* no input yet for the next stream of a concatenation */
        return st;
    (void)out; /* unused in a build without any codec */
    (void)cap;
    switch (c->kind) {
    case MM_CODEC_GZIP: return step_gzip(c, in, n, out, cap, wrote, ended, err);
#ifdef RVS_HAVE_BZIP2
    case MM_CODEC_BZIP2: return step_bzip2(c, in, n, out, cap, wrote, ended, err);
#endif
#ifdef RVS_HAVE_LZMA
    case MM_CODEC_XZ: return step_xz(c, in, n, out, cap, wrote, ended, err);
#endif
#ifdef RVS_HAVE_ZSTD
    case MM_CODEC_ZSTD: return step_zstd(c, in, n, out, cap, wrote, ended, err);
#endif
    default: return rvs_fail(err, RVS_ERR_INTERNAL, "no decoder for %s", mm_codec_name(c->kind));
    }
}
