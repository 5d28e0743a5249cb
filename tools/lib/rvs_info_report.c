/* rvs_info_report.c - rvsinfo's report: the chunks, the matrix, its PMF, partition and blocks,
 * as text or as one JSON object */
#include <stdlib.h>
#include <string.h>
#include "rvs_info_report.h"
#include "rvs_json.h"
#include "rvs_report.h"

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
void rvs_info_report_text(FILE *f, const rvs_inspection *I)
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
static void json_auto(rvs_json *j, const rvs_inspection *I)
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
void rvs_info_report_json(FILE *f, const rvs_inspection *I)
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
