/* spgemm.c - the spgemm program: C = A*B on the CPU, the GPU or both (chosen by the engine
 * unless told), with timings */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "rvs_spgemm_report.h"
#include "rvs_tool.h"
#include "rvs_engine_spgemm.h"

static const char usage[] =
    "Usage: spgemm [OPTION]... [A [B]]\n"
    "Compute C = A*B (A*A when B is left out) for sparse A and B, each a Matrix Market file\n"
    "(.mtx, .mtx.gz) or an RVS stream ('-' or nothing: standard input). Write C as a stream\n"
    "(stdout when it is not a terminal, or -o FILE), or as Matrix Market with -o C.mtx, and\n"
    "print the products, nnz(C), the time of each stage and GFLOP/s (2 * products / time).\n"
    "\n"
    "  -o, --output FILE        write C to FILE: Matrix Market when FILE ends in .mtx or\n"
    "                           .mtx.gz (any case), else a stream [stdout when not a terminal];\n"
    "                           from the GPU, C is written block by block as it comes (it need\n"
    "                           not fit in memory; not for .mtx.gz)\n"
    "      --digits N           Matrix Market output: significant digits, 1..17 [the fewest\n"
    "                           that read back exactly]\n"
    "  -p, --precision TYPE     f32 or f64: precision of A, B and C; complex operands stay\n"
    "                           complex (c64, c128), and a real one meets a complex one as\n"
    "                           complex [f64]\n"
    "      --cpu                multiply on the CPU (OpenMP)\n"
    "      --gpu                multiply on the GPU\n"
    "      --hybrid             long rows on the CPU, the rest on the GPU at the same time\n"
    "                           [none of the three: chosen from the product count and the\n"
    "                           calibration, see spgemm(1)]\n"
    "      --method NAME        GPU method: rowwise (rows binned to ESC, hash and dense\n"
    "                           accumulators, in one pass where C fits) or hyspmm (the paper's\n"
    "                           host-expanded pipeline) [rowwise]\n"
    "      --calibrate          measure the CPU and GPU rates of the automatic choice, record\n"
    "                           them (spgemm(1), FILES) and exit\n"
    "  -c, --check              compare C with CSparse cs_dl_multiply (cs_cl_multiply for\n"
    "                           complex; same pattern, values within TOL * sum |a_ik b_kj|)\n"
    "      --tol NUM            tolerance of --check [1e-10 for f64, 1e-4 for f32]\n"
    "      --gpu-mem BYTES      GPU memory for the scratch and C (rowwise, one pass), else the\n"
    "                           blocks of C, or the row blocks (hyspmm); suffix K, M or G [90%\n"
    "                           of free device memory]\n"
    "      --slots INT          hyspmm: pipeline depth (blocks in flight) [3]\n"
    "      --block-products INT hyspmm: most products in one GPU block [33554432]\n"
    "      --cpu-share NUM      --hybrid: most of the products given to the CPU [0.1]\n"
    "  -b, --baseline           also time cuSPARSE SpGEMM (warm, median of 5; kernel-only and\n"
    "                           end-to-end, compared with total_s less setup_s), CSparse\n"
    "                           cs_dl_multiply and GraphBLAS GrB_mxm\n"
    "      --json               print the report as one JSON object (C only with -o)\n"
    "      --edges              a text input is an edge list ('src dst [weight]', 0-based)\n"
    "      --size N             the edge list's size [its largest index + 1]\n"
    "  -t, --threads N          CPU threads (OpenMP) [all cores]\n"
    "  -h, --help               show this help and exit\n"
    "  -V, --version            show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 check failed, 64 usage, 65 bad input data (dimension mismatch),\n"
    "66 missing input, 69 no GPU, 70 internal error or out of memory, 74 I/O error.\n"
    "See spgemm(1), rvs(5), rvskit(7).\n";

enum {
    OPT_CPU = 256,
    OPT_GPU,
    OPT_HYBRID,
    OPT_TOL,
    OPT_GPU_MEM,
    OPT_SLOTS,
    OPT_BLOCK,
    OPT_SHARE,
    OPT_METHOD,
    OPT_CALIBRATE,
    OPT_JSON,
    OPT_DIGITS
};
/* devs[] in print_report names them */
enum device {
    DEV_AUTO,
    DEV_CPU = RVS_SPGEMM_ON_CPU,
    DEV_GPU = RVS_SPGEMM_ON_GPU,
    DEV_HYBRID = RVS_SPGEMM_ON_HYBRID
};

typedef struct {
    const char *out, *a_path, *b_path;
    rvs_vtype vt;
    enum device dev, asked;
    int check, baseline, calibrate, json;
    char why[256];
    double tol;
    rvs_spgemm_options o;
} spgemm_args;

/* A positive number for an option; dies otherwise. */
static double parse_positive(const char *opt, const char *s, double max)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > max)
        rvs_tool_usage("%s: '%s' is not a number in (0, %g]", opt, s, max);
    return v;
}

/* Options and operands into a. */
static void parse_args(int argc, char **argv, spgemm_args *a)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"precision", required_argument, 0, 'p'},
                                         {"cpu", no_argument, 0, OPT_CPU},
                                         {"gpu", no_argument, 0, OPT_GPU},
                                         {"hybrid", no_argument, 0, OPT_HYBRID},
                                         {"check", no_argument, 0, 'c'},
                                         {"tol", required_argument, 0, OPT_TOL},
                                         {"gpu-mem", required_argument, 0, OPT_GPU_MEM},
                                         {"slots", required_argument, 0, OPT_SLOTS},
                                         {"block-products", required_argument, 0, OPT_BLOCK},
                                         {"cpu-share", required_argument, 0, OPT_SHARE},
                                         {"baseline", no_argument, 0, 'b'},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"digits", required_argument, 0, OPT_DIGITS},
                                         {"threads", required_argument, 0, 't'},
                                         RVS_TOOL_INPUT_OPTIONS,
                                         {"method", required_argument, 0, OPT_METHOD},
                                         {"calibrate", no_argument, 0, OPT_CALIBRATE},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    int c;
    memset(a, 0, sizeof *a);
    a->vt = RVS_F64;
    while ((c = rvs_tool_getopt(argc, argv, "o:p:cbt:hV", opts)) != -1) {
        switch (c) {
        case 'o': a->out = optarg; break;
        case 'p': a->vt = rvs_tool_parse_precision("--precision", optarg); break;
        case OPT_CPU: a->dev = DEV_CPU; break;
        case OPT_GPU: a->dev = DEV_GPU; break;
        case OPT_HYBRID: a->dev = DEV_HYBRID; break;
        case 'c': a->check = 1; break;
        case OPT_TOL: a->tol = parse_positive("--tol", optarg, 1); break;
        case OPT_GPU_MEM: a->o.gpu_mem_bytes = rvs_tool_parse_bytes("--gpu-mem", optarg); break;
        case OPT_SLOTS: a->o.slots = (int)rvs_tool_parse_int("--slots", optarg, 1, 64); break;
        case OPT_BLOCK:
            a->o.max_block_products = rvs_tool_parse_int("--block-products", optarg, 1, 1LL << 30);
            break;
        case OPT_SHARE: a->o.hybrid_cpu_share = parse_positive("--cpu-share", optarg, 1); break;
        case 'b': a->baseline = 1; break;
        case OPT_JSON: a->json = 1; break;
        case OPT_DIGITS: rvs_tool_set_digits((int)rvs_tool_parse_int("--digits", optarg, 1, 17)); break;
        case 't': rvs_tool_set_threads(optarg); break;
        case RVS_OPT_EDGES:
        case RVS_OPT_SIZE: rvs_tool_input_option(c, optarg); break;
        case OPT_METHOD:
            if (strcmp(optarg, "rowwise") == 0)
                a->o.method = RVS_SPGEMM_ROWWISE;
            else if (strcmp(optarg, "hyspmm") == 0)
                a->o.method = RVS_SPGEMM_HYSPMM;
            else
                rvs_tool_usage("--method: '%s' is not rowwise or hyspmm", optarg);
            break;
        case OPT_CALIBRATE: a->calibrate = 1; break;
        case 'h': fputs(usage, stdout); exit(0);
        case 'V': rvs_tool_version();
        }
    }
    if (argc - optind > 2)
        rvs_tool_usage("two input matrices at most");
    a->a_path = optind < argc ? argv[optind] : NULL;
    a->b_path = optind + 1 < argc ? argv[optind + 1] : NULL;
    if (a->b_path && strcmp(rvs_tool_input_name(a->a_path), "stdin") == 0 &&
        strcmp(rvs_tool_input_name(a->b_path), "stdin") == 0)
        rvs_tool_usage("A and B cannot both be standard input");
    if (a->tol == 0)
        a->tol = rvs_spgemm_tolerance(a->vt);
    a->asked = a->dev;
}

/* --calibrate: measure, record, print the rates. */
static int calibrate(void)
{
    rvs_spgemm_rates r;
    rvs_error err;
    if (rvs_spgemm_calibrate(&r, &err) != RVS_OK || rvs_spgemm_rates_save(&r, &err) != RVS_OK)
        rvs_tool_die_err(NULL, &err);
    printf("cpu_rate %.4g products/s on %d threads\ncpu_fixed %.4g s\ngpu_rate %.4g products/s\n"
           "gpu_fixed %.4g s\ngpu_start %.4g s\n",
           r.cpu_rate, r.cpu_threads, r.cpu_fixed_s, r.gpu_rate, r.gpu_fixed_s, r.gpu_start_s);
    return 0;
}

/* No device named: the engine's choice from the product count and the rates. Returns the
 * seconds it took. */
static double choose(spgemm_args *a, const rvs_csr *A, const rvs_csr *B)
{
    const double t0 = omp_get_wtime();
    rvs_spgemm_where w;
    rvs_error err;
    double share = 0;
    if (a->dev != DEV_AUTO)
        return 0;
    if (rvs_spgemm_decide(A, B, &w, &share, a->why, sizeof a->why, &err) != RVS_OK)
        rvs_tool_die_err(NULL, &err);
    a->dev = (enum device)w;
    if (w == RVS_SPGEMM_ON_HYBRID && a->o.hybrid_cpu_share == 0)
        a->o.hybrid_cpu_share = share;
    return omp_get_wtime() - t0;
}

/* C = A*B on the device chosen (the engine's rvs_spgemm_run), checked with --check; a GPU the
 * choice presumed and that is not there leaves the product to the CPU. Dies on error. */
static void multiply(spgemm_args *a, rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_stats *stats,
                     double *max_err)
{
    rvs_spgemm_where w = (rvs_spgemm_where)a->dev;
    rvs_error err;
    if (rvs_spgemm_run(C, A, B, &w, a->asked == DEV_AUTO, &a->o, stats, a->check ? a->tol : 0, max_err, &err) !=
        RVS_OK)
        rvs_tool_die_err(NULL, &err);
    a->dev = (enum device)w;
}

/* 1 when the operands may make a product worth the device's start-up: standard input, or
 * files of 4 MiB or more together (smaller ones are multiplied on the CPU before the device
 * would be up, and a process that started it would wait for it at exit). */
static int large_inputs(const spgemm_args *a)
{
    const char *p[2] = {a->a_path, a->b_path};
    long long bytes = 0;
    for (int q = 0; q < 2; q++) {
        struct stat sb;
        if (q == 1 && !p[q])
            break;
        if (!p[q] || strcmp(p[q], "-") == 0 || stat(p[q], &sb) != 0 || !S_ISREG(sb.st_mode))
            return 1;
        bytes += (long long)sb.st_size;
    }
    return bytes >= (4LL << 20);
}

/* Read one operand's matrix; dies on error. */
static void read_operand(const char *path, rvs_stream *S)
{
    rvs_error err;
    if (rvs_tool_read_input(path, S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(rvs_tool_input_name(path), &err);
}

/* Convert an operand to vt; dies on error. */
static void convert_operand(const char *path, rvs_vtype vt, rvs_stream *S)
{
    rvs_error err;
    if (rvs_csr_convert_values(&S->A, vt, &err) != RVS_OK)
        rvs_tool_die_err(rvs_tool_input_name(path), &err);
}

/* The report (text, or JSON with --json) on f. */
static void print_report(FILE *f, const spgemm_args *a, const rvs_csr *A, const rvs_csr *B,
                         const rvs_spgemm_stats *s, double max_err)
{
    static const char *const devs[] = {"auto", "cpu", "gpu", "hybrid"};
    rvs_spgemm_baselines base;
    rvs_spgemm_report r = {rvs_tool_input_name(a->a_path),
                           a->b_path ? rvs_tool_input_name(a->b_path) : NULL,
                           devs[a->dev],
                           a->asked == DEV_AUTO ? a->why : NULL,
                           a->o.method,
                           A->vtype,
                           A,
                           B,
                           s,
                           a->check,
                           max_err,
                           a->tol,
                           NULL};
    if (a->baseline) {
        rvs_spgemm_run_baselines(&base, A, B);
        r.base = &base;
    }
    rvs_spgemm_report_print(f, &r, a->json);
}

/* Write C: Matrix Market to a .mtx or .mtx.gz -o, else a stream (-o or stdout). Dies on error. */
static void write_result(const spgemm_args *a, rvs_stream *T)
{
    rvs_error err;
    if (rvs_tool_write_stream(a->out, T, &err) != RVS_OK)
        rvs_tool_die_err(a->out ? a->out : "stdout", &err);
}

/* The GPU with -o FILE and no --check: C goes to FILE block by block as the device produces it
 * (a stream needs a regular file). 1 when done so, 0 when C must be built in memory. */
static int gpu_to_file(const spgemm_args *a, rvs_stream *T, const rvs_csr *A, const rvs_csr *B,
                       rvs_spgemm_stats *stats)
{
    rvs_spgemm_sink sink;
    rvs_error err, e2;
    rvs_status st;
    const rvs_tool_out_kind kind = rvs_tool_output_kind(a->out);
    const int mtx = kind == RVS_OUT_MTX;
    FILE *f;
    if (kind == RVS_OUT_MTX_GZ || a->dev != DEV_GPU || a->check || a->o.method != RVS_SPGEMM_ROWWISE ||
        rvs_vtype_is_complex(A->vtype) || !(f = rvs_tool_open_text(a->out, &err)))
        return 0;
    st = mtx ? rvs_spgemm_mtx_sink(&sink, f, rvs_tool_digits(), &err)
             : rvs_spgemm_stream_sink(&sink, f, T->name, &err);
    if (st != RVS_OK) { /* not a regular file: in memory after all */
        rvs_tool_close_text(f, a->out, 0, &e2);
        return 0;
    }
    st = rvs_spgemm_gpu_to(&sink, &T->A, A, B, &a->o, stats, &err);
    if (st == RVS_OK)
        st = rvs_spgemm_sink_finish(&sink, &err);
    rvs_spgemm_sink_free(&sink);
    if (rvs_tool_close_text(f, a->out, st == RVS_OK, &e2) != RVS_OK && st == RVS_OK)
        err = e2, st = e2.code;
    if (st != RVS_OK)
        rvs_tool_die_err(st == RVS_ERR_IO ? a->out : NULL, &err);
    return 1;
}

int main(int argc, char **argv)
{
    spgemm_args a;
    rvs_stream SA, SB, T;
    rvs_spgemm_stats stats;
    double max_err = 0;
    rvs_tool_init("spgemm");
    parse_args(argc, argv, &a);
    if (a.calibrate)
        return calibrate();
    if (a.dev == DEV_GPU || a.dev == DEV_HYBRID || (a.dev == DEV_AUTO && large_inputs(&a)))
        rvs_spgemm_gpu_start(); /* the device starts while the operands are read */
    memset(&SB, 0, sizeof SB);
    memset(&T, 0, sizeof T);
    read_operand(a.a_path, &SA);
    if (a.b_path)
        read_operand(a.b_path, &SB);
    /* -p's precision; complex when either operand is (a real one meets it with zero parts) */
    const int cplx = rvs_vtype_is_complex(SA.A.vtype) || (a.b_path && rvs_vtype_is_complex(SB.A.vtype));
    a.vt = rvs_vtype_with_precision(cplx ? RVS_C128 : RVS_F64, a.vt);
    convert_operand(a.a_path, a.vt, &SA);
    if (a.b_path)
        convert_operand(a.b_path, a.vt, &SB);
    const rvs_csr *A = &SA.A, *B = a.b_path ? &SB.A : &SA.A;
    const char *bname = rvs_tool_input_name(a.b_path ? a.b_path : a.a_path);
    if (A->cols != B->rows)
        rvs_tool_die(RVS_EX_DATAERR, bname, "dimension mismatch: A is %lld x %lld, B is %lld x %lld",
                     (long long)A->rows, (long long)A->cols, (long long)B->rows, (long long)B->cols);
    snprintf(T.name, sizeof T.name, "%.120s*%.120s", SA.name[0] ? SA.name : "A",
             a.b_path ? (SB.name[0] ? SB.name : "B") : (SA.name[0] ? SA.name : "A"));
    const double t_choice = choose(&a, A, B);
    int written = a.out && gpu_to_file(&a, &T, A, B, &stats);
    if (!written)
        multiply(&a, &T.A, A, B, &stats, &max_err);
    stats.t_pre += t_choice; /* the choice is part of the work before the product */
    stats.t_total += t_choice;
    int stream_to_stdout = !a.out && !a.json && rvs_tool_want_stream(NULL);
    if (!written && (a.out || stream_to_stdout)) /* C first: if it cannot be written, no report */
        write_result(&a, &T);
    print_report(stream_to_stdout ? stderr : stdout, &a, A, B, &stats, max_err);
    if (fflush(stdout) != 0)
        rvs_tool_die(RVS_EX_IOERR, "stdout", "write error");
    rvs_stream_free(&T);
    rvs_stream_free(&SA);
    rvs_stream_free(&SB);
    rvs_spgemm_gpu_release();
    return 0;
}
