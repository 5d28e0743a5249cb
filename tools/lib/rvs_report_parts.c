/* rvs_report_parts.c - reports on what a stream holds beside the matrix: the partition's
 * metrics, the format blocks and the advisor's decisions, as text and as JSON */
#include <stdlib.h>
#include <string.h>
#include "rvs_report.h"
#include "rvs_tool.h"

static const char *dev_name(rvs_device d)
{
    return d == RVS_DEV_GPU ? "gpu" : "cpu";
}

/* The shares of the parts' computing powers: each power over the largest, then over the sum of
 * those ratios, so that powers summing beyond double's range (--cp 1e308,1e308) still give 1/2. */
typedef struct {
    double top, sum;
} cp_scale;

static cp_scale cp_scale_of(const rvs_partition *P)
{
    cp_scale c = {0, 0};
    for (int j = 0; j < P->k; j++)
        c.top = P->parts[j].cp > c.top ? P->parts[j].cp : c.top;
    for (int j = 0; c.top > 0 && j < P->k; j++)
        c.sum += P->parts[j].cp / c.top;
    return c;
}

static double cp_share(cp_scale c, double cp)
{
    return c.sum > 0 ? cp / c.top / c.sum : 0.0;
}

int32_t *rvs_report_placement(const rvs_stream *S)
{
    int32_t *n = malloc((size_t)S->partition.k * sizeof *n);
    if (n && rvs_placement_get(S, n, NULL) != RVS_OK)
        for (int i = 0; i < S->partition.k; i++)
            n[i] = -1;
    return n;
}

/* Per-part and per-partition metrics as plain columns; a part bound to processor N shows its
 * device as gpuN or cpuN. */
void rvs_report_partition_text(FILE *f, const rvs_stream *S, const char *note)
{
    const rvs_partition *P = &S->partition;
    const cp_scale scale = cp_scale_of(P);
    char name[RVS_TEXT_NAME_MAX];
    fprintf(f, "# matrix %s  alg %s  parts %d  rows %lld  nnz %lld\n",
            rvs_report_text_name(S->name, name, sizeof name), rvs_alg_name(P->alg), P->k, (long long)S->A.rows,
            (long long)S->A.nnz);
    if (note && note[0])
        fprintf(f, "# default computing powers: %s\n", note);
    fprintf(f, "# part device cp N W NNZ E padded density nnz_share cp_share\n");
    int32_t *number = rvs_report_placement(S);
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        char num[16] = "";
        if (number && number[i] >= 0)
            snprintf(num, sizeof num, "%d", (int)number[i]);
        fprintf(f, "%d %s%s %g %lld %lld %lld %lld %lld %.4f %.4f %.4f\n", i + 1, dev_name(q->device), num, q->cp,
                (long long)q->nrows, (long long)q->width, (long long)q->nnz, (long long)q->e, (long long)q->padded,
                q->density, P->nnz ? (double)q->nnz / (double)P->nnz : 0.0, cp_share(scale, q->cp));
    }
    free(number);
    fprintf(f, "# mean_density %.4f  mean_zero_fill %.4f  padded %lld  E %lld  rel_diff_pct %.4f\n",
            P->mean_density, P->mean_zero_fill, (long long)P->padded_total, (long long)P->e_total, P->rel_diff_pct);
}

/* The same metrics as JSON members. */
void rvs_report_partition_json(rvs_json *j, const rvs_stream *S, const char *note)
{
    static const char *const entries[] = {"all", "diag", "offdiag"};
    const rvs_partition *P = &S->partition;
    const cp_scale scale = cp_scale_of(P);
    int32_t *number = rvs_report_placement(S);
    rvs_json_str(j, "matrix", S->name);
    rvs_json_str(j, "alg", rvs_alg_name(P->alg));
    rvs_json_int(j, "parts", P->k);
    rvs_json_int(j, "block_size", P->block_size);
    rvs_json_int(j, "rows", S->A.rows);
    rvs_json_int(j, "nnz", S->A.nnz);
    rvs_json_str(j, "default_cp", note && note[0] ? note : NULL);
    rvs_json_array(j, "part");
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        rvs_json_object(j, NULL); /* the members rvsinfo wrote first keep their order */
        rvs_json_str(j, "device", dev_name(q->device));
        rvs_json_str(j, "entries", entries[q->entries]);
        rvs_json_num(j, "cp", q->cp);
        rvs_json_int(j, "rows", q->nrows);
        rvs_json_int(j, "nnz", q->nnz);
        rvs_json_int(j, "width", q->width);
        rvs_json_int(j, "padded", q->padded);
        rvs_json_num(j, "density", q->density);
        rvs_json_int(j, "part", i + 1);
        rvs_json_int(j, "e", q->e);
        rvs_json_num(j, "nnz_share", P->nnz ? (double)q->nnz / (double)P->nnz : 0.0);
        rvs_json_num(j, "cp_share", cp_share(scale, q->cp));
        rvs_json_int(j, "processor", number ? number[i] : -1);
        rvs_json_end(j);
    }
    rvs_json_end(j);
    free(number);
    rvs_json_num(j, "mean_density", P->mean_density);
    rvs_json_num(j, "mean_zero_fill", P->mean_zero_fill);
    rvs_json_int(j, "padded", P->padded_total);
    rvs_json_int(j, "e", P->e_total);
    rvs_json_num(j, "rel_diff_pct", P->rel_diff_pct);
}

/* What one part's block costs, beside CSR and COO of the same part. */
typedef struct {
    int part;           /* -1: the whole matrix */
    const char *device; /* "gpu", "cpu", "-" */
    const rvs_fmt *F;   /* NULL: no block */
    int64_t rows, nnz;
    rvs_fmt_stats s;
    int64_t csr, coo; /* bytes CSR and COO would take */
} block_row;

/* Row i of S's block report, N_iter for warps of warp rows. */
static block_row block_of(const rvs_stream *S, int i, int warp)
{
    block_row b;
    memset(&b, 0, sizeof b);
    b.part = S->has_partition ? i : -1;
    b.device = b.part < 0 ? "-" : dev_name(S->partition.parts[i].device);
    b.F = rvs_stream_block(S, b.part);
    b.rows = b.part < 0 ? S->A.rows : S->partition.parts[i].nrows;
    b.nnz = b.part < 0 ? S->A.nnz : S->partition.parts[i].nnz;
    b.s.n_iter = b.s.n_p = -1;
    if (b.F) {
        const int64_t vs = (int64_t)rvs_vtype_size(b.F->vtype);
        rvs_fmt_stats_warp(b.F, warp, &b.s);
        b.rows = b.F->rows;
        b.nnz = b.F->nnz;
        b.csr = (b.F->rows + 1) * 8 + b.F->nnz * (4 + vs);
        b.coo = b.F->nnz * (8 + vs);
    }
    return b;
}

static double ratio(int64_t a, int64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* An int64 column, '-' for -1 (not applicable). */
static void put_count(FILE *f, int64_t v)
{
    if (v < 0)
        fputs(" -", f);
    else
        fprintf(f, " %lld", (long long)v);
}

/* One line per part's block, and the totals. */
void rvs_report_blocks_text(FILE *f, const rvs_stream *S, int warp)
{
    const int nparts = S->has_partition ? S->partition.k : 1;
    int64_t tot[4] = {0, 0, 0, 0}; /* bytes, padded, csr, coo */
    char name[RVS_TEXT_NAME_MAX];
    fprintf(f, "# matrix %s  rows %lld  cols %lld  nnz %lld  parts %d  warp %d\n",
            rvs_report_text_name(S->name, name, sizeof name), (long long)S->A.rows, (long long)S->A.cols,
            (long long)S->A.nnz, S->has_partition ? nparts : 0, warp);
    fprintf(f, "# part device format rows nnz bytes padded bytes/csr_bytes bytes/coo_bytes n_iter n_p\n");
    for (int i = 0; i < nparts; i++) {
        const block_row b = block_of(S, i, warp);
        if (b.part < 0)
            fputs("all", f);
        else
            fprintf(f, "%d", b.part + 1);
        if (!b.F) {
            fprintf(f, " %s none %lld %lld - - - - - -\n", b.device, (long long)b.rows, (long long)b.nnz);
            continue;
        }
        fprintf(f, " %s %s %lld %lld %lld %lld %.4f %.4f", b.device, rvs_format_lookup(b.F->id)->name,
                (long long)b.rows, (long long)b.nnz, (long long)b.s.bytes, (long long)b.s.padded,
                ratio(b.s.bytes, b.csr), ratio(b.s.bytes, b.coo));
        put_count(f, b.s.n_iter);
        put_count(f, b.s.n_p);
        fputc('\n', f);
        tot[0] += b.s.bytes, tot[1] += b.s.padded, tot[2] += b.csr, tot[3] += b.coo;
    }
    fprintf(f, "# total bytes %lld  padded %lld  bytes/csr_bytes %.4f  bytes/coo_bytes %.4f\n", (long long)tot[0],
            (long long)tot[1], ratio(tot[0], tot[2]), ratio(tot[0], tot[3]));
}

/* An int64 member, null for -1 (not applicable). */
static void json_count(rvs_json *j, const char *key, int64_t v)
{
    if (v < 0)
        rvs_json_null(j, key);
    else
        rvs_json_int(j, key, v);
}

/* The blocks as JSON members. */
void rvs_report_blocks_json(rvs_json *j, const rvs_stream *S, int warp)
{
    const int nparts = S->has_partition ? S->partition.k : 1;
    int64_t tot[4] = {0, 0, 0, 0};
    rvs_json_str(j, "matrix", S->name);
    rvs_json_int(j, "rows", S->A.rows);
    rvs_json_int(j, "cols", S->A.cols);
    rvs_json_int(j, "nnz", S->A.nnz);
    rvs_json_str(j, "vtype", rvs_vtype_name(S->A.vtype));
    rvs_json_int(j, "parts", S->has_partition ? nparts : 0);
    rvs_json_int(j, "warp", warp);
    rvs_json_array(j, "blocks");
    for (int i = 0; i < nparts; i++) {
        const block_row b = block_of(S, i, warp);
        rvs_json_object(j, NULL);
        rvs_json_int(j, "part", b.part < 0 ? -1 : b.part + 1);
        rvs_json_str(j, "device", b.part < 0 ? NULL : b.device);
        rvs_json_str(j, "format", b.F ? rvs_format_lookup(b.F->id)->name : NULL);
        rvs_json_int(j, "rows", b.rows);
        rvs_json_int(j, "nnz", b.nnz);
        if (b.F) {
            rvs_json_str(j, "vtype", rvs_vtype_name(b.F->vtype));
            rvs_json_int(j, "bytes", b.s.bytes);
            rvs_json_int(j, "padded", b.s.padded);
            rvs_json_num(j, "bytes_per_csr_bytes", ratio(b.s.bytes, b.csr));
            rvs_json_num(j, "bytes_per_coo_bytes", ratio(b.s.bytes, b.coo));
            json_count(j, "n_iter", b.s.n_iter);
            json_count(j, "n_p", b.s.n_p);
            tot[0] += b.s.bytes, tot[1] += b.s.padded, tot[2] += b.csr, tot[3] += b.coo;
        }
        rvs_json_end(j);
    }
    rvs_json_end(j);
    rvs_json_object(j, "total");
    rvs_json_int(j, "bytes", tot[0]);
    rvs_json_int(j, "padded", tot[1]);
    rvs_json_num(j, "bytes_per_csr_bytes", ratio(tot[0], tot[2]));
    rvs_json_num(j, "bytes_per_coo_bytes", ratio(tot[0], tot[3]));
    rvs_json_end(j);
}

/* Name of a candidate's format ("?" for one this rvskit does not know). */
static const char *cand_format(const rvs_candidate *c)
{
    const rvs_format_ops *ops = c->format ? rvs_format_lookup(c->format) : NULL;
    return ops ? ops->name : "?";
}

/* "1" for part 0, "all" for the whole matrix. */
static const char *part_name(int part, char *buf, size_t n)
{
    if (part < 0)
        return "all";
    snprintf(buf, n, "%d", part + 1);
    return buf;
}

/* Where a decision came from: the trial cache, a trial on a row sample, or on the part. */
static const char *decision_from(const rvs_decision *d)
{
    return d->from_cache ? "cache" : d->sampled ? "sample" : "part";
}

/* Per part the choice, the runner-up and both trial times (ms). */
void rvs_report_decisions_text(FILE *f, const rvs_decisions *D)
{
    char k1[128], k2[128], part[16];
    if (D->n == 0)
        return;
    fprintf(f, "# auto part device chosen tunables ms runner_up tunables ms trial\n");
    for (int i = 0; i < D->n; i++) {
        const rvs_decision *d = &D->d[i];
        const rvs_candidate *c = &d->cand[d->chosen];
        const int r = rvs_decision_runner_up(d);
        rvs_knobs_format(&c->knobs, k1, sizeof k1);
        if (r >= 0)
            rvs_knobs_format(&d->cand[r].knobs, k2, sizeof k2);
        fprintf(f, "# auto %s %s %s %s %.6g %s %s ", part_name(d->part, part, sizeof part), dev_name(d->device),
                cand_format(c), k1, c->ms, r >= 0 ? cand_format(&d->cand[r]) : "-", r >= 0 ? k2 : "-");
        if (r >= 0)
            fprintf(f, "%.6g", d->cand[r].ms);
        else
            fputs("-", f);
        fprintf(f, " %s\n", decision_from(d));
    }
}

static const char *const cand_status[] = {"ran", "refused", "pruned", "failed"};

const char *rvs_report_cand_status(rvs_cand_status s)
{
    return s <= RVS_CAND_FAILED ? cand_status[s] : "?";
}

/* Every candidate of every record. */
void rvs_report_decisions_full_text(FILE *f, const rvs_decisions *D)
{
    char knobs[128], part[16];
    fprintf(f, "# part device vtype from candidate format tunables status ms model_bytes chosen\n");
    for (int i = 0; i < D->n; i++) {
        const rvs_decision *d = &D->d[i];
        for (int k = 0; k < d->ncand; k++) {
            const rvs_candidate *c = &d->cand[k];
            rvs_knobs_format(&c->knobs, knobs, sizeof knobs);
            fprintf(f, "%s %s %s %s %d %s %s %s %.6g %.6g %s\n", part_name(d->part, part, sizeof part),
                    dev_name(d->device), rvs_vtype_name(d->vtype), decision_from(d), k + 1, cand_format(c), knobs,
                    cand_status[c->status], c->ms, c->model_bytes, k == d->chosen ? "yes" : "no");
        }
    }
}

/* Every record with its candidates as a JSON array. */
void rvs_report_decisions_json(rvs_json *j, const char *key, const rvs_decisions *D)
{
    char knobs[128];
    rvs_json_array(j, key);
    for (int i = 0; i < D->n; i++) {
        const rvs_decision *d = &D->d[i];
        const int r = rvs_decision_runner_up(d);
        rvs_json_object(j, NULL);
        rvs_json_int(j, "part", d->part < 0 ? -1 : d->part + 1);
        rvs_json_str(j, "device", dev_name(d->device));
        rvs_json_str(j, "vtype", rvs_vtype_name(d->vtype));
        rvs_json_str(j, "from", decision_from(d));
        rvs_json_str(j, "how", rvs_how_name(d->how));
        rvs_json_str(j, "chosen", cand_format(&d->cand[d->chosen]));
        rvs_json_int(j, "chosen_index", d->chosen);
        if (r >= 0)
            rvs_json_int(j, "runner_up_index", r);
        else
            rvs_json_null(j, "runner_up_index");
        rvs_json_array(j, "candidates");
        for (int k = 0; k < d->ncand; k++) {
            const rvs_candidate *c = &d->cand[k];
            rvs_knobs_format(&c->knobs, knobs, sizeof knobs);
            rvs_json_object(j, NULL);
            rvs_json_str(j, "format", c->format ? cand_format(c) : NULL);
            rvs_json_str(j, "tunables", knobs);
            rvs_json_str(j, "status", cand_status[c->status]);
            if (c->ms >= 0)
                rvs_json_num(j, "ms", c->ms);
            else
                rvs_json_null(j, "ms");
            if (c->model_bytes >= 0)
                rvs_json_num(j, "model_bytes", c->model_bytes);
            else
                rvs_json_null(j, "model_bytes");
            if (c->pred_ms > 0)
                rvs_json_num(j, "pred_ms", c->pred_ms);
            else
                rvs_json_null(j, "pred_ms");
            rvs_json_end(j);
        }
        rvs_json_end(j);
        rvs_json_end(j);
    }
    rvs_json_end(j);
}

/* What partition --calibrate prints. */
void rvs_report_calibration_text(FILE *f, const rvs_calibration *c)
{
    fprintf(f, "gpu %.3f\ncpu %.3f\n", c->gpu_gflops / c->core_gflops, 1.0);
    fprintf(
        f,
        "# GFLOP/s: gpu %.2f, one core %.3f, %d threads %.2f; PCIe GB/s: in %.2f, out %.2f; round trip %.1f us\n",
        c->gpu_gflops, c->core_gflops, c->threads, c->cpu_gflops, c->h2d_gbs, c->d2h_gbs, c->launch_us);
}

void rvs_report_calibration_json(rvs_json *j, const rvs_calibration *c)
{
    rvs_json_object(j, "calibration");
    rvs_json_num(j, "gpu_cp", c->gpu_gflops / c->core_gflops);
    rvs_json_num(j, "cpu_cp", 1.0);
    rvs_json_num(j, "gpu_gflops", c->gpu_gflops);
    rvs_json_num(j, "core_gflops", c->core_gflops);
    rvs_json_int(j, "threads", c->threads);
    rvs_json_num(j, "cpu_gflops", c->cpu_gflops);
    rvs_json_num(j, "h2d_gbs", c->h2d_gbs);
    rvs_json_num(j, "d2h_gbs", c->d2h_gbs);
    rvs_json_num(j, "launch_us", c->launch_us);
    rvs_json_end(j);
}

/* convert's report: S's blocks and the advisor's decisions D, as text or as one JSON object.
 * Here, not in rvs_report.c: every program links that one, and this pulls in the decisions and
 * with them the GPU libraries (pmf would map cuSPARSE, 240 MB of address space, for nothing). */
void rvs_report_convert(FILE *f, int json, const char *name, const rvs_stream *S, const rvs_decisions *D, int warp)
{
    if (json) {
        rvs_json j;
        rvs_report_json_begin(&j, f, "convert", name);
        rvs_report_blocks_json(&j, S, warp);
        rvs_report_decisions_json(&j, "auto", D);
        rvs_report_json_finish(&j);
        return;
    }
    rvs_report_blocks_text(f, S, warp);
    rvs_report_decisions_text(f, D);
    if (fflush(f) != 0)
        rvs_tool_die(RVS_EX_IOERR, "stdout", "write error");
}
