/* test_gpu_ymap.c - the GPU output row map: every format writes the rows of a part straight
 * into one whole y through its row map (identity + base, int32 and int64 offsets), adds in
 * accumulate mode, and leaves every other row of y alone. Parts of rows, nnz, pmf and diag
 * partitions run one after another into a y poisoned with NaN and are checked against
 * CSparse (a band of three values among the matrices: DIA's slots coded into a table). Skipped (77) without a usable GPU. */
#include <math.h>
#include <string.h>
#include "rvs_gpu.h"
#include "rvs_test.h"

static int refused, ran;

/* Tolerance of spmv.1 for a value type. */
static double tol_of(rvs_vtype vt)
{
    return vt == RVS_F64 ? 1e-10 : 1e-4;
}

/* The parts of P as GPU formats of id in vt (G[k] zeroed when the builder refuses: *ok 0). */
static void upload_parts(rvs_gpu_fmt *G, const rvs_partition *P, const rvs_csr *A, rvs_format_id id, rvs_vtype vt,
                         int *ok)
{
    rvs_error err;
    *ok = 1;
    for (int k = 0; k < P->k; k++) {
        rvs_csr S = {0};
        rvs_fmt F = {0};
        memset(&G[k], 0, sizeof G[k]);
        CHECK_OK(rvs_partition_extract(&S, P, k, A, &err), &err);
        CHECK_OK(rvs_csr_convert_values(&S, vt, &err), &err);
        rvs_status st = rvs_fmt_from_csr(&F, id, &S, NULL, &err);
        if (st == RVS_ERR_UNSUPPORTED || st == RVS_ERR_OVERFLOW || st == RVS_ERR_NOMEM)
            *ok = 0;
        else
            CHECK_OK(st, &err);
        if (st == RVS_OK)
            CHECK_OK(rvs_gpu_upload(&G[k], &F, &err), &err);
        rvs_fmt_free(&F);
        rvs_csr_free(&S);
    }
}

/* y (host, vt) as double. */
static void to_double(double *yd, const void *y, int64_t n, rvs_vtype vt)
{
    for (int64_t i = 0; i < n; i++)
        yd[i] = vt == RVS_F64 ? ((const double *)y)[i] : (double)((const float *)y)[i];
}

/* Replace G's int32 map by the same offsets as int64 (the kernels' 64-bit path). */
static void widen_map(rvs_gpu_fmt *G)
{
    rvs_error err;
    if (!G->ymap.map || G->ymap.map64 || G->rows == 0)
        return;
    int32_t *h32 = malloc((size_t)G->rows * 4);
    int64_t *h64 = malloc((size_t)G->rows * 8);
    void *d = NULL;
    CHECK(h32 && h64);
    if (h32 && h64) {
        CHECK_OK(rvs_gpu_memcpy_d2h(h32, G->ymap.map, (size_t)G->rows * 4, &err), &err);
        for (int64_t i = 0; i < G->rows; i++)
            h64[i] = h32[i];
        CHECK_OK(rvs_gpu_malloc(&d, (size_t)G->rows * 8, &err), &err);
        CHECK_OK(rvs_gpu_memcpy_h2d(d, h64, (size_t)G->rows * 8, &err), &err);
        rvs_gpu_free((void *)G->ymap.map);
        G->ymap.map = d;
        G->ymap.map64 = 1;
    }
    free(h32);
    free(h64);
}

/* Part k of P into dy through its rows (accumulate acc): one launch on the default stream. */
static void run_part(rvs_gpu_fmt *G, const rvs_part *q, int acc, int wide, const void *dx, void *dy)
{
    rvs_error err;
    CHECK_OK(rvs_gpu_set_rows(G, q->rows, acc, &err), &err);
    if (wide)
        widen_map(G);
    CHECK_OK(rvs_gpu_spmv(G, dx, dy, NULL, NULL, &err), &err);
}

/* Every part of partition alg of A in format id: y poisoned, parts stored (diag: part 1 stored,
 * the rest added), checked; then every part once more in accumulate mode: y = 2 A x. With a
 * sentinel y, one part alone must leave every row outside it untouched. */
static void check_partition(const rvs_csr *A, rvs_alg alg, rvs_format_id id, rvs_vtype vt, int wide,
                            const char *name)
{
    static const double cp[3] = {1, 2, 3};
    const char *fname = rvs_format_lookup(id)->name;
    const size_t vs = rvs_vtype_size(vt);
    rvs_partition P = {0};
    rvs_gpu_fmt G[3];
    rvs_error err;
    int ok;
    void *dx = NULL, *dy = NULL, *x = malloc((size_t)A->cols * 8 + 8), *y = malloc((size_t)A->rows * 8 + 8);
    double *xd = malloc((size_t)A->cols * 8 + 8), *yd = malloc((size_t)A->rows * 8 + 8), max_err;
    int64_t row;
    CHECK(x && y && xd && yd);
    CHECK_OK(rvs_partition_compute(&P, A, alg, 3, cp, NULL, 0, &err), &err);
    upload_parts(G, &P, A, id, vt, &ok);
    if (!ok) {
        refused++;
        goto done;
    }
    rvs_test_random_vector(xd, A->cols, 17);
    for (int64_t j = 0; j < A->cols; j++) {
        if (vt == RVS_F64)
            ((double *)x)[j] = xd[j];
        else
            xd[j] = ((float *)x)[j] = (float)xd[j];
    }
    CHECK_OK(rvs_gpu_malloc(&dx, (size_t)A->cols * vs, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dy, (size_t)A->rows * vs, &err), &err);
    CHECK_OK(rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * vs, &err), &err);
    CHECK_OK(rvs_gpu_memset(dy, 0xff, (size_t)A->rows * vs, &err), &err);
    for (int k = 0; k < P.k; k++)
        run_part(&G[k], &P.parts[k], alg == RVS_ALG_DIAG && k > 0, wide, dx, dy);
    CHECK_OK(rvs_gpu_sync(&err), &err);
    CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)A->rows * vs, &err), &err);
    to_double(yd, y, A->rows, vt);
    rvs_status st = rvs_spmv_check(A, xd, yd, tol_of(vt), &max_err, &row, &err);
    CHECKF(st == RVS_OK, "%s %s %s %s%s: %s", name, rvs_alg_name(alg), fname, vt == RVS_F64 ? "f64" : "f32",
           wide ? " int64 map" : "", err.msg);
    /* accumulate: every part adds once more, so y = 2 A x */
    for (int k = 0; k < P.k; k++)
        run_part(&G[k], &P.parts[k], 1, wide, dx, dy);
    CHECK_OK(rvs_gpu_sync(&err), &err);
    CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)A->rows * vs, &err), &err);
    to_double(yd, y, A->rows, vt);
    for (int64_t i = 0; i < A->rows; i++)
        yd[i] *= 0.5;
    st = rvs_spmv_check(A, xd, yd, tol_of(vt), &max_err, &row, &err);
    CHECKF(st == RVS_OK, "%s %s %s accumulate: %s", name, rvs_alg_name(alg), fname, err.msg);
    /* the last part alone, y filled with 3.0: rows outside the part keep it exactly */
    if (alg != RVS_ALG_DIAG) {
        const rvs_part *q = &P.parts[P.k - 1];
        char *in = calloc((size_t)A->rows + 1, 1);
        for (int64_t i = 0; i < A->rows; i++) {
            if (vt == RVS_F64)
                ((double *)y)[i] = 3.0;
            else
                ((float *)y)[i] = 3.0f;
        }
        CHECK_OK(rvs_gpu_memcpy_h2d(dy, y, (size_t)A->rows * vs, &err), &err);
        run_part(&G[P.k - 1], q, 0, wide, dx, dy);
        CHECK_OK(rvs_gpu_sync(&err), &err);
        CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)A->rows * vs, &err), &err);
        to_double(yd, y, A->rows, vt);
        for (int64_t i = 0; in && i < q->nrows; i++)
            in[q->rows[i]] = 1;
        int64_t touched = 0;
        for (int64_t i = 0; in && i < A->rows; i++)
            touched += !in[i] && yd[i] != 3.0;
        CHECKF(touched == 0, "%s %s %s: %lld rows outside the part written", name, rvs_alg_name(alg), fname,
               (long long)touched);
        free(in);
    }
    ran++;
done:
    for (int k = 0; k < P.k; k++)
        rvs_gpu_fmt_free(&G[k]);
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_partition_free(&P);
    free(x);
    free(y);
    free(xd);
    free(yd);
}

/* Every format under every algorithm; int64 maps for the permuted (pmf) parts. */
static void check_matrix(const rvs_csr *A, const char *name, int both_types)
{
    static const rvs_alg algs[4] = {RVS_ALG_ROWS, RVS_ALG_NNZ, RVS_ALG_PMF, RVS_ALG_DIAG};
    for (int id = 1; id < RVS_FMT_COUNT; id++) {
        if (!rvs_format_lookup((rvs_format_id)id))
            continue;
        for (int a = 0; a < 4; a++)
            check_partition(A, algs[a], (rvs_format_id)id, RVS_F64, 0, name);
        check_partition(A, RVS_ALG_PMF, (rvs_format_id)id, RVS_F64, 1, name);
        if (both_types) {
            check_partition(A, RVS_ALG_PMF, (rvs_format_id)id, RVS_F32, 0, name);
            check_partition(A, RVS_ALG_NNZ, (rvs_format_id)id, RVS_F32, 0, name);
        }
    }
}

/* Contiguous rows give base only; a permutation gives an int32 map; an empty part nothing. */
static void check_set_rows(void)
{
    static const int64_t lengths[6] = {1, 2, 0, 3, 1, 2};
    static const int64_t contiguous[6] = {4, 5, 6, 7, 8, 9}, perm[6] = {9, 3, 5, 4, 8, 7};
    rvs_csr A = {0};
    rvs_fmt F = {0};
    rvs_gpu_fmt G = {0};
    rvs_error err;
    CHECK(rvs_test_csr_from_lengths(&A, lengths, 6, 4) == RVS_OK);
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, NULL, &err), &err);
    CHECK_OK(rvs_gpu_upload(&G, &F, &err), &err);
    CHECK(G.ymap.map == NULL && G.ymap.base == 0 && G.ymap.accumulate == 0);
    CHECK_OK(rvs_gpu_set_rows(&G, contiguous, 1, &err), &err);
    CHECK(G.ymap.map == NULL && G.ymap.base == 4 && G.ymap.accumulate == 1);
    CHECK_OK(rvs_gpu_set_rows(&G, perm, 0, &err), &err);
    CHECK(G.ymap.map != NULL && G.ymap.map64 == 0 && G.ymap.base == 3 && G.ymap.accumulate == 0);
    int32_t back[6] = {0};
    CHECK_OK(rvs_gpu_memcpy_d2h(back, G.ymap.map, sizeof back, &err), &err);
    CHECK(back[0] == 6 && back[1] == 0 && back[5] == 4);
    CHECK_OK(rvs_gpu_set_rows(&G, NULL, 0, &err), &err);
    CHECK(G.ymap.map == NULL && G.ymap.base == 0);
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
    rvs_csr_free(&A);
}

int main(void)
{
    static const int64_t one_long[5] = {1, 70000, 0, 3, 40};
    rvs_csr A = {0};
    rvs_error err;
    if (rvs_gpu_count() == 0) {
        printf("no usable GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    check_set_rows();
    CHECK_OK(rvs_test_random_csr(&A, 3000, 2500, 0.004, 1, 42), &err);
    check_matrix(&A, "random 3000x2500", 1);
    rvs_csr_free(&A);
    CHECK(rvs_test_csr_from_lengths(&A, one_long, 5, 80000) == RVS_OK);
    check_matrix(&A, "one long row", 0);
    rvs_csr_free(&A);
    /* a band of three values: DIA and HYB-DIA parts go up coded into a table (dia-values 0) */
    CHECK_OK(rvs_csr_alloc(&A, 5000, 5000, 3 * 5000 - 2, RVS_F64, &err), &err);
    for (int64_t i = 0, p = 0; i < 5000; i++) {
        for (int64_t c = i - 1; c <= i + 1; c++)
            if (c >= 0 && c < 5000) {
                A.colind[p] = (int32_t)c;
                ((double *)A.values)[p++] = c == i ? 4.0 : c < i ? -1.0 : -0.5;
            }
        A.rowptr[i + 1] = p;
    }
    check_matrix(&A, "band of three values", 1);
    rvs_csr_free(&A);
    rvs_test_matrix *list = NULL;
    int n = rvs_test_matrix_list(&list);
    for (int i = 0; i < n; i += 16) {
        if (strcmp(list[i].field, "complex") == 0)
            continue;
        rvs_status st = rvs_mm_read_file(&A, NULL, list[i].path, NULL, NULL, &err);
        CHECKF(st == RVS_OK, "%s: %s", list[i].name, err.msg);
        if (st == RVS_OK)
            check_matrix(&A, list[i].name, 0);
        rvs_csr_free(&A);
    }
    free(list);
    printf("%d partitioned runs checked, %d refused by a format builder\n", ran, refused);
    return rvs_test_done();
}
