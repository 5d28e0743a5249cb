/* spgemm_hybrid.c - C = A*B on the GPU by the chosen method (rows the device cannot hold on
 * the CPU), and the hybrid: long rows on the CPU while the GPU computes the rest */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine_spgemm.h"

/* rvs_spgemm_gpu and rvs_spgemm_hybrid for rvs_spgemm_complex (ctx: the options). */
static rvs_status gpu_real(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, void *ctx, rvs_spgemm_stats *stats,
                           rvs_error *err)
{
    return rvs_spgemm_gpu(C, A, B, ctx, stats, err);
}

static rvs_status hybrid_real(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, void *ctx, rvs_spgemm_stats *stats,
                              rvs_error *err)
{
    return rvs_spgemm_hybrid(C, A, B, ctx, stats, err);
}

/* 1 when A*B is a complex product (one real product of the stacked parts, spgemm_complex.c). */
static int complex_product(const rvs_csr *A, const rvs_csr *B)
{
    return rvs_vtype_is_complex(A->vtype) && A->vtype == B->vtype;
}

/* C = A*B on the GPU (o->method); the CPU kernel takes rows the device cannot hold. */
rvs_status rvs_spgemm_gpu(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                          rvs_spgemm_stats *stats, rvs_error *err)
{
    if (complex_product(A, B))
        return rvs_spgemm_complex(C, A, B, gpu_real, (void *)o, stats, err);
    if (o && o->method == RVS_SPGEMM_HYSPMM)
        return rvs_spgemm_gpu_pipeline(C, A, B, o, rvs_spgemm_cpu_rows, stats, err);
    return rvs_spgemm_gpu_rowwise(C, A, B, o, NULL, rvs_spgemm_cpu_rows, stats, err);
}

/* C = A*B on the GPU, row-wise, C's entries handed to sink block by block. */
rvs_status rvs_spgemm_gpu_to(rvs_spgemm_sink *sink, rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                             const rvs_spgemm_options *o, rvs_spgemm_stats *stats, rvs_error *err)
{
    if (rvs_vtype_is_complex(A->vtype))
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "a complex C is merged in memory, not written block by block");
    return rvs_spgemm_gpu_rowwise(C, A, B, o, sink, rvs_spgemm_cpu_rows, stats, err);
}

/* Order rows by products, largest first (qsort_r context-free: products carried along). */
typedef struct {
    int64_t row, products;
} row_products;

static int by_products_desc(const void *a, const void *b)
{
    const row_products *x = a, *y = b;
    return x->products < y->products ? 1 : x->products > y->products ? -1 : (x->row > y->row) - (x->row < y->row);
}

static int by_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Long rows for the CPU: products > factor * mean and >= 1024, largest first, within share. */
rvs_status rvs_spgemm_hybrid_split(const rvs_csr *A, const int64_t *prodptr, const rvs_spgemm_options *o,
                                   int64_t **rows, int64_t *nrows, rvs_error *err)
{
    double share = o && o->hybrid_cpu_share > 0 ? o->hybrid_cpu_share : 0.1;
    double factor = o && o->hybrid_long_factor > 0 ? o->hybrid_long_factor : 8.0;
    int64_t total = prodptr[A->rows], nonempty = 0, ncand = 0, n = 0, taken = 0;
    row_products *cand = NULL;
    *rows = NULL;
    *nrows = 0;
    for (int64_t i = 0; i < A->rows; i++)
        nonempty += prodptr[i + 1] > prodptr[i];
    double mean = nonempty ? (double)total / (double)nonempty : 0;
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t p = prodptr[i + 1] - prodptr[i];
        ncand += p >= 1024 && (double)p > factor * mean;
    }
    cand = malloc((size_t)ncand * sizeof *cand + 1);
    *rows = malloc((size_t)ncand * sizeof **rows + 1);
    if (!cand || !*rows) {
        free(cand);
        free(*rows);
        *rows = NULL;
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory splitting rows");
    }
    for (int64_t i = 0, c = 0; i < A->rows; i++) {
        int64_t p = prodptr[i + 1] - prodptr[i];
        if (p >= 1024 && (double)p > factor * mean)
            cand[c++] = (row_products){i, p};
    }
    qsort(cand, (size_t)ncand, sizeof *cand, by_products_desc);
    for (int64_t c = 0; c < ncand; c++) {
        if ((double)(taken + cand[c].products) > share * (double)total)
            continue;
        taken += cand[c].products;
        (*rows)[n++] = cand[c].row;
    }
    qsort(*rows, (size_t)n, sizeof **rows, by_int64);
    *nrows = n;
    free(cand);
    return RVS_OK;
}

/* The GPU half of a hybrid run, on its own thread. */
typedef struct {
    rvs_csr *C;
    const rvs_csr *A, *B;
    const rvs_spgemm_options *o;
    rvs_spgemm_stats stats;
    rvs_error err;
    rvs_status st;
} gpu_job;

static void *run_gpu_job(void *arg)
{
    gpu_job *j = arg;
    j->st = rvs_spgemm_gpu(j->C, j->A, j->B, j->o, &j->stats, &j->err);
    return NULL;
}

/* C from the CPU rows (cpu_rows ascending) and the GPU rows (all the others, in order). */
static rvs_status merge_rows(rvs_csr *C, const rvs_csr *Cc, const rvs_csr *Cg, const int64_t *cpu_rows,
                             int64_t ncpu, int64_t rows, int64_t cols, rvs_vtype vt, rvs_error *err)
{
    int64_t *src = malloc((size_t)rows * sizeof *src + 1); /* >= 0: CPU row, < 0: ~GPU row */
    rvs_status st;
    if (!src)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory merging rows");
    for (int64_t i = 0, c = 0, g = 0; i < rows; i++)
        src[i] = (c < ncpu && cpu_rows[c] == i) ? c++ : ~g++;
    if ((st = rvs_csr_alloc(C, rows, cols, Cc->nnz + Cg->nnz, vt, err)) != RVS_OK)
        goto done;
    for (int64_t i = 0; i < rows; i++) {
        const rvs_csr *S = src[i] >= 0 ? Cc : Cg;
        int64_t r = src[i] >= 0 ? src[i] : ~src[i];
        C->rowptr[i + 1] = C->rowptr[i] + S->rowptr[r + 1] - S->rowptr[r];
    }
    const size_t vs = rvs_vtype_size(vt);
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t i = 0; i < rows; i++) {
        const rvs_csr *S = src[i] >= 0 ? Cc : Cg;
        int64_t r = src[i] >= 0 ? src[i] : ~src[i], n = S->rowptr[r + 1] - S->rowptr[r];
        memcpy(C->colind + C->rowptr[i], S->colind + S->rowptr[r], (size_t)n * sizeof(int32_t));
        memcpy((char *)C->values + (size_t)C->rowptr[i] * vs, (const char *)S->values + (size_t)S->rowptr[r] * vs,
               (size_t)n * vs);
    }
done:
    free(src);
    return st;
}

/* The hybrid's stats: the GPU half's counters with the CPU half's added; the stages are the
 * hybrid's own (setup, pre, multiply for both halves at once, compress for the merge). */
static void hybrid_stats(rvs_spgemm_stats *s, const rvs_spgemm_stats *g, const rvs_spgemm_stats *c,
                         const double *stage)
{
    *s = *g;
    s->products += c->products;
    s->nnz_c += c->nnz_c;
    s->cpu_rows += c->cpu_rows;
    s->rows_esc += c->rows_esc;
    s->rows_dense += c->rows_dense;
    s->rows_hash += c->rows_hash;
    s->t_setup = stage[0];
    s->t_pre = stage[1];
    s->t_transfer = 0;
    s->t_multiply = stage[2];
    s->t_compress = stage[3];
    s->t_total = stage[0] + stage[1] + stage[2] + stage[3];
}

/* The time since *last added to *stage. */
static void lap(double *last, double *stage)
{
    const double now = omp_get_wtime();
    *stage += now - *last;
    *last = now;
}

/* C = A*B: long rows on the CPU, the rest on the GPU, concurrently. */
rvs_status rvs_spgemm_hybrid(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, const rvs_spgemm_options *o,
                             rvs_spgemm_stats *stats, rvs_error *err)
{
    if (complex_product(A, B))
        return rvs_spgemm_complex(C, A, B, hybrid_real, (void *)o, stats, err);
    double last = omp_get_wtime(), stage[4] = {0, 0, 0, 0}; /* setup, pre, multiply, compress */
    int64_t *prodptr = NULL, *cpu_rows = NULL, *gpu_rows = NULL, ncpu = 0;
    rvs_csr Ag = {0}, Cc = {0}, Cg = {0};
    rvs_spgemm_stats sc = {0};
    gpu_job job;
    pthread_t th;
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    memset(C, 0, sizeof *C);
    memset(&job, 0, sizeof job);
    if (st != RVS_OK)
        return st;
    prodptr = malloc((size_t)(A->rows + 1) * sizeof *prodptr);
    if (!prodptr) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory in the hybrid SpGEMM");
        goto done;
    }
    if ((st = rvs_spgemm_row_products(prodptr, A, B, err)) != RVS_OK ||
        (st = rvs_spgemm_hybrid_split(A, prodptr, o, &cpu_rows, &ncpu, err)) != RVS_OK)
        goto done;
    gpu_rows = malloc((size_t)(A->rows - ncpu) * sizeof *gpu_rows + 1);
    if (!gpu_rows) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory in the hybrid SpGEMM");
        goto done;
    }
    for (int64_t i = 0, c = 0, g = 0; i < A->rows; i++) {
        if (c < ncpu && cpu_rows[c] == i)
            c++;
        else
            gpu_rows[g++] = i;
    }
    if ((st = rvs_csr_extract_rows(&Ag, A, gpu_rows, A->rows - ncpu, 0, 0, err)) != RVS_OK)
        goto done;
    lap(&last, &stage[1]);
    rvs_spgemm_gpu_start_wait(); /* a device start-up under way is set-up, not the GPU half */
    lap(&last, &stage[0]);
    job = (gpu_job){&Cg, &Ag, B, o, {0}, {RVS_OK, ""}, RVS_OK};
    if (pthread_create(&th, NULL, run_gpu_job, &job) != 0) {
        st = rvs_fail(err, RVS_ERR_INTERNAL, "cannot start the GPU thread");
        goto done;
    }
    st = rvs_spgemm_cpu_rows(&Cc, A, B, cpu_rows, ncpu, &sc, err);
    pthread_join(th, NULL);
    lap(&last, &stage[2]);
    if (st == RVS_OK && job.st != RVS_OK) {
        st = job.st;
        if (err)
            *err = job.err;
    }
    if (st == RVS_OK)
        st = merge_rows(C, &Cc, &Cg, cpu_rows, ncpu, A->rows, B->cols, A->vtype, err);
done:
    rvs_csr_free(&Ag);
    rvs_csr_free(&Cc);
    rvs_csr_free(&Cg);
    free(prodptr);
    free(cpu_rows);
    free(gpu_rows);
    lap(&last, &stage[3]);
    if (st == RVS_OK && stats) {
        hybrid_stats(stats, &job.stats, &sc, stage);
        stats->gpu_rows = A->rows - stats->cpu_rows;
    }
    return st;
}
