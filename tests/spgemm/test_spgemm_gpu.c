/* test_spgemm_gpu.c - the GPU methods (row-wise with its output poisoned, in one pass under a
 * normal budget and in two under 1 MiB; hySpMM) and the hybrid on every case; every bin of the
 * row-wise method's two passes and of its one pass, rows of C of 1 to 10^4 entries; budgets far
 * smaller than C (many blocks, rows left to the CPU); C written block by block to files; the
 * kernel-only mode in both; the warm cuSPARSE baseline */
#include <math.h>
#include "spgemm_cases.h"
#include "rvs_gpu.h"

/* Each method: the GPU with its options. */
static rvs_status with(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err,
                       int method, size_t mem, int hybrid, double share)
{
    rvs_spgemm_options o;
    memset(&o, 0, sizeof o);
    o.method = method;
    o.gpu_mem_bytes = mem;
    o.poison = 1;
    if (share > 0) {
        o.hybrid_cpu_share = share;
        o.hybrid_long_factor = 1.5; /* a split that really gives the CPU rows */
    }
    return hybrid ? rvs_spgemm_hybrid(C, A, B, &o, s, err) : rvs_spgemm_gpu(C, A, B, &o, s, err);
}
static rvs_status rowwise(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    return with(C, A, B, s, err, RVS_SPGEMM_ROWWISE, 0, 0, 0);
}
static rvs_status rowwise_1m(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    return with(C, A, B, s, err, RVS_SPGEMM_ROWWISE, 1 << 20, 0, 0);
}
static rvs_status rowwise_32k(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    return with(C, A, B, s, err, RVS_SPGEMM_ROWWISE, 32 << 10, 0, 0);
}
static rvs_status hyspmm(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    return with(C, A, B, s, err, RVS_SPGEMM_HYSPMM, 0, 0, 0);
}
static rvs_status hybrid(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    return with(C, A, B, s, err, RVS_SPGEMM_ROWWISE, 0, 1, 0);
}
static rvs_status hybrid_split(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    return with(C, A, B, s, err, RVS_SPGEMM_ROWWISE, 0, 1, 0.5);
}

/* Fig. 3.1 on the device, both methods: C exact. */
static void check_golden(void)
{
    static const int64_t ar[] = {0, 1, 1, 1, 2, 3}, ac[] = {0, 1, 2, 3, 3, 1};
    static const double av[] = {10, 20, 30, 40, 50, 60};
    static const int64_t br[] = {0, 1, 1, 2, 2, 3, 3}, bc[] = {0, 1, 3, 0, 1, 1, 3};
    static const double bv[] = {1, 2, 3, 4, 5, 6, 7};
    static const double cv[] = {10, 120, 430, 340, 300, 350, 120, 180};
    static const spgemm_fn f[] = {rowwise, hyspmm};
    rvs_csr A, B, C;
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(&A, 4, 4, 6, ar, ac, av, RVS_F64, &err), &err);
    CHECK_OK(rvs_csr_from_coo(&B, 4, 4, 7, br, bc, bv, RVS_F64, &err), &err);
    for (int k = 0; k < 2; k++) {
        rvs_status st = f[k](&C, &A, &B, NULL, &err);
        CHECK_OK(st, &err);
        for (int e = 0; st == RVS_OK && e < 8 && C.nnz == 8; e++)
            CHECKF(rvs_csr_value(&C, e) == cv[e], "method %d: C value %d: %g, want %g", k, e, rvs_csr_value(&C, e),
                   cv[e]);
        CHECK(st != RVS_OK || C.nnz == 8);
        rvs_csr_free(&C);
    }
    rvs_csr_free(&A);
    rvs_csr_free(&B);
}

/* Every bin of the row-wise method gets rows; with 32 KiB there is no dense scratch and the
 * long rows go to the CPU. */
static void check_bins(void)
{
    static const spgemm_method m[] = {
        {"rowwise", rowwise}, {"rowwise 1 MiB", rowwise_1m}, {"rowwise 32 KiB", rowwise_32k}};
    rvs_spgemm_stats s[3];
    memset(s, 0, sizeof s);
    case_bins(m, 3, s);
    CHECKF(s[0].rows_esc > 0 && s[0].rows_hash > 0 && s[0].rows_dense > 0 && s[0].cpu_rows == 0,
           "esc %lld hash %lld dense %lld cpu %lld", (long long)s[0].rows_esc, (long long)s[0].rows_hash,
           (long long)s[0].rows_dense, (long long)s[0].cpu_rows);
    CHECKF(s[1].blocks > 1 && s[1].cpu_rows == 0, "1 MiB: %lld blocks", (long long)s[1].blocks);
    CHECKF(s[2].cpu_rows > 0 && s[2].blocks > 10, "32 KiB: %lld CPU rows, %lld blocks", (long long)s[2].cpu_rows,
           (long long)s[2].blocks);
}

/* Rows of C of 1 to 10^4 entries through every bin: one pass in one block under the default
 * budget, two passes in several under 1 MiB. */
static void check_row_lengths(void)
{
    static const spgemm_method m[] = {{"rowwise", rowwise}, {"rowwise 1 MiB", rowwise_1m}, {"hybrid", hybrid}};
    rvs_spgemm_stats s[3];
    memset(s, 0, sizeof s);
    case_row_lengths(m, 3, s);
    CHECKF(s[0].blocks == 1 && s[0].rows_esc > 0 && s[0].rows_hash > 0 && s[0].rows_dense > 0 && s[0].cpu_rows == 0,
           "one pass: %lld blocks, esc %lld hash %lld dense %lld", (long long)s[0].blocks, (long long)s[0].rows_esc,
           (long long)s[0].rows_hash, (long long)s[0].rows_dense);
    CHECKF(s[1].blocks > 1, "1 MiB: %lld blocks", (long long)s[1].blocks);
}

/* A product many times the budget: many blocks, and rows too big for a block on the CPU. */
static void check_small_budgets(void)
{
    rvs_csr A, C;
    rvs_spgemm_stats s;
    rvs_spgemm_options o;
    rvs_error err;
    double maxerr;
    CHECK(rvs_test_random_csr(&A, 3000, 3000, 0.01, 1, 7) == RVS_OK); /* ~2.7M products */
    memset(&o, 0, sizeof o);
    o.poison = 1;
    o.gpu_mem_bytes = 256u << 10; /* row-wise, 256 KiB: C is ~100 times that */
    CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &o, &s, &err), &err);
    CHECKF(s.blocks >= 10 && s.cpu_rows == 0, "%lld blocks, %lld CPU rows", (long long)s.blocks,
           (long long)s.cpu_rows);
    CHECKF(s.nnz_c * 12 > 10 * (int64_t)o.gpu_mem_bytes, "C of %lld entries is not many times the budget",
           (long long)s.nnz_c);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    rvs_csr_free(&C);
    o.gpu_mem_bytes = 32u << 10; /* no dense scratch, rows longer than a block */
    CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &o, &s, &err), &err);
    CHECKF(s.cpu_rows > 0 && s.blocks > 100, "%lld CPU rows, %lld blocks", (long long)s.cpu_rows,
           (long long)s.blocks);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    rvs_csr_free(&C);
    memset(&o, 0, sizeof o); /* hySpMM: row blocks from 4 MiB */
    o.method = RVS_SPGEMM_HYSPMM;
    o.gpu_mem_bytes = 4u << 20;
    CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &o, &s, &err), &err);
    CHECKF(s.blocks >= 10, "%lld blocks", (long long)s.blocks);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    rvs_csr_free(&C);
    o.max_block_products = 200; /* every row too big: all on the CPU */
    o.gpu_mem_bytes = 0;
    CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &o, &s, &err), &err);
    CHECKF(s.cpu_rows > 0, "%lld CPU rows", (long long)s.cpu_rows);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    rvs_csr_free(&C);
    rvs_csr_free(&A);
}

/* Whole content of f. */
static char *slurp(FILE *f, long *n)
{
    char *b;
    fflush(f);
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    rewind(f);
    b = malloc((size_t)*n + 1);
    if (b && fread(b, 1, (size_t)*n, f) != (size_t)*n) {
        free(b);
        b = NULL;
    }
    return b;
}

/* C from the device to files block by block (many blocks, some rows from the CPU; and in one
 * pass) equals the writers' files of the CPU's C: non-zero integer values make every sum exact
 * in any order. */
static void check_sinks(void)
{
    static const size_t budget[2] = {24u << 10, 0};
    rvs_csr A, R, C;
    rvs_stream S;
    rvs_spgemm_options o;
    rvs_spgemm_stats s;
    rvs_error err;
    CHECK(rvs_test_random_csr(&A, 2000, 2000, 0.01, 1, 31) == RVS_OK);
    for (int64_t e = 0; e < A.nnz; e++) { /* no zeros: a sum of -0.0 products is -0.0 or +0.0 */
        const double v = round(4 * ((double *)A.values)[e]);
        ((double *)A.values)[e] = v != 0 ? v : 1;
    }
    CHECK_OK(rvs_spgemm_cpu(&R, &A, &A, NULL, &err), &err);
    memset(&o, 0, sizeof o);
    for (int q = 0; q < 4; q++) {
        const int mtx = q % 2;
        FILE *want = tmpfile(), *got = tmpfile();
        rvs_spgemm_sink k;
        long nw = 0, ng = 0;
        o.gpu_mem_bytes = budget[q / 2];
        CHECK(want && got);
        if (!want || !got)
            break;
        memset(&S, 0, sizeof S);
        S.A = R;
        snprintf(S.name, sizeof S.name, "A*A");
        CHECK_OK(mtx ? rvs_mm_write_coordinate(want, &R, 0, &err) : rvs_stream_write(want, &S, &err), &err);
        CHECK_OK(mtx ? rvs_spgemm_mtx_sink(&k, got, 0, &err) : rvs_spgemm_stream_sink(&k, got, "A*A", &err), &err);
        CHECK_OK(rvs_spgemm_gpu_to(&k, &C, &A, &A, &o, &s, &err), &err);
        CHECK_OK(rvs_spgemm_sink_finish(&k, &err), &err);
        rvs_spgemm_sink_free(&k);
        if (o.gpu_mem_bytes)
            CHECKF(s.blocks > 10 && s.cpu_rows > 0 && C.colind == NULL && C.nnz == R.nnz,
                   "%lld blocks, %lld CPU rows", (long long)s.blocks, (long long)s.cpu_rows);
        else
            CHECKF(s.blocks == 1 && s.cpu_rows == 0 && C.colind == NULL && C.nnz == R.nnz, "one pass: %lld blocks",
                   (long long)s.blocks);
        char *x = slurp(want, &nw), *y = slurp(got, &ng);
        CHECKF(x && y && nw == ng && memcmp(x, y, (size_t)nw) == 0, "%s, budget %zu: %ld bytes, want %ld",
               mtx ? "mtx" : "stream", o.gpu_mem_bytes, ng, nw);
        free(x);
        free(y);
        rvs_csr_free(&C);
        fclose(want);
        fclose(got);
    }
    rvs_csr_free(&R);
    rvs_csr_free(&A);
}

/* Kernel-only, in one pass and in two: every row computed, C's row offsets those of the CPU's
 * C, a time. */
static void check_kernel_only(void)
{
    rvs_csr A, C, R;
    rvs_spgemm_options o;
    rvs_spgemm_stats s;
    rvs_error err;
    CHECK(rvs_test_random_csr(&A, 3000, 3000, 0.01, 1, 8) == RVS_OK);
    CHECK_OK(rvs_spgemm_cpu(&R, &A, &A, NULL, &err), &err);
    for (int passes = 1; passes <= 2; passes++) {
        int same = 1;
        memset(&o, 0, sizeof o);
        o.kernel_only = 1;
        o.passes = passes;
        CHECK_OK(rvs_spgemm_gpu(&C, &A, &A, &o, &s, &err), &err);
        for (int64_t i = 0; i <= A.rows && C.rowptr; i++)
            same &= C.rowptr[i] == R.rowptr[i];
        CHECKF(same && C.nnz == R.nnz && C.colind == NULL && s.t_kernel > 0 && s.t_kernel <= s.t_total,
               "%d passes: kernel %g s of %g", passes, s.t_kernel, s.t_total);
        rvs_csr_free(&C);
    }
    rvs_csr_free(&A);
    rvs_csr_free(&R);
}

/* cuSPARSE, warm, agrees with CSparse and reports times and memory. */
static void check_cusparse(void)
{
    rvs_csr A, C;
    rvs_error err;
    double ks = 0, ts = 0, maxerr;
    int alg = 0;
    size_t peak = 0;
    CHECK(rvs_test_random_csr(&A, 500, 500, 0.02, 1, 9) == RVS_OK);
    CHECK_OK(rvs_spgemm_cusparse(&C, &A, &A, 3, 1, &ks, &ts, &alg, &peak, &err), &err);
    CHECK_OK(rvs_spgemm_check(&C, &A, &A, 1e-10, &maxerr, &err), &err);
    CHECK(alg == 1 && ts >= ks && ks > 0 && peak > 0);
    rvs_csr_free(&A);
    rvs_csr_free(&C);
}

int main(void)
{
    static const spgemm_method all[] = {{"rowwise", rowwise},
                                        {"rowwise 1 MiB", rowwise_1m},
                                        {"hyspmm", hyspmm},
                                        {"hybrid", hybrid},
                                        {"hybrid split", hybrid_split}};
    if (rvs_gpu_count() == 0) {
        fprintf(stderr, "no GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    check_golden();
    check_bins();
    check_row_lengths();
    check_small_budgets();
    check_sinks();
    check_kernel_only();
    check_cusparse();
    spgemm_all_cases(all, 5, 20000000);
    rvs_spgemm_gpu_release();
    return rvs_test_done();
}
