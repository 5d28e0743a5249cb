/* rvs_test.c - helpers for the C tests */
#include <execinfo.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cs.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rvs_gpu.h"
#include "rvs_test.h"

int rvs_test_failures;
int rvs_test_checks;

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
/* A test that crashes names where: the stack on stderr, then the signal's own end (the
 * sanitizer builds keep their handlers, which say more). */
static void crashed(int sig)
{
    void *frames[64];
    const int n = backtrace(frames, 64);
    static const char head[] = "test crashed; stack:\n";
    if (write(2, head, sizeof head - 1) < 0)
        _exit(128 + sig);
    backtrace_symbols_fd(frames, n, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void on_crash_backtrace(void)
{
    signal(SIGSEGV, crashed);
    signal(SIGBUS, crashed);
    signal(SIGFPE, crashed);
}
#endif

/* Tally; a test that checked nothing fails. */
int rvs_test_done(void)
{
    printf("%d checks, %d failed\n", rvs_test_checks, rvs_test_failures);
    if (rvs_test_checks == 0) {
        fprintf(stderr, "no checks ran\n");
        return 1;
    }
    return rvs_test_failures ? 1 : 0;
}

/* Run the named case, or all. */
int rvs_test_run_cases(int argc, char **argv, const rvs_test_case *cases, size_t n)
{
    int ran = 0;
    for (size_t i = 0; i < n; i++)
        if (argc < 2 || strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            ran++;
        }
    if (!ran) {
        fprintf(stderr, "%s: no case '%s'\n", argv[0], argv[1]);
        return 2;
    }
    return rvs_test_done();
}

/* $RVS_MATRICES if it holds INDEX.tsv. */
const char *rvs_test_matrices_dir(void)
{
    static char buf[1024];
    const char *d = getenv("RVS_MATRICES");
    struct stat sb;
    if (!d || !*d)
        return NULL;
    snprintf(buf, sizeof buf, "%s/INDEX.tsv", d);
    if (stat(buf, &sb) != 0)
        return NULL;
    return d;
}

/* Parse INDEX.tsv (header line skipped). */
int rvs_test_matrix_list(rvs_test_matrix **list)
{
    const char *d = rvs_test_matrices_dir();
    char path[1200], line[4096];
    int n = 0, cap = 0;
    rvs_test_matrix *v = NULL;
    *list = NULL;
    if (!d)
        return 0;
    snprintf(path, sizeof path, "%s/INDEX.tsv", d);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    /* RVS_TEST_MATRICES_MAX=N: the first N only (GPU tests under compute-sanitizer are slow) */
    const char *max_env = getenv("RVS_TEST_MATRICES_MAX");
    int max = max_env && *max_env ? atoi(max_env) : -1;
    while ((max < 0 || n < max) && fgets(line, sizeof line, f)) {
        rvs_test_matrix m;
        memset(&m, 0, sizeof m);
        char bytes[32], repo[512], pth[512];
        if (sscanf(line, "%127s %lld %lld %lld %15s %23s %31s %511s %511s %23s", m.name, &m.rows, &m.cols,
                   &m.nnz_declared, m.field, m.symmetry, bytes, repo, pth, m.kind) < 6)
            continue;
        snprintf(m.path, sizeof m.path, "%s/%s.mtx", d, m.name);
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            rvs_test_matrix *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[n++] = m;
    }
    fclose(f);
    *list = v;
    return n;
}

/* xorshift64* step. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* Uniform double in [-1, 1]. */
static double rand_unit(uint64_t *s)
{
    return (double)(next_rand(s) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Random sparse matrix; row lengths vary (some long rows, some empty when asked). */
rvs_status rvs_test_random_csr(rvs_csr *A, int64_t rows, int64_t cols, double density, int empty_rows,
                               unsigned seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed * 0x100000001B3ULL);
    int64_t cap = (int64_t)(density * (double)rows * (double)cols * 1.5) + rows + 16;
    int64_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    int64_t n = 0;
    rvs_status st;
    if (!ri || !ci || !v) {
        st = RVS_ERR_NOMEM;
        goto done;
    }
    for (int64_t i = 0; i < rows; i++) {
        if (empty_rows && next_rand(&s) % 7 == 0)
            continue;
        double mean = density * (double)cols * (0.25 + 1.5 * (double)(next_rand(&s) % 1000) / 1000.0);
        if (next_rand(&s) % 50 == 0)
            mean *= 8;
        int64_t len = (int64_t)mean;
        if (len > cols)
            len = cols;
        for (int64_t k = 0; k < len && n < cap; k++) {
            ri[n] = i;
            ci[n] = cols ? (int64_t)(next_rand(&s) % (uint64_t)cols) : 0;
            v[n++] = rand_unit(&s);
        }
    }
    st = rvs_csr_from_coo(A, rows, cols, n, ri, ci, v, RVS_F64, NULL);
done:
    free(ri);
    free(ci);
    free(v);
    return st;
}

/* A made complex (vt c64 or c128): its values the real parts, random imaginary parts in
 * [-1, 1] (every fifth value purely real, every seventh purely imaginary). */
rvs_status rvs_test_complexify(rvs_csr *A, rvs_vtype vt, unsigned seed)
{
    uint64_t s = 0xD1B54A32D192ED03ULL ^ ((uint64_t)seed * 0x9E3779B97F4A7C15ULL);
    rvs_status st = rvs_csr_convert_values(A, vt, NULL);
    if (st != RVS_OK)
        return st;
    for (int64_t e = 0; e < A->nnz; e++) {
        double im = e % 5 == 0 ? 0.0 : rand_unit(&s), re = e % 7 == 3 ? 0.0 : rvs_csr_value(A, e);
        if (vt == RVS_C128) {
            ((double *)A->values)[2 * e] = re;
            ((double *)A->values)[2 * e + 1] = im;
        } else {
            ((float *)A->values)[2 * e] = (float)re;
            ((float *)A->values)[2 * e + 1] = (float)im;
        }
    }
    return RVS_OK;
}

/* Matrix with the given row lengths; columns spread evenly, values 1, 2, 3, ... */
rvs_status rvs_test_csr_from_lengths(rvs_csr *A, const int64_t *len, int64_t rows, int64_t cols)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < rows; i++)
        nnz += len[i];
    rvs_status st = rvs_csr_alloc(A, rows, cols, nnz, RVS_F64, NULL);
    if (st != RVS_OK)
        return st;
    int64_t p = 0;
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t k = 0; k < len[i]; k++) {
            A->colind[p] = (int32_t)(k * cols / len[i]);
            ((double *)A->values)[p] = (double)(p + 1);
            p++;
        }
        A->rowptr[i + 1] = p;
    }
    return RVS_OK;
}

/* Deterministic values in [-1, 1]. */
void rvs_test_random_vector(double *x, int64_t n, unsigned seed)
{
    uint64_t s = 0xD1B54A32D192ED03ULL ^ ((uint64_t)seed * 0x9E3779B97F4A7C15ULL);
    for (int64_t i = 0; i < n; i++)
        x[i] = rand_unit(&s);
}

/* max |y - ref| / max(max |ref|, 1e-300); NaN gives infinity. */
double rvs_test_rel_err(const double *y, const double *ref, int64_t n)
{
    double m = 0, e = 0;
    for (int64_t i = 0; i < n; i++)
        m = fabs(ref[i]) > m ? fabs(ref[i]) : m;
    if (m == 0)
        m = 1;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(y[i] - ref[i]) / m;
        if (isnan(d))
            return INFINITY;
        e = d > e ? d : e;
    }
    return e;
}

/* 1 if a GPU is usable. */
int rvs_test_have_gpu(void)
{
    return rvs_gpu_count() > 0;
}

int rvs_test_csr_same(const rvs_csr *A, const rvs_csr *B)
{
    const size_t n = (size_t)A->nnz;
    if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz || A->vtype != B->vtype ||
        memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * sizeof *A->rowptr) != 0 || !A->colind != !B->colind)
        return 0;
    return n == 0 || ((A->colind ? memcmp(A->colind, B->colind, n * sizeof *A->colind)
                                 : memcmp(A->colind64, B->colind64, n * sizeof *A->colind64)) == 0 &&
                      memcmp(A->values, B->values, n * rvs_vtype_size(A->vtype)) == 0);
}

void rvs_test_csparse_product(const rvs_csr *A, const double *x, double *y)
{
    cs_dl T = {0}, *C;
    int64_t *ci = malloc((size_t)(A->nnz + 1) * sizeof *ci);
    double *v = malloc((size_t)(A->nnz + 1) * sizeof *v);
    for (int64_t p = 0; p < A->nnz; p++) {
        ci[p] = rvs_csr_col(A, p);
        v[p] = rvs_csr_value(A, p);
    }
    T.nzmax = A->nnz;
    T.m = A->cols;
    T.n = A->rows;
    T.p = A->rowptr;
    T.i = ci;
    T.x = v;
    T.nz = -1;
    C = cs_dl_transpose(&T, 1);
    memset(y, 0, (size_t)A->rows * sizeof *y);
    CHECK(C && cs_dl_gaxpy(C, x, y));
    cs_dl_spfree(C);
    free(ci);
    free(v);
}
