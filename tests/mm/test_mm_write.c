/* test_mm_write.c - the Matrix Market writer keeps what it knows: symmetry, field, digits, gzip;
 * and the mmhd chunk that carries a source file's banner through the stream */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include "rvs_test.h"

/* Write A with o into memory; returns the text (malloc'd) and fills *wrote. */
static char *write_mem(const rvs_csr *A, const rvs_mm_write_options *o, rvs_mm_info *wrote, size_t *len)
{
    rvs_error err;
    char *mem = NULL;
    FILE *f = open_memstream(&mem, len);
    CHECK_OK(rvs_mm_write(f, A, o, wrote, &err), &err);
    fclose(f);
    return mem;
}

/* Write A, check the banner words and entry count, read it back and compare. */
static void roundtrip(const rvs_csr *A, const rvs_mm_write_options *o, const char *field, const char *symmetry,
                      int64_t entries)
{
    rvs_mm_info wrote, read;
    rvs_error err;
    rvs_csr B;
    size_t len;
    char *mem = write_mem(A, o, &wrote, &len);
    CHECKF(strcmp(wrote.field, field) == 0 && strcmp(wrote.symmetry, symmetry) == 0, "wrote %s %s, want %s %s",
           wrote.field, wrote.symmetry, field, symmetry);
    CHECKF(wrote.entries == entries, "%lld entries, want %lld", (long long)wrote.entries, (long long)entries);
    char banner[128];
    snprintf(banner, sizeof banner, "%%%%MatrixMarket matrix coordinate %s %s\n", field, symmetry);
    CHECKF(strncmp(mem, banner, strlen(banner)) == 0, "banner '%.60s'", mem);
    CHECK_OK(rvs_mm_parse(&B, &read, mem, len, &err), &err);
    if (A->vtype == RVS_F32)
        CHECK_OK(rvs_csr_convert_values(&B, RVS_F32, &err), &err);
    CHECKF(rvs_test_csr_same(A, &B), "%s %s: read back differs", field, symmetry);
    rvs_csr_free(&B);
    free(mem);
}

/* S = A + A^T (bit-exact symmetric, diagonal kept) of a random n x n matrix. */
static void symmetric_of(rvs_csr *S, int64_t n, double density, unsigned seed, double mirror_sign)
{
    rvs_csr A;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, n, n, density, 1, seed), &err);
    int64_t m = 2 * A.nnz, k = 0;
    int64_t *ri = malloc((size_t)m * 8), *ci = malloc((size_t)m * 8);
    double *v = malloc((size_t)m * 8);
    for (int64_t r = 0; r < n; r++)
        for (int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; p++) {
            int64_t c = A.colind[p];
            if (c >= r && mirror_sign < 0)
                continue; /* skew: strictly lower, then mirrored negated */
            if (c > r)
                continue;
            ri[k] = r, ci[k] = c, v[k++] = ((double *)A.values)[p];
            if (c != r)
                ri[k] = c, ci[k] = r, v[k] = mirror_sign * v[k - 1], k++;
        }
    CHECK_OK(rvs_csr_from_coo(S, n, n, k, ri, ci, v, RVS_F64, &err), &err);
    free(ri);
    free(ci);
    free(v);
    rvs_csr_free(&A);
}

/* Entries on or below the diagonal (below only when strict). */
static int64_t lower_count(const rvs_csr *A, int strict)
{
    int64_t n = 0;
    for (int64_t r = 0; r < A->rows; r++)
        for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
            n += A->colind[p] < r || (!strict && A->colind[p] == r);
    return n;
}

/* Index of entry (r, c) of A, or -1. */
static int64_t find(const rvs_csr *A, int64_t r, int64_t c)
{
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
        if (A->colind[p] == c)
            return p;
    return -1;
}

static void test_symmetry(void)
{
    rvs_csr S, K, G;
    rvs_error err;
    rvs_mm_write_options o = {0};
    symmetric_of(&S, 300, 0.05, 11, 1.0);
    roundtrip(&S, &o, "real", "symmetric", lower_count(&S, 0));
    CHECK_OK(rvs_csr_convert_values(&S, RVS_F32, &err), &err);
    roundtrip(&S, &o, "real", "symmetric", lower_count(&S, 0));
    CHECK_OK(rvs_csr_convert_values(&S, RVS_F64, &err), &err);
    o.general = 1;
    roundtrip(&S, &o, "real", "general", S.nnz);
    o.general = 0;

    /* one ulp off on one side, or +0 against -0: not symmetric, written whole */
    int64_t p = -1, q = -1;
    for (int64_t r = 0; r < S.rows && q < 0; r++)
        for (int64_t k = S.rowptr[r]; k < S.rowptr[r + 1] && q < 0; k++)
            if (S.colind[k] < r)
                p = k, q = find(&S, S.colind[k], r);
    CHECK(q >= 0);
    double *v = S.values, keep = v[q];
    v[q] = nextafter(v[q], 2.0);
    roundtrip(&S, &o, "real", "general", S.nnz);
    v[p] = 0.0, v[q] = -0.0;
    roundtrip(&S, &o, "real", "general", S.nnz);
    v[q] = 0.0;
    roundtrip(&S, &o, "real", "symmetric", lower_count(&S, 0));
    (void)keep;

    /* skew-symmetric: mirrored negated, no diagonal; a stored diagonal (even 0) forbids it */
    symmetric_of(&K, 200, 0.05, 12, -1.0);
    roundtrip(&K, &o, "real", "skew-symmetric", lower_count(&K, 1));
    int64_t len[3] = {2, 2, 2};
    CHECK_OK(rvs_test_csr_from_lengths(&G, len, 3, 3), &err);
    roundtrip(&G, &o, "real", "general", 6);
    rvs_csr_free(&G);
    {
        int64_t ri[3] = {0, 1, 1}, ci[3] = {1, 0, 1};
        double vv[3] = {2.5, -2.5, 0.0};
        CHECK_OK(rvs_csr_from_coo(&G, 2, 2, 3, ri, ci, vv, RVS_F64, &err), &err);
        roundtrip(&G, &o, "real", "general", 3);
        rvs_csr_free(&G);
        CHECK_OK(rvs_csr_from_coo(&G, 2, 2, 2, ri, ci, vv, RVS_F64, &err), &err);
        roundtrip(&G, &o, "real", "skew-symmetric", 1);
        rvs_csr_free(&G);
    }
    /* rectangular: general */
    CHECK_OK(rvs_test_random_csr(&G, 30, 20, 0.2, 0, 13), &err);
    roundtrip(&G, &o, "real", "general", G.nnz);
    rvs_csr_free(&G);
    rvs_csr_free(&S);
    rvs_csr_free(&K);
}

static void test_field(void)
{
    rvs_csr A;
    rvs_error err;
    rvs_mm_write_options o = {0};
    symmetric_of(&A, 100, 0.1, 21, 1.0);
    double *v = A.values;
    for (int64_t k = 0; k < A.nnz; k++)
        v[k] = 1.0;
    o.field = "pattern";
    roundtrip(&A, &o, "pattern", "symmetric", lower_count(&A, 0));
    o.field = NULL;
    roundtrip(&A, &o, "real", "symmetric", lower_count(&A, 0));
    /* pattern asked, but a value is 2: integer; 0.5: real; 2^63: too wide for integer */
    for (int64_t k = 0; k < A.nnz; k++)
        v[k] = (double)(k % 7) - 3;
    o.field = "pattern";
    roundtrip(&A, &o, "integer", "general", A.nnz);
    o.field = "integer";
    roundtrip(&A, &o, "integer", "general", A.nnz);
    v[0] = 0.5;
    roundtrip(&A, &o, "real", "general", A.nnz);
    v[0] = 9223372036854775808.0;
    roundtrip(&A, &o, "real", "general", A.nnz);
    v[0] = -9223372036854774784.0; /* the largest double below 2^63 in magnitude */
    roundtrip(&A, &o, "integer", "general", A.nnz);
    rvs_csr_free(&A);
    (void)err;
}

static void test_digits(void)
{
    int64_t ri[4] = {0, 0, 1, 1}, ci[4] = {0, 1, 0, 1};
    double v[4] = {0.1, 0.123456789, 123456.0, 1.0 / 3.0};
    rvs_csr A;
    rvs_error err;
    size_t len;
    CHECK_OK(rvs_csr_from_coo(&A, 2, 2, 4, ri, ci, v, RVS_F64, &err), &err);
    rvs_mm_write_options o = {0};
    char *mem = write_mem(&A, &o, NULL, &len);
    CHECKF(strstr(mem, "1 1 0.1\n1 2 0.123456789\n2 1 123456\n2 2 0.3333333333333333\n") != NULL,
           "shortest digits: %s", mem);
    free(mem);
    o.digits = 3;
    mem = write_mem(&A, &o, NULL, &len);
    CHECKF(strstr(mem, "1 1 0.1\n1 2 0.123\n2 1 1.23e+05\n2 2 0.333\n") != NULL, "3 digits: %s", mem);
    free(mem);
    o.digits = 18;
    CHECK(rvs_mm_write(stdout, &A, &o, NULL, &err) == RVS_ERR_ARG);
    CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
    o.digits = 0;
    mem = write_mem(&A, &o, NULL, &len);
    CHECKF(strstr(mem, "1 1 0.1\n1 2 0.12345679\n2 1 123456\n2 2 0.33333334\n") != NULL, "f32 shortest digits: %s",
           mem);
    free(mem);
    rvs_csr_free(&A);

    /* NaN and Inf print as strtod reads them (rvs.5), and never make a field integer */
    {
        int64_t r2[3] = {0, 0, 1}, c2[3] = {0, 1, 0};
        double v2[3] = {INFINITY, -INFINITY, NAN};
        CHECK_OK(rvs_csr_from_coo(&A, 2, 2, 3, r2, c2, v2, RVS_F64, &err), &err);
        mem = write_mem(&A, &o, NULL, &len);
        CHECKF(strstr(mem, "general\n2 2 3\n1 1 inf\n1 2 -inf\n2 1 nan\n") != NULL, "non-finite: %s", mem);
        free(mem);
        o.field = "integer";
        roundtrip(&A, &o, "real", "general", 3);
        o.field = NULL;
        rvs_csr_free(&A);
    }

    /* random values of every magnitude read back bit for bit, f64 and f32 */
    CHECK_OK(rvs_test_random_csr(&A, 400, 300, 0.05, 1, 31), &err);
    double *x = A.values;
    for (int64_t k = 0; k < A.nnz; k++)
        x[k] = ldexp(x[k], (int)(k % 600) - 300);
    roundtrip(&A, &o, "real", "general", A.nnz);
    for (int64_t k = 0; k < A.nnz; k++)
        x[k] = ldexp(x[k], -((int)(k % 600) - 300) + (int)(k % 200) - 100);
    CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
    roundtrip(&A, &o, "real", "general", A.nnz);
    rvs_csr_free(&A);
}

static void test_gzip(void)
{
    rvs_csr A, B;
    rvs_error err;
    rvs_mm_info info;
    const char *dir = getenv("RVS_TMP");
    char path[1024];
    snprintf(path, sizeof path, "%s/mm_write_%d.mtx.gz", dir ? dir : "/tmp", (int)getpid());
    /* enough entries for several blocks, so several gzip members */
    symmetric_of(&A, 2000, 0.08, 41, 1.0);
    FILE *f = fopen(path, "wb");
    rvs_mm_write_options o = {NULL, 0, 0, 1};
    CHECK_OK(rvs_mm_write(f, &A, &o, NULL, &err), &err);
    fclose(f);
    f = fopen(path, "rb");
    unsigned char magic[2] = {0, 0};
    CHECK(fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
    fclose(f);
    CHECK_OK(rvs_mm_read_file(&B, &info, path, NULL, NULL, &err), &err);
    CHECK(rvs_test_csr_same(&A, &B) && strcmp(info.symmetry, "symmetric") == 0);
    CHECKF(lower_count(&A, 0) > (1 << 17), "only %lld entries: one block", (long long)lower_count(&A, 0));
    remove(path);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
}

static void test_source_chunk(void)
{
    rvs_stream S;
    rvs_error err;
    rvs_mm_info in = {.format = "coordinate", .field = "integer", .symmetry = "symmetric"}, out;
    memset(&S, 0, sizeof S);
    CHECK(!rvs_stream_mm_source(&S, &out));
    CHECK_OK(rvs_stream_set_mm_source(&S, &in, &err), &err);
    CHECK(S.nextra == 1 && memcmp(S.extra[0].type, "mmhd", 4) == 0);
    CHECK(S.extra[0].len == strlen("matrix coordinate integer symmetric") &&
          memcmp(S.extra[0].data, "matrix coordinate integer symmetric", S.extra[0].len) == 0);
    CHECK(rvs_stream_mm_source(&S, &out) && strcmp(out.field, "integer") == 0 &&
          strcmp(out.symmetry, "symmetric") == 0 && strcmp(out.format, "coordinate") == 0);
    snprintf(in.field, sizeof in.field, "pattern");
    CHECK_OK(rvs_stream_set_mm_source(&S, &in, &err), &err);
    CHECK(S.nextra == 1 && rvs_stream_mm_source(&S, &out) && strcmp(out.field, "pattern") == 0);
    snprintf(in.field, sizeof in.field, "quaternion");
    CHECK(rvs_stream_set_mm_source(&S, &in, &err) == RVS_ERR_ARG);
    const char *bad[] = {"matrix coordinate real",          "matrix coordinate real general ",
                         "matrix  coordinate real general", "vector coordinate real general",
                         "MATRIX coordinate real general",  ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECKF(!rvs_mm_source_parse(bad[i], strlen(bad[i]), &out), "accepted '%s'", bad[i]);
    CHECK(rvs_mm_source_parse("matrix array complex hermitian", 30, &out) && strcmp(out.format, "array") == 0);
    rvs_stream_free(&S);
}

int main(void)
{
    test_symmetry();
    test_field();
    test_digits();
    test_gzip();
    test_source_chunk();
    return rvs_test_done();
}
