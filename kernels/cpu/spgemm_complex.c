/* spgemm_complex.c - C = A*B for complex A and B by one real product of their stacked parts
 * (the "4M" method of complex GEMM): with A = Ar + i Ai and B = Br + i Bi,
 *
 *     [Ar]                [Ar Br  Ar Bi]
 *     [Ai] * [Br  Bi]  =  [Ai Br  Ai Bi] ,   C = (Ar Br - Ai Bi) + i (Ar Bi + Ai Br).
 *
 * The stacked A2 is 2m x n, B2 is n x 2p (row k of B2 is row k of Br, then row k of Bi shifted
 * by p columns); each real kernel (CPU, GPU row-wise or hySpMM, hybrid) multiplies them as it
 * multiplies any real matrices, and the four blocks of C2 are merged row by row (sorted merge
 * of four column lists: every structural product is kept by the kernels, so the blocks share
 * A*B's pattern, and the merge needs no more than that). Costs: A and B are copied once into
 * their stacked forms, C2 holds four times C's entries. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_spgemm.h"
#include "rvs_omp.h"

/* Component k (0 real, 1 imaginary) of value e of complex M, as double. */
static inline double part_of(const rvs_csr *M, int64_t e, int k)
{
    return M->vtype == RVS_C128 ? ((const double *)M->values)[2 * e + k] : ((const float *)M->values)[2 * e + k];
}

/* Store v as value e of real M (f64 or f32). */
static inline void set_real(rvs_csr *M, int64_t e, double v)
{
    if (M->vtype == RVS_F64)
        ((double *)M->values)[e] = v;
    else
        ((float *)M->values)[e] = (float)v;
}

/* A2 = [Ar; Ai] (2 rows per row of A, same columns). */
static rvs_status stack_rows(rvs_csr *A2, const rvs_csr *A, rvs_vtype rt, rvs_error *err)
{
    const int64_t nnz = A->nnz;
    rvs_status st = rvs_csr_alloc(A2, 2 * A->rows, A->cols, 2 * nnz, rt, err);
    if (st != RVS_OK)
        return st;
    const int wide = A2->colind == NULL;
#pragma omp parallel for schedule(static) if (nnz > RVS_OMP_MIN_WORK)
    for (int64_t e = 0; e < nnz; e++)
        for (int k = 0; k < 2; k++) {
            if (wide)
                A2->colind64[k * nnz + e] = rvs_csr_col(A, e);
            else
                A2->colind[k * nnz + e] = (int32_t)rvs_csr_col(A, e);
            set_real(A2, k * nnz + e, part_of(A, e, k));
        }
    for (int64_t i = 0; i <= A->rows; i++)
        A2->rowptr[i] = A->rowptr[i];
    for (int64_t i = 1; i <= A->rows; i++)
        A2->rowptr[A->rows + i] = nnz + A->rowptr[i];
    return RVS_OK;
}

/* B2 = [Br Bi] (row k: Br's row k, then Bi's row k with columns shifted by p = B->cols). */
static rvs_status stack_cols(rvs_csr *B2, const rvs_csr *B, rvs_vtype rt, rvs_error *err)
{
    rvs_status st = rvs_csr_alloc(B2, B->rows, 2 * B->cols, 2 * B->nnz, rt, err);
    if (st != RVS_OK)
        return st;
#pragma omp parallel for schedule(static) if (B->rows > 4096)
    for (int64_t r = 0; r < B->rows; r++) {
        const int64_t a = B->rowptr[r], n = B->rowptr[r + 1] - a, o = 2 * a;
        for (int64_t t = 0; t < n; t++)
            for (int k = 0; k < 2; k++) {
                B2->colind[o + k * n + t] = (int32_t)(B->colind[a + t] + k * B->cols);
                set_real(B2, o + k * n + t, part_of(B, a + t, k));
            }
    }
    for (int64_t r = 0; r <= B->rows; r++)
        B2->rowptr[r] = 2 * B->rowptr[r];
    return RVS_OK;
}

/* The four pieces of C's row i in C2: [lo, mid) and [mid, hi) of rows i (Ar Br, Ar Bi) and
 * m + i (Ai Br, Ai Bi), split where the columns reach p. */
typedef struct {
    int64_t at[4], end[4];
} row_pieces;

static row_pieces pieces_of(const rvs_csr *C2, int64_t i, int64_t m, int64_t p)
{
    row_pieces q;
    for (int h = 0; h < 2; h++) {
        const int64_t lo = C2->rowptr[i + h * m], hi = C2->rowptr[i + h * m + 1];
        int64_t mid = lo;
        while (mid < hi && C2->colind[mid] < p)
            mid++;
        q.at[2 * h] = lo, q.end[2 * h] = mid;         /* h = 0: Ar Br, h = 1: Ai Br */
        q.at[2 * h + 1] = mid, q.end[2 * h + 1] = hi; /* h = 0: Ar Bi, h = 1: Ai Bi */
    }
    return q;
}

/* The smallest column (below p) at the heads of the pieces, or -1 when all are done. */
static int64_t next_col(const rvs_csr *C2, const row_pieces *q, int64_t p)
{
    int64_t c = -1;
    for (int k = 0; k < 4; k++)
        if (q->at[k] < q->end[k]) {
            int64_t v = C2->colind[q->at[k]] - (k % 2 ? p : 0);
            c = c < 0 || v < c ? v : c;
        }
    return c;
}

/* Merge C's row i from C2 into C (at e, when C has room; count only when C is NULL). */
static int64_t merge_row(rvs_csr *C, int64_t e, const rvs_csr *C2, int64_t i, int64_t m, int64_t p)
{
    static const double sign_re[4] = {1, 0, 0, -1}, sign_im[4] = {0, 1, 1, 0}; /* ArBr, ArBi, AiBr, AiBi */
    row_pieces q = pieces_of(C2, i, m, p);
    int64_t n = 0, c;
    while ((c = next_col(C2, &q, p)) >= 0) {
        double re = 0, im = 0;
        for (int k = 0; k < 4; k++)
            if (q.at[k] < q.end[k] && C2->colind[q.at[k]] - (k % 2 ? p : 0) == c) {
                const double v = rvs_csr_value(C2, q.at[k]++);
                re += sign_re[k] * v;
                im += sign_im[k] * v;
            }
        if (C) {
            C->colind[e + n] = (int32_t)c;
            if (C->vtype == RVS_C128) {
                ((double *)C->values)[2 * (e + n)] = re;
                ((double *)C->values)[2 * (e + n) + 1] = im;
            } else {
                ((float *)C->values)[2 * (e + n)] = (float)re;
                ((float *)C->values)[2 * (e + n) + 1] = (float)im;
            }
        }
        n++;
    }
    return n;
}

/* C (complex, m x p) from C2's four blocks. */
static rvs_status merge(rvs_csr *C, const rvs_csr *C2, int64_t m, int64_t p, rvs_vtype vt, rvs_error *err)
{
    int64_t *count = malloc((size_t)(m + 1) * sizeof *count);
    if (!count)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory merging the complex product");
    count[0] = 0;
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t i = 0; i < m; i++)
        count[i + 1] = merge_row(NULL, 0, C2, i, m, p);
    for (int64_t i = 0; i < m; i++)
        count[i + 1] += count[i];
    rvs_status st = rvs_csr_alloc(C, m, p, count[m], vt, err);
    if (st == RVS_OK) {
        memcpy(C->rowptr, count, (size_t)(m + 1) * sizeof *count);
#pragma omp parallel for schedule(dynamic, 256)
        for (int64_t i = 0; i < m; i++)
            merge_row(C, count[i], C2, i, m, p);
    }
    free(count);
    return st;
}

rvs_status rvs_spgemm_complex(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_real_fn fn, void *ctx,
                              rvs_spgemm_stats *stats, rvs_error *err)
{
    rvs_csr A2 = {0}, B2 = {0}, C2 = {0};
    rvs_spgemm_stats s2;
    const double t0 = omp_get_wtime();
    double t1 = t0, t2 = t0;
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    const rvs_vtype rt = rvs_vtype_real(A->vtype);
    memset(C, 0, sizeof *C);
    memset(&s2, 0, sizeof s2);
    if (st == RVS_OK && !rvs_vtype_is_complex(A->vtype))
        st = rvs_fail(err, RVS_ERR_ARG, "the complex SpGEMM takes complex matrices, not %s",
                      rvs_vtype_name(A->vtype));
    if (st == RVS_OK && (B->cols > RVS_COL32_MAX / 2 || A->rows > INT64_MAX / 4))
        st = rvs_fail(err, RVS_ERR_UNSUPPORTED, "a complex product of %lld columns needs 64-bit column indices",
                      (long long)B->cols);
    if (st == RVS_OK && (st = stack_rows(&A2, A, rt, err)) == RVS_OK &&
        (st = stack_cols(&B2, B, rt, err)) == RVS_OK) {
        t1 = omp_get_wtime();
        st = fn(&C2, &A2, &B2, ctx, &s2, err);
        t2 = omp_get_wtime();
    }
    rvs_csr_free(&A2);
    rvs_csr_free(&B2);
    if (st == RVS_OK)
        st = merge(C, &C2, A->rows, B->cols, A->vtype, err);
    rvs_csr_free(&C2);
    if (st == RVS_OK && stats) {
        const double t3 = omp_get_wtime();
        *stats = s2;
        stats->products = s2.products / 4; /* complex products: each is four real ones */
        stats->nnz_c = C->nnz;
        stats->cpu_rows = s2.cpu_rows / 2;
        stats->gpu_rows = s2.gpu_rows / 2;
        stats->t_pre += t1 - t0; /* the stacking */
        /* the merge, and whatever of the real product's call its stages leave out */
        stats->t_compress += t3 - t2 + (t2 - t1) - rvs_spgemm_stage_sum(&s2);
        stats->t_total = t3 - t0;
    }
    if (st != RVS_OK)
        rvs_csr_free(C);
    return st;
}
