/* spgemm_graphblas.c - the CPU baseline: SuiteSparse:GraphBLAS GrB_mxm (when built with it) */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_spgemm.h"

#ifdef RVS_HAVE_GRAPHBLAS
#include <GraphBLAS.h>

/* A as a GraphBLAS matrix of its own vtype (indices copied to GrB_Index). */
static GrB_Info import_csr(GrB_Matrix *M, const rvs_csr *A)
{
    GrB_Index *p = malloc((size_t)(A->rows + 1) * sizeof *p);
    GrB_Index *c = malloc((size_t)A->nnz * sizeof *c + 1);
    GrB_Info info = GrB_OUT_OF_MEMORY;
    if (p && c) {
        for (int64_t i = 0; i <= A->rows; i++)
            p[i] = (GrB_Index)A->rowptr[i];
        for (int64_t e = 0; e < A->nnz; e++)
            c[e] = (GrB_Index)rvs_csr_col(A, e);
        if (A->vtype == RVS_F64)
            info = GrB_Matrix_import_FP64(M, GrB_FP64, A->rows, A->cols, p, c, A->values, A->rows + 1, A->nnz,
                                          A->nnz, GrB_CSR_FORMAT);
        else
            info = GrB_Matrix_import_FP32(M, GrB_FP32, A->rows, A->cols, p, c, A->values, A->rows + 1, A->nnz,
                                          A->nnz, GrB_CSR_FORMAT);
    }
    free(p);
    free(c);
    return info;
}

/* C (of vt) from a GraphBLAS matrix. */
static rvs_status export_csr(rvs_csr *C, GrB_Matrix M, int64_t rows, int64_t cols, rvs_vtype vt, rvs_error *err)
{
    GrB_Index np = 0, ni = 0, nx = 0;
    GrB_Index *p = NULL, *c = NULL;
    void *x = NULL;
    rvs_status st = RVS_OK;
    if (GrB_Matrix_exportSize(&np, &ni, &nx, GrB_CSR_FORMAT, M) != GrB_SUCCESS)
        return rvs_fail(err, RVS_ERR_INTERNAL, "GrB_Matrix_exportSize failed");
    p = malloc(np * sizeof *p + 1);
    c = malloc(ni * sizeof *c + 1);
    x = malloc(nx * rvs_vtype_size(vt) + 1);
    GrB_Info info = GrB_OUT_OF_MEMORY;
    if (p && c && x)
        info = vt == RVS_F64 ? GrB_Matrix_export_FP64(p, c, x, &np, &ni, &nx, GrB_CSR_FORMAT, M)
                             : GrB_Matrix_export_FP32(p, c, x, &np, &ni, &nx, GrB_CSR_FORMAT, M);
    if (info != GrB_SUCCESS) {
        st = rvs_fail(err, RVS_ERR_INTERNAL, "GrB_Matrix_export failed (%d)", (int)info);
        goto done;
    }
    if ((st = rvs_csr_alloc(C, rows, cols, (int64_t)p[rows], vt, err)) != RVS_OK)
        goto done;
    for (int64_t i = 0; i <= rows; i++)
        C->rowptr[i] = (int64_t)p[i];
    for (int64_t e = 0; e < C->nnz; e++)
        C->colind[e] = (int32_t)c[e];
    memcpy(C->values, x, (size_t)C->nnz * rvs_vtype_size(vt));
done:
    free(p);
    free(c);
    free(x);
    return st;
}

/* C = A*B with GrB_mxm. */
rvs_status rvs_spgemm_graphblas(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds, rvs_error *err)
{
    static int initialised;
    GrB_Matrix GA = NULL, GB = NULL, GC = NULL;
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    if (C)
        memset(C, 0, sizeof *C);
    if (st != RVS_OK)
        return st;
    if (rvs_vtype_is_complex(A->vtype))
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "the GraphBLAS baseline is real-valued");
    if (!initialised) {
        if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS)
            return rvs_fail(err, RVS_ERR_INTERNAL, "GrB_init failed");
        initialised = 1;
    }
    GxB_set(GxB_NTHREADS, omp_get_max_threads());
    GrB_Type t = A->vtype == RVS_F64 ? GrB_FP64 : GrB_FP32;
    GrB_Semiring s = A->vtype == RVS_F64 ? GrB_PLUS_TIMES_SEMIRING_FP64 : GrB_PLUS_TIMES_SEMIRING_FP32;
    if (import_csr(&GA, A) != GrB_SUCCESS || import_csr(&GB, B) != GrB_SUCCESS ||
        GrB_Matrix_new(&GC, t, A->rows, B->cols) != GrB_SUCCESS) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "GraphBLAS could not import A and B");
        goto done;
    }
    GrB_wait(GA, GrB_MATERIALIZE);
    GrB_wait(GB, GrB_MATERIALIZE);
    double t0 = omp_get_wtime();
    if (GrB_mxm(GC, NULL, NULL, s, GA, GB, NULL) != GrB_SUCCESS || GrB_wait(GC, GrB_MATERIALIZE) != GrB_SUCCESS) {
        st = rvs_fail(err, RVS_ERR_INTERNAL, "GrB_mxm failed");
        goto done;
    }
    if (seconds)
        *seconds = omp_get_wtime() - t0;
    if (C)
        st = export_csr(C, GC, A->rows, B->cols, A->vtype, err);
done:
    GrB_Matrix_free(&GA);
    GrB_Matrix_free(&GB);
    GrB_Matrix_free(&GC);
    return st;
}

#else

/* Built without GraphBLAS. */
rvs_status rvs_spgemm_graphblas(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, double *seconds, rvs_error *err)
{
    (void)A;
    (void)B;
    if (C)
        memset(C, 0, sizeof *C);
    if (seconds)
        *seconds = 0;
    return rvs_fail(err, RVS_ERR_UNSUPPORTED, "this rvskit was built without GraphBLAS");
}

#endif
