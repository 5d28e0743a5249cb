/* fault_alloc.c - allocation-failure injection, as CSparse's test build does: every allocation
 * the libraries make can be made to fail at its Nth call (link-time wrappers, -Wl,--wrap=...,
 * armed only around the library call); a sweep over N through reading, partitioning,
 * converting and multiplying a small matrix checks a clean status, its message, and no leak. */
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_spgemm.h"
#include "rvs_test.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void __real_free(void *p);

/* While armed: allocations are counted, the fail_at-th (1-based; 0: none) fails, and every
 * block handed out is remembered (with its caller) until it is freed. */
#define LIVE_SLOTS 65536
static struct {
    int armed;
    long calls, fail_at;
    long live;
    void *ptr[LIVE_SLOTS];
    void *site[LIVE_SLOTS];
} inj;

/* Slot of p in the live table (open addressing), or of the empty slot where it would go. */
static size_t live_slot(void *p)
{
    size_t h = ((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL % LIVE_SLOTS;
    while (inj.ptr[h] && inj.ptr[h] != p)
        h = (h + 1) % LIVE_SLOTS;
    return h;
}

static void live_add(void *p, void *site)
{
    if (!p || !inj.armed)
        return;
    size_t h = live_slot(p);
    if (!inj.ptr[h] && inj.live < LIVE_SLOTS / 2) {
        inj.ptr[h] = p;
        inj.site[h] = site;
        inj.live++;
    }
}

/* Forget p; later entries of its probe run move up so lookups stay right. */
static void live_remove(void *p)
{
    if (!p || !inj.live)
        return;
    size_t h = live_slot(p);
    if (!inj.ptr[h])
        return;
    inj.ptr[h] = NULL;
    inj.live--;
    for (size_t j = (h + 1) % LIVE_SLOTS; inj.ptr[j]; j = (j + 1) % LIVE_SLOTS) {
        void *q = inj.ptr[j], *s = inj.site[j];
        inj.ptr[j] = NULL;
        size_t k = live_slot(q);
        inj.ptr[k] = q;
        inj.site[k] = s;
    }
}

/* 1 when this allocation is the one to fail. */
static int should_fail(void)
{
    if (!inj.armed)
        return 0;
    long n;
#pragma omp atomic capture
    n = ++inj.calls;
    return n == inj.fail_at;
}

void *__wrap_malloc(size_t n)
{
    if (should_fail())
        return NULL;
    void *p = __real_malloc(n);
#pragma omp critical(rvs_fault_alloc)
    live_add(p, __builtin_return_address(0));
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    void *p = __real_calloc(n, size);
#pragma omp critical(rvs_fault_alloc)
    live_add(p, __builtin_return_address(0));
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    void *q = __real_realloc(p, n);
    if (q) {
#pragma omp critical(rvs_fault_alloc)
        {
            live_remove(p);
            live_add(q, __builtin_return_address(0));
        }
    }
    return q;
}

int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
    if (should_fail())
        return 12; /* ENOMEM */
    int r = __real_posix_memalign(p, align, n);
    if (r == 0) {
#pragma omp critical(rvs_fault_alloc)
        live_add(*p, __builtin_return_address(0));
    }
    return r;
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
    if (should_fail())
        return NULL;
    void *p = __real_aligned_alloc(align, n);
#pragma omp critical(rvs_fault_alloc)
    live_add(p, __builtin_return_address(0));
    return p;
}

void __wrap_free(void *p)
{
#pragma omp critical(rvs_fault_alloc)
    live_remove(p);
    __real_free(p);
}

/* What a scenario works on, built once without injection. */
static struct {
    char *mtx, *sym_mtx, *stream;
    size_t mtx_len, sym_len, stream_len;
    rvs_csr A;
    rvs_partition P;
} in;

/* A scenario: one library call (or a short chain) that frees all it made before returning;
 * status and message of the first failure in *err, and a digest of what it computed in *h, so
 * that a run that recovers from a failed allocation can be checked against one that had none. */
typedef rvs_status (*scenario_fn)(rvs_error *err, uint64_t *h);

/* FNV-1a of n bytes, continuing from h. */
static uint64_t digest(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Digest of a CSR: sizes, row pointers, columns, values. */
static uint64_t digest_csr(uint64_t h, const rvs_csr *A)
{
    h = digest(h, &A->rows, sizeof A->rows);
    h = digest(h, &A->nnz, sizeof A->nnz);
    if (A->rowptr)
        h = digest(h, A->rowptr, (size_t)(A->rows + 1) * sizeof *A->rowptr);
    for (int64_t k = 0; A->rowptr && k < A->nnz; k++) {
        int64_t c = rvs_csr_col(A, k);
        double v = rvs_csr_value(A, k);
        h = digest(h, &c, sizeof c);
        h = digest(h, &v, sizeof v);
    }
    return h;
}

static rvs_status read_mtx(rvs_error *err, uint64_t *h)
{
    rvs_csr A = {0};
    rvs_status st = rvs_mm_parse(&A, NULL, in.mtx, in.mtx_len, err);
    *h = digest_csr(*h, &A);
    rvs_csr_free(&A);
    return st;
}

static rvs_status read_sym_mtx(rvs_error *err, uint64_t *h)
{
    rvs_csr A = {0};
    rvs_status st = rvs_mm_parse(&A, NULL, in.sym_mtx, in.sym_len, err);
    *h = digest_csr(*h, &A);
    rvs_csr_free(&A);
    return st;
}

static rvs_status read_mtx_stdin(rvs_error *err, uint64_t *h)
{
    rvs_csr A = {0};
    FILE *f = fmemopen(in.mtx, in.mtx_len, "rb");
    if (!f)
        return RVS_ERR_IO;
    rvs_status st = rvs_mm_read_stream(&A, NULL, f, NULL, 0, NULL, NULL, err);
    fclose(f);
    *h = digest_csr(*h, &A);
    rvs_csr_free(&A);
    return st;
}

static rvs_status read_stream(rvs_error *err, uint64_t *h)
{
    rvs_stream S;
    FILE *f = fmemopen(in.stream, in.stream_len, "rb");
    if (!f)
        return RVS_ERR_IO;
    rvs_status st = rvs_stream_read(&S, f, NULL, 0, err);
    fclose(f);
    *h = digest_csr(*h, &S.A);
    for (int i = 0; i < S.partition.k; i++)
        *h = digest(*h, &S.partition.parts[i].nnz, sizeof S.partition.parts[i].nnz);
    for (int i = 0; i < S.nfmt; i++)
        for (int a = 0; a < S.fmt[i].fmt.narrays; a++)
            *h = digest(*h, S.fmt[i].fmt.array[a].data,
                        (size_t)S.fmt[i].fmt.array[a].count * rvs_dtype_size(S.fmt[i].fmt.array[a].dtype));
    rvs_stream_free(&S);
    return st;
}

static rvs_status partition_all(rvs_error *err, uint64_t *h)
{
    static const double cp[3] = {1, 2, 6};
    rvs_status st = RVS_OK;
    for (int alg = RVS_ALG_ROWS; alg <= RVS_ALG_DIAG && st == RVS_OK; alg++) {
        rvs_partition P;
        st = rvs_partition_compute(&P, &in.A, (rvs_alg)alg, 3, cp, NULL, 4, err);
        if (st == RVS_OK) {
            for (int i = 0; i < P.k; i++)
                *h = digest(*h, P.parts[i].rows, (size_t)P.parts[i].nrows * sizeof *P.parts[i].rows);
            *h = digest(*h, &P.mean_density, sizeof P.mean_density);
            rvs_partition_free(&P);
        }
    }
    return st;
}

static rvs_status pmf(rvs_error *err, uint64_t *h)
{
    rvs_pmf P = {0};
    rvs_status st = rvs_pmf_compute(&P, &in.A, err);
    if (st == RVS_OK) {
        *h = digest(*h, P.k, (size_t)P.nbins * sizeof *P.k);
        *h = digest(*h, P.b, (size_t)P.nbins * sizeof *P.b);
    }
    rvs_pmf_free(&P);
    return st;
}

/* Every format of every part: build, multiply, back to CSR. */
static rvs_status convert_and_multiply(rvs_error *err, uint64_t *h)
{
    rvs_status st = RVS_OK;
    double x[64], y[64];
    for (int i = 0; i < 64; i++)
        x[i] = 1.0 + i;
    for (int id = RVS_FMT_CSR; id < RVS_FMT_COUNT && st == RVS_OK; id++)
        for (int part = 0; part < in.P.k && st == RVS_OK; part++) {
            rvs_csr S = {0}, B = {0};
            rvs_fmt F = {0};
            rvs_fmt_options o;
            rvs_fmt_options_default(&o);
            o.hcc_np = o.hcc_nb = 2;
            st = rvs_partition_extract(&S, &in.P, part, &in.A, err);
            if (st == RVS_OK)
                st = rvs_fmt_from_csr(&F, (rvs_format_id)id, &S, &o, err);
            if (st == RVS_OK)
                st = rvs_cpu_spmv(&F, x, y, err);
            if (st == RVS_OK)
                *h = digest(*h, y, (size_t)S.rows * sizeof *y);
            if (st == RVS_OK)
                st = rvs_fmt_to_csr(&B, &F, err);
            *h = digest_csr(*h, &B);
            rvs_fmt_free(&F);
            rvs_csr_free(&S);
            rvs_csr_free(&B);
        }
    return st;
}

static rvs_status spgemm(rvs_error *err, uint64_t *h)
{
    rvs_csr C = {0};
    rvs_spgemm_stats stats;
    rvs_status st = rvs_spgemm_cpu(&C, &in.A, &in.A, &stats, err);
    *h = digest_csr(*h, &C);
    rvs_csr_free(&C);
    return st;
}

static rvs_status write_stream(rvs_error *err, uint64_t *h)
{
    rvs_stream S;
    char *mem = NULL;
    size_t len = 0;
    memset(&S, 0, sizeof S);
    S.A = in.A;
    S.partition = in.P;
    S.has_partition = 1;
    FILE *f = open_memstream(&mem, &len);
    if (!f)
        return RVS_ERR_IO;
    rvs_status st = rvs_stream_write(f, &S, err);
    fclose(f);
    *h = digest(*h, mem, len);
    free(mem);
    return st;
}

/* Run fn unarmed to count its allocations, then once failing each of them in turn: each run
 * must fail with "out of memory", or recover and compute what the unarmed run did. */
static void sweep(const char *name, scenario_fn fn)
{
    rvs_error err;
    uint64_t want = 14695981039346656037ULL, got;
    inj.calls = 0;
    inj.fail_at = 0;
    inj.armed = 1;
    rvs_status st = fn(&err, &want);
    inj.armed = 0;
    long total = inj.calls;
    CHECKF(st == RVS_OK && inj.live == 0, "%s: unarmed run: status %d (%s), %ld blocks left", name, (int)st,
           err.msg, inj.live);
    int clean = 1;
    for (long n = 1; n <= total && clean; n++) {
        rvs_error_clear(&err);
        got = 14695981039346656037ULL;
        inj.calls = 0;
        inj.fail_at = n;
        inj.armed = 1;
        st = fn(&err, &got);
        inj.armed = 0;
        if (st != RVS_OK && (st != RVS_ERR_NOMEM || err.code != st || !strstr(err.msg, "memory"))) {
            CHECKF(0, "%s: allocation %ld of %ld failed: status %d '%s', want out of memory", name, n, total,
                   (int)st, err.msg);
            clean = 0;
        }
        if (st == RVS_OK && got != want) {
            CHECKF(0, "%s: allocation %ld of %ld failed, the call succeeded with a different result", name, n,
                   total);
            clean = 0;
        }
        if (inj.live) {
            for (size_t h = 0; h < LIVE_SLOTS; h++)
                if (inj.ptr[h]) {
                    fprintf(stderr, "%s: allocation %ld failed: block %p from %p not freed\n", name, n, inj.ptr[h],
                            inj.site[h]);
                    break;
                }
            CHECKF(0, "%s: allocation %ld of %ld failed: %ld blocks leaked", name, n, total, inj.live);
            memset(inj.ptr, 0, sizeof inj.ptr);
            inj.live = 0;
            clean = 0;
        }
    }
    printf("%-22s %5ld allocations, each failed once: %s\n", name, total, clean ? "clean" : "FAILED");
}

/* Case name -> scenario; a test per case (fault_alloc_<name>), or all without an argument. */
static const struct {
    const char *name;
    scenario_fn fn;
} scenarios[] = {
    {"read_mtx", read_mtx},
    {"read_sym_mtx", read_sym_mtx},
    {"read_mtx_stdin", read_mtx_stdin},
    {"read_stream", read_stream},
    {"pmf", pmf},
    {"partition", partition_all},
    {"convert_multiply", convert_and_multiply},
    {"spgemm", spgemm},
    {"write_stream", write_stream},
};

/* The inputs: pmf20 as text, a symmetric text, and a stream with a partition and blocks. */
static int build_inputs(void)
{
    rvs_error err;
    char path[1024];
    const char *data = getenv("RVS_DATA");
    snprintf(path, sizeof path, "%s/pmf20.mtx", data ? data : "data");
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t cap = 1 << 16;
    in.mtx = malloc(cap);
    in.mtx_len = fread(in.mtx, 1, cap, f);
    fclose(f);
    static const char sym[] = "%%MatrixMarket matrix coordinate real symmetric\n4 4 6\n1 1 4\n2 1 1\n"
                              "3 2 -2\n3 3 5\n4 1 7\n4 4 1\n";
    in.sym_mtx = (char *)sym;
    in.sym_len = sizeof sym - 1;
    static const double cp[3] = {1, 2, 6};
    if (rvs_mm_parse(&in.A, NULL, in.mtx, in.mtx_len, &err) != RVS_OK)
        return 0;
    /* the text the readers get: the entries backwards (rows to sort) and one twice (to sum) */
    size_t cap2 = (size_t)in.A.nnz * 48 + 128, len = 0;
    char *t = malloc(cap2);
    len = (size_t)snprintf(t, cap2, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
                           (long long)in.A.rows, (long long)in.A.cols, (long long)in.A.nnz + 1);
    for (int64_t r = in.A.rows - 1; r >= 0; r--)
        for (int64_t k = in.A.rowptr[r + 1] - 1; k >= in.A.rowptr[r]; k--)
            len += (size_t)snprintf(t + len, cap2 - len, "%lld %lld %.17g\n", (long long)r + 1,
                                    (long long)rvs_csr_col(&in.A, k) + 1, rvs_csr_value(&in.A, k));
    len += (size_t)snprintf(t + len, cap2 - len, "1 %lld 0.5\n", (long long)rvs_csr_col(&in.A, 0) + 1);
    free(in.mtx);
    in.mtx = t;
    in.mtx_len = len;
    if (rvs_partition_compute(&in.P, &in.A, RVS_ALG_PMF, 3, cp, NULL, 0, &err) != RVS_OK)
        return 0;
    rvs_stream S;
    memset(&S, 0, sizeof S);
    S.A = in.A;
    S.partition = in.P;
    S.has_partition = 1;
    S.fmt = calloc(3, sizeof *S.fmt);
    static const rvs_format_id ids[3] = {RVS_FMT_HYB, RVS_FMT_JAD, RVS_FMT_HCC};
    for (int i = 0; i < 3; i++) {
        rvs_csr P;
        S.fmt[i].part = i;
        if (rvs_partition_extract(&P, &in.P, i, &in.A, &err) != RVS_OK ||
            rvs_fmt_from_csr(&S.fmt[i].fmt, ids[i], &P, NULL, &err) != RVS_OK)
            return 0;
        S.nfmt++;
        rvs_csr_free(&P);
    }
    FILE *m = open_memstream(&in.stream, &in.stream_len);
    if (!m || rvs_stream_write(m, &S, &err) != RVS_OK)
        return 0;
    fclose(m);
    rvs_stream_drop_formats(&S);
    return 1;
}

int main(int argc, char **argv)
{
    omp_set_num_threads(1); /* the Nth allocation is the same one every run */
    CHECK(build_inputs());
    int ran = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
        if (argc < 2 || strcmp(argv[1], scenarios[i].name) == 0) {
            sweep(scenarios[i].name, scenarios[i].fn);
            ran++;
        }
    if (!ran) {
        fprintf(stderr, "fault_alloc: no scenario '%s'\n", argv[1]);
        return 2;
    }
    rvs_partition_free(&in.P);
    rvs_csr_free(&in.A);
    free(in.mtx);
    free(in.stream);
    return rvs_test_done();
}
