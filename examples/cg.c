/* cg.c - conjugate gradients on a symmetric positive definite matrix with librvskit's SpMV
 * operator, and (built with CUDA, on a GPU) the same solve with cuSPARSE's CSR SpMV, so that the
 * two can be compared on the user's stopwatch: setup (the operator's choice of format, or
 * cuSPARSE's upload and buffer) and every iteration included. The vectors stay on the host in
 * both; only the products differ.
 *   cmake -S examples -B build-example -DCMAKE_PREFIX_PATH=PREFIX && cmake --build build-example
 *   ./cg A.mtx [ITERATIONS [TOLERANCE]]        (defaults 1000 and 1e-8) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rvskit/rvskit.h>
#if RVSKIT_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double dot(const double *a, const double *b, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* y = A x, by whatever the solve uses. */
typedef int (*product)(void *ctx, const double *x, double *y);

/* CG from x = 0 for A x = b: iterations done, the residual's norm relative to b's in *rel. */
static int cg(product Ax, void *ctx, const double *b, double *x, int64_t n, int maxit, double tol, double *rel)
{
    double *r = malloc((size_t)n * sizeof *r), *p = malloc((size_t)n * sizeof *p),
           *q = malloc((size_t)n * sizeof *q);
    memset(x, 0, (size_t)n * sizeof *x);
    memcpy(r, b, (size_t)n * sizeof *r);
    memcpy(p, b, (size_t)n * sizeof *p);
    const double bb = sqrt(dot(b, b, n));
    double rr = dot(r, r, n);
    int it = 0;
    for (; it < maxit && sqrt(rr) > tol * bb; it++) {
        if (Ax(ctx, p, q) != 0)
            break;
        const double alpha = rr / dot(p, q, n);
        for (int64_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        const double rr1 = dot(r, r, n), beta = rr1 / rr;
        rr = rr1;
        for (int64_t i = 0; i < n; i++)
            p[i] = r[i] + beta * p[i];
    }
    *rel = sqrt(rr) / (bb > 0 ? bb : 1);
    free(r);
    free(p);
    free(q);
    return it;
}

static int op_product(void *ctx, const double *x, double *y)
{
    rvs_error err;
    if (rvs_spmv_op_apply(ctx, x, y, &err) == RVS_OK)
        return 0;
    fprintf(stderr, "cg: rvskit: %s\n", err.msg);
    return 1;
}

#if RVSKIT_HAVE_CUDA
/* cuSPARSE's CSR SpMV (ALG1) as a user would call it: the matrix uploaded once with 32-bit
 * indices, x and y through the device at every product. */
typedef struct {
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy;
    double *dx, *dy;
    void *buf;
    int64_t rows, cols;
} sparse;

static int sparse_product(void *ctx, const double *x, double *y)
{
    sparse *s = ctx;
    const double one = 1, zero = 0;
    cudaMemcpy(s->dx, x, (size_t)s->cols * sizeof *x, cudaMemcpyHostToDevice);
    cusparseStatus_t st = cusparseSpMV(s->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->A, s->vx, &zero, s->vy,
                                       CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, s->buf);
    cudaMemcpy(y, s->dy, (size_t)s->rows * sizeof *y, cudaMemcpyDeviceToHost);
    return st != CUSPARSE_STATUS_SUCCESS;
}

static int sparse_setup(sparse *s, const rvs_csr *A)
{
    int32_t *rp = malloc((size_t)(A->rows + 1) * sizeof *rp);
    void *drp, *dci, *dva;
    const double one = 1, zero = 0;
    size_t bytes = 0;
    if (!rp || A->nnz > INT32_MAX)
        return 1;
    for (int64_t i = 0; i <= A->rows; i++)
        rp[i] = (int32_t)A->rowptr[i];
    s->rows = A->rows;
    s->cols = A->cols;
    cusparseCreate(&s->h);
    cudaMalloc(&drp, (size_t)(A->rows + 1) * 4);
    cudaMalloc(&dci, (size_t)A->nnz * 4 + 4);
    cudaMalloc(&dva, (size_t)A->nnz * 8 + 8);
    cudaMalloc((void **)&s->dx, (size_t)A->cols * 8 + 8);
    cudaMalloc((void **)&s->dy, (size_t)A->rows * 8 + 8);
    cudaMemcpy(drp, rp, (size_t)(A->rows + 1) * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dci, A->colind, (size_t)A->nnz * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dva, A->values, (size_t)A->nnz * 8, cudaMemcpyHostToDevice);
    free(rp);
    cusparseCreateCsr(&s->A, A->rows, A->cols, A->nnz, drp, dci, dva, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    cusparseCreateDnVec(&s->vx, A->cols, s->dx, CUDA_R_64F);
    cusparseCreateDnVec(&s->vy, A->rows, s->dy, CUDA_R_64F);
    cusparseSpMV_bufferSize(s->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->A, s->vx, &zero, s->vy, CUDA_R_64F,
                            CUSPARSE_SPMV_CSR_ALG1, &bytes);
    return cudaMalloc(&s->buf, bytes + 8) != cudaSuccess;
}

static void sparse_free(sparse *s)
{
    const void *rp = NULL, *ci = NULL, *va = NULL;
    int64_t r, c, nz;
    cusparseIndexType_t ti, tc;
    cusparseIndexBase_t base;
    cudaDataType t;
    if (s->A && cusparseCsrGet(s->A, &r, &c, &nz, (void **)&rp, (void **)&ci, (void **)&va, &ti, &tc, &base, &t) ==
                    CUSPARSE_STATUS_SUCCESS) {
        cudaFree((void *)rp);
        cudaFree((void *)ci);
        cudaFree((void *)va);
    }
    cusparseDestroySpMat(s->A);
    cusparseDestroyDnVec(s->vx);
    cusparseDestroyDnVec(s->vy);
    cusparseDestroy(s->h);
    cudaFree(s->dx);
    cudaFree(s->dy);
    cudaFree(s->buf);
}
#endif

int main(int argc, char **argv)
{
    rvs_csr A;
    rvs_error err;
    rvs_spmv_op *op = NULL;
    rvs_spmv_op_stats s;
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: cg MATRIX [ITERATIONS [TOLERANCE]]\n");
        return 64;
    }
    const int maxit = argc > 2 ? atoi(argv[2]) : 1000;
    const double tol = argc > 3 ? atof(argv[3]) : 1e-8;
    if (rvs_mm_read_file(&A, NULL, argv[1], NULL, NULL, &err) != RVS_OK ||
        rvs_csr_convert_values(&A, RVS_F64, &err) != RVS_OK) {
        fprintf(stderr, "cg: %s: %s\n", argv[1], err.msg);
        return rvs_status_exit_code(err.code);
    }
    if (A.rows != A.cols) {
        fprintf(stderr, "cg: %s: %lld x %lld is not square\n", argv[1], (long long)A.rows, (long long)A.cols);
        rvs_csr_free(&A);
        return 65;
    }
    const int64_t n = A.rows;
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x), rel;
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0;
    double t0 = now();
    if (rvs_spmv_op_create(&op, &A, NULL, &err) != RVS_OK) {
        fprintf(stderr, "cg: %s: %s\n", argv[1], err.msg);
        rvs_csr_free(&A);
        free(b);
        free(x);
        return rvs_status_exit_code(err.code);
    }
    const double setup = now() - t0;
    int it = cg(op_product, op, b, x, n, maxit, tol, &rel);
    const double total = now() - t0;
    rvs_spmv_op_info(op, &s);
    char knobs[200];
    rvs_knobs_format(&s.knobs, knobs, sizeof knobs);
    printf("solver device format tunables how iterations residual setup_s total_s tune_ms switches\n");
    printf("rvskit %s %s %s %s %d %.3g %.4f %.4f %.2f %d\n", s.device == RVS_DEV_GPU ? "gpu" : "cpu",
           rvs_format_lookup(s.format)->name, knobs, rvs_how_name(s.how), it, rel, setup, total, s.tune_ms,
           s.switches);
#if RVSKIT_HAVE_CUDA
    sparse sp;
    memset(&sp, 0, sizeof sp);
    if (s.device == RVS_DEV_GPU) {
        t0 = now();
        if (sparse_setup(&sp, &A) == 0) {
            const double sset = now() - t0;
            it = cg(sparse_product, &sp, b, x, n, maxit, tol, &rel);
            printf("cusparse gpu csr alg1 fixed %d %.3g %.4f %.4f - -\n", it, rel, sset, now() - t0);
        }
        sparse_free(&sp);
    }
#endif
    rvs_spmv_op_free(op);
    rvs_csr_free(&A);
    free(b);
    free(x);
    return 0;
}
