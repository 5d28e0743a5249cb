/* engine_cases.h - what the engine tests share: run a plan on a stream (y poisoned with NaN,
 * checked against CSparse), and partition a matrix into a stream. Header-only: included by
 * test_engine.c and test_plan_memory.c (CPU), test_gpu_engine.c and test_gpu_stream.c (GPU). */
#ifndef RVS_ENGINE_CASES_H
#define RVS_ENGINE_CASES_H

#include <string.h>
#include "rvs_engine.h"
#include "rvs_test.h"

static int cases_ran, cases_refused;

/* S = A (copied) with a partition by alg over cp/dev (k parts), or none when k == 0. */
static rvs_status case_stream(rvs_stream *S, const rvs_csr *A, rvs_alg alg, int k, const double *cp,
                              const rvs_device *dev, rvs_error *err)
{
    memset(S, 0, sizeof *S);
    rvs_status st = rvs_csr_copy(&S->A, A, err);
    if (st == RVS_OK && k > 0 &&
        (st = rvs_partition_compute(&S->partition, &S->A, alg, k, cp, dev, 0, err)) == RVS_OK)
        S->has_partition = 1;
    return st;
}

/* y (n values of vt) as double. */
static void rvs_y_to_double_test(double *yd, const void *y, int64_t n, rvs_vtype vt)
{
    for (int64_t i = 0; i < n; i++)
        yd[i] = vt == RVS_F64 ? ((const double *)y)[i] : (double)((const float *)y)[i];
}

/* 1 when every item of P that came from the advisor took a candidate that ran and verified. */
static int case_choices_verified(const rvs_plan *P)
{
    for (int i = 0; i < P->decisions.n; i++) {
        const rvs_decision *d = &P->decisions.d[i];
        if (d->chosen < 0 || d->cand[d->chosen].status != RVS_CAND_RAN || !(d->cand[d->chosen].ms >= 0))
            return 0;
    }
    return 1;
}

/* Plan S with o, run it once into a poisoned y and check y; *P keeps the plan when keep. */
static void case_run(const rvs_stream *S, const rvs_plan_options *o, const char *what, rvs_plan *keep)
{
    rvs_engine_devices dev;
    rvs_plan P;
    rvs_spmv_engine *E = NULL;
    rvs_spmv_times t;
    rvs_error err;
    rvs_engine_devices_probe(&dev, 0, o->mode != RVS_MODE_CPU);
    rvs_status st = rvs_plan_make(&P, S, &dev, o, &err);
    if (st == RVS_OK)
        st = rvs_spmv_engine_create(&E, S, &P, &err);
    if (st == RVS_ERR_UNSUPPORTED || st == RVS_ERR_OVERFLOW) { /* a fixed format refused the part */
        cases_refused++;
        rvs_plan_free(&P);
        return;
    }
    CHECKF(st == RVS_OK, "%s: %s", what, err.msg);
    if (st != RVS_OK)
        return;
    CHECKF(case_choices_verified(&P), "%s: a chosen format did not run and verify", what);
    const int64_t cols = S->A.cols, rows = S->A.rows, parts = rvs_vtype_is_complex(P.vtype) ? 2 : 1;
    const int single = rvs_vtype_real(P.vtype) == RVS_F32;
    double *xd = malloc((size_t)(cols * parts) * sizeof *xd + 8),
           *yd = malloc((size_t)(rows * parts) * sizeof *yd + 8), max_err;
    int64_t row;
    CHECK(xd && yd);
    rvs_fill_x(rvs_spmv_engine_x(E), xd, cols, P.vtype, 99);
    for (int rep = 0; rep < 2 && xd && yd; rep++) { /* twice: the graph replays */
        st = rvs_spmv_engine_call(E, 1, &t, &err);
        CHECKF(st == RVS_OK, "%s: call: %s", what, err.msg);
        if (st != RVS_OK)
            break;
        const void *y = rvs_spmv_engine_y(E);
        for (int64_t i = 0; i < rows * parts; i++) /* complex: (re, im) pairs */
            yd[i] = single ? (double)((const float *)y)[i] : ((const double *)y)[i];
        st = rvs_spmv_check(&S->A, xd, yd, single ? 1e-4 : 1e-10, &max_err, &row, &err);
        CHECKF(st == RVS_OK, "%s: %s", what, err.msg);
        CHECKF(t.call_ms >= 0 && t.cpu_ms >= 0, "%s: times %g %g", what, t.call_ms, t.cpu_ms);
    }
    cases_ran++;
    rvs_spmv_engine_free(E);
    free(xd);
    free(yd);
    if (keep)
        *keep = P;
    else
        rvs_plan_free(&P);
}

/* Plan S with o on dev and run it the way spmv does: x and y's reference (rvs_spmv_reference)
 * made from the hub before the runner is built - with o->consume it gives the hub's pages back,
 * and S is spent after - then two calls into a poisoned y, each checked against the reference.
 * Returns the number of calls checked (0 when planning or building failed: reported). *keep
 * gets the plan when not NULL. */
static inline int case_run_ref(rvs_stream *S, const rvs_plan_options *o, const rvs_engine_devices *dev,
                               const char *what, rvs_plan *keep)
{
    rvs_plan P;
    rvs_spmv_engine *E = NULL;
    rvs_spmv_times t;
    rvs_error err;
    const int64_t rows = S->A.rows, cols = S->A.cols;
    int calls = 0;
    rvs_status st = rvs_plan_make(&P, S, dev, o, &err);
    CHECKF(st == RVS_OK, "%s: plan: %s", what, err.msg);
    if (st != RVS_OK)
        return 0;
    const size_t vs = rvs_vtype_size(P.vtype);
    double *xd = malloc((size_t)cols * 8 + 8), *ref = malloc((size_t)rows * 8 + 8),
           *scale = malloc((size_t)rows * 8 + 8);
    double *yd = malloc((size_t)rows * 8 + 8), max_err;
    void *x = malloc((size_t)cols * vs + 8);
    int64_t row;
    CHECK(xd && ref && scale && yd && x);
    rvs_fill_x(x, xd, cols, P.vtype, 77);
    rvs_spmv_reference(&S->A, xd, ref, scale);
    st = rvs_spmv_engine_create(&E, S, &P, &err);
    CHECKF(st == RVS_OK, "%s: runner: %s", what, err.msg);
    if (st == RVS_OK)
        memcpy(rvs_spmv_engine_x(E), x, (size_t)cols * vs);
    for (int rep = 0; rep < 2 && st == RVS_OK; rep++) {
        st = rvs_spmv_engine_call(E, 1, &t, &err);
        CHECKF(st == RVS_OK, "%s: call %d: %s", what, rep + 1, err.msg);
        if (st != RVS_OK)
            break;
        rvs_y_to_double_test(yd, rvs_spmv_engine_y(E), rows, P.vtype);
        st = rvs_spmv_check_ref(ref, scale, yd, rows, P.vtype, P.vtype == RVS_F64 ? 1e-10 : 1e-4, &max_err, &row,
                                &err);
        CHECKF(st == RVS_OK, "%s: call %d: y is wrong: %s", what, rep + 1, err.msg);
        calls += st == RVS_OK;
    }
    rvs_spmv_engine_free(E);
    free(xd);
    free(ref);
    free(scale);
    free(yd);
    free(x);
    if (keep)
        *keep = P;
    else
        rvs_plan_free(&P);
    return calls;
}

/* Every algorithm x (auto and fixed formats) x mode, on A. */
static inline void case_matrix(const rvs_csr *A, const char *name, const rvs_run_mode *modes, int nmodes,
                               const rvs_format_id *fixed, int nfixed)
{
    static const rvs_alg algs[4] = {RVS_ALG_ROWS, RVS_ALG_NNZ, RVS_ALG_PMF, RVS_ALG_DIAG};
    static const double cp[4] = {3, 1, 2, 1};
    static const rvs_device dev[4] = {RVS_DEV_GPU, RVS_DEV_CPU, RVS_DEV_GPU, RVS_DEV_CPU};
    char what[256];
    rvs_error err;
    for (int a = 0; a < 4; a++) {
        rvs_stream S;
        CHECK_OK(case_stream(&S, A, algs[a], 4, cp, dev, &err), &err);
        for (int m = 0; m < nmodes; m++)
            for (int f = -1; f < nfixed; f++)
                for (int fuse = 0; fuse < 2; fuse++) {
                    rvs_plan_options o;
                    rvs_plan_options_default(&o);
                    o.mode = modes[m];
                    o.vtype = rvs_vtype_with_precision(A->vtype, (a + f + fuse) % 3 == 0 ? RVS_F32 : RVS_F64);
                    o.fallback = f < 0 ? (rvs_format_id)0 : fixed[f];
                    o.fuse = fuse;
                    o.advisor.iters = 2;
                    snprintf(what, sizeof what, "%s %s mode %d %s%s %s", name, rvs_alg_name(algs[a]), (int)o.mode,
                             f < 0 ? "auto" : rvs_format_lookup(fixed[f])->name, fuse ? " fused" : "",
                             rvs_vtype_name(o.vtype));
                    case_run(&S, &o, what, NULL);
                }
        rvs_stream_free(&S);
    }
}

#endif
