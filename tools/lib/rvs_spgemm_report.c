/* rvs_spgemm_report.c - spgemm's report: every figure once, written either as an aligned
 * "name value" line or as a JSON member, so the two forms cannot drift apart */
#include <omp.h>
#include <string.h>
#include "rvs_json.h"
#include "rvs_report.h"
#include "rvs_spgemm_report.h"

/* Where figures go: text lines on f, or members of j when j is set. */
typedef struct {
    FILE *f;
    rvs_json *j;
} sink;

static void put_str(const sink *k, const char *name, const char *v)
{
    if (k->j)
        rvs_json_str(k->j, name, v);
    else
        fprintf(k->f, "%-22s %s\n", name, v ? v : "-");
}

static void put_int(const sink *k, const char *name, int64_t v)
{
    if (k->j)
        rvs_json_int(k->j, name, v);
    else
        fprintf(k->f, "%-22s %lld\n", name, (long long)v);
}

/* A number printed with textfmt in text; ran 0: "-" or null. */
static void put_num(const sink *k, const char *name, const char *textfmt, double v, int ran)
{
    if (k->j && ran)
        rvs_json_num(k->j, name, v);
    else if (k->j)
        rvs_json_null(k->j, name);
    else if (!ran)
        fprintf(k->f, "%-22s -\n", name);
    else {
        fprintf(k->f, "%-22s ", name);
        fprintf(k->f, textfmt, v);
        fputc('\n', k->f);
    }
}

/* "R x C, NNZ" in text, {rows, cols, nnz} in JSON. */
static void put_shape(const sink *k, const char *name, const rvs_csr *M)
{
    if (k->j) {
        rvs_json_object(k->j, name);
        rvs_json_int(k->j, "rows", M->rows);
        rvs_json_int(k->j, "cols", M->cols);
        rvs_json_int(k->j, "nnz", M->nnz);
        rvs_json_end(k->j);
    } else {
        fprintf(k->f, "%-22s %lld x %lld, %lld\n", name, (long long)M->rows, (long long)M->cols, (long long)M->nnz);
    }
}

/* The baselines' rows; total_s is ours without the device's start-up, since the baselines are
 * timed warm. */
static void put_baselines(const sink *k, const rvs_spgemm_baselines *b, double total_s)
{
    put_int(k, "cusparse_alg", b->cusparse_alg);
    put_num(k, "cusparse_kernel_s", "%.6f", b->cusparse_kernel_s, b->cusparse_ran);
    put_num(k, "cusparse_total_s", "%.6f", b->cusparse_total_s, b->cusparse_ran);
    put_num(k, "cusparse_peak_bytes", "%.0f", b->cusparse_ran ? (double)b->cusparse_peak_bytes : 0.0, 1);
    if (b->cusparse_ran && total_s > 0)
        put_num(k, "speedup_vs_cusparse", "%.3f", b->cusparse_total_s / total_s, 1);
    put_num(k, "csparse_s", "%.6f", b->csparse_s, b->csparse_ran);
    put_num(k, "graphblas_s", "%.6f", b->graphblas_s, b->graphblas_ran);
    if (b->graphblas_ran && total_s > 0)
        put_num(k, "speedup_vs_graphblas", "%.3f", b->graphblas_s / total_s, 1);
}

/* Every figure of the report through k. */
static void put_report(const sink *k, const rvs_spgemm_report *r)
{
    const rvs_spgemm_stats *s = r->stats;
    const int gpu = strcmp(r->device, "cpu") != 0;
    const double flops = (rvs_vtype_is_complex(r->vt) ? 8.0 : 2.0) * (double)s->products;
    char desc[256];
    put_str(k, "device", r->device);
    if (r->choice)
        put_str(k, "choice", r->choice);
    if (gpu)
        put_str(k, "method", r->method == RVS_SPGEMM_HYSPMM ? "hyspmm" : "rowwise");
    put_str(k, "precision", rvs_vtype_name(r->vt));
    put_int(k, "threads", omp_get_max_threads());
    if (gpu) {
        (void)rvs_engine_gpus(desc, sizeof desc);
        put_str(k, "gpu", desc);
    }
    put_shape(k, "A", r->A);
    put_shape(k, "B", r->B);
    put_int(k, "products", s->products);
    put_int(k, "nnz_c", s->nnz_c);
    put_num(k, "setup_s", "%.6f", s->t_setup, 1);
    put_num(k, "pre_s", "%.6f", s->t_pre, 1);
    put_num(k, "transfer_s", "%.6f", s->t_transfer, 1);
    put_num(k, "multiply_s", "%.6f", s->t_multiply, 1);
    put_num(k, "compress_s", "%.6f", s->t_compress, 1);
    if (gpu)
        put_num(k, "kernel_s", "%.6f", s->t_kernel, 1);
    put_num(k, "total_s", "%.6f", s->t_total, 1);
    put_num(k, "gflops", "%.3f", s->t_total > 0 ? flops / s->t_total * 1e-9 : 0.0, 1);
    if (k->j) {
        rvs_json_object(k->j, "rows_by_method");
        rvs_json_int(k->j, "esc", s->rows_esc);
        rvs_json_int(k->j, "dense", s->rows_dense);
        rvs_json_int(k->j, "hash", s->rows_hash);
        rvs_json_end(k->j);
    } else {
        fprintf(k->f, "%-22s %lld %lld %lld\n", "rows_esc_dense_hash", (long long)s->rows_esc,
                (long long)s->rows_dense, (long long)s->rows_hash);
    }
    if (gpu) {
        put_int(k, "gpu_blocks", s->blocks);
        put_int(k, "gpu_rows", s->gpu_rows);
        put_int(k, "cpu_rows", s->cpu_rows);
        put_int(k, "gpu_budget_bytes", (int64_t)s->gpu_budget_bytes);
        put_int(k, "gpu_peak_bytes", (int64_t)s->gpu_peak_bytes);
    }
    if (r->checked && k->j) {
        rvs_json_object(k->j, "check");
        rvs_json_num(k->j, "max_err", r->max_err);
        rvs_json_num(k->j, "tolerance", r->tol);
        rvs_json_end(k->j);
    } else if (r->checked) {
        fprintf(k->f, "%-22s %.3g (tolerance %.3g)\n", "check_max_err", r->max_err, r->tol);
    }
    if (r->base)
        put_baselines(k, r->base, s->t_total - s->t_setup);
}

void rvs_spgemm_report_print(FILE *f, const rvs_spgemm_report *r, int json)
{
    rvs_json j;
    sink k = {f, NULL};
    if (!json) {
        put_report(&k, r);
        return;
    }
    rvs_report_json_begin(&j, f, "spgemm", r->a_input);
    rvs_json_str(&j, "input_b", r->b_input);
    k.j = &j;
    put_report(&k, r);
    rvs_report_json_finish(&j);
}
