/* test_complex.c - complex values (c64, c128) on the CPU: every format built, validated and
 * back to CSR bit for bit, and multiplied into a NaN-poisoned y, checked against CXSparse's
 * cs_cl_gaxpy; format options that change the layout; the stream (version 1.2 only for
 * complex); the Matrix Market writer and reader (complex, hermitian, symmetric, skew) round
 * trip; value conversions; triplets with duplicates; the engine's plans over partitions. */
#include <complex.h>
#include <unistd.h>
#include "complex_cases.h"
#include "engine_cases.h"
#include "rvs_cpu.h"

/* The CPU kernels as a runner. */
static rvs_status cpu_run(const rvs_fmt *F, const void *x, void *y, const rvs_gpu_tune *t, rvs_error *err)
{
    (void)t;
    return rvs_cpu_spmv(F, x, y, err);
}

/* Every format of every test matrix, in c128 and c64; layout options of HYB, HCC and DIA. */
static void check_formats(void)
{
    for (int m = 0; m < CX_NMATRICES; m++) {
        rvs_csr A = {0};
        const char *name;
        CHECK_OK(cx_matrix(m, &A, &name), &(rvs_error){0});
        for (int f = 0; f < CX_NFORMATS; f++) {
            cx_check(cpu_run, &A, cx_formats[f], RVS_C128, NULL, NULL, name);
            cx_check(cpu_run, &A, cx_formats[f], RVS_C64, NULL, NULL, name);
        }
        rvs_fmt_options o;
        rvs_fmt_options_default(&o);
        const int64_t hyb_k[3] = {0, 2, RVS_HYB_K_THIRD};
        for (int k = 0; k < 3; k++) {
            o.hyb_k = hyb_k[k];
            cx_check(cpu_run, &A, RVS_FMT_HYB, RVS_C128, NULL, &o, name);
            cx_check(cpu_run, &A, RVS_FMT_HYBDIA, RVS_C64, NULL, &o, name);
        }
        rvs_fmt_options_default(&o);
        o.hcc_np = 1;
        o.hcc_nb = 50; /* small blocks: rows split across blocks, added atomically */
        cx_check(cpu_run, &A, RVS_FMT_HCC, RVS_C128, NULL, &o, name);
        o.hcc_g = 8;
        cx_check(cpu_run, &A, RVS_FMT_HCC, RVS_C64, NULL, &o, name);
        rvs_csr_free(&A);
    }
    CHECKF(cx_ran > 150, "only %d runs (%d refused)", cx_ran, cx_refused);
}

/* A complex stream round trip: hub and blocks come back bit for bit, the prelude says 1.2;
 * the same matrix real says 1.1. */
static void check_stream(void)
{
    const char *tmp = getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp";
    char path[1024];
    rvs_stream S = {0}, R = {0};
    rvs_error err;
    const char *name;
    snprintf(path, sizeof path, "%s/complex.%ld.rvs", tmp, (long)getpid());
    CHECK_OK(cx_matrix(0, &S.A, &name), &err);
    snprintf(S.name, sizeof S.name, "complex test");
    S.fmt = calloc(2, sizeof *S.fmt);
    S.nfmt = 2;
    S.fmt[0].part = -1;
    CHECK_OK(rvs_fmt_from_csr(&S.fmt[0].fmt, RVS_FMT_ELLR, &S.A, NULL, &err), &err);
    rvs_csr c64 = {0};
    CHECK_OK(rvs_csr_copy(&c64, &S.A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&c64, RVS_C64, &err), &err);
    S.fmt[1].part = -1;
    CHECK_OK(rvs_fmt_from_csr(&S.fmt[1].fmt, RVS_FMT_HCC, &c64, NULL, &err), &err);
    for (int real = 0; real < 2; real++) {
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (!f)
            break;
        CHECK_OK(rvs_stream_write(f, &S, &err), &err);
        fclose(f);
        unsigned char head[12];
        f = fopen(path, "rb");
        CHECK(f && fread(head, 1, 12, f) == 12);
        CHECKF(head[8] == 1 && head[10] == (real ? 1 : 3), "%s stream written as %u.%u", real ? "real" : "complex",
               head[8], head[10]);
        rewind(f);
        CHECK_OK(rvs_stream_read(&R, f, NULL, 0, &err), &err);
        fclose(f);
        CHECKF(cx_same(&R.A, &S.A), "%s stream: the hub came back different", real ? "real" : "complex");
        for (int i = 0; !real && i < 2 && R.nfmt == 2; i++) {
            rvs_csr a = {0}, b = {0};
            CHECK_OK(rvs_fmt_to_csr(&a, &S.fmt[i].fmt, &err), &err);
            CHECK_OK(rvs_fmt_to_csr(&b, &R.fmt[i].fmt, &err), &err);
            CHECKF(cx_same(&a, &b) && R.fmt[i].fmt.vtype == S.fmt[i].fmt.vtype, "complex stream: block %d differs",
                   i);
            rvs_csr_free(&a);
            rvs_csr_free(&b);
        }
        rvs_stream_free(&R);
        /* the real matrix: the real parts alone, no blocks */
        rvs_stream_drop_formats(&S);
        double *re = malloc((size_t)S.A.nnz * sizeof *re + 8);
        for (int64_t e = 0; re && e < S.A.nnz; e++)
            re[e] = rvs_csr_value(&S.A, e);
        free(S.A.values);
        S.A.values = re;
        S.A.vtype = RVS_F64;
    }
    remove(path);
    rvs_stream_free(&S);
    rvs_csr_free(&c64);
}

/* Written as Matrix Market and read back: the same bits; field complex; symmetric, hermitian and
 * skew-symmetric where the matrix is exactly that, general otherwise. */
static void roundtrip_mm(const rvs_csr *A, const char *want_symmetry)
{
    char *buf = NULL;
    size_t len = 0;
    rvs_mm_info wrote, read;
    rvs_csr B = {0};
    rvs_error err;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    CHECK_OK(rvs_mm_write(f, A, NULL, &wrote, &err), &err);
    fclose(f);
    CHECKF(strcmp(wrote.field, "complex") == 0 && strcmp(wrote.symmetry, want_symmetry) == 0,
           "written as %s %s, want complex %s", wrote.field, wrote.symmetry, want_symmetry);
    CHECK_OK(rvs_mm_parse(&B, &read, buf, len, &err), &err);
    CHECKF(B.vtype == RVS_C128 && strcmp(read.field, "complex") == 0, "read back as %s (%s)",
           rvs_vtype_name(B.vtype), read.field);
    /* c64 values are written with the digits that read back as floats: compared as floats */
    CHECK_OK(rvs_csr_convert_values(&B, A->vtype, &err), &err);
    CHECKF(cx_same(A, &B), "%s %s %s: read back differs", rvs_vtype_name(A->vtype), wrote.field, wrote.symmetry);
    rvs_csr_free(&B);
    free(buf);
}

/* The matrix H + H^H (hermitian), its symmetric and skew-symmetric relatives, and general. */
static void check_matrix_market(void)
{
    rvs_csr A = {0}, T = {0}, H = {0};
    rvs_error err;
    const char *name;
    CHECK_OK(cx_matrix(0, &A, &name), &err);
    roundtrip_mm(&A, "general");
    rvs_csr_free(&A);
    /* square part of the band, made hermitian, symmetric, skew */
    CHECK_OK(cx_matrix(1, &A, &name), &err);
    for (int kind = 0; kind < 3; kind++) {
        /* H(r,c) for r > c from A; (c,r) its conjugate (hermitian), itself (symmetric) or its
         * negative (skew); the diagonal real (hermitian), kept (symmetric) or absent (skew) */
        int64_t n = A.rows, k = 0, *ri = malloc((size_t)A.nnz * sizeof *ri),
                *ci = malloc((size_t)A.nnz * sizeof *ci);
        double *v = malloc((size_t)A.nnz * 2 * sizeof *v);
        for (int64_t r = 0; r < n; r++)
            for (int64_t e = A.rowptr[r]; e < A.rowptr[r + 1]; e++) {
                int64_t c = A.colind[e];
                double re = rvs_csr_value(&A, e), im = rvs_csr_value_im(&A, e);
                if (c > r || (c == r && kind == 2))
                    continue;
                if (c == r && kind == 0)
                    im = 0;
                ri[k] = r, ci[k] = c, v[2 * k] = re, v[2 * k + 1] = im, k++;
                if (c == r)
                    continue;
                ri[k] = c, ci[k] = r;
                v[2 * k] = kind == 2 ? -re : re;
                v[2 * k + 1] = kind == 0 ? -im : kind == 1 ? im : -im;
                k++;
            }
        CHECK_OK(rvs_csr_from_coo_complex(&H, n, n, k, ri, ci, v, RVS_C128, &err), &err);
        roundtrip_mm(&H, kind == 0 ? "hermitian" : kind == 1 ? "symmetric" : "skew-symmetric");
        rvs_csr_free(&H);
        free(ri);
        free(ci);
        free(v);
    }
    /* c64 values are written with the digits that read back as floats */
    CHECK_OK(rvs_csr_copy(&T, &A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&T, RVS_C64, &err), &err);
    roundtrip_mm(&T, "general");
    /* a complex vector as "array complex general" */
    double y[6] = {1.5, -2, 0, 0.25, -3e-7, 1e300};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(rvs_mm_write_array_complex(f, y, 3, 1, &err), &err);
    fclose(f);
    CHECKF(len > 40 && strncmp(buf, "%%MatrixMarket matrix array complex general\n3 1\n1.5 -2\n0 0.25\n", 62) == 0,
           "complex array written as '%.80s'", buf);
    CHECK_OK(rvs_mm_parse(&H, NULL, buf, len, &err), &err);
    CHECKF(H.nnz == 3 && rvs_csr_value_im(&H, 2) == 1e300 && rvs_csr_value(&H, 2) == -3e-7,
           "complex array read back");
    free(buf);
    rvs_csr_free(&H);
    rvs_csr_free(&T);
    rvs_csr_free(&A);
}

/* Conversions: precision either way, real to complex; complex to real refused. Triplets: the
 * parts of duplicates summed. */
static void check_values(void)
{
    rvs_csr A = {0};
    rvs_error err;
    const int64_t ri[4] = {1, 0, 1, 1}, ci[4] = {2, 0, 2, 0};
    const double v[8] = {1, 2, 0.5, -1, 3, -4, 7, 0};
    CHECK_OK(rvs_csr_from_coo_complex(&A, 2, 3, 4, ri, ci, v, RVS_C128, &err), &err);
    CHECKF(A.nnz == 3 && rvs_csr_value(&A, 2) == 4 && rvs_csr_value_im(&A, 2) == -2 && rvs_csr_value(&A, 1) == 7,
           "duplicates: nnz %lld, (1,2) = %g%+gi", (long long)A.nnz, rvs_csr_value(&A, 2), rvs_csr_value_im(&A, 2));
    CHECK(rvs_csr_convert_values(&A, RVS_F64, &err) == RVS_ERR_UNSUPPORTED && strstr(err.msg, "imaginary") != NULL);
    CHECK_OK(rvs_csr_convert_values(&A, RVS_C64, &err), &err);
    CHECK(A.vtype == RVS_C64 && rvs_csr_value_im(&A, 2) == -2);
    rvs_csr_free(&A);
    CHECK(rvs_test_random_csr(&A, 20, 20, 0.2, 0, 1) == RVS_OK);
    double first = rvs_csr_value(&A, 0);
    CHECK_OK(rvs_csr_convert_values(&A, RVS_C128, &err), &err);
    CHECK(rvs_csr_value(&A, 0) == first && rvs_csr_value_im(&A, 0) == 0 && rvs_vtype_size(A.vtype) == 16);
    rvs_csr_free(&A);
}

/* Plans over every partition algorithm with auto and fixed formats, run by the engine on the
 * CPU (parts assembled into one y). */
static void check_engine(void)
{
    static const rvs_run_mode cpu[1] = {RVS_MODE_CPU};
    static const rvs_format_id fixed[4] = {RVS_FMT_CSR, RVS_FMT_ELLR, RVS_FMT_HYB, RVS_FMT_HCC};
    rvs_csr A = {0};
    const char *name;
    CHECK_OK(cx_matrix(0, &A, &name), &(rvs_error){0});
    case_matrix(&A, name, cpu, 1, fixed, 4);
    rvs_csr_free(&A);
    CHECKF(cases_ran > 20, "engine: %d runs", cases_ran);
}

int main(void)
{
    setenv("XDG_CACHE_HOME", getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp", 1);
    check_formats();
    check_stream();
    check_matrix_market();
    check_values();
    check_engine();
    printf("complex: %d format runs, %d refused\n", cx_ran, cx_refused);
    return rvs_test_done();
}
