/* test_spgemm_cpu.c - the CPU SpGEMM (and its row-list form) on every case against the row-merge
 * reference of the check, and CSparse's own product against it (the check's reference agrees
 * with CSparse on every case); the engine's host parts: hybrid split, the automatic choice and its rates file, and the sinks
 * that write C block by block (byte for byte what the whole-matrix writers write) */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "spgemm_cases.h"

/* The CPU kernel on a reversed row list, reassembled: the same C as the plain kernel. */
static void check_row_list(void)
{
    rvs_csr A, C, R;
    rvs_error err;
    int64_t rows[40];
    CHECK(rvs_test_random_csr(&A, 40, 40, 0.2, 1, 5) == RVS_OK);
    for (int i = 0; i < 40; i++)
        rows[i] = 39 - i;
    CHECK_OK(rvs_spgemm_cpu(&C, &A, &A, NULL, &err), &err);
    CHECK_OK(rvs_spgemm_cpu_rows(&R, &A, &A, rows, 40, NULL, &err), &err);
    for (int j = 0; j < 40 && R.rows == 40; j++) {
        int64_t i = rows[j], n = C.rowptr[i + 1] - C.rowptr[i];
        CHECK(R.rowptr[j + 1] - R.rowptr[j] == n);
        for (int64_t t = 0; t < n && R.rowptr[j + 1] - R.rowptr[j] == n; t++)
            CHECK(R.colind[R.rowptr[j] + t] == C.colind[C.rowptr[i] + t] &&
                  rvs_csr_value(&R, R.rowptr[j] + t) == rvs_csr_value(&C, C.rowptr[i] + t));
    }
    rvs_csr_free(&A);
    rvs_csr_free(&C);
    rvs_csr_free(&R);
}

/* The hybrid split: long rows only (> 8 x mean, >= 1024 products), largest first, within the
 * CPU share. Products per row are given directly: 10 each, row 10: 5000, row 50: 3000. */
static void check_split(void)
{
    int64_t *rows = NULL, n = 0, prodptr[101];
    rvs_csr A;
    rvs_error err;
    rvs_spgemm_options o;
    memset(&o, 0, sizeof o);
    memset(&A, 0, sizeof A);
    A.rows = 100;
    prodptr[0] = 0;
    for (int i = 0; i < 100; i++)
        prodptr[i + 1] = prodptr[i] + (i == 10 ? 5000 : i == 50 ? 3000 : 10);
    o.hybrid_cpu_share = 1;
    CHECK_OK(rvs_spgemm_hybrid_split(&A, prodptr, &o, &rows, &n, &err), &err);
    CHECKF(n == 2 && rows[0] == 10 && rows[1] == 50, "%lld rows", (long long)n);
    free(rows);
    o.hybrid_cpu_share = 0.4; /* 3592 products: row 10 does not fit, 50 does */
    CHECK_OK(rvs_spgemm_hybrid_split(&A, prodptr, &o, &rows, &n, &err), &err);
    CHECKF(n == 1 && rows[0] == 50, "%lld rows", (long long)n);
    free(rows);
    o.hybrid_cpu_share = 1e-9; /* nothing fits */
    CHECK_OK(rvs_spgemm_hybrid_split(&A, prodptr, &o, &rows, &n, &err), &err);
    CHECK(n == 0);
    free(rows);
}

/* The model: CPU below the crossover, GPU above, CPU without a GPU, hybrid when the two
 * rates are close, the device's start-up still to come moving the crossover; the rates file
 * round trip and its errors. */
static void check_choice(void)
{
    rvs_engine_devices d = {16, 1, "test", 0};
    rvs_spgemm_rates r = {.cpu_rate = 1e9,
                          .cpu_threads = 16,
                          .gpu_rate = 1e10,
                          .gpu_fixed_s = 1e-3,
                          .cpu_fixed_s = 0,
                          .gpu_start_s = 0.25},
                     q;
    rvs_error err;
    char why[256], path[512];
    double share = -1;
    /* t_cpu = P / 1e9, t_gpu = 1e-3 + P / 1e10: equal at P = 1.11e6 */
    CHECK(rvs_spgemm_choose(1000000, &d, &r, 0, &share, why, sizeof why) == RVS_SPGEMM_ON_CPU && share == 0);
    CHECK(rvs_spgemm_choose(1300000, &d, &r, 0, &share, why, sizeof why) == RVS_SPGEMM_ON_GPU);
    CHECKF(strstr(why, "gpu") != NULL && strstr(why, "start") == NULL, "why: %s", why);
    /* 0.1 s of start-up left: t_gpu = 0.101 + P / 1e10, equal at P = 1.12e8 */
    CHECK(rvs_spgemm_choose(100000000, &d, &r, 0.1, &share, why, sizeof why) == RVS_SPGEMM_ON_CPU);
    CHECKF(strstr(why, "0.1 s of them the device's start") != NULL, "why: %s", why);
    CHECK(rvs_spgemm_choose(130000000, &d, &r, 0.1, &share, why, sizeof why) == RVS_SPGEMM_ON_GPU);
    r.cpu_fixed_s = 1e-3; /* a fixed CPU cost moves the crossover down: 1e-3 + P/1e9 = 1e-3 + P/1e10 at 0 */
    CHECK(rvs_spgemm_choose(1000, &d, &r, 0, &share, why, sizeof why) == RVS_SPGEMM_ON_GPU);
    r.cpu_fixed_s = 0;
    d.cpu_threads = 8; /* half the threads: half the CPU rate, the crossover halves */
    CHECK(rvs_spgemm_choose(600000, &d, &r, 0, &share, why, sizeof why) == RVS_SPGEMM_ON_GPU);
    d.gpus = 0;
    CHECK(rvs_spgemm_choose(1000000000, &d, &r, 0, &share, why, sizeof why) == RVS_SPGEMM_ON_CPU);
    d.gpus = 1;
    d.cpu_threads = 16;
    r.gpu_rate = 1.2e9; /* similar rates: together 2.2e9, 45% on the CPU */
    CHECK(rvs_spgemm_choose(1000000000, &d, &r, 0, &share, why, sizeof why) == RVS_SPGEMM_ON_HYBRID);
    CHECKF(share > 0.44 && share < 0.46, "share %g", share);
    snprintf(path, sizeof path, "%s/spgemm-rates-%ld", getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp",
             (long)getpid());
    setenv("RVS_SPGEMM_CALIBRATION", path, 1);
    remove(path);
    CHECK(rvs_spgemm_rates_load(&q, &err) == RVS_ERR_NOFILE);
    CHECK_OK(rvs_spgemm_rates_save(&r, &err), &err);
    CHECK_OK(rvs_spgemm_rates_load(&q, &err), &err);
    CHECK(q.measured == 1 && q.cpu_threads == 16 && q.cpu_rate == 1e9 && q.gpu_rate == 1.2e9 &&
          q.gpu_fixed_s == 1e-3 && q.gpu_start_s == 0.25 && q.cpu_fixed_s == 0);
    FILE *f = fopen(path, "w"); /* a file of the four rates alone keeps the built-in start-up */
    CHECK(f != NULL);
    if (f) {
        fputs("cpu_rate 2e9\ncpu_threads 8\ngpu_rate 3e9\ngpu_fixed 0.002\n", f);
        fclose(f);
    }
    CHECK_OK(rvs_spgemm_rates_load(&q, &err), &err);
    rvs_spgemm_rates_default(&r);
    CHECK(q.cpu_rate == 2e9 && q.gpu_fixed_s == 0.002 && q.gpu_start_s == r.gpu_start_s &&
          q.cpu_fixed_s == r.cpu_fixed_s);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("cpu_rate 1e9\nwhat 3\n", f);
        fclose(f);
    }
    CHECK(rvs_spgemm_rates_load(&q, &err) == RVS_ERR_FORMAT);
    CHECKF(strstr(err.msg, "line 2") != NULL, "message '%s'", err.msg);
    remove(path);
    unsetenv("RVS_SPGEMM_CALIBRATION");
}

/* The choice from a sample of A's entries: the estimate in why within a quarter of the whole
 * count on even rows and within half on rows of very different lengths (the margin is 4x);
 * below 2^18 entries the count is whole. Without a GPU the choice is the CPU at any count, so
 * the sample always decides here; a GPU machine counts whole near the crossover. */
static void check_decide_sampled(void)
{
    rvs_csr A = {0}, S = {0}, T = {0};
    rvs_error err;
    char why[256];
    double share;
    rvs_spgemm_where w;
    int64_t exact = 0, len[30000];
    for (int i = 0; i < 30000; i++)
        len[i] = i % 101 == 0 ? 3000 : 1 + i % 7;
    CHECK_OK(rvs_test_random_csr(&A, 20000, 20000, 0.001, 1, 41), &err);
    CHECK_OK(rvs_test_csr_from_lengths(&S, len, 30000, 30000), &err);
    CHECK_OK(rvs_test_random_csr(&T, 2000, 2000, 0.01, 1, 42), &err);
    const rvs_csr *M[2] = {&A, &S};
    const double tol[2] = {0.25, 0.5};
    for (int k = 0; k < 2; k++) {
        double est = -1;
        CHECK(M[k]->nnz >= 1 << 18);
        CHECK_OK(rvs_spgemm_count_products(M[k], M[k], &exact, &err), &err);
        CHECK_OK(rvs_spgemm_decide(M[k], M[k], &w, &share, why, sizeof why, &err), &err);
        if (strstr(why, "(sampled)")) {
            CHECKF(sscanf(why, "about %lf products", &est) == 1 &&
                       fabs(est - (double)exact) <= tol[k] * (double)exact,
                   "case %d: sampled estimate %g, %lld products: %s", k, est, (long long)exact, why);
        } else { /* counted whole (near a change of choice, with a GPU): the reason names the count */
            CHECKF(rvs_test_have_gpu(), "case %d: counted whole without a GPU: %s", k, why);
            CHECKF(sscanf(why, "%lf products", &est) == 1 && fabs(est - (double)exact) <= 1e-2 * (double)exact,
                   "case %d: whole count %lld, reason: %s", k, (long long)exact, why);
        }
    }
    CHECK_OK(rvs_spgemm_decide(&T, &T, &w, &share, why, sizeof why, &err), &err);
    CHECKF(T.nnz < 1 << 18 && strstr(why, "(sampled)") == NULL && strstr(why, "about") == NULL, "small: %s", why);
    /* 30000 columns against 20000 rows: refused before any sample */
    CHECK(rvs_spgemm_decide(&S, &A, &w, &share, why, sizeof why, &err) != RVS_OK);
    rvs_csr_free(&A);
    rvs_csr_free(&S);
    rvs_csr_free(&T);
}

/* The whole content of f. */
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

/* A sink fed C in blocks of about `per` entries writes what the whole-matrix writer writes. */
static void check_sink(const rvs_csr *C, int mtx, int64_t per)
{
    FILE *a = tmpfile(), *b = tmpfile();
    rvs_spgemm_sink k;
    rvs_stream S;
    rvs_csr shape = *C;
    rvs_error err;
    long na = 0, nb = 0;
    CHECK(a && b);
    if (!a || !b)
        return;
    memset(&S, 0, sizeof S);
    S.A = *C;
    snprintf(S.name, sizeof S.name, "A*A");
    CHECK_OK(mtx ? rvs_mm_write_coordinate(a, C, 0, &err) : rvs_stream_write(a, &S, &err), &err);
    CHECK_OK(mtx ? rvs_spgemm_mtx_sink(&k, b, 0, &err) : rvs_spgemm_stream_sink(&k, b, "A*A", &err), &err);
    shape.colind = NULL;
    shape.values = NULL;
    CHECK_OK(k.begin(&k, &shape, &err), &err);
    for (int64_t r0 = 0, r1; r0 < C->rows; r0 = r1) {
        for (r1 = r0 + 1; r1 < C->rows && C->rowptr[r1 + 1] - C->rowptr[r0] <= per; r1++)
            ;
        const int64_t o = C->rowptr[r0];
        CHECK_OK(k.rows(&k, &shape, r0, r1, C->colind + o, (char *)C->values + o * rvs_vtype_size(C->vtype), &err),
                 &err);
    }
    CHECK_OK(rvs_spgemm_sink_finish(&k, &err), &err);
    rvs_spgemm_sink_free(&k);
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    CHECKF(x && y && na == nb && memcmp(x, y, (size_t)na) == 0, "%s sink: %ld bytes, writer %ld",
           mtx ? "mtx" : "stream", nb, na);
    free(x);
    free(y);
    fclose(a);
    fclose(b);
}

/* The sinks on C of a random product, f64 and f32, in small and whole blocks; a stream sink
 * refuses what it cannot seek in. */
static void check_sinks(void)
{
    rvs_csr A, C;
    rvs_spgemm_sink k;
    rvs_error err;
    CHECK(rvs_test_random_csr(&A, 300, 300, 0.03, 1, 21) == RVS_OK);
    for (int f32 = 0; f32 < 2; f32++) {
        if (f32)
            CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
        CHECK_OK(rvs_spgemm_cpu(&C, &A, &A, NULL, &err), &err);
        for (int mtx = 0; mtx < 2; mtx++) {
            check_sink(&C, mtx, 100);
            check_sink(&C, mtx, C.nnz);
        }
        rvs_csr_free(&C);
    }
    FILE *p = popen("cat >/dev/null", "w");
    CHECK(p != NULL);
    if (p) {
        CHECK(rvs_spgemm_stream_sink(&k, p, "x", &err) == RVS_ERR_ARG);
        pclose(p);
    }
    rvs_csr_free(&A);
}

/* CSparse's cs_dl_multiply (cs_cl_multiply) as a method: its double product in A's type, the
 * stats counted here. Run through every case, it is the check's reference that is tested. */
static rvs_status csparse_method(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s,
                                 rvs_error *err)
{
    int64_t *pp = malloc((size_t)(A->rows + 1) * sizeof *pp);
    rvs_status st = pp ? rvs_spgemm_row_products(pp, A, B, err) : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    memset(C, 0, sizeof *C);
    if (s)
        memset(s, 0, sizeof *s);
    if (st == RVS_OK && (st = rvs_spgemm_csparse(C, A, B, NULL, err)) == RVS_OK) {
        if (s) {
            s->products = pp[A->rows];
            s->nnz_c = C->nnz;
        }
        st = rvs_csr_convert_values(C, A->vtype, err);
    }
    free(pp);
    return st;
}

int main(void)
{
    static const spgemm_method cpu[] = {{"cpu", rvs_spgemm_cpu}, {"csparse", csparse_method}};
    case_bins(cpu, 2, NULL);
    case_row_lengths(cpu, 2, NULL);
    spgemm_all_cases(cpu, 2, 2000000);
    check_row_list();
    check_split();
    check_choice();
    check_decide_sampled();
    check_sinks();
    if (!rvs_test_matrices_dir()) {
        fprintf(stderr, "RVS_MATRICES not set or INDEX.tsv missing: shared matrices skipped\n");
        return rvs_test_done() ? 1 : RVS_TEST_SKIP;
    }
    return rvs_test_done();
}
