/* test_memory.c - host memory bounded by the data: the row-block SpMV check against CSparse,
 * CSR from triplets in place, CSR views and borrowed CSR blocks, and the peak RSS of reading a
 * large stream through a pipe and of checking a large product (measured in child processes). */
#include <math.h>
#include <omp.h>
#include <string.h>
#include <suitesparse/cs.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "rvs_cpu.h"
#include "rvs_draw.h"
#include "rvs_engine.h"
#include "rvs_mm.h"
#include "rvs_test.h"

/* The check agrees with CSparse to rounding, finds a perturbed row, fails on NaN. */
static void test_check(rvs_vtype vt, unsigned seed)
{
    rvs_csr A;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 3000, 2000, 0.01, 1, seed), &err);
    CHECK_OK(rvs_csr_convert_values(&A, vt, &err), &err);
    double *x = malloc(2000 * sizeof *x), *y = malloc(3000 * sizeof *y), me;
    int64_t row;
    rvs_test_random_vector(x, 2000, seed + 1);
    rvs_test_csparse_product(&A, x, y);
    CHECK_OK(rvs_spmv_check(&A, x, y, 1e-14, &me, &row, &err), &err);
    CHECKF(me <= 1e-15, "CSparse and the row-block reference differ by %g", me);
    const int64_t bad = 2345;
    y[bad] += 1e-6 * (1 + fabs(y[bad]));
    CHECK(rvs_spmv_check(&A, x, y, 1e-10, &me, &row, &err) == RVS_ERR_CHECK);
    CHECKF(row == bad, "worst row %lld, want %lld", (long long)row, (long long)bad);
    CHECK(strstr(err.msg, "row 2346") != NULL);
    rvs_test_csparse_product(&A, x, y);
    y[17] = NAN;
    CHECK(rvs_spmv_check(&A, x, y, 1e-10, &me, &row, &err) == RVS_ERR_CHECK && row == 17 && isinf(me));
    free(x);
    free(y);
    rvs_csr_free(&A);
}

/* The check with x drawn from a seed (the advisor's GPU trials, whose x exists only on the
 * device) agrees with the check of the same x as an array: rvs_fill_x draws rvs_draw's values,
 * in A's precision; a perturbed row fails; a complex A is refused. */
static void test_check_drawn(rvs_vtype vt, uint64_t seed)
{
    rvs_csr A;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 3000, 2000, 0.01, 1, (unsigned)seed), &err);
    CHECK_OK(rvs_csr_convert_values(&A, vt, &err), &err);
    const int single = rvs_vtype_real(vt) == RVS_F32;
    double *x = malloc(2000 * sizeof *x), *y = malloc(3000 * sizeof *y), me;
    float *xf = malloc(2000 * sizeof *xf);
    int64_t row, off = 0;
    rvs_fill_x(single ? (void *)xf : NULL, x, 2000, vt, seed);
    for (int64_t j = 0; j < 2000; j++)
        off += x[j] != rvs_draw(seed, j, single) || (single && (double)xf[j] != x[j]) || !(fabs(x[j]) <= 1);
    CHECKF(off == 0, "%lld entries of rvs_fill_x differ from rvs_draw", (long long)off);
    rvs_test_csparse_product(&A, x, y);
    CHECK_OK(rvs_spmv_check_drawn(&A, seed, y, 1e-14, &me, &row, &err), &err);
    CHECKF(me <= 1e-15, "CSparse and the drawn reference differ by %g", me);
    /* another seed is another x */
    CHECK(rvs_spmv_check_drawn(&A, seed + 1, y, 1e-10, &me, &row, &err) == RVS_ERR_CHECK);
    y[1234] += 1e-6 * (1 + fabs(y[1234]));
    CHECK(rvs_spmv_check_drawn(&A, seed, y, 1e-10, &me, &row, &err) == RVS_ERR_CHECK && row == 1234);
    CHECK(strstr(err.msg, "row 1235") != NULL);
    CHECK_OK(rvs_csr_convert_values(&A, RVS_C128, &err), &err);
    CHECK(rvs_spmv_check_drawn(&A, seed, y, 1e-10, &me, &row, &err) == RVS_ERR_ARG);
    /* complex: components 2j and 2j + 1 are entry j's real and imaginary parts */
    double *xc = malloc(4000 * sizeof *xc);
    rvs_fill_x(NULL, xc, 2000, RVS_C128, seed);
    off = 0;
    for (int64_t k = 0; k < 4000; k++)
        off += xc[k] != rvs_draw(seed, k, 0);
    CHECKF(off == 0, "%lld complex components differ from rvs_draw", (long long)off);
    free(xc);
    free(xf);
    free(x);
    free(y);
    rvs_csr_free(&A);
}

/* Values converted in place when no wider (f64 to f32, c128 to c64, f64 to c64), across
 * several chunks of the conversion's buffer, and through a new array when wider: each value as
 * a direct cast gives it. */
static void test_convert_values(void)
{
    static const rvs_vtype from[4] = {RVS_F64, RVS_C128, RVS_F64, RVS_F32};
    static const rvs_vtype to[4] = {RVS_F32, RVS_C64, RVS_C64, RVS_F64};
    rvs_error err;
    for (int c = 0; c < 4; c++) {
        const int64_t n = (int64_t)10000003;
        const int nin = rvs_vtype_is_complex(from[c]) ? 2 : 1, nout = rvs_vtype_is_complex(to[c]) ? 2 : 1;
        rvs_csr A = {0};
        A.rows = 1;
        A.cols = 1;
        A.nnz = n;
        A.vtype = from[c];
        A.values = malloc((size_t)n * rvs_vtype_size(from[c]));
        double *want = malloc((size_t)n * 2 * sizeof *want);
        CHECK(A.values && want);
        if (!A.values || !want)
            return;
        for (int64_t i = 0; i < n * nin; i++) {
            const double v = (double)(i % 100003) / 7.0 - 5000.0;
            if (rvs_vtype_real(from[c]) == RVS_F64)
                ((double *)A.values)[i] = v;
            else
                ((float *)A.values)[i] = (float)v;
        }
        for (int64_t i = 0; i < n; i++)
            for (int k = 0; k < nout; k++) {
                double v = k < nin ? (rvs_vtype_real(from[c]) == RVS_F64 ? ((double *)A.values)[nin * i + k]
                                                                         : ((float *)A.values)[nin * i + k])
                                   : 0.0;
                want[nout * i + k] = rvs_vtype_real(to[c]) == RVS_F32 ? (double)(float)v : v;
            }
        CHECK_OK(rvs_csr_convert_values(&A, to[c], &err), &err);
        int64_t off = 0;
        for (int64_t i = 0; i < n * nout; i++) {
            double got = rvs_vtype_real(to[c]) == RVS_F32 ? ((float *)A.values)[i] : ((double *)A.values)[i];
            off += got != want[i];
        }
        CHECKF(A.vtype == to[c] && off == 0, "%s to %s: %lld values differ", rvs_vtype_name(from[c]),
               rvs_vtype_name(to[c]), (long long)off);
        free(want);
        free(A.values);
    }
}

/* The same on a matrix with 64-bit column indices (3e9 columns, few of them used). */
static void test_check_wide(void)
{
    const int64_t cols = 3000000000LL;
    int64_t ri[4] = {0, 0, 1, 2}, ci[4] = {5, cols - 1, 7, cols - 2};
    double v[4] = {1, 2, 3, 4}, y[3];
    rvs_csr A;
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(&A, 3, cols, 4, ri, ci, v, RVS_F64, &err), &err);
    CHECK(A.colind64 && !A.colind);
    /* x is only read at the used columns: an unreserved mapping keeps the rest uncommitted */
    double *x = mmap(NULL, (size_t)cols * sizeof *x, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(x != MAP_FAILED);
    if (x == MAP_FAILED) {
        rvs_csr_free(&A);
        return;
    }
    x[5] = 1;
    x[7] = 2;
    x[cols - 1] = 3;
    x[cols - 2] = 4;
    y[0] = 1 + 2 * 3;
    y[1] = 3 * 2;
    y[2] = 4 * 4;
    double me;
    int64_t row;
    CHECK_OK(rvs_spmv_check(&A, x, y, 1e-15, &me, &row, &err), &err);
    y[2] = 15;
    CHECK(rvs_spmv_check(&A, x, y, 1e-10, &me, &row, &err) == RVS_ERR_CHECK && row == 2);
    munmap(x, (size_t)cols * sizeof *x);
    rvs_csr_free(&A);
}

/* A dense reference of triplets: duplicates summed in double, in input order. */
static double *dense_of(int64_t rows, int64_t cols, int64_t n, const int64_t *ri, const int64_t *ci,
                        const double *v)
{
    double *D = calloc((size_t)(rows * cols), sizeof *D);
    for (int64_t p = 0; p < n; p++)
        D[ri[p] * cols + ci[p]] += v ? v[p] : 1.0;
    return D;
}

/* CSR from random triplets with many duplicates, in both scatter paths and both value types,
 * against a dense reference; structure valid, pattern as the distinct (row, col) pairs. */
static void test_from_coo(int64_t rows, int64_t cols, int64_t n, rvs_vtype vt, int pattern)
{
    int64_t *ri = malloc((size_t)n * sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    double *v = malloc((size_t)n * sizeof *v);
    uint64_t s = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    for (int64_t p = 0; p < n; p++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        ri[p] = (int64_t)((s >> 33) % (uint64_t)rows);
        ci[p] = (int64_t)((s >> 13) % (uint64_t)cols);
        v[p] = (double)((s >> 40) % 1000) / 8.0 - 60.0;
    }
    double *D = dense_of(rows, cols, n, ri, ci, pattern ? NULL : v);
    unsigned char *nz = calloc((size_t)(rows * cols), 1);
    int64_t distinct = 0;
    for (int64_t p = 0; p < n; p++)
        if (!nz[ri[p] * cols + ci[p]]++)
            distinct++;
    rvs_csr A;
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(&A, rows, cols, n, ri, ci, pattern ? NULL : v, vt, &err), &err);
    CHECK_OK(rvs_csr_validate(&A, &err), &err);
    CHECKF(A.nnz == distinct, "nnz %lld, distinct pairs %lld", (long long)A.nnz, (long long)distinct);
    int64_t wrong = 0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) {
            double want = D[i * cols + rvs_csr_col(&A, p)];
            if (vt == RVS_F32)
                want = (double)(float)want; /* summed in double, rounded once */
            wrong += rvs_csr_value(&A, p) != want || !nz[i * cols + rvs_csr_col(&A, p)];
        }
    CHECKF(wrong == 0, "%lld entries differ from the dense reference", (long long)wrong);
    rvs_csr_free(&A);
    free(ri);
    free(ci);
    free(v);
    free(D);
    free(nz);
}

/* Owned 32-bit triplets: rows in order give their column and value arrays to A (no copy),
 * columns sorted and duplicates summed in place; the same triplets out of row order give the
 * same matrix; 64-bit rows work alike. */
/* 1 in a sanitizer build (RVS_SANITIZED=ON): its allocator moves every realloc'd block and
 * its shadow memory counts in RSS, so pointer identity and RSS are not measured there. */
static int sanitized(void)
{
    const char *s = getenv("RVS_SANITIZED");
    return s && strcmp(s, "ON") == 0;
}

static void test_from_triplets(void)
{
    /* rows 0 0 0 2 2 3 (in order), columns unsorted, (0,5) twice and (2,1) twice */
    const int64_t n = 7, rows = 5, cols = 8;
    const int64_t r[7] = {0, 0, 0, 2, 2, 2, 3}, c[7] = {5, 1, 5, 7, 1, 1, 0};
    const double v[7] = {1, 2, 4, 8, 16, 32, 64};
    const int64_t want_rp[6] = {0, 2, 2, 4, 5, 5}, want_c[5] = {1, 5, 1, 7, 0};
    const double want_v[5] = {2, 5, 48, 8, 64};
    for (int order = 0; order < 2; order++)
        for (int wide = 0; wide < 2; wide++) {
            rvs_triplets T = {0};
            rvs_csr A;
            rvs_error err;
            T.owned = 1;
            T.ci32 = malloc(n * sizeof *T.ci32);
            T.v = malloc(n * sizeof *T.v);
            if (wide)
                T.ri64 = malloc(n * sizeof *T.ri64);
            else
                T.ri32 = malloc(n * sizeof *T.ri32);
            for (int64_t k = 0; k < n; k++) {
                int64_t p = order ? n - 1 - k : k; /* reversed: rows out of order */
                if (wide)
                    T.ri64[k] = r[p];
                else
                    T.ri32[k] = (int32_t)r[p];
                T.ci32[k] = (int32_t)c[p];
                T.v[k] = v[p];
            }
            int32_t *given = T.ci32;
            CHECK_OK(rvs_csr_from_triplets(&A, rows, cols, n, &T, RVS_F64, &err), &err);
            CHECK(!T.ci32 && !T.v && !T.ri32 && !T.ri64);
            /* rows in order: the array itself (AddressSanitizer's realloc always moves a block) */
            CHECK(order || A.colind == given || sanitized());
            CHECK(A.nnz == 5 && memcmp(A.rowptr, want_rp, sizeof want_rp) == 0);
            for (int64_t k = 0; k < 5; k++)
                CHECKF(A.colind[k] == want_c[k] && ((double *)A.values)[k] == want_v[k],
                       "order %d wide %d entry %lld: (%d, %g)", order, wide, (long long)k, A.colind[k],
                       ((double *)A.values)[k]);
            CHECK_OK(rvs_csr_validate(&A, &err), &err);
            rvs_csr_free(&A);
        }
}

/* Owned triplets out of row order (placed by row ranges in their own memory) give exactly the
 * CSR that the caller-kept path gives for the same triplets (rvs_csr_from_coo: the same input
 * order within each row, so duplicates sum alike, bit for bit): 32/64-bit rows and columns,
 * pattern, one row, one row holding half the entries, more rows than the coarse bins. mirror
 * (square only): T->mirror set, against the caller-kept build of the triplets with each
 * off-diagonal one followed by its mirror (negated when mirror < 0). */
static void test_owned_unordered_m(int64_t rows, int64_t cols, int64_t n, int r64, int pattern, int skew,
                                   int mirror)
{
    int64_t *ri = malloc((size_t)n * sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    double *v = malloc((size_t)n * sizeof *v);
    uint64_t s = 0x2545f4914f6cdd1dULL ^ (uint64_t)(n + rows);
    for (int64_t p = 0; p < n; p++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        ri[p] = skew && (s >> 63) ? rows / 2 : (int64_t)((s >> 20) % (uint64_t)rows);
        ci[p] = (int64_t)((s >> 7) % (uint64_t)(cols < 64 ? cols : 64)) * (cols / 64 > 0 ? cols / 64 : 1) +
                (int64_t)(p % 3); /* few distinct columns a row: duplicates */
        if (ci[p] >= cols)
            ci[p] = cols - 1;
        v[p] = (double)((s >> 30) % 1000003) / 7.0 - 70000.0;
    }
    ri[0] = rows - 1; /* rows out of order */
    ri[n - 1] = 0;
    rvs_triplets T = {0};
    T.owned = 1;
    const int c64 = cols > INT32_MAX;
    if (r64)
        T.ri64 = malloc((size_t)n * sizeof *T.ri64);
    else
        T.ri32 = malloc((size_t)n * sizeof *T.ri32);
    if (c64)
        T.ci64 = malloc((size_t)n * sizeof *T.ci64);
    else
        T.ci32 = malloc((size_t)n * sizeof *T.ci32);
    T.v = pattern ? NULL : malloc((size_t)n * sizeof *T.v);
    for (int64_t p = 0; p < n; p++) {
        if (r64)
            T.ri64[p] = ri[p];
        else
            T.ri32[p] = (int32_t)ri[p];
        if (c64)
            T.ci64[p] = ci[p];
        else
            T.ci32[p] = (int32_t)ci[p];
        if (T.v)
            T.v[p] = v[p];
    }
    rvs_csr A, W;
    rvs_error err;
    int64_t m = n;
    if (mirror) { /* the caller-kept input: each mirror right after its entry */
        int64_t *r2 = malloc((size_t)n * 2 * sizeof *r2), *c2 = malloc((size_t)n * 2 * sizeof *c2);
        double *v2 = malloc((size_t)n * 2 * sizeof *v2);
        m = 0;
        for (int64_t p = 0; p < n; p++) {
            r2[m] = ri[p], c2[m] = ci[p], v2[m++] = v[p];
            if (ri[p] != ci[p])
                r2[m] = ci[p], c2[m] = ri[p], v2[m++] = mirror < 0 ? -v[p] : v[p];
        }
        free(ri);
        free(ci);
        free(v);
        ri = r2, ci = c2, v = v2;
        T.mirror = mirror;
    }
    CHECK_OK(rvs_csr_from_triplets(&A, rows, cols, n, &T, RVS_F64, &err), &err);
    CHECK(!T.ri32 && !T.ri64 && !T.ci32 && !T.ci64 && !T.v);
    CHECK_OK(rvs_csr_from_coo(&W, rows, cols, m, ri, ci, pattern ? NULL : v, RVS_F64, &err), &err);
    CHECK_OK(rvs_csr_validate(&A, &err), &err);
    CHECKF(A.nnz == W.nnz && memcmp(A.rowptr, W.rowptr, (size_t)(rows + 1) * sizeof *A.rowptr) == 0,
           "rows %lld n %lld: nnz %lld against %lld, or row pointers differ", (long long)rows, (long long)n,
           (long long)A.nnz, (long long)W.nnz);
    int64_t wrong = 0;
    for (int64_t p = 0; A.nnz == W.nnz && p < A.nnz; p++)
        wrong += rvs_csr_col(&A, p) != rvs_csr_col(&W, p) ||
                 memcmp((double *)A.values + p, (double *)W.values + p, sizeof(double)) != 0;
    CHECKF(wrong == 0, "rows %lld n %lld: %lld entries differ from the caller-kept build", (long long)rows,
           (long long)n, (long long)wrong);
    rvs_csr_free(&A);
    rvs_csr_free(&W);
    free(ri);
    free(ci);
    free(v);
}

static void test_owned_unordered(int64_t rows, int64_t cols, int64_t n, int r64, int pattern, int skew)
{
    test_owned_unordered_m(rows, cols, n, r64, pattern, skew, 0);
}

/* Mirrored triplets must be owned and square: refused, nothing allocated, T untouched. */
static void test_mirror_refused(void)
{
    int32_t r[2] = {1, 0}, c[2] = {0, 1};
    rvs_triplets T = {0};
    rvs_csr A;
    rvs_error err;
    T.ri32 = r, T.ci32 = c, T.mirror = 1;
    CHECK(rvs_csr_from_triplets(&A, 2, 2, 2, &T, RVS_F64, &err) == RVS_ERR_ARG && !A.rowptr);
    CHECK(strstr(err.msg, "mirrored triplets") != NULL);
    T.ri32 = malloc(2 * sizeof *T.ri32), T.ci32 = malloc(2 * sizeof *T.ci32), T.owned = 1, T.mirror = -1;
    CHECK(T.ri32 && T.ci32);
    memcpy(T.ri32, r, sizeof r);
    memcpy(T.ci32, c, sizeof c);
    CHECK(rvs_csr_from_triplets(&A, 2, 3, 2, &T, RVS_F64, &err) == RVS_ERR_ARG && !A.rowptr && !T.ri32);
}

/* Triplets out of range name the entry; nothing is allocated. */
static void test_from_coo_range(void)
{
    int64_t ri[3] = {0, 1, 2}, ci[3] = {0, 1, 4};
    rvs_csr A;
    rvs_error err;
    CHECK(rvs_csr_from_coo(&A, 3, 4, 3, ri, ci, NULL, RVS_F64, &err) == RVS_ERR_RANGE);
    CHECK(strstr(err.msg, "entry 3") != NULL && !A.rowptr);
    CHECK_OK(rvs_csr_from_coo(&A, 0, 0, 0, ri, ci, NULL, RVS_F64, &err), &err);
    CHECK(A.rows == 0 && A.nnz == 0 && A.rowptr && A.rowptr[0] == 0);
    rvs_csr_free(&A);
}

/* Views and borrowed CSR blocks hold A's entries without copying them and agree with a copy. */
static void test_views(void)
{
    rvs_csr A, V, E;
    rvs_fmt F;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 1000, 800, 0.02, 1, 7), &err);
    const int64_t lo = 123, hi = 777;
    int64_t *rows = malloc((size_t)(hi - lo) * sizeof *rows);
    for (int64_t i = lo; i < hi; i++)
        rows[i - lo] = i;
    CHECK_OK(rvs_csr_extract_rows(&E, &A, rows, hi - lo, 0, 32, &err), &err);
    CHECK_OK(rvs_csr_view_rows(&V, &A, lo, hi, &err), &err);
    CHECK(V.colind == A.colind + A.rowptr[lo] && V.nnz == E.nnz && V.rows == E.rows);
    CHECK(memcmp(V.rowptr, E.rowptr, (size_t)(E.rows + 1) * 8) == 0);
    CHECK(memcmp(V.colind, E.colind, (size_t)E.nnz * 4) == 0 && memcmp(V.values, E.values, (size_t)E.nnz * 8) == 0);
    CHECK_OK(rvs_csr_validate(&V, &err), &err);
    rvs_csr_view_free(&V);
    CHECK(rvs_csr_view_rows(&V, &A, 5, 1001, &err) == RVS_ERR_ARG);

    double *x = malloc(800 * sizeof *x), *y = malloc(1000 * sizeof *y), *yr = malloc(1000 * sizeof *yr);
    rvs_test_random_vector(x, 800, 3);
    for (int pass = 0; pass < 2; pass++) {
        int64_t a = pass ? lo : 0, b = pass ? hi : A.rows;
        CHECK_OK(rvs_fmt_csr_borrow(&F, &A, a, b, &err), &err);
        CHECK(rvs_fmt_array(&F, "colind")->data == (void *)(A.colind + A.rowptr[a]));
        CHECK_OK(rvs_format_lookup(RVS_FMT_CSR)->validate(&F, &err), &err);
        CHECK_OK(rvs_cpu_spmv(&F, x, y, &err), &err);
        rvs_csr_spmv_ref(&A, x, 0.0, yr);
        CHECK(rvs_test_rel_err(y, yr + a, b - a) < 1e-14);
        rvs_fmt_free(&F);
    }
    CHECK_OK(rvs_csr_validate(&A, &err), &err); /* A survives its borrowers */

    rvs_partition P;
    double cp[3] = {1, 2, 3};
    for (int alg = RVS_ALG_ROWS; alg <= RVS_ALG_DIAG; alg++) {
        CHECK_OK(rvs_partition_compute(&P, &A, (rvs_alg)alg, 3, cp, NULL, 32, &err), &err);
        for (int i = 0; i < P.k; i++) {
            rvs_csr S, X;
            int view;
            CHECK_OK(rvs_partition_part_csr(&S, &view, &P, i, &A, &err), &err);
            CHECK_OK(rvs_partition_extract(&X, &P, i, &A, &err), &err);
            CHECK(view == (alg == RVS_ALG_ROWS || alg == RVS_ALG_NNZ));
            CHECK(S.nnz == X.nnz && memcmp(S.rowptr, X.rowptr, (size_t)(X.rows + 1) * 8) == 0 &&
                  memcmp(S.colind, X.colind, (size_t)X.nnz * 4) == 0);
            if (view)
                rvs_csr_view_free(&S);
            else
                rvs_csr_free(&S);
            rvs_csr_free(&X);
        }
        rvs_partition_free(&P);
    }
    free(rows);
    free(x);
    free(y);
    free(yr);
    rvs_csr_free(&E);
    rvs_csr_free(&A);
}

/* Row blocks of a format built from the hub agree with the whole matrix, cover its rows in
 * order, and with release give the hub's pages back (mincore: no longer resident). */
static void test_build_rows(void)
{
    rvs_csr A, H;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 20000, 3000, 0.01, 1, 11), &err);
    const int64_t rows = A.rows;
    double *x = malloc(3000 * sizeof *x), *y = malloc((size_t)rows * sizeof *y),
           *yr = malloc((size_t)rows * sizeof *yr);
    rvs_test_random_vector(x, 3000, 5);
    rvs_csr_spmv_ref(&A, x, 0.0, yr);
    const rvs_format_id ids[4] = {RVS_FMT_CSR, RVS_FMT_ELLR, RVS_FMT_PELLR, RVS_FMT_HYB};
    for (int f = 0; f < 4; f++) {
        rvs_fmt *B;
        int64_t *cuts;
        int nb;
        CHECK_OK(rvs_csr_copy(&H, &A, &err), &err);
        const int64_t lo = f == 3 ? 1000 : 0, hi = f == 3 ? rows - 7 : rows;
        CHECK_OK(rvs_fmt_build_rows(&B, &cuts, &nb, &H, lo, hi, ids[f], NULL, 50000, 1, &err), &err);
        CHECKF(nb >= 10 && cuts[0] == lo && cuts[nb] == hi, "%d blocks", nb);
        for (int k = 0; k < nb; k++) {
            CHECK(cuts[k] < cuts[k + 1] && B[k].rows == cuts[k + 1] - cuts[k] && B[k].id == ids[f]);
            CHECK(B[k].nnz <= 50000 || B[k].rows == 1);
            CHECK_OK(rvs_cpu_spmv(&B[k], x, y + cuts[k], &err), &err);
            rvs_fmt_free(&B[k]);
        }
        CHECK(rvs_test_rel_err(y + lo, yr + lo, hi - lo) < 1e-13);
        /* the hub's columns: the pages wholly inside [lo, hi)'s entries are no longer resident */
        const long page = sysconf(_SC_PAGESIZE);
        uintptr_t a = ((uintptr_t)(H.colind + H.rowptr[lo]) + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
        uintptr_t b = (uintptr_t)(H.colind + H.rowptr[hi]) & ~((uintptr_t)page - 1);
        size_t np = b > a ? (size_t)(b - a) / (size_t)page : 0, resident = 0;
        unsigned char *vec = malloc(np + 1);
        if (np && mincore((void *)a, b - a, vec) == 0)
            for (size_t i = 0; i < np; i++)
                resident += vec[i] & 1;
        CHECKF(np > 10 && resident == 0, "%zu of %zu released pages still resident", resident, np);
        free(vec);
        free(B);
        free(cuts);
        rvs_csr_free(&H);
    }
    /* without release the hub stays whole; a bad range is refused */
    rvs_fmt *B;
    int64_t *cuts;
    int nb;
    CHECK_OK(rvs_fmt_build_rows(&B, &cuts, &nb, &A, 0, rows, RVS_FMT_ELL, NULL, 1000000, 0, &err), &err);
    CHECK(nb == 1 && cuts[1] == rows);
    rvs_fmt_free(&B[0]);
    free(B);
    free(cuts);
    CHECK_OK(rvs_csr_validate(&A, &err), &err);
    CHECK(rvs_fmt_build_rows(&B, &cuts, &nb, &A, 5, 4, RVS_FMT_ELL, NULL, 10, 0, &err) == RVS_ERR_ARG);
    free(x);
    free(y);
    free(yr);
    rvs_csr_free(&A);
}

/* A partition of A's rows into k parts, row i to part perm(i) % k; a part's rows ascend. */
static void interleaved(rvs_partition *P, int64_t rows, int k, rvs_entries entries)
{
    memset(P, 0, sizeof *P);
    P->k = k;
    P->parts = calloc((size_t)k, sizeof *P->parts);
    for (int p = 0; p < k; p++) {
        P->parts[p].entries = entries;
        P->parts[p].rows = malloc((size_t)rows * sizeof(int64_t));
    }
    for (int64_t i = 0; i < rows; i++) {
        rvs_part *q = &P->parts[(uint64_t)(i * 2654435761u) % (uint64_t)k];
        q->rows[q->nrows++] = i;
    }
}

/* rvs_partition_split against rvs_partition_extract part by part: every copy asked for the same
 * bit for bit, the others left empty; A's released blocks read as zeros; parts that share a row
 * or hold only some entries leave A untouched and make no copies. */
static void test_split(int64_t rows, int64_t cols, int64_t wide, int k)
{
    rvs_csr A, keep;
    rvs_partition P;
    rvs_error err;
    rvs_csr *cp = NULL;
    int *need = calloc((size_t)k, sizeof *need);
    CHECK_OK(rvs_test_random_csr(&A, rows, cols, 0.004, 1, 11), &err);
    if (wide) { /* the same entries with 64-bit columns */
        A.colind64 = malloc((size_t)A.nnz * sizeof *A.colind64);
        for (int64_t e = 0; e < A.nnz; e++)
            A.colind64[e] = (int64_t)A.colind[e] * (wide / cols);
        free(A.colind);
        A.colind = NULL;
        A.cols = wide;
    }
    CHECK_OK(rvs_csr_copy(&keep, &A, &err), &err);
    interleaved(&P, rows, k, RVS_ENTRIES_ALL);
    for (int p = 0; p < k; p++)
        need[p] = p != 1;
    CHECK_OK(rvs_partition_split(&cp, need, &P, &A, 4096, &err), &err);
    CHECK(cp != NULL);
    for (int p = 0; cp && p < k; p++) {
        rvs_csr E;
        CHECK_OK(rvs_partition_extract(&E, &P, p, &keep, &err), &err);
        if (need[p])
            CHECKF(rvs_test_csr_same(&cp[p], &E), "part %d of %d: the copy differs from the extraction", p, k);
        else
            CHECKF(cp[p].rowptr == NULL && cp[p].nnz == 0, "part %d was not asked for", p);
        rvs_csr_free(&E);
    }
    rvs_partition_split_free(cp, k);
    rvs_partition_free(&P);

    /* every part asked for (need NULL): each block of A is given back (here: read back as zeros) */
    for (int p = 0; p < k; p++)
        need[p] = 1;
    interleaved(&P, rows, k, RVS_ENTRIES_ALL);
    memcpy(A.values, keep.values, (size_t)A.nnz * sizeof(double));
    CHECK_OK(rvs_partition_split(&cp, NULL, &P, &A, 4096, &err), &err);
    for (int p = 0; cp && p < k; p++)
        CHECKF(cp[p].rows == P.parts[p].nrows && cp[p].rowptr, "need NULL: part %d not copied", p);
    int64_t zeros = 0;
    for (int64_t e = 0; e < A.nnz; e++)
        zeros += ((double *)A.values)[e] == 0.0 && ((double *)keep.values)[e] != 0.0;
    if (!sanitized())
        CHECKF(zeros > A.nnz / 2, "only %lld of %lld values given back", (long long)zeros, (long long)A.nnz);
    rvs_partition_split_free(cp, k);
    rvs_partition_free(&P);

    /* parts whose rows do not ascend (part 0 reversed, the last one rotated by a third): the
     * same copies as the extraction, and A's blocks still given back */
    rvs_csr_free(&A);
    CHECK_OK(rvs_csr_copy(&A, &keep, &err), &err);
    interleaved(&P, rows, k, RVS_ENTRIES_ALL);
    for (int64_t i = 0, n = P.parts[0].nrows; i < n / 2; i++) {
        int64_t t = P.parts[0].rows[i];
        P.parts[0].rows[i] = P.parts[0].rows[n - 1 - i];
        P.parts[0].rows[n - 1 - i] = t;
    }
    if (k > 1) {
        rvs_part *q = &P.parts[k - 1];
        int64_t *r = malloc((size_t)q->nrows * sizeof *r);
        for (int64_t i = 0; i < q->nrows; i++)
            r[i] = q->rows[(i + q->nrows / 3) % q->nrows];
        memcpy(q->rows, r, (size_t)q->nrows * sizeof *r);
        free(r);
    }
    CHECK_OK(rvs_partition_split(&cp, NULL, &P, &A, 4096, &err), &err);
    CHECK(cp != NULL);
    for (int p = 0; cp && p < k; p++) {
        rvs_csr E;
        CHECK_OK(rvs_partition_extract(&E, &P, p, &keep, &err), &err);
        CHECKF(rvs_test_csr_same(&cp[p], &E), "part %d of %d, rows out of order: the copy differs", p, k);
        rvs_csr_free(&E);
    }
    zeros = 0;
    for (int64_t e = 0; e < A.nnz; e++)
        zeros += ((double *)A.values)[e] == 0.0 && ((double *)keep.values)[e] != 0.0;
    if (!sanitized())
        CHECKF(zeros > A.nnz / 2, "rows out of order: only %lld of %lld values given back", (long long)zeros,
               (long long)A.nnz);
    rvs_partition_split_free(cp, k);
    rvs_partition_free(&P);

    /* a row in two parts (or twice in one), and parts of some entries: not split, A as it was */
    rvs_csr_free(&A);
    CHECK_OK(rvs_csr_copy(&A, &keep, &err), &err);
    interleaved(&P, rows, k, RVS_ENTRIES_ALL);
    P.parts[0].rows[1] = P.parts[k - 1].rows[0]; /* k = 1: the same row twice in one part */
    CHECK_OK(rvs_partition_split(&cp, need, &P, &A, 4096, &err), &err);
    CHECK(cp == NULL && rvs_test_csr_same(&A, &keep));
    rvs_partition_free(&P);
    interleaved(&P, rows, k, RVS_ENTRIES_DIAG);
    CHECK_OK(rvs_partition_split(&cp, need, &P, &A, 4096, &err), &err);
    CHECK(cp == NULL && rvs_test_csr_same(&A, &keep));
    rvs_partition_free(&P);
    if (k > 1) { /* a part not asked for sharing a row with one asked for */
        interleaved(&P, rows, k, RVS_ENTRIES_ALL);
        need[1] = 0;
        P.parts[1].rows[0] = P.parts[0].rows[0];
        CHECK_OK(rvs_partition_split(&cp, need, &P, &A, 4096, &err), &err);
        CHECK(cp == NULL && rvs_test_csr_same(&A, &keep));
        rvs_partition_free(&P);
        /* a part not asked for naming a row out of range: no matter, the others are split */
        interleaved(&P, rows, k, RVS_ENTRIES_ALL);
        P.parts[1].rows[0] = rows + 7;
        CHECK_OK(rvs_partition_split(&cp, need, &P, &A, 4096, &err), &err);
        CHECK(cp != NULL);
        for (int p = 0; cp && p < k; p++) {
            rvs_csr E;
            if (!need[p])
                continue;
            CHECK_OK(rvs_partition_extract(&E, &P, p, &keep, &err), &err);
            CHECKF(rvs_test_csr_same(&cp[p], &E), "part %d beside a part out of range: the copy differs", p);
            rvs_csr_free(&E);
        }
        rvs_partition_split_free(cp, k);
        rvs_partition_free(&P);
    }
    rvs_csr_free(&A);
    rvs_csr_free(&keep);
    free(need);
}

/* A rows x rows CSR with 12 entries per row, built straight into its arrays. */
static rvs_status big_csr(rvs_csr *A, int64_t rows)
{
    rvs_error err;
    rvs_status st = rvs_csr_alloc(A, rows, rows, rows * 12, RVS_F64, &err);
    if (st != RVS_OK)
        return st;
#pragma omp parallel for
    for (int64_t i = 0; i < rows; i++) {
        A->rowptr[i + 1] = (i + 1) * 12;
        for (int64_t k = 0; k < 12; k++) {
            A->colind[i * 12 + k] = (int32_t)((i + k * (rows / 12)) % rows);
            ((double *)A->values)[i * 12 + k] = (double)(k + 1);
        }
        /* columns must ascend within a row */
        int32_t *c = A->colind + i * 12;
        for (int a = 1; a < 12; a++)
            for (int b = a; b > 0 && c[b] < c[b - 1]; b--) {
                int32_t t = c[b];
                c[b] = c[b - 1];
                c[b - 1] = t;
            }
    }
    return RVS_OK;
}

/* Peak resident KiB of this process so far. */
static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* --write-stream ROWS: the big matrix as a stream on stdout. */
static int write_stream_mode(int64_t rows)
{
    rvs_stream W = {0};
    rvs_error err;
    if (big_csr(&W.A, rows) != RVS_OK || rvs_stream_write(stdout, &W, &err) != RVS_OK || fflush(stdout))
        return 1;
    rvs_stream_free(&W);
    return 0;
}

/* --read-stream: read a stream from stdin; print "stream_bytes rss_growth_bytes". */
static int read_stream_mode(void)
{
    rvs_stream S;
    rvs_error err;
    long before = max_rss_kib();
    if (rvs_stream_read(&S, stdin, NULL, 0, &err) != RVS_OK) {
        fprintf(stderr, "read: %s\n", err.msg);
        return 1;
    }
    long after = max_rss_kib();
    printf("%.0f %.0f\n", 8.0 * (double)(S.A.rows + 1) + 12.0 * (double)S.A.nnz, 1024.0 * (double)(after - before));
    rvs_stream_free(&S);
    return 0;
}

/* --check-rss ROWS: build the big matrix, x and y = A*x, then check; print "matrix_bytes
 * vectors_bytes rss_growth_of_the_check_bytes". */
static int check_rss_mode(int64_t rows)
{
    rvs_csr A;
    double me;
    int64_t row;
    if (big_csr(&A, rows) != RVS_OK)
        return 1;
    double *x = malloc((size_t)rows * sizeof *x), *y = malloc((size_t)rows * sizeof *y);
    if (!x || !y)
        return 1;
    rvs_test_random_vector(x, rows, 9);
    rvs_csr_spmv_ref(&A, x, 0.0, y);
    long before = max_rss_kib();
    if (rvs_spmv_check(&A, x, y, 1e-12, &me, &row, NULL) != RVS_OK)
        return 1;
    long after = max_rss_kib();
    printf("%.0f %.0f %.0f\n", 8.0 * (double)(rows + 1) + 12.0 * (double)A.nnz, 16.0 * (double)rows,
           1024.0 * (double)(after - before));
    rvs_csr_free(&A);
    free(x);
    free(y);
    return 0;
}

/* Helper mode: the big CSR's values from f64 to f32; print "values_bytes rss_growth_bytes". */
static int convert_rss_mode(int64_t rows)
{
    rvs_csr A;
    rvs_error err;
    if (big_csr(&A, rows) != RVS_OK)
        return 1;
    long before = max_rss_kib();
    if (rvs_csr_convert_values(&A, RVS_F32, &err) != RVS_OK)
        return 1;
    long after = max_rss_kib();
    printf("%.0f %.0f\n", 8.0 * (double)A.nnz, 1024.0 * (double)(after - before));
    rvs_csr_free(&A);
    return 0;
}

/* Helper mode: read Matrix Market file path; print "csr_bytes rss_growth_bytes". */
static int read_mtx_mode(const char *path)
{
    rvs_csr A;
    rvs_error err;
    long before = max_rss_kib();
    if (rvs_mm_read_file(&A, NULL, path, NULL, NULL, &err) != RVS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return 1;
    }
    long after = max_rss_kib();
    printf("%.0f %.0f\n", 8.0 * (double)(A.rows + 1) + 12.0 * (double)A.nnz, 1024.0 * (double)(after - before));
    rvs_csr_free(&A);
    return 0;
}

/* A symmetric pattern file as SuiteSparse writes them: the lower triangle column by column, so
 * the rows come out of order; 4 entries a column stored, 7 a row in the matrix. */
static int write_symmetric_mtx(const char *path, int64_t n)
{
    const int64_t off[4] = {0, 1, 7, 1000};
    int64_t stored = 0;
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    for (int64_t j = 0; j < n; j++)
        for (int k = 0; k < 4; k++)
            stored += j + off[k] < n;
    fprintf(f, "%%%%MatrixMarket matrix coordinate pattern symmetric\n%lld %lld %lld\n", (long long)n, (long long)n,
            (long long)stored);
    for (int64_t j = 0; j < n; j++)
        for (int k = 0; k < 4; k++)
            if (j + off[k] < n)
                fprintf(f, "%lld %lld\n", (long long)(j + off[k] + 1), (long long)(j + 1));
    return fclose(f) == 0;
}

/* Reading a 312 MB stream through a pipe commits about the stream's bytes (the arrays, read
 * straight into); checking a product commits next to nothing beyond A, x and y. Measured in
 * fresh processes (this binary in a helper mode): a fork would inherit OpenMP's threads. */
static void test_peak_rss(const char *self)
{
    char cmd[4096];
    double bytes = 0, grew = 0, vec = 0;
    const long long rows = 2000000; /* 2M rows x 12 entries: 24M entries, 304 MB */
    snprintf(cmd, sizeof cmd, "'%s' --write-stream %lld | '%s' --read-stream", self, rows, self);
    FILE *p = popen(cmd, "r");
    int got = p && fscanf(p, "%lf %lf", &bytes, &grew) == 2;
    CHECKF(p && pclose(p) == 0 && got, "%s failed", cmd);
    printf("stream of %.0f MB read through a pipe: RSS grew by %.0f MB\n", bytes / 1e6, grew / 1e6);
    CHECKF(got && grew < 1.05 * bytes + 16e6, "reading a %.0f MB stream grew RSS by %.0f MB", bytes / 1e6,
           grew / 1e6);

    snprintf(cmd, sizeof cmd, "'%s' --check-rss %lld", self, rows);
    p = popen(cmd, "r");
    got = p && fscanf(p, "%lf %lf %lf", &bytes, &vec, &grew) == 3;
    CHECKF(p && pclose(p) == 0 && got, "%s failed", cmd);
    printf("check of %.0f MB with %.0f MB of vectors: RSS grew by %.0f MB\n", bytes / 1e6, vec / 1e6, grew / 1e6);
    CHECKF(got && grew < 0.02 * bytes + 8e6, "the check grew RSS by %.0f MB", grew / 1e6);

    /* values narrowed in place: the chunk buffer (16 MB), not a second array of all of them */
    snprintf(cmd, sizeof cmd, "'%s' --convert-rss %lld", self, rows);
    p = popen(cmd, "r");
    got = p && fscanf(p, "%lf %lf", &bytes, &grew) == 2;
    CHECKF(p && pclose(p) == 0 && got, "%s failed", cmd);
    printf("f64 values of %.0f MB to f32: RSS grew by %.0f MB\n", bytes / 1e6, grew / 1e6);
    CHECKF(got && grew < 0.1 * bytes + 20e6, "narrowing %.0f MB of values grew RSS by %.0f MB", bytes / 1e6,
           grew / 1e6);

    /* a symmetric file, rows out of order: about the placed copy with its mirrors (14 bytes an
     * entry against the CSR's 12) and one 64 MB block of text; not the triplets beside the CSR
     * (2.33x), nor the mirrored triplets before they are placed (1.4x) */
    char path[] = "/tmp/rvs_memory_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    CHECK(write_symmetric_mtx(path, 3000000));
    snprintf(cmd, sizeof cmd, "'%s' --read-mtx '%s'", self, path);
    p = popen(cmd, "r");
    got = p && fscanf(p, "%lf %lf", &bytes, &grew) == 2;
    CHECKF(p && pclose(p) == 0 && got, "%s failed", cmd);
    unlink(path);
    printf("symmetric .mtx into a %.0f MB CSR: RSS grew by %.0f MB\n", bytes / 1e6, grew / 1e6);
    CHECKF(got && grew < 1.3 * bytes, "reading a symmetric .mtx into a %.0f MB CSR grew RSS by %.0f MB",
           bytes / 1e6, grew / 1e6);
}

/* CSR from COO and from triplets, ordered or not, mirrored or not (alone: --triplets). */
static void triplet_cases(void)
{
    test_from_coo(50, 40, 3000, RVS_F64, 0);
    test_from_coo(50, 40, 3000, RVS_F32, 0);
    test_from_coo(7, 9, 500, RVS_F64, 1);
    test_from_coo(300, 700, 2000000, RVS_F64, 0); /* per-thread cursors when threads > 1 */
    test_from_coo(3000, 5, 100, RVS_F64, 0);      /* mostly empty rows */
    test_from_coo_range();
    test_from_triplets();
    test_owned_unordered(200000, 50000, 600000, 0, 0, 0);   /* coarse bins of 4 rows */
    test_owned_unordered(1, 1000, 5000, 0, 0, 0);           /* one row */
    test_owned_unordered(5000, 5000, 100000, 1, 1, 0);      /* 64-bit rows, pattern */
    test_owned_unordered(70, 3000000000LL, 20000, 1, 0, 0); /* 64-bit columns */
    test_owned_unordered(100000, 100000, 300000, 0, 0, 1);  /* half the entries in one row */
    omp_set_num_threads(3);                                 /* stretches of unequal length */
    test_owned_unordered(65537, 900, 250001, 0, 0, 0);
    /* mirrored as placed: symmetric, skew, pattern, 64-bit rows; a million rows with the
     * entries in a few (ranges cut at 2^16 rows, 16-bit row offsets, many empty rows) */
    test_owned_unordered_m(200000, 200000, 600000, 0, 0, 0, 1);
    test_owned_unordered_m(100000, 100000, 300000, 0, 0, 1, -1);
    test_owned_unordered_m(5000, 5000, 100000, 1, 1, 0, 1);
    test_owned_unordered_m(1000000, 1000000, 50000, 0, 0, 1, 1);
    test_owned_unordered_m(1, 1, 10, 0, 0, 0, 1);
    test_mirror_refused();
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-stream") == 0)
        return write_stream_mode(atoll(argv[2]));
    if (argc == 2 && strcmp(argv[1], "--read-stream") == 0)
        return read_stream_mode();
    if (argc == 3 && strcmp(argv[1], "--read-mtx") == 0)
        return read_mtx_mode(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--check-rss") == 0)
        return check_rss_mode(atoll(argv[2]));
    if (argc == 3 && strcmp(argv[1], "--convert-rss") == 0)
        return convert_rss_mode(atoll(argv[2]));
    if (argc == 2 && strcmp(argv[1], "--triplets") == 0) {
        triplet_cases();
        return rvs_test_done();
    }
    test_check(RVS_F64, 1);
    test_check(RVS_F32, 2);
    test_check_wide();
    test_check_drawn(RVS_F64, 7);
    test_check_drawn(RVS_F32, 11);
    test_convert_values();
    triplet_cases();
    omp_set_num_threads(omp_get_num_procs());
    test_views();
    test_build_rows();
    test_split(200000, 5000, 0, 4);
    test_split(30000, 5000, 3000000000LL, 3); /* 64-bit columns */
    test_split(5000, 4000, 0, 1);
    if (!sanitized())
        test_peak_rss(argv[0]);
    return rvs_test_done();
}
