/* test_fmt_gather.c - a block built from picked rows gathered from the hub in windows
 * (rvs_fmt_from_rows, what the engine builds a part of scattered rows with) against the way it
 * was built before, from a copy of the rows (rvs_csr_extract_rows, rvs_csr_convert_values,
 * rvs_fmt_from_csr): the same status and message, and the same block bit for bit (the arrays of
 * both come poisoned with different bytes, so a slot one leaves unwritten differs), for every
 * format that gathers; values f64, f32, c128, c64 and converted between precisions; the parts of
 * Algorithms 3 (scattered rows) and 4 (filtered entries), alone and fused; runs of rows; windows
 * from one row to all; and every item of the engine's plans of partitioned streams, built by
 * the runner (rvs_item_block) against a build from the item's copy (rvs_item_csr). No argument:
 * generated matrices; "real": the shared matrices ($RVS_MATRICES/INDEX.tsv, exit 77 when
 * absent). */
#include <string.h>
#include "rvs_test.h"
#include "spmv_internal.h"

static int builds;   /* comparisons where both ways built a block */
static int released; /* builds that gave their rows back */
static int copied;   /* engine items built from a copy of their rows */

/* Empty unless a and b are the same block: sizes, params and every array byte for byte. */
static void block_diff(const rvs_fmt *a, const rvs_fmt *b, char *why, size_t n)
{
    why[0] = 0;
    if (a->id != b->id || a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz || a->vtype != b->vtype ||
        a->narrays != b->narrays || memcmp(a->param, b->param, sizeof a->param) != 0) {
        snprintf(why, n, "header: id %d/%d, %lldx%lld/%lldx%lld, nnz %lld/%lld, %d/%d arrays", (int)a->id,
                 (int)b->id, (long long)a->rows, (long long)a->cols, (long long)b->rows, (long long)b->cols,
                 (long long)a->nnz, (long long)b->nnz, a->narrays, b->narrays);
        return;
    }
    for (int i = 0; i < a->narrays; i++) {
        const rvs_array *x = &a->array[i], *y = &b->array[i];
        const size_t bytes = (size_t)x->count * rvs_dtype_size(x->dtype);
        if (strcmp(x->name, y->name) != 0 || x->dtype != y->dtype || x->count != y->count ||
            memcmp(x->data, y->data, bytes) != 0) {
            snprintf(why, n, "array %d '%s'/'%s' differs", i, x->name, y->name);
            return;
        }
    }
}

/* The picked rows built both ways in format id with options o, windows of window entries. */
static void compare(const rvs_row_pick *R, rvs_format_id id, const rvs_fmt_options *o, int64_t window,
                    const char *what)
{
    const rvs_format_ops *ops = rvs_format_lookup(id);
    int64_t *rows = malloc((size_t)(R->n > 0 ? R->n : 1) * sizeof *rows);
    rvs_csr C;
    rvs_fmt old, now;
    rvs_error e1 = {0}, e2 = {0};
    char why[256];
    for (int64_t i = 0; i < R->n; i++)
        rows[i] = R->rows ? R->rows[i] : R->first + i;
    rvs_status s1 = rvs_csr_extract_rows(&C, R->A, rows, R->n, R->filter, R->block, &e1);
    if (s1 == RVS_OK)
        s1 = rvs_csr_convert_values(&C, R->vt, &e1);
    CHECK_OK(s1, &e1);
    rvs_fmt_poison_unset(0x5a);
    memset(&old, 0, sizeof old);
    if (s1 == RVS_OK)
        s1 = rvs_fmt_from_csr(&old, id, &C, o, &e1);
    rvs_fmt_poison_unset(0xa5);
    rvs_csr given; /* with release, a copy of A to give back */
    rvs_row_pick Rg = *R;
    memset(&given, 0, sizeof given);
    if (R->release) {
        CHECK_OK(rvs_csr_copy(&given, R->A, &e2), &e2);
        Rg.A = &given;
    }
    rvs_status s2 = rvs_fmt_from_rows(&now, id, &Rg, o, window, &e2);
    rvs_fmt_poison_unset(-1);
    if (R->release && s2 == RVS_OK) { /* its pages went */
        int64_t kept = 0, from = given.rowptr[R->first], to = given.rowptr[R->first + R->n];
        for (int64_t p = from; p < to; p++)
            kept += given.colind[p] != 0;
        CHECKF(kept < (to - from) / 10, "%s, %s: %lld of %lld columns still there after the build", what, ops->name,
               (long long)kept, (long long)(to - from));
        released++;
    }
    rvs_csr_free(&given);
    CHECKF(s1 == s2 && strcmp(e1.msg, e2.msg) == 0, "%s, %s, window %lld: copy %d '%s', gathered %d '%s'", what,
           ops->name, (long long)window, (int)s1, e1.msg, (int)s2, e2.msg);
    if (s1 == RVS_OK && s2 == RVS_OK) {
        block_diff(&old, &now, why, sizeof why);
        CHECKF(why[0] == 0, "%s, %s, window %lld: %s", what, ops->name, (long long)window, why);
        builds++;
    }
    rvs_fmt_free(&old);
    rvs_fmt_free(&now);
    rvs_csr_free(&C);
    free(rows);
}

/* Build options: the defaults (refusals included), and ones that let ELL and DIA build and vary
 * HYB's K and HCC's panels, groups and block size (small blocks split long rows). */
static void options(rvs_fmt_options o[3], const rvs_csr *A)
{
    for (int k = 0; k < 3; k++)
        rvs_fmt_options_default(&o[k]);
    o[1].ell_max_ratio = o[1].dia_max_ratio = 1000000;
    o[1].hyb_k = RVS_HYB_K_THIRD;
    o[1].hcc_np = 4;
    o[1].hcc_g = 8;
    o[1].hcc_nb = A->nnz / 40 + 1;
    o[2].hyb_k = 2;
    o[2].hcc_nb = 3;
}

/* Every format against every pick, options and window of the lists (CSR: refused). */
static void compare_formats(const rvs_row_pick *R, const rvs_fmt_options *o, int nopt, const int64_t *windows,
                            int nwin, const char *what)
{
    for (int id = 1; id < RVS_FMT_COUNT; id++) {
        if (!rvs_fmt_gathers((rvs_format_id)id)) {
            rvs_fmt F;
            rvs_error err = {0};
            CHECKF(id == RVS_FMT_CSR &&
                       rvs_fmt_from_rows(&F, (rvs_format_id)id, R, NULL, 1, &err) == RVS_ERR_UNSUPPORTED,
                   "format %d does not gather", id);
            continue;
        }
        for (int k = 0; k < nopt; k++)
            for (int w = 0; w < nwin; w++)
                compare(R, (rvs_format_id)id, &o[k], windows[w], what);
    }
}

/* The rows of parts from..to-1 of P, concatenated (a fused item). */
static int64_t *fused_rows(const rvs_partition *P, int from, int to, int64_t *n)
{
    int64_t *rows, k = 0;
    *n = 0;
    for (int p = from; p < to; p++)
        *n += P->parts[p].nrows;
    rows = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *rows);
    for (int p = from; p < to; p++) {
        memcpy(rows + k, P->parts[p].rows, (size_t)P->parts[p].nrows * sizeof *rows);
        k += P->parts[p].nrows;
    }
    return rows;
}

/* The parts of a partition of A with algorithm alg into k parts as the engine picks them: each
 * alone and the ones of one entry class fused, in values vt. */
static void compare_partition(const rvs_csr *A, rvs_alg alg, int k, int64_t block, rvs_vtype vt,
                              const rvs_fmt_options *o, int nopt, const int64_t *windows, int nwin, int each,
                              const char *name)
{
    const double cp[4] = {1, 2, 3, 1};
    rvs_partition P;
    rvs_error err = {0};
    char what[256];
    rvs_status st = rvs_partition_compute(&P, A, alg, k, cp, NULL, block, &err);
    CHECK_OK(st, &err);
    if (st != RVS_OK)
        return;
    for (int p = 0; p < P.k && each; p++) {
        rvs_row_pick R = {A, P.parts[p].rows, 0, P.parts[p].nrows, (int)P.parts[p].entries, P.block_size, vt, 0};
        snprintf(what, sizeof what, "%s, %s part %d of %d (%s), %s", name, rvs_alg_name(alg), p + 1, P.k,
                 P.parts[p].entries ? "filtered" : "all entries", rvs_vtype_name(vt));
        compare_formats(&R, o, nopt, windows, nwin, what);
    }
    const int from = P.parts[0].entries == RVS_ENTRIES_ALL ? 0 : 1; /* Algorithm 4: parts 2..k fuse */
    int64_t n;
    int64_t *rows = fused_rows(&P, from, P.k, &n);
    rvs_row_pick R = {A, rows, 0, n, (int)P.parts[from].entries, P.block_size, vt, 0};
    snprintf(what, sizeof what, "%s, %s parts %d..%d fused, %s", name, rvs_alg_name(alg), from + 1, P.k,
             rvs_vtype_name(vt));
    compare_formats(&R, o, nopt, windows, nwin, what);
    free(rows);
    rvs_partition_free(&P);
}

/* A's rows in a random order of a random half, a run, a run in another precision, none. */
static void compare_picks(const rvs_csr *A, rvs_vtype vt, const rvs_fmt_options *o, const int64_t *windows,
                          int nwin, unsigned seed, const char *name)
{
    int64_t n = 0, *rows = malloc((size_t)(A->rows > 0 ? A->rows : 1) * sizeof *rows);
    char what[256];
    srand(seed);
    for (int64_t i = 0; i < A->rows; i++)
        if (rand() % 2)
            rows[n++] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = rand() % (i + 1), t = rows[i];
        rows[i] = rows[j];
        rows[j] = t;
    }
    rvs_row_pick R = {A, rows, 0, n, 0, 0, vt, 0};
    snprintf(what, sizeof what, "%s, shuffled half, %s", name, rvs_vtype_name(vt));
    compare_formats(&R, o, 3, windows, nwin, what);
    rvs_row_pick run = {A, NULL, A->rows / 3, A->rows / 2, 0, 0, vt, 0};
    snprintf(what, sizeof what, "%s, rows %lld.. (a run), %s", name, (long long)run.first, rvs_vtype_name(vt));
    compare_formats(&run, o, 3, windows, nwin, what);
    rvs_row_pick none = {A, rows, 0, 0, 0, 0, vt, 0};
    snprintf(what, sizeof what, "%s, no rows, %s", name, rvs_vtype_name(vt));
    compare_formats(&none, o, 1, windows, 1, what);
    free(rows);
}

/* The value types to build A in: its own and the other precision (complex stays complex). */
static void value_types(const rvs_csr *A, rvs_vtype vt[2])
{
    vt[0] = A->vtype;
    vt[1] = rvs_vtype_with_precision(A->vtype, rvs_vtype_real(A->vtype) == RVS_F32 ? RVS_F64 : RVS_F32);
}

/* Every comparison on A (generated: every window and option). */
static void check_generated(const rvs_csr *A, unsigned seed, const char *name)
{
    const int64_t windows[] = {1, 37, (int64_t)1 << 40};
    rvs_fmt_options o[3];
    rvs_vtype vt[2];
    options(o, A);
    value_types(A, vt);
    for (int t = 0; t < 2; t++) {
        compare_picks(A, vt[t], o, windows, 3, seed, name);
        compare_partition(A, RVS_ALG_PMF, 3, 0, vt[t], o, 3, windows, 3, 1, name);
        compare_partition(A, RVS_ALG_DIAG, 3, t ? 4 : 0, vt[t], o, 3, windows, 3, 1, name);
    }
}

/* A run of rows whose entries are given back as the block fills (over many pages: windows of a
 * few pages each), in both precisions. */
static void check_release(void)
{
    const int64_t windows[] = {20000, 77777};
    rvs_fmt_options o[3];
    rvs_vtype vt[2];
    rvs_csr A;
    CHECK(rvs_test_random_csr(&A, 3000, 3000, 0.03, 1, 8) == RVS_OK);
    options(o, &A);
    value_types(&A, vt);
    for (int t = 0; t < 2; t++) {
        rvs_row_pick R = {&A, NULL, 100, 2800, 0, 0, vt[t], 1};
        compare_formats(&R, o, 2, windows, 2, t ? "given back, other precision" : "given back");
    }
    rvs_csr_free(&A);
}

/* Entries of hub window w (2^16 entries, the edge pages left out) that differ from the copy's. */
static int64_t window_changed(const rvs_csr *A, const rvs_csr *copy, int64_t w)
{
    const int64_t lo = (w << 16) + 2048, hi = ((w + 1) << 16) - 2048 < A->nnz ? ((w + 1) << 16) - 2048 : A->nnz;
    int64_t n = 0;
    for (int64_t p = lo; p < hi; p++)
        n += A->colind[p] != copy->colind[p] || ((const double *)A->values)[p] != ((const double *)copy->values)[p];
    return n;
}

/* rvs_hub_count: rows taken in a shuffled order give a window's pages back when its last row is
 * taken, not before; a window with a row never taken keeps its entries. */
static void check_hub_count(void)
{
    rvs_csr A, copy;
    rvs_hub_count H;
    rvs_error err = {0};
    CHECK(rvs_test_random_csr(&A, 3000, 3000, 0.04, 1, 33) == RVS_OK); /* about 5.5 windows */
    CHECK_OK(rvs_csr_copy(&copy, &A, &err), &err);
    CHECK_OK(rvs_hub_count_init(&H, &A, &err), &err);
    CHECK(H.nwin >= 5 && A.vtype == RVS_F64);
    int64_t *order = malloc((size_t)A.rows * sizeof *order), n = 0, last0 = -1;
    for (int64_t r = 0; r < A.rows; r++) /* window 3 keeps the rows through it */
        if (A.rowptr[r + 1] <= (int64_t)3 << 16 || A.rowptr[r] >= (int64_t)4 << 16)
            order[n++] = r;
    unsigned seed = 5;
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = (int64_t)(rand_r(&seed) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int64_t i = 0; i < n; i++) /* the last row through window 0 taken at the end */
        if (A.rowptr[order[i]] < (int64_t)1 << 16 && A.rowptr[order[i] + 1] > A.rowptr[order[i]])
            last0 = i;
    for (int64_t i = 0; i < n; i++)
        if (i != last0)
            rvs_hub_count_take(&H, order[i]);
    CHECKF(window_changed(&A, &copy, 0) == 0, "window 0 changed before its last row was taken");
    CHECKF(window_changed(&A, &copy, 3) == 0, "window 3 changed: rows through it were never taken");
    CHECKF(window_changed(&A, &copy, 1) > 60000 - 4096 - 100, "window 1 kept its entries after all its rows went");
    rvs_hub_count_take(&H, order[last0]);
    CHECKF(window_changed(&A, &copy, 0) > 60000 - 4096 - 100, "window 0 kept its entries after its last row went");
    CHECKF(window_changed(&A, &copy, 3) == 0, "window 3 changed after window 0 went");
    rvs_hub_count_free(&H);
    free(order);
    rvs_csr_free(&copy);
    rvs_csr_free(&A);
}

/* Generated matrices: random with empty rows, a long row among short ones, a band, tiny ones;
 * each also in f32 and complex. */
static void check_random(void)
{
    struct {
        int64_t rows, cols;
        double density;
        int empty;
    } shapes[] = {{200, 180, 0.05, 1}, {97, 300, 0.1, 0}, {33, 33, 0.3, 1}, {1, 1, 1.0, 0}, {64, 5, 0.5, 1}};
    char name[128];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (int kind = 0; kind < 3; kind++) {
            rvs_csr A;
            CHECK(rvs_test_random_csr(&A, shapes[i].rows, shapes[i].cols, shapes[i].density, shapes[i].empty,
                                      (unsigned)i + 7) == RVS_OK);
            rvs_error err = {0};
            if (kind == 1)
                CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
            if (kind == 2)
                CHECK_OK(rvs_test_complexify(&A, RVS_C128, (unsigned)i + 11), &err);
            snprintf(name, sizeof name, "random %lldx%lld %s", (long long)shapes[i].rows, (long long)shapes[i].cols,
                     rvs_vtype_name(A.vtype));
            check_generated(&A, (unsigned)i, name);
            rvs_csr_free(&A);
        }
    }
    /* one row of 300 entries among 400 rows of 0..5: HCC splits it, HYB and HYB-DIA spill it */
    int64_t len[400];
    for (int i = 0; i < 400; i++)
        len[i] = i == 150 ? 300 : i % 6;
    rvs_csr A;
    CHECK(rvs_test_csr_from_lengths(&A, len, 400, 400) == RVS_OK);
    check_generated(&A, 3, "one long row");
    rvs_csr_free(&A);
    /* a band of 5 diagonals: DIA builds */
    for (int i = 0; i < 400; i++)
        len[i] = 5;
    CHECK(rvs_test_csr_from_lengths(&A, len, 400, 400) == RVS_OK);
    for (int64_t i = 0; i < 400; i++)
        for (int64_t k = 0; k < 5; k++)
            A.colind[5 * i + k] = (int32_t)((i + k + 398) % 400);
    for (int64_t i = 0; i < 400; i++) /* ascending columns in each row */
        for (int64_t a = 5 * i; a < 5 * i + 5; a++)
            for (int64_t b = a + 1; b < 5 * i + 5; b++)
                if (A.colind[b] < A.colind[a]) {
                    int32_t t = A.colind[a];
                    A.colind[a] = A.colind[b];
                    A.colind[b] = t;
                }
    check_generated(&A, 4, "band");
    rvs_csr_free(&A);
}

/* Picks the library refuses: a row outside the matrix, complex values made real. */
static void check_refusals(void)
{
    rvs_csr A;
    rvs_fmt F;
    rvs_error err = {0};
    int64_t rows[2] = {3, 40};
    CHECK(rvs_test_random_csr(&A, 10, 10, 0.3, 0, 1) == RVS_OK);
    rvs_row_pick R = {&A, rows, 0, 2, 0, 0, RVS_F64, 0};
    CHECKF(rvs_fmt_from_rows(&F, RVS_FMT_ELL, &R, NULL, 4, &err) == RVS_ERR_RANGE && strstr(err.msg, "40"),
           "row 40: %s", err.msg);
    rvs_row_pick run = {&A, NULL, 5, 6, 0, 0, RVS_F64, 0};
    CHECK(rvs_fmt_from_rows(&F, RVS_FMT_ELL, &run, NULL, 4, &err) == RVS_ERR_RANGE);
    CHECK_OK(rvs_test_complexify(&A, RVS_C64, 2), &err);
    rvs_row_pick real = {&A, rows, 0, 1, 0, 0, RVS_F32, 0};
    CHECK(rvs_fmt_from_rows(&F, RVS_FMT_JAD, &real, NULL, 4, &err) == RVS_ERR_UNSUPPORTED);
    rvs_csr_free(&A);
}

/* A stream of A partitioned by alg into 3 parts. */
static void partitioned(rvs_stream *S, const rvs_csr *A, rvs_alg alg)
{
    const double cp[3] = {1, 2, 3};
    rvs_error err = {0};
    memset(S, 0, sizeof *S);
    CHECK_OK(rvs_csr_copy(&S->A, A, &err), &err);
    CHECK_OK(rvs_partition_compute(&S->partition, &S->A, alg, 3, cp, NULL, 0, &err), &err);
    S->has_partition = 1;
}

/* Plan P's items built as the runner builds them (with consume: copied out of S's hub, which
 * goes) against blocks built from each item's copy made from K (the same stream, kept). */
static void compare_items(const rvs_plan *P, const rvs_stream *S, const rvs_stream *K, int consume,
                          const char *what)
{
    rvs_spmv_engine E;
    rvs_error err = {0};
    char why[256];
    memset(&E, 0, sizeof E);
    E.S = S;
    E.vt = P->vtype;
    E.n = P->nitems;
    E.consume = consume;
    E.items = calloc((size_t)P->nitems + 1, sizeof *E.items);
    for (int i = 0; i < E.n; i++) {
        E.items[i].it = &P->items[i];
        CHECK_OK(rvs_item_rows(&E.items[i], S, &err), &err);
    }
    if (consume)
        CHECK_OK(rvs_items_split(&E, &err), &err);
    for (int i = 0; i < E.n; i++) {
        rvs_eitem *e = &E.items[i], k = {0};
        rvs_csr C;
        const rvs_csr *src;
        int view = 0;
        rvs_fmt old;
        const char *fmt = rvs_format_lookup(e->it->format)->name;
        rvs_fmt_poison_unset(0xa5);
        rvs_status s2 = rvs_item_block(e, S, E.vt, consume, &err);
        rvs_fmt_poison_unset(0x5a);
        k.it = e->it;
        rvs_status s1 = rvs_item_rows(&k, K, &err);
        memset(&old, 0, sizeof old);
        if (s1 == RVS_OK && (s1 = rvs_item_csr(&C, &src, &view, &k, K, E.vt, &err)) == RVS_OK) {
            s1 = rvs_fmt_from_csr(&old, e->it->format, src, &e->it->knobs.fo, &err);
            rvs_item_csr_free(&C, view);
        }
        rvs_fmt_poison_unset(-1);
        CHECKF(s1 == s2, "%s, %s item %d%s: statuses %d, %d", what, fmt, i, e->copy ? " (copied)" : "", (int)s1,
               (int)s2);
        copied += e->copy != NULL;
        if (s1 == RVS_OK && s2 == RVS_OK) {
            block_diff(&old, e->F, why, sizeof why);
            CHECKF(why[0] == 0, "%s, %s item %d%s: %s", what, fmt, i, e->copy ? " (copied)" : "", why);
            builds++;
        }
        rvs_fmt_free(&old);
        rvs_fmt_free(&e->own);
        if (!e->rows_borrowed)
            free(e->rows);
        if (!k.rows_borrowed)
            free(k.rows);
    }
    rvs_partition_split_free(E.copies, E.ncopies);
    free(E.items);
}

/* Every item of the CPU plans of A partitioned by alg, CSR and each gathering format as the
 * fallback, fused and not, in vt, built as the runner builds them, with and without consume
 * (then on a stream of its own, whose hub goes), against a build from the item's copy. */
static void check_engine(const rvs_csr *A, rvs_alg alg, rvs_vtype vt, const char *name)
{
    rvs_engine_devices dev;
    rvs_stream S, K;
    rvs_error err = {0};
    char what[256];
    partitioned(&K, A, alg);
    rvs_engine_devices_probe(&dev, 0, 0);
    for (int id = 1; id < RVS_FMT_COUNT; id++)
        for (int run = 0; run < 4 && (id == RVS_FMT_CSR || rvs_fmt_gathers((rvs_format_id)id)); run++) {
            rvs_plan P;
            rvs_plan_options o;
            const int fuse = run & 1, consume = run >> 1;
            rvs_plan_options_default(&o);
            o.mode = RVS_MODE_CPU;
            o.vtype = vt;
            o.fallback = (rvs_format_id)id;
            o.fuse = fuse;
            partitioned(&S, A, alg);
            if (rvs_plan_make(&P, &S, &dev, &o, &err) == RVS_OK) {
                snprintf(what, sizeof what, "%s, %s%s%s", name, rvs_alg_name(alg), fuse ? ", fused" : "",
                         consume ? ", consumed" : "");
                compare_items(&P, &S, &K, consume, what);
                rvs_plan_free(&P);
            } else {
                CHECKF(0, "%s: plan: %s", name, err.msg);
            }
            rvs_stream_free(&S);
        }
    rvs_stream_free(&K);
}

/* The shared matrix m read into A when it has at most 300k entries (a failed read is checked). */
static int read_small(const rvs_test_matrix *m, rvs_csr *A)
{
    rvs_error err = {0};
    memset(A, 0, sizeof *A);
    if (m->nnz_declared > 300000)
        return 0;
    const rvs_status st = rvs_mm_read_file(A, NULL, m->path, NULL, NULL, &err);
    CHECKF(st == RVS_OK, "%s: %s", m->name, err.msg);
    return st == RVS_OK;
}

/* Every shared matrix of at most 300k entries: its pmf parts fused, and the parts of
 * Algorithm 4 (filtered), in its own precision or the other one, windows of a fifth of it. */
static int check_real(void)
{
    rvs_test_matrix *list;
    const int n = rvs_test_matrix_list(&list);
    int done = 0;
    if (n == 0) {
        printf("no $RVS_MATRICES/INDEX.tsv: skipped\n");
        return RVS_TEST_SKIP;
    }
    for (int i = 0; i < n; i++) {
        rvs_csr A;
        rvs_fmt_options o[3];
        rvs_vtype vt[2];
        if (!read_small(&list[i], &A))
            continue;
        const int64_t window = A.nnz / 5 + 1;
        options(o, &A);
        o[1].ell_max_ratio = o[1].dia_max_ratio = 0; /* the defaults: no DIA of a scattered matrix */
        value_types(&A, vt);
        compare_partition(&A, RVS_ALG_PMF, 4, 0, vt[i % 2], o, 2, &window, 1, 0, list[i].name);
        compare_partition(&A, RVS_ALG_DIAG, 3, 0, vt[(i + 1) % 2], o, 2, &window, 1, 1, list[i].name);
        rvs_csr_free(&A);
        done++;
    }
    free(list);
    printf("%d real matrices, %d blocks compared\n", done, builds);
    return rvs_test_done();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "real") == 0)
        return check_real();
    check_random();
    check_release();
    check_hub_count();
    check_refusals();
    rvs_csr A;
    rvs_error err = {0};
    CHECK(rvs_test_random_csr(&A, 3000, 2500, 0.02, 1, 21) == RVS_OK);
    for (int a = 0; a < 3; a++)
        check_engine(&A, a == 2 ? RVS_ALG_DIAG : RVS_ALG_PMF, a == 1 ? RVS_F32 : RVS_F64,
                     "engine, random 3000x2500");
    CHECK_OK(rvs_test_complexify(&A, RVS_C128, 5), &err);
    check_engine(&A, RVS_ALG_PMF, RVS_C64, "engine, complex 3000x2500");
    check_engine(&A, RVS_ALG_DIAG, RVS_C128, "engine, complex 3000x2500");
    rvs_csr_free(&A);
    printf("%d blocks compared, %d built giving their rows back, %d engine items from copies\n", builds, released,
           copied);
    CHECK(released > 0 && copied > 0);
    return rvs_test_done();
}
