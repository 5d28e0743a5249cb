/* test_plan_memory.c - the planner's memory pass on the CPU (runs in CI, no GPU needed: the
 * device is described, never touched): GPU plans for a forced device budget - what stays on
 * the device, what is streamed in how many chunks, what the model moves to the CPU, phases of
 * Algorithm 4 after a move - and the byte model's device bytes; row blocks of large items; plans
 * moved wholly to the CPU, and row-block plans that give the hub back as they build, run and
 * checked against a reference made before the hub went. */
#include "engine_cases.h"

/* A described GPU: the planner never calls it for fixed formats. */
static const rvs_engine_devices fake_gpu = {2, 1, "test GPU (described only)", 0};

/* GPU plan options: fixed format f, value type vt, budget bytes. */
static rvs_plan_options gpu_options(rvs_format_id f, rvs_vtype vt, size_t budget)
{
    rvs_plan_options o;
    rvs_plan_options_default(&o);
    o.mode = RVS_MODE_GPU;
    o.vtype = vt;
    o.fallback = f;
    o.gpu_mem_bytes = budget;
    return o;
}

/* Bytes of x and y in vt. */
static size_t xy_bytes(const rvs_csr *A, rvs_vtype vt)
{
    return (size_t)(A->rows + A->cols) * rvs_vtype_size(vt);
}

/* One matrix, one part: a budget that holds everything keeps it resident; a small one streams it
 * in chunks that cover its entries; CSR's device bytes are exact. */
static void check_budget_whole(void)
{
    rvs_csr A = {0};
    rvs_stream S;
    rvs_plan P;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 20000, 20000, 0.0005, 1, 3), &err);
    CHECK_OK(case_stream(&S, &A, RVS_ALG_ROWS, 0, NULL, NULL, &err), &err);
    const double csr = 8.0 * (double)(A.rows + 1) + 12.0 * (double)A.nnz;
    rvs_plan_options o = gpu_options(RVS_FMT_CSR, RVS_F64, xy_bytes(&A, RVS_F64) + (size_t)csr + 4096);
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &o, &err), &err);
    CHECKF(P.nitems == 1 && P.items[0].device == RVS_DEV_GPU && !P.items[0].streamed && P.nstreamed == 0,
           "a budget that holds x, y and the block: %d items, streamed %d", P.nitems, P.items[0].streamed);
    CHECKF(P.items[0].dev_bytes == csr, "CSR device bytes %g, want %g", P.items[0].dev_bytes, csr);
    CHECK(P.gpu_budget == o.gpu_mem_bytes && P.note[0] == 0);
    rvs_plan_free(&P);
    o.gpu_mem_bytes = xy_bytes(&A, RVS_F64) + (size_t)(csr / 4);
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &o, &err), &err);
    const rvs_plan_item *it = &P.items[0];
    CHECKF(P.nitems == 1 && it->device == RVS_DEV_GPU && it->streamed && P.nstreamed == 1,
           "a quarter of the block's bytes: streamed %d on device %d", it->streamed, (int)it->device);
    /* two slots of a sixteenth of the block each: chunks of at most that many bytes */
    CHECKF(it->chunk_nnz > 0 && it->chunk_nnz * 12 <= (int64_t)(csr / 16) && it->nchunks >= 16 &&
               it->nchunks * it->chunk_nnz >= A.nnz,
           "chunks: %lld of %lld entries for %lld", (long long)it->nchunks, (long long)it->chunk_nnz,
           (long long)A.nnz);
    CHECKF(strstr(P.note, "1 item streamed, 0 moved") != NULL, "note: %s", P.note);
    rvs_plan_free(&P);
    /* x and y alone fill it: nothing can be streamed, the part runs on the CPU */
    o.gpu_mem_bytes = xy_bytes(&A, RVS_F64);
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &o, &err), &err);
    CHECKF(P.nitems == 1 && P.items[0].device == RVS_DEV_CPU && P.nmoved == 1 && strstr(P.note, "no room"),
           "x and y alone: device %d, note %s", (int)P.items[0].device, P.note);
    rvs_plan_free(&P);
    rvs_stream_free(&S);
    rvs_csr_free(&A);
}

/* The model: with the calibration's rates an item that does not fit goes where it runs sooner. */
static void check_model(void)
{
    rvs_csr A = {0};
    rvs_stream S;
    rvs_plan P;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 10000, 10000, 0.001, 0, 4), &err);
    CHECK_OK(case_stream(&S, &A, RVS_ALG_ROWS, 0, NULL, NULL, &err), &err);
    rvs_plan_options o = gpu_options(RVS_FMT_ELLR, RVS_F32, xy_bytes(&A, RVS_F32) + 64 * 1024 * 4);
    o.h2d_gbs = 25; /* bytes / 25 GB/s against 2 nnz / rate: the CPU is 1000x faster here */
    o.cpu_gflops = 1e6;
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &o, &err), &err);
    CHECKF(P.items[0].device == RVS_DEV_CPU && P.nmoved == 1 && strstr(P.note, "calibrated"),
           "fast CPU: device %d, note %s", (int)P.items[0].device, P.note);
    rvs_plan_free(&P);
    o.cpu_gflops = 1e-3; /* and 1000x slower */
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &o, &err), &err);
    CHECKF(P.items[0].device == RVS_DEV_GPU && P.items[0].streamed && P.nmoved == 0,
           "slow CPU: device %d streamed %d", (int)P.items[0].device, P.items[0].streamed);
    CHECKF(P.items[0].dev_bytes > 4.0 * (double)A.nnz, "ELLR f32 device bytes %g", P.items[0].dev_bytes);
    rvs_plan_free(&P);
    rvs_stream_free(&S);
    rvs_csr_free(&A);
}

/* Parts: the largest ones stay while they fit, the rest are streamed; every GPU byte is
 * accounted; Algorithm 4 after a move: the off-diagonal GPU parts store instead of adding. */
static void check_parts(void)
{
    static const double cp[4] = {1, 1, 1, 5};
    static const rvs_device dev[4] = {RVS_DEV_GPU, RVS_DEV_GPU, RVS_DEV_GPU, RVS_DEV_GPU};
    rvs_csr A = {0};
    rvs_stream S;
    rvs_plan P;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 16000, 16000, 0.001, 1, 6), &err);
    CHECK_OK(case_stream(&S, &A, RVS_ALG_ROWS, 4, cp, dev, &err), &err);
    rvs_plan_options o = gpu_options(RVS_FMT_CSR, RVS_F64, 0);
    o.fuse = 0;
    double total = 0, largest = 0;
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &o, &err), &err);
    for (int i = 0; i < P.nitems; i++) {
        total += P.items[i].dev_bytes;
        largest = P.items[i].dev_bytes > largest ? P.items[i].dev_bytes : largest;
    }
    CHECKF(P.nitems == 4 && P.nstreamed == 0 && P.gpu_budget == SIZE_MAX, "no budget: %d items, %d streamed",
           P.nitems, P.nstreamed);
    rvs_plan_free(&P);
    /* room for everything but the largest part (and two slots): the largest is streamed, what
     * stays resident fits the budget beside x and y */
    o.gpu_mem_bytes = xy_bytes(&A, RVS_F64) + (size_t)(total - largest) + (size_t)(largest / 4);
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &o, &err), &err);
    int streamed = 0, largest_streamed = 0;
    double resident = 0;
    for (int i = 0; i < P.nitems; i++) {
        CHECK(P.items[i].device == RVS_DEV_GPU);
        streamed += P.items[i].streamed;
        largest_streamed |= P.items[i].streamed && P.items[i].dev_bytes == largest;
        resident += P.items[i].streamed ? 0 : P.items[i].dev_bytes;
        if (P.items[i].streamed)
            CHECKF(P.items[i].nchunks >= 1 && P.items[i].nchunks * P.items[i].chunk_nnz >= P.items[i].nnz,
                   "part %d: %lld chunks of %lld entries for %lld", P.items[i].parts[0] + 1,
                   (long long)P.items[i].nchunks, (long long)P.items[i].chunk_nnz, (long long)P.items[i].nnz);
    }
    CHECKF(largest_streamed && streamed < 4 && P.nstreamed == streamed, "%d of 4 parts streamed, largest %d",
           streamed, largest_streamed);
    CHECKF(resident > 0 && resident + (double)xy_bytes(&A, RVS_F64) <= (double)o.gpu_mem_bytes,
           "resident %g bytes beside x and y in a budget of %zu", resident, o.gpu_mem_bytes);
    rvs_plan_free(&P);
    rvs_stream_free(&S);
    /* Algorithm 4: part 1 (the diagonal blocks of every row) is the largest; with no room it
     * moves to the CPU and the GPU's off-diagonal parts then store their rows */
    static const double cpd[3] = {9, 1, 1};
    CHECK_OK(case_stream(&S, &A, RVS_ALG_DIAG, 3, cpd, dev, &err), &err);
    rvs_plan_options d = gpu_options(RVS_FMT_CSR, RVS_F64, xy_bytes(&A, RVS_F64) + 64 * 1024 * 4 + 200);
    d.fuse = 0;
    d.h2d_gbs = 1e-6; /* streaming is hopeless: whatever does not fit goes to the CPU */
    d.cpu_gflops = 1;
    CHECK_OK(rvs_plan_make(&P, &S, &fake_gpu, &d, &err), &err);
    for (int i = 0; i < P.nitems; i++)
        CHECKF(i == 0 ? P.items[i].phase == 0 : P.items[i].phase == (P.items[i].device == P.items[0].device),
               "diag item %d: device %d phase %d, part 1 on device %d", i + 1, (int)P.items[i].device,
               P.items[i].phase, (int)P.items[0].device);
    CHECK(P.nmoved >= 1);
    /* planned on the CPU: it runs here, checked */
    int all_cpu = 1;
    for (int i = 0; i < P.nitems; i++)
        all_cpu &= P.items[i].device == RVS_DEV_CPU;
    rvs_plan_free(&P);
    if (all_cpu)
        CHECK(case_run_ref(&S, &d, &fake_gpu, "diag moved to the CPU", NULL) == 2);
    rvs_stream_free(&S);
    rvs_csr_free(&A);
}

/* Row blocks: a large built item becomes blocks of runs of rows that cover it; with consume the
 * runner gives the hub's entries back as it builds them, and y is still right (checked against
 * a reference made first); the plan says so; borrowed CSR and stream blocks stay whole. */
static void check_row_blocks(void)
{
    static const double cp[3] = {1, 2, 1};
    static const rvs_format_id fmts[5] = {RVS_FMT_ELLR, RVS_FMT_HYB, RVS_FMT_PELLR, RVS_FMT_HYBDIA, RVS_FMT_CSR};
    rvs_csr A = {0};
    rvs_stream S;
    rvs_plan P;
    rvs_error err;
    rvs_engine_devices cpu;
    char what[128];
    rvs_engine_devices_probe(&cpu, 0, 0);
    CHECK_OK(rvs_test_random_csr(&A, 30000, 25000, 0.0008, 1, 9), &err);
    for (int alg = 0; alg < 3; alg++)
        for (int f = 0; f < 5; f++)
            for (int vt = 0; vt < 2; vt++) {
                const rvs_alg a = alg == 0 ? RVS_ALG_ROWS : alg == 1 ? RVS_ALG_NNZ : RVS_ALG_PMF;
                CHECK_OK(case_stream(&S, &A, a, alg == 2 && f == 4 ? 0 : 3, cp, NULL, &err), &err);
                rvs_plan_options o;
                rvs_plan_options_default(&o);
                o.mode = RVS_MODE_CPU;
                o.fallback = fmts[f];
                o.vtype = vt ? RVS_F32 : RVS_F64;
                o.consume = 1;
                o.row_block_nnz = 20000;
                o.fuse = f % 2;
                snprintf(what, sizeof what, "row blocks %s %s %s%s", rvs_alg_name(a),
                         rvs_format_lookup(fmts[f])->name, vt ? "f32" : "f64", o.fuse ? " fused" : "");
                CHECKF(case_run_ref(&S, &o, &cpu, what, &P) == 2, "%s: did not run", what);
                int64_t rows = 0, nnz = 0;
                int split = 0;
                for (int i = 0; i < P.nitems; i++) {
                    const rvs_plan_item *it = &P.items[i];
                    rows += it->rows;
                    nnz += it->nnz;
                    split += it->row_hi > it->row_lo;
                    if (it->row_hi > it->row_lo)
                        CHECKF(it->nnz <= 20000 || it->rows == 1, "%s: block of %lld entries", what,
                               (long long)it->nnz);
                }
                CHECKF(rows == A.rows && nnz == A.nnz, "%s: items cover %lld rows, %lld entries", what,
                       (long long)rows, (long long)nnz);
                /* pmf parts are scattered rows (pmf with CSR: no partition, the whole matrix is a
                 * run) and borrowed CSR needs no build: neither is split */
                const int want = (a != RVS_ALG_PMF || fmts[f] == RVS_FMT_CSR) && !(fmts[f] == RVS_FMT_CSR && !vt);
                CHECKF(want ? split == P.nsplit && split > 3 : split == 0, "%s: %d row blocks", what, split);
                rvs_plan_free(&P);
                rvs_stream_free(&S);
            }
    rvs_csr_free(&A);
}

/* The parts text of a row block, as --plan prints it. */
static void check_parts_text(void)
{
    int parts[2] = {0, 2};
    char buf[64];
    rvs_plan_item it;
    memset(&it, 0, sizeof it);
    it.nparts = 2;
    it.parts = parts;
    rvs_plan_item_parts(&it, buf, sizeof buf);
    CHECKF(strcmp(buf, "1,3") == 0, "parts '%s'", buf);
    it.row_lo = 99;
    it.row_hi = 200;
    rvs_plan_item_parts(&it, buf, sizeof buf);
    CHECKF(strcmp(buf, "1,3:100-200") == 0, "row block '%s'", buf);
}

int main(void)
{
    check_parts_text();
    check_budget_whole();
    check_model();
    check_parts();
    check_row_blocks();
    return rvs_test_done();
}
