/* fuzz_checks.c - what the stream targets check on a stream the reader accepted: it writes back
 * to the same bytes and passes its chunks on, its matrix goes through Matrix Market and back, and
 * CPU SpMV of every block and part agrees with the block's own CSR */
#include <math.h>
#define FUZZ_REPLAY_MAIN /* a helper: the target defines the entry points */
#include "fuzz_checks.h"
#include "fuzz_chunks.h"
#include "rvs_complex.h"
#include "rvs_cpu.h"

/* Write S into a memory buffer; a valid stream always writes. */
static char *write_mem(const rvs_stream *S, size_t *len)
{
    char *mem = NULL;
    rvs_error err;
    FILE *f = open_memstream(&mem, len);
    if (!f)
        abort();
    rvs_status st = rvs_stream_write(f, S, &err);
    if (fclose(f) != 0 || st != RVS_OK)
        FUZZ_FINDING("a stream that was read cannot be written: %s", err.msg);
    return mem;
}

void fuzz_check_rewrite(const rvs_stream *S)
{
    rvs_stream S2;
    rvs_error err;
    size_t n1 = 0, n2 = 0;
    char *w1 = write_mem(S, &n1);
    rvs_status st = fuzz_read_stream(&S2, (const uint8_t *)w1, n1, &err);
    if (st != RVS_OK)
        FUZZ_FINDING("the reader refuses what the writer wrote: %s", err.msg);
    char *w2 = write_mem(&S2, &n2);
    if (n1 != n2 || memcmp(w1, w2, n1) != 0)
        FUZZ_FINDING("write(read(write(S))) differs from write(S): %zu and %zu bytes", n1, n2);
    free(w1);
    free(w2);
    rvs_stream_free(&S2);
}

/* Chunk i of s is critical (upper-case first letter) and not the end chunk, or (critical 0)
 * ancillary and not pmfs, which the writer computes again. */
static int kept_chunk(const fz_stream *s, int i, int critical)
{
    const char *t = s->c[i].type;
    if (critical)
        return t[0] >= 'A' && t[0] <= 'Z' && memcmp(t, "REND", 4) != 0;
    return !(t[0] >= 'A' && t[0] <= 'Z') && memcmp(t, "pmfs", 4) != 0;
}

/* The chunks of a and b that kept_chunk keeps are the same, in the same order. */
static int same_chunks(const fz_stream *a, const fz_stream *b, int critical)
{
    int i = 0, j = 0;
    for (;;) {
        while (i < a->n && !kept_chunk(a, i, critical))
            i++;
        while (j < b->n && !kept_chunk(b, j, critical))
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (memcmp(a->c[i].type, b->c[j].type, 4) != 0 || a->c[i].len != b->c[j].len ||
            (a->c[i].len && memcmp(a->c[i].data, b->c[j].data, a->c[i].len) != 0))
            return 0;
        i++, j++;
    }
}

void fuzz_check_chunks_kept(const uint8_t *data, size_t size, const rvs_stream *S)
{
    fz_stream in, out;
    size_t n = 0;
    char *w = write_mem(S, &n);
    if (fz_decode(&in, data, size) != 0 || fz_decode(&out, (const uint8_t *)w, n) != 0)
        FUZZ_FINDING("a stream that was read, or its rewrite, does not decode into chunks");
    if (!same_chunks(&in, &out, 1))
        FUZZ_FINDING("the writer changed, added or dropped a critical chunk of a stream the reader accepted");
    if (!same_chunks(&in, &out, 0))
        FUZZ_FINDING("the writer changed, added, dropped or reordered an ancillary chunk it should pass on");
    fz_free(&in);
    fz_free(&out);
    free(w);
}

/* A value as bits (NaN: only its class and sign, payloads are not kept). */
static uint64_t double_bits(double v)
{
    uint64_t b;
    if (v != v)
        return signbit(v) ? 1 : 2;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Entry k of A and of B hold the same value, both parts. */
static int same_value(const rvs_csr *A, const rvs_csr *B, int64_t k)
{
    return double_bits(rvs_csr_value(A, k)) == double_bits(rvs_csr_value(B, k)) &&
           double_bits(rvs_csr_value_im(A, k)) == double_bits(rvs_csr_value_im(B, k));
}

int fuzz_read_valid(rvs_stream *S, const uint8_t *data, size_t size)
{
    rvs_error err;
    rvs_status st = fuzz_read_stream(S, data, size, &err);
    fuzz_check_error(st, &err);
    return st == RVS_OK;
}

int fuzz_same_csr(const rvs_csr *A, const rvs_csr *B)
{
    if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz || A->vtype != B->vtype)
        return 0;
    if (memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * 8) != 0)
        return 0;
    for (int64_t k = 0; k < A->nnz; k++) {
        const double a[2] = {rvs_csr_value(A, k), rvs_csr_value_im(A, k)};
        const double b[2] = {rvs_csr_value(B, k), rvs_csr_value_im(B, k)};
        if (rvs_csr_col(A, k) != rvs_csr_col(B, k) || memcmp(a, b, sizeof a) != 0)
            return 0;
    }
    return 1;
}

void fuzz_check_mm_round_trip(const rvs_stream *S)
{
    rvs_mm_info src;
    fuzz_check_mm_csr(&S->A, rvs_stream_mm_source(S, &src) ? src.field : NULL);
}

void fuzz_check_mm_csr(const rvs_csr *A, const char *field)
{
    rvs_mm_write_options o;
    rvs_csr B = {0};
    rvs_error err;
    char *mem = NULL;
    size_t len = 0;
    memset(&o, 0, sizeof o);
    o.field = field;
    FILE *f = open_memstream(&mem, &len);
    if (!f)
        abort();
    rvs_status st = rvs_mm_write(f, A, &o, NULL, &err);
    if (fclose(f) != 0 || (st != RVS_OK && st != RVS_ERR_NOMEM))
        FUZZ_FINDING("a valid matrix does not write as Matrix Market: %s", err.msg);
    if (st == RVS_OK) {
        st = rvs_mm_parse(&B, NULL, mem, len, &err);
        if (st == RVS_OK && B.vtype != A->vtype)
            st = rvs_csr_convert_values(&B, A->vtype, &err);
        if (st != RVS_OK && st != RVS_ERR_NOMEM && st != RVS_ERR_OVERFLOW)
            FUZZ_FINDING("Matrix Market written from a valid matrix does not read back: %s", err.msg);
        if (st == RVS_OK) {
            int same = B.rows == A->rows && B.cols == A->cols && B.nnz == A->nnz;
            for (int64_t r = 0; same && r <= B.rows; r++)
                same = B.rowptr[r] == A->rowptr[r];
            for (int64_t k = 0; same && k < B.nnz; k++)
                same = rvs_csr_col(&B, k) == rvs_csr_col(A, k) && same_value(&B, A, k);
            if (!same)
                FUZZ_FINDING("Matrix Market written from a valid matrix reads back different");
        }
    }
    rvs_csr_free(&B);
    free(mem);
}

int fuzz_vectors_fit(int64_t rows, int64_t cols)
{
    return (double)rows + (double)cols <= (double)(FUZZ_MEM_LIMIT / 32);
}

void fuzz_fill_x(void *x, double *xd, int64_t cols, rvs_vtype vt)
{
    const int cplx = rvs_vtype_is_complex(vt), f32 = rvs_vtype_real(vt) == RVS_F32;
    for (int64_t j = 0; j < cols; j++) {
        const double re = 1.0 + (double)(j % 7) * 0.25, im = cplx ? 0.5 - (double)(j % 3) * 0.5 : 0.0;
        xd[2 * j] = re;
        xd[2 * j + 1] = im;
        for (int part = 0; part <= cplx; part++) {
            const int64_t at = cplx ? 2 * j + part : j;
            if (f32)
                ((float *)x)[at] = (float)xd[2 * j + part];
            else
                ((double *)x)[at] = xd[2 * j + part];
        }
    }
}

/* Row i of y (vt) as (re, im). */
static double complex y_at(const void *y, int64_t i, rvs_vtype vt)
{
    switch (vt) {
    case RVS_F32: return ((const float *)y)[i];
    case RVS_F64: return ((const double *)y)[i];
    case RVS_C64: return CMPLX(((const float *)y)[2 * i], ((const float *)y)[2 * i + 1]);
    default: return CMPLX(((const double *)y)[2 * i], ((const double *)y)[2 * i + 1]);
    }
}

void fuzz_check_y(const char *what, const rvs_csr *C, const double *xd, const void *y, rvs_vtype vt)
{
    const int f32 = rvs_vtype_real(vt) == RVS_F32, cplx = rvs_vtype_is_complex(vt);
    const double tol = f32 ? 1e-3 : 1e-6, top = f32 ? 1e37 : 1e300, floor = f32 ? 1e-30 : 1e-290;
    for (int64_t i = 0; i < C->rows; i++) {
        double complex ref = 0;
        double scale = 0, fscale = 0; /* fscale: the finite products' only */
        for (int64_t p = C->rowptr[i]; p < C->rowptr[i + 1]; p++) {
            const int64_t j = rvs_csr_col(C, p);
            const double complex a = CMPLX(rvs_csr_value(C, p), rvs_csr_value_im(C, p));
            const double complex xj = CMPLX(xd[2 * j], xd[2 * j + 1]);
            ref += cplx ? a * xj : creal(a) * creal(xj);
            scale += cabs(a) * cabs(xj);
            if (isfinite(cabs(a) * cabs(xj)))
                fscale += cabs(a) * cabs(xj);
        }
        const double complex got = y_at(y, i, vt);
        const int finite = isfinite(creal(ref)) && isfinite(cimag(ref));
        int same;
        if (finite && !(scale <= top))
            continue; /* overflow may depend on the order of the sums */
        if (finite)
            same = fabs(creal(got) - creal(ref)) <= tol * scale + floor &&
                   fabs(cimag(got) - cimag(ref)) <= tol * scale + floor;
        else if (cplx || !(fscale <= top))
            /* C99 complex products place NaN and Inf by Annex G, and finite products that overflow
             * the kernel's precision meet the Inf as an Inf of either sign: only the class is firm */
            same = !isfinite(creal(got)) || !isfinite(cimag(got));
        else
            same = (isnan(creal(ref)) && isnan(creal(got))) || creal(got) == creal(ref);
        if (!same)
            FUZZ_FINDING("%s: row %lld: kernel %.17g%+.17gi, reference %.17g%+.17gi (scale %g)", what, (long long)i,
                         creal(got), cimag(got), creal(ref), cimag(ref), scale);
    }
}

/* Run F's kernel into a NaN-poisoned y and compare it with F's own CSR. */
static void check_block(const rvs_fmt *F)
{
    rvs_csr C;
    rvs_error err;
    const size_t vs = rvs_vtype_size(F->vtype);
    char what[48];
    if (!fuzz_vectors_fit(F->rows, F->cols))
        return;
    /* a block that validated converts back; if it cannot, that is a finding */
    rvs_status st = rvs_fmt_to_csr(&C, F, &err);
    if (st == RVS_ERR_NOMEM)
        return;
    if (st != RVS_OK)
        FUZZ_FINDING("format %d validated but does not convert to CSR: %s", (int)F->id, err.msg);
    void *x = malloc((size_t)F->cols * vs + 1), *y = malloc((size_t)F->rows * vs + 1);
    double *xd = malloc((size_t)F->cols * 2 * sizeof *xd + 1);
    if (x && y && xd) {
        fuzz_fill_x(x, xd, F->cols, F->vtype);
        memset(y, 0xff, (size_t)F->rows * vs); /* NaN */
        st = rvs_cpu_spmv(F, x, y, &err);
        if (st != RVS_OK)
            FUZZ_FINDING("format %d: kernel refused a validated block: %s", (int)F->id, err.msg);
        snprintf(what, sizeof what, "format %d", (int)F->id);
        fuzz_check_y(what, &C, xd, y, F->vtype);
    }
    free(x);
    free(y);
    free(xd);
    rvs_csr_free(&C);
}

/* What spmv does for a part without a block: the part's rows (or the hub) in CSR, multiplied. */
static void check_part_csr(const rvs_stream *S, int part)
{
    rvs_csr C = {0};
    rvs_fmt F = {0};
    rvs_error err;
    rvs_status st = part < 0 ? rvs_csr_copy(&C, &S->A, &err)
                             : rvs_partition_extract(&C, &S->partition, part, &S->A, &err);
    if (st == RVS_OK && !C.colind64) {
        st = rvs_fmt_from_csr(&F, RVS_FMT_CSR, &C, NULL, &err);
        if (st != RVS_OK && st != RVS_ERR_NOMEM && st != RVS_ERR_OVERFLOW)
            FUZZ_FINDING("part %d of a validated stream does not build as CSR: %s", part, err.msg);
        if (st == RVS_OK)
            check_block(&F);
    }
    rvs_fmt_free(&F);
    rvs_csr_free(&C);
}

void fuzz_check_spmv(const rvs_stream *S)
{
    for (int i = 0; i < S->nfmt; i++)
        check_block(&S->fmt[i].fmt);
    check_part_csr(S, -1);
    for (int p = 0; S->has_partition && p < S->partition.k; p++)
        check_part_csr(S, p);
}
