/* convert.c - the convert program: every part (or the whole matrix) into a storage format */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "rvs_engine.h"
#include "rvs_report.h"
#include "rvs_tool.h"

static const char usage[] =
    "Usage: convert [OPTION]... [FILE]\n"
    "Read a matrix (RVS stream or .mtx, from FILE or standard input), build every part of its\n"
    "partition (or the whole matrix when it has none) in a storage format, and write the stream\n"
    "with the new format blocks in place of the old ones. On a terminal, print the report.\n"
    "\n"
    "      --to FORMAT          one format for every part, or 'mtx': write the whole matrix\n"
    "                           as Matrix Market text instead of a stream (also what -o\n"
    "                           FILE.mtx or FILE.mtx.gz, any case, asks for)\n"
    "                           FORMAT 'auto': the advisor tries the candidates on the part's\n"
    "                           device and records its decision in the stream (chunk 'auto')\n"
    "      --digits N           Matrix Market output: significant digits, 1..17 [the fewest\n"
    "                           that read back exactly]\n"
    "      --gpu-format FORMAT  format of the parts the partition put on a GPU\n"
    "      --cpu-format FORMAT  format of the parts the partition put on CPU cores\n"
    "                           (no partition: the GPU format if given, else the CPU one)\n"
    "  -k, --hyb-k N|auto|third HYB/HYB-DIA threshold K [auto]\n"
    "      --hcc-np N           HCC column panels ordering a block [column order]\n"
    "      --hcc-nb N           HCC blocks wanted [format default]\n"
    "      --dia-max-ratio N    refuse DIA when padding exceeds N * nnz [10]\n"
    "      --ell-max-ratio N    refuse ELL and ELLR when their slots exceed N * nnz (and 16M) [100]\n"
    "  -p, --precision f32|f64  precision of the hub and of every block (complex values stay\n"
    "                           complex: c64, c128) [as read]\n"
    "  -r, --report             print per part: bytes, padding, ratios to CSR and COO,\n"
    "                           N_iter and N_p, and for auto the choice, the runner-up and\n"
    "                           both trial times (not the stream, unless -o is given)\n"
    "      --warp N             report N_iter for warps of N rows, 1..1024 [32]\n"
    "      --json               print the report as one JSON object (not the stream, unless\n"
    "                           -o is given)\n"
    "      --no-cache           auto: neither read nor write the trial cache\n"
    "  -o, --output FILE        write to FILE [stdout when it is not a terminal]\n"
    "      --edges              a text input is an edge list ('src dst [weight]', 0-based)\n"
    "      --size N             the edge list's size [its largest index + 1]\n"
    "  -t, --threads N          threads that read Matrix Market and build blocks [all cores]\n"
    "  -h, --help               show this help and exit\n"
    "  -V, --version            show the version and exit\n"
    "\n"
    "FORMAT is one of: %s.\nFORMAT auto lets the advisor choose (see --to).\n"
    "Exit status: 0 success, 64 usage, 65 bad input data (also: a format refused the matrix),\n"
    "66 missing input, 70 out of memory, 74 I/O error.\n"
    "See convert(1), rvs(5), rvskit(7).\n";

/* A format option: one format, or auto. */
#define AUTO ((const rvs_format_ops *)&auto_marker)
static const int auto_marker = 0;

/* What the command line asked for. */
typedef struct {
    const rvs_format_ops *to, *gpu, *cpu; /* NULL: not given; AUTO: the advisor */
    int to_mtx;
    rvs_advisor_options adv;
    int report, json, warp; /* warp: rows a warp of the report's N_iter */
    rvs_vtype precision;    /* 0: keep */
    rvs_fmt_options fo;
    const char *out;
    const char *in;
} convert_args;

/* Format called name (or AUTO), or a usage error naming the option and listing every format. */
static const rvs_format_ops *format_arg(const char *opt, const char *name)
{
    if (strcasecmp(name, "auto") == 0)
        return AUTO;
    const rvs_format_ops *ops = rvs_format_by_name(name);
    if (!ops)
        rvs_tool_usage("%s: unknown format '%s' (one of %s%s)", opt, name, rvs_format_names(),
                       strcmp(opt, "--to") == 0 ? ",mtx" : "");
    return ops;
}

/* Parse the command line into *a (dies on misuse). */
static void parse_args(convert_args *a, int argc, char **argv)
{
    enum {
        OPT_NP = 1000,
        OPT_NB,
        OPT_DIA,
        OPT_ELL,
        OPT_NOCACHE,
        OPT_DIGITS,
        OPT_JSON,
        OPT_TO,
        OPT_GPU,
        OPT_CPU,
        OPT_WARP
    };
    static const struct option opts[] = {{"to", required_argument, 0, OPT_TO},
                                         {"gpu-format", required_argument, 0, OPT_GPU},
                                         {"cpu-format", required_argument, 0, OPT_CPU},
                                         {"hyb-k", required_argument, 0, 'k'},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"threads", required_argument, 0, 't'},
                                         RVS_TOOL_INPUT_OPTIONS,
                                         {"hcc-np", required_argument, 0, OPT_NP},
                                         {"hcc-nb", required_argument, 0, OPT_NB},
                                         {"dia-max-ratio", required_argument, 0, OPT_DIA},
                                         {"ell-max-ratio", required_argument, 0, OPT_ELL},
                                         {"digits", required_argument, 0, OPT_DIGITS},
                                         {"warp", required_argument, 0, OPT_WARP},
                                         {"precision", required_argument, 0, 'p'},
                                         {"report", no_argument, 0, 'r'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {"no-cache", no_argument, 0, OPT_NOCACHE},
                                         {0, 0, 0, 0}};
    int c;
    memset(a, 0, sizeof *a);
    a->warp = 32;
    rvs_fmt_options_default(&a->fo);
    rvs_advisor_options_default(&a->adv);
    while ((c = rvs_tool_getopt(argc, argv, "k:p:ro:t:hV", opts)) != -1) {
        switch (c) {
        case OPT_TO:
            a->to_mtx = strcasecmp(optarg, "mtx") == 0;
            a->to = a->to_mtx ? NULL : format_arg("--to", optarg);
            break;
        case OPT_GPU: a->gpu = format_arg("--gpu-format", optarg); break;
        case OPT_CPU: a->cpu = format_arg("--cpu-format", optarg); break;
        case OPT_JSON: a->json = 1; break;
        case 't': rvs_tool_set_threads(optarg); break;
        case RVS_OPT_EDGES:
        case RVS_OPT_SIZE: rvs_tool_input_option(c, optarg); break;
        case 'k':
            if (strcmp(optarg, "auto") == 0)
                a->fo.hyb_k = RVS_HYB_K_AUTO;
            else if (strcmp(optarg, "third") == 0)
                a->fo.hyb_k = RVS_HYB_K_THIRD;
            else
                a->fo.hyb_k = rvs_tool_parse_int("--hyb-k", optarg, 0, INT32_MAX);
            break;
        case OPT_NP: a->fo.hcc_np = rvs_tool_parse_int("--hcc-np", optarg, 1, RVS_HCC_MAX_NP); break;
        case OPT_NB: a->fo.hcc_nb = rvs_tool_parse_int("--hcc-nb", optarg, 1, INT32_MAX); break;
        case OPT_DIA: a->fo.dia_max_ratio = rvs_tool_parse_int("--dia-max-ratio", optarg, 1, 1LL << 40); break;
        case OPT_ELL: a->fo.ell_max_ratio = rvs_tool_parse_int("--ell-max-ratio", optarg, 1, 1LL << 40); break;
        case OPT_DIGITS: rvs_tool_set_digits((int)rvs_tool_parse_int("--digits", optarg, 1, 17)); break;
        case OPT_WARP: a->warp = (int)rvs_tool_parse_int("--warp", optarg, 1, 1024); break;
        case 'p': a->precision = rvs_tool_parse_precision("--precision", optarg); break;
        case 'r': a->report = 1; break;
        case OPT_NOCACHE: a->adv.use_cache = 0; break;
        case 'o': a->out = optarg; break;
        case 'h': printf(usage, rvs_format_names()); exit(0);
        case 'V': rvs_tool_version();
        }
    }
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    if ((a->to || a->to_mtx) && (a->gpu || a->cpu))
        rvs_tool_usage("--to and --gpu-format/--cpu-format exclude each other");
    if (a->to_mtx && (a->report || a->json))
        rvs_tool_usage("--to mtx writes Matrix Market text: it has no --%s", a->json ? "json" : "report");
    if (a->report && a->json)
        rvs_tool_usage("--report and --json exclude each other");
    rvs_tool_output_mtx(a->out,
                        a->to_mtx                     ? 1
                        : (a->to || a->gpu || a->cpu) ? 0
                                                      : -1,
                        a->to_mtx ? "--to mtx" : "a format option");
    a->in = optind < argc ? argv[optind] : NULL;
}

/* The format part should get (NULL: none; AUTO: the advisor's, on *dev), from the options or,
 * when none was given, from the block the stream already holds for it. */
static const rvs_format_ops *part_format(const convert_args *a, const rvs_stream *S, int part, rvs_device *dev)
{
    *dev = part >= 0                                                   ? S->partition.parts[part].device
           : a->gpu || (a->to == AUTO && rvs_engine_gpus(NULL, 0) > 0) ? RVS_DEV_GPU
                                                                       : RVS_DEV_CPU;
    if (a->to)
        return a->to;
    if (a->gpu || a->cpu)
        return part < 0 ? (a->gpu ? a->gpu : a->cpu) : *dev == RVS_DEV_GPU ? a->gpu : a->cpu;
    for (int i = 0; i < S->nfmt; i++)
        if (S->fmt[i].part == part)
            return rvs_format_lookup(S->fmt[i].fmt.id);
    return NULL;
}

/* Build the block of part i through the engine (rvs_part_block; auto: the advisor's format and
 * build options, its decision into D) into *B; *built = 0 when the part keeps no block. copy:
 * the part's rows copied out of the hub (rvs_parts_split), or NULL; with consume the hub is
 * written already. On error err->msg names the part. */
static rvs_status build_part(rvs_fmt_block *B, int *built, rvs_stream *S, const convert_args *a, rvs_decisions *D,
                             int i, int consume, rvs_csr *copy, rvs_error *err)
{
    int part = S->has_partition ? i : -1, view;
    rvs_device dev;
    const rvs_format_ops *ops = part_format(a, S, part, &dev);
    rvs_format_id id = ops && ops != AUTO ? ops->id : (rvs_format_id)0;
    rvs_fmt_options fo = a->fo;
    rvs_status st = RVS_OK;
    *built = 0;
    memset(B, 0, sizeof *B);
    if (!ops)
        return RVS_OK;
    if (ops == AUTO) {
        const rvs_csr *A;
        rvs_csr sub;
        rvs_tool_status("trying formats");
        if ((st = rvs_part_or_whole(&sub, &view, &S->partition, part, &S->A, &A, err)) == RVS_OK)
            st = rvs_advise_part(D, A, part, dev, &a->adv, &id, &fo, err);
        rvs_part_csr_free(&sub, view);
        rvs_tool_progress_done();
        if (st != RVS_OK) {
            rvs_error_name_part(err, part);
            return st;
        }
    }
    st = rvs_part_block(B, S, part, id, &fo, copy, consume, err);
    *built = st == RVS_OK;
    return st;
}

/* Build every planned block from the hub and keep them all in S (for the report). */
static rvs_status build_blocks(rvs_stream *S, const convert_args *a, rvs_decisions *D, rvs_error *err)
{
    int nparts = S->has_partition ? S->partition.k : 1, n = 0, built;
    rvs_fmt_block *blocks = calloc((size_t)nparts, sizeof *blocks);
    rvs_status st = blocks ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; st == RVS_OK && i < nparts; i++)
        if ((st = build_part(&blocks[n], &built, S, a, D, i, 0, NULL, err)) == RVS_OK)
            n += built;
    if (st == RVS_OK) {
        rvs_stream_drop_formats(S);
        S->fmt = blocks;
        S->nfmt = n;
    } else if (blocks) {
        for (int i = 0; i < n; i++)
            rvs_fmt_free(&blocks[i].fmt);
        free(blocks);
    }
    return st;
}

/* What write_streaming needs. */
typedef struct {
    rvs_stream *S;
    const convert_args *a;
    rvs_decisions *D;
} streaming;

/* The format of each part (one for the whole matrix without a partition; 0: none, or the
 * advisor's), malloc'd; NULL when out of memory. */
static rvs_format_id *part_formats(const rvs_stream *S, const convert_args *a)
{
    const int k = S->has_partition ? S->partition.k : 1;
    rvs_format_id *fmt = calloc((size_t)k, sizeof *fmt);
    for (int p = 0; fmt && p < k; p++) {
        rvs_device dev;
        const rvs_format_ops *ops = part_format(a, S, S->has_partition ? p : -1, &dev);
        fmt[p] = ops && ops != AUTO ? ops->id : (rvs_format_id)0;
    }
    return fmt;
}

/* Every part's format would take it (rvs_parts_admit): asked before the first byte of a stream
 * whose blocks go out one by one, so that a refused part leaves no partial output. */
static rvs_status admit_parts(const rvs_stream *S, const convert_args *a, rvs_error *err)
{
    rvs_format_id *fmt = part_formats(S, a);
    rvs_status st = fmt ? rvs_parts_admit(S, fmt, &a->fo, err) : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    free(fmt);
    return st;
}

/* Once the hub is written, the scattered rows of the parts with a format are copied out of it
 * in one pass that gives its pages back (rvs_parts_split); *copies stays NULL when that does
 * not apply. */
static rvs_status split_hub(rvs_csr **copies, rvs_stream *S, const convert_args *a, rvs_error *err)
{
    rvs_format_id *fmt = part_formats(S, a);
    *copies = NULL;
    rvs_status st = fmt ? rvs_parts_split(copies, S, fmt, err) : rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    free(fmt);
    return st;
}

/* The stream with each block written as soon as it is built, then freed: the hub goes out
 * first, so a block may consume the entries it copies (ELL, ELLR) and the program holds the hub
 * (or the parts copied from it) and one block at a time, not the hub and every block. For
 * rvs_tool_write_file. */
static rvs_status write_streaming(FILE *f, const void *ctx, rvs_error *err)
{
    const streaming *c = ctx;
    rvs_stream *S = c->S;
    rvs_stream_writer *W = NULL;
    rvs_fmt_block B;
    rvs_csr *cp = NULL;
    int built, k = S->has_partition ? S->partition.k : 1;
    rvs_status st = rvs_stream_write_head(&W, f, S, err);
    if (st == RVS_OK && S->has_partition)
        st = split_hub(&cp, S, c->a, err);
    for (int i = 0; st == RVS_OK && i < k; i++) {
        if ((st = build_part(&B, &built, S, c->a, c->D, i, 1, cp && cp[i].rowptr ? &cp[i] : NULL, err)) == RVS_OK &&
            built)
            st = rvs_stream_write_block(W, &B);
        if (built)
            rvs_fmt_free(&B.fmt);
        if (cp)
            rvs_csr_free(&cp[i]);
    }
    rvs_partition_split_free(cp, k);
    rvs_stream_drop_formats(S); /* the blocks read (a part without a format option takes its own's) */
    if (st == RVS_OK && c->D->n > 0)
        st = rvs_decisions_write(S, c->D, err);
    else if (st == RVS_OK)
        rvs_decisions_drop(S); /* new blocks: an older decision no longer describes them */
    if (st == RVS_OK)
        return rvs_stream_write_tail(W, S);
    free(W);
    return st;
}

/* Write the whole matrix, as its blocks hold it, as Matrix Market text to a->out or stdout
 * (through a temporary file: no partial file is left). */
static void write_mtx(const convert_args *a, const rvs_stream *S, const char *name)
{
    rvs_error err;
    rvs_csr M;
    const rvs_vtype vt = a->precision ? rvs_vtype_with_precision(S->A.vtype, a->precision) : S->A.vtype;
    if (rvs_blocks_matrix(&M, S, vt, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    if (rvs_tool_write_mtx(a->out, &M, S, &err) != RVS_OK)
        rvs_tool_die_err(a->out ? a->out : "stdout", &err);
    rvs_csr_free(&M);
}

int main(int argc, char **argv)
{
    convert_args a;
    rvs_stream S;
    rvs_error err;
    rvs_tool_init("convert");
    parse_args(&a, argc, argv);
    const char *name = rvs_tool_input_name(a.in);
    if (rvs_tool_read_input(a.in, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    if (a.to_mtx) {
        write_mtx(&a, &S, name);
    } else {
        if (a.precision)
            a.precision = rvs_vtype_with_precision(S.A.vtype, a.precision);
        if (a.precision && rvs_csr_convert_values(&S.A, a.precision, &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
        /* Without a format option the stream's own blocks stay, rebuilt only for --precision. */
        int rebuild = a.to || a.gpu || a.cpu || a.precision;
        rvs_decisions D = {0};
        const int asked = a.report || a.json;
        int stream = a.out || (!asked && rvs_tool_want_stream(NULL));
        /* no report and no advisor (its trials hold blocks anyway): blocks go out as built */
        if (rebuild && stream && !asked && !(a.out && isatty(1)) && a.to != AUTO && a.gpu != AUTO &&
            a.cpu != AUTO) {
            streaming c = {&S, &a, &D};
            if (admit_parts(&S, &a, &err) != RVS_OK)
                rvs_tool_die_err(name, &err);
            if (rvs_tool_write_file(a.out, write_streaming, &c, &err) != RVS_OK)
                rvs_tool_die_err(err.code == RVS_ERR_IO ? (a.out ? a.out : "stdout") : name, &err);
            rvs_decisions_free(&D);
            rvs_stream_free(&S);
            return 0;
        }
        if (rebuild && build_blocks(&S, &a, &D, &err) != RVS_OK)
            rvs_tool_die_err(err.code == RVS_ERR_NODEV ? "GPU" : name, &err);
        if (rebuild && D.n > 0 && rvs_decisions_write(&S, &D, &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
        else if (rebuild && D.n == 0)
            rvs_decisions_drop(&S); /* new blocks: an older decision no longer describes them */
        int current = 0;
        if (D.n == 0 && rvs_decisions_read(&D, &S, &current, &err) != RVS_OK)
            rvs_tool_die_err(name, &err);
        if (asked || !stream || (a.out && isatty(1)))
            rvs_report_convert(stdout, a.json, name, &S, &D, a.warp);
        if (stream && rvs_tool_write_stream(a.out, &S, &err) != RVS_OK)
            rvs_tool_die_err(a.out ? a.out : "stdout", &err);
        rvs_decisions_free(&D);
    }
    rvs_stream_free(&S);
    return 0;
}
