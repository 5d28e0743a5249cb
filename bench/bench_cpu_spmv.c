/* bench_cpu_spmv.c - CPU SpMV in every format against SuiteSparse:GraphBLAS GrB_mxv.
 *   bench_cpu_spmv [--iters N] [--warmup N] [--threads T] [--precision f64|f32]
 *                  [--formats a,b] [--label NAME] [--no-header] FILE...
 * FILE is a .mtx or an RVS stream (e.g. from rvsgen). x is seeded random in [-1, 1]. For each
 * matrix and format, the median wall time of N runs after the warm-up gives
 *   matrix format threads gflops graphblas_gflops ratio
 * (GFLOP/s = 2 nnz / time; ratio = ours / GraphBLAS's at the same thread count, '-' when
 * GraphBLAS is not built in or a format refused the matrix). Every format's y is checked once
 * against CSparse (rvs_spmv_check); a failure is reported on stderr and makes the exit status 1. */
#include <getopt.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_draw.h"
#include "rvs_tool.h"
#ifdef RVS_HAVE_GRAPHBLAS
#include <GraphBLAS.h>
#endif

typedef struct {
    int iters, warmup, threads;
    rvs_vtype vt;
    const char *formats; /* comma list, NULL: all */
    const char *label;   /* NULL: the matrix's name */
} bench_opts;

/* Deterministic x in [-1, 1): the x rvs_fill_x draws from seed (rvs_draw.h). */
static void random_x(double *x, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = rvs_draw(seed, i, 0);
}

/* Median seconds of one SpMV in format F; checks y once against CSparse (*checked_ok). */
static rvs_status time_format(const rvs_fmt *F, const rvs_csr *A, const double *xd, const void *x, void *y,
                              const bench_opts *o, double *sec, int *checked_ok, rvs_error *err)
{
    double *t = calloc((size_t)o->iters, sizeof *t), *yd = malloc((size_t)(A->rows ? A->rows : 1) * sizeof *yd);
    rvs_status st = t && yd ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; st == RVS_OK && i < o->warmup; i++)
        st = rvs_cpu_spmv(F, x, y, err);
    for (int i = 0; st == RVS_OK && i < o->iters; i++) {
        double t0 = rvs_tool_now();
        st = rvs_cpu_spmv(F, x, y, err);
        t[i] = rvs_tool_now() - t0;
    }
    if (st == RVS_OK) {
        double maxerr;
        int64_t row;
        rvs_error e2;
        for (int64_t i = 0; i < A->rows; i++)
            yd[i] = A->vtype == RVS_F64 ? ((double *)y)[i] : (double)((float *)y)[i];
        *checked_ok = rvs_spmv_check(A, xd, yd, A->vtype == RVS_F64 ? 1e-10 : 1e-4, &maxerr, &row, &e2) == RVS_OK;
        if (!*checked_ok)
            fprintf(stderr, "bench_cpu_spmv: %s: %s\n", rvs_format_lookup(F->id)->name, e2.msg);
        *sec = rvs_tool_median(t, o->iters);
    }
    free(t);
    free(yd);
    return st;
}

#ifdef RVS_HAVE_GRAPHBLAS
/* Median seconds of GrB_mxv (plus-times) on A at o->threads threads; 0 on a GraphBLAS error. */
static double time_graphblas(const rvs_csr *A, const double *xd, const bench_opts *o)
{
    GrB_Index *ap = malloc((size_t)(A->rows + 1) * sizeof *ap),
              *aj = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *aj);
    GrB_Index *xi = malloc((size_t)(A->cols ? A->cols : 1) * sizeof *xi);
    double *t = calloc((size_t)o->iters, sizeof *t), sec = 0;
    GrB_Matrix M = NULL;
    GrB_Vector x = NULL, y = NULL;
    int f64 = A->vtype == RVS_F64, ok = ap && aj && xi && t;
    float *xf = NULL;
    if (ok) {
        for (int64_t i = 0; i <= A->rows; i++)
            ap[i] = (GrB_Index)A->rowptr[i];
        for (int64_t k = 0; k < A->nnz; k++)
            aj[k] = (GrB_Index)rvs_csr_col(A, k);
        for (int64_t j = 0; j < A->cols; j++)
            xi[j] = (GrB_Index)j;
        GxB_set(GxB_NTHREADS, o->threads);
        if (f64)
            ok = GrB_Matrix_import_FP64(&M, GrB_FP64, A->rows, A->cols, ap, aj, A->values, A->rows + 1, A->nnz,
                                        A->nnz, GrB_CSR_FORMAT) == GrB_SUCCESS &&
                 GrB_Vector_new(&x, GrB_FP64, A->cols) == GrB_SUCCESS &&
                 GrB_Vector_build_FP64(x, xi, xd, A->cols, GrB_PLUS_FP64) == GrB_SUCCESS &&
                 GrB_Vector_new(&y, GrB_FP64, A->rows) == GrB_SUCCESS;
        else {
            xf = malloc((size_t)(A->cols ? A->cols : 1) * sizeof *xf);
            for (int64_t j = 0; xf && j < A->cols; j++)
                xf[j] = (float)xd[j];
            ok = xf &&
                 GrB_Matrix_import_FP32(&M, GrB_FP32, A->rows, A->cols, ap, aj, A->values, A->rows + 1, A->nnz,
                                        A->nnz, GrB_CSR_FORMAT) == GrB_SUCCESS &&
                 GrB_Vector_new(&x, GrB_FP32, A->cols) == GrB_SUCCESS &&
                 GrB_Vector_build_FP32(x, xi, xf, A->cols, GrB_PLUS_FP32) == GrB_SUCCESS &&
                 GrB_Vector_new(&y, GrB_FP32, A->rows) == GrB_SUCCESS;
        }
        ok = ok && GrB_Matrix_wait(M, GrB_MATERIALIZE) == GrB_SUCCESS &&
             GrB_Vector_wait(x, GrB_MATERIALIZE) == GrB_SUCCESS;
    }
    GrB_Semiring sr = f64 ? GrB_PLUS_TIMES_SEMIRING_FP64 : GrB_PLUS_TIMES_SEMIRING_FP32;
    for (int i = 0; ok && i < o->warmup + o->iters; i++) {
        double t0 = rvs_tool_now();
        ok = GrB_mxv(y, NULL, NULL, sr, M, x, NULL) == GrB_SUCCESS &&
             GrB_Vector_wait(y, GrB_MATERIALIZE) == GrB_SUCCESS;
        if (i >= o->warmup)
            t[i - o->warmup] = rvs_tool_now() - t0;
    }
    if (ok)
        sec = rvs_tool_median(t, o->iters);
    GrB_Matrix_free(&M);
    GrB_Vector_free(&x);
    GrB_Vector_free(&y);
    free(ap);
    free(aj);
    free(xi);
    free(xf);
    free(t);
    return sec;
}
#endif

/* 1 if format name is in the comma list (NULL: every format). */
static int wanted(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return list == NULL;
}

/* Name for the table: the label, or the matrix's name without ".mtx". */
static void matrix_label(char *buf, size_t n, const rvs_stream *S, const bench_opts *o)
{
    snprintf(buf, n, "%s", o->label ? o->label : S->name[0] ? S->name : "matrix");
    size_t len = strlen(buf);
    if (len > 4 && strcmp(buf + len - 4, ".mtx") == 0)
        buf[len - 4] = '\0';
}

/* Every wanted format on one input; returns the number of failed checks. */
static int bench_file(const char *path, const bench_opts *o)
{
    rvs_stream S;
    rvs_error err;
    char label[256];
    int bad = 0;
    const char *name = rvs_tool_input_name(path);
    if (rvs_tool_read_input(path, &S, NULL, &err) != RVS_OK || rvs_csr_convert_values(&S.A, o->vt, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    const rvs_csr *A = &S.A;
    size_t vs = rvs_vtype_size(o->vt);
    double *xd = malloc((size_t)(A->cols ? A->cols : 1) * sizeof *xd);
    void *x = malloc((size_t)(A->cols ? A->cols : 1) * vs), *y = malloc((size_t)(A->rows ? A->rows : 1) * vs);
    if (!xd || !x || !y)
        rvs_tool_die(RVS_EX_SOFTWARE, name, "out of memory");
    random_x(xd, A->cols, 42);
    for (int64_t j = 0; j < A->cols; j++)
        if (o->vt == RVS_F64)
            ((double *)x)[j] = xd[j];
        else
            ((float *)x)[j] = (float)xd[j];
    matrix_label(label, sizeof label, &S, o);
    double gb = 0;
#ifdef RVS_HAVE_GRAPHBLAS
    double gsec = time_graphblas(A, xd, o);
    gb = gsec > 0 ? 2.0 * (double)A->nnz / gsec / 1e9 : 0;
#endif
    for (int id = 1; id < RVS_FMT_COUNT; id++) {
        const rvs_format_ops *ops = rvs_format_lookup((rvs_format_id)id);
        if (!ops || !wanted(o->formats, ops->name))
            continue;
        rvs_fmt F;
        double sec = 0;
        int checked = 1;
        if (rvs_fmt_from_csr(&F, ops->id, A, NULL, &err) != RVS_OK) {
            fprintf(stderr, "bench_cpu_spmv: %s: %s\n", label, err.msg);
            if (gb > 0)
                printf("%s %s %d - %.3f -\n", label, ops->name, o->threads, gb);
            else
                printf("%s %s %d - - -\n", label, ops->name, o->threads);
            continue;
        }
        if (time_format(&F, A, xd, x, y, o, &sec, &checked, &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
        double gf = 2.0 * (double)A->nnz / sec / 1e9;
        if (gb > 0)
            printf("%s %s %d %.3f %.3f %.3f\n", label, ops->name, o->threads, gf, gb, gf / gb);
        else
            printf("%s %s %d %.3f - -\n", label, ops->name, o->threads, gf);
        fflush(stdout);
        bad += !checked;
        rvs_fmt_free(&F);
    }
    free(xd);
    free(x);
    free(y);
    rvs_stream_free(&S);
    return bad;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"iters", required_argument, 0, 'n'},
                                         {"warmup", required_argument, 0, 'w'},
                                         {"threads", required_argument, 0, 't'},
                                         {"precision", required_argument, 0, 'p'},
                                         {"formats", required_argument, 0, 'f'},
                                         {"label", required_argument, 0, 'l'},
                                         {"no-header", no_argument, 0, 'H'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bench_opts o = {20, 3, omp_get_max_threads(), RVS_F64, NULL, NULL};
    int c, header = 1, bad = 0;
    rvs_tool_init("bench_cpu_spmv");
    while ((c = getopt_long(argc, argv, "n:w:t:p:f:l:Hh", opts, NULL)) != -1) {
        switch (c) {
        case 'n': o.iters = (int)rvs_tool_parse_int("--iters", optarg, 1, 100000); break;
        case 'w': o.warmup = (int)rvs_tool_parse_int("--warmup", optarg, 0, 100000); break;
        case 't': o.threads = (int)rvs_tool_parse_int("--threads", optarg, 1, 4096); break;
        case 'p':
            if (strcmp(optarg, "f64") && strcmp(optarg, "f32"))
                rvs_tool_usage("--precision: '%s' is not f32 or f64", optarg);
            o.vt = optarg[1] == '6' ? RVS_F64 : RVS_F32;
            break;
        case 'f': o.formats = optarg; break;
        case 'l': o.label = optarg; break;
        case 'H': header = 0; break;
        case 'h':
            puts("Usage: bench_cpu_spmv [--iters N] [--warmup N] [--threads T] [--precision f64|f32]\n"
                 "                      [--formats a,b] [--label NAME] [--no-header] FILE...");
            return 0;
        default: rvs_tool_usage("unknown option");
        }
    }
    if (optind >= argc)
        rvs_tool_usage("no input file");
    omp_set_num_threads(o.threads);
#ifdef RVS_HAVE_GRAPHBLAS
    if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "GrB_init failed");
#endif
    if (header)
        printf("# matrix format threads gflops graphblas_gflops ratio\n");
    for (int i = optind; i < argc; i++)
        bad += bench_file(argv[i], &o);
#ifdef RVS_HAVE_GRAPHBLAS
    GrB_finalize();
#endif
    return bad ? 1 : 0;
}
