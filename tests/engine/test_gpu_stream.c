/* test_gpu_stream.c - GPU items larger than the device budget (spmv --gpu-mem): streamed in
 * chunks through two device slots, alone and beside resident items, in every partition
 * algorithm, fixed formats and both value types, --gpu and --hybrid, with and without giving
 * the hub back; y poisoned before each of two calls and checked against a double-precision
 * reference made before the hub went. Skipped (77) without a usable GPU. */
#include <unistd.h>
#include "engine_cases.h"

/* Bytes of the blocks P puts on the GPU, by the plan's model. */
static double gpu_bytes(const rvs_plan *P)
{
    double b = 0;
    for (int i = 0; i < P->nitems; i++)
        b += P->items[i].device == RVS_DEV_GPU ? P->items[i].dev_bytes : 0;
    return b;
}

/* A on alg's k parts in format f and type vt, mode: planned first without a budget, then with
 * one that holds x, y and a fraction of the blocks; that plan must stream (or move) and still
 * give the right y. */
static void case_budget(const rvs_csr *A, const char *name, rvs_alg alg, int k, rvs_format_id f, rvs_vtype vt,
                        rvs_run_mode mode, double fraction, int consume, const rvs_engine_devices *dev)
{
    static const double cp[4] = {3, 1, 1, 2};
    static const rvs_device devs[4] = {RVS_DEV_GPU, RVS_DEV_CPU, RVS_DEV_GPU, RVS_DEV_GPU};
    rvs_stream S;
    rvs_plan P;
    rvs_error err;
    char what[192];
    rvs_plan_options o;
    rvs_plan_options_default(&o);
    o.mode = mode;
    o.vtype = vt;
    o.fallback = f;
    o.fuse = alg != RVS_ALG_NNZ;
    o.consume = consume;
    snprintf(what, sizeof what, "%s %s/%d %s %s %s budget %.2f%s", name, rvs_alg_name(alg), k,
             rvs_format_lookup(f)->name, vt == RVS_F64 ? "f64" : "f32", mode == RVS_MODE_GPU ? "gpu" : "hybrid",
             fraction, consume ? " consume" : "");
    if (case_stream(&S, A, alg, k, k ? cp : NULL, k && mode == RVS_MODE_HYBRID ? devs : NULL, &err) != RVS_OK) {
        CHECKF(0, "%s: stream: %s", what, err.msg);
        return;
    }
    if (rvs_plan_make(&P, &S, dev, &o, &err) != RVS_OK) { /* the format refused the matrix */
        rvs_stream_free(&S);
        cases_refused++;
        return;
    }
    const double need = gpu_bytes(&P);
    rvs_plan_free(&P);
    o.gpu_mem_bytes = (size_t)(A->rows + A->cols) * rvs_vtype_size(vt) + (size_t)(fraction * need) + 4096;
    rvs_plan Q;
    const int calls = case_run_ref(&S, &o, dev, what, &Q);
    CHECKF(calls == 2, "%s: %d calls checked", what, calls);
    if (calls == 2) {
        cases_ran++;
        CHECKF(need == 0 || Q.nstreamed + Q.nmoved > 0, "%s: nothing streamed or moved (%g bytes in %zu)", what,
               need, o.gpu_mem_bytes);
        for (int i = 0; i < Q.nitems; i++)
            CHECKF(!Q.items[i].streamed || (Q.items[i].device == RVS_DEV_GPU && Q.items[i].nchunks >= 1),
                   "%s: item %d streamed on device %d in %lld chunks", what, i + 1, (int)Q.items[i].device,
                   (long long)Q.items[i].nchunks);
    }
    rvs_plan_free(&Q);
    rvs_stream_free(&S);
}

/* Every algorithm, formats, types and modes on A at two budgets. */
static void case_all(const rvs_csr *A, const char *name, const rvs_engine_devices *dev)
{
    static const rvs_format_id fmts[5] = {RVS_FMT_CSR, RVS_FMT_ELLR, RVS_FMT_PELLR, RVS_FMT_HYB, RVS_FMT_COO};
    static const rvs_alg algs[4] = {RVS_ALG_ROWS, RVS_ALG_NNZ, RVS_ALG_PMF, RVS_ALG_DIAG};
    for (int a = 0; a < 4; a++)
        for (int f = 0; f < 5; f++)
            for (int v = 0; v < 2; v++) {
                const rvs_vtype vt = v ? RVS_F32 : RVS_F64;
                case_budget(A, name, algs[a], a == 3 ? 3 : 4, fmts[f], vt, RVS_MODE_GPU, 0.3, (f + v) % 2, dev);
                case_budget(A, name, algs[a], a == 3 ? 3 : 4, fmts[f], vt, f % 2 ? RVS_MODE_HYBRID : RVS_MODE_GPU,
                            0.05, f % 2 == 0, dev);
            }
    /* the whole matrix, no partition: one item in many chunks */
    for (int f = 0; f < 5; f++)
        case_budget(A, name, RVS_ALG_ROWS, 0, fmts[f], f % 2 ? RVS_F32 : RVS_F64, RVS_MODE_GPU, 0.1, f % 2, dev);
}

int main(void)
{
    static const int64_t one_long[5] = {1, 70000, 0, 3, 40};
    rvs_csr A = {0};
    rvs_error err;
    rvs_engine_devices dev;
    char dir[512];
    if (rvs_gpu_count() == 0) {
        printf("no usable GPU: skipped\n");
        return RVS_TEST_SKIP;
    }
    snprintf(dir, sizeof dir, "%s/gpu-stream-cache.%ld", getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp",
             (long)getpid());
    setenv("XDG_CACHE_HOME", dir, 1);
    rvs_engine_devices_probe(&dev, 0, 1);
    CHECK_OK(rvs_test_random_csr(&A, 30000, 28000, 0.0006, 1, 17), &err);
    case_all(&A, "random 30000x28000", &dev);
    rvs_csr_free(&A);
    CHECK(rvs_test_csr_from_lengths(&A, one_long, 5, 80000) == RVS_OK);
    case_budget(&A, "one long row", RVS_ALG_ROWS, 0, RVS_FMT_CSR, RVS_F64, RVS_MODE_GPU, 0.1, 1, &dev);
    case_budget(&A, "one long row", RVS_ALG_PMF, 4, RVS_FMT_ELLR, RVS_F32, RVS_MODE_GPU, 0.1, 0, &dev);
    rvs_csr_free(&A);
    printf("%d budgeted plans ran and checked on the GPU, %d refused by a fixed format\n", cases_ran,
           cases_refused);
    return rvs_test_done();
}
