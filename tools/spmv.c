/* spmv.c - the spmv program: y = A*x for every part of a stream on the CPU, the GPU or both at
 * once, timed, optionally checked against CSparse and compared with cuSPARSE */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_cpu.h"
#include "rvs_cusparse.h"
#include "rvs_engine.h"
#include "rvs_gpu.h"
#include "rvs_tool.h"

static const char usage[] =
    "Usage: spmv [OPTION]... [FILE]\n"
    "Compute y = A*x for a matrix (RVS stream or .mtx, from FILE or standard input), every part\n"
    "of its partition in its format block, and print a timing table.\n"
    "\n"
    "      --cpu              run every part on the CPU (OpenMP) [default without a GPU]\n"
    "      --gpu              run every part on the GPU [default with a GPU]\n"
    "      --hybrid           run each part where the partition put it, GPU and CPU at once\n"
    "  -t, --threads INT      CPU threads [OMP_NUM_THREADS or all cores]\n"
    "  -n, --iters INT        timed runs; the median is reported, after 1 warm-up [10]\n"
    "  -p, --precision TYPE   f32 or f64 [the stream's value type; f64 for .mtx]\n"
    "  -x FILE                x as a Matrix Market array of cols entries [random]\n"
    "  -s, --seed INT         seed of the random x, uniform in [-1,1] [1]\n"
    "  -y FILE                write y as a Matrix Market array ('-': stdout, table to stderr)\n"
    "  -c, --check            compare y with CSparse in double precision; tolerance 1e-10\n"
    "                         (f64) or 1e-4 (f32) relative to sum |a_ij x_j| of the row\n"
    "  -b, --baseline         also time cuSPARSE CSR ALG1, CSR ALG2 and COO ALG1 (GPU)\n"
    "      --tune KEY=INT,... GPU kernel tunables: threads-per-row, block, hcc-wg, hcc-wi\n"
    "                         [each format's default]\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Parts without a format block run in CSR. Columns: part device format rows nnz time_ms\n"
    "gflops gbs [frac_copy_bw]; GFLOP/s = 2*nnz/time, GB/s = bytes of the format/time.\n"
    "Exit status: 0 success, 1 check failed, 64 usage, 65 bad input data, 66 missing input,\n"
    "69 no GPU, 74 I/O error. See spmv(1), rvs(5), rvskit(7).\n";

enum mode { MODE_AUTO, MODE_CPU, MODE_GPU, MODE_HYBRID };

typedef struct {
    const char *input, *xfile, *yfile;
    enum mode mode;
    int threads, iters, check, baseline;
    rvs_vtype precision; /* 0: the stream's */
    unsigned long long seed;
    rvs_gpu_tune tune;
} options;

/* One part (or the whole matrix) and what running it needs. */
typedef struct {
    int part;            /* part index, -1 for the whole matrix */
    rvs_device device;   /* where it runs in this mode */
    int64_t nrows;
    const int64_t *rows; /* matrix row of each y entry of the part; NULL: 0..nrows-1 */
    rvs_fmt own;         /* a format built here (default format, other precision) */
    const rvs_fmt *F;    /* the format run: a stream block or &own */
    rvs_gpu_fmt G;
    void *dy;            /* the part's y on the device */
    void *y;             /* the part's y on the host, nrows values of the run's type */
    int y_pinned;        /* y is page-locked for the GPU */
    int owner;           /* hybrid: the thread that runs this CPU part (0: shared team) */
    double *t;           /* seconds of each run, [0] the warm-up */
} job;

typedef struct {
    options o;
    const char *name;    /* input as shown in messages */
    rvs_stream S;
    rvs_vtype vt;
    int njobs;
    job *jobs;
    double *xd;          /* x as double (the values used, after rounding to f32) */
    void *x, *dx;        /* x in the run's type, on the host and the device */
    double *yd;          /* assembled y */
    double *t_total, *t_cpu, *t_gpu; /* per run: all parts, CPU side, GPU side */
    int cpu_threads;     /* CPU threads in hybrid mode (one more drives the GPU) */
    int checked;         /* --check ran and passed; check_err its largest error */
    double check_err;
    int use_gpu;
    double upload_s, copy_gbs;
    double base_ms[3];
    int nbase;
} run;

/* malloc that dies on failure. */
static void *xmalloc(size_t n, size_t size)
{
    void *p = NULL;
    if (size == 0 || n <= SIZE_MAX / size)
        p = malloc(n && size ? n * size : 1);
    if (!p)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    return p;
}

/* Die with a library error about the input. */
static void check_st(rvs_status st, const char *file, const rvs_error *err)
{
    if (st != RVS_OK)
        rvs_tool_die_err(file, err);
}

/* Options from the command line (exits on --help, --version and misuse). */
static void parse_options(options *o, int argc, char **argv)
{
    enum { OPT_CPU = 1000, OPT_GPU, OPT_HYBRID, OPT_TUNE };
    static const struct option opts[] = {
        {"cpu", no_argument, 0, OPT_CPU},       {"gpu", no_argument, 0, OPT_GPU},
        {"hybrid", no_argument, 0, OPT_HYBRID}, {"threads", required_argument, 0, 't'},
        {"iters", required_argument, 0, 'n'},   {"precision", required_argument, 0, 'p'},
        {"seed", required_argument, 0, 's'},    {"check", no_argument, 0, 'c'},
        {"baseline", no_argument, 0, 'b'},      {"tune", required_argument, 0, OPT_TUNE},
        {"help", no_argument, 0, 'h'},          {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    int c;
    memset(o, 0, sizeof *o);
    o->iters = 10;
    o->seed = 1;
    while ((c = getopt_long(argc, argv, "t:n:p:x:y:s:cbhV", opts, NULL)) != -1) {
        switch (c) {
        case OPT_CPU: o->mode = MODE_CPU; break;
        case OPT_GPU: o->mode = MODE_GPU; break;
        case OPT_HYBRID: o->mode = MODE_HYBRID; break;
        case 't': o->threads = (int)rvs_tool_parse_int("--threads", optarg, 1, 4096); break;
        case 'n': o->iters = (int)rvs_tool_parse_int("--iters", optarg, 1, 1000000); break;
        case 'p':
            if (strcmp(optarg, "f32") == 0)
                o->precision = RVS_F32;
            else if (strcmp(optarg, "f64") == 0)
                o->precision = RVS_F64;
            else
                rvs_tool_usage("--precision: '%s' is not f32 or f64", optarg);
            break;
        case 'x': o->xfile = optarg; break;
        case 'y': o->yfile = optarg; break;
        case 's': o->seed = (unsigned long long)rvs_tool_parse_int("--seed", optarg, 0, 1LL << 62); break;
        case 'c': o->check = 1; break;
        case 'b': o->baseline = 1; break;
        case OPT_TUNE: {
            rvs_error err;
            if (rvs_tune_parse(&o->tune, optarg, &err) != RVS_OK)
                rvs_tool_usage("--tune: %s", err.msg);
            break;
        }
        case 'h': fputs(usage, stdout); exit(0);
        case 'V': rvs_tool_version();
        default: rvs_tool_bad_option(argv);
        }
    }
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    o->input = optind < argc ? argv[optind] : NULL;
}

/* Uniform in [-1, 1] from a splitmix64 sequence. */
static double random_unit(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ULL << 52) - 1.0;
}

/* x from -x FILE or the seed, in double and in the run's type (rounded values in xd). */
static void make_x(run *R)
{
    int64_t n = R->S.A.cols;
    if (R->o.xfile) {
        int64_t r = 0, c = 0;
        rvs_error err;
        check_st(rvs_mm_read_dense(&R->xd, &r, &c, R->o.xfile, &err), R->o.xfile, &err);
        if (r * c != n || (n > 0 && r != 1 && c != 1))
            rvs_tool_die(RVS_EX_DATAERR, R->o.xfile, "x has %lld entries, matrix has %lld columns",
                         (long long)(r * c), (long long)n);
    } else {
        unsigned long long state = R->o.seed;
        R->xd = xmalloc((size_t)n, sizeof *R->xd);
        for (int64_t j = 0; j < n; j++)
            R->xd[j] = random_unit(&state);
    }
    R->x = xmalloc((size_t)n, rvs_vtype_size(R->vt));
    for (int64_t j = 0; j < n; j++) {
        if (R->vt == RVS_F64) {
            ((double *)R->x)[j] = R->xd[j];
        } else {
            ((float *)R->x)[j] = (float)R->xd[j];
            R->xd[j] = ((float *)R->x)[j];
        }
    }
}

/* The stream's format block for part (-1: whole matrix), or NULL. */
static const rvs_fmt *find_block(const rvs_stream *S, int part)
{
    for (int i = 0; i < S->nfmt; i++)
        if (S->fmt[i].part == part)
            return &S->fmt[i].fmt;
    return NULL;
}

/* J->own = C (consumed) in format id with the run's value type. */
static void build_format(run *R, job *J, rvs_csr *C, rvs_format_id id)
{
    rvs_error err;
    rvs_fmt_options fo;
    rvs_fmt_options_default(&fo);
    if (C->vtype != R->vt)
        check_st(rvs_csr_convert_values(C, R->vt, &err), R->name, &err);
    check_st(rvs_fmt_from_csr(&J->own, id, C, &fo, &err), R->name, &err);
    rvs_csr_free(C);
    J->F = &J->own;
}

/* J->F: the part's format block (rebuilt in another precision if asked), else CSR of the part. */
static void prepare_format(run *R, job *J)
{
    const rvs_fmt *B = find_block(&R->S, J->part);
    rvs_csr C = {0};
    rvs_error err;
    if (B) {
        if (B->rows != J->nrows || B->cols != R->S.A.cols)
            rvs_tool_die(RVS_EX_DATAERR, R->name, "format block of part %d is %lld x %lld, the part is %lld x %lld",
                         J->part + 1, (long long)B->rows, (long long)B->cols, (long long)J->nrows,
                         (long long)R->S.A.cols);
        if (B->vtype == R->vt) {
            J->F = B;
            return;
        }
        check_st(rvs_fmt_to_csr(&C, B, &err), R->name, &err);
        build_format(R, J, &C, B->id);
        return;
    }
    if (J->part >= 0)
        check_st(rvs_partition_extract(&C, &R->S.partition, J->part, &R->S.A, &err), R->name, &err);
    else
        check_st(rvs_csr_copy(&C, &R->S.A, &err), R->name, &err);
    build_format(R, J, &C, RVS_FMT_CSR);
}

/* One job per part of the partition, or one for the whole matrix. */
static void make_jobs(run *R)
{
    const rvs_partition *P = &R->S.partition;
    R->njobs = R->S.has_partition ? P->k : 1;
    R->jobs = calloc((size_t)R->njobs, sizeof *R->jobs);
    if (!R->jobs)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    for (int i = 0; i < R->njobs; i++) {
        job *J = &R->jobs[i];
        J->part = R->S.has_partition ? i : -1;
        J->nrows = R->S.has_partition ? P->parts[i].nrows : R->S.A.rows;
        J->rows = R->S.has_partition ? P->parts[i].rows : NULL;
        J->device = R->o.mode == MODE_CPU ? RVS_DEV_CPU
                  : R->o.mode == MODE_GPU ? RVS_DEV_GPU
                  : R->S.has_partition ? P->parts[i].device : RVS_DEV_GPU;
        prepare_format(R, J);
        J->y = xmalloc((size_t)J->nrows, rvs_vtype_size(R->vt));
        J->t = xmalloc((size_t)R->o.iters + 1, sizeof *J->t);
    }
}

/* Upload x and every GPU part, timed; measure the copy bandwidth. */
static void prepare_gpu(run *R)
{
    rvs_error err;
    size_t vs = rvs_vtype_size(R->vt);
    double t0 = rvs_tool_now();
    check_st(rvs_gpu_malloc(&R->dx, (size_t)R->S.A.cols * vs, &err), "GPU", &err);
    check_st(rvs_gpu_memcpy_h2d(R->dx, R->x, (size_t)R->S.A.cols * vs, &err), "GPU", &err);
    for (int i = 0; i < R->njobs; i++) {
        job *J = &R->jobs[i];
        if (J->device != RVS_DEV_GPU)
            continue;
        check_st(rvs_gpu_upload(&J->G, J->F, &err), "GPU", &err);
        check_st(rvs_gpu_malloc(&J->dy, (size_t)J->nrows * vs, &err), "GPU", &err);
        /* pinned, so fetching the part's y costs a DMA, not a staged copy */
        if (J->nrows > 0 && rvs_gpu_host_register(J->y, (size_t)J->nrows * vs, &err) == RVS_OK)
            J->y_pinned = 1;
    }
    check_st(rvs_gpu_sync(&err), "GPU", &err);
    R->upload_s = rvs_tool_now() - t0;
    check_st(rvs_gpu_copy_bandwidth(0, 10, &R->copy_gbs, &err), "GPU", &err);
}

/* Fill the host y of J with NaN (checks must not pass on stale values). */
static void poison_host(const run *R, job *J)
{
    if (R->vt == RVS_F64)
        for (int64_t i = 0; i < J->nrows; i++)
            ((double *)J->y)[i] = NAN;
    else
        for (int64_t i = 0; i < J->nrows; i++)
            ((float *)J->y)[i] = NAN;
}

/* Run CPU job J once; J->t[slot] = seconds. */
static rvs_status run_cpu_job(const run *R, job *J, int slot, rvs_error *err)
{
    if (R->o.check)
        poison_host(R, J);
    double t0 = rvs_tool_now();
    rvs_status st = rvs_cpu_spmv(J->F, R->x, J->y, err);
    J->t[slot] = rvs_tool_now() - t0;
    return st;
}

/* Run GPU job J once, event-timed (y poisoned with 0xFF bytes, NaN, first when checking). */
static rvs_status run_gpu_job(const run *R, job *J, int slot, rvs_error *err)
{
    double ms = 0;
    rvs_status st = RVS_OK;
    if (R->o.check)
        st = rvs_gpu_memset(J->dy, 0xff, (size_t)J->nrows * rvs_vtype_size(R->vt), err);
    if (st == RVS_OK)
        st = rvs_gpu_spmv_timed(&J->G, R->dx, J->dy, &R->o.tune, &ms, err);
    J->t[slot] = ms * 1e-3;
    return st;
}

/* Copy the y of every GPU job back to the host. */
static rvs_status fetch_gpu_results(const run *R, rvs_error *err)
{
    rvs_status st = RVS_OK;
    for (int i = 0; i < R->njobs && st == RVS_OK; i++)
        if (R->jobs[i].device == RVS_DEV_GPU)
            st = rvs_gpu_memcpy_d2h(R->jobs[i].y, R->jobs[i].dy,
                                    (size_t)R->jobs[i].nrows * rvs_vtype_size(R->vt), err);
    return st;
}

/* Run every job of one device once. */
static rvs_status run_device(const run *R, rvs_device dev, int slot, rvs_error *err)
{
    rvs_status st = RVS_OK;
    for (int i = 0; i < R->njobs && st == RVS_OK; i++)
        if (R->jobs[i].device == dev)
            st = dev == RVS_DEV_GPU ? run_gpu_job(R, &R->jobs[i], slot, err)
                                    : run_cpu_job(R, &R->jobs[i], slot, err);
    return st;
}

/* y = sum over parts of the part's y scattered to its rows (diag parts add to the same rows). */
static void assemble(run *R)
{
    memset(R->yd, 0, (size_t)R->S.A.rows * sizeof *R->yd);
    for (int k = 0; k < R->njobs; k++) {
        const job *J = &R->jobs[k];
        #pragma omp parallel for schedule(static) if (J->nrows > 65536)
        for (int64_t i = 0; i < J->nrows; i++) {
            int64_t r = J->rows ? J->rows[i] : i;
            R->yd[r] += R->vt == RVS_F64 ? ((const double *)J->y)[i] : (double)((const float *)J->y)[i];
        }
    }
}

/* Give each CPU part to one of the cpu_threads worker threads (1..cpu_threads), largest
 * first to the least loaded, when there are at least as many CPU parts as workers; returns
 * 0 when parts are fewer, and then each part is run by all workers together. */
static int assign_cpu_parts(run *R)
{
    int ncpu = 0;
    for (int i = 0; i < R->njobs; i++)
        ncpu += R->jobs[i].device == RVS_DEV_CPU;
    if (ncpu < R->cpu_threads || R->cpu_threads < 2)
        return 0;
    double *load = calloc((size_t)R->cpu_threads + 1, sizeof *load);
    int *order = xmalloc((size_t)R->njobs, sizeof *order);
    int n = 0;
    for (int i = 0; i < R->njobs; i++)
        if (R->jobs[i].device == RVS_DEV_CPU)
            order[n++] = i;
    for (int a = 1; a < n; a++) /* by nnz, descending */
        for (int b = a; b > 0 && R->jobs[order[b]].F->nnz > R->jobs[order[b - 1]].F->nnz; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int a = 0; a < n; a++) {
        int best = 1;
        for (int w = 2; w <= R->cpu_threads; w++)
            if (load[w] < load[best])
                best = w;
        R->jobs[order[a]].owner = best;
        load[best] += (double)R->jobs[order[a]].F->nnz + (double)R->jobs[order[a]].nrows;
    }
    free(load);
    free(order);
    return 1;
}

/* One run of both devices at once (pmf-partitioning Section 6.1): thread 0 drives the GPU;
 * with a CPU part per core, worker w runs its own parts serially, as the paper's one part per
 * core; with fewer CPU parts, a nested team of cpu_threads runs them one after another. */
static void run_hybrid(run *R, int slot, int per_core)
{
    int T = per_core ? R->cpu_threads + 1 : 2;
    rvs_status *st = calloc((size_t)T, sizeof *st);
    rvs_error *err = calloc((size_t)T, sizeof *err);
    double t0 = rvs_tool_now(), t_cpu = 0;
    if (!st || !err)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    omp_set_max_active_levels(per_core ? 1 : 2);
    #pragma omp parallel num_threads(T) reduction(max : t_cpu)
    {
        int tid = omp_get_thread_num();
        if (tid == 0) {
            st[0] = run_device(R, RVS_DEV_GPU, slot, &err[0]);
            if (st[0] == RVS_OK)
                st[0] = fetch_gpu_results(R, &err[0]);
            R->t_gpu[slot] = rvs_tool_now() - t0;
        } else if (per_core) {
            for (int i = 0; i < R->njobs && st[tid] == RVS_OK; i++)
                if (R->jobs[i].device == RVS_DEV_CPU && R->jobs[i].owner == tid)
                    st[tid] = run_cpu_job(R, &R->jobs[i], slot, &err[tid]);
            t_cpu = rvs_tool_now() - t0;
        } else {
            omp_set_num_threads(R->cpu_threads);
            st[tid] = run_device(R, RVS_DEV_CPU, slot, &err[tid]);
            t_cpu = rvs_tool_now() - t0;
        }
    }
    R->t_cpu[slot] = t_cpu;
    for (int s = 0; s < T; s++)
        check_st(st[s], s == 0 ? "GPU" : R->name, &err[s]);
    free(st);
    free(err);
    assemble(R);
    R->t_total[slot] = rvs_tool_now() - t0;
}

/* One warm-up and iters timed runs in the chosen mode; y assembled at the end. */
static void run_all(run *R)
{
    rvs_error err;
    int nthreads = R->o.threads ? R->o.threads : omp_get_max_threads();
    R->cpu_threads = nthreads > 1 ? nthreads - 1 : 1;
    int per_core = R->o.mode == MODE_HYBRID && assign_cpu_parts(R);
    omp_set_max_active_levels(2);
    for (int slot = 0; slot <= R->o.iters; slot++) {
        if (R->o.mode == MODE_HYBRID) {
            run_hybrid(R, slot, per_core);
            continue;
        }
        rvs_device dev = R->o.mode == MODE_GPU ? RVS_DEV_GPU : RVS_DEV_CPU;
        check_st(run_device(R, dev, slot, &err), dev == RVS_DEV_GPU ? "GPU" : R->name, &err);
        R->t_total[slot] = 0;
        for (int i = 0; i < R->njobs; i++)
            R->t_total[slot] += R->jobs[i].t[slot];
    }
    if (R->o.mode == MODE_GPU)
        check_st(fetch_gpu_results(R, &err), "GPU", &err);
    assemble(R);
}

/* Median of the timed runs t[1..iters] (t[0] is the warm-up); sorts a copy. */
static double median_runs(const double *t, int iters)
{
    double *v = xmalloc((size_t)iters, sizeof *v);
    memcpy(v, t + 1, (size_t)iters * sizeof *v);
    double m = rvs_tool_median(v, iters);
    free(v);
    return m;
}

/* Relative error check of y against CSparse; dies with status 1 beyond the tolerance. */
static void check_y(run *R, const double *y, const char *what)
{
    double tol = R->vt == RVS_F64 ? 1e-10 : 1e-4, max_err = 0;
    int64_t row = -1;
    rvs_error err;
    rvs_status st = rvs_spmv_check(&R->S.A, R->xd, y, tol, &max_err, &row, &err);
    if (st == RVS_ERR_CHECK)
        rvs_tool_die(1, R->name, "check failed%s%s: row %lld error %.3g > tol %.3g", what[0] ? ": " : "",
                     what, (long long)row + 1, max_err, tol);
    check_st(st, R->name, &err);
    if (max_err > R->check_err)
        R->check_err = max_err;
    R->checked = 1;
}

/* Time cuSPARSE's three algorithms on the whole matrix in the run's type (checked too). */
static void run_baselines(run *R)
{
    static const rvs_cusparse_alg algs[3] = {RVS_CUSPARSE_CSR_ALG1, RVS_CUSPARSE_CSR_ALG2, RVS_CUSPARSE_COO_ALG1};
    rvs_csr C = {0};
    rvs_error err;
    int64_t rows = R->S.A.rows;
    void *y = xmalloc((size_t)rows, rvs_vtype_size(R->vt));
    double *yd = xmalloc((size_t)rows, sizeof *yd);
    check_st(rvs_csr_copy(&C, &R->S.A, &err), R->name, &err);
    check_st(rvs_csr_convert_values(&C, R->vt, &err), R->name, &err);
    for (int a = 0; a < 3; a++) {
        char what[64];
        check_st(rvs_cusparse_spmv(&C, algs[a], R->x, y, R->o.iters, &R->base_ms[a], &err), "cuSPARSE", &err);
        for (int64_t i = 0; i < rows && R->o.check; i++)
            yd[i] = R->vt == RVS_F64 ? ((double *)y)[i] : (double)((float *)y)[i];
        snprintf(what, sizeof what, "cuSPARSE %s", rvs_cusparse_alg_name(algs[a]));
        if (R->o.check)
            check_y(R, yd, what);
    }
    R->nbase = 3;
    rvs_csr_free(&C);
    free(y);
    free(yd);
}

/* Write y to -y FILE (no partial file on error). */
static void write_y(const run *R)
{
    rvs_error err;
    FILE *f = rvs_tool_open_text(R->o.yfile, &err);
    if (!f)
        rvs_tool_die_err(R->o.yfile, &err);
    rvs_status st = rvs_mm_write_array(f, R->yd, R->S.A.rows, 1, &err);
    rvs_status st2 = rvs_tool_close_text(f, R->o.yfile, st == RVS_OK, &err);
    check_st(st != RVS_OK ? st : st2, R->o.yfile, &err);
}

/* One table row: time in seconds, bytes moved; frac < 0 prints "-", frac_col 0 omits it. */
static void print_row(FILE *f, const char *part, const char *dev, const char *fmt, int64_t rows,
                      int64_t nnz, double s, double bytes, int frac_col, double copy_gbs)
{
    double gflops = s > 0 ? 2.0 * (double)nnz / s / 1e9 : 0, gbs = s > 0 ? bytes / s / 1e9 : 0;
    fprintf(f, "%-8s %-6s %-9s %10lld %12lld %12.6f %10.5g %10.5g", part, dev, fmt, (long long)rows,
            (long long)nnz, s * 1e3, gflops, gbs);
    if (frac_col && copy_gbs > 0)
        fprintf(f, " %8.4f", gbs / copy_gbs);
    else if (frac_col)
        fprintf(f, " %8s", "-");
    fputc('\n', f);
}

/* Sum of rows, nnz and bytes of the jobs on dev (dev < 0: all). */
static void job_sums(const run *R, int dev, int64_t *rows, int64_t *nnz, double *bytes)
{
    *rows = *nnz = 0;
    *bytes = 0;
    for (int i = 0; i < R->njobs; i++) {
        const job *J = &R->jobs[i];
        if (dev >= 0 && (int)J->device != dev)
            continue;
        *rows += J->nrows;
        *nnz += J->F->nnz;
        *bytes += (double)rvs_spmv_bytes(J->F);
    }
}

/* Bytes cuSPARSE's CSR (32-bit indices) or COO moves: arrays once, x and y once. */
static double baseline_bytes(const rvs_csr *A, rvs_cusparse_alg alg, size_t vs)
{
    double xy = (double)(A->rows + A->cols) * (double)vs;
    if (alg == RVS_CUSPARSE_COO_ALG1)
        return (double)A->nnz * (8.0 + (double)vs) + xy;
    return (double)(A->rows + 1) * 4.0 + (double)A->nnz * (4.0 + (double)vs) + xy;
}

/* The timing table: header comments, a row per part, device sums (hybrid), total, baselines. */
static void print_table(const run *R, FILE *f)
{
    static const char *mode_names[] = {"auto", "cpu", "gpu", "hybrid"};
    static const rvs_cusparse_alg algs[3] = {RVS_CUSPARSE_CSR_ALG1, RVS_CUSPARSE_CSR_ALG2, RVS_CUSPARSE_COO_ALG1};
    const rvs_csr *A = &R->S.A;
    int g = R->use_gpu, it = R->o.iters;
    int64_t rows, nnz;
    double bytes, total = median_runs(R->t_total, it);
    char desc[256], part[32];
    fprintf(f, "# spmv %s: %lld x %lld, nnz %lld, %s, mode %s, %d threads, median of %d runs\n",
            R->name, (long long)A->rows, (long long)A->cols, (long long)A->nnz, R->vt == RVS_F64 ? "f64" : "f32",
            mode_names[R->o.mode], R->o.threads ? R->o.threads : omp_get_max_threads(), it);
    if (g) {
        rvs_gpu_describe(desc, sizeof desc);
        fprintf(f, "# gpu %s, copy bandwidth %.1f GB/s, upload %.3f ms\n", desc, R->copy_gbs, R->upload_s * 1e3);
    }
    fprintf(f, "# part device format rows nnz time_ms gflops gbs%s\n", g ? " frac_copy_bw" : "");
    for (int i = 0; i < R->njobs; i++) {
        const job *J = &R->jobs[i];
        int on_gpu = J->device == RVS_DEV_GPU;
        snprintf(part, sizeof part, J->part < 0 ? "all" : "%d", J->part + 1);
        print_row(f, part, on_gpu ? "gpu" : "cpu", rvs_format_lookup(J->F->id)->name, J->nrows, J->F->nnz,
                  median_runs(J->t, it), (double)rvs_spmv_bytes(J->F), g, on_gpu ? R->copy_gbs : -1);
    }
    if (R->o.mode == MODE_HYBRID) {
        job_sums(R, RVS_DEV_GPU, &rows, &nnz, &bytes);
        print_row(f, "gpu", "gpu", "-", rows, nnz, median_runs(R->t_gpu, it), bytes, g, -1);
        job_sums(R, RVS_DEV_CPU, &rows, &nnz, &bytes);
        print_row(f, "cpu", "cpu", "-", rows, nnz, median_runs(R->t_cpu, it), bytes, g, -1);
    }
    job_sums(R, -1, &rows, &nnz, &bytes);
    print_row(f, "total", mode_names[R->o.mode], "-", A->rows, A->nnz, total, bytes, g,
              R->o.mode == MODE_GPU ? R->copy_gbs : -1);
    for (int a = 0; a < R->nbase; a++)
        print_row(f, "cusparse", "gpu", rvs_cusparse_alg_name(algs[a]), A->rows, A->nnz, R->base_ms[a] * 1e-3,
                  baseline_bytes(A, algs[a], rvs_vtype_size(R->vt)), g, R->copy_gbs);
    for (int a = 0; a < R->nbase; a++)
        fprintf(f, "# time ours/cusparse-%s %.4f\n", rvs_cusparse_alg_name(algs[a]),
                R->base_ms[a] > 0 ? total * 1e3 / R->base_ms[a] : 0.0);
    if (R->checked)
        fprintf(f, "# check ok: largest error %.3g, tolerance %.3g (CSparse reference, double)\n", R->check_err,
                R->vt == RVS_F64 ? 1e-10 : 1e-4);
}

/* Free what the run holds. */
static void run_free(run *R)
{
    for (int i = 0; i < R->njobs; i++) {
        job *J = &R->jobs[i];
        rvs_fmt_free(&J->own);
        rvs_gpu_fmt_free(&J->G);
        rvs_gpu_free(J->dy);
        if (J->y_pinned)
            rvs_gpu_host_unregister(J->y);
        free(J->y);
        free(J->t);
    }
    free(R->jobs);
    rvs_gpu_free(R->dx);
    free(R->xd);
    free(R->x);
    free(R->yd);
    free(R->t_total);
    free(R->t_cpu);
    free(R->t_gpu);
    rvs_stream_free(&R->S);
}

/* Resolve the mode against the GPUs present. */
static void choose_mode(run *R)
{
    char desc[256];
    int gpus = R->o.mode == MODE_CPU ? 0 : rvs_gpu_count(); /* --cpu never starts CUDA */
    if (R->o.mode == MODE_AUTO)
        R->o.mode = gpus > 0 ? MODE_GPU : MODE_CPU;
    if (R->o.mode != MODE_CPU && gpus == 0) {
        rvs_gpu_describe(desc, sizeof desc);
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "--%s needs a GPU: %s", R->o.mode == MODE_GPU ? "gpu" : "hybrid", desc);
    }
    if (R->o.baseline && R->o.mode == MODE_CPU)
        rvs_tool_usage("--baseline compares GPU kernels: use it with --gpu or --hybrid");
}

int main(int argc, char **argv)
{
    run R;
    rvs_error err;
    memset(&R, 0, sizeof R);
    rvs_tool_init("spmv");
    parse_options(&R.o, argc, argv);
    if (R.o.threads)
        rvs_tool_set_threads("--threads", R.o.threads);
    choose_mode(&R);
    R.name = rvs_tool_input_name(R.o.input);
    check_st(rvs_tool_read_input(R.o.input, &R.S, NULL, &err), R.name, &err);
    if (R.S.A.cols > RVS_COL32_MAX) /* before x, which would be 2^31 entries or more */
        rvs_tool_die(RVS_EX_DATAERR, R.name, "%lld columns need 64-bit column indices, which spmv does not hold",
                     (long long)R.S.A.cols);
    R.vt = R.o.precision ? R.o.precision : R.S.A.vtype;
    check_st(rvs_mem_claim(16.0 * ((double)R.S.A.cols + (double)R.S.A.rows), "x and y", &err), R.name, &err);
    make_x(&R);
    make_jobs(&R);
    for (int i = 0; i < R.njobs; i++)
        R.use_gpu |= R.jobs[i].device == RVS_DEV_GPU;
    if (R.use_gpu)
        prepare_gpu(&R);
    R.yd = xmalloc((size_t)R.S.A.rows, sizeof *R.yd);
    R.t_total = xmalloc((size_t)R.o.iters + 1, sizeof *R.t_total);
    R.t_cpu = calloc((size_t)R.o.iters + 1, sizeof *R.t_cpu);
    R.t_gpu = calloc((size_t)R.o.iters + 1, sizeof *R.t_gpu);
    if (!R.t_cpu || !R.t_gpu)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
    run_all(&R);
    if (R.o.check)
        check_y(&R, R.yd, "");
    if (R.o.baseline)
        run_baselines(&R);
    if (R.o.yfile)
        write_y(&R);
    int y_on_stdout = R.o.yfile && strcmp(R.o.yfile, "-") == 0;
    print_table(&R, y_on_stdout ? stderr : stdout);
    if (fflush(stdout) != 0 || ferror(stdout))
        rvs_tool_die(RVS_EX_IOERR, NULL, "write error on stdout");
    run_free(&R);
    return 0;
}
