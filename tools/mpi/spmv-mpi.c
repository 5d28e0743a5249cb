/* spmv-mpi.c - the spmv-mpi program: y = A*x over MPI ranks, the partition's parts becoming
 * ranks (engine/mpi_engine.h); rank 0 reads, hands out, checks and reports */
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi_engine.h"
#include "mpi_grid.h"
#include "mpi_report.h"
#include "partition_choose.h"
#include "rvs_tool.h"

static const char usage[] =
    "Usage: mpirun [-q] -np K spmv-mpi [OPTION]... [FILE]\n"
    "Compute y = A*x over K MPI ranks: rank 0 reads the matrix (RVS stream or .mtx, from FILE\n"
    "or standard input) and gives each rank the parts of its partition that it runs (a part\n"
    "bound to gpuN or cpuN by partition --cp runs on rank N; the others go to consecutive\n"
    "ranks by computing power; without a partition, one part per rank by --alg).\n"
    "Each rank runs its parts by the engine's plan on one GPU (local rank modulo the node's\n"
    "GPUs) or on its share of the node's cores, and exchanges only the x entries other ranks\n"
    "need, while it computes with the entries it owns. y stays on the ranks; -y gathers it.\n"
    "\n"
    "      --cpu              every rank runs its parts on its CPU cores [default without GPUs]\n"
    "      --gpu              every rank runs its parts on its GPU [default when every rank has one]\n"
    "      --hybrid           each part where the partition put it (gpu or cpu)\n"
    "  -a, --alg ALG          partition of a matrix that carries none: rows, nnz, pmf, metis,\n"
    "                         or auto, the least volume of x among those within 10%% of the\n"
    "                         best balance (the report says which and why) [auto]\n"
    "  -f, --format FORMAT    format of parts without a format block, or auto [auto]\n"
    "      --halo-format FORMAT  format of each part's entries in received columns, or\n"
    "                         auto [csr]\n"
    "      --no-fuse          keep GPU parts of one format as separate blocks\n"
    "      --no-cache         neither read nor write the advisor's trial cache\n"
    "  -t, --threads INT      CPU threads per rank [the rank's share of its node]\n"
    "  -n, --iters INT        timed calls; medians are reported, after 1 warm-up [10]\n"
    "  -p, --precision TYPE   f32 or f64 [the stream's value type; f64 for .mtx]\n"
    "  -x FILE                x as a Matrix Market array of cols entries [random]\n"
    "  -s, --seed INT         seed of the random x, uniform in [-1,1] [1]\n"
    "  -y FILE                gather y and write it as a Matrix Market array ('-': stdout,\n"
    "                         table to stderr)\n"
    "  -c, --check            check y on every rank against A*x of its rows in double (spmv's rule)\n"
    "      --resident         also time calls with x and y kept on the GPUs (a solver's step:\n"
    "                         only the exchanged entries move; --grid: the rank's pieces)\n"
    "      --exchange HOW     x entries of resident calls between GPUs of one node: peer (GPU to\n"
    "                         GPU, CUDA IPC), host (through host memory), or auto: peer for every\n"
    "                         pair of ranks that can, host for the others [auto]\n"
    "      --grid RxC         a 2-D layout instead of the partition's rows: R row blocks by C\n"
    "                         column blocks (R*C = K), each balanced by non-zeros; rank i*C+j runs\n"
    "                         block (i,j) and exchanges with the R+C-2 ranks of its process row\n"
    "                         and column through host memory (no --exchange);\n"
    "                         auto: R <= C as square as possible [off]\n"
    "      --grid-permute     with --grid, permute rows and columns at random first (from\n"
    "                         --seed; symmetric for a square matrix) to spread heavy rows\n"
    "                         and columns over the blocks [off]\n"
    "      --tune KEY=INT,... GPU kernel settings and build options for every GPU part: %s\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Rows: per mode (call: x in and y out through host memory; resident) and rank, its\n"
    "device, parts, rows, nnz, formats, x entries received and sent per call, then call,\n"
    "owned-column and received-column compute, exchange, waiting and GPU idle times (ms),\n"
    "the exchange's way (peer, host); then per mode the job: the slowest rank's call\n"
    "(median), GFLOP/s, bytes exchanged per call, the partition's cut, the exchange's way;\n"
    "then each pair's way. With --grid: recv_cols and send_cols the x entries of the expand\n"
    "and the partial y entries of the fold, the grid's volume as the cut.\n"
    "Run mpirun with -q to keep errors to one line.\n"
    "Exit status: 0 success, 1 check failed, 64 usage, 65 bad input data, 66 missing input,\n"
    "69 no GPU, 74 I/O or MPI error. See spmv-mpi(1), spmv(1), partition(1), rvskit(7).\n";

typedef struct {
    const char *input, *xfile, *yfile;
    rvs_run_mode mode;
    int threads, iters, check, resident;
    rvs_mpi_exchange exchange;
    rvs_vtype precision;
    unsigned long long seed;
    rvs_plan_options po;
    rvs_format_id halo; /* 0: auto */
    rvs_alg alg;        /* of the partition made for a matrix without one; 0: auto */
    int grid_r, grid_c; /* --grid: 0 0 off, -1 -1 auto */
    int grid_permute;   /* --grid-permute */
    int halo_set;       /* --halo-format given */
} options;

static const char *const exchanges[] = {"auto", "host", "peer"}; /* rvs_mpi_exchange's order */

/* --exchange HOW (exits on misuse). */
static rvs_mpi_exchange parse_exchange(const char *how)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(how, exchanges[i]) == 0)
            return (rvs_mpi_exchange)i;
    rvs_tool_usage("--exchange: '%s' is not auto, host or peer", how);
}

/* --grid RxC or auto into o (exits on misuse); R * C against the ranks is checked once MPI runs. */
static void parse_grid(options *o, const char *arg)
{
    char *end = NULL;
    if (strcmp(arg, "auto") == 0) {
        o->grid_r = o->grid_c = -1;
        return;
    }
    const long r = strtol(arg, &end, 10);
    const char *c = end && (*end == 'x' || *end == 'X') ? end + 1 : NULL;
    const long k = c && *c >= '0' && *c <= '9' ? strtol(c, &end, 10) : 0;
    if (arg[0] < '0' || arg[0] > '9' || !c || *end != '\0' || r < 1 || k < 1 || r > 65536 || k > 65536)
        rvs_tool_usage("--grid: '%s' is not RxC (positive integers, as 2x3) or auto", arg);
    o->grid_r = (int)r;
    o->grid_c = (int)k;
}

/* Options (exits on --help, --version and misuse). */
static void parse_options(options *o, int argc, char **argv)
{
    enum {
        OPT_CPU = 1000,
        OPT_GPU,
        OPT_HYBRID,
        OPT_TUNE,
        OPT_NOFUSE,
        OPT_NOCACHE,
        OPT_RESIDENT,
        OPT_HALO,
        OPT_EXCHANGE,
        OPT_GRID,
        OPT_GRID_PERMUTE
    };
    static const struct option opts[] = {{"cpu", no_argument, 0, OPT_CPU},
                                         {"gpu", no_argument, 0, OPT_GPU},
                                         {"hybrid", no_argument, 0, OPT_HYBRID},
                                         {"alg", required_argument, 0, 'a'},
                                         {"format", required_argument, 0, 'f'},
                                         {"no-fuse", no_argument, 0, OPT_NOFUSE},
                                         {"no-cache", no_argument, 0, OPT_NOCACHE},
                                         {"threads", required_argument, 0, 't'},
                                         {"iters", required_argument, 0, 'n'},
                                         {"precision", required_argument, 0, 'p'},
                                         {"seed", required_argument, 0, 's'},
                                         {"check", no_argument, 0, 'c'},
                                         {"resident", no_argument, 0, OPT_RESIDENT},
                                         {"tune", required_argument, 0, OPT_TUNE},
                                         {"help", no_argument, 0, 'h'},
                                         {"halo-format", required_argument, 0, OPT_HALO},
                                         {"exchange", required_argument, 0, OPT_EXCHANGE},
                                         {"grid", required_argument, 0, OPT_GRID},
                                         {"grid-permute", no_argument, 0, OPT_GRID_PERMUTE},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    rvs_error err;
    rvs_knobs knobs; /* --tune checked here; the planner sets it over each GPU item's */
    int c;
    memset(o, 0, sizeof *o);
    rvs_plan_options_default(&o->po);
    o->iters = 10;
    o->seed = 1;
    o->halo = RVS_FMT_CSR;
    while ((c = getopt_long(argc, argv, "a:f:t:n:p:x:y:s:chV", opts, NULL)) != -1) {
        switch (c) {
        case OPT_CPU: o->mode = RVS_MODE_CPU; break;
        case OPT_GPU: o->mode = RVS_MODE_GPU; break;
        case OPT_HYBRID: o->mode = RVS_MODE_HYBRID; break;
        case 'a':
            o->alg = strcmp(optarg, "auto") == 0 ? (rvs_alg)0 : rvs_alg_from_name(optarg);
            if (strcmp(optarg, "auto") != 0 && (!o->alg || o->alg == RVS_ALG_DIAG))
                rvs_tool_usage("--alg: '%s' is not one of rows, nnz, pmf, metis, auto", optarg);
            if (o->alg == RVS_ALG_METIS && !rvs_partition_have_metis())
                rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "--alg metis: built without METIS (libmetis-dev)");
            break;
        case 'f': o->po.fallback = rvs_tool_parse_format("--format", optarg); break;
        case OPT_HALO:
            o->halo = rvs_tool_parse_format("--halo-format", optarg);
            o->halo_set = 1;
            break;
        case OPT_GRID: parse_grid(o, optarg); break;
        case OPT_GRID_PERMUTE: o->grid_permute = 1; break;
        case OPT_NOFUSE: o->po.fuse = 0; break;
        case OPT_NOCACHE: o->po.advisor.use_cache = 0; break;
        case OPT_RESIDENT: o->resident = 1; break;
        case OPT_EXCHANGE: o->exchange = parse_exchange(optarg); break;
        case 't': o->threads = (int)rvs_tool_parse_int("--threads", optarg, 1, 4096); break;
        case 'n': o->iters = (int)rvs_tool_parse_int("--iters", optarg, 1, 1000000); break;
        case 'p':
            if (strcmp(optarg, "f32") != 0 && strcmp(optarg, "f64") != 0)
                rvs_tool_usage("--precision: '%s' is not f32 or f64", optarg);
            o->precision = optarg[1] == '3' ? RVS_F32 : RVS_F64;
            break;
        case 'x': o->xfile = optarg; break;
        case 'y': o->yfile = optarg; break;
        case 's': o->seed = (unsigned long long)rvs_tool_parse_int("--seed", optarg, 0, 1LL << 62); break;
        case 'c': o->check = 1; break;
        case OPT_TUNE:
            rvs_knobs_default(&knobs);
            if (rvs_knobs_parse(&knobs, optarg, &err) != RVS_OK)
                rvs_tool_usage("--tune: %s", err.msg);
            o->po.tune = optarg;
            break;
        case 'h': printf(usage, rvs_tune_keys()); exit(0);
        case 'V': rvs_tool_version();
        default: rvs_tool_bad_option(argv);
        }
    }
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    if (o->exchange == RVS_MPI_EXCHANGE_PEER && o->mode == RVS_MODE_CPU)
        rvs_tool_usage("--exchange peer: the ranks run on their CPUs (--cpu)");
    /* the 2-D layout's expand and fold run through host memory (resident calls stage the pieces
     * they move) around one block per rank on one device: the options of the 1-D exchange and of
     * parts are refused rather than ignored */
    if (o->grid_permute && !o->grid_r)
        rvs_tool_usage("--grid-permute: only with --grid");
    if (o->grid_r && o->exchange != RVS_MPI_EXCHANGE_AUTO)
        rvs_tool_usage("--exchange: not with --grid (2-D calls exchange through host memory)");
    if (o->grid_r && o->mode == RVS_MODE_HYBRID)
        rvs_tool_usage("--hybrid: not with --grid (a block runs on one device: --cpu or --gpu)");
    if (o->grid_r && o->alg)
        rvs_tool_usage("--alg: not with --grid (the grid cuts rows and columns itself)");
    if (o->grid_r && o->halo_set)
        rvs_tool_usage("--halo-format: not with --grid (a block has no received-column part)");
    o->input = optind < argc ? argv[optind] : NULL;
    o->po.allow_whole = 0; /* the whole matrix on one device is not what a job of ranks asks for */
}

/* This process's rank before MPI starts, from the launcher's environment (0 when unknown):
 * only rank 0 speaks about the command line, which every rank reads alike. */
static int launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (int i = 0; i < 3; i++)
        if (getenv(vars[i]))
            return atoi(getenv(vars[i]));
    return 0;
}

/* At exit after MPI started: a failing rank takes the job down with its status (the others
 * may wait for it), a successful one finalizes. */
static void finish_mpi(int status, void *arg)
{
    int init = 0, fin = 0;
    (void)arg;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) {
        if (status != 0)
            MPI_Abort(MPI_COMM_WORLD, status);
        MPI_Finalize();
    }
}

/* Rank 0, for a matrix without a partition: one part per rank by o->alg, or the candidate that
 * rvs_partition_choose takes by volume and balance (why says which and why). */
static void make_partition(const options *o, rvs_stream *S, int nranks, char *why, size_t len, const char *name)
{
    rvs_error err;
    if (!o->alg && nranks > 1) {
        if (rvs_partition_choose(&S->partition, &S->A, nranks, why, len, &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
        S->has_partition = 1;
        return;
    }
    double *cp = malloc((size_t)nranks * sizeof *cp);
    if (!cp)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    for (int i = 0; i < nranks; i++)
        cp[i] = 1;
    if (rvs_partition_compute(&S->partition, &S->A, o->alg ? o->alg : RVS_ALG_NNZ, nranks, cp, NULL, 0, &err) !=
        RVS_OK)
        rvs_tool_die_err(name, &err);
    S->has_partition = 1;
    free(cp);
}

/* Rank 0: the input read, and checked for what spmv-mpi runs. */
static void read_checked(const options *o, rvs_stream *S, const char *name)
{
    rvs_error err;
    if (rvs_tool_read_input(o->input, S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    if (S->A.cols > RVS_COL32_MAX)
        rvs_tool_die(RVS_EX_DATAERR, name, "%lld columns need 64-bit column indices, which spmv-mpi does not hold",
                     (long long)S->A.cols);
    if (rvs_vtype_is_complex(S->A.vtype))
        rvs_tool_die(RVS_EX_DATAERR, name, "complex values, which spmv-mpi does not run (spmv does)");
}

/* Rank 0: the input read and checked, with a partition (make_partition's when it has none), and
 * the rank of every part. */
static void read_input(const options *o, rvs_stream *S, int nranks, int **rank_of, const char *name, char *why,
                       size_t len)
{
    rvs_error err;
    read_checked(o, S, name);
    if (S->has_partition && o->alg)
        rvs_tool_die(RVS_EX_USAGE, name,
                     "--alg %s: the input carries a partition (%s); --alg is for a matrix without one",
                     rvs_alg_name(o->alg), rvs_alg_name(S->partition.alg));
    if (!S->has_partition)
        make_partition(o, S, nranks, why, len, name);
    int32_t *number = malloc((size_t)S->partition.k * sizeof *number);
    if (!number || !(*rank_of = malloc((size_t)S->partition.k * sizeof **rank_of)))
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    if (rvs_placement_get(S, number, &err) != RVS_OK ||
        rvs_mpi_assign(&S->partition, number, nranks, *rank_of, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    free(number);
}

/* Rank 0: x from -x FILE (n values, as double), rounded to vt; NULL without -x (the ranks' x is
 * then drawn from the seed, rank by rank). */
static double *read_x(const options *o, int64_t n, rvs_vtype vt)
{
    double *xd = NULL;
    int64_t r = 0, c = 0;
    rvs_error err;
    if (!o->xfile)
        return NULL;
    rvs_tool_need_stdin(strcmp(o->xfile, "-") == 0 ? NULL : o->xfile);
    if (rvs_mm_read_dense(&xd, &r, &c, o->xfile, &err) != RVS_OK)
        rvs_tool_die_err(o->xfile, &err);
    if (r * c != n || (n > 0 && r != 1 && c != 1))
        rvs_tool_die(RVS_EX_DATAERR, o->xfile, "x has %lld entries, matrix has %lld columns", (long long)(r * c),
                     (long long)n);
    for (int64_t j = 0; vt == RVS_F32 && j < n; j++) /* the values the ranks will use */
        xd[j] = (float)xd[j];
    return xd;
}

/* Rank 0, once the ranks hold their rows: of the stream only what the report reads stays (the
 * matrix's shape, the partition's algorithm and part count). */
static void keep_shape(rvs_stream *S)
{
    const rvs_csr A = S->A;
    rvs_stream_drop_formats(S);
    rvs_csr_free(&S->A);
    S->A.rows = A.rows;
    S->A.cols = A.cols;
    S->A.nnz = A.nnz;
    S->A.vtype = A.vtype;
}

/* The job's layout: the partition's rows (M), or the 2-D grid (G). */
typedef struct {
    rvs_mpi_spmv *M;
    rvs_mpi_grid *G;
} job;

static rvs_status job_call(job *J, int resident, int poison, rvs_mpi_times *t, rvs_error *err)
{
    return J->G ? rvs_mpi_grid_call(J->G, resident, poison, t, err) : rvs_mpi_call(J->M, resident, poison, t, err);
}

/* iters timed calls after a warm-up (barrier before each, so that the slowest rank's time is the
 * job's); the medians per field into med[], the job's median call into med[6]. */
static void measure(job *J, const options *o, int resident, double med[REPORT_TIMES])
{
    const int n = o->iters;
    double *t = calloc((size_t)n * REPORT_TIMES, sizeof *t);
    rvs_mpi_times tm;
    rvs_error err;
    if (!t)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    for (int i = -1; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (job_call(J, resident, 0, &tm, &err) != RVS_OK)
            rvs_tool_die_err("call", &err);
        if (i < 0)
            continue;
        const double v[REPORT_TIMES - 1] = {tm.call_ms,     tm.phase0_ms, tm.phase1_ms,
                                            tm.exchange_ms, tm.wait_ms,   tm.idle_ms};
        for (int k = 0; k < REPORT_TIMES - 1; k++)
            t[(size_t)k * n + i] = v[k];
    }
    memcpy(t + (size_t)(REPORT_TIMES - 1) * n, t, (size_t)n * sizeof *t);
    MPI_Allreduce(MPI_IN_PLACE, t + (size_t)(REPORT_TIMES - 1) * n, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < REPORT_TIMES; k++)
        med[k] = rvs_tool_median(t + (size_t)k * n, n);
    free(t);
}

/* Every rank: y of the last call checked on each rank against its reference; the job's largest
 * error on rank 0 (exit 1 past the tolerance). */
static double check(job *J, rvs_vtype vt, const char *name, const char *what)
{
    const double tol = vt == RVS_F64 ? 1e-10 : 1e-4;
    double max_err = 0;
    int64_t row = -1;
    rvs_error err;
    const rvs_status st = J->G ? rvs_mpi_grid_check(J->G, tol, &max_err, &row, &err)
                               : rvs_mpi_check(J->M, tol, &max_err, &row, &err);
    if (st == RVS_ERR_CHECK)
        rvs_tool_die(1, name, "check failed%s: row %lld error %.3g > tol %.3g", what, (long long)row + 1, max_err,
                     tol);
    if (st != RVS_OK)
        rvs_tool_die_err(name, &err);
    return max_err;
}

/* Every rank: y gathered on rank 0 and written to -y FILE. */
static void write_y(job *J, const char *yfile, int64_t rows, int rank)
{
    double *yd = NULL;
    rvs_error err;
    if (rank == 0 && !(yd = malloc((size_t)rows * sizeof *yd + 8)))
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    if ((J->G ? rvs_mpi_grid_gather_y(J->G, yd, &err) : rvs_mpi_gather_y(J->M, yd, &err)) != RVS_OK)
        rvs_tool_die_err("y", &err);
    if (rank == 0) {
        FILE *f = rvs_tool_open_text(yfile, &err);
        if (!f)
            rvs_tool_die_err(yfile, &err);
        rvs_status st = rvs_mm_write_array(f, yd, rows, 1, &err);
        rvs_status st2 = rvs_tool_close_text(f, yfile, st == RVS_OK, &err);
        if (st != RVS_OK || st2 != RVS_OK)
            rvs_tool_die_err(yfile, &err);
    }
    free(yd);
}

/* Every rank: the node's share (threads, GPU) and the mode all ranks can run. */
static void choose_mode(options *o, rvs_engine_devices *dev, int rank, int *device)
{
    int local_rank, local_size, threads, has, all, first_without;
    rvs_error err;
    if (rvs_mpi_node(MPI_COMM_WORLD, o->mode != RVS_MODE_CPU, &local_rank, &local_size, &threads, device, &err))
        rvs_tool_die_err("node", &err);
    if (o->threads)
        threads = o->threads;
    omp_set_num_threads(threads);
    rvs_engine_devices_probe(dev, threads, o->mode != RVS_MODE_CPU);
    has = dev->gpus > 0;
    MPI_Allreduce(&has, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    const int peer = !o->mode && o->exchange == RVS_MPI_EXCHANGE_PEER; /* GPU to GPU: GPU ranks */
    if (!o->mode)
        o->mode = all || peer ? RVS_MODE_GPU : RVS_MODE_CPU;
    first_without = has ? 1 << 30 : rank;
    MPI_Allreduce(MPI_IN_PLACE, &first_without, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    const char *asked = o->mode == RVS_MODE_GPU ? "gpu" : "hybrid";
    if (o->mode != RVS_MODE_CPU && rank == first_without) /* one rank says it, its exit ends the job */
        rvs_tool_die(RVS_EX_UNAVAILABLE, "GPU", "--%s needs a GPU on every rank: %s",
                     peer ? "exchange peer" : asked, dev->gpu_desc);
    if (o->mode != RVS_MODE_CPU && !all)
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: the rank above ends the job */
    if (o->mode == RVS_MODE_CPU)
        *device = -1;
    o->po.mode = o->mode;
}

/* Rank 0: room for every rank's report (NULL elsewhere); mine zeroed. */
static rank_report *reports(int rank, int K, rank_report *mine)
{
    rank_report *all = rank == 0 ? calloc((size_t)K, sizeof *all) : NULL;
    memset(mine, 0, sizeof *mine);
    if (rank == 0 && !all)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    return all;
}

/* A rank's plan failed: a GPU's failure is named as such. */
static noreturn void die_prepare(const char *name, const rvs_error *err)
{
    rvs_tool_die_err(err->code == RVS_ERR_NODEV || err->code == RVS_ERR_DEVICE ? "GPU" : name, err);
}

/* The run in the 2-D layout (--grid): rank 0 reads, the blocks go out, then as the 1-D run:
 * check's reference, plan, x, calls, check, y, report. A partition in the stream is not used
 * (the report says so): the grid cuts rows and columns by their own rule. */
static void run_grid(options *o, const rvs_engine_devices *dev, int rank, int K, int device, const char *name)
{
    rvs_stream S;
    rvs_error err;
    int R = o->grid_r, C = o->grid_c;
    job J = {NULL, NULL};
    if (R < 0)
        rvs_mpi_grid_shape(K, &R, &C);
    if ((int64_t)R * C != K) { /* rank 0 says it; its exit ends the job */
        if (rank == 0)
            rvs_tool_die(RVS_EX_USAGE, NULL, "--grid %dx%d: %lld blocks, and the job has %d rank%s", R, C,
                         (long long)R * C, K, K > 1 ? "s" : "");
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 0 ends the job */
    }
    memset(&S, 0, sizeof S);
    if (rank == 0)
        read_checked(o, &S, name);
    const int had_partition = rank == 0 && S.has_partition;
    /* rank 0 gives the matrix back row block by row block as the blocks leave */
    if (rvs_mpi_grid_setup(&J.G, rank == 0 ? &S.A : NULL, R, C, MPI_COMM_WORLD, 1, o->grid_permute, o->seed,
                           &err) != RVS_OK)
        rvs_tool_die_err(rank == 0 ? name : "setup", &err);
    if (rank == 0)
        keep_shape(&S);
    rvs_mpi_info info;
    rvs_mpi_grid_get_info(J.G, &info);
    o->po.vtype = o->precision ? o->precision : info.vtype;
    o->po.consume = 1; /* the check's reference is summed before the run: nothing else reads the block */
    double *xd = rank == 0 ? read_x(o, info.global_cols, o->po.vtype) : NULL; /* NULL: drawn from the seed */
    if (o->check && rvs_mpi_grid_check_prepare(J.G, o->po.vtype, xd, o->seed, &err) != RVS_OK)
        rvs_tool_die_err("check", &err);
    if (rvs_mpi_grid_prepare(J.G, dev, &o->po, &err) != RVS_OK)
        die_prepare(name, &err);
    if (rvs_mpi_grid_scatter_x(J.G, xd, o->seed, &err) != RVS_OK)
        rvs_tool_die_err("x", &err);
    free(xd);
    rank_report mine, *all = reports(rank, K, &mine);
    measure(&J, o, 0, mine.med[0]);
    if (o->resident)
        measure(&J, o, 1, mine.med[1]);
    rvs_mpi_times tm; /* checked and written: the y of one more call, from a y poisoned with NaN */
    if ((o->check || o->yfile) && job_call(&J, 0, o->check, &tm, &err) != RVS_OK)
        rvs_tool_die_err("call", &err);
    mine.info = info;
    mine.device = device;
    mpi_formats_of(rvs_mpi_grid_plan(J.G), mine.formats, sizeof mine.formats);
    snprintf(mine.exchange, sizeof mine.exchange, "%s", K > 1 ? "host" : "-");
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    double check_err = o->check ? check(&J, o->po.vtype, name, "") : 0;
    /* and with --resident, a resident call too, its y piece copied back from the GPU */
    if (o->resident && (o->check || o->yfile) && job_call(&J, 2, o->check, &tm, &err) != RVS_OK)
        rvs_tool_die_err("resident call", &err);
    if (o->resident && o->check) {
        const double e = check(&J, o->po.vtype, name, " (resident call)");
        check_err = e > check_err ? e : check_err;
    }
    if (o->yfile)
        write_y(&J, o->yfile, info.global_rows, rank);
    if (rank == 0) {
        static const char *modes[] = {"auto", "cpu", "gpu", "hybrid"};
        FILE *f = o->yfile && strcmp(o->yfile, "-") == 0 ? stderr : stdout;
        const int64_t *rc, *cc;
        rvs_mpi_grid_cuts(J.G, &rc, &cc);
        mpi_report_grid(f, name, &S, R, C, rc, cc, had_partition, o->grid_permute, all, K, o->po.vtype,
                        modes[o->mode], o->iters, o->resident, o->check, check_err);
        if (fflush(stdout) != 0 || ferror(stdout))
            rvs_tool_die(RVS_EX_IOERR, NULL, "write error on stdout");
    }
    rvs_mpi_grid_free(J.G);
    rvs_stream_free(&S);
    free(all);
}

int main(int argc, char **argv)
{
    options o;
    rvs_engine_devices dev;
    rvs_stream S;
    rvs_mpi_spmv *M = NULL;
    rvs_mpi_cut cut;
    rvs_error err;
    int *rank_of = NULL, rank = 0, K = 1, device = -1, quiet[2] = {-1, -1};
    static char prog[64], why[1024]; /* why: the partition chosen (rank 0, a matrix without one) */
    memset(&cut, 0, sizeof cut);
    rvs_tool_init("spmv-mpi");
    if (launcher_rank() != 0) { /* other ranks read the command line in silence */
        const int null = open("/dev/null", O_WRONLY);
        for (int fd = 1; fd <= 2 && null >= 0; fd++)
            quiet[fd - 1] = dup(fd), dup2(null, fd);
    }
    parse_options(&o, argc, argv);
    for (int fd = 1; fd <= 2; fd++)
        if (quiet[fd - 1] >= 0)
            dup2(quiet[fd - 1], fd), close(quiet[fd - 1]);
    /* arrays of the matrix's or x's size come and go in phases (read, hand-out, the check's x):
     * each goes back to the system when freed, not to a heap that keeps its pages resident */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "MPI did not start");
    on_exit(finish_mpi, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &K);
    snprintf(prog, sizeof prog, "%s: rank %d", rvs_tool_prog(), rank);
    rvs_tool_init(prog);
    choose_mode(&o, &dev, rank, &device);
    const char *name = rvs_tool_input_name(o.input);
    if (o.grid_r) {
        run_grid(&o, &dev, rank, K, device, name);
        return 0; /* finish_mpi finalizes */
    }
    memset(&S, 0, sizeof S);
    if (rank == 0)
        read_input(&o, &S, K, &rank_of, name, why, sizeof why);
    /* the ranks' rows are copied out of the matrix in one pass that gives it back: rank 0 holds
     * the matrix once, then its own rows; the check needs no copy (each rank has its reference) */
    if (rvs_mpi_setup(&M, rank == 0 ? &S : NULL, rank_of, MPI_COMM_WORLD, 1, &cut, &err) != RVS_OK)
        rvs_tool_die_err(rank == 0 ? name : "setup", &err);
    if (rank == 0)
        keep_shape(&S);
    rvs_mpi_info info;
    rvs_mpi_get_info(M, &info);
    o.po.vtype = o.precision ? o.precision : info.vtype;
    o.po.consume = 1; /* nothing reads the rank's entries but the runner once it holds them */
    double *xd = rank == 0 ? read_x(&o, info.global_cols, o.po.vtype) : NULL; /* NULL: drawn from the seed */
    if (o.check && rvs_mpi_check_prepare(M, &o.po, o.halo, xd, o.seed, &err) != RVS_OK)
        rvs_tool_die_err("check", &err);
    if (rvs_mpi_prepare(M, &dev, &o.po, o.halo, &err) != RVS_OK)
        die_prepare(name, &err);
    if (rvs_mpi_choose_exchange(M, o.exchange, &err) != RVS_OK)
        rvs_tool_die_err("exchange", &err);
    if (rvs_mpi_scatter_x(M, xd, o.seed, &err) != RVS_OK)
        rvs_tool_die_err("x", &err);
    free(xd);
    rank_report mine, *all = reports(rank, K, &mine);
    job J = {M, NULL};
    measure(&J, &o, 0, mine.med[0]);
    if (o.resident)
        measure(&J, &o, 1, mine.med[1]);
    rvs_mpi_times tm; /* checked and written: the y of one more call, from a y poisoned with NaN */
    if ((o.check || o.yfile) && job_call(&J, 0, o.check, &tm, &err) != RVS_OK)
        rvs_tool_die_err("call", &err);
    mine.info = info;
    mine.device = device;
    mpi_plan_formats(M, mine.formats, sizeof mine.formats);
    mpi_exchange_of(M, &mine);
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    double check_err = o.check ? check(&J, o.po.vtype, name, "") : 0;
    /* and with --resident, a resident call too, y copied back: its exchange may differ */
    if (o.resident && (o.check || o.yfile) && rvs_mpi_call(M, 2, o.check, &tm, &err) != RVS_OK)
        rvs_tool_die_err("resident call", &err);
    if (o.resident && o.check) {
        const double e = check(&J, o.po.vtype, name, " (resident call)");
        check_err = e > check_err ? e : check_err;
    }
    if (o.yfile)
        write_y(&J, o.yfile, info.global_rows, rank);
    if (rank == 0) {
        static const char *modes[] = {"auto", "cpu", "gpu", "hybrid"};
        FILE *f = o.yfile && strcmp(o.yfile, "-") == 0 ? stderr : stdout;
        mpi_report(f, name, &S, rank_of, all, K, &cut, o.po.vtype, modes[o.mode], o.iters, o.resident, o.check,
                   check_err);
        mpi_report_exchange(f, all, K, exchanges[o.exchange]);
        if (why[0])
            fprintf(f, "# %s\n", why);
        if (fflush(stdout) != 0 || ferror(stdout))
            rvs_tool_die(RVS_EX_IOERR, NULL, "write error on stdout");
    }
    rvs_mpi_free(M);
    rvs_stream_free(&S);
    free(rank_of);
    free(all);
    return 0; /* finish_mpi finalizes */
}
