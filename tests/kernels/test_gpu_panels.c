/* test_gpu_panels.c - CSR on the GPU in column panels (csr-panels=P, kernels/gpu/csr_panels.cu).
 * The cut: as many panels as ceil(cols / ceil(cols / P)), each entry in exactly one (panel
 * sizes counted here), panel 0 with every row, the others with exactly the rows that have
 * entries in their columns (their row lists read back, ascending), empty panels included. The
 * results against A*x in f64, f32 and mixed precision with y poisoned, values coded into a table
 * (five distinct) and as they are, split mode (a row of 9000) and not; through a row map into a
 * bigger y, stored and in accumulate mode, rows outside the part left alone. rvs_gpu_bytes_saved
 * against the bytes counted here. The default's rule: an f32 block whose chunks would span 2^20
 * columns is cut in panels narrower than 2^20, not the same block in f64, nor an f32 band. Blocks never cut:
 * regular rows, rows in order (csr-order=1), P of 0 or 1. Skipped (77) without a usable GPU. */
#include <math.h>
#include <string.h>
#include "rvs_gpu.h"
#include "rvs_test.h"

/* Rows of 0 to 12 entries (every fifth empty), every 97th 300 long, one of longrow (0: none),
 * columns random over cols but never in [g0, g1); values 0.25 k - 3 for k < distinct (0: random). */
static void make_matrix(rvs_csr *A, int64_t rows, int64_t cols, int64_t g0, int64_t g1, int64_t longrow,
                        int distinct)
{
    rvs_error err;
    uint64_t s = 12345;
    int64_t nnz = 0;
    const int64_t free_cols = cols - (g1 - g0);
    for (int64_t i = 0; i < rows; i++)
        nnz += i == rows / 3 && longrow ? longrow : i % 97 == 0 ? 300 : i % 5 == 0 ? 0 : (i * 7) % 13;
    CHECK_OK(rvs_csr_alloc(A, rows, cols, nnz, RVS_F64, &err), &err);
    int64_t p = 0;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t len = i == rows / 3 && longrow ? longrow : i % 97 == 0 ? 300 : i % 5 == 0 ? 0 : (i * 7) % 13;
        /* len distinct columns: a random start and random strides, ascending, mapped around the gap */
        const int64_t stride = free_cols / (len + 1);
        int64_t c = 0;
        for (int64_t k = 0; k < len; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            c += 1 + (int64_t)((s >> 33) % (uint64_t)(stride > 1 ? stride : 1));
            const int64_t col = c - 1 < g0 ? c - 1 : c - 1 + (g1 - g0);
            A->colind[p] = (int32_t)col;
            ((double *)A->values)[p++] = distinct ? 0.25 * (double)((s >> 20) % (uint64_t)distinct) - 3.0
                                                  : (double)((s >> 11) % 2000001) / 1000000.0 - 1.0;
        }
        A->rowptr[i + 1] = p;
    }
}

/* Entries and rows with entries of A in columns [lo, hi). */
static void count_panel(const rvs_csr *A, int64_t lo, int64_t hi, int64_t *nnz, int64_t *rows)
{
    *nnz = *rows = 0;
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t n = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            n += A->colind[k] >= lo && A->colind[k] < hi;
        *nnz += n;
        *rows += n > 0;
    }
}

/* The cut of G (A in panels of w columns), its row lists and rvs_gpu_bytes_saved (nd: distinct
 * values of a coded block, 0 when not coded). */
static void check_cut(const rvs_gpu_fmt *G, const rvs_csr *A, int64_t w, int nd, const char *name)
{
    rvs_error err;
    const int64_t np = (A->cols + w - 1) / w, vs = (int64_t)rvs_vtype_size(G->vtype);
    CHECKF(G->npanel == np && G->pwidth == w && G->narrays == 0, "%s: %d panels of %lld columns, %d arrays left",
           name, G->npanel, (long long)G->pwidth, G->narrays);
    if (G->npanel != np)
        return;
    int64_t total = 0, saved = (A->rows + 1) * 4;
    for (int p = 0; p < np; p++) {
        const rvs_gpu_fmt *Q = &G->panel[p];
        int64_t nnz, rows;
        count_panel(A, p * w, (p + 1) * w, &nnz, &rows);
        total += Q->nnz;
        CHECKF(Q->nnz == nnz && Q->rows == (p ? rows : A->rows),
               "%s: panel %d: %lld entries %lld rows, want %lld %lld", name, p, (long long)Q->nnz,
               (long long)Q->rows, (long long)nnz, (long long)(p ? rows : A->rows));
        const rvs_array *pr = rvs_gpu_array(Q, "prow");
        CHECKF(p ? pr && pr->count == rows : !pr, "%s: panel %d row list", name, p);
        if (p && pr && rows > 0) { /* ascending, and exactly the rows with entries in the panel */
            int32_t *h = malloc((size_t)rows * 4);
            CHECK(h != NULL);
            if (h) {
                CHECK_OK(rvs_gpu_memcpy_d2h(h, pr->data, (size_t)rows * 4, &err), &err);
                int ok = 1;
                for (int64_t j = 0; j < rows && ok; j++) {
                    const int64_t r = h[j];
                    int has = 0;
                    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++)
                        has |= A->colind[k] >= p * w && A->colind[k] < (p + 1) * w;
                    ok = has && (j == 0 || h[j - 1] < h[j]);
                }
                CHECKF(ok, "%s: panel %d: its row list is not its rows with entries, ascending", name, p);
                free(h);
            }
        }
        /* its row pointers (32 bits once its chunks are sorted: a panel with entries), its row
         * list and y read and written again (panels 1..), its codes and table */
        const rvs_array *rp = rvs_gpu_array(Q, "rowptr");
        CHECK(rp && rp->dtype == (nnz > 0 ? RVS_DT_I32 : RVS_DT_I64));
        saved -= (Q->rows + 1) * (nnz > 0 ? 4 : 8) + (p ? rows * (4 + 2 * vs) : 0);
        if (nd > 0 && nnz > 0)
            saved += nnz * vs - (nd > 1 ? nnz : 0) - nd * vs;
        CHECKF((rvs_gpu_array(Q, "vdict") != NULL) == (nd > 0 && nnz > 0), "%s: panel %d: table", name, p);
    }
    CHECKF(total == A->nnz, "%s: panels hold %lld entries of %lld", name, (long long)total, (long long)A->nnz);
    CHECKF(rvs_gpu_bytes_saved(G) == saved, "%s: %lld bytes saved, want %lld", name,
           (long long)rvs_gpu_bytes_saved(G), (long long)saved);
}

/* y = G x into a y of 2 rows + 1 per row of A, part row i at y[2i + 1] (a row map), y poisoned;
 * stored, then added once more (accumulate): y[2i + 1] = (A x)_i, then 2 (A x)_i, and every even
 * row still poisoned. mixed: f64 x and y of an f32 block. */
static void check_runs(rvs_gpu_fmt *G, const rvs_csr *A, rvs_vtype vt, int mixed, const char *name)
{
    rvs_error err;
    const int64_t n = 2 * A->rows + 1;
    const size_t vs = mixed ? 8 : rvs_vtype_size(vt);
    double *xd = malloc((size_t)A->cols * 8), *yd = malloc((size_t)A->rows * 8), max_err;
    void *x = malloc((size_t)A->cols * vs), *y = malloc((size_t)n * vs), *dx = NULL, *dy = NULL;
    int64_t *rows = malloc((size_t)A->rows * sizeof *rows), row;
    rvs_csr R = {0}; /* A as the block holds it */
    CHECK(xd && yd && x && y && rows);
    if (!xd || !yd || !x || !y || !rows)
        goto done;
    CHECK_OK(rvs_csr_copy(&R, A, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&R, vt, &err), &err);
    CHECK_OK(rvs_csr_convert_values(&R, RVS_F64, &err), &err);
    rvs_test_random_vector(xd, A->cols, 5);
    for (int64_t j = 0; j < A->cols; j++) {
        if (vs == 8)
            ((double *)x)[j] = xd[j];
        else
            xd[j] = ((float *)x)[j] = (float)xd[j];
    }
    for (int64_t i = 0; i < A->rows; i++)
        rows[i] = 2 * i + 1;
    CHECK_OK(rvs_gpu_malloc(&dx, (size_t)A->cols * vs, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dy, (size_t)n * vs, &err), &err);
    CHECK_OK(rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * vs, &err), &err);
    CHECK_OK(rvs_gpu_memset(dy, 0xff, (size_t)n * vs, &err), &err);
    for (int acc = 0; acc < 2; acc++) {
        CHECK_OK(rvs_gpu_set_rows(G, rows, acc, &err), &err);
        rvs_status st = mixed ? rvs_gpu_spmv_mixed(G, dx, dy, NULL, NULL, &err)
                              : rvs_gpu_spmv(G, dx, dy, NULL, NULL, &err);
        CHECKF(st == RVS_OK, "%s: %s", name, err.msg);
        CHECK_OK(rvs_gpu_sync(&err), &err);
        CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)n * vs, &err), &err);
        int poisoned = 1;
        for (int64_t i = 0; i < A->rows; i++) {
            const double a = vs == 8 ? ((double *)y)[2 * i + 1] : ((float *)y)[2 * i + 1];
            const double b = vs == 8 ? ((double *)y)[2 * i] : ((float *)y)[2 * i];
            yd[i] = a / (acc + 1);
            poisoned &= isnan(b);
        }
        CHECKF(poisoned, "%s: a row outside the part was written", name);
        st = rvs_spmv_check(&R, xd, yd, vt == RVS_F64 || mixed ? 1e-10 : 1e-4, &max_err, &row, &err);
        CHECKF(st == RVS_OK, "%s (%s): %s", name, acc ? "accumulate" : "stored", err.msg);
    }
done:
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    rvs_csr_free(&R);
    free(xd);
    free(yd);
    free(x);
    free(y);
    free(rows);
}

/* G = A in vt as CSR of P panels (options: defaults but csr_panels, csr_order). */
static rvs_status upload(rvs_gpu_fmt *G, const rvs_csr *A, rvs_vtype vt, int P, int order, rvs_error *err)
{
    rvs_csr C = {0};
    rvs_fmt F = {0};
    rvs_fmt_options o;
    rvs_fmt_options_default(&o);
    o.csr_panels = P;
    o.csr_order = order;
    rvs_status st = rvs_csr_copy(&C, A, err);
    if (st == RVS_OK)
        st = rvs_csr_convert_values(&C, vt, err);
    if (st == RVS_OK)
        st = rvs_fmt_from_csr(&F, RVS_FMT_CSR, &C, &o, err);
    if (st == RVS_OK)
        st = rvs_gpu_upload(G, &F, err);
    rvs_fmt_free(&F);
    rvs_csr_free(&C);
    return st;
}

static void check_panels(void)
{
    static const int counts[4] = {2, 3, 7, 64};
    const int64_t rows = 30000, cols = 70000;
    /* the gap: the middle seventh (panel 3 of 7 empty), the first third (panel 0 of 3 empty) */
    static const int64_t gaps[2][2] = {{30000, 40000}, {0, 23334}};
    for (int m = 0; m < 4; m++) {
        rvs_csr A = {0};
        char name[128];
        const int distinct = m % 2 ? 0 : 5;
        make_matrix(&A, rows, cols, gaps[m / 2][0], gaps[m / 2][1], m == 1 ? 9000 : 0, distinct);
        for (int c = 0; c < 4; c++)
            for (int f = 0; f < 3; f++) { /* f64, f32, mixed */
                const rvs_vtype vt = f ? RVS_F32 : RVS_F64;
                rvs_gpu_fmt G = {0};
                rvs_error err;
                snprintf(name, sizeof name, "%s values, gap %lld..%lld%s, %d panels, %s", distinct ? "5" : "random",
                         (long long)gaps[m / 2][0], (long long)gaps[m / 2][1], m == 1 ? ", a row of 9000" : "",
                         counts[c],
                         f == 2 ? "mixed"
                         : f    ? "f32"
                                : "f64");
                CHECK_OK(upload(&G, &A, vt, counts[c], 0, &err), &err);
                check_cut(&G, &A, (cols + counts[c] - 1) / counts[c], distinct, name);
                check_runs(&G, &A, vt, f == 2, name);
                if (c == 0 && f == 0) { /* the kernels that read rows in order refuse the panels' sorted chunks */
                    rvs_gpu_tune t = {0};
                    t.threads_per_row = 4;
                    CHECKF(rvs_gpu_spmv(&G, NULL, NULL, &t, NULL, &err) == RVS_ERR_UNSUPPORTED, "%s: vector kernel",
                           name);
                }
                rvs_gpu_fmt_free(&G);
                CHECK(G.panel == NULL && G.npanel == 0);
            }
        rvs_csr_free(&A);
    }
}

/* Rows of 1 to 13 entries, every 97th 300 long (irregular), row i on columns i * 60 on: windows of
 * 4096 entries span far less than 2^20 columns. */
static void make_band(rvs_csr *A, int64_t rows)
{
    rvs_error err;
    int64_t nnz = 0;
    for (int64_t i = 0; i < rows; i++)
        nnz += i % 97 == 0 ? 300 : 1 + (i * 7) % 13;
    CHECK_OK(rvs_csr_alloc(A, rows, rows * 60 + 300, nnz, RVS_F64, &err), &err);
    int64_t p = 0;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t len = i % 97 == 0 ? 300 : 1 + (i * 7) % 13;
        for (int64_t k = 0; k < len; k++) {
            A->colind[p] = (int32_t)(i * 60 + k);
            ((double *)A->values)[p++] = 1.0 + (double)((i + k) % 1000) / 997.0;
        }
        A->rowptr[i + 1] = p;
    }
}

/* The default (csr-panels 0): an f32 block whose windows of 4096 entries mostly span 2^20 columns
 * or more goes up in ceil(cols / 2^20) panels of equal width; the same block in f64, a band in f32 and the f32
 * block with csr-panels 1 go up whole. */
static void check_rule(void)
{
    rvs_csr A = {0}, B = {0};
    rvs_error err;
    const int64_t span = (int64_t)1 << 20, cols = 3 * span + 5;
    make_matrix(&A, 40000, cols, 0, 0, 0, 0);
    make_band(&B, 40000);
    CHECK(B.cols > span);
    const struct {
        const rvs_csr *A;
        rvs_vtype vt;
        int P, cut;
    } cases[4] = {{&A, RVS_F32, 0, 1}, {&A, RVS_F64, 0, 0}, {&B, RVS_F32, 0, 0}, {&A, RVS_F32, 1, 0}};
    for (int c = 0; c < 4; c++) {
        rvs_gpu_fmt G = {0};
        char name[64];
        snprintf(name, sizeof name, "rule case %d", c);
        CHECK_OK(upload(&G, cases[c].A, cases[c].vt, cases[c].P, 0, &err), &err);
        CHECKF((G.npanel > 0) == cases[c].cut, "%s: %d panels", name, G.npanel);
        if (cases[c].cut) /* ceil(cols / 2^20) panels of equal width: none spans 2^20 columns */
            check_cut(&G, cases[c].A, (cols + (cols + span - 1) / span - 1) / ((cols + span - 1) / span), 0, name);
        check_runs(&G, cases[c].A, cases[c].vt, 0, name);
        if (c == 0) /* the same cut for mixed precision, whose block is f32 */
            check_runs(&G, cases[c].A, cases[c].vt, 1, "rule case 0 mixed");
        rvs_gpu_fmt_free(&G);
    }
    rvs_csr_free(&A);
    rvs_csr_free(&B);
}

/* Blocks that are never cut: P of 0 or 1, rows in order (csr-order=1), regular rows. */
static void check_uncut(void)
{
    rvs_csr A = {0}, B = {0};
    rvs_error err;
    int64_t *len = malloc(5000 * sizeof *len);
    CHECK(len != NULL);
    if (!len)
        return;
    make_matrix(&A, 5000, 9000, 0, 0, 0, 0);
    for (int i = 0; i < 5000; i++)
        len[i] = 7;
    CHECK(rvs_test_csr_from_lengths(&B, len, 5000, 9000) == RVS_OK);
    const struct {
        const rvs_csr *A;
        int P, order;
    } cases[4] = {{&A, 0, 0}, {&A, 1, 0}, {&A, 4, 1}, {&B, 4, 0}};
    for (int c = 0; c < 4; c++) {
        rvs_gpu_fmt G = {0};
        CHECK_OK(upload(&G, cases[c].A, RVS_F64, cases[c].P, cases[c].order, &err), &err);
        CHECKF(G.npanel == 0 && G.panel == NULL && rvs_gpu_array(&G, "rowptr"), "uncut case %d: %d panels", c,
               G.npanel);
        check_runs(&G, cases[c].A, RVS_F64, 0, "uncut");
        rvs_gpu_fmt_free(&G);
    }
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    free(len);
}

int main(void)
{
    if (rvs_gpu_count() == 0) {
        printf("no usable GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    check_panels();
    check_rule();
    check_uncut();
    return rvs_test_done();
}
