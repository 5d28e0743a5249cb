/* advisor.c - the format advisor ("auto"): per part, every format of the format table with its
 * tunable variants (tune.c) is a candidate; the byte model (advisor_model.c) prunes them; the
 * survivors are built, run on the device that will run the part with y poisoned, checked
 * against A x in double (rvs_spmv_check_trial; on the GPU x is drawn on the device and the check
 * draws it too) and timed (median), and the fastest verified one is chosen. Parts larger than
 * the sample size are tried on an evenly spread sample of their row blocks. A part of scattered
 * rows is read in the hub through its row list, never copied whole: the sample, the model's row
 * lengths and diagonals, and the copy of a part small enough to be tried whole are all it costs. */
#include <math.h>
#include <string.h>
#include "engine_internal.h"
#include "rvs_mem.h"
#include "rvs_cpu.h"
#include "rvs_cusparse.h"

#define SAMPLE_BLOCK 2048 /* rows per sampled block */

void rvs_advisor_options_default(rvs_advisor_options *o)
{
    memset(o, 0, sizeof *o); /* defer and any field to come: off */
    o->iters = 7;
    o->use_cache = 1;
    o->keep_ratio = 1.6;
    o->sample_nnz = (int64_t)24 << 20;
    o->mode = RVS_ADVISE_MODEL;
    o->max_trials = 3;
}

const char *rvs_how_name(rvs_how h)
{
    static const char *const n[] = {"model", "trial", "cache", "fixed", "tuned", "default"};
    return (unsigned)h < sizeof n / sizeof n[0] ? n[h] : "?";
}

/* What the trials of one part share: the matrix they run on and the vectors. */
typedef struct {
    const rvs_csr *A; /* values in vt */
    rvs_vtype vt;
    rvs_device dev;
    int iters;
    void *x, *y, *dx, *dy;
    double *xd, *yd;
} trial;

#define TRIAL_SEED 7 /* the trials' x */

/* x, y and their device copies for T->A. A real x for the GPU is drawn there and checked drawn
 * (rvs_spmv_check_trial with no x): no host copy of the part's columns long sits beside the hub. */
static rvs_status trial_open(trial *T, rvs_error *err)
{
    const size_t vs = rvs_vtype_size(T->vt);
    const int64_t c = T->A->cols, r = T->A->rows;
    const size_t parts = rvs_vtype_is_complex(T->vt) ? 2 : 1; /* doubles per value */
    const int host_x = T->dev != RVS_DEV_GPU || parts == 2;
    T->x = host_x ? malloc((size_t)c * vs + 8) : NULL;
    T->y = malloc((size_t)r * vs + 8);
    /* in f64 the check's x and y in double are x and y themselves */
    T->xd = !host_x || T->vt == RVS_F64 ? T->x : malloc((size_t)c * parts * sizeof(double) + 8);
    T->yd = T->vt == RVS_F64 ? T->y : malloc((size_t)r * parts * sizeof(double) + 8);
    if ((host_x && (!T->x || !T->xd)) || !T->y || !T->yd)
        return rvs_fail(err, RVS_ERR_NOMEM, "advisor: out of memory for the trial vectors");
    if (host_x)
        rvs_fill_x(T->x, T->xd == T->x ? NULL : T->xd, c, T->vt, TRIAL_SEED);
    if (T->dev != RVS_DEV_GPU)
        return RVS_OK;
    rvs_status st = rvs_gpu_malloc(&T->dx, (size_t)c * vs, err);
    if (st == RVS_OK)
        st = rvs_gpu_malloc(&T->dy, (size_t)r * vs, err);
    if (st == RVS_OK)
        st = host_x ? rvs_gpu_memcpy_h2d(T->dx, T->x, (size_t)c * vs, err)
                    : rvs_gpu_fill_drawn(T->dx, c, T->vt, TRIAL_SEED, err);
    return st;
}

static void trial_close(trial *T)
{
    if (T->xd != T->x)
        free(T->xd);
    if (T->yd != T->y)
        free(T->yd);
    free(T->x);
    free(T->y);
    rvs_gpu_free(T->dx);
    rvs_gpu_free(T->dy);
}

/* 1 when T->y (the run's result) passes the check against A x in double (rows whose magnitude
 * overflowed passed over: no format can be judged by them). */
static int verified(trial *T)
{
    rvs_y_to_double(T->yd, T->y, T->A->rows, T->vt);
    return rvs_spmv_check_trial(T->A, T->xd, TRIAL_SEED, T->yd, rvs_check_tol(T->vt), NULL) == RVS_OK;
}

/* Run G with c's tunables: once into a poisoned y, checked, then iters timed runs. */
static void trial_gpu(trial *T, const rvs_gpu_fmt *G, rvs_candidate *c)
{
    const size_t vs = rvs_vtype_size(T->vt);
    double *t = malloc((size_t)T->iters * sizeof *t), ms = 0;
    rvs_status st = t ? RVS_OK : RVS_ERR_NOMEM;
    c->status = RVS_CAND_FAILED;
    if (st == RVS_OK)
        st = rvs_gpu_memset(T->dy, 0xff, (size_t)T->A->rows * vs, NULL);
    if (st == RVS_OK)
        st = rvs_gpu_spmv_timed(G, T->dx, T->dy, &c->knobs.tune, &ms, NULL);
    if (st == RVS_OK)
        st = rvs_gpu_memcpy_d2h(T->y, T->dy, (size_t)T->A->rows * vs, NULL);
    if (st == RVS_OK && verified(T)) {
        for (int i = 0; i < T->iters && st == RVS_OK; i++)
            st = rvs_gpu_spmv_timed(G, T->dx, T->dy, &c->knobs.tune, &t[i], NULL);
        if (st == RVS_OK) {
            c->ms = rvs_engine_median(t, T->iters);
            c->status = RVS_CAND_RAN;
        }
    }
    free(t);
}

/* Run F on the CPU: once into a NaN y, checked, then iters timed runs. */
static void trial_cpu(trial *T, const rvs_fmt *F, rvs_candidate *c)
{
    double *t = malloc((size_t)T->iters * sizeof *t);
    c->status = RVS_CAND_FAILED;
    if (!t)
        return;
    rvs_fill_nan(T->y, T->A->rows, T->vt);
    if (rvs_cpu_spmv(F, T->x, T->y, NULL) == RVS_OK && verified(T)) {
        for (int i = 0; i < T->iters; i++) {
            double t0 = rvs_engine_now();
            rvs_cpu_spmv(F, T->x, T->y, NULL);
            t[i] = (rvs_engine_now() - t0) * 1e3;
        }
        c->ms = rvs_engine_median(t, T->iters);
        c->status = RVS_CAND_RAN;
    }
    free(t);
}

/* Copy row r of A into O at entry p with its columns moved by shift (mod cols), so that every
 * entry keeps its diagonal (col - row) in the sample; a row that wraps is rotated back into
 * ascending order. Returns the entries written. */
static int64_t copy_row(rvs_csr *O, int64_t p, const rvs_csr *A, int64_t r, int64_t shift)
{
    const int64_t a = A->rowptr[r], n = A->rowptr[r + 1] - a, vs = (int64_t)rvs_vtype_size(A->vtype);
    int64_t wrap = n;
    for (int64_t k = 0; k < n; k++) {
        int64_t c = ((rvs_csr_col(A, a + k) + shift) % A->cols + A->cols) % A->cols;
        O->colind[p + k] = (int32_t)c;
        memcpy((char *)O->values + (p + k) * vs, (const char *)A->values + (a + k) * vs, (size_t)vs);
        if (k > 0 && wrap == n && O->colind[p + k] < O->colind[p + k - 1])
            wrap = k;
    }
    for (int64_t r = 0; r < n - wrap && wrap < n; r++) { /* rotate the wrapped tail to the front */
        int32_t c = O->colind[p + n - 1];
        char v[16]; /* the largest value type, c128 */
        memcpy(v, (char *)O->values + (p + n - 1) * vs, (size_t)vs);
        memmove(O->colind + p + 1, O->colind + p, (size_t)(n - 1) * sizeof *O->colind);
        memmove((char *)O->values + (p + 1) * vs, (char *)O->values + p * vs, (size_t)((n - 1) * vs));
        O->colind[p] = c;
        memcpy((char *)O->values + p * vs, v, (size_t)vs);
    }
    return n;
}

/* 1 when block b of nblk goes into a sample of a fraction frac of the blocks: evenly spread,
 * and the first block at least when the fraction rounds to none (a part of few, long rows). */
static int sample_takes(int64_t b, int64_t nblk, double frac)
{
    if ((int64_t)((double)(b + 1) * frac) > (int64_t)((double)b * frac))
        return 1;
    return b == 0 && (int64_t)((double)nblk * frac) == 0;
}

/* O = about target entries of R: every k-th block of SAMPLE_BLOCK of its rows, evenly spread,
 * each entry keeping its diagonal (col - i, i the row's place in R) with keep_diag, else its
 * column. Only for 32-bit columns. */
static rvs_status make_sample(rvs_csr *O, const rvs_row_list *R, int64_t target, int keep_diag, rvs_error *err)
{
    const int64_t nblk = (R->nrows + SAMPLE_BLOCK - 1) / SAMPLE_BLOCK;
    const double frac = (double)target / (double)R->nnz;
    int64_t rows = 0, nnz = 0;
    for (int64_t b = 0; b < nblk; b++)
        if (sample_takes(b, nblk, frac)) {
            int64_t r0 = b * SAMPLE_BLOCK, r1 = r0 + SAMPLE_BLOCK < R->nrows ? r0 + SAMPLE_BLOCK : R->nrows;
            rows += r1 - r0;
            for (int64_t i = r0; i < r1; i++)
                nnz += rvs_row_list_len(R, i);
        }
    rvs_status st = rvs_csr_alloc(O, rows, R->A->cols, nnz, R->A->vtype, err);
    if (st != RVS_OK)
        return st;
    int64_t r = 0, p = 0;
    for (int64_t b = 0; b < nblk; b++) {
        if (!sample_takes(b, nblk, frac))
            continue;
        int64_t r0 = b * SAMPLE_BLOCK, r1 = r0 + SAMPLE_BLOCK < R->nrows ? r0 + SAMPLE_BLOCK : R->nrows;
        for (int64_t i = r0; i < r1; i++, r++) {
            p += copy_row(O, p, R->A, rvs_row_list_row(R, i), keep_diag ? r - i : 0);
            O->rowptr[r + 1] = p;
        }
    }
    O->nnz = p;
    return RVS_OK;
}

/* Candidates: every format of the table, its variants after its defaults; the byte model's
 * bytes set, from the features alone when F is given (else from R's row lengths and
 * diagonals, a pass over its entries). */
static void enumerate(rvs_decision *d, const rvs_row_list *R, const rvs_features *F, rvs_vtype vt, rvs_device dev,
                      int bare)
{
    rvs_knobs v[RVS_MAX_CAND];
    d->ncand = 0;
    for (int id = 1; id < RVS_FMT_COUNT; id++) {
        if (!rvs_format_lookup((rvs_format_id)id))
            continue;
        double bytes = bare ? -1
                       : F  ? rvs_model_bytes_features((rvs_format_id)id, F, R->A->cols, vt)
                            : rvs_model_bytes_rows((rvs_format_id)id, R, vt);
        int nv = rvs_tune_variants((rvs_format_id)id, v, RVS_MAX_CAND);
        for (int j = 0; j < nv && d->ncand < RVS_MAX_CAND; j++) {
            /* the CPU kernels read no GPU tunable: only variants of the build options count */
            if (dev == RVS_DEV_CPU && j > 0 && memcmp(&v[j].fo, &v[0].fo, sizeof v[0].fo) == 0)
                continue;
            rvs_candidate *c = &d->cand[d->ncand++];
            c->format = (rvs_format_id)id;
            c->knobs = v[j];
            c->status = RVS_CAND_PRUNED;
            c->ms = -1;
            c->model_bytes = bytes;
            c->pred_ms = -1;
            c->pred_sigma = 0;
        }
    }
}

/* The model's survivors - formats within keep_ratio of the fewest bytes, and formats it has
 * no rule for - leave RVS_CAND_PRUNED (as RVS_CAND_FAILED until a trial says otherwise). */
static void prune(rvs_decision *d, double keep_ratio)
{
    double least = -1;
    for (int i = 0; i < d->ncand; i++)
        if (d->cand[i].model_bytes >= 0 && (least < 0 || d->cand[i].model_bytes < least))
            least = d->cand[i].model_bytes;
    for (int i = 0; i < d->ncand; i++) {
        double b = d->cand[i].model_bytes;
        if (b < 0 || least < 0 || b <= keep_ratio * least)
            d->cand[i].status = RVS_CAND_FAILED;
    }
}

/* The memory trace (RVS_TRACE_MEM) after a step of a candidate's trial. */
static void trace_step(rvs_format_id id, const char *step)
{
    char what[96];
    snprintf(what, sizeof what, "advisor: %s %s", rvs_format_lookup(id)->name, step);
    rvs_mem_trace(what);
}

/* 1 when candidates a and b run on one build and upload: the same format, build options and,
 * for CSR, the same layout for their kernels (rvs_csr_gpu_rule). */
static int same_build(const rvs_candidate *a, const rvs_candidate *b, const rvs_csr *A)
{
    if (a->format != b->format || memcmp(&a->knobs.fo, &b->knobs.fo, sizeof a->knobs.fo) != 0)
        return 0;
    if (a->format != RVS_FMT_CSR)
        return 1;
    int64_t pa[RVS_FMT_MAX_PARAMS] = {0}, pb[RVS_FMT_MAX_PARAMS] = {0};
    rvs_csr_gpu_params_for(pa, A->rows, A->nnz, A->vtype, (rvs_csr_kernel)a->knobs.tune.csr_kernel,
                           a->knobs.tune.threads_per_row, &a->knobs.fo);
    rvs_csr_gpu_params_for(pb, A->rows, A->nnz, A->vtype, (rvs_csr_kernel)b->knobs.tune.csr_kernel,
                           b->knobs.tune.threads_per_row, &b->knobs.fo);
    return pa[RVS_CSR_ORDER] == pb[RVS_CSR_ORDER];
}

/* Build, run and time every surviving candidate; one build per format and build options. */
static rvs_status run_trials(rvs_decision *d, trial *T, rvs_error *err)
{
    char tried[RVS_MAX_CAND] = {0};
    for (int i = 0; i < d->ncand; i++) {
        rvs_candidate *c = &d->cand[i];
        if (c->status != RVS_CAND_FAILED || tried[i])
            continue; /* pruned, or already run with an earlier build */
        rvs_fmt F = {0};
        rvs_gpu_fmt G = {0};
        if (rvs_fmt_from_csr(&F, c->format, T->A, &c->knobs.fo, NULL) != RVS_OK) {
            for (int j = i; j < d->ncand; j++) /* its variants of the same build too */
                if (d->cand[j].status == RVS_CAND_FAILED && !tried[j] && same_build(&d->cand[j], c, T->A)) {
                    d->cand[j].status = RVS_CAND_REFUSED;
                    tried[j] = 1;
                }
            rvs_fmt_free(&F);
            continue;
        }
        trace_step(c->format, "built");
        if (F.id == RVS_FMT_CSR) /* the layout its kernel reads */
            rvs_csr_gpu_params_for(F.param, F.rows, F.nnz, F.vtype, (rvs_csr_kernel)c->knobs.tune.csr_kernel,
                                   c->knobs.tune.threads_per_row, &c->knobs.fo);
        rvs_status st = T->dev == RVS_DEV_GPU ? rvs_gpu_upload(&G, &F, err) : RVS_OK;
        if (T->dev == RVS_DEV_GPU) {
            rvs_fmt_free(&F); /* the device copy is what runs: the host one need not sit beside the hub */
            trace_step(c->format, "uploaded and freed on the host");
        }
        if (st == RVS_ERR_NODEV)
            return st;
        for (int j = i; j < d->ncand; j++) { /* every variant that shares this build */
            rvs_candidate *v = &d->cand[j];
            if (v->status != RVS_CAND_FAILED || tried[j] || !same_build(v, c, T->A))
                continue;
            tried[j] = 1;
            if (st != RVS_OK)
                v->status = RVS_CAND_REFUSED; /* did not fit on the device */
            else if (T->dev == RVS_DEV_GPU)
                trial_gpu(T, &G, v);
            else
                trial_cpu(T, &F, v);
        }
        rvs_gpu_fmt_free(&G);
        rvs_fmt_free(&F);
    }
    for (int i = 0; i < d->ncand; i++)
        if (d->cand[i].status != RVS_CAND_RAN)
            d->cand[i].ms = -1;
    return RVS_OK;
}

int rvs_decision_runner_up(const rvs_decision *d)
{
    int best = -1;
    if (d->chosen < 0)
        return -1;
    for (int i = 0; i < d->ncand; i++) {
        const rvs_candidate *c = &d->cand[i];
        if (c->status == RVS_CAND_RAN && c->format != d->cand[d->chosen].format &&
            (best < 0 || c->ms < d->cand[best].ms))
            best = i;
    }
    return best;
}

/* The fastest verified candidate into d->chosen; RVS_ERR_INTERNAL when none ran. */
static rvs_status choose(rvs_decision *d, rvs_error *err)
{
    d->chosen = -1;
    for (int i = 0; i < d->ncand; i++)
        if (d->cand[i].status == RVS_CAND_RAN && (d->chosen < 0 || d->cand[i].ms < d->cand[d->chosen].ms))
            d->chosen = i;
    if (d->chosen < 0)
        return rvs_fail(err, RVS_ERR_INTERNAL, "advisor: no format ran and verified on this part");
    return RVS_OK;
}

int rvs_advise_keeps_diagonals(const rvs_decision *d)
{
    double coo = -1, hybdia = -1;
    for (int i = 0; i < d->ncand; i++) {
        const rvs_candidate *c = &d->cand[i];
        if (c->format == RVS_FMT_DIA && c->status != RVS_CAND_PRUNED)
            return 1;
        if (c->format == RVS_FMT_COO)
            coo = c->model_bytes;
        if (c->format == RVS_FMT_HYBDIA)
            hybdia = c->model_bytes;
    }
    return hybdia >= 0 && coo >= 0 && hybdia < coo;
}

rvs_status rvs_advise_trial_matrix(rvs_csr *own, const rvs_csr **M, int *sampled, const rvs_row_list *R,
                                   rvs_device dev, rvs_vtype vt, int keep_diag, const rvs_advisor_options *o,
                                   rvs_error *err)
{
    const rvs_csr *A = R->A;
    rvs_status st = RVS_OK;
    memset(own, 0, sizeof *own);
    const int64_t floor = dev == RVS_DEV_GPU ? (int64_t)8 << 20 : (int64_t)4 << 20;
    const int64_t least = o->sample_nnz < floor ? o->sample_nnz : floor;
    /* a part of scattered rows tried whole is a copy of it beside the hub: whole only while
     * that copy is at most an eighth of the hub, or no bigger than the sample would be (the
     * 200^3 stencil in four pmf parts of 14M entries, each tried whole: 1425 MB on the CPU
     * against a 797 MB stream, 1.50 times it net on the GPU) */
    const int big_copy = R->rows && R->nnz > A->nnz / 8 && R->nnz > least;
    *sampled = (R->nnz > o->sample_nnz || big_copy) && A->colind && A->cols > 0;
    if (*sampled) {
        /* the sample and its candidate builds sit beside the hub: an eighth of the part, at
         * least 8M entries on the GPU (about 100 MB in f64, twice its L2 cache) and 4M on the
         * CPU (a quarter on the GPU held the 200^3 stencil's run 628 MiB above the hub) */
        int64_t n = R->nnz / 8;
        n = n < least ? least : n > o->sample_nnz ? o->sample_nnz : n;
        st = make_sample(own, R, n, keep_diag, err);
    } else if (R->rows) {
        /* tried whole: a copy of at most sample_nnz entries (of the whole part only with 64-bit
         * columns, which the sample does not take) */
        st = rvs_csr_extract_rows(own, A, R->rows, R->nrows, 0, 0, err);
    }
    *M = *sampled || R->rows ? own : A;
    if (st == RVS_OK && (*M)->vtype != vt) {
        if (*M != own && (st = rvs_csr_copy(own, A, err)) != RVS_OK)
            return st;
        *M = own;
        st = rvs_csr_convert_values(own, vt, err);
    }
    return st;
}

rvs_status rvs_advise(rvs_decision *d, const rvs_csr *S, int part, rvs_device dev, rvs_vtype vt,
                      const rvs_advisor_options *o, rvs_error *err)
{
    rvs_row_list R;
    rvs_row_list_all(&R, S);
    return rvs_advise_rows(d, &R, part, dev, vt, o, err);
}

/* The model's shortlist, best first, into list (at most max): the candidate it ranks first and
 * those it cannot tell from it - within two of their fits' sigmas (pred_ms), or with no fit
 * within keep_ratio of the fewest bytes. Returns how many. */
static int shortlist(const rvs_decision *d, int *list, int max, double keep_ratio)
{
    int n = 0, fitted = 0;
    for (int i = 0; i < d->ncand; i++)
        fitted |= d->cand[i].pred_ms > 0;
    /* ranks by predicted time, or by bytes where nothing is fitted */
    double rank[RVS_MAX_CAND];
    for (int i = 0; i < d->ncand; i++)
        rank[i] = fitted ? d->cand[i].pred_ms : d->cand[i].model_bytes;
    int order[RVS_MAX_CAND];
    for (int i = 0; i < d->ncand; i++) {
        int j = n++;
        for (; j > 0 && (rank[order[j - 1]] <= 0 || (rank[i] > 0 && rank[i] < rank[order[j - 1]])); j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    const int best = order[0];
    int k = 0;
    for (int j = 0; j < n && k < max; j++) {
        const rvs_candidate *c = &d->cand[order[j]], *b = &d->cand[best];
        if (rank[order[j]] <= 0)
            break;
        const double band = fitted ? exp2(2.0 * hypot(c->pred_sigma, b->pred_sigma)) : keep_ratio;
        if (j == 0 || rank[order[j]] <= band * rank[best])
            list[k++] = order[j];
    }
    return k;
}

rvs_status rvs_advise_rows(rvs_decision *d, const rvs_row_list *R, int part, rvs_device dev, rvs_vtype vt,
                           const rvs_advisor_options *o, rvs_error *err)
{
    rvs_advisor_options def;
    rvs_csr own = {0};
    rvs_features F;
    trial T;
    char device[256];
    rvs_status st = RVS_OK;
    if (!o) {
        rvs_advisor_options_default(&def);
        o = &def;
    }
    memset(d, 0, sizeof *d);
    memset(&T, 0, sizeof T);
    d->part = part;
    d->device = dev;
    d->vtype = vt;
    d->chosen = -1;
    if (dev == RVS_DEV_GPU && rvs_gpu_count() == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "advisor: no GPU to try formats on");
    rvs_device_name(dev, device, sizeof device);
    /* deciding starts here: the device and its runtime are the run's, whatever decides */
    const double t0 = rvs_engine_now();
    const uint64_t shape = rvs_shape_key_rows(R, vt);
    if (o->use_cache && rvs_trial_cache_lookup(d, device, shape, NULL) == RVS_OK) {
        d->part = part;
        d->how = RVS_HOW_CACHE;
        d->decide_ms = (rvs_engine_now() - t0) * 1e3;
        return RVS_OK;
    }
    T.vt = vt;
    T.dev = dev;
    T.iters = o->iters > 0 ? o->iters : 1;
    const int model = o->mode == RVS_ADVISE_MODEL;
    if (model && o->defer && o->late) { /* the candidates listed, nothing read: the rule's CSR runs */
        enumerate(d, R, NULL, vt, dev, 1);
        for (int i = 0; i < d->ncand && d->chosen < 0; i++)
            if (d->cand[i].format == RVS_FMT_CSR && d->cand[i].knobs.tune.csr_kernel == RVS_CSR_AUTO &&
                d->cand[i].knobs.fo.csr_order == 0)
                d->chosen = i;
        if (d->chosen < 0)
            return rvs_fail(err, RVS_ERR_INTERNAL, "advisor: no CSR candidate to start in");
        d->how = RVS_HOW_DEFAULT;
        d->late = 1;
        d->decide_ms = (rvs_engine_now() - t0) * 1e3;
        return RVS_OK;
    }
    if (model && (st = rvs_features_rows(&F, R, err)) != RVS_OK)
        return st;
    enumerate(d, R, model ? &F : NULL, vt, dev, 0); /* the byte model's counts are gone before the sample */
    int keep_diag;
    if (model) {
        int list[RVS_MAX_PENDING + 1];
        const int max = o->max_trials > 0
                            ? (o->max_trials < RVS_MAX_PENDING + 1 ? o->max_trials : RVS_MAX_PENDING + 1)
                            : 1;
        rvs_model_predict(d, &F, dev, vt);
        int n = shortlist(d, list, max, o->keep_ratio);
        /* the floor: cuSPARSE's CSR SpMV is always among the GPU's doubts, so that the library a
         * user would call instead is tried against the choice (it takes the last place) */
        for (int i = 0; dev == RVS_DEV_GPU && n > 0 && i < d->ncand; i++) {
            if (d->cand[i].format != RVS_FMT_CSR || d->cand[i].knobs.tune.csr_kernel != RVS_CSR_CUSPARSE)
                continue;
            int have = 0;
            for (int k = 0; k < n; k++)
                have |= list[k] == i;
            if (!have && n < max)
                list[n++] = i;
            else if (!have && n > 1)
                list[n - 1] = i;
        }
        if (n == 0)
            return rvs_fail(err, RVS_ERR_INTERNAL, "advisor: the model ranks no candidate");
        d->how = RVS_HOW_MODEL;
        int rule_csr = -1; /* CSR with the rule's kernel, as --format csr runs it */
        for (int i = 0; i < d->ncand && rule_csr < 0; i++)
            if (d->cand[i].format == RVS_FMT_CSR && d->cand[i].knobs.tune.csr_kernel == RVS_CSR_AUTO &&
                d->cand[i].knobs.tune.threads_per_row == 0 && d->cand[i].knobs.fo.csr_order == 0)
                rule_csr = i;
        if (o->defer) {
            /* the first calls run what --format csr runs, which needs no build (its block borrows
             * the hub): the fit ranked row-block first on the 7-point stencil 200^3, which ran
             * 1.6x slower there than the rule's kernel; the model's choices, built on the helper,
             * are the doubts tried between calls */
            if (rule_csr >= 0) { /* [the rule's CSR, the floor, the others in order] */
                /* the floor is tried first: the tuning's share of the calls may run out before
                 * the list's end, and it alone keeps auto from trailing cuSPARSE (bcsstm13's
                 * replica stayed in the rule's CSR at 0.94x cuSPARSE, the floor untried) */
                int out[RVS_MAX_PENDING + 1], m = 0;
                out[m++] = rule_csr;
                for (int k = 0; k < n; k++)
                    if (list[k] != rule_csr && d->cand[list[k]].knobs.tune.csr_kernel == RVS_CSR_CUSPARSE &&
                        m < RVS_MAX_PENDING + 1)
                        out[m++] = list[k];
                for (int k = 0; k < n; k++)
                    if (list[k] != rule_csr && d->cand[list[k]].knobs.tune.csr_kernel != RVS_CSR_CUSPARSE &&
                        m < RVS_MAX_PENDING + 1)
                        out[m++] = list[k];
                memcpy(list, out, (size_t)m * sizeof *list);
                n = m;
            }
        }
        if (n == 1 || o->defer) { /* nothing to try now: the model's choice, the rest left pending */
            d->chosen = list[0];
            for (int k = 1; k < n; k++)
                d->pending[d->npending++] = list[k];
            d->decide_ms = (rvs_engine_now() - t0) * 1e3;
            return RVS_OK;
        }
        d->how = RVS_HOW_TRIAL;
        keep_diag = 0;
        for (int k = 0; k < n; k++) { /* only the shortlist is tried */
            d->cand[list[k]].status = RVS_CAND_FAILED;
            keep_diag |= d->cand[list[k]].format == RVS_FMT_DIA || d->cand[list[k]].format == RVS_FMT_HYBDIA;
        }
    } else {
        d->how = RVS_HOW_TRIAL;
        prune(d, o->keep_ratio);
        keep_diag = rvs_advise_keeps_diagonals(d);
    }
    /* the model's few doubts are settled on a smaller sample than a dozen candidates were: 2M
     * entries on the CPU, 8M on the GPU (past its L2 cache) */
    rvs_advisor_options so = *o;
    const int64_t small = dev == RVS_DEV_GPU ? (int64_t)8 << 20 : (int64_t)2 << 20;
    if (model && so.sample_nnz > small)
        so.sample_nnz = small;
    if ((st = rvs_advise_trial_matrix(&own, &T.A, &d->sampled, R, dev, vt, keep_diag, &so, err)) != RVS_OK)
        goto done;
    rvs_mem_trace(d->sampled ? "advisor: sample made" : "advisor: part ready to try");
    if ((st = trial_open(&T, err)) != RVS_OK)
        goto done;
    rvs_mem_trace("advisor: trial vectors made");
    if ((st = run_trials(d, &T, err)) != RVS_OK || (st = choose(d, err)) != RVS_OK)
        goto done;
    if (o->use_cache)
        rvs_trial_cache_store(d, device, shape, NULL); /* a cache that cannot be written only costs time */
    rvs_mem_trace("advisor: formats tried");
done:
    trial_close(&T);
    rvs_csr_free(&own);
    d->decide_ms = (rvs_engine_now() - t0) * 1e3;
    return st;
}
