/* rvsinfo.c - the rvsinfo program: what an RVS stream (or a Matrix Market file) holds */
#include <stdlib.h>
#include <string.h>
#include "rvs_chunks.h"
#include "rvs_plot_tables.h"
#include "rvs_report.h"
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

/* What the inspection found. */
typedef struct {
    const char *input; /* display name */
    int is_stream;
    rvs_chunk_walk walk; /* streams only */
    int valid;
    rvs_error err; /* why not valid */
    rvs_stream S;  /* valid only */
    int pmf_stored;
    rvs_decisions D; /* the 'auto' chunk, decoded (D.n 0 when none) */
    int has_auto, auto_current;
    rvs_error auto_err; /* a malformed 'auto' chunk (code RVS_OK when none is) */
    int has_plac;
    rvs_error plac_err; /* a malformed 'plac' chunk, as spmv-mpi refuses it (code RVS_OK when none is) */
} inspection;

/* Base name of a path. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Inspect b: walk and read a stream, or read a Matrix Market file. Only an input that is
 * neither is an error before any report (returns it). */
static rvs_status inspect(inspection *I, const rvs_input_buf *b, rvs_error *err)
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

/* The chunk table. */
static void text_chunks(FILE *f, const rvs_chunk_walk *W)
{
    fprintf(f, "version      %u.%u, prelude CRC %s\n", W->major, W->minor, W->prelude_crc_ok ? "ok" : "BAD");
    fprintf(f, "chunks       %d\n", W->n);
    fprintf(f, "# offset length type crc contents\n");
    for (int i = 0; i < W->n; i++) {
        const rvs_chunk_info *c = &W->chunk[i];
        fprintf(f, "%llu %llu %s %s %s\n", (unsigned long long)c->offset, (unsigned long long)c->length, c->type,
                c->crc_ok > 0    ? "ok"
                : c->crc_ok == 0 ? "BAD"
                                 : "cut",
                c->what);
    }
    if (W->trailing)
        fprintf(f, "trailing     %llu bytes after the end chunk (not part of this stream)\n",
                (unsigned long long)W->trailing);
}

/* The partition and its metrics; a part bound to processor N shows as gpuN or cpuN. */
static void text_partition(FILE *f, const rvs_stream *S)
{
    static const char *const entries[] = {"all", "diag", "offdiag"};
    const rvs_partition *P = &S->partition;
    int32_t *number = rvs_report_placement(S);
    fprintf(f,
            "partition    %s, %d parts, block size %lld, mean density %.4f, mean zero fill %.4f, "
            "relative difference %.2f%%\n",
            rvs_alg_name(P->alg), P->k, (long long)P->block_size, P->mean_density, P->mean_zero_fill,
            P->rel_diff_pct);
    fprintf(f, "# part device entries cp rows nnz width padded density\n");
    for (int i = 0; i < P->k; i++) {
        const rvs_part *p = &P->parts[i];
        char num[16] = "";
        if (number && number[i] >= 0)
            snprintf(num, sizeof num, "%d", (int)number[i]);
        fprintf(f, "%d %s%s %s %g %lld %lld %lld %lld %.4f\n", i + 1, p->device == RVS_DEV_GPU ? "gpu" : "cpu", num,
                entries[p->entries], p->cp, (long long)p->nrows, (long long)p->nnz, (long long)p->width,
                (long long)p->padded, p->density);
    }
    free(number);
}

/* Costs of a format block. */
static rvs_fmt_stats block_stats(const rvs_fmt *F)
{
    rvs_fmt_stats s = {0, 0, -1, -1};
    rvs_format_lookup(F->id)->stats(F, &s);
    return s;
}

/* The format blocks. */
static void text_formats(FILE *f, const rvs_stream *S)
{
    fprintf(f, "formats      %d blocks\n", S->nfmt);
    fprintf(f, "# part format vtype rows nnz bytes padded n_iter n_p params\n");
    for (int i = 0; i < S->nfmt; i++) {
        const rvs_fmt *F = &S->fmt[i].fmt;
        rvs_fmt_stats s = block_stats(F);
        if (S->fmt[i].part < 0)
            fputs("all", f);
        else
            fprintf(f, "%d", S->fmt[i].part + 1);
        fprintf(f, " %s %s %lld %lld %lld %lld %lld %lld ", rvs_format_lookup(F->id)->name,
                rvs_vtype_name(F->vtype), (long long)F->rows, (long long)F->nnz, (long long)s.bytes,
                (long long)s.padded, (long long)s.n_iter, (long long)s.n_p);
        for (int k = 0; k < RVS_FMT_MAX_PARAMS; k++)
            fprintf(f, "%s%lld", k ? "," : "", (long long)F->param[k]);
        fputc('\n', f);
    }
}

/* The whole report as text. */
static void report_text(FILE *f, const inspection *I)
{
    char name[RVS_TEXT_NAME_MAX];
    fprintf(f, "input        %s (%s)\n", rvs_report_text_name(I->input, name, sizeof name),
            I->is_stream ? "RVS stream" : "Matrix Market");
    if (I->is_stream)
        text_chunks(f, &I->walk);
    fprintf(f, "verdict      %s%s%s\n", I->valid ? "valid" : "INVALID", I->valid ? "" : ": ",
            I->valid ? "" : I->err.msg);
    if (!I->valid)
        return;
    fprintf(f, "pmf          %s\n", I->pmf_stored ? "stored in the stream" : "computed (not in the input)");
    rvs_report_pmf_text(f, &I->S, &I->S.pmf);
    if (I->S.has_partition)
        text_partition(f, &I->S);
    if (I->S.nfmt)
        text_formats(f, &I->S);
    for (int i = 0; I->is_stream && i < I->S.nextra; i++)
        fprintf(f, "ancillary    %.4s, %llu bytes\n", I->S.extra[i].type, (unsigned long long)I->S.extra[i].len);
    if (I->plac_err.code != RVS_OK)
        fprintf(f, "plac         MALFORMED: %s\n", I->plac_err.msg);
    if (I->auto_err.code != RVS_OK)
        fprintf(f, "auto         MALFORMED: %s\n", I->auto_err.msg);
    if (I->has_auto) {
        fprintf(f, "auto         %d decision%s, %s, trials on %s\n", I->D.n, I->D.n == 1 ? "" : "s",
                I->auto_current ? "current" : "stale (another matrix or partition: ignored by spmv)",
                I->D.device[0] ? I->D.device : "the CPU");
        rvs_report_decisions_full_text(f, &I->D);
    }
}

/* The chunk table, the partition and the blocks as JSON members. */
static void json_chunks(rvs_json *j, const rvs_chunk_walk *W)
{
    char v[16];
    snprintf(v, sizeof v, "%u.%u", W->major, W->minor);
    rvs_json_str(j, "stream_version", v);
    rvs_json_bool(j, "prelude_crc_ok", W->prelude_crc_ok);
    rvs_json_array(j, "chunks");
    for (int i = 0; i < W->n; i++) {
        const rvs_chunk_info *c = &W->chunk[i];
        rvs_json_object(j, NULL);
        rvs_json_int(j, "offset", (int64_t)c->offset);
        rvs_json_int(j, "length", (int64_t)c->length);
        rvs_json_str(j, "type", c->type);
        rvs_json_bool(j, "critical", c->critical);
        rvs_json_bool(j, "known", c->known);
        rvs_json_str(j, "crc", c->crc_ok > 0 ? "ok" : c->crc_ok == 0 ? "bad" : "cut");
        rvs_json_str(j, "contents", c->what);
        rvs_json_end(j);
    }
    rvs_json_end(j);
    rvs_json_int(j, "trailing_bytes", (int64_t)W->trailing);
}

static void json_formats(rvs_json *j, const rvs_stream *S)
{
    rvs_json_array(j, "formats");
    for (int i = 0; i < S->nfmt; i++) {
        const rvs_fmt *F = &S->fmt[i].fmt;
        rvs_fmt_stats s = block_stats(F);
        rvs_json_object(j, NULL);
        rvs_json_int(j, "part", S->fmt[i].part < 0 ? -1 : S->fmt[i].part + 1);
        rvs_json_str(j, "format", rvs_format_lookup(F->id)->name);
        rvs_json_str(j, "vtype", rvs_vtype_name(F->vtype));
        rvs_json_int(j, "rows", F->rows);
        rvs_json_int(j, "nnz", F->nnz);
        rvs_json_int(j, "bytes", s.bytes);
        rvs_json_int(j, "padded", s.padded);
        rvs_json_int(j, "n_iter", s.n_iter);
        rvs_json_int(j, "n_p", s.n_p);
        rvs_json_array(j, "params");
        for (int k = 0; k < RVS_FMT_MAX_PARAMS; k++)
            rvs_json_int(j, NULL, F->param[k]);
        rvs_json_end(j);
        rvs_json_end(j);
    }
    rvs_json_end(j);
}

/* The 'auto' chunk: null when there is none. */
static void json_auto(rvs_json *j, const inspection *I)
{
    if (!I->has_auto && I->auto_err.code == RVS_OK) {
        rvs_json_null(j, "auto");
        return;
    }
    rvs_json_object(j, "auto");
    rvs_json_bool(j, "valid", I->auto_err.code == RVS_OK);
    if (I->auto_err.code != RVS_OK) {
        rvs_json_str(j, "error", I->auto_err.msg);
    } else {
        char fp[24];
        snprintf(fp, sizeof fp, "%016llx", (unsigned long long)I->D.fingerprint);
        rvs_json_str(j, "fingerprint", fp);
        rvs_json_bool(j, "current", I->auto_current);
        rvs_json_str(j, "gpu", I->D.device[0] ? I->D.device : NULL);
        rvs_report_decisions_json(j, "decisions", &I->D);
    }
    rvs_json_end(j);
}

/* The whole report as one JSON object. */
static void report_json(FILE *f, const inspection *I)
{
    rvs_json j;
    rvs_json_begin(&j, f);
    rvs_json_str(&j, "program", "rvsinfo");
    rvs_json_str(&j, "rvskit_version", RVSKIT_VERSION);
    rvs_json_str(&j, "input", I->input);
    rvs_json_str(&j, "kind", I->is_stream ? "stream" : "matrix-market");
    if (I->is_stream)
        json_chunks(&j, &I->walk);
    rvs_json_bool(&j, "valid", I->valid);
    rvs_json_str(&j, "error", I->valid ? NULL : I->err.msg);
    if (I->valid) {
        rvs_json_object(&j, "pmf");
        rvs_json_bool(&j, "stored", I->pmf_stored);
        rvs_report_pmf_json(&j, &I->S, &I->S.pmf, 1);
        rvs_json_end(&j);
        if (I->S.has_partition) {
            rvs_json_object(&j, "partition");
            rvs_report_partition_json(&j, &I->S, NULL);
            rvs_json_end(&j);
        }
        json_formats(&j, &I->S);
        rvs_json_array(&j, "ancillary");
        for (int i = 0; I->is_stream && i < I->S.nextra; i++) {
            char type[5];
            snprintf(type, sizeof type, "%.4s", I->S.extra[i].type);
            rvs_json_object(&j, NULL);
            rvs_json_str(&j, "type", type);
            rvs_json_int(&j, "length", (int64_t)I->S.extra[i].len);
            rvs_json_end(&j);
        }
        rvs_json_end(&j);
        json_auto(&j, I);
        if (!I->has_plac) {
            rvs_json_null(&j, "plac");
        } else {
            rvs_json_object(&j, "plac");
            rvs_json_bool(&j, "valid", I->plac_err.code == RVS_OK);
            rvs_json_str(&j, "error", I->plac_err.code == RVS_OK ? NULL : I->plac_err.msg);
            rvs_json_end(&j);
        }
    }
    rvs_json_finish(&j);
}

/* The table t asks for, on stdout; an input it cannot be drawn from is refused without one. */
static void print_table(const inspection *I, const rvs_plot_request *t)
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
    inspection I;
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
        report_json(stdout, &I);
    else
        report_text(stdout, &I);
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
