/* partition.c - the partition program: row vector sets for K processors (Algorithms 1-4, METIS) */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "partition_choose.h"
#include "rvs_engine.h"
#include "rvs_report.h"
#include "rvs_tool.h"

static const char usage[] =
    "Usage: partition [OPTION]... [FILE]\n"
    "Split a matrix (RVS stream or .mtx, from FILE or standard input) into row vector sets,\n"
    "one per processor, and write the stream with the partition.\n"
    "\n"
    "  -a, --alg ALG        rows, nnz, pmf or diag (Algorithms 1-4), or metis (METIS k-way\n"
    "                       on the graph of A + A^T: few x entries cross parts) [pmf]\n"
    "      --cp LIST|auto   computing powers, e.g. 75,75,1,1,1 or 75:gpu,1:cpu,1:cpu;\n"
    "                       gpuN/cpuN bind a part to processor N (spmv-mpi: rank N);\n"
    "                       auto: one part per GPU and per remaining core, by the recorded\n"
    "                       calibration [buckets of similar row length from the PMF on the\n"
    "                       GPU (the CPU without one), plus a CPU part where the calibrated\n"
    "                       model says it shortens a call; see partition(1)]\n"
    "      --parts N        N parts of equal computing power on the CPU (--cp 1,1,..,1)\n"
    "      --block-size N   diagonal block size for diag [32]\n"
    "  -r, --report         print per-part and per-partition metrics (not the stream)\n"
    "      --json           print the metrics as one JSON object (not the stream)\n"
    "      --compare        print a line per row algorithm (nnz, rows, pmf, metis) for these\n"
    "                       parts: balance, edge cut, volume of x moved per SpMV, time; and\n"
    "                       the one spmv-mpi takes (not the stream)\n"
    "      --calibrate      measure SpMV rates of the GPU, one core and all cores, and PCIe\n"
    "                       costs; record them for --cp auto and the default, print, exit\n"
    "                       (69 without a GPU: nothing is recorded)\n"
    "  -o, --output FILE    write the stream to FILE [stdout when it is not a terminal]\n"
    "      --edges          a text input is an edge list ('src dst [weight]', 0-based)\n"
    "      --size N         the edge list's size [its largest index + 1]\n"
    "  -t, --threads N      threads that read Matrix Market and measure [all cores]\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Exit status: 0 success, 64 usage, 65 bad input data, 66 missing input, 69 no GPU\n"
    "(--calibrate) or no METIS (--alg metis), 74 I/O error.\n"
    "See partition(1), rvs(5), rvskit(7).\n";

/* --cp auto: one part per GPU and per remaining core, by the recorded calibration. */
static void calibrated_cp(double **cp, rvs_device **dev, int *k)
{
    rvs_calibration cal;
    rvs_error err;
    if (rvs_calibration_load(&cal, &err) != RVS_OK)
        rvs_tool_die(RVS_EX_USAGE, NULL, "--cp auto: no calibration recorded (run 'partition --calibrate')");
    const double gpu_cp = cal.gpu_gflops, core_cp = cal.core_gflops;
    int gpus = rvs_engine_gpus(NULL, 0), cores = omp_get_num_procs();
    int cpus = cores > gpus ? cores - gpus : (gpus ? 0 : 1);
    *k = gpus + cpus;
    *cp = malloc((size_t)*k * sizeof **cp);
    *dev = malloc((size_t)*k * sizeof **dev);
    if (!*cp || !*dev)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    for (int i = 0; i < *k; i++) {
        (*cp)[i] = i < gpus ? gpu_cp / core_cp : 1.0;
        (*dev)[i] = i < gpus ? RVS_DEV_GPU : RVS_DEV_CPU;
    }
}

/* Measure, record and print the computing powers and PCIe costs; without a GPU there is
 * nothing to weigh the cores against, and nothing is recorded (69). */
static int calibrate(int json)
{
    rvs_calibration c;
    rvs_error err;
    char desc[256];
    if (rvs_engine_gpus(desc, sizeof desc) == 0) {
        rvs_tool_die(RVS_EX_UNAVAILABLE, "calibration",
                     "no GPU (%s): nothing to weigh the cores against, nothing recorded", desc);
    }
    if (rvs_calibrate(&c, &err) != RVS_OK || rvs_calibration_save(&c, &err) != RVS_OK)
        rvs_tool_die_err("calibration", &err);
    if (json) {
        rvs_json j;
        rvs_report_json_begin(&j, stdout, "partition", NULL);
        rvs_report_calibration_json(&j, &c);
        rvs_report_json_finish(&j);
    } else {
        rvs_report_calibration_text(stdout, &c);
    }
    return 0;
}

/* partition --compare: each row algorithm's partition of S's matrix into k parts of computing
 * powers cp, a line each (partition(1) gives the columns), and the one spmv-mpi would take. */
static void compare(const char *name, const rvs_stream *S, int k, const double *cp)
{
    rvs_alg algs[4];
    rvs_partition_score sc[4];
    rvs_error err;
    const int n = rvs_partition_candidates(algs);
    for (int i = 0; i < n; i++)
        if (rvs_partition_score_one(&sc[i], NULL, &S->A, algs[i], k, cp, &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
    printf("# %s: %lld x %lld, nnz %lld, %d parts\n", name, (long long)S->A.rows, (long long)S->A.cols,
           (long long)S->A.nnz, k);
    printf("# alg parts max_nnz mean_nnz imbalance edge_cut volume volume_bytes ms\n");
    for (int i = 0; i < n; i++) {
        const rvs_partition_score *s = &sc[i];
        if (s->status != RVS_OK)
            continue;
        printf("%s %d %lld %.1f %.4f %lld %lld %lld %.3f\n", rvs_alg_name(s->alg), k, (long long)s->max_nnz,
               (double)S->A.nnz / k, s->imbalance, (long long)s->cut.edge_cut, (long long)s->cut.volume,
               (long long)s->cut.volume * 8, s->ms);
    }
    int R, C;
    rvs_mpi_grid_shape(k, &R, &C);
    const int64_t grid = rvs_mpi_grid_volume(S->A.rows, S->A.cols, R, C);
    printf("# 2d %dx%d (spmv-mpi --grid auto): volume %lld volume_bytes %lld (x entries expanded and partial y "
           "entries folded), each rank exchanging with %d others at most\n",
           R, C, (long long)grid, (long long)grid * 8, R + C - 2);
    for (int i = 0; i < n; i++)
        if (sc[i].status != RVS_OK)
            printf("# %s\n", sc[i].msg); /* its message names it */
    if (!rvs_partition_have_metis())
        printf("# metis: built without METIS\n");
    for (int i = 0; i < n; i++) /* what spmv-mpi would try */
        if (!rvs_partition_choose_tries(sc[i].alg, &S->A)) {
            sc[i].status = RVS_ERR_UNSUPPORTED;
            printf("# spmv-mpi does not try %s past %lld entries\n", rvs_alg_name(sc[i].alg),
                   (long long)RVS_PICK_METIS_MAX_NNZ);
        }
    const int pick = rvs_partition_pick(sc, n);
    if (pick >= 0)
        printf("# spmv-mpi takes %s: the least volume of those within %.0f%% of the best imbalance\n",
               rvs_alg_name(sc[pick].alg), RVS_PICK_BALANCE_SLACK * 100);
    if (fflush(stdout) != 0 || ferror(stdout))
        rvs_tool_die(RVS_EX_IOERR, "stdout", "write error");
}

/* The report asked for (or the terminal's), on stdout. */
static void print_report(int json, const char *name, const rvs_stream *S, const char *note)
{
    if (json) {
        rvs_json j;
        rvs_report_json_begin(&j, stdout, "partition", name);
        rvs_report_partition_json(&j, S, note);
        rvs_report_json_finish(&j);
        return;
    }
    rvs_report_partition_text(stdout, S, note);
    if (fflush(stdout) != 0 || ferror(stdout))
        rvs_tool_die(RVS_EX_IOERR, "stdout", "write error");
}

int main(int argc, char **argv)
{
    enum { OPT_CALIBRATE = 1000, OPT_JSON, OPT_CP, OPT_BLOCK, OPT_COMPARE, OPT_PARTS };
    static const struct option opts[] = {{"alg", required_argument, 0, 'a'},
                                         {"cp", required_argument, 0, OPT_CP},
                                         {"parts", required_argument, 0, OPT_PARTS},
                                         {"block-size", required_argument, 0, OPT_BLOCK},
                                         {"report", no_argument, 0, 'r'},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"compare", no_argument, 0, OPT_COMPARE},
                                         {"calibrate", no_argument, 0, OPT_CALIBRATE},
                                         {"output", required_argument, 0, 'o'},
                                         {"threads", required_argument, 0, 't'},
                                         RVS_TOOL_INPUT_OPTIONS,
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    const char *out = NULL, *cps = NULL;
    rvs_alg alg = RVS_ALG_PMF;
    long long block = 32, nparts = 0;
    int report = 0, json = 0, calib = 0, comparing = 0, c, k = 0;
    double *cp = NULL;
    rvs_device *dev = NULL;
    int32_t *number = NULL; /* processor of each part (gpuN, cpuN), -1 free; NULL: none named */
    rvs_stream S;
    rvs_error err;
    char why[256], note[256] = "";
    rvs_tool_init("partition");
    while ((c = rvs_tool_getopt(argc, argv, "a:ro:t:hV", opts)) != -1) {
        switch (c) {
        case 'a':
            alg = rvs_alg_from_name(optarg);
            if (!alg)
                rvs_tool_usage("--alg: '%s' is not one of rows, nnz, pmf, diag, metis", optarg);
            break;
        case OPT_PARTS: nparts = rvs_tool_parse_int("--parts", optarg, 1, RVS_PLACE_MAX); break;
        case OPT_CP: cps = optarg; break;
        case OPT_BLOCK: block = rvs_tool_parse_int("--block-size", optarg, 1, 1LL << 40); break;
        case 'r': report = 1; break;
        case OPT_JSON: json = 1; break;
        case OPT_COMPARE: comparing = 1; break;
        case OPT_CALIBRATE: calib = 1; break;
        case 'o': out = optarg; break;
        case 't': rvs_tool_set_threads(optarg); break;
        case RVS_OPT_EDGES:
        case RVS_OPT_SIZE: rvs_tool_input_option(c, optarg); break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': rvs_tool_version();
        }
    }
    if (report && json)
        rvs_tool_usage("--report and --json exclude each other");
    if (comparing && (report || json || out))
        rvs_tool_usage("--compare prints its table only: not with --report, --json or -o");
    if (nparts && cps)
        rvs_tool_usage("--parts and --cp exclude each other");
    if (calib)
        return calibrate(json);
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    if (cps && strcmp(cps, "auto") != 0) {
        if (rvs_tool_parse_cp(cps, &cp, &dev, &number, &k, why, sizeof why) != 0)
            rvs_tool_usage("--cp: %s", why);
    } else if (cps) {
        calibrated_cp(&cp, &dev, &k);
    }
    if (nparts) { /* from here as if given by --cp 1,1,..,1 */
        k = (int)nparts;
        if (!(cp = malloc((size_t)k * sizeof *cp)) || !(dev = calloc((size_t)k, sizeof *dev)))
            rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
        for (int i = 0; i < k; i++)
            cp[i] = 1;
        cps = "--parts";
    }
    if (alg == RVS_ALG_METIS && !comparing && !rvs_partition_have_metis())
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "--alg metis: built without METIS (libmetis-dev)");
    if (cps && alg == RVS_ALG_DIAG && k < 2)
        rvs_tool_usage("--alg diag needs at least two computing powers (R1's, then R2's parts)");
    const char *in = optind < argc ? argv[optind] : NULL;
    const char *name = rvs_tool_input_name(in);
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    if (!cps) { /* buckets from the PMF; a CPU part only where the calibrated model says it pays */
        rvs_calibration cal;
        int have = rvs_calibration_load(&cal, &err) == RVS_OK;
        if (rvs_default_cp(&S.A, alg, rvs_engine_gpus(NULL, 0), have ? &cal : NULL, &cp, &dev, &k, note,
                           sizeof note, &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
    }
    if (comparing) {
        compare(name, &S, k, cp);
        rvs_stream_free(&S);
        free(cp);
        free(dev);
        free(number);
        return 0;
    }
    rvs_stream_drop_formats(&S);
    rvs_partition_free(&S.partition);
    S.has_partition = 0;
    if (rvs_partition_compute(&S.partition, &S.A, alg, k, cp, dev, block, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    S.has_partition = 1;
    if (rvs_placement_set(&S, number, &err) != RVS_OK) /* also drops the binding of an older partition */
        rvs_tool_die_err(name, &err);
    const int asked = report || json;
    int stream = out || (!asked && rvs_tool_want_stream(NULL));
    if (asked || !stream || (out && isatty(1)))
        print_report(json, name, &S, note);
    if (stream && rvs_tool_write_stream(out, &S, &err) != RVS_OK)
        rvs_tool_die_err(out ? out : "stdout", &err);
    rvs_stream_free(&S);
    free(cp);
    free(dev);
    free(number);
    return 0;
}
