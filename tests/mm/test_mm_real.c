/* test_mm_real.c - read every shared real matrix, check counts and structure, round-trip it */
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>
#include "rvs_test.h"

/* Entries after symmetric expansion, by a plain serial scan (-1 if the file cannot be read). */
static int64_t count_expanded(const char *path, int symmetric)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int64_t n = -1, seen_size = 0;
    if (!f)
        return -1;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        long long r, c;
        if (line[strspn(line, " \t\r\n")] == '\0' || line[strspn(line, " \t")] == '%')
            continue;
        if (!seen_size) {
            seen_size = 1;
            n = 0;
            continue;
        }
        if (sscanf(line, "%lld %lld", &r, &c) == 2)
            n += (symmetric && r != c) ? 2 : 1;
    }
    fclose(f);
    return n;
}

/* 1 if A and B hold bit-identical CSR arrays. */
static int csr_identical(const rvs_csr *A, const rvs_csr *B)
{
    if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz || A->vtype != B->vtype ||
        !A->colind != !B->colind)
        return 0;
    size_t n = (size_t)A->nnz;
    return memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * sizeof *A->rowptr) == 0 &&
           (A->colind ? memcmp(A->colind, B->colind, n * 4) == 0 : memcmp(A->colind64, B->colind64, n * 8) == 0) &&
           memcmp(A->values, B->values, n * rvs_vtype_size(A->vtype)) == 0;
}

/* Write A as coordinate to tmp, read it back, compare bit-exactly. */
static void check_roundtrip(const rvs_test_matrix *m, const rvs_csr *A, const char *tmp)
{
    rvs_csr B;
    rvs_error err;
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_OK(rvs_mm_write_coordinate(f, A, 0, &err), &err);
    CHECK(fclose(f) == 0);
    rvs_status st = rvs_mm_read_file(&B, NULL, tmp, NULL, NULL, &err);
    CHECKF(st == RVS_OK, "%s: reading back: %s", m->name, err.msg);
    if (st == RVS_OK) {
        CHECKF(csr_identical(A, &B), "%s: round trip differs", m->name);
        rvs_csr_free(&B);
    }
}

/* Read one matrix (a complex one as c128) and check it; returns 1 if it was read. */
static int check_matrix(const rvs_test_matrix *m, const char *tmp)
{
    rvs_csr A;
    rvs_mm_info info;
    rvs_error err;
    rvs_status st = rvs_mm_read_file(&A, &info, m->path, NULL, NULL, &err);
    CHECKF(st == RVS_OK, "%s: %s", m->name, err.msg);
    if (st == RVS_OK)
        CHECKF((A.vtype == RVS_C128) == (strcasecmp(m->field, "complex") == 0), "%s: a %s file read as %s", m->name,
               m->field, rvs_vtype_name(A.vtype));
    if (st != RVS_OK)
        return 0;
    int symmetric = strcasecmp(m->symmetry, "general") != 0;
    int64_t want = count_expanded(m->path, symmetric);
    CHECKF(A.rows == m->rows && A.cols == m->cols && info.entries == m->nnz_declared,
           "%s: %lld x %lld, %lld entries", m->name, (long long)A.rows, (long long)A.cols, (long long)info.entries);
    CHECKF(A.nnz == want, "%s: nnz %lld, independent count %lld", m->name, (long long)A.nnz, (long long)want);
    st = rvs_csr_validate(&A, &err);
    CHECKF(st == RVS_OK, "%s: validate: %s", m->name, err.msg);
    check_roundtrip(m, &A, tmp);
    rvs_csr_free(&A);
    return 1;
}

/* Gzip path to gz with zlib. */
static int gzip_file(const char *path, const char *gz)
{
    FILE *in = fopen(path, "rb");
    gzFile out = gzopen(gz, "wb6");
    char buf[65536];
    size_t n;
    int ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = gzwrite(out, buf, (unsigned)n) == (int)n;
    if (in)
        fclose(in);
    if (out && gzclose(out) != Z_OK)
        ok = 0;
    return ok;
}

/* The largest general real matrix read four ways: mapped, gzip'd, and both through a FILE *
 * with a sniffed prefix. All must be identical. */
static void check_gzip_and_stream(const rvs_test_matrix *list, int n, const char *tmpdir)
{
    const rvs_test_matrix *m = NULL;
    for (int i = 0; i < n; i++)
        if (strcasecmp(list[i].field, "real") == 0 && (!m || list[i].nnz_declared > m->nnz_declared))
            m = &list[i];
    CHECK(m != NULL);
    if (!m)
        return;
    char gz[1100];
    snprintf(gz, sizeof gz, "%s/test_mm_real_%d.mtx", tmpdir, (int)getpid());
    CHECK(gzip_file(m->path, gz));
    rvs_csr A, B;
    rvs_error err;
    CHECK_OK(rvs_mm_read_file(&A, NULL, m->path, NULL, NULL, &err), &err);
    CHECK_OK(rvs_mm_read_file(&B, NULL, gz, NULL, NULL, &err), &err);
    CHECKF(csr_identical(&A, &B), "%s: gzip copy differs", m->name);
    rvs_csr_free(&B);
    const char *files[2] = {m->path, gz};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "rb");
        unsigned char prefix[8];
        CHECK(f && fread(prefix, 1, sizeof prefix, f) == sizeof prefix);
        if (!f)
            continue;
        CHECK_OK(rvs_mm_read_stream(&B, NULL, f, prefix, sizeof prefix, NULL, NULL, &err), &err);
        CHECKF(csr_identical(&A, &B), "%s: stream read %d differs", m->name, i);
        rvs_csr_free(&B);
        fclose(f);
    }
    /* a gzip file cut short is an error, not a smaller matrix */
    FILE *f = fopen(gz, "r+b");
    if (f) {
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fclose(f);
        CHECK(truncate(gz, size / 2) == 0);
        rvs_status st = rvs_mm_read_file(&B, NULL, gz, NULL, NULL, &err);
        CHECKF(st == RVS_ERR_TRUNCATED, "truncated gzip: status %d: %s", (int)st, err.msg);
    }
    rvs_csr_free(&A);
    remove(gz);
}

int main(void)
{
    rvs_test_matrix *list = NULL;
    int n = rvs_test_matrix_list(&list);
    if (n == 0) {
        printf("no shared matrices (RVS_MATRICES): skipped\n");
        return RVS_TEST_SKIP;
    }
    const char *tmpdir = getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp";
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s/test_mm_real_%d_rt.mtx", tmpdir, (int)getpid());
    int read = 0;
    for (int i = 0; i < n; i++)
        read += check_matrix(&list[i], tmp);
    remove(tmp);
    printf("%d of %d matrices read\n", read, n);
    check_gzip_and_stream(list, n, tmpdir);
    free(list);
    return rvs_test_done();
}
