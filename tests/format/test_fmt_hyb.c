/* test_fmt_hyb.c - HYB, HYB-DIA, DIA and HCC: CSR -> format -> CSR exact, validate, CPU SpMV
 * against rvs_spmv_check, DIA's storage limit, edge shapes and corrupted arrays. Random and
 * edge matrices always; the shared matrices ($RVS_MATRICES/INDEX.tsv) when present. */
#include <math.h>
#include <string.h>
#include "rvs_test.h"
#include "rvs_cpu.h"

typedef struct {
    const char *name;
    rvs_format_id id;
    int64_t hyb_k, np, nb, g;
} config;

static const config configs[] = {
    {"hyb auto", RVS_FMT_HYB, RVS_HYB_K_AUTO, 0, 0, 0},
    {"hyb third", RVS_FMT_HYB, RVS_HYB_K_THIRD, 0, 0, 0},
    {"hyb K=3", RVS_FMT_HYB, 3, 0, 0, 0},
    {"hyb-dia auto", RVS_FMT_HYBDIA, RVS_HYB_K_AUTO, 0, 0, 0},
    {"hyb-dia third", RVS_FMT_HYBDIA, RVS_HYB_K_THIRD, 0, 0, 0},
    {"hyb-dia K=2", RVS_FMT_HYBDIA, 2, 0, 0, 0},
    {"dia", RVS_FMT_DIA, 0, 0, 0, 0},
    {"hcc", RVS_FMT_HCC, 0, 0, 0, 0},
    {"hcc Np=3 Nb=7", RVS_FMT_HCC, 0, 3, 7, 0},
    {"hcc split rows (E=32)", RVS_FMT_HCC, 0, 0, 1000000, 0},
    {"hcc row-major (Np=1)", RVS_FMT_HCC, 0, 1, 0, 0},
    {"hcc one group (G=1)", RVS_FMT_HCC, 0, 0, 0, 1},
    {"hcc owner groups (G=8)", RVS_FMT_HCC, 0, 0, 0, 8},
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])

/* 1 if DIA must refuse A under the default limit (ratio 10, 16 GiB). */
static int dia_over_limit(const rvs_csr *A)
{
    int64_t n = A->rows + A->cols - 1, ndiag = 0;
    char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            seen[A->colind[p] - i + A->rows - 1] = 1;
    for (int64_t d = 0; d < n; d++)
        ndiag += seen[d];
    free(seen);
    double ld = (double)((A->rows + 31) / 32 * 32);
    return (double)A->rows * (double)ndiag - (double)A->nnz > 10.0 * (double)A->nnz ||
           ld * (double)ndiag * 8.125 > 17179869184.0;
}

/* CPU SpMV of F with fresh x into a NaN-poisoned y, checked against A. */
static void check_spmv(const rvs_fmt *F, const rvs_csr *A, const char *what, unsigned seed)
{
    int64_t n = A->cols > 0 ? A->cols : 1, m = A->rows > 0 ? A->rows : 1;
    double *xd = malloc((size_t)n * 8), *yd = malloc((size_t)m * 8);
    void *x = malloc((size_t)n * 8), *y = malloc((size_t)m * 8);
    rvs_error err;
    rvs_test_random_vector(xd, A->cols, seed);
    for (int64_t j = 0; j < A->cols; j++) {
        if (A->vtype == RVS_F32) {
            ((float *)x)[j] = (float)xd[j];
            xd[j] = ((float *)x)[j];
        } else {
            ((double *)x)[j] = xd[j];
        }
    }
    for (int64_t i = 0; i < A->rows; i++) {
        if (A->vtype == RVS_F32)
            ((float *)y)[i] = NAN;
        else
            ((double *)y)[i] = NAN;
    }
    CHECK_OK(rvs_cpu_spmv(F, x, y, &err), &err);
    for (int64_t i = 0; i < A->rows; i++)
        yd[i] = A->vtype == RVS_F32 ? ((float *)y)[i] : ((double *)y)[i];
    double maxe = 0;
    int64_t worst = -1;
    rvs_status st = rvs_spmv_check(A, xd, yd, A->vtype == RVS_F64 ? 1e-10 : 1e-4, &maxe, &worst, &err);
    CHECKF(st == RVS_OK, "%s: spmv: %s", what, err.msg);
    free(xd);
    free(yd);
    free(x);
    free(y);
}

/* One matrix (f64 CSR A0) through every config in f64 and f32. */
static void check_matrix(const rvs_csr *A0, const char *name)
{
    static const rvs_fmt zero;
    for (int v = 0; v < 2; v++) {
        rvs_csr A = {0};
        rvs_error err;
        CHECK_OK(rvs_csr_copy(&A, A0, &err), &err);
        if (v == 1)
            CHECK_OK(rvs_csr_convert_values(&A, RVS_F32, &err), &err);
        for (int c = 0; c < NCONFIGS; c++) {
            rvs_fmt F = {0};
            rvs_csr B = {0};
            rvs_fmt_options o;
            char what[256];
            snprintf(what, sizeof what, "%s %s %s", name, configs[c].name, v ? "f32" : "f64");
            rvs_fmt_options_default(&o);
            o.hyb_k = configs[c].hyb_k;
            o.hcc_np = configs[c].np;
            o.hcc_nb = configs[c].nb;
            o.hcc_g = configs[c].g;
            rvs_status st = rvs_fmt_from_csr(&F, configs[c].id, &A, &o, &err);
            if (configs[c].id == RVS_FMT_DIA && dia_over_limit(&A)) {
                CHECKF(st == RVS_ERR_OVERFLOW && !memcmp(&F, &zero, sizeof F), "%s: not refused (%d)", what, st);
                continue;
            }
            CHECKF(st == RVS_OK, "%s: from_csr: %s", what, err.msg);
            if (st != RVS_OK)
                continue;
            CHECKF(rvs_format_lookup(F.id)->validate(&F, &err) == RVS_OK, "%s: validate: %s", what, err.msg);
            st = rvs_fmt_to_csr(&B, &F, &err);
            CHECKF(st == RVS_OK && rvs_test_csr_same(&A, &B), "%s: round trip differs (%s)", what, err.msg);
            check_spmv(&F, &A, what, (unsigned)(c * 7 + v + 1));
            rvs_fmt_stats s;
            rvs_format_lookup(F.id)->stats(&F, &s);
            CHECKF(s.bytes >= 0 && s.padded >= 0 && s.n_iter == -1, "%s: stats", what);
            rvs_csr_free(&B);
            rvs_fmt_free(&F);
        }
        rvs_csr_free(&A);
    }
}

/* A from 0-based triplets. */
static void from_triplets(rvs_csr *A, int64_t rows, int64_t cols, int64_t n, const int64_t *r, const int64_t *c,
                          const double *v)
{
    rvs_error err;
    CHECK_OK(rvs_csr_from_coo(A, rows, cols, n, r, c, v, RVS_F64, &err), &err);
}

/* Random, rectangular, banded and degenerate matrices. */
static void check_generated(void)
{
    static const struct {
        int64_t rows, cols;
        double density;
        int empty;
    } rnd[] = {
        {200, 200, 0.05, 1}, {1000, 300, 0.02, 0}, {300, 1000, 0.02, 1},   {1, 500, 0.3, 0},
        {500, 1, 0.3, 0},    {0, 0, 0, 0},         {0, 10, 0, 0},          {10, 0, 0, 0},
        {50, 50, 0, 0},      {400, 400, 0.01, 0},  {2000, 2000, 0.004, 1}, {33, 65, 0.5, 1},
    };
    for (size_t k = 0; k < sizeof rnd / sizeof rnd[0]; k++) {
        rvs_csr A = {0};
        char name[64];
        snprintf(name, sizeof name, "random %lldx%lld d%g", (long long)rnd[k].rows, (long long)rnd[k].cols,
                 rnd[k].density);
        CHECK(rvs_test_random_csr(&A, rnd[k].rows, rnd[k].cols, rnd[k].density, rnd[k].empty, 100 + (unsigned)k) ==
              RVS_OK);
        if (k == 0) /* explicit zeros must survive every format */
            for (int64_t p = 0; p < A.nnz; p += 5)
                ((double *)A.values)[p] = 0;
        check_matrix(&A, name);
        rvs_csr_free(&A);
    }
    /* One dense row among empty rows. */
    int64_t len[300] = {0};
    len[137] = 1000;
    rvs_csr D = {0};
    CHECK(rvs_test_csr_from_lengths(&D, len, 300, 1000) == RVS_OK);
    check_matrix(&D, "dense row");
    rvs_csr_free(&D);
    /* A banded matrix (DIA must accept it) with a few far entries. */
    int64_t n = 3000, m = 0, *r = malloc(6 * (size_t)n * 8), *c = malloc(6 * (size_t)n * 8);
    double *v = malloc(6 * (size_t)n * 8);
    for (int64_t i = 0; i < n; i++)
        for (int64_t d = -2; d <= 2; d++)
            if (i + d >= 0 && i + d < n) {
                r[m] = i, c[m] = i + d, v[m] = (double)(i % 7) - 3 + 0.5 * (double)d;
                m++;
            }
    for (int64_t i = 0; i < n; i += 97) {
        r[m] = i, c[m] = (i * 31 + 1000) % n, v[m] = 2.5;
        m++;
    }
    rvs_csr Bd = {0};
    from_triplets(&Bd, n, n, m, r, c, v);
    check_matrix(&Bd, "banded");
    CHECK(!dia_over_limit(&Bd));
    rvs_csr_free(&Bd);
    free(r);
    free(c);
    free(v);
}

/* Set element i of F's array name to value (integer or float by dtype); return the old bytes. */
static void poke(rvs_fmt *F, const char *name, int64_t i, double value, unsigned char *old)
{
    rvs_array *a = (rvs_array *)rvs_fmt_array(F, name);
    size_t sz = rvs_dtype_size(a->dtype);
    char *p = (char *)a->data + (size_t)i * sz;
    memcpy(old, p, sz);
    switch (a->dtype) {
    case RVS_DT_I32: *(int32_t *)p = (int32_t)value; break;
    case RVS_DT_I64: *(int64_t *)p = (int64_t)value; break;
    case RVS_DT_U32: *(uint32_t *)p = (uint32_t)(int64_t)value; break;
    case RVS_DT_F64: *(double *)p = value; break;
    case RVS_DT_F32: *(float *)p = (float)value; break;
    default: break;
    }
}

typedef struct {
    const char *array; /* NULL: a param */
    int64_t index;     /* element, or param number; negative: from the end */
    double value;
} corruption;

/* Each corruption of a valid F must fail validation with FORMAT, RANGE or OVERFLOW. */
static void check_corruptions(rvs_fmt *F, const corruption *cs, int n, const char *fmt)
{
    const rvs_format_ops *ops = rvs_format_lookup(F->id);
    rvs_error err;
    CHECK_OK(ops->validate(F, &err), &err);
    for (int k = 0; k < n; k++) {
        unsigned char old[8];
        int64_t saved = 0;
        if (cs[k].array) {
            const rvs_array *a = rvs_fmt_array(F, cs[k].array);
            int64_t i = cs[k].index < 0 ? a->count + cs[k].index : cs[k].index;
            poke(F, cs[k].array, i, cs[k].value, old);
            rvs_status st = ops->validate(F, &err);
            CHECKF(st == RVS_ERR_FORMAT || st == RVS_ERR_RANGE || st == RVS_ERR_OVERFLOW,
                   "%s: %s[%lld] = %g accepted (%d)", fmt, cs[k].array, (long long)i, cs[k].value, st);
            memcpy((char *)a->data + (size_t)i * rvs_dtype_size(a->dtype), old, rvs_dtype_size(a->dtype));
        } else {
            saved = F->param[cs[k].index];
            F->param[cs[k].index] = (int64_t)cs[k].value;
            rvs_status st = ops->validate(F, &err);
            CHECKF(st == RVS_ERR_FORMAT || st == RVS_ERR_RANGE || st == RVS_ERR_OVERFLOW,
                   "%s: param[%lld] = %g accepted (%d)", fmt, (long long)cs[k].index, cs[k].value, st);
            F->param[cs[k].index] = saved;
        }
        CHECK_OK(ops->validate(F, &err), &err);
    }
    /* nnz that disagrees with the arrays. */
    F->nnz++;
    CHECKF(ops->validate(F, &err) != RVS_OK, "%s: nnz + 1 accepted", fmt);
    F->nnz--;
    /* A missing array. */
    rvs_array *a0 = &F->array[F->narrays - 1];
    char keep = a0->name[0];
    a0->name[0] = 'X';
    CHECKF(ops->validate(F, &err) == RVS_ERR_FORMAT, "%s: missing %s accepted", fmt, a0->name + 1);
    a0->name[0] = keep;
}

/* Corrupted arrays and params for every format. */
static void check_validators(void)
{
    rvs_csr A = {0};
    rvs_error err;
    rvs_fmt_options o;
    rvs_fmt_options_default(&o);
    CHECK(rvs_test_random_csr(&A, 300, 300, 0.03, 1, 7) == RVS_OK);
    /* DIA needs a matrix within its limit: keep the band |c - r| <= 3 of A plus its diagonal. */
    rvs_fmt F = {0};
    o.hyb_k = 2;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_HYB, &A, &o, &err), &err);
    const corruption hyb[] = {
        {"ell_col", 0, 300},  {"ell_col", 5, -7}, {"ell_col", 40, -1}, {"ell_val", -1, 1.0}, {"coo_row", 0, 299},
        {"coo_row", -1, 300}, {"coo_col", 3, -1}, {"coo_col", 1, 0},   {NULL, 0, 1e12},      {NULL, 0, -1},
        {NULL, 1, 64},        {NULL, 2, 1e15},    {NULL, 2, -3},
    };
    check_corruptions(&F, hyb, (int)(sizeof hyb / sizeof hyb[0]), "hyb");
    rvs_fmt_free(&F);

    int64_t n = 200, m = 0, r[1000], c[1000];
    for (int64_t i = 0; i < n; i++)
        for (int64_t d = -1; d <= 1; d++)
            if (i + d >= 0 && i + d < n)
                r[m] = i, c[m++] = i + d;
    r[m] = 0, c[m++] = 150;
    rvs_csr T = {0};
    from_triplets(&T, n, n, m, r, c, NULL);
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_DIA, &T, &o, &err), &err);
    const corruption dia[] = {
        {"offsets", 0, 5},
        {"offsets", 0, -200},
        {"offsets", -1, 200},
        {"dia_msk", 0, 0xffffffff},
        {"dia_msk", -1, 0xffffffff},
        {"dia_val", 210, 3.0},
        {"dia_val", 0, 3.0},
        {NULL, 0, 1e12},
        {NULL, 0, -1},
        {NULL, 0, 3},
        {NULL, 1, 32},
        {NULL, 2, 2},
        {NULL, 2, -1},
    };
    CHECK(F.param[2] == 0);
    check_corruptions(&F, dia, (int)(sizeof dia / sizeof dia[0]), "dia");
    rvs_fmt_free(&F);
    /* dia-values 1 (slots as they are on the GPU) is recorded in param[2], or HYB-DIA's param[3] */
    o.dia_values = 1;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_DIA, &T, &o, &err), &err);
    CHECK(F.param[2] == 1 && rvs_format_lookup(RVS_FMT_DIA)->validate(&F, &err) == RVS_OK);
    rvs_fmt_free(&F);
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_HYBDIA, &T, &o, &err), &err);
    CHECK(F.param[3] == 1 && rvs_format_lookup(RVS_FMT_HYBDIA)->validate(&F, &err) == RVS_OK);
    rvs_fmt_free(&F);
    o.dia_values = 0;

    o.hyb_k = RVS_HYB_K_AUTO;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_HYBDIA, &T, &o, &err), &err);
    const corruption hybdia[] = {
        {"offsets", 1, 1}, {"coo_row", 0, 200}, {"coo_col", 0, 0}, {"coo_col", 0, 1}, {"coo_col", 0, 300},
        {NULL, 2, 0},      {NULL, 0, 2},        {NULL, 3, 2},      {NULL, 3, -1},
    };
    check_corruptions(&F, hybdia, (int)(sizeof hybdia / sizeof hybdia[0]), "hyb-dia");
    rvs_fmt_free(&F);

    o.hcc_np = 2;
    o.hcc_nb = 4;
    CHECK_OK(rvs_fmt_from_csr(&F, RVS_FMT_HCC, &A, &o, &err), &err);
    /* 300 rows of ~9 entries in 4 blocks of at most 704 entries; each block's last segment is padded */
    const corruption hcc[] = {
        {"word", 0, 4000.0 * 1048576},
        {"word", 5, 4294967295.0},
        {"sbase", 0, 300},
        {"sbase", 0, -1},
        {"val", -1, 1.0},
        {"bseg", 1, 1e9},
        {"bseg", -1, 3},
        {"brow", 1, 0},
        {"bnr", 0, 5000},
        {"bnr", 0, -2},
        {"bnr", -1, 0},
        {"lseg", 0, -1},
        {"lseg", -1, 1e9},
        {NULL, 7, 4},
        {NULL, 0, -1},
        {NULL, 1, 0},
        {NULL, 2, 16},
        {NULL, 3, 1e17},
        {NULL, 4, -1},
        {NULL, 5, 33},
        {NULL, 6, 5000},
    };
    check_corruptions(&F, hcc, (int)(sizeof hcc / sizeof hcc[0]), "hcc");
    rvs_fmt_free(&F);

    /* An explicit limit: the tridiagonal band refused at ratio 1 (3 diagonals, 600 slots for ~599). */
    o.dia_max_ratio = 1;
    rvs_csr W = {0};
    CHECK(rvs_test_random_csr(&W, 100, 100, 0.05, 0, 3) == RVS_OK);
    rvs_status st = rvs_fmt_from_csr(&F, RVS_FMT_DIA, &W, &o, &err);
    CHECKF(st == RVS_ERR_OVERFLOW && F.narrays == 0 && strstr(err.msg, "diagonals would store"), "dia limit: %s",
           err.msg);
    rvs_fmt_free(&F);
    rvs_csr_free(&W);
    rvs_csr_free(&T);
    rvs_csr_free(&A);
}

/* The shared matrices, when present. */
static int check_shared(void)
{
    rvs_test_matrix *list = NULL;
    int n = rvs_test_matrix_list(&list), done = 0;
    for (int i = 0; i < n; i++) {
        rvs_csr A = {0};
        rvs_error err;
        if (list[i].nnz_declared > 120000)
            continue;
        if (rvs_mm_read_file(&A, NULL, list[i].path, NULL, NULL, &err) != RVS_OK) {
            fprintf(stderr, "skip %s: %s\n", list[i].name, err.msg);
            continue;
        }
        if (rvs_vtype_is_complex(A.vtype)) { /* complex matrices: test_complex */
            rvs_csr_free(&A);
            continue;
        }
        if (A.vtype != RVS_F64)
            CHECK_OK(rvs_csr_convert_values(&A, RVS_F64, &err), &err);
        check_matrix(&A, list[i].name);
        rvs_csr_free(&A);
        done++;
    }
    free(list);
    return done;
}

int main(void)
{
    check_generated();
    check_validators();
    int shared = check_shared();
    printf("%d shared matrices\n", shared);
    return rvs_test_done();
}
