/* spgemm_cusparse.cu - the GPU baseline: cuSPARSE SpGEMM (ALG1, else ALG2, else ALG3), timed
 * kernel-only and end-to-end from host CSR to host CSR */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cusparse.h>
#include "gpu_internal.cuh"
#include "../cpu/rvs_spgemm.h"

/* A cuSPARSE failure; running out of resources is reported as RVS_ERR_NOMEM so that the
 * caller can try the next algorithm. */
#define GO_SP(call)                                                                           \
    do {                                                                                      \
        cusparseStatus_t s_ = (call);                                                         \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                  \
            st = rvs_fail(err, s_ == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES ||                \
                                   s_ == CUSPARSE_STATUS_ALLOC_FAILED ? RVS_ERR_NOMEM         \
                                                                      : RVS_ERR_DEVICE,       \
                          "%s: %s", #call, cusparseGetErrorString(s_));                       \
            goto done;                                                                        \
        }                                                                                     \
    } while (0)

/* A CSR on the device with 32-bit row offsets, as cuSPARSE SpGEMM wants. */
typedef struct {
    int32_t *rowptr, *colind;
    void *values;
    cusparseSpMatDescr_t descr;
} dev_csr;

/* Upload A (row offsets narrowed to 32 bits on the host). */
static rvs_status upload(dev_csr *d, const rvs_csr *A, cudaDataType dt, rvs_error *err)
{
    rvs_status st = RVS_OK;
    size_t vs = rvs_vtype_size(A->vtype);
    int32_t *rp = (int32_t *)malloc((size_t)(A->rows + 1) * 4);
    if (!rp)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i <= A->rows; i++)
        rp[i] = (int32_t)A->rowptr[i];
    RVS_CUDA_GO(cudaMalloc((void **)&d->rowptr, (size_t)(A->rows + 1) * 4));
    RVS_CUDA_GO(cudaMalloc((void **)&d->colind, (size_t)A->nnz * 4 + 4));
    RVS_CUDA_GO(cudaMalloc(&d->values, (size_t)A->nnz * vs + vs));
    RVS_CUDA_GO(cudaMemcpy(d->rowptr, rp, (size_t)(A->rows + 1) * 4, cudaMemcpyHostToDevice));
    RVS_CUDA_GO(cudaMemcpy(d->colind, A->colind, (size_t)A->nnz * 4, cudaMemcpyHostToDevice));
    RVS_CUDA_GO(cudaMemcpy(d->values, A->values, (size_t)A->nnz * vs, cudaMemcpyHostToDevice));
    GO_SP(cusparseCreateCsr(&d->descr, A->rows, A->cols, A->nnz, d->rowptr, d->colind, d->values,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
done:
    free(rp);
    return st;
}

static void release(dev_csr *d)
{
    if (d->descr)
        cusparseDestroySpMat(d->descr);
    cudaFree(d->rowptr);
    cudaFree(d->colind);
    cudaFree(d->values);
    memset(d, 0, sizeof *d);
}

/* Device memory in use now (for the peak). */
static size_t used_bytes(void)
{
    size_t f = 0, t = 0;
    return cudaMemGetInfo(&f, &t) == cudaSuccess ? t - f : 0;
}

/* One SpGEMM with algorithm alg (1..3) into Cd (which gets its arrays). */
static rvs_status run_alg(cusparseHandle_t h, int alg, dev_csr *Ad, dev_csr *Bd, dev_csr *Cd,
                          int64_t rows, cudaDataType dt, size_t *peak, rvs_error *err)
{
    rvs_status st = RVS_OK;
    const cusparseSpGEMMAlg_t a = alg == 1 ? CUSPARSE_SPGEMM_ALG1
                                : alg == 2 ? CUSPARSE_SPGEMM_ALG2 : CUSPARSE_SPGEMM_ALG3;
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    double one64 = 1, zero64 = 0;
    float one32 = 1, zero32 = 0;
    const void *alpha = dt == CUDA_R_64F ? (const void *)&one64 : (const void *)&one32;
    const void *beta = dt == CUDA_R_64F ? (const void *)&zero64 : (const void *)&zero32;
    cusparseSpGEMMDescr_t sd = NULL;
    void *buf1 = NULL, *buf2 = NULL, *buf3 = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0, u = 0;
    int64_t crows = 0, ccols = 0, cnnz = 0, nprod = 0;
    GO_SP(cusparseSpGEMM_createDescr(&sd));
    GO_SP(cusparseSpGEMM_workEstimation(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt,
                                        a, sd, &n1, NULL));
    RVS_CUDA_GO(cudaMalloc(&buf1, n1 ? n1 : 1));
    GO_SP(cusparseSpGEMM_workEstimation(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt,
                                        a, sd, &n1, buf1));
    if (alg == 1) {
        GO_SP(cusparseSpGEMM_compute(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a,
                                     sd, &n2, NULL));
    } else {   /* ALG2/ALG3 size their buffer from an estimate (chunk fraction for ALG3) */
        GO_SP(cusparseSpGEMM_getNumProducts(sd, &nprod));
        GO_SP(cusparseSpGEMM_estimateMemory(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr,
                                            dt, a, sd, 0.2f, &n3, NULL, NULL));
        RVS_CUDA_GO(cudaMalloc(&buf3, n3 ? n3 : 1));
        GO_SP(cusparseSpGEMM_estimateMemory(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr,
                                            dt, a, sd, 0.2f, &n3, buf3, &n2));
        cudaFree(buf3);
        buf3 = NULL;
    }
    RVS_CUDA_GO(cudaMalloc(&buf2, n2 ? n2 : 1));
    GO_SP(cusparseSpGEMM_compute(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd,
                                 &n2, buf2));
    GO_SP(cusparseSpMatGetSize(Cd->descr, &crows, &ccols, &cnnz));
    RVS_CUDA_GO(cudaMalloc((void **)&Cd->rowptr, (size_t)(rows + 1) * 4));
    RVS_CUDA_GO(cudaMalloc((void **)&Cd->colind, (size_t)cnnz * 4 + 4));
    RVS_CUDA_GO(cudaMalloc(&Cd->values, (size_t)cnnz * (dt == CUDA_R_64F ? 8 : 4) + 8));
    GO_SP(cusparseCsrSetPointers(Cd->descr, Cd->rowptr, Cd->colind, Cd->values));
    GO_SP(cusparseSpGEMM_copy(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd));
    RVS_CUDA_GO(cudaDeviceSynchronize());
    u = used_bytes();
    if (u > *peak)
        *peak = u;
done:
    cudaFree(buf1);
    cudaFree(buf2);
    cudaFree(buf3);
    if (sd)
        cusparseSpGEMM_destroyDescr(sd);
    (void)nprod;
    return st;
}

/* cuSPARSE SpGEMM, kernel-only and end-to-end. */
extern "C" rvs_status rvs_spgemm_cusparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                          double *kernel_s, double *total_s, int *alg,
                                          size_t *peak_bytes, rvs_error *err)
{
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    cusparseHandle_t h = NULL;
    dev_csr Ad, Bd, Cd;
    cudaDataType dt = A->vtype == RVS_F64 ? CUDA_R_64F : CUDA_R_32F;
    size_t base = 0, peak = 0, vs = rvs_vtype_size(A->vtype);
    int32_t *rp = NULL;
    double t0 = 0, tk0 = 0, tk1 = 0;
    int used = 0;
    memset(&Ad, 0, sizeof Ad);
    memset(&Bd, 0, sizeof Bd);
    memset(&Cd, 0, sizeof Cd);
    if (C)
        memset(C, 0, sizeof *C);
    if (st != RVS_OK)
        return st;
    if (rvs_gpu_count() == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable CUDA device");
    if (A->nnz > INT32_MAX || B->nnz > INT32_MAX || A->rows >= INT32_MAX || B->rows >= INT32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "cuSPARSE baseline: more than 2^31-1 entries");
    GO_SP(cusparseCreate(&h));   /* library set-up is not part of either time */
    RVS_CUDA_GO(cudaDeviceSynchronize());
    base = used_bytes();
    t0 = omp_get_wtime();
    RVS_GO(upload(&Ad, A, dt, err));
    RVS_GO(upload(&Bd, B, dt, err));
    RVS_CUDA_GO(cudaDeviceSynchronize());
    tk0 = omp_get_wtime();
    for (int a = 1; a <= 3; a++) {
        if (Cd.descr)
            release(&Cd);
        GO_SP(cusparseCreateCsr(&Cd.descr, A->rows, B->cols, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
        st = run_alg(h, a, &Ad, &Bd, &Cd, A->rows, dt, &peak, err);
        used = a;
        if (st != RVS_ERR_NOMEM)
            break;
        cudaGetLastError();   /* clear a failed allocation before the next algorithm */
    }
    if (st != RVS_OK)
        goto done;
    tk1 = omp_get_wtime();
    {
        int64_t crows = 0, ccols = 0, cnnz = 0;
        GO_SP(cusparseSpMatGetSize(Cd.descr, &crows, &ccols, &cnnz));
        rp = (int32_t *)malloc((size_t)(A->rows + 1) * 4);
        if (!rp) {
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
            goto done;
        }
        rvs_csr tmp, *R = C ? C : &tmp;
        RVS_GO(rvs_csr_alloc(R, A->rows, B->cols, cnnz, A->vtype, err));
        RVS_CUDA_GO(cudaMemcpy(rp, Cd.rowptr, (size_t)(A->rows + 1) * 4, cudaMemcpyDeviceToHost));
        RVS_CUDA_GO(cudaMemcpy(R->colind, Cd.colind, (size_t)cnnz * 4, cudaMemcpyDeviceToHost));
        RVS_CUDA_GO(cudaMemcpy(R->values, Cd.values, (size_t)cnnz * vs, cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i <= A->rows; i++)
            R->rowptr[i] = rp[i];
        release(&Ad);
        release(&Bd);
        release(&Cd);
        if (!C)
            rvs_csr_free(R);
    }
    if (total_s)
        *total_s = omp_get_wtime() - t0;
    if (kernel_s)
        *kernel_s = tk1 - tk0;
    if (alg)
        *alg = used;
    if (peak_bytes)
        *peak_bytes = peak > base ? peak - base : 0;
done:
    release(&Ad);
    release(&Bd);
    release(&Cd);
    if (st != RVS_OK && C)
        rvs_csr_free(C);
    if (h)
        cusparseDestroy(h);
    free(rp);
    return st;
}
