/* test_gpu_spmv.c - GPU SpMV: every format on generated and shared matrices, f32 and f64,
 * checked against CSparse with y poisoned (0xFF bytes: NaN) before each run; CSR tunables;
 * cuSPARSE baselines; a hybrid run (GPU and CPU parts assembled through the part rows).
 * Skipped (77) without a usable GPU. */
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_cusparse.h"
#include "rvs_gpu.h"
#include "rvs_test.h"

static const rvs_format_id all_formats[] = {RVS_FMT_CSR,    RVS_FMT_COO,   RVS_FMT_ELL, RVS_FMT_ELLR,
                                            RVS_FMT_PELLR,  RVS_FMT_BIELL, RVS_FMT_JAD, RVS_FMT_HYB,
                                            RVS_FMT_HYBDIA, RVS_FMT_DIA,   RVS_FMT_HCC};
#define NFORMATS ((int)(sizeof all_formats / sizeof all_formats[0]))

static int refused, ran;

/* Tolerance of spmv.1 for a value type. */
static double tol_of(rvs_vtype vt)
{
    return vt == RVS_F64 ? 1e-10 : 1e-4;
}

/* x (cols, random) in vt into xv and, rounded the same way, into xd. */
static void make_x(double *xd, void *xv, int64_t n, rvs_vtype vt, unsigned seed)
{
    rvs_test_random_vector(xd, n, seed);
    for (int64_t j = 0; j < n; j++) {
        if (vt == RVS_F64) {
            ((double *)xv)[j] = xd[j];
        } else {
            ((float *)xv)[j] = (float)xd[j];
            xd[j] = ((float *)xv)[j];
        }
    }
}

/* y in vt to double. */
static void to_double(double *yd, const void *y, int64_t n, rvs_vtype vt)
{
    for (int64_t i = 0; i < n; i++)
        yd[i] = vt == RVS_F64 ? ((const double *)y)[i] : (double)((const float *)y)[i];
}

/* y = F*x on the GPU with dy poisoned first; y on the host in F's type. */
/* A CSR tune by the 0.1 codes the cases are written in: 64 row-block, 128 nnz-split, 256
 * warp-rows, else lanes a row (1 scalar, 2..32 vector, 0 the default). */
static rvs_gpu_tune tune_of(int block, int code)
{
    rvs_gpu_tune t = {block, code, 0, 0, 0, 0};
    if (code == 64 || code == 128 || code == 256) {
        t.threads_per_row = 0;
        t.csr_kernel = code == 64 ? RVS_CSR_ROW_BLOCK : code == 128 ? RVS_CSR_NNZ_SPLIT : RVS_CSR_WARP_ROWS;
    }
    return t;
}

static rvs_status gpu_run(const rvs_fmt *F, const void *x, void *y, const rvs_gpu_tune *t, rvs_error *err)
{
    rvs_gpu_fmt G = {0};
    void *dx = NULL, *dy = NULL;
    size_t vs = rvs_vtype_size(F->vtype);
    rvs_status st;
    if ((st = rvs_gpu_upload(&G, F, err)) == RVS_OK &&
        (st = rvs_gpu_malloc(&dx, (size_t)F->cols * vs, err)) == RVS_OK &&
        (st = rvs_gpu_malloc(&dy, (size_t)F->rows * vs, err)) == RVS_OK &&
        (st = rvs_gpu_memcpy_h2d(dx, x, (size_t)F->cols * vs, err)) == RVS_OK &&
        (st = rvs_gpu_memset(dy, 0xff, (size_t)F->rows * vs, err)) == RVS_OK &&
        (st = rvs_gpu_spmv(&G, dx, dy, t, NULL, err)) == RVS_OK && (st = rvs_gpu_sync(err)) == RVS_OK)
        st = rvs_gpu_memcpy_d2h(y, dy, (size_t)F->rows * vs, err);
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_gpu_fmt_free(&G);
    return st;
}

/* Check format id of A (f64) in vt on the GPU. A builder refusing the matrix is counted,
 * not failed (DIA's padding limit, 32-bit index limits). */
static void check_format_opt(const rvs_csr *A, rvs_format_id id, rvs_vtype vt, const rvs_gpu_tune *t,
                             const rvs_fmt_options *opt, const char *name)
{
    const char *fname = rvs_format_lookup(id)->name, *tname = vt == RVS_F64 ? "f64" : "f32";
    rvs_csr C = {0};
    rvs_fmt F = {0};
    rvs_error err;
    rvs_fmt_options fo;
    double *xd = malloc((size_t)A->cols * sizeof *xd + 8), *yd = malloc((size_t)A->rows * sizeof *yd + 8);
    void *x = malloc((size_t)A->cols * 8 + 8), *y = malloc((size_t)A->rows * 8 + 8);
    double max_err;
    int64_t row;
    rvs_fmt_options_default(&fo);
    if (opt)
        fo = *opt;
    CHECK(xd && yd && x && y);
    if (!xd || !yd || !x || !y)
        goto done;
    CHECK_OK(rvs_csr_copy(&C, A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&C, vt, &err), &err);
    rvs_status st = rvs_fmt_from_csr(&F, id, &C, &fo, &err);
    if (st == RVS_ERR_UNSUPPORTED || st == RVS_ERR_OVERFLOW || st == RVS_ERR_NOMEM) {
        refused++;
        goto done;
    }
    CHECKF(st == RVS_OK, "%s: %s from CSR: %s", name, fname, err.msg);
    if (st != RVS_OK)
        goto done;
    make_x(xd, x, A->cols, vt, 11);
    st = gpu_run(&F, x, y, t, &err);
    CHECKF(st == RVS_OK, "%s %s %s: %s", name, fname, tname, err.msg);
    if (st != RVS_OK)
        goto done;
    to_double(yd, y, A->rows, vt);
    st = rvs_spmv_check(A, xd, yd, tol_of(vt), &max_err, &row, &err);
    CHECKF(st == RVS_OK, "%s %s %s (tpr %d block %d): %s", name, fname, tname, t ? t->threads_per_row : 0,
           t ? t->block : 0, err.msg);
    ran++;
done:
    rvs_fmt_free(&F);
    rvs_csr_free(&C);
    free(xd);
    free(yd);
    free(x);
    free(y);
}

static void check_format(const rvs_csr *A, rvs_format_id id, rvs_vtype vt, const rvs_gpu_tune *t, const char *name)
{
    check_format_opt(A, id, vt, t, NULL, name);
}

/* HCC built row-major (Np = 1), with tiny blocks (E = 32: every longer row split) and with
 * panels, and run with every hcc-wg and two hcc-wi; DIA/HYB-DIA with two rows-per-thread. */
static void check_hcc_dia_variants(const rvs_csr *A, const char *name)
{
    static const int64_t nps[4] = {1, 0, 5, 0}, nbs[4] = {0, 1000000000, 3, 1};
    for (int v = 0; v < 4; v++)
        for (int g = 1; g <= 8; g += 7) {
            rvs_fmt_options o;
            rvs_fmt_options_default(&o);
            o.hcc_np = nps[v];
            o.hcc_nb = nbs[v];
            o.hcc_g = g;
            for (int wg = 1; wg <= 4; wg *= 2)
                for (int wi = 64; wi <= 256; wi += 192) {
                    rvs_gpu_tune t = {0, 0, wg, wi, 0, 0};
                    check_format_opt(A, RVS_FMT_HCC, (wg + g) % 2 ? RVS_F32 : RVS_F64, &t, &o, name);
                }
        }
    for (int m = 1; m <= 2; m++) {
        rvs_gpu_tune t64 = {0, 0, 0, 0, 2 * m, 0}, t32 = {0, 0, 0, 0, 4 * m, 0};
        check_format(A, RVS_FMT_DIA, RVS_F64, &t64, name);
        check_format(A, RVS_FMT_DIA, RVS_F32, &t32, name);
        check_format(A, RVS_FMT_HYBDIA, RVS_F64, &t64, name);
    }
    rvs_fmt F = {0};
    rvs_gpu_fmt G = {0};
    rvs_error err;
    rvs_gpu_tune bad_wg = {0, 0, 3, 0, 0, 0}, bad_wi = {0, 0, 0, 48, 0, 0};
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_HCC, A, NULL, &err), &err);
    CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
    CHECK(rvs_gpu_spmv(&G, NULL, NULL, &bad_wg, NULL, &err) == RVS_ERR_ARG);
    CHECK(rvs_gpu_spmv(&G, NULL, NULL, &bad_wi, NULL, &err) == RVS_ERR_ARG);
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
}

/* Mixed precision (f32 values, f64 x, y, sums) for CSR (row-block kernel, the default, and the
 * vector kernel) and HCC: y poisoned, checked against A with its values rounded to f32 at the f64
 * tolerance; f64 blocks and other formats refused. */
static void check_mixed(const rvs_csr *A, const char *name)
{
    static const rvs_format_id ids[5] = {RVS_FMT_CSR, RVS_FMT_CSR, RVS_FMT_HCC, RVS_FMT_HCC, RVS_FMT_COO};
    rvs_csr A32 = {0}, Ar = {0};
    rvs_error err;
    double *x = malloc((size_t)A->cols * 8 + 8), *y = malloc((size_t)A->rows * 8 + 8), max_err;
    int64_t row;
    CHECK_OK(rvs_csr_copy(&A32, A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&A32, RVS_F32, &err), &err);
    CHECK_OK(rvs_csr_copy(&Ar, &A32, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&Ar, RVS_F64, &err), &err);
    rvs_test_random_vector(x, A->cols, 17);
    for (int k = 0; k < 5; k++) {
        rvs_fmt F = {0};
        rvs_gpu_fmt G = {0};
        rvs_gpu_tune t = tune_of(0, k == 1 ? 8 : 0); /* k 1: CSR's vector kernel, 8 lanes a row */
        rvs_fmt_options o;
        void *dx = NULL, *dy = NULL;
        rvs_fmt_options_default(&o);
        o.hcc_g = k == 3 ? 8 : 0; /* HCC with f64 sums wants the owner groups */
        o.csr_order = k == 1;     /* the vector kernel reads rows in order */
        CHECK_OK(rvs_fmt_from_csr(&F, ids[k], &A32, &o, &err), &err);
        CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
        CHECK_OK(rvs_gpu_malloc(&dx, (size_t)A->cols * 8 + 8, &err), &err);
        CHECK_OK(rvs_gpu_malloc(&dy, (size_t)A->rows * 8 + 8, &err), &err);
        CHECK_OK(rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * 8, &err), &err);
        CHECK_OK(rvs_gpu_memset(dy, 0xff, (size_t)A->rows * 8, &err), &err);
        rvs_status st = rvs_gpu_spmv_mixed(&G, dx, dy, &t, NULL, &err);
        if (ids[k] == RVS_FMT_COO) {
            CHECKF(st == RVS_ERR_UNSUPPORTED, "%s: mixed coo gave %d", name, (int)st);
        } else {
            CHECK_OK(st, &err);
            CHECK_OK(rvs_gpu_sync(&err), &err);
            CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)A->rows * 8, &err), &err);
            st = rvs_spmv_check(&Ar, x, y, 1e-10, &max_err, &row, &err);
            CHECKF(st == RVS_OK, "%s mixed %s (case %d): %s", name, rvs_format_lookup(ids[k])->name, k, err.msg);
            memset(y, 0xff, (size_t)A->rows * 8);
            CHECK_OK(rvs_cpu_spmv_mixed(&F, x, y, &err), &err);
            st = rvs_spmv_check(&Ar, x, y, 1e-10, &max_err, &row, &err);
            CHECKF(st == RVS_OK, "%s mixed %s on the CPU: %s", name, rvs_format_lookup(ids[k])->name, err.msg);
        }
        rvs_gpu_free(dx);
        rvs_gpu_free(dy);
        rvs_gpu_fmt_free(&G);
        rvs_fmt_free(&F);
    }
    rvs_fmt F = {0};
    rvs_gpu_fmt G = {0};
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, A, NULL, &err), &err);
    CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
    CHECK(rvs_gpu_spmv_mixed(&G, NULL, NULL, NULL, NULL, &err) == RVS_ERR_ARG); /* f64 values */
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
    rvs_csr_free(&A32);
    rvs_csr_free(&Ar);
    free(x);
    free(y);
}

/* Every format in both precisions. */
static void check_all_formats(const rvs_csr *A, const char *name)
{
    for (int f = 0; f < NFORMATS; f++) {
        check_format(A, all_formats[f], RVS_F64, NULL, name);
        check_format(A, all_formats[f], RVS_F32, NULL, name);
    }
}

/* 1 when CSR of A in vt goes up laid out for the row kernels (rvs_csr_gpu_in_rows) by default. */
static int in_rows(const rvs_csr *A, rvs_vtype vt)
{
    rvs_fmt F = {0};
    rvs_error err;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, A, NULL, &err), &err);
    const int r = rvs_csr_gpu_in_rows(F.rows, F.nnz, vt, F.param);
    rvs_fmt_free(&F);
    return r;
}

/* CSR scalar and vector kernels with every lane count and a few block sizes; bad tunables refused.
 * With rows in order (csr-order=1) for the kernels that need it: every kernel but the row-block
 * one on sorted chunks, and the scalar, row-block and nnz-split kernels on a block laid out for
 * the row kernels, which the warp-rows and vector kernels also run as laid out. */
static void check_csr_tunables(const rvs_csr *A, const char *name)
{
    static const int lanes[] = {1, 2, 4, 8, 16, 32, 64, 128, 256}, blocks[] = {32, 128, 1024};
    const int laid = in_rows(A, RVS_F64);
    rvs_fmt_options rows;
    rvs_fmt_options_default(&rows);
    rows.csr_order = 1;
    for (int l = 0; l < 9; l++)
        for (int b = 0; b < 3; b++) {
            rvs_gpu_tune t = tune_of(blocks[b], lanes[l]);
            const int row_kernel = lanes[l] != 1 && lanes[l] != 64 && lanes[l] != 128;
            check_format_opt(A, RVS_FMT_CSR, RVS_F64, &t, lanes[l] == 64 && !laid ? NULL : &rows, name);
            if (laid && row_kernel)
                check_format_opt(A, RVS_FMT_CSR, RVS_F64, &t, NULL, name);
            check_format(A, RVS_FMT_COO, RVS_F32, &t, name);
        }
    rvs_fmt F = {0};
    rvs_gpu_fmt G = {0};
    rvs_error err;
    rvs_gpu_tune bad = tune_of(0, 3);
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, A, NULL, &err), &err);
    CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
    CHECK(rvs_gpu_spmv(&G, NULL, NULL, &bad, NULL, &err) == RVS_ERR_ARG);
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
}

/* The CSR row-block kernel with the partition made at upload ("rbpart": two entries per chunk
 * and one more) and without it (the blocks search rowptr instead), each checked against A*x. */
static void check_csr_partition(const rvs_csr *A, const char *name)
{
    static const rvs_vtype vts[2] = {RVS_F64, RVS_F32};
    for (int k = 0; k < 2; k++) {
        rvs_csr C = {0};
        rvs_fmt F = {0};
        rvs_gpu_fmt G = {0};
        rvs_error err;
        const size_t vs = rvs_vtype_size(vts[k]);
        rvs_gpu_tune t = tune_of(0, 64);
        double *xd = malloc((size_t)A->cols * sizeof *xd + 8);
        void *x = malloc((size_t)A->cols * vs + 8);
        void *y[2] = {malloc((size_t)A->rows * vs + 8), malloc((size_t)A->rows * vs + 8)};
        void *dx = NULL, *dy = NULL;
        CHECK(xd && x && y[0] && y[1]);
        CHECK_OK(rvs_csr_copy(&C, A, &err), &err);
        CHECK_OK(rvs_csr_convert_values(&C, vts[k], &err), &err);
        rvs_fmt_options rows;
        rvs_fmt_options_default(&rows);
        rows.csr_order = 1; /* chunks sorted by column are read through the partition only */
        CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &C, &rows, &err), &err);
        make_x(xd, x, A->cols, vts[k], 5);
        CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
        const rvs_array *part = rvs_gpu_array(&G, "rbpart");
        CHECKF(part && part->count >= 4 && part->count % 2 == 0, "%s: no row-block partition after upload", name);
        CHECK_OK(rvs_gpu_malloc(&dx, (size_t)A->cols * vs + 8, &err), &err);
        CHECK_OK(rvs_gpu_malloc(&dy, (size_t)A->rows * vs + 8, &err), &err);
        CHECK_OK(rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * vs, &err), &err);
        for (int run = 0; run < 2 && part; run++) {
            if (run == 1)
                G.array[part - G.array].name[0] = '-'; /* hidden: the kernel searches */
            CHECK_OK(rvs_gpu_memset(dy, 0xff, (size_t)A->rows * vs, &err), &err);
            CHECK_OK(rvs_gpu_spmv(&G, dx, dy, &t, NULL, &err), &err);
            CHECK_OK(rvs_gpu_sync(&err), &err);
            CHECK_OK(rvs_gpu_memcpy_d2h(y[run], dy, (size_t)A->rows * vs, &err), &err);
        }
        for (int run = 0; run < 2 && part; run++) {
            /* not compared bit for bit: rows cut by chunks are added atomically, in any order */
            double *yd = malloc((size_t)A->rows * sizeof *yd + 8), max_err;
            int64_t row;
            CHECK(yd);
            if (!yd)
                break;
            to_double(yd, y[run], A->rows, vts[k]);
            CHECKF(rvs_spmv_check(A, xd, yd, tol_of(vts[k]), &max_err, &row, &err) == RVS_OK,
                   "%s %s: row-block %s the partition: %s", name, vts[k] == RVS_F64 ? "f64" : "f32",
                   run ? "without" : "with", err.msg);
            free(yd);
            ran++;
        }
        rvs_gpu_free(dx);
        rvs_gpu_free(dy);
        rvs_gpu_fmt_free(&G);
        rvs_fmt_free(&F);
        rvs_csr_free(&C);
        free(xd);
        free(x);
        free(y[0]);
        free(y[1]);
    }
}

/* A matrix for the column-sorted chunks: rows of 1 to 13 entries with every 97th row 300 long
 * (irregular: the row-block kernel is the default), the first half of the rows on a band of
 * width 3000 (chunks of a small span, sorted), the second half over all of cols columns (chunks
 * spanning 2^20 columns or more stay in row order), and one row of longrow entries (0: none;
 * over 2*4096 puts the kernel in split mode). */
static void make_sortable(rvs_csr *A, int64_t rows, int64_t cols, int64_t longrow)
{
    rvs_error err;
    int64_t nnz = 0;
    unsigned seed = 7;
    for (int64_t i = 0; i < rows; i++)
        nnz += i == rows / 3 && longrow ? longrow : i % 97 == 0 ? 300 : 1 + (i * 7) % 13;
    CHECK_OK(rvs_csr_alloc(A, rows, cols, nnz, RVS_F64, &err), &err);
    int64_t p = 0;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t len = i == rows / 3 && longrow ? longrow : i % 97 == 0 ? 300 : 1 + (i * 7) % 13;
        const int64_t window = i < rows / 2 && len <= 300 ? 3000 : cols,
                      lo = i < rows / 2 ? i * 37 % (cols - window + 1) : 0;
        int64_t c = lo;
        for (int64_t k = 0; k < len; k++) { /* increasing columns, spread over the window */
            const int64_t room = lo + window - c - (len - k),
                          step = room > 0 ? 1 + (seed = seed * 1103515245u + 12345u) % (2 * room / (len - k) + 1)
                                          : 1;
            c += k == 0 ? step - 1 : step;
            c = c > lo + window - (len - k) ? lo + window - (len - k) : c;
            A->colind[p] = (int32_t)c;
            ((double *)A->values)[p++] = 1.0 + (double)((seed >> 8) % 1000) / 997.0;
        }
        A->rowptr[i + 1] = p;
    }
}

/* CSR on the GPU with the row-block chunks sorted by column at upload (csr-order 0, the default
 * where the row-block kernel is): "rbsort" holds a base per chunk, a sorted chunk's words rise and
 * their slots are a permutation of the chunk's positions; results checked against A*x in f64,
 * f32 and mixed, in split and non-split mode; a kernel that reads rows in order is refused on a
 * sorted block and runs on one built with csr-order 1. */
static void check_csr_sorted(void)
{
    static const int64_t longrows[2] = {0, 9000};
    for (int m = 0; m < 2; m++) {
        rvs_csr A = {0};
        make_sortable(&A, 40000, 3000000, longrows[m]);
        rvs_error err;
        CHECK_OK(rvs_csr_validate(&A, &err), &err);
        const char *name = m ? "sortable, one row of 9000" : "sortable";
        check_format(&A, RVS_FMT_CSR, RVS_F64, NULL, name);
        check_format(&A, RVS_FMT_CSR, RVS_F32, NULL, name);
        check_mixed(&A, name);
        rvs_fmt F = {0};
        rvs_gpu_fmt G = {0};
        CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, NULL, &err), &err);
        CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
        const rvs_array *sb = rvs_gpu_array(&G, "rbsort"), *rpa = rvs_gpu_array(&G, "rowptr");
        CHECKF(rpa && rpa->dtype == RVS_DT_I32 && rpa->count == A.rows + 1,
               "%s: row pointers not narrowed to 32 bits", name);
        if (rpa && rpa->dtype == RVS_DT_I32) { /* the same row pointers */
            int32_t *r32 = malloc((size_t)(A.rows + 1) * 4);
            int same = r32 != NULL;
            CHECK_OK(rvs_gpu_memcpy_d2h(r32, rpa->data, (size_t)(A.rows + 1) * 4, &err), &err);
            for (int64_t i = 0; same && i <= A.rows; i++)
                same = r32[i] == A.rowptr[i];
            CHECKF(same, "%s: narrowed row pointers differ", name);
            free(r32);
        }
        const int64_t C = 4096, chunks = (A.rows + A.nnz + C - 1) / C;
        CHECKF(sb && sb->count == chunks, "%s: %lld chunk bases for %lld chunks", name,
               sb ? (long long)sb->count : -1LL, (long long)chunks);
        if (sb && sb->count == chunks) {
            int32_t *base = malloc((size_t)chunks * 4), *w = malloc((size_t)A.nnz * 4);
            int64_t *part = malloc((size_t)(chunks + 1) * 16);
            CHECK_OK(rvs_gpu_memcpy_d2h(base, sb->data, (size_t)chunks * 4, &err), &err);
            CHECK_OK(rvs_gpu_memcpy_d2h(w, rvs_gpu_array(&G, "colind")->data, (size_t)A.nnz * 4, &err), &err);
            CHECK_OK(rvs_gpu_memcpy_d2h(part, rvs_gpu_array(&G, "rbpart")->data, (size_t)(chunks + 1) * 16, &err),
                     &err);
            int sorted = 0, rowwise = 0;
            for (int64_t b = 0; b < chunks; b++) {
                const int64_t S = m ? b * C - part[2 * b] : part[2 * b + 1];
                const int64_t end = m ? (b + 1 < chunks ? (b + 1) * C : A.rows + A.nnz) - part[2 * b + 2]
                                      : (part[2 * b + 3] - S < C ? part[2 * b + 3] : S + C);
                if (base[b] < 0) {
                    rowwise++;
                    CHECKF(memcmp(w + S, A.colind + S, (size_t)(end - S) * 4) == 0, "%s: chunk %lld moved", name,
                           (long long)b);
                    continue;
                }
                sorted++;
                char seen[4096] = {0};
                int ok = 1;
                for (int64_t q = S; q < end; q++) {
                    const uint32_t u = (uint32_t)w[q], slot = u & 4095u;
                    ok &= slot < (uint32_t)(end - S) && !seen[slot] && (q == S || u > (uint32_t)w[q - 1]) &&
                          A.colind[S + slot] == base[b] + (int32_t)(u >> 12);
                    if (slot < 4096)
                        seen[slot] = 1;
                }
                CHECKF(ok, "%s: chunk %lld: words not sorted, or slots not its positions", name, (long long)b);
            }
            CHECKF(sorted > 0 && rowwise > 0, "%s: %d sorted chunks, %d in row order", name, sorted, rowwise);
            free(base);
            free(w);
            free(part);
        }
        rvs_gpu_tune vec = tune_of(0, 4);
        rvs_status st = rvs_gpu_spmv(&G, NULL, NULL, &vec, NULL, &err);
        CHECKF(st == RVS_ERR_UNSUPPORTED && strstr(err.msg, "csr-order=1"),
               "%s: vector kernel on sorted chunks: %d %s", name, (int)st, err.msg);
        const rvs_array *pa = rvs_gpu_array(&G, "rbpart");
        if (pa) { /* sorted chunks are read through the partition only */
            rvs_gpu_tune rb = tune_of(0, 64);
            G.array[pa - G.array].name[0] = '-';
            st = rvs_gpu_spmv(&G, NULL, NULL, &rb, NULL, &err);
            CHECKF(st == RVS_ERR_FORMAT && strstr(err.msg, "without their partition"),
                   "%s: sorted chunks without the partition: %d %s", name, (int)st, err.msg);
            G.array[pa - G.array].name[0] = 'r';
        }
        rvs_gpu_fmt_free(&G);
        rvs_fmt_free(&F);
        rvs_fmt_options rows;
        rvs_fmt_options_default(&rows);
        rows.csr_order = 1;
        check_format_opt(&A, RVS_FMT_CSR, RVS_F64, &vec, &rows, name);
        check_format_opt(&A, RVS_FMT_CSR, RVS_F32, NULL, &rows, name);
        CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, &rows, &err), &err);
        CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
        CHECKF(!rvs_gpu_array(&G, "rbsort") && rvs_gpu_array(&G, "rowptr")->dtype == RVS_DT_I64,
               "%s: csr-order 1 uploaded sorted chunks or narrowed row pointers", name);
        rvs_gpu_fmt_free(&G);
        rvs_fmt_free(&F);
        rvs_csr_free(&A);
    }
}

/* C = A in vt, F = C in format id (options o, NULL: defaults) and G = F on the device. */
static void build_and_upload(rvs_csr *C, rvs_fmt *F, rvs_gpu_fmt *G, const rvs_csr *A, rvs_format_id id,
                             rvs_vtype vt, const rvs_fmt_options *o)
{
    rvs_error err;
    CHECK_OK(rvs_csr_copy(C, A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(C, vt, &err), &err);
    CHECK_OK(rvs_fmt_from_csr(F, id, C, o, &err), &err);
    CHECK_OK(rvs_gpu_upload(G, F, &err), &err);
}

/* CSR on the GPU with its values coded at upload (csr-values 0, the default where the chunks are
 * sorted): a block of 1, 5, 256 and 257 distinct values (exactly representable in f32 too) in f64,
 * f32 and mixed, split and not, checked against A*x; the device holds the table ("vdict", as many
 * values as the block has, ascending by bits) and a byte per entry ("vcode", not for one value)
 * instead of "values", and rvs_gpu_bytes_saved is the values' bytes less these; 257 values and
 * csr-values 1 go up as they are; a kernel that reads values as they are is refused on codes. */
static void check_csr_coded(void)
{
    static const int distinct[4] = {1, 5, 256, 257};
    for (int m = 0; m < 8; m++) {
        const int nd = distinct[m % 4];
        rvs_csr A = {0};
        rvs_error err;
        char name[64];
        make_sortable(&A, 30000, 2000000, m < 4 ? 0 : 9000);
        snprintf(name, sizeof name, "%d distinct values%s", nd, m < 4 ? "" : ", one row of 9000");
        for (int64_t p = 0; p < A.nnz; p++) /* every value of the pool at least once */
            ((double *)A.values)[p] = 0.25 * (double)(p < nd ? p : (p * 7919) % nd) - 3.0;
        check_format(&A, RVS_FMT_CSR, RVS_F64, NULL, name);
        check_format(&A, RVS_FMT_CSR, RVS_F32, NULL, name);
        check_mixed(&A, name);
        for (int f = 0; f < 2; f++) {
            const rvs_vtype vt = f ? RVS_F32 : RVS_F64;
            const int64_t vs = f ? 4 : 8;
            rvs_csr C = {0};
            rvs_fmt F = {0};
            rvs_gpu_fmt G = {0};
            rvs_fmt_options whole; /* its arrays read here: no column panels (2000000 columns, f32) */
            rvs_fmt_options_default(&whole);
            whole.csr_panels = 1;
            build_and_upload(&C, &F, &G, &A, RVS_FMT_CSR, vt, &whole);
            const rvs_array *da = rvs_gpu_array(&G, "vdict"), *qa = rvs_gpu_array(&G, "vcode");
            const int coded = nd <= 256;
            CHECKF(coded == (da != NULL) && coded == !rvs_gpu_array(&G, "values") &&
                       (qa != NULL) == (coded && nd > 1),
                   "%s %s: vdict %d, vcode %d, values %d", name, f ? "f32" : "f64", da != NULL, qa != NULL,
                   rvs_gpu_array(&G, "values") != NULL);
            const int64_t saved = coded ? A.nnz * vs - (nd > 1 ? A.nnz : 0) - nd * vs : 0;
            CHECKF(rvs_gpu_bytes_saved(&G) == saved, "%s %s: %lld bytes saved, want %lld", name, f ? "f32" : "f64",
                   (long long)rvs_gpu_bytes_saved(&G), (long long)saved);
            if (da && da->count == nd) { /* the table: the pool, ascending by bits */
                double got[256];
                float got32[256];
                CHECK_OK(rvs_gpu_memcpy_d2h(f ? (void *)got32 : (void *)got, da->data, (size_t)(nd * vs), &err),
                         &err);
                int in_pool = 1, ascending = 1;
                for (int i = 0; i < nd; i++) {
                    const double v = f ? (double)got32[i] : got[i], k = (v + 3.0) / 0.25;
                    in_pool &= k == (double)(int64_t)k && k >= 0 && k < nd;
                    if (i > 0) {
                        uint64_t a = 0, b = 0;
                        memcpy(&a, f ? (void *)&got32[i - 1] : (void *)&got[i - 1], (size_t)vs);
                        memcpy(&b, f ? (void *)&got32[i] : (void *)&got[i], (size_t)vs);
                        ascending &= a < b;
                    }
                }
                CHECKF(in_pool && ascending, "%s %s: table not the pool ascending by bits", name,
                       f ? "f32" : "f64");
            }
            if (da) {
                rvs_gpu_tune vec = tune_of(0, 4);
                rvs_status st = rvs_gpu_spmv(&G, NULL, NULL, &vec, NULL, &err);
                CHECKF(st == RVS_ERR_UNSUPPORTED && strstr(err.msg, "csr-values=1"),
                       "%s: vector kernel on codes: %d %s", name, (int)st, err.msg);
            }
            rvs_gpu_fmt_free(&G);
            rvs_fmt_free(&F);
            rvs_fmt_options plain;
            rvs_fmt_options_default(&plain);
            plain.csr_values = 1;
            plain.csr_panels = 1;
            CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &C, &plain, &err), &err);
            CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
            CHECKF(!rvs_gpu_array(&G, "vdict") && rvs_gpu_array(&G, "values") && rvs_gpu_array(&G, "rbsort"),
                   "%s: csr-values 1 coded the values or left the chunks unsorted", name);
            rvs_gpu_fmt_free(&G);
            rvs_fmt_free(&F);
            if (f == 0)
                check_format_opt(&A, RVS_FMT_CSR, RVS_F64, NULL, &plain, name);
            rvs_csr_free(&C);
        }
        rvs_csr_free(&A);
    }
}

/* A band of rows x cols: diagonals offs[0, nof), about one slot in 16 left empty (gap), entry p's
 * value pool[(p * 7919) % np] after the first np entries took pool[p]; plus, when far, one entry
 * per 500 rows far off the band (HYB-DIA's COO tail). */
static void make_band(rvs_csr *A, int64_t rows, int64_t cols, const int *offs, int nof, int gap, const double *pool,
                      int np, int far)
{
    rvs_error err;
    int64_t nnz = 0, p = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            CHECK_OK(rvs_csr_alloc(A, rows, cols, nnz, RVS_F64, &err), &err);
        p = 0;
        for (int64_t i = 0; i < rows; i++) {
            for (int k = 0; k < nof; k++) {
                const int64_t c = i + offs[k];
                if (c < 0 || c >= cols || (gap && (i * 31 + k * 7) % 16 == 5))
                    continue;
                if (pass == 1) {
                    A->colind[p] = (int32_t)c;
                    ((double *)A->values)[p] = pool[p < np ? p : (p * 7919) % np];
                }
                p++;
            }
            if (far && i % 500 == 0 && i + offs[nof - 1] + 1000 < cols) {
                if (pass == 1) {
                    A->colind[p] = (int32_t)(i + offs[nof - 1] + 1000);
                    ((double *)A->values)[p] = pool[0];
                }
                p++;
            }
            if (pass == 1)
                A->rowptr[i + 1] = p;
        }
        nnz = p;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct values (by bits) of a value array of n entries of vs bytes. */
static int64_t distinct_bits(const void *v, int64_t n, size_t vs)
{
    uint64_t *b = calloc((size_t)(n > 0 ? n : 1), sizeof *b);
    int64_t d = 0;
    CHECK(b != NULL);
    if (!b)
        return -1;
    for (int64_t i = 0; i < n; i++)
        memcpy(&b[i], (const char *)v + (size_t)i * vs, vs);
    qsort(b, (size_t)n, sizeof *b, cmp_u64);
    for (int64_t i = 0; i < n; i++)
        d += i == 0 || b[i] != b[i - 1];
    free(b);
    return d;
}

/* DIA and HYB-DIA on the GPU with their slots coded at upload (dia-values 0, the default where the
 * slots hold at most 256 distinct values, their +0 padding included): bands of 1 (one full
 * diagonal, no padding), 6, 255, 256 and 257 distinct slot values in f64 and f32, checked against
 * A*x, also with 1, 2, 4 and 8 rows a thread where coded (rows-per-thread) and with dia-values 1; the
 * device holds "vdict" and "vcode" (not for one value) instead of "dia_val" exactly when the
 * slots fit a table, counted independently here, and rvs_gpu_bytes_saved is the slots' bytes less
 * the codes and the table. */
static void check_dia_coded(void)
{
    static const int band[5] = {-300, -1, 0, 1, 7}, diag[1] = {0};
    static const int npool[5] = {1, 5, 255, 256, 257};
    double pool[257];
    for (int i = 0; i < 257; i++) /* 0.25 * i - 3: exact in f32, +0 at i = 12 */
        pool[i] = 0.25 * (double)i - 3.0;
    for (int m = 0; m < 5; m++) {
        rvs_csr A = {0};
        rvs_error err;
        char name[64];
        const int one = m == 0;
        make_band(&A, one ? 40000 : 50001, one ? 40000 : 50013, one ? diag : band, one ? 1 : 5, !one, pool,
                  npool[m], !one);
        snprintf(name, sizeof name, "band of %d values", npool[m]);
        for (int h = 0; h < 2; h++)
            for (int f = 0; f < 2; f++) {
                const rvs_format_id id = h ? RVS_FMT_HYBDIA : RVS_FMT_DIA;
                const rvs_vtype vt = f ? RVS_F32 : RVS_F64;
                const size_t vs = f ? 4 : 8;
                check_format(&A, id, vt, NULL, name);
                for (int r = 1; r <= 8 && npool[m] <= 256; r *= 2) { /* coded rows a thread */
                    rvs_gpu_tune rpt = {0, 0, 0, 0, r, 0};
                    check_format(&A, id, vt, &rpt, name);
                }
                rvs_fmt_options plain;
                rvs_fmt_options_default(&plain);
                plain.dia_values = 1;
                check_format_opt(&A, id, vt, NULL, &plain, name);
                rvs_csr C = {0};
                rvs_fmt F = {0};
                rvs_gpu_fmt G = {0};
                build_and_upload(&C, &F, &G, &A, id, vt, NULL);
                const rvs_array *sv = rvs_fmt_array(&F, "dia_val");
                const int64_t nd = distinct_bits(sv->data, sv->count, vs), slots = sv->count;
                CHECKF(nd == (one             ? 1
                              : npool[m] < 13 ? npool[m] + 1
                                              : npool[m]),
                       "%s: %lld distinct slot values", name, (long long)nd);
                const rvs_array *da = rvs_gpu_array(&G, "vdict"), *qa = rvs_gpu_array(&G, "vcode");
                const int coded = nd <= 256;
                CHECKF(coded == (da != NULL) && coded == !rvs_gpu_array(&G, "dia_val") &&
                           (qa != NULL) == (coded && nd > 1) && (!da || da->count == nd) &&
                           (!qa || qa->count == slots),
                       "%s %s %s: vdict %d, vcode %d, dia_val %d", name, h ? "hyb-dia" : "dia", f ? "f32" : "f64",
                       da != NULL, qa != NULL, rvs_gpu_array(&G, "dia_val") != NULL);
                const int64_t saved = coded ? slots * (int64_t)vs - (nd > 1 ? slots : 0) - nd * (int64_t)vs : 0;
                CHECKF(rvs_gpu_bytes_saved(&G) == saved, "%s: %lld bytes saved, want %lld", name,
                       (long long)rvs_gpu_bytes_saved(&G), (long long)saved);
                rvs_gpu_fmt_free(&G);
                rvs_fmt_free(&F);
                CHECK_OK(rvs_fmt_from_csr(&F, id, &C, &plain, &err), &err);
                CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
                CHECKF(!rvs_gpu_array(&G, "vdict") && rvs_gpu_array(&G, "dia_val") && rvs_gpu_bytes_saved(&G) == 0,
                       "%s: dia-values 1 coded the slots", name);
                rvs_gpu_fmt_free(&G);
                rvs_fmt_free(&F);
                rvs_csr_free(&C);
            }
        rvs_csr_free(&A);
    }
}

/* G (uploaded from F, CSR) holds "col16" in place of "colind" exactly when want, and then entry p
 * of row i is in column (i & ~31) + G.cbase + col16[p]: checked entry by entry against F. */
static void check_col16(const rvs_gpu_fmt *G, const rvs_fmt *F, int want, const char *name)
{
    rvs_error err;
    const rvs_array *c16 = rvs_gpu_array(G, "col16"), *ci = rvs_gpu_array(G, "colind");
    CHECKF((c16 != NULL) == want && (ci != NULL) == !want, "%s: col16 %d colind %d, want 16-bit columns %d", name,
           c16 != NULL, ci != NULL, want);
    if (!c16 || c16->dtype != RVS_DT_U16 || c16->count != F->nnz)
        return;
    uint16_t *h = malloc((size_t)F->nnz * 2 + 2);
    CHECK(h != NULL);
    if (!h)
        return;
    CHECK_OK(rvs_gpu_memcpy_d2h(h, c16->data, (size_t)F->nnz * 2, &err), &err);
    const int64_t *rp = rvs_fmt_array(F, "rowptr")->data;
    const int32_t *col = rvs_fmt_array(F, "colind")->data;
    int64_t bad = 0;
    for (int64_t i = 0; i < F->rows; i++)
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            bad += (i & ~(int64_t)31) + G->cbase + h[p] != col[p];
    CHECKF(bad == 0, "%s: %lld entries of col16 (base %lld) decode to another column", name, (long long)bad,
           (long long)G->cbase);
    free(h);
}

/* Mixed precision (f32 values of C, f64 x and y) with lanes a row on G, C uploaded laid out: y
 * poisoned, then checked against C's values in f64. */
static void check_mixed_laid(const rvs_gpu_fmt *G, const rvs_csr *C, int lanes, const char *name)
{
    rvs_csr Ar = {0};
    rvs_error err;
    double *x = malloc((size_t)C->cols * 8 + 8), *y = malloc((size_t)C->rows * 8 + 8), max_err;
    void *dx = NULL, *dy = NULL;
    int64_t row;
    rvs_gpu_tune t = tune_of(0, lanes);
    CHECK(x && y);
    CHECK_OK(rvs_csr_copy(&Ar, C, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&Ar, RVS_F64, &err), &err);
    rvs_test_random_vector(x, C->cols, 23);
    CHECK_OK(rvs_gpu_malloc(&dx, (size_t)C->cols * 8 + 8, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dy, (size_t)C->rows * 8 + 8, &err), &err);
    CHECK_OK(rvs_gpu_memcpy_h2d(dx, x, (size_t)C->cols * 8, &err), &err);
    CHECK_OK(rvs_gpu_memset(dy, 0xff, (size_t)C->rows * 8, &err), &err);
    CHECK_OK(rvs_gpu_spmv_mixed(G, dx, dy, &t, NULL, &err), &err);
    CHECK_OK(rvs_gpu_sync(&err), &err);
    CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)C->rows * 8, &err), &err);
    rvs_status st = rvs_spmv_check(&Ar, x, y, 1e-10, &max_err, &row, &err);
    CHECKF(st == RVS_OK, "%s: mixed, threads-per-row %d, laid out: %s", name, lanes, err.msg);
    ran++;
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_csr_free(&Ar);
    free(x);
    free(y);
}

/* CSR of regular rows laid out for the row kernels (rvs_csr_gpu_in_rows): columns as 16-bit offsets
 * from the row's group of 32 where they span at most 2^16 values (a band of 5 diagonals with far
 * entries; two rows of spans 65535 and 65536 exactly, the first with a negative base) and 32-bit
 * otherwise (a band wider than 2^16), values coded where at most 256 (one value, 300 values); the
 * warp-rows and vector kernels (every lane count) and mixed precision checked against A*x; the
 * bytes saved counted here; csr-index=1 and csr-order=1 keep 32-bit columns; the scalar,
 * row-block and nnz-split kernels refused on such a block, and mixed precision (its warp-rows
 * and vector kernels) checked on it. */
static void check_csr_narrow(void)
{
    static const int band[5] = {-300, -1, 0, 1, 7}, wide[3] = {-40000, 0, 30000};
    static const int lanes[7] = {0, 2, 4, 8, 16, 32, 256};
    double pool[300];
    for (int i = 0; i < 300; i++)
        pool[i] = 0.25 * (double)i - 3.0;
    for (int m = 0; m < 5; m++) {
        rvs_csr A = {0};
        rvs_error err;
        char name[64];
        int narrow = 1, np = m == 1 ? 300 : 1;
        if (m < 2) {
            make_band(&A, 50001, 50013, band, 5, 1, pool, np, 1);
            snprintf(name, sizeof name, "band of %d values", np);
        } else if (m == 2) {
            make_band(&A, 90000, 90000, wide, 3, 0, pool, np, 0);
            snprintf(name, sizeof name, "band of 70000 columns");
            narrow = 0;
        } else { /* 64 rows of columns 0 and K - 32: the span is K, the base -32 */
            const int64_t K = m == 3 ? 65535 : 65536;
            CHECK_OK(rvs_csr_alloc(&A, 64, 65600, 128, RVS_F64, &err), &err);
            for (int64_t i = 0; i < 64; i++) {
                A.rowptr[i + 1] = 2 * i + 2;
                A.colind[2 * i] = 0;
                A.colind[2 * i + 1] = (int32_t)(K - 32);
                ((double *)A.values)[2 * i] = 1.0 + (double)i;
                ((double *)A.values)[2 * i + 1] = -2.0;
            }
            snprintf(name, sizeof name, "span of %lld columns", (long long)K);
            narrow = m == 3;
        }
        CHECKF(in_rows(&A, RVS_F64) && in_rows(&A, RVS_F32), "%s: not laid out for the row kernels", name);
        for (int f = 0; f < 2; f++) {
            const rvs_vtype vt = f ? RVS_F32 : RVS_F64;
            const int64_t vs = f ? 4 : 8;
            for (int l = 0; l < 7; l++) {
                rvs_gpu_tune t = tune_of(0, lanes[l]);
                check_format(&A, RVS_FMT_CSR, vt, &t, name);
            }
            rvs_csr C = {0};
            rvs_fmt F = {0};
            rvs_gpu_fmt G = {0};
            build_and_upload(&C, &F, &G, &A, RVS_FMT_CSR, vt, NULL);
            check_col16(&G, &F, narrow, name);
            CHECKF(!narrow || (G.cbase == (m == 3 ? -32 : -300)), "%s: base %lld", name, (long long)G.cbase);
            const int64_t nd = distinct_bits(C.values, C.nnz, (size_t)vs);
            const int64_t saved = (narrow ? 2 * C.nnz : 0) +
                                  (nd <= 256 ? C.nnz * vs - (nd > 1 ? C.nnz : 0) - nd * vs : 0);
            CHECKF((rvs_gpu_array(&G, "vdict") != NULL) == (nd <= 256), "%s: %lld values, table %d", name,
                   (long long)nd, rvs_gpu_array(&G, "vdict") != NULL);
            CHECKF(rvs_gpu_bytes_saved(&G) == saved, "%s %s: %lld bytes saved, want %lld", name, f ? "f32" : "f64",
                   (long long)rvs_gpu_bytes_saved(&G), (long long)saved);
            static const int others[3] = {1, 64, 128};
            for (int k = 0; k < 3; k++) {
                rvs_gpu_tune t = tune_of(0, others[k]);
                rvs_status st = rvs_gpu_spmv(&G, NULL, NULL, &t, NULL, &err);
                CHECKF(st == RVS_ERR_UNSUPPORTED && strstr(err.msg, "csr-order=1"), "%s: threads-per-row %d: %d %s",
                       name, others[k], (int)st, err.msg);
            }
            if (f) /* mixed precision on the laid-out f32 block: warp-rows, the vector kernel */
                for (int l = 0; l < 7; l++)
                    check_mixed_laid(&G, &C, lanes[l], name);
            rvs_gpu_fmt_free(&G);
            rvs_fmt_free(&F);
            for (int o = 0; o < 2; o++) { /* csr-index=1, csr-order=1: 32-bit columns */
                rvs_fmt_options opt;
                rvs_fmt_options_default(&opt);
                if (o)
                    opt.csr_order = 1;
                else
                    opt.csr_index = 1;
                CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &C, &opt, &err), &err);
                CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
                check_col16(&G, &F, 0, o ? "csr-order=1" : "csr-index=1");
                CHECKF((rvs_gpu_array(&G, "vdict") != NULL) == (!o && nd <= 256), "%s: csr-order=%d: table %d",
                       name, o, rvs_gpu_array(&G, "vdict") != NULL);
                rvs_gpu_fmt_free(&G);
                rvs_fmt_free(&F);
                check_format_opt(&A, RVS_FMT_CSR, vt, NULL, &opt, name);
            }
            rvs_csr_free(&C);
        }
        check_mixed(&A, name);
        rvs_csr_free(&A);
    }
}

/* cuSPARSE's three algorithms give A*x. */
static void check_cusparse(const rvs_csr *A, rvs_vtype vt, const char *name)
{
    static const rvs_cusparse_alg algs[3] = {RVS_CUSPARSE_CSR_ALG1, RVS_CUSPARSE_CSR_ALG2, RVS_CUSPARSE_COO_ALG1};
    rvs_csr C = {0};
    rvs_error err;
    double *xd = malloc((size_t)A->cols * 8 + 8), *yd = malloc((size_t)A->rows * 8 + 8), ms, max_err;
    void *x = malloc((size_t)A->cols * 8 + 8), *y = malloc((size_t)A->rows * 8 + 8);
    int64_t row;
    CHECK_OK(rvs_csr_copy(&C, A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&C, vt, &err), &err);
    make_x(xd, x, A->cols, vt, 5);
    for (int a = 0; a < 3; a++) {
        memset(y, 0xff, (size_t)A->rows * rvs_vtype_size(vt));
        CHECK_OK(rvs_cusparse_spmv(&C, algs[a], x, y, 3, &ms, &err), &err);
        to_double(yd, y, A->rows, vt);
        rvs_status st = rvs_spmv_check(A, xd, yd, tol_of(vt), &max_err, &row, &err);
        CHECKF(st == RVS_OK && ms > 0, "%s cuSPARSE %s: %s", name, rvs_cusparse_alg_name(algs[a]), err.msg);
    }
    rvs_csr_free(&C);
    free(xd);
    free(yd);
    free(x);
    free(y);
}

/* Hybrid: partition A (pmf and diag), GPU parts in ELLR-or-CSR on the device, CPU parts in CSR
 * on the host, y = scatter-add of the parts' results through their row lists. */
static void check_hybrid(const rvs_csr *A, rvs_alg alg, const char *name)
{
    static const double cp[3] = {6, 1, 2};
    static const rvs_device dev[3] = {RVS_DEV_GPU, RVS_DEV_CPU, RVS_DEV_CPU};
    rvs_partition P = {0};
    rvs_error err;
    double *xd = malloc((size_t)A->cols * 8 + 8), *y = calloc((size_t)A->rows + 1, 8), max_err;
    double *yp = malloc((size_t)A->rows * 8 + 8);
    int64_t row;
    rvs_test_random_vector(xd, A->cols, 3);
    CHECK_OK(rvs_partition_compute(&P, A, alg, 3, cp, dev, 0, &err), &err);
    for (int k = 0; k < P.k; k++) {
        rvs_csr S = {0};
        rvs_fmt F = {0};
        const rvs_part *q = &P.parts[k];
        CHECK_OK(rvs_partition_extract(&S, &P, k, A, &err), &err);
        if (q->device == RVS_DEV_GPU) {
            if (rvs_fmt_from_csr(&F, RVS_FMT_ELLR, &S, NULL, &err) != RVS_OK) {
                rvs_fmt_free(&F);
                CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &S, NULL, &err), &err);
            }
            memset(yp, 0, (size_t)q->nrows * 8);
            CHECK_OK(gpu_run(&F, xd, yp, NULL, &err), &err);
        } else {
            CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &S, NULL, &err), &err);
            CHECK_OK(rvs_cpu_spmv(&F, xd, yp, &err), &err);
        }
        for (int64_t i = 0; i < q->nrows; i++)
            y[q->rows[i]] += yp[i];
        rvs_fmt_free(&F);
        rvs_csr_free(&S);
    }
    rvs_status st = rvs_spmv_check(A, xd, y, 1e-10, &max_err, &row, &err);
    CHECKF(st == RVS_OK, "%s hybrid %s: %s", name, rvs_alg_name(alg), err.msg);
    rvs_partition_free(&P);
    free(xd);
    free(y);
    free(yp);
}

/* Matrices made here: empty rows, one long row (COO carries across warps), tiny and empty. */
/* Rows whose chunks average 16 staged entries or more: the row-block kernel sums them by groups
 * of 2, 4, 8 or 32 lanes (rows of 20, 45, 100, 300 entries), and lists a row over 16 entries a
 * lane for a warp (the cycle 300, 1, 2, 40: groups of 4). f64 and f32, forced and by default. */
static void check_csr_row_groups(void)
{
    static const int64_t cycles[][4] = {
        {20, 20, 20, 20}, {45, 44, 46, 45}, {100, 90, 110, 100}, {300, 300, 300, 300}, {300, 1, 2, 40}};
    const int64_t rows = 20000;
    int64_t *len = malloc((size_t)rows * sizeof *len);
    CHECK(len != NULL);
    for (int c = 0; len && c < 5; c++) {
        rvs_csr A = {0};
        char name[64];
        rvs_gpu_tune t = tune_of(0, 64);
        for (int64_t i = 0; i < rows; i++)
            len[i] = cycles[c][i % 4];
        CHECK(rvs_test_csr_from_lengths(&A, len, rows, 5000) == RVS_OK);
        snprintf(name, sizeof name, "rows of %lld, %lld, %lld, %lld", (long long)cycles[c][0],
                 (long long)cycles[c][1], (long long)cycles[c][2], (long long)cycles[c][3]);
        rvs_fmt_options rows; /* the row-block kernel reads a block laid out for the row kernels in order */
        rvs_fmt_options_default(&rows);
        rows.csr_order = 1;
        for (int k = 0; k < 2; k++) {
            const rvs_vtype vt = k ? RVS_F32 : RVS_F64;
            check_format_opt(&A, RVS_FMT_CSR, vt, &t, in_rows(&A, vt) ? &rows : NULL, name);
            check_format(&A, RVS_FMT_CSR, vt, NULL, name);
        }
        rvs_csr_free(&A);
    }
    free(len);
}

static void check_generated(void)
{
    static const int64_t one_long[4] = {1, 70000, 0, 3};
    static const int64_t single[1] = {1};
    rvs_csr A = {0};
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 3000, 2500, 0.004, 1, 42), &err);
    check_all_formats(&A, "random 3000x2500");
    check_csr_tunables(&A, "random 3000x2500");
    check_csr_partition(&A, "random 3000x2500");
    check_csr_sorted();
    check_csr_row_groups();
    check_csr_coded();
    check_dia_coded();
    check_csr_narrow();
    check_hcc_dia_variants(&A, "random 3000x2500");
    check_mixed(&A, "random 3000x2500");
    check_cusparse(&A, RVS_F64, "random 3000x2500");
    check_cusparse(&A, RVS_F32, "random 3000x2500");
    check_hybrid(&A, RVS_ALG_PMF, "random 3000x2500");
    check_hybrid(&A, RVS_ALG_DIAG, "random 3000x2500");
    rvs_csr_free(&A);
    CHECK(rvs_test_csr_from_lengths(&A, one_long, 4, 80000) == RVS_OK);
    check_all_formats(&A, "one long row");
    check_csr_tunables(&A, "one long row");
    check_csr_partition(&A, "one long row");
    check_hcc_dia_variants(&A, "one long row");
    check_mixed(&A, "one long row");
    rvs_csr_free(&A);
    CHECK(rvs_test_csr_from_lengths(&A, single, 1, 1) == RVS_OK);
    check_all_formats(&A, "1x1");
    rvs_csr_free(&A);
}

/* Every shared matrix: every format, both precisions; hybrid and cuSPARSE on some. */
static void check_shared(void)
{
    rvs_test_matrix *list = NULL;
    int n = rvs_test_matrix_list(&list);
    for (int i = 0; i < n; i++) {
        rvs_csr A = {0};
        rvs_error err;
        if (strcmp(list[i].field, "complex") == 0)
            continue; /* refused by the reader by design */
        rvs_status st = rvs_mm_read_file(&A, NULL, list[i].path, NULL, NULL, &err);
        CHECKF(st == RVS_OK, "%s: %s", list[i].name, err.msg);
        if (st != RVS_OK)
            continue;
        check_all_formats(&A, list[i].name);
        if (i % 4 == 0) {
            check_csr_partition(&A, list[i].name);
            check_hcc_dia_variants(&A, list[i].name);
            check_mixed(&A, list[i].name);
        }
        if (i % 8 == 0) {
            check_hybrid(&A, RVS_ALG_PMF, list[i].name);
            check_hybrid(&A, RVS_ALG_DIAG, list[i].name);
            check_cusparse(&A, i % 16 ? RVS_F32 : RVS_F64, list[i].name);
        }
        rvs_csr_free(&A);
    }
    printf("%d shared matrices\n", n);
    free(list);
}

int main(void)
{
    char desc[256];
    double gbs = 0;
    rvs_error err;
    if (rvs_gpu_count() == 0) {
        printf("no usable GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    rvs_gpu_describe(desc, sizeof desc);
    printf("GPU: %s\n", desc);
    CHECK_OK(rvs_gpu_copy_bandwidth((size_t)64 << 20, 3, &gbs, &err), &err);
    CHECK(gbs > 0);
    check_generated();
    check_shared();
    printf("%d runs checked, %d refused by a format builder\n", ran, refused);
    return rvs_test_done();
}
