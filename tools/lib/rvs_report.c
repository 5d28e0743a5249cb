/* rvs_report.c - report pieces several programs print: PMF statistics, the matrix's source */
#include "rvs_report.h"
#include "rvs_tool.h"

/* s with control characters escaped, as a text report prints it. */
const char *rvs_report_text_name(const char *s, char *buf, size_t n)
{
    size_t at = 0;
    if (!s || !s[0])
        s = "-";
    for (; *s && at + 5 < n; s++) {
        const unsigned char c = (unsigned char)*s;
        const char letter = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : c == '\\' ? '\\' : 0;
        if (letter) {
            buf[at++] = '\\';
            buf[at++] = letter;
        } else if (c < 0x20 || c == 0x7f) {
            at += (size_t)snprintf(buf + at, n - at, "\\x%02x", c);
        } else {
            buf[at++] = (char)c;
        }
    }
    buf[at] = 0;
    return buf;
}

/* Statistics as aligned "name value" lines. */
void rvs_report_pmf_text(FILE *f, const rvs_stream *S, const rvs_pmf *P)
{
    rvs_mm_info src;
    char name[RVS_TEXT_NAME_MAX];
    fprintf(f, "matrix       %s\n", rvs_report_text_name(S->name, name, sizeof name));
    if (rvs_stream_mm_source(S, &src))
        fprintf(f, "source       Matrix Market %s %s %s\n", src.format, src.field, src.symmetry);
    fprintf(f, "rows         %lld\n", (long long)P->rows);
    fprintf(f, "columns      %lld\n", (long long)P->cols);
    fprintf(f, "nnz          %lld\n", (long long)P->nnz);
    fprintf(f, "empty rows   %lld\n", (long long)P->empty_rows);
    fprintf(f, "row length   min %lld  max %lld  max-min %lld  mean %.3f  stddev %.3f\n", (long long)P->min,
            (long long)P->max, (long long)(P->max - P->min), P->mean, P->stddev);
    fprintf(f, "ELL density  %.1f%% (whole matrix as one ELL of width %lld)\n", 100.0 * P->ell_density,
            (long long)P->max);
    fprintf(f, "lengths      %lld distinct\n", (long long)P->nbins);
}

/* Statistics as JSON members. */
void rvs_report_pmf_json(rvs_json *j, const rvs_stream *S, const rvs_pmf *P, int with_bins)
{
    rvs_mm_info src;
    rvs_json_str(j, "matrix", S->name);
    if (rvs_stream_mm_source(S, &src)) {
        rvs_json_object(j, "source");
        rvs_json_str(j, "format", src.format);
        rvs_json_str(j, "field", src.field);
        rvs_json_str(j, "symmetry", src.symmetry);
        rvs_json_end(j);
    } else {
        rvs_json_null(j, "source");
    }
    rvs_json_int(j, "rows", P->rows);
    rvs_json_int(j, "cols", P->cols);
    rvs_json_int(j, "nnz", P->nnz);
    rvs_json_int(j, "empty_rows", P->empty_rows);
    rvs_json_int(j, "min", P->min);
    rvs_json_int(j, "max", P->max);
    rvs_json_num(j, "mean", P->mean);
    rvs_json_num(j, "stddev", P->stddev);
    rvs_json_num(j, "ell_density", P->ell_density);
    rvs_json_int(j, "distinct_lengths", P->nbins);
    if (!with_bins)
        return;
    rvs_json_array(j, "k");
    for (int64_t i = 0; i < P->nbins; i++)
        rvs_json_int(j, NULL, P->k[i]);
    rvs_json_end(j);
    rvs_json_array(j, "b");
    for (int64_t i = 0; i < P->nbins; i++)
        rvs_json_int(j, NULL, P->b[i]);
    rvs_json_end(j);
}

/* A program's report object with the members every report starts with. */
void rvs_report_json_begin(rvs_json *j, FILE *f, const char *program, const char *input)
{
    rvs_json_begin(j, f);
    rvs_json_str(j, "program", program);
    rvs_json_str(j, "rvskit_version", RVSKIT_VERSION);
    rvs_json_str(j, "input", input);
}

/* Close the report; a failed write is an I/O error (74). */
void rvs_report_json_finish(rvs_json *j)
{
    FILE *f = j->f;
    if (rvs_json_finish(j) != 0 || ferror(f))
        rvs_tool_die(RVS_EX_IOERR, f == stderr ? "stderr" : "stdout", "write error");
}
