/* stream_read.c - read an RVS stream in one forward pass, validating every chunk (rvs.5) */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "prefault.h"
#include "rvs_stream.h"
#include "stream_layout.h"

/* Fuzzing builds (cmake -DRVS_FUZZ=ON) accept wrong CRCs, so that mutations reach the checks
 * behind them; tests/fuzz/fix-crc.py makes a kept input's CRCs right for every other build. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CRC_DIFFERS(stored, computed) ((void)(stored), (void)(computed), 0)
#else
#define CRC_DIFFERS(stored, computed) ((stored) != (computed))
#endif

const unsigned char rvs_magic[RVS_MAGIC_LEN] = {0x89, 'R', 'V', 'S', '\r', '\n', 0x1a, '\n'};

/* Where the reader stands: the source, the chunk being read and its running CRC. */
typedef struct {
    FILE *f;
    const uint8_t *prefix;
    size_t prefix_len, prefix_pos;
    uint64_t offset;       /* stream bytes consumed */
    char type[5];          /* current chunk type, NUL-terminated for messages */
    uint64_t chunk_offset; /* where the current chunk starts */
    uint64_t len, left;    /* its payload length, payload bytes not yet consumed */
    uint32_t crc;
    uint64_t nchunks; /* chunks read completely */
    rvs_prefault *pf; /* commits array pages ahead of the data (NULL: none yet or none) */
    int pf_tried;
    rvs_error *err;
} reader;

/* 1 if buf (n >= RVS_MAGIC_LEN bytes) starts with the stream magic. */
int rvs_stream_sniff(const void *buf, size_t n)
{
    return n >= RVS_MAGIC_LEN && memcmp(buf, rvs_magic, RVS_MAGIC_LEN) == 0;
}

/* Copy up to n bytes from the prefix, then the file; returns the count (short at EOF/error). */
static size_t source_read(reader *r, void *buf, size_t n)
{
    uint8_t *p = buf;
    size_t got = 0;
    if (r->prefix_pos < r->prefix_len) {
        size_t take = r->prefix_len - r->prefix_pos;
        if (take > n)
            take = n;
        memcpy(p, r->prefix + r->prefix_pos, take);
        r->prefix_pos += take;
        got = take;
    }
    while (got < n) {
        size_t want = n - got, one;
        if (want > ((size_t)1 << 30))
            want = (size_t)1 << 30;
        one = fread(p + got, 1, want, r->f);
        got += one;
        if (one < want)
            break;
    }
    r->offset += got;
    return got;
}

/* The status for a short read: RVS_ERR_IO if the file reported an error, else truncation. */
static rvs_status short_read(reader *r, const char *where)
{
    if (ferror(r->f))
        return rvs_fail(r->err, RVS_ERR_IO, "read error %s: %s", where, strerror(errno));
    return rvs_fail(r->err, RVS_ERR_TRUNCATED, "stream truncated %s (at byte %llu)", where,
                    (unsigned long long)r->offset);
}

/* Read the 16-byte prelude: magic, CRC, then version (a higher major is refused). */
static rvs_status read_prelude(reader *r)
{
    uint8_t h[RVS_PRELUDE_LEN];
    size_t got = source_read(r, h, sizeof h);
    if (got < RVS_MAGIC_LEN || !rvs_stream_sniff(h, got)) {
        if (got < RVS_MAGIC_LEN && ferror(r->f))
            return short_read(r, "reading the prelude");
        if (got < RVS_MAGIC_LEN && memcmp(h, rvs_magic, got) == 0)
            return short_read(r, "inside the prelude");
        if (got >= 4 && memcmp(h + 1, "RVS", 3) == 0)
            return rvs_fail(r->err, RVS_ERR_FORMAT,
                            "not an RVS stream: damaged magic (sent through a text-mode channel?)");
        return rvs_fail(r->err, RVS_ERR_FORMAT, "not an RVS stream (bad magic)");
    }
    if (got < sizeof h)
        return short_read(r, "inside the prelude");
    uint32_t stored = rvs_le32(h + 12), computed = rvs_crc32c(0, h, 12);
    if (CRC_DIFFERS(stored, computed))
        return rvs_fail(r->err, RVS_ERR_CRC, "prelude: CRC mismatch (stored %08x, computed %08x)", stored,
                        computed);
    unsigned major = h[8] | h[9] << 8, minor = h[10] | h[11] << 8;
    if (major > RVS_STREAM_MAJOR)
        return rvs_fail(r->err, RVS_ERR_VERSION, "stream version %u.%u is newer than this reader (%d.x)", major,
                        minor, RVS_STREAM_MAJOR);
    if (major < 1)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "prelude: stream version %u.%u does not exist", major, minor);
    return RVS_OK;
}

/* 1 if c is an ASCII letter. */
static int is_letter(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Read the next chunk's type and length and start its CRC. */
static rvs_status chunk_begin(reader *r)
{
    uint8_t h[RVS_CHUNK_HEAD_LEN];
    uint64_t at = r->offset;
    size_t got = source_read(r, h, sizeof h);
    if (got == 0 && !ferror(r->f))
        return rvs_fail(r->err, RVS_ERR_TRUNCATED,
                        "stream ends without an end chunk: truncated (upstream program failed?)");
    if (got < sizeof h)
        return short_read(r, "inside a chunk header");
    for (int i = 0; i < 4; i++)
        if (!is_letter(h[i]))
            return rvs_fail(r->err, RVS_ERR_FORMAT, "bad chunk type %02x %02x %02x %02x at byte %llu (not letters)",
                            h[0], h[1], h[2], h[3], (unsigned long long)at);
    memcpy(r->type, h, 4);
    r->type[4] = '\0';
    r->chunk_offset = at;
    r->len = r->left = rvs_le64(h + 4);
    r->crc = rvs_crc32c(0, h, sizeof h);
    return RVS_OK;
}

/* 1 if the current chunk has type t. */
static int chunk_is(const reader *r, const char *t)
{
    return memcmp(r->type, t, 4) == 0;
}

/* Consume n payload bytes of the current chunk into buf (in cache-sized pieces, CRC as it goes). */
static rvs_status chunk_take(reader *r, void *buf, uint64_t n)
{
    uint8_t *p = buf;
    if (n > r->left)
        return rvs_fail(r->err, RVS_ERR_FORMAT,
                        "chunk '%s' at byte %llu: payload of %llu bytes too short for its fields", r->type,
                        (unsigned long long)r->chunk_offset, (unsigned long long)r->len);
    while (n > 0) {
        size_t piece = n < RVS_IO_PIECE ? (size_t)n : RVS_IO_PIECE;
        size_t got = source_read(r, p, piece);
        r->crc = rvs_crc32c(r->crc, p, got);
        r->left -= got;
        if (got < piece) {
            char where[64];
            snprintf(where, sizeof where, "inside chunk '%s'", r->type);
            return short_read(r, where);
        }
        p += piece;
        n -= piece;
    }
    return RVS_OK;
}

/* Finish the current chunk: every payload byte used, then the stored CRC must match. */
static rvs_status chunk_finish(reader *r)
{
    uint8_t c[RVS_CHUNK_CRC_LEN];
    if (r->left != 0)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk '%s' at byte %llu: %llu payload bytes beyond its fields",
                        r->type, (unsigned long long)r->chunk_offset, (unsigned long long)r->left);
    if (source_read(r, c, sizeof c) < sizeof c) {
        char where[64];
        snprintf(where, sizeof where, "inside chunk '%s'", r->type);
        return short_read(r, where);
    }
    if (CRC_DIFFERS(rvs_le32(c), r->crc))
        return rvs_fail(r->err, RVS_ERR_CRC, "chunk '%s' at byte %llu: CRC mismatch (stored %08x, computed %08x)",
                        r->type, (unsigned long long)r->chunk_offset, rvs_le32(c), r->crc);
    r->nchunks++;
    return RVS_OK;
}

/* Read n bytes into buf (room for cap), committing its pages a window ahead of the data: the
 * data then lands in pages that are already there instead of faulting each one in. */
static rvs_status take_ahead(reader *r, uint8_t *buf, size_t cap, size_t done, size_t n)
{
    if (!r->pf && !r->pf_tried && n >= RVS_PREFAULT_MIN) {
        r->pf = rvs_prefault_start();
        r->pf_tried = 1;
    }
    if (!r->pf)
        return chunk_take(r, buf + done, n);
    for (size_t end = done + n; done < end;) {
        size_t piece = end - done < RVS_IO_PIECE ? end - done : RVS_IO_PIECE;
        rvs_prefault_fill(r->pf, buf, done, done + piece,
                          cap - done < RVS_PREFAULT_AHEAD ? cap : done + RVS_PREFAULT_AHEAD);
        rvs_status st = chunk_take(r, buf + done, piece);
        if (st != RVS_OK)
            return st;
        done += piece;
    }
    return RVS_OK;
}

/* Read n bytes of payload into a new buffer that grows only as the data arrives, so a
 * length field can never make us commit much more memory than the stream really holds. */
static rvs_status take_growing(reader *r, uint64_t n, void **out)
{
    rvs_status st = RVS_OK;
    if (n > r->left)
        return chunk_take(r, NULL, n); /* reports the short payload */
    if (n > SIZE_MAX / 2)
        return rvs_fail(r->err, RVS_ERR_OVERFLOW, "chunk '%s': %llu bytes exceed this machine's memory", r->type,
                        (unsigned long long)n);
    size_t cap = n < RVS_TRUST_BYTES ? (size_t)n : RVS_TRUST_BYTES, done = 0;
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf)
        return rvs_fail(r->err, RVS_ERR_NOMEM, "chunk '%s': out of memory for %zu bytes", r->type, cap);
    while (done < n) {
        if (done == cap) {
            size_t next = (n - cap < cap) ? (size_t)n : 2 * cap;
            rvs_prefault_stop_range(r->pf);      /* the buffer may move */
            uint8_t *grown = realloc(buf, next); /* large blocks grow by mremap: no copy */
            if (!grown) {
                st = rvs_fail(r->err, RVS_ERR_NOMEM, "chunk '%s': out of memory for %zu bytes", r->type, next);
                break;
            }
            buf = grown;
            cap = next;
        }
        size_t piece = cap - done;
        st = take_ahead(r, buf, cap, done, piece);
        if (st != RVS_OK)
            break;
        done += piece;
    }
    rvs_prefault_stop_range(r->pf);
    if (st != RVS_OK)
        free(buf);
    else
        *out = buf;
    return st;
}

/* Read the whole payload of the current chunk (at most max bytes) and check its CRC. */
static rvs_status take_payload(reader *r, uint64_t max, uint8_t **out)
{
    void *buf = NULL;
    if (r->len > max)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk '%s' at byte %llu: payload length %llu exceeds %llu",
                        r->type, (unsigned long long)r->chunk_offset, (unsigned long long)r->len,
                        (unsigned long long)max);
    rvs_status st = take_growing(r, r->len, &buf);
    if (st == RVS_OK)
        st = chunk_finish(r);
    if (st != RVS_OK)
        free(buf);
    else
        *out = buf;
    return st;
}

/* Prefix the message in err with "what: ". */
static void error_context(rvs_error *err, const char *what)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%.48s: %.200s", what, err->msg[0] ? err->msg : rvs_status_string(err->code));
    memcpy(err->msg, msg, sizeof msg);
}

/* A validator refused what was read: bad data (RVS_ERR_FORMAT) named by what; running out of
 * memory while validating stays out of memory. */
static rvs_status refused(reader *r, rvs_status st, const char *what)
{
    if (st != RVS_ERR_NOMEM)
        r->err->code = st = RVS_ERR_FORMAT;
    error_context(r->err, what);
    return st;
}

/* Parse the MHDR payload into S (dimensions, value type, name); *width gets the index width. */
static rvs_status read_mhdr(reader *r, rvs_stream *S, unsigned *width)
{
    uint8_t *p = NULL;
    rvs_status st = take_payload(r, RVS_MHDR_FIXED_LEN + RVS_NAME_MAX, &p);
    if (st != RVS_OK)
        return st;
    if (r->len < RVS_MHDR_FIXED_LEN) {
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': payload of %llu bytes, need at least %d",
                      (unsigned long long)r->len, RVS_MHDR_FIXED_LEN);
        goto done;
    }
    int64_t rows = (int64_t)rvs_le64(p), cols = (int64_t)rvs_le64(p + 8), nnz = (int64_t)rvs_le64(p + 16);
    uint32_t vt = rvs_le32(p + 24), namelen = rvs_le32(p + 32);
    *width = rvs_le32(p + 28);
    if (rows < 0 || cols < 0 || nnz < 0 || rows == INT64_MAX)
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': bad dimensions rows %lld cols %lld nnz %lld",
                      (long long)rows, (long long)cols, (long long)nnz);
    else if ((uint64_t)rows + 1 > SIZE_MAX / 8 || (uint64_t)nnz > SIZE_MAX / 16)
        st = rvs_fail(r->err, RVS_ERR_OVERFLOW, "chunk 'MHDR': rows %lld nnz %lld exceed this machine's memory",
                      (long long)rows, (long long)nnz);
    else if (cols > 0 && rows <= INT64_MAX / cols && nnz > rows * cols)
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': nnz %lld exceeds rows*cols of a %lld x %lld matrix",
                      (long long)nnz, (long long)rows, (long long)cols);
    else if (cols == 0 && nnz > 0)
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': nnz %lld in a matrix without columns", (long long)nnz);
    else if (!rvs_vtype_valid(vt))
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': unknown value type %u", vt);
    else if (*width != (cols > RVS_COL32_MAX ? 8u : 4u))
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': index width %u for %lld columns (want %d)", *width,
                      (long long)cols, cols > RVS_COL32_MAX ? 8 : 4);
    else if (namelen != r->len - RVS_MHDR_FIXED_LEN)
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': name length %u, payload holds %llu bytes", namelen,
                      (unsigned long long)(r->len - RVS_MHDR_FIXED_LEN));
    else if (memchr(p + RVS_MHDR_FIXED_LEN, '\0', namelen))
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'MHDR': name contains a NUL byte");
    if (st != RVS_OK)
        goto done;
    S->A.rows = rows;
    S->A.cols = cols;
    S->A.nnz = nnz;
    S->A.vtype = (rvs_vtype)vt;
    memcpy(S->name, p + RVS_MHDR_FIXED_LEN, namelen);
    S->name[namelen] = '\0';
done:
    free(p);
    return st;
}

/* Parse the 24-byte head of the current ARRY chunk: name (1-7 characters [a-z0-9_], NUL
 * padded), element type, reserved zero, element count. */
static rvs_status arry_head(reader *r, char name[8], rvs_dtype *dt, int64_t *count)
{
    uint8_t h[RVS_ARRY_HEAD_LEN];
    rvs_status st = chunk_take(r, h, sizeof h);
    if (st != RVS_OK)
        return st;
    size_t n = strnlen((const char *)h, 8);
    int ok = n >= 1 && n <= 7;
    for (size_t i = 0; i < 8 && ok; i++) {
        uint8_t c = h[i];
        ok = i < n ? ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') : c == 0;
    }
    if (!ok)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'ARRY' at byte %llu: bad array name",
                        (unsigned long long)r->chunk_offset);
    memcpy(name, h, 8);
    uint32_t d = rvs_le32(h + 8);
    uint64_t c = rvs_le64(h + 16);
    if (d < RVS_DT_I32 || d > RVS_DT_C128)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "array '%s': unknown element type %u", name, d);
    if (rvs_le32(h + 12) != 0)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "array '%s': reserved field is %u, not 0", name, rvs_le32(h + 12));
    if (c > INT64_MAX)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "array '%s': count %llu out of range", name, (unsigned long long)c);
    *dt = (rvs_dtype)d;
    *count = (int64_t)c;
    return RVS_OK;
}

/* Check that what is left of the ARRY payload is exactly count elements of dt, then read them
 * into a new buffer. */
static rvs_status arry_data(reader *r, const char *name, rvs_dtype dt, int64_t count, void **data)
{
    uint64_t size = rvs_dtype_size(dt);
    if ((uint64_t)count > r->left / size || (uint64_t)count * size != r->left)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "array '%s': %lld elements of %llu bytes, payload holds %llu bytes",
                        name, (long long)count, (unsigned long long)size, (unsigned long long)r->left);
    rvs_status st = take_growing(r, r->left, data);
    if (st == RVS_OK && (st = chunk_finish(r)) != RVS_OK) {
        free(*data);
        *data = NULL;
    }
    return st;
}

/* Read the next chunk as hub array `want` of type dt and count elements (the size the
 * matrix header declared). */
static rvs_status read_hub_array(reader *r, const char *want, rvs_dtype dt, int64_t count,
                                 const char *declared_what, int64_t declared, void **data)
{
    char name[8];
    rvs_dtype got_dt;
    int64_t got_count;
    rvs_status st = chunk_begin(r);
    if (st != RVS_OK)
        return st;
    if (!chunk_is(r, "ARRY"))
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk '%s' where array '%s' of the matrix belongs", r->type, want);
    if ((st = arry_head(r, name, &got_dt, &got_count)) != RVS_OK)
        return st;
    if (strcmp(name, want) != 0)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "array '%s' where array '%s' of the matrix belongs", name, want);
    if (got_dt != dt)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "array '%s': element type %d, matrix header says %d", name,
                        (int)got_dt, (int)dt);
    if (got_count != count)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "array '%s' claims %lld elements, matrix has %s %lld", name,
                        (long long)got_count, declared_what, (long long)declared);
    return arry_data(r, name, dt, count, data);
}

/* Read MHDR (already begun) and the three hub arrays, then validate the CSR. */
static rvs_status read_matrix(reader *r, rvs_stream *S)
{
    unsigned width = 4;
    rvs_csr *A = &S->A;
    rvs_status st = read_mhdr(r, S, &width);
    if (st == RVS_OK)
        st = read_hub_array(r, "rowptr", RVS_DT_I64, A->rows + 1, "rows", A->rows, (void **)&A->rowptr);
    if (st == RVS_OK)
        st = read_hub_array(r, "colind", width == 4 ? RVS_DT_I32 : RVS_DT_I64, A->nnz, "nnz", A->nnz,
                            width == 4 ? (void **)&A->colind : (void **)&A->colind64);
    if (st == RVS_OK)
        st = read_hub_array(r, "values", rvs_value_dtype(A->vtype), A->nnz, "nnz", A->nnz, &A->values);
    if (st == RVS_OK && (st = rvs_csr_validate(A, r->err)) != RVS_OK)
        st = refused(r, st, "matrix arrays");
    return st;
}

/* Read the pmfs chunk (already begun) and check it against the matrix's own row lengths. */
static rvs_status read_pmf(reader *r, rvs_stream *S)
{
    uint8_t *p = NULL;
    rvs_pmf mine = {0};
    uint64_t max = (uint64_t)S->A.rows + 1 > (UINT64_MAX - RVS_PMFS_FIXED_LEN) / 16
                       ? UINT64_MAX
                       : RVS_PMFS_FIXED_LEN + 16 * ((uint64_t)S->A.rows + 1);
    rvs_status st = take_payload(r, max, &p);
    if (st != RVS_OK)
        return st;
    if (r->len < RVS_PMFS_FIXED_LEN) {
        free(p);
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'pmfs': payload of %llu bytes, need at least %d",
                        (unsigned long long)r->len, RVS_PMFS_FIXED_LEN);
    }
    int64_t f[6], nbins = (int64_t)rvs_le64(p + 72);
    for (int i = 0; i < 6; i++)
        f[i] = (int64_t)rvs_le64(p + 8 * i);
    double mean = rvs_le_f64(p + 48), sd = rvs_le_f64(p + 56), dens = rvs_le_f64(p + 64);
    if (nbins < 0 || (uint64_t)nbins != (r->len - RVS_PMFS_FIXED_LEN) / 16 || (r->len - RVS_PMFS_FIXED_LEN) % 16) {
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'pmfs': payload of %llu bytes does not hold %lld bins",
                      (unsigned long long)r->len, (long long)nbins);
        goto done;
    }
    if (f[0] != S->A.rows || f[1] != S->A.cols || f[2] != S->A.nnz) {
        st = rvs_fail(r->err, RVS_ERR_FORMAT,
                      "chunk 'pmfs': rows/cols/nnz %lld/%lld/%lld, matrix has %lld/%lld/%lld", (long long)f[0],
                      (long long)f[1], (long long)f[2], (long long)S->A.rows, (long long)S->A.cols,
                      (long long)S->A.nnz);
        goto done;
    }
    if (!isfinite(mean) || !isfinite(sd) || !isfinite(dens)) {
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'pmfs': mean, stddev or ell_density not finite");
        goto done;
    }
    if ((st = rvs_pmf_compute(&mine, &S->A, r->err)) != RVS_OK)
        goto done;
    int same = mine.nbins == nbins && mine.empty_rows == f[3] && mine.min == f[4] && mine.max == f[5];
    for (int64_t i = 0; same && i < nbins; i++)
        same = mine.k[i] == (int64_t)rvs_le64(p + 80 + 8 * i) &&
               mine.b[i] == (int64_t)rvs_le64(p + 80 + 8 * (nbins + i));
    if (!same) {
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'pmfs': its bins differ from the matrix's row lengths");
        goto done;
    }
    /* The integers agree; the derived doubles are taken from this reader's own computation. */
    S->pmf = mine;
    S->has_pmf = 1;
    mine = (rvs_pmf){0};
done:
    rvs_pmf_free(&mine);
    free(p);
    return st;
}

/* Read one part's 24-byte head and its row list into P->parts[i] (part i + 1 in messages). */
static rvs_status read_part_entry(reader *r, rvs_part *part, int i, int64_t matrix_rows)
{
    const int number = i + 1;
    uint8_t h[RVS_PART_ENTRY_LEN];
    rvs_status st = chunk_take(r, h, sizeof h);
    if (st != RVS_OK)
        return st;
    uint32_t dev = rvs_le32(h), ent = rvs_le32(h + 4);
    double cp = rvs_le_f64(h + 8);
    int64_t nrows = (int64_t)rvs_le64(h + 16);
    if (dev > RVS_DEV_GPU)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'PART': part %d: unknown device %u", number, dev);
    if (ent > RVS_ENTRIES_OFFDIAG)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'PART': part %d: unknown entry class %u", number, ent);
    if (!isfinite(cp) || !(cp > 0))
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'PART': part %d: computing power %g not positive", number,
                        cp);
    if (nrows < 0 || nrows > matrix_rows || (uint64_t)nrows > r->left / 8)
        return rvs_fail(r->err, RVS_ERR_FORMAT,
                        "chunk 'PART': part %d claims %lld rows, matrix has %lld, payload has room for %llu",
                        number, (long long)nrows, (long long)matrix_rows, (unsigned long long)(r->left / 8));
    part->device = (rvs_device)dev;
    part->entries = (rvs_entries)ent;
    part->cp = cp;
    part->rows = malloc(nrows ? (size_t)nrows * 8 : 1);
    if (!part->rows)
        return rvs_fail(r->err, RVS_ERR_NOMEM, "chunk 'PART': out of memory for %lld rows", (long long)nrows);
    part->nrows = nrows;
    return chunk_take(r, part->rows, (uint64_t)nrows * 8);
}

/* Read the PART chunk (already begun), validate it against the matrix, fill its metrics. */
static rvs_status read_partition(reader *r, rvs_stream *S)
{
    uint8_t h[RVS_PART_HEAD_LEN];
    rvs_partition *P = &S->partition;
    rvs_status st = chunk_take(r, h, sizeof h);
    if (st != RVS_OK)
        return st;
    uint32_t alg = rvs_le32(h), k = rvs_le32(h + 4);
    int64_t block = (int64_t)rvs_le64(h + 8);
    if (alg < RVS_ALG_ROWS || alg > RVS_ALG_METIS)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'PART': unknown algorithm %u", alg);
    if (k < 1 || k > RVS_PART_MAX || k > r->left / RVS_PART_ENTRY_LEN)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'PART': %u parts (1..%d, payload has room for %llu)", k,
                        RVS_PART_MAX, (unsigned long long)(r->left / RVS_PART_ENTRY_LEN));
    if (block < 0)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'PART': block size %lld negative", (long long)block);
    P->parts = calloc(k, sizeof *P->parts);
    if (!P->parts)
        return rvs_fail(r->err, RVS_ERR_NOMEM, "chunk 'PART': out of memory");
    P->k = (int)k;
    P->alg = (rvs_alg)alg;
    P->block_size = block;
    S->has_partition = 1;
    for (int i = 0; i < P->k && st == RVS_OK; i++)
        st = read_part_entry(r, &P->parts[i], i, S->A.rows);
    if (st == RVS_OK)
        st = chunk_finish(r);
    if (st == RVS_OK && (st = rvs_partition_validate(P, &S->A, r->err)) != RVS_OK)
        st = refused(r, st, "chunk 'PART'");
    if (st == RVS_OK)
        st = rvs_partition_metrics(P, &S->A, r->err);
    return st;
}

/* Check a format block's header against the matrix and the partition. */
static rvs_status check_fmtb(reader *r, const rvs_stream *S, const rvs_fmt_block *B, uint32_t narrays)
{
    const rvs_fmt *F = &B->fmt;
    int64_t rows = S->A.rows, nnz = S->A.nnz;
    if (narrays > RVS_FMT_MAX_ARRAYS)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'FMTB': %u arrays, at most %d", narrays, RVS_FMT_MAX_ARRAYS);
    if (!rvs_format_lookup(F->id))
        return rvs_fail(r->err, RVS_ERR_UNSUPPORTED, "chunk 'FMTB': unknown format id %d", (int)F->id);
    if (!rvs_vtype_valid((uint32_t)F->vtype))
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'FMTB': unknown value type %d", (int)F->vtype);
    const int k = S->has_partition ? S->partition.k : 0;
    if (B->part < -1 || B->part >= k) /* the stored index (0-based, -1 the whole matrix), as stored */
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'FMTB': part index %d out of range -1..%d", B->part, k - 1);
    if (B->part >= 0) {
        rows = S->partition.parts[B->part].nrows;
        nnz = S->partition.parts[B->part].nnz;
    }
    if (F->rows != rows || F->cols != S->A.cols || F->nnz != nnz) {
        char what[32] = "the whole matrix";
        if (B->part >= 0)
            snprintf(what, sizeof what, "part %d", B->part + 1);
        return rvs_fail(r->err, RVS_ERR_FORMAT,
                        "chunk 'FMTB': a block of %s is %lld x %lld with nnz %lld, want %lld x %lld with nnz %lld",
                        what, (long long)F->rows, (long long)F->cols, (long long)F->nnz, (long long)rows,
                        (long long)S->A.cols, (long long)nnz);
    }
    return RVS_OK;
}

/* Read one ARRY chunk of a format block into F->array[F->narrays]. */
static rvs_status read_fmt_array(reader *r, rvs_fmt *F)
{
    rvs_array *a = &F->array[F->narrays];
    rvs_status st = chunk_begin(r);
    if (st != RVS_OK)
        return st;
    if (!chunk_is(r, "ARRY"))
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk '%s' where array %d of a format block belongs", r->type,
                        F->narrays + 1);
    if ((st = arry_head(r, a->name, &a->dtype, &a->count)) != RVS_OK)
        return st;
    for (int j = 0; j < F->narrays; j++)
        if (strcmp(F->array[j].name, a->name) == 0)
            return rvs_fail(r->err, RVS_ERR_FORMAT, "format block: array '%s' appears twice", a->name);
    if ((st = arry_data(r, a->name, a->dtype, a->count, &a->data)) != RVS_OK)
        return st;
    F->narrays++;
    return RVS_OK;
}

/* Read an FMTB chunk (already begun) and the ARRY chunks that follow it, then validate. */
static rvs_status read_format_block(reader *r, rvs_stream *S)
{
    uint8_t *p = NULL;
    rvs_status st = take_payload(r, RVS_FMTB_LEN, &p);
    if (st != RVS_OK)
        return st;
    if (r->len != RVS_FMTB_LEN) {
        free(p);
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'FMTB': payload of %llu bytes, want %d",
                        (unsigned long long)r->len, RVS_FMTB_LEN);
    }
    rvs_fmt_block *grown = realloc(S->fmt, ((size_t)S->nfmt + 1) * sizeof *grown), *B;
    if (!grown) {
        free(p);
        return rvs_fail(r->err, RVS_ERR_NOMEM, "chunk 'FMTB': out of memory");
    }
    S->fmt = grown;
    B = &S->fmt[S->nfmt++];
    memset(B, 0, sizeof *B);
    B->part = (int32_t)rvs_le32(p);
    B->fmt.id = (rvs_format_id)rvs_le32(p + 4);
    B->fmt.vtype = (rvs_vtype)rvs_le32(p + 8);
    uint32_t narrays = rvs_le32(p + 12);
    B->fmt.rows = (int64_t)rvs_le64(p + 16);
    B->fmt.cols = (int64_t)rvs_le64(p + 24);
    B->fmt.nnz = (int64_t)rvs_le64(p + 32);
    for (int i = 0; i < RVS_FMT_MAX_PARAMS; i++)
        B->fmt.param[i] = (int64_t)rvs_le64(p + 40 + 8 * i);
    free(p);
    st = check_fmtb(r, S, B, narrays);
    while (st == RVS_OK && (uint32_t)B->fmt.narrays < narrays)
        st = read_fmt_array(r, &B->fmt);
    if (st == RVS_OK && (st = rvs_format_lookup(B->fmt.id)->validate(&B->fmt, r->err)) != RVS_OK) {
        char what[64], part[32] = "the whole matrix";
        if (B->part >= 0)
            snprintf(part, sizeof part, "part %d", B->part + 1);
        snprintf(what, sizeof what, "format block %d (%s, %s)", S->nfmt, rvs_format_lookup(B->fmt.id)->name, part);
        st = refused(r, st, what);
    }
    return st;
}

/* Keep an unknown ancillary chunk (already begun) byte for byte. */
static rvs_status read_extra(reader *r, rvs_stream *S)
{
    uint8_t *data = NULL;
    rvs_status st = take_payload(r, UINT64_MAX, &data);
    if (st != RVS_OK)
        return st;
    rvs_raw_chunk *grown = realloc(S->extra, ((size_t)S->nextra + 1) * sizeof *grown);
    if (!grown) {
        free(data);
        return rvs_fail(r->err, RVS_ERR_NOMEM, "chunk '%s': out of memory", r->type);
    }
    S->extra = grown;
    memcpy(grown[S->nextra].type, r->type, 4);
    grown[S->nextra].len = r->len;
    grown[S->nextra].data = data;
    S->nextra++;
    return RVS_OK;
}

/* Read the REND chunk (already begun): its count must match the chunks before it. */
static rvs_status read_end(reader *r)
{
    uint8_t *p = NULL;
    uint64_t before = r->nchunks;
    rvs_status st = take_payload(r, RVS_REND_LEN, &p);
    if (st != RVS_OK)
        return st;
    if (r->len != RVS_REND_LEN)
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'REND': payload of %llu bytes, want %d",
                      (unsigned long long)r->len, RVS_REND_LEN);
    else if (rvs_le64(p) != before)
        st = rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'REND': counts %llu chunks before it, the stream had %llu",
                      (unsigned long long)rvs_le64(p), (unsigned long long)before);
    free(p);
    return st;
}

/* Dispatch on the chunk just begun; *end is set at REND. Enforces the chunk order. */
static rvs_status read_chunk(reader *r, rvs_stream *S, int *have_matrix, int *end)
{
    if (chunk_is(r, "MHDR")) {
        if (*have_matrix)
            return rvs_fail(r->err, RVS_ERR_FORMAT, "second 'MHDR' chunk at byte %llu",
                            (unsigned long long)r->chunk_offset);
        *have_matrix = 1;
        return read_matrix(r, S);
    }
    if (r->type[0] >= 'a' && r->type[0] <= 'z' && !chunk_is(r, "pmfs"))
        return read_extra(r, S);
    if (!chunk_is(r, "pmfs") && !chunk_is(r, "PART") && !chunk_is(r, "FMTB") && !chunk_is(r, "REND") &&
        !chunk_is(r, "ARRY"))
        return rvs_fail(r->err, RVS_ERR_UNSUPPORTED, "unknown critical chunk '%s'", r->type);
    if (!*have_matrix)
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk '%s' before the matrix header 'MHDR'", r->type);
    if (chunk_is(r, "REND")) {
        *end = 1;
        return read_end(r);
    }
    if (chunk_is(r, "ARRY"))
        return rvs_fail(r->err, RVS_ERR_FORMAT, "chunk 'ARRY' at byte %llu outside a matrix or format block",
                        (unsigned long long)r->chunk_offset);
    if (chunk_is(r, "pmfs"))
        return S->has_pmf ? rvs_fail(r->err, RVS_ERR_FORMAT, "second 'pmfs' chunk") : read_pmf(r, S);
    if (chunk_is(r, "PART"))
        return S->has_partition ? rvs_fail(r->err, RVS_ERR_FORMAT, "second 'PART' chunk") : read_partition(r, S);
    return read_format_block(r, S);
}

/* Read a whole stream from f in one forward pass (see rvs_stream.h). */
rvs_status rvs_stream_read(rvs_stream *S, FILE *f, const void *prefix, size_t prefix_len, rvs_error *err)
{
    rvs_error local;
    reader r = {.f = f, .prefix = prefix, .prefix_len = prefix ? prefix_len : 0, .err = &local};
    int have_matrix = 0, end = 0;
    memset(S, 0, sizeof *S);
    rvs_error_clear(&local);
    rvs_widen_pipe(f);
    rvs_status st = read_prelude(&r);
    while (st == RVS_OK && !end && (st = chunk_begin(&r)) == RVS_OK)
        st = read_chunk(&r, S, &have_matrix, &end);
    rvs_prefault_stop(r.pf);
    if (st != RVS_OK) {
        rvs_stream_free(S);
        if (local.code == RVS_OK)
            rvs_fail(&local, st, "%s", rvs_status_string(st));
        if (err)
            *err = local;
    }
    return st;
}

/* Drop all format blocks. */
void rvs_stream_drop_formats(rvs_stream *S)
{
    for (int i = 0; i < S->nfmt; i++)
        rvs_fmt_free(&S->fmt[i].fmt);
    free(S->fmt);
    S->fmt = NULL;
    S->nfmt = 0;
}

/* Free everything S holds and zero it. */
void rvs_stream_free(rvs_stream *S)
{
    rvs_csr_free(&S->A);
    rvs_pmf_free(&S->pmf);
    rvs_partition_free(&S->partition);
    rvs_stream_drop_formats(S);
    for (int i = 0; i < S->nextra; i++)
        free(S->extra[i].data);
    free(S->extra);
    memset(S, 0, sizeof *S);
}
