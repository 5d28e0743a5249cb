/* mm_private.h - private: what the Matrix Market header parser (mm_head.c) and the data parser (mm_read.c) share */
#ifndef RVS_MM_PRIVATE_H
#define RVS_MM_PRIVATE_H

#include <stdint.h>
#include <string.h>
#include "rvs_edges.h"
#include "rvs_mm.h"

typedef enum { MM_COORDINATE, MM_ARRAY } mm_format;
typedef enum { MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX, MM_UNSIGNED } mm_field;
typedef enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN } mm_symmetry;

/* What the banner and size line said, and where the data section starts. */
typedef struct {
    mm_format format;
    mm_field field;
    mm_symmetry symmetry;
    int64_t rows, cols;
    int64_t entries;   /* data lines expected: declared (coordinate) or implied (array) */
    size_t data;       /* offset of the first byte after the size line */
    int64_t data_line; /* line number of that byte */
} mm_header;

/* 1 for the blanks that separate tokens (CR too: many files have CRLF line ends). */
static inline int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Start of the next token in [p, e), or e. */
static inline const char *skip_blanks(const char *p, const char *e)
{
    while (p < e && is_blank(*p))
        p++;
    return p;
}

/* End of the token starting at p. */
static inline const char *token_end(const char *p, const char *e)
{
    while (p < e && !is_blank(*p))
        p++;
    return p;
}

/* Copy a token into out (at most 40 chars, non-printing bytes as '?') for messages. */
static inline const char *snip(char out[48], const char *p, const char *e)
{
    size_t n = 0;
    for (; p < e && n < 40; p++)
        out[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    if (p < e) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* Parse the digits [p, e) (at least one) into *v: 0 ok, 1 not digits, 2 beyond 2^64 - 1. */
static inline int parse_digits(const char *p, const char *e, uint64_t *v)
{
    *v = 0;
    if (p == e)
        return 1;
    for (; p < e; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9)
            return 1;
        if (*v > (UINT64_MAX - d) / 10)
            return 2;
        *v = *v * 10 + d;
    }
    return 0;
}

/* Parse the whole token [p, e) as a decimal int64. 0 ok, 1 not an integer, 2 overflow. */
static inline int parse_int64(const char *p, const char *e, int64_t *out)
{
    int neg = 0;
    uint64_t v;
    if (p < e && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    int r = parse_digits(p, e, &v);
    if (r)
        return r;
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return 2;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Parse banner, comments and size line of the whole text buf[0..len); h->data is where the
 * data section starts. info (may be NULL) gets what they said. */
rvs_status mm_parse_header(const char *buf, size_t len, mm_header *h, rvs_mm_info *info, rvs_error *err);

/* Where mm_head_feed stands in a text that is still arriving. Zero it to start. */
typedef struct {
    int stage;    /* 0: before the banner, 1: before the size line, 2: both read and valid */
    size_t pos;   /* start of the first line not yet judged */
    int64_t line; /* its line number */
    mm_header h;
} mm_head_state;

/* Judge the banner and size line of buf[0..len), the start of a text still arriving (the same
 * buffer, longer at each call): RVS_OK while what has arrived can still be a valid header
 * (hs->stage is 2 once it is complete), else the error mm_parse_header would give on the
 * whole text. Endless or foreign input is refused at its first line, not after it is read. */
rvs_status mm_head_feed(mm_head_state *hs, const char *buf, size_t len, rvs_error *err);

/* Whether parsed text may be dropped from memory (MADV_DONTNEED) once it has served. */
enum {
    MM_TEXT_KEEP = 0, /* the caller's buffer: never touched */
    MM_TEXT_DROP = 1  /* our own buffer or a file's mapping: each chunk dropped once parsed */
};

/* Parse a whole text (header and data) into A; release is MM_TEXT_KEEP or MM_TEXT_DROP. */
rvs_status mm_parse_text(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, int release,
                         rvs_progress_fn progress, void *ctx, rvs_error *err);

/* mm_parse_text (keeping the text) with the data section cut into blocks of about block_bytes
 * (0: the usual 64 MB) and each block into chunks (0: as suit the threads and the size). The
 * result, or the first error in file order, must not depend on either: the fuzz target
 * tests/fuzz/fuzz_mm.c compares the usual cut with others on the same text. */
rvs_status mm_parse_cut(rvs_csr *A, rvs_mm_info *info, const char *buf, size_t len, size_t block_bytes, int chunks,
                        rvs_error *err);

/* The data section of a text that arrives in blocks of whole lines, parsed block by block in
 * parallel into growing triplet arrays (bounded by the data seen and by the declared count). */
typedef struct mm_blocks mm_blocks;

/* Start after header h (data_line: the line number of the first data byte). total: bytes
 * for progress reports (0: unknown). */
rvs_status mm_blocks_begin(mm_blocks **B, const mm_header *h, int release, rvs_progress_fn progress, void *ctx,
                           uint64_t total, rvs_error *err);

/* Parse the data lines of buf[0..len): whole lines, except that the last block's (final = 1)
 * last line may lack its newline. A bad data line is held back (later blocks are only
 * counted): mm_blocks_finish reports a wrong count first, then the first bad line in file
 * order with its line number, as a whole-text parse does, however the text is cut. Running
 * out of memory is reported at once. */
rvs_status mm_blocks_parse(mm_blocks *B, const char *buf, size_t len, int final, rvs_error *err);

/* Check the declared count, then report a bad line held back, or mirror symmetric entries and
 * build A (f64, or c128 for a complex field); what to warn about into info (may be NULL); frees B
 * (also on error). */
rvs_status mm_blocks_finish(mm_blocks *B, rvs_csr *A, rvs_mm_info *info, rvs_error *err);

/* Free B (NULL is fine). */
void mm_blocks_free(mm_blocks *B);

/* Drop the pages wholly inside [p, p + n) from this process (MADV_DONTNEED): text parsed
 * already, whose mapping stays valid but need not stay resident. */
void mm_release_text(const char *p, size_t n);

/* Fail fast (RVS_ERR_OVERFLOW) when rows + 1 row pointers cannot fit in this machine's memory. */
rvs_status mm_check_rows_fit(int64_t rows, rvs_error *err);

/* RVS_OK when cap triplets of a rows x cols matrix (values: an f64 each, or pattern) can be
 * held and built into a CSR within the memory available (rvs_mem.h); else RVS_ERR_OVERFLOW. */
rvs_status mm_claim_peak(int64_t cap, int64_t rows, int64_t cols, rvs_error *err);

/* An edge list's parser (mm_edges.c): text in blocks of whole lines, in file order. */
typedef struct mm_edges mm_edges;

/* Start one; o may be NULL; info (may be NULL) is filled by mm_edges_finish. */
rvs_status mm_edges_begin(mm_edges **E, const rvs_edges_options *o, rvs_edges_info *info, rvs_error *err);

/* Parse buf[0..len): whole lines, except that the last block's (final = 1) last line may lack
 * its newline. Errors name the line. */
rvs_status mm_edges_parse(mm_edges *E, const char *buf, size_t len, int final, rvs_error *err);

/* Build A (f64) from the edges parsed; frees E (also on error). */
rvs_status mm_edges_finish(mm_edges *E, rvs_csr *A, rvs_error *err);

/* Free E (NULL is fine). */
void mm_edges_free(mm_edges *E);

/* Compressed input decoded on a thread of its own (mm_unpack.c). */
typedef struct mm_unpack mm_unpack;

/* Start decoding the compressed input whose first bytes are in[0..n) (copied when copy is 1,
 * else they must outlive U: a mapping), then the rest of f (may be NULL) to its end. The
 * format is told by in's magic bytes; one this build lacks is RVS_ERR_UNSUPPORTED. */
rvs_status mm_unpack_start(mm_unpack **U, const unsigned char *in, size_t n, int copy, FILE *f, rvs_error *err);

/* The next piece of decoded text in *p, *len bytes (valid until the next call; 0 at the end),
 * and the compressed bytes taken in so far. A failure of decoding or reading (corrupt,
 * truncated: RVS_ERR_FORMAT, RVS_ERR_TRUNCATED, RVS_ERR_IO) comes after the text before it. */
rvs_status mm_unpack_next(mm_unpack *U, const unsigned char **p, size_t *len, uint64_t *in_bytes, rvs_error *err);

/* Stop the decoder (wherever it is) and free U (NULL is fine). */
void mm_unpack_free(mm_unpack *U);

/* The input layer (mm_input.c): read path ("-" or NULL: stdin) or f (after prefix), decoding
 * gzip, bzip2, xz and zstd as it arrives, as Matrix Market (E NULL) or through the edge-list
 * parser E (freed here). */
rvs_status mm_input_file(rvs_csr *A, rvs_mm_info *info, mm_edges *E, const char *path, rvs_progress_fn progress,
                         void *ctx, rvs_error *err);
rvs_status mm_input_stream(rvs_csr *A, rvs_mm_info *info, mm_edges *E, FILE *f, const void *prefix,
                           size_t prefix_len, rvs_progress_fn progress, void *ctx, rvs_error *err);

#endif
