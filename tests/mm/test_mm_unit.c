/* test_mm_unit.c - Matrix Market parser and writer on small in-memory cases with known CSR */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "rvs_test.h"

/* Parse text and compare with the expected CSR (rowptr, cols 0-based, values). */
static void expect_csr(const char *what, const char *text, int64_t rows, int64_t cols, const int64_t *rowptr,
                       const int64_t *col, const double *val)
{
    rvs_csr A;
    rvs_error err;
    rvs_error_clear(&err);
    rvs_status st = rvs_mm_parse(&A, NULL, text, strlen(text), &err);
    CHECKF(st == RVS_OK, "%s: status %d: %s", what, (int)st, err.msg);
    if (st != RVS_OK)
        return;
    CHECKF(A.rows == rows && A.cols == cols, "%s: %lld x %lld", what, (long long)A.rows, (long long)A.cols);
    CHECKF(A.nnz == rowptr[rows], "%s: nnz %lld, want %lld", what, (long long)A.nnz, (long long)rowptr[rows]);
    CHECK(rvs_csr_validate(&A, &err) == RVS_OK);
    if (A.rows == rows && A.nnz == rowptr[rows]) {
        for (int64_t r = 0; r <= rows; r++)
            CHECKF(A.rowptr[r] == rowptr[r], "%s: rowptr[%lld] = %lld, want %lld", what, (long long)r,
                   (long long)A.rowptr[r], (long long)rowptr[r]);
        for (int64_t k = 0; k < A.nnz; k++) {
            CHECKF(rvs_csr_col(&A, k) == col[k], "%s: col[%lld] = %lld, want %lld", what, (long long)k,
                   (long long)rvs_csr_col(&A, k), (long long)col[k]);
            CHECKF(rvs_csr_value(&A, k) == val[k] && signbit(rvs_csr_value(&A, k)) == signbit(val[k]),
                   "%s: value[%lld] = %.17g, want %.17g", what, (long long)k, rvs_csr_value(&A, k), val[k]);
        }
    }
    rvs_csr_free(&A);
}

/* Parse text and expect failure with status want and a message containing needle. */
static void expect_error(const char *what, const char *text, rvs_status want, const char *needle)
{
    rvs_csr A;
    rvs_error err;
    rvs_error_clear(&err);
    rvs_status st = rvs_mm_parse(&A, NULL, text, strlen(text), &err);
    CHECKF(st == want, "%s: status %d, want %d (%s)", what, (int)st, (int)want, err.msg);
    CHECKF(strstr(err.msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, err.msg, needle);
    CHECK(A.rowptr == NULL && A.nnz == 0);
    if (st == RVS_OK)
        rvs_csr_free(&A);
}

static void test_fields(void)
{
    /* [1 0 2; 0 0 3] as real, integer, pattern, with mixed case banner, comments, blanks, CRLF */
    static const int64_t rp[] = {0, 2, 3}, ci[] = {0, 2, 2};
    static const double v[] = {1.5, -2e-3, 3.25}, vi[] = {1, -7, 30}, ones[] = {1, 1, 1};
    expect_csr("real",
               "%%MatrixMarket matrix coordinate real general\n% c\n\n2 3 3\n"
               "1 1 1.5\n% mid comment\n\n2 3 3.25\r\n  1 3 -2e-3  \n",
               2, 3, rp, ci, v);
    expect_csr("integer",
               "%%matrixmarket MATRIX Coordinate INTEGER General\r\n2 3 3\r\n"
               "2 3 30\r\n1 3 -7\r\n1 1 1\r\n",
               2, 3, rp, ci, vi);
    expect_csr("pattern", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 3\n1 1", 2, 3, rp, ci,
               ones);
}

static void test_symmetry(void)
{
    /* symmetric [4 1 0; 1 0 2; 0 2 5]: lower triangle stored */
    static const int64_t rp[] = {0, 2, 4, 6}, ci[] = {0, 1, 0, 2, 1, 2};
    static const double v[] = {4, 1, 1, 2, 2, 5};
    expect_csr("symmetric",
               "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n"
               "1 1 4\n2 1 1\n3 2 2\n3 3 5\n",
               3, 3, rp, ci, v);
    static const double ones[] = {1, 1, 1, 1, 1, 1};
    expect_csr("pattern symmetric",
               "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n"
               "1 1\n2 1\n3 2\n3 3\n",
               3, 3, rp, ci, ones);
    /* skew [0 -1 0; 1 0 -2; 0 2 0] from (2,1,1) (3,2,2) */
    static const int64_t srp[] = {0, 1, 3, 4}, sci[] = {1, 0, 2, 1};
    static const double sv[] = {-1, 1, -2, 2};
    expect_csr("skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n3 2 2\n", 3, 3, srp,
               sci, sv);
    expect_csr("integer skew",
               "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n"
               "2 1 1\n3 2 2\n",
               3, 3, srp, sci, sv);
    /* a diagonal entry in a skew-symmetric file is kept as read, as scipy and
     * fast_matrix_market keep it (peer_cases.txt has more) */
    static const int64_t drp[] = {0, 1, 3, 5}, dci[] = {1, 0, 2, 1, 2};
    static const double dv[] = {-1, 1, -2, 2, 5};
    expect_csr("skew diagonal",
               "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n"
               "2 1 1\n3 3 5\n3 2 2\n",
               3, 3, drp, dci, dv);
}

static void test_duplicates_zeros(void)
{
    /* duplicates summed (also across the diagonal mirror), explicit zero kept */
    static const int64_t rp[] = {0, 2, 3}, ci[] = {0, 1, 1};
    static const double v[] = {3, 0, -0.0};
    expect_csr("duplicates",
               "%%MatrixMarket matrix coordinate real general\n2 2 4\n"
               "1 1 1\n1 2 0\n1 1 2\n2 2 -0\n",
               2, 2, rp, ci, v);
}

static void test_array(void)
{
    /* general [1 0; 0 4; 3 0] column-major: zeros are not stored */
    static const int64_t rp[] = {0, 1, 2, 3}, ci[] = {0, 1, 0};
    static const double v[] = {1, 4, 3};
    expect_csr("array", "%%MatrixMarket matrix array real general\n% c\n3 2\n1\n0\n3\n0\n4\n0\n", 3, 2, rp, ci, v);
    /* symmetric [1 2 0; 2 0 5; 0 5 6]: lower triangle column-major 1 2 0 | 0 5 | 6 */
    static const int64_t srp[] = {0, 2, 4, 6}, sci[] = {0, 1, 0, 2, 1, 2};
    static const double sv[] = {1, 2, 2, 5, 5, 6};
    expect_csr("array symmetric", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n0\n0\n5\n6\n", 3, 3, srp,
               sci, sv);
    /* skew [0 -2 -3; 2 0 -5; 3 5 0]: strictly lower, column-major 2 3 | 5 */
    static const int64_t krp[] = {0, 2, 4, 6}, kci[] = {1, 2, 0, 2, 0, 1};
    static const double kv[] = {-2, -3, 2, -5, 3, 5};
    expect_csr("array skew", "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n2\n3\n5\n", 3, 3, krp, kci,
               kv);
    expect_error("array short", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", RVS_ERR_FORMAT,
                 "declares 4 entries, file has 3");
    expect_error("array overflow", "%%MatrixMarket matrix array real general\n3 4000000000000000000\n1\n",
                 RVS_ERR_OVERFLOW, "overflows");
}

static void test_errors(void)
{
    const char *b = "%%MatrixMarket matrix coordinate real general\n";
    char text[512];
    expect_error("empty", "", RVS_ERR_EMPTY, "empty file");
    expect_error("blank", " \n\n", RVS_ERR_EMPTY, "empty file");
    expect_error("no banner", "3 3 1\n1 1 1\n", RVS_ERR_FORMAT, "line 1: missing banner");
    expect_error("bad format", "%%MatrixMarket matrix coordinat real general\n1 1 0\n", RVS_ERR_FORMAT,
                 "unknown format");
    expect_error("complex one value", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1\n",
                 RVS_ERR_FORMAT, "line 3: missing imaginary part");
    expect_error("hermitian real", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", RVS_ERR_FORMAT,
                 "line 1: hermitian needs the complex field, not real");
    snprintf(text, sizeof text, "%s%% c\n3 3\n", b);
    expect_error("size line", text, RVS_ERR_FORMAT, "line 3: size line");
    snprintf(text, sizeof text, "%s3 x 3\n", b);
    expect_error("size junk", text, RVS_ERR_FORMAT, "line 2: bad size 'x'");
    snprintf(text, sizeof text, "%s", b);
    expect_error("no size", text, RVS_ERR_FORMAT, "missing size line");
    snprintf(text, sizeof text, "%s99999999999999999999 3 1\n1 1 1\n", b);
    expect_error("size overflow", text, RVS_ERR_OVERFLOW, "overflows 64 bits");
    snprintf(text, sizeof text, "%s1000000000000 1000000000000 3\n1 1 1\n2 2 2\n3 3 3\n", b);
    expect_error("huge rows", text, RVS_ERR_OVERFLOW, "1000000000000 rows need 16.0 TB, more than the ");
    snprintf(text, sizeof text, "%s5 5 1000000000000000\n1 1 1\n2 2 2\n3 3 3\n", b);
    expect_error("huge count", text, RVS_ERR_FORMAT, "declares 1000000000000000 entries, file has 3");
    snprintf(text, sizeof text, "%s%%\n%%\n5 5 4\n1 1 1\n\n2 2 1\n0 3 1\n", b);
    expect_error("row 0", text, RVS_ERR_FORMAT, "declares 4 entries, file has 3");
    snprintf(text, sizeof text, "%s%%\n5 5 3\n1 1 1\n\n2 2 1\n0 3 1\n", b);
    expect_error("row 0", text, RVS_ERR_RANGE, "line 7: row index 0 out of range 1..5");
    snprintf(text, sizeof text, "%s5 4 2\n1 1 1\n2 5 1\n", b);
    expect_error("col 5", text, RVS_ERR_RANGE, "line 4: column index 5 out of range 1..4");
    snprintf(text, sizeof text, "%s5 4 2\n1 1 1\n2 -1 1\n", b);
    expect_error("col -1", text, RVS_ERR_RANGE, "line 4: column index -1 out of range 1..4");
    snprintf(text, sizeof text, "%s5 5 10\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n5 5 1\n1 2 1\n1 3 1\n1 4 1\n1 5 1\n", b);
    expect_error("fewer", text, RVS_ERR_FORMAT, "declares 10 entries, file has 9");
    snprintf(text, sizeof text, "%s5 5 1\n1 1 1\n2 2 1\n", b);
    expect_error("more", text, RVS_ERR_FORMAT, "declares 1 entries, file has 2");
    snprintf(text, sizeof text, "%s5 5 2\n1 1 1\n2 2 abc\n", b);
    expect_error("non-numeric", text, RVS_ERR_FORMAT, "line 4: value 'abc' is not a number");
    snprintf(text, sizeof text, "%s5 5 2\n1 1 1\n2 2 1.5x\n", b);
    expect_error("junk value", text, RVS_ERR_FORMAT, "line 4: value '1.5x' is not a number");
    snprintf(text, sizeof text, "%s5 5 2\n1 1 1\n2 2 1 7\n", b);
    expect_error("trailing", text, RVS_ERR_FORMAT, "line 4: unexpected text '7'");
    snprintf(text, sizeof text, "%s5 5 2\n1 1 1\n2 2\n", b);
    expect_error("missing value", text, RVS_ERR_FORMAT, "line 4: missing value");
    snprintf(text, sizeof text, "%s5 5 2\n1 1 nan\n2 2 1e999x\n", b);
    expect_error("junk after an overflowing value", text, RVS_ERR_FORMAT, "line 4: value '1e999x' is not a number");
    expect_error("integer field", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
                 RVS_ERR_FORMAT, "line 3: value '1.5' is not an integer");
    expect_error("pattern extra", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n",
                 RVS_ERR_FORMAT, "line 3: unexpected text '1'");
    expect_error("symmetric not square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", RVS_ERR_FORMAT,
                 "must be square");
}

/* Many lines, so the parser cuts several chunks: the first error line must be exact. */
static void test_parallel_lines(void)
{
    int64_t n = 200000;
    size_t cap = (size_t)n * 32 + 256;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text)
        return;
    size_t len = (size_t)snprintf(text, cap,
                                  "%%%%MatrixMarket matrix coordinate real general\n"
                                  "%lld %lld %lld\n",
                                  (long long)n, (long long)n, (long long)n);
    for (int64_t i = 0; i < n; i++) {
        if (i % 1000 == 0)
            len += (size_t)snprintf(text + len, cap - len, "%% comment %lld\n", (long long)i);
        len += (size_t)snprintf(text + len, cap - len, "%lld %lld %lld.25\n", (long long)i + 1, (long long)(n - i),
                                (long long)i);
    }
    rvs_csr A;
    rvs_error err;
    rvs_status st = rvs_mm_parse(&A, NULL, text, len, &err);
    CHECK_OK(st, &err);
    if (st == RVS_OK) {
        int ok = A.nnz == n;
        for (int64_t r = 0; ok && r < n; r++)
            ok = A.rowptr[r] == r && rvs_csr_col(&A, r) == n - 1 - r && rvs_csr_value(&A, r) == r + 0.25;
        CHECK(ok);
        rvs_csr_free(&A);
    }
    /* break entry 150000 (0-based): its line is 2 + 151 comments + 150000 + 1 */
    char *bad = strstr(text, "\n150001 ");
    CHECK(bad != NULL);
    if (bad) {
        bad[1] = '9';
        st = rvs_mm_parse(&A, NULL, text, len, &err);
        CHECK(st == RVS_ERR_RANGE);
        CHECKF(strstr(err.msg, "line 150154: row index 950001 out of range 1..200000") != NULL, "%s", err.msg);
    }
    free(text);
}

/* Values in many spellings parse exactly as strtod does (the fast paths must not round
 * differently): random doubles at several precisions, random digit strings, halfway cases. */
static void test_value_parsing(void)
{
    const int64_t n = 300000;
    size_t cap = (size_t)n * 48 + 256;
    char *text = malloc(cap), *vals = malloc((size_t)n * 40);
    double *want = malloc((size_t)n * sizeof *want);
    CHECK(text && vals && want);
    if (!text || !vals || !want)
        goto done;
    uint64_t s = 88172645463325252ULL;
    for (int64_t i = 0; i < n; i++) {
        char *v = vals + i * 40;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double d;
        memcpy(&d, &s, sizeof d);
        int kind = (int)(i % 6);
        if (kind < 4 && isfinite(d)) {
            static const int prec[4] = {17, 16, 15, 19};
            double x = kind == 3 ? ldexp((double)(s >> 11), (int)(s % 120) - 90) : d;
            snprintf(v, 40, "%.*g", prec[kind], x);
        } else if (kind == 4) {
            /* 17-19 random digits with a small exponent */
            int nd = 17 + (int)(s % 3), k = 0;
            uint64_t t = s;
            for (int j = 0; j < nd; j++) {
                v[k++] = (char)('0' + (t % 10));
                t = t / 10 ^ (t << 7);
                if (j == 0)
                    v[k++] = '.';
            }
            snprintf(v + k, 40 - (size_t)k, "e%d", (int)(s >> 40) % 60 - 30);
        } else {
            /* exact halfway points between doubles near 1: ties to even */
            double base = 1.0 + (double)(s >> 12) * 0x1p-52;
            snprintf(v, 40, "%.25g", base + 0x1p-53);
        }
        want[i] = strtod(v, NULL);
    }
    size_t len = (size_t)snprintf(text, cap,
                                  "%%%%MatrixMarket matrix coordinate real general\n"
                                  "%lld 1 %lld\n",
                                  (long long)n, (long long)n);
    for (int64_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%lld 1 %s\n", (long long)i + 1, vals + i * 40);
    rvs_csr A;
    rvs_error err;
    rvs_status st = rvs_mm_parse(&A, NULL, text, len, &err);
    CHECK_OK(st, &err);
    if (st == RVS_OK) {
        int64_t bad = 0;
        for (int64_t i = 0; i < n && A.nnz == n; i++) {
            double got = rvs_csr_value(&A, i);
            if (memcmp(&got, &want[i], sizeof got) != 0 && bad++ < 5)
                fprintf(stderr, "value '%s' parsed as %.17g, strtod gives %.17g\n", vals + i * 40, got, want[i]);
        }
        CHECKF(A.nnz == n && bad == 0, "%lld values differ from strtod", (long long)bad);
        rvs_csr_free(&A);
    }
done:
    free(text);
    free(vals);
    free(want);
}

/* Write a CSR with awkward values and read it back bit-exactly; f32 too; array writer. */
static void test_write_roundtrip(void)
{
    rvs_csr A, B;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 300, 200, 0.05, 1, 7), &err);
    double *v = A.values;
    if (A.nnz > 6) {
        v[0] = 0.1;
        v[1] = -0.0;
        v[2] = 1e-310;
        v[3] = 9007199254740993.0;
        v[4] = -1e300;
        v[5] = 3;
    }
    char *mem = NULL;
    size_t memlen = 0;
    FILE *f = open_memstream(&mem, &memlen);
    CHECK_OK(rvs_mm_write_coordinate(f, &A, 0, &err), &err);
    fclose(f);
    CHECK_OK(rvs_mm_parse(&B, NULL, mem, memlen, &err), &err);
    CHECK(B.nnz == A.nnz && memcmp(B.rowptr, A.rowptr, (size_t)(A.rows + 1) * 8) == 0 &&
          memcmp(B.colind, A.colind, (size_t)A.nnz * 4) == 0 && memcmp(B.values, A.values, (size_t)A.nnz * 8) == 0);
    rvs_csr_free(&B);
    free(mem);

    /* pattern */
    f = open_memstream(&mem, &memlen);
    CHECK_OK(rvs_mm_write_coordinate(f, &A, 1, &err), &err);
    fclose(f);
    CHECK(strncmp(mem, "%%MatrixMarket matrix coordinate pattern general\n300 200 ", 56) == 0);
    CHECK_OK(rvs_mm_parse(&B, NULL, mem, memlen, &err), &err);
    CHECK(B.nnz == A.nnz && memcmp(B.colind, A.colind, (size_t)A.nnz * 4) == 0);
    for (int64_t k = 0; k < B.nnz; k++)
        if (rvs_csr_value(&B, k) != 1.0) {
            CHECK(rvs_csr_value(&B, k) == 1.0);
            break;
        }
    rvs_csr_free(&B);
    free(mem);

    /* f32: %.9g reads back to the same float */
    if (A.nnz > 6)
        v[4] = -1e30;
    CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
    f = open_memstream(&mem, &memlen);
    CHECK_OK(rvs_mm_write_coordinate(f, &A, 0, &err), &err);
    fclose(f);
    CHECK_OK(rvs_mm_parse(&B, NULL, mem, memlen, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&B, RVS_F32, &err), &err);
    CHECK(B.nnz == A.nnz && memcmp(B.values, A.values, (size_t)A.nnz * 4) == 0);
    rvs_csr_free(&B);
    free(mem);
    rvs_csr_free(&A);

    /* array: 3 x 2 with a zero (not stored when read back) */
    const double a[6] = {1.5, 0, -2, 0.1, 7, 1e-5};
    f = open_memstream(&mem, &memlen);
    CHECK_OK(rvs_mm_write_array(f, a, 3, 2, &err), &err);
    fclose(f);
    CHECK(strcmp(mem, "%%MatrixMarket matrix array real general\n3 2\n1.5\n0\n-2\n"
                      "0.10000000000000001\n7\n1.0000000000000001e-05\n") == 0);
    CHECK_OK(rvs_mm_parse(&B, NULL, mem, memlen, &err), &err);
    CHECK(B.nnz == 5 && B.rowptr[1] == 2 && rvs_csr_value(&B, 1) == 0.1);
    rvs_csr_free(&B);
    free(mem);
}

/* rvs_mm_read_dense on a file: array vector and coordinate input. */
static void test_read_dense(void)
{
    const char *dir = getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp";
    char path[1024];
    snprintf(path, sizeof path, "%s/test_mm_unit_%d.mtx", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("%%MatrixMarket matrix coordinate real general\n3 1 2\n3 1 2.5\n1 1 -1\n", f);
    fclose(f);
    double *a = NULL;
    int64_t rows = 0, cols = 0;
    rvs_error err;
    CHECK_OK(rvs_mm_read_dense(&a, &rows, &cols, path, &err), &err);
    CHECK(rows == 3 && cols == 1 && a && a[0] == -1 && a[1] == 0 && a[2] == 2.5);
    free(a);
    rvs_status st = rvs_mm_read_dense(&a, &rows, &cols, "/nonexistent/x.mtx", &err);
    CHECK(st == RVS_ERR_NOFILE && a == NULL);
    remove(path);
}

int main(void)
{
    test_fields();
    test_symmetry();
    test_duplicates_zeros();
    test_array();
    test_errors();
    test_parallel_lines();
    test_value_parsing();
    test_write_roundtrip();
    test_read_dense();
    return rvs_test_done();
}
