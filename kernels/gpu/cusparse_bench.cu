/* cusparse_bench.cu - the yardsticks of GPU figures: cuSPARSE SpMV on the same matrix, the
 * device-to-device copy bandwidth, and CUDA-event timing of our kernels */
#include <stdlib.h>
#include <string.h>
#include <cusparse.h>
#include "gpu_internal.cuh"
#include "rvs_cusparse.h"

#define SP_TRY(call)                                                                         \
    do {                                                                                     \
        cusparseStatus_t s_ = (call);                                                        \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                 \
            st = rvs_fail(err, RVS_ERR_DEVICE, "%s: %s", #call, cusparseGetErrorString(s_)); \
            goto done;                                                                       \
        }                                                                                    \
    } while (0)

/* "csr-alg1", "csr-alg2" or "coo-alg1". */
extern "C" const char *rvs_cusparse_alg_name(rvs_cusparse_alg alg)
{
    switch (alg) {
    case RVS_CUSPARSE_CSR_ALG1: return "csr-alg1";
    case RVS_CUSPARSE_CSR_ALG2: return "csr-alg2";
    case RVS_CUSPARSE_COO_ALG1: return "coo-alg1";
    }
    return "?";
}

/* Ascending order of doubles, for qsort. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n >= 1 values (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Host index arrays for cuSPARSE: 32-bit when every index and nnz fit, else 64-bit.
 * rowptr32 / rowind (COO) / colind are malloc'd into *out (NULL when A's own array serves). */
typedef struct {
    int wide;     /* 64-bit indices */
    void *rowptr; /* rows + 1 (CSR) */
    void *rowind; /* nnz (COO) */
    void *colind; /* nnz */
    void *own[3]; /* what to free */
} host_index;

/* Fill H from A for the layout alg needs. */
static rvs_status host_index_build(host_index *H, const rvs_csr *A, int coo, rvs_error *err)
{
    size_t w;
    memset(H, 0, sizeof *H);
    H->wide = A->nnz > INT32_MAX || A->rows > INT32_MAX || A->colind == NULL;
    w = H->wide ? 8 : 4;
    H->own[0] = H->rowptr = malloc((size_t)(A->rows + 1) * w);
    H->own[1] = H->rowind = coo ? malloc((size_t)A->nnz * w + 1) : NULL;
    H->colind = H->wide ? (A->colind64 ? (void *)A->colind64 : (H->own[2] = malloc((size_t)A->nnz * 8 + 1)))
                        : (void *)A->colind;
    if (!H->rowptr || (coo && !H->rowind) || !H->colind)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for cuSPARSE indices");
    for (int64_t i = 0; i <= A->rows; i++) {
        if (H->wide)
            ((int64_t *)H->rowptr)[i] = A->rowptr[i];
        else
            ((int32_t *)H->rowptr)[i] = (int32_t)A->rowptr[i];
    }
    for (int64_t i = 0; coo && i < A->rows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            if (H->wide)
                ((int64_t *)H->rowind)[p] = i;
            else
                ((int32_t *)H->rowind)[p] = (int32_t)i;
        }
    if (H->own[2])
        for (int64_t p = 0; p < A->nnz; p++)
            ((int64_t *)H->own[2])[p] = A->colind[p];
    return RVS_OK;
}

/* Free what host_index_build allocated. */
static void host_index_free(host_index *H)
{
    for (int i = 0; i < 3; i++)
        free(H->own[i]);
    memset(H, 0, sizeof *H);
}

/* Upload bytes of src into a new device buffer *d. */
static rvs_status upload(void **d, const void *src, size_t bytes, rvs_error *err)
{
    rvs_status st = rvs_gpu_malloc(d, bytes, err);
    return st != RVS_OK ? st : rvs_gpu_memcpy_h2d(*d, src, bytes, err);
}

/* y = A*x with cuSPARSE; median time of iters runs after one warm-up. */
extern "C" rvs_status rvs_cusparse_spmv(const rvs_csr *A, rvs_cusparse_alg alg, const void *x, void *y, int iters,
                                        double *ms, rvs_error *err)
{
    rvs_status st = RVS_OK;
    host_index H = {};
    cusparseHandle_t h = NULL;
    cusparseSpMatDescr_t mat = NULL;
    cusparseDnVecDescr_t vx = NULL, vy = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    void *drp = NULL, *dri = NULL, *dci = NULL, *dva = NULL, *dx = NULL, *dy = NULL, *buf = NULL;
    double *t = NULL;
    size_t vs = rvs_vtype_size(A->vtype), w, bufsize = 0;
    int coo = alg == RVS_CUSPARSE_COO_ALG1;
    cudaDataType vt = A->vtype == RVS_F64 ? CUDA_R_64F : CUDA_R_32F;
    cusparseIndexType_t it;
    cusparseSpMVAlg_t a = alg == RVS_CUSPARSE_CSR_ALG1   ? CUSPARSE_SPMV_CSR_ALG1
                          : alg == RVS_CUSPARSE_CSR_ALG2 ? CUSPARSE_SPMV_CSR_ALG2
                                                         : CUSPARSE_SPMV_COO_ALG1;
    double one64 = 1, zero64 = 0;
    float one32 = 1, zero32 = 0;
    const void *alpha = A->vtype == RVS_F64 ? (const void *)&one64 : (const void *)&one32;
    const void *beta = A->vtype == RVS_F64 ? (const void *)&zero64 : (const void *)&zero32;

    *ms = 0;
    if (rvs_gpu_count() == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable GPU for cuSPARSE");
    if (iters < 1)
        iters = 1;
    t = (double *)malloc((size_t)iters * sizeof *t);
    if (!t)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    RVS_GO(host_index_build(&H, A, coo, err));
    w = H.wide ? 8 : 4;
    it = H.wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    RVS_GO(upload(&dci, H.colind, (size_t)A->nnz * w, err));
    RVS_GO(upload(&dva, A->values, (size_t)A->nnz * vs, err));
    RVS_GO(upload(&dx, x, (size_t)A->cols * vs, err));
    RVS_GO(rvs_gpu_malloc(&dy, (size_t)A->rows * vs, err));
    SP_TRY(cusparseCreate(&h));
    if (coo) {
        RVS_GO(upload(&dri, H.rowind, (size_t)A->nnz * w, err));
        SP_TRY(cusparseCreateCoo(&mat, A->rows, A->cols, A->nnz, dri, dci, dva, it, CUSPARSE_INDEX_BASE_ZERO, vt));
    } else {
        RVS_GO(upload(&drp, H.rowptr, (size_t)(A->rows + 1) * w, err));
        SP_TRY(
            cusparseCreateCsr(&mat, A->rows, A->cols, A->nnz, drp, dci, dva, it, it, CUSPARSE_INDEX_BASE_ZERO, vt));
    }
    SP_TRY(cusparseCreateDnVec(&vx, A->cols, dx, vt));
    SP_TRY(cusparseCreateDnVec(&vy, A->rows, dy, vt));
    SP_TRY(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat, vx, beta, vy, vt, a, &bufsize));
    RVS_GO(rvs_gpu_malloc(&buf, bufsize, err));
    SP_TRY(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat, vx, beta, vy, vt, a, buf));
    SP_TRY(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat, vx, beta, vy, vt, a, buf));
    RVS_CUDA_GO(cudaDeviceSynchronize());
    RVS_CUDA_GO(cudaEventCreate(&e0));
    RVS_CUDA_GO(cudaEventCreate(&e1));
    for (int i = 0; i < iters; i++) {
        float f;
        RVS_CUDA_GO(cudaEventRecord(e0, 0));
        SP_TRY(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat, vx, beta, vy, vt, a, buf));
        RVS_CUDA_GO(cudaEventRecord(e1, 0));
        RVS_CUDA_GO(cudaEventSynchronize(e1));
        RVS_CUDA_GO(cudaEventElapsedTime(&f, e0, e1));
        t[i] = f;
    }
    *ms = median(t, iters);
    RVS_GO(rvs_gpu_memcpy_d2h(y, dy, (size_t)A->rows * vs, err));
done:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (vx)
        cusparseDestroyDnVec(vx);
    if (vy)
        cusparseDestroyDnVec(vy);
    if (mat)
        cusparseDestroySpMat(mat);
    if (h)
        cusparseDestroy(h);
    rvs_gpu_free(buf);
    rvs_gpu_free(drp);
    rvs_gpu_free(dri);
    rvs_gpu_free(dci);
    rvs_gpu_free(dva);
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    host_index_free(&H);
    free(t);
    return st;
}

/* Copy bandwidth: 2 * bytes per cudaMemcpy D2D, median of iters after one warm-up. */
extern "C" rvs_status rvs_gpu_copy_bandwidth(size_t bytes, int iters, double *gbs, rvs_error *err)
{
    rvs_status st = RVS_OK;
    void *src = NULL, *dst = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = NULL;
    size_t mem_free = 0, mem_total = 0;

    *gbs = 0;
    if (rvs_gpu_count() == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable GPU");
    if (iters < 1)
        iters = 1;
    if (bytes == 0)
        bytes = (size_t)1 << 30;
    t = (double *)malloc((size_t)iters * sizeof *t);
    if (!t)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    RVS_CUDA_GO(cudaMemGetInfo(&mem_free, &mem_total));
    while (bytes > ((size_t)1 << 20) && 2 * bytes > mem_free / 5 * 4)
        bytes /= 2;
    RVS_GO(rvs_gpu_malloc(&src, bytes, err));
    RVS_GO(rvs_gpu_malloc(&dst, bytes, err));
    RVS_CUDA_GO(cudaMemset(src, 1, bytes));
    RVS_CUDA_GO(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    RVS_CUDA_GO(cudaEventCreate(&e0));
    RVS_CUDA_GO(cudaEventCreate(&e1));
    for (int i = 0; i < iters; i++) {
        float f;
        RVS_CUDA_GO(cudaEventRecord(e0, 0));
        RVS_CUDA_GO(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
        RVS_CUDA_GO(cudaEventRecord(e1, 0));
        RVS_CUDA_GO(cudaEventSynchronize(e1));
        RVS_CUDA_GO(cudaEventElapsedTime(&f, e0, e1));
        t[i] = f;
    }
    *gbs = 2.0 * (double)bytes / (median(t, iters) * 1e-3) / 1e9;
done:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    rvs_gpu_free(src);
    rvs_gpu_free(dst);
    free(t);
    return st;
}

/* One rvs_gpu_spmv between two events on the default stream, waited for. */
extern "C" rvs_status rvs_gpu_spmv_timed(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *tune,
                                         double *ms, rvs_error *err)
{
    rvs_status st = RVS_OK;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float f = 0;
    *ms = 0;
    RVS_CUDA_GO(cudaEventCreate(&e0));
    RVS_CUDA_GO(cudaEventCreate(&e1));
    RVS_CUDA_GO(cudaEventRecord(e0, 0));
    RVS_GO(rvs_gpu_spmv(G, dx, dy, tune, NULL, err));
    RVS_CUDA_GO(cudaEventRecord(e1, 0));
    RVS_CUDA_GO(cudaEventSynchronize(e1));
    RVS_CUDA_GO(cudaEventElapsedTime(&f, e0, e1));
    *ms = f;
done:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    return st;
}
