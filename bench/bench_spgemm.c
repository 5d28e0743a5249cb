/* bench_spgemm.c - one row of the SpGEMM table: C = A*A on the CPU against GraphBLAS, on the
 * GPU (hySpMM pipeline) against cuSPARSE end-to-end, best of --reps runs each */
#include <getopt.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_tool.h"
#include "rvs_gpu.h"
#include "rvs_spgemm.h"

static const char usage[] =
    "Usage: bench_spgemm [OPTION]... FILE\n"
    "       bench_spgemm --header\n"
    "Time C = A*A for the matrix in FILE (Matrix Market or RVS stream; A*A^T when A is not\n"
    "square) and print one whitespace-separated row; '-' marks what did not run.\n"
    "\n"
    "  -l, --label NAME      first column [FILE's base name]\n"
    "  -p, --precision TYPE  f32 or f64 [f64]\n"
    "  -r, --reps INT        runs of each kernel, the best is kept [3]\n"
    "      --no-gpu          skip the GPU, the hybrid and cuSPARSE\n"
    "      --header          print the column names and exit\n"
    "  -h, --help            show this help and exit\n";

static const char header[] =
    "# matrix prec threads rows nnz_a products nnz_c cpu_s cpu_gflops graphblas_s cpu_vs_graphblas"
    " gpu_s gpu_gflops hybrid_s cusparse_kernel_s cusparse_e2e_s gpu_vs_cusparse_e2e"
    " gpu_peak_mib cusparse_peak_mib cusparse_alg\n";

typedef rvs_status (*kernel_fn)(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                rvs_spgemm_stats *s, rvs_error *err);

static rvs_status gpu_kernel(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *s,
                             rvs_error *err)
{
    return rvs_spgemm_gpu(C, A, B, NULL, s, err);
}

static rvs_status hybrid_kernel(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                rvs_spgemm_stats *s, rvs_error *err)
{
    return rvs_spgemm_hybrid(C, A, B, NULL, s, err);
}

/* Best end-to-end time of reps runs of f (0 when it failed); *best gets that run's stats. */
static double best_of(kernel_fn f, const rvs_csr *A, const rvs_csr *B, int reps,
                      rvs_spgemm_stats *best)
{
    double t = 0;
    for (int r = 0; r < reps; r++) {
        rvs_csr C;
        rvs_spgemm_stats s;
        rvs_error err;
        if (f(&C, A, B, &s, &err) != RVS_OK) {
            fprintf(stderr, "bench_spgemm: %s\n", err.msg);
            return 0;
        }
        rvs_csr_free(&C);
        if (t == 0 || s.t_total < t) {
            t = s.t_total;
            *best = s;
        }
    }
    return t;
}

/* A number, or "-" when x is not positive. */
static void col(double x, const char *fmt)
{
    if (x > 0)
        printf(fmt, x);
    else
        printf(" -");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"label", required_argument, 0, 'l'}, {"precision", required_argument, 0, 'p'},
        {"reps", required_argument, 0, 'r'},  {"no-gpu", no_argument, 0, 'G'},
        {"header", no_argument, 0, 'H'},      {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *label = NULL;
    rvs_vtype vt = RVS_F64;
    int reps = 3, no_gpu = 0, c;
    rvs_stream S;
    rvs_csr B;
    rvs_error err;
    rvs_tool_init("bench_spgemm");
    while ((c = getopt_long(argc, argv, "l:p:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'l': label = optarg; break;
        case 'p': vt = strcmp(optarg, "f32") == 0 ? RVS_F32 : RVS_F64; break;
        case 'r': reps = (int)rvs_tool_parse_int("--reps", optarg, 1, 1000); break;
        case 'G': no_gpu = 1; break;
        case 'H': fputs(header, stdout); return 0;
        case 'h': fputs(usage, stdout); return 0;
        default: rvs_tool_bad_option(argv);
        }
    }
    if (argc - optind != 1)
        rvs_tool_usage("one input file");
    const char *in = argv[optind];
    if (!label)
        label = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK ||
        rvs_csr_convert_values(&S.A, vt, &err) != RVS_OK)
        rvs_tool_die_err(in, &err);
    const rvs_csr *A = &S.A;
    if (A->rows == A->cols ? rvs_csr_copy(&B, A, &err) : rvs_csr_transpose(&B, A, &err))
        rvs_tool_die_err(in, &err);

    rvs_spgemm_stats cpu = {0}, gpu = {0}, hyb = {0};
    double cpu_s = best_of(rvs_spgemm_cpu, A, &B, reps, &cpu), grb_s = 0, gpu_s = 0, hyb_s = 0;
    double ck = 0, ct = 0, ck_best = 0, ct_best = 0;
    size_t cpeak = 0;
    int alg = 0;
    for (int r = 0; r < reps; r++) {
        double g = 0;
        if (rvs_spgemm_graphblas(NULL, A, &B, &g, &err) != RVS_OK)
            break;
        grb_s = (grb_s == 0 || g < grb_s) ? g : grb_s;
    }
    if (!no_gpu && rvs_gpu_count() > 0) {
        gpu_s = best_of(gpu_kernel, A, &B, reps, &gpu);
        hyb_s = best_of(hybrid_kernel, A, &B, reps, &hyb);
        for (int r = 0; r < reps; r++) {
            if (rvs_spgemm_cusparse(NULL, A, &B, &ck, &ct, &alg, &cpeak, &err) != RVS_OK) {
                fprintf(stderr, "bench_spgemm: cuSPARSE: %s\n", err.msg);
                break;
            }
            ck_best = (ck_best == 0 || ck < ck_best) ? ck : ck_best;
            ct_best = (ct_best == 0 || ct < ct_best) ? ct : ct_best;
        }
    }
    printf("%s %s %d %lld %lld %lld %lld", label, vt == RVS_F64 ? "f64" : "f32",
           omp_get_max_threads(), (long long)A->rows, (long long)A->nnz, (long long)cpu.products,
           (long long)cpu.nnz_c);
    col(cpu_s, " %.6f");
    col(cpu_s > 0 ? 2e-9 * (double)cpu.products / cpu_s : 0, " %.3f");
    col(grb_s, " %.6f");
    col(cpu_s > 0 && grb_s > 0 ? grb_s / cpu_s : 0, " %.3f");
    col(gpu_s, " %.6f");
    col(gpu_s > 0 ? 2e-9 * (double)gpu.products / gpu_s : 0, " %.3f");
    col(hyb_s, " %.6f");
    col(ck_best, " %.6f");
    col(ct_best, " %.6f");
    col(gpu_s > 0 && ct_best > 0 ? ct_best / gpu_s : 0, " %.3f");
    col(gpu_s > 0 ? (double)gpu.gpu_peak_bytes / 1048576.0 : 0, " %.1f");
    col(ct_best > 0 ? (double)cpeak / 1048576.0 : 0, " %.1f");
    col(alg, " %.0f");
    printf("\n");
    rvs_csr_free(&B);
    rvs_stream_free(&S);
    return 0;
}
