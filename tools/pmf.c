/* pmf.c - the pmf program: distribution of row lengths, written into the stream */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_tool.h"

static const char usage[] =
    "Usage: pmf [OPTION]... [FILE]\n"
    "Read a sparse matrix (Matrix Market .mtx or .mtx.gz, or an RVS stream) from FILE or\n"
    "standard input, compute the probability mass function (PMF) of its row lengths, and\n"
    "write the stream with a PMF chunk. On a terminal, print a summary instead.\n"
    "\n"
    "  -t, --table        print the PMF as columns 'k b_k p_k' (for gnuplot), not the stream\n"
    "  -o, --output FILE  write the stream to FILE [stdout when it is not a terminal]\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 64 usage, 65 bad input data, 66 missing input, 74 I/O error.\n"
    "See pmf(1), rvs(5), rvskit(7).\n";

/* Human-readable statistics. */
static void print_summary(FILE *f, const rvs_stream *S)
{
    const rvs_pmf *P = &S->pmf;
    fprintf(f, "matrix       %s\n", S->name[0] ? S->name : "-");
    fprintf(f, "rows         %lld\n", (long long)P->rows);
    fprintf(f, "columns      %lld\n", (long long)P->cols);
    fprintf(f, "nnz          %lld\n", (long long)P->nnz);
    fprintf(f, "empty rows   %lld\n", (long long)P->empty_rows);
    fprintf(f, "row length   min %lld  max %lld  max-min %lld  mean %.3f  stddev %.3f\n",
            (long long)P->min, (long long)P->max, (long long)(P->max - P->min), P->mean, P->stddev);
    fprintf(f, "ELL density  %.1f%% (whole matrix as one ELL of width %lld)\n", 100.0 * P->ell_density,
            (long long)P->max);
    fprintf(f, "lengths      %lld distinct\n", (long long)P->nbins);
}

/* k b_k p_k columns. */
static void print_table(FILE *f, const rvs_pmf *P)
{
    fprintf(f, "# k b_k p_k\n");
    for (int64_t i = 0; i < P->nbins; i++)
        fprintf(f, "%lld %lld %.9g\n", (long long)P->k[i], (long long)P->b[i],
                P->rows ? (double)P->b[i] / (double)P->rows : 0.0);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"table", no_argument, 0, 't'}, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},  {"version", no_argument, 0, 'V'},  {0, 0, 0, 0}};
    const char *out = NULL;
    int table = 0, c;
    rvs_stream S;
    rvs_error err;
    rvs_tool_init("pmf");
    while ((c = getopt_long(argc, argv, "to:hV", opts, NULL)) != -1) {
        switch (c) {
        case 't': table = 1; break;
        case 'o': out = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': rvs_tool_version();
        default: rvs_tool_bad_option(argv);
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
    if (table) {
        print_table(stdout, &S.pmf);
        if (fflush(stdout) != 0)
            rvs_tool_die(RVS_EX_IOERR, "stdout", "write error");
    }
    if (out || (!table && rvs_tool_want_stream(NULL))) {
        if (rvs_tool_write_stream(out, &S, &err) != RVS_OK)
            rvs_tool_die_err(out ? out : "stdout", &err);
    } else if (!table) {
        print_summary(stdout, &S);
    }
    rvs_stream_free(&S);
    return 0;
}
