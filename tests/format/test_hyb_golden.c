/* test_hyb_golden.c - the worked example of Yang, Li and Li, "A hybrid computing method of SpMV on
 * CPU-GPU heterogeneous computing systems" (J. Parallel Distrib. Comput., 2017), Sec. 4.2, K = 2,
 * both variants:
 * A = [3 0 0 0; 0 1 4 0; 6 0 2 8; 0 5 0 7].
 * ELL+COO: ELL rows (3,-) (1,4) (6,2) (5,7) with columns (1,*) (2,3) (1,3) (2,4), COO (3,4,8).
 * DIA+COO: offsets 0 and 1 with data rows (3,0) (1,4) (2,8) (7,0), COO (3,1,6) (4,2,5). */
#include <string.h>
#include "rvs_test.h"
#include "rvs_cpu.h"

/* A as a CSR (f64), 0-based. */
static void golden_matrix(rvs_csr *A)
{
    static const int64_t ri[] = {0, 1, 1, 2, 2, 2, 3, 3}, ci[] = {0, 1, 2, 0, 2, 3, 1, 3};
    static const double v[] = {3, 1, 4, 6, 2, 8, 5, 7};
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(A, 4, 4, 8, ri, ci, v, RVS_F64, &err), &err);
}

/* COO tail of F equals the 1-based triplets (r, c, v) x n. */
static void check_coo(const rvs_fmt *F, const int *r, const int *c, const double *v, int n)
{
    const rvs_array *ra = rvs_fmt_array(F, "coo_row"), *ca = rvs_fmt_array(F, "coo_col"),
                    *va = rvs_fmt_array(F, "coo_val");
    CHECK(F->param[2] == n && ra && ra->count == n && ca && va);
    if (!ra || !ca || !va || ra->count != n)
        return;
    for (int k = 0; k < n; k++) {
        CHECKF(((int32_t *)ra->data)[k] == r[k] - 1, "coo row %d", k);
        CHECKF(((int32_t *)ca->data)[k] == c[k] - 1, "coo col %d", k);
        CHECKF(((double *)va->data)[k] == v[k], "coo val %d", k);
    }
}

/* y = A x on the CPU matches the dense product. */
static void check_spmv(const rvs_fmt *F)
{
    const double x[4] = {1, 2, 3, 4}, want[4] = {3, 14, 44, 38};
    double y[4] = {-1, -1, -1, -1};
    rvs_error err;
    CHECK_OK(rvs_cpu_spmv(F, x, y, &err), &err);
    for (int i = 0; i < 4; i++)
        CHECKF(y[i] == want[i], "y[%d] = %g, want %g", i, y[i], want[i]);
}

/* ELL + COO with K = 2. */
static void test_ell_coo(const rvs_csr *A)
{
    rvs_fmt F = {0};
    rvs_fmt_options o;
    rvs_error err;
    rvs_fmt_options_default(&o);
    o.hyb_k = 2;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_HYB, A, &o, &err), &err);
    CHECK(F.param[0] == 2 && F.param[1] == 32);
    const int32_t *ec = rvs_fmt_array(&F, "ell_col")->data;
    const double *ev = rvs_fmt_array(&F, "ell_val")->data;
    static const int col[4][2] = {{1, 0}, {2, 3}, {1, 3}, {2, 4}}; /* 1-based, 0: padding */
    static const double val[4][2] = {{3, 0}, {1, 4}, {6, 2}, {5, 7}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            CHECKF(ec[j * 32 + i] == col[i][j] - 1, "ell col (%d, %d) = %d", i, j, ec[j * 32 + i]);
            CHECKF(ev[j * 32 + i] == val[i][j], "ell val (%d, %d) = %g", i, j, ev[j * 32 + i]);
        }
    check_coo(&F, (const int[]){3}, (const int[]){4}, (const double[]){8}, 1);
    check_spmv(&F);
    rvs_fmt_free(&F);
}

/* DIA + COO with K = 2 (two diagonals). */
static void test_dia_coo(const rvs_csr *A)
{
    rvs_fmt F = {0};
    rvs_fmt_options o;
    rvs_error err;
    rvs_fmt_options_default(&o);
    o.hyb_k = 2;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_HYBDIA, A, &o, &err), &err);
    CHECK(F.param[0] == 2 && F.param[1] == 32);
    const int32_t *off = rvs_fmt_array(&F, "offsets")->data;
    const double *dv = rvs_fmt_array(&F, "dia_val")->data;
    CHECK(off[0] == 0 && off[1] == 1);
    static const double data[4][2] = {{3, 0}, {1, 4}, {2, 8}, {7, 0}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++)
            CHECKF(dv[k * 32 + i] == data[i][k], "dia (%d, %d) = %g", i, k, dv[k * 32 + i]);
    check_coo(&F, (const int[]){3, 4}, (const int[]){1, 2}, (const double[]){6, 5}, 2);
    check_spmv(&F);
    rvs_fmt_free(&F);
}

int main(void)
{
    rvs_csr A = {0};
    golden_matrix(&A);
    test_ell_coo(&A);
    test_dia_coo(&A);
    rvs_csr_free(&A);
    return rvs_test_done();
}
