/* bench_calls.c - what a solver waits for: from a CSR in host memory to N products on device
 * vectors, setup included, for rvskit's SpMV operator (auto, or a fixed format) and for cuSPARSE's
 * CSR SpMV (ALG1) set up and called as a user would (handle, upload, descriptors, buffer). All
 * sides start warm: the CUDA context is made, and each side has run once untimed (so that the
 * kernels' modules, which CUDA loads at their first launch, are loaded for every side alike),
 * before any clock starts.
 *   bench_calls [--precision f64|f32] [--calls N] [--fixed FORMAT[@KNOBS]] [--label NAME] [--trace] FILE
 * Prints, for each of cusparse, fixed (FORMAT@KNOBS, default csr: the rule's CSR kernel) and
 * auto, one line:
 *   label vt side setup_ms t1 t10 t100 t1000 t10000 percall_ms format how switches tune_ms
 * tN: wall ms from the start of setup to the N-th product done (N up to --calls [10000]);
 * percall_ms: the median of the last 100 products; format/how: what runs at the end. With --trace,
 * the operators' set-up steps on stderr: "trace SIDE +MS STEP RSS_MIB", ms from the side's start. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"
#include "rvs_mem.h"
#include "rvs_tool.h"
#if RVS_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

#define NCHECK 5
static const int checkpoints[NCHECK] = {1, 10, 100, 1000, 10000};

typedef struct {
    double setup_ms, at[NCHECK], percall_ms;
} run;

static double trace_t0;
static const char *trace_side = "-";

static void trace_step(const char *what, double rss, double peak)
{
    (void)peak;
    fprintf(stderr, "trace %s +%.3f %s %.0f\n", trace_side, (rvs_engine_now() - trace_t0) * 1e3, what, rss);
}

static void print(const char *label, rvs_vtype vt, const char *side, const run *r, const char *fmt, const char *how,
                  int switches, double tune_ms)
{
    printf("%s %s %s %.4f", label, rvs_vtype_name(vt), side, r->setup_ms);
    for (int k = 0; k < NCHECK; k++)
        if (r->at[k] > 0)
            printf(" %.4f", r->at[k]);
        else
            printf(" -");
    printf(" %.6f %s %s %d %.3f\n", r->percall_ms, fmt, how, switches, tune_ms);
    fflush(stdout);
}

/* The products' clock: checkpoints and the last 100 calls' median. */
static void tick(run *r, int n, double t0, double *last, int calls)
{
    const double t = rvs_engine_now();
    for (int k = 0; k < NCHECK; k++)
        if (checkpoints[k] == n)
            r->at[k] = (t - t0) * 1e3;
    if (n > calls - 100)
        last[n - (calls - 100) - 1] = t;
}

static void finish(run *r, double *last, int calls)
{
    const int m = calls < 100 ? calls : 100;
    double d[100];
    for (int i = 1; i < m; i++)
        d[i - 1] = (last[i] - last[i - 1]) * 1e3;
    r->percall_ms = m > 1 ? rvs_engine_median(d, m - 1) : 0;
}

#if RVS_HAVE_CUDA
static void side_op(const char *label, const rvs_csr *A, rvs_vtype vt, rvs_format_id fixed, const char *knobs_in,
                    int calls, void *dx, void *dy, int quiet)
{
    rvs_spmv_op_options o;
    rvs_spmv_op *op = NULL;
    rvs_spmv_op_stats s;
    rvs_error err;
    run r = {0};
    double last[100] = {0};
    char name[256], knobs[160];
    rvs_spmv_op_options_default(&o);
    o.device = RVS_DEV_GPU;
    o.vtype = vt;
    o.format = fixed;
    o.tune = !fixed;
    o.use_cache = 0; /* a matrix never seen: no outcome of an earlier run (or of the warm-up) */
    o.tune_knobs = knobs_in && *knobs_in && strcmp(knobs_in, "default") != 0 ? knobs_in : NULL;
    const double t0 = rvs_engine_now();
    trace_t0 = t0;
    trace_side = fixed ? "fixed" : "auto";
    if (rvs_spmv_op_create(&op, A, &o, &err) != RVS_OK) {
        fprintf(stderr, "bench_calls: %s: %s\n", label, err.msg);
        return;
    }
    r.setup_ms = (rvs_engine_now() - t0) * 1e3;
    for (int n = 1; n <= calls; n++) {
        if (rvs_spmv_op_apply_device(op, dx, dy, &err) != RVS_OK) {
            fprintf(stderr, "bench_calls: %s: %s\n", label, err.msg);
            break;
        }
        tick(&r, n, t0, last, calls);
        if (n == 1)
            rvs_mem_trace("op: first product");
    }
    finish(&r, last, calls);
    rvs_spmv_op_info(op, &s);
    rvs_knobs_format(&s.knobs, knobs, sizeof knobs);
    snprintf(name, sizeof name, "%s@%s", rvs_format_lookup(s.format)->name, knobs);
    if (!quiet)
        print(label, vt, fixed ? "fixed" : "auto", &r, name, rvs_how_name(s.how), s.switches, s.tune_ms);
    rvs_spmv_op_free(op);
}

static void side_cusparse(const char *label, const rvs_csr *A, rvs_vtype vt, int calls, void *dx, void *dy,
                          int quiet)
{
    run r = {0};
    double last[100] = {0};
    const cudaDataType t = vt == RVS_F64 ? CUDA_R_64F : CUDA_R_32F;
    const size_t vs = rvs_vtype_size(vt);
    const double one = 1, zero = 0;
    const float onef = 1, zerof = 0;
    const void *alpha = vt == RVS_F64 ? (const void *)&one : (const void *)&onef;
    const void *beta = vt == RVS_F64 ? (const void *)&zero : (const void *)&zerof;
    if (A->nnz > INT32_MAX)
        return;
    const double t0 = rvs_engine_now();
    trace_t0 = t0;
    trace_side = "cusparse";
    cusparseHandle_t h;
    cusparseSpMatDescr_t M;
    cusparseDnVecDescr_t X, Y;
    void *drp, *dci, *dva, *buf;
    size_t bytes = 0;
    int32_t *rp = malloc((size_t)(A->rows + 1) * sizeof *rp);
    for (int64_t i = 0; i <= A->rows; i++)
        rp[i] = (int32_t)A->rowptr[i];
    cusparseCreate(&h);
    rvs_mem_trace("cusparse: handle made");
    cudaMalloc(&drp, (size_t)(A->rows + 1) * 4);
    cudaMalloc(&dci, (size_t)A->nnz * 4 + 4);
    cudaMalloc(&dva, (size_t)A->nnz * vs + 8);
    cudaMemcpy(drp, rp, (size_t)(A->rows + 1) * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dci, A->colind, (size_t)A->nnz * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dva, A->values, (size_t)A->nnz * vs, cudaMemcpyHostToDevice);
    free(rp);
    rvs_mem_trace("cusparse: matrix copied");
    cusparseCreateCsr(&M, A->rows, A->cols, A->nnz, drp, dci, dva, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_BASE_ZERO, t);
    cusparseCreateDnVec(&X, A->cols, dx, t);
    cusparseCreateDnVec(&Y, A->rows, dy, t);
    cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, M, X, beta, Y, t, CUSPARSE_SPMV_CSR_ALG1,
                            &bytes);
    cudaMalloc(&buf, bytes + 8);
    cudaDeviceSynchronize();
    r.setup_ms = (rvs_engine_now() - t0) * 1e3;
    for (int n = 1; n <= calls; n++) {
        cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, M, X, beta, Y, t, CUSPARSE_SPMV_CSR_ALG1, buf);
        cudaDeviceSynchronize(); /* a solver reads each product before the next */
        tick(&r, n, t0, last, calls);
        if (n == 1)
            rvs_mem_trace("cusparse: first product");
    }
    finish(&r, last, calls);
    if (!quiet)
        print(label, vt, "cusparse", &r, "csr@alg1", "fixed", 0, 0);
    cusparseDestroySpMat(M);
    cusparseDestroyDnVec(X);
    cusparseDestroyDnVec(Y);
    cusparseDestroy(h);
    cudaFree(drp);
    cudaFree(dci);
    cudaFree(dva);
    cudaFree(buf);
}
#endif

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"precision", required_argument, 0, 'p'}, {"calls", required_argument, 0, 'n'},
        {"label", required_argument, 0, 'l'},     {"fixed", required_argument, 0, 'f'},
        {"trace", no_argument, 0, 't'},           {0, 0, 0, 0}};
    rvs_vtype vt = RVS_F64;
    int calls = 10000, c, trace = 0;
    const char *label = NULL;
    char fixed[256] = "csr";
    rvs_tool_init("bench_calls");
    while ((c = getopt_long(argc, argv, "p:n:l:", opts, NULL)) != -1) {
        switch (c) {
        case 'p': vt = strcmp(optarg, "f32") == 0 ? RVS_F32 : RVS_F64; break;
        case 'n': calls = (int)rvs_tool_parse_int("--calls", optarg, 1, 1000000); break;
        case 'l': label = optarg; break;
        case 'f': snprintf(fixed, sizeof fixed, "%s", optarg); break;
        case 't': trace = 1; break;
        default: rvs_tool_usage("unknown option");
        }
    }
    if (optind >= argc)
        rvs_tool_usage("a matrix file");
    rvs_stream S;
    rvs_error err;
    if (rvs_tool_read_input(argv[optind], &S, NULL, &err) != RVS_OK ||
        rvs_csr_convert_values(&S.A, vt, &err) != RVS_OK)
        rvs_tool_die_err(argv[optind], &err);
    label = label ? label : argv[optind];
#if RVS_HAVE_CUDA
    if (rvs_gpu_count() == 0)
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "no GPU");
    void *dx = NULL, *dy = NULL, *x = malloc((size_t)S.A.cols * rvs_vtype_size(vt) + 8);
    cudaMalloc(&dx, (size_t)S.A.cols * rvs_vtype_size(vt) + 8);
    cudaMalloc(&dy, (size_t)S.A.rows * rvs_vtype_size(vt) + 8);
    rvs_fill_x(x, NULL, S.A.cols, vt, 1);
    cudaMemcpy(dx, x, (size_t)S.A.cols * rvs_vtype_size(vt), cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    char *at = strchr(fixed, '@');
    if (at)
        *at++ = 0;
    const rvs_format_ops *fops = rvs_format_by_name(fixed);
    if (!fops)
        rvs_tool_usage("--fixed: no format '%s'", fixed);
    rvs_mem_trace_to(NULL); /* the warm-up runs untraced */
    side_cusparse(label, &S.A, vt, 1, dx, dy, 1);
    side_op(label, &S.A, vt, fops->id, at, 1, dx, dy, 1);
    side_op(label, &S.A, vt, 0, NULL, 1, dx, dy, 1);
    if (trace)
        rvs_mem_trace_to(trace_step);
    side_cusparse(label, &S.A, vt, calls, dx, dy, 0);
    side_op(label, &S.A, vt, fops->id, at, calls, dx, dy, 0);
    side_op(label, &S.A, vt, 0, NULL, calls, dx, dy, 0);
    cudaFree(dx);
    cudaFree(dy);
    free(x);
#else
    rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "built without CUDA");
#endif
    rvs_stream_free(&S);
    return 0;
}
