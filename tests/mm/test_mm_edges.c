/* test_mm_edges.c - the edge-list reader through its library API: exact CSR and info of small
 * cases, blocks cut anywhere between lines, indices that need 64 bits, errors with their
 * lines, and a random graph against the Matrix Market reader of the same entries */
#include <stdint.h>
#include <omp.h>
#include <string.h>
#include "mm_private.h"
#include "rvs_test.h"

/* Parse text and compare with the expected CSR (dense rows x rows, 0 where nothing). */
static void expect(const char *what, const char *text, int64_t size_opt, int64_t rows, const double *dense,
                   int64_t edges, int weighted)
{
    rvs_csr A;
    rvs_edges_info info;
    rvs_error err;
    rvs_edges_options o = {.size = size_opt};
    rvs_status st = rvs_edges_parse(&A, &info, text, strlen(text), &o, &err);
    CHECKF(st == RVS_OK, "%s: status %d: %s", what, (int)st, err.msg);
    if (st != RVS_OK)
        return;
    CHECKF(A.rows == rows && A.cols == rows, "%s: %lld x %lld", what, (long long)A.rows, (long long)A.cols);
    CHECKF(info.edges == edges && info.weighted == weighted && info.size == rows, "%s: info %lld %d %lld", what,
           (long long)info.edges, info.weighted, (long long)info.size);
    CHECK(rvs_csr_validate(&A, &err) == RVS_OK);
    for (int64_t r = 0; r < A.rows && A.rows == rows; r++) {
        int64_t k = A.rowptr[r];
        for (int64_t c = 0; c < rows; c++) {
            double v = 0;
            if (k < A.rowptr[r + 1] && rvs_csr_col(&A, k) == c)
                v = rvs_csr_value(&A, k++);
            CHECKF(v == dense[r * rows + c], "%s: (%lld,%lld) = %g, want %g", what, (long long)r, (long long)c, v,
                   dense[r * rows + c]);
        }
    }
    rvs_csr_free(&A);
}

/* Parse text and expect status want with a message equal to msg. */
static void expect_error(const char *text, int64_t size_opt, rvs_status want, const char *msg)
{
    rvs_csr A;
    rvs_error err;
    rvs_edges_options o = {.size = size_opt};
    rvs_error_clear(&err);
    rvs_status st = rvs_edges_parse(&A, NULL, text, strlen(text), &o, &err);
    CHECKF(st == want && strcmp(err.msg, msg) == 0, "'%s': status %d '%s', want %d '%s'", text, (int)st, err.msg,
           (int)want, msg);
    if (st == RVS_OK)
        rvs_csr_free(&A);
}

/* Parse text with `threads` threads: status, message, and the CSR's fingerprint. */
static rvs_status parse_with(int threads, const char *text, size_t n, char *msg, uint64_t *print)
{
    rvs_csr A;
    rvs_error err;
    rvs_error_clear(&err);
    omp_set_num_threads(threads);
    rvs_status st = rvs_edges_parse(&A, NULL, text, n, NULL, &err);
    snprintf(msg, 200, "%.190s", err.msg);
    *print = 0;
    if (st == RVS_OK) {
        *print = (uint64_t)A.rows * 1000003u + (uint64_t)A.nnz;
        for (int64_t k = 0; k < A.nnz; k++)
            *print = *print * 31u + (uint64_t)rvs_csr_col(&A, k) * 7u + (uint64_t)(rvs_csr_value(&A, k) * 4.0);
        for (int64_t r = 0; r <= A.rows; r++)
            *print = *print * 17u + (uint64_t)A.rowptr[r];
        rvs_csr_free(&A);
    }
    return st;
}

/* Blocks of 1 MB and more are parsed by all threads: the same matrix, and the same first error
 * (by line) as one thread gives, wherever the bad line lies (the pieces' edges included). */
static void parallel_as_serial(void)
{
    const int lines = 300000;
    size_t cap = (size_t)lines * 32, n = 0;
    char *t = malloc(cap), m1[200], m4[200];
    unsigned s = 99;
    n += (size_t)sprintf(t + n, "# SNAP-like header\n");
    for (int k = 0; k < lines; k++) {
        s = s * 1103515245u + 12345u;
        if (k % 1000 == 7)
            n += (size_t)sprintf(t + n, "%% comment %d\n", k);
        n += (size_t)sprintf(t + n, "%u\t%u\t%u.5\n", (s >> 9) % 70000u, (s >> 3) % 70000u, s % 13u);
    }
    uint64_t p1, p4;
    rvs_status a = parse_with(1, t, n, m1, &p1), b = parse_with(4, t, n, m4, &p4);
    CHECKF(a == RVS_OK && b == RVS_OK && p1 == p4, "4 threads: %d %d, fingerprints %llu %llu", (int)a, (int)b,
           (unsigned long long)p1, (unsigned long long)p4);
    /* a bad line, and an edge without its weight, at places spread over the text */
    for (int trial = 0; trial < 24; trial++) {
        char *u = malloc(n + 1);
        memcpy(u, t, n);
        size_t at = (n / 24) * (size_t)trial + (size_t)trial * 977u % (n / 24);
        char *line = memchr(u + at, '\n', n - at);
        if (!line || line + 12 >= u + n)
            continue;
        line++;
        if (trial % 2)
            memcpy(line, "x", 1); /* an index that is not one */
        else
            for (char *q = line; *q != '\n'; q++) /* the weight blanked: no third column */
                if (*q == '\t' && q > line && memchr(q + 1, '\t', (size_t)(strchr(q + 1, '\n') - q - 1)) == NULL)
                    memset(q, ' ', (size_t)(strchr(q, '\n') - q));
        a = parse_with(1, u, n, m1, &p1);
        b = parse_with(4, u, n, m4, &p4);
        CHECKF(a != RVS_OK && a == b && strcmp(m1, m4) == 0, "trial %d: 1 thread %d '%s', 4 threads %d '%s'", trial,
               (int)a, m1, (int)b, m4);
        free(u);
    }
    /* an index past 2^31 in the middle of a parallel block (the block again, in 64 bits), then
     * a bad line: that line's error, unless the memory a 2^31-row matrix claims is refused
     * first (machines differ; one thread claims as the edges come, several per block) */
    char *u = malloc(n + 64);
    size_t half = n / 2;
    const char *nl = memchr(t + half, '\n', n - half);
    half = (size_t)(nl + 1 - t);
    memcpy(u, t, half);
    size_t m = half + (size_t)sprintf(u + half, "2147483648\t5\t1.5\n");
    memcpy(u + m, t + half, n - half);
    m += n - half;
    char *bad = memchr(u + m - 5000, '\n', 5000) + 1, want[64];
    *bad = 'x';
    long long line = 1;
    for (const char *q = u; q < bad; q++)
        line += *q == '\n';
    snprintf(want, sizeof want, "line %lld: source index 'x", line);
    for (int threads = 1; threads <= 4; threads += 3) {
        rvs_status a2 = parse_with(threads, u, m, m1, &p1);
        CHECKF((a2 == RVS_ERR_FORMAT && strncmp(m1, want, strlen(want)) == 0) ||
                   (a2 == RVS_ERR_OVERFLOW && strstr(m1, "2147483649 x 2147483649") != NULL),
               "wide then bad, %d threads: %d '%s', want '%s...'", threads, (int)a2, m1, want);
    }
    free(u);
    free(t);
}

int main(void)
{
    static const double tiny[9] = {0, 1, 1, 0, 0, 1, 1, 0, 0};
    expect("snap", "# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n0\t2\n1\t2\n2\t0\n", 0, 3, tiny, 4, 0);
    expect("no final newline, CRLF", "0 1\r\n0 2\r\n1 2\r\n2 0", 0, 3, tiny, 4, 0);
    static const double w[9] = {0, 3.5, 0, 0, 0, 0, 0, -1, 0};
    expect("weights summed", "%% c\n0 1 1.5\n\n2 1 -1\n0 1 2\n", 0, 3, w, 3, 1);
    static const double big[16] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    expect("--size", "0 1\n", 4, 4, big, 1, 0);
    static const double none[4] = {0};
    expect("size, no edges", "# nothing\n", 2, 2, none, 0, 0);

    expect_error("0 1\n\n1 2 3\n", 0, RVS_ERR_FORMAT, "line 3: an edge with a weight, but line 1 has none");
    expect_error("0 1 x\n", 0, RVS_ERR_FORMAT, "line 1: weight 'x' is not a number");
    expect_error("3 1\n", 2, RVS_ERR_RANGE, "line 1: source index 3 out of range 0..1 (size 2)");
    expect_error("", 0, RVS_ERR_EMPTY, "no edges in 0 lines, and no size given");
    expect_error("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n", 0, RVS_ERR_FORMAT,
                 "line 1: a Matrix Market banner: this is not an edge list");

    /* blocks cut between any two lines give what one block gives; indices past 2^31 move the
     * held edges to 64 bits (the matrix itself would be too large to build anywhere: the parser
     * is checked through the private API, and the finish refused with the largest index) */
    const char *text = "0 1\n5 2\n# c\n3 3\n2147483648 7\n9 1099511627776\n";
    mm_edges *E;
    rvs_error err;
    rvs_csr A;
    for (size_t cut = 0; cut <= strlen(text); cut++) {
        if (cut && text[cut - 1] != '\n')
            continue;
        CHECK_OK(mm_edges_begin(&E, NULL, NULL, &err), &err);
        rvs_status st = mm_edges_parse(E, text, cut, 0, &err);
        if (st == RVS_OK)
            st = mm_edges_parse(E, text + cut, strlen(text) - cut, 1, &err);
        CHECKF(st == RVS_OK, "cut %zu: %s", cut, err.msg);
        st = mm_edges_finish(E, &A, &err);
        CHECKF(st == RVS_ERR_OVERFLOW &&
                   strncmp(err.msg, "line 6: index 1099511627776: 1099511627777 rows need", 52) == 0,
               "cut %zu: %d %s", cut, (int)st, err.msg);
    }
    rvs_status st = mm_edges_begin(&E, &(rvs_edges_options){.size = 1LL << 62}, NULL, &err);
    CHECKF(st == RVS_ERR_OVERFLOW && strstr(err.msg, "rows need") != NULL, "2^62 rows: %d %s", (int)st, err.msg);

    /* a random graph: the same entries as Matrix Market (1-based) and as an edge list */
    size_t cap = 1 << 20, ne = 0, nm = 0;
    char *el = malloc(cap), *mm = malloc(cap + 100);
    const int n = 500, m = 20000;
    nm = (size_t)sprintf(mm, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, m);
    unsigned s = 12345;
    for (int k = 0; k < m; k++) {
        s = s * 1103515245u + 12345u;
        int i = (int)((s >> 8) % (unsigned)n), j = (int)((s >> 3) % (unsigned)(n - 1)), v = (int)(s % 1000) - 500;
        ne += (size_t)sprintf(el + ne, "%d\t%d\t%d.25\n", i, j, v);
        nm += (size_t)sprintf(mm + nm, "%d %d %d.25\n", i + 1, j + 1, v);
    }
    rvs_csr B, R;
    CHECK_OK(rvs_mm_parse(&R, NULL, mm, nm, &err), &err);
    CHECK_OK(rvs_edges_parse(&B, NULL, el, ne, &(rvs_edges_options){.size = n}, &err), &err);
    int same = B.rows == R.rows && B.nnz == R.nnz &&
               memcmp(B.rowptr, R.rowptr, (size_t)(R.rows + 1) * sizeof *R.rowptr) == 0;
    for (int64_t k = 0; same && k < R.nnz; k++)
        same = rvs_csr_col(&B, k) == rvs_csr_col(&R, k) && rvs_csr_value(&B, k) == rvs_csr_value(&R, k);
    CHECKF(same, "random graph: the edge list and the Matrix Market file differ");
    rvs_csr_free(&B);
    rvs_csr_free(&R);
    free(el);
    free(mm);
    parallel_as_serial();
    return rvs_test_done();
}
