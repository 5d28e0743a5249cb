/* rvs_spmv_report.c - spmv's report: the plan's timing table as text, or one JSON object */
#include <omp.h>
#include <string.h>
#include "rvs_json.h"
#include "rvs_report.h"
#include "rvs_spmv_report.h"

static const char *const modes[] = {"auto", "cpu", "gpu", "hybrid"};
static const char *const algs[3] = {"csr-alg1", "csr-alg2", "coo-alg1"};

/* One row's figures: time, flops and bytes moved. */
typedef struct {
    double ms, gflops, gbs, frac; /* frac < 0: no copy-bandwidth fraction */
} row_rate;

/* Rates of nnz entries moved as bytes in ms; frac against copy_gbs when it is > 0. A complex
 * entry costs 8 real flops (a complex multiply-add), a real one 2. */
static row_rate rate(int64_t nnz, double ms, double bytes, double copy_gbs, rvs_vtype vt)
{
    const double s = ms * 1e-3, flops = (rvs_vtype_is_complex(vt) ? 8.0 : 2.0) * (double)nnz;
    row_rate r = {ms, s > 0 ? flops / s / 1e9 : 0, s > 0 ? bytes / s / 1e9 : 0, -1};
    if (copy_gbs > 0)
        r.frac = r.gbs / copy_gbs;
    return r;
}

/* One table row; frac_col 0 omits the last column, a negative frac prints "-". */
static void text_row(FILE *f, const char *part, const char *dev, const char *fmt, int64_t rows, int64_t nnz,
                     row_rate r, int frac_col)
{
    fprintf(f, "%-8s %-6s %-9s %10lld %12lld %12.6f %10.5g %10.5g", part, dev, fmt, (long long)rows, (long long)nnz,
            r.ms, r.gflops, r.gbs);
    if (frac_col && r.frac >= 0)
        fprintf(f, " %8.4f", r.frac);
    else if (frac_col)
        fprintf(f, " %8s", "-");
    fputc('\n', f);
}

/* Bytes a cuSPARSE baseline moves: CSR (32-bit row pointers) or COO, x and y once. */
static double base_bytes(const rvs_csr *A, int alg, rvs_vtype vt)
{
    const double vs = (double)rvs_vtype_size(vt), xy = (double)(A->rows + A->cols) * vs;
    return alg == 2 ? (double)A->nnz * (8 + vs) + xy : (double)(A->rows + 1) * 4 + (double)A->nnz * (4 + vs) + xy;
}

static int uses_gpu(const rvs_spmv_results *R)
{
    return R->mode != RVS_MODE_CPU;
}

void rvs_spmv_report_text(FILE *f, const rvs_spmv_results *R, const rvs_stream *S, const rvs_plan *P,
                          const rvs_spmv_engine *E)
{
    const rvs_csr *A = &S->A;
    const int g = uses_gpu(R);
    const rvs_vtype vt = P->vtype;
    char desc[256], part[128];
    fprintf(f, "# spmv %s: %lld x %lld, nnz %lld, %s, mode %s, %d threads, median of %d runs\n", R->input,
            (long long)A->rows, (long long)A->cols, (long long)A->nnz, rvs_vtype_name(vt), modes[R->mode],
            R->threads ? R->threads : omp_get_max_threads(), R->iters);
    if (g) {
        (void)rvs_engine_gpus(desc, sizeof desc);
        fprintf(f, "# gpu %s, copy bandwidth %.1f GB/s\n", desc, R->copy_gbs);
    }
    rvs_plan_print(f, P, S, "# ");
    fprintf(f, "# part device format rows nnz time_ms gflops gbs%s\n", g ? " frac_copy_bw" : "");
    for (int i = 0; i < P->nitems; i++) {
        const rvs_plan_item *it = &P->items[i];
        rvs_plan_item_parts(it, part, sizeof part);
        text_row(f, part, it->device == RVS_DEV_GPU ? "gpu" : "cpu", rvs_format_lookup(it->format)->name, it->rows,
                 it->nnz,
                 rate(it->nnz, R->item_ms[i], (double)rvs_spmv_engine_item_bytes(E, i),
                      it->device == RVS_DEV_GPU ? R->copy_gbs : -1, vt),
                 g);
    }
    if (R->kernel_ms > 0)
        text_row(f, "kernels", "gpu", "graph", A->rows, A->nnz,
                 rate(A->nnz, R->kernel_ms, R->bytes, R->copy_gbs, vt), g);
    if (R->mode == RVS_MODE_HYBRID) {
        text_row(f, "gpu", "gpu", "-", A->rows, A->nnz, rate(A->nnz, R->gpu_ms, R->bytes, -1, vt), g);
        text_row(f, "cpu", "cpu", "-", A->rows, A->nnz, rate(A->nnz, R->cpu_ms, R->bytes, -1, vt), g);
    }
    text_row(f, "total", modes[R->mode], "call", A->rows, A->nnz, rate(A->nnz, R->call_ms, R->bytes, -1, vt), g);
    for (int a = 0; a < R->nbase; a++)
        text_row(f, "cusparse", "gpu", algs[a], A->rows, A->nnz,
                 rate(A->nnz, R->base_ms[a], base_bytes(A, a, vt), R->copy_gbs, vt), g);
    const double ours = R->kernel_ms > 0 ? R->kernel_ms : R->call_ms;
    for (int a = 0; a < R->nbase; a++)
        fprintf(f, "# time ours/cusparse-%s %.4f\n", algs[a], R->base_ms[a] > 0 ? ours / R->base_ms[a] : 0.0);
    int switches;
    double tune_ms;
    rvs_spmv_engine_tuning(E, &switches, &tune_ms);
    if (P->decide_ms > 0 && R->call_ms > 0)
        fprintf(f, "# deciding cost %.1f ms: %.0f calls of this plan\n", P->decide_ms, P->decide_ms / R->call_ms);
    if (P->tune_between_calls)
        fprintf(f, "# tuning between calls: %.1f ms, %d item%s switched to a faster candidate\n", tune_ms, switches,
                switches == 1 ? "" : "s");
    if (R->checked)
        fprintf(f, "# check ok: largest error %.3g, tolerance %.3g (%s)\n", R->check_err, R->tol,
                rvs_vtype_is_complex(vt) ? "CXSparse reference, double complex"
                                         : "reference summed in double, row by row");
}

/* A timing row as a JSON object (key NULL inside an array). */
static void json_rate(rvs_json *j, const char *key, row_rate r)
{
    rvs_json_object(j, key);
    rvs_json_num(j, "time_ms", r.ms);
    rvs_json_num(j, "gflops", r.gflops);
    rvs_json_num(j, "gbs", r.gbs);
    if (r.frac >= 0)
        rvs_json_num(j, "frac_copy_bw", r.frac);
    else
        rvs_json_null(j, "frac_copy_bw");
}

/* The check's verdict (null when none ran), then the object's end. */
static void json_check_finish(rvs_json *j, const rvs_spmv_results *R)
{
    if (R->checked) {
        rvs_json_object(j, "check");
        rvs_json_bool(j, "ok", 1);
        rvs_json_num(j, "max_err", R->check_err);
        rvs_json_num(j, "tolerance", R->tol);
        rvs_json_end(j);
    } else {
        rvs_json_null(j, "check");
    }
    rvs_report_json_finish(j);
}

/* The candidates of the decision behind item it: the model's and the trials' times. */
static void json_candidates(rvs_json *j, const rvs_plan *P, const rvs_plan_item *it)
{
    char key[256];
    rvs_json_array(j, "candidates");
    const rvs_decision *d = it->decision >= 0 && it->decision < P->decisions.n ? &P->decisions.d[it->decision]
                                                                               : NULL;
    for (int k = 0; d && k < d->ncand; k++) {
        const rvs_candidate *c = &d->cand[k];
        if (c->pred_ms <= 0 && c->status != RVS_CAND_RAN && k != d->chosen)
            continue;
        rvs_model_key(c, key, sizeof key);
        rvs_json_object(j, NULL);
        rvs_json_str(j, "candidate", key);
        if (c->pred_ms > 0)
            rvs_json_num(j, "pred_ms", c->pred_ms);
        else
            rvs_json_null(j, "pred_ms");
        if (c->status == RVS_CAND_RAN && c->ms >= 0)
            rvs_json_num(j, "trial_ms", c->ms);
        else
            rvs_json_null(j, "trial_ms");
        rvs_json_bool(j, "chosen", k == d->chosen);
        rvs_json_end(j);
    }
    rvs_json_end(j);
}

/* The plan's items with their times. */
static void json_items(rvs_json *j, const rvs_spmv_results *R, const rvs_plan *P, const rvs_spmv_engine *E)
{
    char knobs[256];
    rvs_json_array(j, "items");
    for (int i = 0; i < P->nitems; i++) {
        const rvs_plan_item *it = &P->items[i];
        json_rate(j, NULL,
                  rate(it->nnz, R->item_ms[i], (double)rvs_spmv_engine_item_bytes(E, i),
                       it->device == RVS_DEV_GPU ? R->copy_gbs : -1, P->vtype));
        rvs_json_array(j, "parts");
        for (int k = 0; k < it->nparts; k++)
            rvs_json_int(j, NULL, it->parts[k] < 0 ? -1 : it->parts[k] + 1);
        rvs_json_end(j);
        rvs_json_str(j, "device", it->device == RVS_DEV_GPU ? "gpu" : "cpu");
        rvs_json_str(j, "format", rvs_format_lookup(it->format)->name);
        rvs_knobs_format(&it->knobs, knobs, sizeof knobs);
        rvs_json_str(j, "tunables", knobs);
        rvs_json_int(j, "phase", it->phase);
        rvs_json_int(j, "stream", it->device == RVS_DEV_GPU ? it->stream : -1);
        rvs_json_int(j, "rows", it->rows);
        rvs_json_int(j, "nnz", it->nnz);
        rvs_json_str(j, "source", it->source);
        if (it->row_hi > it->row_lo) { /* a row block: matrix rows, 1-based */
            rvs_json_int(j, "first_row", it->row_lo + 1);
            rvs_json_int(j, "last_row", it->row_hi);
        }
        rvs_json_str(j, "memory", it->device != RVS_DEV_GPU ? "host" : it->streamed ? "streamed" : "device");
        if (it->streamed)
            rvs_json_int(j, "chunks", it->nchunks);
        if (it->trial_ms >= 0)
            rvs_json_num(j, "trial_ms", it->trial_ms);
        else
            rvs_json_null(j, "trial_ms");
        rvs_json_str(j, "how", rvs_how_name(it->how));
        if (it->pred_ms > 0)
            rvs_json_num(j, "pred_ms", it->pred_ms);
        else
            rvs_json_null(j, "pred_ms");
        json_candidates(j, P, it);
        rvs_json_end(j);
    }
    rvs_json_end(j);
}

void rvs_spmv_report_json(FILE *f, const rvs_spmv_results *R, const rvs_stream *S, const rvs_plan *P,
                          const rvs_spmv_engine *E)
{
    const rvs_csr *A = &S->A;
    const rvs_vtype vt = P->vtype;
    char desc[256];
    rvs_json j;
    rvs_report_json_begin(&j, f, "spmv", R->input);
    rvs_json_str(&j, "matrix", S->name);
    rvs_json_int(&j, "rows", A->rows);
    rvs_json_int(&j, "cols", A->cols);
    rvs_json_int(&j, "nnz", A->nnz);
    rvs_json_str(&j, "vtype", rvs_vtype_name(vt));
    rvs_json_str(&j, "mode", modes[R->mode]);
    rvs_json_int(&j, "threads", R->threads ? R->threads : omp_get_max_threads());
    rvs_json_int(&j, "iters", R->iters);
    if (uses_gpu(R)) {
        (void)rvs_engine_gpus(desc, sizeof desc);
        rvs_json_str(&j, "gpu", desc);
        rvs_json_num(&j, "copy_gbs", R->copy_gbs);
    } else {
        rvs_json_null(&j, "gpu");
    }
    rvs_json_object(&j, "plan");
    rvs_json_int(&j, "streams", P->nstreams);
    rvs_json_bool(&j, "whole", P->whole);
    rvs_json_str(&j, "note", P->note);
    rvs_json_num(&j, "decide_ms", P->decide_ms);
    rvs_json_num(&j, "decide_calls", R->call_ms > 0 ? P->decide_ms / R->call_ms : 0);
    int switches;
    double tune_ms;
    rvs_spmv_engine_tuning(E, &switches, &tune_ms);
    rvs_json_num(&j, "tune_ms", tune_ms);
    rvs_json_int(&j, "tune_switches", switches);
    rvs_json_end(&j);
    json_items(&j, R, P, E);
    if (R->kernel_ms > 0) {
        json_rate(&j, "kernels", rate(A->nnz, R->kernel_ms, R->bytes, R->copy_gbs, vt));
        rvs_json_end(&j);
    }
    if (R->mode == RVS_MODE_HYBRID) {
        json_rate(&j, "gpu_side", rate(A->nnz, R->gpu_ms, R->bytes, -1, vt));
        rvs_json_end(&j);
        json_rate(&j, "cpu_side", rate(A->nnz, R->cpu_ms, R->bytes, -1, vt));
        rvs_json_end(&j);
    }
    json_rate(&j, "total", rate(A->nnz, R->call_ms, R->bytes, -1, vt));
    rvs_json_end(&j);
    rvs_json_array(&j, "cusparse");
    const double ours = R->kernel_ms > 0 ? R->kernel_ms : R->call_ms;
    for (int a = 0; a < R->nbase; a++) {
        json_rate(&j, NULL, rate(A->nnz, R->base_ms[a], base_bytes(A, a, vt), R->copy_gbs, vt));
        rvs_json_str(&j, "alg", algs[a]);
        rvs_json_num(&j, "ours_over_cusparse", R->base_ms[a] > 0 ? ours / R->base_ms[a] : 0.0);
        rvs_json_end(&j);
    }
    rvs_json_end(&j);
    json_check_finish(&j, R);
}

/* The header lines of a mixed-precision run. */
static void mixed_header(FILE *f, const rvs_spmv_results *R, const rvs_stream *S, const rvs_mixed_result *M)
{
    const rvs_csr *A = &S->A;
    char desc[256];
    fprintf(f,
            "# spmv %s: %lld x %lld, nnz %lld, mixed (f32 values; f64 x, y and sums), mode %s, %d threads, "
            "median of %d runs\n",
            R->input, (long long)A->rows, (long long)A->cols, (long long)A->nnz, modes[R->mode],
            R->threads ? R->threads : omp_get_max_threads(), R->iters);
    if (uses_gpu(R)) {
        (void)rvs_engine_gpus(desc, sizeof desc);
        fprintf(f, "# gpu %s, copy bandwidth %.1f GB/s\n", desc, R->copy_gbs);
    }
    fprintf(f,
            "# plan: mode %s, mixed, 1 item: the whole matrix (mixed precision does not use a partition), "
            "format %s",
            modes[R->mode], rvs_format_lookup(M->format)->name);
    if (M->trial_ms[0] >= 0)
        fprintf(f, " (trial: csr %.6f ms, hcc %.6f ms)", M->trial_ms[0], M->trial_ms[1]);
    fputc('\n', f);
}

void rvs_spmv_report_mixed(FILE *f, int json, const rvs_spmv_results *R, const rvs_stream *S,
                           const rvs_mixed_result *M)
{
    const rvs_csr *A = &S->A;
    const int g = uses_gpu(R);
    const double copy = g ? R->copy_gbs : -1, ours = M->kernel_ms;
    const char *fmt = rvs_format_lookup(M->format)->name, *dev = g ? "gpu" : "cpu";
    const row_rate kr = rate(A->nnz, M->kernel_ms, M->bytes, copy, RVS_F64),
                   cr = rate(A->nnz, M->call_ms, M->bytes, -1, RVS_F64);
    if (json) {
        rvs_json j;
        char desc[256];
        rvs_report_json_begin(&j, f, "spmv", R->input);
        rvs_json_str(&j, "matrix", S->name);
        rvs_json_int(&j, "rows", A->rows);
        rvs_json_int(&j, "cols", A->cols);
        rvs_json_int(&j, "nnz", A->nnz);
        rvs_json_str(&j, "vtype", "mixed");
        rvs_json_str(&j, "mode", modes[R->mode]);
        rvs_json_int(&j, "iters", R->iters);
        if (g) {
            (void)rvs_engine_gpus(desc, sizeof desc);
            rvs_json_str(&j, "gpu", desc);
            rvs_json_num(&j, "copy_gbs", R->copy_gbs);
        } else {
            rvs_json_null(&j, "gpu");
        }
        rvs_json_str(&j, "format", fmt);
        rvs_json_array(&j, "trial_ms");
        for (int k = 0; k < 2 && M->trial_ms[0] >= 0; k++)
            rvs_json_num(&j, NULL, M->trial_ms[k]);
        rvs_json_end(&j);
        json_rate(&j, "kernel", kr);
        rvs_json_end(&j);
        json_rate(&j, "total", cr);
        rvs_json_end(&j);
        rvs_json_array(&j, "cusparse");
        for (int a = 0; a < R->nbase; a++) {
            json_rate(&j, NULL, rate(A->nnz, R->base_ms[a], base_bytes(A, a, RVS_F64), R->copy_gbs, RVS_F64));
            rvs_json_str(&j, "alg", algs[a]);
            rvs_json_num(&j, "ours_over_cusparse", R->base_ms[a] > 0 ? ours / R->base_ms[a] : 0.0);
            rvs_json_end(&j);
        }
        rvs_json_end(&j);
        json_check_finish(&j, R);
        return;
    }
    mixed_header(f, R, S, M);
    fprintf(f, "# part device format rows nnz time_ms gflops gbs%s\n", g ? " frac_copy_bw" : "");
    text_row(f, "all", dev, fmt, A->rows, A->nnz, kr, g);
    text_row(f, "total", dev, "call", A->rows, A->nnz, cr, g);
    for (int a = 0; a < R->nbase; a++) /* cuSPARSE in f64: what mixed precision is an alternative to */
        text_row(f, "cusparse", "gpu", algs[a], A->rows, A->nnz,
                 rate(A->nnz, R->base_ms[a], base_bytes(A, a, RVS_F64), R->copy_gbs, RVS_F64), g);
    for (int a = 0; a < R->nbase; a++)
        fprintf(f, "# time ours/cusparse-%s %.4f\n", algs[a], R->base_ms[a] > 0 ? ours / R->base_ms[a] : 0.0);
    if (R->checked)
        fprintf(f, "# check ok: largest error %.3g, tolerance %.3g (reference: A rounded to f32, in double)\n",
                R->check_err, R->tol);
}
