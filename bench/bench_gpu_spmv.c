/* bench_gpu_spmv.c - every format on the GPU against cuSPARSE CSR ALG1 in the same run.
 *   bench_gpu_spmv [--iters N] [--precision f64|f32|both] [--formats a,b] [--label NAME] FILE|-
 * FILE is a .mtx or an RVS stream (e.g. from rvsgen). Prints one line per format:
 *   matrix prec format rows nnz ms gflops gbs frac_copy ratio_alg1 check
 * ratio_alg1 = cuSPARSE ALG1 time / our time (above 1: faster than cuSPARSE). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_cusparse.h"
#include "rvs_gpu.h"
#include "rvs_tool.h"

/* Time one format on the device; fills ms and the check verdict. */
static rvs_status run_format(const rvs_csr *A, rvs_format_id id, const void *x, const double *xd,
                             void *dx, int iters, double *ms, int64_t *bytes, const char **verdict,
                             rvs_error *err)
{
    rvs_fmt F;
    rvs_gpu_fmt G;
    rvs_gpu_tune tune = {0, 0, 0, 0};
    void *dy = NULL, *y = NULL;
    double *t = calloc((size_t)iters, sizeof *t), *yd = NULL;
    size_t vs = rvs_vtype_size(A->vtype);
    memset(&G, 0, sizeof G);
    rvs_status st = rvs_fmt_from_csr(&F, id, A, NULL, err);
    if (st != RVS_OK)
        goto out;
    *bytes = rvs_spmv_bytes(&F);
    if ((st = rvs_gpu_upload(&G, &F, err)) != RVS_OK ||
        (st = rvs_gpu_malloc(&dy, (size_t)A->rows * vs + 8, err)) != RVS_OK)
        goto out;
    /* poison y (all bits set: NaN), run once, check every element was written */
    if ((st = rvs_gpu_memset(dy, 0xff, (size_t)A->rows * vs, err)) != RVS_OK ||
        (st = rvs_gpu_spmv_timed(&G, dx, dy, &tune, &t[0], err)) != RVS_OK)
        goto out;
    y = malloc((size_t)A->rows * vs + 8);
    yd = malloc((size_t)A->rows * sizeof *yd + 8);
    if (!y || !yd) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((st = rvs_gpu_memcpy_d2h(y, dy, (size_t)A->rows * vs, err)) != RVS_OK)
        goto out;
    for (int64_t i = 0; i < A->rows; i++)
        yd[i] = A->vtype == RVS_F64 ? ((double *)y)[i] : ((float *)y)[i];
    double maxerr;
    int64_t worst;
    rvs_error cerr;
    *verdict = rvs_spmv_check(A, xd, yd, A->vtype == RVS_F64 ? 1e-10 : 1e-4, &maxerr, &worst, &cerr) == RVS_OK
                   ? "ok" : "FAIL";
    for (int i = 0; i < iters; i++)
        if ((st = rvs_gpu_spmv_timed(&G, dx, dy, &tune, &t[i], err)) != RVS_OK)
            goto out;
    *ms = rvs_tool_median(t, iters);
    (void)x;
out:
    rvs_gpu_free(dy);
    rvs_gpu_fmt_free(&G);
    rvs_fmt_free(&F);
    free(t);
    free(y);
    free(yd);
    return st;
}

/* One precision: cuSPARSE ALG1 first, then every format. */
static void bench_precision(rvs_csr *A, const char *label, const char *formats, int iters, double copy_gbs)
{
    rvs_error err;
    size_t vs = rvs_vtype_size(A->vtype);
    const char *prec = A->vtype == RVS_F64 ? "f64" : "f32";
    double *xd = malloc((size_t)A->cols * sizeof *xd + 8);
    void *x = malloc((size_t)A->cols * vs + 8), *y = malloc((size_t)A->rows * vs + 8), *dx = NULL;
    uint64_t s = 12345;
    for (int64_t j = 0; j < A->cols; j++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
        if (A->vtype == RVS_F64)
            ((double *)x)[j] = xd[j] = v;
        else
            xd[j] = ((float *)x)[j] = (float)v;
    }
    if (rvs_gpu_malloc(&dx, (size_t)A->cols * vs + 8, &err) != RVS_OK ||
        rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * vs, &err) != RVS_OK)
        rvs_tool_die_err(label, &err);
    double base_ms = NAN;
    if (rvs_cusparse_spmv(A, RVS_CUSPARSE_CSR_ALG1, x, y, iters, &base_ms, &err) != RVS_OK)
        fprintf(stderr, "bench_gpu_spmv: %s: cuSPARSE: %s\n", label, err.msg);
    double gf = 2.0 * (double)A->nnz / (base_ms * 1e6);
    int64_t csr_bytes = (A->rows + 1) * 8 + A->nnz * (4 + (int64_t)vs) + (A->rows + A->cols) * (int64_t)vs;
    printf("%s %s cusparse-alg1 %lld %lld %.4f %.1f %.1f %.3f 1.000 -\n", label, prec, (long long)A->rows,
           (long long)A->nnz, base_ms, gf, (double)csr_bytes / (base_ms * 1e6),
           (double)csr_bytes / (base_ms * 1e6) / copy_gbs);
    fflush(stdout);
    double best = INFINITY;
    const char *best_name = "-";
    char list[512];
    snprintf(list, sizeof list, "%s", formats);
    for (char *save = NULL, *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        const rvs_format_ops *ops = rvs_format_by_name(f);
        double ms = NAN;
        int64_t bytes = 0;
        const char *verdict = "-";
        if (!ops) {
            fprintf(stderr, "bench_gpu_spmv: unknown format %s\n", f);
            continue;
        }
        if (run_format(A, ops->id, x, xd, dx, iters, &ms, &bytes, &verdict, &err) != RVS_OK) {
            printf("%s %s %s %lld %lld - - - - - skipped(%s)\n", label, prec, ops->name, (long long)A->rows,
                   (long long)A->nnz, rvs_status_string(err.code));
            fprintf(stderr, "bench_gpu_spmv: %s %s %s: %s\n", label, prec, ops->name, err.msg);
            fflush(stdout);
            continue;
        }
        printf("%s %s %s %lld %lld %.4f %.1f %.1f %.3f %.3f %s\n", label, prec, ops->name, (long long)A->rows,
               (long long)A->nnz, ms, 2.0 * (double)A->nnz / (ms * 1e6), (double)bytes / (ms * 1e6),
               (double)bytes / (ms * 1e6) / copy_gbs, base_ms / ms, verdict);
        fflush(stdout);
        if (ms < best && strcmp(verdict, "ok") == 0) {
            best = ms;
            best_name = ops->name;
        }
    }
    printf("# best %s %s %s %.1f GFLOP/s, %.3fx cuSPARSE ALG1\n", label, prec, best_name,
           2.0 * (double)A->nnz / (best * 1e6), base_ms / best);
    rvs_gpu_free(dx);
    free(xd);
    free(x);
    free(y);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"iters", required_argument, 0, 'n'},
                                         {"precision", required_argument, 0, 'p'},
                                         {"formats", required_argument, 0, 'f'},
                                         {"label", required_argument, 0, 'l'},
                                         {0, 0, 0, 0}};
    int iters = 30, c;
    const char *prec = "both", *label = NULL;
    const char *formats = "csr,coo,ell,ellr,pellr,biell,jad,hyb,hyb-dia,dia,hcc";
    rvs_tool_init("bench_gpu_spmv");
    while ((c = getopt_long(argc, argv, "n:p:f:l:", opts, NULL)) != -1) {
        switch (c) {
        case 'n': iters = (int)rvs_tool_parse_int("--iters", optarg, 1, 100000); break;
        case 'p': prec = optarg; break;
        case 'f': formats = optarg; break;
        case 'l': label = optarg; break;
        default: rvs_tool_bad_option(argv);
        }
    }
    const char *in = optind < argc ? argv[optind] : NULL;
    rvs_stream S;
    rvs_error err;
    if (rvs_gpu_count() == 0)
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "no GPU");
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(rvs_tool_input_name(in), &err);
    if (!label)
        label = S.name[0] ? S.name : "matrix";
    double copy_gbs = 0;
    if (rvs_gpu_copy_bandwidth(0, 10, &copy_gbs, &err) != RVS_OK)
        rvs_tool_die_err("copy bandwidth", &err);
    printf("# matrix prec format rows nnz ms gflops gbs frac_copy ratio_alg1 check   (copy %.0f GB/s)\n", copy_gbs);
    for (int p = 0; p < 2; p++) {
        rvs_vtype vt = p == 0 ? RVS_F64 : RVS_F32;
        if ((vt == RVS_F64 && strcmp(prec, "f32") == 0) || (vt == RVS_F32 && strcmp(prec, "f64") == 0))
            continue;
        if (rvs_csr_convert_values(&S.A, vt, &err) != RVS_OK)
            rvs_tool_die_err(label, &err);
        bench_precision(&S.A, label, formats, iters, copy_gbs);
    }
    rvs_stream_free(&S);
    return 0;
}
