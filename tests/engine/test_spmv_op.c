/* test_spmv_op.c - the SpMV operator for solvers (engine/spmv_op.c) and the tuning between
 * calls under it (engine/spmv_tune.c). CPU: made from a CSR, applied to fresh x many times, each
 * y poisoned first and checked against A x summed in double; what it reports. GPU (skipped
 * without one): the same with host and device vectors; the floor (cuSPARSE) always among the
 * doubts; and a switch forced mid-run, on the CPU and the GPU - an item started in a slow block
 * with a faster one pending - gives the y of a fixed run, checked on every call around it. */
#include <math.h>
#include <string.h>
#include "engine_internal.h"
#include "rvs_gpu.h"
#include "rvs_test.h"

/* y of A x in double, with x drawn from seed; 0 when y differs by more than tol (relative to the
 * row's sum of |a x|). */
static int checked(const rvs_csr *A, const double *x, const void *y, rvs_vtype vt, const char *what)
{
    double *yd = malloc((size_t)A->rows * sizeof *yd + 8), me;
    int64_t row;
    rvs_error err;
    rvs_y_to_double(yd, y, A->rows, vt);
    const rvs_status st = rvs_spmv_check(A, x, yd, vt == RVS_F64 ? 1e-10 : 1e-4, &me, &row, &err);
    CHECKF(st == RVS_OK, "%s: %s", what, err.msg);
    free(yd);
    return st == RVS_OK;
}

/* calls applications of op to fresh x (host vectors, y poisoned), every one checked. */
static void apply_checked(rvs_spmv_op *op, const rvs_csr *A, rvs_vtype vt, int calls, const char *what)
{
    const size_t vs = rvs_vtype_size(vt);
    void *x = malloc((size_t)A->cols * vs + 8), *y = malloc((size_t)A->rows * vs + 8);
    double *xd = malloc((size_t)A->cols * sizeof *xd + 8);
    rvs_error err;
    char name[160];
    for (int c = 0; c < calls; c++) {
        rvs_fill_x(x, xd, A->cols, vt, 100 + (uint64_t)c);
        rvs_fill_nan(y, A->rows, vt);
        snprintf(name, sizeof name, "%s, call %d", what, c + 1);
        CHECK_OK(rvs_spmv_op_apply(op, x, y, &err), &err);
        if (!checked(A, xd, y, vt, name))
            break;
    }
    free(x);
    free(y);
    free(xd);
}

/* calls applications of op on device vectors to fresh x (y poisoned on the device), every one
 * checked; returns how many ran and checked. */
static int apply_device_checked(rvs_spmv_op *op, const rvs_csr *A, int calls, uint64_t seed, const char *what)
{
    double *x = malloc((size_t)A->cols * sizeof *x + 8), *y = malloc((size_t)A->rows * sizeof *y + 8);
    void *dx = NULL, *dy = NULL;
    rvs_error err;
    int c = 0;
    CHECK_OK(rvs_gpu_malloc(&dx, (size_t)A->cols * 8, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dy, (size_t)A->rows * 8, &err), &err);
    for (; x && y && dx && dy && c < calls; c++) {
        rvs_fill_x(x, NULL, A->cols, RVS_F64, seed + (uint64_t)c);
        CHECK_OK(rvs_gpu_memcpy_h2d(dx, x, (size_t)A->cols * 8, &err), &err);
        CHECK_OK(rvs_gpu_memset(dy, 0xff, (size_t)A->rows * 8, &err), &err);
        CHECK_OK(rvs_spmv_op_apply_device(op, dx, dy, &err), &err);
        CHECK_OK(rvs_gpu_memcpy_d2h(y, dy, (size_t)A->rows * 8, &err), &err);
        if (!checked(A, x, y, RVS_F64, what))
            break;
    }
    rvs_gpu_free(dx);
    rvs_gpu_free(dy);
    free(x);
    free(y);
    return c;
}

/* A GPU operator of A, tuning on, no trial cache; *d its decision (NULL: none). */
static rvs_spmv_op *gpu_op(const rvs_csr *A, rvs_spmv_op_options *o, const rvs_decision **d)
{
    rvs_spmv_op *op = NULL;
    rvs_error err;
    rvs_spmv_op_options_default(o);
    o->use_cache = 0;
    CHECK_OK(rvs_spmv_op_create(&op, A, o, &err), &err);
    const rvs_plan *P = op ? rvs_spmv_op_plan(op) : NULL;
    *d = P && P->items[0].decision >= 0 ? &P->decisions.d[P->items[0].decision] : NULL;
    return op;
}

static void check_cpu_op(void)
{
    rvs_csr A = {0};
    rvs_spmv_op *op = NULL;
    rvs_spmv_op_options o;
    rvs_spmv_op_stats s;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 4000, 3500, 0.002, 1, 21), &err);
    rvs_spmv_op_options_default(&o);
    CHECK(o.device == -1 && o.tune == 1 && o.use_cache == 1);
    o.device = RVS_DEV_CPU;
    o.use_cache = 0;
    for (int v = 0; v < 2; v++) {
        o.vtype = v ? RVS_F32 : RVS_F64;
        CHECK_OK(rvs_spmv_op_create(&op, &A, &o, &err), &err);
        if (!op)
            continue;
        apply_checked(op, &A, o.vtype, 6, v ? "cpu op f32" : "cpu op f64");
        rvs_spmv_op_info(op, &s);
        CHECKF(s.device == RVS_DEV_CPU && s.vtype == o.vtype && rvs_format_lookup(s.format) && s.calls == 6 &&
                   (s.how == RVS_HOW_MODEL || s.how == RVS_HOW_TRIAL) && s.decide_ms > 0 && s.switches == 0,
               "cpu op: format %d how %s calls %lld decide %g", s.format, rvs_how_name(s.how), (long long)s.calls,
               s.decide_ms);
        rvs_spmv_op_free(op);
    }
    /* a fixed format is taken as it is */
    o.vtype = RVS_F64;
    o.format = RVS_FMT_ELLR;
    CHECK_OK(rvs_spmv_op_create(&op, &A, &o, &err), &err);
    apply_checked(op, &A, RVS_F64, 2, "cpu op in ellr");
    rvs_spmv_op_info(op, &s);
    CHECK(s.format == RVS_FMT_ELLR && s.how == RVS_HOW_FIXED);
    rvs_spmv_op_free(op);
    /* asked for a GPU where there is none, and 64-bit columns: refused, nothing made */
    if (rvs_gpu_count() == 0) {
        o.device = RVS_DEV_GPU;
        o.format = 0;
        op = (rvs_spmv_op *)&o;
        CHECK(rvs_spmv_op_create(&op, &A, &o, &err) == RVS_ERR_NODEV && op == NULL);
        CHECK(rvs_spmv_op_create_device(&op, 2, 2, 0, NULL, NULL, NULL, RVS_F64, NULL, &err) != RVS_OK && !op);
    }
    rvs_csr W = A;
    W.colind = NULL;
    op = (rvs_spmv_op *)&o;
    CHECK(rvs_spmv_op_create(&op, &W, NULL, &err) == RVS_ERR_UNSUPPORTED && op == NULL &&
          strstr(err.msg, "64-bit"));
    rvs_csr_free(&A);
}

/* On the GPU: host and device vectors; the floor among the doubts; what the op says. */
static void check_gpu_op(void)
{
    rvs_csr A = {0};
    rvs_spmv_op_options o;
    rvs_spmv_op_stats s;
    rvs_error err;
    const rvs_decision *d;
    CHECK_OK(rvs_test_random_csr(&A, 30000, 30000, 0.0004, 1, 22), &err);
    rvs_spmv_op *op = gpu_op(&A, &o, &d);
    if (!op)
        return;
    rvs_spmv_op_info(op, &s);
    CHECKF(d && d->how == RVS_HOW_DEFAULT && d->late && s.how == RVS_HOW_DEFAULT && s.format == RVS_FMT_CSR,
           "gpu op: starts in the rule's CSR, the model deciding later (how %s)", d ? rvs_how_name(d->how) : "-");
    apply_checked(op, &A, RVS_F64, 400, "gpu op, host vectors");
    /* by now the helper's decision is in: cuSPARSE's CSR among what runs, waits or was tried */
    int floor = d && d->cand[d->chosen].knobs.tune.csr_kernel == RVS_CSR_CUSPARSE;
    for (int q = 0; d && q < d->ncand; q++)
        floor |= d->cand[q].format == RVS_FMT_CSR && d->cand[q].knobs.tune.csr_kernel == RVS_CSR_CUSPARSE &&
                 d->cand[q].status == RVS_CAND_RAN;
    for (int q = 0; d && q < d->npending; q++)
        floor |= d->cand[d->pending[q]].format == RVS_FMT_CSR &&
                 d->cand[d->pending[q]].knobs.tune.csr_kernel == RVS_CSR_CUSPARSE;
    CHECKF(d && !d->late && d->decide_ms > 0 && floor, "gpu op: the model's late decision with cuSPARSE in it");
    /* the floor is the first doubt tried, so that the tuning's share cannot run out before it */
    CHECKF(d && (d->cand[d->chosen].knobs.tune.csr_kernel == RVS_CSR_CUSPARSE ||
                 (d->npending > 0 && d->cand[d->pending[0]].knobs.tune.csr_kernel == RVS_CSR_CUSPARSE)),
           "gpu op: cuSPARSE first among the doubts (%d pending)", d ? d->npending : -1);
    apply_device_checked(op, &A, 50, 500, "gpu op, device vectors"); /* the same y */
    rvs_spmv_op_info(op, &s);
    CHECKF(s.device == RVS_DEV_GPU && s.calls == 450 && s.tune_ms >= 0, "gpu op: %lld calls", (long long)s.calls);
    /* a GPU op made from device arrays runs the same matrix */
    rvs_spmv_op *op2 = NULL;
    void *drp = NULL, *dci = NULL, *dva = NULL;
    CHECK_OK(rvs_gpu_malloc(&drp, (size_t)(A.rows + 1) * 8, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dci, (size_t)A.nnz * 4, &err), &err);
    CHECK_OK(rvs_gpu_malloc(&dva, (size_t)A.nnz * 8, &err), &err);
    CHECK_OK(rvs_gpu_memcpy_h2d(drp, A.rowptr, (size_t)(A.rows + 1) * 8, &err), &err);
    CHECK_OK(rvs_gpu_memcpy_h2d(dci, A.colind, (size_t)A.nnz * 4, &err), &err);
    CHECK_OK(rvs_gpu_memcpy_h2d(dva, A.values, (size_t)A.nnz * 8, &err), &err);
    CHECK_OK(rvs_spmv_op_create_device(&op2, A.rows, A.cols, A.nnz, drp, dci, dva, RVS_F64, &o, &err), &err);
    if (op2)
        apply_checked(op2, &A, RVS_F64, 3, "gpu op from device arrays");
    rvs_spmv_op_free(op2);
    rvs_gpu_free(drp);
    rvs_gpu_free(dci);
    rvs_gpu_free(dva);
    rvs_spmv_op_free(op);
    rvs_csr_free(&A);
}

/* On the GPU, device vectors first: the operator makes no host x, y or graph until a host call
 * asks, decides and tries its doubts meanwhile (checking them against y on the device), and a host
 * call after that runs the block it switched to. */
static void check_gpu_device_first(void)
{
    rvs_csr A = {0};
    rvs_spmv_op_options o;
    rvs_spmv_op_stats s;
    rvs_error err;
    const rvs_decision *d;
    CHECK_OK(rvs_test_random_csr(&A, 30000, 30000, 0.0004, 1, 24), &err);
    rvs_spmv_op *op = gpu_op(&A, &o, &d);
    if (!op)
        return;
    /* the decision comes within 50 calls, trials once the calls earn them */
    const int c = apply_device_checked(op, &A, 2000, 700, "gpu op, device vectors first");
    int ran = 0;
    for (int q = 0; d && q < d->ncand; q++)
        ran += d->cand[q].status == RVS_CAND_RAN && d->cand[q].ms >= 0;
    CHECKF(d && !d->late && ran >= 1, "gpu op, device vectors first: decided, %d candidates ran, in %d calls", ran,
           c);
    apply_checked(op, &A, RVS_F64, 5, "gpu op, a host call after device calls");
    rvs_spmv_op_info(op, &s);
    printf("gpu op, device vectors first: %d calls, %d ran, running %s (%s), %d switches\n", c, ran,
           rvs_format_lookup(s.format)->name, rvs_how_name(s.how), s.switches);
    rvs_spmv_op_free(op);
    rvs_csr_free(&A);
}

/* P for S in mode with tuning between calls, the trial cache left alone; late: nothing decided
 * before the first call (rvs_advisor_options.late). */
static rvs_status plan_tuned(rvs_plan *P, rvs_stream *S, rvs_run_mode mode, int late, rvs_error *err)
{
    rvs_plan_options po;
    rvs_engine_devices dev;
    rvs_engine_devices_probe(&dev, 0, mode != RVS_MODE_CPU);
    rvs_plan_options_default(&po);
    po.mode = mode;
    po.advisor.use_cache = 0;
    po.advisor.late = late;
    po.tune_between_calls = 1;
    po.fallback = 0;
    po.consume = 0;
    return rvs_plan_make(P, S, &dev, &po, err);
}

/* A switch mid-run: the item starts in CSR's scalar kernel on rows of very mixed lengths (a
 * thread a row: the long rows hold up their warps), the rule's CSR kernel pending; the runner must
 * take it within the calls' budget, and every call's y - before, at and after the switch - is
 * the fixed run's. */
static void check_forced_switch(rvs_run_mode mode)
{
    rvs_csr A = {0};
    rvs_stream S;
    rvs_plan P;
    rvs_spmv_engine *E = NULL;
    rvs_error err;
    static int64_t len[200000];
    const int64_t rows = mode == RVS_MODE_GPU ? 200000 : 60000;
    for (int64_t i = 0; i < rows; i++) /* GPU: a long row in 97; CPU: rows of 2 and 40 for ELL */
        len[i] = mode == RVS_MODE_GPU ? (i % 97 == 0 ? 3000 : 2) : (i % 2 ? 40 : 2);
    CHECK_OK(rvs_test_csr_from_lengths(&A, len, rows, rows), &err);
    memset(&S, 0, sizeof S);
    S.A = A;
    CHECK_OK(plan_tuned(&P, &S, mode, 0, &err), &err);
    rvs_plan_item *it = &P.items[0];
    CHECK(P.nitems == 1 && it->decision >= 0);
    if (P.nitems != 1 || it->decision < 0)
        goto out;
    rvs_decision *d = &P.decisions.d[it->decision];
    /* the slow start (GPU: CSR's scalar kernel; CPU: ELL, padded to 40 a row), and CSR with the
     * rule's kernel as the one doubt */
    rvs_knobs_default(&it->knobs);
    if (mode == RVS_MODE_GPU) {
        it->format = RVS_FMT_CSR;
        it->knobs.tune.csr_kernel = RVS_CSR_SCALAR;
        it->knobs.fo.csr_order = 1;
    } else {
        it->format = RVS_FMT_ELL;
    }
    d->npending = 0;
    for (int i = 0; i < d->ncand; i++)
        if (d->cand[i].format == RVS_FMT_CSR && d->cand[i].knobs.tune.csr_kernel == 0 &&
            d->cand[i].knobs.tune.threads_per_row == 0 && d->cand[i].knobs.fo.csr_order == 0)
            d->pending[d->npending++] = i;
    P.tune_between_calls = d->npending == 1;
    P.consume = 0;
    CHECK(d->npending == 1);
    CHECK_OK(rvs_spmv_engine_create(&E, &S, &P, &err), &err);
    if (!E)
        goto out;
    double *xd = malloc((size_t)A.cols * sizeof *xd);
    int switched_at = -1;
    for (int c = 0; c < 3000 && switched_at < 0; c++) {
        rvs_spmv_times t;
        rvs_fill_x(rvs_spmv_engine_x(E), xd, A.cols, RVS_F64, (uint64_t)c);
        CHECK_OK(rvs_spmv_engine_call(E, 1, &t, &err), &err);
        if (!checked(&A, xd, rvs_spmv_engine_y(E), RVS_F64, "forced switch"))
            break;
        int n;
        double ms;
        rvs_spmv_engine_tuning(E, &n, &ms);
        if (n > 0)
            switched_at = c;
    }
    CHECKF(switched_at >= 0 && it->how == RVS_HOW_TUNED && it->format == RVS_FMT_CSR &&
               it->knobs.tune.csr_kernel == RVS_CSR_AUTO,
           "%s: the faster block took over: switched at call %d, how %s", mode == RVS_MODE_GPU ? "gpu" : "cpu",
           switched_at, rvs_how_name(it->how));
    for (int c = 0; c < 20; c++) { /* after the switch: the graph captured again, the same y */
        rvs_spmv_times t;
        rvs_fill_x(rvs_spmv_engine_x(E), xd, A.cols, RVS_F64, 7000 + (uint64_t)c);
        CHECK_OK(rvs_spmv_engine_call(E, 1, &t, &err), &err);
        if (!checked(&A, xd, rvs_spmv_engine_y(E), RVS_F64, "after the switch"))
            break;
    }
    printf("%s: forced switch at call %d\n", mode == RVS_MODE_GPU ? "gpu" : "cpu", switched_at);
    free(xd);
out:
    rvs_spmv_engine_free(E);
    rvs_plan_free(&P);
    rvs_csr_free(&A);
}

/* A late decision: the plan starts in the rule's CSR having read nothing of the matrix; the
 * helper's decision arrives while the calls run, its choice and doubts queue up, and every
 * call's y is right, before and after. */
static void check_late(rvs_run_mode mode)
{
    rvs_csr A = {0};
    rvs_stream S;
    rvs_plan P;
    rvs_spmv_engine *E = NULL;
    rvs_error err;
    const char *name = mode == RVS_MODE_GPU ? "gpu late" : "cpu late";
    CHECK_OK(rvs_test_random_csr(&A, 20000, 20000, 0.0008, 1, 23), &err);
    memset(&S, 0, sizeof S);
    S.A = A;
    CHECK_OK(plan_tuned(&P, &S, mode, 1, &err), &err);
    const rvs_plan_item *it = &P.items[0];
    const rvs_decision *d = P.nitems == 1 && it->decision >= 0 ? &P.decisions.d[it->decision] : NULL;
    CHECKF(d && d->late && it->how == RVS_HOW_DEFAULT && it->format == RVS_FMT_CSR &&
               it->knobs.tune.csr_kernel == RVS_CSR_AUTO && d->npending == 0,
           "%s: planned in the rule's CSR, nothing decided", name);
    if (!d)
        goto out;
    CHECK_OK(rvs_spmv_engine_create(&E, &S, &P, &err), &err);
    if (!E)
        goto out;
    double *xd = malloc((size_t)A.cols * sizeof *xd);
    int c = 0;
    for (; c < 4000 && (d->late || c < 50); c++) {
        rvs_spmv_times t;
        rvs_fill_x(rvs_spmv_engine_x(E), xd, A.cols, RVS_F64, 900 + (uint64_t)c);
        rvs_fill_nan(rvs_spmv_engine_y(E), A.rows, RVS_F64);
        CHECK_OK(rvs_spmv_engine_call(E, 1, &t, &err), &err);
        if (!checked(&A, xd, rvs_spmv_engine_y(E), RVS_F64, name))
            break;
    }
    int ranked = 0;
    for (int i = 0; i < d->ncand; i++)
        ranked += d->cand[i].pred_ms > 0;
    /* only the GPU has a fitted model: the CPU's candidates are listed, not ranked */
    CHECKF(!d->late && d->decide_ms > 0 && (ranked > 1 || !d->fit[0]) && d->cand[d->chosen].format == it->format &&
               (it->how == RVS_HOW_DEFAULT || it->how == RVS_HOW_TUNED),
           "%s: the model's decision arrived by call %d: %d candidates ranked, how %s", name, c, ranked,
           rvs_how_name(it->how));
    printf("%s: decided after %d calls (%.2f ms on the helper), %d doubts, running %s (%s)\n", name, c,
           d->decide_ms, d->npending, rvs_format_lookup(it->format)->name, rvs_how_name(it->how));
    free(xd);
out:
    rvs_spmv_engine_free(E);
    rvs_plan_free(&P);
    rvs_csr_free(&A);
}

/* test_spmv_op cpu | gpu (77 without a GPU) */
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
        if (rvs_gpu_count() == 0) {
            printf("skipped: no usable GPU\n");
            return RVS_TEST_SKIP;
        }
        check_gpu_op();
        check_gpu_device_first();
        check_forced_switch(RVS_MODE_GPU);
        check_late(RVS_MODE_GPU);
    } else {
        check_cpu_op();
        check_forced_switch(RVS_MODE_CPU);
        check_late(RVS_MODE_CPU);
    }
    return rvs_test_done();
}
