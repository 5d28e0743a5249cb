/* test_index64.c - index and size computations past 2^31 without the memory: matrices whose
 * entry arrays read as zeros without being backed by memory, with a few entries written beyond
 * 2^31, run through the CPU kernels (CSR, COO, ELL, ELLR), the SpMV check, CSR views and the
 * stream writer; plus the size checks at their limits. Skipped (77), with the reason, where the
 * address space or the memory for the page tables is not there. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "rvs_cpu.h"
#include "rvs_test.h"
#include "stream_layout.h"

#define PAST (((int64_t)1 << 31) + ((int64_t)1 << 20)) /* entries: past 2^31, short of 2^32 */
#define COLS 16
#define WINDOW ((size_t)8 << 20) /* the aliased zero window, bytes */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

static int alias_mode; /* 0: private anonymous zero pages; 1: one zero window aliased */
static int skipped;    /* parts skipped for want of address space */

/* Resident bytes of this process (statm), 0 when unknown. */
static size_t resident_bytes(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (size_t)rss * (size_t)sysconf(_SC_PAGESIZE);
}

/* n bytes that read as zeros, backed by a single 8 MiB window of a memfd mapped privately over
 * and over (writes copy only the page written): bounded by construction, whatever the kernel
 * does with anonymous pages. */
static void *alias_map(size_t n)
{
    int fd = memfd_create("rvs-index64-zeros", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)WINDOW) != 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    for (size_t at = 0; p != MAP_FAILED && at < n; at += WINDOW) {
        size_t len = n - at < WINDOW ? n - at : WINDOW;
        if (mmap(p + at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
            munmap(p, n);
            p = MAP_FAILED;
        }
    }
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    (void)madvise(p, n, MADV_POPULATE_READ); /* one call maps every page, instead of a fault each */
    return p;
}

/* n bytes that read as zeros: an unreserved private mapping whose untouched pages read as the
 * shared (huge) zero page. Where the kernel populates them anyway, the watchdog restarts the
 * test over aliased windows. */
static void *zero_map(size_t n)
{
    if (alias_mode == 1)
        return alias_map(n);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    (void)madvise(p, n, MADV_HUGEPAGE); /* a fault maps 2 MiB of zeros: 4 KiB faults take minutes */
    return p;
}

static size_t watch_limit = (size_t)1 << 30; /* resident bytes that say zero pages are not what we got */
static char **self_argv;

/* Polls the resident size; past watch_limit (RVS_INDEX64_WATCH_MIB) it starts the program again in aliased mode, which
 * drops every page populated so far at once. */
static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec t = {0, 50 * 1000 * 1000};
        nanosleep(&t, NULL);
        const size_t r = resident_bytes();
        if (r > watch_limit) {
            printf("zero pages: reads populated %zu MiB here; starting again over aliased windows\n", r >> 20);
            fflush(stdout);
            setenv("RVS_INDEX64_ALIAS", "1", 1);
            execv("/proc/self/exe", self_argv);
            printf("cannot start again: %s\n", strerror(errno));
            fflush(stdout);
            _exit(RVS_TEST_SKIP);
        }
    }
    return NULL;
}

/* Room for the page tables of the mappings (8 bytes per 4 KiB page, three 8.6 GB arrays at
 * once) and the small real arrays: MemAvailable must exceed it, else the test is skipped. */
static int memory_for_page_tables(void)
{
    const long long need_kib = 3 * (PAST * 4 / 4096) * 8 / 1024 + 256 * 1024;
    long long avail = -1;
    char line[256];
    FILE *f = fopen("/proc/meminfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &avail) == 1)
            break;
    if (f)
        fclose(f);
    if (avail >= 0 && avail < need_kib) {
        printf("skipping: %lld MiB available, the page tables need %lld MiB\n", avail >> 10, need_kib >> 10);
        return 0;
    }
    return 1;
}

/* The entries set beyond the zeros: (position in the entry arrays, column, value). */
typedef struct {
    int64_t at;
    int32_t col;
    float val;
} planted;

/* x[c] = c + 1, so every planted entry contributes val * (col + 1). */
static void make_x(float *xf, double *xd)
{
    for (int c = 0; c < COLS; c++) {
        xf[c] = (float)(c + 1);
        xd[c] = c + 1;
    }
}

/* A CSR of PAST f32 entries in 1024 rows, the last of which starts past 2^31; entries are zero
 * except the planted ones. Its expected product into want[]. */
static int make_csr(rvs_csr *A, planted *pl, int npl, double *want)
{
    const int64_t rows = 1024, per = PAST / rows;
    memset(A, 0, sizeof *A);
    A->rows = rows;
    A->cols = COLS;
    A->nnz = PAST;
    A->vtype = RVS_F32;
    A->rowptr = malloc((size_t)(rows + 1) * sizeof *A->rowptr);
    A->colind = zero_map((size_t)PAST * 4);
    A->values = zero_map((size_t)PAST * 4);
    if (!A->rowptr || !A->colind || !A->values)
        return 0;
    for (int64_t i = 0; i < rows - 1; i++)
        A->rowptr[i] = i * per;
    A->rowptr[rows - 1] = ((int64_t)1 << 31) + 8;
    A->rowptr[rows] = PAST;
    memset(want, 0, (size_t)rows * sizeof *want);
    for (int k = 0; k < npl; k++) {
        A->colind[pl[k].at] = pl[k].col;
        ((float *)A->values)[pl[k].at] = pl[k].val;
        want[rvs_lower_bound_i64(A->rowptr, rows + 1, pl[k].at + 1) - 1] += pl[k].val * (pl[k].col + 1.0);
    }
    return 1;
}

static void unmap_csr(rvs_csr *A)
{
    free(A->rowptr);
    if (A->colind)
        munmap(A->colind, (size_t)PAST * 4);
    if (A->values)
        munmap(A->values, (size_t)PAST * 4);
    memset(A, 0, sizeof *A);
}

/* Largest |y_i - want_i|. */
static double max_diff(const float *y, const double *want, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = y[i] - want[i];
        m = d > m ? d : -d > m ? -d : m;
    }
    return m;
}

/* Bytes written and the last bytes, for a stream sent nowhere. */
typedef struct {
    uint64_t n;
    uint8_t tail[64];
} sink;

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
    sink *s = c;
    if (n >= sizeof s->tail) {
        memcpy(s->tail, buf + n - sizeof s->tail, sizeof s->tail);
    } else {
        memmove(s->tail, s->tail + n, sizeof s->tail - n);
        memcpy(s->tail + sizeof s->tail - n, buf, n);
    }
    s->n += n;
    return (ssize_t)n;
}

/* CSR kernel, check, views and the stream writer over 2^31 + 2^20 entries. */
static void test_csr_past_2g(void)
{
    planted pl[] = {{((int64_t)1 << 31) - 1, 3, 1.5f},
                    {(int64_t)1 << 31, 7, -2.0f},
                    {((int64_t)1 << 31) + 1, 9, 0.25f},
                    {PAST - 2, 14, 4.0f},
                    {PAST - 1, 15, -1.0f}};
    rvs_csr A;
    rvs_fmt F;
    rvs_error err;
    double want[1024], xd[COLS], me;
    float xf[COLS], y[1024];
    double yd[1024];
    int64_t row;
    if (!make_csr(&A, pl, 5, want)) {
        printf("skipping CSR: no address space for %lld entries\n", (long long)PAST);
        skipped++;
        unmap_csr(&A);
        return;
    }
    make_x(xf, xd);

    CHECK_OK(rvs_fmt_csr_borrow(&F, &A, 0, A.rows, &err), &err);
    CHECK(F.nnz == PAST);
    CHECK_OK(rvs_cpu_spmv(&F, xf, y, &err), &err);
    CHECKF(max_diff(y, want, A.rows) == 0, "CSR over 2^31 entries: off by %g", max_diff(y, want, A.rows));
    rvs_fmt_free(&F);

    for (int i = 0; i < 1024; i++)
        yd[i] = y[i];
    CHECK_OK(rvs_spmv_check(&A, xd, yd, 1e-12, &me, &row, &err), &err);
    const int64_t last = A.rows - 1;
    yd[last] += 0.5;
    CHECK(rvs_spmv_check(&A, xd, yd, 1e-12, &me, &row, &err) == RVS_ERR_CHECK && row == last);

    /* the last row starts past 2^31: a borrowed block and a view rebase their offsets */
    CHECK_OK(rvs_fmt_csr_borrow(&F, &A, A.rows - 1, A.rows, &err), &err);
    const int64_t *rp = rvs_fmt_array(&F, "rowptr")->data;
    CHECK(rp[0] == 0 && rp[1] == PAST - A.rowptr[A.rows - 1] && A.rowptr[A.rows - 1] > INT32_MAX);
    CHECK_OK(rvs_cpu_spmv(&F, xf, y, &err), &err);
    CHECK(max_diff(y, want + A.rows - 1, 1) == 0 && want[A.rows - 1] != 0);
    rvs_fmt_free(&F);
    rvs_csr V;
    CHECK_OK(rvs_csr_view_rows(&V, &A, 511, A.rows, &err), &err);
    CHECK(V.colind == A.colind + A.rowptr[511] && V.nnz == PAST - A.rowptr[511] &&
          V.rowptr[V.rows - 1] == A.rowptr[A.rows - 1] - A.rowptr[511]);
    rvs_csr_view_free(&V);

    /* the writer: an ARRY payload past 2^32 bytes, lengths and the end chunk right */
    sink s = {0};
    cookie_io_functions_t io = {.write = sink_write};
    FILE *f = fopencookie(&s, "w", io);
    rvs_stream S = {0};
    S.A = A;
    CHECK_OK(rvs_stream_write(f, &S, &err), &err);
    fclose(f);
    const uint64_t mhdr = RVS_CHUNK_HEAD_LEN + RVS_MHDR_FIXED_LEN + RVS_CHUNK_CRC_LEN;
    const uint64_t arry = RVS_CHUNK_HEAD_LEN + RVS_ARRY_HEAD_LEN + RVS_CHUNK_CRC_LEN;
    const uint64_t want_bytes = RVS_PRELUDE_LEN + mhdr + 3 * arry + 8 * (uint64_t)(A.rows + 1) +
                                8 * (uint64_t)PAST + RVS_CHUNK_HEAD_LEN + RVS_REND_LEN + RVS_CHUNK_CRC_LEN;
    CHECKF(s.n == want_bytes, "stream of %llu bytes, want %llu", (unsigned long long)s.n,
           (unsigned long long)want_bytes);
    const uint8_t *end = s.tail + sizeof s.tail - (RVS_CHUNK_HEAD_LEN + RVS_REND_LEN + RVS_CHUNK_CRC_LEN);
    CHECK(memcmp(end, "REND", 4) == 0 && rvs_le64(end + 4) == RVS_REND_LEN && rvs_le64(end + 12) == 4);
    unmap_csr(&A);
}

/* COO over PAST entries: the threads' entry ranges and the row carries cross 2^31. */
static void test_coo_past_2g(void)
{
    const int64_t rows = 64;
    int32_t *ri = zero_map((size_t)PAST * 4), *ci = zero_map((size_t)PAST * 4);
    float *va = zero_map((size_t)PAST * 4), xf[COLS], y[64];
    double xd[COLS], want[64] = {0};
    rvs_error err;
    if (!ri || !ci || !va) {
        printf("skipping COO: no address space\n");
        skipped++;
        goto done;
    }
    make_x(xf, xd);
    /* rows ascend: zeros (row 0) first, then rows 40 and 63 at the end */
    const int64_t at[4] = {PAST - 4, PAST - 3, PAST - 2, PAST - 1};
    const int32_t r[4] = {40, 40, 63, 63}, c[4] = {2, 5, 0, 15};
    const float v[4] = {1, 2, 3, -4};
    for (int k = 0; k < 4; k++) {
        ri[at[k]] = r[k];
        ci[at[k]] = c[k];
        va[at[k]] = v[k];
        want[r[k]] += v[k] * (c[k] + 1.0);
    }
    ri[(int64_t)1 << 31] = 0; /* the boundary entry itself: row 0, column 0, zero */
    rvs_fmt F = {0};
    F.id = RVS_FMT_COO;
    F.rows = rows;
    F.cols = COLS;
    F.nnz = PAST;
    F.vtype = RVS_F32;
    CHECK_OK(rvs_fmt_add_borrowed(&F, "row", RVS_DT_I32, PAST, ri, &err), &err);
    CHECK_OK(rvs_fmt_add_borrowed(&F, "col", RVS_DT_I32, PAST, ci, &err), &err);
    CHECK_OK(rvs_fmt_add_borrowed(&F, "values", RVS_DT_F32, PAST, va, &err), &err);
    CHECK_OK(rvs_cpu_spmv(&F, xf, y, &err), &err);
    CHECKF(max_diff(y, want, rows) == 0, "COO over 2^31 entries: off by %g", max_diff(y, want, rows));
    rvs_fmt_free(&F);
done:
    if (ri)
        munmap(ri, (size_t)PAST * 4);
    if (ci)
        munmap(ci, (size_t)PAST * 4);
    if (va)
        munmap(va, (size_t)PAST * 4);
}

/* ELL and ELLR with ld * width past 2^31 slots: slot k * ld + r of the last row and slot. */
static void test_ell_past_2g(void)
{
    const int64_t ld = (int64_t)1 << 21, rows = ld, width = 1025, slots = ld * width;
    int32_t *col = zero_map((size_t)slots * 4), *rl = malloc((size_t)rows * sizeof *rl);
    float *val = zero_map((size_t)slots * 4), xf[COLS], *y = malloc((size_t)rows * sizeof *y);
    double xd[COLS], *want = calloc((size_t)rows, sizeof *want);
    rvs_error err;
    if (!col || !val || !rl || !y || !want) {
        printf("skipping ELL: no address space\n");
        skipped++;
        goto done;
    }
    CHECK(slots > INT32_MAX);
    make_x(xf, xd);
    const int64_t r[3] = {rows - 1, rows - 1, 12345}, k[3] = {width - 1, width - 2, width - 1};
    const int32_t c[3] = {6, 11, 1};
    const float v[3] = {2, -1, 8};
    for (int q = 0; q < 3; q++) {
        col[k[q] * ld + r[q]] = c[q];
        val[k[q] * ld + r[q]] = v[q];
        want[r[q]] += v[q] * (c[q] + 1.0);
    }
    for (int64_t i = 0; i < rows; i++)
        rl[i] = (int32_t)width;
    for (int variant = 0; variant < 2; variant++) {
        rvs_fmt F = {0};
        F.id = variant ? RVS_FMT_ELLR : RVS_FMT_ELL;
        F.rows = rows;
        F.cols = COLS;
        F.nnz = slots;
        F.vtype = RVS_F32;
        F.param[0] = width;
        F.param[1] = ld;
        CHECK_OK(rvs_fmt_add_borrowed(&F, "col", RVS_DT_I32, slots, col, &err), &err);
        CHECK_OK(rvs_fmt_add_borrowed(&F, "values", RVS_DT_F32, slots, val, &err), &err);
        if (variant)
            CHECK_OK(rvs_fmt_add_borrowed(&F, "rl", RVS_DT_I32, rows, rl, &err), &err);
        CHECK_OK(rvs_cpu_spmv(&F, xf, y, &err), &err);
        CHECKF(max_diff(y, want, rows) == 0, "%s over 2^31 slots: off by %g", variant ? "ELLR" : "ELL",
               max_diff(y, want, rows));
        rvs_fmt_free(&F);
    }
done:
    if (col)
        munmap(col, (size_t)slots * 4);
    if (val)
        munmap(val, (size_t)slots * 4);
    free(rl);
    free(y);
    free(want);
}

/* Every size a buffer is allocated from is checked before the allocation, at the boundary. */
static void test_size_limits(void)
{
    rvs_csr A;
    rvs_fmt F = {0};
    rvs_error err;
    void *d;
    CHECK(rvs_csr_alloc(&A, 10, 10, (int64_t)(SIZE_MAX / 8) + 1, RVS_F64, &err) == RVS_ERR_OVERFLOW);
    CHECK(rvs_csr_alloc(&A, INT64_MAX, 10, 0, RVS_F64, &err) == RVS_ERR_OVERFLOW);
    CHECK(rvs_csr_alloc(&A, (int64_t)(SIZE_MAX / 8), 10, 0, RVS_F64, &err) == RVS_ERR_OVERFLOW);
    CHECK(rvs_csr_alloc(&A, -1, 10, 0, RVS_F64, &err) == RVS_ERR_OVERFLOW && !A.rowptr);
    CHECK(rvs_fmt_add_array(&F, "x", RVS_DT_F64, (int64_t)((SIZE_MAX - 64) / 8) + 1, &d, &err) == RVS_ERR_OVERFLOW);
    CHECK(rvs_fmt_add_array(&F, "x", RVS_DT_I32, -1, &d, &err) == RVS_ERR_OVERFLOW && F.narrays == 0);
    /* a view's row range is checked against the matrix, not trusted */
    CHECK_OK(rvs_csr_alloc(&A, 4, 4, 0, RVS_F64, &err), &err);
    rvs_csr V;
    CHECK(rvs_csr_view_rows(&V, &A, 3, 5, &err) == RVS_ERR_ARG && !V.rowptr);
    CHECK(rvs_fmt_csr_borrow(&F, &A, -1, 2, &err) == RVS_ERR_ARG && F.narrays == 0);
    rvs_csr_free(&A);
}

/* The aliased window itself: zeros everywhere, a write lands once and copies one page. */
static void test_alias_window(void)
{
    const size_t n = 4 * WINDOW + 4096;
    int32_t *a = alias_map(n);
    CHECK(a != NULL);
    if (!a)
        return;
    a[WINDOW / 4 + 3] = 42;
    a[n / 4 - 1] = -7;
    int64_t nonzero = 0, sum = 0;
    for (size_t i = 0; i < n / 4; i++) {
        nonzero += a[i] != 0;
        sum += a[i];
    }
    CHECKF(nonzero == 2 && sum == 35, "aliased window: %lld non-zeros summing to %lld", (long long)nonzero,
           (long long)sum);
    munmap(a, n);
}

int main(int argc, char **argv)
{
    (void)argc;
    self_argv = argv;
    test_size_limits();
    test_alias_window();
    if (!memory_for_page_tables()) {
        rvs_test_done();
        return RVS_TEST_SKIP;
    }
    alias_mode = getenv("RVS_INDEX64_ALIAS") != NULL;
    if (getenv("RVS_INDEX64_WATCH_MIB"))
        watch_limit = (size_t)atol(getenv("RVS_INDEX64_WATCH_MIB")) << 20;
    pthread_t watch;
    if (!alias_mode && pthread_create(&watch, NULL, watchdog, NULL) != 0)
        alias_mode = 1; /* unwatched zero pages could take the machine's memory */
    test_csr_past_2g();
    test_coo_past_2g();
    test_ell_past_2g();
    const int failed = rvs_test_done();
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        printf("peak resident: %ld MiB (%s)\n", ru.ru_maxrss >> 10,
               alias_mode == 1 ? "aliased window" : "zero pages");
    return failed ? failed : skipped ? RVS_TEST_SKIP : 0;
}
