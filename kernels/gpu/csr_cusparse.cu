/* csr_cusparse.cu - cuSPARSE's CSR SpMV (ALG1) as one of the CSR kernels (RVS_CSR_CUSPARSE): the
 * advisor's floor, so that auto is never slower than the library a user would call instead. A
 * block uploaded for it (param RVS_CSR_ORDER = RVS_CSR_ORDER_CUSPARSE) keeps its rows in order,
 * its row pointers narrowed to 32 bits (cuSPARSE takes no 64-bit offsets with 32-bit columns),
 * a matrix descriptor, the SpMV buffer and room for its rows of y (a block whose rows a row map
 * scatters: cuSPARSE writes them there, a small kernel puts them), made once here so that a
 * launch allocates nothing and can be captured in a CUDA graph. */
#include <pthread.h>
#include <stdlib.h>
#include <cusparse.h>
#include "gpu_internal.cuh"

typedef struct {
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    void *buf;
    void *rows_y; /* the block's rows of y, for a row map cuSPARSE does not take (scattered below) */
} sp_state;

static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static cusparseHandle_t handle_of[64]; /* one per device, made on first use, kept for the process */

/* The process's cuSPARSE handle for the current device. */
static rvs_status sp_handle(cusparseHandle_t *h, rvs_error *err)
{
    int dev = 0;
    cudaGetDevice(&dev);
    if (dev < 0 || dev >= 64)
        return rvs_fail(err, RVS_ERR_DEVICE, "cuSPARSE: device %d out of range", dev);
    pthread_mutex_lock(&handle_lock);
    cusparseStatus_t s = CUSPARSE_STATUS_SUCCESS;
    if (!handle_of[dev])
        s = cusparseCreate(&handle_of[dev]);
    *h = handle_of[dev];
    pthread_mutex_unlock(&handle_lock);
    if (s != CUSPARSE_STATUS_SUCCESS)
        return rvs_fail(err, RVS_ERR_DEVICE, "cuSPARSE: cusparseCreate: %s", cusparseGetErrorString(s));
    return RVS_OK;
}

static void sp_free(void *p)
{
    sp_state *S = (sp_state *)p;
    if (S->A)
        cusparseDestroySpMat(S->A);
    if (S->x)
        cusparseDestroyDnVec(S->x);
    if (S->y)
        cusparseDestroyDnVec(S->y);
    cudaFree(S->buf);
    cudaFree(S->rows_y);
    free(S);
}

template <typename T>
__global__ void csr_sp_scatter(int64_t rows, const T *__restrict__ t, rvs_ymap ym, T *__restrict__ y)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows)
        rvs_y_put(ym, y, i, t[i]);
}

__global__ void csr_rp_to32(int64_t n, const int64_t *__restrict__ rp, int32_t *__restrict__ out)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (int32_t)rp[i];
}

#define SP_TRY(call)                                                                                    \
    do {                                                                                                \
        cusparseStatus_t s_ = (call);                                                                   \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                            \
            rvs_status st_ = rvs_fail(err, RVS_ERR_DEVICE, "cuSPARSE: %s", cusparseGetErrorString(s_)); \
            sp_free(S);                                                                                 \
            return st_;                                                                                 \
        }                                                                                               \
    } while (0)

extern "C" rvs_status rvs_gpu_csr_cusparse_prepare(rvs_gpu_fmt *G, rvs_error *err)
{
    cusparseHandle_t h;
    rvs_array *rp = (rvs_array *)rvs_gpu_array(G, "rowptr");
    const rvs_array *ci = rvs_gpu_array(G, "colind"), *va = rvs_gpu_array(G, "values");
    if (G->nnz > INT32_MAX || G->rows > INT32_MAX || G->cols > INT32_MAX || rvs_vtype_is_complex(G->vtype))
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "csr: the cuSPARSE kernel takes real blocks of fewer than 2^31 "
                        "rows, columns and entries");
    if (!rp || (G->nnz > 0 && (!ci || !va)))
        return rvs_fail(err, RVS_ERR_FORMAT, "csr: device arrays missing");
    rvs_status st = sp_handle(&h, err);
    if (st != RVS_OK)
        return st;
    if (rp->dtype == RVS_DT_I64) { /* 32-bit row pointers: 4 bytes a row less, and what cuSPARSE takes */
        void *d = NULL;
        if ((st = rvs_gpu_malloc(&d, (size_t)(G->rows + 1) * sizeof(int32_t), err)) != RVS_OK)
            return st;
        csr_rp_to32<<<rvs_gpu_blocks(G->rows + 1, 256), 256>>>(G->rows + 1, (const int64_t *)rp->data,
                                                               (int32_t *)d);
        RVS_CUDA_LAUNCHED(err);
        rvs_gpu_free(rp->data);
        rp->data = d;
        rp->dtype = RVS_DT_I32;
    }
    sp_state *S = (sp_state *)calloc(1, sizeof *S);
    if (!S)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    const cudaDataType t = G->vtype == RVS_F64 ? CUDA_R_64F : CUDA_R_32F;
    /* the vectors' pointers are set at each launch; any device address of the right type serves here */
    void *any = G->nnz > 0 ? va->data : rp->data;
    SP_TRY(cusparseCreateCsr(&S->A, G->rows, G->cols, G->nnz, rp->data, G->nnz > 0 ? ci->data : rp->data,
                             G->nnz > 0 ? va->data : any, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, t));
    SP_TRY(cusparseCreateDnVec(&S->x, G->cols, any, t));
    SP_TRY(cusparseCreateDnVec(&S->y, G->rows, any, t));
    size_t bytes = 0;
    const double one = 1, zero = 0;
    const float onef = 1, zerof = 0;
    const void *alpha = G->vtype == RVS_F64 ? (const void *)&one : (const void *)&onef;
    const void *beta = G->vtype == RVS_F64 ? (const void *)&zero : (const void *)&zerof;
    SP_TRY(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, S->A, S->x, beta, S->y, t,
                                   CUSPARSE_SPMV_CSR_ALG1, &bytes));
    if (cudaMalloc(&S->buf, bytes ? bytes : 16) != cudaSuccess ||
        cudaMalloc(&S->rows_y, (size_t)(G->rows ? G->rows : 1) * rvs_vtype_size(G->vtype)) != cudaSuccess) {
        sp_free(S);
        cudaGetLastError();
        return rvs_fail(err, RVS_ERR_NOMEM, "out of device memory for cuSPARSE's buffer");
    }
    G->aux = S;
    G->aux_free = sp_free;
    return RVS_OK;
}

extern "C" rvs_status rvs_gpu_csr_cusparse_spmv(const rvs_gpu_fmt *G, const void *dx, void *dy, void *stream,
                                                rvs_error *err)
{
    sp_state *S = (sp_state *)G->aux;
    cusparseHandle_t h;
    if (!S)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "csr: the cuSPARSE kernel reads a block uploaded for it "
                        "(csr-kernel=cusparse when it is built)");
    rvs_status st = sp_handle(&h, err);
    if (st != RVS_OK)
        return st;
    const size_t vs = rvs_vtype_size(G->vtype);
    /* a run of rows of y straight from cuSPARSE (beta 1 adds); scattered rows through rows_y */
    const bool direct = !G->ymap.map && !G->ymap.inner;
    const double one = 1, beta64 = direct && G->ymap.accumulate ? 1 : 0;
    const float onef = 1, beta32 = direct && G->ymap.accumulate ? 1 : 0;
    const cudaDataType t = G->vtype == RVS_F64 ? CUDA_R_64F : CUDA_R_32F;
    cusparseStatus_t s = cusparseSetStream(h, rvs_gpu_stream(stream));
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseDnVecSetValues(S->x, (void *)dx);
    if (s == CUSPARSE_STATUS_SUCCESS)
        s = cusparseDnVecSetValues(S->y, direct ? (char *)dy + (size_t)G->ymap.base * vs : S->rows_y);
    if (s == CUSPARSE_STATUS_SUCCESS && G->rows > 0)
        s = cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                         G->vtype == RVS_F64 ? (const void *)&one : (const void *)&onef, S->A, S->x,
                         G->vtype == RVS_F64 ? (const void *)&beta64 : (const void *)&beta32, S->y, t,
                         CUSPARSE_SPMV_CSR_ALG1, S->buf);
    if (s != CUSPARSE_STATUS_SUCCESS)
        return rvs_fail(err, RVS_ERR_DEVICE, "cuSPARSE: cusparseSpMV: %s", cusparseGetErrorString(s));
    if (direct || G->rows == 0)
        return RVS_OK;
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    const unsigned grid = rvs_gpu_blocks(G->rows, 256);
    if (G->vtype == RVS_F64)
        csr_sp_scatter<double>
            <<<grid, 256, 0, rvs_gpu_stream(stream)>>>(G->rows, (const double *)S->rows_y, ym, (double *)dy);
    else
        csr_sp_scatter<float>
            <<<grid, 256, 0, rvs_gpu_stream(stream)>>>(G->rows, (const float *)S->rows_y, ym, (float *)dy);
    RVS_CUDA_LAUNCHED(err);
    return RVS_OK;
}
