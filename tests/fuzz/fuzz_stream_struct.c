/* fuzz_stream_struct.c - libFuzzer target over streams whose fields are mutated behind valid
 * CRCs (stream_mutator.c): what the reader accepts is checked as fuzz_stream and fuzz_spmv check
 * it, its auto and plac chunks are read as spmv, convert and rvsinfo read them, and the engine
 * runs it as spmv --cpu does, against the matrix its blocks hold */
#include "fuzz_checks.h"
#include "rvs_engine.h"

/* The auto chunk reads as the planner reads it; what it returns holds to its ranges. */
static void check_decisions(const rvs_stream *S)
{
    rvs_decisions D;
    rvs_error err;
    int current = 0;
    const int k = S->has_partition ? S->partition.k : 0;
    rvs_status st = rvs_decisions_read(&D, S, &current, &err);
    fuzz_check_error(st, &err);
    for (int r = 0; st == RVS_OK && r < D.n; r++) {
        const rvs_decision *d = &D.d[r];
        if (d->ncand < 1 || d->ncand > RVS_MAX_CAND || d->chosen < 0 || d->chosen >= d->ncand)
            FUZZ_FINDING("auto: record %d has %d candidates, chosen %d", r + 1, d->ncand, d->chosen);
        if (current && (d->part < -1 || d->part >= k))
            FUZZ_FINDING("auto: a current record for part %d of a %d-part partition", d->part, k);
    }
    if (st == RVS_OK)
        rvs_decisions_free(&D);
}

/* The plac chunk reads as spmv-mpi and rvsinfo read it: processors in -1..65535. */
static void check_placement(const rvs_stream *S)
{
    const int k = S->has_partition ? S->partition.k : 0;
    int32_t *number = malloc(((size_t)k + 1) * sizeof *number);
    rvs_error err;
    if (!number)
        return;
    rvs_status st = rvs_placement_get(S, number, &err);
    fuzz_check_error(st, &err);
    for (int i = 0; st == RVS_OK && i < k; i++)
        if (number[i] < -1 || number[i] >= RVS_PLACE_MAX)
            FUZZ_FINDING("plac: part %d bound to processor %d", i + 1, (int)number[i]);
    free(number);
}

/* spmv --cpu (fuse 0: --no-fuse): the plan (blocks, then the auto chunk's choices, then CSR), the
 * runner, one call into a poisoned y, checked against M when M is not NULL. */
static void check_engine(const rvs_stream *S, int fuse, const rvs_csr *M)
{
    rvs_engine_devices dev;
    rvs_plan_options o;
    rvs_plan P;
    rvs_spmv_engine *E = NULL;
    rvs_error err;
    rvs_engine_devices_probe(&dev, 1, 0);
    rvs_plan_options_default(&o);
    o.mode = RVS_MODE_CPU;
    o.vtype = S->A.vtype;
    o.fuse = fuse;
    o.fallback = RVS_FMT_CSR; /* no trials: their timing would make runs differ */
    o.allow_whole = 0;
    o.advisor.use_cache = 0;
    rvs_status st = rvs_plan_make(&P, S, &dev, &o, &err);
    fuzz_check_error(st, &err);
    if (st != RVS_OK)
        return;
    st = rvs_spmv_engine_create(&E, S, &P, &err);
    fuzz_check_error(st, &err);
    double *xd = malloc((size_t)S->A.cols * 2 * sizeof *xd + 1);
    if (st == RVS_OK && xd) {
        rvs_spmv_times t;
        fuzz_fill_x(rvs_spmv_engine_x(E), xd, S->A.cols, P.vtype);
        st = rvs_spmv_engine_call(E, 1, &t, &err);
        fuzz_check_error(st, &err);
        if (st == RVS_OK && M)
            fuzz_check_y(fuse ? "engine" : "engine, parts apart", M, xd, rvs_spmv_engine_y(E), P.vtype);
    }
    free(xd);
    rvs_spmv_engine_free(E);
    rvs_plan_free(&P);
}

/* The engine on S, parts fused and apart. Its y is checked where the stream's blocks hold the
 * hub's matrix: it runs a block as it is only where the block's format and value type are the
 * item's, and builds the rest from the hub. */
static void check_engines(const rvs_stream *S)
{
    rvs_csr M = {0};
    rvs_error err;
    if (!fuzz_vectors_fit(S->A.rows, S->A.cols))
        return;
    rvs_status st = rvs_blocks_matrix(&M, S, S->A.vtype, &err);
    fuzz_check_error(st, &err);
    const int same = st == RVS_OK && fuzz_same_csr(&M, &S->A);
    check_engine(S, 0, same ? &S->A : NULL);
    check_engine(S, 1, same ? &S->A : NULL);
    rvs_csr_free(&M);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rvs_stream S;
    if (!fuzz_read_valid(&S, data, size))
        return 0;
    fuzz_check_rewrite(&S);
    fuzz_check_chunks_kept(data, size, &S);
    fuzz_check_mm_round_trip(&S);
    fuzz_check_spmv(&S);
    check_decisions(&S);
    check_placement(&S);
    check_engines(&S);
    rvs_stream_free(&S);
    return 0;
}
