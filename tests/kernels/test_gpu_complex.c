/* test_gpu_complex.c - complex values (c64, c128) on the GPU. What it checks, each against
 * CXSparse in double complex (cs_cl_gaxpy, cs_cl_multiply), with y poisoned (0xFF bytes: NaN in
 * both parts) before every SpMV:
 *   1. every format (CSR COO ELL ELLR PELLR BiELL JAD HYB HYB-DIA DIA HCC) on six matrices
 *      (random with empty rows, a band, skewed rows with one of 2500 entries, 40 rows of 1500,
 *      one entry, no entries) in c128 and c64;
 *   2. every kernel variant: CSR threads-per-row 1..32 (scalar, vector), 64 (row-block), 128
 *      (nnz-split), 256 (warp-rows); ELLR-T 1..32 lanes; HCC hcc-wg 1/2/4 x hcc-wi 64/256 and
 *      its row-major, small-block (split rows: atomics) and owner-group builds; DIA and
 *      HYB-DIA two rows-per-thread; COO and HYB blocks of 32 and 256;
 *   3. the row map: a part of every other row written into a whole y through int32 offsets
 *      must store exactly its rows and leave every other row's bits alone, then add in
 *      accumulate mode (y = old + A x);
 *   4. the engine: plans of every partition algorithm (auto and fixed formats, fused or apart)
 *      in --gpu and --hybrid mode, run twice (graph replay);
 *   5. SpGEMM: the row-wise and hySpMM GPU methods and the hybrid on complex products
 *      (rectangular with empty rows, square with long rows) and a complex times a real refused.
 * A failure message names the check, the matrix, the format, the value type and the tunables.
 * Skipped (77) without a usable GPU. */
#include <unistd.h>
#include "complex_cases.h"
#include "engine_cases.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "spgemm_cases.h"

/* y = F*x on the device: x up, y's device copy poisoned (0xFF: NaN), the kernel, y down. */
static rvs_status gpu_run(const rvs_fmt *F, const void *x, void *y, const rvs_gpu_tune *t, rvs_error *err)
{
    rvs_gpu_fmt G = {0};
    rvs_gpu_tune none = {0};
    void *dx = NULL, *dy = NULL;
    const size_t vs = rvs_vtype_size(F->vtype);
    rvs_status st;
    if ((st = rvs_gpu_upload(&G, F, err)) == RVS_OK &&
        (st = rvs_gpu_malloc(&dx, (size_t)F->cols * vs + 16, err)) == RVS_OK &&
        (st = rvs_gpu_malloc(&dy, (size_t)F->rows * vs + 16, err)) == RVS_OK &&
        (st = rvs_gpu_memcpy_h2d(dx, x, (size_t)F->cols * vs, err)) == RVS_OK &&
        (st = rvs_gpu_memset(dy, 0xff, (size_t)F->rows * vs, err)) == RVS_OK &&
        (st = rvs_gpu_spmv(&G, dx, dy, t ? t : &none, NULL, err)) == RVS_OK && (st = rvs_gpu_sync(err)) == RVS_OK)
        st = rvs_gpu_memcpy_d2h(y, dy, (size_t)F->rows * vs, err);
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_gpu_fmt_free(&G);
    return st;
}

/* 1 and 2: every format, then every kernel variant, on every test matrix in both types. */
static void check_formats_and_variants(void)
{
    static const rvs_vtype vts[2] = {RVS_C128, RVS_C64};
    char what[128];
    for (int m = 0; m < CX_NMATRICES; m++) {
        rvs_csr A = {0};
        const char *name;
        CHECK_OK(cx_matrix(m, &A, &name), &(rvs_error){0});
        for (int k = 0; k < 2; k++) {
            const rvs_vtype vt = vts[k];
            rvs_gpu_tune t;
            rvs_fmt_options o;
            for (int f = 0; f < CX_NFORMATS; f++)
                cx_check(gpu_run, &A, cx_formats[f], vt, NULL, NULL, name);
            for (int tpr = 1; tpr <= 256; tpr *= 2) {
                memset(&t, 0, sizeof t);
                t.threads_per_row = tpr <= 32 ? tpr : 0; /* past 32: the kernels 0.1 named by these codes */
                t.csr_kernel = tpr == 64    ? RVS_CSR_ROW_BLOCK
                               : tpr == 128 ? RVS_CSR_NNZ_SPLIT
                               : tpr == 256 ? RVS_CSR_WARP_ROWS
                                            : RVS_CSR_AUTO;
                snprintf(what, sizeof what, "%s, csr threads-per-row %d", name, tpr);
                cx_check(gpu_run, &A, RVS_FMT_CSR, vt, &t, NULL, what);
                if (tpr <= 32) {
                    snprintf(what, sizeof what, "%s, ellr threads-per-row %d", name, tpr);
                    cx_check(gpu_run, &A, RVS_FMT_ELLR, vt, &t, NULL, what);
                }
            }
            for (int wg = 1; wg <= 4; wg *= 2)
                for (int wi = 64; wi <= 256; wi += 192) {
                    memset(&t, 0, sizeof t);
                    t.hcc_wg = wg;
                    t.hcc_wi = wi;
                    snprintf(what, sizeof what, "%s, hcc hcc-wg %d hcc-wi %d", name, wg, wi);
                    cx_check(gpu_run, &A, RVS_FMT_HCC, vt, &t, NULL, what);
                }
            rvs_fmt_options_default(&o);
            o.hcc_np = 1;
            o.hcc_nb = 60; /* small blocks: rows split between blocks, added atomically */
            snprintf(what, sizeof what, "%s, hcc row-major small blocks", name);
            cx_check(gpu_run, &A, RVS_FMT_HCC, vt, NULL, &o, what);
            o.hcc_g = 8;
            snprintf(what, sizeof what, "%s, hcc owner groups", name);
            cx_check(gpu_run, &A, RVS_FMT_HCC, vt, NULL, &o, what);
            const int n = 16 / (int)rvs_vtype_size(vt); /* rows per thread of one 16-byte load */
            for (int rpt = n; rpt <= 2 * n; rpt *= 2) {
                memset(&t, 0, sizeof t);
                t.rows_per_thread = rpt;
                snprintf(what, sizeof what, "%s, rows-per-thread %d", name, rpt);
                cx_check(gpu_run, &A, RVS_FMT_DIA, vt, &t, NULL, what);
                cx_check(gpu_run, &A, RVS_FMT_HYBDIA, vt, &t, NULL, what);
            }
            for (int b = 32; b <= 256; b *= 8) {
                memset(&t, 0, sizeof t);
                t.block = b;
                snprintf(what, sizeof what, "%s, block %d", name, b);
                cx_check(gpu_run, &A, RVS_FMT_COO, vt, &t, NULL, what);
                cx_check(gpu_run, &A, RVS_FMT_HYB, vt, &t, NULL, what);
            }
        }
        rvs_csr_free(&A);
    }
}

/* 3: the odd rows of A as a part written into a whole y (sentinel elsewhere), then added. */
static void check_row_map(const rvs_csr *A, const char *name, rvs_format_id id, rvs_vtype vt)
{
    const char *fname = rvs_format_lookup(id)->name;
    const int64_t rows = A->rows, nodd = rows / 2;
    const size_t vs = rvs_vtype_size(vt);
    int64_t *odd = malloc((size_t)(nodd + 1) * sizeof *odd);
    rvs_csr C = {0}, P = {0};
    rvs_fmt F = {0};
    rvs_gpu_fmt G = {0};
    rvs_gpu_tune none = {0};
    rvs_error err;
    void *dx = NULL, *dy = NULL, *x = malloc((size_t)A->cols * 16 + 16), *y = malloc((size_t)rows * 16 + 16);
    void *y0 = malloc((size_t)rows * 16 + 16);
    double *xd = malloc((size_t)A->cols * 16 + 16), *yd = malloc((size_t)rows * 16 + 16);
    CHECK(odd && x && y && y0 && xd && yd);
    for (int64_t i = 0; i < nodd; i++)
        odd[i] = 2 * i + 1;
    CHECK_OK(rvs_csr_copy(&C, A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&C, vt, &err), &err);
    CHECK_OK(rvs_csr_extract_rows(&P, &C, odd, nodd, 0, 0, &err), &err);
    rvs_status st = rvs_fmt_from_csr(&F, id, &P, NULL, &err);
    if (st == RVS_ERR_UNSUPPORTED || st == RVS_ERR_OVERFLOW) {
        cx_refused++;
        goto done;
    }
    CHECK_OK(st, &err);
    cx_make_x(xd, x, A->cols, vt, 5);
    for (int64_t i = 0; i < (int64_t)(rows * vs); i++) /* the sentinel: distinct bytes per row */
        ((unsigned char *)y0)[i] = (unsigned char)(i * 37 + 11);
    CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
    CHECK_OK(rvs_gpu_set_rows(&G, odd, 0, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dx, (size_t)A->cols * vs + 16, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dy, (size_t)rows * vs + 16, &err), &err);
    CHECK_OK(rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * vs, &err), &err);
    /* stored: the odd rows get A x, the even rows keep the sentinel's bits */
    CHECK_OK(rvs_gpu_memcpy_h2d(dy, y0, (size_t)rows * vs, &err), &err);
    CHECK_OK(rvs_gpu_spmv(&G, dx, dy, &none, NULL, &err), &err);
    CHECK_OK(rvs_gpu_sync(&err), &err);
    CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)rows * vs, &err), &err);
    int64_t touched = -1;
    for (int64_t i = 0; i < rows && touched < 0; i += 2)
        if (memcmp((char *)y + i * vs, (char *)y0 + i * vs, vs) != 0)
            touched = i;
    CHECKF(touched < 0, "row map: %s %s %s: row %lld outside the part was written", name, fname, rvs_vtype_name(vt),
           (long long)touched);
    double max_err;
    int64_t worst;
    cx_to_double(yd, y, rows, vt);
    double *ypart = malloc((size_t)(nodd + 1) * 16);
    for (int64_t i = 0; ypart && i < nodd; i++)
        ypart[2 * i] = yd[2 * odd[i]], ypart[2 * i + 1] = yd[2 * odd[i] + 1];
    st = rvs_spmv_check(&P, xd, ypart, cx_tol(vt), &max_err, &worst, &err);
    CHECKF(st == RVS_OK, "row map: %s %s %s: the part's rows stored through the map: %s", name, fname,
           rvs_vtype_name(vt), err.msg);
    /* accumulate: every odd row gets A x added to what it held (its stored value: 2 A x) */
    CHECK_OK(rvs_gpu_set_rows(&G, odd, 1, &err), &err);
    CHECK_OK(rvs_gpu_spmv(&G, dx, dy, &none, NULL, &err), &err);
    CHECK_OK(rvs_gpu_sync(&err), &err);
    CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)rows * vs, &err), &err);
    cx_to_double(yd, y, rows, vt);
    for (int64_t i = 0; ypart && i < nodd; i++)
        ypart[2 * i] = yd[2 * odd[i]] / 2, ypart[2 * i + 1] = yd[2 * odd[i] + 1] / 2;
    st = rvs_spmv_check(&P, xd, ypart, cx_tol(vt), &max_err, &worst, &err);
    CHECKF(st == RVS_OK, "row map: %s %s %s: accumulate mode (y = y + A x) gave: %s", name, fname,
           rvs_vtype_name(vt), err.msg);
    for (int64_t i = 0; i < rows && touched < 0; i += 2)
        if (memcmp((char *)y + i * vs, (char *)y0 + i * vs, vs) != 0)
            touched = i;
    CHECKF(touched < 0, "row map: %s %s %s: accumulate mode wrote row %lld outside the part", name, fname,
           rvs_vtype_name(vt), (long long)touched);
    free(ypart);
    cx_ran++;
done:
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
    rvs_csr_free(&P);
    rvs_csr_free(&C);
    free(odd);
    free(x);
    free(y);
    free(y0);
    free(xd);
    free(yd);
}

/* 5: the GPU SpGEMM methods on complex products. */
static rvs_status spgemm_rowwise(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s,
                                 rvs_error *err)
{
    rvs_spgemm_options o = {0};
    o.poison = 1;
    return rvs_spgemm_gpu(C, A, B, &o, s, err);
}

static rvs_status spgemm_hyspmm(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    rvs_spgemm_options o = {0};
    o.method = RVS_SPGEMM_HYSPMM;
    return rvs_spgemm_gpu(C, A, B, &o, s, err);
}

static rvs_status spgemm_hybrid(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s, rvs_error *err)
{
    rvs_spgemm_options o = {0};
    o.hybrid_cpu_share = 0.3;
    return rvs_spgemm_hybrid(C, A, B, &o, s, err);
}

int main(void)
{
    static const rvs_run_mode modes[2] = {RVS_MODE_GPU, RVS_MODE_HYBRID};
    static const rvs_format_id fixed[3] = {RVS_FMT_CSR, RVS_FMT_HYB, RVS_FMT_HCC};
    static const spgemm_method gpu_methods[3] = {
        {"gpu rowwise", spgemm_rowwise}, {"gpu hyspmm", spgemm_hyspmm}, {"hybrid", spgemm_hybrid}};
    char dir[512];
    if (rvs_gpu_count() == 0) {
        printf("no usable GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    snprintf(dir, sizeof dir, "%s/gpu-complex-cache.%ld", getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp",
             (long)getpid());
    setenv("XDG_CACHE_HOME", dir, 1);
    check_formats_and_variants();
    printf("formats and variants done\n");
    fflush(stdout);
    for (int m = 0; m < 3; m++) {
        rvs_csr A = {0};
        const char *name;
        CHECK_OK(cx_matrix(m, &A, &name), &(rvs_error){0});
        for (int f = 0; f < CX_NFORMATS; f++) {
            check_row_map(&A, name, cx_formats[f], RVS_C128);
            check_row_map(&A, name, cx_formats[f], RVS_C64);
        }
        if (m == 0)
            case_matrix(&A, name, modes, 2, fixed, 3);
        rvs_csr_free(&A);
        printf("row maps and plans of matrix %d done\n", m);
        fflush(stdout);
    }
    case_complex(gpu_methods, 3);
    printf("complex on the GPU: %d format runs (%d refused by a builder), %d plans, SpGEMM checked\n", cx_ran,
           cx_refused, cases_ran);
    CHECKF(cx_ran > 400 && cases_ran > 40, "fewer runs than planned: %d format runs, %d plans", cx_ran, cases_ran);
    return rvs_test_done();
}
