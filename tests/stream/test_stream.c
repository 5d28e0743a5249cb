/* test_stream.c - the RVS container: round trips, every flipped byte, every cut, versions,
 * unknown chunks, huge claims under a low address-space limit. Helper modes for stream_pipe.sh:
 *   test_stream --insert-ancillary IN OUT   insert a known ancillary chunk before REND
 *   test_stream --has-ancillary FILE        exit 0 if FILE holds that chunk byte for byte */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "rvs_test.h"
#include "stream_layout.h"

/* A growing byte buffer. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} bytes;

/* Append n bytes to b. */
static void put(bytes *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

/* Append a whole chunk: type, length, payload, CRC-32C. */
static void put_chunk(bytes *b, const char *type, const void *payload, uint64_t len)
{
    uint8_t h[12], c[4];
    memcpy(h, type, 4);
    rvs_put64(h + 4, len);
    put(b, h, 12);
    put(b, payload, len);
    rvs_put32(c, rvs_crc32c(rvs_crc32c(0, h, 12), payload, len));
    put(b, c, 4);
}

/* Write S into a fresh buffer. */
static bytes to_bytes(const rvs_stream *S)
{
    bytes b = {0};
    size_t n = 0;
    char *p = NULL;
    rvs_error e;
    FILE *f = open_memstream(&p, &n);
    rvs_status st = rvs_stream_write(f, S, &e);
    CHECK_OK(st, &e);
    fclose(f);
    put(&b, p, n);
    free(p);
    return b;
}

/* Read a stream from n bytes of memory. */
static rvs_status from_bytes(const uint8_t *p, size_t n, rvs_stream *S, rvs_error *e)
{
    FILE *f = n ? fmemopen((void *)p, n, "rb") : fopen("/dev/null", "rb");
    rvs_status st = rvs_stream_read(S, f, NULL, 0, e);
    fclose(f);
    return st;
}

/* Offsets of the chunks of a well-formed stream (the last entry is the end of REND). */
static int chunk_offsets(const bytes *b, size_t *off, int max)
{
    int n = 0;
    size_t at = RVS_PRELUDE_LEN;
    while (at + 12 <= b->n && n < max - 1) {
        off[n++] = at;
        int end = memcmp(b->p + at, "REND", 4) == 0;
        at += 12 + rvs_le64(b->p + at + 4) + 4;
        if (end)
            break;
    }
    off[n] = at;
    return n;
}

/* Insert chunk bytes c before REND and fix REND's count and CRC. */
static bytes insert_before_end(const bytes *in, const bytes *c)
{
    size_t off[256];
    int n = chunk_offsets(in, off, 256);
    bytes out = {0};
    uint8_t count[8];
    put(&out, in->p, off[n - 1]);
    put(&out, c->p, c->n);
    rvs_put64(count, rvs_le64(in->p + off[n - 1] + 12) + 1);
    put_chunk(&out, "REND", count, 8);
    return out;
}

/* The ancillary chunk the pipe test looks for. */
static bytes test_ancillary(void)
{
    static const uint8_t payload[] = "kept by rvs_stream_read\r\n\x00\x1a\xff\x89 and written again";
    bytes c = {0};
    put_chunk(&c, "teSt", payload, sizeof payload);
    return c;
}

/* Equality of two streams' contents. */
static int same_stream(const rvs_stream *a, const rvs_stream *b)
{
    const rvs_csr *A = &a->A, *B = &b->A;
    size_t vs = rvs_vtype_size(A->vtype);
    if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz || A->vtype != B->vtype ||
        memcmp(A->rowptr, B->rowptr, 8 * (size_t)(A->rows + 1)) ||
        memcmp(A->colind, B->colind, 4 * (size_t)A->nnz) || memcmp(A->values, B->values, vs * (size_t)A->nnz) ||
        strcmp(a->name, b->name) || a->has_pmf != b->has_pmf || a->has_partition != b->has_partition ||
        a->nfmt != b->nfmt || a->nextra != b->nextra)
        return 0;
    if (a->has_pmf && (a->pmf.nbins != b->pmf.nbins || a->pmf.max != b->pmf.max ||
                       memcmp(a->pmf.b, b->pmf.b, 8 * (size_t)a->pmf.nbins) || a->pmf.mean != b->pmf.mean))
        return 0;
    if (a->has_partition) {
        const rvs_partition *P = &a->partition, *Q = &b->partition;
        if (P->alg != Q->alg || P->k != Q->k || P->nnz != Q->nnz || P->mean_density != Q->mean_density)
            return 0;
        for (int i = 0; i < P->k; i++)
            if (P->parts[i].nrows != Q->parts[i].nrows || P->parts[i].cp != Q->parts[i].cp ||
                P->parts[i].device != Q->parts[i].device || P->parts[i].nnz != Q->parts[i].nnz ||
                memcmp(P->parts[i].rows, Q->parts[i].rows, 8 * (size_t)P->parts[i].nrows))
                return 0;
    }
    for (int i = 0; i < a->nfmt; i++) {
        const rvs_fmt *F = &a->fmt[i].fmt, *G = &b->fmt[i].fmt;
        if (a->fmt[i].part != b->fmt[i].part || F->id != G->id || F->rows != G->rows || F->nnz != G->nnz ||
            memcmp(F->param, G->param, sizeof F->param) || F->narrays != G->narrays)
            return 0;
        for (int j = 0; j < F->narrays; j++)
            if (strcmp(F->array[j].name, G->array[j].name) || F->array[j].dtype != G->array[j].dtype ||
                F->array[j].count != G->array[j].count ||
                memcmp(F->array[j].data, G->array[j].data,
                       rvs_dtype_size(F->array[j].dtype) * (size_t)F->array[j].count))
                return 0;
    }
    return 1;
}

/* A stream with everything: matrix, PMF, partition (pmf, CP 1,2,6), a CSR block of the whole
 * matrix and an ELL block of part 1. */
static void make_stream(rvs_stream *S, int64_t rows, int64_t cols, double density, rvs_vtype vt, unsigned seed)
{
    static const double cp[3] = {1, 2, 6};
    rvs_error e;
    rvs_csr part = {0};
    memset(S, 0, sizeof *S);
    snprintf(S->name, sizeof S->name, "random-%lldx%lld.mtx", (long long)rows, (long long)cols);
    CHECK_OK(rvs_test_random_csr(&S->A, rows, cols, density, 1, seed), &e);
    if (vt == RVS_F32)
        CHECK_OK(rvs_csr_convert_values(&S->A, RVS_F32, &e), &e);
    CHECK_OK(rvs_pmf_compute(&S->pmf, &S->A, &e), &e);
    S->has_pmf = 1;
    CHECK_OK(rvs_partition_compute(&S->partition, &S->A, RVS_ALG_PMF, 3, cp, NULL, 0, &e), &e);
    S->has_partition = 1;
    S->fmt = calloc(2, sizeof *S->fmt);
    S->nfmt = 2;
    S->fmt[0].part = -1;
    CHECK_OK(rvs_fmt_from_csr(&S->fmt[0].fmt, RVS_FMT_CSR, &S->A, NULL, &e), &e);
    S->fmt[1].part = 1;
    CHECK_OK(rvs_partition_extract(&part, &S->partition, 1, &S->A, &e), &e);
    CHECK_OK(rvs_fmt_from_csr(&S->fmt[1].fmt, RVS_FMT_ELL, &part, NULL, &e), &e);
    rvs_csr_free(&part);
}

/* CRC-32C: the standard check value and agreement with a bitwise reference at any split. */
static void test_crc(void)
{
    CHECK(rvs_crc32c(0, "123456789", 9) == 0xE3069283u);
    size_t n = 200000;
    uint8_t *buf = malloc(n);
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);
    for (size_t len = 0; len < n; len = len * 3 + 7) {
        uint32_t ref = ~0u;
        for (size_t i = 0; i < len; i++) {
            ref ^= buf[i + 1];
            for (int j = 0; j < 8; j++)
                ref = (ref >> 1) ^ ((ref & 1) ? 0x82F63B78u : 0);
        }
        ref = ~ref;
        size_t cut = len / 3;
        CHECKF(rvs_crc32c(0, buf + 1, len) == ref, "len %zu", len);
        CHECKF(rvs_crc32c(rvs_crc32c(0, buf + 1, cut), buf + 1 + cut, len - cut) == ref, "split len %zu", len);
    }
    free(buf);
}

/* Write, read, compare, write again byte-identically; also with the magic as a prefix. */
static void test_round_trip(rvs_vtype vt)
{
    rvs_stream S, R, P;
    rvs_error e;
    make_stream(&S, 500, 300, 0.03, vt, 7);
    bytes b = to_bytes(&S);
    CHECK_OK(from_bytes(b.p, b.n, &R, &e), &e);
    CHECK(same_stream(&S, &R));
    bytes b2 = to_bytes(&R);
    CHECK(b2.n == b.n && memcmp(b.p, b2.p, b.n) == 0);
    FILE *f = fmemopen(b.p + RVS_MAGIC_LEN, b.n - RVS_MAGIC_LEN, "rb");
    CHECK_OK(rvs_stream_read(&P, f, b.p, RVS_MAGIC_LEN, &e), &e);
    fclose(f);
    CHECK(same_stream(&S, &P));
    rvs_stream_free(&S);
    rvs_stream_free(&R);
    rvs_stream_free(&P);
    CHECK(R.A.rowptr == NULL && R.nfmt == 0);
    free(b.p);
    free(b2.p);
}

/* Every single-byte change of a small stream is an error, never a success or a crash. */
static void test_flip_every_byte(void)
{
    rvs_stream S, R;
    rvs_error e;
    int crc = 0, other = 0;
    make_stream(&S, 14, 11, 0.3, RVS_F64, 3);
    bytes b = to_bytes(&S);
    for (size_t i = 0; i < b.n; i++)
        for (int m = 0; m < 2; m++) {
            uint8_t mask = m ? 0xff : 0x01;
            b.p[i] ^= mask;
            rvs_status st = from_bytes(b.p, b.n, &R, &e);
            b.p[i] ^= mask;
            CHECKF(st != RVS_OK, "flip 0x%02x at byte %zu of %zu accepted", mask, i, b.n);
            CHECKF(R.A.rowptr == NULL && R.nextra == 0, "flip at %zu: stream not zeroed", i);
            if (i < RVS_MAGIC_LEN)
                CHECKF(st == RVS_ERR_FORMAT && strstr(e.msg, "not an RVS stream"), "magic byte %zu: %s", i, e.msg);
            crc += st == RVS_ERR_CRC;
            other += st != RVS_ERR_CRC;
            CHECKF(st == RVS_ERR_CRC || st == RVS_ERR_FORMAT || st == RVS_ERR_TRUNCATED ||
                       st == RVS_ERR_UNSUPPORTED || st == RVS_ERR_VERSION,
                   "flip at %zu: status %d %s", i, (int)st, e.msg);
        }
    printf("flipped bytes: %d CRC errors, %d other errors, stream of %zu bytes\n", crc, other, b.n);
    CHECK(crc > other);
    rvs_stream_free(&S);
    free(b.p);
}

/* Every cut of a stream is RVS_ERR_TRUNCATED; at a chunk boundary it names the missing end. */
static void test_truncation(void)
{
    rvs_stream S, R;
    rvs_error e;
    size_t off[64];
    make_stream(&S, 14, 11, 0.3, RVS_F32, 4);
    bytes b = to_bytes(&S);
    int n = chunk_offsets(&b, off, 64);
    CHECK(off[n] == b.n);
    for (size_t cut = 0; cut < b.n; cut++) {
        rvs_status st = from_bytes(b.p, cut, &R, &e);
        CHECKF(st == RVS_ERR_TRUNCATED, "cut at %zu: status %d %s", cut, (int)st, e.msg);
    }
    for (int i = 0; i < n; i++) {
        rvs_status st = from_bytes(b.p, off[i], &R, &e);
        CHECKF(st == RVS_ERR_TRUNCATED && strstr(e.msg, "without an end chunk"), "cut at chunk %d: %s", i, e.msg);
    }
    rvs_stream_free(&S);
    free(b.p);
}

/* A higher major is refused with its number; a higher minor is read. */
static void test_versions(void)
{
    rvs_stream S, R;
    rvs_error e;
    make_stream(&S, 20, 20, 0.2, RVS_F64, 5);
    bytes b = to_bytes(&S);
    b.p[8] = 2;
    b.p[10] = 0;
    rvs_put32(b.p + 12, rvs_crc32c(0, b.p, 12));
    CHECK(from_bytes(b.p, b.n, &R, &e) == RVS_ERR_VERSION);
    CHECKF(strstr(e.msg, "stream version 2.0 is newer than this reader (1.x)") != NULL, "%s", e.msg);
    b.p[8] = 1;
    b.p[10] = 7;
    rvs_put32(b.p + 12, rvs_crc32c(0, b.p, 12));
    CHECK_OK(from_bytes(b.p, b.n, &R, &e), &e);
    rvs_stream_free(&R);
    b.p[10] = 0;
    b.p[3] = 'X';
    CHECK(from_bytes(b.p, b.n, &R, &e) == RVS_ERR_FORMAT && strstr(e.msg, "not an RVS stream"));
    memcpy(b.p, "\x89RVS\n\x1a\n", 7); /* CR LF turned into LF by a text-mode copy */
    CHECK(from_bytes(b.p, b.n - 1, &R, &e) == RVS_ERR_FORMAT && strstr(e.msg, "text-mode"));
    rvs_stream_free(&S);
    free(b.p);
}

/* Unknown ancillary chunks pass through byte for byte; unknown critical ones are refused. */
static void test_unknown_chunks(void)
{
    rvs_stream S, R;
    rvs_error e;
    make_stream(&S, 30, 25, 0.1, RVS_F64, 6);
    bytes b = to_bytes(&S), anc = test_ancillary(), crit = {0};
    bytes with = insert_before_end(&b, &anc);
    CHECK_OK(from_bytes(with.p, with.n, &R, &e), &e);
    CHECK(R.nextra == 1 && memcmp(R.extra[0].type, "teSt", 4) == 0);
    bytes again = to_bytes(&R);
    CHECK(again.n == with.n && memcmp(again.p, with.p, with.n) == 0);
    rvs_stream_free(&R);
    put_chunk(&crit, "XtRa", "abc", 3);
    bytes bad = insert_before_end(&b, &crit);
    CHECK(from_bytes(bad.p, bad.n, &R, &e) == RVS_ERR_UNSUPPORTED);
    CHECKF(strcmp(e.msg, "unknown critical chunk 'XtRa'") == 0, "%s", e.msg);
    rvs_stream_free(&S);
    free(b.p), free(anc.p), free(crit.p), free(with.p), free(again.p), free(bad.p);
}

/* Content that passes every CRC but breaks the rules is RVS_ERR_FORMAT, naming the culprit. */
static void test_bad_content(void)
{
    rvs_stream S, R;
    rvs_error e;
    bytes b;
    make_stream(&S, 40, 30, 0.1, RVS_F64, 8);
    struct {
        const char *what;
        int64_t *where;
        int64_t delta;
        const char *msg;
    } cases[] = {
        {"rowptr", &S.A.rowptr[5], 1000, "matrix arrays"},
        {"part row", &S.partition.parts[0].rows[0], 100000, "PART"},
        {"pmf bin", &S.pmf.b[0], 1, "pmfs"},
        {"fmt nnz", &S.fmt[0].fmt.nnz, 1, "FMTB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        *cases[i].where += cases[i].delta;
        b = to_bytes(&S);
        *cases[i].where -= cases[i].delta;
        rvs_status st = from_bytes(b.p, b.n, &R, &e);
        CHECKF(st == RVS_ERR_FORMAT && strstr(e.msg, cases[i].msg), "%s: %d %s", cases[i].what, (int)st, e.msg);
        free(b.p);
    }
    S.A.colind[0] = (int32_t)S.A.cols;
    b = to_bytes(&S);
    CHECKF(from_bytes(b.p, b.n, &R, &e) == RVS_ERR_FORMAT, "column out of range: %s", e.msg);
    free(b.p);
    S.A.colind[0] = 0;
    int32_t *fc = (int32_t *)rvs_fmt_array(&S.fmt[0].fmt, "colind")->data;
    int32_t keep = fc[0];
    fc[0] = -3;
    b = to_bytes(&S);
    CHECKF(from_bytes(b.p, b.n, &R, &e) == RVS_ERR_FORMAT && strstr(e.msg, "format block"), "fmt colind: %s",
           e.msg);
    free(b.p);
    fc[0] = keep;
    S.fmt[1].part = 1;
    S.has_partition = 0; /* a part's block without a partition */
    b = to_bytes(&S);
    CHECKF(from_bytes(b.p, b.n, &R, &e) == RVS_ERR_FORMAT && strstr(e.msg, "part"), "no partition: %s", e.msg);
    free(b.p);
    S.has_partition = 1;
    rvs_stream_free(&S);
}

/* A hand-built stream: prelude, MHDR (rows x cols, nnz), rowptr of zeros, then a colind
 * ARRY head claiming count elements and payload_len bytes, followed by real bytes. */
static bytes claim_stream(int64_t rows, int64_t cols, int64_t nnz, uint64_t count, size_t real_bytes)
{
    bytes b = {0};
    uint8_t pre[16], m[36] = {0}, h[12], a[24] = "colind", crc[4] = {0};
    memcpy(pre, rvs_magic, 8);
    rvs_put32(pre + 8, 1);
    rvs_put32(pre + 12, rvs_crc32c(0, pre, 12));
    put(&b, pre, 16);
    rvs_put64(m, (uint64_t)rows);
    rvs_put64(m + 8, (uint64_t)cols);
    rvs_put64(m + 16, (uint64_t)nnz);
    rvs_put32(m + 24, RVS_F64);
    rvs_put32(m + 28, 4);
    put_chunk(&b, "MHDR", m, 36);
    size_t rp = 24 + 8 * (size_t)(rows + 1);
    uint8_t *r = calloc(1, rp);
    memcpy(r, "rowptr", 6);
    rvs_put32(r + 8, RVS_DT_I64);
    rvs_put64(r + 16, (uint64_t)rows + 1);
    put_chunk(&b, "ARRY", r, rp);
    free(r);
    memcpy(h, "ARRY", 4);
    rvs_put64(h + 4, 24 + count * 4);
    put(&b, h, 12);
    rvs_put32(a + 8, RVS_DT_I32);
    rvs_put64(a + 16, count);
    put(&b, a, 24);
    for (size_t i = 0; i < real_bytes; i += 4)
        put(&b, crc, 4);
    return b;
}

/* Huge claims are refused (or run out of data) without allocating what they claim: proven
 * under an address-space limit far below the claims. */
static void test_huge_claims(void)
{
    rvs_stream R;
    rvs_error e;
    struct rlimit old, low;
    bytes lie = claim_stream(4, 10, 40, (uint64_t)1 << 60, 64);
    bytes big = claim_stream(1 << 17, 1 << 17, (int64_t)1 << 34, (uint64_t)1 << 34, 3 << 20);
    getrlimit(RLIMIT_AS, &old);
    low = old;
    low.rlim_cur = (rlim_t)1 << 30;            /* 1 GiB: the second claim is 64 GiB */
    const char *san = getenv("RVS_SANITIZED"); /* ASan's shadow needs terabytes of address space */
    if ((!san || strcmp(san, "ON") != 0) && setrlimit(RLIMIT_AS, &low) != 0)
        fprintf(stderr, "note: could not lower RLIMIT_AS\n");
    rvs_status st1 = from_bytes(lie.p, lie.n, &R, &e);
    char msg1[256];
    memcpy(msg1, e.msg, sizeof msg1);
    rvs_status st2 = from_bytes(big.p, big.n, &R, &e);
    setrlimit(RLIMIT_AS, &old);
    CHECK(st1 == RVS_ERR_FORMAT);
    CHECKF(strstr(msg1, "array 'colind' claims 1152921504606846976 elements, matrix has nnz 40") != NULL, "%s",
           msg1);
    CHECKF(st2 == RVS_ERR_TRUNCATED, "64 GiB claim with 3 MiB of data: %d %s", (int)st2, e.msg);
    free(lie.p);
    free(big.p);
}

/* --insert-ancillary IN OUT and --has-ancillary FILE for stream_pipe.sh. */
static int helper_mode(int argc, char **argv)
{
    bytes in = {0}, anc = test_ancillary();
    uint8_t buf[65536];
    size_t n;
    int rc = 1;
    FILE *f = fopen(argv[2], "rb");
    if (!f)
        return 2;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        put(&in, buf, n);
    fclose(f);
    if (strcmp(argv[1], "--insert-ancillary") == 0 && argc == 4) {
        bytes out = insert_before_end(&in, &anc);
        f = fopen(argv[3], "wb");
        rc = !(f && fwrite(out.p, 1, out.n, f) == out.n && fclose(f) == 0);
        free(out.p);
    } else if (strcmp(argv[1], "--has-ancillary") == 0) {
        rc = 1;
        for (size_t i = 0; rc && i + anc.n <= in.n; i++)
            rc = memcmp(in.p + i, anc.p, anc.n) != 0;
    }
    free(in.p);
    free(anc.p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 3)
        return helper_mode(argc, argv);
    test_crc();
    test_round_trip(RVS_F64);
    test_round_trip(RVS_F32);
    test_flip_every_byte();
    test_truncation();
    test_versions();
    test_unknown_chunks();
    test_bad_content();
    test_huge_claims();
    return rvs_test_done();
}
