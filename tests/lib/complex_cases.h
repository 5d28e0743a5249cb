/* complex_cases.h - complex matrices every format must hold and multiply as it does real ones:
 * the generators, x and y in (re, im) pairs, and one check of a format on a runner (the CPU
 * kernels, or the GPU's) against CXSparse's cs_cl_gaxpy in double complex, with y poisoned
 * (NaN) before the run. Included by test_complex.c and test_gpu_complex.c. */
#ifndef COMPLEX_CASES_H
#define COMPLEX_CASES_H

#include <math.h>
#include <string.h>
#include "rvs_gpu.h"
#include "rvs_test.h"

static const rvs_format_id cx_formats[] = {RVS_FMT_CSR,    RVS_FMT_COO,   RVS_FMT_ELL, RVS_FMT_ELLR,
                                           RVS_FMT_PELLR,  RVS_FMT_BIELL, RVS_FMT_JAD, RVS_FMT_HYB,
                                           RVS_FMT_HYBDIA, RVS_FMT_DIA,   RVS_FMT_HCC};
#define CX_NFORMATS ((int)(sizeof cx_formats / sizeof cx_formats[0]))
#define CX_NMATRICES 6

/* y = F*x by some device: x and y in F's value type, y poisoned by the caller or runner. */
typedef rvs_status (*cx_runner)(const rvs_fmt *F, const void *x, void *y, const rvs_gpu_tune *t, rvs_error *err);

static int cx_ran, cx_refused;

/* A band of ndiag diagonals centred on the main one (what DIA and HYB-DIA are for). */
static rvs_status cx_band(rvs_csr *A, int64_t n, int64_t ndiag)
{
    int64_t nnz = 0, *ri = malloc((size_t)(n * ndiag + 1) * sizeof *ri),
            *ci = malloc((size_t)(n * ndiag + 1) * sizeof *ci);
    double *v = malloc((size_t)(n * ndiag + 1) * sizeof *v);
    rvs_status st = ri && ci && v ? RVS_OK : RVS_ERR_NOMEM;
    for (int64_t i = 0; st == RVS_OK && i < n; i++)
        for (int64_t d = -ndiag / 2; d <= ndiag / 2; d++)
            if (i + d >= 0 && i + d < n) {
                ri[nnz] = i;
                ci[nnz] = i + d;
                v[nnz++] = 1.0 + (double)((i * 7 + d * 3) % 11) / 8.0;
            }
    if (st == RVS_OK)
        st = rvs_csr_from_coo(A, n, n, nnz, ri, ci, v, RVS_F64, NULL);
    free(ri);
    free(ci);
    free(v);
    return st;
}

/* Test matrix `which` (0 .. CX_NMATRICES - 1) in c128 with its name: random with empty rows,
 * a band, rows of very different lengths (one of 2500 entries: the long-row kernels), a few
 * dense rows wider than a warp's reach, a single entry, and no entries at all. */
static rvs_status cx_matrix(int which, rvs_csr *A, const char **name)
{
    static const char *const names[CX_NMATRICES] = {"random 300x250",   "band 600 (7 diagonals)",
                                                    "skewed 2000x3000", "wide rows 40x5000",
                                                    "one entry 1x1",    "empty 5x4"};
    rvs_status st;
    *name = names[which];
    switch (which) {
    case 0: st = rvs_test_random_csr(A, 300, 250, 0.04, 1, 3); break;
    case 1: st = cx_band(A, 600, 7); break;
    case 2: st = rvs_test_random_csr(A, 2000, 3000, 0.003, 1, 5); break;
    case 3: st = rvs_test_random_csr(A, 40, 5000, 0.3, 0, 9); break;
    case 4: {
        const int64_t r = 0, c = 0;
        const double v = 2.5;
        st = rvs_csr_from_coo(A, 1, 1, 1, &r, &c, &v, RVS_F64, NULL);
        break;
    }
    default: st = rvs_csr_from_coo(A, 5, 4, 0, NULL, NULL, NULL, RVS_F64, NULL); break;
    }
    if (st == RVS_OK && which == 2) { /* one row of 2500 entries, one of 800 */
        rvs_csr L = {0};
        int64_t len[2000];
        for (int i = 0; i < 2000; i++)
            len[i] = A->rowptr[i + 1] - A->rowptr[i];
        len[17] = 2500;
        len[1500] = 800;
        rvs_csr_free(A);
        st = rvs_test_csr_from_lengths(&L, len, 2000, 3000);
        *A = L;
    }
    return st == RVS_OK ? rvs_test_complexify(A, RVS_C128, 41u + (unsigned)which) : st;
}

/* x: n random complex values of vt into xv, and as used (rounded to vt) into xd's pairs. */
static void cx_make_x(double *xd, void *xv, int64_t n, rvs_vtype vt, unsigned seed)
{
    rvs_test_random_vector(xd, 2 * n, seed);
    for (int64_t j = 0; j < 2 * n; j++) {
        if (vt == RVS_C128)
            ((double *)xv)[j] = xd[j];
        else
            xd[j] = ((float *)xv)[j] = (float)xd[j];
    }
}

/* y (n complex values of vt) as (re, im) pairs of doubles. */
static void cx_to_double(double *yd, const void *y, int64_t n, rvs_vtype vt)
{
    for (int64_t i = 0; i < 2 * n; i++)
        yd[i] = vt == RVS_C128 ? ((const double *)y)[i] : (double)((const float *)y)[i];
}

/* Tolerance of spmv.1 for a complex type. */
static double cx_tol(rvs_vtype vt)
{
    return vt == RVS_C128 ? 1e-10 : 1e-4;
}

/* 1 when A and B hold the same matrix bit for bit (structure and values). */
static int cx_same(const rvs_csr *A, const rvs_csr *B)
{
    return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz && A->vtype == B->vtype &&
           memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * 8) == 0 &&
           memcmp(A->colind, B->colind, (size_t)A->nnz * 4) == 0 &&
           memcmp(A->values, B->values, (size_t)A->nnz * rvs_vtype_size(A->vtype)) == 0;
}

/* Format id of A (c128) in vt with options fo (NULL: defaults) and tunables t, run by run:
 * the block built and validated, back to CSR bit for bit, then y = F*x checked against
 * CXSparse in double complex. A builder refusing the matrix (DIA's padding limit) is counted,
 * not failed. what names the run in messages. */
static void cx_check(cx_runner run, const rvs_csr *A, rvs_format_id id, rvs_vtype vt, const rvs_gpu_tune *t,
                     const rvs_fmt_options *fo, const char *what)
{
    const char *fname = rvs_format_lookup(id)->name, *tname = rvs_vtype_name(vt);
    rvs_csr C = {0}, B = {0};
    rvs_fmt F = {0};
    rvs_error err;
    double *xd = malloc((size_t)A->cols * 16 + 16), *yd = malloc((size_t)A->rows * 16 + 16), max_err;
    void *x = malloc((size_t)A->cols * 16 + 16), *y = malloc((size_t)A->rows * 16 + 16);
    int64_t row;
    CHECK(xd && yd && x && y);
    if (!xd || !yd || !x || !y)
        goto done;
    CHECK_OK(rvs_csr_copy(&C, A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&C, vt, &err), &err);
    rvs_status st = rvs_fmt_from_csr(&F, id, &C, fo, &err);
    if (st == RVS_ERR_UNSUPPORTED || st == RVS_ERR_OVERFLOW) {
        cx_refused++;
        goto done;
    }
    CHECKF(st == RVS_OK, "%s: %s %s: built from CSR: %s", what, fname, tname, err.msg);
    if (st != RVS_OK)
        goto done;
    CHECKF(F.vtype == vt, "%s: %s %s: the block holds %s values", what, fname, tname, rvs_vtype_name(F.vtype));
    st = rvs_fmt_to_csr(&B, &F, &err);
    CHECKF(st == RVS_OK && cx_same(&B, &C), "%s: %s %s: back to CSR differs from the matrix (%s)", what, fname,
           tname, st == RVS_OK ? "values or structure" : err.msg);
    cx_make_x(xd, x, A->cols, vt, 11u + (unsigned)id);
    memset(y, 0xff, (size_t)A->rows * rvs_vtype_size(vt) + 1); /* NaN in both parts */
    st = run(&F, x, y, t, &err);
    CHECKF(st == RVS_OK, "%s: %s %s: the run failed: %s", what, fname, tname, err.msg);
    if (st != RVS_OK)
        goto done;
    cx_to_double(yd, y, A->rows, vt);
    st = rvs_spmv_check(&C, xd, yd, cx_tol(vt), &max_err, &row, &err);
    CHECKF(st == RVS_OK, "%s: %s %s (threads-per-row %d, block %d): y differs from CXSparse's: %s", what, fname,
           tname, t ? t->threads_per_row : 0, t ? t->block : 0, err.msg);
    cx_ran++;
done:
    rvs_fmt_free(&F);
    rvs_csr_free(&C);
    rvs_csr_free(&B);
    free(xd);
    free(yd);
    free(x);
    free(y);
}

#endif
