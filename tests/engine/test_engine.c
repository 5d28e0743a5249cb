/* test_engine.c - the execution layer on the CPU (runs in CI): every partition algorithm x auto
 * and fixed formats through plans and the runner with y poisoned and checked against CSparse;
 * the advisor's choice ran and verified; the 'auto' chunk round trip, staleness and refusals; a
 * stream with a recorded decision gives the same plan again; the trial cache; tunables by
 * name; the byte model; the default partition's buckets and CPU part; the advisor over a part
 * read from the hub through its row list as over the part's copy. */
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>
#include "engine_cases.h"
#include "engine_internal.h" /* the advisor's trial matrix, the device name its cache keys by */

/* Matrices made here and every 12th shared matrix through every algorithm on the CPU. */
static void check_runs(void)
{
    static const rvs_run_mode cpu[1] = {RVS_MODE_CPU};
    static const rvs_format_id fixed[5] = {RVS_FMT_CSR, RVS_FMT_ELL, RVS_FMT_HYB, RVS_FMT_DIA, RVS_FMT_JAD};
    static const int64_t lengths[9] = {1, 0, 300, 2, 2, 7, 0, 40, 3};
    rvs_csr A = {0};
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 700, 600, 0.01, 1, 5), &err);
    case_matrix(&A, "random 700x600", cpu, 1, fixed, 5);
    rvs_csr_free(&A);
    CHECK(rvs_test_csr_from_lengths(&A, lengths, 9, 400) == RVS_OK);
    case_matrix(&A, "lengths", cpu, 1, fixed, 5);
    rvs_csr_free(&A);
    rvs_test_matrix *list = NULL;
    int n = rvs_test_matrix_list(&list);
    for (int i = 3; i < n; i += 12) {
        if (strcmp(list[i].field, "complex") == 0 || list[i].nnz_declared > 400000)
            continue;
        if (rvs_mm_read_file(&A, NULL, list[i].path, NULL, NULL, &err) == RVS_OK)
            case_matrix(&A, list[i].name, cpu, 1, fixed, 2);
        rvs_csr_free(&A);
    }
    free(list);
}

/* The advisor: the chosen candidate ran and verified, is the fastest that did, and pruned
 * candidates never ran; the trial cache answers the second time. */
static void check_advisor(void)
{
    rvs_csr A = {0};
    rvs_decision d, e;
    rvs_advisor_options o;
    rvs_error err;
    rvs_advisor_options_default(&o);
    o.iters = 3;
    CHECK_OK(rvs_test_random_csr(&A, 2000, 2000, 0.003, 1, 8), &err);
    CHECK_OK(rvs_advise(&d, &A, 2, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    CHECK(d.part == 2 && d.chosen >= 0 && d.cand[d.chosen].status == RVS_CAND_RAN && !d.from_cache);
    int pruned = 0, ran = 0;
    for (int i = 0; i < d.ncand; i++) {
        const rvs_candidate *c = &d.cand[i];
        CHECK(c->status == RVS_CAND_RAN ? c->ms >= 0 : c->ms == -1);
        pruned += c->status == RVS_CAND_PRUNED;
        ran += c->status == RVS_CAND_RAN;
        if (c->status == RVS_CAND_RAN)
            CHECK(c->ms >= d.cand[d.chosen].ms);
    }
    CHECKF(pruned > 0 && ran > 1, "pruned %d ran %d of %d", pruned, ran, d.ncand);
    /* DIA over the scattered diagonals of a random matrix: ruled out before building */
    for (int i = 0; i < d.ncand; i++)
        if (d.cand[i].format == RVS_FMT_DIA)
            CHECK(d.cand[i].status == RVS_CAND_PRUNED);
    CHECK_OK(rvs_advise(&e, &A, 0, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    CHECK(e.from_cache && e.part == 0 && e.cand[e.chosen].format == d.cand[d.chosen].format &&
          memcmp(&e.cand[e.chosen].knobs, &d.cand[d.chosen].knobs, sizeof e.cand[0].knobs) == 0);
    const int r = rvs_decision_runner_up(&d);
    CHECK(r < 0 || (e.ncand == 2 && e.cand[1].format == d.cand[r].format));
    o.use_cache = 0;
    CHECK_OK(rvs_advise(&e, &A, 0, RVS_DEV_CPU, RVS_F32, &o, &err), &err);
    CHECK(!e.from_cache && e.vtype == RVS_F32);
    /* a part above the sample size is tried on a sample of its row blocks */
    o.sample_nnz = A.nnz / 3;
    CHECK_OK(rvs_advise(&e, &A, 0, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    CHECK(e.sampled && e.cand[e.chosen].status == RVS_CAND_RAN);
    rvs_csr_free(&A);
}

/* A = the 7-point stencil on an n^3 grid: seven diagonals, which the DIA model counts. */
static void stencil7(rvs_csr *A, int64_t n)
{
    const int64_t N = n * n * n, step[7] = {-n * n, -n, -1, 0, 1, n, n * n};
    rvs_error err;
    int64_t p = 0;
    CHECK_OK(rvs_csr_alloc(A, N, N, 7 * N, RVS_F64, &err), &err);
    for (int64_t r = 0; r < N; r++) {
        const int64_t x = r % n, y = r / n % n, z = r / (n * n);
        const int in[7] = {z > 0, y > 0, x > 0, 1, x < n - 1, y < n - 1, z < n - 1};
        for (int k = 0; k < 7; k++)
            if (in[k]) {
                A->colind[p] = (int32_t)(r + step[k]);
                ((double *)A->values)[p++] = k == 3 ? 6.0 : -1.0;
            }
        A->rowptr[r + 1] = p;
    }
    A->nnz = p;
}

/* P = the rows 0..rows-1 shuffled (seeded) and dealt into k parts of about equal rows. */
static void shuffled_partition(rvs_partition *P, int64_t rows, int k, uint64_t seed)
{
    int64_t *perm = malloc((size_t)rows * sizeof *perm);
    memset(P, 0, sizeof *P);
    P->alg = RVS_ALG_PMF;
    P->k = k;
    P->parts = calloc((size_t)k, sizeof *P->parts);
    CHECK(perm && P->parts);
    for (int64_t i = 0; i < rows; i++)
        perm[i] = i;
    for (int64_t i = rows - 1; i > 0; i--) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const int64_t j = (int64_t)((seed >> 33) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int q = 0; q < k; q++) {
        const int64_t lo = rows * q / k, hi = rows * (q + 1) / k;
        P->parts[q].nrows = hi - lo;
        P->parts[q].rows = malloc((size_t)(hi - lo) * sizeof *perm);
        memcpy(P->parts[q].rows, perm + lo, (size_t)(hi - lo) * sizeof *perm);
    }
    free(perm);
}

/* d and e offered the same candidates, with the same model bytes, pruned alike. */
static int same_candidates(const rvs_decision *d, const rvs_decision *e)
{
    int same = d->ncand == e->ncand && d->sampled == e->sampled;
    for (int i = 0; same && i < d->ncand; i++) {
        const rvs_candidate *a = &d->cand[i], *b = &e->cand[i];
        same = a->format == b->format && memcmp(&a->knobs, &b->knobs, sizeof a->knobs) == 0 &&
               a->model_bytes == b->model_bytes && (a->status == RVS_CAND_PRUNED) == (b->status == RVS_CAND_PRUNED);
    }
    return same;
}

/* The advisor over R and over C (R's copy) with o: the same trial matrix in f64 and f32 (the
 * sample or the part), the same candidates; and C's decision, cached, is R's. */
static void same_advice(const rvs_row_list *R, const rvs_csr *C, const rvs_advisor_options *o, const char *what)
{
    static rvs_decision d, e;
    const rvs_vtype vts[2] = {RVS_F64, RVS_F32};
    rvs_row_list W;
    rvs_error err;
    char device[256];
    rvs_row_list_all(&W, C);
    for (int v = 0; v < 2; v++) {
        rvs_csr own0, own1;
        const rvs_csr *M0 = NULL, *M1 = NULL;
        int s0 = -1, s1 = -1;
        CHECK_OK(rvs_advise_trial_matrix(&own0, &M0, &s0, &W, RVS_DEV_CPU, vts[v], v, o, &err), &err);
        CHECK_OK(rvs_advise_trial_matrix(&own1, &M1, &s1, R, RVS_DEV_CPU, vts[v], v, o, &err), &err);
        CHECKF(s0 == (C->nnz > o->sample_nnz) && s1 == s0 && M0 && M1 && rvs_test_csr_same(M0, M1),
               "%s: trial matrix (sampled %d and %d)", what, s0, s1);
        rvs_csr_free(&own0);
        rvs_csr_free(&own1);
    }
    rvs_advisor_options u = *o;
    u.use_cache = 0;
    u.mode = RVS_ADVISE_TRIALS; /* the trials' machinery: the model's is checked in check_model */
    CHECK_OK(rvs_advise(&d, C, 0, RVS_DEV_CPU, RVS_F64, &u, &err), &err);
    CHECK_OK(rvs_advise_rows(&e, R, 0, RVS_DEV_CPU, RVS_F64, &u, &err), &err);
    CHECKF(same_candidates(&d, &e), "%s: candidates", what);
    rvs_device_name(RVS_DEV_CPU, device, sizeof device);
    CHECK_OK(rvs_trial_cache_store(&d, device, rvs_shape_key(C, RVS_F64), &err), &err);
    u.use_cache = 1;
    CHECK_OK(rvs_advise_rows(&e, R, 0, RVS_DEV_CPU, RVS_F64, &u, &err), &err);
    CHECKF(e.from_cache && e.sampled == d.sampled && e.cand[e.chosen].format == d.cand[d.chosen].format &&
               memcmp(&e.cand[e.chosen].knobs, &d.cand[d.chosen].knobs, sizeof d.cand[0].knobs) == 0,
           "%s: the copy's cached decision", what);
}

/* Every part of P read as a row list (listed: the scattered ones must be) gives what its copy
 * gives: shape key, model bytes of every format, and the advice, whole and sampled. */
static void parts_as_copies(const rvs_partition *P, const rvs_csr *A, int listed, const char *what)
{
    rvs_advisor_options o;
    rvs_error err;
    rvs_advisor_options_default(&o);
    o.iters = 1;
    for (int q = 0; q < P->k; q++) {
        rvs_csr C = {0}, V = {0};
        rvs_row_list R;
        int view;
        char name[128];
        snprintf(name, sizeof name, "%s part %d", what, q + 1);
        CHECK_OK(rvs_partition_extract(&C, P, q, A, &err), &err);
        CHECK_OK(rvs_row_list_part(&R, &V, &view, P, q, A, &err), &err);
        CHECKF(!listed || (R.rows && R.A == A && R.nnz == C.nnz), "%s: not read from the hub", name);
        CHECKF(rvs_shape_key_rows(&R, RVS_F64) == rvs_shape_key(&C, RVS_F64) &&
                   rvs_shape_key_rows(&R, RVS_C64) == rvs_shape_key(&C, RVS_C64),
               "%s: shape key", name);
        for (int id = 1; id < RVS_FMT_COUNT; id++)
            CHECKF(rvs_model_bytes_rows((rvs_format_id)id, &R, RVS_F64) ==
                       rvs_model_bytes((rvs_format_id)id, &C, RVS_F64),
                   "%s: model bytes of format %d", name, id);
        same_advice(&R, &C, &o, name);
        o.sample_nnz = C.nnz / 3; /* sampled: blocks of 2048 rows, about every third */
        same_advice(&R, &C, &o, name);
        o.sample_nnz = (int64_t)24 << 20;
        rvs_part_csr_free(&V, view);
        rvs_csr_free(&C);
    }
}

/* Advisor options that sample a quarter of A (no cache), and R all of A. */
static void quarter_sample(rvs_advisor_options *o, rvs_row_list *R, const rvs_csr *A)
{
    rvs_advisor_options_default(o);
    o->sample_nnz = A->nnz / 4;
    o->use_cache = 0;
    o->mode = RVS_ADVISE_TRIALS;
    rvs_row_list_all(R, A);
}

/* A part of few, long rows past the sample size: its sample holds a block of rows (the
 * evenly spread blocks round to none), and the advisor chooses a format that ran on it. */
static void check_advisor_few_rows(void)
{
    static rvs_decision d;
    int64_t len[100];
    rvs_csr A, own;
    const rvs_csr *M = NULL;
    rvs_row_list R;
    rvs_advisor_options o;
    rvs_error err;
    int sampled = 0;
    for (int i = 0; i < 100; i++)
        len[i] = 150 + i;
    CHECK(rvs_test_csr_from_lengths(&A, len, 100, 4000) == RVS_OK);
    quarter_sample(&o, &R, &A);
    CHECK_OK(rvs_advise_trial_matrix(&own, &M, &sampled, &R, RVS_DEV_CPU, RVS_F64, 1, &o, &err), &err);
    CHECKF(sampled == 1 && M && M->rows == 100 && M->nnz == A.nnz, "few rows: sample of %lld rows, %lld entries",
           M ? (long long)M->rows : -1LL, M ? (long long)M->nnz : -1LL);
    rvs_csr_free(&own);
    CHECK_OK(rvs_advise(&d, &A, 0, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    CHECKF(d.sampled == 1 && d.chosen >= 0 && d.cand[d.chosen].status == RVS_CAND_RAN, "few rows: chosen %d",
           d.chosen);
    rvs_csr_free(&A);
}

/* The sample keeps each entry's column (so that a graph's gathers of x fall on the same hub
 * columns as in the whole part) or, with keep_diag, its diagonal in the part's numbering; the
 * byte model asks for diagonals on a band and not on a random graph. */
static void check_sample_keeps(void)
{
    rvs_csr A, B, own;
    const rvs_csr *M = NULL;
    rvs_row_list R;
    rvs_advisor_options o;
    static rvs_decision d;
    rvs_error err;
    int sampled = 0;
    CHECK(rvs_test_random_csr(&A, 12000, 12000, 0.002, 1, 41) == RVS_OK && A.vtype == RVS_F64);
    for (int64_t p = 0; p < A.nnz; p++)
        ((double *)A.values)[p] = (double)(p + 1); /* an entry's value names its place in A */
    quarter_sample(&o, &R, &A);
    for (int keep = 0; keep < 2; keep++) {
        CHECK_OK(rvs_advise_trial_matrix(&own, &M, &sampled, &R, RVS_DEV_CPU, RVS_F64, keep, &o, &err), &err);
        int64_t bad = 0, rows = 0;
        for (int64_t r = 0; M && r < M->rows; r++)
            for (int64_t p = M->rowptr[r]; p < M->rowptr[r + 1]; p++) {
                const int64_t q = (int64_t)((const double *)M->values)[p] - 1;
                int64_t lo = 0, hi = A.rows; /* the row of entry q */
                while (hi - lo > 1)
                    if (A.rowptr[(lo + hi) / 2] <= q)
                        lo = (lo + hi) / 2;
                    else
                        hi = (lo + hi) / 2;
                const int64_t want = keep ? ((A.colind[q] + r - lo) % A.cols + A.cols) % A.cols : A.colind[q];
                bad += q < 0 || q >= A.nnz || M->colind[p] != want;
                rows += p == M->rowptr[r] && lo != r;
            }
        CHECKF(sampled && M && M->nnz > 0 && M->nnz < A.nnz && bad == 0 && rows > 0,
               "sample keeping %s: %lld of %lld entries moved, %lld rows renumbered",
               keep ? "diagonals" : "columns", (long long)bad, M ? (long long)M->nnz : 0LL, (long long)rows);
        rvs_csr_free(&own);
    }
    CHECK_OK(rvs_advise(&d, &A, 0, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    CHECKF(!rvs_advise_keeps_diagonals(&d), "random graph: the model asks for diagonals");
    CHECK_OK(rvs_csr_alloc(&B, 20000, 20000, 3 * 20000 - 2, RVS_F64, &err), &err);
    int64_t n = 0;
    for (int64_t r = 0; r < B.rows; r++) { /* a tridiagonal band */
        for (int64_t c = r - 1; c <= r + 1; c++)
            if (c >= 0 && c < B.cols) {
                B.colind[n] = (int32_t)c;
                ((double *)B.values)[n++] = c == r ? 4.0 : -1.0;
            }
        B.rowptr[r + 1] = n;
    }
    CHECK_OK(rvs_advise(&d, &B, 0, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    CHECKF(rvs_advise_keeps_diagonals(&d), "band: the model finds no diagonals");
    rvs_csr_free(&A);
    rvs_csr_free(&B);
}

/* The advisor reads a part of scattered rows in the hub, through its row list, and comes to
 * what it comes to over the part's copy: pmf parts (rows by length), shuffled rows, a stencil's
 * diagonals; runs and Algorithm 4's parts (viewed and copied as before) alike. */
static void check_advisor_rows(void)
{
    static const double cp[3] = {1, 2, 1};
    int64_t len[12000];
    rvs_csr A[3] = {{0}};
    rvs_error err;
    for (int64_t i = 0; i < 12000; i++)
        len[i] = i % 997 == 0 ? 300 : (i * 7) % 23;
    CHECK_OK(rvs_test_random_csr(&A[0], 20000, 20000, 0.00025, 1, 11), &err);
    CHECK(rvs_test_csr_from_lengths(&A[1], len, 12000, 12000) == RVS_OK);
    stencil7(&A[2], 24);
    for (int m = 0; m < 3; m++) {
        rvs_partition P;
        char what[64];
        snprintf(what, sizeof what, "matrix %d pmf", m);
        CHECK_OK(rvs_partition_compute(&P, &A[m], RVS_ALG_PMF, 3, cp, NULL, 0, &err), &err);
        parts_as_copies(&P, &A[m], 1, what);
        rvs_partition_free(&P);
        snprintf(what, sizeof what, "matrix %d shuffled", m);
        shuffled_partition(&P, A[m].rows, 2, 7 + (uint64_t)m);
        parts_as_copies(&P, &A[m], 1, what);
        rvs_partition_free(&P);
        snprintf(what, sizeof what, "matrix %d diag", m);
        CHECK_OK(rvs_partition_compute(&P, &A[m], RVS_ALG_DIAG, 3, cp, NULL, 0, &err), &err);
        parts_as_copies(&P, &A[m], 0, what);
        rvs_partition_free(&P);
        snprintf(what, sizeof what, "matrix %d rows", m);
        CHECK_OK(rvs_partition_compute(&P, &A[m], RVS_ALG_ROWS, 2, cp, NULL, 0, &err), &err);
        parts_as_copies(&P, &A[m], 0, what);
        rvs_partition_free(&P);
        rvs_csr_free(&A[m]);
    }
}

/* spmv on S (a stream whose 'auto' chunk is malformed, CRC intact): status 65, one line on
 * stderr naming the chunk, nothing on stdout. */
static void check_program_refuses(const rvs_stream *S)
{
    const char *bin = getenv("RVS_BIN"), *tmp = getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp";
    char path[512], cmd[2048], text[512] = "";
    rvs_error err;
    if (!bin)
        return;
    snprintf(path, sizeof path, "%s/badauto.%ld", tmp, (long)getpid());
    snprintf(cmd, sizeof cmd, "%s.rvs", path);
    FILE *f = fopen(cmd, "wb");
    CHECK(f && rvs_stream_write(f, S, &err) == RVS_OK);
    if (f)
        fclose(f);
    snprintf(cmd, sizeof cmd, "'%s/spmv' --cpu '%s.rvs' > '%s.out' 2> '%s.err'", bin, path, path, path);
    int st = system(cmd);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 65, "spmv on a malformed 'auto' chunk: status %d", st);
    snprintf(cmd, sizeof cmd, "%s.out", path);
    f = fopen(cmd, "r");
    CHECK(f && fgetc(f) == EOF);
    if (f)
        fclose(f);
    remove(cmd);
    snprintf(cmd, sizeof cmd, "%s.err", path);
    f = fopen(cmd, "r");
    int lines = 0;
    while (f && fgets(text, sizeof text, f))
        lines++;
    if (f)
        fclose(f);
    remove(cmd);
    CHECKF(lines == 1 && strncmp(text, "spmv: ", 6) == 0 && strstr(text, "chunk 'auto'"), "stderr '%s'", text);
    snprintf(cmd, sizeof cmd, "%s.rvs", path);
    remove(cmd);
}

/* The 'auto' chunk: written by convert's path, read back equal, stale after a new partition,
 * ignored in a newer version, refused when malformed; a plan from it equals the first. */
static void check_decisions(void)
{
    static const double cp[3] = {1, 1, 1};
    rvs_csr A = {0};
    rvs_stream S;
    rvs_decisions D = {0}, R;
    rvs_plan P1, P2;
    rvs_plan_options o;
    rvs_engine_devices dev;
    rvs_error err;
    int current = 0;
    CHECK_OK(rvs_test_random_csr(&A, 900, 900, 0.01, 1, 3), &err);
    CHECK_OK(case_stream(&S, &A, RVS_ALG_PMF, 3, cp, NULL, &err), &err);
    rvs_plan_options_default(&o);
    o.mode = RVS_MODE_CPU;
    o.advisor.iters = 2;
    rvs_engine_devices_probe(&dev, 0, 0);
    CHECK_OK(rvs_plan_make(&P1, &S, &dev, &o, &err), &err);
    CHECK(P1.decisions.n == 3);
    CHECK_OK(rvs_decisions_write(&S, &P1.decisions, &err), &err);
    CHECK_OK(rvs_decisions_read(&R, &S, &current, &err), &err);
    CHECK(current && R.n == 3);
    for (int i = 0; i < R.n && i < 3; i++) {
        const rvs_decision *a = &P1.decisions.d[i], *b = &R.d[i];
        CHECK(a->part == b->part && a->ncand == b->ncand && a->chosen == b->chosen && a->vtype == b->vtype);
        for (int k = 0; k < a->ncand && k < b->ncand; k++)
            CHECK(a->cand[k].format == b->cand[k].format && a->cand[k].status == b->cand[k].status &&
                  a->cand[k].ms == b->cand[k].ms &&
                  memcmp(&a->cand[k].knobs, &b->cand[k].knobs, sizeof(rvs_knobs)) == 0);
    }
    rvs_decisions_free(&R);
    /* the same plan again, from the chunk: no advisor (the cache is off, nothing to fall back on) */
    o.advisor.use_cache = 0;
    CHECK_OK(rvs_plan_make(&P2, &S, &dev, &o, &err), &err);
    CHECK(P2.nitems == P1.nitems && P2.decisions.n == 0);
    for (int i = 0; i < P1.nitems && i < P2.nitems; i++)
        CHECK(P1.items[i].format == P2.items[i].format && P1.items[i].nparts == P2.items[i].nparts &&
              memcmp(&P1.items[i].knobs, &P2.items[i].knobs, sizeof(rvs_knobs)) == 0 &&
              strcmp(P2.items[i].source, "decision") == 0);
    rvs_plan_free(&P2);
    /* through the container and back: the chunk travels as an ancillary chunk */
    char path[512];
    snprintf(path, sizeof path, "%s/decisions.%ld.rvs", getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "wb");
    CHECK(f && rvs_stream_write(f, &S, &err) == RVS_OK);
    if (f)
        fclose(f);
    rvs_stream T;
    f = fopen(path, "rb");
    CHECK(f && rvs_stream_read(&T, f, NULL, 0, &err) == RVS_OK);
    if (f)
        fclose(f);
    remove(path);
    CHECK_OK(rvs_decisions_read(&R, &T, &current, &err), &err);
    CHECK(current && R.n == 3);
    rvs_decisions_free(&R);
    rvs_stream_free(&T);
    /* a new partition makes the chunk stale */
    rvs_partition_free(&S.partition);
    CHECK_OK(rvs_partition_compute(&S.partition, &S.A, RVS_ALG_NNZ, 3, cp, NULL, 0, &err), &err);
    CHECK_OK(rvs_decisions_read(&R, &S, &current, &err), &err);
    CHECK(!current && R.n == 3);
    rvs_decisions_free(&R);
    /* malformed: cut short, bad counts; a newer version is ignored */
    rvs_raw_chunk *c = NULL;
    for (int i = 0; i < S.nextra; i++)
        if (memcmp(S.extra[i].type, "auto", 4) == 0)
            c = &S.extra[i];
    CHECK(c != NULL);
    if (c) {
        uint64_t len = c->len;
        c->len = len - 5;
        CHECK(rvs_decisions_read(&R, &S, &current, &err) == RVS_ERR_FORMAT);
        c->len = len;
        uint32_t keep;
        memcpy(&keep, c->data + 80 + 12, 4);
        const uint32_t many = 1000;
        memcpy(c->data + 80 + 12, &many, 4);
        CHECK(rvs_decisions_read(&R, &S, &current, &err) == RVS_ERR_FORMAT);
        CHECKF(strstr(err.msg, "chunk 'auto'") != NULL, "message '%s'", err.msg);
        check_program_refuses(&S);
        memcpy(c->data + 80 + 12, &keep, 4);
        const uint32_t v2 = 2;
        memcpy(c->data, &v2, 4);
        CHECK_OK(rvs_decisions_read(&R, &S, &current, &err), &err);
        CHECK(R.n == 0 && !current);
    }
    rvs_decisions_drop(&S);
    CHECK_OK(rvs_decisions_read(&R, &S, &current, &err), &err);
    CHECK(R.n == 0);
    rvs_plan_free(&P1);
    rvs_decisions_free(&D);
    rvs_stream_free(&S);
    rvs_csr_free(&A);
}

/* Tunables by name: round trips, words, refusals; the variants the advisor tries. */
static void check_tunables(void)
{
    rvs_knobs k, back;
    rvs_knobs_default(&k);
    char text[256];
    rvs_error err;
    rvs_knobs_format(&k, text, sizeof text);
    CHECK(strcmp(text, "default") == 0);
    CHECK_OK(rvs_knobs_parse(&k, "threads-per-row=4,hyb-k=third,hcc-np=2", &err), &err);
    CHECK(k.tune.threads_per_row == 4 && k.fo.hyb_k == RVS_HYB_K_THIRD && k.fo.hcc_np == 2);
    rvs_knobs_format(&k, text, sizeof text);
    CHECKF(strcmp(text, "threads-per-row=4,hyb-k=third,hcc-np=2") == 0, "'%s'", text);
    rvs_knobs_default(&back);
    CHECK_OK(rvs_knobs_parse(&back, text, &err), &err);
    CHECK(memcmp(&k, &back, sizeof k) == 0);
    CHECK(rvs_knobs_parse(&k, "hyb-k=-7", &err) == RVS_ERR_ARG);
    CHECK(rvs_knobs_parse(&k, "warp=2", &err) == RVS_ERR_ARG);
    /* keys not named keep their value: --tune over an item's knobs changes only what it names */
    CHECK_OK(rvs_knobs_parse(&k, "csr-values=1", &err), &err);
    CHECK(k.fo.csr_values == 1 && k.tune.threads_per_row == 4 && k.fo.hyb_k == RVS_HYB_K_THIRD && k.fo.hcc_np == 2);
    CHECK(rvs_knobs_parse(&k, "csr-values=2", &err) == RVS_ERR_ARG);
    CHECK_OK(rvs_knobs_parse(&k, "csr-panels=1024", &err), &err);
    CHECK(k.fo.csr_panels == 1024 && k.fo.csr_values == 1);
    CHECK(rvs_knobs_parse(&k, "csr-panels=1025", &err) == RVS_ERR_ARG && strstr(err.msg, "0..1024"));
    CHECK(rvs_knobs_parse(&k, "block=1048577", &err) == RVS_ERR_ARG && strstr(err.msg, "0..1048576"));
    rvs_knobs v[RVS_MAX_CAND];
    int n = rvs_tune_variants(RVS_FMT_CSR, v, RVS_MAX_CAND);
    CHECK(n >= 2 && v[0].tune.csr_kernel == RVS_CSR_AUTO && v[0].tune.threads_per_row == 0);
    /* the vector and nnz-split kernels are tried on rows in order, the row-block kernel and
     * cuSPARSE in the layout the rule gives them, csr-order 1 alone too */
    int order_only = 0, named = 0;
    for (int i = 0; i < n; i++) {
        const int kern = v[i].tune.csr_kernel, lanes = v[i].tune.threads_per_row;
        const int rows_in_order = lanes != 0 || kern == RVS_CSR_NNZ_SPLIT;
        CHECKF(v[i].fo.csr_order == rows_in_order || (kern == 0 && lanes == 0 && v[i].fo.csr_order == 1),
               "csr variant %d: kernel %s, lanes %d, csr-order %lld", i, rvs_csr_kernel_name(kern), lanes,
               (long long)v[i].fo.csr_order);
        order_only += kern == 0 && lanes == 0 && v[i].fo.csr_order == 1;
        named |= 1 << kern;
    }
    CHECK(order_only == 1 && v[0].fo.csr_order == 0);
    CHECK(named == (1 << RVS_CSR_AUTO | 1 << RVS_CSR_ROW_BLOCK | 1 << RVS_CSR_NNZ_SPLIT | 1 << RVS_CSR_CUSPARSE));
    /* kernels by name, and the 0.1 codes of threads-per-row read as the kernels they named */
    rvs_knobs_default(&back);
    CHECK_OK(rvs_knobs_parse(&back, "csr-kernel=cusparse", &err), &err);
    CHECK(back.tune.csr_kernel == RVS_CSR_CUSPARSE);
    rvs_knobs_format(&back, text, sizeof text);
    CHECKF(strcmp(text, "csr-kernel=cusparse") == 0, "formatted as '%s'", text);
    CHECK_OK(rvs_knobs_parse(&back, "threads-per-row=64", &err), &err);
    CHECK(back.tune.csr_kernel == RVS_CSR_ROW_BLOCK && back.tune.threads_per_row == 0);
    CHECK(rvs_knobs_parse(&back, "csr-kernel=fast", &err) == RVS_ERR_ARG && strstr(err.msg, "row-block"));
    CHECK_OK(rvs_knobs_parse(&back, "csr-order=1", &err), &err);
    CHECK(back.fo.csr_order == 1 && rvs_knobs_parse(&back, "csr-order=2", &err) == RVS_ERR_ARG);
    CHECK(rvs_tune_variants(RVS_FMT_COO, v, RVS_MAX_CAND) == 1);
    CHECK(rvs_tune_variants(RVS_FMT_HYB, v, RVS_MAX_CAND) == 2 && v[1].fo.hyb_k == RVS_HYB_K_THIRD);
    /* DIA: the default (slots coded where they fit a table), 4 rows a thread, slots as they are */
    CHECK(rvs_tune_variants(RVS_FMT_DIA, v, RVS_MAX_CAND) == 3 && v[0].fo.dia_values == 0 &&
          v[1].tune.rows_per_thread == 4 && v[2].fo.dia_values == 1 && v[2].tune.rows_per_thread == 0);
    /* csr-panels reaches CSR's param[4]; the block's check takes 0 .. 1024 panels and no more */
    rvs_csr A = {0};
    rvs_fmt F = {0};
    CHECK_OK(rvs_test_random_csr(&A, 300, 200, 0.05, 1, 3), &err);
    back.fo.csr_panels = 7;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, &back.fo, &err), &err);
    const rvs_format_ops *ops = rvs_format_lookup(RVS_FMT_CSR);
    CHECK(F.param[4] == 7 && ops->validate(&F, &err) == RVS_OK);
    F.param[4] = RVS_CSR_MAX_PANELS + 1;
    CHECK(ops->validate(&F, &err) == RVS_ERR_FORMAT && strstr(err.msg, "column panels"));
    F.param[4] = -1;
    CHECK(ops->validate(&F, &err) == RVS_ERR_FORMAT);
    rvs_fmt_free(&F);
    /* csr-index reaches CSR's param[5]: 0 or 1, and the block's check takes no other */
    CHECK(rvs_knobs_parse(&back, "csr-index=2", &err) == RVS_ERR_ARG);
    CHECK_OK(rvs_knobs_parse(&back, "csr-index=1", &err), &err);
    back.fo.csr_panels = 0;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, &back.fo, &err), &err);
    CHECK(F.param[5] == 1 && ops->validate(&F, &err) == RVS_OK);
    F.param[5] = 2;
    CHECK(ops->validate(&F, &err) == RVS_ERR_FORMAT && strstr(err.msg, "column index width"));
    rvs_fmt_free(&F);
    /* blocks laid out for the row kernels: regular rows of real values not sorted (f32 here, or
     * f64 under 32 a row), none with csr-order=1 or complex values */
    const int64_t regular[RVS_FMT_MAX_PARAMS] = {10, 1}, order1[RVS_FMT_MAX_PARAMS] = {10, 1, 1, 1};
    CHECK(rvs_csr_gpu_in_rows(100, 500, RVS_F64, regular) && rvs_csr_gpu_in_rows(100, 5000, RVS_F32, regular));
    CHECK(!rvs_csr_gpu_in_rows(100, 5000, RVS_F64, regular) && !rvs_csr_gpu_in_rows(100, 500, RVS_C128, regular));
    CHECK(!rvs_csr_gpu_in_rows(100, 500, RVS_F64, order1) && rvs_csr_gpu_codes(100, 500, RVS_F64, regular) &&
          !rvs_csr_gpu_codes(100, 500, RVS_F64, order1));
    rvs_csr_free(&A);
}

/* The byte model: one long row makes ELL hopeless; a stencil's diagonals make DIA the least. */
static void check_model(void)
{
    static const int64_t lengths[4] = {2, 5000, 1, 3};
    rvs_csr A = {0};
    rvs_error err;
    CHECK(rvs_test_csr_from_lengths(&A, lengths, 4, 6000) == RVS_OK);
    CHECK(rvs_model_bytes(RVS_FMT_ELL, &A, RVS_F64) > 3 * rvs_model_bytes(RVS_FMT_CSR, &A, RVS_F64));
    CHECK(rvs_model_bytes((rvs_format_id)99, &A, RVS_F64) == -1);
    rvs_csr_free(&A);
    /* tridiagonal 1000 x 1000 */
    CHECK_OK(rvs_csr_alloc(&A, 1000, 1000, 2998, RVS_F64, &err), &err);
    int64_t p = 0;
    for (int64_t i = 0; i < 1000; i++) {
        for (int64_t j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < 1000) {
                A.colind[p] = (int32_t)j;
                ((double *)A.values)[p++] = 1.0;
            }
        A.rowptr[i + 1] = p;
    }
    CHECK(rvs_model_bytes(RVS_FMT_DIA, &A, RVS_F64) < rvs_model_bytes(RVS_FMT_CSR, &A, RVS_F64));
    CHECK(rvs_model_bytes(RVS_FMT_COO, &A, RVS_F64) > rvs_model_bytes(RVS_FMT_CSR, &A, RVS_F64));
    /* the features alone: the byte model's exact counts where they are exact (the sample sees
     * every diagonal of a tridiagonal matrix), and the fitted model's ranking on the GPU */
    rvs_features F;
    rvs_row_list R;
    rvs_row_list_all(&R, &A);
    CHECK_OK(rvs_features_rows(&F, &R, &err), &err);
    CHECKF(F.rows == 1000 && F.nnz == 2998 && F.max_len == 3 && F.f[11] == 1 && F.f[12] == 1,
           "tridiagonal features: rows %lld nnz %lld longest %lld codable %g narrow %g", (long long)F.rows,
           (long long)F.nnz, (long long)F.max_len, F.f[11], F.f[12]);
    for (int id = 1; id < RVS_FMT_COUNT; id++) {
        const double exact = rvs_model_bytes((rvs_format_id)id, &A, RVS_F64),
                     est = rvs_model_bytes_features((rvs_format_id)id, &F, A.cols, RVS_F64);
        if (id == RVS_FMT_CSR || id == RVS_FMT_COO || id == RVS_FMT_ELL || id == RVS_FMT_DIA || id == RVS_FMT_JAD)
            CHECKF(fabs(exact - est) <= 1e-9 * exact, "format %d: %g bytes by the features, %g exactly", id, est,
                   exact);
    }
    static rvs_decision d;
    memset(&d, 0, sizeof d);
    rvs_knobs k;
    rvs_knobs_default(&k);
    d.cand[d.ncand++] = (rvs_candidate){
        RVS_FMT_CSR, k, RVS_CAND_PRUNED, -1, rvs_model_bytes_features(RVS_FMT_CSR, &F, A.cols, RVS_F64), -1, 0};
    d.cand[d.ncand++] = (rvs_candidate){
        RVS_FMT_DIA, k, RVS_CAND_PRUNED, -1, rvs_model_bytes_features(RVS_FMT_DIA, &F, A.cols, RVS_F64), -1, 0};
    d.cand[d.ncand++] = (rvs_candidate){
        RVS_FMT_ELL, k, RVS_CAND_PRUNED, -1, rvs_model_bytes_features(RVS_FMT_ELL, &F, A.cols, RVS_F64), -1, 0};
    CHECK(rvs_model_predict(&d, &F, RVS_DEV_CPU, RVS_F64) == 0 && d.cand[0].pred_ms == -1 && !d.fit[0]);
    CHECK(rvs_model_predict(&d, &F, RVS_DEV_GPU, RVS_C128) == 0);
    CHECKF(rvs_model_predict(&d, &F, RVS_DEV_GPU, RVS_F64) == 3 && d.fit[0] && d.cand[1].pred_ms > 0 &&
               d.cand[1].pred_sigma > 0 && isfinite(d.cand[0].pred_ms),
           "GPU fit for csr, dia, ell: %g %g %g", d.cand[0].pred_ms, d.cand[1].pred_ms, d.cand[2].pred_ms);
    char key[64];
    CHECK(rvs_model_key(&d.cand[1], key, sizeof key) && strcmp(key, "dia@default") == 0);
    /* the floor: no prediction beats the least bytes at the peak given. The same shape at 10^8
     * rows, every prediction made too fast: each is raised to its bound, and DIA (values in a
     * table, columns implied) ranks under CSR and ELL */
    rvs_features big = F;
    big.rows = big.cols = 100000000;
    big.nnz = 299999998;
    const double bw = 3.35e9, l2 = 50e6; /* bytes a ms, and an L2, of an H100 */
    for (int i = 0; i < 3; i++)
        d.cand[i].pred_ms = 1e-3;
    CHECK(rvs_model_floor(&d, &big, RVS_F64, bw, l2) == 3);
    for (int i = 0; i < 3; i++) {
        const double least = rvs_model_least_bytes(&d.cand[i], &big, RVS_F64);
        CHECKF(least >= 16e8 && fabs(d.cand[i].pred_ms - least / bw) <= 1e-12 * least / bw,
               "candidate %d: %g ms, least %g bytes", i, d.cand[i].pred_ms, least);
    }
    CHECKF(d.cand[1].pred_ms < d.cand[0].pred_ms && d.cand[1].pred_ms < d.cand[2].pred_ms,
           "floored: csr %g dia %g ell %g ms", d.cand[0].pred_ms, d.cand[1].pred_ms, d.cand[2].pred_ms);
    d.cand[0].pred_ms = 1e3; /* slower than the bound: left as it is */
    CHECK(rvs_model_floor(&d, &big, RVS_F64, bw, l2) == 0 && d.cand[0].pred_ms == 1e3);
    /* the matrix itself fits the cache twice over, and no device gives no floor */
    for (int i = 0; i < 3; i++)
        d.cand[i].pred_ms = 1e-6;
    CHECK(rvs_model_floor(&d, &F, RVS_F64, bw, l2) == 0 && d.cand[0].pred_ms == 1e-6);
    CHECK(rvs_model_floor(&d, &big, RVS_F64, 0, 0) == 0 && d.cand[2].pred_ms == 1e-6);
    rvs_csr_free(&A);
}

/* The advisor's model mode on the CPU (no fit there: the byte model shortlists, the shortlist is
 * tried); deferred, the shortlist beyond the choice is left pending and nothing is built. */
static void check_model_mode(void)
{
    static rvs_decision d;
    rvs_csr A = {0};
    rvs_advisor_options o;
    rvs_error err;
    CHECK_OK(rvs_test_random_csr(&A, 3000, 3000, 0.002, 1, 11), &err);
    rvs_advisor_options_default(&o);
    o.use_cache = 0;
    o.iters = 2;
    CHECK(o.mode == RVS_ADVISE_MODEL && o.max_trials == 3);
    CHECK_OK(rvs_advise(&d, &A, -1, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    int ran = 0;
    for (int i = 0; i < d.ncand; i++)
        ran += d.cand[i].status == RVS_CAND_RAN;
    CHECKF(d.how == RVS_HOW_TRIAL && ran >= 1 && ran <= 3 && d.cand[d.chosen].status == RVS_CAND_RAN &&
               d.decide_ms > 0 && d.npending == 0,
           "model mode: how %s, %d ran, chosen status %d", rvs_how_name(d.how), ran, d.cand[d.chosen].status);
    o.defer = 1;
    CHECK_OK(rvs_advise(&d, &A, -1, RVS_DEV_CPU, RVS_F64, &o, &err), &err);
    ran = 0;
    for (int i = 0; i < d.ncand; i++)
        ran += d.cand[i].status == RVS_CAND_RAN;
    /* deferred on the CPU: the first calls run in CSR as it is (it borrows the hub), the byte
     * model's shortlist left to try between calls */
    CHECKF(d.how == RVS_HOW_MODEL && ran == 0 && d.npending >= 1 && d.npending <= 3 && d.chosen >= 0 &&
               d.cand[d.chosen].format == RVS_FMT_CSR,
           "deferred: how %s, %d ran, %d pending, chosen format %d", rvs_how_name(d.how), ran, d.npending,
           d.cand[d.chosen].format);
    for (int q = 0; q < d.npending; q++)
        CHECK(d.pending[q] != d.chosen && d.pending[q] >= 0 && d.pending[q] < d.ncand);
    /* the plan says how: an item of the model's choice, with its decision */
    CHECK(strcmp(rvs_how_name(RVS_HOW_TUNED), "tuned") == 0 && strcmp(rvs_how_name(RVS_HOW_CACHE), "cache") == 0);
    rvs_csr_free(&A);
}

/* Default partitions: one bucket for even rows, several for skewed ones, diag two; a CPU part
 * only with a calibration whose model pays, and never for pmf when only kernel time is shared. */
static void check_default_cp(void)
{
    const int64_t nbig = 200000;
    int64_t even[64], skew[500], *big = malloc((size_t)nbig * sizeof *big);
    for (int i = 0; i < 64; i++)
        even[i] = 27;
    for (int i = 0; i < 500; i++)
        skew[i] = i < 300 ? 4 : i < 400 ? 20 : i < 480 ? 100 : 600;
    for (int64_t i = 0; big && i < nbig; i++)
        big[i] = 7;
    rvs_csr A = {0}, B = {0}, C = {0};
    double *cp = NULL;
    rvs_device *dev = NULL;
    int k = 0;
    char note[256];
    rvs_error err;
    CHECK(rvs_test_csr_from_lengths(&A, even, 64, 64) == RVS_OK &&
          rvs_test_csr_from_lengths(&B, skew, 500, 1000) == RVS_OK);
    CHECK(big && rvs_test_csr_from_lengths(&C, big, nbig, nbig) == RVS_OK);
    CHECK_OK(rvs_default_cp(&A, RVS_ALG_PMF, 1, NULL, &cp, &dev, &k, note, sizeof note, &err), &err);
    CHECK(k == 1 && dev[0] == RVS_DEV_GPU);
    free(cp), free(dev);
    CHECK_OK(rvs_default_cp(&B, RVS_ALG_PMF, 1, NULL, &cp, &dev, &k, note, sizeof note, &err), &err);
    CHECKF(k == 4 && dev[3] == RVS_DEV_GPU && fabs(cp[0] - 1200.0 / B.nnz) < 1e-12, "k %d cp0 %g", k,
           k ? cp[0] : 0);
    free(cp), free(dev);
    CHECK_OK(rvs_default_cp(&B, RVS_ALG_DIAG, 0, NULL, &cp, &dev, &k, note, sizeof note, &err), &err);
    CHECK(k == 2 && dev[0] == RVS_DEV_CPU);
    free(cp), free(dev);
    /* PCIe dominates a call on C: a CPU part of rows whose y stays on the host pays; not on the
     * tiny A, where the round trip does; not for pmf, whose y all comes back */
    rvs_calibration cal = {500, 1, 20, 16, 25, 25, 10}; /* GFLOP/s, threads, GB/s, us */
    CHECK_OK(rvs_default_cp(&C, RVS_ALG_NNZ, 1, &cal, &cp, &dev, &k, note, sizeof note, &err), &err);
    CHECKF(k == 2 && dev[1] == RVS_DEV_CPU && cp[1] > 0 && cp[1] < 1, "k %d: %s", k, note);
    free(cp), free(dev);
    CHECK_OK(rvs_default_cp(&A, RVS_ALG_NNZ, 1, &cal, &cp, &dev, &k, note, sizeof note, &err), &err);
    CHECKF(k == 1, "tiny matrix with a CPU part: %s", note);
    free(cp), free(dev);
    CHECK_OK(rvs_default_cp(&C, RVS_ALG_PMF, 1, &cal, &cp, &dev, &k, note, sizeof note, &err), &err);
    CHECKF(k == 1, "pmf with a CPU part: %s", note);
    free(cp), free(dev);
    cal.cpu_gflops = 0.01; /* a slow CPU never gets a part */
    CHECK_OK(rvs_default_cp(&C, RVS_ALG_NNZ, 1, &cal, &cp, &dev, &k, note, sizeof note, &err), &err);
    CHECK(k == 1);
    free(cp), free(dev);
    rvs_csr_free(&A);
    rvs_csr_free(&B);
    rvs_csr_free(&C);
    free(big);
}

/* A part of scattered rows larger than an eighth of its hub and than twice the sample's least
 * entries is sampled, not copied whole: its trial matrix is about the least sample (4M entries
 * on the CPU) of evenly spread row blocks; the same rows as a hub of their own are tried whole
 * (nothing to copy then), and so is a listed part within the bounds. */
static void check_big_part_sampled(void)
{
    const int64_t rows = 4000000, per = 5; /* a hub of 20M entries; the even rows: 10M */
    rvs_csr A = {0}, own = {0};
    rvs_advisor_options o;
    rvs_error err;
    rvs_advisor_options_default(&o);
    CHECK_OK(rvs_csr_alloc(&A, rows, 2 * rows + per, rows * per, RVS_F64, &err), &err);
    for (int64_t i = 0; i < rows; i++) {
        A.rowptr[i + 1] = (i + 1) * per;
        for (int64_t k = 0; k < per; k++) {
            A.colind[i * per + k] = (int32_t)(2 * i + k);
            ((double *)A.values)[i * per + k] = (double)(k + 1);
        }
    }
    int64_t *even = malloc((size_t)rows / 2 * sizeof *even);
    for (int64_t i = 0; i < rows / 2; i++)
        even[i] = 2 * i;
    rvs_row_list R = {&A, even, rows / 2, rows / 2 * per}, W;
    const rvs_csr *M = NULL;
    int sampled = -1;
    CHECK_OK(rvs_advise_trial_matrix(&own, &M, &sampled, &R, RVS_DEV_CPU, RVS_F64, 0, &o, &err), &err);
    CHECKF(sampled == 1 && M && M->nnz >= ((int64_t)4 << 20) - 2048 * per &&
               M->nnz <= ((int64_t)4 << 20) + 2048 * per && M->cols == A.cols && M->rows * per == M->nnz,
           "a listed part of 10M entries in a hub of 20M: sampled %d, %lld entries", sampled,
           M ? (long long)M->nnz : -1LL);
    rvs_csr_free(&own);
    rvs_row_list_all(&W, &A); /* the hub itself: tried whole without a copy */
    o.sample_nnz = (int64_t)24 << 20;
    CHECK_OK(rvs_advise_trial_matrix(&own, &M, &sampled, &W, RVS_DEV_CPU, RVS_F64, 0, &o, &err), &err);
    CHECKF(sampled == 0 && M == &A, "the whole hub of 20M entries: sampled %d, its own arrays %d", sampled,
           M == &A);
    rvs_csr_free(&own);
    /* on the GPU the least is 8M: the 10M even rows sampled there too (a copy would hold more) */
    CHECK_OK(rvs_advise_trial_matrix(&own, &M, &sampled, &R, RVS_DEV_GPU, RVS_F64, 0, &o, &err), &err);
    CHECKF(
        sampled == 1 && M && M->nnz >= ((int64_t)8 << 20) - 2048 * per && M->nnz <= ((int64_t)8 << 20) + 2048 * per,
        "a listed part of 10M entries on the GPU: sampled %d, %lld entries", sampled, M ? (long long)M->nnz : -1LL);
    rvs_csr_free(&own);
    R.nrows = 800000; /* the first 800k even rows, 4M entries: no more than the least, tried whole */
    R.nnz = R.nrows * per;
    CHECK_OK(rvs_advise_trial_matrix(&own, &M, &sampled, &R, RVS_DEV_CPU, RVS_F64, 0, &o, &err), &err);
    CHECKF(sampled == 0 && M && M->nnz == R.nnz, "a listed part of 4M entries: sampled %d", sampled);
    rvs_csr_free(&own);
    R.nrows = 1000000; /* 5M entries: more than the CPU's least, sampled at 4M */
    R.nnz = R.nrows * per;
    CHECK_OK(rvs_advise_trial_matrix(&own, &M, &sampled, &R, RVS_DEV_CPU, RVS_F64, 0, &o, &err), &err);
    CHECKF(sampled == 1 && M && M->nnz < R.nnz, "a listed part of 5M entries: sampled %d, %lld entries", sampled,
           M ? (long long)M->nnz : -1LL);
    rvs_csr_free(&own);
    free(even);
    rvs_csr_free(&A);
}

int main(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/engine-cache.%ld", getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp",
             (long)getpid());
    setenv("XDG_CACHE_HOME", dir, 1); /* a fresh trial cache */
    unsetenv("RVS_TRACE_MEM");        /* the programs it runs print one stderr line, counted */
    check_tunables();
    check_model();
    check_model_mode();
    check_default_cp();
    check_advisor();
    check_advisor_rows();
    check_advisor_few_rows();
    check_sample_keeps();
    check_big_part_sampled();
    check_decisions();
    check_runs();
    printf("%d plans ran and checked, %d refused by a fixed format\n", cases_ran, cases_refused);
    char path[600];
    snprintf(path, sizeof path, "%s/rvskit/trials", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/rvskit", dir);
    rmdir(path);
    rmdir(dir);
    return rvs_test_done();
}
