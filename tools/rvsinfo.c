/* rvsinfo.c - the rvsinfo program: what an RVS stream (or a Matrix Market file) holds */
#include <stdlib.h>
#include <string.h>
#include "rvs_info_report.h"
#include "rvs_plot_tables.h"
#include "rvs_tool.h"

static const char usage[] =
    "Usage: rvsinfo [OPTION]... [FILE]\n"
    "Show what an RVS stream holds, from FILE or standard input: every chunk with its offset,\n"
    "length and CRC verdict, the matrix header and its source, the PMF statistics, the stored\n"
    "partition with its metrics, the format blocks and any other (ancillary) chunks. A Matrix\n"
    "Market file gets its header and PMF statistics. A damaged stream is shown as far as it\n"
    "goes, and the status says what is wrong.\n"
    "\n"
    "      --json         print one JSON object instead of text\n"
    "      --spy WxH      print the sparsity pattern as a table of at most W x H cells: 'x y nnz\n"
    "                     part', the entries of each cell and the part holding most of them\n"
    "      --ranges       print per part 'part device format kmin kmax rows nnz': its format and\n"
    "                     the range of its row lengths\n"
    "      --candidates   print the advisor's candidates from the 'auto' chunk: 'part device\n"
    "                     vtype how candidate pred_ms trial_ms status chosen'\n"
    "                     (the tables plots/spy.sh, pmf.sh and advisor.sh draw)\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 a valid stream or matrix, 64 usage, 65 bad or damaged input (after the\n"
    "report), 66 missing input, 74 I/O error.\n"
    "See rvsinfo(1), rvs(5), rvskit(7).\n";

/* Base name of a path. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Inspect b: walk and read a stream, or read a Matrix Market file. Only an input that is
 * neither is an error before any report (returns it). */
static rvs_status inspect(rvs_inspection *I, const rvs_input_buf *b, rvs_error *err)
{
    FILE *f = fmemopen(b->data, b->len, "r");
    rvs_status st = RVS_OK;
    if (!f)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    I->is_stream = rvs_stream_sniff(b->data, b->len);
    if (I->is_stream) {
        st = rvs_chunks_walk(&I->walk, b->data, b->len, err);
        I->valid = st == RVS_OK && rvs_stream_read(&I->S, f, NULL, 0, &I->err) == RVS_OK;
    } else {
        rvs_mm_info info;
        st = rvs_mm_read_stream(&I->S.A, &info, f, NULL, 0, NULL, NULL, err);
        if (st == RVS_OK)
            st = rvs_stream_set_mm_source(&I->S, &info, err);
        snprintf(I->S.name, sizeof I->S.name, "%s", strcmp(I->input, "stdin") ? base_name(I->input) : "stdin");
        I->valid = st == RVS_OK;
    }
    fclose(f);
    I->pmf_stored = I->valid && I->S.has_pmf;
    for (int i = 0; I->valid && i < I->S.nextra; i++)
        I->has_auto |= memcmp(I->S.extra[i].type, "auto", 4) == 0;
    rvs_error_clear(&I->auto_err);
    if (I->has_auto && rvs_decisions_read(&I->D, &I->S, &I->auto_current, &I->auto_err) != RVS_OK)
        I->has_auto = 0;
    rvs_error_clear(&I->plac_err);
    I->has_plac = I->valid && rvs_placement_present(&I->S);
    if (I->has_plac && I->S.has_partition) {
        int32_t *number = malloc((size_t)I->S.partition.k * sizeof *number);
        if (!number)
            return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
        rvs_placement_get(&I->S, number, &I->plac_err);
        free(number);
    }
    if (st == RVS_OK && I->valid && !I->S.has_pmf)
        st = rvs_pmf_compute(&I->S.pmf, &I->S.A, err);
    return st;
}

/* The table t asks for, on stdout; an input it cannot be drawn from is refused without one. */
static void print_table(const rvs_inspection *I, const rvs_plot_request *t)
{
    rvs_error err;
    const rvs_error *bad = !I->valid                    ? &I->err
                           : I->plac_err.code != RVS_OK ? &I->plac_err
                           : I->auto_err.code != RVS_OK ? &I->auto_err
                                                        : NULL;
    if (bad)
        rvs_tool_die_err(I->input, bad);
    if (t->kind == RVS_PLOT_CANDIDATES && !I->has_auto)
        rvs_tool_die(RVS_EX_DATAERR, I->input,
                     "no 'auto' chunk: no advisor's decision to show "
                     "(convert --to auto records one)");
    if (rvs_plot_table(stdout, t, &I->S, &I->D, I->auto_current, &err) != RVS_OK)
        rvs_tool_die_err(I->input, &err);
}

int main(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_SPY, OPT_RANGES, OPT_CANDIDATES };
    static const struct option opts[] = {{"json", no_argument, 0, OPT_JSON},
                                         {"spy", required_argument, 0, OPT_SPY},
                                         {"ranges", no_argument, 0, OPT_RANGES},
                                         {"candidates", no_argument, 0, OPT_CANDIDATES},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    int c, json = 0;
    rvs_plot_request table = {RVS_PLOT_NONE, 0, 0};
    rvs_input_buf b;
    rvs_inspection I;
    rvs_error err;
    rvs_tool_init("rvsinfo");
    while ((c = rvs_tool_getopt(argc, argv, "hV", opts)) != -1) {
        const rvs_plot_kind kind = c == OPT_SPY          ? RVS_PLOT_SPY
                                   : c == OPT_RANGES     ? RVS_PLOT_RANGES
                                   : c == OPT_CANDIDATES ? RVS_PLOT_CANDIDATES
                                                         : RVS_PLOT_NONE;
        if ((c == OPT_JSON && table.kind) || (kind && (json || (table.kind && table.kind != kind))))
            rvs_tool_usage("--json, --spy, --ranges and --candidates exclude each other");
        switch (c) {
        case OPT_JSON: json = 1; break;
        case OPT_SPY:
            if (!rvs_spy_parse(optarg, &table.w, &table.h))
                rvs_tool_usage("--spy: '%s' is not WxH, two sizes from 1 to %d", optarg, RVS_SPY_MAX);
            table.kind = kind;
            break;
        case OPT_RANGES:
        case OPT_CANDIDATES: table.kind = kind; break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': rvs_tool_version();
        }
    }
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    const char *path = optind < argc && strcmp(argv[optind], "-") != 0 ? argv[optind] : NULL;
    memset(&I, 0, sizeof I);
    I.input = rvs_tool_input_name(path);
    if (rvs_input_load(path, &b, &err) != RVS_OK)
        rvs_tool_die_err(I.input, &err);
    if (b.len == 0)
        rvs_tool_die(RVS_EX_DATAERR, I.input, "empty input");
    if (inspect(&I, &b, &err) != RVS_OK)
        rvs_tool_die_err(I.input, &err);
    if (table.kind != RVS_PLOT_NONE)
        print_table(&I, &table);
    else if (json)
        rvs_info_report_json(stdout, &I);
    else
        rvs_info_report_text(stdout, &I);
    if (fflush(stdout) != 0 || ferror(stdout))
        rvs_tool_die(RVS_EX_IOERR, "stdout", "write error");
    if (!I.valid)
        rvs_tool_die_err(I.input, &I.err);
    if (I.plac_err.code != RVS_OK)
        rvs_tool_die_err(I.input, &I.plac_err);
    if (I.auto_err.code != RVS_OK)
        rvs_tool_die_err(I.input, &I.auto_err);
    rvs_decisions_free(&I.D);
    rvs_chunks_free(&I.walk);
    rvs_stream_free(&I.S);
    rvs_input_free(&b);
    return 0;
}
