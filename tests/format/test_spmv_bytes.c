/* test_spmv_bytes.c - rvs_spmv_bytes against byte counts derived here from the CSR and the format
 * definitions (rvskit-formats.7), for every format, f64 and f32, on matrices with empty rows, a
 * long row and a band: what each GPU kernel reads, x once and y once. */
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_test.h"

/* Slots ELLR's GPU kernel visits, from the row lengths of A (ellr.cu: TPR lanes per row). */
static int64_t ellr_visits(const rvs_csr *A, int64_t vs)
{
    int64_t longest = 0, tpr = 1, slots = 0, n = 16 / vs;
    for (int64_t i = 0; i < A->rows; i++)
        longest = A->rowptr[i + 1] - A->rowptr[i] > longest ? A->rowptr[i + 1] - A->rowptr[i] : longest;
    while (tpr < 32 && A->rows > 0 && A->nnz / A->rows >= 16 * tpr)
        tpr *= 2;
    while (tpr < 32 && longest > 256 * tpr)
        tpr *= 2;
    if (tpr > 1)
        return A->nnz;
    for (int64_t g = 0; g < A->rows; g += n) {
        int64_t m = 0;
        for (int64_t i = g; i < g + n && i < A->rows; i++)
            m = A->rowptr[i + 1] - A->rowptr[i] > m ? A->rowptr[i + 1] - A->rowptr[i] : m;
        slots += m * n;
    }
    return slots;
}

/* Bytes a CSR row pointer takes on the GPU (rvskit-formats.7): 4 where the upload sorts the
 * row-block kernel's chunks (irregular rows: the longest over 4 times the mean plus 16, or f64
 * rows of 32 entries or more on average; entry order 0; real values), else 8. */
static int64_t csr_rp_bytes(const rvs_csr *A, const rvs_fmt *F)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < A->rows; i++)
        longest = A->rowptr[i + 1] - A->rowptr[i] > longest ? A->rowptr[i + 1] - A->rowptr[i] : longest;
    const int irregular = A->rows > 0 && ((double)longest > 4.0 * (double)A->nnz / (double)A->rows + 16.0 ||
                                          (A->vtype == RVS_F64 && A->nnz >= 32 * A->rows));
    return irregular && A->nnz > 0 && F->param[2] == 0 && (A->vtype == RVS_F64 || A->vtype == RVS_F32) ? 4 : 8;
}

/* Bytes of format id for A, as defined per format; -1 when the builder refuses A. */
static int64_t expected(const rvs_csr *A, const rvs_fmt *F)
{
    const int64_t vs = (int64_t)rvs_vtype_size(A->vtype), xy = (A->rows + A->cols) * vs, nnz = A->nnz;
    const int64_t ld = (A->rows + 31) / 32 * 32, ns = (A->rows + 31) / 32;
    rvs_fmt_stats st;
    rvs_format_lookup(F->id)->stats(F, &st);
    const int64_t slots = nnz + st.padded; /* slots stored (padding included) */
    switch (F->id) {
    case RVS_FMT_CSR: return (A->rows + 1) * csr_rp_bytes(A, F) + nnz * (4 + vs) + xy;
    case RVS_FMT_COO: return nnz * (8 + vs) + xy;
    case RVS_FMT_ELL: return ld * F->param[0] * (4 + vs) + xy;
    case RVS_FMT_ELLR: return A->rows * 4 + ellr_visits(A, vs) * (4 + vs) + xy;
    case RVS_FMT_PELLR: return A->rows * 4 + ns * 4 + (ns + 1) * 8 + slots * 4 + nnz * vs + xy;
    case RVS_FMT_BIELL: return A->rows * 4 + F->param[2] * 8 + (F->param[2] + 1) * 8 + slots * 4 + nnz * vs + xy;
    case RVS_FMT_JAD: return st.bytes + xy;
    case RVS_FMT_HYB: return ld * F->param[0] * 4 + (nnz - F->param[2]) * vs + F->param[2] * (8 + vs) + xy;
    case RVS_FMT_HYBDIA: return F->param[0] * 4 + ld * F->param[0] * vs + F->param[2] * (8 + vs) + xy;
    case RVS_FMT_DIA: return F->param[0] * 4 + ld * F->param[0] * vs + xy;
    case RVS_FMT_HCC: return st.bytes + xy;
    default: return -2;
    }
}

static void check_matrix(const rvs_csr *A64, const char *name)
{
    for (int p = 0; p < 2; p++) {
        rvs_csr A = {0};
        rvs_error err;
        CHECK_OK(rvs_csr_copy(&A, A64, &err), &err);
        CHECK_OK(rvs_csr_convert_values(&A, p ? RVS_F32 : RVS_F64, &err), &err);
        for (int id = 1; id < RVS_FMT_COUNT; id++) {
            rvs_fmt F = {0};
            if (rvs_fmt_from_csr(&F, (rvs_format_id)id, &A, NULL, &err) != RVS_OK)
                continue; /* refused (DIA's padding limit): nothing to count */
            int64_t want = expected(&A, &F), got = rvs_spmv_bytes(&F);
            CHECKF(got == want, "%s %s %s: rvs_spmv_bytes %lld, defined %lld", name, p ? "f32" : "f64",
                   rvs_format_lookup(F.id)->name, (long long)got, (long long)want);
            rvs_fmt_free(&F);
        }
        rvs_fmt_options rows; /* csr-order 1: rows in order, 64-bit row pointers whatever the rows */
        rvs_fmt_options_default(&rows);
        rows.csr_order = 1;
        rvs_fmt F = {0};
        CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, &rows, &err), &err);
        CHECKF(rvs_spmv_bytes(&F) == expected(&A, &F) && csr_rp_bytes(&A, &F) == 8, "%s: csr-order 1 bytes", name);
        rvs_fmt_free(&F);
        rvs_csr_free(&A);
    }
}

int main(void)
{
    static const int64_t long_row[5] = {3, 2000, 0, 1, 7};
    rvs_csr A = {0};
    int64_t band[64];
    CHECK(rvs_test_random_csr(&A, 500, 400, 0.02, 1, 9) == RVS_OK);
    check_matrix(&A, "random 500x400");
    rvs_csr_free(&A);
    CHECK(rvs_test_csr_from_lengths(&A, long_row, 5, 3000) == RVS_OK);
    check_matrix(&A, "long row");
    rvs_csr_free(&A);
    for (int i = 0; i < 64; i++)
        band[i] = 40;
    CHECK(rvs_test_csr_from_lengths(&A, band, 64, 64) == RVS_OK);
    check_matrix(&A, "64 rows of 40");
    rvs_csr_free(&A);
    return rvs_test_done();
}
