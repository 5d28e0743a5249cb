/* bench_gpu_spmv.c - every format on the GPU against cuSPARSE CSR ALG1 and ALG2 in the same run.
 *   bench_gpu_spmv [--iters N] [--precision f64|f32|mixed|both|all] [--formats LIST]
 *                  [--hcc-np N] [--hcc-nb N] [--hcc-g 1|8] [--values K] [--label NAME] FILE|-
 * FILE is a .mtx or an RVS stream (e.g. from rvsgen). LIST is comma-separated; an item may
 * carry tunables (kernel and build, as spmv --tune) after '@', joined by '+': "csr@threads-per-row=64",
 * "hcc@hcc-wg=2+hcc-wi=128", "csr@csr-values=1" (values as they are).
 * Prints one line per format:
 *   matrix prec format rows nnz ms gflops gbs frac_copy ratio_alg1 ratio_alg2 check
 * ratio_algN = cuSPARSE CSR ALGN time / our time (above 1: faster). gbs counts the bytes the
 * kernel must move (rvs_spmv_bytes: a lower bound of its traffic); a line whose gbs exceeds the
 * measured copy bandwidth is marked "above-copy" in the check column. mixed: f32 values with f64
 * x, y and sums (csr and hcc), against cuSPARSE in f64, checked against A rounded to f32.
 * --values K replaces the values by K distinct ones (0.5, 1.5, ...) spread by a hash of the
 * entry's position: how a CSR value table of K entries (K <= 256) costs against plain values. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_cusparse.h"
#include "rvs_engine.h"
#include "rvs_gpu.h"
#include "rvs_tool.h"

typedef struct {
    int iters;
    double copy_gbs;
    rvs_fmt_options fo;
} bench_opts;

/* Upload F, poison y, run once and check against Aref (vtype of y: yt), time iters runs. */
static rvs_status run_format(const rvs_csr *Aref, const rvs_fmt *F, const rvs_gpu_tune *tune, int mixed, void *dx,
                             const double *xd, int iters, double *ms, int64_t *saved, const char **verdict,
                             rvs_error *err)
{
    rvs_gpu_fmt G;
    void *dy = NULL, *y = NULL;
    const rvs_vtype yt = mixed ? RVS_F64 : F->vtype;
    const size_t vs = rvs_vtype_size(yt);
    double *t = calloc((size_t)iters, sizeof *t), *yd = malloc((size_t)F->rows * sizeof *yd + 8);
    rvs_status st;
    memset(&G, 0, sizeof G);
    y = malloc((size_t)F->rows * vs + 8);
    if (!t || !yd || !y) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((st = rvs_gpu_upload(&G, F, err)) != RVS_OK ||
        (st = rvs_gpu_malloc(&dy, (size_t)F->rows * vs + 8, err)) != RVS_OK ||
        (st = rvs_gpu_memset(dy, 0xff, (size_t)F->rows * vs, err)) != RVS_OK)
        goto out;
    *saved = rvs_gpu_bytes_saved(&G); /* values coded at upload */
    st = mixed ? rvs_gpu_spmv_mixed_timed(&G, dx, dy, tune, &t[0], err)
               : rvs_gpu_spmv_timed(&G, dx, dy, tune, &t[0], err);
    if (st != RVS_OK || (st = rvs_gpu_memcpy_d2h(y, dy, (size_t)F->rows * vs, err)) != RVS_OK)
        goto out;
    for (int64_t i = 0; i < F->rows; i++)
        yd[i] = yt == RVS_F64 ? ((double *)y)[i] : ((float *)y)[i];
    double maxerr;
    int64_t worst;
    rvs_error cerr;
    *verdict = rvs_spmv_check(Aref, xd, yd, yt == RVS_F64 ? 1e-10 : 1e-4, &maxerr, &worst, &cerr) == RVS_OK
                   ? "ok"
                   : "FAIL";
    for (int i = 0; i < iters; i++) {
        st = mixed ? rvs_gpu_spmv_mixed_timed(&G, dx, dy, tune, &t[i], err)
                   : rvs_gpu_spmv_timed(&G, dx, dy, tune, &t[i], err);
        if (st != RVS_OK)
            goto out;
    }
    *ms = rvs_tool_median(t, iters);
out:
    rvs_gpu_free(dy);
    rvs_gpu_fmt_free(&G);
    free(t);
    free(y);
    free(yd);
    return st;
}

/* x in vt (host and device) and as doubles, the same numbers. */
static void make_x(const rvs_csr *A, rvs_vtype vt, double *xd, void *x)
{
    uint64_t s = 12345;
    for (int64_t j = 0; j < A->cols; j++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
        if (vt == RVS_F64)
            ((double *)x)[j] = xd[j] = v;
        else
            xd[j] = ((float *)x)[j] = (float)v;
    }
}

/* cuSPARSE CSR ALG1 and ALG2 on A (A's value type), one line each; times into base[0..1]. */
static void bench_cusparse(const rvs_csr *A, const char *label, const char *prec, const void *x, int iters,
                           double copy_gbs, double base[2])
{
    rvs_error err;
    size_t vs = rvs_vtype_size(A->vtype);
    void *y = malloc((size_t)A->rows * vs + 8);
    /* cuSPARSE reads 32-bit row pointers and columns while they fit */
    int64_t iw = A->nnz > INT32_MAX ? 8 : 4;
    int64_t bytes = (A->rows + 1) * iw + A->nnz * (iw + (int64_t)vs) + (A->rows + A->cols) * (int64_t)vs;
    for (int a = 0; a < 2; a++) {
        rvs_cusparse_alg alg = a == 0 ? RVS_CUSPARSE_CSR_ALG1 : RVS_CUSPARSE_CSR_ALG2;
        base[a] = NAN;
        if (!y || rvs_cusparse_spmv(A, alg, x, y, iters, &base[a], &err) != RVS_OK) {
            fprintf(stderr, "bench_gpu_spmv: %s: cuSPARSE %s: %s\n", label, rvs_cusparse_alg_name(alg),
                    y ? err.msg : "no memory");
            continue;
        }
        double gbs = (double)bytes / (base[a] * 1e6);
        printf("%s %s cusparse-%s %lld %lld %.4f %.1f %.1f %.3f %.3f %.3f %s\n", label, prec,
               rvs_cusparse_alg_name(alg), (long long)A->rows, (long long)A->nnz, base[a],
               2.0 * (double)A->nnz / (base[a] * 1e6), gbs, gbs / copy_gbs, base[0] / base[a],
               a ? 1.0 : base[1] / base[a], gbs > copy_gbs ? "above-copy" : "-");
        fflush(stdout);
    }
    free(y);
}

/* One precision of A (f64 values in A64): cuSPARSE, then every item of formats. */
static void bench_precision(const rvs_csr *A64, const char *label, const char *prec, const char *formats,
                            const bench_opts *o)
{
    rvs_error err;
    const int mixed = strcmp(prec, "mixed") == 0;
    const rvs_vtype vt = strcmp(prec, "f32") == 0 || mixed ? RVS_F32 : RVS_F64, xt = mixed ? RVS_F64 : vt;
    const size_t xs = rvs_vtype_size(xt);
    rvs_csr A = {0}, Aref = {0}, Ax = {0};
    double *xd = malloc((size_t)A64->cols * sizeof *xd + 8), base[2] = {NAN, NAN}, best = INFINITY;
    void *x = malloc((size_t)A64->cols * xs + 8), *dx = NULL;
    const char *best_name = "-";
    char list[1024];
    if (!xd || !x || rvs_csr_copy(&A, A64, &err) != RVS_OK || rvs_csr_convert_values(&A, vt, &err) != RVS_OK ||
        rvs_csr_copy(&Aref, &A, &err) != RVS_OK || rvs_csr_convert_values(&Aref, RVS_F64, &err) != RVS_OK)
        rvs_tool_die_err(label, &err);
    make_x(A64, xt, xd, x);
    if (rvs_gpu_malloc(&dx, (size_t)A64->cols * xs + 8, &err) != RVS_OK ||
        rvs_gpu_memcpy_h2d(dx, x, (size_t)A64->cols * xs, &err) != RVS_OK)
        rvs_tool_die_err(label, &err);
    /* the baseline runs in the precision of x and y: f64 for mixed */
    if (mixed && (rvs_csr_copy(&Ax, A64, &err) != RVS_OK || rvs_csr_convert_values(&Ax, RVS_F64, &err) != RVS_OK))
        rvs_tool_die_err(label, &err);
    bench_cusparse(mixed ? &Ax : &A, label, prec, x, o->iters, o->copy_gbs, base);
    rvs_csr_free(&Ax);
    snprintf(list, sizeof list, "%s", formats);
    for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char name[64], tunes[256] = "";
        rvs_knobs knobs;
        memset(&knobs, 0, sizeof knobs);
        knobs.fo = o->fo;
        const char *at = strchr(item, '@');
        snprintf(name, sizeof name, "%.*s", at ? (int)(at - item) : (int)strlen(item), item);
        if (at) {
            snprintf(tunes, sizeof tunes, "%s", at + 1);
            for (char *p = tunes; *p; p++)
                *p = *p == '+' ? ',' : *p;
            if (rvs_knobs_parse(&knobs, tunes, &err) != RVS_OK) {
                fprintf(stderr, "bench_gpu_spmv: %s: %s\n", item, err.msg);
                continue;
            }
        }
        const rvs_format_ops *ops = rvs_format_by_name(name);
        if (!ops) {
            fprintf(stderr, "bench_gpu_spmv: unknown format %s\n", name);
            continue;
        }
        if (mixed && ops->id != RVS_FMT_CSR && ops->id != RVS_FMT_HCC)
            continue; /* no mixed kernel */
        double ms = NAN;
        const char *verdict = "-";
        rvs_fmt F;
        rvs_status st = rvs_fmt_from_csr(&F, ops->id, &A, &knobs.fo, &err);
        int64_t bytes = st == RVS_OK ? rvs_spmv_bytes(&F) : 0, saved = 0;
        if (st == RVS_OK && mixed) /* values stay f32; x and y are f64 */
            bytes += (F.rows + F.cols) * 4;
        if (st == RVS_OK)
            st = run_format(&Aref, &F, &knobs.tune, mixed, dx, xd, o->iters, &ms, &saved, &verdict, &err);
        bytes -= saved;
        rvs_fmt_free(&F);
        if (st != RVS_OK) {
            printf("%s %s %s %lld %lld - - - - - - skipped(%s)\n", label, prec, item, (long long)A.rows,
                   (long long)A.nnz, rvs_status_string(err.code));
            fprintf(stderr, "bench_gpu_spmv: %s %s %s: %s\n", label, prec, item, err.msg);
            fflush(stdout);
            continue;
        }
        double gbs = (double)bytes / (ms * 1e6);
        printf("%s %s %s %lld %lld %.4f %.1f %.1f %.3f %.3f %.3f %s%s\n", label, prec, item, (long long)A.rows,
               (long long)A.nnz, ms, 2.0 * (double)A.nnz / (ms * 1e6), gbs, gbs / o->copy_gbs, base[0] / ms,
               base[1] / ms, verdict, gbs > o->copy_gbs ? ",above-copy" : "");
        fflush(stdout);
        if (ms < best && strcmp(verdict, "ok") == 0) {
            best = ms;
            best_name = ops->name;
        }
    }
    printf("# best %s %s %s %.1f GFLOP/s, %.3fx cuSPARSE ALG1, %.3fx ALG2\n", label, prec, best_name,
           2.0 * (double)A.nnz / (best * 1e6), base[0] / best, base[1] / best);
    rvs_gpu_free(dx);
    rvs_csr_free(&A);
    rvs_csr_free(&Aref);
    free(xd);
    free(x);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"iters", required_argument, 0, 'n'},
                                         {"precision", required_argument, 0, 'p'},
                                         {"formats", required_argument, 0, 'f'},
                                         {"label", required_argument, 0, 'l'},
                                         {"hcc-np", required_argument, 0, 'P'},
                                         {"hcc-nb", required_argument, 0, 'B'},
                                         {"hcc-g", required_argument, 0, 'G'},
                                         {"values", required_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    static const char *const precs[] = {"f64", "f32", "mixed"};
    bench_opts o = {30, 0, {0}};
    int c;
    const char *prec = "both", *label = NULL;
    int64_t nvalues = 0;
    const char *formats = "csr,coo,ell,ellr,pellr,biell,jad,hyb,hyb-dia,dia,hcc";
    rvs_tool_init("bench_gpu_spmv");
    rvs_fmt_options_default(&o.fo);
    while ((c = getopt_long(argc, argv, "n:p:f:l:", opts, NULL)) != -1) {
        switch (c) {
        case 'n': o.iters = (int)rvs_tool_parse_int("--iters", optarg, 1, 100000); break;
        case 'p': prec = optarg; break;
        case 'f': formats = optarg; break;
        case 'l': label = optarg; break;
        case 'P': o.fo.hcc_np = rvs_tool_parse_int("--hcc-np", optarg, 0, 1 << 20); break;
        case 'B': o.fo.hcc_nb = rvs_tool_parse_int("--hcc-nb", optarg, 0, INT32_MAX); break;
        case 'G': o.fo.hcc_g = rvs_tool_parse_int("--hcc-g", optarg, 0, 8); break;
        case 'V': nvalues = rvs_tool_parse_int("--values", optarg, 1, 1 << 30); break;
        default: rvs_tool_bad_option(argv);
        }
    }
    if (strcmp(prec, "f64") && strcmp(prec, "f32") && strcmp(prec, "mixed") && strcmp(prec, "both") &&
        strcmp(prec, "all"))
        rvs_tool_usage("--precision: f64, f32, mixed, both (f64 and f32) or all");
    const char *in = optind < argc ? argv[optind] : NULL;
    rvs_stream S;
    rvs_error err;
    if (rvs_gpu_count() == 0)
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "no GPU");
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(rvs_tool_input_name(in), &err);
    if (!label)
        label = S.name[0] ? S.name : "matrix";
    if (rvs_gpu_copy_bandwidth(0, 10, &o.copy_gbs, &err) != RVS_OK)
        rvs_tool_die_err("copy bandwidth", &err);
    if (rvs_csr_convert_values(&S.A, RVS_F64, &err) != RVS_OK)
        rvs_tool_die_err(label, &err);
    /* --values K: the entries take K distinct values, spread by a hash of the position (what a
     * value table costs when its codes are scattered: shared-memory bank conflicts) */
    for (int64_t k = 0; nvalues > 0 && k < S.A.nnz; k++)
        ((double *)S.A.values)[k] = 0.5 + (double)((uint64_t)(k + 1) * 0x9E3779B97F4A7C15ull % (uint64_t)nvalues);
    printf("# matrix prec format rows nnz ms gflops gbs frac_copy ratio_alg1 ratio_alg2 check   (copy %.0f GB/s)\n",
           o.copy_gbs);
    for (int p = 0; p < 3; p++) {
        int want = strcmp(prec, precs[p]) == 0 || strcmp(prec, "all") == 0 || (strcmp(prec, "both") == 0 && p < 2);
        if (want)
            bench_precision(&S.A, label, precs[p], formats, &o);
    }
    rvs_stream_free(&S);
    return 0;
}
