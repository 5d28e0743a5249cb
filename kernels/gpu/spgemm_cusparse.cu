/* spgemm_cusparse.cu - the GPU baseline: cuSPARSE SpGEMM (ALG1, else ALG3), warm (handle created
 * and one untimed run first), medians of timed runs, kernel-only and end-to-end from host CSR to
 * host CSR. Device memory comes from the same stream-ordered pool as the row-wise SpGEMM's, kept
 * between runs, so neither side pays cudaMalloc in its timings. */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cusparse.h>
#include "gpu_internal.cuh"
#include "../cpu/rvs_spgemm.h"

/* A cuSPARSE failure; running out of resources is RVS_ERR_NOMEM so that the caller can try
 * the next algorithm. */
#define GO_SP(call)                                                                                          \
    do {                                                                                                     \
        cusparseStatus_t s_ = (call);                                                                        \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                                 \
            st = rvs_fail(err,                                                                               \
                          s_ == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES || s_ == CUSPARSE_STATUS_ALLOC_FAILED \
                              ? RVS_ERR_NOMEM                                                                \
                              : RVS_ERR_DEVICE,                                                              \
                          "%s: %s", #call, cusparseGetErrorString(s_));                                      \
            goto done;                                                                                       \
        }                                                                                                    \
    } while (0)

/* Device allocation from the pool; out of memory is RVS_ERR_NOMEM. */
#define GO_ALLOC(p, bytes)                                                                       \
    do {                                                                                         \
        size_t b_ = (bytes);                                                                     \
        cudaError_t e_ = cudaMallocAsync((void **)&(p), b_ ? b_ : 1, 0);                         \
        if (e_ != cudaSuccess) {                                                                 \
            cudaGetLastError();                                                                  \
            st = rvs_fail(err, e_ == cudaErrorMemoryAllocation ? RVS_ERR_NOMEM : RVS_ERR_DEVICE, \
                          "cudaMallocAsync(%zu): %s", b_, cudaGetErrorString(e_));               \
            goto done;                                                                           \
        }                                                                                        \
        *used += b_;                                                                             \
        if (*used > *peak)                                                                       \
            *peak = *used;                                                                       \
    } while (0)

/* A CSR on the device with 32-bit row offsets, as cuSPARSE SpGEMM wants. */
typedef struct {
    int32_t *rowptr, *colind;
    void *values;
    size_t bytes;
    cusparseSpMatDescr_t descr;
} dev_csr;

static void release(dev_csr *d, size_t *used)
{
    if (d->descr)
        cusparseDestroySpMat(d->descr);
    cudaFreeAsync(d->rowptr, 0);
    cudaFreeAsync(d->colind, 0);
    cudaFreeAsync(d->values, 0);
    *used -= d->bytes;
    memset(d, 0, sizeof *d);
}

/* Upload A (row offsets narrowed to 32 bits on the host). */
static rvs_status upload(dev_csr *d, const rvs_csr *A, cudaDataType dt, size_t *used, size_t *peak, rvs_error *err)
{
    rvs_status st = RVS_OK;
    const size_t vs = rvs_vtype_size(A->vtype);
    int32_t *rp = (int32_t *)malloc((size_t)(A->rows + 1) * 4);
    if (!rp)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i <= A->rows; i++)
        rp[i] = (int32_t)A->rowptr[i];
    d->bytes = (size_t)(A->rows + 1) * 4 + (size_t)A->nnz * (4 + vs);
    GO_ALLOC(d->rowptr, (size_t)(A->rows + 1) * 4);
    GO_ALLOC(d->colind, (size_t)A->nnz * 4);
    GO_ALLOC(d->values, (size_t)A->nnz * vs);
    RVS_CUDA_GO(cudaMemcpyAsync(d->rowptr, rp, (size_t)(A->rows + 1) * 4, cudaMemcpyHostToDevice, 0));
    RVS_CUDA_GO(cudaMemcpyAsync(d->colind, A->colind, (size_t)A->nnz * 4, cudaMemcpyHostToDevice, 0));
    RVS_CUDA_GO(cudaMemcpyAsync(d->values, A->values, (size_t)A->nnz * vs, cudaMemcpyHostToDevice, 0));
    GO_SP(cusparseCreateCsr(&d->descr, A->rows, A->cols, A->nnz, d->rowptr, d->colind, d->values,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
done:
    free(rp);
    return st;
}

/* One SpGEMM with algorithm alg (1 or 3) into Cd (which gets its arrays). */
static rvs_status run_alg(cusparseHandle_t h, int alg, const dev_csr *Ad, const dev_csr *Bd, dev_csr *Cd,
                          int64_t rows, cudaDataType dt, size_t *used, size_t *peak, rvs_error *err)
{
    rvs_status st = RVS_OK;
    const cusparseSpGEMMAlg_t a = alg == 1 ? CUSPARSE_SPGEMM_ALG1 : CUSPARSE_SPGEMM_ALG3;
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const size_t vs = dt == CUDA_R_64F ? 8 : 4;
    double one64 = 1, zero64 = 0;
    float one32 = 1, zero32 = 0;
    const void *alpha = dt == CUDA_R_64F ? (const void *)&one64 : (const void *)&one32;
    const void *beta = dt == CUDA_R_64F ? (const void *)&zero64 : (const void *)&zero32;
    cusparseSpGEMMDescr_t sd = NULL;
    void *buf1 = NULL, *buf2 = NULL, *buf3 = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0, held = 0;
    int64_t crows = 0, ccols = 0, cnnz = 0, nprod = 0;
    GO_SP(cusparseSpGEMM_createDescr(&sd));
    GO_SP(cusparseSpGEMM_workEstimation(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd, &n1,
                                        NULL));
    GO_ALLOC(buf1, n1);
    held += n1 ? n1 : 1;
    GO_SP(cusparseSpGEMM_workEstimation(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd, &n1,
                                        buf1));
    if (alg == 1) {
        GO_SP(
            cusparseSpGEMM_compute(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd, &n2, NULL));
    } else { /* ALG3 sizes its buffer from an estimate over chunks of 20% of the products */
        GO_SP(cusparseSpGEMM_getNumProducts(sd, &nprod));
        GO_SP(cusparseSpGEMM_estimateMemory(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd,
                                            0.2f, &n3, NULL, NULL));
        GO_ALLOC(buf3, n3);
        held += n3 ? n3 : 1;
        GO_SP(cusparseSpGEMM_estimateMemory(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd,
                                            0.2f, &n3, buf3, &n2));
        cudaFreeAsync(buf3, 0);
        buf3 = NULL;
        held -= n3 ? n3 : 1;
        *used -= n3 ? n3 : 1;
    }
    GO_ALLOC(buf2, n2);
    held += n2 ? n2 : 1;
    GO_SP(cusparseSpGEMM_compute(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd, &n2, buf2));
    GO_SP(cusparseSpMatGetSize(Cd->descr, &crows, &ccols, &cnnz));
    Cd->bytes = (size_t)(rows + 1) * 4 + (size_t)cnnz * (4 + vs);
    GO_ALLOC(Cd->rowptr, (size_t)(rows + 1) * 4);
    GO_ALLOC(Cd->colind, (size_t)cnnz * 4);
    GO_ALLOC(Cd->values, (size_t)cnnz * vs);
    GO_SP(cusparseCsrSetPointers(Cd->descr, Cd->rowptr, Cd->colind, Cd->values));
    GO_SP(cusparseSpGEMM_copy(h, op, op, alpha, Ad->descr, Bd->descr, beta, Cd->descr, dt, a, sd));
    RVS_CUDA_GO(cudaStreamSynchronize(0));
done:
    cudaFreeAsync(buf1, 0);
    cudaFreeAsync(buf2, 0);
    cudaFreeAsync(buf3, 0);
    *used -= held;
    if (sd)
        cusparseSpGEMM_destroyDescr(sd);
    (void)nprod;
    return st;
}

/* One run, host CSR to host CSR (R, when not NULL, gets C): *kernel_s the device part,
 * *total_s all of it. alg: 1 or 3. */
static rvs_status run_once(cusparseHandle_t h, int alg, rvs_csr *R, const rvs_csr *A, const rvs_csr *B,
                           double *kernel_s, double *total_s, size_t *peak, rvs_error *err)
{
    rvs_status st = RVS_OK;
    const cudaDataType dt = A->vtype == RVS_F64 ? CUDA_R_64F : CUDA_R_32F;
    const size_t vs = rvs_vtype_size(A->vtype);
    dev_csr Ad, Bd, Cd;
    rvs_csr tmp = {0}, *C = R ? R : &tmp;
    size_t used0 = 0, *used = &used0;
    int32_t *rp = NULL;
    const double t0 = omp_get_wtime();
    double tk0 = 0;
    memset(&Ad, 0, sizeof Ad);
    memset(&Bd, 0, sizeof Bd);
    memset(&Cd, 0, sizeof Cd);
    RVS_GO(upload(&Ad, A, dt, used, peak, err));
    if (B == A) { /* A*A: one upload, two descriptors */
        GO_SP(cusparseCreateCsr(&Bd.descr, A->rows, A->cols, A->nnz, Ad.rowptr, Ad.colind, Ad.values,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
    } else {
        RVS_GO(upload(&Bd, B, dt, used, peak, err));
    }
    RVS_CUDA_GO(cudaStreamSynchronize(0));
    tk0 = omp_get_wtime();
    GO_SP(cusparseCreateCsr(&Cd.descr, A->rows, B->cols, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
    RVS_GO(run_alg(h, alg, &Ad, &Bd, &Cd, A->rows, dt, used, peak, err));
    *kernel_s = omp_get_wtime() - tk0;
    {
        int64_t crows = 0, ccols = 0, cnnz = 0;
        GO_SP(cusparseSpMatGetSize(Cd.descr, &crows, &ccols, &cnnz));
        if (!(rp = (int32_t *)malloc((size_t)(A->rows + 1) * 4))) {
            st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
            goto done;
        }
        /* C's arrays as the row-wise method allocates them (huge pages): the same host cost */
        RVS_GO(rvs_csr_alloc(C, A->rows, B->cols, 0, A->vtype, err));
        RVS_GO(rvs_spgemm_alloc_entries(C, cnnz, err));
        RVS_CUDA_GO(cudaMemcpy(rp, Cd.rowptr, (size_t)(A->rows + 1) * 4, cudaMemcpyDeviceToHost));
        RVS_CUDA_GO(cudaMemcpy(C->colind, Cd.colind, (size_t)cnnz * 4, cudaMemcpyDeviceToHost));
        RVS_CUDA_GO(cudaMemcpy(C->values, Cd.values, (size_t)cnnz * vs, cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i <= A->rows; i++)
            C->rowptr[i] = rp[i];
    }
done:
    rvs_csr_free(&tmp);
    if (Bd.rowptr)
        release(&Bd, used);
    else if (Bd.descr)
        cusparseDestroySpMat(Bd.descr);
    release(&Ad, used);
    release(&Cd, used);
    cudaStreamSynchronize(0);
    *total_s = omp_get_wtime() - t0;
    free(rp);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* cuSPARSE SpGEMM, warm, medians of runs. */
extern "C" rvs_status rvs_spgemm_cusparse(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, int runs, int warm,
                                          double *kernel_s, double *total_s, int *alg, size_t *peak_bytes,
                                          rvs_error *err)
{
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    cusparseHandle_t h = NULL;
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    double *tk = NULL, *tt = NULL, k1 = 0, t1 = 0;
    size_t peak = 0;
    int dev = 0, used = 0;
    if (C)
        memset(C, 0, sizeof *C);
    if (alg)
        *alg = 0;
    if (st != RVS_OK)
        return st;
    if (rvs_vtype_is_complex(A->vtype))
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "the cuSPARSE baseline is real-valued");
    if (rvs_gpu_count() == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable CUDA device");
    if (A->nnz > INT32_MAX || B->nnz > INT32_MAX || A->rows >= INT32_MAX || B->rows >= INT32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "cuSPARSE baseline: more than 2^31-1 entries");
    if (runs < 1)
        runs = 1;
    tk = (double *)malloc((size_t)runs * sizeof *tk);
    tt = (double *)malloc((size_t)runs * sizeof *tt);
    if (!tk || !tt) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        goto done;
    }
    RVS_CUDA_GO(cudaGetDevice(&dev));
    RVS_CUDA_GO(cudaDeviceGetDefaultMemPool(&pool, dev));
    RVS_CUDA_GO(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    GO_SP(cusparseCreate(&h));
    for (int a = 1; a <= 3; a += 2) { /* the first (warm-up) run picks the algorithm */
        st = run_once(h, a, warm ? NULL : C, A, B, &k1, &t1, &peak, err);
        used = a;
        if (st != RVS_ERR_NOMEM)
            break;
        cudaGetLastError(); /* clear a failed allocation before the next algorithm */
    }
    if (st != RVS_OK)
        goto done;
    if (!warm) { /* one cold run is all (for inputs too large to repeat) */
        *kernel_s = k1;
        *total_s = t1;
        goto done;
    }
    for (int q = 0; q < runs && st == RVS_OK; q++)
        st = run_once(h, used, q == 0 ? C : NULL, A, B, &tk[q], &tt[q], &peak, err);
    if (st != RVS_OK)
        goto done;
    *kernel_s = median(tk, runs);
    *total_s = median(tt, runs);
done:
    if (alg)
        *alg = st == RVS_OK ? used : 0;
    if (peak_bytes)
        *peak_bytes = peak;
    if (st != RVS_OK && C)
        rvs_csr_free(C);
    if (h)
        cusparseDestroy(h);
    free(tk);
    free(tt);
    return st;
}
