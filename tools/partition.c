/* partition.c - the partition program: row vector sets for K processors (Algorithms 1-4) */
#include <getopt.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rvs_engine.h"
#include "rvs_gpu.h"
#include "rvs_tool.h"


static const char usage[] =
    "Usage: partition [OPTION]... [FILE]\n"
    "Split a matrix (RVS stream or .mtx, from FILE or standard input) into row vector sets,\n"
    "one per processor, and write the stream with the partition.\n"
    "\n"
    "  -a, --alg ALG        rows, nnz, pmf or diag (Algorithms 1-4) [pmf]\n"
    "  -c, --cp LIST|auto   computing powers, e.g. 75,75,1,1,1 or 75:gpu,1:cpu,1:cpu;\n"
    "                       gpuN/cpuN bind a part to processor N (spmv-mpi: rank N);\n"
    "                       auto: one part per GPU and per remaining core, by the recorded\n"
    "                       calibration [buckets of similar row length from the PMF on the\n"
    "                       GPU (the CPU without one), plus a CPU part where the calibrated\n"
    "                       model says it shortens a call; see partition(1)]\n"
    "  -b, --block-size N   diagonal block size for diag [32]\n"
    "  -r, --report         print per-part and per-partition metrics (not the stream)\n"
    "      --calibrate      measure SpMV rates of the GPU, one core and all cores, and PCIe\n"
    "                       costs; record them for --cp auto and the default, print, exit\n"
    "  -o, --output FILE    write the stream to FILE [stdout when it is not a terminal]\n"
    "  -h, --help           show this help and exit\n"
    "  -V, --version        show the version and exit\n"
    "\n"
    "Exit status: 0 success, 64 usage, 65 bad input data, 66 missing input, 74 I/O error.\n"
    "See partition(1), rvs(5), rvskit(7).\n";

/* --cp auto: one part per GPU and per remaining core, by the recorded calibration. */
static void calibrated_cp(double **cp, rvs_device **dev, int *k)
{
    rvs_calibration cal;
    rvs_error err;
    if (rvs_calibration_load(&cal, &err) != RVS_OK)
        rvs_tool_die(RVS_EX_USAGE, NULL, "--cp auto: no calibration recorded (run 'partition --calibrate')");
    const double gpu_cp = cal.gpu_gflops, core_cp = cal.core_gflops;
    int gpus = rvs_gpu_count(), cores = omp_get_num_procs();
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

/* Per-part and per-partition metrics as plain columns; note: how the default was made, or "". */
static void print_report(FILE *f, const rvs_stream *S, const int32_t *number, const char *note)
{
    const rvs_partition *P = &S->partition;
    fprintf(f, "# matrix %s  alg %s  parts %d  rows %lld  nnz %lld\n", S->name[0] ? S->name : "-",
            rvs_alg_name(P->alg), P->k, (long long)S->A.rows, (long long)S->A.nnz);
    if (note[0])
        fprintf(f, "# default computing powers: %s\n", note);
    fprintf(f, "# part device cp N W NNZ E padded density nnz_share cp_share\n");
    double cpsum = 0;
    for (int i = 0; i < P->k; i++)
        cpsum += P->parts[i].cp;
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        char dev[16] = "";
        if (number && number[i] >= 0)
            snprintf(dev, sizeof dev, "%d", (int)number[i]);
        fprintf(f, "%d %s%s %g %lld %lld %lld %lld %lld %.4f %.4f %.4f\n", i + 1,
                q->device == RVS_DEV_GPU ? "gpu" : "cpu", dev, q->cp, (long long)q->nrows, (long long)q->width,
                (long long)q->nnz, (long long)q->e, (long long)q->padded, q->density,
                P->nnz ? (double)q->nnz / (double)P->nnz : 0.0, q->cp / cpsum);
    }
    fprintf(f, "# mean_density %.4f  mean_zero_fill %.4f  padded %lld  E %lld  rel_diff_pct %.4f\n",
            P->mean_density, P->mean_zero_fill, (long long)P->padded_total, (long long)P->e_total,
            P->rel_diff_pct);
}

/* Measure, record and print the computing powers and PCIe costs. */
static int calibrate(void)
{
    rvs_calibration c;
    rvs_error err;
    if (rvs_calibrate(&c, &err) != RVS_OK)
        rvs_tool_die_err("calibration", &err);
    if (rvs_calibration_save(&c, &err) != RVS_OK)
        rvs_tool_die_err("calibration", &err);
    printf("gpu %.3f\ncpu %.3f\n", c.gpu_gflops / c.core_gflops, 1.0);
    printf("# GFLOP/s: gpu %.2f, one core %.3f, %d threads %.2f; PCIe GB/s: in %.2f, out %.2f; round trip %.1f us\n",
           c.gpu_gflops, c.core_gflops, c.threads, c.cpu_gflops, c.h2d_gbs, c.d2h_gbs, c.launch_us);
    return 0;
}

int main(int argc, char **argv)
{
    enum { OPT_CALIBRATE = 1000 };
    static const struct option opts[] = {
        {"alg", required_argument, 0, 'a'},        {"cp", required_argument, 0, 'c'},
        {"block-size", required_argument, 0, 'b'}, {"report", no_argument, 0, 'r'},
        {"calibrate", no_argument, 0, OPT_CALIBRATE}, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},             {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *out = NULL, *cps = NULL;
    rvs_alg alg = RVS_ALG_PMF;
    long long block = 32;
    int report = 0, c, k = 0;
    double *cp = NULL;
    rvs_device *dev = NULL;
    int32_t *number = NULL; /* processor of each part (gpuN, cpuN), -1 free; NULL: none named */
    rvs_stream S;
    rvs_error err;
    char why[256], note[256] = "";
    rvs_tool_init("partition");
    while ((c = getopt_long(argc, argv, "a:c:b:ro:hV", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            alg = rvs_alg_from_name(optarg);
            if (!alg)
                rvs_tool_usage("--alg: '%s' is not one of rows, nnz, pmf, diag", optarg);
            break;
        case 'c': cps = optarg; break;
        case 'b': block = rvs_tool_parse_int("--block-size", optarg, 1, 1LL << 40); break;
        case 'r': report = 1; break;
        case OPT_CALIBRATE: return calibrate();
        case 'o': out = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': rvs_tool_version();
        default: rvs_tool_bad_option(argv);
        }
    }
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    if (cps && strcmp(cps, "auto") != 0) {
        if (rvs_tool_parse_cp(cps, &cp, &dev, &number, &k, why, sizeof why) != 0)
            rvs_tool_usage("--cp: %s", why);
    } else if (cps) {
        calibrated_cp(&cp, &dev, &k);
    }
    if (cps && alg == RVS_ALG_DIAG && k < 2)
        rvs_tool_usage("--alg diag needs at least two computing powers (R1's, then R2's parts)");
    const char *in = optind < argc ? argv[optind] : NULL;
    const char *name = rvs_tool_input_name(in);
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    if (!cps) { /* buckets from the PMF; a CPU part only where the calibrated model says it pays */
        rvs_calibration cal;
        int have = rvs_calibration_load(&cal, &err) == RVS_OK;
        if (rvs_default_cp(&S.A, alg, rvs_gpu_count(), have ? &cal : NULL, &cp, &dev, &k, note, sizeof note,
                           &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
    }
    rvs_stream_drop_formats(&S);
    rvs_partition_free(&S.partition);
    S.has_partition = 0;
    if (rvs_partition_compute(&S.partition, &S.A, alg, k, cp, dev, block, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    S.has_partition = 1;
    if (rvs_placement_set(&S, number, &err) != RVS_OK) /* also drops the binding of an older partition */
        rvs_tool_die_err(name, &err);
    int stream = out || (!report && rvs_tool_want_stream(NULL));
    if (report || !stream || (out && isatty(1)))
        print_report(stdout, &S, number, note);
    if (report && fflush(stdout) != 0)
        rvs_tool_die(RVS_EX_IOERR, "stdout", "write error");
    if (stream && rvs_tool_write_stream(out, &S, &err) != RVS_OK)
        rvs_tool_die_err(out ? out : "stdout", &err);
    rvs_stream_free(&S);
    free(cp);
    free(dev);
    free(number);
    return 0;
}
