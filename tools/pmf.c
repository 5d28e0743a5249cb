/* pmf.c - the pmf program: distribution of row lengths, written into the stream */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_report.h"
#include "rvs_tool.h"

static const char usage[] =
    "Usage: pmf [OPTION]... [FILE]\n"
    "Read a sparse matrix (Matrix Market .mtx or .mtx.gz, or an RVS stream) from FILE or\n"
    "standard input, compute the probability mass function (PMF) of its row lengths, and\n"
    "write the stream with a PMF chunk. On a terminal, print a summary instead.\n"
    "\n"
    "      --table        print the PMF as columns 'k b_k p_k' (for gnuplot), not the stream\n"
    "  -r, --report       print the statistics (the terminal summary), not the stream\n"
    "      --json         print the statistics and the PMF as one JSON object, not the stream\n"
    "  -o, --output FILE  write the stream to FILE (FILE.mtx, FILE.mtx.gz: the matrix as\n"
    "                     Matrix Market) [stdout when it is not a terminal]; a report then goes\n"
    "                     to stdout, or to stderr when FILE is '-'\n"
    "      --edges        a text input is an edge list ('src dst [weight]', 0-based)\n"
    "      --size N       the edge list's size [its largest index + 1]\n"
    "  -t, --threads N    threads that read Matrix Market [OMP_NUM_THREADS or all cores]\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 64 usage, 65 bad input data, 66 missing input, 74 I/O error.\n"
    "See pmf(1), rvs(5), rvskit(7).\n";

enum { OPT_JSON = 256, OPT_TABLE };
enum report { REPORT_NONE, REPORT_TABLE, REPORT_TEXT, REPORT_JSON };

/* k b_k p_k columns, after a header naming the matrix (plots/pmf.gp takes its title from it). */
static void print_table(FILE *f, const rvs_stream *S)
{
    const rvs_pmf *P = &S->pmf;
    char name[RVS_TEXT_NAME_MAX];
    fprintf(f, "# matrix %s rows %lld nnz %lld mean %.6g max %lld\n",
            rvs_report_text_name(S->name, name, sizeof name), (long long)P->rows, (long long)P->nnz, P->mean,
            (long long)P->max);
    fprintf(f, "# k b_k p_k\n");
    for (int64_t i = 0; i < P->nbins; i++)
        fprintf(f, "%lld %lld %.9g\n", (long long)P->k[i], (long long)P->b[i],
                P->rows ? (double)P->b[i] / (double)P->rows : 0.0);
}

/* The report asked for, on f. */
static void print_report(FILE *f, enum report what, const char *input, const rvs_stream *S)
{
    rvs_json j;
    if (what == REPORT_TABLE)
        print_table(f, S);
    else if (what == REPORT_TEXT)
        rvs_report_pmf_text(f, S, &S->pmf);
    else if (what == REPORT_JSON) {
        rvs_json_begin(&j, f);
        rvs_json_str(&j, "program", "pmf");
        rvs_json_str(&j, "rvskit_version", RVSKIT_VERSION);
        rvs_json_str(&j, "input", input);
        rvs_report_pmf_json(&j, S, &S->pmf, 1);
        rvs_json_finish(&j);
    }
    if (fflush(f) != 0 || ferror(f))
        rvs_tool_die(RVS_EX_IOERR, f == stdout ? "stdout" : "stderr", "write error");
}

/* Set the report kind once; two kinds are a usage error. */
static void want_report(enum report *r, enum report what)
{
    if (*r != REPORT_NONE && *r != what)
        rvs_tool_usage("--table, --report and --json exclude each other");
    *r = what;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"table", no_argument, 0, OPT_TABLE},
                                         {"report", no_argument, 0, 'r'},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"output", required_argument, 0, 'o'},
                                         {"threads", required_argument, 0, 't'},
                                         RVS_TOOL_INPUT_OPTIONS,
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    enum report report = REPORT_NONE;
    int c;
    rvs_stream S;
    rvs_error err;
    rvs_tool_init("pmf");
    while ((c = rvs_tool_getopt(argc, argv, "ro:t:hV", opts)) != -1) {
        switch (c) {
        case OPT_TABLE: want_report(&report, REPORT_TABLE); break;
        case 'r': want_report(&report, REPORT_TEXT); break;
        case OPT_JSON: want_report(&report, REPORT_JSON); break;
        case 'o': out = optarg; break;
        case 't': rvs_tool_set_threads(optarg); break;
        case RVS_OPT_EDGES:
        case RVS_OPT_SIZE: rvs_tool_input_option(c, optarg); break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': rvs_tool_version();
        }
    }
    if (argc - optind > 1)
        rvs_tool_usage("one input file at most");
    const char *in = optind < argc ? argv[optind] : NULL;
    const char *name = rvs_tool_input_name(in);
    if (rvs_tool_read_input(in, &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    rvs_pmf_free(&S.pmf);
    if (rvs_pmf_compute(&S.pmf, &S.A, &err) != RVS_OK)
        rvs_tool_die_err(name, &err);
    S.has_pmf = 1;
    /* the stream goes out with -o, or to a non-terminal stdout when no report was asked for */
    int stream = out || (report == REPORT_NONE && rvs_tool_want_stream(NULL));
    int stream_on_stdout = stream && (!out || strcmp(out, "-") == 0);
    if (stream && rvs_tool_write_stream(out && strcmp(out, "-") != 0 ? out : NULL, &S, &err) != RVS_OK)
        rvs_tool_die_err(out ? out : "stdout", &err);
    if (report == REPORT_NONE && !stream)
        report = REPORT_TEXT; /* a terminal */
    print_report(stream_on_stdout ? stderr : stdout, report, name, &S);
    rvs_stream_free(&S);
    return 0;
}
