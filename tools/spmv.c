/* spmv.c - the spmv program: y = A*x through the engine's plan (every part in its format on the
 * CPU, the GPU or both at once), timed, optionally checked against a double-precision reference
 * (CXSparse for complex) and compared with cuSPARSE; options, engine calls and the report */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"
#include "rvs_spmv_report.h"
#include "rvs_tool.h"

static const char usage[] =
    "Usage: spmv [OPTION]... [FILE]\n"
    "Compute y = A*x for a matrix (RVS stream or .mtx, from FILE or standard input) by the\n"
    "engine's plan - every part of its partition in its format, the parts on one GPU as one\n"
    "CUDA graph - and print the plan's timing table.\n"
    "\n"
    "      --cpu              run every part on the CPU (OpenMP) [default without a GPU]\n"
    "      --gpu              run every part on the GPU [default with a GPU]\n"
    "      --hybrid           run each part where the partition put it, GPU and CPU at once\n"
    "  -f, --format FORMAT    format of parts without a format block, or auto (the advisor\n"
    "                         tries the candidates on the device) [auto]\n"
    "      --plan             print the plan (advising where needed) and exit\n"
    "      --no-fuse          keep GPU parts of one format as separate blocks\n"
    "      --parts            keep the parts even when the whole matrix would run faster\n"
    "      --no-cache         neither read nor write the advisor's trial cache\n"
    "      --edges            a text input is an edge list ('src dst [weight]', 0-based)\n"
    "      --size N           the edge list's size [its largest index + 1]\n"
    "      --gpu-mem BYTES    device memory the plan may use, suffix K, M or G; parts beyond\n"
    "                         it are streamed in chunks or run on the CPU [90%% of free]\n"
    "  -t, --threads INT      CPU threads [OMP_NUM_THREADS or all cores]\n"
    "  -n, --iters INT        timed runs; the median is reported, after 1 warm-up [10]\n"
    "  -p, --precision TYPE   f32, f64, or mixed (f32 values, f64 x, y and sums: the whole\n"
    "                         matrix in csr or hcc); a complex matrix stays complex (c64,\n"
    "                         c128) [the stream's value type; f64 or c128 for .mtx]\n"
    "  -x FILE                x as a Matrix Market array of cols entries (complex for a\n"
    "                         complex matrix, or real: imaginary parts 0) [random]\n"
    "  -s, --seed INT         seed of the random x, uniform in [-1,1] (both parts) [1]\n"
    "  -y FILE                write y as a Matrix Market array ('-': stdout, table to stderr)\n"
    "  -c, --check            compare y with A*x summed in double precision, row by row\n"
    "                         (complex: CXSparse); tolerance 1e-10 (f64, c128) or 1e-4\n"
    "                         (f32, c64) relative to sum |a_ij x_j|\n"
    "      --json             print the report as one JSON object\n"
    "  -b, --baseline         also time cuSPARSE CSR ALG1, CSR ALG2 and COO ALG1 (GPU)\n"
    "      --tune KEY=INT,... GPU kernel settings and build options for every GPU part: %s\n"
    "                         [the plan's]\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Rows: one per plan item (its parts, device, format), then kernels (the GPU graph alone),\n"
    "gpu and cpu (each side of a hybrid call), total (a whole call: x in, SpMV, y out).\n"
    "Columns: part device format rows nnz time_ms gflops gbs [frac_copy_bw].\n"
    "Exit status: 0 success, 1 check failed, 64 usage, 65 bad input data, 66 missing input,\n"
    "69 no GPU, 74 I/O error. See spmv(1), rvs(5), rvskit(7).\n";

typedef struct {
    const char *input, *xfile, *yfile;
    rvs_run_mode mode; /* 0: by the machine */
    int threads, iters, check, baseline, plan_only, json, mixed;
    rvs_vtype precision; /* 0: the stream's */
    unsigned long long seed;
    rvs_plan_options po;
} options;

/* Options from the command line (exits on --help, --version and misuse). */
static void parse_options(options *o, int argc, char **argv)
{
    enum {
        OPT_CPU = 1000,
        OPT_GPU,
        OPT_HYBRID,
        OPT_TUNE,
        OPT_PLAN,
        OPT_NOFUSE,
        OPT_PARTS,
        OPT_NOCACHE,
        OPT_JSON,
        OPT_GPU_MEM
    };
    static const struct option opts[] = {{"cpu", no_argument, 0, OPT_CPU},
                                         {"gpu", no_argument, 0, OPT_GPU},
                                         {"hybrid", no_argument, 0, OPT_HYBRID},
                                         {"format", required_argument, 0, 'f'},
                                         {"plan", no_argument, 0, OPT_PLAN},
                                         {"no-fuse", no_argument, 0, OPT_NOFUSE},
                                         {"parts", no_argument, 0, OPT_PARTS},
                                         {"no-cache", no_argument, 0, OPT_NOCACHE},
                                         {"threads", required_argument, 0, 't'},
                                         {"iters", required_argument, 0, 'n'},
                                         RVS_TOOL_INPUT_OPTIONS,
                                         {"precision", required_argument, 0, 'p'},
                                         {"seed", required_argument, 0, 's'},
                                         {"check", no_argument, 0, 'c'},
                                         {"baseline", no_argument, 0, 'b'},
                                         {"tune", required_argument, 0, OPT_TUNE},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {"gpu-mem", required_argument, 0, OPT_GPU_MEM},
                                         {0, 0, 0, 0}};
    rvs_error err;
    rvs_knobs knobs; /* --tune checked here; the planner sets it over each GPU item's */
    int c;
    memset(o, 0, sizeof *o);
    rvs_plan_options_default(&o->po);
    o->iters = 10;
    o->seed = 1;
    while ((c = rvs_tool_getopt(argc, argv, "f:t:n:p:x:y:s:cbhV", opts)) != -1) {
        switch (c) {
        case OPT_CPU: o->mode = RVS_MODE_CPU; break;
        case OPT_GPU: o->mode = RVS_MODE_GPU; break;
        case OPT_HYBRID: o->mode = RVS_MODE_HYBRID; break;
        case 'f': o->po.fallback = rvs_tool_parse_format("--format", optarg); break;
        case OPT_PLAN: o->plan_only = 1; break;
        case OPT_NOFUSE: o->po.fuse = 0; break;
        case OPT_PARTS: o->po.allow_whole = 0; break;
        case OPT_NOCACHE: o->po.advisor.use_cache = 0; break;
        case OPT_GPU_MEM: o->po.gpu_mem_bytes = rvs_tool_parse_bytes("--gpu-mem", optarg); break;
        case 't': o->threads = (int)rvs_tool_parse_int("--threads", optarg, 1, 4096); break;
        case RVS_OPT_EDGES:
        case RVS_OPT_SIZE: rvs_tool_input_option(c, optarg); break;
        case 'n': o->iters = (int)rvs_tool_parse_int("--iters", optarg, 1, 1000000); break;
        case 'p':
            o->mixed = strcmp(optarg, "mixed") == 0;
            if (strcmp(optarg, "f32") == 0 || strcmp(optarg, "f64") == 0)
                o->precision = optarg[1] == '3' ? RVS_F32 : RVS_F64;
            else if (!o->mixed)
                rvs_tool_usage("--precision: '%s' is not f32, f64 or mixed", optarg);
            break;
        case 'x': o->xfile = optarg; break;
        case 'y': o->yfile = optarg; break;
        case 's': o->seed = (unsigned long long)rvs_tool_parse_int("--seed", optarg, 0, 1LL << 62); break;
        case 'c': o->check = 1; break;
        case 'b': o->baseline = 1; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_TUNE:
            rvs_knobs_default(&knobs);
            if (rvs_knobs_parse(&knobs, optarg, &err) != RVS_OK)
                rvs_tool_usage("--tune: %s", err.msg);
            o->po.tune = optarg;
            break;
        case 'h': printf(usage, rvs_tune_keys()); exit(0);
        case 'V': rvs_tool_version();
        }
    }
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    o->input = optind < argc ? argv[optind] : NULL;
    o->po.consume = !o->baseline; /* the check has its reference before the hub goes */
    /* the model's doubts are tried between the timed calls; a plan with no calls to follow tries
     * them now, so that it shows what the runs would settle on */
    o->po.tune_between_calls = !o->plan_only;
    o->po.plan_consume = 1; /* ... made before the plan */
}

/* The mode against the machine: --cpu never starts CUDA; no GPU for --gpu/--hybrid is 69. */
static void choose_mode(options *o, rvs_engine_devices *dev)
{
    rvs_engine_devices_probe(dev, o->threads, o->mode != RVS_MODE_CPU);
    if (!o->mode)
        o->mode = dev->gpus > 0 ? RVS_MODE_GPU : RVS_MODE_CPU;
    if (o->mode != RVS_MODE_CPU && dev->gpus == 0)
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "--%s needs a GPU: %s", o->mode == RVS_MODE_GPU ? "gpu" : "hybrid",
                     dev->gpu_desc);
    if (o->baseline && o->mode == RVS_MODE_CPU)
        rvs_tool_usage("--baseline compares GPU kernels: use it with --gpu or --hybrid");
    o->po.mode = o->mode;
    rvs_calibration cal; /* rates of the model that streams a part or runs it on the CPU */
    rvs_error err;
    if (o->mode != RVS_MODE_CPU && rvs_calibration_load(&cal, &err) == RVS_OK)
        o->po.h2d_gbs = cal.h2d_gbs, o->po.cpu_gflops = cal.cpu_gflops;
}

/* Warm-up plus iters timed calls, then the graph and each item alone; with --check the warm-up
 * and one last untimed call, whose y is checked, start from a poisoned y (poisoning just before
 * a timed call would leave y dirty in the CPU caches and slow the copy of y into it). */
static void measure(const options *o, rvs_spmv_engine *E, const rvs_plan *P, rvs_spmv_results *R)
{
    const int n = o->iters;
    double *t[5];
    rvs_spmv_times tm;
    rvs_error err;
    for (int k = 0; k < 5; k++)
        if (!(t[k] = calloc((size_t)n, sizeof *t[k])))
            rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    for (int i = -1; i <= n; i++) {
        if (i == n && !o->check)
            break;
        if (rvs_spmv_engine_call(E, o->check && (i < 0 || i == n), &tm, &err) != RVS_OK)
            rvs_tool_die_err(o->mode == RVS_MODE_CPU ? "CPU" : "GPU", &err);
        if (i >= 0 && i < n)
            t[0][i] = tm.call_ms, t[1][i] = tm.gpu_ms, t[2][i] = tm.cpu_ms;
    }
    R->call_ms = rvs_spmv_median(t[0], n);
    R->gpu_ms = rvs_spmv_median(t[1], n);
    R->cpu_ms = rvs_spmv_median(t[2], n);
    int gpu = 0;
    for (int i = 0; i < P->nitems; i++)
        gpu |= P->items[i].device == RVS_DEV_GPU;
    for (int i = -1; gpu && i < n; i++)
        if (rvs_spmv_engine_kernels(E, i >= 0 ? &t[3][i] : &t[4][0], &err) != RVS_OK)
            rvs_tool_die_err("GPU", &err);
    R->kernel_ms = gpu ? rvs_spmv_median(t[3], n) : 0;
    for (int j = 0; j < P->nitems; j++) {
        for (int i = -1; i < n; i++)
            if (rvs_spmv_engine_item(E, j, i >= 0 ? &t[4][i] : &t[3][0], &err) != RVS_OK)
                rvs_tool_die_err(P->items[j].device == RVS_DEV_GPU ? "GPU" : "CPU", &err);
        R->item_ms[j] = rvs_spmv_median(t[4], n);
        R->bytes += (double)rvs_spmv_engine_item_bytes(E, j);
    }
    for (int k = 0; k < 5; k++)
        free(t[k]);
}

/* spmv --precision mixed: the whole matrix with f32 values, f64 x and y (engine/spmv_mixed.c),
 * checked against the matrix rounded to f32; returns the exit status. */
static int run_mixed(const options *o, const rvs_stream *S, const char *name)
{
    rvs_mixed_options mo;
    rvs_mixed_result M;
    rvs_spmv_results R = {.input = name, .mode = o->mode, .threads = o->threads, .iters = o->iters};
    rvs_csr A32;
    rvs_error err;
    if (rvs_vtype_is_complex(S->A.vtype))
        rvs_tool_usage("--precision mixed: %s is complex; mixed precision is for real matrices", name);
    if (o->mode == RVS_MODE_HYBRID || o->plan_only)
        rvs_tool_usage("--precision mixed runs the whole matrix on one device: --cpu or --gpu, no --plan");
    rvs_mixed_options_default(&mo);
    mo.device = o->mode == RVS_MODE_GPU ? RVS_DEV_GPU : RVS_DEV_CPU;
    mo.format = o->po.fallback;
    mo.iters = o->iters;
    if (mo.format && mo.format != RVS_FMT_CSR && mo.format != RVS_FMT_HCC)
        rvs_tool_usage("--format: mixed precision has kernels for csr and hcc only");
    double *x = malloc((size_t)S->A.cols * sizeof *x + 8), *y = malloc((size_t)S->A.rows * sizeof *y + 8);
    if (!x || !y)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    double *xd = rvs_spmv_make_x(o->xfile, o->seed, S, RVS_F64, x);
    rvs_mem_trace("spmv: runner ready");
    rvs_tool_status("timing");
    if (rvs_spmv_mixed(&S->A, &mo, xd, y, &A32, &M, &err) != RVS_OK)
        rvs_tool_die_err(o->mode == RVS_MODE_GPU ? "GPU" : "CPU", &err);
    rvs_tool_progress_done();
    if (o->check)
        rvs_spmv_check_y(&A32, xd, NULL, NULL, y, RVS_F64, &R, name);
    if (o->mode == RVS_MODE_GPU && rvs_engine_copy_bandwidth(0, 10, &R.copy_gbs, &err) != RVS_OK)
        rvs_tool_die_err("GPU", &err);
    if (o->baseline) {
        char what[64];
        R.nbase = 3;
        rvs_status st = rvs_baseline_cusparse(&S->A, RVS_F64, xd, xd, o->iters, o->check, R.base_ms, &R.check_err,
                                              what, sizeof what, &err);
        if (st == RVS_ERR_CHECK)
            rvs_tool_die(1, name, "check failed: %s: %s", what, err.msg);
        if (st != RVS_OK)
            rvs_tool_die_err("cuSPARSE", &err);
    }
    if (o->yfile)
        rvs_spmv_write_y(o->yfile, y, S->A.rows, 0);
    rvs_spmv_report_mixed(o->yfile && strcmp(o->yfile, "-") == 0 ? stderr : stdout, o->json, &R, S, &M);
    if (fflush(stdout) != 0 || ferror(stdout))
        rvs_tool_die(RVS_EX_IOERR, NULL, "write error on stdout");
    rvs_csr_free(&A32);
    free(x);
    free(xd);
    free(y);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    rvs_engine_devices dev;
    rvs_stream S;
    rvs_plan P;
    rvs_spmv_engine *E = NULL;
    rvs_spmv_results R;
    rvs_error err;
    rvs_tool_init("spmv");
    parse_options(&o, argc, argv);
    if (o.threads)
        rvs_tool_fit_threads("--threads", o.threads);
    choose_mode(&o, &dev);
    const char *name = rvs_tool_input_name(o.input);
    if (rvs_tool_read_input(o.input, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    rvs_mem_trace("spmv: stream read");
    if (S.A.cols > RVS_COL32_MAX) /* before x is allocated: the kernels index x with 32 bits */
        rvs_tool_die(RVS_EX_DATAERR, name, "%lld columns need 64-bit column indices, which spmv does not hold",
                     (long long)S.A.cols);
    /* a value of x and y is a double (two for complex), whatever the run's precision (their copies in it are
     * counted with the plan) */
    const double xy_value = rvs_vtype_is_complex(S.A.vtype) ? 16.0 : 8.0;
    if (rvs_mem_claim(xy_value * ((double)S.A.cols + (double)S.A.rows), "x and y", &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    if (o.mixed) {
        int rc = run_mixed(&o, &S, name);
        rvs_stream_free(&S);
        return rc;
    }
    o.po.vtype = o.precision ? rvs_vtype_with_precision(S.A.vtype, o.precision) : S.A.vtype;
    /* an f32 run of an f64 matrix runs, and is checked, on A rounded to f32, as convert -p f32 | spmv
     * does: values beyond f32's range are its infinities there, and every candidate sees the same A */
    if (rvs_vtype_real(o.po.vtype) == RVS_F32 && rvs_vtype_real(S.A.vtype) == RVS_F64 &&
        rvs_csr_convert_values(&S.A, o.po.vtype, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    if (o.baseline && rvs_vtype_is_complex(o.po.vtype))
        rvs_tool_usage("--baseline: the cuSPARSE baseline is real-valued and %s is complex", name);
    const int cplx = rvs_vtype_is_complex(o.po.vtype);
    o.po.consume &= !(cplx && o.check); /* the complex check reads the hub after the run */
    /* x, and y's reference, before anything gives the hub back: the engine as it builds the
     * blocks, or the planner as it builds the parts after the whole matrix to time both */
    const size_t xbytes = (size_t)S.A.cols * rvs_vtype_size(o.po.vtype);
    const int refd = o.check && !cplx && !o.plan_only;
    /* x drawn from the seed goes straight into the engine's array once it exists (drawn again:
     * the same values), so that no copy of it stands beside the blocks being built */
    const int redraw = !o.xfile;
    void *x = redraw || o.plan_only ? NULL : malloc(xbytes + 8);
    double *ref = NULL, *scale = NULL, *yd = NULL, *ycopy = NULL, *xd = NULL;
    if ((!x && !redraw && !o.plan_only) || (refd && (!(ref = malloc((size_t)S.A.rows * sizeof *ref + 8)) ||
                                                     !(scale = malloc((size_t)S.A.rows * sizeof *scale + 8)))))
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    if (!o.plan_only)
        xd = rvs_spmv_make_x(o.xfile, o.seed, &S, o.po.vtype, x); /* x NULL: xd alone */
    if (refd)
        rvs_spmv_reference(&S.A, xd, ref, scale);
    if (!o.baseline && !(o.check && cplx)) /* only cuSPARSE's and the complex check read x later */
        free(xd), xd = NULL;
    rvs_mem_trace("spmv: x and the reference made");
    rvs_tool_status("planning (formats are tried where none is given)");
    rvs_status pst = rvs_plan_make(&P, &S, &dev, &o.po, &err);
    rvs_tool_progress_done();
    if (pst != RVS_OK)
        rvs_tool_die_err(err.code == RVS_ERR_NODEV || err.code == RVS_ERR_DEVICE ? "GPU" : name, &err);
    if (o.plan_only) {
        rvs_plan_print(stdout, &P, &S, "");
        if (fflush(stdout) != 0 || ferror(stdout))
            rvs_tool_die(RVS_EX_IOERR, NULL, "write error on stdout");
        rvs_plan_free(&P); /* LeakSanitizer, in the sanitizer build, wants all freed */
        rvs_stream_free(&S);
        return 0;
    }
    memset(&R, 0, sizeof R);
    R.input = name;
    R.mode = o.mode;
    R.threads = o.threads;
    R.iters = o.iters;
    if (!(R.item_ms = calloc((size_t)P.nitems + 1, sizeof *R.item_ms)))
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    if (rvs_spmv_engine_create(&E, &S, &P, &err) != RVS_OK)
        rvs_tool_die_err(err.code == RVS_ERR_NODEV || err.code == RVS_ERR_DEVICE ? "GPU" : name, &err);
    if (redraw)
        rvs_fill_x(rvs_spmv_engine_x(E), NULL, S.A.cols, P.vtype, o.seed);
    else
        memcpy(rvs_spmv_engine_x(E), x, xbytes);
    free(x);
    rvs_mem_trace("spmv: runner ready");
    rvs_tool_status("timing");
    measure(&o, E, &P, &R);
    rvs_tool_progress_done();
    /* y of the last call in double ((re, im) pairs for complex): the engine's own when it is */
    if (rvs_vtype_real(P.vtype) == RVS_F64)
        yd = rvs_spmv_engine_y(E);
    else if (!(yd = ycopy = malloc((size_t)S.A.rows * (cplx ? 2 : 1) * sizeof *yd + 8)))
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    else
        rvs_y_to_double(yd, rvs_spmv_engine_y(E), S.A.rows, P.vtype);
    if (o.check)
        rvs_spmv_check_y(&S.A, xd, ref, scale, yd, P.vtype, &R, name);
    if (o.mode != RVS_MODE_CPU && rvs_engine_copy_bandwidth(0, 10, &R.copy_gbs, &err) != RVS_OK)
        rvs_tool_die_err("GPU", &err);
    if (o.baseline) {
        char what[64];
        R.nbase = 3;
        rvs_status st = rvs_baseline_cusparse(&S.A, P.vtype, rvs_spmv_engine_x(E), xd, o.iters, o.check, R.base_ms,
                                              &R.check_err, what, sizeof what, &err);
        if (st == RVS_ERR_CHECK)
            rvs_tool_die(1, name, "check failed: %s: %s", what, err.msg);
        if (st != RVS_OK)
            rvs_tool_die_err("cuSPARSE", &err);
    }
    if (o.yfile)
        rvs_spmv_write_y(o.yfile, yd, S.A.rows, cplx);
    FILE *rf = o.yfile && strcmp(o.yfile, "-") == 0 ? stderr : stdout;
    if (o.json)
        rvs_spmv_report_json(rf, &R, &S, &P, E);
    else
        rvs_spmv_report_text(rf, &R, &S, &P, E);
    if (fflush(stdout) != 0 || ferror(stdout))
        rvs_tool_die(RVS_EX_IOERR, NULL, "write error on stdout");
    rvs_mem_trace("spmv: done");
    rvs_spmv_engine_free(E);
    rvs_plan_free(&P);
    rvs_stream_free(&S);
    free(R.item_ms);
    free(xd);
    free(ycopy);
    free(ref);
    free(scale);
    return 0;
}
