/* mm_codec.h - private: compressed inputs (gzip, bzip2, xz, zstd), told by their magic bytes
 * and decoded through zlib and, when rvskit was built with them, libbz2, liblzma, libzstd */
#ifndef RVS_MM_CODEC_H
#define RVS_MM_CODEC_H

#include <stddef.h>
#include "rvs_status.h"

typedef enum { MM_CODEC_NONE = 0, MM_CODEC_BZIP2, MM_CODEC_XZ, MM_CODEC_ZSTD, MM_CODEC_GZIP } mm_codec_kind;

/* The most leading bytes mm_codec_sniff needs to decide. */
#define MM_CODEC_MAGIC_MAX 6

/* What the first n bytes of an input say: a codec, or none (plain text, or too few bytes to
 * tell: n < MM_CODEC_MAGIC_MAX with a prefix of a magic counts as none only when final). */
mm_codec_kind mm_codec_sniff(const unsigned char *p, size_t n);

/* "bzip2", "xz", "zstd", "gzip". */
const char *mm_codec_name(mm_codec_kind k);

/* A decoder; opaque. */
typedef struct mm_codec mm_codec;

/* Start decoding kind: RVS_ERR_UNSUPPORTED ("unsupported compression: ...") when rvskit was
 * built without its library. */
rvs_status mm_codec_open(mm_codec **c, mm_codec_kind kind, rvs_error *err);

/* Decode from *in (*n bytes) into out (room for cap bytes): advances *in and *n, *wrote gets
 * the bytes produced, *ended 1 when a compressed stream ended (more may follow: concatenated
 * files are one input, as the tools that write them read them). Garbage where a stream should
 * start, or corrupt data, is RVS_ERR_FORMAT. */
rvs_status mm_codec_step(mm_codec *c, const unsigned char **in, size_t *n, unsigned char *out, size_t cap,
                         size_t *wrote, int *ended, rvs_error *err);

/* The kind c decodes. */
mm_codec_kind mm_codec_kind_of(const mm_codec *c);

/* 1 when a compressed stream has begun and not ended: input that stops here is cut short. */
int mm_codec_midstream(const mm_codec *c);

void mm_codec_free(mm_codec *c);

/* The codecs this build decodes: a mask of 1 << kind. */
unsigned mm_codec_built(void);

#endif
