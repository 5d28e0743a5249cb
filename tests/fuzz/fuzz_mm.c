/* fuzz_mm.c - libFuzzer target: the Matrix Market reader on any text, by buffer (cut into
 * blocks of 1..113 bytes and 1..8 chunks each: the result must not depend on the cut, and it
 * writes back as Matrix Market and reads the same), by
 * stdin (a FILE: the same result as the buffer), by mapped file, and gzip'd by the harness.
 * The first byte picks the path and the cut. */
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "fuzz_checks.h"
#include "mm_private.h"

/* A result must be a valid CSR; an error must say something. */
static void check_result(rvs_status st, const rvs_csr *A, const rvs_error *err)
{
    rvs_error e2;
    fuzz_check_error(st, err);
    if (st == RVS_OK && rvs_csr_validate(A, &e2) != RVS_OK)
        FUZZ_FINDING("the reader returned an invalid CSR: %s", e2.msg);
}

/* Parse an exact-size heap copy whole, in one chunk, and cut into blocks of about `block`
 * bytes of `chunks` chunks each; all must agree, and the matrix goes through Matrix Market
 * (written with the file's field) and back unchanged. */
static void by_buffer(const uint8_t *data, size_t size, int chunks, size_t block)
{
    char *buf = malloc(size ? size : 1);
    rvs_csr A, B;
    rvs_error ea, eb;
    rvs_mm_info info;
    memcpy(buf, data, size);
    rvs_status sa = mm_parse_cut(&A, &info, buf, size, 0, 1, &ea);
    rvs_status sb = mm_parse_cut(&B, NULL, buf, size, block, chunks, &eb);
    check_result(sa, &A, &ea);
    if (sa != sb || (sa != RVS_OK && strcmp(ea.msg, eb.msg) != 0))
        FUZZ_FINDING("1 chunk gives %d '%s', blocks of %zu bytes in %d chunks give %d '%s'", (int)sa,
                     sa ? ea.msg : "", block, chunks, (int)sb, sb ? eb.msg : "");
    if (sa == RVS_OK && !fuzz_same_csr(&A, &B))
        FUZZ_FINDING("1 chunk and blocks of %zu bytes in %d chunks give different matrices", block, chunks);
    if (sa == RVS_OK)
        fuzz_check_mm_csr(&A, info.field);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    free(buf);
}

/* 1 when data starts with the magic bytes of a compressed format the reader decodes (gzip,
 * bzip2, xz, zstd; libformat/mm_codec.c): such input is not text. */
static int compressed(const uint8_t *d, size_t n)
{
    return (n >= 2 && d[0] == 0x1f && d[1] == 0x8b) ||
           (n >= 4 && memcmp(d, "BZh", 3) == 0 && d[3] >= '1' && d[3] <= '9') ||
           (n >= 6 && memcmp(d,
                             "\xFD"
                             "7zXZ\0",
                             6) == 0) ||
           (n >= 4 && memcmp(d, "\x28\xB5\x2F\xFD", 4) == 0);
}

/* Read data as stdin would be read; text that is not compressed must read as it parses from a
 * buffer, the same matrix or the same message (the header is judged early on stdin). */
static void by_stream(const uint8_t *data, size_t size)
{
    rvs_csr A, B;
    rvs_error err, eb;
    FILE *f = fuzz_open(data, size);
    if (!f)
        abort();
    rvs_status st = rvs_mm_read_stream(&A, NULL, f, NULL, 0, NULL, NULL, &err);
    fclose(f);
    check_result(st, &A, &err);
    if (!compressed(data, size)) {
        char *buf = malloc(size ? size : 1);
        memcpy(buf, data, size);
        rvs_status sb = rvs_mm_parse(&B, NULL, buf, size, &eb);
        if (sb != st || (st != RVS_OK && strcmp(err.msg, eb.msg) != 0))
            FUZZ_FINDING("stdin gives %d '%s', a buffer %d '%s'", (int)st, st ? err.msg : "", (int)sb,
                         sb ? eb.msg : "");
        if (st == RVS_OK && !fuzz_same_csr(&A, &B))
            FUZZ_FINDING("stdin and a buffer give different matrices");
        rvs_csr_free(&B);
        free(buf);
    }
    rvs_csr_free(&A);
}

/* Read data as a mapped file (a memfd, named through /proc). */
static void by_file(const uint8_t *data, size_t size)
{
    char path[64];
    rvs_csr A;
    rvs_error err;
    int fd = memfd_create("fuzz_mm", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    rvs_status st = rvs_mm_read_file(&A, NULL, path, NULL, NULL, &err);
    close(fd);
    check_result(st, &A, &err);
    rvs_csr_free(&A);
}

/* gzip data here, then read it by stream: valid gzip around any text. */
static void by_gzip(const uint8_t *data, size_t size)
{
    z_stream z;
    uLong cap = compressBound((uLong)size) + 64;
    uint8_t *gz = malloc(cap);
    memset(&z, 0, sizeof z);
    if (!gz || deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 1, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    z.next_in = (uint8_t *)data;
    z.avail_in = (uInt)size;
    z.next_out = gz;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    by_stream(gz, z.total_out);
    deflateEnd(&z);
    free(gz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned mode = data[0];
    data++;
    size--;
    switch (mode & 3) {
    case 0: by_buffer(data, size, 1 + (int)(mode >> 5), (size_t)1 + ((mode >> 2) & 7) * 16); break;
    case 1: by_stream(data, size); break;
    case 2: by_file(data, size); break;
    default: by_gzip(data, size); break;
    }
    return 0;
}
