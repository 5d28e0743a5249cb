/* test_fmt_ell.c - ELL, ELLR, PELLR, BiELL, JAD: CSR -> format -> CSR is exact, the validator
 * accepts what the builder made and refuses corrupted copies, and the CPU kernels match the
 * CSparse reference for f64 and f32, with NaN in x at columns no entry uses (padding must never
 * read them into y). No argument: generated and edge-case matrices. "real": every matrix of
 * $RVS_MATRICES/INDEX.tsv (exit 77 when absent). */
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fmt_ell_common.h"
#include "rvs_cpu.h"
#include "rvs_test.h"

static const rvs_format_id family[] = {RVS_FMT_ELL, RVS_FMT_ELLR, RVS_FMT_PELLR, RVS_FMT_BIELL, RVS_FMT_JAD};
#define NFAMILY 5
#define MAX_SLOTS (40 * 1000 * 1000) /* ELL of a matrix with one huge row is skipped beyond this */
static unsigned seed;
static int spmv_runs = 2; /* SpMV runs per format and type (1 for the real matrices) */

/* Slots a plain ELL of A would store. */
static int64_t ell_slots(const rvs_csr *A)
{
    int64_t w = 0;
    for (int64_t i = 0; i < A->rows; i++)
        w = A->rowptr[i + 1] - A->rowptr[i] > w ? A->rowptr[i + 1] - A->rowptr[i] : w;
    return (A->rows + 31) / 32 * 32 * w;
}

/* Eq. (2) over A's rows (order does not matter). */
static int64_t csr_np(const rvs_csr *A)
{
    int64_t np = 0;
    for (int64_t i = 0; i < A->rows; i++)
        if (A->rowptr[i + 1] > A->rowptr[i])
            np += 2 * (A->rowptr[i + 1] - A->rowptr[i]) - 1;
    return np;
}

/* spmv_runs runs of y = F*x with a fresh x (NaN at unused columns) and y poisoned with NaN. */
static void check_spmv(const rvs_csr *A, const rvs_fmt *F, const char *label)
{
    int64_t n = A->cols + 1, m = A->rows + 1, worst;
    size_t vs = rvs_vtype_size(A->vtype);
    double *xd = malloc((size_t)n * 8), *yd = malloc((size_t)m * 8), maxe;
    void *x = malloc((size_t)n * vs), *y = malloc((size_t)m * vs);
    unsigned char *used = calloc((size_t)n, 1);
    rvs_error err = {0};
    for (int64_t p = 0; p < A->nnz; p++)
        used[A->colind[p]] = 1;
    for (int run = 0; run < spmv_runs; run++) {
        rvs_test_random_vector(xd, A->cols, seed++);
        for (int64_t j = 0; j < A->cols; j++) {
            if (!used[j])
                xd[j] = NAN;
            if (A->vtype == RVS_F64)
                ((double *)x)[j] = xd[j];
            else
                xd[j] = ((float *)x)[j] = (float)xd[j];
        }
        for (int64_t i = 0; i < A->rows; i++) {
            if (A->vtype == RVS_F64)
                ((double *)y)[i] = NAN;
            else
                ((float *)y)[i] = NAN;
        }
        CHECK_OK(rvs_cpu_spmv(F, x, y, &err), &err);
        for (int64_t i = 0; i < A->rows; i++)
            yd[i] = A->vtype == RVS_F64 ? ((double *)y)[i] : ((float *)y)[i];
        rvs_status st = rvs_spmv_check(A, xd, yd, A->vtype == RVS_F64 ? 1e-10 : 1e-4, &maxe, &worst, &err);
        CHECKF(st == RVS_OK, "%s: spmv: %s (max err %g, row %lld)", label, err.msg, maxe, (long long)worst);
    }
    free(xd);
    free(yd);
    free(x);
    free(y);
    free(used);
}

/* Every slot of an ELL-family block written (its arrays come poisoned, rvs_fmt_poison_unset):
 * a column in range or padding (-1), and padding with the value 0. */
static void check_slots(const rvs_fmt *F, const char *label)
{
    const rvs_array *c = rvs_fmt_array(F, "col"), *v = rvs_fmt_array(F, "values");
    if (!c || !v)
        return;
    const int32_t *col = c->data;
    const size_t vs = rvs_dtype_size(v->dtype);
    static const char zero[16];
    int64_t bad = 0;
    for (int64_t s = 0; s < c->count; s++)
        bad += (col[s] != RVS_ELL_PAD && (col[s] < 0 || col[s] >= F->cols)) ||
               (col[s] == RVS_ELL_PAD && memcmp((const char *)v->data + (size_t)s * vs, zero, vs) != 0);
    CHECKF(bad == 0, "%s: %lld of %lld slots not written", label, (long long)bad, (long long)c->count);
}

/* Build, validate, round-trip, stats and SpMV of A in one format. */
static void check_format(const rvs_csr *A, rvs_format_id id, const char *name)
{
    const rvs_format_ops *ops = rvs_format_lookup(id);
    rvs_fmt F = {0};
    rvs_csr B = {0};
    rvs_error err = {0};
    rvs_fmt_stats s;
    char label[300];
    snprintf(label, sizeof label, "%s as %s/%s", name, ops->name, A->vtype == RVS_F64 ? "f64" : "f32");
    if ((id == RVS_FMT_ELL || id == RVS_FMT_ELLR) && ell_slots(A) > MAX_SLOTS)
        return;
    rvs_status st = rvs_fmt_from_csr(&F, id, A, NULL, &err);
    if ((id == RVS_FMT_ELL || id == RVS_FMT_ELLR) && ell_slots(A) > RVS_ELL_FREE_SLOTS &&
        (double)ell_slots(A) > (double)RVS_ELL_DEFAULT_RATIO * (double)A->nnz) {
        /* too much padding: refused before anything is allocated */
        CHECKF(st == RVS_ERR_OVERFLOW && strstr(err.msg, "use pellr") && F.narrays == 0,
               "%s: ELL padding limit: status %d %s", label, (int)st, err.msg);
        return;
    }
    CHECKF(st == RVS_OK, "%s: build: %s", label, err.msg);
    if (st != RVS_OK)
        return;
    check_slots(&F, label);
    CHECKF(ops->validate(&F, &err) == RVS_OK, "%s: validate: %s", label, err.msg);
    CHECKF(rvs_fmt_to_csr(&B, &F, &err) == RVS_OK && rvs_test_csr_same(A, &B), "%s: round trip", label);
    ops->stats(&F, &s);
    CHECKF(s.padded >= 0 && s.bytes >= 0 && s.n_iter >= 0, "%s: stats", label);
    if (id == RVS_FMT_ELL)
        CHECKF(s.n_p == (F.param[0] ? A->rows * (2 * F.param[0] - 1) : 0), "%s: ELL N_p", label);
    else
        CHECKF(s.n_p == csr_np(A), "%s: N_p %lld", label, (long long)s.n_p);
    if (id == RVS_FMT_JAD)
        CHECKF(s.padded == 0, "%s: JAD pads nothing", label);
    check_spmv(A, &F, label);
    rvs_csr_free(&B);
    rvs_fmt_free(&F);
}

/* Every format, f64 and f32. */
static void check_all(const rvs_csr *A64, const char *name)
{
    rvs_csr A32 = {0};
    for (int f = 0; f < NFAMILY; f++)
        check_format(A64, family[f], name);
    CHECK(rvs_csr_copy(&A32, A64, NULL) == RVS_OK && rvs_csr_convert_values(&A32, RVS_F32, NULL) == RVS_OK);
    for (int f = 0; f < NFAMILY; f++)
        check_format(&A32, family[f], name);
    rvs_csr_free(&A32);
}

/* Matrix from row lengths (each <= cols), checked in every format. */
static void check_lengths(const int64_t *len, int64_t rows, int64_t cols, const char *name)
{
    rvs_csr A = {0};
    CHECK(rvs_test_csr_from_lengths(&A, len, rows, cols) == RVS_OK);
    check_all(&A, name);
    rvs_csr_free(&A);
}

/* Empty, one row, one column, one dense row among empty ones, rectangular, explicit zeros. */
static void check_edges(void)
{
    int64_t len[1000] = {0};
    check_lengths(len, 0, 0, "0x0");
    memset(len, 0, sizeof len);
    check_lengths(len, 5, 5, "5x5 empty");
    check_lengths(len, 3, 0, "3x0");
    len[0] = 7;
    check_lengths(len, 1, 9, "one row");
    for (int i = 0; i < 100; i++)
        len[i] = i % 3 == 0;
    check_lengths(len, 100, 1, "one column");
    memset(len, 0, sizeof len);
    len[77] = 1000;
    check_lengths(len, 200, 1000, "one dense row");
    for (int i = 0; i < 3; i++)
        len[i] = 1000 - 300 * i;
    check_lengths(len, 3, 1000, "3x1000");
    for (int i = 0; i < 1000; i++)
        len[i] = i % 4;
    check_lengths(len, 1000, 3, "1000x3");
    for (int i = 0; i < 65; i++)
        len[i] = (i * 7919) % 40;
    check_lengths(len, 65, 40, "65 mixed");
    /* explicit zeros are entries, not padding */
    rvs_csr A = {0};
    CHECK(rvs_test_csr_from_lengths(&A, len, 65, 40) == RVS_OK);
    for (int64_t p = 0; p < A.nnz; p += 3)
        ((double *)A.values)[p] = 0.0;
    check_all(&A, "explicit zeros");
    rvs_csr_free(&A);
}

/* Deep copy of F. */
static void fmt_clone(rvs_fmt *D, const rvs_fmt *F)
{
    *D = *F;
    D->narrays = 0;
    for (int i = 0; i < F->narrays; i++) {
        void *p;
        const rvs_array *a = &F->array[i];
        if (rvs_fmt_add_array(D, a->name, a->dtype, a->count, &p, NULL) == RVS_OK)
            memcpy(p, a->data, (size_t)a->count * rvs_dtype_size(a->dtype));
    }
}

/* Index of the first stored entry's slot (a non-negative col), or -1. */
static int64_t first_entry(const rvs_fmt *F)
{
    const rvs_array *c = rvs_fmt_array(F, "col");
    for (int64_t i = 0; i < c->count; i++)
        if (((int32_t *)c->data)[i] >= 0)
            return i;
    return -1;
}

/* One corruption of a clone of F must be refused by the validator. */
static void expect_refused(const rvs_fmt *F, const char *what, const char *arr, int64_t at, int64_t value)
{
    const rvs_format_ops *ops = rvs_format_lookup(F->id);
    rvs_fmt D;
    rvs_error err = {0};
    fmt_clone(&D, F);
    if (arr && strcmp(arr, "param") == 0)
        D.param[at] = value;
    else if (arr) {
        rvs_array *a = (rvs_array *)rvs_fmt_array(&D, arr);
        if (a->dtype == RVS_DT_I64)
            ((int64_t *)a->data)[at] = value;
        else
            ((int32_t *)a->data)[at] = (int32_t)value;
    } else
        free(D.array[--D.narrays].data);
    rvs_status st = ops->validate(&D, &err);
    CHECKF(st == RVS_ERR_FORMAT || st == RVS_ERR_RANGE, "%s: %s accepted (status %d)", ops->name, what, (int)st);
    rvs_fmt_free(&D);
}

/* Corrupted copies of each format of a random matrix are refused. */
static void check_corruption(void)
{
    rvs_csr A = {0};
    CHECK(rvs_test_random_csr(&A, 300, 200, 0.03, 1, 7) == RVS_OK);
    for (int f = 0; f < NFAMILY; f++) {
        rvs_fmt F = {0};
        rvs_error err = {0};
        CHECK_OK(rvs_fmt_from_csr(&F, family[f], &A, NULL, &err), &err);
        int64_t e = first_entry(&F);
        const int32_t *col = rvs_fmt_array(&F, "col")->data;
        expect_refused(&F, "column = cols", "col", e, A.cols);
        expect_refused(&F, "column = -7", "col", e, -7);
        expect_refused(&F, "missing array", NULL, 0, 0);
        expect_refused(&F, "param[0] + 1", "param", 0, F.param[0] + 1);
        if (family[f] != RVS_FMT_JAD) {
            expect_refused(&F, "entry turned into padding", "col", e, -1);
            int64_t pad = 0;
            while (col[pad] >= 0)
                pad++;
            expect_refused(&F, "padding turned into an entry", "col", pad, 0);
        }
        if (rvs_fmt_array(&F, "perm")) {
            const int32_t *perm = rvs_fmt_array(&F, "perm")->data;
            expect_refused(&F, "perm repeats a row", "perm", 1, perm[0]);
            expect_refused(&F, "perm out of range", "perm", 0, A.rows);
        }
        if (family[f] == RVS_FMT_ELLR)
            expect_refused(&F, "rl + 1", "rl", 0, ((int32_t *)rvs_fmt_array(&F, "rl")->data)[0] + 1);
        if (family[f] == RVS_FMT_PELLR) {
            expect_refused(&F, "wl + 1", "wl", 0, ((int32_t *)rvs_fmt_array(&F, "wl")->data)[0] + 1);
            expect_refused(&F, "sptr + 32", "sptr", 1, ((int64_t *)rvs_fmt_array(&F, "sptr")->data)[1] + 32);
        }
        if (family[f] == RVS_FMT_BIELL) {
            expect_refused(&F, "3 lanes per row", "gtpr", 0, 3);
            expect_refused(&F, "group row shifted", "grow", 1, ((int32_t *)rvs_fmt_array(&F, "grow")->data)[1] + 1);
            expect_refused(&F, "gptr huge", "gptr", 1, INT64_MAX / 2);
        }
        if (family[f] == RVS_FMT_JAD)
            expect_refused(&F, "jdptr shifted", "jdptr", 1, ((int64_t *)rvs_fmt_array(&F, "jdptr")->data)[1] + 1);
        rvs_fmt_free(&F);
    }
    /* CSR: the recorded longest row, the entry order and the value coding on the GPU (0 or 1) */
    rvs_fmt F = {0};
    rvs_error err = {0};
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, NULL, &err), &err);
    CHECK(F.param[2] == 0 && F.param[3] == 0 && rvs_format_lookup(RVS_FMT_CSR)->validate(&F, &err) == RVS_OK);
    expect_refused(&F, "csr longest row + 1", "param", 0, F.param[0] + 1);
    expect_refused(&F, "csr entry order 2", "param", 2, 2);
    expect_refused(&F, "csr entry order -1", "param", 2, -1);
    expect_refused(&F, "csr value coding 2", "param", 3, 2);
    expect_refused(&F, "csr value coding -1", "param", 3, -1);
    rvs_fmt_free(&F);
    rvs_fmt_options plain;
    rvs_fmt_options_default(&plain);
    plain.csr_values = 1;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_CSR, &A, &plain, &err), &err);
    CHECK(F.param[3] == 1 && rvs_format_lookup(RVS_FMT_CSR)->validate(&F, &err) == RVS_OK);
    rvs_fmt_free(&F);
    rvs_csr_free(&A);
}

/* Random matrices of several shapes and skews. */
static void check_random(void)
{
    static const struct {
        int64_t rows, cols;
        double density;
        int empty;
    } shapes[] = {{1, 1, 1.0, 0},     {31, 33, 0.2, 1},    {32, 32, 0.1, 0},
                  {33, 64, 0.3, 1},   {500, 400, 0.02, 1}, {2000, 2000, 0.004, 1},
                  {3000, 50, 0.1, 0}, {40, 3000, 0.05, 1}, {20000, 20000, 0.0005, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        rvs_csr A = {0};
        char name[64];
        snprintf(name, sizeof name, "random %lldx%lld", (long long)shapes[i].rows, (long long)shapes[i].cols);
        CHECK(rvs_test_random_csr(&A, shapes[i].rows, shapes[i].cols, shapes[i].density, shapes[i].empty,
                                  (unsigned)i + 100) == RVS_OK);
        check_all(&A, name);
        rvs_csr_free(&A);
    }
}

/* Every shared real matrix (small enough to be quick). */
static int check_real(void)
{
    rvs_test_matrix *list;
    int n = rvs_test_matrix_list(&list), done = 0;
    if (n == 0) {
        printf("no $RVS_MATRICES/INDEX.tsv: skipped\n");
        return RVS_TEST_SKIP;
    }
    for (int i = 0; i < n; i++) {
        rvs_csr A = {0};
        rvs_error err = {0};
        if (list[i].nnz_declared > 2000000 || strcmp(list[i].field, "complex") == 0)
            continue;
        rvs_status st = rvs_mm_read_file(&A, NULL, list[i].path, NULL, NULL, &err);
        CHECKF(st == RVS_OK, "%s: %s", list[i].name, err.msg);
        if (st == RVS_OK) {
            check_all(&A, list[i].name);
            done++;
        }
        rvs_csr_free(&A);
    }
    printf("%d real matrices\n", done);
    free(list);
    return rvs_test_done();
}

/* One row of 1000 entries among 20000 rows of one: ELL would pad 2e7 slots for 2e4 entries. */
static void test_ell_padding_limit(void)
{
    int64_t rows = 20000, *len = malloc((size_t)rows * sizeof *len);
    rvs_csr A;
    rvs_fmt F;
    rvs_error err;
    for (int64_t i = 0; i < rows; i++)
        len[i] = i == 7 ? 1000 : 1;
    CHECK(rvs_test_csr_from_lengths(&A, len, rows, 1000) == RVS_OK);
    for (int f = 0; f < 2; f++) {
        rvs_status st = rvs_fmt_from_csr(&F, f ? RVS_FMT_ELLR : RVS_FMT_ELL, &A, NULL, &err);
        CHECKF(st == RVS_ERR_OVERFLOW && strstr(err.msg, "the longest row (1000)") && F.narrays == 0,
               "padding limit: status %d: %s", (int)st, err.msg);
    }
    rvs_fmt_options o;
    rvs_fmt_options_default(&o);
    o.ell_max_ratio = 2000; /* a caller may allow it: then it builds */
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_ELL, &A, &o, &err), &err);
    rvs_fmt_free(&F);
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_PELLR, &A, NULL, &err), &err); /* PELLR pads per slice */
    rvs_fmt_free(&F);
    rvs_csr_free(&A);
    free(len);
}

int main(int argc, char **argv)
{
    seed = (unsigned)time(NULL) ^ (unsigned)getpid() * 2654435761u;
    printf("x seed %u\n", seed);
    if (argc > 1 && strcmp(argv[1], "real") == 0) {
        spmv_runs = 1;
        return check_real();
    }
    rvs_fmt_poison_unset(0xa5); /* a slot a builder leaves unwritten shows (check_slots) */
    check_edges();
    check_corruption();
    check_random();
    test_ell_padding_limit();
    return rvs_test_done();
}
