/* bench_spgemm.c - rows of the SpGEMM table: C = A*A for one matrix, in each precision asked
 * for, ours (the engine's choice, the GPU end to end and kernel-only, the CPU; the hybrid and
 * GraphBLAS on request) against cuSPARSE (ALG1, ALG3 where ALG1 fails), every side warm (one
 * untimed run first) and timed as the median of --reps runs */
#include <getopt.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_tool.h"
#include "rvs_gpu.h"
#include "rvs_engine_spgemm.h"

static const char usage[] =
    "Usage: bench_spgemm [OPTION]... FILE\n"
    "       bench_spgemm --header\n"
    "Time C = A*A for the matrix in FILE (Matrix Market or RVS stream; A*A^T when A is not\n"
    "square) and print one whitespace-separated row per precision; '-' marks what did not run.\n"
    "\n"
    "  -l, --label NAME      first column [FILE's base name]\n"
    "  -p, --precision LIST  f32, f64 or both, comma-separated, one row each [f64]\n"
    "  -r, --reps INT        timed runs of each side after one untimed run; medians [5]\n"
    "      --big             one timed run of each side (inputs too large to repeat), the\n"
    "                        GPU libraries warmed on A's first rows instead\n"
    "      --cpu-max P       skip the CPU when the product has more than P products [none]\n"
    "      --passes N        row-wise GPU: 1 one pass where it fits, 2 two passes [chosen]\n"
    "      --hybrid          also time the hybrid\n"
    "      --graphblas       also time GraphBLAS GrB_mxm\n"
    "      --no-gpu          skip the GPU and cuSPARSE\n"
    "      --no-cusparse     skip cuSPARSE\n"
    "      --cusparse-only   run cuSPARSE alone (for a separate, time-limited process)\n"
    "      --trace           one more GPU run with every step timed, on stderr\n"
    "      --header          print the column names and exit\n"
    "  -h, --help            show this help and exit\n";

static const char header[] =
    "# matrix prec rows nnz_a products nnz_c cpu_s gpu_s gpu_kernel_s gpu_setup_s auto auto_s"
    " cusparse_alg cusparse_kernel_s cusparse_e2e_s kernel_vs_cusparse e2e_vs_cusparse"
    " auto_vs_cusparse auto_vs_best gpu_blocks gpu_peak_mib gpu_checks hybrid_s graphblas_s gpu_pre_s"
    " auto_pre_s\n";

typedef struct {
    int reps, big, gpu, trace, cusparse, ours, hybrid, graphblas;
    double cpu_max;
    double cold_setup; /* the device's start-up as the first GPU call paid it */
    rvs_spgemm_options o;
    rvs_spgemm_where where;
} bench;

typedef enum { K_CPU, K_GPU, K_KERNEL, K_HYBRID, K_AUTO } kernel;

/* One run of kernel k; *seconds its time (t_kernel for K_KERNEL). C (may be NULL) keeps C. */
static rvs_status run1(bench *b, kernel k, const rvs_csr *A, const rvs_csr *B, rvs_csr *C, rvs_spgemm_stats *s,
                       double *seconds, rvs_error *err)
{
    rvs_csr tmp, *R = C ? C : &tmp;
    rvs_spgemm_options o = b->o;
    char why[256];
    rvs_status st;
    o.kernel_only = k == K_KERNEL;
    switch (k) {
    case K_CPU: st = rvs_spgemm_cpu(R, A, B, s, err); break;
    case K_GPU:
    case K_KERNEL: st = rvs_spgemm_gpu(R, A, B, &o, s, err); break;
    case K_HYBRID: st = rvs_spgemm_hybrid(R, A, B, &o, s, err); break;
    default: st = rvs_spgemm_auto(R, A, B, &o, s, &b->where, why, sizeof why, err); break;
    }
    if (st == RVS_OK)
        *seconds = k == K_KERNEL ? s->t_kernel : s->t_total;
    if (st == RVS_OK && k != K_CPU && b->cold_setup < 0)
        b->cold_setup = s->t_setup;
    if (!C)
        rvs_csr_free(R);
    return st;
}

/* Median time of kernel k (0 when it failed); *s the stats of the last run; C (may be NULL)
 * keeps the last product. */
static double timed(bench *b, kernel k, const rvs_csr *A, const rvs_csr *B, rvs_csr *C, rvs_spgemm_stats *s)
{
    double t[64], x = 0;
    rvs_error err;
    const int n = b->big ? 1 : b->reps;
    for (int q = b->big ? 0 : -1; q < n; q++) {
        if (C)
            rvs_csr_free(C);
        if (run1(b, k, A, B, C, s, &x, &err) != RVS_OK) {
            fprintf(stderr, "bench_spgemm: %s\n", err.msg);
            return 0;
        }
        if (q >= 0)
            t[q] = x;
    }
    return rvs_tool_median(t, n);
}

/* Medians of kernels j and k run by turns, each once untimed first, so that both meet the heap and
 * the device in the same state (run one after the other, the second was 1-3 ms slower on 6 ms
 * products); Cj (may be NULL) keeps j's last product, sj and sk their last stats. */
static void timed_pair(bench *b, kernel j, kernel k, const rvs_csr *A, const rvs_csr *B, rvs_csr *Cj,
                       rvs_spgemm_stats *sj, rvs_spgemm_stats *sk, double *tj, double *tk)
{
    double t[2][64], x = 0;
    rvs_error err;
    const int n = b->big ? 1 : b->reps;
    int ok[2] = {1, 1}; /* a side that fails is left out; the other goes on */
    for (int q = b->big ? 0 : -1; q < n; q++)
        for (int side = 0; side < 2; side++) {
            rvs_csr *C = side == 0 ? Cj : NULL;
            if (C)
                rvs_csr_free(C);
            if (ok[side] && run1(b, side == 0 ? j : k, A, B, C, side == 0 ? sj : sk, &x, &err) != RVS_OK) {
                fprintf(stderr, "bench_spgemm: %s\n", err.msg);
                ok[side] = 0;
            }
            if (q >= 0)
                t[side][q] = x;
        }
    *tj = ok[0] ? rvs_tool_median(t[0], n) : 0;
    *tk = ok[1] ? rvs_tool_median(t[1], n) : 0;
}

/* Median GrB_mxm time (0 when it failed or is absent). */
static double graphblas(const bench *b, const rvs_csr *A, const rvs_csr *B)
{
    double t[64], x = 0;
    rvs_error err;
    const int n = b->big ? 1 : b->reps;
    for (int q = b->big ? 0 : -1; q < n; q++) {
        if (rvs_spgemm_graphblas(NULL, A, B, &x, &err) != RVS_OK)
            return 0;
        if (q >= 0)
            t[q] = x;
    }
    return rvs_tool_median(t, n);
}

/* The first rows of A (at most 4096) times B: warms the GPU libraries up for --big. */
static void warm_gpu(bench *b, const rvs_csr *A, const rvs_csr *B)
{
    int64_t n = A->rows < 4096 ? A->rows : 4096, *rows = malloc((size_t)(n + 1) * sizeof *rows);
    rvs_csr S = {0}, C;
    rvs_spgemm_stats s;
    rvs_error err;
    double k, t;
    int alg;
    for (int64_t i = 0; rows && i < n; i++)
        rows[i] = i;
    if (rows && rvs_csr_extract_rows(&S, A, rows, n, 0, 0, &err) == RVS_OK) {
        if (rvs_spgemm_gpu(&C, &S, B, &b->o, &s, &err) == RVS_OK) {
            if (b->cold_setup < 0)
                b->cold_setup = s.t_setup;
            rvs_csr_free(&C);
        }
        if (b->cusparse)
            rvs_spgemm_cusparse(NULL, &S, B, 1, 1, &k, &t, &alg, NULL, &err);
    }
    rvs_csr_free(&S);
    free(rows);
}

/* One GPU run with every step timed, as "trace LABEL step=seconds ..." on stderr. */
static void trace(const bench *b, const char *label, const rvs_csr *A, const rvs_csr *B)
{
    static const char *names[] = {RVS_SPGEMM_TRACE_NAMES};
    rvs_spgemm_options o = b->o;
    rvs_spgemm_stats s;
    rvs_csr C;
    rvs_error err;
    o.trace = 1;
    if (rvs_spgemm_gpu(&C, A, B, &o, &s, &err) != RVS_OK) {
        fprintf(stderr, "bench_spgemm: trace: %s\n", err.msg);
        return;
    }
    rvs_csr_free(&C);
    fprintf(stderr, "trace %s %s total=%.6f blocks=%lld", label, rvs_vtype_name(A->vtype), s.t_total,
            (long long)s.blocks);
    for (int q = 0; q < RVS_SPGEMM_TRACE; q++)
        fprintf(stderr, " %s=%.6f", names[q], s.t_trace[q]);
    fputc('\n', stderr);
}

/* A number, or "-" when x is not positive. */
static void col(double x, const char *fmt)
{
    if (x > 0)
        printf(fmt, x);
    else
        printf(" -");
}

/* The row of one precision. */
static void bench_row(bench *b, const char *label, const rvs_csr *A, const rvs_csr *B)
{
    static const char *where_name[] = {"-", "cpu", "gpu", "hybrid"};
    rvs_spgemm_stats cpu = {0}, gpu = {0}, s = {0};
    rvs_csr Cgpu = {0};
    rvs_error err;
    int64_t products = 0;
    const int keep = A->nnz < (1 << 21); /* check the GPU's C as --check does (memory, time) */
    double cpu_s = 0, gpu_s = 0, ker_s = 0, hyb_s = 0, auto_s = 0, grb_s = 0, ck = 0, ct = 0, auto_pre = 0;
    size_t cpeak = 0;
    int alg = 0, same = -1;
    if (rvs_spgemm_count_products(A, B, &products, &err) != RVS_OK)
        rvs_tool_die_err(label, &err);
    if (b->ours && (b->cpu_max <= 0 || (double)products <= b->cpu_max))
        cpu_s = timed(b, K_CPU, A, B, NULL, &cpu);
    if (b->ours && b->graphblas)
        grb_s = graphblas(b, A, B);
    if (b->gpu) {
        if (b->big)
            warm_gpu(b, A, B);
        if (b->ours) {
            timed_pair(b, K_GPU, K_AUTO, A, B, keep ? &Cgpu : NULL, &gpu, &s, &gpu_s, &auto_s);
            auto_pre = s.t_pre;
            ker_s = timed(b, K_KERNEL, A, B, NULL, &s);
            if (b->hybrid)
                hyb_s = timed(b, K_HYBRID, A, B, NULL, &s);
        }
        if (b->cusparse &&
            rvs_spgemm_cusparse(NULL, A, B, b->big ? 1 : b->reps, !b->big, &ck, &ct, &alg, &cpeak, &err) != RVS_OK)
            fprintf(stderr, "bench_spgemm: %s: cuSPARSE: %s\n", label, err.msg);
        if (keep && gpu_s > 0) {
            double maxerr;
            same = rvs_spgemm_check(&Cgpu, A, B, rvs_spgemm_tolerance(A->vtype), &maxerr, &err) == RVS_OK;
        }
        if (b->trace)
            trace(b, label, A, B);
    }
    if (b->ours && !b->gpu) {
        auto_s = timed(b, K_AUTO, A, B, NULL, &s);
        auto_pre = s.t_pre;
    }
    const double best = cpu_s > 0 && (gpu_s <= 0 || cpu_s < gpu_s) ? cpu_s : gpu_s;
    printf("%s %s %lld %lld %lld", label, rvs_vtype_name(A->vtype), (long long)A->rows, (long long)A->nnz,
           (long long)products);
    col((double)(cpu_s > 0 ? cpu.nnz_c : gpu.nnz_c), " %.0f");
    col(cpu_s, " %.6f");
    col(gpu_s, " %.6f");
    col(ker_s, " %.6f");
    col(b->gpu && b->ours ? b->cold_setup : 0, " %.6f");
    printf(" %s", auto_s > 0 ? where_name[b->where] : "-");
    col(auto_s, " %.6f");
    printf(" %d", alg);
    col(alg ? ck : 0, " %.6f");
    col(alg ? ct : 0, " %.6f");
    col(alg && ker_s > 0 ? ck / ker_s : 0, " %.3f");
    col(alg && gpu_s > 0 ? ct / gpu_s : 0, " %.3f");
    col(alg && auto_s > 0 ? ct / auto_s : 0, " %.3f");
    col(auto_s > 0 && best > 0 ? best / auto_s : 0, " %.3f");
    col(gpu_s > 0 ? (double)gpu.blocks : 0, " %.0f");
    col(gpu_s > 0 ? (double)gpu.gpu_peak_bytes / 1048576.0 : 0, " %.1f");
    printf(" %s", same < 0 ? "-" : same ? "yes" : "NO");
    col(hyb_s, " %.6f");
    col(grb_s, " %.6f");
    col(gpu_s > 0 ? gpu.t_pre : 0, " %.6f"); /* the work before the product: auto's has the choice too */
    col(auto_s > 0 ? auto_pre : 0, " %.6f");
    putchar('\n');
    fflush(stdout);
    rvs_csr_free(&Cgpu);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"label", required_argument, 0, 'l'},
                                         {"precision", required_argument, 0, 'p'},
                                         {"reps", required_argument, 0, 'r'},
                                         {"no-gpu", no_argument, 0, 'G'},
                                         {"big", no_argument, 0, 'B'},
                                         {"header", no_argument, 0, 'H'},
                                         {"trace", no_argument, 0, 'T'},
                                         {"cpu-max", required_argument, 0, 'M'},
                                         {"passes", required_argument, 0, 'P'},
                                         {"hybrid", no_argument, 0, 'Y'},
                                         {"graphblas", no_argument, 0, 'g'},
                                         {"no-cusparse", no_argument, 0, 'N'},
                                         {"cusparse-only", no_argument, 0, 'O'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *label = NULL, *precisions = "f64";
    bench b;
    int c;
    rvs_stream S;
    rvs_csr T = {0};
    rvs_error err;
    memset(&b, 0, sizeof b);
    b.reps = 5;
    b.gpu = 1;
    b.cusparse = 1;
    b.ours = 1;
    b.cold_setup = -1;
    rvs_tool_init("bench_spgemm");
    while ((c = getopt_long(argc, argv, "l:p:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'l': label = optarg; break;
        case 'p': precisions = optarg; break;
        case 'r': b.reps = (int)rvs_tool_parse_int("--reps", optarg, 1, 64); break;
        case 'G': b.gpu = 0; break;
        case 'B': b.big = 1; break;
        case 'T': b.trace = 1; break;
        case 'M': b.cpu_max = strtod(optarg, NULL); break;
        case 'P': b.o.passes = (int)rvs_tool_parse_int("--passes", optarg, 1, 2); break;
        case 'Y': b.hybrid = 1; break;
        case 'g': b.graphblas = 1; break;
        case 'N': b.cusparse = 0; break;
        case 'O': b.ours = 0; break;
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
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK || rvs_csr_convert_values(&S.A, RVS_F64, &err) != RVS_OK)
        rvs_tool_die_err(in, &err);
    b.gpu = b.gpu && rvs_gpu_count() > 0;
    for (const char *p = precisions; *p;) { /* f64 first: converting down loses nothing needed */
        const size_t n = strcspn(p, ",");
        const rvs_vtype vt = strncmp(p, "f32", n) == 0 && n == 3 ? RVS_F32 : RVS_F64;
        const rvs_csr *A = &S.A, *B;
        if (rvs_csr_convert_values(&S.A, vt, &err) != RVS_OK ||
            (A->rows != A->cols && rvs_csr_transpose(&T, A, &err) != RVS_OK))
            rvs_tool_die_err(in, &err);
        B = A->rows == A->cols ? A : &T; /* A*A: the same operand twice, as users pass it */
        bench_row(&b, label, A, B);
        rvs_csr_free(&T);
        p += n + (p[n] == ',');
    }
    rvs_stream_free(&S);
    rvs_spgemm_gpu_release();
    return 0;
}
